/* transpose.c: TRANSPOSE (a permutation of up to 5 axes) and REVERSE_V2 (axes read
 * backwards), as remap descriptions (remap.h). */
#include "remap.h"

/* TRANSPOSE(input, perm): output axis i is input axis perm[i]. */
static vki_status describe_transpose(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int32_t *perm;
    int n;
    s = vki_op_int_values(m, o, 1, "perm", in->rank, in->rank, &perm, &n);
    if (s) return s;
    int dims[VKI_REMAP_RANK], used[VKI_REMAP_RANK] = {0};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || used[perm[i]])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "perm is not a permutation of "
                               "0..%d (entry %d is %d)", n - 1, i, (int)perm[i]);
        used[perm[i]] = 1;
        dims[i] = in->shape[perm[i]];
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], n, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    for (int i = 0; i < n; i++)
        vki_remap_from(r, vki_axis5(perm[i], n), vki_axis5(i, n), 1);
    return VKI_OK;
}

/* REVERSE_V2(input, axes): each listed axis read from its end. */
static vki_status describe_reverse(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int32_t *axes;
    int n;
    s = vki_op_int_values(m, o, 1, "axes", 0, in->rank, &axes, &n);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    for (int i = 0; i < n; i++) {
        int a = vki_axis5(axes[i], in->rank);
        if (a < 0)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for rank %d",
                               (int)axes[i], in->rank);
        vki_remap_from(r, a, a, -1);
        r->axis[a].offset = r->out[a] - 1;
    }
    return VKI_OK;
}

VKI_REMAP_OP(transpose, describe_transpose, NULL);
VKI_REMAP_OP(reverse_v2, describe_reverse, NULL);
