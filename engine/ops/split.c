/* split.c: SPLIT, SPLIT_V and UNPACK (an input cut into outputs along one axis) and PACK
 * (inputs stacked along a new axis), as remap descriptions (remap.h). */
#include "remap.h"

/* Checks the op's data input `slot` and returns it. */
static vki_status data_input(const vki_model *m, int o, int slot, const vki_tensor **t) {
    const vki_op *op = &m->ops[o];
    if (slot >= op->n_inputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %d", op->n_inputs,
                           slot + 1);
    vki_status s = vki_op_check_float_tensor(m, o, op->inputs[slot], "input", slot);
    if (s) return s;
    *t = vki_op_in(m, op, slot);
    return VKI_OK;
}

/* Output `output` is the input from `start` along `axis` (its extent is the output's). */
static vki_status describe_piece(const vki_model *m, int o, int slot, int output, int axis,
                                 int start, int size, vki_remap *r) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, slot);
    int dims[VKI_MAX_RANK];
    for (int i = 0; i < in->rank; i++) dims[i] = in->shape[i];
    dims[axis] = size;
    vki_status s = vki_op_expect_dims(m, o, op->outputs[output], in->rank, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, output));
    vki_remap_add_input(r, m, op, slot);
    r->axis[vki_axis5(axis, in->rank)].offset = start;
    return VKI_OK;
}

/* An axis operand (a scalar or one-element int32 constant) normalised against rank. */
static vki_status axis_operand(const vki_model *m, int o, int slot, int rank, int *axis) {
    const int32_t *v;
    int n;
    vki_status s = vki_op_int_values(m, o, slot, "axis", 1, 1, &v, &n);
    if (s) return s;
    int a = v[0] < 0 ? v[0] + rank : v[0];
    if (a < 0 || a >= rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for rank %d",
                           (int)v[0], rank);
    *axis = a;
    return VKI_OK;
}

/* SPLIT(axis, input): n_outputs equal pieces. */
static vki_status describe_split(const vki_model *m, int o, int output, vki_remap *r) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = NULL;
    int axis = 0;
    vki_status s = op->n_inputs == 2 ? data_input(m, o, 1, &in)
                                     : vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                                   "has %d inputs, need 2", op->n_inputs);
    if (!s) s = axis_operand(m, o, 0, in->rank, &axis);
    if (s) return s;
    if (in->shape[axis] % op->n_outputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "extent %d of axis %d does not split "
                           "into %d", in->shape[axis], axis, op->n_outputs);
    int size = in->shape[axis] / op->n_outputs;
    return describe_piece(m, o, 1, output, axis, output * size, size, r);
}

/* SPLIT_V(input, size_splits, axis): pieces of the given sizes (one may be -1: the rest). */
static vki_status describe_split_v(const vki_model *m, int o, int output, vki_remap *r) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = NULL;
    int axis = 0, n = 0;
    const int32_t *sizes;
    vki_status s = op->n_inputs == 3 ? data_input(m, o, 0, &in)
                                     : vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                                   "has %d inputs, need 3", op->n_inputs);
    if (!s) s = axis_operand(m, o, 2, in->rank, &axis);
    if (!s) s = vki_op_int_values(m, o, 1, "size_splits", op->n_outputs, op->n_outputs, &sizes, &n);
    if (s) return s;
    int rest = -1, known = 0, start = 0, size = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1 && rest < 0) rest = i;
        else if (sizes[i] < 0)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "size_splits[%d] is %d", i,
                               (int)sizes[i]);
        else known += sizes[i];
    }
    if (known > in->shape[axis] || (rest < 0 && known != in->shape[axis]))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "size_splits add up to %d, axis %d has "
                           "extent %d", known, axis, in->shape[axis]);
    for (int i = 0; i <= output; i++) {
        size = i == rest ? in->shape[axis] - known : sizes[i];
        if (i < output) start += size;
    }
    return describe_piece(m, o, 0, output, axis, start, size, r);
}

