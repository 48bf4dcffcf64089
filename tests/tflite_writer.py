#!/usr/bin/env python3
"""tflite_writer.py SPEC.json OUT.tflite: writes a TensorFlow Lite flatbuffer from a spec.

There is no TensorFlow here, so test models are written from specs: tensors (name, shape,
type, constant data, quantization), ops (builtin name or custom name, inputs, outputs,
options) and the graph's inputs and outputs. The result is a schema-version-3 model with
one subgraph (or several) that TFLite (LiteRT) and vkinfer both read. Builtin codes come from
engine/ir/tflite_ops.h, the list the library names ops by, so the two cannot disagree.

Spec (JSON, or a dict for write_model):
  {"tensors": [{"name": "x", "shape": [1, 5, 3, 17], "type": "float32",
                "data": [...],                     # optional: a constant, flat, row-major
                "quant": {"scale": [..], "zero_point": [..], "axis": 0}}],   # optional
   "ops": [{"op": "CONV_2D", "inputs": [0, 1, 2], "outputs": [3],
            "options": {"padding": "SAME", "stride_w": 2, ...}},
           {"custom": "MyOp", "inputs": [3], "outputs": [4],
            "custom_options": [1, 0, 0, 0]}],            # optional raw bytes
   "inputs": [0], "outputs": [4]}
An input index of -1 is an omitted optional input. Options of a table this file does not
describe go as {"options_type": N, "options_fields": [[field, "int"|"float"|"byte"|"bool"|"string", v]]}.

Control flow, signatures and resource variables (all optional; a spec without them is written
exactly as before):
  "name": "main",                  # subgraph 0's name (default "main")
  "subgraphs": [{"name": "cond", "tensors": [...], "ops": [...], "inputs": [..],
                 "outputs": [..]}],  # subgraphs 1, 2, ... (tensor indices are their own);
                                     # operator codes and buffers are shared by all
  "signature_defs": [{"signature_key": "encode", "subgraph_index": 0,
                      "inputs": [{"name": "scale", "tensor_index": 2}, ...],
                      "outputs": [{"name": "code", "tensor_index": 7}, ...]}],
A tensor may be {"type": "resource"} (VAR_HANDLE's output, shape []), "bool", "int32", ...,
and "is_variable": true. Options of the control ops: WHILE {cond_subgraph_index,
body_subgraph_index}, IF {then_subgraph_index, else_subgraph_index}, CALL_ONCE
{init_subgraph_index}, VAR_HANDLE {container, shared_name} (strings; left out when not
given), READ_VARIABLE and ASSIGN_VARIABLE (empty tables).
"""
import json
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def builtin_codes():
    with open(os.path.join(HERE, '..', 'engine', 'ir', 'tflite_ops.h'), encoding='utf-8') as f:
        return {m.group(1): int(m.group(2)) for m in re.finditer(r'X\((\w+), (\d+)\)', f.read())}


TYPES = {'float32': 0, 'float16': 1, 'int32': 2, 'uint8': 3, 'int64': 4, 'bool': 6,
         'int16': 7, 'complex64': 8, 'int8': 9, 'resource': 13}
PACK = {'float32': '<f', 'float16': '<e', 'int32': '<i', 'uint8': '<B', 'int64': '<q',
        'bool': '<B', 'int16': '<h', 'int8': '<b'}
PADDING = {'SAME': 0, 'VALID': 1}
ACTIVATION = {'NONE': 0, 'RELU': 1, 'RELU_N1_TO_1': 2, 'RELU6': 3, 'TANH': 4,
              'SIGN_BIT': 5}

