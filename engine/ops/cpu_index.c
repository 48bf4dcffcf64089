/* cpu_index.c: ops on the CPU that move elements by index, as LiteRT's tflite/kernels/<op>.cc
 * and reference_ops compute them: EMBEDDING_LOOKUP, SPARSE_TO_DENSE, DYNAMIC_UPDATE_SLICE,
 * REVERSE_SEQUENCE, MATRIX_DIAG and MATRIX_SET_DIAG. Index tensors (int32, int64, bool) are
 * float values here, exact below 2^24.
 *
 * EMBEDDING_LOOKUP (embedding_lookup.cc): lookup (rank 1, int32) and value (rank >= 2, any
 *   type; a quantized constant is dequantized at load, TFLite's hybrid form); output
 *   [len(lookup), value.shape[1:]], row i = value[lookup[i]]. An index outside
 *   0 .. rows - 1 fails the op in TFLite.
 * SPARSE_TO_DENSE (sparse_to_dense.cc, reference_ops::SparseToDense): indices (int32 or
 *   int64; rank 0 or 1: that many indices into a rank-1 output; rank 2 [N, D]: N indices of
 *   D coordinates, D = len(output_shape) <= 4), output_shape (rank 1; a constant here, as
 *   it sets the output's shape), values (a scalar for every index, or rank 1 of N), and
 *   default_value (one element); values, default and output float32, int32 or int64 (TFLite
 *   takes no bool). The output is default_value with each index's value written in index
 *   order (a repeated index keeps the last). A coordinate outside its axis fails the op in
 *   current LiteRT (older releases wrote out of bounds). SparseToDenseOptions'
 *   validate_indices is ignored, as TFLite ignores it.
 * DYNAMIC_UPDATE_SLICE (dynamic_update_slice.cc): operand, update (same rank and type, each
 *   extent <= the operand's) and start_indices (rank 1 of rank(operand) values, int32 or
 *   int64, constant or computed). The output is the operand with the update written from
 *   start, each start clamped to 0 .. operand extent - update extent: no index fails.
 * REVERSE_SEQUENCE (reverse_sequence.cc, reference_ops::ReverseSequence): input (float32,
 *   int32, int64), seq_lengths (rank 1 int32 or int64, one per index of batch_dim),
 *   ReverseSequenceOptions seq_dim (field 0) and batch_dim (field 1, default 0), both >= 0,
 *   distinct and below the rank. Along seq_dim, the first seq_lengths[b] elements of batch b
 *   are reversed and the rest kept; a length of 0 or less keeps them all (TFLite's loop). A
 *   length past the seq_dim extent is an error (TFLite checks only the first length and
 *   writes out of bounds for the others): at validate for constant lengths, at run for
 *   computed ones.
 * MATRIX_DIAG (matrix_diag.cc): [..., N] -> [..., N, N], the input on each diagonal and
 *   zeros elsewhere. MATRIX_SET_DIAG (matrix_set_diag.cc): input [..., M, N] with its
 *   diagonal replaced by diagonal [..., min(M, N)] (TFLite reads that many values without
 *   checking the diagonal's shape; vkinfer requires it). Both float32, int32 or int64: for
 *   bool TFLite's kernels copy 4 bytes an element out of 1-byte buffers, so vkinfer refuses
 *   bool.
 *
 * Run-time errors (an index or length a computed tensor holds out of range) come from run
 * as VKI_ERROR_INVALID_ARGUMENT naming the op and value; the references skip such an entry
 * (a zero row for EMBEDDING_LOOKUP, no write for SPARSE_TO_DENSE, the batch left as it is
 * for REVERSE_SEQUENCE). Every op is one pass of copies, as fast as it gets: run is the
 * reference's loop with the status, and NULL for the ops that cannot fail.
 */
#include "ops.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>


/* Input `slot` is float32, int32 or int64 (not bool). */
static vki_status numeric(const vki_model *m, int o, int slot, const char *role, const char *why) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    const int k = vki_value_kind_of(t->dtype);
    if (k == VKI_KIND_FLOAT || k == VKI_KIND_INT) return VKI_OK;
    return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is %s; "
                       "%s", role, slot, op->inputs[slot], t->name, vki_dtype_name(t->dtype), why);
}

