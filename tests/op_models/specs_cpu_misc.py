"""specs_cpu_misc.py: op models of the small builtins vkinfer runs on the CPU (engine/ops/
cpu_misc.c, cpu_index.c, cpu_reduce.c), against LiteRT: EMBEDDING_LOOKUP, L2_POOL_2D,
SPARSE_TO_DENSE, SHAPE, FAKE_QUANT, ZEROS_LIKE, FILL, RANGE, RANK, REVERSE_SEQUENCE,
MATRIX_DIAG, MATRIX_SET_DIAG, SEGMENT_SUM, REDUCE_ALL, BROADCAST_ARGS, DYNAMIC_UPDATE_SLICE,
UNSORTED_SEGMENT_SUM / PROD / MAX / MIN and ATAN2. A module of specs.MODULES (seeded by name;
see make.py).

Graph inputs are float32; int32, int64 and bool tensors are made in the graph (CAST of inputs
drawn with step 1, GREATER), and non-float outputs leave through CAST (`*_exact` models:
integer or bool outputs; `*_fp32` models: FAKE_QUANT, whose grid steps float16's rounding of
its input would move, and the float UNSORTED_SEGMENT_MAX / MIN, whose empty segments hold
-FLT_MAX / FLT_MAX). Each op has a model where a GPU op computes its input and another
reads its output (RANGE, whose inputs are constants, only the latter). Indices and lengths
drawn at run time stay in range: LiteRT does not report a kernel's failure at run time, so an
out-of-range case would store whatever its memory held.
"""


def op(g, name, inputs, shape, ttype='float32', **options):
    """One op with one output of `shape` (a scalar for []); returns the output."""
    return g.op(name, inputs, [list(shape)], ttype, **options)[0]


def int_in(g, shape, lo, hi, ttype='int32'):
    """Whole numbers in [lo, hi): an input drawn with step 1, CAST to ttype."""
    return op(g, 'CAST', [g.input(shape, lo, hi, step=1)], shape, ttype)


def half(g, t, shape):
    """t * 0.5 on the GPU (exact, so both sides hand the CPU op the same values)."""
    return op(g, 'MUL', [t, g.tensor([], data=[0.5])], shape)


def to_float(g, t, shape):
    return op(g, 'CAST', [t], shape)


# ---- EMBEDDING_LOOKUP -------------------------------------------------------------------------

def embedding_lookup_const_table(g):
    """Computed lookup (whole numbers 0 .. 10, repeats likely) into a constant [11,3,5] table."""
    ids = int_in(g, [7], 0, 11)
    g.output(op(g, 'EMBEDDING_LOOKUP', [ids, g.const([11, 3, 5])], [7, 3, 5]))


def embedding_lookup_partition(g):
    """GPU -> CPU -> GPU: the table is MUL(x, 0.5) [6,9], constant lookup (a repeat), ADD."""
    v = half(g, g.input([6, 9], -2, 2), [6, 9])
    e = op(g, 'EMBEDDING_LOOKUP', [g.ints([4, 0, 5, 5, 2]), v], [5, 9])
    g.output(op(g, 'ADD', [e, g.const([9])], [5, 9]))


def embedding_lookup_int(g):
    """An int32 table [5,4] and lookup [9], both computed."""
    v = int_in(g, [5, 4], -50, 50)
    g.output(op(g, 'EMBEDDING_LOOKUP', [int_in(g, [9], 0, 5), v], [9, 4], 'int32'))


# ---- L2_POOL_2D -------------------------------------------------------------------------------

def l2_pool(shape, fh, fw, sh, sw, padding, activation='NONE', lo=-3.0, hi=3.0):
    """ADD on the GPU, L2_POOL_2D, MUL by 0.5 on the GPU."""
    def build(g):
        n, h, w, c = shape
        if padding == 'SAME':
            oh, ow = (h + sh - 1) // sh, (w + sw - 1) // sw
        else:
            oh, ow = (h - fh + sh) // sh, (w - fw + sw) // sw
        x = op(g, 'ADD', [g.input(shape, lo, hi), g.const([c])], shape)
        y = op(g, 'L2_POOL_2D', [x], [n, oh, ow, c], padding=padding, stride_h=sh, stride_w=sw,
                 filter_h=fh, filter_w=fw, activation=activation)
        g.output(half(g, y, [n, oh, ow, c]))
    return build


