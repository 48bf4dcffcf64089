"""gen.py: random valid TFLite graphs for the differential tester (tests/graphs/fuzz.py).

generate(seed) -> Case: a spec for tests/tflite_writer.py, the graph's inputs, and what the
graph holds (ops, shape classes) for the coverage table. The same seed gives the same bytes.

A graph starts from one to three float32 inputs of rank 0 to 5 (batch 1 or more, odd and
size-1 extents, C from 1 to 17 and wider) and grows op by op: each step picks an op (nine
"focus" ops per seed walk the whole op list round robin, so a run of consecutive seeds
covers every op, each in about as many graphs), then operands from the tensors made so
far: the newest (chains), an older one (residual branches, a tensor read by several ops),
a second input, a constant (float32, or float16 / int8 behind a DEQUANTIZE) or a tensor
reduced with keep_dims (a broadcast operand computed in the graph, as LayerNorm does).
Structures real networks have come as blocks: split/concat fan-out and fan-in, a
reshape/transpose round trip and an attention block over rank-3 activations, an int8
section (QUANTIZE, int8 ops on per-tensor grids, DEQUANTIZE). Every tensor no op reads
becomes a graph output, so outputs come from the middle of the graph too.

Values stay where both sides are well defined and comparable: inputs are multiples of 1/8
in [-2, 2) (exact in float16); ops with a discontinuity (FLOOR, ROUND, CAST, comparisons,
ARG_MAX, FLOOR_DIV, ...) only read "exact" tensors (inputs and what layout ops make of
them), where float order cannot move a value across the step; LOG, SQRT, RSQRT and DIV's
divisor read values kept at least 0.5 by ABS + ADD; a magnitude bound per tensor keeps EXP,
POW and products finite. Graph inputs and outputs are float32 (vkinfer's graph I/O): index
and bool tensors leave the graph through CAST.

The ops vkinfer runs on the CPU (TOPK_V2, NON_MAX_SUPPRESSION_V4/V5, GATHER_ND, SCATTER_ND,
ONE_HOT, TFLite_Detection_PostProcess) read what GPU ops made, and GPU ops read what they
make, so the graph splits into GPU segments around them. Their index operands are in range
(constants, or FLOOR / ABS / MINIMUM / CAST of exact tensors; ONE_HOT's out of range too);
the scores NMS and the detection op rank are exact in float16 with a distinct offset each,
or levels further apart than rounding moves them, and the boxes are exact (or the graph is
checked in fp32 only); the rows the detection op leaves unwritten are masked by SELECT_V2.
The other CPU ops (cpu_misc.c, cpu_index.c, cpu_reduce.c, fft.c, conv3d.c, bucketize.c) come
the same way, each float output read by a GPU op (LiteRT.js returns garbage for some of them
as graph outputs): RFFT2D's complex64 result only by REAL, IMAG and COMPLEX_ABS; segment ids,
lookups, lengths and sparse indices in range; BUCKETIZE and FAKE_QUANT on exact tensors;
the -FLT_MAX / FLT_MAX of an empty UNSORTED_SEGMENT_MAX / MIN segment clamped on the GPU.
"""
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
sys.path.insert(0, os.path.join(HERE, '..', 'op_models'))
from specs import Graph, VERSIONS  # noqa: E402