static vki_status int_input(const vki_model *m, int o, int slot, const char *role, int rank) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (!vki_dtype_is_int(t->dtype))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') is %s, "
                           "need int32 or int64", role, slot, op->inputs[slot], t->name,
                           vki_dtype_name(t->dtype));
    if (rank >= 0 && t->rank != rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') has rank "
                           "%d, need %d", role, slot, op->inputs[slot], t->name, t->rank, rank);
    if (t->data && t->data_bytes < vki_tensor_elements(t) * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is truncated", role,
                           op->inputs[slot], t->name);
    return VKI_OK;
}

static size_t product(const int *dims, int from, int to) {
    size_t n = 1;
    for (int i = from; i < to; i++) n *= (size_t)dims[i];
    return n;
}

/* ---- EMBEDDING_LOOKUP ------------------------------------------------------------------- */

static vki_status validate_embedding_lookup(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = int_input(m, o, 0, "lookup", 1);
    if (s) return s;
    const vki_tensor *lookup = vki_op_in(m, op, 0), *value = vki_op_in(m, op, 1);
    if (lookup->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "lookup (tensor %d '%s') is %s; TFLite "
                           "takes int32", op->inputs[0], lookup->name,
                           vki_dtype_name(lookup->dtype));
    if (value->rank < 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "value (tensor %d '%s') has rank %d, "
                           "need 2 or more", op->inputs[1], value->name, value->rank);
    s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(value->dtype));
    if (s) return s;
    int dims[VKI_MAX_RANK];
    memcpy(dims, value->shape, sizeof(int) * (size_t)value->rank);
    dims[0] = lookup->shape[0];
    s = vki_op_expect_dims(m, o, op->outputs[0], value->rank, dims);
    if (s || !lookup->data) return s;
    const int32_t *idx = lookup->data;
    for (int i = 0; i < lookup->shape[0]; i++)
        if (idx[i] < 0 || idx[i] >= value->shape[0])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "constant lookup[%d] = %d (tensor "
                               "'%s') is out of range: value tensor '%s' has rows 0 .. %d "
                               "(TFLite fails the op)", i, idx[i], lookup->name, value->name,
                               value->shape[0] - 1);
    return VKI_OK;
}

/* Copies the rows; returns the first lookup out of range (its row zeros), or -1. */
static long embedding_lookup(const vki_model *m, const vki_op *op, const float *const *inputs,
                             float *const *outputs) {
    const vki_tensor *lookup = vki_op_in(m, op, 0), *value = vki_op_in(m, op, 1);
    const int rows = value->shape[0];
    const size_t row = product(value->shape, 1, value->rank);
    long bad = -1;
    for (int i = 0; i < lookup->shape[0]; i++) {
        const float at = inputs[0][i];
        float *dst = outputs[0] + (size_t)i * row;
        if (!(at >= 0.0f && at < (float)rows)) {
            memset(dst, 0, sizeof(float) * row);
            if (bad < 0) bad = i;
            continue;
        }
        memcpy(dst, inputs[1] + (size_t)at * row, sizeof(float) * row);
    }
    return bad;
}

static void reference_embedding_lookup(const vki_model *m, const vki_op *op,
                                       const float *const *inputs, float *const *outputs) {
    (void)embedding_lookup(m, op, inputs, outputs);
}

static vki_status run_embedding_lookup(const vki_model *m, int o, const float *const *inputs,
                                       float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const long bad = embedding_lookup(m, op, inputs, outputs);
    if (bad < 0) return VKI_OK;
    const vki_tensor *value = vki_op_in(m, op, 1);
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "lookup[%ld] = %.0f is out of range: "
                       "value tensor '%s' has rows 0 .. %d", bad, inputs[0][bad], value->name,
                       value->shape[0] - 1);
}

const vki_op_def vki_op_embedding_lookup = {
    .validate = validate_embedding_lookup,
    .reference = reference_embedding_lookup,
    .run = run_embedding_lookup,
    .general = true,
};