# ---- SPARSE_TO_DENSE --------------------------------------------------------------------------

def sparse_to_dense_2d(g):
    """Constant [6,2] indices into [4,7] (one index twice: the later value stays), values a
    GPU op's output, default -0.5, ADD after."""
    v = op(g, 'NEG', [g.input([6])], [6])
    idx = g.ints([0, 1, 3, 6, 2, 2, 0, 1, 1, 5, 3, 0], [6, 2])
    y = op(g, 'SPARSE_TO_DENSE', [idx, g.ints([4, 7]), v, g.tensor([], data=[-0.5])], [4, 7])
    g.output(op(g, 'ADD', [y, g.const([7])], [4, 7]))


def sparse_to_dense_1d_computed(g):
    """Computed rank-1 indices (0 .. 10, repeats: the later value stays) into [11]."""
    idx = int_in(g, [5], 0, 11)
    g.output(op(g, 'SPARSE_TO_DENSE', [idx, g.ints([11]), g.input([5]), g.tensor([], data=[0.0])],
                  [11]))


def sparse_to_dense_rank4_int(g):
    """Constant [5,4] indices into [2,3,4,5], computed int32 values, default 7."""
    idx = g.ints([1, 2, 3, 4, 0, 0, 0, 0, 1, 0, 2, 1, 0, 2, 3, 4, 1, 1, 1, 1], [5, 4])
    v = int_in(g, [5], -20, 20)
    g.output(op(g, 'SPARSE_TO_DENSE', [idx, g.ints([2, 3, 4, 5]), v, g.ints([7], [])],
                  [2, 3, 4, 5], 'int32'))


def sparse_to_dense_scalar_value(g):
    """A rank-0 index and a scalar value (computed) into [9]."""
    v = op(g, 'ABS', [g.input([])], [])
    g.output(op(g, 'SPARSE_TO_DENSE', [g.ints([6], []), g.ints([9]), v, g.tensor([], data=[0.25])],
                  [9]))


# ---- SHAPE, RANK ------------------------------------------------------------------------------

def shape_op(shape, out_type):
    """SHAPE of ABS(x); its values times 0.5 through CAST and MUL, and the shape itself."""
    def build(g):
        s = op(g, 'SHAPE', [op(g, 'ABS', [g.input(shape)], shape)], [len(shape)], out_type,
                 out_type=out_type)
        g.output(half(g, to_float(g, s, [len(shape)]), [len(shape)]))
        g.output(s)
    return build


def rank_op(g):
    """RANK of NEG(x) [2,3,1,5]: an int32 scalar, CAST and added to NEG(x)."""
    t = op(g, 'NEG', [g.input([2, 3, 1, 5])], [2, 3, 1, 5])
    r = op(g, 'RANK', [t], [], 'int32')
    g.output(op(g, 'ADD', [t, to_float(g, r, [])], [2, 3, 1, 5]))
    g.output(r)


# ---- FAKE_QUANT -------------------------------------------------------------------------------

def fake_quant(shape, lo, hi, mn, mx, bits):
    """MUL by 0.5 (exact), FAKE_QUANT, ADD 0.25."""
    def build(g):
        y = op(g, 'FAKE_QUANT', [half(g, g.input(shape, lo, hi), shape)], shape, min=mn, max=mx,
                 num_bits=bits)
        g.output(op(g, 'ADD', [y, g.tensor([], data=[0.25])], shape))
    return build


# ---- ZEROS_LIKE, FILL, RANGE ------------------------------------------------------------------

def zeros_like_partition(g):
    """NEG -> ZEROS_LIKE -> ADD with the input."""
    x = g.input([2, 3, 5])
    z = op(g, 'ZEROS_LIKE', [op(g, 'NEG', [x], [2, 3, 5])], [2, 3, 5])
    g.output(op(g, 'ADD', [z, x], [2, 3, 5]))


def zeros_like_int(ttype, shape):
    def build(g):
        g.output(op(g, 'ZEROS_LIKE', [int_in(g, shape, -9, 9, ttype)], shape, ttype))
    return build


