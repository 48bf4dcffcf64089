/* gather_nd.c: GATHER_ND and SCATTER_ND on the CPU, as LiteRT's tflite/kernels/gather_nd.cc,
 * scatter_nd.cc and reference_ops' GatherNd / ScatterNd compute them.
 *
 * GATHER_ND(params, indices): indices [..., d] (int32 or int64, 1 <= d <= rank(params))
 * name slices of params: output = indices.shape[:-1] + params.shape[d:], slice s being
 * params[indices[s, 0], ..., indices[s, d-1], ...] (row-major, as many elements as one
 * slice holds).
 *
 * SCATTER_ND(indices, updates, shape): shape (an int32 constant [R]) is the output's;
 * indices [..., d] (int32, the type of shape), updates = indices.shape[:-1] + shape[d:].
 * The output starts as zeros and each update slice is added at its index, in slice order,
 * so repeated indices sum.
 *
 * Every index must lie in its axis, 0 <= indices[s, j] < extent j: TFLite fails the op on
 * any other (GatherNd and ScatterNd check each coordinate; an index past its axis is an
 * error even where its row-major offset would land inside the tensor). Constant indices are
 * checked at validate; computed ones at run time, where run returns
 * VKI_ERROR_INVALID_ARGUMENT naming the slice, its index and the shape. The references skip
 * such a slice (a zero slice for GATHER_ND, no add for SCATTER_ND). Each is one pass of
 * copies or adds, as fast as the op gets: run is the reference's loop with the status.
 */
#include "ops.h"

#include <stdio.h>
#include <string.h>

/* Slices of an ND index: n slices of `size` elements, depth d, strides into the target. */
typedef struct nd_layout {
    size_t n_slices, slice_size, target_size;
    int depth;
    size_t stride[VKI_MAX_RANK];
} nd_layout;

static nd_layout layout_of(const vki_tensor *indices, const int *target, int target_rank) {
    nd_layout l;
    l.depth = indices->shape[indices->rank - 1];
    l.n_slices = 1;
    for (int i = 0; i + 1 < indices->rank; i++) l.n_slices *= (size_t)indices->shape[i];
    l.slice_size = 1;
    for (int i = l.depth; i < target_rank; i++) l.slice_size *= (size_t)target[i];
    l.target_size = l.slice_size;
    for (int i = l.depth - 1; i >= 0; i--) {
        l.stride[i] = l.target_size;
        l.target_size *= (size_t)target[i];
    }
    return l;
}

/* Slice s's offset into the target, or -1 where one of its coordinates lies outside its
 * axis (*bad: the first such coordinate's position). */
static long long slice_offset(const nd_layout *l, const int *target, const float *idx, size_t s,
                              int *bad) {
    const float *v = idx + s * (size_t)l->depth;
    long long offset = 0;
    for (int j = 0; j < l->depth; j++) {
        if (!(v[j] >= 0.0f && v[j] < (float)target[j])) {
            *bad = j;
            return -1;
        }
        offset += (long long)v[j] * (long long)l->stride[j];
    }
    *bad = -1;
    return offset;
}

static void format_index(char *buf, size_t size, const float *v, int depth) {
    size_t at = 0;
    buf[0] = 0;
    for (int j = 0; j < depth && at + 16 < size; j++)
        at += (size_t)snprintf(buf + at, size - at, "%s%.0f", j ? "," : "[", v[j]);
    if (at + 2 < size) snprintf(buf + at, size - at, "]");
}

static vki_status index_error(const vki_model *m, int o, const char *what, const nd_layout *l,
                              const float *idx, size_t s, const int *target, int target_rank,
                              int bad) {
    char index[160], dims[96];
    format_index(index, sizeof index, idx + s * (size_t)l->depth, l->depth);
    vki_format_dims(dims, sizeof dims, target_rank, target);
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "index %s of slice %zu is out of range "
                       "for %s %s: coordinate %d is %.0f, its axis holds 0 .. %d", index, s, what,
                       dims, bad, idx[s * (size_t)l->depth + (size_t)bad], target[bad] - 1);
}

static vki_status check_indices_type(const vki_model *m, int o, int slot) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != VKI_DTYPE_INT32 && t->dtype != VKI_DTYPE_INT64)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (input %d, tensor %d '%s') are "
                           "%s, need int32 or int64", slot, op->inputs[slot], t->name,
                           vki_dtype_name(t->dtype));
    if (t->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') are a scalar, "
                           "need rank 1 or more", op->inputs[slot], t->name);
    if (t->data && t->data_bytes < vki_tensor_elements(t) * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices tensor %d '%s' is truncated",
                           op->inputs[slot], t->name);
    return VKI_OK;
}