/* ---- SPARSE_TO_DENSE -------------------------------------------------------------------- */

/* Indices: n of them, depth coordinates each. */
static void sparse_layout(const vki_tensor *idx, size_t *n, int *depth) {
    *n = idx->rank == 2 ? (size_t)idx->shape[0] : vki_tensor_elements(idx);
    *depth = idx->rank == 2 ? idx->shape[1] : 1;
}

static vki_status validate_sparse_to_dense(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 4, 4, 1);
    if (!s) s = int_input(m, o, 0, "indices", -1);
    if (s) return s;
    const vki_tensor *idx = vki_op_in(m, op, 0), *values = vki_op_in(m, op, 2);
    const vki_tensor *def = vki_op_in(m, op, 3), *shape_t = vki_op_in(m, op, 1);
    if (idx->rank > 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') have rank %d, "
                           "need 0, 1 or 2", op->inputs[0], idx->name, idx->rank);
    if (shape_t->rank != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output_shape (tensor %d '%s') has rank "
                           "%d, need 1", op->inputs[1], shape_t->name, shape_t->rank);
    const int32_t *shape;
    int rank;
    s = vki_op_int_values(m, o, 1, "output_shape", 1, 4, &shape, &rank);
    if (s) return s;
    size_t n;
    int depth;
    sparse_layout(idx, &n, &depth);
    if (depth != rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor '%s') have %d "
                           "coordinates, output_shape (tensor '%s') %d axes", idx->name, depth,
                           shape_t->name, rank);
    for (int i = 0; i < rank; i++)
        if (shape[i] < 1)
            return vki_op_fail(m, o, shape[i] < 0 ? VKI_ERROR_MODEL_FORMAT
                                                  : VKI_ERROR_UNSUPPORTED_MODEL,
                               "output_shape[%d] = %d (tensor '%s'): %s", i, shape[i],
                               shape_t->name, shape[i] < 0 ? "a negative extent"
                                                           : "the output would be empty");
    if (values->rank > 1 || (values->rank == 1 && (size_t)values->shape[0] != n))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "values (tensor %d '%s') have rank %d "
                           "and %zu elements; need a scalar or rank 1 of %zu (one an index)",
                           op->inputs[2], values->name, values->rank,
                           vki_tensor_elements(values), n);
    if (vki_tensor_elements(def) != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "default_value (tensor %d '%s') has %zu "
                           "elements, need 1", op->inputs[3], def->name, vki_tensor_elements(def));
    s = numeric(m, o, 2, "values", "TFLite's SPARSE_TO_DENSE takes float32, int32 and int64");
    if (!s) s = vki_op_expect_kind(m, o, op->inputs[3], "default_value", vki_value_kind_of(values->dtype));
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(values->dtype));
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[0], rank, shape);
    if (s || !idx->data) return s;
    const int32_t *q = idx->data;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < depth; j++) {
            const int32_t c = q[i * (size_t)depth + (size_t)j];
            if (c < 0 || c >= shape[j])
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "constant index %zu (tensor "
                                   "'%s') has coordinate %d = %d, outside 0 .. %d (LiteRT fails "
                                   "the op)", i, idx->name, j, c, shape[j] - 1);
        }
    return VKI_OK;
}

/* Returns the first index with a coordinate out of range (not written), or -1; *axis is
 * that coordinate. */
static long sparse_to_dense(const vki_model *m, const vki_op *op, const float *const *inputs,
                            float *const *outputs, int *axis) {
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const bool scalar = vki_op_in(m, op, 2)->rank == 0;
    size_t n;
    int depth;
    sparse_layout(idx, &n, &depth);
    const size_t total = vki_tensor_elements(out);
    for (size_t e = 0; e < total; e++) outputs[0][e] = inputs[3][0];
    long bad = -1;
    for (size_t i = 0; i < n; i++) {
        size_t at = 0;
        int j = 0;
        for (; j < depth; j++) {
            const float c = inputs[0][i * (size_t)depth + (size_t)j];
            if (!(c >= 0.0f && c < (float)out->shape[j])) break;
            at = at * (size_t)out->shape[j] + (size_t)c;
        }
        if (j < depth) {
            if (bad < 0) {
                bad = (long)i;
                *axis = j;
            }
            continue;
        }
        outputs[0][at] = inputs[2][scalar ? 0 : i];
    }
    return bad;
}