/* UNPACK(input): output k is the input at k along the axis, that axis dropped. */
static vki_status describe_unpack(const vki_model *m, int o, int output, vki_remap *r) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = NULL;
    vki_status s = op->n_inputs == 1 ? data_input(m, o, 0, &in)
                                     : vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                                   "has %d inputs, need 1", op->n_inputs);
    if (s) return s;
    int axis = op->opt.pack.axis < 0 ? op->opt.pack.axis + in->rank : op->opt.pack.axis;
    if (axis < 0 || axis >= in->rank || in->shape[axis] != op->n_outputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d of the rank-%d input is out "
                           "of range or its extent is not the %d outputs'", op->opt.pack.axis,
                           in->rank, op->n_outputs);
    int dims[VKI_MAX_RANK], r_out = in->rank - 1;
    for (int i = 0, k = 0; i < in->rank; i++)
        if (i != axis) dims[k++] = in->shape[i];
    s = vki_op_expect_dims(m, o, op->outputs[output], r_out, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, output));
    vki_remap_add_input(r, m, op, 0);
    for (int j = 0; j < VKI_REMAP_RANK - in->rank; j++) vki_remap_fixed(r, j, 0);
    for (int i = 0; i < in->rank; i++) {
        int j = vki_axis5(i, in->rank);
        if (i == axis) vki_remap_fixed(r, j, output);
        else vki_remap_from(r, j, vki_axis5(i < axis ? i : i - 1, r_out), 1);
    }
    return VKI_OK;
}

/* PACK(inputs...): input k at k along a new axis. */
static vki_status describe_pack(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    if (op->n_inputs < 1 || op->n_inputs > VKI_REMAP_MAX_INPUTS || op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "has %d inputs and %d outputs, "
                           "need 1 to %d and 1", op->n_inputs, op->n_outputs, VKI_REMAP_MAX_INPUTS);
    const vki_tensor *in;
    vki_status s = data_input(m, o, 0, &in);
    if (s) return s;
    int r_out = in->rank + 1;
    int axis = op->opt.pack.axis < 0 ? op->opt.pack.axis + r_out : op->opt.pack.axis;
    if (axis < 0 || axis >= r_out || r_out > VKI_REMAP_RANK)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "axis %d of a rank-%d output is "
                           "out of range (rank at most %d)", op->opt.pack.axis, r_out,
                           VKI_REMAP_RANK);
    for (int k = 1; k < op->n_inputs; k++) {
        const vki_tensor *t;
        s = data_input(m, o, k, &t);
        if (!s) s = vki_op_expect_dims(m, o, op->inputs[k], in->rank, in->shape);
        if (s) return s;
    }
    int dims[VKI_MAX_RANK];
    for (int i = 0, k = 0; i < r_out; i++) dims[i] = i == axis ? op->n_inputs : in->shape[k++];
    s = vki_op_expect_dims(m, o, op->outputs[0], r_out, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    for (int k = 0; k < op->n_inputs; k++) {
        vki_remap_add_input(r, m, op, k);
        r->start[k] = k;
    }
    r->sel_axis = vki_axis5(axis, r_out);
    r->sel_coord = -1;
    for (int j = 0; j < VKI_REMAP_RANK - in->rank; j++) vki_remap_fixed(r, j, 0);
    for (int i = 0; i < in->rank; i++)
        vki_remap_from(r, vki_axis5(i, in->rank), vki_axis5(i < axis ? i : i + 1, r_out), 1);
    return VKI_OK;
}

/* PackOptions / UnpackOptions: values_count or num at field 0, axis at field 1. */
static vki_status read_pack(vki_options_reader *rd, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t count, axis;
    if (!vki_opt_i32(rd, 0, 0, &count) || !vki_opt_i32(rd, 1, 0, &axis))
        return vki_opt_malformed(rd);
    op->opt.pack.axis = axis;
    return VKI_OK;
}

VKI_REMAP_OP(split, describe_split, NULL);
VKI_REMAP_OP(split_v, describe_split_v, NULL);
VKI_REMAP_OP(unpack, describe_unpack, read_pack);
VKI_REMAP_OP(pack, describe_pack, read_pack);
