#!/usr/bin/env python3
"""int8_models.py OUT_DIR [SIZE]: writes full-integer int8 networks of real size and their
float twins, for timing int8 against float (bench/int8_vs_float.sh).

There is no TensorFlow here and the held-back int8 models are not public, so these are
built the way the converter lays such networks out, from seeded random weights:
  mobilenet_v2_int8   224x224x3 (or SIZExSIZE): MobileNetV2's 17 inverted-residual blocks
                      (1x1 expand RELU6, 3x3 depthwise RELU6, 1x1 project, residual ADD),
                      1x1 to 1280, MEAN, FULLY_CONNECTED 1000
  mobilenet_v3s_int8  MobileNetV3-small's 11 blocks: HARD_SWISH, squeeze-excite (MEAN,
                      FC RELU, FC, hard sigmoid as ADD 3 / RELU6 / MUL 1/6, MUL), residuals
  blazeface_int8      128x128x3: BlazeFace's 5x5 depthwise blocks, residual ADD + RELU,
                      MAX_POOL 2x2 and channel PAD on stride-2 blocks, two heads
Each int8 model takes and returns float (QUANTIZE first, DEQUANTIZE last) as converted
models with float I/O do; NAME_float.tflite is the same network with the dequantized
weights and float activations. Activation grids are sized from each op's fan-in (no
calibration; scales 0.02-0.1): values are not meaningful, which timing does not need. Weights: per-channel
int8 (symmetric), int32 biases.
"""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests'))
import tflite_writer  # noqa: E402


