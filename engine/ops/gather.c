/* gather.c: GATHER (slices of the params picked by an index tensor along one axis), as a
 * remap description (remap.h) whose coordinate along the axis is looked up in the
 * indices. Indices may be a constant (any rank up to 3) or an activation of rank <= 1;
 * an index outside the axis reads the nearest slice (TFLite reports an error at run time,
 * which a recorded command buffer cannot). */
#include "remap.h"

#include <string.h>

static vki_status describe_gather(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *params = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    if (!vki_dtype_is_index(idx->dtype) || idx->dtype == VKI_DTYPE_BOOL)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') are %s, need "
                           "int32 or int64", op->inputs[1], idx->name, vki_dtype_name(idx->dtype));
    if (op->opt.gather.batch_dims != 0)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "batch_dims %d is not supported "
                           "(only 0)", op->opt.gather.batch_dims);
    if (idx->rank > (idx->data ? 3 : 1))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "indices (tensor %d '%s') have rank "
                           "%d, at most %s", op->inputs[1], idx->name, idx->rank,
                           idx->data ? "3 (constant)" : "1 (computed)");
    if (idx->data && idx->data_bytes < vki_tensor_elements(idx) * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices tensor %d '%s' is truncated",
                           op->inputs[1], idx->name);
    int axis = op->opt.gather.axis < 0 ? op->opt.gather.axis + params->rank : op->opt.gather.axis;
    int r_out = params->rank - 1 + idx->rank;
    if (axis < 0 || axis >= params->rank || r_out > VKI_REMAP_RANK)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "axis %d of rank-%d params with "
                           "rank-%d indices (output rank at most %d)", op->opt.gather.axis,
                           params->rank, idx->rank, VKI_REMAP_RANK);
    int dims[VKI_MAX_RANK], k = 0;
    for (int i = 0; i < axis; i++) dims[k++] = params->shape[i];
    for (int i = 0; i < idx->rank; i++) dims[k++] = idx->shape[i];
    for (int i = axis + 1; i < params->rank; i++) dims[k++] = params->shape[i];
    s = vki_op_expect_dims(m, o, op->outputs[0], r_out, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    for (int j = 0; j < VKI_REMAP_RANK - params->rank; j++) vki_remap_fixed(r, j, 0);
    for (int i = 0; i < params->rank; i++) {
        int j = vki_axis5(i, params->rank);
        if (i < axis) { vki_remap_from(r, j, vki_axis5(i, r_out), 1); continue; }
        if (i > axis) { vki_remap_from(r, j, vki_axis5(i - 1 + idx->rank, r_out), 1); continue; }
        /* The table index: the output's index axes as a row-major linear index. */
        vki_remap_fixed(r, j, 0);
        int stride = 1;
        for (int q = idx->rank - 1; q >= 0; q--) {
            vki_remap_term_add(r, j, vki_axis5(axis + q, r_out), 0, 1, 0, stride);
            stride *= idx->shape[q];
        }
        r->table = 1;
        r->table_axis = j;
    }
    return VKI_OK;
}

/* GatherOptions: axis at field 0, batch_dims at field 1. */
static vki_status read_gather(vki_options_reader *rd, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t axis, batch_dims;
    if (!vki_opt_i32(rd, 0, 0, &axis) || !vki_opt_i32(rd, 1, 0, &batch_dims))
        return vki_opt_malformed(rd);
    op->opt.gather.axis = axis;
    op->opt.gather.batch_dims = batch_dims;
    return VKI_OK;
}

VKI_REMAP_OP(gather, describe_gather, read_gather);

/* ---- on the CPU: what the kernel cannot take ---------------------------------------------
 * GATHER with batch_dims, indices of any rank (computed ones of rank > 1, constants of rank
 * > 3) or an output of rank > 5 runs on the CPU (the op list's VKI_CPU_FALLBACK_LIST): TFLite's
 * semantics in full. Output = params[:batch_dims + ..axis) + indices[batch_dims:] +
 * params[axis+1:]; an index outside the axis fails the run (LiteRT fails too). */

typedef struct gather_dims {
    int axis, batch;
    size_t outer, batches, inner, n_idx, axis_n;   /* per batch: outer rows, indices, slice */
} gather_dims;

