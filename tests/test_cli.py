#!/usr/bin/env python3
"""test_cli.py VKINFER: the command-line tool as a user meets it.

Exit codes and which stream says what (help on stdout with 0, mistakes on stderr with 2,
failures with 1), every verb's --help, --version, that --json is one valid JSON document
on every verb (strings escaped), that values out of range and flags of another verb are
refused naming the flag, that paths are checked before a graph is built, that --device
wins over VKI_DEVICE, the cache directory, bench over several models (JSON and CSV), tune
and calibrate with progress, info naming an op vkinfer lacks, and the README's main job:
face detection on astronaut.png finds the face (IoU >= 0.5 with x 179..273, y 81..176 of
the 512x512 photo) and nothing else, and --out writes the picture.

Models come from $VKI_MODEL_DIR (tools/fetch_models.sh); the cache goes to a temporary
$XDG_CACHE_HOME. Needs only python3.
"""
import csv
import io
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

CLI = None
MODELS = os.environ.get('VKI_MODEL_DIR', 'models/cache')
TMP = tempfile.mkdtemp(prefix='vki-cli-')
# vkinfer's cache goes to a temporary XDG directory; Mesa's shader cache stays where it
# was, so that lavapipe does not recompile every kernel at its first dispatch (a cold
# pose_landmark_lite run took over the 60 s run wait under AddressSanitizer).
MESA_CACHE = os.environ.get('MESA_SHADER_CACHE_DIR') or os.path.join(
    os.environ.get('XDG_CACHE_HOME') or os.path.join(os.path.expanduser('~'), '.cache'),
    'mesa_shader_cache')
ENV = dict(os.environ, XDG_CACHE_HOME=os.path.join(TMP, 'xdg'), MESA_SHADER_CACHE_DIR=MESA_CACHE)
ENV.pop('VKI_DEVICE', None)
ENV.pop('VKI_CACHE_DIR', None)
FACE = os.path.join(MODELS, 'face_detection_short_range.tflite')
FACE_FULL = os.path.join(MODELS, 'face_detection_full_range.tflite')
SELFIE = os.path.join(MODELS, 'selfie_segmentation.tflite')
POSE = os.path.join(MODELS, 'pose_landmark_lite.tflite')
PHOTO = os.path.join(MODELS, 'astronaut.png')
TRUE_FACE = (179, 81, 273, 176)
VERBS = ['run', 'bench', 'tune', 'calibrate', 'pack', 'info', 'plan', 'help', 'version']


def vkinfer(*args, env=None, check=None):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, env=env or ENV,
                       timeout=600)
    if check is not None and p.returncode != check:
        raise AssertionError('vkinfer %s: exit %d, want %d\nstdout: %s\nstderr: %s' % (
            ' '.join(args), p.returncode, check, p.stdout[-2000:], p.stderr[-2000:]))
    return p


def iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def png_size(path):
    with open(path, 'rb') as f:
        head = f.read(33)
    assert head[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG: %r' % head[:8]
    return struct.unpack('>II', head[16:24])


def png_pixels(path):
    """RGB rows of an 8-bit RGB PNG (what the tool writes), decoded with zlib alone."""
    with open(path, 'rb') as f:
        data = f.read()
    pos, idat, w, h = 8, b'', 0, 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, color = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and color == 2, 'not 8-bit RGB'
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * 3, [], bytearray(w * 3)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b = prev[x]
            c = prev[x - 3] if x >= 3 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows


def patch_first_opcode(src, dst, code):
    """A copy of a .tflite whose first operator code is `code` (< 127): the op stays where
    it is, so the file is well formed but asks for an op vkinfer may lack."""
    with open(src, 'rb') as f:
        b = bytearray(f.read())
    u32 = lambda o: struct.unpack_from('<I', b, o)[0]
    def field(table, i):
        vt = table - struct.unpack_from('<i', b, table)[0]
        vt_len = struct.unpack_from('<H', b, vt)[0]
        off = struct.unpack_from('<H', b, vt + 4 + 2 * i)[0] if 4 + 2 * i < vt_len else 0
        return table + off if off else None
    root = u32(0)
    codes = field(root, 1)
    vec = codes + u32(codes)
    first = vec + 4 + u32(vec + 4)
    dep, builtin = field(first, 0), field(first, 3)
    assert dep is not None, 'first operator code has no deprecated_builtin_code'
    b[dep] = code
    if builtin is not None:
        struct.pack_into('<i', b, builtin, code)
    with open(dst, 'wb') as f:
        f.write(b)


class Help(unittest.TestCase):
    def test_help_on_stdout(self):
        for args in (['--help'], ['-h'], ['help']):
            p = vkinfer(*args, check=0)
            self.assertIn('usage: vkinfer VERB', p.stdout)
            self.assertEqual(p.stderr, '')
            for verb in VERBS:
                self.assertIn(verb, p.stdout)

    def test_no_arguments_is_a_usage_error(self):
        p = vkinfer(check=2)
        self.assertIn('usage', p.stderr)
        self.assertEqual(p.stdout, '')

    def test_every_verb_has_help(self):
        for verb in VERBS:
            for args in ([verb, '--help'], [verb, '-h'], ['help', verb]):
                p = vkinfer(*args, check=0)
                self.assertIn('usage: vkinfer ' + verb, p.stdout)
                self.assertEqual(p.stderr, '')
        self.assertIn('--image', vkinfer('run', '--help').stdout)
        self.assertIn('--csv', vkinfer('bench', '--help').stdout)
        self.assertNotIn('--csv', vkinfer('run', '--help').stdout)

    def test_docs_match_the_help(self):
        """docs/cli.md quotes every help text; it must be what the tool prints."""
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'docs', 'cli.md')
        with open(doc, encoding='utf-8') as f:
            text = f.read()
        blocks = text.split('<!-- help:')[1:]
        self.assertEqual(len(blocks), len(VERBS) + 1)
        for block in blocks:
            verb = block[:block.index('-->')].strip()
            quoted = block.split('```\n', 1)[1].split('\n```', 1)[0] + '\n'
            printed = vkinfer(*([verb, '--help'] if verb else ['--help']), check=0).stdout
            self.assertEqual(quoted, printed, 'docs/cli.md, help of %r' % (verb or 'vkinfer'))

    def test_version(self):
        p = vkinfer('--version', check=0)
        self.assertRegex(p.stdout, r'^vkinfer \d+\.\d+\.\d+ \(library \d+\.\d+\.\d+\)\n$')
        v = json.loads(vkinfer('version', '--json', check=0).stdout)
        self.assertRegex(v['version'], r'^\d+\.\d+\.\d+$')
        self.assertEqual(v['version'], v['library'])

    def test_unknown_verb_and_option(self):
        p = vkinfer('frobnicate', check=2)
        self.assertIn("unknown verb 'frobnicate'", p.stderr)
        p = vkinfer('run', FACE, '--frobnicate', check=2)
        self.assertIn("unknown option '--frobnicate'", p.stderr)


