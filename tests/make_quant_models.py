#!/usr/bin/env python3
"""make_quant_models.py NODE_MODULES OUT_DIR: writes the int8 test models and LiteRT's
outputs for them (tests/data/quant, read by tests/test_quant.c).

There is no TensorFlow here, so this does what TFLite's converter does, in plain Python:
  - int8_cnn: full-integer quantization with float input and output (QUANTIZE first,
    DEQUANTIZE last), per-channel int8 weights, int32 biases at input_scale * weight_scale,
    int8 activations whose ranges come from a calibration run: the float model with every
    intermediate as an output, run by LiteRT on the test input;
  - hybrid_conv_fc: dynamic-range quantization, float activations with per-channel int8
    weights on CONV_2D and FULLY_CONNECTED; hybrid_dw_bmm the same for DEPTHWISE_CONV_2D
    (axis 3) and BATCH_MATMUL;
  - int8_io and uint8_io: int8 (uint8) graph input and output around CONV_2D, MAX_POOL_2D,
    AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED and LOGISTIC; their .in.f32 holds the input's
    real values and .litert.f32 the output's (pool_models says how LiteRT ran them);
  - dequant: constants for the loader's dequantization, checked value for value.
For each model it writes MODEL.tflite, MODEL.in.f32 (the input), MODEL.litert.f32 (LiteRT's
outputs, concatenated) and MODEL.float.f32 (the float model's, for the int8-vs-float
figure), and a few tiny models whose quantization is malformed (bad_*.tflite) for the
loader's errors. NODE_MODULES is a node_modules directory holding @litertjs/core (LiteRT.js,
after `npm ci` of its package.json); tests/op_models/run_litert.mjs runs it. The data are
deterministic (seeded).
"""
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer  # noqa: E402

RNG = random.Random(20261124)