# Options tables by BuiltinOptions union id: (id, [(name, field, kind, default)]), from
# TFLite's schema.fbs. kind: byte, bool, int, float, or an enum dict for byte enums.
OPTIONS = {
    'CONV_2D': (1, [('padding', 0, PADDING, 0), ('stride_w', 1, 'int', 1),
                    ('stride_h', 2, 'int', 1), ('activation', 3, ACTIVATION, 0),
                    ('dilation_w', 4, 'int', 1), ('dilation_h', 5, 'int', 1)]),
    'DEPTHWISE_CONV_2D': (2, [('padding', 0, PADDING, 0), ('stride_w', 1, 'int', 1),
                              ('stride_h', 2, 'int', 1), ('depth_multiplier', 3, 'int', 1),
                              ('activation', 4, ACTIVATION, 0), ('dilation_w', 5, 'int', 1),
                              ('dilation_h', 6, 'int', 1)]),
    'AVERAGE_POOL_2D': (5, [('padding', 0, PADDING, 0), ('stride_w', 1, 'int', 1),
                            ('stride_h', 2, 'int', 1), ('filter_w', 3, 'int', 1),
                            ('filter_h', 4, 'int', 1), ('activation', 5, ACTIVATION, 0)]),
    'FULLY_CONNECTED': (8, [('activation', 0, ACTIVATION, 0), ('weights_format', 1, 'byte', 0),
                            ('keep_num_dims', 2, 'bool', 0)]),
    'SOFTMAX': (9, [('beta', 0, 'float', 1.0)]),
    'CONCATENATION': (10, [('axis', 0, 'int', 0), ('activation', 1, ACTIVATION, 0)]),
    'ADD': (11, [('activation', 0, ACTIVATION, 0)]),
    'RESHAPE': (17, []),
    'MUL': (21, [('activation', 0, ACTIVATION, 0)]),
    'MEAN': (27, [('keep_dims', 0, 'bool', 0)]),
    'SUB': (28, [('activation', 0, ACTIVATION, 0)]),
    'DIV': (29, [('activation', 0, ACTIVATION, 0)]),
    'L2_NORMALIZATION': (12, [('activation', 0, ACTIVATION, 0)]),
    'LOCAL_RESPONSE_NORMALIZATION': (13, [('radius', 0, 'int', 0), ('bias', 1, 'float', 0.0),
                                          ('alpha', 2, 'float', 0.0), ('beta', 3, 'float', 0.0)]),
    'GATHER': (23, [('axis', 0, 'int', 0), ('batch_dims', 1, 'int', 0)]),
    'BATCH_TO_SPACE_ND': (24, []),
    'SPACE_TO_BATCH_ND': (25, []),
    'TRANSPOSE': (26, []),
    'SQUEEZE': (30, []),
    'STRIDED_SLICE': (32, [('begin_mask', 0, 'int', 0), ('end_mask', 1, 'int', 0),
                           ('ellipsis_mask', 2, 'int', 0), ('new_axis_mask', 3, 'int', 0),
                           ('shrink_axis_mask', 4, 'int', 0), ('offset', 5, 'bool', 0)]),
    'SPLIT': (35, [('num_splits', 0, 'int', 1)]),
    'LOG_SOFTMAX': (36, []),
    'ARG_MAX': (40, [('output_type', 0, 'byte', 2)]),
    'PADV2': (43, []),
    'TILE': (51, []),
    'EXPAND_DIMS': (52, []),
    'POW': (56, []),
    'ARG_MIN': (57, [('output_type', 0, 'byte', 2)]),
    'PACK': (59, [('values_count', 0, 'int', 0), ('axis', 1, 'int', 0)]),
    'UNPACK': (64, [('num', 0, 'int', 0), ('axis', 1, 'int', 0)]),
    'LEAKY_RELU': (75, [('alpha', 0, 'float', 0.2)]),
    'SQUARED_DIFFERENCE': (76, []),
    'MIRROR_PAD': (77, [('mode', 0, {'REFLECT': 0, 'SYMMETRIC': 1}, 0)]),
    'SPLIT_V': (79, [('num_splits', 0, 'int', 1)]),
    'SELECT_V2': (98, []),
    'BATCH_MATMUL': (101, [('adj_x', 0, 'bool', 0), ('adj_y', 1, 'bool', 0)]),
    'CUMSUM': (102, [('exclusive', 0, 'bool', 0), ('reverse', 1, 'bool', 0)]),
    'BROADCAST_TO': (104, []),
    'GELU': (116, [('approximate', 0, 'bool', 0)]),
    'RESIZE_BILINEAR': (15, [('align_corners', 2, 'bool', 0), ('half_pixel_centers', 3, 'bool', 0)]),
    'RESIZE_NEAREST_NEIGHBOR': (74, [('align_corners', 0, 'bool', 0),
                                     ('half_pixel_centers', 1, 'bool', 0)]),
    'SPACE_TO_DEPTH': (19, [('block_size', 0, 'int', 0)]),
    'DEPTH_TO_SPACE': (94, [('block_size', 0, 'int', 0)]),
    'TRANSPOSE_CONV': (49, [('padding', 0, PADDING, 0), ('stride_w', 1, 'int', 1),
                            ('stride_h', 2, 'int', 1), ('activation', 3, ACTIVATION, 0)]),
    # Empty tables, written as converters write them (ops not listed here get no table).
    'PAD': (22, []),
    'MINIMUM': (39, []),
    'GREATER_EQUAL': (45, []),
    'TOPK_V2': (34, []),
    'GATHER_ND': (83, []),
    'NON_MAX_SUPPRESSION_V4': (95, []),
    'NON_MAX_SUPPRESSION_V5': (96, []),
    'SCATTER_ND': (97, []),
    'ONE_HOT': (61, [('axis', 0, 'int', -1)]),
    # Control flow and resource variables: subgraph indices into Model.subgraphs.
    'IF': (92, [('then_subgraph_index', 0, 'int', 0), ('else_subgraph_index', 1, 'int', 0)]),
    'WHILE': (93, [('cond_subgraph_index', 0, 'int', 0), ('body_subgraph_index', 1, 'int', 0)]),
    'CALL_ONCE': (103, [('init_subgraph_index', 0, 'int', 0)]),
    'VAR_HANDLE': (111, [('container', 0, 'string', None), ('shared_name', 1, 'string', None)]),
    'READ_VARIABLE': (112, []),
    'ASSIGN_VARIABLE': (113, []),
}
OPTIONS['CONV_3D'] = (106, [('padding', 0, PADDING, 0), ('stride_d', 1, 'int', 1),
                            ('stride_w', 2, 'int', 1), ('stride_h', 3, 'int', 1),
                            ('activation', 4, ACTIVATION, 0), ('dilation_d', 5, 'int', 1),
                            ('dilation_w', 6, 'int', 1), ('dilation_h', 7, 'int', 1)])