class Mistakes(unittest.TestCase):
    """Each is refused before anything is built, naming the flag."""

    def refused(self, args, words, code=2):
        p = vkinfer(*args, check=code)
        for w in words:
            self.assertIn(w, p.stderr)
        self.assertNotIn('built in', p.stdout)
        return p

    def test_values_out_of_range(self):
        self.refused(['run', FACE, '--runs', '0'], ['--runs', "'0'"])
        self.refused(['bench', FACE, '--runs', '-3'], ['--runs'])
        self.refused(['run', FACE, '--warmup', 'x'], ['--warmup'])
        self.refused(['bench', FACE, '--warmup-ms', '-1'], ['--warmup-ms'])
        self.refused(['run', FACE, '--device', '-1'], ['--device', "'-1'"])
        self.refused(['run', FACE, '--device', ''], ['--device', 'empty'])
        self.refused(['run', FACE, '--threshold', '2'], ['--threshold'])
        self.refused(['run', FACE, '--memory', 'magic'], ['--memory', 'magic'])
        self.refused(['run', FACE, '--task', 'astrology'], ['--task', 'astrology'])
        self.refused(['run', FACE, '--image', PHOTO, '--range', '0,2'], ['--range'])
        self.refused(['run', FACE, '--image', PHOTO, '--mean', '1,2'], ['--mean'])
        self.refused(['run', FACE, '--fp32-ops', '1-3'], ['--fp32-ops', '--fp16'])
        self.refused(['run', FACE, '--fp16', '--fp32-ops', '0-99999'], ['--fp32-ops', '4096'])
        self.refused(['run', FACE, '--fp16', '--fp32-ops', '0-200'], ['--fp32-ops', 'past'], 1)
        self.refused(['version', FACE], ['no operands'])

    def test_flags_of_other_verbs(self):
        self.refused(['run', FACE, '--csv'], ['--csv', 'does not apply', 'bench'])
        self.refused(['plan', FACE, '--runs', '3'], ['--runs', 'does not apply'])
        self.refused(['info', '--image', PHOTO], ['--image', 'does not apply'])
        self.refused(['run', FACE, '--out', 'x.png'], ['--out', 'needs --image'])
        self.refused(['run', FACE, '--runs'], ['--runs', 'needs a value'])
        self.refused(['run', FACE, FACE], ['one model at a time'])
        self.refused(['run'], ['no model'])

    def test_paths_checked_before_building(self):
        missing = os.path.join(TMP, 'missing.tflite')
        self.refused(['run', missing], [missing, 'No such file'], 1)
        short = os.path.join(TMP, 'short.f32')
        open(short, 'wb').write(b'\0' * 12)
        self.refused(['run', FACE, '--input', short], [short, '12 bytes', '196608'], 1)
        self.refused(['run', FACE, '--input', short, '--input', short], ['2 --input'], 1)
        afile = os.path.join(TMP, 'a-file')
        open(afile, 'w').write('x')
        self.refused(['run', FACE, '--save', os.path.join(afile, 'sub')], ['--save'], 1)
        self.refused(['run', FACE, '--check', TMP], ['output_0.f32'], 1)
        self.refused(['run', FACE, '--image', afile], ['--image', afile], 1)
        self.refused(['run', FACE, '--image', PHOTO, '--out', os.path.join(afile, 'x.png')],
                     ['--out'], 1)

    def test_device_flag_wins_over_environment(self):
        env = dict(ENV, VKI_DEVICE='99')
        p = vkinfer('run', FACE, env=env)
        self.assertNotEqual(p.returncode, 0, 'VKI_DEVICE=99 alone should fail')
        vkinfer('run', FACE, '--device', '0', env=env, check=0)


