/* space_batch.c: SPACE_TO_BATCH_ND (spatial blocks moved into the batch, after zero
 * padding) and BATCH_TO_SPACE_ND (the inverse, then cropped), for 2 block dims on
 * [B,H,W,C], as remap descriptions (remap.h). Atrous convolutions are written with them:
 * SPACE_TO_BATCH_ND -> CONV_2D -> BATCH_TO_SPACE_ND. */
#include "remap.h"

/* Reads block_shape (2 values >= 1) and the 2x2 paddings or crops (>= 0). */
static vki_status block_args(const vki_model *m, int o, const char *what, int bs[2], int p[4]) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 3, 3);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input has rank %d, only rank 4 "
                           "[B,H,W,C] is supported", in->rank);
    const int32_t *b, *q;
    int n;
    s = vki_op_int_values(m, o, 1, "block_shape", 2, 2, &b, &n);
    if (!s) s = vki_op_int_values(m, o, 2, what, 4, 4, &q, &n);
    if (s) return s;
    for (int i = 0; i < 2; i++)
        if (b[i] < 1 || b[i] > 4096)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "block_shape[%d] is %d", i, (int)b[i]);
    for (int i = 0; i < 4; i++)
        if (q[i] < 0 || q[i] > 1 << 20)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s[%d] is %d", what, i, (int)q[i]);
    bs[0] = b[0], bs[1] = b[1];
    for (int i = 0; i < 4; i++) p[i] = q[i];
    return VKI_OK;
}

/* Output [bh*bw*B, Ho, Wo, C]: output batch (iy*bw + ix)*B + b reads padded input row
 * ho*bh + iy and column wo*bw + ix of batch b. */
static vki_status describe_space_to_batch(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    int bs[2], p[4];
    vki_status s = block_args(m, o, "paddings", bs, p);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    int B = in->shape[0], H = in->shape[1] + p[0] + p[1], W = in->shape[2] + p[2] + p[3];
    if (H % bs[0] || W % bs[1])
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "padded %dx%d is not a multiple of the "
                           "%dx%d block", H, W, bs[0], bs[1]);
    int dims[4] = {B * bs[0] * bs[1], H / bs[0], W / bs[1], in->shape[3]};
    s = vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    /* 5-D axes: 1 batch, 2 rows, 3 columns, 4 channels. */
    vki_remap_fixed(r, 1, 0);
    vki_remap_term_add(r, 1, 1, 0, 1, B, 1);
    vki_remap_from(r, 2, 2, bs[0]);
    vki_remap_term_add(r, 2, 1, 0, B * bs[1], 0, 1);
    r->axis[2].offset = -p[0];
    r->axis[2].edge = VKI_EDGE_FILL;
    vki_remap_from(r, 3, 3, bs[1]);
    vki_remap_term_add(r, 3, 1, 0, B, bs[1], 1);
    r->axis[3].offset = -p[2];
    r->axis[3].edge = VKI_EDGE_FILL;
    return VKI_OK;
}

/* Output [B, H*bh - crops, W*bw - crops, C]: row y (uncropped y + top) reads input row
 * y / bh of batch ((y % bh)*bw + x % bw)*B + b. */
static vki_status describe_batch_to_space(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    int bs[2], c[4];
    vki_status s = block_args(m, o, "crops", bs, c);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    int blocks = bs[0] * bs[1];
    if (in->shape[0] % blocks)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "batch %d is not a multiple of the %dx%d "
                           "block", in->shape[0], bs[0], bs[1]);
    int B = in->shape[0] / blocks;
    int dims[4] = {B, in->shape[1] * bs[0] - c[0] - c[1], in->shape[2] * bs[1] - c[2] - c[3],
                   in->shape[3]};
    if (dims[1] < 1 || dims[2] < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "crops leave %dx%d", dims[1], dims[2]);
    s = vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    vki_remap_term_add(r, 1, 2, c[0], 1, bs[0], bs[1] * B);
    vki_remap_term_add(r, 1, 3, c[2], 1, bs[1], B);
    vki_remap_from(r, 2, 2, 1);
    r->axis[2].term[0] = (vki_remap_term){2, c[0], bs[0], 0, 1};
    vki_remap_from(r, 3, 3, 1);
    r->axis[3].term[0] = (vki_remap_term){3, c[2], bs[1], 0, 1};
    return VKI_OK;
}

VKI_REMAP_OP(space_to_batch_nd, describe_space_to_batch, NULL);
VKI_REMAP_OP(batch_to_space_nd, describe_batch_to_space, NULL);