def fill_computed(g):
    """FILL [2,3,5] with a value the GPU computes (SUM of x over both axes), ADD after."""
    s = op(g, 'SUM', [g.input([3, 4]), g.ints([0, 1])], [], keep_dims=False)
    y = op(g, 'FILL', [g.ints([2, 3, 5]), s], [2, 3, 5])
    g.output(op(g, 'ADD', [y, g.const([5])], [2, 3, 5]))


def fill_int(g):
    """FILL [7] (int64 dims) with a computed int32 scalar."""
    v = int_in(g, [], -100, 100)
    g.output(op(g, 'FILL', [g.tensor([1], 'int64', [7]), v], [7], 'int32'))


def fill_bool(g):
    """FILL [3,1,4] with a computed bool (x > 0)."""
    b = op(g, 'GREATER', [g.input([], -1, 1), g.tensor([], data=[0.0])], [], 'bool')
    g.output(op(g, 'FILL', [g.ints([3, 1, 4]), b], [3, 1, 4], 'bool'))


def range_float(start, limit, delta, n):
    """RANGE of float constants (the accumulated float additions), ADD of an input after."""
    def build(g):
        r = op(g, 'RANGE', [g.tensor([], data=[start]), g.tensor([], data=[limit]),
                           g.tensor([], data=[delta])], [n])
        g.output(op(g, 'ADD', [r, g.input([n])], [n]))
    return build


def range_int(start, limit, delta, n, ttype):
    """RANGE of integer constants; CAST and ADD of an input after, and the range itself."""
    def build(g):
        args = [g.tensor([], ttype, [v]) for v in (start, limit, delta)]
        r = op(g, 'RANGE', args, [n], ttype)
        g.output(op(g, 'ADD', [to_float(g, r, [n]), g.input([n])], [n]))
        g.output(r)
    return build


# ---- REVERSE_SEQUENCE -------------------------------------------------------------------------

def reverse_sequence(shape, seq_dim, batch_dim, lengths=None, ttype='float32', lo=0):
    """ABS -> REVERSE_SEQUENCE -> NEG (float), or on computed integers; lengths constant
    (a list) or computed (whole numbers lo .. extent of seq_dim, int64)."""
    def build(g):
        if ttype == 'float32':
            x = op(g, 'ABS', [g.input(shape, -2, 2)], shape)
        else:
            x = int_in(g, shape, -50, 50, ttype)
        if lengths is not None:
            n = g.ints(lengths)
        else:
            n = int_in(g, [shape[batch_dim]], lo, shape[seq_dim] + 1, 'int64')
        y = op(g, 'REVERSE_SEQUENCE', [x, n], shape, ttype, seq_dim=seq_dim, batch_dim=batch_dim)
        g.output(op(g, 'NEG', [y], shape) if ttype == 'float32' else y)
    return build


# ---- MATRIX_DIAG, MATRIX_SET_DIAG -------------------------------------------------------------

def matrix_diag(shape, ttype='float32'):
    def build(g):
        out = list(shape) + [shape[-1]]
        if ttype == 'float32':
            d = op(g, 'MATRIX_DIAG', [half(g, g.input(shape), shape)], out)
            g.output(op(g, 'ADD', [d, g.const([shape[-1]])], out))
        else:
            g.output(op(g, 'MATRIX_DIAG', [int_in(g, shape, -9, 9, ttype)], out, ttype))
    return build


def matrix_set_diag(shape, ttype='float32'):
    def build(g):
        k = min(shape[-2], shape[-1])
        dshape = list(shape[:-2]) + [k]
        if ttype == 'float32':
            x = op(g, 'NEG', [g.input(shape)], shape)
            y = op(g, 'MATRIX_SET_DIAG', [x, half(g, g.input(dshape, 2, 4), dshape)], shape)
            g.output(op(g, 'ADD', [y, g.const([shape[-1]])], shape))
        else:
            x, d = int_in(g, shape, -9, 9, ttype), int_in(g, dshape, 10, 20, ttype)
            g.output(op(g, 'MATRIX_SET_DIAG', [x, d], shape, ttype))
    return build