OPTIONS['CONV_3D_TRANSPOSE'] = OPTIONS['CONV_3D']
OPTIONS['BUCKETIZE'] = (115, [('boundaries', 0, 'floats', None)])
OPTIONS['MAX_POOL_2D'] = OPTIONS['AVERAGE_POOL_2D']
for reducer in ('SUM', 'REDUCE_MAX', 'REDUCE_MIN', 'REDUCE_PROD', 'REDUCE_ANY'):
    OPTIONS[reducer] = OPTIONS['MEAN']
# Recurrent ops (their state in is_variable tensors).
OPTIONS['LSTM'] = (14, [('activation', 0, ACTIVATION, 0), ('cell_clip', 1, 'float', 0.0),
                        ('proj_clip', 2, 'float', 0.0),
                        ('kernel_type', 3, {'FULL': 0, 'BASIC': 1}, 0),
                        ('asymmetric_quantize_inputs', 4, 'bool', 0)])
OPTIONS['UNIDIRECTIONAL_SEQUENCE_LSTM'] = (71, [
    ('activation', 0, ACTIVATION, 0), ('cell_clip', 1, 'float', 0.0), ('proj_clip', 2, 'float', 0.0),
    ('time_major', 3, 'bool', 0), ('asymmetric_quantize_inputs', 4, 'bool', 0)])
OPTIONS['BIDIRECTIONAL_SEQUENCE_LSTM'] = (69, [
    ('activation', 0, ACTIVATION, 0), ('cell_clip', 1, 'float', 0.0), ('proj_clip', 2, 'float', 0.0),
    ('merge_outputs', 3, 'bool', 0), ('time_major', 4, 'bool', 1),
    ('asymmetric_quantize_inputs', 5, 'bool', 0)])
OPTIONS['SVDF'] = (6, [('rank', 0, 'int', 0), ('activation', 1, ACTIVATION, 0),
                       ('asymmetric_quantize_inputs', 2, 'bool', 0)])
OPTIONS['RNN'] = (7, [('activation', 0, ACTIVATION, 0), ('asymmetric_quantize_inputs', 1, 'bool', 0)])
OPTIONS['UNIDIRECTIONAL_SEQUENCE_RNN'] = (31, [
    ('time_major', 0, 'bool', 0), ('activation', 1, ACTIVATION, 0),
    ('asymmetric_quantize_inputs', 2, 'bool', 0)])
OPTIONS['BIDIRECTIONAL_SEQUENCE_RNN'] = (70, [
    ('time_major', 0, 'bool', 0), ('activation', 1, ACTIVATION, 0), ('merge_outputs', 2, 'bool', 0),
    ('asymmetric_quantize_inputs', 3, 'bool', 0)])