/* Checks every slice of constant indices at validate (TFLite checks them at run time). */
static vki_status check_const_indices(const vki_model *m, int o, const vki_tensor *idx,
                                      const nd_layout *l, const char *what, const int *target,
                                      int target_rank) {
    if (!idx->data) return VKI_OK;
    for (size_t s = 0; s < l->n_slices; s++) {
        float v[VKI_MAX_RANK];
        const int32_t *q = (const int32_t *)idx->data + s * (size_t)l->depth;
        for (int j = 0; j < l->depth; j++) v[j] = (float)q[j];
        int bad;
        if (slice_offset(l, target, v, 0, &bad) >= 0) continue;
        char index[160], dims[96];
        format_index(index, sizeof index, v, l->depth);
        vki_format_dims(dims, sizeof dims, target_rank, target);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "constant index %s of slice %zu (indices "
                           "tensor '%s') is out of range for %s %s: coordinate %d is %d, its "
                           "axis holds 0 .. %d (TFLite fails the op)", index, s, idx->name, what,
                           dims, bad, q[bad], target[bad] - 1);
    }
    return VKI_OK;
}

/* ---- GATHER_ND ------------------------------------------------------------------------ */

static vki_status validate_gather_nd(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = check_indices_type(m, o, 1);
    if (s) return s;
    const vki_tensor *params = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (params->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "params (tensor %d '%s') are a scalar, "
                           "need rank 1 or more", op->inputs[0], params->name);
    const int depth = idx->shape[idx->rank - 1];
    if (depth > params->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') have depth %d "
                           "(last axis), more than params' rank %d", op->inputs[1], idx->name,
                           depth, params->rank);
    const int out_rank = idx->rank - 1 + params->rank - depth;
    if (out_rank > VKI_MAX_RANK)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "the output would have rank %d, at "
                           "most %d supported", out_rank, VKI_MAX_RANK);
    int dims[VKI_MAX_RANK], k = 0;
    for (int i = 0; i + 1 < idx->rank; i++) dims[k++] = idx->shape[i];
    for (int i = depth; i < params->rank; i++) dims[k++] = params->shape[i];
    s = vki_op_expect_dims(m, o, op->outputs[0], out_rank, dims);
    if (s) return s;
    if ((out->dtype == VKI_DTYPE_FLOAT32) != (params->dtype == VKI_DTYPE_FLOAT32))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d) is %s, params are %s",
                           op->outputs[0], vki_dtype_name(out->dtype),
                           vki_dtype_name(params->dtype));
    const nd_layout l = layout_of(idx, params->shape, params->rank);
    return check_const_indices(m, o, idx, &l, "params", params->shape, params->rank);
}

/* Copies every slice in range (zeros for the others); returns the first failing slice, or
 * n_slices, with *bad its failing coordinate. */
static size_t gather_nd(const vki_model *m, const vki_op *op, const float *const *inputs,
                        float *const *outputs, int *bad) {
    const vki_tensor *params = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    const nd_layout l = layout_of(idx, params->shape, params->rank);
    size_t first_bad = l.n_slices;
    for (size_t s = 0; s < l.n_slices; s++) {
        float *dst = outputs[0] + s * l.slice_size;
        int b;
        const long long at = slice_offset(&l, params->shape, inputs[1], s, &b);
        if (at < 0) {
            memset(dst, 0, sizeof(float) * l.slice_size);
            if (first_bad == l.n_slices) {
                first_bad = s;
                *bad = b;
            }
            continue;
        }
        memcpy(dst, inputs[0] + at, sizeof(float) * l.slice_size);
    }
    return first_bad;
}

static void reference_gather_nd(const vki_model *m, const vki_op *op, const float *const *inputs,
                                float *const *outputs) {
    int bad;
    (void)gather_nd(m, op, inputs, outputs, &bad);
}

static vki_status run_gather_nd(const vki_model *m, int o, const float *const *inputs,
                                float *const *outputs) {
    const vki_op *op = &m->ops[o];
    int bad = 0;
    const size_t s = gather_nd(m, op, inputs, outputs, &bad);
    const vki_tensor *params = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    const nd_layout l = layout_of(idx, params->shape, params->rank);
    if (s == l.n_slices) return VKI_OK;
    return index_error(m, o, "params", &l, inputs[1], s, params->shape, params->rank, bad);
}

const vki_op_def vki_op_gather_nd = {
    .validate = validate_gather_nd,
    .reference = reference_gather_nd,
    .run = run_gather_nd,
    .general = true,
};

/* ---- SCATTER_ND ----------------------------------------------------------------------- */

