#!/usr/bin/env python3
"""make_int8_models.py NODE_MODULES OUT_DIR: writes the models of tests/test_int8.c, one or
a few per integer form of engine/ops/int8.h, and LiteRT's outputs for them
(tests/data/int8).

Every model takes float32 inputs (LiteRT.js has no int8 tensors), QUANTIZEs them onto an
int8 or uint8 grid, runs integer ops, and DEQUANTIZEs its outputs. The inputs are whole
multiples of their grid's scale around its zero point, so the QUANTIZE gives exactly the q
chosen here: random over the type's whole range, its two ends always among them (and for
the one-input ops, every one of the 256 values). Shapes are odd (1, 3, 5, 17 channels, odd
H and W, stride 2 on odd sizes; batch 2 and ranks 2, 3 and 5 where vkinfer takes them:
FULLY_CONNECTED, ADD / SUB / MUL); grids
are sized from the input's scale, the weights' scale and the fan-in, so that outputs
spread over their grid rather than saturate. The cases:
  - CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: per-tensor and per-channel int8 weights
    (in -127..127, TFLite's spec), uint8 weights with a zero point, int32 biases (one
    FULLY_CONNECTED without), every fused activation, strides, SAME / VALID, dilation, depth multipliers; conv_ties
    has a requantization scale of 0.5, so that half its sums are ties;
  - ADD, SUB, MUL of two activations, int8 and uint8, ranks 2 to 5 with broadcasting,
    every fused activation, grids whose ratios make ties;
  - MAX_POOL_2D and AVERAGE_POOL_2D (ties of the average), MEAN over H and W (keep_dims
    both ways, the same grid or another);
  - the one-input ops RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, ELU, LEAKY_RELU,
    HARD_SWISH and int8->int8 / uint8->uint8 QUANTIZE on all 256 inputs, two or three grids
    each (LOGISTIC's 1/256 zero point -128, TANH's 1/128 zero point 0 among them);
  - QUANTIZE of float inputs on ties and past the grid's ends;
  - PRELU by constant alphas (per channel, one value, the input's shape; negative and
    over 1; ties) and RESIZE_BILINEAR (align_corners, half_pixel_centers, neither; up and
    down), int8 and uint8;
  - the value movers (RESHAPE, TRANSPOSE, CONCATENATION, PAD, SLICE, STRIDED_SLICE,
    SPACE_TO_DEPTH, DEPTH_TO_SPACE, RESIZE_NEAREST_NEIGHBOR, GATHER) on int8 and uint8;
  - small networks: MobileNetV3-style (conv + HARD_SWISH, depthwise, squeeze-excite with a
    hard sigmoid of constant ADD / RELU6 / constant MUL, residual ADD, pooling, FC head),
    MobileNetV2-style (expand, depthwise, project, residual), BlazeFace-style (depthwise
    5x5, residual ADD, RELU, MAX_POOL with a channel PAD, two heads reshaped and
    concatenated) and a uint8 network.
For each model: NAME.tflite, NAME.in<i>.f32 (one per graph input), NAME.litert.f32 (LiteRT's
outputs, concatenated), and cases.txt: a line per model, NAME and the grid scale of each
output (the LSB the test reports errors in). NODE_MODULES holds @litertjs/core; LiteRT runs
all models in one process (tests/op_models/run_litert.mjs). Deterministic (seeded).
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer  # noqa: E402
from make_quant_models import write_f32  # noqa: E402

RANGE = {'int8': (-128, 127), 'uint8': (0, 255)}
STD_FULL = 74.0     # standard deviation of q uniform over 256 values
STD_OUT = 40.0      # what each sized output grid aims at, in steps


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def conv_out(size, k, stride, pad, dil=1):
    ek = (k - 1) * dil + 1
    return -(-size // stride) if pad == 'SAME' else (size - ek) // stride + 1


class Net:
    """A spec under construction: float graph inputs QUANTIZEd, quantized activations with
    grids (and a rough spread, in steps, for sizing the next grids), DEQUANTIZEd outputs."""

    def __init__(self, name, seed):
        self.name, self.R = name, random.Random(seed)
        self.tensors, self.ops, self.inputs, self.outputs = [], [], [], []
        self.in_values, self.out_scales = [], []
        self.std = {}

    def tensor(self, shape, typ='float32', grid=None, data=None):
        t = {'name': 't%d' % len(self.tensors), 'shape': list(shape), 'type': typ}
        if grid:
            t['quant'] = {'scale': [grid[0]] if not isinstance(grid[0], list) else grid[0],
                          'zero_point': [grid[1]] if not isinstance(grid[1], list) else grid[1]}
            if len(grid) > 2:
                t['quant']['axis'] = grid[2]
        if data is not None:
            t['data'] = list(data)
        self.tensors.append(t)
        return len(self.tensors) - 1

    def shape(self, t):
        return self.tensors[t]['shape']

    def typ(self, t):
        return self.tensors[t]['type']

    def grid(self, t):
        q = self.tensors[t]['quant']
        return q['scale'][0], q['zero_point'][0]

    def act(self, shape, typ, scale, zero, std=STD_OUT):
        t = self.tensor(shape, typ, (f32(scale), zero))
        self.std[t] = std
        return t

    def ints(self, values):
        return self.tensor([len(values)], 'int32', data=values)

    def op(self, name, ins, outs, **options):
        o = {'op': name, 'inputs': list(ins), 'outputs': list(outs)}
        if options:
            o['options'] = options
        self.ops.append(o)
        return outs[0]

    def qvalues(self, n, typ, every=False):
        """n values of q: every one of the type's 256 first (every), else random with both
        ends of the range among them."""
        lo, hi = RANGE[typ]
        R = self.R
        if every:
            qs = list(range(lo, hi + 1)) + [R.randint(lo, hi) for _ in range(n - 256)]
            R.shuffle(qs)
            return qs
        qs = [R.randint(lo, hi) for _ in range(n)]
        for i in range(min(n, 6)):
            qs[R.randrange(n)] = lo if i % 2 else hi
        return qs

    def input(self, shape, typ, scale, zero, qs=None, every=False):
        """A float graph input holding f32(scale * (q - zero)) and its QUANTIZE."""
        scale = f32(scale)
        x = self.tensor(shape)
        xq = self.act(shape, typ, scale, zero, STD_FULL)
        self.op('QUANTIZE', [x], [xq])
        if qs is None:
            qs = self.qvalues(count(shape), typ, every)
        self.inputs.append(x)
        self.in_values.append([f32(scale * (q - zero)) for q in qs])
        return xq

    def float_input(self, shape, values):
        x = self.tensor(shape)
        self.inputs.append(x)
        self.in_values.append([f32(v) for v in values])
        return x

    def output(self, t):
        y = self.tensor(self.shape(t))
        self.op('DEQUANTIZE', [t], [y])
        self.outputs.append(y)
        self.out_scales.append(self.grid(t)[0])

    def spec(self):
        return {'tensors': self.tensors, 'ops': self.ops, 'inputs': self.inputs,
                'outputs': self.outputs}

    # ---- grids ----------------------------------------------------------------------

    def out_grid(self, typ, real_std, act='NONE'):
        """A grid whose steps put real_std at about STD_OUT steps; the zero point low for
        the RELU family (its range mostly above zero), near the middle otherwise."""
        lo, hi = RANGE[typ]
        R = self.R
        if act == 'RELU_N1_TO_1':
            return f32(R.uniform(1 / 110.0, 1 / 70.0)), (lo + hi + 1) // 2 + R.randint(-12, 12)
        scale = f32(real_std / STD_OUT * R.uniform(0.8, 1.25))
        if act in ('RELU', 'RELU6'):
            return scale, lo + R.randint(8, 30)
        return scale, (lo + hi + 1) // 2 + R.randint(-15, 15)

    # ---- layers ---------------------------------------------------------------------

    def conv(self, x, out_ch, k=3, stride=1, pad='SAME', act='NONE', dil=1, per_channel=True,
             bias=True, dw=False, wtype='int8', grid=None, real_std=None):
        """CONV_2D (weights [O,K,K,C], axis 0) or DEPTHWISE_CONV_2D ([1,K,K,O], axis 3) with
        weights sized so the output's real spread is real_std (by activation: RELU6 3, its
        clip reached; RELU_N1_TO_1 0.7; else 1)."""
        R = self.R
        n, h, w, c = self.shape(x)
        typ = self.typ(x)
        s_in = self.grid(x)[0]
        if real_std is None:
            real_std = {'RELU6': 3.0, 'RELU_N1_TO_1': 0.7}.get(act, 1.0)
        fan = k * k * (1 if dw else c)
        wshape = [1, k, k, out_ch] if dw else [out_ch, k, k, c]
        nw = count(wshape)
        n_scales = out_ch if per_channel else 1
        base = real_std / (math.sqrt(fan) * self.std[x] * 73.0 * s_in)
        wscale = [f32(base * R.uniform(0.6, 1.5)) for _ in range(n_scales)]
        if wtype == 'int8':
            wq = [R.randint(-127, 127) for _ in range(nw)]
            wgrid = (wscale, [0] * n_scales, 3 if dw else 0)
        else:
            wzero = R.randint(100, 150)
            wq = [R.randint(0, 255) for _ in range(nw)]
            wgrid = (wscale, [wzero])
        wt = self.tensor(wshape, wtype, wgrid, wq)
        b = -1
        if bias:
            bscale = [f32(s_in * s) for s in wscale]
            spread = int(math.sqrt(fan) * self.std[x] * 73.0 * 0.3)
            b = self.tensor([out_ch], 'int32', (bscale, [0] * n_scales, 0),
                            [R.randint(-spread, spread) for _ in range(out_ch)])
        oh, ow = conv_out(h, k, stride, pad, dil), conv_out(w, k, stride, pad, dil)
        if grid is None:
            grid = self.out_grid(typ, real_std, act)
        y = self.act([n, oh, ow, out_ch], typ, *grid)
        opts = {'padding': pad, 'stride_w': stride, 'stride_h': stride, 'activation': act,
                'dilation_w': dil, 'dilation_h': dil}
        if dw:
            opts['depth_multiplier'] = out_ch // c
        return self.op('DEPTHWISE_CONV_2D' if dw else 'CONV_2D', [x, wt, b], [y], **opts)

    def fc(self, x, out_ch, act='NONE', per_channel=True, bias=True, wtype='int8', grid=None,
           real_std=None):
        R = self.R
        shape = self.shape(x)
        k = shape[-1]
        rows = count(shape) // k
        typ = self.typ(x)
        s_in = self.grid(x)[0]
        if real_std is None:
            real_std = {'RELU6': 3.0, 'RELU_N1_TO_1': 0.7}.get(act, 1.0)
        n_scales = out_ch if per_channel else 1
        base = real_std / (math.sqrt(k) * self.std[x] * 73.0 * s_in)
        wscale = [f32(base * R.uniform(0.6, 1.5)) for _ in range(n_scales)]
        if wtype == 'int8':
            wq = [R.randint(-127, 127) for _ in range(out_ch * k)]
            wgrid = (wscale, [0] * n_scales, 0)
        else:
            wq = [R.randint(0, 255) for _ in range(out_ch * k)]
            wgrid = (wscale, [R.randint(100, 150)])
        wt = self.tensor([out_ch, k], wtype, wgrid, wq)
        b = -1
        if bias:
            spread = int(math.sqrt(k) * self.std[x] * 73.0 * 0.3)
            b = self.tensor([out_ch], 'int32', ([f32(s_in * s) for s in wscale], [0] * n_scales, 0),
                            [R.randint(-spread, spread) for _ in range(out_ch)])
        if grid is None:
            grid = self.out_grid(typ, real_std, act)
        y = self.act([rows, out_ch], typ, *grid)
        return self.op('FULLY_CONNECTED', [x, wt, b], [y], activation=act)

    def binary(self, name, a, b, act='NONE', grid=None, shape=None):
        sa, sb = self.grid(a)[0], self.grid(b)[0]
        da, db = sa * self.std[a], sb * self.std[b]
        if shape is None:
            sha, shb = self.shape(a), self.shape(b)
            r = max(len(sha), len(shb))
            sha, shb = [1] * (r - len(sha)) + sha, [1] * (r - len(shb)) + shb
            shape = [max(p, q) for p, q in zip(sha, shb)]
        if grid is None:
            real = da * db if name == 'MUL' else math.sqrt(da * da + db * db)
            grid = self.out_grid(self.typ(a), real, act)
        y = self.act(shape, self.typ(a), *grid)
        return self.op(name, [a, b], [y], activation=act)

    def unary(self, name, x, grid, **options):
        y = self.act(self.shape(x), self.typ(x), *grid)
        return self.op(name, [x], [y], **options)

    def pool(self, name, x, k, stride, pad, act='NONE', kw=None):
        n, h, w, c = self.shape(x)
        kw = kw or k
        y = self.act([n, conv_out(h, k, stride, pad), conv_out(w, kw, stride, pad), c], self.typ(x),
                     *self.grid(x), self.std[x])
        return self.op(name, [x], [y], padding=pad, stride_w=stride, stride_h=stride, filter_w=kw,
                       filter_h=k, activation=act)

    def mean(self, x, keep, grid=None):
        n, h, w, c = self.shape(x)
        if grid is None:
            grid = self.grid(x)
        y = self.act([n, 1, 1, c] if keep else [n, c], self.typ(x), *grid, self.std[x] / 2)
        return self.op('MEAN', [x, self.ints([1, 2])], [y], keep_dims=keep)

    def reshape(self, x, shape):
        y = self.act(shape, self.typ(x), *self.grid(x), self.std[x])
        return self.op('RESHAPE', [x, self.ints(shape)], [y])

    def const(self, shape, typ, scale, zero, qs):
        return self.tensor(shape, typ, (f32(scale), zero), qs)


# ---- the cases ------------------------------------------------------------------------

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def grid_in(R, typ, lo=0.01, hi=0.08):
    a, b = RANGE[typ]
    return f32(R.uniform(lo, hi)), (a + b + 1) // 2 + R.randint(-20, 20)


@case
def conv_ties():
    """1x1 CONV_2D, C = 1, requantization scale exactly 0.5 (input 0.5, weights 1 and
    -1, output 1): every odd sum is a tie, which LiteRT rounds to even."""
    n = Net('conv_ties', 1)
    x = n.input([1, 5, 7, 1], 'int8', 0.5, -3)
    w = n.tensor([2, 1, 1, 1], 'int8', ([1.0, 1.0], [0, 0], 0), [1, -1])
    b = n.tensor([2], 'int32', ([0.5, 0.5], [0, 0], 0), [0, 1])
    y = n.act([1, 5, 7, 2], 'int8', 1.0, 0)
    n.op('CONV_2D', [x, w, b], [y], padding='VALID')
    n.output(y)
    return n


def conv_case(name, seed, shape, typ, out_ch, k, stride, pad, act, dil=1, per_channel=True,
              bias=True, wtype=None, dw=False):
    n = Net(name, seed)
    x = n.input(shape, typ, *grid_in(n.R, typ))
    wtype = wtype or ('int8' if typ == 'int8' else 'uint8')
    n.output(n.conv(x, out_ch, k, stride, pad, act, dil, per_channel, bias, dw, wtype))
    return n


# vkinfer's convolutions and pools take batch 1 (the loader refuses batch 2), and its
# integer MEAN too (batch 2 runs in float between a DEQUANTIZE and a QUANTIZE): batch 2 is
# in the FULLY_CONNECTED and ADD / SUB / MUL cases. Every CONV_2D and
# DEPTHWISE_CONV_2D has a bias: LiteRT.js 2.5.3 leaves the output of an
# int8 one without (bias input -1) unwritten (values like -3.5e10 and 4e-38), so there is
# nothing to compare with. FULLY_CONNECTED without a bias works (fc_1x40_relu6_pt_nobias).
CONV_CASES = [
    # name, input, type, out channels, kernel, stride, padding, activation, dilation,
    # per-channel, bias
    ('conv_3x3_same_relu_pc', [1, 7, 9, 3], 'int8', 5, 3, 1, 'SAME', 'RELU', 1, True, True),
    ('conv_3x3_s2_valid_relu6_pt', [1, 9, 7, 5], 'int8', 17, 3, 2, 'VALID', 'RELU6', 1, False, True),
    ('conv_5x5_s2_same_n1to1_pc', [1, 7, 5, 17], 'int8', 3, 5, 2, 'SAME', 'RELU_N1_TO_1', 1, True, True),
    ('conv_3x3_dil2_pc', [1, 9, 9, 3], 'int8', 5, 3, 1, 'SAME', 'NONE', 2, True, True),
    ('conv_1x1_s2_c17_pt', [1, 9, 5, 17], 'int8', 1, 1, 2, 'SAME', 'NONE', 1, False, True),
    ('conv_u8_3x3_same_relu', [1, 7, 5, 3], 'uint8', 5, 3, 1, 'SAME', 'RELU', 1, False, True),
    ('conv_u8_3x3_s2_valid_relu6', [1, 9, 7, 5], 'uint8', 3, 3, 2, 'VALID', 'RELU6', 1, False, True),
]
DW_CASES = [
    # name, input, type, out channels (C * depth multiplier), kernel, stride, padding,
    # activation, dilation, per-channel, bias
    ('dw_3x3_same_relu6_pc', [1, 7, 9, 5], 'int8', 5, 3, 1, 'SAME', 'RELU6', 1, True, True),
    ('dw_3x3_s2_valid_pt', [1, 9, 7, 17], 'int8', 17, 3, 2, 'VALID', 'NONE', 1, False, True),
    ('dw_5x5_s2_same_dm3_relu', [1, 7, 9, 1], 'int8', 3, 5, 2, 'SAME', 'RELU', 1, True, True),
    ('dw_3x3_dil2_dm2_n1to1', [1, 9, 7, 3], 'int8', 6, 3, 1, 'SAME', 'RELU_N1_TO_1', 2, True, True),
    ('dw_u8_3x3_same_relu', [1, 5, 7, 5], 'uint8', 5, 3, 1, 'SAME', 'RELU', 1, False, True),
]
for i, c in enumerate(CONV_CASES):
    CASES.append(lambda c=c, i=i: conv_case(c[0], 100 + i, *c[1:]))
for i, c in enumerate(DW_CASES):
    CASES.append(lambda c=c, i=i: conv_case(c[0], 200 + i, *c[1:], dw=True))

FC_CASES = [
    # name, input, type, outputs, activation, per-channel, bias
    ('fc_3x17_relu_pc', [3, 17], 'int8', 5, 'RELU', True, True),
    ('fc_1x40_relu6_pt_nobias', [1, 40], 'int8', 17, 'RELU6', False, False),
    ('fc_2x5_n1to1_pc', [2, 5], 'int8', 3, 'RELU_N1_TO_1', True, True),
    ('fc_u8_3x17', [3, 17], 'uint8', 5, 'NONE', False, True),
]


def fc_case(name, seed, shape, typ, out_ch, act, per_channel, bias):
    n = Net(name, seed)
    x = n.input(shape, typ, *grid_in(n.R, typ))
    n.output(n.fc(x, out_ch, act, per_channel, bias, 'int8' if typ == 'int8' else 'uint8'))
    return n


for i, c in enumerate(FC_CASES):
    CASES.append(lambda c=c, i=i: fc_case(c[0], 300 + i, *c[1:]))

BINARY_CASES = [
    # name, op, type, a shape, b shape, activation, grids (a, b, out) or None for sized
    ('add_r4_ties', 'ADD', 'int8', [1, 5, 7, 3], [1, 5, 7, 3], 'NONE',
     ((0.1, 3), (0.05, -7), (0.1, 1))),
    ('add_r3_bcast_relu', 'ADD', 'int8', [2, 5, 17], [1, 1, 17], 'RELU', None),
    ('add_r5_bcast_relu6', 'ADD', 'int8', [2, 3, 1, 5, 3], [1, 1, 4, 1, 3], 'RELU6', None),
    ('sub_r4_bcast', 'SUB', 'int8', [1, 7, 5, 3], [1, 1, 1, 3], 'NONE', None),
    ('sub_r2_n1to1', 'SUB', 'int8', [3, 17], [3, 1], 'RELU_N1_TO_1', None),
    ('mul_r2_bcast', 'MUL', 'int8', [3, 17], [1, 17], 'NONE', None),
    ('mul_r4_relu_ties', 'MUL', 'int8', [1, 5, 7, 5], [1, 5, 7, 5], 'RELU',
     ((0.25, 5), (0.125, -9), (4.0, -100))),
    ('add_u8_bcast_relu6', 'ADD', 'uint8', [1, 5, 7, 3], [1, 5, 7, 1], 'RELU6', None),
    ('mul_u8_r3_bcast', 'MUL', 'uint8', [2, 5, 3], [2, 1, 3], 'NONE', None),
    ('sub_u8_r5_relu', 'SUB', 'uint8', [1, 2, 3, 1, 5], [1, 2, 1, 3, 5], 'RELU', None),
]


def binary_case(name, seed, op, typ, sa, sb, act, grids):
    n = Net(name, seed)
    if grids:
        ga, gb, go = grids
        if typ == 'uint8':
            ga, gb, go = [(s, z + 128) for s, z in grids]
    else:
        lo, hi = {'RELU6': (0.035, 0.05), 'RELU_N1_TO_1': (0.004, 0.008)}.get(act, (0.02, 0.1))
        ga, gb, go = grid_in(n.R, typ, lo, hi), grid_in(n.R, typ, lo, hi), None
        if act == 'RELU6':   # the clip at 6 about 100 steps above the zero point
            go = (6.0 / n.R.uniform(85, 110), RANGE[typ][0] + n.R.randint(8, 30))
    a = n.input(sa, typ, *ga)
    b = n.input(sb, typ, *gb)
    n.output(n.binary(op, a, b, act, (f32(go[0]), go[1]) if go else None))
    return n


for i, c in enumerate(BINARY_CASES):
    CASES.append(lambda c=c, i=i: binary_case(c[0], 400 + i, *c[1:]))

POOL_CASES = [
    # name, op, input, type, filter (h, w), stride, padding, activation
    ('maxpool_2x2_s2_valid', 'MAX_POOL_2D', [1, 7, 9, 5], 'int8', (2, 2), 2, 'VALID', 'NONE'),
    ('maxpool_3x3_s2_same_relu', 'MAX_POOL_2D', [1, 9, 7, 17], 'int8', (3, 3), 2, 'SAME', 'RELU'),
    ('avgpool_3x3_same_ties', 'AVERAGE_POOL_2D', [1, 5, 7, 3], 'int8', (3, 3), 1, 'SAME', 'NONE'),
    ('avgpool_2x2_s2_valid_relu6', 'AVERAGE_POOL_2D', [1, 7, 9, 1], 'int8', (2, 2), 2, 'VALID', 'RELU6'),
    ('avgpool_3x2_s2_same_n1to1', 'AVERAGE_POOL_2D', [1, 9, 7, 5], 'int8', (3, 2), 2, 'SAME',
     'RELU_N1_TO_1'),
    ('maxpool_u8_3x3_same_relu6', 'MAX_POOL_2D', [1, 5, 7, 3], 'uint8', (3, 3), 1, 'SAME', 'RELU6'),
    ('avgpool_u8_global', 'AVERAGE_POOL_2D', [1, 7, 5, 17], 'uint8', (7, 5), 1, 'VALID', 'NONE'),
]


def pool_case(name, seed, op, shape, typ, f, stride, pad, act):
    n = Net(name, seed)
    lo, hi = 0.01, 0.08
    if act == 'RELU6':
        lo, hi = 0.05, 0.09
    if act == 'RELU_N1_TO_1':
        lo, hi = 0.008, 0.012
    x = n.input(shape, typ, *grid_in(n.R, typ, lo, hi))
    n.output(n.pool(op, x, f[0], stride, pad, act, f[1]))
    return n


for i, c in enumerate(POOL_CASES):
    CASES.append(lambda c=c, i=i: pool_case(c[0], 500 + i, *c[1:]))

MEAN_CASES = [
    # name, input, type, keep_dims, the output's grid (None: the input's)
    ('mean_keep_same_grid', [1, 7, 5, 17], 'int8', True, None),
    ('mean_flat_other_grid', [1, 5, 9, 3], 'int8', False, (0.011, -17)),
    ('mean_u8_flat_same_grid', [1, 3, 3, 5], 'uint8', False, None),
    ('mean_u8_keep_other_grid', [1, 9, 7, 3], 'uint8', True, (0.0123, 131)),
]


def mean_case(name, seed, shape, typ, keep, grid):
    n = Net(name, seed)
    x = n.input(shape, typ, *grid_in(n.R, typ, 0.02, 0.05))
    n.output(n.mean(x, keep, (f32(grid[0]), grid[1]) if grid else None))
    return n


for i, c in enumerate(MEAN_CASES):
    CASES.append(lambda c=c, i=i: mean_case(c[0], 600 + i, *c[1:]))

UNARY_SHAPE = [1, 15, 19]    # 285 elements: all 256 values of q, and 29 more
UNARY_CASES = [
    # op, [(type, input grid, output grid, options)]
    ('RELU', [('int8', (0.0517, -7), (0.0311, -101), {}),
              ('int8', (0.02, 20), (0.05, -128), {}),
              ('uint8', (0.043, 140), (0.05, 30), {})]),
    ('RELU6', [('int8', (0.061, 3), (0.03, -110), {}),
               ('int8', (0.02, 10), (0.05, -120), {}),
               ('uint8', (0.07, 120), (0.035, 20), {})]),
    ('RELU_N1_TO_1', [('int8', (0.013, 5), (0.009, -3), {}),
                      ('uint8', (0.02, 128), (0.01, 120), {})]),
    ('LOGISTIC', [('int8', (0.0625, -2), (1 / 256.0, -128), {}),
                  ('int8', (0.031, 17), (0.0043, -100), {}),
                  ('uint8', (0.05, 128), (1 / 256.0, 0), {})]),
    ('TANH', [('int8', (0.02, 0), (1 / 128.0, 0), {}),
              ('int8', (0.04, -9), (0.009, 5), {}),
              ('uint8', (0.03, 120), (1 / 128.0, 128), {})]),
    ('ELU', [('int8', (0.05, 20), (0.04, -60), {}),
             ('int8', (0.021, -3), (0.015, 30), {})]),
    # LEAKY_RELU: the second grid's negative multiplier is under 1/256, which XNNPACK
    # declines: TFLite's own kernel runs it.
    ('LEAKY_RELU', [('int8', (0.04, 0), (0.03, -10), {'alpha': 0.2}),
                    ('int8', (0.012, 4), (0.04, -50), {'alpha': 0.01}),
                    ('uint8', (0.05, 128), (0.05, 100), {'alpha': 0.1})]),
    ('HARD_SWISH', [('int8', (0.05, -5), (0.04, -90), {}),
                    ('int8', (0.024, 30), (0.011, -60), {}),
                    ('uint8', (0.06, 150), (0.035, 30), {})]),
    # Requantization; the first grid pair's ratio is 0.5 (every odd q a tie).
    ('QUANTIZE', [('int8', (0.05, 0), (0.1, 3), {}),
                  ('int8', (0.05, 3), (0.0731, -11), {}),
                  ('int8', (0.02, -30), (0.011, 7), {}),
                  ('uint8', (0.04, 130), (0.09, 125), {})]),
]


def unary_case(op, branches):
    n = Net('unary_' + op.lower(), 700 + len(op))
    for typ, gi, go, opts in branches:
        x = n.input(UNARY_SHAPE, typ, *gi, every=True)
        n.output(n.unary(op, x, (f32(go[0]), go[1]), **opts))
    return n


for c in UNARY_CASES:
    CASES.append(lambda c=c: unary_case(*c))


@case
def quantize_float():
    """QUANTIZE of float inputs: power-of-two scales, so that ties are ties (k + 0.5 steps),
    values just inside and outside them, on the grid, past both ends; and random values
    on a general scale."""
    n = Net('quantize_float', 800)
    R = n.R
    for typ, scale, zero in (('int8', 0.25, -3), ('uint8', 0.125, 131), ('int8', 0.0371, 5)):
        shape = [1, 5, 9, 17]
        lo, hi = RANGE[typ]
        vals = []
        for i in range(count(shape)):
            k = (lo + hi + 1) // 2 + (i % 300) - 150 - zero     # q - zero, past both ends
            t = k + 0.5
            kind = i % 7 if scale in (0.25, 0.125) else 7
            if kind in (0, 1):
                v = t * scale
            elif kind == 2:
                v = (t - 0.001) * scale
            elif kind == 3:
                v = (t + 0.001) * scale
            elif kind == 4:
                v = k * scale
            elif kind == 5:
                v = (1e5 if i & 8 else -1e5) * scale
            elif kind == 6:
                v = (0.4999 if i & 16 else -0.4999) * scale
            else:
                v = R.uniform(lo - zero - 10, hi - zero + 10) * scale
            vals.append(v)
        x = n.float_input(shape, vals)
        q = n.act(shape, typ, scale, zero)
        n.op('QUANTIZE', [x], [q])
        n.output(q)
    return n


def movers(name, seed, typ):
    """The value movers on one grid: each reads the input (or the second input, for the
    CONCATENATION) and is an output."""
    n = Net(name, seed)
    g = grid_in(n.R, typ)
    x = n.input([1, 5, 7, 3], typ, *g)
    y = n.input([1, 5, 7, 2], typ, *g)

    def out(shape):
        return n.act(shape, typ, *n.grid(x))

    n.output(n.op('PAD', [x, n.tensor([4, 2], 'int32', data=[0, 0, 1, 2, 0, 1, 1, 0])],
                  [out([1, 8, 8, 4])]))
    n.output(n.op('TRANSPOSE', [x, n.ints([0, 2, 1, 3])], [out([1, 7, 5, 3])]))
    n.output(n.reshape(x, [5, 21]))
    s = n.op('SLICE', [x, n.ints([0, 1, 0, 0]), n.ints([1, 4, 6, 3])], [out([1, 4, 6, 3])])
    s2d = n.op('SPACE_TO_DEPTH', [s], [out([1, 2, 3, 12])], block_size=2)
    n.output(s2d)
    n.output(n.op('DEPTH_TO_SPACE', [s2d], [out([1, 4, 6, 3])], block_size=2))
    n.output(n.op('STRIDED_SLICE', [x, n.ints([0, 0, 1, 0]), n.ints([1, 5, 7, 3]),
                                    n.ints([1, 2, 2, 1])], [out([1, 3, 3, 3])]))
    n.output(n.op('RESIZE_NEAREST_NEIGHBOR', [x, n.ints([9, 13])], [out([1, 9, 13, 3])]))
    n.output(n.op('GATHER', [x, n.ints([2, 0, 2, 1])], [out([1, 5, 7, 4])], axis=3))
    n.output(n.op('CONCATENATION', [x, y], [out([1, 5, 7, 5])], axis=3))
    return n


CASES.append(lambda: movers('movers_int8', 900, 'int8'))
CASES.append(lambda: movers('movers_uint8', 901, 'uint8'))


def concat_grids(name, seed, typ, axis, shapes, grids, out_grid):
    """CONCATENATION of inputs on grids other than the output's (one of them on the
    output's): TFLite's ConcatenationWithScaling requantizes each such input."""
    n = Net(name, seed)
    xs = [n.input(s, typ, *g) for s, g in zip(shapes, grids)]
    shape = list(shapes[0])
    shape[axis] = sum(s[axis] for s in shapes)
    y = n.act(shape, typ, f32(out_grid[0]), out_grid[1])
    n.output(n.op('CONCATENATION', xs, [y], axis=axis))
    return n


# uint8 only: TFLite's int8 CONCATENATION takes inputs on the output's grid alone (its
# Prepare fails otherwise), and the XNNPACK delegate takes no rescaling either. The first
# case's 0.03125 over 0.0625 makes every odd q - zero a tie.
CONCAT_GRID_CASES = [
    ('concat_u8_grids_c', 3, [[1, 5, 7, 1], [1, 5, 7, 3], [1, 5, 7, 5]],
     [(0.03125, 120), (0.0625, 128), (0.0517, 101)], (0.0625, 128)),
    ('concat_u8_grids_h', 1, [[1, 3, 5, 17], [1, 4, 5, 17]], [(0.0731, 90), (0.05, 131)],
     (0.05, 131)),
    ('concat_u8_grids_w', 2, [[1, 5, 3, 3], [1, 5, 1, 3], [1, 5, 5, 3]],
     [(0.1, 140), (0.02, 128), (0.02, 100)], (0.02, 128)),
]
for i, c in enumerate(CONCAT_GRID_CASES):
    CASES.append(lambda c=c, i=i: concat_grids(c[0], 950 + i, 'uint8', *c[1:]))


def padv2_case(name, seed, typ, shape, grid, pads, fills):
    """PADV2 with constant values off the zero point (on the output's grid, as TFLite's
    int8 / uint8 PAD requires): one output per fill q."""
    n = Net(name, seed)
    x = n.input(shape, typ, *grid)
    for q in fills:
        out = [d + pads[2 * k] + pads[2 * k + 1] for k, d in enumerate(shape)]
        y = n.act(out, typ, *n.grid(x))
        c = n.const([1], typ, n.grid(x)[0], n.grid(x)[1], [q])
        n.output(n.op('PADV2', [x, n.tensor([4, 2], 'int32', data=pads), c], [y]))
    return n


CASES.append(lambda: padv2_case('padv2_int8', 960, 'int8', [1, 5, 7, 3], (0.04, -5),
                                [0, 0, 1, 2, 2, 1, 1, 1], [90, -128, 127]))
CASES.append(lambda: padv2_case('padv2_uint8', 961, 'uint8', [1, 3, 5, 17], (0.05, 130),
                                [0, 0, 2, 1, 0, 3, 3, 2], [0, 255, 17]))


def quantize_types():
    """QUANTIZE between int8 and uint8 on all 256 inputs: TFLite's Requantize (the same
    scale and zero points 128 apart an offset, else a fixed-point multiplier)."""
    n = Net('quantize_types', 970)
    for typ, gi, otyp, go in (('int8', (0.04, -3), 'uint8', (0.04, 125)),
                              ('int8', (0.05, 3), 'uint8', (0.1, 130)),
                              ('int8', (0.02, -30), 'uint8', (0.011, 7)),
                              ('uint8', (0.04, 128), 'int8', (0.04, 0)),
                              ('uint8', (0.03, 120), 'int8', (0.0731, -11)),
                              ('uint8', (0.02, 100), 'int8', (0.02, -20))):
        x = n.input(UNARY_SHAPE, typ, *gi, every=True)
        y = n.act(UNARY_SHAPE, otyp, f32(go[0]), go[1])
        n.output(n.op('QUANTIZE', [x], [y]))
    return n


CASES.append(quantize_types)


def prelu_case(name, seed, typ, branches):
    """PRELU by a constant alpha on its own grid (TFLite's own kernel: fixed-point
    multipliers for each sign, double rounding): each branch an input shape, the alpha's
    shape and real values (cycled), its grid, the output's scale over the input's and its
    zero point, or an exact input grid (ties: ratios of powers of two)."""
    n = Net(name, seed)
    lo, hi = RANGE[typ]
    for shape, ashape, alphas, agrid, factor, ozero, igrid in branches:
        gi = igrid or grid_in(n.R, typ, 0.02, 0.06)
        x = n.input(shape, typ, *gi)
        sa, za = f32(agrid[0]), agrid[1]
        aq = [max(lo, min(hi, int(round(alphas[i % len(alphas)] / sa)) + za))
              for i in range(count(ashape))]
        alpha = n.tensor(ashape, typ, (sa, za), aq)
        y = n.act(shape, typ, f32(n.grid(x)[0] * factor), lo + ozero)
        n.output(n.op('PRELU', [x, alpha], [y]))
    return n


# shape, alpha shape, alpha values, alpha grid, output scale / input scale, output zero
# point above the type's lowest q, input grid (None: drawn)
PRELU_BRANCHES = [
    ([1, 7, 5, 3], [1, 1, 3], [0.1, 0.25, 0.05], (0.3 / 127, 0), 1.0, 70, None),
    ([1, 5, 7, 17], [1], [0.2], (0.2 / 127, 0), 1.0, 70, None),
    ([1, 3, 5, 5], [1, 1, 1, 5], [-0.5, 1.7, 0.3, -1.2, 0.01], (2.0 / 127, 5), 1.3, 108, None),
    ([1, 3, 5, 1], [1, 3, 5, 1], [0.1, -0.3, 0.7, 0.2, 1.5, -2.0, 0.05], (0.017, -3), 0.8, 70,
     None),
    ([1, 5, 7, 5], [5], [0.125, 0.375, -0.625, 0.875, 1.125], (0.125, 0), 2.0, 125, (0.5, -3)),
]


def uint8_branch(b):
    shape, ashape, alphas, agrid, factor, ozero, igrid = b
    return (shape, ashape, alphas, (agrid[0], agrid[1] + 128), factor, ozero,
            (igrid[0], igrid[1] + 128) if igrid else None)


CASES.append(lambda: prelu_case('prelu_int8', 990, 'int8', PRELU_BRANCHES))
CASES.append(lambda: prelu_case('prelu_uint8', 991, 'uint8',
                                [uint8_branch(b) for b in PRELU_BRANCHES]))


def resize_bilinear_case(name, seed, typ, branches):
    """RESIZE_BILINEAR on one grid (XNNPACK's ibilinear: weights of 11 bits): each branch
    an input shape, the output size, align_corners, half_pixel_centers."""
    n = Net(name, seed)
    for shape, size, align, half in branches:
        x = n.input(shape, typ, *grid_in(n.R, typ))
        y = n.act([shape[0], size[0], size[1], shape[3]], typ, *n.grid(x))
        n.output(n.op('RESIZE_BILINEAR', [x, n.ints(list(size))], [y], align_corners=align,
                      half_pixel_centers=half))
    return n


CASES.append(lambda: resize_bilinear_case('resize_bilinear_int8', 992, 'int8', [
    ([1, 5, 7, 3], [9, 13], False, False), ([1, 5, 7, 5], [11, 4], True, False),
    ([1, 7, 5, 17], [3, 9], False, True), ([1, 9, 7, 1], [4, 3], False, False),
    ([1, 3, 5, 3], [7, 11], False, True), ([1, 5, 7, 3], [1, 9], True, False)]))
CASES.append(lambda: resize_bilinear_case('resize_bilinear_uint8', 993, 'uint8', [
    ([1, 5, 7, 3], [13, 9], False, False), ([1, 7, 5, 5], [3, 17], True, False),
    ([1, 5, 9, 17], [11, 5], False, True), ([1, 9, 9, 1], [5, 3], False, True)]))


def softmax_case(name, seed, typ, branches):
    """SOFTMAX onto TFLite's output grid (1/256, zero point -128 for int8, 0 for uint8), an
    output per branch (shape, input grid, beta, spread): rank 4 and rank 2, 1 to 33
    channels (the reduction's axis), input scales from 0.004 to 0.5, beta 0.3 to 2. With a
    spread, each row's q lie within that many steps of its max, so that most of the row
    keeps a share; without, they span the type's range."""
    n = Net(name, seed)
    R = n.R
    lo, hi = RANGE[typ]
    for shape, grid, beta, spread in branches:
        qs = None
        if spread:
            c = shape[-1]
            qs = []
            for _ in range(count(shape) // c):
                top = R.randint(lo + spread, hi)
                qs += [R.randint(top - spread, top) for _ in range(c)]
        x = n.input(shape, typ, *grid, qs=qs)
        y = n.act(shape, typ, f32(1 / 256.0), lo)
        n.output(n.op('SOFTMAX', [x], [y], beta=beta))
    return n


SOFTMAX_CASES = [
    ('softmax_int8', 'int8', [([1, 3, 5, 1], (0.05, -5), 1.0, None),
                              ([1, 3, 5, 3], (0.1, 7), 1.0, 40),
                              ([1, 5, 3, 5], (0.02, -5), 1.0, None),
                              ([1, 3, 5, 17], (0.25, 0), 0.5, 20),
                              ([1, 1, 3, 33], (0.0125, -20), 2.0, 100),
                              ([7, 5], (0.07, 3), 0.3, None),
                              ([5, 17], (0.0039, -5), 1.7, None),
                              ([3, 33], (0.5, 11), 1.0, 8),
                              ([9, 1], (0.1, 0), 1.0, None)]),
    ('softmax_uint8', 'uint8', [([1, 3, 5, 1], (0.05, 130), 1.0, None),
                                ([1, 5, 3, 3], (0.1, 128), 1.0, 40),
                                ([1, 3, 5, 5], (0.02, 120), 2.0, 100),
                                ([1, 3, 3, 17], (0.25, 140), 0.5, 20),
                                ([1, 1, 5, 33], (0.0125, 128), 1.0, None),
                                ([7, 3], (0.07, 100), 0.3, None),
                                ([5, 17], (0.0039, 128), 1.7, None),
                                ([3, 33], (0.5, 131), 1.0, 8)]),
]
for i, c in enumerate(SOFTMAX_CASES):
    CASES.append(lambda c=c, i=i: softmax_case(c[0], 980 + i, *c[1:]))


# ---- networks -------------------------------------------------------------------------

@case
def net_mobilenet_v3():
    """conv 3x3 s2 -> HARD_SWISH -> depthwise 3x3 RELU -> squeeze-excite (MEAN, FC RELU, FC,
    ADD 3, RELU6, MUL 1/6, RESHAPE, MUL) -> 1x1 conv -> residual ADD -> global average
    pool -> RESHAPE -> FC. Outputs: the head and the residual sum."""
    n = Net('net_mobilenet_v3', 1000)
    x = n.input([1, 9, 9, 3], 'int8', 1 / 74.0, -2)
    c1 = n.conv(x, 5, 3, 2, 'SAME', real_std=1.5)
    s1, _ = n.grid(c1)
    h1 = n.unary('HARD_SWISH', c1, (f32(s1 * 0.8), -80))
    n.std[h1] = 35
    d1 = n.conv(h1, 5, 3, 1, 'SAME', 'RELU', dw=True)
    sd, zd = n.grid(d1)
    m = n.mean(d1, False, (f32(sd / 2), -118))
    f1 = n.fc(m, 3, 'RELU')
    f2 = n.fc(f1, 5, grid=(f32(6 / 128.0), 0), real_std=3.0)
    three = n.const([1], 'int8', 3 / 127.0, 0, [127])
    a3 = n.act([1, 5], 'int8', 12 / 255.0, -64)
    n.op('ADD', [f2, three], [a3])
    r6 = n.unary('RELU6', a3, (f32(6 / 255.0), -128))
    sixth = n.const([1], 'int8', 1 / 6.0 / 127.0, 0, [127])
    hs = n.act([1, 5], 'int8', 1 / 255.0, -128)
    n.op('MUL', [r6, sixth], [hs])
    rs = n.reshape(hs, [1, 1, 1, 5])
    se = n.act(n.shape(d1), 'int8', sd, zd)
    n.op('MUL', [d1, rs], [se])
    p1 = n.conv(se, 5, 1, 1, 'SAME')
    r = n.binary('ADD', p1, h1)
    g = n.pool('AVERAGE_POOL_2D', r, 5, 1, 'VALID')
    head = n.fc(n.reshape(g, [1, 5]), 3, real_std=0.5)
    n.output(head)
    n.output(r)
    return n


@case
def net_mobilenet_v2():
    """Two inverted residual blocks: expand 1x1 RELU6 -> depthwise 3x3 RELU6 -> project 1x1
    -> residual ADD; then expand, depthwise 3x3 s2, project; MEAN -> RESHAPE -> FC."""
    n = Net('net_mobilenet_v2', 1001)
    x = n.input([1, 7, 7, 5], 'int8', 1 / 60.0, 3)
    e = n.conv(x, 17, 1, 1, 'SAME', 'RELU6')
    d = n.conv(e, 17, 3, 1, 'SAME', 'RELU6', dw=True)
    p = n.conv(d, 5, 1, 1, 'SAME')
    a = n.binary('ADD', p, x)
    e2 = n.conv(a, 17, 1, 1, 'SAME', 'RELU6')
    d2 = n.conv(e2, 17, 3, 2, 'SAME', 'RELU6', dw=True)
    p2 = n.conv(d2, 7, 1, 1, 'SAME')
    m = n.mean(p2, True, (f32(n.grid(p2)[0] / 3), 0))
    f = n.fc(n.reshape(m, [1, 7]), 3)
    n.output(a)
    n.output(p2)
    n.output(f)
    return n


@case
def net_blazeface():
    """conv 5x5 s2 RELU -> blaze block (depthwise 5x5, 1x1, residual ADD, RELU) -> head A;
    downsampling block (depthwise 5x5 s2, 1x1 to more channels; MAX_POOL 2x2 s2 and a
    channel PAD on the shortcut; ADD, RELU) -> head B; the heads (1x1 convs on one grid)
    reshaped and concatenated."""
    n = Net('net_blazeface', 1002)
    x = n.input([1, 9, 9, 3], 'int8', 1 / 64.0, 0)
    c1 = n.conv(x, 5, 5, 2, 'SAME', 'RELU')
    d = n.conv(c1, 5, 5, 1, 'SAME', dw=True)
    p = n.conv(d, 5, 1, 1, 'SAME')
    a = n.binary('ADD', p, c1)
    sa, _ = n.grid(a)
    r = n.unary('RELU', a, (f32(sa * 0.7), -128))
    head_grid = (f32(1 / 40.0), 2)
    ha = n.conv(r, 2, 1, 1, 'SAME', grid=head_grid)
    ra = n.reshape(ha, [1, 25, 2])
    d2 = n.conv(r, 5, 5, 2, 'SAME', dw=True)
    p2 = n.conv(d2, 7, 1, 1, 'SAME')
    mp = n.pool('MAX_POOL_2D', r, 2, 2, 'SAME')
    pd = n.act([1, 3, 3, 7], 'int8', *n.grid(mp), n.std[mp])
    n.op('PAD', [mp, n.tensor([4, 2], 'int32', data=[0, 0, 0, 0, 0, 0, 0, 2])], [pd])
    a2 = n.binary('ADD', p2, pd)
    r2 = n.unary('RELU', a2, (n.grid(a2)[0], -128))
    hb = n.conv(r2, 2, 1, 1, 'SAME', grid=head_grid)
    rb = n.reshape(hb, [1, 9, 2])
    cat = n.act([1, 34, 2], 'int8', *head_grid)
    n.op('CONCATENATION', [ra, rb], [cat], axis=1)
    n.output(cat)
    n.output(r2)
    return n


@case
def net_uint8():
    """uint8 throughout (uint8 weights with zero points): conv 3x3 RELU -> depthwise 3x3
    s2 VALID RELU6 -> 1x1 conv -> residual-free MAX_POOL 2x2 -> MEAN -> FC -> LOGISTIC
    (1/256, zero point 0)."""
    n = Net('net_uint8', 1003)
    x = n.input([1, 7, 9, 3], 'uint8', 1 / 70.0, 131)
    c = n.conv(x, 5, 3, 1, 'SAME', 'RELU', per_channel=False, wtype='uint8')
    d = n.conv(c, 5, 3, 2, 'VALID', 'RELU6', per_channel=False, wtype='uint8', dw=True)
    p = n.conv(d, 17, 1, 1, 'SAME', per_channel=False, wtype='uint8')
    mp = n.pool('MAX_POOL_2D', p, 2, 1, 'VALID')
    m = n.mean(mp, False)
    f = n.fc(m, 5, per_channel=False, wtype='uint8', real_std=2.0)
    o = n.unary('LOGISTIC', f, (f32(1 / 256.0), 0))
    n.output(o)
    n.output(p)
    return n


# ---- writing ----------------------------------------------------------------------------

def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    node_modules, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    nets = [fn() for fn in CASES]
    names = [n.name for n in nets]
    assert len(set(names)) == len(names), 'duplicate case names'
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'op_models', 'run_litert.mjs')
    with tempfile.TemporaryDirectory() as work:
        jobs = []
        for n in nets:
            data = tflite_writer.write_model(n.spec())
            with open(os.path.join(out_dir, n.name + '.tflite'), 'wb') as f:
                f.write(data)
            files = []
            for i, values in enumerate(n.in_values):
                files.append(os.path.join(out_dir, '%s.in%d.f32' % (n.name, i)))
                write_f32(files[-1], values)
            jobs.append({'model': os.path.join(out_dir, n.name + '.tflite'), 'inputs': files,
                         'prefix': os.path.join(work, n.name)})
        with open(os.path.join(work, 'jobs.json'), 'w') as f:
            json.dump(jobs, f)
        r = subprocess.run(['node', runner, node_modules, os.path.join(work, 'jobs.json')],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            sys.exit(r.stderr)
        lines = ['# tests/data/int8 (tests/make_int8_models.py): NAME, then the grid scale of',
                 '# each output in order (one LSB of it), for tests/test_int8.c.']
        for n in nets:
            outs = []
            for i in range(len(n.outputs)):
                with open(os.path.join(work, '%s.out%d.f32' % (n.name, i)), 'rb') as f:
                    data = f.read()
                outs += struct.unpack('<%df' % (len(data) // 4), data)
            write_f32(os.path.join(out_dir, n.name + '.litert.f32'), outs)
            lines.append(' '.join([n.name] + ['%.9g' % s for s in n.out_scales]))
            print('%-32s %d in, %d out, %5d elements' % (n.name, len(n.inputs), len(n.outputs), len(outs)))
    with open(os.path.join(out_dir, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('%d models' % len(nets))


if __name__ == '__main__':
    main()