def rand(n, lo=-1.0, hi=1.0):
    return [RNG.uniform(lo, hi) for _ in range(n)]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def quantize_per_channel(values, shape, axis):
    """Symmetric int8 weights, one scale per index along axis (as the converter writes)."""
    n = shape[axis]
    inner = count(shape[axis + 1:])
    peak = [0.0] * n
    for i, v in enumerate(values):
        c = (i // inner) % n
        peak[c] = max(peak[c], abs(v))
    scale = [p / 127.0 if p > 0 else 1.0 for p in peak]
    q = [max(-127, min(127, round(v / scale[(i // inner) % n]))) for i, v in enumerate(values)]
    real = [scale[(i // inner) % n] * q[i] for i in range(len(q))]
    return q, scale, real


def activation_grid(lo, hi):
    """Asymmetric int8 scale and zero point covering [min(lo,0), max(hi,0)]."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero = max(-128, min(127, round(-128 - lo / scale)))
    return scale, zero


def run_litert(node_modules, model_bytes, inputs, workdir, name):
    """LiteRT's outputs for the model on `inputs` (one list of values per graph input; a
    uint8 input's values are its raw integers), with tests/op_models/run_litert.mjs."""
    if inputs and not isinstance(inputs[0], list):
        inputs = [inputs]
    path = os.path.join(workdir, name + '.tflite')
    with open(path, 'wb') as f:
        f.write(model_bytes)
    files = []
    for i, values in enumerate(inputs):
        files.append(os.path.join(workdir, '%s.in%d.f32' % (name, i)))
        with open(files[-1], 'wb') as f:
            f.write(struct.pack('<%df' % len(values), *values))
    prefix = os.path.join(workdir, name)
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'op_models', 'run_litert.mjs')
    subprocess.run(['node', runner, node_modules, path, prefix] + files, check=True,
                   stdout=subprocess.DEVNULL)
    outputs, i = [], 0
    while os.path.exists('%s.out%d.f32' % (prefix, i)):
        with open('%s.out%d.f32' % (prefix, i), 'rb') as f:
            data = f.read()
        outputs.append(list(struct.unpack('<%df' % (len(data) // 4), data)))
        i += 1
    return outputs


# ---- the CNN: its float layers, then its int8 form ----------------------------------------

X_SHAPE = [1, 9, 7, 3]


def add_tensor(tensors, index, name, shape, ttype='float32', data=None, q=None):
    """Appends a spec tensor (data and quantization optional) and records its index by
    name; returns the index."""
    t = {'name': name, 'shape': shape, 'type': ttype}
    if data is not None:
        t['data'] = data
    if q:
        t['quant'] = q
    index[name] = len(tensors)
    tensors.append(t)
    return index[name]


def cnn_layers():
    w1, s1 = [5, 3, 3, 3], None
    w1v = rand(count(w1), -0.6, 0.6)
    w2 = [1, 3, 3, 5]
    w2v = rand(count(w2), -0.8, 0.8)
    w3 = [5, 1, 1, 5]
    w3v = rand(count(w3), -0.8, 0.8)
    w4 = [4, 5]
    w4v = rand(count(w4), -1.5, 1.5)
    return {'w1': (w1, w1v, 0, rand(5, -0.2, 0.2)), 'w2': (w2, w2v, 3, rand(5, -0.2, 0.2)),
            'w3': (w3, w3v, 0, rand(5, -0.2, 0.2)), 'w4': (w4, w4v, 0, rand(4, -0.2, 0.2))}


# Activations: name, shape.
ACTS = [('c1', [1, 9, 7, 5]), ('d1', [1, 5, 4, 5]), ('c2', [1, 5, 4, 5]), ('a1', [1, 5, 4, 5]),
        ('m1', [1, 5]), ('f1', [1, 4]), ('s1', [1, 4])]


def cnn_spec(layers, quant, grids=None):
    """The CNN as a spec: float (quant False; every activation an output, for calibration)
    or int8 (grids: name -> (scale, zero))."""
    tensors, index = [], {}

    def add(name, shape, ttype='float32', data=None, q=None):
        return add_tensor(tensors, index, name, shape, ttype, data, q)

    def grid(name):
        s, z = grids[name]
        return {'scale': [s], 'zero_point': [z]}

    act_type = 'int8' if quant else 'float32'
    add('x', X_SHAPE)
    if quant:
        add('xq', X_SHAPE, 'int8', q=grid('x'))
    for name, shape in ACTS:
        add(name, shape, act_type, q=grid(name) if quant else None)
    for key, (shape, values, axis, bias) in layers.items():
        if quant:
            q, scale, _ = quantize_per_channel(values, shape, axis)
            add(key, shape, 'int8', q, {'scale': scale, 'zero_point': [0] * len(scale), 'axis': axis})
        else:
            add(key, shape, 'float32', quantize_per_channel(values, shape, axis)[2])
    inputs_of = {'w1': 'x', 'w2': 'c1', 'w3': 'd1', 'w4': 'm1'}
    for key, (shape, values, axis, bias) in layers.items():
        if quant:
            wscale = quantize_per_channel(values, shape, axis)[1]
            in_scale = grids[inputs_of[key]][0]
            bscale = [in_scale * s for s in wscale]
            add('b' + key, [len(bias)], 'int32', [round(b / s) for b, s in zip(bias, bscale)],
                {'scale': bscale, 'zero_point': [0] * len(bscale)})
        else:
            add('b' + key, [len(bias)], 'float32', bias)
    add('axes', [2], 'int32', [1, 2])
    x = index['xq'] if quant else index['x']
    ops = []
    if quant:
        ops.append({'op': 'QUANTIZE', 'inputs': [index['x']], 'outputs': [x]})
    ops += [
        {'op': 'CONV_2D', 'inputs': [x, index['w1'], index['bw1']], 'outputs': [index['c1']],
         'options': {'padding': 'SAME', 'activation': 'RELU'}},
        {'op': 'DEPTHWISE_CONV_2D', 'inputs': [index['c1'], index['w2'], index['bw2']],
         'outputs': [index['d1']], 'options': {'padding': 'SAME', 'stride_w': 2, 'stride_h': 2}},
        {'op': 'CONV_2D', 'inputs': [index['d1'], index['w3'], index['bw3']], 'outputs': [index['c2']],
         'options': {'padding': 'SAME'}},
        {'op': 'ADD', 'inputs': [index['c2'], index['d1']], 'outputs': [index['a1']]},
        {'op': 'MEAN', 'inputs': [index['a1'], index['axes']], 'outputs': [index['m1']]},
        {'op': 'FULLY_CONNECTED', 'inputs': [index['m1'], index['w4'], index['bw4']],
         'outputs': [index['f1']]},
        {'op': 'SOFTMAX', 'inputs': [index['f1']], 'outputs': [index['s1']], 'options': {'beta': 1.0}},
    ]
    if not quant:
        return {'tensors': tensors, 'ops': ops, 'inputs': [index['x']],
                'outputs': [index[n] for n, _ in ACTS]}
    y = add('y', [1, 4])
    ya = add('ya', [1, 5, 4, 5])
    ops += [{'op': 'DEQUANTIZE', 'inputs': [index['s1']], 'outputs': [y]},
            {'op': 'DEQUANTIZE', 'inputs': [index['a1']], 'outputs': [ya]}]
    return {'tensors': tensors, 'ops': ops, 'inputs': [index['x']], 'outputs': [y, ya]}


# ---- int8 and uint8 graph inputs and outputs ------------------------------------------------

P_SHAPE = [1, 8, 6, 3]
# Activations of the pooling model: name, shape. p1 and v1 share c1's grid (MAX_POOL_2D and
# AVERAGE_POOL_2D keep their input's parameters), r1 that of v1 (RESHAPE).
P_ACTS = [('c1', [1, 8, 6, 4]), ('p1', [1, 4, 3, 4]), ('v1', [1, 4, 3, 4]), ('r1', [1, 48]),
          ('f1', [1, 5]), ('o1', [1, 5])]


def pool_layers():
    rng = random.Random(31)
    w1 = [rng.uniform(-0.5, 0.5) for _ in range(4 * 27)]
    w2 = [rng.uniform(-0.6, 0.6) for _ in range(5 * 48)]
    b1 = [rng.uniform(-0.1, 0.3) for _ in range(4)]
    b2 = [rng.uniform(-0.2, 0.2) for _ in range(5)]
    return w1, b1, w2, b2


def pool_spec(io, grids=None):
    """x [1,8,6,3] -> CONV_2D 3x3 (4 out, per-channel weights) RELU6 -> MAX_POOL_2D 2x2/2 ->
    AVERAGE_POOL_2D 2x2/1 SAME -> RESHAPE [1,48] -> FULLY_CONNECTED (5, per-tensor weights)
    -> LOGISTIC. io: 'float' (every activation an output, for calibration), 'twin' (float
    input and output around the int8 net: QUANTIZE first, DEQUANTIZE last), 'int8' (int8
    graph input and output) or 'uint8' (uint8 graph input and output, requantized to and
    from the int8 net as the converter writes them for uint8 inference types)."""
    w1, b1, w2, b2 = pool_layers()
    quant = io != 'float'
    tensors, index = [], {}

    def add(name, shape, ttype='float32', data=None, q=None):
        return add_tensor(tensors, index, name, shape, ttype, data, q)

    def grid(name, shift=0):
        sc, z = grids[name]
        return {'scale': [sc], 'zero_point': [z + shift]}

    act = 'int8' if quant else 'float32'
    ops = []
    if io == 'int8':
        x = add('x', P_SHAPE, 'int8', q=grid('x'))
        graph_in = x
    else:
        graph_in = add('x', P_SHAPE, 'uint8' if io == 'uint8' else 'float32',
                       q=grid('x', 128) if io == 'uint8' else None)
        x = add('xq', P_SHAPE, 'int8', q=grid('x')) if quant else graph_in
        if quant:
            ops.append({'op': 'QUANTIZE', 'inputs': [graph_in], 'outputs': [x]})
    for name, shape in P_ACTS:
        add(name, shape, act, q=grid(name) if quant else None)
    if quant:
        q1, s1, _ = quantize_per_channel(w1, [4, 3, 3, 3], 0)
        add('w1', [4, 3, 3, 3], 'int8', q1, {'scale': s1, 'zero_point': [0] * 4, 'axis': 0})
        peak = max(abs(v) for v in w2)
        s2 = peak / 127.0
        add('w2', [5, 48], 'int8', [max(-127, min(127, round(v / s2))) for v in w2],
            {'scale': [s2], 'zero_point': [0]})
        bs1 = [grids['x'][0] * sc for sc in s1]
        add('b1', [4], 'int32', [round(b / sc) for b, sc in zip(b1, bs1)],
            {'scale': bs1, 'zero_point': [0] * 4})
        bs2 = grids['r1'][0] * s2
        add('b2', [5], 'int32', [round(b / bs2) for b in b2], {'scale': [bs2], 'zero_point': [0]})
    else:
        add('w1', [4, 3, 3, 3], 'float32', quantize_per_channel(w1, [4, 3, 3, 3], 0)[2])
        peak = max(abs(v) for v in w2)
        add('w2', [5, 48], 'float32',
            [peak / 127.0 * max(-127, min(127, round(v / (peak / 127.0)))) for v in w2])
        add('b1', [4], 'float32', b1)
        add('b2', [5], 'float32', b2)
    add('shape', [2], 'int32', [1, 48])
    ops += [
        {'op': 'CONV_2D', 'inputs': [x, index['w1'], index['b1']], 'outputs': [index['c1']],
         'options': {'padding': 'SAME', 'activation': 'RELU6'}},
        {'op': 'MAX_POOL_2D', 'inputs': [index['c1']], 'outputs': [index['p1']],
         'options': {'padding': 'VALID', 'stride_w': 2, 'stride_h': 2, 'filter_w': 2, 'filter_h': 2}},
        {'op': 'AVERAGE_POOL_2D', 'inputs': [index['p1']], 'outputs': [index['v1']],
         'options': {'padding': 'SAME', 'stride_w': 1, 'stride_h': 1, 'filter_w': 2, 'filter_h': 2}},
        {'op': 'RESHAPE', 'inputs': [index['v1'], index['shape']], 'outputs': [index['r1']]},
        {'op': 'FULLY_CONNECTED', 'inputs': [index['r1'], index['w2'], index['b2']],
         'outputs': [index['f1']]},
        {'op': 'LOGISTIC', 'inputs': [index['f1']], 'outputs': [index['o1']]},
    ]
    if io == 'float':
        return {'tensors': tensors, 'ops': ops, 'inputs': [graph_in],
                'outputs': [index[n] for n, _ in P_ACTS]}
    out = index['o1']
    if io in ('twin', 'uint8'):
        out = add('y', [1, 5], 'uint8' if io == 'uint8' else 'float32',
                  q=grid('o1', 128) if io == 'uint8' else None)
        ops.append({'op': 'QUANTIZE' if io == 'uint8' else 'DEQUANTIZE',
                    'inputs': [index['o1']], 'outputs': [out]})
    return {'tensors': tensors, 'ops': ops, 'inputs': [graph_in], 'outputs': [out]}


def pool_models(node_modules, work):
    """int8_io and uint8_io with their inputs as real values (on the input's grid, as an
    app passes them to vkinfer) and LiteRT's outputs as real values. LiteRT.js has no int8
    tensors: int8_io's reference is the 'twin' model (float input and output around the
    same int8 net) fed the same real values, which its QUANTIZE maps to the same int8
    values exactly. uint8_io runs as it is, on the raw uint8 values."""
    rng = random.Random(53)
    x = [rng.uniform(-1.0, 1.0) for _ in range(count(P_SHAPE))]
    calib = run_litert(node_modules, tflite_writer.write_model(pool_spec('float')), x, work,
                       'pool_calibration')
    grids = {'x': activation_grid(min(x), max(x))}
    for (name, _), values in zip(P_ACTS, calib):
        grids[name] = activation_grid(min(values), max(values))
    for name in ('p1', 'v1', 'r1'):
        grids[name] = grids['c1']
    grids['o1'] = (1.0 / 256.0, -128)   # TFLite's fixed int8 logistic output
    sx, zx = grids['x']
    q = [max(-128, min(127, round(v / sx) + zx)) for v in x]
    real = [sx * (v - zx) for v in q]
    real = list(struct.unpack('<%df' % len(real), struct.pack('<%df' % len(real), *real)))
    twin = run_litert(node_modules, tflite_writer.write_model(pool_spec('twin', grids)), real,
                      work, 'pool_twin')
    u8 = run_litert(node_modules, tflite_writer.write_model(pool_spec('uint8', grids)),
                    [v + 128 for v in q], work, 'pool_uint8')
    so, zo = grids['o1']
    u8_real = [so * (v - (zo + 128)) for v in u8[0]]
    print('pool grids:', {k: (round(v[0], 6), v[1]) for k, v in grids.items()})
    return {'int8_io': (pool_spec('int8', grids), real, twin[0], calib[-1]),
            'uint8_io': (pool_spec('uint8', grids), real, u8_real, calib[-1])}


def dequant_spec():
    """Loader checks of dequantization at load (no LiteRT run): an int8 net whose CONV_2D
    has per-channel weights (axis 0) and an int32 bias at input_scale * weight_scale,
    whose DEPTHWISE_CONV_2D has per-channel weights along axis 3, and DEQUANTIZEs of an
    int8 and a uint8 constant with zero points, added to its output."""
    t = [{'name': 'x', 'shape': [1, 3, 3, 2]},
         {'name': 'xq', 'shape': [1, 3, 3, 2], 'type': 'int8', 'quant': {'scale': [0.1], 'zero_point': [2]}},
         {'name': 'wc', 'shape': [3, 1, 1, 2], 'type': 'int8', 'data': [-128, 127, 1, -1, 3, -5],
          'quant': {'scale': [0.5, 0.25, 0.125], 'zero_point': [0, 0, 0], 'axis': 0}},
         {'name': 'bc', 'shape': [3], 'type': 'int32', 'data': [1000, -7, 0],
          'quant': {'scale': [0.05, 0.025, 0.0125], 'zero_point': [0, 0, 0]}},
         {'name': 'c', 'shape': [1, 3, 3, 3], 'type': 'int8', 'quant': {'scale': [0.25], 'zero_point': [-1]}},
         {'name': 'wd', 'shape': [1, 2, 2, 3], 'type': 'int8', 'data': list(range(-6, 6)),
          'quant': {'scale': [0.1, 0.2, 0.4], 'zero_point': [0, 0, 0], 'axis': 3}},
         {'name': 'bd', 'shape': [3], 'type': 'int32', 'data': [-40, 40, 2000],
          'quant': {'scale': [0.025, 0.05, 0.1], 'zero_point': [0, 0, 0]}},
         {'name': 'd', 'shape': [1, 2, 2, 3], 'type': 'int8', 'quant': {'scale': [0.5], 'zero_point': [0]}},
         {'name': 'df', 'shape': [1, 2, 2, 3]},
         {'name': 'k8', 'shape': [3], 'type': 'int8', 'data': [-128, 0, 127],
          'quant': {'scale': [0.5], 'zero_point': [3]}},
         {'name': 'k8f', 'shape': [3]},
         {'name': 'ku', 'shape': [3], 'type': 'uint8', 'data': [0, 128, 255],
          'quant': {'scale': [0.25], 'zero_point': [128]}},
         {'name': 'kuf', 'shape': [3]},
         {'name': 's', 'shape': [1, 2, 2, 3]}, {'name': 'y', 'shape': [1, 2, 2, 3]}]
    i = {x['name']: n for n, x in enumerate(t)}
    ops = [{'op': 'QUANTIZE', 'inputs': [i['x']], 'outputs': [i['xq']]},
           {'op': 'CONV_2D', 'inputs': [i['xq'], i['wc'], i['bc']], 'outputs': [i['c']],
            'options': {'padding': 'SAME'}},
           {'op': 'DEPTHWISE_CONV_2D', 'inputs': [i['c'], i['wd'], i['bd']], 'outputs': [i['d']],
            'options': {'padding': 'VALID'}},
           {'op': 'DEQUANTIZE', 'inputs': [i['d']], 'outputs': [i['df']]},
           {'op': 'DEQUANTIZE', 'inputs': [i['k8']], 'outputs': [i['k8f']]},
           {'op': 'DEQUANTIZE', 'inputs': [i['ku']], 'outputs': [i['kuf']]},
           {'op': 'ADD', 'inputs': [i['df'], i['k8f']], 'outputs': [i['s']]},
           {'op': 'ADD', 'inputs': [i['s'], i['kuf']], 'outputs': [i['y']]}]
    return {'tensors': t, 'ops': ops, 'inputs': [i['x']], 'outputs': [i['y']]}


def hybrid_spec(quant):
    """x [1,9,7,3] -> CONV_2D 3x3 (5 out) RELU -> RESHAPE [1,315] -> FULLY_CONNECTED (6)."""
    rng = random.Random(7)
    w1 = [rng.uniform(-0.6, 0.6) for _ in range(5 * 27)]
    w2 = [rng.uniform(-0.2, 0.2) for _ in range(6 * 315)]
    q1, s1, _ = quantize_per_channel(w1, [5, 3, 3, 3], 0)
    q2, s2, _ = quantize_per_channel(w2, [6, 315], 0)
    tensors = [{'name': 'x', 'shape': X_SHAPE}, {'name': 'c', 'shape': [1, 9, 7, 5]},
               {'name': 'r', 'shape': [1, 315]}, {'name': 'y', 'shape': [1, 6]},
               {'name': 'shape', 'shape': [2], 'type': 'int32', 'data': [1, 315]},
               {'name': 'b1', 'shape': [5], 'data': [0.05, -0.1, 0.0, 0.1, 0.02]},
               {'name': 'b2', 'shape': [6], 'data': [0.1, -0.1, 0.2, 0.0, -0.05, 0.03]}]
    if quant:
        tensors += [{'name': 'w1', 'shape': [5, 3, 3, 3], 'type': 'int8', 'data': q1,
                     'quant': {'scale': s1, 'zero_point': [0] * 5, 'axis': 0}},
                    {'name': 'w2', 'shape': [6, 315], 'type': 'int8', 'data': q2,
                     'quant': {'scale': s2, 'zero_point': [0] * 6, 'axis': 0}}]
    else:
        tensors += [{'name': 'w1', 'shape': [5, 3, 3, 3], 'data': w1},
                    {'name': 'w2', 'shape': [6, 315], 'data': w2}]
    ops = [{'op': 'CONV_2D', 'inputs': [0, 7, 5], 'outputs': [1],
            'options': {'padding': 'SAME', 'activation': 'RELU'}},
           {'op': 'RESHAPE', 'inputs': [1, 4], 'outputs': [2]},
           {'op': 'FULLY_CONNECTED', 'inputs': [2, 8, 6], 'outputs': [3]}]
    return {'tensors': tensors, 'ops': ops, 'inputs': [0], 'outputs': [3]}


def hybrid_dw_bmm_spec(quant):
    """x [1,9,7,3] -> DEPTHWISE_CONV_2D 3x3 (depth multiplier 2, per-channel int8 weights
    along axis 3) RELU -> RESHAPE [1,63,6] -> BATCH_MATMUL with an int8 constant [1,6,4]
    (per-tensor): dynamic-range quantization of the other two weight-bearing ops."""
    rng = random.Random(11)
    w1 = [rng.uniform(-0.7, 0.7) for _ in range(3 * 3 * 6)]
    w2 = [rng.uniform(-0.5, 0.5) for _ in range(6 * 4)]
    q1, s1, r1 = quantize_per_channel(w1, [1, 3, 3, 6], 3)
    s2 = max(abs(v) for v in w2) / 127.0
    q2 = [max(-127, min(127, round(v / s2))) for v in w2]
    tensors = [{'name': 'x', 'shape': X_SHAPE}, {'name': 'd', 'shape': [1, 9, 7, 6]},
               {'name': 'r', 'shape': [1, 63, 6]}, {'name': 'y', 'shape': [1, 63, 4]},
               {'name': 'shape', 'shape': [3], 'type': 'int32', 'data': [1, 63, 6]},
               {'name': 'b1', 'shape': [6], 'data': [0.05, -0.1, 0.0, 0.1, 0.02, -0.03]}]
    if quant:
        tensors += [{'name': 'w1', 'shape': [1, 3, 3, 6], 'type': 'int8', 'data': q1,
                     'quant': {'scale': s1, 'zero_point': [0] * 6, 'axis': 3}},
                    {'name': 'w2', 'shape': [1, 6, 4], 'type': 'int8', 'data': q2,
                     'quant': {'scale': [s2], 'zero_point': [0]}}]
    else:
        tensors += [{'name': 'w1', 'shape': [1, 3, 3, 6], 'data': w1},
                    {'name': 'w2', 'shape': [1, 6, 4], 'data': w2}]
    ops = [{'op': 'DEPTHWISE_CONV_2D', 'inputs': [0, 6, 5], 'outputs': [1],
            'options': {'padding': 'SAME', 'depth_multiplier': 2, 'activation': 'RELU'}},
           {'op': 'RESHAPE', 'inputs': [1, 4], 'outputs': [2]},
           {'op': 'BATCH_MATMUL', 'inputs': [2, 7], 'outputs': [3]}]
    return {'tensors': tensors, 'ops': ops, 'inputs': [0], 'outputs': [3]}


def malformed_specs():
    """Tiny int8 conv models with one thing wrong in their quantization, for the loader's
    errors (no LiteRT run)."""
    def conv(w_quant, act_quant=None):
        return {'tensors': [{'name': 'x', 'shape': [1, 3, 3, 2]},
                            {'name': 'w', 'shape': [2, 1, 1, 2], 'type': 'int8', 'data': [1, 2, 3, 4],
                             'quant': w_quant},
                            {'name': 'y', 'shape': [1, 3, 3, 2], 'type': 'int8' if act_quant else 'float32',
                             'quant': act_quant}],
                'ops': [{'op': 'CONV_2D', 'inputs': [0, 1, -1], 'outputs': [2],
                         'options': {'padding': 'SAME'}}],
                'inputs': [0], 'outputs': [2]}
    good = {'scale': [0.1, 0.2], 'zero_point': [0, 0], 'axis': 0}
    return {'bad_scale_count': conv({'scale': [0.1, 0.2, 0.3], 'zero_point': [0, 0, 0], 'axis': 0}),
            'bad_zero_scale': conv({'scale': [0.1, 0.0], 'zero_point': [0, 0], 'axis': 0}),
            'bad_axis': conv({'scale': [0.1, 0.2], 'zero_point': [0, 0], 'axis': 7}),
            'bad_zero_point': conv(good, {'scale': [0.5], 'zero_point': [300]}),
            'bad_per_channel_activation': conv(good, {'scale': [0.5, 0.5], 'zero_point': [0, 0], 'axis': 3}),
            'bad_zero_point_count': conv({'scale': [0.1, 0.2], 'zero_point': [0, 0, 0], 'axis': 0}),
            'bad_nan_scale': conv({'scale': [0.1, float('nan')], 'zero_point': [0, 0], 'axis': 0}),
            'bad_negative_axis': conv({'scale': [0.1, 0.2], 'zero_point': [0, 0], 'axis': -1}),
            'bad_no_grid': conv(good, {'scale': [], 'zero_point': []})}


def write_f32(path, values):
    with open(path, 'wb') as f:
        f.write(struct.pack('<%df' % len(values), *values))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ref_dir, out_dir = sys.argv[1], sys.argv[2]   # ref_dir: NODE_MODULES
    os.makedirs(out_dir, exist_ok=True)
    x = rand(count(X_SHAPE))
    with tempfile.TemporaryDirectory() as work:
        layers = cnn_layers()
        calib = run_litert(ref_dir, tflite_writer.write_model(cnn_spec(layers, False)), x, work,
                           'calibration')
        grids = {'x': activation_grid(min(x), max(x))}
        for (name, _), values in zip(ACTS, calib):
            grids[name] = activation_grid(min(values), max(values))
        grids['s1'] = (1.0 / 256.0, -128)   # TFLite's fixed int8 softmax output
        float_out = [calib[6], calib[3]]    # the float model's s1 and a1
        models = {'int8_cnn': (cnn_spec(layers, True, grids), float_out),
                  'hybrid_conv_fc': (hybrid_spec(True), None)}
        models['hybrid_conv_fc'] = (hybrid_spec(True), run_litert(
            ref_dir, tflite_writer.write_model(hybrid_spec(False)), x, work, 'hybrid_float'))
        models['hybrid_dw_bmm'] = (hybrid_dw_bmm_spec(True), run_litert(
            ref_dir, tflite_writer.write_model(hybrid_dw_bmm_spec(False)), x, work,
            'hybrid_dw_bmm_float'))
        for name, (spec, float_outputs) in models.items():
            data = tflite_writer.write_model(spec)
            outs = run_litert(ref_dir, data, x, work, name)
            with open(os.path.join(out_dir, name + '.tflite'), 'wb') as f:
                f.write(data)
            write_f32(os.path.join(out_dir, name + '.in.f32'), x)
            write_f32(os.path.join(out_dir, name + '.litert.f32'), [v for o in outs for v in o])
            write_f32(os.path.join(out_dir, name + '.float.f32'),
                      [v for o in float_outputs for v in o])
            print('%s: %d outputs, %s' % (name, len(outs), [len(o) for o in outs]))
        print('grids:', {k: (round(s, 6), z) for k, (s, z) in grids.items()})
        for name, (spec, x_real, want, float_out) in pool_models(ref_dir, work).items():
            with open(os.path.join(out_dir, name + '.tflite'), 'wb') as f:
                f.write(tflite_writer.write_model(spec))
            write_f32(os.path.join(out_dir, name + '.in.f32'), x_real)
            write_f32(os.path.join(out_dir, name + '.litert.f32'), want)
            write_f32(os.path.join(out_dir, name + '.float.f32'), float_out)
    with open(os.path.join(out_dir, 'dequant.tflite'), 'wb') as f:
        f.write(tflite_writer.write_model(dequant_spec()))
    for name, spec in malformed_specs().items():
        with open(os.path.join(out_dir, name + '.tflite'), 'wb') as f:
            f.write(tflite_writer.write_model(spec))


if __name__ == '__main__':
    main()