static void reference_sparse_to_dense(const vki_model *m, const vki_op *op,
                                      const float *const *inputs, float *const *outputs) {
    int axis;
    (void)sparse_to_dense(m, op, inputs, outputs, &axis);
}

static vki_status run_sparse_to_dense(const vki_model *m, int o, const float *const *inputs,
                                      float *const *outputs) {
    const vki_op *op = &m->ops[o];
    int axis = 0;
    const long bad = sparse_to_dense(m, op, inputs, outputs, &axis);
    if (bad < 0) return VKI_OK;
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const int depth = idx->rank == 2 ? idx->shape[1] : 1;
    char dims[96];
    vki_format_dims(dims, sizeof dims, out->rank, out->shape);
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "index %ld has coordinate %d = %.0f, "
                       "outside the output %s", bad, axis,
                       inputs[0][(size_t)bad * (size_t)depth + (size_t)axis], dims);
}

const vki_op_def vki_op_sparse_to_dense = {
    .validate = validate_sparse_to_dense,
    .reference = reference_sparse_to_dense,
    .run = run_sparse_to_dense,
    .general = true,
};

/* ---- DYNAMIC_UPDATE_SLICE --------------------------------------------------------------- */

static vki_status validate_dynamic_update_slice(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 3, 3, 1);
    if (!s) s = int_input(m, o, 2, "start_indices", 1);
    if (s) return s;
    const vki_tensor *operand = vki_op_in(m, op, 0), *update = vki_op_in(m, op, 1);
    const vki_tensor *start = vki_op_in(m, op, 2);
    if (start->shape[0] != operand->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "start_indices (tensor %d '%s') hold %d "
                           "values for an operand of rank %d", op->inputs[2], start->name,
                           start->shape[0], operand->rank);
    bool fits = update->rank == operand->rank;
    for (int i = 0; fits && i < operand->rank; i++) fits = update->shape[i] <= operand->shape[i];
    if (!fits) {
        char a[96], b[96];
        vki_format_dims(a, sizeof a, update->rank, update->shape);
        vki_format_dims(b, sizeof b, operand->rank, operand->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "update (tensor '%s') is %s, which does "
                           "not fit the operand (tensor '%s') %s", update->name, a,
                           operand->name, b);
    }
    s = vki_op_expect_kind(m, o, op->inputs[1], "update", vki_value_kind_of(operand->dtype));
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(operand->dtype));
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], operand->rank, operand->shape);
}

static void reference_dynamic_update_slice(const vki_model *m, const vki_op *op,
                                           const float *const *inputs, float *const *outputs) {
    const vki_tensor *operand = vki_op_in(m, op, 0), *update = vki_op_in(m, op, 1);
    const int rank = operand->rank;
    memcpy(outputs[0], inputs[0], sizeof(float) * vki_tensor_elements(operand));
    int start[VKI_MAX_RANK];
    size_t stride[VKI_MAX_RANK];
    for (int d = rank - 1; d >= 0; d--) {
        const float hi = (float)(operand->shape[d] - update->shape[d]), s = inputs[2][d];
        start[d] = s > 0.0f ? (int)(s < hi ? s : hi) : 0;
        stride[d] = product(operand->shape, d + 1, rank);
    }
    /* Rows of the update's last axis, the leading coordinates counted like an odometer. */
    const int last = update->shape[rank - 1];
    const size_t rows = product(update->shape, 0, rank - 1);
    int c[VKI_MAX_RANK] = {0};
    for (size_t r = 0; r < rows; r++) {
        size_t at = 0;
        for (int d = 0; d < rank; d++) at += (size_t)(start[d] + c[d]) * stride[d];
        memcpy(outputs[0] + at, inputs[1] + r * (size_t)last, sizeof(float) * (size_t)last);
        for (int d = rank - 2; d >= 0 && ++c[d] == update->shape[d]; d--) c[d] = 0;
    }
}