class Net:
    def __init__(self, int8, seed):
        self.int8, self.r = int8, random.Random(seed)
        self.tensors, self.ops = [], []

    def tensor(self, shape, ttype='float32', data=None, quant=None):
        t = {'name': 't%d' % len(self.tensors), 'shape': list(shape), 'type': ttype}
        if data is not None:
            t['data'] = data
        if quant:
            t['quant'] = quant
        self.tensors.append(t)
        return len(self.tensors) - 1

    def act(self, shape, scale, zp=0):
        """An activation: int8 on (scale, zp), or float32."""
        if self.int8:
            return self.tensor(shape, 'int8', quant={'scale': [scale], 'zero_point': [zp]}), (scale, zp)
        return self.tensor(shape), (scale, zp)

    def op(self, name, inputs, outputs, **options):
        self.ops.append({'op': name, 'inputs': inputs, 'outputs': outputs, 'options': options})

    def ints(self, values):
        return self.tensor([len(values)], 'int32', values)

    def weights(self, shape, axis, fan_in):
        n = 1
        for d in shape:
            n *= d
        ws = [self.r.uniform(0.6, 1.4) / 127.0 / math.sqrt(fan_in) * 2.0 for _ in range(shape[axis])]
        q = [self.r.randint(-127, 127) for _ in range(n)]
        if self.int8:
            return self.tensor(shape, 'int8', q, {'scale': ws, 'zero_point': [0] * len(ws),
                                                   'axis': axis}), ws
        inner = 1
        for d in shape[axis + 1:]:
            inner *= d
        return self.tensor(shape, 'float32', [ws[(i // inner) % shape[axis]] * v for i, v in enumerate(q)]), ws

    def bias(self, n, ws, in_scale):
        b = [self.r.randint(-300, 300) for _ in range(n)]
        if self.int8:
            bs = [in_scale * w for w in ws]
            return self.tensor([n], 'int32', b, {'scale': bs, 'zero_point': [0] * n, 'axis': 0})
        return self.tensor([n], 'float32', [in_scale * w * v for w, v in zip(ws, b)])

    # ---- layers: each takes (tensor, shape, grid) and returns the same -------------------
    def conv(self, x, k, oc, stride=1, act='NONE', dw=False):
        t, shape, (s, z) = x
        _, h, w, c = shape
        oh, ow = (h + stride - 1) // stride, (w + stride - 1) // stride
        if dw:
            wt, ws = self.weights([1, k, k, c], 3, k * k)
            oc = c
        else:
            wt, ws = self.weights([oc, k, k, c], 0, k * k * c)
        bt = self.bias(oc, ws, s)
        oshape = [1, oh, ow, oc]
        o, g = self.act(oshape, self.r.uniform(0.02, 0.1), self.r.randint(-20, 20))
        opts = dict(padding='SAME', stride_w=stride, stride_h=stride, activation=act)
        if dw:
            opts['depth_multiplier'] = 1
        self.op('DEPTHWISE_CONV_2D' if dw else 'CONV_2D', [t, wt, bt], [o], **opts)
        return o, oshape, g

    def unary(self, x, name, grid=None, **opts):
        t, shape, g = x
        o, g2 = self.act(shape, *(grid or g))
        self.op(name, [t], [o], **opts)
        return o, shape, g2

    def binary(self, name, a, b, act='NONE', grid=None):
        o, g = self.act(a[1], *(grid or (self.r.uniform(0.02, 0.1), self.r.randint(-20, 20))))
        self.op(name, [a[0], b[0]], [o], activation=act)
        return o, a[1], g

    def mean(self, x):
        t, shape, g = x
        oshape = [1, 1, 1, shape[3]]
        o, g2 = self.act(oshape, *g)
        self.op('MEAN', [t, self.ints([1, 2])], [o], keep_dims=True)
        return o, oshape, g2

    def fc(self, x, n, act='NONE'):
        t, shape, (s, z) = x
        k = shape[-1]
        r, _ = self.act([1, k], s, z)
        self.op('RESHAPE', [t, self.ints([1, k])], [r])
        wt, ws = self.weights([n, k], 0, k)
        bt = self.bias(n, ws, s)
        o, g = self.act([1, n], self.r.uniform(0.05, 0.2), 0)
        self.op('FULLY_CONNECTED', [r, wt, bt], [o], activation=act)
        return o, [1, n], g

    def const_like(self, value, grid):
        """A scalar constant for ADD / MUL: int8 on its own grid or float."""
        if self.int8:
            s = abs(value) / 100.0 if value else 1.0
            return self.tensor([1], 'int8', [round(value / s)], {'scale': [s], 'zero_point': [0]}), (s, 0)
        return self.tensor([1], 'float32', [value]), grid

    def model(self, x_in, x, outs):
        spec_outputs = []
        for o in outs:
            if self.int8:
                f = self.tensor(o[1])
                self.op('DEQUANTIZE', [o[0]], [f])
                spec_outputs.append(f)
            else:
                spec_outputs.append(o[0])
        return {'tensors': self.tensors, 'ops': self.ops, 'inputs': [x_in], 'outputs': spec_outputs}

    def input(self, shape):
        x_in = self.tensor(shape)
        if not self.int8:
            return x_in, (x_in, shape, (1.0 / 64, 0))
        q, g = self.act(shape, 1.0 / 64, 0)
        self.op('QUANTIZE', [x_in], [q])
        return x_in, (q, shape, g)


def mobilenet_v2(int8, size):
    n = Net(int8, 1)
    x_in, x = n.input([1, size, size, 3])
    x = n.conv(x, 3, 32, 2, 'RELU6')
    cfg = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1)]
    for t, c, reps, s in cfg:
        for i in range(reps):
            inp = x
            cin = x[1][3]
            if t != 1:
                x = n.conv(x, 1, cin * t, 1, 'RELU6')
            x = n.conv(x, 3, 0, s if i == 0 else 1, 'RELU6', dw=True)
            x = n.conv(x, 1, c, 1)
            if i > 0:
                x = n.binary('ADD', x, inp)
    x = n.conv(x, 1, 1280, 1, 'RELU6')
    x = n.mean(x)
    x = n.fc(x, 1000)
    return n.model(x_in, x, [x])


def hard_swish(n, x):
    return n.unary(x, 'HARD_SWISH')


def mobilenet_v3_small(int8, size):
    n = Net(int8, 2)
    x_in, x = n.input([1, size, size, 3])
    x = hard_swish(n, n.conv(x, 3, 16, 2))
    # (kernel, expand, out, squeeze-excite, hard-swish, stride)
    cfg = [(3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
           (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
           (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
           (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1)]
    for k, e, c, se, hs, s in cfg:
        inp = x
        cin = x[1][3]
        if e != cin:
            x = n.conv(x, 1, e, 1, 'NONE' if hs else 'RELU')
            if hs:
                x = hard_swish(n, x)
        x = n.conv(x, k, 0, s, 'NONE' if hs else 'RELU', dw=True)
        if hs:
            x = hard_swish(n, x)
        if se:
            m = n.mean(x)
            sq = n.conv(m, 1, max(8, e // 4), 1, 'RELU')
            ex = n.conv(sq, 1, e, 1)
            three, g3 = n.const_like(3.0, ex[2])
            a = n.binary('ADD', ex, (three, [1], g3), grid=(6.0 / 127, 0))
            a = n.unary(a, 'RELU6', grid=(6.0 / 127, 0))
            sixth, g6 = n.const_like(1.0 / 6.0, a[2])
            hsig = n.binary('MUL', a, (sixth, [1], g6), grid=(1.0 / 127, 0))
            x = n.binary('MUL', x, hsig, grid=x[2])
        x = n.conv(x, 1, c, 1)
        if s == 1 and cin == c:
            x = n.binary('ADD', x, inp)
    x = hard_swish(n, n.conv(x, 1, 576, 1))
    x = n.mean(x)
    x = hard_swish(n, n.conv(x, 1, 1024, 1))
    x = n.fc(x, 1000)
    return n.model(x_in, x, [x])


def blazeface(int8, size):
    n = Net(int8, 3)
    x_in, x = n.input([1, size, size, 3])
    x = n.conv(x, 5, 24, 2, 'RELU')

    def block(x, c, stride):
        inp = x
        y = n.conv(x, 5, 0, stride, dw=True)
        y = n.conv(y, 1, c, 1)
        if stride == 2:
            _, h, w, ci = inp[1]
            pshape = [1, (h + 1) // 2, (w + 1) // 2, ci]
            p, g = n.act(pshape, *inp[2])
            n.op('MAX_POOL_2D', [inp[0]], [p], padding='SAME', stride_w=2, stride_h=2, filter_w=2,
                 filter_h=2)
            inp = (p, pshape, g)
        if inp[1][3] != c:
            pshape = inp[1][:3] + [c]
            p, g = n.act(pshape, *inp[2])
            n.op('PAD', [inp[0], n.tensor([4, 2], 'int32', [0, 0, 0, 0, 0, 0, 0, c - inp[1][3]])], [p])
            inp = (p, pshape, g)
        return n.binary('ADD', y, inp, act='RELU')

    for c, s in [(24, 1), (28, 1), (32, 2), (36, 1), (42, 1), (48, 2), (56, 1), (64, 1), (72, 1),
                 (80, 1), (88, 1)]:
        x = block(x, c, s)
    f16 = x
    for c, s in [(96, 2), (96, 1), (96, 1), (96, 1), (96, 1)]:
        x = block(x, c, s)
    outs = [n.conv(f16, 1, 2, 1), n.conv(x, 1, 6, 1), n.conv(f16, 1, 32, 1), n.conv(x, 1, 96, 1)]
    return n.model(x_in, None, outs)


def main():
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 224
    os.makedirs(out, exist_ok=True)
    for name, build, s in [('mobilenet_v2', mobilenet_v2, size), ('mobilenet_v3s', mobilenet_v3_small, size),
                           ('blazeface', blazeface, 128)]:
        for int8 in (True, False):
            path = os.path.join(out, '%s_%s.tflite' % (name, 'int8' if int8 else 'float'))
            with open(path, 'wb') as f:
                f.write(tflite_writer.write_model(build(int8, s)))
            print(path)


if __name__ == '__main__':
    main()