class Run(unittest.TestCase):
    def test_astronaut_face(self):
        """The README's main job: the face found, nothing else above the threshold."""
        out = os.path.join(TMP, 'faces.png')
        p = vkinfer('run', FACE, '--image', PHOTO, '--out', out, '--json', check=0)
        r = json.loads(p.stdout)
        self.assertEqual(r['task'], 'face_detection')
        self.assertEqual((r['image']['width'], r['image']['height']), (512, 512))
        self.assertEqual(len(r['detections']), 1, r['detections'])
        d = r['detections'][0]
        self.assertGreaterEqual(d['score'], r['min_score'])
        self.assertEqual(len(d['keypoints']), 6)
        overlap = iou(d['box'], TRUE_FACE)
        print('astronaut: box %s score %.3f IoU %.3f' % (
            [round(v, 1) for v in d['box']], d['score'], overlap))
        self.assertGreaterEqual(overlap, 0.5)
        self.assertEqual([o['shape'] for o in r['outputs']], [[1, 896, 16], [1, 896, 1]])
        self.assertGreater(r['timings_ms']['median'], 0)
        # The picture: the photo's size, with the box drawn in green on its edge.
        w, h, rows = png_pixels(out)
        self.assertEqual((w, h), (512, 512))
        x0, y0, x1, y1 = (int(round(v)) for v in d['box'])
        ym = (y0 + y1) // 2
        edge = [tuple(rows[ym][3 * x:3 * x + 3]) for x in range(x0 - 3, x0 + 4)]
        self.assertIn((40, 220, 60), edge)

    def test_astronaut_text(self):
        p = vkinfer('run', FACE, '--image', PHOTO, '--runs', '3', check=0)
        self.assertIn('face_detection: 1 found', p.stdout)
        self.assertIn('latency: median', p.stdout)
        self.assertIn('letterboxed', p.stdout)

    def test_full_range_and_threshold(self):
        r = json.loads(vkinfer('run', FACE_FULL, '--image', PHOTO, '--json', check=0).stdout)
        self.assertEqual(len(r['detections']), 1)
        self.assertGreaterEqual(iou(r['detections'][0]['box'], TRUE_FACE), 0.5)
        r = json.loads(vkinfer('run', FACE, '--image', PHOTO, '--json', '--threshold', '0.01',
                               check=0).stdout)
        self.assertAlmostEqual(r['min_score'], 0.01, places=6)
        self.assertGreaterEqual(len(r['detections']), 1)

    def test_segmentation(self):
        out = os.path.join(TMP, 'selfie.png')
        r = json.loads(vkinfer('run', SELFIE, '--image', PHOTO, '--out', out, '--json',
                               check=0).stdout)
        self.assertEqual(r['task'], 'segmentation')
        self.assertEqual((r['mask']['width'], r['mask']['height']), (512, 512))
        self.assertGreater(r['mask']['mean'], 0.05)
        self.assertLess(r['mask']['mean'], 0.95)
        self.assertEqual(png_size(out), (512, 512))

    def test_pose(self):
        """Pose on the whole photo: the nose inside the face, shoulders below it."""
        out = os.path.join(TMP, 'pose.png')
        r = json.loads(vkinfer('run', POSE, '--image', PHOTO, '--out', out, '--json',
                               check=0).stdout)
        self.assertEqual(r['task'], 'pose_landmarks')
        lm = r['landmarks']
        self.assertEqual(len(lm), 33)
        self.assertGreater(r['presence'], 0.5)
        nose, left, right = lm[0], lm[11], lm[12]
        print('pose: nose (%.1f, %.1f), shoulders (%.1f, %.1f) (%.1f, %.1f)' % (
            nose['x'], nose['y'], left['x'], left['y'], right['x'], right['y']))
        self.assertTrue(TRUE_FACE[0] <= nose['x'] <= TRUE_FACE[2] and
                        TRUE_FACE[1] <= nose['y'] <= TRUE_FACE[3], nose)
        self.assertGreater(min(left['y'], right['y']), TRUE_FACE[3])
        self.assertTrue(all(0 <= p['visibility'] <= 1 for p in lm))
        self.assertEqual((r['mask']['width'], r['mask']['height']), (512, 512))
        self.assertEqual(png_size(out), (512, 512))

    def test_other_tasks(self):
        """Every family decodes: hand (21 points), face mesh (468), palm detection, and
        top-5 when asked for classification. A landmark model on the whole photo warns that
        it expects a crop; below its presence threshold it lists and draws no points."""
        for name, task, points, thing in (('hand_landmark_lite', 'hand_landmarks', 21, 'hand'),
                                          ('face_landmark', 'face_mesh', 468, 'face')):
            model = os.path.join(MODELS, name + '.tflite')
            p = vkinfer('run', model, '--image', PHOTO, '--json', check=0)
            self.assertIn('expects a crop around one ' + thing, p.stderr)
            r = json.loads(p.stdout)
            self.assertEqual(r['task'], task)
            # The whole photo: MediaPipe's models see no hand (0.001) and no face (0.000).
            self.assertLess(r['presence'], 0.5)
            self.assertEqual(r['presence_min'], 0.5)
            self.assertFalse(r['found'])
            self.assertEqual(r['landmarks'], [])
            self.assertIn('no %s found (presence' % thing,
                          vkinfer('run', model, '--image', PHOTO, check=0).stdout)
            if thing == 'hand':
                # A threshold under its presence (0.001) lists every point.
                r = json.loads(vkinfer('run', model, '--image', PHOTO, '--json', '--threshold',
                                       '0.0001', check=0).stdout)
                self.assertTrue(r['found'])
                self.assertEqual(len(r['landmarks']), points)
        # The photo shows no open palm (nothing reaches the model's 0.5), so the decoding
        # is checked on the candidates above 0.03 (thirty here, the best near 0.075).
        r = json.loads(vkinfer('run', os.path.join(MODELS, 'palm_detection_lite.tflite'),
                               '--image', PHOTO, '--json', '--threshold', '0.03',
                               check=0).stdout)
        self.assertEqual(r['task'], 'palm_detection')
        self.assertAlmostEqual(r['min_score'], 0.03, places=6)
        self.assertGreater(len(r['detections']), 0, 'no palm candidate above 0.03')
        for d in r['detections']:
            self.assertGreaterEqual(d['score'], r['min_score'])
            self.assertEqual(len(d['keypoints']), 7)
            x0, y0, x1, y1 = d['box']
            self.assertTrue(x0 < x1 and y0 < y1, d['box'])
        r = json.loads(vkinfer('run', SELFIE, '--task', 'classification', '--json',
                               check=0).stdout)
        scores = [c['score'] for c in r['classes']]
        self.assertEqual(len(scores), 5)
        self.assertEqual(scores, sorted(scores, reverse=True))

    def test_raw_inputs_save_and_check(self):
        d = os.path.join(TMP, 'saved')
        p = vkinfer('run', FACE, '--task', 'none', '--save', d, check=0)
        self.assertIn("output 0 'regressors' [1,896,16]:", p.stdout)
        self.assertEqual(os.path.getsize(os.path.join(d, 'output_0.f32')), 896 * 16 * 4)
        r = json.loads(vkinfer('run', FACE, '--check', d, '--json', check=0).stdout)
        self.assertTrue(r['check'])
        self.assertEqual(r['outputs'][0]['check_error'], 0)

    def test_json_strings_escaped(self):
        odd = os.path.join(TMP, 'we"ird\\na\tme.tflite')
        shutil.copy(FACE, odd)
        for args in (['info', odd, '--json'], ['plan', odd, '--json'],
                     ['run', odd, '--json', '--task', 'none']):
            r = json.loads(vkinfer(*args, check=0).stdout)
            self.assertEqual(r['model'], odd)