# Small builtins that run on the CPU (engine/ops/cpu_misc.c, cpu_index.c, cpu_reduce.c).
OPTIONS['L2_POOL_2D'] = OPTIONS['AVERAGE_POOL_2D']
OPTIONS['REDUCE_ALL'] = OPTIONS['MEAN']
OPTIONS['SPARSE_TO_DENSE'] = (50, [('validate_indices', 0, 'bool', 0)])
OPTIONS['SHAPE'] = (55, [('out_type', 0, {'int32': 2, 'int64': 4}, 'int32')])
OPTIONS['FAKE_QUANT'] = (58, [('min', 0, 'float', 0.0), ('max', 1, 'float', 0.0),
                              ('num_bits', 2, 'int', 0), ('narrow_range', 3, 'bool', 0)])
OPTIONS['REVERSE_SEQUENCE'] = (87, [('seq_dim', 0, 'int', 0), ('batch_dim', 1, 'int', 0)])
for name, type_id in (('ZEROS_LIKE', 67), ('FILL', 68), ('RANGE', 73), ('RANK', 86),
                      ('MATRIX_DIAG', 88), ('MATRIX_SET_DIAG', 90), ('SEGMENT_SUM', 100),
                      ('DYNAMIC_UPDATE_SLICE', 117), ('UNSORTED_SEGMENT_PROD', 118),
                      ('UNSORTED_SEGMENT_MAX', 119), ('UNSORTED_SEGMENT_MIN', 120),
                      ('UNSORTED_SEGMENT_SUM', 121), ('ATAN2', 122)):
    OPTIONS[name] = (type_id, [])

# ---- FlexBuffers (custom ops' options) ------------------------------------------------------

def flexbuffer_map(values):
    """The FlexBuffer bytes of a map (what custom ops such as TFLite_Detection_PostProcess read
    as custom_options): {key: bool | int | float}. Keys are written sorted (readers
    binary-search them), values inline at 4 bytes: ints as int32 (INT), floats as float32
    (FLOAT), bools as BOOL. Layout, front to back: the keys as 0-terminated strings, the
    keys vector (a typed vector of KEY: uint32 size, then uint32 offsets back to each key),
    the map (uint32 offset back to the keys vector, the keys vector's byte width 4, size,
    the values, one packed type byte a value), then the root: a uint32 offset back to the
    map, the map's packed type, the root's byte width 4. A packed type is type << 2 | log2
    of the byte width; offsets are unsigned, taken from where they are stored back to what
    they point at."""
    INT, FLOAT, MAP, BOOL = 1, 3, 9, 26
    W32 = 2
    keys = sorted(values, key=lambda k: k.encode('ascii'))
    buf = bytearray()
    key_pos = []
    for k in keys:
        key_pos.append(len(buf))
        buf += k.encode('ascii') + b'\0'

    def align(n):
        while len(buf) % n:
            buf.append(0)
    align(4)
    buf += struct.pack('<I', len(keys))
    keys_vec = len(buf)
    for p in key_pos:
        buf += struct.pack('<I', len(buf) - p)
    buf += struct.pack('<I', len(buf) - keys_vec)      # the map's offset back to its keys
    buf += struct.pack('<I', 4)                        # their byte width
    buf += struct.pack('<I', len(keys))
    map_pos = len(buf)
    types = bytearray()
    for k in keys:
        v = values[k]
        if isinstance(v, bool):
            buf += struct.pack('<I', int(v))
            types.append(BOOL << 2 | W32)
        elif isinstance(v, int):
            buf += struct.pack('<i', v)
            types.append(INT << 2 | W32)
        elif isinstance(v, float):
            buf += struct.pack('<f', v)
            types.append(FLOAT << 2 | W32)
        else:
            raise TypeError('flexbuffer_map: %s is %s, not bool, int or float' % (k, type(v)))
    buf += types
    align(4)
    buf += struct.pack('<I', len(buf) - map_pos)
    buf += bytes([MAP << 2 | W32, 4])
    return bytes(buf)


# ---- a flatbuffer laid out front to back --------------------------------------------------
# Every object is written after the one that refers to it, so every uoffset is positive.

class Table:
    def __init__(self, fields):
        self.fields = fields          # [(field index, kind, value)]; kind: 'b','B','h','i','I','q','f', or 'ref'


class Vector:
    def __init__(self, fmt, items, align=4):
        self.fmt, self.items, self.align = fmt, items, align   # fmt 'ref' for objects


class Blob:
    def __init__(self, data, align=16):
        self.data, self.align = data, align


class String:
    def __init__(self, s):
        self.s = s.encode('utf-8')


