/* tile.c: TILE (the input repeated along each axis) and BROADCAST_TO (extents of 1
 * stretched), as remap descriptions (remap.h). */
#include "remap.h"

/* TILE(input, multiples): output extent i is input extent i times multiples[i]; the
 * input coordinate wraps. */
static vki_status describe_tile(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int32_t *mult;
    int n;
    s = vki_op_int_values(m, o, 1, "multiples", in->rank, in->rank, &mult, &n);
    if (s) return s;
    int dims[VKI_REMAP_RANK];
    for (int i = 0; i < n; i++) {
        if (mult[i] < 1 || mult[i] > 65536)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "multiple %d is %d, need 1 to "
                               "65536", i, (int)mult[i]);
        dims[i] = in->shape[i] * mult[i];
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], n, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    for (int j = 0; j < VKI_REMAP_RANK; j++) r->axis[j].edge = VKI_EDGE_WRAP;
    return VKI_OK;
}

/* BROADCAST_TO(input, shape): numpy broadcasting of the input to the output's extents. */
static vki_status describe_broadcast_to(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->rank > out->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input rank %d is above the output's %d",
                           in->rank, out->rank);
    vki_remap_init(r, out);
    vki_remap_add_input(r, m, op, 0);
    for (int j = 0; j < VKI_REMAP_RANK; j++) {
        int e = r->in[0][j];
        if (e == 1) vki_remap_fixed(r, j, 0);
        else if (e != r->out[j])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input extent %d does not broadcast "
                               "to %d", e, r->out[j]);
    }
    return VKI_OK;
}

VKI_REMAP_OP(tile, describe_tile, NULL);
VKI_REMAP_OP(broadcast_to, describe_broadcast_to, NULL);
