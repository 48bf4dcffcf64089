/* gather.c: GATHER (slices of the params picked by an index tensor along one axis), as a
 * remap description (remap.h) whose coordinate along the axis is looked up in the
 * indices. Indices may be a constant (any rank up to 3) or an activation of rank <= 1;
 * an index outside the axis reads the nearest slice (TFLite reports an error at run time,
 * which a recorded command buffer cannot). */
#include "remap.h"

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