class Builder:
    def __init__(self):
        self.buf = bytearray()
        self.pending = []             # (where the uoffset goes, object)

    def pad(self, align):
        while len(self.buf) % align:
            self.buf.append(0)

    def ref(self, at, obj):
        self.pending.append((at, obj))

    def place(self, obj):
        """Writes obj; returns its position (what a uoffset points at)."""
        if isinstance(obj, String):
            self.pad(4)
            pos = len(self.buf)
            self.buf += struct.pack('<I', len(obj.s)) + obj.s + b'\0'
            return pos
        if isinstance(obj, Blob):
            # The length sits right before the aligned data.
            while (len(self.buf) + 4) % obj.align:
                self.buf.append(0)
            pos = len(self.buf)
            self.buf += struct.pack('<I', len(obj.data)) + obj.data
            return pos
        if isinstance(obj, Vector):
            size = 4 if obj.fmt == 'ref' else struct.calcsize('<' + obj.fmt)
            while (len(self.buf) + 4) % max(4, size, obj.align):
                self.buf.append(0)
            pos = len(self.buf)
            self.buf += struct.pack('<I', len(obj.items))
            for item in obj.items:
                if obj.fmt == 'ref':
                    self.ref(len(self.buf), item)
                    self.buf += b'\0\0\0\0'
                else:
                    self.buf += struct.pack('<' + obj.fmt, item)
            return pos
        # A table: vtable first, then the table (soffset, then fields in order of size).
        fields = sorted(obj.fields, key=lambda f: -fsize(f[1]))
        layout, off = [], 4
        for index, kind, value in fields:
            size = fsize(kind)
            off = (off + size - 1) // size * size
            layout.append((index, kind, value, off))
            off += size
        table_size = (off + 3) // 4 * 4
        n = max([f[0] for f in obj.fields], default=-1) + 1
        vtable = [0] * n
        for index, _, _, at in layout:
            vtable[index] = at
        self.pad(2)
        vt = bytearray(struct.pack('<HH', 4 + 2 * n, table_size) + struct.pack('<%dH' % n, *vtable))
        # The table must be 8-aligned for its int64 fields; pad the vtable's front.
        while (len(self.buf) + len(vt)) % 8:
            self.buf += b'\0\0'
        vt_pos = len(self.buf)
        self.buf += vt
        pos = len(self.buf)
        body = bytearray(table_size)
        struct.pack_into('<i', body, 0, pos - vt_pos)
        for index, kind, value, at in layout:
            if kind == 'ref':
                self.ref(pos + at, value)
            else:
                struct.pack_into('<' + kind, body, at, value)
        self.buf += body
        return pos

    def finish(self, root):
        self.buf += struct.pack('<I', 0) + b'TFL3'
        self.ref(0, root)
        while self.pending:
            at, obj = self.pending.pop(0)
            pos = self.place(obj)
            struct.pack_into('<I', self.buf, at, pos - at)
        return bytes(self.buf)


def fsize(kind):
    return 4 if kind == 'ref' else struct.calcsize('<' + kind)


# ---- the model -----------------------------------------------------------------------------

def option_fields(op, options):
    if 'options_type' in op:
        kinds = {'int': 'i', 'float': 'f', 'byte': 'b', 'bool': 'B'}
        return op['options_type'], [(f, 'ref', String(v)) if k == 'string' else (f, kinds[k], v)
                                    for f, k, v in op['options_fields']]
    if op.get('op') not in OPTIONS:
        if options:
            raise ValueError('op %s: options given, but this writer does not know its table; '
                             'use options_type/options_fields' % op.get('op'))
        return 0, []
    type_id, schema = OPTIONS[op['op']]
    unknown = set(options) - {name for name, *_ in schema}
    if unknown:
        raise ValueError('op %s: unknown options %s' % (op['op'], sorted(unknown)))
    fields = []
    for name, field, kind, default in schema:
        value = options.get(name, default)
        if kind == 'string':
            if value is not None:
                fields.append((field, 'ref', String(value)))
        elif kind == 'floats':
            if value is not None:
                fields.append((field, 'ref', Vector('f', [float(x) for x in value])))
        elif isinstance(kind, dict):
            fields.append((field, 'b', kind[value] if isinstance(value, str) else value))
        else:
            fields.append((field, {'int': 'i', 'float': 'f', 'byte': 'b', 'bool': 'B'}[kind],
                           int(value) if kind != 'float' else float(value)))
    return type_id, fields