const vki_op_def vki_op_dynamic_update_slice = {
    .validate = validate_dynamic_update_slice,
    .reference = reference_dynamic_update_slice,
    .general = true,
};

/* ---- REVERSE_SEQUENCE ------------------------------------------------------------------- */

static vki_status validate_reverse_sequence(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = numeric(m, o, 0, "input", "TFLite's REVERSE_SEQUENCE takes no bool");
    if (!s) s = int_input(m, o, 1, "seq_lengths", 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *len = vki_op_in(m, op, 1);
    const int seq = op->opt.misc.i[0], batch = op->opt.misc.i[1];
    if (seq < 0 || batch < 0 || seq == batch || seq >= in->rank || batch >= in->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "seq_dim %d and batch_dim %d: need two "
                           "different axes 0 .. %d of input tensor '%s' (TFLite takes no "
                           "negative axis)", seq, batch, in->rank - 1, in->name);
    if (len->shape[0] != in->shape[batch])
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "seq_lengths (tensor '%s') hold %d "
                           "lengths, batch_dim %d of the input has %d", len->name, len->shape[0],
                           batch, in->shape[batch]);
    s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(in->dtype));
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
    if (s || !len->data) return s;
    const int32_t *v = len->data;
    for (int b = 0; b < len->shape[0]; b++)
        if (v[b] > in->shape[seq])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "constant seq_lengths[%d] = %d "
                               "(tensor '%s') is past seq_dim %d's extent %d", b, v[b],
                               len->name, seq, in->shape[seq]);
    return VKI_OK;
}

/* Returns the first batch whose length is past the sequence's extent (left as it is), or
 * -1. */
static long reverse_sequence(const vki_model *m, const vki_op *op, const float *const *inputs,
                             float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int seq = op->opt.misc.i[0], batch = op->opt.misc.i[1];
    const int a = seq < batch ? seq : batch, b = seq < batch ? batch : seq;
    const size_t outer = product(in->shape, 0, a), medium = product(in->shape, a + 1, b);
    const size_t inner = product(in->shape, b + 1, in->rank);
    const int da = in->shape[a], db = in->shape[b], n = in->shape[seq];
    long bad = -1;
    for (size_t i = 0; i < outer; i++)
        for (int j = 0; j < da; j++)
            for (size_t p = 0; p < medium; p++)
                for (int q = 0; q < db; q++) {
                    const int bi = batch == a ? j : q, si = seq == a ? j : q;
                    const float len = inputs[1][bi];
                    int to = si;
                    if (len > (float)n) {
                        if (bad < 0) bad = bi;
                    } else if ((float)si < len) {
                        to = (int)len - 1 - si;
                    }
                    const int ja = seq == a ? to : j, qb = seq == a ? q : to;
                    const size_t src = (((i * (size_t)da + (size_t)j) * medium + p) * (size_t)db +
                                        (size_t)q) * inner;
                    const size_t dst = (((i * (size_t)da + (size_t)ja) * medium + p) * (size_t)db +
                                        (size_t)qb) * inner;
                    memcpy(outputs[0] + dst, inputs[0] + src, sizeof(float) * inner);
                }
    return bad;
}

static void reference_reverse_sequence(const vki_model *m, const vki_op *op,
                                       const float *const *inputs, float *const *outputs) {
    (void)reverse_sequence(m, op, inputs, outputs);
}

static vki_status run_reverse_sequence(const vki_model *m, int o, const float *const *inputs,
                                       float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const long bad = reverse_sequence(m, op, inputs, outputs);
    if (bad < 0) return VKI_OK;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int seq = op->opt.misc.i[0];
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "seq_lengths[%ld] = %.0f is past seq_dim "
                       "%d's extent %d", bad, inputs[1][bad], seq, in->shape[seq]);
}

