/* one_hot.c: ONE_HOT on the CPU, as TFLite's kernels/one_hot.cc computes it.
 *
 * Inputs: indices (int32 or int64, any rank), depth (an int32 scalar; a constant here, as it
 * sets the output's shape), on_value and off_value (one element each, of the output's
 * type; constants or computed). OneHotOptions.axis (schema default 0) says where the new
 * axis of extent depth goes: -1 is after the last, else 0 .. rank(indices); other values
 * are rejected, as TFLite rejects them. output[.., j, ..] = on_value where the index there
 * equals j, else off_value: an index outside [0, depth) (negative or too large) gives a
 * row of off_value.
 *
 * One pass writing each output element once: the reference is as fast as the op gets and
 * cannot fail, so run is NULL.
 */
#include "ops.h"

static vki_status one_element(const vki_model *m, int o, int slot, const char *role) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (vki_tensor_elements(t) != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') has %zu "
                           "elements, need 1", role, slot, op->inputs[slot], t->name,
                           vki_tensor_elements(t));
    if (t->data && t->data_bytes < 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is truncated", role,
                           op->inputs[slot], t->name);
    return VKI_OK;
}

/* The axis the depth goes at: 0 .. rank(indices). */
static int axis_of(const vki_model *m, const vki_op *op) {
    const int rank = vki_op_in(m, op, 0)->rank;
    return op->opt.one_hot.axis == -1 ? rank : op->opt.one_hot.axis;
}

static vki_status validate_one_hot(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 4, 4, 1);
    if (s) return s;
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (idx->dtype != VKI_DTYPE_INT32 && idx->dtype != VKI_DTYPE_INT64)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') are %s, need "
                           "int32 or int64", op->inputs[0], idx->name, vki_dtype_name(idx->dtype));
    if (idx->rank + 1 > VKI_MAX_RANK)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "indices (tensor %d '%s') have rank "
                           "%d; the output's %d is more than %d", op->inputs[0], idx->name,
                           idx->rank, idx->rank + 1, VKI_MAX_RANK);
    const int32_t *depth;
    int count;
    s = vki_op_int_values(m, o, 1, "depth", 1, 1, &depth, &count);
    if (s) return s;
    if (depth[0] < 1)
        return vki_op_fail(m, o, depth[0] < 0 ? VKI_ERROR_MODEL_FORMAT
                                              : VKI_ERROR_UNSUPPORTED_MODEL,
                           "depth = %d: need 1 or more", depth[0]);
    s = one_element(m, o, 2, "on_value");
    if (!s) s = one_element(m, o, 3, "off_value");
    if (s) return s;
    const vki_tensor *on = vki_op_in(m, op, 2), *off = vki_op_in(m, op, 3);
    if (on->dtype != out->dtype || off->dtype != out->dtype)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "on_value (%s) and off_value (%s) must "
                           "have the output's type (%s)", vki_dtype_name(on->dtype),
                           vki_dtype_name(off->dtype), vki_dtype_name(out->dtype));
    const int axis = op->opt.one_hot.axis;
    if (axis < -1 || axis > idx->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d: need -1 or 0 .. %d (the rank of "
                           "indices tensor %d '%s')", axis, idx->rank, op->inputs[0], idx->name);
    int dims[VKI_MAX_RANK], k = 0;
    const int at = axis_of(m, op);
    for (int i = 0; i <= idx->rank; i++) {
        if (i == at) dims[k++] = depth[0];
        if (i < idx->rank) dims[k++] = idx->shape[i];
    }
    return vki_op_expect_dims(m, o, op->outputs[0], idx->rank + 1, dims);
}

static void reference_one_hot(const vki_model *m, const vki_op *op, const float *const *inputs,
                              float *const *outputs) {
    const vki_tensor *idx = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const int at = axis_of(m, op);
    const int depth = out->shape[at];
    /* indices as [prefix, suffix] around the axis; the output as [prefix, depth, suffix]. */
    size_t prefix = 1, suffix = 1;
    for (int i = 0; i < idx->rank; i++) {
        if (i < at) prefix *= (size_t)idx->shape[i];
        else suffix *= (size_t)idx->shape[i];
    }
    const float on = inputs[2][0], off = inputs[3][0];
    float *y = outputs[0];
    for (size_t p = 0; p < prefix; p++)
        for (int j = 0; j < depth; j++)
            for (size_t s = 0; s < suffix; s++)
                *y++ = inputs[0][p * suffix + s] == (float)j ? on : off;
}

/* OneHotOptions: axis at field 0 (schema default 0). */
static vki_status read_one_hot(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t axis;
    if (!vki_opt_i32(r, 0, 0, &axis)) return vki_opt_malformed(r);
    op->opt.one_hot.axis = axis;
    return VKI_OK;
}

const vki_op_def vki_op_one_hot = {
    .validate = validate_one_hot,
    .reference = reference_one_hot,
    .options = read_one_hot,
    .general = true,
};