static vki_status validate_scatter_nd(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 3, 3, 1);
    if (!s) s = check_indices_type(m, o, 0);
    if (s) return s;
    if (vki_op_in(m, op, 0)->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "indices (tensor %d '%s') are %s; "
                           "with a constant shape TFLite takes int32 only", op->inputs[0],
                           vki_op_in(m, op, 0)->name, vki_dtype_name(vki_op_in(m, op, 0)->dtype));
    const vki_tensor *idx = vki_op_in(m, op, 0), *upd = vki_op_in(m, op, 1);
    const vki_tensor *shape_t = vki_op_in(m, op, 2), *out = vki_op_out(m, op, 0);
    if (shape_t->rank != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "shape (tensor %d '%s') has rank %d, "
                           "need 1", op->inputs[2], shape_t->name, shape_t->rank);
    const int32_t *shape;
    int rank;
    s = vki_op_int_values(m, o, 2, "shape", 1, VKI_MAX_RANK, &shape, &rank);
    if (s) return s;
    for (int i = 0; i < rank; i++)
        if (shape[i] < 1)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "shape[%d] = %d (tensor '%s'): "
                               "the output would be empty", i, shape[i], shape_t->name);
    const int outer = idx->rank - 1, depth = idx->shape[outer];
    if (depth > rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') have depth %d, "
                           "more than the %d axes of shape", op->inputs[0], idx->name, depth, rank);
    /* TFLite's CheckShapes: updates = indices.shape[:-1] + shape[depth:]. */
    if (outer + rank - depth < 1 || outer + rank - depth > VKI_MAX_RANK)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "updates would have rank %d (indices "
                           "tensor %d '%s' of rank %d, depth %d, into rank %d)",
                           outer + rank - depth, op->inputs[0], idx->name, idx->rank, depth, rank);
    int want[VKI_MAX_RANK], k = 0;
    for (int i = 0; i < outer; i++) want[k++] = idx->shape[i];
    for (int i = depth; i < rank; i++) want[k++] = shape[i];
    bool same = upd->rank == k;
    for (int i = 0; same && i < k; i++) same = upd->shape[i] == want[i];
    if (!same) {
        char got[96], need[96];
        vki_format_dims(got, sizeof got, upd->rank, upd->shape);
        vki_format_dims(need, sizeof need, k, want);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "updates (tensor %d '%s') are %s; "
                           "indices [..., %d] into shape (tensor '%s') need %s", op->inputs[1],
                           upd->name, got, depth, shape_t->name, need);
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], rank, shape);
    if (s) return s;
    if ((out->dtype == VKI_DTYPE_FLOAT32) != (upd->dtype == VKI_DTYPE_FLOAT32))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d) is %s, updates are %s",
                           op->outputs[0], vki_dtype_name(out->dtype), vki_dtype_name(upd->dtype));
    const nd_layout l = layout_of(idx, out->shape, out->rank);
    return check_const_indices(m, o, idx, &l, "the output", out->shape, out->rank);
}

/* Adds every slice in range; returns the first failing slice, or n_slices, with *bad its
 * failing coordinate. */
static size_t scatter_nd(const vki_model *m, const vki_op *op, const float *const *inputs,
                         float *const *outputs, int *bad) {
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const nd_layout l = layout_of(idx, out->shape, out->rank);
    memset(outputs[0], 0, sizeof(float) * l.target_size);
    size_t first_bad = l.n_slices;
    for (size_t s = 0; s < l.n_slices; s++) {
        int b;
        const long long at = slice_offset(&l, out->shape, inputs[0], s, &b);
        if (at < 0) {
            if (first_bad == l.n_slices) {
                first_bad = s;
                *bad = b;
            }
            continue;
        }
        float *dst = outputs[0] + at;
        const float *src = inputs[1] + s * l.slice_size;
        for (size_t e = 0; e < l.slice_size; e++) dst[e] += src[e];
    }
    return first_bad;
}

static void reference_scatter_nd(const vki_model *m, const vki_op *op, const float *const *inputs,
                                 float *const *outputs) {
    int bad;
    (void)scatter_nd(m, op, inputs, outputs, &bad);
}

static vki_status run_scatter_nd(const vki_model *m, int o, const float *const *inputs,
                                 float *const *outputs) {
    const vki_op *op = &m->ops[o];
    int bad = 0;
    const size_t s = scatter_nd(m, op, inputs, outputs, &bad);
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const nd_layout l = layout_of(idx, out->shape, out->rank);
    if (s == l.n_slices) return VKI_OK;
    return index_error(m, o, "the output", &l, inputs[0], s, out->shape, out->rank, bad);
}

const vki_op_def vki_op_scatter_nd = {
    .validate = validate_scatter_nd,
    .reference = reference_scatter_nd,
    .run = run_scatter_nd,
    .general = true,
};