class Verbs(unittest.TestCase):
    def test_info(self):
        p = vkinfer('info', check=0)
        self.assertRegex(p.stdout, r'(?m)^\* device \d+: ')
        r = json.loads(vkinfer('info', '--json', check=0).stdout)
        self.assertEqual(sum(d['chosen'] for d in r['devices']), 1)
        p = vkinfer('info', FACE, check=0)
        self.assertIn('task face_detection', p.stdout)
        self.assertRegex(p.stdout, r'(?m)^ +\d+ CONV_2D$')
        r = json.loads(vkinfer('info', FACE, '--json', check=0).stdout)
        self.assertEqual(r['unsupported_ops'], 0)
        self.assertTrue(all(o['supported'] for o in r['ops']))

    def test_info_and_profile_number_ops_alike(self):
        """info lists the file's operators; the run line, --profile and --fp32-ops use the same
        numbers (face_detection_short_range: 164 ops, of which 74 float16 DEQUANTIZEs fold at
        load; the stem CONV_2D is op 2, after the two that dequantize its weights)."""
        info = json.loads(vkinfer('info', FACE, '--json', check=0).stdout)
        names = {o['index']: o['name'] for o in info['ops']}
        self.assertEqual(len(names), 164)
        self.assertEqual(info['folded_ops'], 74)
        self.assertEqual(sum(o['folded'] for o in info['ops'] if o['name'] == 'DEQUANTIZE'), 74)
        r = json.loads(vkinfer('run', FACE, '--profile', '--json', check=0).stdout)
        ops = [d for d in r['profile'] if d['op'] >= 0]
        self.assertTrue(ops)
        for d in ops:
            self.assertEqual(d['op_name'], names[d['op']], d)
            self.assertNotEqual(d['op_name'], 'DEQUANTIZE', d)
        self.assertEqual((ops[0]['op'], ops[0]['op_name']), (2, 'CONV_2D'))
        self.assertTrue(ops[0]['kernel'].startswith('conv2d'), ops[0])
        # Its FLOPs: 2 per multiply-add, 64x64x24 outputs of a 5x5x3 window; conversions none.
        self.assertEqual(ops[0]['flops'], 2 * 64 * 64 * 24 * 5 * 5 * 3)
        self.assertTrue(all(d['flops'] == 0 for d in r['profile'] if d['op'] < 0))
        self.assertAlmostEqual(r['gpu_total_flops'], sum(d['flops'] for d in r['profile']),
                               delta=1)
        text = vkinfer('run', FACE, '--profile', check=0).stdout
        self.assertIn(': 164 ops in the file, 90 run after folding, ', text)
        self.assertRegex(text, r'(?m)^ +1 2 CONV_2D +conv2d')
        self.assertRegex(text, r'(?m)^GPU total .* dispatches, [\d.]+ MFLOP counted \([\d.]+ GFLOP/s\)$')
        self.assertRegex(vkinfer('info', FACE, check=0).stdout, r'(?m)^ +2 CONV_2D$')
        # --fp32-ops takes the same numbers, up to the file's last op.
        p = vkinfer('run', FACE, '--fp16', '--fp32-ops', '2,163')
        if p.returncode and 'fp16' in p.stderr:
            self.skipTest('the device has no fp16: ' + p.stderr.strip())
        self.assertEqual(p.returncode, 0, p.stderr)
        p = vkinfer('run', FACE, '--fp16', '--fp32-ops', '164', check=1)
        self.assertIn("op 164 is past the model's last op, 163", p.stderr)

    def test_info_names_unsupported_ops(self):
        bad = os.path.join(TMP, 'where.tflite')
        patch_first_opcode(FACE, bad, 109)      # WHERE: runs nowhere (a data-dependent shape)
        p = vkinfer('info', bad, check=1)
        self.assertRegex(p.stdout, r'(?m)^ +\d+ WHERE +<- not supported$')
        r = json.loads(vkinfer('info', bad, '--json', check=1).stdout)
        self.assertGreater(r['unsupported_ops'], 0)
        self.assertFalse(r['loads'])
        bad_ops = [o for o in r['ops'] if not o['supported']]
        self.assertTrue(all(o['name'] == 'WHERE' for o in bad_ops))
        # The load error names the first one by its index in the file.
        p = vkinfer('run', bad, check=1)
        self.assertIn('op %d WHERE' % bad_ops[0]['index'], p.stderr)

    def test_cpu_ops_signatures_and_shapes(self):
        ops = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'op_models')
        part = os.path.join(ops, 'cpu_partition_gpu_cpu_gpu.tflite')
        p = vkinfer('info', part, check=0)
        self.assertRegex(p.stdout, r'(?m)^ +\d+ TOPK_V2 +\(CPU\)$')
        self.assertIn('on the CPU', p.stdout)
        p = vkinfer('run', part, '--profile', check=0)
        self.assertRegex(p.stdout, r'partition: 3 segments')
        self.assertRegex(p.stdout, r'(?m)^ +1 CPU +1 op from op \d+ TOPK_V2')
        self.assertRegex(p.stdout, r'(?m) cpu ')
        p = vkinfer('run', part, '--gpu-only', check=1)
        self.assertIn('has no GPU kernel and runs on the CPU, but gpu_only is set', p.stderr)
        sig = os.path.join(ops, 'control_signature_encode_decode.tflite')
        p = vkinfer('info', sig, '--signature', 'decode', check=0)
        self.assertIn('signatures: encode decode (loaded)', p.stdout)
        self.assertRegex(p.stdout, r"input \d 'latent' \[2,3,5\]")
        p = vkinfer('run', sig, '--signature', 'serving', check=1)
        self.assertIn("no signature 'serving' (the model has 'encode', 'decode')", p.stderr)
        net = os.path.join(ops, 'resize_net_9x7.tflite')
        p = vkinfer('run', net, '--input-shape', '0:1,13,11,3', check=0)
        self.assertRegex(p.stdout, r"output 0 't\d+' \[1,14,12,2\]")
        p = vkinfer('run', net, '--input-shape', '0:1,13', check=1)
        self.assertIn('input 0', p.stderr)
        p = vkinfer('run', net, '--input-shape', '0:1,x', check=2)
        self.assertIn('--input-shape takes INDEX:DIMS', p.stderr)

    def test_plan(self):
        r = json.loads(vkinfer('plan', FACE, '--json', check=0).stdout)
        self.assertEqual(len(r['plans']), 7)
        self.assertIn('lower bound', vkinfer('plan', FACE, check=0).stdout)

    def test_bench_several_models(self):
        r = json.loads(vkinfer('bench', FACE, SELFIE, '--runs', '3', '--warmup', '1', '--json',
                               check=0).stdout)
        self.assertEqual([m['model'] for m in r['models']], [FACE, SELFIE])
        # Warm-up by time by default: at least 1 s and 1 run, then until steady (or 5 s).
        self.assertEqual(r['warmup_min_ms'], 1000)
        for m in r['models']:
            self.assertGreaterEqual(m['warmup_ms'], 1000)
            self.assertLessEqual(m['warmup_ms'], 5000 + 2 * m['latency_ms']['max'])
            self.assertGreaterEqual(m['warmup_runs'], 1)
            self.assertIn(m['steady'], (True, False))
            lat = m['latency_ms']
            self.assertLessEqual(lat['min'], lat['median'])
            self.assertLessEqual(lat['p10'], lat['p90'])
            self.assertGreater(m['build_cold_ms'], 0)
            self.assertGreater(m['first_run_ms'], 0)
            self.assertGreaterEqual(lat['std'], 0)
        rows = list(csv.DictReader(io.StringIO(vkinfer('bench', FACE, SELFIE, '--runs', '2',
                                                       '--warmup', '0', '--csv', check=0).stdout)))
        self.assertEqual([row['model'] for row in rows], [FACE, SELFIE])
        self.assertGreater(float(rows[0]['median_ms']), 0)
        p = vkinfer('bench', FACE, '--runs', '2', '--warmup', '2', '--warmup-ms', '0', '--with-io',
                    check=0)
        self.assertIn('input copy timed', p.stdout)
        self.assertIn('2 runs after 2 warm-up on', p.stdout)
        # By count alone, exactly that many; a run of several warms up by time and says so.
        r = json.loads(vkinfer('run', FACE, '--runs', '2', '--warmup', '3', '--warmup-ms', '0',
                               '--json', check=0).stdout)['timings_ms']
        self.assertEqual((r['warmup_runs'], r['steady']), (3, False))
        p = vkinfer('run', FACE, '--runs', '2', '--warmup-ms', '20', check=0)
        self.assertRegex(p.stdout, r'2 runs after a warm-up of \d+ runs in [\d.]+ s, '
                                   r'(steady|not steady at its time limit);')

    def test_bench_reports_a_bad_model_and_goes_on(self):
        missing = os.path.join(TMP, 'nope.tflite')
        self.assertEqual(vkinfer('bench', FACE, missing).returncode, 1)

    def test_tune_with_progress(self):
        tf = os.path.join(TMP, 'tuning.txt')
        rows = os.path.join(TMP, 'rows.txt')
        p = vkinfer('tune', FACE, '--tuning-file', tf, '--runs', '3', '--warmup', '1', '--json',
                    '--export-table', rows, check=0)
        r = json.loads(p.stdout)
        m = r['models'][0]
        self.assertEqual(m['tuning_file'], tf)
        self.assertGreater(m['dispatches'], 0)
        self.assertGreater(m['before_ms'], 0)
        self.assertRegex(p.stderr, r'(?m)^tune: \d+/\d+$')
        self.assertRegex(p.stderr, r'(?m)^export: \d+/\d+$')
        self.assertTrue(os.path.exists(tf))
        # The exported rows: a source naming the model, a family, rows citing the source;
        # a later run reads them back.
        self.assertEqual(r['export_table'], rows)
        with open(rows, encoding='utf-8') as f:
            text = f.read()
        self.assertRegex(text, r'(?m)^source \S+-tuned vkinfer tune on .*face_detection_short_range')
        self.assertRegex(text, r'(?m)^family \S+ vendor=0x[0-9A-F]{4}')
        self.assertRegex(text, r'(?m)^(conv|conv_1x1|depthwise|elementwise|pool) +\S+ +\S+ +\d+x\d+x\d+ +\S+-tuned$')
        vkinfer('run', FACE, '--workgroup-table', rows, check=0)

    def test_a_bad_workgroup_table_names_its_line(self):
        bad = os.path.join(TMP, 'bad_rows.txt')
        with open(bad, 'w', encoding='utf-8') as f:
            f.write('source s a test\nfamily f\nconv * * 8x8 s\n')
        p = vkinfer('run', FACE, '--workgroup-table', bad, check=1)
        self.assertIn(bad + ':3:', p.stderr)

    def test_calibrate_with_progress(self):
        p = vkinfer('calibrate', FACE, '--runs', '2', '--warmup', '0', '--json')
        if p.returncode and 'fp16' in p.stderr:
            self.skipTest('the device has no fp16: ' + p.stderr.strip())
        self.assertEqual(p.returncode, 0, p.stderr)
        r = json.loads(p.stdout)
        self.assertIn('fp32', r['latency_ms'])
        self.assertRegex(p.stderr, r'(?m)^calibrate: \d+/\d+$')