# ---- SEGMENT_SUM, UNSORTED_SEGMENT_* ----------------------------------------------------------

def segment_sum(shape, ids, ttype='float32'):
    def build(g):
        out = [ids[-1] + 1] + list(shape[1:])
        if ttype == 'float32':
            x = op(g, 'NEG', [g.input(shape)], shape)
            y = op(g, 'SEGMENT_SUM', [x, g.ints(ids)], out)
            g.output(half(g, y, out))
        else:
            g.output(op(g, 'SEGMENT_SUM', [int_in(g, shape, -30, 30), g.ints(ids)], out, 'int32'))
    return build


def unsorted_segment(kind, shape, ids_shape, num, ttype='float32', ids=None, num_shape=(),
                     lo=-2.0, hi=2.0):
    """UNSORTED_SEGMENT_<kind> of data (NEG of an input, or whole numbers) by segment ids drawn
    from -1 (skipped) .. num - 2 (so the last segment stays empty: the op's identity) or
    constant; num_segments a constant."""
    def build(g):
        if ttype == 'float32':
            x = op(g, 'NEG', [g.input(shape, lo, hi)], shape)
        else:
            x = int_in(g, shape, lo, hi)
        s = int_in(g, ids_shape, -1, num - 1) if ids is None else g.ints(ids, ids_shape)
        out = [num] + list(shape[len(ids_shape):])
        y = op(g, 'UNSORTED_SEGMENT_' + kind, [x, s, g.ints([num], list(num_shape))], out, ttype)
        g.output(op(g, 'ADD', [y, g.tensor([], data=[0.5])], out) if ttype == 'float32' else y)
    return build


# ---- REDUCE_ALL -------------------------------------------------------------------------------

def reduce_all(shape, axes, keep_dims, out):
    """REDUCE_ALL of x > 0, x mostly positive ([-0.1, 1)), so some reductions are true."""
    def build(g):
        b = op(g, 'GREATER', [g.input(shape, -0.1, 1.0), g.tensor([], data=[0.0])], shape, 'bool')
        g.output(op(g, 'REDUCE_ALL', [b, g.ints(axes)], out, 'bool', keep_dims=keep_dims))
    return build


# ---- BROADCAST_ARGS ---------------------------------------------------------------------------

def computed_shape(g, values, ttype):
    """A shape the GPU computes: zeros (an input drawn in [0, 1) with step 1) plus the values,
    CAST to ttype."""
    n = len(values)
    z = op(g, 'ADD', [g.input([n], 0, 1, step=1), g.tensor([n], data=[float(v) for v in values])], [n])
    return op(g, 'CAST', [z], [n], ttype)


def broadcast_args(first, second, ttype, computed):
    """BROADCAST_ARGS of two shapes, `computed` of them made on the GPU; CAST and ADD of an
    input after, and the result itself."""
    def build(g):
        a, b = [computed_shape(g, s, ttype) if i in computed else g.tensor([len(s)], ttype, s)
                for i, s in enumerate((first, second))]
        n = max(len(first), len(second))
        y = op(g, 'BROADCAST_ARGS', [a, b], [n], ttype)
        g.output(op(g, 'ADD', [to_float(g, y, [n]), g.input([n])], [n]))
        g.output(y)
    return build


# ---- DYNAMIC_UPDATE_SLICE ---------------------------------------------------------------------

def dynamic_update_slice(shape, update, start=None, ttype='float32'):
    """NEG(operand), an update input and constant start indices (some past the end: clamped)
    or computed ones (-3 .. extent + 1: clamped both ways); ADD after."""
    def build(g):
        s = g.ints(start) if start is not None else int_in(g, [len(shape)], -3, max(shape) + 2)
        if ttype == 'float32':
            x = op(g, 'NEG', [g.input(shape)], shape)
            y = op(g, 'DYNAMIC_UPDATE_SLICE', [x, g.input(update, 2, 3), s], shape)
            g.output(op(g, 'ADD', [y, g.tensor([], data=[0.5])], shape))
        else:
            x, u = int_in(g, shape, -9, 9, ttype), int_in(g, update, 10, 20, ttype)
            g.output(op(g, 'DYNAMIC_UPDATE_SLICE', [x, u, s], shape, ttype))
    return build