/* ReverseSequenceOptions: seq_dim (0), batch_dim (1); schema defaults 0. */
static vki_status read_reverse_sequence(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t seq, batch;
    if (!vki_opt_i32(r, 0, 0, &seq) || !vki_opt_i32(r, 1, 0, &batch)) return vki_opt_malformed(r);
    op->opt.misc.i[0] = seq;
    op->opt.misc.i[1] = batch;
    return VKI_OK;
}

const vki_op_def vki_op_reverse_sequence = {
    .validate = validate_reverse_sequence,
    .reference = reference_reverse_sequence,
    .options = read_reverse_sequence,
    .run = run_reverse_sequence,
    .general = true,
};

/* ---- MATRIX_DIAG, MATRIX_SET_DIAG ------------------------------------------------------- */

static const char *const no_bool = "TFLite's kernel copies 4 bytes an element of a bool buffer";

static vki_status validate_matrix_diag(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (!s) s = numeric(m, o, 0, "input", no_bool);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->rank < 1 || in->rank + 1 > VKI_MAX_RANK)
        return vki_op_fail(m, o, in->rank < 1 ? VKI_ERROR_MODEL_FORMAT : VKI_ERROR_UNSUPPORTED_MODEL,
                           "input (tensor %d '%s') has rank %d, need 1 to %d", op->inputs[0],
                           in->name, in->rank, VKI_MAX_RANK - 1);
    int dims[VKI_MAX_RANK];
    memcpy(dims, in->shape, sizeof(int) * (size_t)in->rank);
    dims[in->rank] = in->shape[in->rank - 1];
    s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(in->dtype));
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], in->rank + 1, dims);
}

static void reference_matrix_diag(const vki_model *m, const vki_op *op,
                                  const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    const size_t n = (size_t)in->shape[in->rank - 1], batches = vki_tensor_elements(in) / n;
    float *y = outputs[0];
    for (size_t b = 0; b < batches; b++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) *y++ = i == j ? inputs[0][b * n + i] : 0.0f;
}

const vki_op_def vki_op_matrix_diag = {
    .validate = validate_matrix_diag,
    .reference = reference_matrix_diag,
    .general = true,
};

static vki_status validate_matrix_set_diag(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = numeric(m, o, 0, "input", no_bool);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *diag = vki_op_in(m, op, 1);
    if (in->rank < 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') has rank %d, "
                           "need 2 or more", op->inputs[0], in->name, in->rank);
    int want[VKI_MAX_RANK];
    memcpy(want, in->shape, sizeof(int) * (size_t)(in->rank - 1));
    const int rows = in->shape[in->rank - 2], cols = in->shape[in->rank - 1];
    want[in->rank - 2] = rows < cols ? rows : cols;
    bool same = diag->rank == in->rank - 1;
    for (int i = 0; same && i < diag->rank; i++) same = diag->shape[i] == want[i];
    if (!same) {
        char got[96], need[96];
        vki_format_dims(got, sizeof got, diag->rank, diag->shape);
        vki_format_dims(need, sizeof need, in->rank - 1, want);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "diagonal (tensor %d '%s') is %s, the "
                           "input (tensor '%s') needs %s", op->inputs[1], diag->name, got,
                           in->name, need);
    }
    s = vki_op_expect_kind(m, o, op->inputs[1], "diagonal", vki_value_kind_of(in->dtype));
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(in->dtype));
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

static void reference_matrix_set_diag(const vki_model *m, const vki_op *op,
                                      const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    const size_t rows = (size_t)in->shape[in->rank - 2], cols = (size_t)in->shape[in->rank - 1];
    const size_t k = rows < cols ? rows : cols, batches = vki_tensor_elements(in) / (rows * cols);
    memcpy(outputs[0], inputs[0], sizeof(float) * vki_tensor_elements(in));
    for (size_t b = 0; b < batches; b++)
        for (size_t i = 0; i < k; i++)
            outputs[0][(b * rows + i) * cols + i] = inputs[1][b * k + i];
}

const vki_op_def vki_op_matrix_set_diag = {
    .validate = validate_matrix_set_diag,
    .reference = reference_matrix_set_diag,
    .general = true,
};