class Cache(unittest.TestCase):
    def test_default_cache_directory(self):
        xdg = os.path.join(TMP, 'xdg-default')
        vkinfer('run', FACE, env=dict(ENV, XDG_CACHE_HOME=xdg), check=0)
        self.assertTrue(os.listdir(os.path.join(xdg, 'vkinfer')))

    def test_no_cache(self):
        xdg = os.path.join(TMP, 'xdg-none')
        vkinfer('run', FACE, '--no-cache', env=dict(ENV, XDG_CACHE_HOME=xdg), check=0)
        self.assertFalse(os.path.exists(os.path.join(xdg, 'vkinfer')))

    def test_unusable_cache_directory_warns(self):
        afile = os.path.join(TMP, 'cache-is-a-file')
        open(afile, 'w').write('x')
        p = vkinfer('run', FACE, env=dict(ENV, XDG_CACHE_HOME=afile), check=0)
        self.assertIn('warning', p.stderr)
        self.assertIn(afile, p.stderr)


def png_write(path, w, h, rows):
    """An 8-bit RGB PNG of rows (bytes of 3 * w each), with zlib alone."""
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    raw = b''.join(b'\x00' + bytes(r) for r in rows)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) +
                chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b''))


def pan_frames(folder, rows, w, h, y0, steps):
    """Frames f00.png ... of a w x h window of a photo's rows, from row y0, its left edge
    at each x of steps (the window panning over the photo)."""
    os.makedirs(folder, exist_ok=True)
    for f, dx in enumerate(steps):
        png_write(os.path.join(folder, 'f%02d.png' % f), w, h,
                  [rows[y][3 * dx:3 * (dx + w)] for y in range(y0, y0 + h)])
    return folder


FACE_MESH = os.path.join(MODELS, 'face_landmark.tflite')
POSE = os.path.join(MODELS, 'pose_landmark_lite.tflite')
POSE_DETECTOR = os.path.join(MODELS, 'pose_detection.tflite')
HAND = os.path.join(MODELS, 'hand_landmark_lite.tflite')
PALM = os.path.join(MODELS, 'palm_detection_lite.tflite')
CAMERA = os.path.join(MODELS, 'camera.png')
HAND_PHOTO = os.path.join(MODELS, 'hand.jpg')
# Marked by hand on hand.jpg (photo pixels): the end of each finger, its outline's farthest
# point along the finger (thumb 4, index 8, middle 12, ring 16, little 20).
FINGER_ENDS = {4: (258, 8), 8: (495, 137), 12: (550, 255), 16: (530, 318), 20: (445, 438)}
# MediaPipe's own results on the same photos (tools/mediapipe_ref: its npm solutions in
# headless Chromium; _cpu: TFLite's float32 CPU kernels, _gpu: its WebGL delegate).
MEDIAPIPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'mediapipe')
# Marked by hand on astronaut.png (photo pixels): the pupils and the middle of the lips.
MARKED = {'right eye': (204.4, 102.0), 'left eye': (245.0, 103.6), 'lips': (225.0, 145.0)}


