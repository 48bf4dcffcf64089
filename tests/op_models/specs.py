"""specs.py: the small models of tests/data/op_models, one op family each (plus three
blocks from current practice), written with tests/tflite_writer.py and checked against
LiteRT by tests/test_op_models.c. Graph inputs and outputs are float32 (vkinfer's graph I/O);
int32 and bool tensors are made inside the graph with CAST and comparisons.

MODELS is a list of (name, builder); a builder fills a Graph. A model's group is its name
up to the first '_' (the Criterion test that runs it); a name ending in '_exact' is compared
exactly in fp32 and skipped in fp16 (integer outputs that fp16 inputs would move), one
ending in '_fp32' is skipped in fp16 (values float16 cannot hold). Inputs drawn with a
`step` are multiples of it, which makes ties (ARG_MAX, EQUAL, ROUND's halves) common.
"""
import random


# Ops whose first version TFLite's op resolver does not register.
VERSIONS = {'BROADCAST_TO': 2}


class Graph:
    def __init__(self, seed, name=None):
        self.rng = random.Random(seed)
        self.tensors, self.ops, self.inputs, self.outputs, self.ranges = [], [], [], [], []
        self.input_transform = {}     # input tensor -> function applied to each drawn value
        # Control models (make.py): subgraph 0's name, subgraphs 1, 2, ... (Graphs of their
        # own; only the main graph has them), signature defs (run by name, one set of
        # files per signature), and calls: that many runs in one interpreter (state kept
        # in resource variables), then call `reset_from`'s inputs in a fresh interpreter.
        self.name = name
        self.subgraphs, self.signature_defs = [], []
        self.calls, self.reset_from = None, None

    def tensor(self, shape, ttype='float32', data=None, name=None):
        t = {'name': name or 't%d' % len(self.tensors), 'shape': list(shape), 'type': ttype}
        if data is not None:
            t['data'] = list(data)
        self.tensors.append(t)
        return len(self.tensors) - 1

    def input(self, shape, lo=-1.0, hi=1.0, step=None, ttype='float32', name=None):
        """A graph input drawn uniformly from [lo, hi); with `step`, rounded down to a multiple
        of it (exact in float32 and float16 for a power-of-two step), so ties are common.
        (In a subgraph other than 0 only signatures' inputs are drawn.)"""
        t = self.tensor(shape, ttype, name=name or 'in%d' % len(self.inputs))
        self.inputs.append(t)
        self.ranges.append((lo, hi))
        if step is not None:
            self.input_transform[t] = lambda v: (v // step) * step
        return t

    def const(self, shape, lo=-1.0, hi=1.0):
        n = 1
        for d in shape:
            n *= d
        return self.tensor(shape, data=[self.rng.uniform(lo, hi) for _ in range(n)])

    def ints(self, values, shape=None):
        return self.tensor(shape if shape is not None else [len(values)], 'int32', values)

    def op(self, name, inputs, shapes, ttype='float32', no_options=False, **options):
        """Adds op `name` making one output per shape; returns its index, or a list.
        no_options: the op has no options table at all (the schema's defaults apply)."""
        single = not isinstance(shapes[0], (list, tuple)) if shapes else False
        outs = [self.tensor(s, ttype) for s in ([shapes] if single else shapes)]
        op = {'op': name, 'inputs': list(inputs), 'outputs': outs, 'options': options,
              'version': VERSIONS.get(name, 1)}
        if no_options:
            op.update(options_type=0, options_fields=[])
        self.ops.append(op)
        return outs[0] if single else outs

    def output(self, t, shape=None, raw=False):
        """Makes t a graph output, through CAST to float32 when it is not float (rank 0
        included), unless raw (a control-flow subgraph's outputs keep their type)."""
        if self.tensors[t]['type'] != 'float32' and not raw:
            t = self.op('CAST', [t], [self.tensors[t]['shape'] if shape is None else shape])[0]
        self.outputs.append(t)

    def subgraph(self, name):
        """A new subgraph (1, 2, ... in the order made): returns (its index, its Graph)."""
        sub = Graph(self.rng.randrange(1 << 30), name)
        self.subgraphs.append(sub)
        return len(self.subgraphs), sub

    def graph(self, index):
        return self if index == 0 else self.subgraphs[index - 1]

    def signature(self, key, index, inputs, outputs):
        """A signature over subgraph `index`: inputs and outputs are [(name, tensor)], in the
        signature's own order."""
        self.signature_defs.append({
            'signature_key': key, 'subgraph_index': index,
            'inputs': [{'name': n, 'tensor_index': t} for n, t in inputs],
            'outputs': [{'name': n, 'tensor_index': t} for n, t in outputs]})

    def spec(self):
        s = {'tensors': self.tensors, 'ops': self.ops, 'inputs': self.inputs,
             'outputs': self.outputs}
        if self.name:
            s['name'] = self.name
        if self.subgraphs:
            s['subgraphs'] = [sub.spec() for sub in self.subgraphs]
        if self.signature_defs:
            s['signature_defs'] = self.signature_defs
        return s


def shape_of(g, t):
    return g.tensors[t]['shape']


def op_typed(g, name, inputs, outs, **options):
    """An op whose outputs differ in type (TOPK_V2, NON_MAX_SUPPRESSION_V5): outs is
    [(shape, type)]; returns the list of outputs."""
    ts = g.op(name, inputs, [list(shape) for shape, _ in outs], **options)
    for t, (_, ttype) in zip(ts, outs):
        g.tensors[t]['type'] = ttype
    return ts


# ---- unary ---------------------------------------------------------------------------------

def unary(op, shape, lo=-3.0, hi=3.0, **options):
    def build(g):
        x = g.input(shape, lo, hi)
        g.output(g.op(op, [x], shape, **options))
    return build


def cast_round_trip(g):
    x = g.input([1, 5, 3, 17], -5, 5)
    i = g.op('CAST', [x], [1, 5, 3, 17], 'int32')
    g.output(g.op('CAST', [i], [1, 5, 3, 17]))


def cast_halves(g):
    """CAST float32 -> int32 on multiples of 0.25 (halves and negatives included)."""
    x = g.input([3, 5, 17], -6, 6, step=0.25)
    g.output(g.op('CAST', [x], [3, 5, 17], 'int32'))


def round_ties(g):
    """ROUND on multiples of 0.5: half of the values are ties."""
    x = g.input([1, 7, 5, 5], -6, 6, step=0.5)
    g.output(g.op('ROUND', [x], [1, 7, 5, 5]))


def gelu_default(g):
    """GELU with no options table: what a reader must assume for `approximate`."""
    x = g.input([1, 9, 17], -4, 4)
    g.output(g.op('GELU', [x], [1, 9, 17], no_options=True))


# ---- binary --------------------------------------------------------------------------------

def binary(op, a, b, out, lo=-2.0, hi=2.0, const_b=False, **options):
    def build(g):
        x = g.input(a, lo, hi)
        y = g.const(b, lo, hi) if const_b else g.input(b, lo, hi)
        g.output(g.op(op, [x, y], out, **options))
    return build


def compare_select(op):
    def build(g):
        x = g.input([2, 3, 5, 5], -2, 2)
        y = g.input([1, 1, 5, 1], -2, 2)
        mask = g.op(op, [x, y], [2, 3, 5, 5], 'bool')
        z = g.const([5], -1, 1)
        g.output(g.op('SELECT_V2', [mask, x, z], [2, 3, 5, 5]))
    return build


def compare_exact(op):
    """The comparison's bool output itself (CAST to float32) on multiples of 0.25, so equal
    values are common, and the SELECT_V2 it drives between two inputs."""
    def build(g):
        x = g.input([2, 3, 5, 5], -1, 1, step=0.25)
        y = g.input([1, 1, 5, 1], -1, 1, step=0.25)
        mask = g.op(op, [x, y], [2, 3, 5, 5], 'bool')
        g.output(mask)
        g.output(g.op('SELECT_V2', [mask, x, y], [2, 3, 5, 5]))
    return build


def pow_positive(g):
    x = g.input([1, 7, 5, 3], 0.2, 3)
    y = g.input([1, 1, 5, 3], -2, 2)
    g.output(g.op('POW', [x, y], [1, 7, 5, 3]))


# ---- reductions ----------------------------------------------------------------------------

def reduce(op, shape, axes, out, keep=False, lo=-1.0, hi=1.0):
    def build(g):
        x = g.input(shape, lo, hi)
        g.output(g.op(op, [x, g.ints(axes)], out, keep_dims=keep))
    return build


def arg(op, shape, axis, out):
    """Ties: the input is floored to a few integers first, so equal maxima are common."""
    def build(g):
        x = g.input(shape, 0, 4)
        f = g.op('FLOOR', [x], shape)
        i = g.op(op, [f, g.ints([axis], [])], out, 'int32', output_type=2)
        g.output(i)
    return build


def l2_tiny(g):
    """L2_NORMALIZATION on rows scaled down to norms below TFLite's epsilon (and a zero row);
    a float32-only model: float16 cannot hold these values."""
    x = g.input([1, 5, 3, 17])
    scales = [1.0, 1e-3, 1e-6, 1e-7, 3e-8, 0.0] * 3
    s = g.op('MUL', [x, g.tensor([1, 5, 3, 1], data=scales[:15])], [1, 5, 3, 17])
    g.output(g.op('L2_NORMALIZATION', [s], [1, 5, 3, 17]))


def cumsum(shape, axis, exclusive, reverse):
    def build(g):
        x = g.input(shape)
        g.output(g.op('CUMSUM', [x, g.ints([axis], [])], shape, exclusive=exclusive,
                      reverse=reverse))
    return build


# ---- layout --------------------------------------------------------------------------------

def transpose(shape, perm):
    def build(g):
        x = g.input(shape)
        g.output(g.op('TRANSPOSE', [x, g.ints(perm)], [shape[p] for p in perm]))
    return build


def split(g):
    x = g.input([1, 9, 5, 6])
    for t in g.op('SPLIT', [g.ints([1], []), x], [[1, 3, 5, 6]] * 3, num_splits=3):
        g.output(t)


def split_v(g):
    x = g.input([2, 3, 17])
    for t in g.op('SPLIT_V', [x, g.ints([5, -1, 3]), g.ints([2], [])],
                  [[2, 3, 5], [2, 3, 9], [2, 3, 3]], num_splits=3):
        g.output(t)


def pack_unpack(g):
    a, b = g.input([3, 5]), g.input([3, 5])
    p = g.op('PACK', [a, b, g.const([3, 5])], [3, 3, 5], values_count=3, axis=1)
    for t in g.op('UNPACK', [p], [[3, 5]] * 3, num=3, axis=1):
        g.output(g.op('ABS', [t], [3, 5]))
    g.output(p)


def many_outputs(g):
    """Ops with more outputs than one dispatch binds: UNPACK into 12 (rank 3, the middle
    axis), SPLIT into 9 along C and SPLIT_V into 6 at batch 2, each output read by an op."""
    x = g.input([3, 12, 5])
    for t in g.op('UNPACK', [x], [[3, 5]] * 12, num=12, axis=1):
        g.output(g.op('ABS', [t], [3, 5]))
    y = g.input([1, 5, 3, 27])
    for t in g.op('SPLIT', [g.ints([3], []), y], [[1, 5, 3, 3]] * 9, num_splits=9):
        g.output(t)
    z = g.input([2, 7, 5, 3])
    sizes = [1, 2, 1, 1, 1, 1]
    for t in g.op('SPLIT_V', [z, g.ints(sizes), g.ints([1], [])], [[2, n, 5, 3] for n in sizes],
                  num_splits=6):
        g.output(t)


def many_inputs(g):
    """Ops with more inputs than one dispatch binds, which the loader chains: CONCATENATION
    of 20 inputs along C (concat.comp binds 15) and of 11 along the batch (remap binds 8),
    PACK of 11 and ADD_N of 13, a constant among the inputs of each."""
    xs = [g.input([1, 3, 5, c]) for c in (1, 3, 5, 2, 1, 7, 1, 3, 2, 4)]
    ins = xs + [g.const([1, 3, 5, 2])] + xs[:9]
    g.output(g.op('CONCATENATION', ins, [1, 3, 5, sum(g.tensors[t]['shape'][3] for t in ins)],
                  axis=3))
    ys = [g.input([n, 2, 3]) for n in (1, 2, 1, 3, 1)]
    ins = ys + [g.const([2, 2, 3])] + ys
    g.output(g.op('CONCATENATION', ins, [sum(g.tensors[t]['shape'][0] for t in ins), 2, 3],
                  axis=0))
    zs = [g.input([3, 5]) for _ in range(5)]
    ins = zs + [g.const([3, 5])] + zs
    g.output(g.op('PACK', ins, [3, 11, 5], values_count=11, axis=1))
    ins = zs + [g.const([3, 5])] + zs + zs[:2]
    g.output(g.op('ADD_N', ins, [3, 5]))


def tile_broadcast(g):
    x = g.input([1, 3, 1, 5])
    g.output(g.op('TILE', [x, g.ints([2, 1, 3, 1])], [2, 3, 3, 5]))
    g.output(g.op('BROADCAST_TO', [x, g.ints([2, 3, 4, 5])], [2, 3, 4, 5]))


def squeeze_expand(g):
    x = g.input([1, 7, 1, 5])
    s = g.op('SQUEEZE', [x], [7, 5])
    e = g.op('EXPAND_DIMS', [s, g.ints([0], [])], [1, 7, 5])
    g.output(g.op('RESHAPE', [e, g.ints([1, 7, 5, 1, 1])], [1, 7, 5, 1, 1]))


def mirror_pad(mode):
    def build(g):
        x = g.input([1, 5, 4, 3])
        extra = 1 if mode == 'SYMMETRIC' else 0
        pads = [0, 0, 2, 1 + extra, 3, 1, 0, 0]
        out = [1, 5 + 3 + extra, 4 + 4, 3]
        g.output(g.op('MIRROR_PAD', [x, g.ints(pads, [4, 2])], out, mode=mode))
    return build


def padv2(g):
    x = g.input([2, 5, 3])
    g.output(g.op('PADV2', [x, g.ints([1, 0, 0, 2, 3, 1], [3, 2]), g.tensor([], data=[0.75])],
                  [3, 7, 7]))


def gather(axis, indices, shape, out):
    def build(g):
        x = g.input(shape)
        g.output(g.op('GATHER', [x, g.ints(indices)], out, axis=axis))
    return build


def space_batch(g):
    x = g.input([1, 7, 5, 3])
    s = g.op('SPACE_TO_BATCH_ND', [x, g.ints([2, 3]), g.ints([1, 0, 2, 2], [2, 2])], [6, 4, 3, 3])
    g.output(s)
    g.output(g.op('BATCH_TO_SPACE_ND', [s, g.ints([2, 3]), g.ints([1, 0, 2, 2], [2, 2])],
                  [1, 7, 5, 3]))


def atrous(kind):
    """Older converters' dilated convolution: SPACE_TO_BATCH_ND, a VALID convolution on
    the blocks, BATCH_TO_SPACE_ND (with a crop)."""
    def build(g):
        x = g.input([1, 13, 11, 5])
        block, pads, crops = g.ints([2, 2]), g.ints([2, 3, 2, 3], [2, 2]), g.ints([0, 1, 0, 1], [2, 2])
        s = g.op('SPACE_TO_BATCH_ND', [x, block, pads], [4, 9, 8, 5])
        if kind == 'conv':
            c = g.op('CONV_2D', [s, g.const([7, 3, 3, 5]), g.const([7], -0.2, 0.2)], [4, 7, 6, 7],
                     padding='VALID')
            cout = 7
        else:
            c = g.op('DEPTHWISE_CONV_2D', [s, g.const([1, 3, 3, 5]), g.const([5], -0.2, 0.2)],
                     [4, 7, 6, 5], padding='VALID')
            cout = 5
        g.output(g.op('BATCH_TO_SPACE_ND', [c, block, crops], [1, 13, 11, cout]))
    return build


# ---- matrix products ------------------------------------------------------------------------

def batch_matmul(a, b, out, adj_x=False, adj_y=False, const_b=False):
    def build(g):
        x = g.input(a)
        y = g.const(b) if const_b else g.input(b)
        g.output(g.op('BATCH_MATMUL', [x, y], out, adj_x=adj_x, adj_y=adj_y))
    return build


def fully_connected(shape, out, keep):
    def build(g):
        x = g.input(shape)
        g.output(g.op('FULLY_CONNECTED', [x, g.const([5, shape[-1]]), g.const([5], -0.2, 0.2)], out,
                      keep_num_dims=keep))
    return build


# ---- blocks ---------------------------------------------------------------------------------

def layer_norm(g, x, shape):
    d = shape[-1]
    mean = g.op('MEAN', [x, g.ints([len(shape) - 1])], shape[:-1] + [1], keep_dims=True)
    var = g.op('MEAN', [g.op('SQUARED_DIFFERENCE', [x, mean], shape), g.ints([len(shape) - 1])],
               shape[:-1] + [1], keep_dims=True)
    inv = g.op('RSQRT', [g.op('ADD', [var, g.tensor([], data=[1e-5])], shape[:-1] + [1])],
               shape[:-1] + [1])
    centred = g.op('SUB', [x, mean], shape)
    return g.op('ADD', [g.op('MUL', [g.op('MUL', [centred, inv], shape), g.const([d], 0.8, 1.2)],
                             shape), g.const([d], -0.1, 0.1)], shape)


def transformer(g):
    """A ViT encoder block on [1,9,16]: LayerNorm, 2-head attention (q, k, v by
    FULLY_CONNECTED, heads split by RESHAPE and TRANSPOSE, BATCH_MATMUL, SOFTMAX), residual,
    LayerNorm, GELU MLP, residual."""
    x = g.input([1, 9, 16])
    h = layer_norm(g, x, [1, 9, 16])

    def heads(t):
        r = g.op('RESHAPE', [t, g.ints([1, 9, 2, 8])], [1, 9, 2, 8])
        return g.op('TRANSPOSE', [r, g.ints([0, 2, 1, 3])], [1, 2, 9, 8])
    q, k, v = [heads(g.op('FULLY_CONNECTED', [h, g.const([16, 16], -0.3, 0.3), g.const([16], -0.1, 0.1)],
                          [1, 9, 16], keep_num_dims=True)) for _ in range(3)]
    s = g.op('BATCH_MATMUL', [q, k], [1, 2, 9, 9], adj_y=True)
    s = g.op('MUL', [s, g.tensor([], data=[8 ** -0.5])], [1, 2, 9, 9])
    a = g.op('SOFTMAX', [s], [1, 2, 9, 9], beta=1.0)
    o = g.op('BATCH_MATMUL', [a, v], [1, 2, 9, 8])
    o = g.op('RESHAPE', [g.op('TRANSPOSE', [o, g.ints([0, 2, 1, 3])], [1, 9, 2, 8]),
                         g.ints([1, 9, 16])], [1, 9, 16])
    o = g.op('FULLY_CONNECTED', [o, g.const([16, 16], -0.3, 0.3), g.const([16], -0.1, 0.1)],
             [1, 9, 16], keep_num_dims=True)
    x2 = g.op('ADD', [x, o], [1, 9, 16])
    h2 = layer_norm(g, x2, [1, 9, 16])
    m = g.op('FULLY_CONNECTED', [h2, g.const([32, 16], -0.3, 0.3), g.const([32], -0.1, 0.1)],
             [1, 9, 32], keep_num_dims=True)
    m = g.op('GELU', [m], [1, 9, 32])
    m = g.op('FULLY_CONNECTED', [m, g.const([16, 32], -0.3, 0.3), g.const([16], -0.1, 0.1)],
             [1, 9, 16], keep_num_dims=True)
    g.output(g.op('ADD', [x2, m], [1, 9, 16]))


def shuffle(g):
    """ShuffleNetV2's channel shuffle between two branches, then the split."""
    x = g.input([1, 7, 5, 12])
    r = g.op('RESHAPE', [x, g.ints([1, 7, 5, 2, 6])], [1, 7, 5, 2, 6])
    t = g.op('TRANSPOSE', [r, g.ints([0, 1, 2, 4, 3])], [1, 7, 5, 6, 2])
    s = g.op('RESHAPE', [t, g.ints([1, 7, 5, 12])], [1, 7, 5, 12])
    for part in g.op('SPLIT', [g.ints([3], []), s], [[1, 7, 5, 6]] * 2, num_splits=2):
        g.output(part)


def keyword_spotting(g):
    """A keyword-spotting front on a rank-3 [1,49,10] feature input."""
    x = g.input([1, 49, 10])
    e = g.op('EXPAND_DIMS', [x, g.ints([3], [])], [1, 49, 10, 1])
    c = g.op('CONV_2D', [e, g.const([8, 5, 3, 1], -0.5, 0.5), g.const([8], -0.1, 0.1)], [1, 23, 8, 8],
             padding='VALID', stride_h=2, stride_w=1, activation='RELU')
    r = g.op('RESHAPE', [c, g.ints([1, 23, 64])], [1, 23, 64])
    m = g.op('MEAN', [r, g.ints([1])], [1, 64])
    f = g.op('FULLY_CONNECTED', [m, g.const([12, 64], -0.3, 0.3), g.const([12], -0.1, 0.1)], [1, 12])
    g.output(g.op('SOFTMAX', [f], [1, 12], beta=1.0))


def mobilevit(g):
    """MobileViT's unfold / fold around a transformer layer: [1,8,6,4] in 2x2 patches becomes
    [4 patch positions, 12 patches, 4 channels] through rank-4 transposes with batch > 1,
    LayerNorm and an MLP run on that batch-4 tensor, and the fold puts it back."""
    x = g.input([1, 8, 6, 4])

    def chain(t, steps):
        for kind, arg, shape in steps:
            t = g.op(kind, [t, g.ints(arg)], shape)
        return t
    u = chain(x, [('TRANSPOSE', [0, 3, 1, 2], [1, 4, 8, 6]), ('RESHAPE', [16, 2, 3, 2], [16, 2, 3, 2]),
                  ('TRANSPOSE', [0, 2, 1, 3], [16, 3, 2, 2]), ('RESHAPE', [1, 4, 12, 4], [1, 4, 12, 4]),
                  ('TRANSPOSE', [0, 3, 2, 1], [1, 4, 12, 4]), ('RESHAPE', [4, 12, 4], [4, 12, 4])])
    h = layer_norm(g, u, [4, 12, 4])
    m = g.op('FULLY_CONNECTED', [h, g.const([8, 4], -0.5, 0.5), g.const([8], -0.1, 0.1)], [4, 12, 8],
             keep_num_dims=True)
    m = g.op('FULLY_CONNECTED', [g.op('GELU', [m], [4, 12, 8]), g.const([4, 8], -0.5, 0.5),
                                 g.const([4], -0.1, 0.1)], [4, 12, 4], keep_num_dims=True)
    v = g.op('ADD', [u, m], [4, 12, 4])
    f = chain(v, [('RESHAPE', [1, 4, 12, 4], [1, 4, 12, 4]), ('TRANSPOSE', [0, 3, 2, 1], [1, 4, 12, 4]),
                  ('RESHAPE', [16, 3, 2, 2], [16, 3, 2, 2]), ('TRANSPOSE', [0, 2, 1, 3], [16, 2, 3, 2]),
                  ('RESHAPE', [1, 4, 8, 6], [1, 4, 8, 6]), ('TRANSPOSE', [0, 2, 3, 1], [1, 8, 6, 4])])
    g.output(g.op('CONV_2D', [f, g.const([6, 1, 1, 4]), g.const([6], -0.1, 0.1)], [1, 8, 6, 6],
                  padding='SAME'))


# ---- cases added after the first 75 (appended: the seeds follow the index in MODELS) ------

def div_rank0(g):
    """DIV by a rank-0 graph input (a scalar tensor), divisor kept away from zero."""
    x = g.input([2, 3, 5, 17], -2, 2)
    y = g.input([], 0.5, 2)
    g.output(g.op('DIV', [x, y], [2, 3, 5, 17]))


def div_broadcast(g):
    """DIV with both sides broadcast (rank 4), divisors of both signs away from zero."""
    x = g.input([2, 3, 1, 5], -2, 2)
    y = g.input([1, 1, 4, 5], 0.5, 2)
    n = g.op('NEG', [y], [1, 1, 4, 5])
    d = g.op('DIV', [x, y], [2, 3, 4, 5])
    g.output(g.op('DIV', [d, g.op('SUB', [n, g.tensor([], data=[0.25])], [1, 1, 4, 5])],
                  [2, 3, 4, 5]))


def pad_rank3(g):
    x = g.input([3, 5, 7])
    g.output(g.op('PAD', [x, g.ints([0, 1, 2, 0, 1, 3], [3, 2])], [4, 7, 11]))


def strided_slice_steps(g):
    """Rank 3, positive strides, a negative begin, ends past the size."""
    x = g.input([5, 9, 17])
    g.output(g.op('STRIDED_SLICE', [x, g.ints([1, -7, 2]), g.ints([5, 100, 17]), g.ints([2, 3, 5])],
                  [2, 3, 3]))


def strided_slice_reverse(g):
    """Rank 3: axis 0 whole (begin and end masks), axis 1 reversed (stride -1, end mask),
    axis 2 one index taken away (shrink_axis_mask)."""
    x = g.input([7, 5, 3])
    g.output(g.op('STRIDED_SLICE', [x, g.ints([0, 4, 1]), g.ints([0, 0, 2]), g.ints([1, -1, 1])],
                  [7, 5], begin_mask=1, end_mask=3, shrink_axis_mask=4))


def reshape_ranks(g):
    """RESHAPE to rank 2 (with a -1) and to rank 3."""
    x = g.input([2, 3, 5, 3])
    a = g.op('RESHAPE', [x, g.ints([6, -1])], [6, 15])
    g.output(g.op('ABS', [a], [6, 15]))
    g.output(g.op('RESHAPE', [x, g.ints([2, 15, 3])], [2, 15, 3]))


def rsqrt_rank0(g):
    """A rank-0 graph input and output (Graph.op takes [[]] for one rank-0 output)."""
    x = g.input([], 0.1, 4)
    g.output(g.op('RSQRT', [x], [[]])[0])


def sum_all_rank0(g):
    """SUM over every axis without keep_dims: a rank-0 output."""
    x = g.input([3, 5, 7])
    g.output(g.op('SUM', [x, g.ints([0, 1, 2])], [[]], keep_dims=False)[0])



# ---- outside oracles for code the kernels and the C references share ------------------------
# remap.c's description (REVERSE_V2, general CONCATENATION / SLICE / STRIDED_SLICE at batch > 1
# or rank 5, TRANSPOSE), the convolution and pool windows (vki_conv_window_of) and resize's
# axis scale feed both the GPU kernel and the C reference: only LiteRT can tell them wrong.

def reverse(shape, axes):
    def build(g):
        x = g.input(shape)
        g.output(g.op('REVERSE_V2', [x, g.ints(axes)], shape))
    return build


def concat(shapes, axis, const=()):
    """CONCATENATION of graph inputs (constants at the indices in `const`) along `axis`."""
    def build(g):
        xs = [g.const(s) if i in const else g.input(s) for i, s in enumerate(shapes)]
        out = list(shapes[0])
        out[axis] = sum(s[axis] for s in shapes)
        g.output(g.op('CONCATENATION', xs, out, axis=axis))
    return build


def slice_(shape, begin, size):
    def build(g):
        x = g.input(shape)
        out = [d - b if n == -1 else n for d, b, n in zip(shape, begin, size)]
        g.output(g.op('SLICE', [x, g.ints(begin), g.ints(size)], out))
    return build


def strided_slice(shape, begin, end, strides, out, **masks):
    def build(g):
        x = g.input(shape)
        g.output(g.op('STRIDED_SLICE', [x, g.ints(begin), g.ints(end), g.ints(strides)], out,
                      **masks))
    return build


def window_out(size, k, stride, dilation, padding):
    extent = (k - 1) * dilation + 1
    return -(-size // stride) if padding == 'SAME' else (size - extent) // stride + 1


def conv(shape, cout, k, stride, padding, dilation=1):
    def build(g):
        x = g.input(shape)
        oh = window_out(shape[1], k, stride, dilation, padding)
        ow = window_out(shape[2], k, stride, dilation, padding)
        g.output(g.op('CONV_2D', [x, g.const([cout, k, k, shape[3]]), g.const([cout], -0.2, 0.2)],
                      [1, oh, ow, cout], padding=padding, stride_w=stride, stride_h=stride,
                      dilation_w=dilation, dilation_h=dilation))
    return build


def depthwise(shape, multiplier, k, stride, padding, dilation=1):
    def build(g):
        x = g.input(shape)
        c = shape[3] * multiplier
        oh = window_out(shape[1], k, stride, dilation, padding)
        ow = window_out(shape[2], k, stride, dilation, padding)
        g.output(g.op('DEPTHWISE_CONV_2D', [x, g.const([1, k, k, c]), g.const([c], -0.2, 0.2)],
                      [1, oh, ow, c], padding=padding, stride_w=stride, stride_h=stride,
                      depth_multiplier=multiplier, dilation_w=dilation, dilation_h=dilation))
    return build


def pool(op, shape, k, stride, padding):
    def build(g):
        x = g.input(shape)
        oh = window_out(shape[1], k, stride, 1, padding)
        ow = window_out(shape[2], k, stride, 1, padding)
        g.output(g.op(op, [x], [1, oh, ow, shape[3]], padding=padding, stride_w=stride,
                      stride_h=stride, filter_w=k, filter_h=k))
    return build


# ResizeBilinearOptions (align_corners field 2, half_pixel_centers 3) and
# ResizeNearestNeighborOptions (fields 0 and 1), written as explicit tables.
RESIZE_OPTIONS = {'RESIZE_BILINEAR': (15, 2), 'RESIZE_NEAREST_NEIGHBOR': (74, 0)}


def resize(op, shape, size, align_corners=False, half_pixel_centers=False):
    def build(g):
        x = g.input(shape)
        g.output(g.op(op, [x, g.ints(size)], [shape[0]] + list(size) + [shape[3]]))
        table, field = RESIZE_OPTIONS[op]
        g.ops[-1].update(options_type=table,
                         options_fields=[[field, 'bool', int(align_corners)],
                                         [field + 1, 'bool', int(half_pixel_centers)]])
    return build


# ---- CPU ops (the `cpu` group: ops vkinfer runs on the CPU between GPU segments) -----------
# Their selections must not hinge on rounding: inputs are drawn with a power-of-two `step` and
# the GPU ops before a CPU op are exact in float16 too (NEG, ABS, MUL by 0.5, ADD of small
# dyadic offsets), so every precision hands the CPU op the same values. NMS scores get a
# distinct offset each (TFLite's NMS pops a priority queue: equal scores come out in the
# heap's order); TOPK ties are kept on purpose (lowest index first, pinned below).

def topk(shape, k, lo=-2.0, hi=2.0, step=1 / 64):
    """TOPK_V2 along the last axis: values and indices (CAST)."""
    def build(g):
        x = g.input(shape, lo, hi, step=step)
        out = list(shape[:-1]) + [k]
        v, i = op_typed(g, 'TOPK_V2', [x, g.ints([k], [])], [(out, 'float32'), (out, 'int32')])
        g.output(v)
        g.output(i)
    return build


def distinct_scores(g, n, step=1 / 16):
    """[n] scores in [0, 1 + 1/16): an input drawn with `step` plus a distinct offset of
    k/1024 each (k < 1024 * step, all different), so no two are equal and all are exact in
    float16."""
    s = g.input([n], 0, 1, step=step)
    offsets = [k / 1024 for k in g.rng.sample(range(int(1024 * step)), n)]
    return g.op('ADD', [s, g.tensor([n], data=offsets)], [n])


def built_boxes(g, n):
    """[n,4] boxes (y1, x1, y2, x2) with y2 > y1 and x2 > x1: corners y1,x1 and sizes h,w
    (1/16 .. 7/16) drawn as inputs, y2,x2 = y1,x1 + h,w, the two halves concatenated."""
    yx = g.input([n, 2], 0, 1, step=1 / 16)
    hw = g.input([n, 2], 1 / 16, 0.5, step=1 / 16)
    return g.op('CONCATENATION', [yx, g.op('ADD', [yx, hw], [n, 2])], [n, 4], axis=1)


def flipped_boxes(g, n, flat=()):
    """[n,4] boxes whose corners come in either order on each axis: y1,x1 and sizes
    1/16 .. 7/16 drawn as inputs, y2,x2 = y1,x1 + size * (a constant +-1, or 0 on the
    y axis of the boxes listed in `flat`, which have zero area)."""
    c = g.input([n, 2], 0, 1, step=1 / 16)
    size = g.input([n, 2], 1 / 16, 0.5, step=1 / 16)
    signs = [g.rng.choice((-1.0, 1.0)) for _ in range(2 * n)]
    for i in flat:
        signs[2 * i] = 0.0
    sign = g.tensor([n, 2], data=signs)
    far = g.op('ADD', [c, g.op('MUL', [size, sign], [n, 2])], [n, 2])
    return g.op('CONCATENATION', [c, far], [n, 4], axis=1)


def nms(version, n, max_out, iou, score_threshold, sigma=None, boxes='built', flat=()):
    """NON_MAX_SUPPRESSION_V4 (selected indices, valid count) or _V5 (indices, scores,
    count) on [n,4] boxes: 'built' (y2 > y1, x2 > x1) or 'flipped' (corners in either
    order; those listed in `flat` of zero area, which TFLite selects again and again once
    it selects one, see the README)."""
    def build(g):
        b = flipped_boxes(g, n, flat) if boxes == 'flipped' else built_boxes(g, n)
        scores = distinct_scores(g, n)
        ins = [b, scores, g.ints([max_out], []), g.tensor([], data=[iou]),
               g.tensor([], data=[score_threshold])]
        if version == 4:
            outs = op_typed(g, 'NON_MAX_SUPPRESSION_V4', ins, [([max_out], 'int32'), ([], 'int32')])
        else:
            outs = op_typed(g, 'NON_MAX_SUPPRESSION_V5', ins + [g.tensor([], data=[sigma])],
                            [([max_out], 'int32'), ([max_out], 'float32'), ([], 'int32')])
        for t in outs:
            g.output(t)
    return build


def int_input(g, shape, lo, hi):
    """An int32 tensor of whole numbers in [lo, hi): a float input drawn with step 1, CAST."""
    return g.op('CAST', [g.input(shape, lo, hi, step=1)], shape, 'int32')


def gather_nd_depth1(g):
    """GATHER_ND on rank-3 params, [2,3,1] constant indices (depth 1: whole [3,7] slices)."""
    x = g.input([5, 3, 7])
    g.output(g.op('GATHER_ND', [x, g.ints([4, 0, 2, 2, 1, 4], [2, 3, 1])], [2, 3, 3, 7]))


def gather_nd_depth2_rank4(g):
    """GATHER_ND on rank-4 params, depth-2 indices made in the graph: one input a column
    (each in its axis' range), concatenated, CAST."""
    x = g.input([3, 4, 5, 6])
    a = g.input([7, 1], 0, 3, step=1)
    b = g.input([7, 1], 0, 4, step=1)
    idx = g.op('CAST', [g.op('CONCATENATION', [a, b], [7, 2], axis=1)], [7, 2], 'int32')
    g.output(g.op('GATHER_ND', [x, idx], [7, 5, 6]))


def gather_nd_full_rank3(g):
    """GATHER_ND with full-depth constant indices (single elements of rank-3 params)."""
    x = g.input([3, 5, 4])
    idx = g.ints([2, 4, 3, 0, 0, 0, 1, 2, 1, 2, 4, 0, 0, 3, 3, 1, 2, 1], [2, 3, 3])
    g.output(g.op('GATHER_ND', [x, idx], [2, 3]))


def gather_nd_full_rank2(g):
    """GATHER_ND with full-depth indices from an input (rank-2 params, [2,4,2] indices)."""
    x = g.input([6, 9])
    g.output(g.op('GATHER_ND', [x, int_input(g, [2, 4, 2], 0, 6)], [2, 4]))


def scatter_nd(indices, index_shape, updates, out):
    """SCATTER_ND of an updates input at constant indices (some repeated) into zeros of a
    constant shape."""
    def build(g):
        u = g.input(updates)
        g.output(g.op('SCATTER_ND', [g.ints(indices, index_shape), u, g.ints(out)], out))
    return build


def one_hot(shape, depth, axis, lo, hi, on, off):
    """ONE_HOT of whole numbers drawn in [lo, hi), which reaches below 0 and past depth - 1."""
    def build(g):
        idx = int_input(g, shape, lo, hi)
        out = list(shape)
        out.insert(len(shape) if axis == -1 else axis, depth)
        g.output(g.op('ONE_HOT', [idx, g.ints([depth], []), g.tensor([], data=[on]),
                                  g.tensor([], data=[off])], out, axis=axis))
    return build


def anchors(g, n):
    """[n,4] SSD anchors (ycenter, xcenter, h, w): a jittered grid over the unit square,
    sizes 0.25 .. 0.5, all multiples of 1/64."""
    side = 1
    while side * side < n:
        side += 1
    data = []
    for i in range(n):
        r, c = divmod(i, side)
        data += [(r + 0.5) / side + g.rng.randrange(-4, 5) / 64,
                 (c + 0.5) / side + g.rng.randrange(-4, 5) / 64,
                 g.rng.randrange(16, 33) / 64, g.rng.randrange(16, 33) / 64]
    return g.tensor([n, 4], data=data)


def detection_postprocess(g, boxes, scores, n, **params):
    """TFLite_Detection_PostProcess (custom op, options a FlexBuffer map) on [1,n,4] box
    encodings, [1,n,classes+1] scores and constant anchors; its four float32 outputs become
    the graph's."""
    import tflite_writer
    rows = params['max_detections'] * params['max_classes_per_detection']
    outs = [g.tensor([1, rows, 4]), g.tensor([1, rows]), g.tensor([1, rows]), g.tensor([1])]
    g.ops.append({'op': 'TFLite_Detection_PostProcess', 'custom': 'TFLite_Detection_PostProcess',
                  'inputs': [boxes, scores, anchors(g, n)], 'outputs': outs, 'options': {},
                  'custom_options': tflite_writer.flexbuffer_map(params), 'version': 1})
    for t in outs:
        g.output(t)


SSD_SCALES = {'y_scale': 10.0, 'x_scale': 10.0, 'h_scale': 5.0, 'w_scale': 5.0}


def detection(n, classes, **params):
    """TFLite_Detection_PostProcess on inputs: box encodings drawn with step 1/16, class scores
    (background column first) a step-1/4 input plus a distinct k/1024 offset each."""
    def build(g):
        boxes = g.input([1, n, 4], -1, 1, step=1 / 16)
        s = g.input([1, n, classes + 1], 0, 1, step=1 / 4)
        offsets = [k / 1024 for k in g.rng.sample(range(256), n * (classes + 1))]
        scores = g.op('ADD', [s, g.tensor([1, n, classes + 1], data=offsets)], [1, n, classes + 1])
        detection_postprocess(g, boxes, scores, n, num_classes=classes, **SSD_SCALES, **params)
    return build


# ---- partitioned graphs: CPU ops between GPU ops -------------------------------------------

def partition_gpu_cpu_gpu(g):
    """GPU -> CPU -> GPU: ABS, MUL by 0.5, TOPK_V2 (k 5 of 13), then ADD and LOGISTIC on
    the values; the indices leave through CAST."""
    x = g.input([3, 4, 13], -2, 2, step=1 / 32)
    h = g.op('MUL', [g.op('ABS', [x], [3, 4, 13]), g.tensor([], data=[0.5])], [3, 4, 13])
    v, i = op_typed(g, 'TOPK_V2', [h, g.ints([5], [])], [([3, 4, 5], 'float32'), ([3, 4, 5], 'int32')])
    g.output(g.op('LOGISTIC', [g.op('ADD', [v, g.const([5])], [3, 4, 5])], [3, 4, 5]))
    g.output(i)


def partition_cpu_first(g):
    """CPU first: TOPK_V2 on a graph input, then MUL, ADD and TANH on the values."""
    x = g.input([5, 11], -2, 2, step=1 / 32)
    v, i = op_typed(g, 'TOPK_V2', [x, g.ints([4], [])], [([5, 4], 'float32'), ([5, 4], 'int32')])
    m = g.op('ADD', [g.op('MUL', [v, g.const([4])], [5, 4]), g.const([5, 1])], [5, 4])
    g.output(g.op('TANH', [m], [5, 4]))
    g.output(i)


def partition_cpu_last_gather_nd(g):
    """CPU last: MUL and ADD, then GATHER_ND (depth 2, constant indices) makes the output."""
    x = g.input([2, 5, 7])
    h = g.op('ADD', [g.op('MUL', [x, g.const([7])], [2, 5, 7]), g.const([5, 1])], [2, 5, 7])
    g.output(g.op('GATHER_ND', [h, g.ints([1, 4, 0, 0, 1, 2], [3, 2])], [3, 7]))


def partition_cpu_last_one_hot(g):
    """CPU last: FLOOR, ABS and CAST on the GPU make the indices (some >= depth), ONE_HOT
    makes the output."""
    x = g.input([3, 7], -5, 5, step=0.5)
    idx = g.op('CAST', [g.op('ABS', [g.op('FLOOR', [x], [3, 7])], [3, 7])], [3, 7], 'int32')
    g.output(g.op('ONE_HOT', [idx, g.ints([4], []), g.tensor([], data=[2.0]),
                              g.tensor([], data=[-1.0])], [3, 7, 4], axis=-1))


def partition_branches(g):
    """One CPU op's output feeds two GPU branches that meet again, and GPU tensors made
    before the CPU op are read after it: NEG (t), MEAN of t, TOPK_V2 of t; the values go to
    MUL and to SUB, ADD joins them, ADD the mean; MUL reads t again after TOPK."""
    x = g.input([2, 3, 17], -2, 2, step=1 / 32)
    t = g.op('NEG', [x], [2, 3, 17])
    m = g.op('MEAN', [t, g.ints([2])], [2, 3, 1], keep_dims=True)
    v, i = op_typed(g, 'TOPK_V2', [t, g.ints([6], [])], [([2, 3, 6], 'float32'), ([2, 3, 6], 'int32')])
    a = g.op('MUL', [v, g.const([6])], [2, 3, 6])
    b = g.op('SUB', [v, g.tensor([], data=[0.375])], [2, 3, 6])
    g.output(g.op('ADD', [g.op('ADD', [a, b], [2, 3, 6]), m], [2, 3, 6]))
    g.output(g.op('MUL', [t, g.tensor([], data=[2.0])], [2, 3, 17]))
    g.output(i)


def partition_ssd_head(g):
    """An SSD head: two 3x3 CONV_2Ds on a [1,5,5,8] feature map, RESHAPEd to [1,25,4] box
    encodings and (through LOGISTIC) [1,25,4] class scores (background + 3), then
    TFLite_Detection_PostProcess (fast NMS). Float32 only: the detections are a ranking of
    convolution outputs, which float16's rounding reorders."""
    x = g.input([1, 5, 5, 8])
    e = g.op('CONV_2D', [x, g.const([4, 3, 3, 8], -0.3, 0.3), g.const([4], -0.1, 0.1)],
             [1, 5, 5, 4], padding='SAME')
    c = g.op('CONV_2D', [x, g.const([4, 3, 3, 8], -0.5, 0.5), g.const([4], -0.2, 0.2)],
             [1, 5, 5, 4], padding='SAME')
    boxes = g.op('RESHAPE', [e, g.ints([1, 25, 4])], [1, 25, 4])
    scores = g.op('LOGISTIC', [g.op('RESHAPE', [c, g.ints([1, 25, 4])], [1, 25, 4])], [1, 25, 4])
    detection_postprocess(g, boxes, scores, 25, num_classes=3, max_detections=5,
                          max_classes_per_detection=1, nms_score_threshold=0.3,
                          nms_iou_threshold=0.5, **SSD_SCALES)


def partition_topk_nms(g):
    """Post-processing: scores = MUL by 0.5 plus distinct offsets, TOPK_V2 keeps the best 11
    of 29, GATHER takes their boxes (corners in either order), NON_MAX_SUPPRESSION_V4 keeps
    up to 5; outputs: the selection (indices into the 11), its count, the anchors it maps
    back to (GATHER of the TOPK indices) and the selected boxes (GATHER)."""
    boxes = flipped_boxes(g, 29)
    x = g.input([29], 0, 1, step=1 / 16)
    offsets = [k / 1024 for k in g.rng.sample(range(32), 29)]
    s = g.op('ADD', [g.op('MUL', [x, g.tensor([], data=[0.5])], [29]), g.tensor([29], data=offsets)], [29])
    v, ti = op_typed(g, 'TOPK_V2', [s, g.ints([11], [])], [([11], 'float32'), ([11], 'int32')])
    b = g.op('GATHER', [boxes, ti], [11, 4], axis=0)
    sel, valid = op_typed(g, 'NON_MAX_SUPPRESSION_V4', [b, v, g.ints([5], []), g.tensor([], data=[0.3]),
                                                        g.tensor([], data=[0.1])],
                          [([5], 'int32'), ([], 'int32')])
    g.output(sel)
    g.output(valid)
    g.output(g.op('GATHER', [ti, sel], [5], 'int32', axis=0))
    g.output(g.op('GATHER', [b, sel], [5, 4], axis=0))



# ---- resizable inputs ----------------------------------------------------------------------

def resize_net(h, w):
    """One small network written at input size h x w (the same weights at every size: the
    graph's own seed), its input marked [-1, -1, -1, 3] in shape_signature: a 3x3 stride-2
    convolution, a depthwise 3x3, a 1x1, global MEAN, RESHAPE by [-1, 8], FULLY_CONNECTED and
    SOFTMAX, and a second output that keeps the spatial shape (DEPTH_TO_SPACE to twice the
    size; a RESIZE_BILINEAR's size is a constant, which a resize leaves as it is). test_resize loads the first size, resizes it to the others and holds it to
    LiteRT's outputs of these."""
    def build(g):
        import random as _random
        g.rng = _random.Random(4242)
        x = g.input([1, h, w, 3])
        g.tensors[x]['shape_signature'] = [-1, -1, -1, 3]
        oh, ow = window_out(h, 3, 2, 1, 'SAME'), window_out(w, 3, 2, 1, 'SAME')
        y = g.op('CONV_2D', [x, g.const([8, 3, 3, 3]), g.const([8], -0.2, 0.2)], [1, oh, ow, 8],
                 padding='SAME', stride_w=2, stride_h=2, activation='RELU')
        y = g.op('DEPTHWISE_CONV_2D', [y, g.const([1, 3, 3, 8]), g.const([8], -0.2, 0.2)],
                 [1, oh, ow, 8], padding='SAME', depth_multiplier=1, activation='RELU6')
        y = g.op('CONV_2D', [y, g.const([8, 1, 1, 8]), g.const([8], -0.2, 0.2)], [1, oh, ow, 8],
                 padding='SAME')
        g.output(g.op('DEPTH_TO_SPACE', [y], [1, 2 * oh, 2 * ow, 2], block_size=2))
        p = g.op('MEAN', [y, g.ints([1, 2])], [1, 1, 1, 8], keep_dims=True)
        p = g.op('RESHAPE', [p, g.ints([-1, 8])], [1, 8])
        p = g.op('FULLY_CONNECTED', [p, g.const([5, 8]), g.const([5], -0.2, 0.2)], [1, 5])
        g.output(g.op('SOFTMAX', [p], [1, 5], beta=1.0))
    return build


def resize_batch(n):
    """A dynamic-batch head written at batch n (input [n, 6] marked [-1, 6]): FULLY_CONNECTED,
    TANH, a residual ADD, BATCH_MATMUL by a constant, and the rows' TOPK_V2 (a CPU op after
    the resize)."""
    def build(g):
        import random as _random
        g.rng = _random.Random(4343)
        x = g.input([n, 6])
        g.tensors[x]['shape_signature'] = [-1, 6]
        y = g.op('FULLY_CONNECTED', [x, g.const([6, 6]), g.const([6], -0.2, 0.2)], [n, 6])
        y = g.op('TANH', [y], [n, 6])
        y = g.op('ADD', [y, x], [n, 6])
        z = g.op('BATCH_MATMUL', [y, g.const([6, 7])], [n, 7])
        g.output(z)
        v, i = op_typed(g, 'TOPK_V2', [z, g.ints([3], [])], [([n, 3], 'float32'), ([n, 3], 'int32')])
        g.output(v)
        g.output(i)
    return build


# ---- control flow, signatures, resource variables (the `control` group) --------------------
# Several subgraphs (subgraph 0 is the main one), read by make.py's signature and calls jobs.

def scalar(g, value, ttype='float32'):
    return g.tensor([], ttype, [value])


def signature_encode_decode(g):
    """Two signatures over two subgraphs: "encode" (subgraph 0) and "decode" (subgraph 1).
    Their names are not the tensors' names, and the orders differ: encode's inputs are, by
    tensor index, features, scale, offset; in the subgraph's inputs offset, features, scale;
    in the SignatureDef scale, offset, features; alphabetically features, offset, scale (its
    outputs likewise: latent, energy, peak by index; energy, peak, latent in the subgraph;
    peak, latent, energy in the SignatureDef; energy, latent, peak alphabetically). So only a
    lookup by name gets them right."""
    g.name = 'encode'
    features = g.input([2, 3, 5], -1, 1, name='enc_features')
    scale = g.input([5], 0.5, 1.5, name='enc_scale')
    offset = g.input([3, 1], -0.5, 0.5, name='enc_offset')
    g.inputs, g.ranges = [g.inputs[k] for k in (2, 0, 1)], [g.ranges[k] for k in (2, 0, 1)]
    b = g.op('ADD', [g.op('MUL', [features, scale], [2, 3, 5]), offset], [2, 3, 5])
    code = g.op('TANH', [b], [2, 3, 5])
    energy = g.op('SUM', [g.op('MUL', [b, b], [2, 3, 5]), g.ints([2])], [2, 3])
    peak = g.op('REDUCE_MAX', [b, g.ints([1])], [2, 5])
    for t, name in ((code, 'enc_code'), (energy, 'enc_energy'), (peak, 'enc_peak')):
        g.tensors[t]['name'] = name
    for t in (energy, peak, code):
        g.output(t)
    index, d = g.subgraph('decode')
    latent = d.input([2, 3, 5], -1, 1, name='dec_latent')
    gain = d.input([1], 0.5, 2, name='dec_gain')
    bias = d.input([5], -0.5, 0.5, name='dec_bias')
    d.inputs, d.ranges = [d.inputs[k] for k in (1, 2, 0)], [d.ranges[k] for k in (1, 2, 0)]
    y = d.op('ADD', [d.op('MUL', [latent, gain], [2, 3, 5]), bias], [2, 3, 5])
    recon = d.op('LOGISTIC', [y], [2, 3, 5])
    mean = d.op('MEAN', [y, d.ints([1, 2])], [2])
    for t, name in ((recon, 'dec_reconstruction'), (mean, 'dec_mean')):
        d.tensors[t]['name'] = name
    for t in (mean, recon):
        d.output(t)
    g.signature('encode', 0, [('scale', scale), ('offset', offset), ('features', features)],
                [('peak', peak), ('latent', code), ('energy', energy)])
    # decode's inputs: latent, gain, bias by index; gain, bias, latent in the subgraph
    g.signature('decode', index, [('bias', bias), ('latent', latent), ('gain', gain)],
                [('reconstruction', recon), ('mean', mean)])


def while_loop(cond_builder, body_scale, body_shift, lo, hi):
    """WHILE over (i int32 scalar from 0, x [3,5]): the body is x = x * body_scale +
    body_shift, i = i + 1; cond_builder(c, i, x) returns the cond subgraph's bool scalar.
    Outputs x and i (CAST)."""
    def build(g):
        x = g.input([3, 5], lo, hi)
        i0 = g.tensor([], 'int32', [0], name='i0')
        cond, c = g.subgraph('cond')
        ci = c.input([], ttype='int32', name='i')
        cx = c.input([3, 5], name='x')
        c.output(cond_builder(c, ci, cx), raw=True)
        body, b = g.subgraph('body')
        bi = b.input([], ttype='int32', name='i')
        bx = b.input([3, 5], name='x')
        b.output(b.op('ADD', [bi, scalar(b, 1, 'int32')], [[]], 'int32')[0], raw=True)
        b.output(b.op('ADD', [b.op('MUL', [bx, scalar(b, body_scale)], [3, 5]),
                              scalar(b, body_shift)], [3, 5]))
        i, y = op_typed(g, 'WHILE', [i0, x], [([], 'int32'), ([3, 5], 'float32')],
                        cond_subgraph_index=cond, body_subgraph_index=body)
        g.output(y)
        g.output(i)
    return build


def cond_counter(c, i, x):
    """i < 7: seven trips."""
    return c.op('LESS', [i, scalar(c, 7, 'int32')], [[]], 'bool')[0]


def cond_sum_below(threshold):
    """sum(x) < threshold: the trip count follows the data."""
    def cond(c, i, x):
        s = c.op('SUM', [x, c.ints([0, 1])], [[]])[0]
        return c.op('LESS', [s, scalar(c, threshold)], [[]], 'bool')[0]
    return cond


def if_branches(lo, hi):
    """IF on sum(x) > 0: then tanh(x) * w, else -x * 2 (both branches take x and w), and
    the main graph goes on after it (y + x). lo, hi pick the branch."""
    def build(g):
        x = g.input([2, 3, 5], lo, hi)
        w = g.input([5], 0.5, 1.5)
        s = g.op('SUM', [x, g.ints([0, 1, 2])], [[]])[0]
        c = g.op('GREATER', [s, scalar(g, 0.0)], [[]], 'bool')[0]
        then, t = g.subgraph('then')
        tx, tw = t.input([2, 3, 5], name='x'), t.input([5], name='w')
        t.output(t.op('MUL', [t.op('TANH', [tx], [2, 3, 5]), tw], [2, 3, 5]))
        other, e = g.subgraph('else')
        ex, _ = e.input([2, 3, 5], name='x'), e.input([5], name='w')
        e.output(e.op('MUL', [e.op('NEG', [ex], [2, 3, 5]), scalar(e, 2.0)], [2, 3, 5]))
        y = g.op('IF', [c, x, w], [2, 3, 5], then_subgraph_index=then, else_subgraph_index=other)
        g.output(y)
        g.output(g.op('ADD', [y, x], [2, 3, 5]))
    return build


def variable_streaming(g):
    """A streaming keyword-spotter front with its state in a resource variable, as
    converters write one: CALL_ONCE runs the init subgraph (VAR_HANDLE "state",
    ASSIGN_VARIABLE of a constant [1,4,8]) on the first call only; then VAR_HANDLE,
    READ_VARIABLE of the state, its last 3 rows (SLICE) and the new frame [1,1,8] joined
    (CONCATENATION), ASSIGN_VARIABLE of that as the new state, and a head (RESHAPE,
    FULLY_CONNECTED + RELU, FULLY_CONNECTED, SOFTMAX) on it. Outputs the scores [1,5] and
    the new state. make.py runs it 10 times in one interpreter, then once in a fresh one."""
    frame = g.input([1, 1, 8], name='frame')
    init, s = g.subgraph('init')
    sh = s.op('VAR_HANDLE', [], [[]], 'resource', shared_name='state')[0]
    s.ops.append({'op': 'ASSIGN_VARIABLE', 'inputs': [sh, s.const([1, 4, 8], -0.5, 0.5)],
                  'outputs': [], 'options': {}})
    g.ops.append({'op': 'CALL_ONCE', 'inputs': [], 'outputs': [],
                  'options': {'init_subgraph_index': init}})
    h = g.op('VAR_HANDLE', [], [[]], 'resource', shared_name='state')[0]
    state = g.op('READ_VARIABLE', [h], [1, 4, 8])
    tail = g.op('SLICE', [state, g.ints([0, 1, 0]), g.ints([1, 3, 8])], [1, 3, 8])
    new = g.op('CONCATENATION', [tail, frame], [1, 4, 8], axis=1)
    flat = g.op('RESHAPE', [new, g.ints([1, 32])], [1, 32])
    hidden = g.op('FULLY_CONNECTED', [flat, g.const([12, 32], -0.4, 0.4), g.const([12], -0.1, 0.1)],
                  [1, 12], activation='RELU')
    logits = g.op('FULLY_CONNECTED', [hidden, g.const([5, 12], -0.6, 0.6), g.const([5], -0.1, 0.1)],
                  [1, 5])
    g.output(g.op('SOFTMAX', [logits], [1, 5], beta=1.0))
    g.ops.append({'op': 'ASSIGN_VARIABLE', 'inputs': [h, new], 'outputs': [], 'options': {}})
    g.output(new)
    g.calls, g.reset_from = 10, 3


def gather_beyond_kernel(g):
    """GATHER forms the kernel does not take, which run on the CPU: batch_dims 1, computed
    indices of rank 2 and constant indices of rank 4; a GPU op on each side."""
    x = g.input([3, 5, 7])
    i = g.op('CAST', [g.input([3, 2], 0, 5, step=1)], [3, 2], 'int32')
    y = g.op('GATHER', [g.op('ABS', [x], [3, 5, 7]), i], [3, 2, 7], axis=1, batch_dims=1)
    g.output(g.op('NEG', [y], [3, 2, 7]))
    j = g.op('CAST', [g.input([2, 3], 0, 7, step=1)], [2, 3], 'int32')
    g.output(g.op('GATHER', [x, j], [3, 5, 2, 3], axis=2))
    k = g.ints([4, 0, 2, 1, 3, 3, 0, 1, 2, 4, 4, 0, 1, 2, 3, 0], [2, 2, 2, 2])
    g.output(g.op('GATHER', [x, k], [3, 2, 2, 2, 2, 7], axis=1))


def rfft2d(shape, fft, parts):
    """RFFT2D of a graph-computed input (MUL on the GPU) cropped or zero-padded to `fft`,
    then COMPLEX_ABS (and REAL and IMAG with `parts`), LOG of the magnitude back on the GPU."""
    def build(g):
        x = g.input(shape)
        y = g.op('MUL', [x, g.const([shape[-1]], 0.5, 1.5)], shape)
        out = list(shape[:-2]) + [fft[0], fft[1] // 2 + 1]
        z = g.op('RFFT2D', [y, g.ints(fft)], out, 'complex64')
        a = g.op('COMPLEX_ABS', [z], out)
        g.output(g.op('LOG', [g.op('ADD', [a, g.const([], 0.5, 0.5)], out)], out))
        if parts:
            g.output(g.op('REAL', [z], out))
            g.output(g.op('IMAG', [z], out))
    return build



def conv3d(shape, cout, k, stride, padding, dilation=(1, 1, 1), transpose_to=None):
    """CONV_3D on a graph-computed input (ABS on the GPU), or CONV_3D_TRANSPOSE to the 5-D
    shape transpose_to; RELU fused; TANH on the GPU after."""
    def build(g):
        x = g.op('ABS', [g.input(shape)], shape)
        if transpose_to is None:
            out = [shape[0]] + [window_out(shape[1 + a], k[a], stride[a], dilation[a], padding)
                                for a in range(3)] + [cout]
            y = g.op('CONV_3D', [x, g.const(list(k) + [shape[4], cout], -0.5, 0.5),
                                 g.const([cout], -0.2, 0.2)], out, padding=padding,
                     stride_d=stride[0], stride_h=stride[1], stride_w=stride[2],
                     dilation_d=dilation[0], dilation_h=dilation[1], dilation_w=dilation[2],
                     activation='RELU')
        else:
            out = list(transpose_to)
            y = g.op('CONV_3D_TRANSPOSE', [g.ints(out), g.const(list(k) + [cout, shape[4]], -0.5, 0.5),
                                           x, g.const([cout], -0.2, 0.2)], out, padding=padding,
                     stride_d=stride[0], stride_h=stride[1], stride_w=stride[2],
                     activation='RELU')
        g.output(g.op('TANH', [y], out))
    return build



def batched_images(g):
    """A batch of 3 images through the ops whose kernels take one image (they run on the CPU,
    image by image): CONV_2D 3x3 stride 2 SAME, DEPTHWISE_CONV_2D, MAX_POOL_2D and
    AVERAGE_POOL_2D, RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR, SPACE_TO_DEPTH and
    DEPTH_TO_SPACE, TRANSPOSE_CONV; GPU ops between them."""
    x = g.input([3, 9, 7, 3])
    y = g.op('CONV_2D', [x, g.const([8, 3, 3, 3]), g.const([8], -0.2, 0.2)], [3, 5, 4, 8],
             padding='SAME', stride_w=2, stride_h=2, activation='RELU')
    y = g.op('DEPTHWISE_CONV_2D', [y, g.const([1, 3, 3, 8]), g.const([8], -0.2, 0.2)], [3, 5, 4, 8],
             padding='SAME', depth_multiplier=1)
    y = g.op('TANH', [y], [3, 5, 4, 8])
    p = g.op('MAX_POOL_2D', [y], [3, 3, 2, 8], padding='SAME', stride_w=2, stride_h=2,
             filter_w=2, filter_h=2)
    q = g.op('AVERAGE_POOL_2D', [y], [3, 3, 2, 8], padding='VALID', stride_w=1, stride_h=1,
             filter_w=3, filter_h=3)
    r = g.op('ADD', [p, q], [3, 3, 2, 8])
    g.output(g.op('RESIZE_BILINEAR', [r, g.ints([5, 3])], [3, 5, 3, 8], half_pixel_centers=True))
    g.output(g.op('RESIZE_NEAREST_NEIGHBOR', [r, g.ints([6, 4])], [3, 6, 4, 8]))
    d = g.op('DEPTH_TO_SPACE', [r], [3, 6, 4, 2], block_size=2)
    g.output(g.op('SPACE_TO_DEPTH', [g.op('NEG', [d], [3, 6, 4, 2])], [3, 3, 2, 8], block_size=2))
    g.output(g.op('TRANSPOSE_CONV', [g.ints([3, 6, 4, 5]), g.const([5, 3, 3, 8], -0.5, 0.5), r],
                  [3, 6, 4, 5], padding='SAME', stride_w=2, stride_h=2))



def bucketize(shape, boundaries):
    """BUCKETIZE of a graph-computed input (MUL on the GPU), its buckets back on the GPU
    (CAST, ADD); inputs on a 1/4 grid so values fall on boundaries too."""
    def build(g):
        x = g.op('MUL', [g.input(shape, -3.0, 3.0, step=0.25), g.const([], 1.0, 1.0)], shape)
        b = g.op('BUCKETIZE', [x], shape, 'int32', boundaries=boundaries)
        g.output(g.op('ADD', [g.op('CAST', [b], shape), x], shape))
        g.output(b)
    return build



MODELS = [
    ('unary_rsqrt', unary('RSQRT', [1, 7, 5, 17], 0.1, 4)),
    ('unary_sqrt', unary('SQRT', [2, 3, 5, 3], 0.0, 4)),
    ('unary_exp', unary('EXP', [3, 17])),
    ('unary_log', unary('LOG', [1, 7, 5, 5], 0.05, 5)),
    ('unary_abs', unary('ABS', [2, 3, 1, 5, 3])),
    ('unary_neg', unary('NEG', [7])),
    ('unary_square', unary('SQUARE', [1, 7, 5, 1])),
    ('unary_floor_exact', unary('FLOOR', [1, 7, 5, 3])),
    ('unary_ceil_exact', unary('CEIL', [1, 7, 5, 3])),
    ('unary_elu', unary('ELU', [1, 7, 5, 17])),
    ('unary_gelu', unary('GELU', [1, 9, 32], approximate=False)),
    ('unary_gelu_tanh', unary('GELU', [1, 9, 32], approximate=True)),
    ('unary_log_softmax', unary('LOG_SOFTMAX', [2, 3, 17], -4, 4)),
    ('unary_hard_swish', unary('HARD_SWISH', [1, 7, 5, 5], -5, 5)),
    ('unary_cast_exact', cast_round_trip),
    ('unary_cast_halves_exact', cast_halves),
    ('unary_round_exact', round_ties),
    ('unary_gelu_no_options', gelu_default),
    ('binary_squared_difference', binary('SQUARED_DIFFERENCE', [1, 7, 5, 3], [1, 1, 5, 3], [1, 7, 5, 3])),
    ('binary_pow', pow_positive),
    ('binary_add_rank5', binary('ADD', [2, 3, 1, 5, 3], [1, 1, 4, 1, 3], [2, 3, 4, 5, 3])),
    ('binary_mul_rank3', binary('MUL', [3, 1, 5], [1, 4, 1], [3, 4, 5])),
    ('binary_sub_batch', binary('SUB', [2, 7, 5, 17], [17], [2, 7, 5, 17], const_b=True)),
    ('binary_maximum', binary('MAXIMUM', [1, 7, 5, 5], [1, 7, 1, 1], [1, 7, 5, 5])),
    ('binary_greater', compare_select('GREATER')),
    ('binary_less_equal', compare_select('LESS_EQUAL')),
    ('binary_not_equal', compare_select('NOT_EQUAL')),
    ('binary_less_exact', compare_exact('LESS')),
    ('binary_equal_exact', compare_exact('EQUAL')),
    ('binary_greater_exact', compare_exact('GREATER')),
    ('reduce_mean_channels', reduce('MEAN', [1, 7, 5, 17], [3], [1, 7, 5, 1], keep=True)),
    ('reduce_mean_rows', reduce('MEAN', [3, 9, 5], [1], [3, 5])),
    ('reduce_sum', reduce('SUM', [2, 7, 5, 3], [1, 2], [2, 3])),
    ('reduce_max', reduce('REDUCE_MAX', [2, 7, 5, 3], [0, 3], [1, 7, 5, 1], keep=True)),
    ('reduce_min', reduce('REDUCE_MIN', [5, 17], [1], [5])),
    ('reduce_prod', reduce('REDUCE_PROD', [2, 5, 3], [1], [2, 3], lo=0.8, hi=1.2)),
    ('reduce_arg_max_exact', arg('ARG_MAX', [1, 7, 5, 17], 3, [1, 7, 5])),
    ('reduce_arg_min_exact', arg('ARG_MIN', [3, 10], 0, [10])),
    ('reduce_cumsum', cumsum([1, 7, 5, 3], 1, False, False)),
    ('reduce_cumsum_exclusive_reverse', cumsum([2, 17], 1, True, True)),
    ('reduce_l2_normalization', unary('L2_NORMALIZATION', [1, 7, 5, 17])),
    ('reduce_lrn', unary('LOCAL_RESPONSE_NORMALIZATION', [1, 5, 3, 9], radius=2, bias=1.0,
                         alpha=0.5, beta=0.75)),
    ('reduce_softmax_rank4', unary('SOFTMAX', [1, 2, 9, 9], -4, 4, beta=0.7)),
    ('reduce_softmax_rank2', unary('SOFTMAX', [3, 17], -4, 4, beta=0.7)),
    ('reduce_softmax_rank3', unary('SOFTMAX', [3, 5, 17], -4, 4, beta=0.7)),
    ('reduce_l2_normalization_tiny_fp32', l2_tiny),
    ('reduce_arg_max_rows_exact', arg('ARG_MAX', [3, 9, 5], 1, [3, 5])),
    ('reduce_mean_rank4_axis1', reduce('MEAN', [2, 7, 5, 3], [1], [2, 5, 3])),
    ('layout_transpose_rank3', transpose([7, 5, 3], [2, 0, 1])),
    ('layout_transpose_rank4', transpose([1, 7, 5, 17], [0, 3, 1, 2])),
    ('layout_transpose_rank5', transpose([2, 3, 2, 5, 3], [4, 0, 2, 1, 3])),
    ('layout_split', split),
    ('layout_split_v', split_v),
    ('layout_pack_unpack', pack_unpack),
    ('layout_tile_broadcast_to', tile_broadcast),
    ('layout_squeeze_expand_reshape', squeeze_expand),
    ('layout_mirror_pad_reflect', mirror_pad('REFLECT')),
    ('layout_mirror_pad_symmetric', mirror_pad('SYMMETRIC')),
    ('layout_padv2', padv2),
    ('layout_gather_axis1', gather(1, [6, 0, 3, 3], [1, 7, 5, 3], [1, 4, 5, 3])),
    ('layout_gather_last', gather(-1, [16, 2, 9], [1, 3, 5, 17], [1, 3, 5, 3])),
    ('layout_gather_axis0', gather(0, [9, 0, 4, 4, 1], [10, 7], [5, 7])),
    ('layout_space_batch', space_batch),
    ('layout_atrous_conv', atrous('conv')),
    ('layout_atrous_depthwise', atrous('depthwise')),
    ('matmul_batch', batch_matmul([2, 5, 7], [2, 7, 3], [2, 5, 3])),
    ('matmul_adj_x', batch_matmul([2, 7, 5], [2, 7, 3], [2, 5, 3], adj_x=True)),
    ('matmul_adj_y_const', batch_matmul([2, 5, 7], [2, 3, 7], [2, 5, 3], adj_y=True, const_b=True)),
    ('matmul_broadcast', batch_matmul([1, 5, 17], [3, 17, 5], [3, 5, 5])),
    ('matmul_fc_keep_num_dims', fully_connected([1, 5, 17], [1, 5, 5], True)),
    ('matmul_fc_rows', fully_connected([3, 17], [3, 5], False)),
    ('block_transformer', transformer),
    ('block_shuffle', shuffle),
    ('block_keyword_spotting', keyword_spotting),
    ('block_mobilevit', mobilevit),
    ('unary_logistic', unary('LOGISTIC', [1, 7, 5, 17], -6, 6)),
    ('unary_logistic_rank5', unary('LOGISTIC', [2, 3, 1, 5, 3], -6, 6)),
    ('binary_div_rank0', div_rank0),
    ('binary_div_broadcast', div_broadcast),
    ('binary_minimum_rank3', binary('MINIMUM', [3, 1, 5], [1, 4, 1], [3, 4, 5])),
    ('binary_greater_equal', compare_select('GREATER_EQUAL')),
    ('binary_greater_equal_exact', compare_exact('GREATER_EQUAL')),
    ('binary_less_equal_exact', compare_exact('LESS_EQUAL')),
    ('binary_not_equal_exact', compare_exact('NOT_EQUAL')),
    ('reduce_mean_hw_keep', reduce('MEAN', [2, 7, 5, 17], [1, 2], [2, 1, 1, 17], keep=True)),
    ('reduce_sum_rank3_keep_negative_axis', reduce('SUM', [3, 9, 5], [-1], [3, 9, 1], keep=True)),
    ('reduce_max_rank3', reduce('REDUCE_MAX', [3, 9, 5], [1], [3, 5])),
    ('layout_pad_rank3', pad_rank3),
    ('layout_strided_slice_steps', strided_slice_steps),
    ('layout_strided_slice_reverse', strided_slice_reverse),
    ('layout_reshape_ranks', reshape_ranks),
    ('matmul_fc_flatten', fully_connected([2, 5, 17], [10, 5], False)),
    ('matmul_broadcast_rank4', batch_matmul([2, 1, 5, 7], [1, 3, 7, 3], [2, 3, 5, 3])),
    ('unary_rsqrt_rank0', rsqrt_rank0),
    ('reduce_sum_all_rank0', sum_all_rank0),
    ('layout_reverse_rank4_axis1', reverse([2, 7, 5, 3], [1])),
    ('layout_reverse_rank4_channels', reverse([1, 3, 5, 17], [3])),
    ('layout_reverse_rank3_axis0', reverse([5, 7, 3], [0])),
    ('layout_reverse_rank5_axis2', reverse([2, 3, 4, 5, 3], [2])),
    ('layout_reverse_rank2_last', reverse([7, 9], [-1])),
    ('layout_reverse_rank5_width', reverse([2, 3, 2, 5, 3], [3])),
    ('layout_concat_batch_axis0', concat([[2, 3, 5, 3], [1, 3, 5, 3]], 0)),
    ('layout_concat_batch_channels', concat([[2, 3, 5, 3], [2, 3, 5, 6], [2, 3, 5, 1]], 3)),
    ('layout_concat_batch_height', concat([[2, 3, 5, 3], [2, 4, 5, 3]], 1, const=(1,))),
    ('layout_concat_batch_width', concat([[3, 2, 5, 5], [3, 2, 2, 5]], 2)),
    ('layout_concat_rank5_axis2', concat([[2, 3, 1, 5, 3], [2, 3, 4, 5, 3]], 2)),
    ('layout_concat_rank5_last', concat([[2, 1, 3, 2, 3], [2, 1, 3, 2, 5]], 4)),
    ('layout_concat_rank5_axis0', concat([[1, 2, 3, 2, 3], [2, 2, 3, 2, 3]], 0)),
    ('layout_slice_batch', slice_([3, 7, 5, 17], [1, 2, 1, 3], [2, 4, -1, 9])),
    ('layout_slice_rank5', slice_([2, 3, 4, 5, 3], [1, 0, 1, 2, 1], [1, -1, 2, 3, 2])),
    ('layout_slice_rank3', slice_([5, 9, 7], [2, 3, 0], [-1, 5, 6])),
    ('layout_strided_slice_batch', strided_slice([3, 7, 5, 17], [1, 1, 0, 2], [3, 7, 5, 17],
                                                 [1, 2, 2, 3], [2, 3, 3, 5])),
    ('layout_strided_slice_rank5', strided_slice([2, 3, 4, 5, 3], [0, 2, 0, 4, 0],
                                                 [2, 0, 4, 0, 3], [1, -1, 3, -2, 2],
                                                 [2, 2, 2, 2, 2])),
    ('layout_transpose_rank5_batch', transpose([3, 2, 4, 1, 5], [2, 0, 4, 3, 1])),
    ('layout_transpose_rank5_last_kept', transpose([2, 5, 3, 2, 3], [3, 2, 1, 0, 4])),
    ('spatial_conv_stride2_same_odd', conv([1, 13, 11, 5], 7, 3, 2, 'SAME')),
    ('spatial_conv_stride2_valid_odd', conv([1, 13, 11, 5], 7, 3, 2, 'VALID')),
    ('spatial_conv_k4_stride2_same', conv([1, 9, 7, 3], 5, 4, 2, 'SAME')),
    ('spatial_conv_dilation2_same', conv([1, 13, 11, 5], 6, 3, 1, 'SAME', dilation=2)),
    ('spatial_conv_dilation3_valid', conv([1, 13, 11, 3], 4, 3, 1, 'VALID', dilation=3)),
    ('spatial_depthwise_stride2_same_odd', depthwise([1, 13, 11, 5], 1, 3, 2, 'SAME')),
    ('spatial_depthwise_stride2_valid_odd', depthwise([1, 13, 11, 4], 2, 5, 2, 'VALID')),
    ('spatial_depthwise_dilation2_same', depthwise([1, 13, 11, 5], 1, 3, 1, 'SAME', dilation=2)),
    ('spatial_depthwise_k4_stride2_same', depthwise([1, 9, 7, 3], 2, 4, 2, 'SAME')),
    ('spatial_max_pool_stride2_same_odd', pool('MAX_POOL_2D', [1, 13, 11, 5], 3, 2, 'SAME')),
    ('spatial_max_pool_stride2_valid_odd', pool('MAX_POOL_2D', [1, 13, 11, 5], 3, 2, 'VALID')),
    ('spatial_max_pool_k2_same_odd', pool('MAX_POOL_2D', [1, 7, 5, 3], 2, 2, 'SAME')),
    ('spatial_average_pool_stride2_same_odd', pool('AVERAGE_POOL_2D', [1, 13, 11, 5], 3, 2, 'SAME')),
    ('spatial_average_pool_stride2_valid_odd', pool('AVERAGE_POOL_2D', [1, 13, 11, 5], 3, 2, 'VALID')),
    ('spatial_average_pool_k4_stride3_same', pool('AVERAGE_POOL_2D', [1, 11, 9, 3], 4, 3, 'SAME')),
    ('spatial_resize_bilinear_up', resize('RESIZE_BILINEAR', [1, 5, 7, 3], [9, 11])),
    ('spatial_resize_bilinear_up_align_corners',
     resize('RESIZE_BILINEAR', [1, 5, 7, 3], [9, 11], align_corners=True)),
    ('spatial_resize_bilinear_up_half_pixel',
     resize('RESIZE_BILINEAR', [1, 5, 7, 3], [9, 11], half_pixel_centers=True)),
    ('spatial_resize_bilinear_down_half_pixel',
     resize('RESIZE_BILINEAR', [1, 9, 11, 5], [4, 6], half_pixel_centers=True)),
    ('spatial_resize_bilinear_down_align_corners',
     resize('RESIZE_BILINEAR', [1, 9, 11, 5], [4, 6], align_corners=True)),
    ('spatial_resize_nearest_up', resize('RESIZE_NEAREST_NEIGHBOR', [1, 5, 7, 3], [9, 11])),
    ('spatial_resize_nearest_up_align_corners',
     resize('RESIZE_NEAREST_NEIGHBOR', [1, 5, 7, 3], [9, 11], align_corners=True)),
    ('spatial_resize_nearest_up_half_pixel',
     resize('RESIZE_NEAREST_NEIGHBOR', [1, 5, 7, 3], [9, 11], half_pixel_centers=True)),
    ('spatial_resize_nearest_down_half_pixel',
     resize('RESIZE_NEAREST_NEIGHBOR', [1, 9, 11, 5], [4, 6], half_pixel_centers=True)),
    ('spatial_resize_nearest_down_align_corners',
     resize('RESIZE_NEAREST_NEIGHBOR', [1, 9, 11, 5], [4, 6], align_corners=True)),
    ('layout_many_outputs', many_outputs),
    ('layout_many_inputs', many_inputs),
    ('cpu_topk_rank3', topk([3, 5, 17], 4)),
    ('cpu_topk_rank2_k_eq_n', topk([7, 9], 9)),
    ('cpu_topk_rank1_k1', topk([13], 1)),
    ('cpu_topk_ties_exact', topk([5, 17], 6, 0, 3, step=1)),
    ('cpu_topk_ties_rank3_exact', topk([2, 3, 11], 7, -2, 3, step=1)),
    ('cpu_nms_v4_exact', nms(4, 17, 7, 0.45, 0.15)),
    ('cpu_nms_v4_flipped_exact', nms(4, 23, 7, 0.3, 0.0, boxes='flipped')),
    ('cpu_nms_v4_few_valid_exact', nms(4, 13, 7, 0.5, 0.8)),
    ('cpu_nms_v5_hard_exact', nms(5, 19, 7, 0.4, 0.1, sigma=0.0)),
    ('cpu_nms_v5_soft', nms(5, 29, 9, 0.7, 0.05, sigma=0.5)),
    ('cpu_nms_v5_soft_few_valid', nms(5, 21, 9, 0.6, 0.6, sigma=0.5, boxes='flipped')),
    ('cpu_nms_v4_zero_area_exact', nms(4, 23, 7, 0.3, 0.0, boxes='flipped', flat=(12, 16))),
    ('cpu_gather_nd_depth1', gather_nd_depth1),
    ('cpu_gather_nd_depth2_rank4', gather_nd_depth2_rank4),
    ('cpu_gather_nd_full_rank3', gather_nd_full_rank3),
    ('cpu_gather_nd_full_rank2', gather_nd_full_rank2),
    ('cpu_scatter_nd_duplicates', scatter_nd([1, 4, 1, 0, 4, 1], [6, 1], [6, 3, 5], [6, 3, 5])),
    ('cpu_scatter_nd_depth2', scatter_nd([0, 1, 3, 4, 2, 0, 3, 4, 1, 1, 0, 1, 3, 0, 2, 2], [2, 4, 2],
                                         [2, 4, 7], [4, 5, 7])),
    ('cpu_scatter_nd_full_depth', scatter_nd([2, 3, 1, 0, 0, 0, 2, 3, 1, 1, 2, 0, 0, 0, 0], [5, 3],
                                             [5], [3, 4, 2])),
    ('cpu_one_hot_last', one_hot([3, 5], 7, -1, -2, 9, 0.75, -0.25)),
    ('cpu_one_hot_axis0', one_hot([4, 3], 5, 0, -3, 6, 1.0, 0.0)),
    ('cpu_detection_fast', detection(19, 3, max_detections=5, max_classes_per_detection=1,
                                     nms_score_threshold=0.3, nms_iou_threshold=0.5)),
    ('cpu_detection_fast_two_classes', detection(27, 4, max_detections=4, max_classes_per_detection=2,
                                                 nms_score_threshold=0.3, nms_iou_threshold=0.45)),
    ('cpu_detection_regular', detection(37, 5, max_detections=6, max_classes_per_detection=1,
                                        detections_per_class=3, use_regular_nms=True,
                                        nms_score_threshold=0.3, nms_iou_threshold=0.5)),
    ('cpu_detection_regular_few', detection(23, 3, max_detections=9, max_classes_per_detection=1,
                                            detections_per_class=2, use_regular_nms=True,
                                            nms_score_threshold=0.75, nms_iou_threshold=0.4)),
    ('cpu_partition_gpu_cpu_gpu', partition_gpu_cpu_gpu),
    ('cpu_partition_cpu_first', partition_cpu_first),
    ('cpu_partition_cpu_last_gather_nd', partition_cpu_last_gather_nd),
    ('cpu_partition_cpu_last_one_hot', partition_cpu_last_one_hot),
    ('cpu_partition_branches', partition_branches),
    ('cpu_partition_ssd_head_fp32', partition_ssd_head),
    ('cpu_partition_topk_nms', partition_topk_nms),
    ('resize_net_9x7', resize_net(9, 7)),
    ('resize_net_13x11', resize_net(13, 11)),
    ('resize_net_16x16', resize_net(16, 16)),
    ('resize_batch_1', resize_batch(1)),
    ('resize_batch_3', resize_batch(3)),
    ('resize_batch_8', resize_batch(8)),
    ('control_signature_encode_decode', signature_encode_decode),
    ('control_while_counter', while_loop(cond_counter, 0.9, 0.1, -1, 1)),
    ('control_while_data_few', while_loop(cond_sum_below(60.0), 1.5, 0.25, 0.5, 1.0)),
    ('control_while_data_many', while_loop(cond_sum_below(60.0), 1.5, 0.25, -0.2, 0.2)),
    ('control_if_then', if_branches(-0.5, 1.0)),
    ('control_if_else', if_branches(-1.0, 0.5)),
    ('control_variable_streaming', variable_streaming),
    ('cpu_gather_beyond_kernel', gather_beyond_kernel),
    ('cpu_rfft2d_pad_parts', rfft2d([2, 5, 6], [8, 8], True)),
    ('cpu_rfft2d_crop_rank4', rfft2d([2, 3, 16, 12], [8, 4], False)),
    ('cpu_rfft2d_spectrogram', rfft2d([1, 49, 40], [64, 64], False)),
    ('cpu_conv3d_same_stride2', conv3d([1, 5, 7, 6, 3], 4, (3, 3, 3), (2, 2, 2), 'SAME')),
    ('cpu_conv3d_valid_dilated', conv3d([2, 6, 5, 7, 2], 5, (2, 3, 2), (1, 1, 2), 'VALID',
                                        dilation=(2, 1, 1))),
    ('cpu_conv3d_transpose_same', conv3d([1, 3, 4, 3, 5], 3, (3, 3, 3), (2, 2, 2), 'SAME',
                                         transpose_to=[1, 6, 8, 6, 3])),
    ('cpu_conv3d_transpose_valid', conv3d([1, 2, 3, 2, 2], 4, (2, 3, 2), (2, 1, 2), 'VALID',
                                          transpose_to=[1, 4, 5, 4, 4])),
    ('cpu_batched_images', batched_images),
    ('cpu_bucketize_exact', bucketize([3, 5, 7], [-1.5, -0.5, 0.0, 0.25, 1.0, 2.5])),
    ('cpu_bucketize_one_exact', bucketize([17], [0.0])),
    ('cpu_bucketize_repeated_exact', bucketize([2, 9], [-1.0, 0.5, 0.5, 2.0])),
]



# More models, each module (a file beside this one) with a MODELS list of its own, seeded by
# name (make.py): ops added in parallel do not move each other's seeds.
MODULES = ['specs_recurrent', 'specs_cpu_misc']