# Fused activations as converters write them. TANH is left out: TFLite's float kernels
# ignore it in ADD/CONV (and vkinfer does the same), and LiteRT 2.5.3's FULLY_CONNECTED
# writes garbage with it (0, 1e31, NaN).
ACTS = ['NONE', 'NONE', 'RELU', 'RELU6', 'RELU_N1_TO_1']
INPUT_STEP = 0.125


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast(a, b):
    r = max(len(a), len(b))
    a = [1] * (r - len(a)) + list(a)
    b = [1] * (r - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return out


class T:
    """A float tensor of the graph being built: its index, shape, magnitude bound and
    whether its values are exact (multiples of the input step, or small integers)."""
    def __init__(self, idx, shape, mag, exact=False, positive=False, kind='float'):
        self.idx, self.shape, self.mag, self.exact = idx, list(shape), mag, exact
        self.positive, self.kind = positive, kind      # kind: float, int, bool


class Case:
    def __init__(self, name, spec, inputs, ops, classes, fp16_ok, int8):
        self.name, self.spec, self.inputs, self.ops = name, spec, inputs, ops
        self.classes, self.fp16_ok, self.int8 = classes, fp16_ok, int8


class Builder:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.g = Graph(seed)
        self.pool = []           # T, in the order made
        self.readers = {}        # tensor index -> ops reading it
        self.classes = set()     # (op, shape class)
        self.used_ops = []
        self.fp16_ok = True
        self.int8 = False
        self.input_values = []

    # ---- tensors -------------------------------------------------------------------------
    def shape(self, rank=None, small=False):
        r = self.r
        if rank is None:
            rank = r.choice([0, 1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5])
        dims = []
        for i in range(rank):
            last = i == rank - 1
            if last:
                d = r.choice([1, 3, 4, 5, 8, 17, 2, 6, 7, 9, 12, 16, 20, 33] if not small else [1, 3, 5, 4])
            elif i == 0 and rank >= 3:
                d = r.choice([1, 1, 1, 2, 3])
            else:
                d = r.choice([1, 2, 3, 4, 5, 7] if not small else [1, 2, 3])
            dims.append(d)
        while numel(dims) > 1500:
            k = max(range(rank), key=lambda i: dims[i])
            dims[k] = max(1, dims[k] // 2)
        return dims

    def new_input(self, shape):
        idx = self.g.input(shape, -2.0, 2.0, step=INPUT_STEP)
        t = T(idx, shape, 2.0, exact=True)
        self.pool.append(t)
        return t

    def const(self, shape, lo=-1.0, hi=1.0, exact=False):
        r = self.r
        kind = r.random()
        n = numel(shape)
        if exact:
            vals = [math.floor(r.uniform(lo, hi) / INPUT_STEP) * INPUT_STEP for _ in range(n)]
            return self.g.tensor(shape, data=vals)
        if kind < 0.15 and n > 0:
            # A float16 constant behind DEQUANTIZE (folded at load).
            vals = [r.uniform(lo, hi) for _ in range(n)]
            h = self.g.tensor(shape, 'float16', vals)
            out = self.g.tensor(shape)
            self.g.ops.append({'op': 'DEQUANTIZE', 'inputs': [h], 'outputs': [out], 'options': {},
                               'version': 2})
            self.note('DEQUANTIZE', shape, 'fp16 const')
            return out
        if kind < 0.25 and n > 0:
            # An int8 constant on a per-tensor grid behind DEQUANTIZE.
            scale = max(abs(lo), abs(hi)) / 127.0
            q = [max(-127, min(127, round(r.uniform(lo, hi) / scale))) for _ in range(n)]
            t = self.g.tensor(shape, 'int8', q)
            self.g.tensors[t]['quant'] = {'scale': [scale], 'zero_point': [0]}
            out = self.g.tensor(shape)
            self.g.ops.append({'op': 'DEQUANTIZE', 'inputs': [t], 'outputs': [out], 'options': {},
                               'version': 2})
            self.note('DEQUANTIZE', shape, 'int8 const')
            return out
        return self.g.const(shape, lo, hi)

    def shape_class(self, shape):
        rank = len(shape)
        c = 'r%d' % rank
        if rank >= 3 and shape[0] > 1:
            c += ' batch'
        if rank and shape[-1] in (1, 3, 5, 17):
            c += ' C%d' % shape[-1]
        return c

    def note(self, op, shape, extra=None):
        self.used_ops.append(op)
        self.classes.add((op, self.shape_class(shape)))
        if extra:
            self.classes.add((op, extra))

    def add_op(self, name, inputs, shapes, ttype='float32', **options):
        if shapes == []:     # one rank-0 output (specs.Graph.op reads [] as no outputs)
            out = self.g.op(name, inputs, [[]], ttype, **options)[0]
        else:
            out = self.g.op(name, inputs, shapes, ttype, **options)
        for i in inputs:
            if i >= 0:
                self.readers[i] = self.readers.get(i, 0) + 1
        return out

    def moved(self, name, t, o, shape):
        """Records layout op `name` that made o (of `shape`) by moving t's values: o keeps
        t's magnitude, exactness and sign. Returns True (the op was added)."""
        self.note(name, t.shape)
        self.push(o, shape, t.mag, t.exact, t.positive)
        return True

    def push(self, idx, shape, mag, exact=False, positive=False, kind='float'):
        t = T(idx, shape, min(mag, 1e6), exact, positive, kind)
        self.pool.append(t)
        return t

    # ---- operand choice ------------------------------------------------------------------
    def pick(self, pred=lambda t: True, kind='float'):
        cands = [t for t in self.pool if t.kind == kind and pred(t)]
        if not cands:
            return None
        r = self.r.random()
        if r < 0.55:
            return cands[-1]
        if r < 0.8 and len(cands) > 1:
            return cands[-2]
        return self.r.choice(cands)

    def positive(self, t):
        """ABS(t) + 0.5 (or t itself when already positive): values >= 0.5."""
        if t.positive:
            return t
        a = self.add_op('ABS', [t.idx], t.shape)
        self.note('ABS', t.shape)
        c = self.g.tensor([], data=[0.5])
        p = self.add_op('ADD', [a, c], t.shape)
        self.note('ADD', t.shape, 'broadcast scalar')
        return self.push(p, t.shape, t.mag + 0.5, positive=True)

    def tame(self, t, limit):
        """t, or TANH(t) * limit when its magnitude bound passes limit."""
        if t.mag <= limit:
            return t
        h = self.add_op('TANH', [t.idx], t.shape)
        self.note('TANH', t.shape)
        return self.push(h, t.shape, 1.0)

    def as_4d(self, t):
        """t as [1,H,W,C] (a RESHAPE when it is not already)."""
        s = t.shape
        if len(s) == 4 and s[0] == 1:
            return t
        n = numel(s)
        c = s[-1] if s else 1
        rest = n // c
        h = 1
        for d in range(int(math.sqrt(rest)), 0, -1):
            if rest % d == 0:
                h = d
                break
        shape = [1, h, rest // h, c]
        o = self.add_op('RESHAPE', [t.idx, self.g.ints(shape)], shape)
        self.note('RESHAPE', shape, 'to 4-D')
        return self.push(o, shape, t.mag, t.exact, t.positive)

    def other_operand(self, t, allow_computed=True):
        """A second operand broadcast-compatible with t: (T or const index, out shape)."""
        r = self.r
        s = t.shape
        choice = r.random()
        if choice < 0.3:
            bs = list(s)
        elif choice < 0.45:
            bs = s[r.randint(0, len(s)):] if s else []
        elif choice < 0.65:
            bs = [d if r.random() < 0.5 else 1 for d in s]
        elif choice < 0.75:
            bs = []
        else:
            # Both ways: where t has 1, the operand may be wider.
            bs = [d if d != 1 else r.choice([1, 2, 3]) for d in s]
            bs = [1 if (d > 1 and r.random() < 0.4) else d for d in bs]
        out = broadcast(s, bs)
        if numel(out) > 3000:
            bs, out = list(s), list(s)
        if allow_computed and r.random() < 0.5:
            same = [u for u in self.pool if u.kind == 'float' and u.shape == bs and u is not t]
            if same:
                return r.choice(same), out
            if r.random() < 0.3 and len(self.g.inputs) < 3:
                return self.new_input(bs), out
            if bs != s and len(bs) == len(s) and r.random() < 0.6 and s:
                # A keep_dims reduction of t over the axes where bs is 1: computed broadcast.
                axes = [i for i, (x, y) in enumerate(zip(s, bs)) if y == 1 and x != 1]
                if axes and all(y in (1, x) for x, y in zip(s, bs)):
                    op = r.choice(['MEAN', 'SUM', 'REDUCE_MAX'])
                    o = self.add_op(op, [t.idx, self.g.ints(axes)], bs, keep_dims=True)
                    self.note(op, s, 'keep_dims')
                    n = numel([s[i] for i in axes])
                    return self.push(o, bs, t.mag * (n if op == 'SUM' else 1)), out
        return None, (bs, out)

    def operand_index(self, t, spec, lo=-1.0, hi=1.0, exact=False):
        if spec[0] is not None:
            return spec[0].idx, spec[0], spec[1]
        bs, out = spec[1]
        return self.const(bs, lo, hi, exact), None, out


# ---- ops ---------------------------------------------------------------------------------
# Each takes the builder and returns True when it added the op.

UNARY = {   # name: (needs positive input, magnitude limit of the input, mag out(f), options)
    'ABS': (False, None, lambda m: m), 'NEG': (False, None, lambda m: m),
    'SIN': (False, None, lambda m: 1.0), 'COS': (False, None, lambda m: 1.0),
    'EXP': (False, 3.0, lambda m: math.exp(m)), 'LOG': (True, None, lambda m: math.log(m) + 1),
    'SQRT': (True, None, lambda m: math.sqrt(m)), 'RSQRT': (True, None, lambda m: 1.5),
    'SQUARE': (False, 30.0, lambda m: m * m), 'ELU': (False, None, lambda m: m),
    'GELU': (False, None, lambda m: m), 'RELU': (False, None, lambda m: m),
    'RELU6': (False, None, lambda m: min(m, 6)), 'RELU_N1_TO_1': (False, None, lambda m: 1),
    'RELU_0_TO_1': (False, None, lambda m: 1), 'LOGISTIC': (False, None, lambda m: 1),
    'TANH': (False, None, lambda m: 1), 'HARD_SWISH': (False, None, lambda m: m),
    'LEAKY_RELU': (False, None, lambda m: m),
}
DISCRETE_UNARY = ['FLOOR', 'CEIL', 'ROUND', 'SIGN']


def op_unary(b, name):
    pos, limit, magf = UNARY[name]
    t = b.pick()
    if t is None:
        return False
    if limit is not None:
        t = b.tame(t, limit)
    if pos:
        t = b.positive(t)
    opts = {}
    if name == 'LEAKY_RELU':
        opts['alpha'] = b.r.choice([0.2, 0.01, 0.5])
    if name == 'GELU':
        opts['approximate'] = b.r.random() < 0.5
    o = b.add_op(name, [t.idx], t.shape, **opts)
    b.note(name, t.shape)
    # Sign and clamp ops keep an exact tensor exact (and only an exact one: an ARG_MAX over
    # ABS of computed values read near-ties that float order decides, seeds 300343, 300518).
    b.push(o, t.shape, magf(t.mag) + 1e-3, exact=t.exact and name in ('ABS', 'NEG', 'RELU', 'RELU6'))
    return True


def op_discrete_unary(b, name):
    t = b.pick(lambda t: t.exact)
    if t is None:
        return False
    o = b.add_op(name, [t.idx], t.shape)
    b.note(name, t.shape)
    b.push(o, t.shape, t.mag + 1, exact=True)
    return True


def op_cast(b, name):
    t = b.pick(lambda t: t.exact)
    if t is None:
        return False
    i = b.add_op('CAST', [t.idx], t.shape, 'int32')
    b.note('CAST', t.shape, 'float->int32')
    b.push(i, t.shape, t.mag + 1, exact=True, kind='int')
    return True


ELTWISE = ['ADD', 'SUB', 'MUL', 'DIV', 'MAXIMUM', 'MINIMUM', 'SQUARED_DIFFERENCE', 'POW']
COMPARE = ['LESS', 'GREATER', 'GREATER_EQUAL', 'LESS_EQUAL', 'EQUAL', 'NOT_EQUAL']


def op_binary(b, name):
    t = b.pick()
    if t is None:
        return False
    if name in ('MUL', 'SQUARED_DIFFERENCE'):
        t = b.tame(t, 30.0)
    if name == 'POW':
        t = b.tame(t, 4.0)
        t = b.positive(t)
    spec = b.other_operand(t)
    lo, hi = (-1.0, 1.0)
    if name == 'POW':
        # A constant exponent: TFLite and C's pow agree off the negative-base branch.
        bs, out = spec[1] if spec[0] is None else (spec[0].shape, spec[1])
        y = b.g.tensor(bs, data=[b.r.choice([0.5, 2.0, 1.5, -1.0, 3.0]) for _ in range(numel(bs))])
        o = b.add_op('POW', [t.idx, y], out)
        b.note('POW', out)
        b.push(o, out, (t.mag + 1) ** 3)
        return True
    if name == 'DIV':
        if spec[0] is not None:
            u = b.positive(spec[0])
            yi, out = u.idx, spec[1]
        else:
            bs, out = spec[1]
            yi = b.const(bs, 0.5, 2.0)
        opts = {'activation': b.r.choice(ACTS)}
        o = b.add_op('DIV', [t.idx, yi] if b.r.random() < 0.8 else [t.idx, yi], out, **opts)
        b.note('DIV', out, 'act ' + opts['activation'])
        b.push(o, out, t.mag * 2)
        return True
    yi, u, out = b.operand_index(t, spec)
    opts = {}
    if name in ('ADD', 'SUB', 'MUL'):
        opts['activation'] = b.r.choice(ACTS)
        b.classes.add((name, 'act ' + opts['activation']))
    ins = [t.idx, yi] if b.r.random() < 0.6 else [yi, t.idx]
    o = b.add_op(name, ins, out, **opts)
    b.note(name, out, 'broadcast' if (u is None or u.shape != t.shape) and out != t.shape or
           (u is not None and u.shape != out) else None)
    um = u.mag if u is not None else 1.0
    mag = {'ADD': t.mag + um, 'SUB': t.mag + um, 'MUL': t.mag * um,
           'SQUARED_DIFFERENCE': (t.mag + um) ** 2}.get(name, max(t.mag, um))
    b.push(o, out, mag)
    return True


def op_prelu(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    alpha_shape = b.r.choice([[t.shape[-1]], [1] * (len(t.shape) - 1) + [t.shape[-1]], [1]])
    a = b.const(alpha_shape, -0.5, 0.5)
    o = b.add_op('PRELU', [t.idx, a], t.shape)
    b.note('PRELU', t.shape)
    b.push(o, t.shape, t.mag)
    return True


def op_compare(b, name):
    t = b.pick(lambda t: t.exact)
    if t is None:
        return False
    spec = b.other_operand(t, allow_computed=False)
    bs, out = spec[1]
    c = b.const(bs, -2.0, 2.0, exact=True)
    cond = b.add_op(name, [t.idx, c], out, 'bool')
    b.note(name, out)
    bt = b.push(cond, out, 1, exact=True, kind='bool')
    # Use it: SELECT_V2 between t and something float, or a bool output.
    if b.r.random() < 0.6:
        f = b.pick(lambda u: broadcast(u.shape, out) == out and u.kind == 'float')
        if f is not None:
            z = b.const([out[-1]] if out else [], -1, 1)
            sel = b.add_op('SELECT_V2', [cond, f.idx, z], out)
            b.note('SELECT_V2', out)
            b.push(sel, out, max(f.mag, 1))
            b.readers[cond] = b.readers.get(cond, 0)
    return True


def op_logical(b, name):
    bools = [t for t in b.pool if t.kind == 'bool']
    if not bools:
        if not op_compare(b, b.r.choice(COMPARE)):
            return False
        bools = [t for t in b.pool if t.kind == 'bool']
    t = bools[-1]
    if name == 'LOGICAL_NOT':
        o = b.add_op('LOGICAL_NOT', [t.idx], t.shape, 'bool')
        b.note(name, t.shape)
        b.push(o, t.shape, 1, exact=True, kind='bool')
        return True
    if name == 'REDUCE_ANY':
        if not t.shape:
            return False
        axes = sorted(b.r.sample(range(len(t.shape)), b.r.randint(1, len(t.shape))))
        keep = b.r.random() < 0.5
        out = [1 if i in axes else d for i, d in enumerate(t.shape)] if keep else \
            [d for i, d in enumerate(t.shape) if i not in axes]
        o = b.add_op('REDUCE_ANY', [t.idx, b.g.ints(axes)], out, 'bool', keep_dims=keep)
        b.note(name, t.shape)
        b.push(o, out, 1, exact=True, kind='bool')
        return True
    # LOGICAL_AND / OR with a second comparison of the same shape.
    src = b.pick(lambda u: u.exact and u.shape == t.shape)
    if src is None:
        return False
    c = b.const(t.shape, -2, 2, exact=True)
    other = b.add_op(b.r.choice(COMPARE), [src.idx, c], t.shape, 'bool')
    o = b.add_op(name, [t.idx, other], t.shape, 'bool')
    b.note(name, t.shape)
    b.push(o, t.shape, 1, exact=True, kind='bool')
    return True


def op_select(b, name):
    bools = [t for t in b.pool if t.kind == 'bool']
    if not bools:
        op_compare(b, b.r.choice(COMPARE))
        bools = [t for t in b.pool if t.kind == 'bool']
        if not bools:
            return False
    c = bools[-1]
    s = c.shape
    x = b.pick(lambda u: u.shape == s) or None
    xi = x.idx if x else b.const(s)
    y = b.const(s if name == 'SELECT' else ([s[-1]] if s else []))
    o = b.add_op(name, [c.idx, xi, y], s)
    b.note(name, s)
    b.push(o, s, max(x.mag if x else 1, 1))
    return True


def op_floor_divmod(b, name):
    t = b.pick(lambda t: t.exact)
    if t is None:
        return False
    spec = b.other_operand(t, allow_computed=False)
    bs, out = spec[1]
    # Divisors that are powers of two: exact quotients in every precision.
    d = b.g.tensor(bs, data=[b.r.choice([0.25, 0.5, 2.0, -0.5, 4.0, -2.0]) for _ in range(numel(bs))])
    o = b.add_op(name, [t.idx, d], out)
    b.note(name, out)
    b.push(o, out, t.mag * 4 + 4, exact=True)
    return True


def reduce_axes(b, shape):
    rank = len(shape)
    if rank == 0:
        return None
    k = b.r.randint(1, rank)
    return sorted(b.r.sample(range(rank), k))


def op_reduce(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    if name == 'REDUCE_PROD':
        t = b.tame(t, 1.5)
    axes = reduce_axes(b, t.shape)
    keep = b.r.random() < 0.4
    out = [1 if i in axes else d for i, d in enumerate(t.shape)] if keep else \
        [d for i, d in enumerate(t.shape) if i not in axes]
    if name == 'REDUCE_PROD' and numel([t.shape[i] for i in axes]) > 12:
        axes = [min(range(len(t.shape)), key=lambda i: t.shape[i])]   # the shortest axis
        out = [1 if i in axes else d for i, d in enumerate(t.shape)] if keep else \
            [d for i, d in enumerate(t.shape) if i not in axes]
    neg = b.r.random() < 0.2
    ax = [a - len(t.shape) for a in axes] if neg else axes
    o = b.add_op(name, [t.idx, b.g.ints(ax)], out, keep_dims=keep)
    b.note(name, t.shape, 'keep_dims' if keep else None)
    n = numel([t.shape[i] for i in axes])
    mag = t.mag * n if name == 'SUM' else min(t.mag, 2.0) ** min(n, 12) if name == 'REDUCE_PROD' else t.mag
    b.push(o, out, mag, exact=t.exact and name in ('REDUCE_MAX', 'REDUCE_MIN'))
    return True


def op_arg(b, name):
    t = b.pick(lambda t: t.exact and len(t.shape) >= 1)
    if t is None:
        return False
    axis = b.r.randrange(len(t.shape))
    out = [d for i, d in enumerate(t.shape) if i != axis]
    o = b.add_op(name, [t.idx, b.g.ints([axis], [])], out, 'int32', output_type=2)
    b.note(name, t.shape)
    b.push(o, out, t.shape[axis], exact=True, kind='int')
    return True


def op_topk(b, name):
    """TOPK_V2 (a CPU op: the graph splits around it) on an exact tensor, so that float16
    rounding creates no tie LiteRT would order otherwise; its indices are an int tensor."""
    t = b.pick(lambda t: t.exact and len(t.shape) >= 1)
    if t is None:
        return False
    k = b.r.randint(1, t.shape[-1])
    shape = t.shape[:-1] + [k]
    v, i = b.add_op('TOPK_V2', [t.idx, b.g.ints([k], [])], [shape, shape])
    b.g.tensors[i]['type'] = 'int32'
    b.note(name, t.shape)
    b.push(v, shape, t.mag, t.exact, t.positive)
    b.push(i, shape, t.shape[-1], exact=True, kind='int')
    return True


# ---- CPU ops: their operands made by GPU ops ----------------------------------------------
# vkinfer runs these on the CPU between GPU segments, so each op's operands come from GPU ops
# of the graph (and its outputs feed GPU ops after it, often). Index tensors are built in
# range (GATHER_ND and SCATTER_ND fail on others), and what an op ranks or compares is exact
# in float16 (or the graph is checked in fp32 only), as tests/op_models/README.md explains.

def flat_source(b, t, shape):
    """numel(shape) consecutive values of t (from a random offset) as `shape`: RESHAPE to
    rank 1, SLICE, RESHAPE, each where needed. Returns a T with t's bound and exactness."""
    n, m = numel(shape), numel(t.shape)
    if t.shape == list(shape):
        return t
    idx, cur = t.idx, list(t.shape)
    if m > n:
        if len(cur) != 1:
            idx = b.add_op('RESHAPE', [idx, b.g.ints([m])], [m])
            b.note('RESHAPE', [m], 'cpu operand')
        s0 = b.r.randint(0, m - n)
        idx = b.add_op('SLICE', [idx, b.g.ints([s0]), b.g.ints([n])], [n])
        b.note('SLICE', [m], 'cpu operand')
        cur = [n]
    if cur != list(shape):
        idx = b.add_op('RESHAPE', [idx, b.g.ints(shape)], shape)
        b.note('RESHAPE', shape, 'cpu operand')
    return b.push(idx, shape, t.mag, t.exact, t.positive)


def source(b, shape, exact=True):
    """A float tensor of `shape` (rank >= 1) for a CPU op's operand: a tensor of the graph
    (an exact one when `exact`) cut to it, or else a new input."""
    n = numel(shape)
    cands = [t for t in b.pool if t.kind == 'float' and (t.exact or not exact) and
             len(t.shape) >= 1 and numel(t.shape) >= n and t.mag <= 1e4]
    if cands and (len(b.g.inputs) >= 4 or b.r.random() < 0.75):
        t = cands[-1] if b.r.random() < 0.5 else b.r.choice(cands)
        return flat_source(b, t, shape)
    return b.new_input(list(shape))


def scalar_op(b, name, t, v, out_mag=None, exact=None, note=None):
    """name(t, v) for a rank-0 constant v: ADD, MUL, MAXIMUM or MINIMUM."""
    o = b.add_op(name, [t.idx, b.g.tensor([], data=[v])], t.shape)
    b.note(name, t.shape, note)
    return b.push(o, t.shape, t.mag if out_mag is None else out_mag,
                  t.exact if exact is None else exact)


def unary_on(b, name, t, mag=None, exact=None, note=None):
    o = b.add_op(name, [t.idx], t.shape)
    b.note(name, t.shape, note)
    return b.push(o, t.shape, t.mag if mag is None else mag, t.exact if exact is None else exact)


def clamp(b, t, lim, note=None):
    """t clamped to [-lim, lim] by MAXIMUM and MINIMUM where its bound passes lim (exact)."""
    if t.mag <= lim:
        return t
    t = scalar_op(b, 'MAXIMUM', t, -float(lim), note=note)
    return scalar_op(b, 'MINIMUM', t, float(lim), out_mag=lim, note=note)


def index_tensor(b, shape, bounds, loose=False):
    """An int32 tensor of `shape` whose entries along the last axis lie in [0, bounds[j])
    (bounds: one per entry of the last axis, or one for all): a constant, or made on the GPU
    from an exact tensor, FLOOR(x * s), ABS, MINIMUM(bound - 1), CAST (exact in every
    precision). loose (ONE_HOT): negative and past the bound too. Returns the tensor index."""
    r = b.r
    n = numel(shape)
    per = len(bounds) > 1
    if r.random() < 0.4:
        if per:
            vals = [r.randrange(bounds[i % len(bounds)]) for i in range(n)]
        elif loose:
            vals = [r.randint(-2, bounds[0] + 1) for _ in range(n)]
        else:
            vals = [r.randrange(bounds[0]) for _ in range(n)]
        return b.g.ints(vals, shape)
    x = source(b, shape)
    x = scalar_op(b, 'MUL', x, float(r.choice([1, 2, 4])), out_mag=x.mag * 4, note='cpu index')
    x = unary_on(b, 'FLOOR', x, mag=x.mag + 1, note='cpu index')
    if not loose:
        x = unary_on(b, 'ABS', x, note='cpu index')
        lim = b.g.tensor([len(bounds)] if per else [], data=[float(d - 1) for d in bounds])
        o = b.add_op('MINIMUM', [x.idx, lim], shape)
        b.note('MINIMUM', shape, 'cpu index')
        x = b.push(o, shape, max(bounds), True)
    i = b.add_op('CAST', [x.idx], shape, 'int32')
    b.note('CAST', shape, 'float->int32')
    return i


def gpu_input(b, pred):
    """A float tensor for a CPU op's data operand, made by a GPU op where one fits."""
    t = b.pick(lambda t: pred(t) and t.idx not in b.g.inputs)
    if t is None or b.r.random() < 0.1:
        t = b.pick(pred)
    return t


def op_gather_nd(b, name):
    """GATHER_ND of a tensor the graph made, indices (depth 1 to the params' rank, rank 1 to
    3) in range: constant or computed (index_tensor)."""
    t = gpu_input(b, lambda t: 1 <= len(t.shape) <= 5 and numel(t.shape) <= 3000)
    if t is None:
        return False
    r = b.r
    rank = len(t.shape)
    depth = r.randint(1, rank)
    batch = [r.randint(1, 4) for _ in range(r.choice([0, 1, 1, 2]))]
    while batch and (len(batch) + rank - depth > 5 or numel(batch + t.shape[depth:]) > 3000):
        batch.pop()
    out = batch + t.shape[depth:]
    idx = index_tensor(b, batch + [depth], t.shape[:depth])
    o = b.add_op('GATHER_ND', [t.idx, idx], out)
    b.note(name, t.shape, 'depth %d of r%d, indices r%d' % (depth, rank, len(batch) + 1))
    b.push(o, out, t.mag, t.exact, t.positive)
    return True


def op_scatter_nd(b, name):
    """SCATTER_ND of updates the graph made into zeros of a constant shape: indices (depth 1
    to 3) in range, repeated ones too (their updates add up, in index order)."""
    t = gpu_input(b, lambda t: 1 <= len(t.shape) <= 4 and numel(t.shape) <= 600 and t.shape[0] <= 24)
    if t is None:
        return False
    r = b.r
    rank = len(t.shape)
    m = 2 if rank >= 2 and numel(t.shape[:2]) <= 24 and r.random() < 0.4 else 1
    lead, tail = t.shape[:m], t.shape[m:]
    q = r.randint(1, min(3, 5 - len(tail)))
    dims = [r.choice([1, 2, 3, 4, 5, 7]) for _ in range(q)]
    while numel(dims + tail) > 3000:
        dims[dims.index(max(dims))] = max(1, max(dims) // 2)
    out = dims + tail
    idx = index_tensor(b, lead + [q], dims)
    o = b.add_op('SCATTER_ND', [idx, t.idx, b.g.ints(out)], out)
    b.note(name, t.shape, 'depth %d, %d updates' % (q, numel(lead)))
    n = numel(lead)
    b.push(o, out, t.mag * n, t.exact and t.mag * n <= 64)
    return True


def op_one_hot(b, name):
    """ONE_HOT of an index tensor of the graph (TOPK_V2's, ARG_MAX's, NMS's, ...) or one made
    for it, some indices negative or past depth (all-off rows), on any axis."""
    r = b.r
    depth = r.randint(1, 9)
    ints = [t for t in b.pool if t.kind == 'int' and len(t.shape) <= 3 and numel(t.shape) <= 300]
    if ints and r.random() < 0.5:
        it = ints[-1] if r.random() < 0.6 else r.choice(ints)
        shape, idx = it.shape, it.idx
        src = 'graph indices'
    else:
        shape = b.shape(rank=r.choice([1, 1, 2, 2, 3]), small=True)
        idx = index_tensor(b, shape, [depth], loose=r.random() < 0.6)
        src = 'made indices'
    axis = r.choice([-1, -1, r.randint(0, len(shape))])
    out = list(shape)
    out.insert(len(shape) if axis == -1 else axis, depth)
    on, off = r.sample([1.0, 0.0, -1.0, 0.5, 2.0, -0.25, 0.75], 2)
    o = b.add_op('ONE_HOT', [idx, b.g.ints([depth], []), b.g.tensor([], data=[on]),
                             b.g.tensor([], data=[off])], out, axis=axis)
    b.note(name, shape, src)
    b.classes.add((name, 'axis %d of r%d' % (axis, len(shape))))
    b.push(o, out, max(abs(on), abs(off)), exact=True)
    return True


# IoU bounds at least 2e-5 from every fraction p/q with q <= 256: from the boxes made here (sizes
# k/16, anchors (4 to 8)/16) an IoU that is such a fraction (a box inside another, or two
# that share a corner: seed 7, IoU 3/5 at the bound 0.6) comes out one rounding either
# side of it, and the boxes differ by more than rounding where they are not exact.
OFF_FRACTION_IOU = [0.2505, 0.3137, 0.4137, 0.4771, 0.5417, 0.6004, 0.7495]


def nms_boxes(b, n):
    """[n, 4] boxes made by GPU ops: corners c = 0.5 x (x exact and clamped; or TANH of any
    tensor, and then the graph is fp32 only), CONCATENATION [c, c] plus constant sizes
    1/16 .. 1/2 on the far corner (signed: corners in either order; 0 on the y axis of a
    zero-area box, which TFLite selects again for every slot left once it selects it).
    Returns (T, style)."""
    r = b.r
    if r.random() < 0.75:
        c = clamp(b, source(b, [n, 2]), 2, 'nms box')
        c = scalar_op(b, 'MUL', c, 0.5, note='nms box')
    else:
        c = unary_on(b, 'TANH', source(b, [n, 2], exact=False), mag=1.0, exact=False, note='nms box')
        b.fp16_ok = False
    cc = b.add_op('CONCATENATION', [c.idx, c.idx], [n, 4], axis=1)
    b.note('CONCATENATION', [n, 2], 'nms boxes')
    style = r.choice(['ordered', 'ordered', 'either order'])
    sizes = []
    for _ in range(n):
        sizes += [0.0, 0.0] + [r.randint(1, 8) / 16 * (r.choice((-1, 1)) if style != 'ordered' else 1)
                               for _ in range(2)]
    if r.random() < 0.1:
        style = 'zero area'
        for i in r.sample(range(n), r.randint(1, 2)):
            sizes[4 * i + 2] = 0.0
    o = b.add_op('ADD', [cc, b.g.tensor([n, 4], data=sizes)], [n, 4])
    b.note('ADD', [n, 4], 'nms boxes')
    return b.push(o, [n, 4], c.mag + 0.5, c.exact), style


def ranked_scores(b, shape, grid, positive=False):
    """Scores no rounding reorders, made by GPU ops, and thresholds none of them meets.
    Either exact: a = FLOOR(x) (x exact, clamped to [-2, 2]; ABS of it where `positive`),
    then a * grid + a distinct k/1024 each (k < 1024 * grid; all exact in float16, so
    every precision hands the CPU op the same scores); or levels: TANH of any tensor / 64
    + a distinct k/16 each (rounding moves a score by far less than the 1/32 between
    levels). Returns (T, thresholds, exact)."""
    r = b.r
    n = numel(shape)
    if r.random() < 0.7 and n <= 1024 * grid:
        x = clamp(b, source(b, shape), 2, 'scores')
        x = unary_on(b, 'FLOOR', x, mag=2, note='scores')
        if positive:
            x = unary_on(b, 'ABS', x, note='scores')
        x = scalar_op(b, 'MUL', x, grid, out_mag=2 * grid, note='scores')
        offsets = [k / 1024 for k in r.sample(range(int(1024 * grid)), n)]
        o = b.add_op('ADD', [x.idx, b.g.tensor(shape, data=offsets)], shape)
        b.note('ADD', shape, 'distinct scores')
        t = b.push(o, shape, 3 * grid, True)
        # Off the 1/1024 grid (0.4 * grid is 25.6 / 1024 or more): no score equals one.
        ths = [0.4 * grid, 0.8 * grid, 1.6 * grid] if positive else [-8 * grid, -0.8 * grid, 0.4 * grid, 0.8 * grid]
        return t, ths, True
    x = unary_on(b, 'TANH', source(b, shape, exact=False), mag=1.0, exact=False, note='scores')
    x = scalar_op(b, 'MUL', x, 1 / 64, out_mag=1 / 64, exact=False, note='scores')
    levels = [k / 16 for k in r.sample(range(max(2 * n, 16)), n)]
    o = b.add_op('ADD', [x.idx, b.g.tensor(shape, data=levels)], shape)
    b.note('ADD', shape, 'level scores')
    t = b.push(o, shape, max(levels) + 1, False)
    ths = [(k + 0.5) / 16 for k in range(0, max(2 * n, 16), 3)] + [-1.0]
    return t, ths, False


def op_nms(b, name):
    """NON_MAX_SUPPRESSION_V4 / _V5 (hard, sigma 0, or soft) on boxes and scores made by GPU
    ops (nms_boxes, ranked_scores), sometimes the other version too on the same ones; the
    selection feeds GATHERs of the boxes and scores, the count a CAST, sometimes."""
    r = b.r
    n = r.randint(2, 24)
    boxes, style = nms_boxes(b, n)
    scores, ths, exact = ranked_scores(b, [n], 1 / 16)
    other = 'NON_MAX_SUPPRESSION_V5' if name == 'NON_MAX_SUPPRESSION_V4' else 'NON_MAX_SUPPRESSION_V4'
    for version in [name] + ([other] if r.random() < 0.25 else []):
        max_out = r.randint(1, min(n + 2, 12))
        # Exact boxes meet a bound of their own fractions the same way everywhere (IoU >=
        # the bound suppresses); computed ones keep off it.
        iou = r.choice([0.25, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7] if boxes.exact and r.random() < 0.5
                       else OFF_FRACTION_IOU)
        ins = [boxes.idx, scores.idx, b.g.ints([max_out], []), b.g.tensor([], data=[iou]),
               b.g.tensor([], data=[r.choice(ths)])]
        sigma = 0.0
        if version == 'NON_MAX_SUPPRESSION_V4':
            sel, valid = b.add_op(version, ins, [[max_out], []])
            sc = None
        else:
            sigma = r.choice([0.0, 0.0, 0.3, 0.5, 1.0])
            sel, sc, valid = b.add_op(version, ins + [b.g.tensor([], data=[sigma])],
                                      [[max_out], [max_out], []])
            b.classes.add((version, 'soft' if sigma else 'hard'))
            if sigma and not exact:
                b.fp16_ok = False      # decayed scores of rounded inputs meet other scores
        b.note(version, [n, 4], style)
        b.classes.add((version, 'exact scores' if exact else 'level scores'))
        b.g.tensors[sel]['type'] = 'int32'
        b.g.tensors[valid]['type'] = 'int32'
        st = b.push(sel, [max_out], n, exact=True, kind='int')
        b.push(valid, [], max_out, exact=True, kind='int')
        if sc is not None:
            b.push(sc, [max_out], scores.mag, exact and sigma == 0)
        if r.random() < 0.6:
            o = b.add_op('GATHER', [boxes.idx, st.idx], [max_out, 4], axis=0)
            b.note('GATHER', [n, 4], 'cpu indices')
            b.push(o, [max_out, 4], boxes.mag, boxes.exact)
        if r.random() < 0.3:
            o = b.add_op('GATHER', [scores.idx, st.idx], [max_out], axis=0)
            b.note('GATHER', [n], 'cpu indices')
            b.push(o, [max_out], scores.mag, scores.exact)
        if r.random() < 0.3:
            o = b.add_op('CAST', [valid], [])
            b.note('CAST', [], 'int32->float32')
            b.push(o, [], max_out, exact=True)
    return True


def op_detection(b, name):
    """TFLite_Detection_PostProcess (custom op, FlexBuffer options): box encodings [1,N,4]
    and class scores [1,N,C+1] made by GPU ops (exact, or any tensor through TANH: then
    fp32 only), constant anchors, fast or regular NMS. Rows the op leaves unwritten (LiteRT
    hands back its arena there: past num_detections, class slots past num_classes, rows
    past max_detections) are masked by GPU ops after it: SELECT_V2 of LESS(row's detection,
    num_detections)."""
    import tflite_writer
    r = b.r
    classes = r.randint(1, 4)
    n = r.randint(3, min(24, 120 // (classes + 1)))
    regular = r.random() < 0.4
    max_det = r.randint(1, 8)
    mcpd = 1 if r.random() < 0.6 else r.randint(2, 3)
    if r.random() < 0.7:
        e = clamp(b, source(b, [1, n, 4]), 2, 'box encodings')
        e = unary_on(b, r.choice(['NEG', 'RELU', 'ABS']), e, note='box encodings') \
            if r.random() < 0.5 else scalar_op(b, 'MUL', e, 0.5, note='box encodings')
    else:
        e = unary_on(b, 'TANH', source(b, [1, n, 4], exact=False), mag=1.0, exact=False,
                     note='box encodings')
        e = scalar_op(b, 'MUL', e, 2.0, out_mag=2.0, note='box encodings')
        b.fp16_ok = False          # decoded boxes of rounded encodings meet the IoU bound
    scores, ths, exact = ranked_scores(b, [1, n, classes + 1], 1 / 8, positive=r.random() < 0.7)
    side = 1
    while side * side < n:
        side += 1
    anchors = []
    for i in range(n):
        y, x = divmod(i, side)
        anchors += [(y + 0.5) / side + r.randrange(-4, 5) / 64, (x + 0.5) / side + r.randrange(-4, 5) / 64,
                    r.randrange(4, 9) / 16, r.randrange(4, 9) / 16]
    sc = r.choice([(10.0, 10.0, 5.0, 5.0), (10.0, 10.0, 5.0, 5.0), (5.0, 5.0, 2.0, 2.0), (1.0, 2.0, 4.0, 1.0)])
    params = {'num_classes': classes, 'max_detections': max_det, 'max_classes_per_detection': mcpd,
              'nms_score_threshold': r.choice(ths), 'nms_iou_threshold': r.choice(OFF_FRACTION_IOU),
              'y_scale': sc[0], 'x_scale': sc[1], 'h_scale': sc[2], 'w_scale': sc[3]}
    if regular:
        params.update(use_regular_nms=True, detections_per_class=r.randint(1, 4))
    rows = max_det * mcpd
    outs = [b.g.tensor([1, rows, 4]), b.g.tensor([1, rows]), b.g.tensor([1, rows]), b.g.tensor([1])]
    b.g.ops.append({'custom': 'TFLite_Detection_PostProcess',
                    'inputs': [e.idx, scores.idx, b.g.tensor([n, 4], data=anchors)], 'outputs': outs,
                    'custom_options': list(tflite_writer.flexbuffer_map(params))})
    for t in (e, scores):
        b.readers[t.idx] = b.readers.get(t.idx, 0) + 1
    b.note(name, [1, n, classes + 1], 'regular' if regular else 'fast')
    b.classes.add((name, 'mcpd %d of %d classes' % (mcpd, classes)))
    num = outs[3]
    if regular and mcpd == 1 and r.random() < 0.7:
        # Every row written (zeros past num_detections): the outputs as they are.
        b.push(outs[0], [1, rows, 4], 8.0)
        b.push(outs[1], [1, rows], classes, exact=True)
        b.push(outs[2], [1, rows], scores.mag, exact)
        b.push(num, [1], max_det, exact=True)
        return True
    # Each row's detection (written when below num_detections), or 1e4 (never written).
    det = []
    for k in range(rows):
        if regular:
            det.append(-1.0 if k < max_det else 1e4)
        else:
            det.append(float(k // mcpd) if k % mcpd < classes else 1e4)
    cond4 = b.add_op('LESS', [b.g.tensor([1, rows, 4], data=[d for d in det for _ in range(4)]), num],
                     [1, rows, 4], 'bool')
    cond = b.add_op('LESS', [b.g.tensor([1, rows], data=det), num], [1, rows], 'bool')
    b.note('LESS', [1, rows], 'detection rows')
    box = b.add_op('SELECT_V2', [cond4, outs[0], b.g.tensor([4], data=[0.0] * 4)], [1, rows, 4])
    cls = b.add_op('SELECT_V2', [cond, outs[1], b.g.tensor([rows], data=[0.0] * rows)], [1, rows])
    scr = b.add_op('SELECT_V2', [cond, outs[2], b.g.tensor([rows], data=[0.0] * rows)], [1, rows])
    b.note('SELECT_V2', [1, rows], 'detection rows')
    b.push(box, [1, rows, 4], 8.0)
    b.push(cls, [1, rows], classes, exact=True)
    b.push(scr, [1, rows], scores.mag, exact)
    b.push(num, [1], max_det, exact=True)
    return True


def op_cumsum(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    axis = b.r.randrange(len(t.shape))
    o = b.add_op('CUMSUM', [t.idx, b.g.ints([axis], [])], t.shape,
                 exclusive=b.r.random() < 0.5, reverse=b.r.random() < 0.5)
    b.note(name, t.shape)
    b.push(o, t.shape, t.mag * t.shape[axis])
    return True


def op_norm(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    opts = {}
    if name == 'SOFTMAX':
        opts['beta'] = b.r.choice([1.0, 0.5, 2.0])
        t = b.tame(t, 20)
    if name == 'LOG_SOFTMAX':
        t = b.tame(t, 20)
    if name == 'LOCAL_RESPONSE_NORMALIZATION':
        if len(t.shape) != 4:
            t = b.as_4d(t)
        opts = dict(radius=b.r.choice([1, 2]), bias=1.0, alpha=b.r.choice([0.5, 0.1]),
                    beta=b.r.choice([0.5, 0.75]))
    if name == 'L2_NORMALIZATION':
        # Rows far from the epsilon: add a constant so no row is near zero.
        t = b.positive(t)
    o = b.add_op(name, [t.idx], t.shape, **opts)
    b.note(name, t.shape)
    b.push(o, t.shape, t.mag + 30 if name == 'LOG_SOFTMAX' else max(1, t.mag))
    return True


def op_add_n(b, name):
    t = b.pick()
    if t is None:
        return False
    k = b.r.randint(2, 5)
    ins = [t.idx]
    for _ in range(k - 1):
        u = [x for x in b.pool if x.shape == t.shape and x.kind == 'float' and x.idx not in ins]
        ins.append(u[0].idx if u and b.r.random() < 0.5 else b.const(t.shape))
    o = b.add_op('ADD_N', ins, t.shape)
    b.note(name, t.shape)
    b.push(o, t.shape, t.mag * k + k)
    return True


# ---- layout --------------------------------------------------------------------------------

def op_reshape(b, name):
    t = b.pick()
    if t is None:
        return False
    n = numel(t.shape)
    # Factor n into a random rank.
    rank = b.r.choice([1, 2, 3, 4, 5])
    dims = []
    rest = n
    for i in range(rank - 1):
        divs = [d for d in range(1, min(rest, 12) + 1) if rest % d == 0]
        d = b.r.choice(divs)
        dims.append(d)
        rest //= d
    dims.append(rest)
    b.r.shuffle(dims) if b.r.random() < 0.3 else None
    if name == 'RESHAPE':
        shape_in = list(dims)
        if b.r.random() < 0.2 and dims:
            shape_in[b.r.randrange(len(dims))] = -1
        o = b.add_op('RESHAPE', [t.idx, b.g.ints(shape_in)], dims)
    elif name == 'EXPAND_DIMS':
        if len(t.shape) >= 5:
            return False
        axis = b.r.randint(-len(t.shape) - 1, len(t.shape))
        dims = list(t.shape)
        dims.insert(axis if axis >= 0 else len(t.shape) + 1 + axis, 1)
        o = b.add_op('EXPAND_DIMS', [t.idx, b.g.ints([axis], [])], dims)
    else:   # SQUEEZE: all size-1 axes (no options table: squeeze_dims empty)
        if 1 not in t.shape:
            if len(t.shape) >= 5:
                return False
            ex = list(t.shape)
            ex.insert(b.r.randint(0, len(ex)), 1)
            o = b.add_op('EXPAND_DIMS', [t.idx, b.g.ints([ex.index(1)], [])], ex)
            b.note('EXPAND_DIMS', t.shape)
            t = b.push(o, ex, t.mag, t.exact, t.positive)
        dims = [d for d in t.shape if d != 1]
        o = b.add_op('SQUEEZE', [t.idx], dims)
    return b.moved(name, t, o, dims)


def op_transpose(b, name):
    t = b.pick(lambda t: len(t.shape) >= 2)
    if t is None:
        return False
    perm = list(range(len(t.shape)))
    while perm == list(range(len(t.shape))):
        b.r.shuffle(perm)
    out = [t.shape[p] for p in perm]
    o = b.add_op('TRANSPOSE', [t.idx, b.g.ints(perm)], out)
    return b.moved(name, t, o, out)


def op_reverse(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    axis = b.r.randrange(len(t.shape))
    o = b.add_op('REVERSE_V2', [t.idx, b.g.ints([axis])], t.shape)
    b.note(name, t.shape)
    b.push(o, t.shape, t.mag, t.exact, t.positive)
    return True


def op_concat(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    axis = b.r.randrange(len(t.shape))
    k = b.r.randint(2, 4)
    ins, total = [t], t.shape[axis]
    for _ in range(k - 1):
        want = [d if i != axis else None for i, d in enumerate(t.shape)]
        cands = [u for u in b.pool if u.kind == 'float' and len(u.shape) == len(t.shape) and
                 all(w is None or w == d for w, d in zip(want, u.shape))]
        if cands and b.r.random() < 0.6:
            u = b.r.choice(cands)
            ins.append(u)
            total += u.shape[axis]
        else:
            s = list(t.shape)
            s[axis] = b.r.choice([1, 2, 3, 5])
            ins.append(T(b.const(s), s, 1.0))
            total += s[axis]
    out = list(t.shape)
    out[axis] = total
    act = b.r.choice(ACTS)
    neg = b.r.random() < 0.3
    o = b.add_op('CONCATENATION', [u.idx for u in ins], out,
                 axis=axis - len(t.shape) if neg else axis, activation=act)
    b.note(name, t.shape, 'axis %d of %d' % (axis, len(t.shape)))
    b.push(o, out, max(u.mag for u in ins), all(u.exact for u in ins) and act == 'NONE')
    return True


def op_split(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1 and max(t.shape) > 1)
    if t is None:
        return False
    axes = [i for i, d in enumerate(t.shape) if d > 1]
    axis = b.r.choice(axes)
    d = t.shape[axis]
    if name == 'SPLIT':
        ks = [k for k in range(2, min(d, 4) + 1) if d % k == 0]
        if not ks:
            return False
        k = b.r.choice(ks)
        shapes = [[x if i != axis else d // k for i, x in enumerate(t.shape)]] * k
        outs = b.add_op('SPLIT', [b.g.ints([axis], []), t.idx], shapes, num_splits=k)
    else:
        k = b.r.randint(2, min(d, 4))
        cuts = sorted(b.r.sample(range(1, d), k - 1))
        sizes = [e - s for s, e in zip([0] + cuts, cuts + [d])]
        given = list(sizes)
        if b.r.random() < 0.3:
            given[b.r.randrange(k)] = -1
        shapes = [[x if i != axis else sz for i, x in enumerate(t.shape)] for sz in sizes]
        outs = b.add_op('SPLIT_V', [t.idx, b.g.ints(given), b.g.ints([axis], [])], shapes,
                        num_splits=k)
    b.note(name, t.shape)
    for o, s in zip(outs, shapes):
        b.push(o, s, t.mag, t.exact, t.positive)
    return True


def op_pack(b, name):
    if name == 'UNPACK':
        t = b.pick(lambda t: len(t.shape) >= 1 and 1 < min([d for d in t.shape if d > 1] or [0]) <= 4)
        if t is None:
            return False
        axes = [i for i, d in enumerate(t.shape) if 1 < d <= 4]   # outputs <= 4 (docs/ops.md)
        if not axes:
            return False
        axis = b.r.choice(axes)
        s = [d for i, d in enumerate(t.shape) if i != axis]
        outs = b.add_op('UNPACK', [t.idx], [s] * t.shape[axis], num=t.shape[axis], axis=axis)
        b.note(name, t.shape)
        for o in outs:
            b.push(o, s, t.mag, t.exact, t.positive)
        return True
    t = b.pick(lambda t: len(t.shape) <= 4)
    if t is None:
        return False
    k = b.r.randint(2, 4)
    ins = [t.idx]
    for _ in range(k - 1):
        u = [x for x in b.pool if x.shape == t.shape and x.kind == 'float' and x.idx not in ins]
        ins.append(u[-1].idx if u and b.r.random() < 0.5 else b.const(t.shape))
    axis = b.r.randint(0, len(t.shape))
    out = list(t.shape)
    out.insert(axis, k)
    o = b.add_op('PACK', ins, out, values_count=k, axis=axis)
    b.note(name, t.shape)
    b.push(o, out, max(t.mag, 1))
    return True


def op_tile(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1 and numel(t.shape) <= 300)
    if t is None:
        return False
    if name == 'TILE':
        m = [b.r.choice([1, 1, 2, 3]) for _ in t.shape]
        out = [d * k for d, k in zip(t.shape, m)]
        o = b.add_op('TILE', [t.idx, b.g.ints(m)], out)
    else:
        out = [d if d != 1 else b.r.choice([1, 2, 3]) for d in t.shape]
        if b.r.random() < 0.3 and len(out) < 5:
            out = [2] + out
        o = b.add_op('BROADCAST_TO', [t.idx, b.g.ints(out)], out)
    return b.moved(name, t, o, out)


def op_pad(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    pads = []
    for d in t.shape:
        lim = (d - 1 if name == 'MIRROR_PAD' else 2)
        pads += [b.r.randint(0, max(0, min(lim, 2))), b.r.randint(0, max(0, min(lim, 2)))]
    if name == 'MIRROR_PAD':
        mode = b.r.choice(['REFLECT', 'SYMMETRIC'])
        if mode == 'REFLECT':
            pads = [min(p, d - 1) for p, d in zip(pads, [x for x in t.shape for _ in (0, 1)])]
        else:
            pads = [min(p, d) for p, d in zip(pads, [x for x in t.shape for _ in (0, 1)])]
    out = [d + pads[2 * i] + pads[2 * i + 1] for i, d in enumerate(t.shape)]
    if numel(out) > 4000:
        return False
    p = b.g.ints(pads, [len(t.shape), 2])
    if name == 'PAD':
        o = b.add_op('PAD', [t.idx, p], out)
    elif name == 'PADV2':
        o = b.add_op('PADV2', [t.idx, p, b.g.tensor([], data=[b.r.choice([0.0, -1.0, 0.5])])], out)
    else:
        o = b.add_op('MIRROR_PAD', [t.idx, p], out, mode=mode)
    b.note(name, t.shape)
    b.push(o, out, max(t.mag, 1), t.exact and name != 'PADV2')
    return True


def op_slice(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    begin, size, out = [], [], []
    for d in t.shape:
        s0 = b.r.randint(0, d - 1)
        n = b.r.randint(1, d - s0)
        begin.append(s0)
        size.append(n)
    if name == 'SLICE':
        sz = [n if b.r.random() < 0.8 else -1 for n in size]
        out = [n if z != -1 else d - s0 for n, z, d, s0 in zip(size, sz, t.shape, begin)]
        o = b.add_op('SLICE', [t.idx, b.g.ints(begin), b.g.ints(sz)], out)
        b.note(name, t.shape)
        b.push(o, out, t.mag, t.exact, t.positive)
        return True
    # STRIDED_SLICE with masks and strides (negative too).
    rank = len(t.shape)
    begins, ends, strides, out = [], [], [], []
    bm = em = sm = 0
    for i, d in enumerate(t.shape):
        st = b.r.choice([1, 1, 2, 3, -1, -2])
        if st > 0:
            s0 = b.r.randint(0, d - 1)
            e0 = b.r.randint(s0 + 1, d)
        else:
            s0 = b.r.randint(0, d - 1)
            e0 = b.r.randint(-1, s0 - 1)
        if b.r.random() < 0.15:
            bm |= 1 << i
            s0 = 0 if st > 0 else d - 1
        if b.r.random() < 0.15:
            em |= 1 << i
            e0 = d if st > 0 else -1
        n = max(0, (e0 - s0 + st - (1 if st > 0 else -1)) // st)
        shrink = b.r.random() < 0.15 and n >= 1 and rank > 1
        if shrink:
            sm |= 1 << i
            st, e0, n = 1, s0 + 1, 1
            em &= ~(1 << i)
            bm &= ~(1 << i)
        # Encode end -1 with a negative stride as an end mask (-1 would mean d-1).
        if st < 0 and e0 == -1:
            em |= 1 << i
            e0 = 0
        begins.append(s0 if b.r.random() < 0.7 else s0 - d)
        ends.append(e0)
        strides.append(st)
        if not (sm >> i) & 1:
            out.append(n)
    if 0 in out:
        return False
    o = b.add_op('STRIDED_SLICE', [t.idx, b.g.ints(begins), b.g.ints(ends), b.g.ints(strides)],
                 out, begin_mask=bm, end_mask=em, shrink_axis_mask=sm)
    b.note(name, t.shape, 'masks' if bm or em or sm else None)
    b.push(o, out, t.mag, t.exact, t.positive)
    return True


def op_gather(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    axis = b.r.randrange(len(t.shape))
    d = t.shape[axis]
    irank = b.r.choice([0, 1, 1, 2])
    ishape = [b.r.randint(1, 4) for _ in range(irank)]
    idx = [b.r.randrange(d) for _ in range(numel(ishape))]
    out = t.shape[:axis] + ishape + t.shape[axis + 1:]
    if len(out) > 5 or numel(out) > 3000:
        return False
    neg = b.r.random() < 0.3
    o = b.add_op('GATHER', [t.idx, b.g.ints(idx, ishape)], out,
                 axis=axis - len(t.shape) if neg else axis)
    b.note(name, t.shape, 'indices r%d' % irank)
    b.push(o, out, t.mag, t.exact, t.positive)
    return True


# ---- 4-D batch-1 ops ---------------------------------------------------------------------

def spatial_out(size, k, stride, dil, padding):
    eff = (k - 1) * dil + 1
    if padding == 'SAME':
        return (size + stride - 1) // stride
    return (size - eff) // stride + 1 if size >= eff else 0


def op_conv(b, name):
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.tame(b.as_4d(t), 10)
    _, h, w, c = t.shape
    r = b.r
    kh, kw = r.choice([1, 1, 3, 3, 2, 5]), r.choice([1, 1, 3, 3, 2])
    stride = r.choice([1, 1, 2, 3])
    dil = r.choice([1, 1, 1, 2]) if stride == 1 else 1
    padding = r.choice(['SAME', 'VALID'])
    oh, ow = spatial_out(h, kh, stride, dil, padding), spatial_out(w, kw, stride, dil, padding)
    if oh <= 0 or ow <= 0:
        padding = 'SAME'
        oh, ow = spatial_out(h, kh, stride, dil, padding), spatial_out(w, kw, stride, dil, padding)
    act = r.choice(ACTS)
    # Always a bias: LiteRT 2.5.3 (wasm, XNNPACK) gives denormal garbage (1e-39) for a
    # convolution whose optional bias is omitted (-1); converters always write one.
    bias = True
    if name == 'CONV_2D':
        oc = r.choice([1, 3, 4, 5, 8, 17, 16])
        wt = b.const([oc, kh, kw, c], -0.5, 0.5)
        ins = [t.idx, wt, b.const([oc], -0.5, 0.5) if bias else -1]
        o = b.add_op('CONV_2D', ins, [1, oh, ow, oc], padding=padding, stride_w=stride,
                     stride_h=stride, activation=act, dilation_w=dil, dilation_h=dil)
    else:
        mult = r.choice([1, 1, 1, 2])
        oc = c * mult
        wt = b.const([1, kh, kw, oc], -0.5, 0.5)
        ins = [t.idx, wt, b.const([oc], -0.5, 0.5) if bias else -1]
        o = b.add_op('DEPTHWISE_CONV_2D', ins, [1, oh, ow, oc], padding=padding,
                     stride_w=stride, stride_h=stride, depth_multiplier=mult, activation=act,
                     dilation_w=dil, dilation_h=dil)
    b.note(name, t.shape, 'k%dx%d s%d d%d %s' % (kh, kw, stride, dil, padding))
    b.classes.add((name, 'act ' + act))
    b.push(o, [1, oh, ow, oc], t.mag * kh * kw * (c if name == 'CONV_2D' else 1) * 0.5 + 1)
    return True


def op_pool(b, name):
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.as_4d(t)
    _, h, w, c = t.shape
    r = b.r
    fh, fw = r.choice([1, 2, 3]), r.choice([1, 2, 3])
    stride = r.choice([1, 2, 2])
    padding = r.choice(['SAME', 'VALID'])
    oh, ow = spatial_out(h, fh, stride, 1, padding), spatial_out(w, fw, stride, 1, padding)
    if oh <= 0 or ow <= 0:
        padding = 'SAME'
        oh, ow = spatial_out(h, fh, stride, 1, padding), spatial_out(w, fw, stride, 1, padding)
    act = r.choice(ACTS)
    o = b.add_op(name, [t.idx], [1, oh, ow, c], padding=padding, stride_w=stride, stride_h=stride,
                 filter_w=fw, filter_h=fh, activation=act)
    b.note(name, t.shape, 'f%dx%d s%d %s' % (fh, fw, stride, padding))
    b.push(o, [1, oh, ow, c], t.mag, t.exact and name == 'MAX_POOL_2D' and act == 'NONE')
    return True


def op_resize(b, name):
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.as_4d(t)
    _, h, w, c = t.shape
    r = b.r
    oh, ow = r.choice([1, 2, 3, 5, 2 * h, h + 1]), r.choice([1, 2, 4, 7, 2 * w, w + 2])
    mode = r.choice(['plain', 'align', 'half'])
    opts = {'align_corners': mode == 'align', 'half_pixel_centers': mode == 'half'}
    o = b.add_op(name, [t.idx, b.g.ints([oh, ow])], [1, oh, ow, c], **opts)
    b.note(name, t.shape, mode)
    b.push(o, [1, oh, ow, c], t.mag, t.exact and name == 'RESIZE_NEAREST_NEIGHBOR')
    return True


def op_space_depth(b, name):
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.as_4d(t)
    _, h, w, c = t.shape
    bs = b.r.choice([2, 2, 3])
    if name == 'SPACE_TO_DEPTH':
        if h % bs or w % bs:
            # Crop to a multiple of the block with a SLICE.
            if h < bs or w < bs:
                return False
            nh, nw = h - h % bs, w - w % bs
            s = b.add_op('SLICE', [t.idx, b.g.ints([0, 0, 0, 0]), b.g.ints([1, nh, nw, c])],
                         [1, nh, nw, c])
            b.note('SLICE', t.shape)
            t = b.push(s, [1, nh, nw, c], t.mag, t.exact)
            h, w = nh, nw
        out = [1, h // bs, w // bs, c * bs * bs]
    else:
        if c % (bs * bs):
            n = numel(t.shape)
            if n % 4:
                return False
            # Four channels from the same elements: [1, 1, n/4, 4].
            bs, h, w, c = 2, 1, n // 4, 4
            o = b.add_op('RESHAPE', [t.idx, b.g.ints([1, h, w, c])], [1, h, w, c])
            b.note('RESHAPE', [1, h, w, c], 'to 4-D')
            t = b.push(o, [1, h, w, c], t.mag, t.exact)
        out = [1, h * bs, w * bs, c // (bs * bs)]
    o = b.add_op(name, [t.idx], out, block_size=bs)
    b.note(name, t.shape)
    b.push(o, out, t.mag, t.exact)
    return True


def op_tconv(b, name):
    t = b.pick(lambda t: numel(t.shape) >= 1 and numel(t.shape) <= 400)
    if t is None:
        return False
    t = b.tame(b.as_4d(t), 10)
    _, h, w, c = t.shape
    r = b.r
    k = r.choice([1, 2, 3, 4])
    stride = r.choice([1, 2, 2])
    padding = r.choice(['SAME', 'VALID'])
    oc = r.choice([1, 3, 4, 5, 8])
    if padding == 'SAME':
        oh, ow = h * stride, w * stride
    else:
        oh, ow = (h - 1) * stride + k, (w - 1) * stride + k
    wt = b.const([oc, k, k, c], -0.5, 0.5)
    ins = [b.g.ints([1, oh, ow, oc]), wt, t.idx]
    if r.random() < 0.5:
        ins.append(b.const([oc], -0.5, 0.5))
    o = b.add_op('TRANSPOSE_CONV', ins, [1, oh, ow, oc], padding=padding, stride_w=stride,
                 stride_h=stride)
    b.note(name, t.shape, 'k%d s%d %s' % (k, stride, padding))
    b.push(o, [1, oh, ow, oc], t.mag * k * k * c * 0.5 + 1)
    return True


def op_tconv_bias(b, name):
    """MediaPipe's Convolution2DTransposeBias: inputs [input, weights, bias], parameters as
    raw int32 {padding (1 SAME, 2 VALID), stride_w, stride_h} in custom_options."""
    t = b.pick(lambda t: 1 <= numel(t.shape) <= 400)
    if t is None:
        return False
    t = b.tame(b.as_4d(t), 10)
    _, h, w, c = t.shape
    r = b.r
    k, stride = r.choice([2, 3, 4]), r.choice([1, 2, 2])
    padding = r.choice(['SAME', 'VALID'])
    oc = r.choice([1, 2, 3, 5])
    # MediaPipe's Prepare sizes the output (transpose_conv_bias.cc): SAME pads
    # max(0, k - (in - 1) % stride - 1) in all, VALID nothing.
    def size(n):
        pad = max(0, k - (n - 1) % stride - 1) if padding == 'SAME' else 0
        return stride * (n - 1) + k - pad
    oh, ow = size(h), size(w)
    out = b.g.tensor([1, oh, ow, oc])
    params = [1 if padding == 'SAME' else 2, stride, stride]
    b.g.ops.append({'custom': 'Convolution2DTransposeBias',
                    'inputs': [t.idx, b.const([oc, k, k, c], -0.5, 0.5), b.const([oc], -0.5, 0.5)],
                    'outputs': [out], 'custom_options': [x for v in params for x in v.to_bytes(4, 'little')]})
    b.readers[t.idx] = b.readers.get(t.idx, 0) + 1
    b.note(name, t.shape, 'k%d s%d %s' % (k, stride, padding))
    b.push(out, [1, oh, ow, oc], t.mag * k * k * c * 0.5 + 1)
    return True


def inverted_residual(b, on=None):
    """MobileNetV2's block, for the block pass: a 1x1 expansion (its activation fused or an
    op of its own), a depthwise 3x3 or 5x5 (stride 1 or 2, SAME or VALID), a 1x1 projection,
    and where the plane and channels stay, the residual ADD of the block's input. On a new
    input of batch 1, sometimes 2 (which the pass leaves), or on tensor `on` (4-D), then
    stride 1, SAME and the residual; sometimes the expansion's output is read again (which
    the pass leaves too)."""
    r = b.r
    if on is None:
        n = r.choice([1, 1, 1, 2])
        h, w, c = r.choice([3, 5, 6, 7, 9]), r.choice([3, 4, 5, 7]), r.choice([1, 3, 4, 5, 8])
        x = b.new_input([n, h, w, c]).idx
    else:
        (n, h, w, c), x = on.shape, on.idx
    mid = c * r.choice([1, 2, 4, 6]) + r.choice([0, 0, 1, 3])
    shape = [n, h, w, mid]
    e = b.add_op('CONV_2D', [x, b.const([mid, 1, 1, c], -0.5, 0.5), b.const([mid], -0.2, 0.2)],
                 shape, padding='VALID', activation=r.choice(['NONE', 'RELU', 'RELU6']))
    b.note('CONV_2D', [n, h, w, c], 'inverted residual expansion')
    if r.random() < 0.3:
        act = r.choice(['HARD_SWISH', 'RELU6', 'LOGISTIC'])
        e = b.add_op(act, [e], shape)
        b.note(act, shape, 'after the expansion')
    k, stride = r.choice([3, 5]), r.choice([1, 2]) if on is None else 1
    padding = r.choice(['SAME', 'SAME', 'VALID']) if on is None else 'SAME'
    oh, ow = spatial_out(h, k, stride, 1, padding), spatial_out(w, k, stride, 1, padding)
    if oh < 1 or ow < 1:
        padding, oh, ow = 'SAME', spatial_out(h, k, stride, 1, 'SAME'), spatial_out(w, k, stride, 1, 'SAME')
    d = b.add_op('DEPTHWISE_CONV_2D', [e, b.const([1, k, k, mid], -0.5, 0.5), b.const([mid], -0.2, 0.2)],
                 [n, oh, ow, mid], padding=padding, stride_w=stride, stride_h=stride,
                 depth_multiplier=1, activation=r.choice(['NONE', 'RELU', 'RELU6']))
    b.note('DEPTHWISE_CONV_2D', shape, 'inverted residual k%d s%d' % (k, stride))
    oc = r.choice([c, c, c + r.randint(1, 5)]) if on is None else c
    out = [n, oh, ow, oc]
    cur = b.add_op('CONV_2D', [d, b.const([oc, 1, 1, mid], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                   out, padding='VALID', activation=r.choice(ACTS))
    b.note('CONV_2D', [n, oh, ow, mid], 'inverted residual projection')
    if stride == 1 and padding == 'SAME' and oc == c and (on is not None or r.random() < 0.8):
        cur = b.add_op('ADD', [cur, x] if r.random() < 0.5 else [x, cur], out,
                       activation=r.choice(ACTS))
        b.note('ADD', out, 'inverted residual')
    b.push(cur, out, 8.0)
    if r.random() < 0.15:
        b.push(e, shape, 4.0)   # the expansion read again: the block stays three dispatches
    return True


def block_convnet(b, name):
    """What MediaPipe's CNNs are made of, for the fusion passes: a zero PAD of H and W before
    a VALID convolution (spatial_pad), a RELU / RELU6 op after it (activation), a depthwise
    3x3 then a 1x1 convolution (dw_pw), and BlazeFace's residual: ADD of a block's output
    with its input zero-padded in channels (channel_pad, residual); or, a third of the time,
    MobileNetV2's inverted residual block (inverted_residual)."""
    r = b.r
    if r.random() < 0.33:
        return inverted_residual(b)
    h, w, c = r.choice([3, 4, 5, 7]), r.choice([3, 5, 6]), r.choice([1, 3, 4, 5, 8])
    x = b.new_input([1, h, w, c])
    shape = [1, h, w, c]
    cur = x.idx
    if r.random() < 0.6:
        pt, pb, pl, pr = r.randint(0, 1), r.randint(0, 2), r.randint(0, 1), r.randint(0, 1)
        shape = [1, h + pt + pb, w + pl + pr, c]
        cur = b.add_op('PAD', [cur, b.g.ints([0, 0, pt, pb, pl, pr, 0, 0], [4, 2])], shape)
        b.note('PAD', shape, 'spatial, then conv')
    k = r.choice([1, 3])
    stride = r.choice([1, 2])
    oh, ow = (shape[1] - k) // stride + 1, (shape[2] - k) // stride + 1
    if oh < 1 or ow < 1:
        k, stride, oh, ow = 1, 1, shape[1], shape[2]
    dw = r.random() < 0.5
    if dw:
        cur = b.add_op('DEPTHWISE_CONV_2D', [cur, b.const([1, k, k, c], -0.5, 0.5), b.const([c], -0.2, 0.2)],
                       [1, oh, ow, c], padding='VALID', stride_w=stride, stride_h=stride,
                       depth_multiplier=1)
        oc = c
    else:
        oc = r.choice([c, c + r.randint(1, 5)])
        cur = b.add_op('CONV_2D', [cur, b.const([oc, k, k, c], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                       [1, oh, ow, oc], padding='VALID', stride_w=stride, stride_h=stride)
    b.note('DEPTHWISE_CONV_2D' if dw else 'CONV_2D', shape, 'convnet')
    shape = [1, oh, ow, oc]
    if r.random() < 0.6:
        act = r.choice(['RELU', 'RELU6', 'RELU_N1_TO_1', 'TANH', 'LOGISTIC', 'HARD_SWISH'])
        cur = b.add_op(act, [cur], shape)
        b.note(act, shape, 'after conv')
    if dw or r.random() < 0.5:
        # The pointwise convolution after a depthwise one.
        if not dw:
            cur = b.add_op('DEPTHWISE_CONV_2D', [cur, b.const([1, 3, 3, oc], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                           shape, padding='SAME', depth_multiplier=1)
            b.note('DEPTHWISE_CONV_2D', shape, 'dw then 1x1')
        pc = r.choice([oc, oc + r.randint(1, 6)])
        cur = b.add_op('CONV_2D', [cur, b.const([pc, 1, 1, oc], -0.5, 0.5), b.const([pc], -0.2, 0.2)],
                       [1, oh, ow, pc], padding='VALID', activation=r.choice(ACTS))
        b.note('CONV_2D', shape, 'dw then 1x1')
        oc = pc
        shape = [1, oh, ow, pc]
    if stride == 1 and k == 1 and oh == h and ow == w and oc >= c and r.random() < 0.8:
        # Residual with the block's input, zero-padded in channels where it has fewer.
        res = x.idx
        if oc > c:
            res = b.add_op('PAD', [x.idx, b.g.ints([0, 0, 0, 0, 0, 0, 0, oc - c], [4, 2])], shape)
            b.note('PAD', shape, 'channel, then ADD')
            if c >= 2 and r.random() < 0.5:
                # A MUL between: no epilogue takes the ADD, the ADD takes the PAD.
                cur = b.add_op('MUL', [cur, b.const([oc], 0.5, 1.5)], shape)
                b.note('MUL', shape, 'convnet')
        ins = [cur, res] if r.random() < 0.5 else [res, cur]
        cur = b.add_op('ADD', ins, shape, activation=r.choice(ACTS))
        b.note('ADD', shape, 'convnet residual')
    b.push(cur, shape, 8.0)
    return True


def block_channel_pad(b, name):
    """ADD of a tensor zero-padded in channels and a wider one no epilogue makes (a MUL):
    the ADD reads the narrower tensor directly (channel_pad)."""
    r = b.r
    h, w, c = r.choice([1, 3, 5]), r.choice([2, 3, 7]), r.choice([2, 3, 5, 8])
    p = r.randint(1, 6)
    x = b.new_input([1, h, w, c])
    y = b.new_input([1, h, w, c + p]) if r.random() < 0.5 or len(b.g.inputs) >= 3 else None
    shape = [1, h, w, c + p]
    if y is None:
        y = b.push(b.add_op('CONV_2D', [x.idx, b.const([c + p, 1, 1, c], -0.5, 0.5),
                                        b.const([c + p], -0.2, 0.2)], shape), shape, 4.0)
    m = b.add_op('MUL', [y.idx, b.const([c + p], 0.5, 1.5)], shape)
    pad = b.add_op('PAD', [x.idx, b.g.ints([0, 0, 0, 0, 0, 0, 0, p], [4, 2])], shape)
    ins = [pad, m] if r.random() < 0.5 else [m, pad]
    out = b.add_op(r.choice(['ADD', 'ADD', 'SUB', 'MUL']), ins, shape)
    for op in ('PAD', 'MUL', 'ADD'):
        b.note(op, shape, 'channel pad')
    b.push(out, shape, 10.0)
    return True


def op_space_batch(b, name):
    """SPACE_TO_BATCH_ND then (usually) BATCH_TO_SPACE_ND back: 4-D, 2 block dims."""
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.as_4d(t)
    _, h, w, c = t.shape
    r = b.r
    bh, bw = r.choice([1, 2, 3]), r.choice([1, 2])
    pt, pl = r.randint(0, 2), r.randint(0, 1)
    pb = (-(h + pt)) % bh + r.choice([0, bh])
    pr = (-(w + pl)) % bw
    oh, ow = (h + pt + pb) // bh, (w + pl + pr) // bw
    s = b.add_op('SPACE_TO_BATCH_ND', [t.idx, b.g.ints([bh, bw]), b.g.ints([pt, pb, pl, pr], [2, 2])],
                 [bh * bw, oh, ow, c])
    b.note('SPACE_TO_BATCH_ND', t.shape)
    st = b.push(s, [bh * bw, oh, ow, c], t.mag, t.exact)
    if name == 'BATCH_TO_SPACE_ND' or r.random() < 0.7:
        ct, cb = r.randint(0, min(pt, 1)), 0
        out = [1, oh * bh - ct - cb, ow * bw, c]
        o = b.add_op('BATCH_TO_SPACE_ND', [s, b.g.ints([bh, bw]), b.g.ints([ct, cb, 0, 0], [2, 2])], out)
        b.note('BATCH_TO_SPACE_ND', st.shape)
        b.push(o, out, t.mag, t.exact)
    return True


# ---- matrix --------------------------------------------------------------------------------

def op_fc(b, name):
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    t = b.tame(t, 10)
    r = b.r
    k = t.shape[-1]
    n = r.choice([1, 3, 4, 5, 8, 17])
    keep = len(t.shape) > 2 and r.random() < 0.5
    rows = numel(t.shape) // k
    out = (t.shape[:-1] + [n]) if keep else [rows, n]
    act = r.choice(ACTS)
    wt = b.const([n, k], -0.5, 0.5)
    bias = b.const([n], -0.5, 0.5)   # always: see op_conv on LiteRT and omitted biases
    o = b.add_op('FULLY_CONNECTED', [t.idx, wt, bias], out, activation=act, keep_num_dims=keep)
    b.note(name, t.shape, 'keep_num_dims' if keep else None)
    b.classes.add((name, 'act ' + act))
    b.push(o, out, t.mag * k * 0.5 + 1)
    return True


def op_bmm(b, name):
    t = b.pick(lambda t: 2 <= len(t.shape) <= 5)
    if t is None:
        return False
    t = b.tame(t, 4)
    r = b.r
    adj_x, adj_y = r.random() < 0.3, r.random() < 0.3
    m_, k = (t.shape[-1], t.shape[-2]) if adj_x else (t.shape[-2], t.shape[-1])
    n = r.choice([1, 3, 4, 5, 8])
    batch = t.shape[:-2]
    ybatch = [d if r.random() < 0.7 else 1 for d in batch]
    if r.random() < 0.3:
        ybatch = ybatch[r.randint(0, len(ybatch)):]
    ys = ybatch + ([n, k] if adj_y else [k, n])
    same = [u for u in b.pool if u.kind == 'float' and u.shape == ys and u is not t]
    if same and r.random() < 0.6:
        y = same[-1].idx
        ym = same[-1].mag
    else:
        y, ym = b.const(ys, -0.5, 0.5), 0.5
    out = broadcast(batch, ybatch) + [m_, n]
    ins = [t.idx, y] if r.random() < 0.8 else [t.idx, y]
    o = b.add_op('BATCH_MATMUL', ins, out, adj_x=adj_x, adj_y=adj_y)
    b.note(name, t.shape, 'adj %d%d' % (adj_x, adj_y))
    b.push(o, out, t.mag * ym * k + 1)
    return True


# ---- int8 --------------------------------------------------------------------------------

def op_quant(b, name):
    """QUANTIZE a float tensor onto an int8 or uint8 grid, run up to three integer forms on
    it there (convolutions with per-channel weights, 1x1 to 5x5, SAME and VALID,
    FULLY_CONNECTED, ADD / SUB / MUL, pools, MEAN, the table ops (ELU and RELU_N1_TO_1
    among them), SOFTMAX, PRELU by a
    constant alpha, RESIZE_BILINEAR, PAD / PADV2, CONCATENATION (uint8 inputs on other
    grids too), a requantization, QUANTIZE to the other type, RESHAPE), DEQUANTIZE back."""
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    t = b.tame(t, 4)
    r = b.r
    uint8 = r.random() < 0.3
    lo, hi = -t.mag - 0.1, t.mag + 0.1
    scale = (hi - lo) / 255.0
    zp = int(round(-lo / scale)) + (0 if uint8 else -128)
    ttype = 'uint8' if uint8 else 'int8'
    qlo, qhi = (0, 255) if uint8 else (-128, 127)
    q = b.g.tensor(t.shape, ttype)
    b.g.tensors[q]['quant'] = {'scale': [scale], 'zero_point': [zp]}
    b.g.ops.append({'op': 'QUANTIZE', 'inputs': [t.idx], 'outputs': [q], 'options': {},
                    'version': 1})
    b.readers[t.idx] = b.readers.get(t.idx, 0) + 1
    b.note('QUANTIZE', t.shape, ttype)
    b.int8 = True
    cur, shape = q, t.shape

    def grid(out_scale):
        """A new tensor grid near out_scale with a zero point inside the type's range."""
        return out_scale * r.uniform(0.8, 1.25), r.randint(qlo + 40, qhi - 40)

    def out_tensor(shape, g):
        o = b.g.tensor(shape, ttype)
        b.g.tensors[o]['quant'] = {'scale': [g[0]], 'zero_point': [g[1]]}
        return o

    def weights(wshape, axis, fan_in):
        """Weights on a per-channel grid (symmetric, in [-127, 127] as TFLite's spec has
        them; a uint8 model's weights are uint8 with a zero point) and their scales."""
        n = numel(wshape)
        nsc = wshape[axis]
        wscale = [r.uniform(0.5, 1.5) / 127.0 / math.sqrt(fan_in) for _ in range(nsc)]
        if uint8:
            wq = [r.randint(0, 255) for _ in range(n)]
            w = b.g.tensor(wshape, 'uint8', wq)
            b.g.tensors[w]['quant'] = {'scale': [wscale[0]], 'zero_point': [128]}
            return w, [wscale[0]] * nsc
        wq = [r.randint(-127, 127) for _ in range(n)]
        w = b.g.tensor(wshape, 'int8', wq)
        b.g.tensors[w]['quant'] = {'scale': wscale, 'zero_point': [0] * nsc, 'axis': axis}
        return w, wscale

    def bias(n, wscale, in_scale):
        """An int32 bias on in_scale * w_scale, per channel where the weights are (a uint8
        model's per-tensor weights take a per-tensor bias: LiteRT misreads a mix)."""
        bt = b.g.tensor([n], 'int32', [r.randint(-200, 200) for _ in range(n)])
        if uint8:
            b.g.tensors[bt]['quant'] = {'scale': [in_scale * wscale[0]], 'zero_point': [0]}
        else:
            bs = [in_scale * ws for ws in wscale]
            b.g.tensors[bt]['quant'] = {'scale': bs, 'zero_point': [0] * n, 'axis': 0}
        return bt

    def conv_out(h, w, k, st):
        """Padding (VALID where the window fits, else SAME) and the output's height, width."""
        pad = r.choice(['SAME', 'VALID']) if h >= k and w >= k else 'SAME'
        if pad == 'SAME':
            return pad, (h + st - 1) // st, (w + st - 1) // st
        return pad, (h - k) // st + 1, (w - k) // st + 1

    kinds = ['RESHAPE', 'ADD', 'SUB', 'MUL', 'MAX_POOL_2D', 'AVERAGE_POOL_2D', 'RELU', 'RELU6',
             'RELU_N1_TO_1', 'ELU', 'LOGISTIC', 'TANH', 'HARD_SWISH', 'LEAKY_RELU', 'CONV_2D', 'DEPTHWISE_CONV_2D',
             'FULLY_CONNECTED', 'MEAN', 'QUANTIZE', 'SOFTMAX', 'PRELU', 'RESIZE_BILINEAR', 'PAD',
             'PADV2', 'CONCATENATION', 'QUANTIZE_TYPE']
    for _ in range(r.choice([0, 1, 1, 2, 3])):
        kind = r.choice(kinds)
        four = len(shape) == 4 and shape[0] == 1
        act = r.choice(['NONE', 'RELU', 'RELU6'])
        if kind == 'RESHAPE':
            shape = [numel(shape)]
            o = out_tensor(shape, (scale, zp))
            b.g.ops.append({'op': 'RESHAPE', 'inputs': [cur, b.g.ints(shape)], 'outputs': [o],
                            'options': {}, 'version': 1})
            g = (scale, zp)
        elif kind in ('ADD', 'SUB', 'MUL'):
            g = grid(scale * scale * 40 if kind == 'MUL' else scale * 2)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': kind, 'inputs': [cur, cur], 'outputs': [o],
                            'options': {'activation': act}, 'version': 2})
        elif kind in ('MAX_POOL_2D', 'AVERAGE_POOL_2D') and four:
            _, h, w, c = shape
            k, st = r.choice([(2, 2), (3, 2), (3, 1)])
            pad = r.choice(['SAME', 'VALID']) if h >= k and w >= k else 'SAME'
            oh = (h + st - 1) // st if pad == 'SAME' else (h - k) // st + 1
            ow = (w + st - 1) // st if pad == 'SAME' else (w - k) // st + 1
            shape = [1, oh, ow, c]
            g = (scale, zp)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': kind, 'inputs': [cur], 'outputs': [o],
                            'options': dict(padding=pad, stride_w=st, stride_h=st, filter_w=k,
                                            filter_h=k, activation=act), 'version': 2})
        elif kind in ('RELU', 'RELU6', 'RELU_N1_TO_1', 'ELU', 'LOGISTIC', 'TANH', 'HARD_SWISH',
                      'LEAKY_RELU') and not (kind == 'ELU' and uint8):
            # (TFLite's ELU takes float32 and int8 only: LiteRT gives no error for uint8,
            # and no numbers either.)
            if kind == 'LOGISTIC':
                g = (1.0 / 256, qlo)
            elif kind == 'TANH':
                g = (1.0 / 128, 0 if not uint8 else 128)
            else:
                g = grid(scale)
            o = out_tensor(shape, g)
            opts = {'alpha': r.choice([0.1, 0.2, 0.01])} if kind == 'LEAKY_RELU' else {}
            b.g.ops.append({'op': kind, 'inputs': [cur], 'outputs': [o], 'options': opts,
                            'version': 1 if kind in ('HARD_SWISH', 'ELU', 'RELU_N1_TO_1') else 2})
        elif kind == 'CONV_2D' and four:
            _, h, w, c = shape
            oc, k = r.choice([1, 3, 5, 8, 17]), r.choice([1, 3, 5])
            st = r.choice([1, 2])
            pad, oh, ow = conv_out(h, w, k, st)
            wt, ws = weights([oc, k, k, c], 0, k * k * c)
            g = grid(scale * 2)
            shape = [1, oh, ow, oc]
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'CONV_2D', 'inputs': [cur, wt, bias(oc, ws, scale)], 'outputs': [o],
                            'options': dict(padding=pad, stride_w=st, stride_h=st, activation=act),
                            'version': 3})
        elif kind == 'DEPTHWISE_CONV_2D' and four:
            _, h, w, c = shape
            st, k = r.choice([1, 2]), r.choice([3, 5])
            pad, oh, ow = conv_out(h, w, k, st)
            wt, ws = weights([1, k, k, c], 3, k * k)
            g = grid(scale * 2)
            shape = [1, oh, ow, c]
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'DEPTHWISE_CONV_2D', 'inputs': [cur, wt, bias(c, ws, scale)],
                            'outputs': [o], 'options': dict(padding=pad, stride_w=st, stride_h=st,
                                                            depth_multiplier=1, activation=act),
                            'version': 3})
        elif kind == 'SOFTMAX':
            # TFLite's int8 / uint8 SOFTMAX writes onto 1/256 from the type's lowest q.
            g = (1.0 / 256, qlo)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'SOFTMAX', 'inputs': [cur], 'outputs': [o],
                            'options': {'beta': r.choice([0.5, 1.0, 1.7])}, 'version': 2})
        elif kind == 'PRELU':
            # A constant alpha on its own per-tensor grid, per channel or one for all.
            ashape = r.choice([[1], [shape[-1]]])
            a = b.g.tensor(ashape, ttype, [r.randint(qlo, qhi) for _ in range(numel(ashape))])
            b.g.tensors[a]['quant'] = {'scale': [r.uniform(0.5, 2.0) / 127.0],
                                       'zero_point': [0 if not uint8 else 128]}
            g = grid(scale)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'PRELU', 'inputs': [cur, a], 'outputs': [o], 'options': {},
                            'version': 1})
        elif kind == 'RESIZE_BILINEAR' and four:
            _, h, w, c = shape
            size = [r.randint(1, 2 * h + 1), r.randint(1, 2 * w + 1)]
            align, half = r.choice([(False, False), (True, False), (False, True)])
            shape = [1, size[0], size[1], c]
            g = (scale, zp)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'RESIZE_BILINEAR', 'inputs': [cur, b.g.ints(size)],
                            'outputs': [o], 'options': dict(align_corners=align,
                                                            half_pixel_centers=half),
                            'version': 3})
        elif kind in ('PAD', 'PADV2'):
            # The output on the input's grid (TFLite's int8 PAD requires it); PAD fills
            # with its zero point, PADV2 with a constant q on that grid.
            pads = []
            for d in range(len(shape)):
                pads += [0, 0] if d == 0 and len(shape) == 4 else [r.randint(0, 2), r.randint(0, 2)]
            shape = [d + pads[2 * k] + pads[2 * k + 1] for k, d in enumerate(shape)]
            g = (scale, zp)
            o = out_tensor(shape, g)
            ins = [cur, b.g.ints(pads, [len(pads) // 2, 2])]
            if kind == 'PADV2':
                cq = b.g.tensor([1], ttype, [r.choice([qlo, qhi, zp, r.randint(qlo, qhi)])])
                b.g.tensors[cq]['quant'] = {'scale': [scale], 'zero_point': [zp]}
                ins.append(cq)
            b.g.ops.append({'op': kind, 'inputs': ins, 'outputs': [o], 'options': {},
                            'version': 2})
        elif kind == 'CONCATENATION':
            # int8: inputs on the output's grid (TFLite refuses others); uint8: a second
            # input requantized onto another grid, the output on either or a third.
            axis = r.randrange(len(shape))
            other, g = cur, (scale, zp)
            if uint8:
                g2 = grid(scale * r.choice([0.5, 1.0, 2.0]))
                other = out_tensor(shape, g2)
                b.g.ops.append({'op': 'QUANTIZE', 'inputs': [cur], 'outputs': [other],
                                'options': {}, 'version': 2})
                b.note('QUANTIZE', shape, ttype)
                g = r.choice([g, g2, grid(scale)])
            shape = list(shape)
            shape[axis] *= 2
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'CONCATENATION', 'inputs': [cur, other], 'outputs': [o],
                            'options': {'axis': axis, 'activation': 'NONE'}, 'version': 2})
        elif kind == 'QUANTIZE_TYPE':
            # Onto the other type, as TFLite's Requantize does; the ops after run there.
            uint8 = not uint8
            ttype = 'uint8' if uint8 else 'int8'
            qlo, qhi = (0, 255) if uint8 else (-128, 127)
            g = grid(scale * r.choice([0.5, 1.0, 2.0]))
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'QUANTIZE', 'inputs': [cur], 'outputs': [o], 'options': {},
                            'version': 2})
            kind = 'QUANTIZE'
        elif kind == 'FULLY_CONNECTED' and len(shape) == 2:
            rows, k = shape
            n = r.choice([1, 3, 5, 17])
            wt, ws = weights([n, k], 0, k)
            g = grid(scale * 2)
            shape = [rows, n]
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'FULLY_CONNECTED', 'inputs': [cur, wt, bias(n, ws, scale)],
                            'outputs': [o], 'options': {'activation': act}, 'version': 4})
        elif kind == 'MEAN' and four:
            shape = [1, 1, 1, shape[3]]
            g = grid(scale)
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'MEAN', 'inputs': [cur, b.g.ints([1, 2])], 'outputs': [o],
                            'options': {'keep_dims': True}, 'version': 2})
        elif kind == 'QUANTIZE':
            g = grid(scale * r.choice([0.5, 1.0, 2.0]))
            o = out_tensor(shape, g)
            b.g.ops.append({'op': 'QUANTIZE', 'inputs': [cur], 'outputs': [o], 'options': {},
                            'version': 2})
        else:
            continue
        b.note(kind, shape, ttype)
        cur = o
        scale, zp = g
    d = b.g.tensor(shape)
    b.g.ops.append({'op': 'DEQUANTIZE', 'inputs': [cur], 'outputs': [d], 'options': {},
                    'version': 2})
    b.note('DEQUANTIZE', shape, ttype)
    b.push(d, shape, max(t.mag * 2 + 1, scale * 256))
    b.fp16_ok = False
    return True


# ---- blocks ------------------------------------------------------------------------------

def block_attention(b, name):
    """A transformer block over a rank-3 [B, T, D] activation: LayerNorm as MEAN /
    SQUARED_DIFFERENCE / RSQRT, Q and K by FULLY_CONNECTED, BATCH_MATMUL, SOFTMAX, a residual ADD."""
    r = b.r
    bt, tt, d = r.choice([1, 2, 4]), r.choice([3, 5, 8]), r.choice([4, 8, 5])
    x = b.new_input([bt, tt, d]) if r.random() < 0.5 or not b.pool else None
    if x is None:
        t = b.pick()
        n = numel(t.shape)
        x = t
        if n % d:
            x = b.new_input([bt, tt, d])
        else:
            rows = n // d
            shape = [1, rows, d] if rows > 1 else [1, 1, d]
            o = b.add_op('RESHAPE', [t.idx, b.g.ints(shape)], shape)
            b.note('RESHAPE', shape)
            x = b.push(o, shape, t.mag, t.exact)
    x = b.tame(x, 4)
    s = x.shape
    mean = b.add_op('MEAN', [x.idx, b.g.ints([-1])], s[:-1] + [1], keep_dims=True)
    sq = b.add_op('SQUARED_DIFFERENCE', [x.idx, mean], s)
    var = b.add_op('MEAN', [sq, b.g.ints([-1])], s[:-1] + [1], keep_dims=True)
    eps = b.add_op('ADD', [var, b.g.tensor([], data=[1e-3])], s[:-1] + [1])
    rs = b.add_op('RSQRT', [eps], s[:-1] + [1])
    cen = b.add_op('SUB', [x.idx, mean], s)
    nrm = b.add_op('MUL', [cen, rs], s)
    gam = b.add_op('MUL', [nrm, b.const([s[-1]], 0.5, 1.5)], s)
    ln = b.add_op('ADD', [gam, b.const([s[-1]], -0.2, 0.2)], s)
    for op in ('MEAN', 'SQUARED_DIFFERENCE', 'RSQRT', 'SUB', 'MUL', 'ADD'):
        b.note(op, s, 'layernorm')
    q = b.add_op('FULLY_CONNECTED', [ln, b.const([s[-1], s[-1]], -0.5, 0.5), -1], s,
                 keep_num_dims=True)
    k = b.add_op('FULLY_CONNECTED', [ln, b.const([s[-1], s[-1]], -0.5, 0.5), -1], s,
                 keep_num_dims=True)
    att = b.add_op('BATCH_MATMUL', [q, k], s[:-1] + [s[-2]], adj_y=True)
    sm = b.add_op('SOFTMAX', [att, -1][:1], s[:-1] + [s[-2]], beta=0.5)
    ctx = b.add_op('BATCH_MATMUL', [sm, ln], s)
    out = b.add_op('ADD', [ctx, x.idx], s)
    for op in ('FULLY_CONNECTED', 'BATCH_MATMUL', 'SOFTMAX', 'ADD'):
        b.note(op, s, 'attention')
    b.push(out, s, x.mag + 10)
    return True


def block_unfold(b, name):
    """MobileViT's unfold and fold: [1,H,W,C] -> patches [P, N, C] by RESHAPE and TRANSPOSE,
    an elementwise step over the rank-3 tensor, and back."""
    r = b.r
    p = 2
    h, w, c = r.choice([2, 4]), r.choice([2, 4, 6]), r.choice([3, 4, 8])
    x = b.new_input([1, h, w, c])
    s1 = [1, h // p, p, w // p, p, c]
    # A rank-6 step would exceed TFLite's 5-D: fold H/p into the first axis.
    a = b.add_op('RESHAPE', [x.idx, b.g.ints([h // p, p, w // p, p * c])], [h // p, p, w // p, p * c])
    tr = b.add_op('TRANSPOSE', [a, b.g.ints([1, 0, 2, 3])], [p, h // p, w // p, p * c])
    pt = b.add_op('RESHAPE', [tr, b.g.ints([p, (h // p) * (w // p), p * c])],
                  [p, (h // p) * (w // p), p * c])
    m = b.add_op('MUL', [pt, b.const([p * c], -1, 1)], [p, (h // p) * (w // p), p * c])
    sub = b.add_op('SUB', [b.const([p * c], -1, 1), m], [p, (h // p) * (w // p), p * c])
    y = b.add_op('ADD', [m, sub], [p, (h // p) * (w // p), p * c])
    back = b.add_op('RESHAPE', [y, b.g.ints([p, h // p, w // p, p * c])], [p, h // p, w // p, p * c])
    tb = b.add_op('TRANSPOSE', [back, b.g.ints([1, 0, 2, 3])], [h // p, p, w // p, p * c])
    fold = b.add_op('RESHAPE', [tb, b.g.ints([1, h, w, c])], [1, h, w, c])
    for op in ('RESHAPE', 'TRANSPOSE', 'MUL', 'SUB', 'ADD'):
        b.note(op, [p, (h // p) * (w // p), p * c], 'unfold')
    del s1
    b.push(fold, [1, h, w, c], 4.0)
    return True


def block_fan(b, name):
    """SPLIT into branches, a different op on each, CONCATENATION back (fan-out, fan-in)."""
    t = b.pick(lambda t: len(t.shape) >= 1 and t.shape[-1] >= 2)
    if t is None:
        return False
    axis = len(t.shape) - 1
    d = t.shape[axis]
    k = 2 if d % 2 == 0 else (3 if d % 3 == 0 else None)
    if k is None:
        outs = b.add_op('SPLIT_V', [t.idx, b.g.ints([1, d - 1]), b.g.ints([axis], [])],
                        [t.shape[:-1] + [1], t.shape[:-1] + [d - 1]], num_splits=2)
        shapes = [t.shape[:-1] + [1], t.shape[:-1] + [d - 1]]
        b.note('SPLIT_V', t.shape, 'fan')
    else:
        shapes = [t.shape[:-1] + [d // k]] * k
        outs = b.add_op('SPLIT', [b.g.ints([axis], []), t.idx], shapes, num_splits=k)
        b.note('SPLIT', t.shape, 'fan')
    branches = []
    for o, s in zip(outs, shapes):
        op = b.r.choice(['RELU', 'TANH', 'NEG', 'LOGISTIC', 'HARD_SWISH', 'ABS'])
        y = b.add_op(op, [o], s)
        b.note(op, s, 'branch')
        branches.append(y)
    cat = b.add_op('CONCATENATION', branches, t.shape, axis=axis)
    b.note('CONCATENATION', t.shape, 'fan-in')
    b.push(cat, t.shape, max(t.mag, 1))
    return True


def op_residual(b, name):
    """An op on t, then ADD with t itself (the residual pattern, any rank); on a 4-D batch-1
    t, half the time MobileNetV2's inverted residual block (inverted_residual)."""
    t = b.pick()
    if t is None:
        return False
    r = b.r
    if len(t.shape) == 4 and t.shape[0] == 1 and r.random() < 0.5:
        return inverted_residual(b, t)   # MobileNetV2's block on t, its ADD with t
    kind = r.choice(['MUL', 'FC', 'SUB', 'TANH'])
    if kind == 'FC' and t.shape:
        y = b.add_op('FULLY_CONNECTED', [t.idx, b.const([t.shape[-1], t.shape[-1]], -0.5, 0.5), -1],
                     t.shape if len(t.shape) != 2 else t.shape,
                     keep_num_dims=len(t.shape) != 2) if len(t.shape) >= 2 else None
        if y is None:
            return False
        b.note('FULLY_CONNECTED', t.shape, 'residual')
    elif kind == 'SUB':
        m = b.add_op('MUL', [t.idx, b.const([t.shape[-1]] if t.shape else [])], t.shape)
        y = b.add_op('SUB', [b.const([t.shape[-1]] if t.shape else []), m], t.shape)
        b.note('SUB', t.shape, 'residual')
        out = b.add_op('ADD', [m, y], t.shape, activation=r.choice(ACTS))
        b.note('ADD', t.shape, 'residual')
        b.push(out, t.shape, t.mag + 2)
        return True
    elif kind == 'MUL':
        y = b.add_op('MUL', [t.idx, b.const([t.shape[-1]] if t.shape else [])], t.shape)
        b.note('MUL', t.shape, 'residual')
    else:
        y = b.add_op('TANH', [t.idx], t.shape)
        b.note('TANH', t.shape, 'residual')
    ins = [y, t.idx] if r.random() < 0.5 else [t.idx, y]
    out = b.add_op('ADD', ins, t.shape, activation=r.choice(ACTS))
    b.note('ADD', t.shape, 'residual')
    b.push(out, t.shape, t.mag * (t.shape[-1] if t.shape else 1) + 2)
    return True


# ---- more CPU ops: cpu_misc.c, cpu_index.c, cpu_reduce.c, fft.c, conv3d.c, bucketize.c -------
# As the CPU ops above: operands made by GPU ops where they can be, float outputs read by GPU
# ops (gpu_after), indices, lengths and segment ids in range (a constant, or index_tensor),
# what a result's steps depend on (BUCKETIZE's boundaries, FAKE_QUANT's grid) exact.

def gpu_after(b, t, note):
    """A GPU op reading t, a float tensor a CPU op made: NEG, ABS, TANH, or MUL / ADD of a
    scalar. Returns its output (t itself when t is not float: CAST reads those). Every float
    output of these CPU ops has a GPU op reading it: LiteRT.js hands back garbage for some
    of them as graph outputs (SEGMENT_SUM's: zeros and denormals)."""
    r = b.r
    if t.kind != 'float':
        return t
    op = r.choice(['NEG', 'ABS', 'TANH', 'MUL', 'ADD'])
    if op in ('MUL', 'ADD'):
        v = r.choice([0.5, -1.0, 2.0, 0.25])
        return scalar_op(b, op, t, v, out_mag=t.mag * 2 if op == 'MUL' else t.mag + 1, note=note)
    if op == 'TANH':
        return unary_on(b, op, t, mag=1.0, exact=False, note=note)
    return unary_on(b, op, t, note=note)


def as_float(b, t, note):
    """CAST of an int32 / int64 / bool tensor to float32 (exact: small whole numbers)."""
    o = b.add_op('CAST', [t.idx], t.shape)
    b.note('CAST', t.shape, '%s->float32' % ('int32' if t.kind == 'int' else t.kind))
    return b.push(o, t.shape, t.mag, exact=True)


def op_atan2(b, name):
    """ATAN2(y, x) of two float tensors of one shape, one kept off zero (ABS + 0.5, or a
    constant 0.5 to 2 in magnitude): y (either sign) or x (positive), so no pair lies near
    the origin or on the cut along negative x, where atan2 jumps by 2 pi."""
    r = b.r
    t = gpu_input(b, lambda t: numel(t.shape) <= 3000)
    if t is None:
        return False
    same = [u for u in b.pool if u.kind == 'float' and u.shape == t.shape and u is not t]
    y_away, neg = r.random() < 0.5, r.random() < 0.5
    if same and r.random() < 0.6:
        away = b.positive(r.choice(same))
        if y_away and neg:
            away = unary_on(b, 'NEG', away, note='atan2 operand')
    else:     # a constant (ABS of one would be a GPU op on constants only)
        lo, hi = (-2.0, -0.5) if y_away and neg else (0.5, 2.0)
        away = T(b.const(t.shape, lo, hi), t.shape, 2.0)
    if y_away:
        ins, form = [away.idx, t.idx], 'y off zero'
    else:
        ins, form = [t.idx, away.idx], 'x positive'
    o = b.add_op('ATAN2', ins, t.shape)
    b.note(name, t.shape, form)
    gpu_after(b, b.push(o, t.shape, 3.2), 'after atan2')
    return True


def op_zeros_like(b, name):
    """ZEROS_LIKE of a float tensor (ADD to it after, sometimes: x + 0) or an int32 one."""
    r = b.r
    ints = [t for t in b.pool if t.kind == 'int']
    if ints and r.random() < 0.25:
        t = ints[-1]
        o = b.add_op('ZEROS_LIKE', [t.idx], t.shape, 'int32')
        b.note(name, t.shape, 'int32')
        b.push(o, t.shape, 0.0, exact=True, kind='int')
        return True
    t = gpu_input(b, lambda t: True)
    if t is None:
        return False
    o = b.add_op('ZEROS_LIKE', [t.idx], t.shape)
    b.note(name, t.shape, 'float32')
    z = b.push(o, t.shape, 0.0, exact=True)
    if r.random() < 0.6:
        a = b.add_op('ADD', [z.idx, t.idx] if r.random() < 0.5 else [t.idx, z.idx], t.shape)
        b.note('ADD', t.shape, 'zeros_like')
        b.push(a, t.shape, t.mag, t.exact, t.positive)
    else:
        gpu_after(b, z, 'after zeros_like')
    return True


def scalar_of(b, t, note):
    """A rank-0 tensor of t's values, made on the GPU: REDUCE_MAX over every axis (t itself
    when rank 0). Exact when t is."""
    if not t.shape:
        return t
    o = b.add_op('REDUCE_MAX', [t.idx, b.g.ints(list(range(len(t.shape))))], [], keep_dims=False)
    b.note('REDUCE_MAX', t.shape, note)
    return b.push(o, [], t.mag, t.exact)


def op_fill(b, name):
    """FILL of constant dims (a tensor's shape of the graph, sometimes: ADD with it after)
    with a scalar the GPU computes: float32, int32 (CAST of an exact one) or bool (GREATER)."""
    r = b.r
    t = gpu_input(b, lambda t: numel(t.shape) <= 3000)
    if t is None:
        return False
    other = b.pick(lambda u: 1 <= len(u.shape) and numel(u.shape) <= 1500)
    if other is not None and r.random() < 0.5:
        dims = list(other.shape)
    else:
        other, dims = None, b.shape(rank=r.choice([1, 2, 3, 3, 4]), small=True)
    v = scalar_of(b, t, 'fill value')
    form = r.choice(['float32', 'float32', 'int32', 'bool']) if v.exact else 'float32'
    dt = b.g.ints(dims) if r.random() < 0.8 else b.g.tensor([len(dims)], 'int64', dims)
    if form == 'int32':
        c = b.add_op('CAST', [v.idx], [], 'int32')
        b.note('CAST', [], 'float->int32')
        o = b.add_op('FILL', [dt, c], dims, 'int32')
        b.note(name, dims, form)
        b.push(o, dims, v.mag + 1, exact=True, kind='int')
        return True
    if form == 'bool':
        c = b.add_op('GREATER', [v.idx, b.g.tensor([], data=[r.choice([-0.5, 0.0, 0.5])])], [],
                     'bool')
        b.note('GREATER', [], 'fill value')
        o = b.add_op('FILL', [dt, c], dims, 'bool')
        b.note(name, dims, form)
        b.push(o, dims, 1, exact=True, kind='bool')
        return True
    o = b.add_op('FILL', [dt, v.idx], dims)
    b.note(name, dims, form)
    f = b.push(o, dims, v.mag, v.exact)
    if other is not None and r.random() < 0.6:
        a = b.add_op('ADD', [other.idx, o], dims)
        b.note('ADD', dims, 'fill')
        b.push(a, dims, other.mag + v.mag, other.exact and v.exact)
    else:
        gpu_after(b, f, 'after fill')
    return True


def op_rank(b, name):
    """RANK of a tensor of the graph (any kind), CAST and added to a float one, sometimes."""
    r = b.r
    t = b.pick(kind=r.choice(['float', 'float', 'int', 'bool'])) or b.pick()
    if t is None:
        return False
    o = b.add_op('RANK', [t.idx], [], 'int32')
    b.note(name, t.shape, t.kind)
    rk = b.push(o, [], len(t.shape), exact=True, kind='int')
    if r.random() < 0.6:
        f = as_float(b, rk, 'rank')
        u = t if t.kind == 'float' else b.pick()
        if u is not None and r.random() < 0.7:
            a = b.add_op('ADD', [u.idx, f.idx], u.shape)
            b.note('ADD', u.shape, 'rank')
            b.push(a, u.shape, u.mag + f.mag, u.exact)
    return True


def op_shape(b, name):
    """SHAPE (int32 or int64) of a tensor of the graph of rank >= 1, CAST and scaled on the
    GPU sometimes."""
    r = b.r
    t = b.pick(lambda t: len(t.shape) >= 1,
               kind=r.choice(['float', 'float', 'float', 'int', 'bool'])) or \
        b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    ttype = 'int32' if r.random() < 0.75 else 'int64'
    n = len(t.shape)
    o = b.add_op('SHAPE', [t.idx], [n], ttype, out_type=ttype)
    b.note(name, t.shape, ttype)
    s = b.push(o, [n], max(t.shape), exact=True, kind='int' if ttype == 'int32' else 'int64')
    if r.random() < 0.5:
        gpu_after(b, as_float(b, s, 'shape'), 'after shape')
    return True


def shape_tensor(b, shape, ttype, src):
    """A rank-1 int32 / int64 tensor holding `shape`: SHAPE of src (a tensor of that shape),
    computed on the GPU (an exact tensor times 0, plus the extents, CAST) or a constant."""
    r = b.r
    n = len(shape)
    mode = r.random()
    if src is not None and mode < 0.4:
        o = b.add_op('SHAPE', [src.idx], [n], ttype, out_type=ttype)
        b.note('SHAPE', shape, ttype + ' for broadcast_args')
        return o, 'shape'
    if mode < 0.75:
        x = source(b, [n])
        z = scalar_op(b, 'MUL', x, 0.0, out_mag=0.0, note='computed shape')
        a = b.add_op('ADD', [z.idx, b.g.tensor([n], data=[float(d) for d in shape])], [n])
        b.note('ADD', [n], 'computed shape')
        o = b.add_op('CAST', [a], [n], ttype)
        b.note('CAST', [n], 'float->' + ttype)
        return o, 'computed'
    return b.g.tensor([n], ttype, list(shape)), 'constant'


def op_broadcast_args(b, name):
    """BROADCAST_ARGS of a tensor's shape and one that broadcasts with it (ranks 1 to 5, 1s
    either side), each SHAPE of a tensor, computed on the GPU or constant; the result CAST
    and added to something after, sometimes."""
    r = b.r
    t = b.pick(lambda t: len(t.shape) >= 1)
    if t is None:
        return False
    s1 = list(t.shape)
    rank = r.randint(1, 5)
    s2 = []
    for i in range(rank):
        j = len(s1) - rank + i
        d = s1[j] if j >= 0 else 1
        s2.append(r.choice([1, 2, 3]) if d == 1 else (d if r.random() < 0.6 else 1))
    ttype = 'int32' if r.random() < 0.7 else 'int64'
    src2 = b.pick(lambda u: u.shape == s2)
    a, fa = shape_tensor(b, s1, ttype, t)
    c, fc = shape_tensor(b, s2, ttype, src2)
    if r.random() < 0.5:
        a, c, fa, fc = c, a, fc, fa
    out = broadcast(s1, s2)
    o = b.add_op('BROADCAST_ARGS', [a, c], [len(out)], ttype)
    b.note(name, [len(out)], '%s %s, %s' % (ttype, fa, fc))
    y = b.push(o, [len(out)], max(out), exact=True, kind='int' if ttype == 'int32' else 'int64')
    if r.random() < 0.6:
        gpu_after(b, as_float(b, y, 'broadcast_args'), 'after broadcast_args')
    return True


def op_reduce_all(b, name):
    """REDUCE_ALL of a bool tensor of rank >= 1 (a comparison made for it where the graph
    has none) over some axes, negative and repeated ones too, keep_dims or not."""
    r = b.r
    bools = [t for t in b.pool if t.kind == 'bool' and t.shape]
    if not bools or r.random() < 0.3:
        op_compare(b, r.choice(COMPARE))
        bools = [t for t in b.pool if t.kind == 'bool' and t.shape]
        if not bools:
            return False
    t = bools[-1]
    rank = len(t.shape)
    axes = sorted(r.sample(range(rank), r.randint(1, rank)))
    keep = r.random() < 0.5
    out = [1 if i in axes else d for i, d in enumerate(t.shape)] if keep else \
        [d for i, d in enumerate(t.shape) if i not in axes]
    given = [a - rank if r.random() < 0.3 else a for a in axes]
    if r.random() < 0.2:
        given.append(given[0])
    o = b.add_op('REDUCE_ALL', [t.idx, b.g.ints(given)], out, 'bool', keep_dims=keep)
    b.note(name, t.shape, 'keep_dims' if keep else None)
    b.push(o, out, 1, exact=True, kind='bool')
    return True


def op_bucketize(b, name):
    """BUCKETIZE of an exact tensor by ascending boundaries on its grid (repeats too, so values
    fall on them); the buckets CAST and added to it after, sometimes."""
    r = b.r
    t = gpu_input(b, lambda t: t.exact and len(t.shape) >= 1 and numel(t.shape) <= 3000)
    if t is None:
        return False
    span = min(max(t.mag, 1.0), 64.0)
    k = r.randint(1, 7)
    bounds = sorted(math.floor(r.uniform(-span, span) * 4) / 4 for _ in range(k))
    o = b.add_op('BUCKETIZE', [t.idx], t.shape, 'int32', boundaries=bounds)
    b.note(name, t.shape, '%d boundaries' % k)
    bt = b.push(o, t.shape, k, exact=True, kind='int')
    if r.random() < 0.5:
        f = as_float(b, bt, 'bucketize')
        a = b.add_op('ADD', [f.idx, t.idx], t.shape)
        b.note('ADD', t.shape, 'bucketize')
        b.push(a, t.shape, t.mag + k, True)
    return True


def op_rfft2d(b, name):
    """RFFT2D of a float tensor of rank >= 2 (cropped or zero-padded to fft_length, powers of
    2), its complex64 result read only by COMPLEX_ABS, REAL and IMAG (the one asked for and
    others), LOG(|X| + 0.5) on the GPU after the magnitude, sometimes."""
    r = b.r
    t = gpu_input(b, lambda t: len(t.shape) >= 2 and numel(t.shape) <= 2000)
    if t is None:
        return False
    t = b.tame(t, 4)
    fh, fw = r.choice([2, 4, 4, 8, 16]), r.choice([2, 4, 8, 8, 16])
    lead = t.shape[:-2]
    while numel(lead) * fh * (fw // 2 + 1) > 3000 and fh > 2:
        fh //= 2
    out = lead + [fh, fw // 2 + 1]
    z = b.add_op('RFFT2D', [t.idx, b.g.ints([fh, fw])], out, 'complex64')
    b.note('RFFT2D', t.shape, 'fft %dx%d' % (fh, fw))
    crop, pad = t.shape[-2] > fh or t.shape[-1] > fw, t.shape[-2] < fh or t.shape[-1] < fw
    b.classes.add(('RFFT2D', 'crop and pad' if crop and pad else 'crop' if crop else
                   'pad' if pad else 'exact size'))
    parts = set(r.sample(['COMPLEX_ABS', 'REAL', 'IMAG'], r.randint(1, 3)))
    if name != 'RFFT2D':
        parts.add(name)
    mag = t.mag * min(t.shape[-2], fh) * min(t.shape[-1], fw)
    for part in sorted(parts):
        o = b.add_op(part, [z], out)
        b.note(part, out)
        p = b.push(o, out, mag, positive=False)
        if part == 'COMPLEX_ABS' and r.random() < 0.5:
            c = b.add_op('ADD', [o, b.g.tensor([], data=[0.5])], out)
            b.note('ADD', out, 'after complex_abs')
            lg = b.add_op('LOG', [c], out)
            b.note('LOG', out, 'after complex_abs')
            b.push(lg, out, math.log(mag + 0.5) + 1)
        else:
            gpu_after(b, p, 'after ' + part.lower())
    return True


def op_conv3d(b, name):
    """CONV_3D or CONV_3D_TRANSPOSE on a 5-D [N, D, H, W, C] cut of a graph tensor (or an
    input): kernels 1 to 3 an axis, strides, dilations (CONV_3D), SAME or VALID, a bias and a
    fused activation."""
    r = b.r
    shape = [r.choice([1, 1, 1, 2]), r.randint(1, 5), r.randint(1, 6), r.randint(1, 6),
             r.choice([1, 2, 3, 4, 5])]
    while numel(shape) > 400:
        k = max(range(1, 5), key=lambda i: shape[i])
        shape[k] = max(1, shape[k] // 2)
    t = b.tame(source(b, shape, exact=False), 10)
    c = shape[4]
    k = [r.choice([1, 2, 3]) for _ in range(3)]
    stride = [r.choice([1, 1, 2]) for _ in range(3)]
    padding = r.choice(['SAME', 'VALID'])
    oc = r.choice([1, 2, 3, 4, 5, 8])
    act = r.choice(ACTS)
    if name == 'CONV_3D':
        # No dilation: LiteRT 2.5.3's dilated CONV_3D is wrong on some shapes, even for a
        # 1x1x1 filter, where dilation changes nothing (input [1,1,2,1,3], VALID).
        dil = [1, 1, 1]
        sp = [spatial_out(shape[1 + a], k[a], stride[a], dil[a], padding) for a in range(3)]
        if min(sp) <= 0:
            padding = 'SAME'
            sp = [spatial_out(shape[1 + a], k[a], stride[a], dil[a], padding) for a in range(3)]
        out = [shape[0]] + sp + [oc]
        o = b.add_op('CONV_3D', [t.idx, b.const(k + [c, oc], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                     out, padding=padding, stride_d=stride[0], stride_h=stride[1],
                     stride_w=stride[2], dilation_d=dil[0], dilation_h=dil[1], dilation_w=dil[2],
                     activation=act)
        form = 'k%d%d%d s%d%d%d d%d%d%d %s' % tuple(k + stride + dil + [padding])
    else:
        if padding == 'SAME':
            # No padding in front along D: LiteRT 2.5.3's CONV_3D_TRANSPOSE is wrong with it
            # (kd - stride_d >= 2; vkinfer agrees with the definition there).
            k[0] = min(k[0], stride[0] + 1)
        sp = [shape[1 + a] * stride[a] if padding == 'SAME' else
              (shape[1 + a] - 1) * stride[a] + k[a] for a in range(3)]
        out = [shape[0]] + sp + [oc]
        o = b.add_op('CONV_3D_TRANSPOSE', [b.g.ints(out), b.const(k + [oc, c], -0.5, 0.5), t.idx,
                                           b.const([oc], -0.2, 0.2)],
                     out, padding=padding, stride_d=stride[0], stride_h=stride[1],
                     stride_w=stride[2], activation=act)
        form = 'k%d%d%d s%d%d%d %s' % tuple(k + stride + [padding])
    b.note(name, shape, form)
    b.classes.add((name, 'act ' + act))
    y = b.push(o, out, t.mag * k[0] * k[1] * k[2] * c * 0.5 + 1)
    gpu_after(b, y, 'after ' + name.lower())
    return True


def op_reverse_sequence(b, name):
    """REVERSE_SEQUENCE of a float (or int32) tensor of rank >= 2 along seq_dim, per index of
    batch_dim (any order of the two), lengths 0 .. extent: constant (int32 or int64) or
    computed."""
    r = b.r
    ints = [t for t in b.pool if t.kind == 'int' and len(t.shape) >= 2]
    if ints and r.random() < 0.2:
        t, ttype = ints[-1], 'int32'
    else:
        t, ttype = gpu_input(b, lambda t: len(t.shape) >= 2), 'float32'
    if t is None:
        return False
    seq, bat = r.sample(range(len(t.shape)), 2)
    n, d = t.shape[bat], t.shape[seq]
    if r.random() < 0.6:
        vals = [r.randint(0, d) for _ in range(n)]
        lens = b.g.ints(vals) if r.random() < 0.7 else b.g.tensor([n], 'int64', vals)
        form = 'constant lengths'
    else:
        lens = index_tensor(b, [n], [d + 1])
        form = 'computed lengths'
    o = b.add_op('REVERSE_SEQUENCE', [t.idx, lens], t.shape, ttype, seq_dim=seq, batch_dim=bat)
    b.note(name, t.shape, form)
    b.classes.add((name, 'seq %d batch %d' % (seq, bat)))
    y = b.push(o, t.shape, t.mag, t.exact, t.positive, kind=t.kind)
    gpu_after(b, y, 'after reverse_sequence')
    return True


def op_matrix_diag(b, name):
    """MATRIX_DIAG of a tensor of rank 1 to 4 ([..., N] -> [..., N, N]), or MATRIX_SET_DIAG
    of one of rank 2 to 5 with a diagonal [..., min(M, N)] the graph computes."""
    r = b.r
    if name == 'MATRIX_DIAG':
        t = gpu_input(b, lambda t: 1 <= len(t.shape) <= 4 and numel(t.shape) * t.shape[-1] <= 3000)
        if t is None:
            return False
        out = t.shape + [t.shape[-1]]
        o = b.add_op(name, [t.idx], out)
        b.note(name, t.shape)
        y = b.push(o, out, t.mag, t.exact)
    else:
        t = gpu_input(b, lambda t: len(t.shape) >= 2 and numel(t.shape) <= 3000)
        if t is None:
            return False
        dshape = t.shape[:-2] + [min(t.shape[-2:])]
        if r.random() < 0.7:
            d = source(b, dshape, exact=False)
        else:
            d = T(b.const(dshape, -2, 2), dshape, 2.0)
        o = b.add_op(name, [t.idx, d.idx], t.shape)
        b.note(name, t.shape, 'wide' if t.shape[-1] > t.shape[-2] else 'tall' if
               t.shape[-1] < t.shape[-2] else 'square')
        y = b.push(o, t.shape, max(t.mag, d.mag), t.exact and d.exact)
    gpu_after(b, y, 'after ' + name.lower())
    return True


def op_segment_sum(b, name):
    """SEGMENT_SUM of a float (or int32) tensor's rows by constant sorted ids (from 0, steps
    of 0 or 1)."""
    r = b.r
    ints = [t for t in b.pool if t.kind == 'int' and t.shape and t.shape[0] <= 24]
    if ints and r.random() < 0.2:
        t, ttype = ints[-1], 'int32'
    else:
        t, ttype = gpu_input(b, lambda t: len(t.shape) >= 1 and t.shape[0] <= 24), 'float32'
    if t is None:
        return False
    ids = [0]
    for _ in range(t.shape[0] - 1):
        ids.append(ids[-1] + r.choice([0, 1, 1]))
    out = [ids[-1] + 1] + t.shape[1:]
    o = b.add_op(name, [t.idx, b.g.ints(ids)], out, ttype)
    b.note(name, t.shape, ttype)
    most = max(ids.count(i) for i in set(ids))
    mag = t.mag * most
    y = b.push(o, out, mag, t.exact and mag <= 64, kind=t.kind)
    gpu_after(b, y, 'after segment_sum')
    return True


def op_unsorted_segment(b, name):
    """UNSORTED_SEGMENT_SUM / PROD / MAX / MIN of a float tensor by ids over its first one or
    two axes: constant (-1, skipped, too) or computed, in range; num_segments a constant of
    rank 0 or [1]. MAX and MIN clamped on the GPU after (an empty segment holds -FLT_MAX /
    FLT_MAX, which float16 cannot hold)."""
    r = b.r
    kind = name.split('_')[-1]
    lim = 12 if kind == 'PROD' else 64
    t = gpu_input(b, lambda t: len(t.shape) >= 1 and t.shape[0] <= lim and numel(t.shape) <= 3000)
    if t is None:
        return False
    if kind == 'PROD':
        t = b.tame(t, 1.5)
    m = 2 if len(t.shape) >= 2 and numel(t.shape[:2]) <= lim and r.random() < 0.4 else 1
    ids_shape = t.shape[:m]
    n = numel(ids_shape)
    num = r.randint(1, 6)
    if r.random() < 0.5:
        ids = b.g.ints([r.randint(-1, num - 1) for _ in range(n)], ids_shape)
        form = 'constant ids'
    else:
        ids = index_tensor(b, ids_shape, [num])
        form = 'computed ids'
    numt = b.g.ints([num], []) if r.random() < 0.6 else b.g.ints([num])
    out = [num] + t.shape[m:]
    o = b.add_op(name, [t.idx, ids, numt], out)
    b.note(name, t.shape, form)
    b.classes.add((name, 'ids r%d' % m))
    if kind == 'SUM':
        y = b.push(o, out, t.mag * n, t.exact and t.mag * n <= 64)
    elif kind == 'PROD':
        y = b.push(o, out, max(t.mag, 1.0) ** n)
    else:
        # The raw output stays out of the pool: only the clamp reads it.
        bound = float(max(1, math.ceil(t.mag)))
        y = scalar_op(b, 'MAXIMUM' if kind == 'MAX' else 'MINIMUM', T(o, out, t.mag, t.exact),
                      -bound if kind == 'MAX' else bound, note='empty segments')
    gpu_after(b, y, 'after unsorted_segment')
    return True


def op_embedding_lookup(b, name):
    """EMBEDDING_LOOKUP of rows of a float tensor of rank >= 2 the graph made, by ids in
    range (constant or computed; repeats likely)."""
    r = b.r
    t = gpu_input(b, lambda t: 2 <= len(t.shape) and numel(t.shape) <= 3000)
    if t is None:
        return False
    k = r.randint(1, 8)
    while k > 1 and numel([k] + t.shape[1:]) > 3000:
        k //= 2
    ids = index_tensor(b, [k], [t.shape[0]])
    out = [k] + t.shape[1:]
    o = b.add_op(name, [ids, t.idx], out)
    b.note(name, t.shape, '%d ids' % k)
    y = b.push(o, out, t.mag, t.exact, t.positive)
    gpu_after(b, y, 'after embedding_lookup')
    return True


def op_sparse_to_dense(b, name):
    """SPARSE_TO_DENSE into a constant shape (rank 1 to 4) of N values the graph made (or
    one scalar value) at indices in range (repeats: the later one stays), a constant
    default."""
    r = b.r
    rank = r.choice([1, 1, 2, 3, 4])
    dims = b.shape(rank=rank, small=True)
    n = r.randint(1, 8)
    if rank == 1:
        form = r.choice(['[N]', '[N,1]', 'scalar'])
        if form == 'scalar':
            n = 1
            idx = b.g.ints([r.randrange(dims[0])], [])
        else:
            idx = index_tensor(b, [n] if form == '[N]' else [n, 1], [dims[0]])
    else:
        form = '[N,%d]' % rank
        idx = index_tensor(b, [n, rank], dims)
    if r.random() < 0.8:
        v = source(b, [n], exact=r.random() < 0.5)
    else:
        t = gpu_input(b, lambda t: True)
        if t is None:
            return False
        v = scalar_of(b, t, 'sparse_to_dense value')
    dv = r.choice([0.0, -0.5, 1.0, 0.25])
    o = b.add_op(name, [idx, b.g.ints(dims), v.idx, b.g.tensor([], data=[dv])], dims)
    b.note(name, dims, 'indices ' + form + (' scalar value' if not v.shape else ''))
    y = b.push(o, dims, max(v.mag, 1.0), v.exact)
    gpu_after(b, y, 'after sparse_to_dense')
    return True


def op_dynamic_update_slice(b, name):
    """DYNAMIC_UPDATE_SLICE of a float tensor the graph made with an update the graph made
    (or a constant) at start indices constant (past either end too: clamped) or computed."""
    r = b.r
    t = gpu_input(b, lambda t: len(t.shape) >= 1 and numel(t.shape) <= 3000)
    if t is None:
        return False
    ushape = [r.randint(1, d) for d in t.shape]
    cands = [u for u in b.pool if u.kind == 'float' and u.shape == ushape and u is not t]
    if cands and r.random() < 0.4:
        u = r.choice(cands)
    elif r.random() < 0.8:
        u = source(b, ushape, exact=r.random() < 0.5)
    else:
        u = T(b.const(ushape, -2, 2), ushape, 2.0)
    if r.random() < 0.5:
        start = b.g.ints([r.randint(-2, d - e + 2) for d, e in zip(t.shape, ushape)])
        form = 'constant start'
    else:
        start = index_tensor(b, [len(t.shape)], [d - e + 1 for d, e in zip(t.shape, ushape)])
        form = 'computed start'
    o = b.add_op(name, [t.idx, u.idx, start], t.shape)
    b.note(name, t.shape, form)
    y = b.push(o, t.shape, max(t.mag, u.mag), t.exact and u.exact)
    gpu_after(b, y, 'after dynamic_update_slice')
    return True


def op_l2_pool(b, name):
    """L2_POOL_2D as op_pool draws AVERAGE_POOL_2D: [1, H, W, C], filters 1 to 3, strides,
    SAME or VALID, a fused activation."""
    t = b.pick(lambda t: numel(t.shape) >= 1)
    if t is None:
        return False
    t = b.tame(b.as_4d(t), 100)
    _, h, w, c = t.shape
    r = b.r
    fh, fw = r.choice([1, 2, 3]), r.choice([1, 2, 3])
    stride = r.choice([1, 2, 2])
    padding = r.choice(['SAME', 'VALID'])
    oh, ow = spatial_out(h, fh, stride, 1, padding), spatial_out(w, fw, stride, 1, padding)
    if oh <= 0 or ow <= 0:
        padding = 'SAME'
        oh, ow = spatial_out(h, fh, stride, 1, padding), spatial_out(w, fw, stride, 1, padding)
    act = r.choice(ACTS)
    o = b.add_op(name, [t.idx], [1, oh, ow, c], padding=padding, stride_w=stride, stride_h=stride,
                 filter_w=fw, filter_h=fh, activation=act)
    b.note(name, t.shape, 'f%dx%d s%d %s' % (fh, fw, stride, padding))
    b.classes.add((name, 'act ' + act))
    y = b.push(o, [1, oh, ow, c], t.mag)
    gpu_after(b, y, 'after l2_pool')
    return True


def op_fake_quant(b, name):
    """FAKE_QUANT of an exact tensor (so every precision hands it the same values: the grid's
    rounding steps) onto [min, max] grids of 2 to 16 bits, min and max either sign."""
    r = b.r
    t = gpu_input(b, lambda t: t.exact and numel(t.shape) <= 3000)
    if t is None:
        return False
    mn = r.choice([-2.0, -1.5, -1.0, -0.5, 0.0, 0.25, -6.0])
    mx = r.choice([0.5, 1.0, 1.5, 2.0, 3.0, 6.0, -0.25])
    if mx <= mn:
        mn, mx = mx - 1.0, mn + 1.0
        if mx <= mn:
            mn, mx = -1.0, 1.0
    bits = r.choice([8, 8, 2, 3, 4, 5, 7, 16])
    o = b.add_op(name, [t.idx], t.shape, min=mn, max=mx, num_bits=bits)
    b.note(name, t.shape, '%d bits' % bits)
    y = b.push(o, t.shape, max(abs(mn), abs(mx)) + 1)
    gpu_after(b, y, 'after fake_quant')
    return True


def op_range(b, name):
    """RANGE of constant scalars (float32 on the 1/8 grid, or int32 / int64, either direction)
    of as many values as a tensor's last axis, ADD with it after, sometimes."""
    r = b.r
    t = b.pick(lambda t: len(t.shape) >= 1 and t.shape[-1] <= 64)
    n = t.shape[-1] if t is not None and r.random() < 0.7 else r.randint(1, 9)
    if r.random() < 0.6:
        start = r.randint(-16, 16) / 8
        delta = r.choice([1, 2, 3, 5, -1, -2, -4]) / 8
        limit = start + delta * (n - 0.5)
        o = b.add_op(name, [b.g.tensor([], data=[start]), b.g.tensor([], data=[limit]),
                            b.g.tensor([], data=[delta])], [n])
        b.note(name, [n], 'float32 ' + ('ascending' if delta > 0 else 'descending'))
        y = b.push(o, [n], max(abs(start), abs(start + delta * (n - 1))) + 1e-3, exact=True)
    else:
        ttype = 'int32' if r.random() < 0.7 else 'int64'
        start = r.randint(-10, 10)
        delta = r.choice([1, 2, 3, -1, -2, -3])
        limit = start + delta * (n - 1) + (1 if delta > 0 else -1) * r.randint(1, abs(delta))
        o = b.add_op(name, [b.g.tensor([], ttype, [v]) for v in (start, limit, delta)], [n], ttype)
        b.note(name, [n], ttype + ' ' + ('ascending' if delta > 0 else 'descending'))
        y = b.push(o, [n], max(abs(start), abs(start + delta * (n - 1))), exact=True,
                   kind='int' if ttype == 'int32' else 'int64')
        if r.random() < 0.7:
            y = as_float(b, y, 'range')
    if y.kind == 'float' and t is not None and t.shape[-1] == n and r.random() < 0.7:
        a = b.add_op('ADD', [t.idx, y.idx], t.shape)
        b.note('ADD', t.shape, 'range')
        b.push(a, t.shape, t.mag + y.mag, t.exact)
    else:
        gpu_after(b, y, 'after range')
    return True


OPS = {}
for _n in UNARY:
    OPS[_n] = op_unary
for _n in DISCRETE_UNARY:
    OPS[_n] = op_discrete_unary
OPS['CAST'] = op_cast
for _n in ELTWISE:
    OPS[_n] = op_binary
OPS['PRELU'] = op_prelu
for _n in COMPARE:
    OPS[_n] = op_compare
for _n in ('LOGICAL_AND', 'LOGICAL_OR', 'LOGICAL_NOT', 'REDUCE_ANY'):
    OPS[_n] = op_logical
OPS['SELECT'] = OPS['SELECT_V2'] = op_select
OPS['FLOOR_DIV'] = OPS['FLOOR_MOD'] = op_floor_divmod
for _n in ('MEAN', 'SUM', 'REDUCE_MAX', 'REDUCE_MIN', 'REDUCE_PROD'):
    OPS[_n] = op_reduce
OPS['ARG_MAX'] = OPS['ARG_MIN'] = op_arg
OPS['CUMSUM'] = op_cumsum
OPS['TOPK_V2'] = op_topk
OPS['GATHER_ND'] = op_gather_nd
OPS['SCATTER_ND'] = op_scatter_nd
OPS['ONE_HOT'] = op_one_hot
OPS['NON_MAX_SUPPRESSION_V4'] = OPS['NON_MAX_SUPPRESSION_V5'] = op_nms
OPS['DETECTION_POSTPROCESS'] = op_detection
for _n in ('SOFTMAX', 'LOG_SOFTMAX', 'L2_NORMALIZATION', 'LOCAL_RESPONSE_NORMALIZATION'):
    OPS[_n] = op_norm
OPS['ADD_N'] = op_add_n
for _n in ('RESHAPE', 'SQUEEZE', 'EXPAND_DIMS'):
    OPS[_n] = op_reshape
OPS['TRANSPOSE'] = op_transpose
OPS['REVERSE_V2'] = op_reverse
OPS['CONCATENATION'] = op_concat
OPS['SPLIT'] = OPS['SPLIT_V'] = op_split
OPS['PACK'] = OPS['UNPACK'] = op_pack
OPS['TILE'] = OPS['BROADCAST_TO'] = op_tile
for _n in ('PAD', 'PADV2', 'MIRROR_PAD'):
    OPS[_n] = op_pad
OPS['SLICE'] = OPS['STRIDED_SLICE'] = op_slice
OPS['GATHER'] = op_gather
OPS['CONV_2D'] = OPS['DEPTHWISE_CONV_2D'] = op_conv
OPS['AVERAGE_POOL_2D'] = OPS['MAX_POOL_2D'] = op_pool
def block_squeeze_excite(b, name):
    """MobileNetV3's squeeze-excite block, for the gate pass: activations (a depthwise
    conv's, or an input of batch 1 or 2), a gate of one value per channel, their MUL (either
    operand order) and a convolution reading it (1x1 or 3x3, stride 1 or 2). The gate is the
    block's own (a MEAN or global AVERAGE_POOL_2D, two 1x1 convolutions, LOGISTIC or
    HARD_SWISH) where the batch is 1, which the squeeze pass runs in one dispatch (the pool's
    window sometimes the plane's top-left corner: SAME, a smaller filter, strides the
    extents), else from an input of shape [1, 1, 1, C] or [C]."""
    r = b.r
    n = r.choice([1, 1, 1, 2])
    h, w, c = r.choice([3, 4, 5, 7]), r.choice([3, 5, 6]), r.choice([1, 3, 4, 5, 8, 17])
    shape = [n, h, w, c]
    cur = b.new_input(shape).idx
    if r.random() < 0.5:
        cur = b.add_op('DEPTHWISE_CONV_2D', [cur, b.const([1, 3, 3, c], -0.5, 0.5),
                                             b.const([c], -0.2, 0.2)],
                       shape, padding='SAME', depth_multiplier=1)
        b.note('DEPTHWISE_CONV_2D', shape, 'squeeze-excite')
    if n == 1:
        if r.random() < 0.5:
            sq = b.add_op('MEAN', [cur, b.g.ints([1, 2])], [1, 1, 1, c], keep_dims=True)
            b.note('MEAN', shape, 'squeeze')
        elif r.random() < 0.7:
            sq = b.add_op('AVERAGE_POOL_2D', [cur], [1, 1, 1, c], padding='VALID', stride_w=1,
                          stride_h=1, filter_w=w, filter_h=h, activation='NONE')
            b.note('AVERAGE_POOL_2D', shape, 'squeeze')
        else:
            sq = b.add_op('AVERAGE_POOL_2D', [cur], [1, 1, 1, c], padding='SAME', stride_w=w,
                          stride_h=h, filter_w=r.randint(1, w), filter_h=r.randint(1, h),
                          activation='NONE')
            b.note('AVERAGE_POOL_2D', shape, 'squeeze, a corner window')
        mid = r.choice([1, 2, 4, 5, 9])
        sq = b.add_op('CONV_2D', [sq, b.const([mid, 1, 1, c], -0.5, 0.5), b.const([mid], -0.2, 0.2)],
                      [1, 1, 1, mid], padding='VALID', activation=r.choice(['RELU', 'RELU', 'RELU6', 'NONE']))
        gate = b.add_op('CONV_2D', [sq, b.const([c, 1, 1, mid], -0.5, 0.5), b.const([c], -0.2, 0.2)],
                        [1, 1, 1, c], padding='VALID')
        gshape = [1, 1, 1, c]
        b.note('CONV_2D', gshape, 'squeeze-excite')
    else:
        gshape = r.choice([[1, 1, 1, c], [c]])
        gate = b.new_input(gshape).idx
    act = r.choice(['LOGISTIC', 'HARD_SWISH'])
    gate = b.add_op(act, [gate], gshape)
    b.note(act, gshape, 'gate')
    cur = b.add_op('MUL', [cur, gate] if r.random() < 0.5 else [gate, cur], shape)
    b.note('MUL', shape, 'gate, then conv')
    k, stride = r.choice([1, 1, 3]), r.choice([1, 1, 2])
    oc = r.choice([c, c + r.randint(1, 6)])
    oh, ow = spatial_out(h, k, stride, 1, 'SAME'), spatial_out(w, k, stride, 1, 'SAME')
    cur = b.add_op('CONV_2D', [cur, b.const([oc, k, k, c], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                   [n, oh, ow, oc], padding='SAME', stride_w=stride, stride_h=stride,
                   activation=r.choice(ACTS))
    b.note('CONV_2D', shape, 'after a gate')
    b.push(cur, [n, oh, ow, oc], 8.0)
    return True


def block_downsample(b, name):
    """BlazeFace's downsampling block, for dw_pw's late pair: a stride-2 depthwise conv (3x3
    or 5x5, SAME), a 1x1 conv after it, and a shortcut of the block's input through a 2x2
    stride-2 MAX_POOL_2D (SAME, so its plane is the depthwise op's), zero-padded in channels
    where the 1x1 widens, ADDed to the 1x1's output. The pool is written before the
    depthwise op, between it and the 1x1, or after the 1x1. pool_residual folds the pool
    into the 1x1's residual read (batch 1); where the pool's output is read again, the pool
    stays, and written after the depthwise op it makes dw_pw emit the pair where the 1x1
    stood. Batch 1, sometimes 2; odd and even planes."""
    r = b.r
    n = r.choice([1, 1, 1, 2])
    h, w, c = r.choice([3, 4, 5, 7, 9]), r.choice([3, 5, 6, 8]), r.choice([1, 3, 4, 5, 8, 17])
    x = b.new_input([n, h, w, c]).idx
    k = r.choice([3, 5])
    oh, ow = spatial_out(h, k, 2, 1, 'SAME'), spatial_out(w, k, 2, 1, 'SAME')
    oc = r.choice([c, c + r.randint(1, 6)])
    shape = [n, oh, ow, oc]
    at = r.choice(['before', 'between', 'after'])

    def pool():
        b.note('MAX_POOL_2D', [n, h, w, c], 'downsampling shortcut, ' + at)
        return b.add_op('MAX_POOL_2D', [x], [n, oh, ow, c], padding='SAME', stride_w=2,
                        stride_h=2, filter_w=2, filter_h=2, activation='NONE')
    sc = pool() if at == 'before' else None
    cur = b.add_op('DEPTHWISE_CONV_2D', [x, b.const([1, k, k, c], -0.5, 0.5), b.const([c], -0.2, 0.2)],
                   [n, oh, ow, c], padding='SAME', stride_w=2, stride_h=2, depth_multiplier=1,
                   activation=r.choice(['NONE', 'RELU']))
    b.note('DEPTHWISE_CONV_2D', [n, h, w, c], 'downsampling k%d' % k)
    if at == 'between':
        sc = pool()
    cur = b.add_op('CONV_2D', [cur, b.const([oc, 1, 1, c], -0.5, 0.5), b.const([oc], -0.2, 0.2)],
                   shape, padding='VALID')
    b.note('CONV_2D', [n, oh, ow, c], 'downsampling 1x1')
    if at == 'after':
        sc = pool()
    pooled = sc
    if oc > c:
        sc = b.add_op('PAD', [sc, b.g.ints([0, 0, 0, 0, 0, 0, 0, oc - c], [4, 2])], shape)
        b.note('PAD', shape, 'channel, then ADD')
    cur = b.add_op('ADD', [cur, sc] if r.random() < 0.5 else [sc, cur], shape,
                   activation=r.choice(['NONE', 'RELU']))
    b.note('ADD', shape, 'downsampling residual')
    b.push(cur, shape, 8.0)
    if r.random() < 0.25:
        # The pool's output read again (or a graph output): pool_residual leaves the pool,
        # and where it is written after the depthwise op, dw_pw's pair goes late.
        b.push(pooled, [n, oh, ow, c], 4.0)
    return True


OPS['RESIZE_BILINEAR'] = OPS['RESIZE_NEAREST_NEIGHBOR'] = op_resize
OPS['SPACE_TO_DEPTH'] = OPS['DEPTH_TO_SPACE'] = op_space_depth
OPS['TRANSPOSE_CONV'] = op_tconv
OPS['SPACE_TO_BATCH_ND'] = OPS['BATCH_TO_SPACE_ND'] = op_space_batch
OPS['FULLY_CONNECTED'] = op_fc
OPS['BATCH_MATMUL'] = op_bmm
OPS['QUANTIZE'] = OPS['DEQUANTIZE'] = op_quant
BLOCKS = {'attention': block_attention, 'unfold': block_unfold, 'fan': block_fan,
          'residual': op_residual}
OPS['CONVOLUTION_2D_TRANSPOSE_BIAS'] = op_tconv_bias
BLOCKS['convnet'] = block_convnet
BLOCKS['channel_pad'] = block_channel_pad
BLOCKS['squeeze_excite'] = block_squeeze_excite
BLOCKS['downsample'] = block_downsample
# The CPU ops of cpu_misc.c, cpu_index.c, cpu_reduce.c, fft.c, conv3d.c and bucketize.c.
OPS['ATAN2'] = op_atan2
OPS['ZEROS_LIKE'] = op_zeros_like
OPS['FILL'] = op_fill
OPS['RANK'] = op_rank
OPS['SHAPE'] = op_shape
OPS['BROADCAST_ARGS'] = op_broadcast_args
OPS['REDUCE_ALL'] = op_reduce_all
OPS['BUCKETIZE'] = op_bucketize
for _n in ('RFFT2D', 'COMPLEX_ABS', 'REAL', 'IMAG'):
    OPS[_n] = op_rfft2d
OPS['CONV_3D'] = OPS['CONV_3D_TRANSPOSE'] = op_conv3d
OPS['REVERSE_SEQUENCE'] = op_reverse_sequence
OPS['MATRIX_DIAG'] = OPS['MATRIX_SET_DIAG'] = op_matrix_diag
OPS['SEGMENT_SUM'] = op_segment_sum
for _n in ('SUM', 'PROD', 'MAX', 'MIN'):
    OPS['UNSORTED_SEGMENT_' + _n] = op_unsorted_segment
OPS['EMBEDDING_LOOKUP'] = op_embedding_lookup
OPS['SPARSE_TO_DENSE'] = op_sparse_to_dense
OPS['DYNAMIC_UPDATE_SLICE'] = op_dynamic_update_slice
OPS['L2_POOL_2D'] = op_l2_pool
OPS['FAKE_QUANT'] = op_fake_quant
OPS['RANGE'] = op_range
OP_NAMES = sorted(OPS)
# Ops of engine/ops/op_list.h the generator never makes, and what holds each to TFLite instead.
NOT_GENERATED = (
    # Several subgraphs and state across runs: one graph of one subgraph cannot hold them
    # (tests/test_control.c runs the control_* op models: signatures, loops, branches,
    # variables over 10 calls).
    ['IF', 'WHILE', 'CALL_ONCE', 'VAR_HANDLE', 'READ_VARIABLE', 'ASSIGN_VARIABLE'] +
    # Variable tensors, which LiteRT refuses to load: the rnn_* op models, against TFLite's
    # classic interpreter over several calls (tests/op_models/specs_recurrent.py).
    ['LSTM', 'UNIDIRECTIONAL_SEQUENCE_LSTM', 'BIDIRECTIONAL_SEQUENCE_LSTM', 'SVDF', 'RNN',
     'UNIDIRECTIONAL_SEQUENCE_RNN', 'BIDIRECTIONAL_SEQUENCE_RNN'] +
    # MediaPipe's ops, which LiteRT does not register: tests/test_mediapipe_ops.c.
    ['MAX_POOLING_WITH_ARGMAX_2D', 'MAX_UNPOOLING_2D', 'TRANSFORM_TENSOR_BILINEAR',
     'LANDMARKS_TO_TRANSFORM_MATRIX', 'TRANSFORM_LANDMARKS'])


def generate(seed, n_ops=None):
    b = Builder(seed)
    r = b.r
    for _ in range(r.choice([1, 1, 1, 2, 2, 3])):
        b.new_input(b.shape())
    focus = [OP_NAMES[(seed * 9 + k) % len(OP_NAMES)] for k in range(9)]
    # The focus ops, two blocks (the structures the passes look for: with one, the passes
    # that a single block makes fire in fewer than 20 of the 200 CI graphs) and a few more.
    steps = len(focus) + 2 + (n_ops if n_ops is not None else r.randint(0, 3))
    plan = list(focus) + ['block:' + name for name in r.sample(sorted(BLOCKS), 2)]
    while len(plan) < steps:
        if r.random() < 0.25:
            plan.append('block:' + r.choice(sorted(BLOCKS)))
        else:
            plan.append(r.choice(OP_NAMES))
    r.shuffle(plan)
    for name in plan:
        # Past 40 ops only the focus ops still come (up to 60), so each op is drawn in
        # about as many graphs of a run of seeds as the next.
        if len(b.g.ops) > 40 and (name not in focus or len(b.g.ops) > 60):
            continue
        if name.startswith('block:'):
            BLOCKS[name[6:]](b, name[6:])
        elif not OPS[name](b, name) and name in focus:
            # No operand fits (no exact tensor, no rank >= 2, ...): a fresh input, again.
            for _ in range(3):
                b.new_input([1, r.randint(4, 7), r.randint(4, 7), r.choice([1, 3, 4, 5, 8])])
                if OPS[name](b, name):
                    break
    # Every tensor no op reads is an output (index and bool tensors through CAST).
    outs = []
    for t in b.pool:
        if b.readers.get(t.idx, 0) == 0 and t.idx not in b.g.inputs:
            outs.append(t)
    if not outs:
        # Only inputs: make one op so the graph does something.
        t = b.pool[-1]
        o = b.add_op('NEG', [t.idx], t.shape)
        b.note('NEG', t.shape)
        outs = [b.push(o, t.shape, t.mag)]
    if len(outs) > 8:
        outs = outs[-8:]
    for t in outs:
        idx = t.idx
        if t.kind != 'float':
            idx = b.add_op('CAST', [idx], t.shape)
            b.note('CAST', t.shape, t.kind + '->float32')
        b.g.outputs.append(idx)
    # Inputs nobody reads stay inputs (LiteRT and vkinfer both allow it).
    rng = random.Random(seed * 7919 + 1)
    inputs = []
    for t in b.g.inputs:
        n = numel(b.g.tensors[t]['shape'])
        inputs.append([math.floor(rng.uniform(-2, 2) / INPUT_STEP) * INPUT_STEP for _ in range(n)])
    spec = b.g.spec()
    spec['description'] = 'vkinfer graph tester seed %d' % seed
    # float16 holds 11 bits: past a magnitude of 256 one rounding moves a value by 0.125, and
    # a residual that cancels such values (m + (c - m), seed 400533: SUM of 1920 elements)
    # leaves that error on a result near 1. Graphs whose tensors may grow so large (by the
    # bound tracked per tensor) are checked in fp32 only.
    fp16_ok = b.fp16_ok and max(t.mag for t in b.pool) <= 256
    return Case('g%d' % seed, spec, inputs, b.used_ops, sorted(b.classes), fp16_ok, b.int8)


if __name__ == '__main__':
    import json
    c = generate(int(sys.argv[1]))
    print(json.dumps({'ops': c.ops, 'classes': c.classes, 'spec_ops': [o.get('op') for o in c.spec['ops']]}, indent=1))