class Solutions(unittest.TestCase):
    """run --detector: MediaPipe's chains, detector -> rotated crop -> landmarks."""

    def test_face_mesh_on_the_astronaut(self):
        out = os.path.join(TMP, 'mesh.png')
        r = json.loads(vkinfer('run', FACE_MESH, '--detector', FACE, '--image', PHOTO, '--out', out,
                               '--json', check=0).stdout)
        self.assertEqual(r['solution'], 'face_mesh')
        self.assertEqual(len(r['found']), 1)
        face = r['found'][0]
        pts = [(p['x'], p['y']) for p in face['landmarks']]
        self.assertEqual(len(pts), 468)
        self.assertGreater(face['presence'], 0.5)
        # Every point on the face: inside the detector's box grown by a tenth of its size
        # (the mesh reaches up the forehead, above MediaPipe's face box: 14 points, up to
        # 9.2 px of the box's 92).
        box = json.loads(vkinfer('run', FACE, '--image', PHOTO, '--json', check=0).stdout)[
            'detections'][0]['box']
        mx, my = 0.1 * (box[2] - box[0]), 0.1 * (box[3] - box[1])
        outside = [p for p in pts if not (box[0] - mx <= p[0] <= box[2] + mx and
                                          box[1] - my <= p[1] <= box[3] + my)]
        self.assertEqual(outside, [])
        # Eyes (the middle of each eye's corners 33-133, 362-263) and lips (13-14) within 5%
        # of the face's width of the hand-marked points.
        mid = lambda a, b: ((pts[a][0] + pts[b][0]) / 2, (pts[a][1] + pts[b][1]) / 2)
        got = {'right eye': mid(33, 133), 'left eye': mid(362, 263), 'lips': mid(13, 14)}
        width = box[2] - box[0]
        for name, want in MARKED.items():
            d = math.dist(got[name], want)
            print('face mesh: %s %.1f px from the mark (%.1f%% of the face width)' % (
                name, d, 100 * d / width))
            self.assertLessEqual(d, 0.05 * width, name)
        self.assertEqual(png_size(out), (512, 512))

    def test_pose_on_the_astronaut(self):
        r = json.loads(vkinfer('run', POSE, '--detector', POSE_DETECTOR, '--image', PHOTO, '--json',
                               check=0).stdout)
        self.assertEqual(r['solution'], 'pose')
        self.assertEqual(len(r['found']), 1)
        pts = [(p['x'], p['y']) for p in r['found'][0]['landmarks']]
        self.assertEqual(len(pts), 33)
        # The nose on the face, the shoulders (11, 12) below it and on either side.
        x0, y0, x1, y1 = TRUE_FACE
        self.assertTrue(x0 <= pts[0][0] <= x1 and y0 <= pts[0][1] <= y1, pts[0])
        self.assertGreater(min(pts[11][1], pts[12][1]), y1)
        self.assertLess(pts[12][0], pts[0][0])
        self.assertGreater(pts[11][0], pts[0][0])

    def hand_photo_pixels(self):
        """hand.jpg's pixels as vkinfer decodes them: drawn with nothing found (no presence
        is above 1), the picture is the photo."""
        plain = os.path.join(TMP, 'hand_plain.png')
        p = vkinfer('run', HAND, '--detector', PALM, '--image', HAND_PHOTO, '--threshold', '1',
                    '--out', plain, check=0)
        self.assertIn('hands: no hand found', p.stdout)
        return png_pixels(plain)

    def test_hands_on_a_bare_hand(self):
        """hand.jpg, one open left hand seen from the palm, fingers to the right: one hand,
        the person's left, every point on the skin, each fingertip on its finger."""
        w, h, rows = self.hand_photo_pixels()
        self.assertEqual((w, h), (640, 480))
        for lm, det in ((HAND, PALM), (os.path.join(MODELS, 'hand_landmark_full.tflite'),
                                       os.path.join(MODELS, 'palm_detection_full.tflite'))):
            r = json.loads(vkinfer('run', lm, '--detector', det, '--image', HAND_PHOTO, '--json',
                                   check=0).stdout)
            self.assertEqual(r['solution'], 'hands')
            self.assertEqual(len(r['found']), 1, lm)
            hand = r['found'][0]
            self.assertEqual(hand['handedness'], 'left')
            self.assertGreater(hand['presence'], 0.5)
            pts = [(p['x'], p['y']) for p in hand['landmarks']]
            self.assertEqual(len(pts), 21)
            # Skin is redder than green by 15-40 here, the grey table is not (-5 to -14).
            for i, (x, y) in enumerate(pts):
                xi, yi = min(max(int(x), 0), w - 1), min(max(int(y), 0), h - 1)
                red, green = rows[yi][3 * xi], rows[yi][3 * xi + 1]
                self.assertGreater(red - green, 10, 'point %d at (%.0f, %.0f) is off the hand' %
                                   (i, x, y))
            # Each tip within 40 px (the fingers are 50-60 px wide) of its finger's end and
            # nearer to it than to any other's; the wrist at the photo's left edge.
            for tip, end in FINGER_ENDS.items():
                d = math.dist(pts[tip], end)
                print('hands (%s): tip %d %.1f px from the finger end' % (
                    os.path.basename(lm), tip, d))
                self.assertLess(d, 40, tip)
                self.assertEqual(min(FINGER_ENDS, key=lambda t: math.dist(pts[tip], FINGER_ENDS[t])),
                                 tip)
            self.assertLess(pts[0][0], 20)

    def test_hands_tracked_over_frames(self):
        """Ten frames of hand.jpg moving 4 px a frame: with --num 1 the detector runs on the
        first only; with the default, two hands, it runs on every frame, since one hand is
        tracked (MediaPipe's num_hands 2)."""
        w, h, rows = self.hand_photo_pixels()
        frames = pan_frames(os.path.join(TMP, 'hand_frames'), rows, 560, 440, 20,
                            range(0, 40, 4))
        for num, runs in (('1', 1), (None, 10)):
            r = json.loads(vkinfer('run', HAND, '--detector', PALM, '--frames', frames, '--json',
                                   *(('--num', num) if num else ()), check=0).stdout)
            self.assertEqual(r['frames'], 10)
            self.assertEqual(r['detector_runs'], runs)
            self.assertEqual(r['frames_with_hand'], 10)
            # The last frame is shifted 36 px left and 20 up: the index tip moves with it.
            tip = r['found'][0]['landmarks'][8]
            self.assertLess(math.dist((tip['x'], tip['y']),
                                      (FINGER_ENDS[8][0] - 36, FINGER_ENDS[8][1] - 20)), 40)

    def test_against_mediapipe(self):
        """Every point of each solution against MediaPipe's own on the same photo, run by
        its npm packages with float32 CPU inference: face mesh and pose within 0.05 px
        (measured: under 0.01), hands within 1.5 px (measured: 0.67 full, 1.06 lite; the
        photo is letterboxed for the palm detector, 640x480 into 192x192); the hand's side
        agrees (MediaPipe's label assumes a mirrored photo: "Right" on this unmirrored
        one is the person's left hand, with the score of "Left" 1 - its score)."""
        cases = (('face_mesh_astronaut', FACE_MESH, FACE, PHOTO, 0.05),
                 ('pose_full_astronaut', os.path.join(MODELS, 'pose_landmark_full.tflite'),
                  POSE_DETECTOR, PHOTO, 0.05),
                 ('pose_lite_astronaut', POSE, POSE_DETECTOR, PHOTO, 0.05),
                 ('hands_full_hand', os.path.join(MODELS, 'hand_landmark_full.tflite'),
                  os.path.join(MODELS, 'palm_detection_full.tflite'), HAND_PHOTO, 1.5),
                 ('hands_lite_hand', HAND, PALM, HAND_PHOTO, 1.5))
        for name, lm, det, photo, tol in cases:
            with open(os.path.join(MEDIAPIPE, name + '_cpu.json')) as f:
                ref = json.load(f)
            self.assertEqual(ref['photo'], os.path.basename(photo))
            self.assertEqual(len(ref['results']), 1, name)
            r = json.loads(vkinfer('run', lm, '--detector', det, '--image', photo, '--json',
                                   check=0).stdout)
            self.assertEqual(len(r['found']), 1, name)
            got, want = r['found'][0], ref['results'][0]
            # MediaPipe gives pose's 33 landmarks; vkinfer all 39 the model has.
            pts = [(p['x'], p['y']) for p in got['landmarks']][:len(want['landmarks'])]
            d = [math.dist(a, b[:2]) for a, b in zip(pts, want['landmarks'])]
            print('%s: %d points against MediaPipe, mean %.3f px, worst %.3f px (point %d)' % (
                name, len(d), sum(d) / len(d), max(d), d.index(max(d))))
            self.assertEqual(len(d), len(want['landmarks']))
            self.assertLessEqual(max(d), tol, name)
            if 'handedness' in want:
                self.assertEqual(want['handedness']['label'], 'Right')
                self.assertEqual(got['handedness'], 'left')
                self.assertAlmostEqual(got['handedness_score'], 1 - want['handedness']['score'],
                                       delta=0.01)
        # camera.png: MediaPipe finds no hand either.
        with open(os.path.join(MEDIAPIPE, 'hands_lite_camera_cpu.json')) as f:
            self.assertEqual(json.load(f)['results'], [])

    def test_the_library_example(self):
        """examples/solution.c, the chain written against the library alone, gives
        MediaPipe's points on the three solutions, as the CLI does."""
        example = os.path.join(os.path.dirname(CLI), 'examples', 'solution')
        if not os.path.exists(example):
            self.skipTest('no examples in this build (a library without the compiler)')
        w, h, rows = self.hand_photo_pixels()
        photos = {}
        for name, (pw, ph, prow) in (('astronaut', png_pixels(PHOTO)), ('hand', (w, h, rows))):
            photos[name] = os.path.join(TMP, name + '.ppm')
            with open(photos[name], 'wb') as f:
                f.write(b'P6 %d %d 255\n' % (pw, ph) + b''.join(bytes(r) for r in prow))
        for name, det, lm, photo, tol in (
                ('face_mesh_astronaut', FACE, FACE_MESH, 'astronaut', 0.05),
                ('hands_lite_hand', PALM, HAND, 'hand', 1.5),
                ('pose_full_astronaut', POSE_DETECTOR,
                 os.path.join(MODELS, 'pose_landmark_full.tflite'), 'astronaut', 0.05)):
            p = subprocess.run([example, det, lm, photos[photo]], capture_output=True, text=True,
                               env=ENV, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            self.assertTrue(lines[0].endswith(': 1 found'), lines[0])
            if photo == 'hand':
                self.assertIn("the person's left hand", lines[1])
            pts = [tuple(map(float, l.split())) for l in lines[2:]]
            with open(os.path.join(MEDIAPIPE, name + '_cpu.json')) as f:
                want = json.load(f)['results'][0]['landmarks']
            self.assertEqual(len(pts), len(want), name)
            self.assertLessEqual(max(math.dist(a, b[:2]) for a, b in zip(pts, want)), tol, name)

    def test_below_the_presence_threshold_nothing_is_drawn(self):
        """camera.png: the palm detector finds the gloved hand on the camera, the hand model
        does not see a hand there (presence 0.002): nothing found, nothing drawn."""
        out = os.path.join(TMP, 'hands.png')
        p = vkinfer('run', HAND, '--detector', PALM, '--image', CAMERA, '--out', out, check=0)
        self.assertIn('hands: no hand found', p.stdout)
        # The photo is grey: any coloured pixel would be a drawing.
        w, h, rows = png_pixels(out)
        self.assertEqual((w, h), (512, 512))
        coloured = sum(1 for row in rows for x in range(w)
                       if not row[3 * x] == row[3 * x + 1] == row[3 * x + 2])
        self.assertEqual(coloured, 0)
        r = json.loads(vkinfer('run', HAND, '--detector', PALM, '--image', CAMERA, '--json',
                               '--threshold', '1e-6', check=0).stdout)
        self.assertEqual(len(r['found']), 1)
        self.assertIn(r['found'][0]['handedness'], ('left', 'right'))
        self.assertLess(r['found'][0]['presence'], 0.5)

    def test_frames_track(self):
        """Ten frames of the photo moving 3 px a frame: the detector runs on the first only,
        the face is found in all of them and follows the motion."""
        w, h, rows = png_pixels(PHOTO)
        frames = pan_frames(os.path.join(TMP, 'frames'), rows, 448, 448, 32, range(0, 30, 3))
        drawn = os.path.join(TMP, 'drawn')
        r = json.loads(vkinfer('run', FACE_MESH, '--detector', FACE, '--frames', frames, '--out',
                               drawn, '--json', check=0).stdout)
        self.assertEqual(r['frames'], 10)
        self.assertEqual(r['detector_runs'], 1)
        self.assertEqual(r['frames_with_face'], 10)
        self.assertEqual(sorted(os.listdir(drawn)), ['f%02d.png' % f for f in range(10)])
        # The last frame is shifted 27 px left and 32 up: the right eye moves with it.
        pts = r['found'][0]['landmarks']
        eye = ((pts[33]['x'] + pts[133]['x']) / 2, (pts[33]['y'] + pts[133]['y']) / 2)
        want = (MARKED['right eye'][0] - 27, MARKED['right eye'][1] - 32)
        self.assertLess(math.dist(eye, want), 5, eye)
        self.assertGreater(r['timings_ms']['per_frame']['median'], 0)

    def test_rotated_crop_round_trip(self):
        """--roi: the face mesh on the photo turned a quarter clockwise, through the region
        turned with it, maps back to where the upright run puts every point (the crops hold
        the same pixels); a region turned 15 degrees further moves the points by what the
        model itself makes of the tilt (2.5 px on average here), not by a mapping error."""
        w, h, rows = png_pixels(PHOTO)
        turned = [bytearray(3 * h) for _ in range(w)]
        for y in range(w):
            for x in range(h):
                turned[y][3 * x:3 * x + 3] = rows[h - 1 - x][3 * y:3 * y + 3]
        quarter = os.path.join(TMP, 'quarter.png')
        png_write(quarter, h, w, turned)
        def points(photo, cx, cy, deg):
            r = json.loads(vkinfer('run', FACE_MESH, '--image', photo, '--roi',
                                   '%g,%g,139,139,%g' % (cx, cy, deg), '--json', check=0).stdout)
            self.assertIsNone(r['detector'])
            self.assertEqual(r['detector_runs'], 0)
            return [(p['x'], p['y']) for p in r['found'][0]['landmarks']]
        upright = points(PHOTO, 225.4, 127.6, 10.2)
        # Photo point (x, y) is (h - y, x) on the turned photo.
        back = [(y, h - x) for x, y in points(quarter, h - 127.6, 225.4, 100.2)]
        worst = max(math.dist(a, b) for a, b in zip(upright, back))
        print('round trip through a quarter turn: worst %.2g px' % worst)
        self.assertLess(worst, 0.01)
        tilted = points(PHOTO, 225.4, 127.6, 25.2)
        mean = sum(math.dist(a, b) for a, b in zip(upright, tilted)) / len(upright)
        print('region turned 15 degrees further: points move %.2f px on average' % mean)
        self.assertLess(mean, 0.05 * 92)

    def test_solution_mistakes(self):
        for args, words, code in (
                (['run', FACE_MESH, '--frames', TMP], ['--frames needs --detector'], 2),
                (['run', FACE_MESH, '--detector', FACE], ['--detector needs --image'], 2),
                (['run', FACE_MESH, '--detector', FACE, '--image', PHOTO, '--input', PHOTO],
                 ['--input'], 2),
                (['run', FACE_MESH, '--detector', PALM, '--image', PHOTO],
                 ['palm_detection', 'takes face_detection'], 1),
                (['run', FACE, '--detector', FACE, '--image', PHOTO], ['face_detection model'], 1),
                (['run', FACE_MESH, '--detector', FACE, '--frames', os.path.join(TMP, 'none')],
                 ['none'], 1),
                (['run', FACE_MESH, '--image', PHOTO, '--roi', '1,2,3'], ['CX,CY,W,H,DEG'], 2),
                (['run', FACE_MESH, '--image', PHOTO, '--roi', '1,2,0,4,5'], ['above 0'], 2),
                (['run', FACE_MESH, '--roi', '1,2,3,4,5'], ['--roi needs --image'], 2),
                (['run', FACE_MESH, '--image', PHOTO, '--num', '1'], ['--num needs --detector'], 2),
                (['run', FACE_MESH, '--detector', FACE, '--image', PHOTO, '--num', '5'],
                 ['--num takes 1 to 4'], 2),
                (['run', FACE_MESH, '--detector', FACE, '--image', PHOTO, '--num', '0'],
                 ['--num'], 2),
                (['run', FACE_MESH, '--detector', FACE, '--image', PHOTO, '--roi', '1,2,3,4,5'],
                 ['--roi and --detector'], 2)):
            p = vkinfer(*args, check=code)
            for w in words:
                self.assertIn(w, p.stderr)


class Pack(unittest.TestCase):
    def test_pack_then_run_from_it(self):
        pack = os.path.join(TMP, 'face.vkpack')
        p = vkinfer('pack', FACE, '-o', pack, '--no-cache', '--json', check=0)
        r = json.loads(p.stdout)
        self.assertEqual(r['pack'], pack)
        self.assertGreater(r['kernels'], 0)
        self.assertEqual(r['bytes'], os.path.getsize(pack))
        r = json.loads(vkinfer('run', FACE, '--kernel-pack', pack, '--no-cache', '--json',
                               check=0).stdout)
        self.assertEqual(r['kernels']['compiled'], 0)
        self.assertGreater(r['kernels']['from_pack'], 0)
        # The environment names a pack when the flag does not.
        p = vkinfer('run', FACE, '--no-cache', env=dict(ENV, VKI_KERNEL_PACK=pack), check=0)
        self.assertIn('kernels from the pack', p.stdout)

    def test_pack_mistakes(self):
        for args, words, code in (
                (['pack', FACE], ['-o'], 2),
                (['pack', FACE, '-o', 'x.vkpack', '--precision', 'fp64'], ['--precision'], 2),
                (['pack', FACE, '-o', 'x.vkpack', '--precision', 'fp32,fp32'], ['twice'], 2),
                (['run', FACE, '--kernel-pack', FACE], ['not a kernel pack', 'VKI_ERROR_IO'], 1)):
            p = vkinfer(*args, check=code)
            for w in words:
                self.assertIn(w, p.stderr)


if __name__ == '__main__':
    CLI = os.path.abspath(sys.argv.pop(1))
    try:
        unittest.main(verbosity=2)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