static gather_dims gather_dims_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *p = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    gather_dims g = {0};
    g.batch = op->opt.gather.batch_dims < 0 ? op->opt.gather.batch_dims + idx->rank : op->opt.gather.batch_dims;
    g.axis = op->opt.gather.axis < 0 ? op->opt.gather.axis + p->rank : op->opt.gather.axis;
    g.batches = g.outer = g.inner = g.n_idx = 1;
    for (int i = 0; i < g.batch; i++) g.batches *= (size_t)p->shape[i];
    for (int i = g.batch; i < g.axis; i++) g.outer *= (size_t)p->shape[i];
    for (int i = g.axis + 1; i < p->rank; i++) g.inner *= (size_t)p->shape[i];
    for (int i = g.batch; i < idx->rank; i++) g.n_idx *= (size_t)idx->shape[i];
    g.axis_n = (size_t)p->shape[g.axis];
    return g;
}

static vki_status validate_gather_cpu(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (s) return s;
    const vki_tensor *p = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    if (!vki_dtype_is_index(idx->dtype) || idx->dtype == VKI_DTYPE_BOOL)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') are %s, need "
                           "int32 or int64", op->inputs[1], idx->name, vki_dtype_name(idx->dtype));
    int batch = op->opt.gather.batch_dims < 0 ? op->opt.gather.batch_dims + idx->rank : op->opt.gather.batch_dims;
    int axis = op->opt.gather.axis < 0 ? op->opt.gather.axis + p->rank : op->opt.gather.axis;
    if (batch < 0 || batch > idx->rank || axis < batch || axis >= p->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d and batch_dims %d do not fit "
                           "rank-%d params and rank-%d indices", op->opt.gather.axis,
                           op->opt.gather.batch_dims, p->rank, idx->rank);
    int dims[2 * VKI_MAX_RANK], r = 0;
    for (int i = 0; i < batch; i++)
        if (p->shape[i] != idx->shape[i])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "batch dimension %d: params have %d, "
                               "indices %d", i, p->shape[i], idx->shape[i]);
    for (int i = 0; i < axis; i++) dims[r++] = p->shape[i];
    for (int i = batch; i < idx->rank; i++) dims[r++] = idx->shape[i];
    for (int i = axis + 1; i < p->rank; i++) dims[r++] = p->shape[i];
    if (r > VKI_MAX_RANK)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "the output would have rank %d, at "
                           "most %d", r, VKI_MAX_RANK);
    s = vki_op_expect_dims(m, o, op->outputs[0], r, dims);
    if (s || !idx->data) return s;
    const int32_t *v = idx->data;
    for (size_t i = 0; i < vki_tensor_elements(idx); i++)
        if (v[i] < 0 || v[i] >= p->shape[axis])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "index %d (element %zu of tensor %d "
                               "'%s') is outside axis %d of extent %d", v[i], i, op->inputs[1],
                               idx->name, axis, p->shape[axis]);
    return VKI_OK;
}

/* Copies the gathered slices; an index out of range gives zeros, and the first one is *bad
 * (*any set). */
static void gather_rows(const vki_model *m, const vki_op *op, const float *const *in,
                        float *const *out, int *any, float *bad) {
    const gather_dims g = gather_dims_of(m, op);
    *any = 0;
    float *o = out[0];
    for (size_t b = 0; b < g.batches; b++)
        for (size_t r = 0; r < g.outer; r++)
            for (size_t k = 0; k < g.n_idx; k++, o += g.inner) {
                float f = in[1][b * g.n_idx + k];
                if (!(f >= 0 && f < (float)g.axis_n)) {
                    if (!*any) *bad = f;
                    *any = 1;
                    memset(o, 0, g.inner * sizeof(float));
                    continue;
                }
                const float *src = in[0] + ((b * g.outer + r) * g.axis_n + (size_t)f) * g.inner;
                memcpy(o, src, g.inner * sizeof(float));
            }
}

static void reference_gather_cpu(const vki_model *m, const vki_op *op, const float *const *in,
                                 float *const *out) {
    int any;
    float bad;
    gather_rows(m, op, in, out, &any, &bad);
}

static vki_status run_gather_cpu(const vki_model *m, int o, const float *const *in,
                                 float *const *out) {
    int any;
    float bad;
    gather_rows(m, &m->ops[o], in, out, &any, &bad);
    if (any)
        return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "index %g is outside axis %d of "
                           "extent %d", (double)bad, gather_dims_of(m, &m->ops[o]).axis,
                           (int)gather_dims_of(m, &m->ops[o]).axis_n);
    return VKI_OK;
}

const vki_op_def vki_op_gather_cpu = {
    .validate = validate_gather_cpu,
    .reference = reference_gather_cpu,
    .run = run_gather_cpu,
    .options = read_gather,
    .general = true,
};
