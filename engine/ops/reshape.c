/* reshape.c: RESHAPE, SQUEEZE and EXPAND_DIMS, on tensors of any rank and batch. The output tensor's shape is authoritative; the optional int32
 * shape input is only cross-checked. When input and output have the same channel count
 * their PHWC4 bytes are identical (equal C and equal element count give equal rows*W in the
 * storage view, and PHWC4 index (s*H + y)*W + x depends on y and x only through y*W + x), so the output
 * aliases the input and nothing is dispatched; otherwise glsl/gather.comp moves each
 * lane by its dense NHWC linear index. */
#include "ops.h"

#include <stdio.h>

/* A constant shape input must describe the output tensor; one -1 stands for the rest of the
 * input's elements. */
static vki_status check_shape_input(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    int t = op->inputs[1];
    if (t < 0) return VKI_OK;
    if (t >= m->n_tensors)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "shape: tensor index %d out of range", t);
    const vki_tensor *st = &m->tensors[t];
    if (st->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "shape tensor %d '%s' is not int32",
                           t, st->name);
    if (st->rank != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "shape tensor %d '%s' has rank %d, need 1",
                           t, st->name, st->rank);
    /* A computed shape cannot disagree with the static output shape by the time the
     * graph runs; only a constant one can be checked here. */
    if (!st->data) return VKI_OK;
    int n = st->shape[0];
    if (n > VKI_MAX_RANK || st->data_bytes < (size_t)n * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "shape tensor %d '%s' is malformed", t,
                           st->name);
    int dims[VKI_MAX_RANK];
    const int32_t *v = (const int32_t *)st->data;
    int wildcard = -1;
    size_t known = 1;
    for (int i = 0; i < n; i++) {
        dims[i] = (int)v[i];
        if (v[i] == -1 && wildcard < 0) wildcard = i;
        else known *= v[i] > 0 ? (size_t)v[i] : 0;
    }
    size_t total = vki_tensor_elements(vki_op_in(m, op, 0));
    if (wildcard >= 0 && known > 0 && total % known == 0) dims[wildcard] = (int)(total / known);
    return vki_op_expect_dims(m, o, op->outputs[0], n, dims);
}

/* Shape propagation (vki_model.infer_shapes) without a constant shape: the output takes the
 * input's new extents where SQUEEZE or EXPAND_DIMS (or a RESHAPE that only drops or adds
 * 1s) kept them, matched on the shapes as loaded. Anything else keeps its shape. */
static vki_status infer_by_ones(const vki_model *m, int o, const int *old_in, int old_rank) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->rank != old_rank) return VKI_OK;
    int dims[VKI_MAX_RANK], i = 0;
    for (int j = 0; j < out->rank; j++) {
        while (i < old_rank && old_in[i] == 1 && old_in[i] != out->shape[j]) i++;
        if (i < old_rank && old_in[i] == out->shape[j]) dims[j] = in->shape[i++];
        else if (out->shape[j] == 1) dims[j] = 1;
        else return VKI_OK;
    }
    return vki_op_expect_dims(m, o, op->outputs[0], out->rank, dims);
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 1, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    /* RESHAPE's second input is the shape; EXPAND_DIMS' is the axis, and the output's
     * extents say where it went. */
    const int by_shape = op->code == VKI_OP_RESHAPE && op->n_inputs == 2 && op->inputs[1] >= 0 &&
                         op->inputs[1] < m->n_tensors && m->tensors[op->inputs[1]].data;
    if (by_shape) s = check_shape_input(m, o);
    else if (m->infer_shapes) s = infer_by_ones(m, o, m->infer_shapes->shape[op->inputs[0]],
                                                m->infer_shapes->rank[op->inputs[0]]);
    else if (op->code == VKI_OP_RESHAPE && op->n_inputs == 2) s = check_shape_input(m, o);
    if (s) return s;
    size_t ni = vki_tensor_elements(in), no = vki_tensor_elements(out);
    if (ni != no) {
        char si[96], so[96];
        vki_format_dims(si, sizeof si, in->rank, in->shape);
        vki_format_dims(so, sizeof so, out->rank, out->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input %s has %zu elements but output %s has %zu", si, ni, so, no);
    }
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    vki_shape4 si = vki_tensor_rows(in), so = vki_tensor_rows(vki_op_out(m, op, 0));
    if (!in->data && si.c == so.c) return vki_build_alias(b, op->outputs[0], op->inputs[0]);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_gather, VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "IN", si);
    vki_define_shape(&d, "OUT", so);
    vki_status st = vki_build_bind_operand(b, &d, op->inputs[0], si);
    if (st) return st;
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, so);
    return vki_build_dispatch(b, &d);
}

/* Dense NHWC data is already in reshape order. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t i = 0; i < n; i++) out[0][i] = in[0][i];
}

#define RESHAPE_ {.validate = validate, .build = build, .reference = reference, .general = true}
const vki_op_def vki_op_reshape = RESHAPE_;
const vki_op_def vki_op_squeeze = RESHAPE_;
const vki_op_def vki_op_expand_dims = RESHAPE_;