def write_model(spec):
    codes = builtin_codes()
    buffers = [Table([])]                         # buffer 0: empty, as TFLite expects
    opcodes, opcode_index = [], {}

    def subgraph(sg, name):
        tensors = []
        for t in sg['tensors']:
            ttype = t.get('type', 'float32')
            fields = [(0, 'ref', Vector('i', t['shape'])), (1, 'b', TYPES[ttype]),
                      (3, 'ref', String(t['name']))]
            if t.get('data') is not None:
                data = b''.join(struct.pack(PACK[ttype], v) for v in t['data'])
                count = 1
                for d in t['shape']:
                    count *= d
                if len(t['data']) != count:
                    raise ValueError('tensor %s: %d values for shape %s' % (t['name'], len(t['data']), t['shape']))
                buffers.append(Table([(0, 'ref', Blob(data))]))
                fields.append((2, 'I', len(buffers) - 1))
            if t.get('quant'):
                q = t['quant']
                qf = [(2, 'ref', Vector('f', q['scale'])),
                      (3, 'ref', Vector('q', q.get('zero_point', [0] * len(q['scale'])), 8))]
                if q.get('axis'):
                    qf.append((6, 'i', q['axis']))
                fields.append((4, 'ref', Table(qf)))
            if t.get('is_variable'):
                fields.append((5, 'B', 1))
            if t.get('shape_signature') is not None:      # -1 marks a dimension of any size
                fields.append((7, 'ref', Vector('i', t['shape_signature'])))
            tensors.append(Table(fields))
        ops = []
        for op in sg['ops']:
            key = ('custom', op['custom']) if 'custom' in op else ('builtin', op['op'])
            if key not in opcode_index:
                if key[0] == 'custom':
                    code, fields = 32, [(1, 'ref', String(op['custom']))]
                else:
                    if op['op'] not in codes:
                        raise ValueError('unknown builtin op %s' % op['op'])
                    code, fields = codes[op['op']], []
                fields += [(0, 'b', min(code, 127)), (2, 'i', op.get('version', 1)), (3, 'i', code)]
                opcode_index[key] = len(opcodes)
                opcodes.append(Table(fields))
            type_id, opt = option_fields(op, op.get('options', {}))
            fields = [(0, 'I', opcode_index[key]), (1, 'ref', Vector('i', op['inputs'])),
                      (2, 'ref', Vector('i', op['outputs']))]
            if op.get('custom_options') is not None:     # raw bytes (custom_options_format 0)
                fields.append((5, 'ref', Vector('B', list(op['custom_options']))))
            if type_id:
                fields += [(3, 'B', type_id), (4, 'ref', Table(opt))]
            ops.append(Table(fields))
        return Table([(0, 'ref', Vector('ref', tensors)), (1, 'ref', Vector('i', sg['inputs'])),
                      (2, 'ref', Vector('i', sg['outputs'])), (3, 'ref', Vector('ref', ops)),
                      (4, 'ref', String(name))])

    subgraphs = [subgraph(spec, spec.get('name', 'main'))]
    for i, sg in enumerate(spec.get('subgraphs', [])):
        subgraphs.append(subgraph(sg, sg.get('name', 'subgraph%d' % (i + 1))))
    fields = [(0, 'I', 3), (1, 'ref', Vector('ref', opcodes)),
              (2, 'ref', Vector('ref', subgraphs)),
              (3, 'ref', String(spec.get('description', 'written by tflite_writer.py'))),
              (4, 'ref', Vector('ref', buffers))]
    if spec.get('signature_defs'):
        def tensor_maps(maps):
            return Vector('ref', [Table([(0, 'ref', String(m['name'])), (1, 'I', m['tensor_index'])])
                                  for m in maps])
        sigs = []
        for sig in spec['signature_defs']:
            count = len(subgraphs[sig['subgraph_index']].fields[0][2].items)
            for m in sig['inputs'] + sig['outputs']:
                if not 0 <= m['tensor_index'] < count:
                    raise ValueError('signature %s: %s is tensor %d of a subgraph of %d'
                                     % (sig['signature_key'], m['name'], m['tensor_index'], count))
            sigs.append(Table([(0, 'ref', tensor_maps(sig['inputs'])),
                               (1, 'ref', tensor_maps(sig['outputs'])),
                               (2, 'ref', String(sig['signature_key'])),
                               (4, 'I', sig['subgraph_index'])]))
        fields.append((7, 'ref', Vector('ref', sigs)))
    return Builder().finish(Table(fields))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding='utf-8') as f:
        spec = json.load(f)
    data = write_model(spec)
    with open(sys.argv[2], 'wb') as f:
        f.write(data)


if __name__ == '__main__':
    main()