# ---- ATAN2 ------------------------------------------------------------------------------------

def atan2(shape, step=None):
    """ATAN2 of MUL(y, 0.5) and x (an input), NEG after; with `step` the inputs are
    multiples of it, zeros and every sign included."""
    def build(g):
        y = half(g, g.input(shape, -2, 2, step=step), shape)
        x = g.input(shape, -2, 2, step=step)
        g.output(op(g, 'NEG', [op(g, 'ATAN2', [y, x], shape)], shape))
    return build


MODELS = [
    ('cpum_embedding_lookup_const_table', embedding_lookup_const_table),
    ('cpum_embedding_lookup_partition', embedding_lookup_partition),
    ('cpum_embedding_lookup_int_exact', embedding_lookup_int),
    ('cpum_l2_pool_same_s2', l2_pool([2, 9, 7, 5], 3, 3, 2, 2, 'SAME')),
    ('cpum_l2_pool_valid_relu6', l2_pool([1, 8, 11, 3], 2, 3, 1, 2, 'VALID', 'RELU6', -8, 8)),
    ('cpum_l2_pool_same_4x2', l2_pool([3, 5, 6, 2], 4, 2, 1, 3, 'SAME')),
    ('cpum_sparse_to_dense_2d', sparse_to_dense_2d),
    ('cpum_sparse_to_dense_1d_computed', sparse_to_dense_1d_computed),
    ('cpum_sparse_to_dense_rank4_int_exact', sparse_to_dense_rank4_int),
    ('cpum_sparse_to_dense_scalar_value', sparse_to_dense_scalar_value),
    ('cpum_shape_rank4_exact', shape_op([2, 3, 5, 7], 'int32')),
    ('cpum_shape_rank1_int64_exact', shape_op([9], 'int64')),
    ('cpum_shape_rank5_exact', shape_op([2, 1, 3, 1, 4], 'int32')),
    ('cpum_rank_exact', rank_op),
    ('cpum_fake_quant_8bit_fp32', fake_quant([2, 5, 7], -6, 6, -1.5, 2.25, 8)),
    ('cpum_fake_quant_4bit_positive_min_fp32', fake_quant([13], -2, 8, 0.2, 3.1, 4)),
    ('cpum_fake_quant_5bit_negative_max_fp32', fake_quant([3, 4, 2, 5], -10, 2, -4.0, -0.5, 5)),
    ('cpum_fake_quant_16bit_fp32', fake_quant([4, 9], -3, 3, -1.0, 1.0, 16)),
    ('cpum_zeros_like_partition', zeros_like_partition),
    ('cpum_zeros_like_int_exact', zeros_like_int('int32', [3, 4, 5])),
    ('cpum_zeros_like_int64_exact', zeros_like_int('int64', [7])),
    ('cpum_fill_computed', fill_computed),
    ('cpum_fill_int_exact', fill_int),
    ('cpum_fill_bool_exact', fill_bool),
    ('cpum_range_float', range_float(0.5, 7.3, 0.7, 10)),
    ('cpum_range_float_descending', range_float(1.25, -2.0, -0.375, 9)),
    ('cpum_range_int_descending_exact', range_int(10, -3, -3, 5, 'int32')),
    ('cpum_range_int64_exact', range_int(2, 9, 2, 4, 'int64')),
    ('cpum_reverse_sequence_seq1_batch0', reverse_sequence([4, 7, 3], 1, 0, [7, 0, 3, 5])),
    ('cpum_reverse_sequence_batch_after_seq', reverse_sequence([5, 2, 6], 0, 2, [5, 1, 2, 4, 3, 0])),
    ('cpum_reverse_sequence_rank4_computed', reverse_sequence([2, 3, 6, 4], 2, 1)),
    ('cpum_reverse_sequence_int_exact', reverse_sequence([3, 5], 1, 0, [5, 2, 4], 'int32')),
    ('cpum_matrix_diag_rank2', matrix_diag([3, 5])),
    ('cpum_matrix_diag_rank3', matrix_diag([2, 2, 4])),
    ('cpum_matrix_diag_rank1_int_exact', matrix_diag([6], 'int32')),
    ('cpum_matrix_set_diag_wide', matrix_set_diag([2, 3, 5])),
    ('cpum_matrix_set_diag_tall', matrix_set_diag([4, 7, 3])),
    ('cpum_matrix_set_diag_int64_exact', matrix_set_diag([2, 2, 6, 6], 'int64')),
    ('cpum_segment_sum_rank2', segment_sum([7, 3], [0, 0, 1, 2, 2, 2, 3])),
    ('cpum_segment_sum_rank3', segment_sum([5, 2, 3], [0, 1, 1, 1, 2])),
    ('cpum_segment_sum_rank1', segment_sum([9], [0, 1, 1, 2, 3, 3, 3, 4, 5])),
    ('cpum_segment_sum_int_exact', segment_sum([6, 4], [0, 0, 0, 1, 1, 2], 'int32')),
    ('cpum_reduce_all_axis1_exact', reduce_all([3, 4, 5], [1], False, [3, 5])),
    ('cpum_reduce_all_keep_negative_exact', reduce_all([2, 3, 4, 2], [0, -1], True, [1, 3, 4, 1])),
    ('cpum_reduce_all_every_axis_exact', reduce_all([5, 3], [0, 1, 1], False, [])),
    ('cpum_reduce_all_rank1_exact', reduce_all([4], [0], True, [1])),
    ('cpum_broadcast_args_computed_exact', broadcast_args([3, 1, 5], [2, 1, 4, 1], 'int32', {1})),
    ('cpum_broadcast_args_int64_exact', broadcast_args([5, 1], [7, 1, 3], 'int64', {0})),
    ('cpum_broadcast_args_both_computed_exact', broadcast_args([6, 1], [1, 1, 4], 'int32', {0, 1})),
    ('cpum_broadcast_args_const_exact', broadcast_args([6, 1], [1, 1, 4], 'int32', set())),
    ('cpum_dynamic_update_slice_const', dynamic_update_slice([5, 7, 3], [2, 3, 3], [1, 5, 0])),
    ('cpum_dynamic_update_slice_computed', dynamic_update_slice([2, 6, 5, 4], [1, 2, 5, 3])),
    ('cpum_dynamic_update_slice_rank1_int_exact', dynamic_update_slice([9], [4], [7], 'int32')),
    ('cpum_dynamic_update_slice_whole', dynamic_update_slice([3, 4], [3, 4], [1, -2])),
    ('cpum_unsorted_segment_sum', unsorted_segment('SUM', [7, 4], [7], 5)),
    ('cpum_unsorted_segment_prod', unsorted_segment('PROD', [3, 4, 5], [3, 4], 6)),
    ('cpum_unsorted_segment_max_fp32', unsorted_segment('MAX', [6, 3], [6], 4)),
    ('cpum_unsorted_segment_min_fp32', unsorted_segment('MIN', [2, 5, 3], [2, 5], 4, num_shape=[1])),
    ('cpum_unsorted_segment_sum_const_ids', unsorted_segment('SUM', [3, 2, 5], [3, 2], 3,
                                                             ids=[0, 2, 2, -1, 1, 0])),
    ('cpum_unsorted_segment_min_int_exact', unsorted_segment('MIN', [8, 2], [8], 5, 'int32',
                                                             lo=-40, hi=40)),
    ('cpum_unsorted_segment_max_int_exact', unsorted_segment('MAX', [5, 3, 2], [5, 3], 7, 'int32',
                                                             lo=-40, hi=40)),
    ('cpum_unsorted_segment_prod_int_exact', unsorted_segment('PROD', [6, 3], [6], 3, 'int32',
                                                              lo=-4, hi=5)),
    ('cpum_unsorted_segment_sum_int_exact', unsorted_segment('SUM', [9], [9], 4, 'int32',
                                                             lo=-40, hi=40)),
    ('cpum_atan2_rank3', atan2([3, 5, 7])),
    ('cpum_atan2_rank4_batch', atan2([2, 3, 4, 5])),
    ('cpum_atan2_quadrants', atan2([29], step=0.5)),
]
