/* conv_common.c: what CONV_2D and DEPTHWISE_CONV_2D validate alike: a rank-4 activation
 * in and out, constant rank-4 weights, then the optional bias, padding, strides,
 * dilations, activation, window limits and the output shape; and the 1x1 filter packing
 * that the fused kernels share. */
#include "conv_common.h"

#include <stdlib.h>


/* Span of a dilated window, in 64 bits since both factors come from the file. */
static long long window_extent(int size, int dilation) {
    return (long long)(size - 1) * dilation + 1;
}
#define VKI_CONV_MAX_EXTENT (1 << 24)

int vki_conv_dilation(int d) { return d == 0 ? 1 : d; }

vki_status vki_conv_read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    vki_conv_options *c = &op->opt.conv;
    const bool depthwise = op->code == VKI_OP_DEPTHWISE_CONV_2D;
    /* Depthwise has depth_multiplier at 3, which pushes the later fields up by one. */
    const unsigned shift = depthwise ? 1 : 0;
    int8_t pad, act;
    int32_t dm = 0;
    if (!vki_opt_i8(r, 0, 0, &pad) || !vki_opt_i32(r, 1, 0, &c->stride_w) ||
        !vki_opt_i32(r, 2, 0, &c->stride_h) || (depthwise && !vki_opt_i32(r, 3, 0, &dm)) ||
        !vki_opt_i8(r, 3 + shift, 0, &act) || !vki_opt_i32(r, 4 + shift, 1, &c->dilation_w) ||
        !vki_opt_i32(r, 5 + shift, 1, &c->dilation_h))
        return vki_opt_malformed(r);
    c->depth_multiplier = dm;
    vki_status st = vki_opt_padding(r, pad, &c->padding);
    return st != VKI_OK ? st : vki_opt_activation(r, act, &c->activation);
}

vki_conv_window vki_conv_window_of(const vki_model *m, const vki_op *op) {
    const vki_conv_options *c = &op->opt.conv;
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_conv_window w;
    const vki_fused *fu = &op->fused;
    w.in = vki_tensor_shape4(vki_op_in(m, op, 0));
    /* With a folded PAD the padding is reckoned on the padded input, as the model has it. */
    w.in.h += fu->pad_top + fu->pad_bottom;
    w.in.w += fu->pad_left + fu->pad_right;
    w.out = vki_tensor_shape4(vki_op_out(m, op, 0));
    w.kh = f->shape[1];
    w.kw = f->shape[2];
    w.stride_h = c->stride_h;
    w.stride_w = c->stride_w;
    w.dil_h = vki_conv_dilation(c->dilation_h);
    w.dil_w = vki_conv_dilation(c->dilation_w);
    w.pad_h = vki_conv_pad_before(c->padding, w.in.h, w.kh, w.stride_h, w.dil_h);
    w.pad_w = vki_conv_pad_before(c->padding, w.in.w, w.kw, w.stride_w, w.dil_w);
    /* The kernel reads the unpadded input: rows and columns outside it are the zeros. */
    w.in.h -= fu->pad_top + fu->pad_bottom;
    w.in.w -= fu->pad_left + fu->pad_right;
    w.pad_h += fu->pad_top;
    w.pad_w += fu->pad_left;
    return w;
}

void vki_conv_define_window(vki_dispatch *d, const vki_conv_window *w) {
    vki_define_int(d, "KH", w->kh);
    vki_define_int(d, "KW", w->kw);
    vki_define_int(d, "STRIDE_H", w->stride_h);
    vki_define_int(d, "STRIDE_W", w->stride_w);
    vki_define_int(d, "DIL_H", w->dil_h);
    vki_define_int(d, "DIL_W", w->dil_w);
    vki_define_int(d, "PAD_H", w->pad_h);
    vki_define_int(d, "PAD_W", w->pad_w);
}

int vki_conv_1x1_blobs(vki_build *b, const vki_model *m, const vki_op *op, int *wblob, int *bblob) {
    const vki_tensor *f = vki_op_in(m, op, 1);
    const int oc = f->shape[0], ic = f->shape[3], out_s = (oc + 3) / 4;
    size_t count;
    float *w = vki_conv_pack_1x1(f->data, ic, oc, 1, out_s, &count);
    if (!w) return 0;
    *wblob = vki_build_weights(b, w, count);
    free(w);
    const vki_tensor *bt = op->n_inputs > 2 && op->inputs[2] >= 0 ? vki_op_in(m, op, 2) : NULL;
    *bblob = vki_build_bias(b, bt, oc, (size_t)out_s * 4);
    return *wblob >= 0 && *bblob >= 0;
}

void vki_conv_dispatch(vki_dispatch *d, const char *kernel, vki_wg_class wg_class,
                       const vki_conv_window *w, vki_activation act, int src, int weights,
                       int bias, int dst) {
    vki_dispatch_init(d, kernel, wg_class);
    vki_define_shape(d, "IN", w->in);
    vki_define_shape(d, "OUT", w->out);
    vki_conv_define_window(d, w);
    vki_define_activation(d, act);
    vki_dispatch_bind_tensor(d, src);
    vki_dispatch_bind_weights(d, weights);
    vki_dispatch_bind_weights(d, bias);
    if (dst >= 0) vki_dispatch_bind_tensor(d, dst);
}

vki_status vki_conv_check_operands(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 2, 3, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "input 0 (tensor %d '%s') is a constant",
                           op->inputs[0], in->name);
    if (in->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input 0 (tensor %d '%s') has %d dims, need 4",
                           op->inputs[0], in->name, in->rank);
    if (out->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "output 0 (tensor %d '%s') has %d dims, need 4",
                           op->outputs[0], out->name, out->rank);
    s = vki_op_check_const(m, o, 1, "weights", 4);
    if (s) return s;
    return VKI_OK;
}

vki_status vki_conv_check_window(const vki_model *m, int o, int oc) {
    vki_status s;
    const vki_op *op = &m->ops[o];
    const vki_conv_options *c = &op->opt.conv;
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_shape4 is = vki_tensor_shape4(vki_op_in(m, op, 0));
    if (op->n_inputs > 2 && op->inputs[2] >= 0) {
        const vki_tensor *bias = vki_op_in(m, op, 2);
        s = vki_op_check_const(m, o, 2, "bias", 1);
        if (s) return s;
        if (bias->shape[0] != oc)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "bias tensor %d '%s' has %d elements, need %d (weights tensor %d)",
                               op->inputs[2], bias->name, bias->shape[0], oc, op->inputs[1]);
    }
    if (c->padding != VKI_PAD_SAME && c->padding != VKI_PAD_VALID)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "unknown padding %d", (int)c->padding);
    if (c->stride_w < 1 || c->stride_h < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "stride %dx%d (h x w), need >= 1",
                           c->stride_h, c->stride_w);
    if (c->dilation_w < 0 || c->dilation_h < 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "dilation %dx%d (h x w), need >= 1",
                           c->dilation_h, c->dilation_w);
    if ((unsigned)c->activation > VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "fused activation %d is not supported",
                           (int)c->activation);
    int dh = vki_conv_dilation(c->dilation_h), dw = vki_conv_dilation(c->dilation_w);
    /* The shared size helpers compute in int: keep windows and strides far from overflow. */
    if (window_extent(f->shape[1], dh) > VKI_CONV_MAX_EXTENT ||
        window_extent(f->shape[2], dw) > VKI_CONV_MAX_EXTENT ||
        c->stride_h > VKI_CONV_MAX_EXTENT || c->stride_w > VKI_CONV_MAX_EXTENT)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "window %dx%d, dilation %dx%d or stride %dx%d (h x w) exceeds %d",
                           f->shape[1], f->shape[2], dh, dw, c->stride_h, c->stride_w,
                           VKI_CONV_MAX_EXTENT);
    int oh = vki_conv_out_size(c->padding, is.h, f->shape[1], c->stride_h, dh);
    int ow = vki_conv_out_size(c->padding, is.w, f->shape[2], c->stride_w, dw);
    if (oh < 1 || ow < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' window %dx%d (dilation %dx%d) does not fit the "
                           "%dx%d input with VALID padding",
                           op->inputs[1], f->name, f->shape[1], f->shape[2], dh, dw, is.h, is.w);
    return vki_op_check_shape(m, o, op->outputs[0], (vki_shape4){1, oh, ow, oc});
}

/* For dw_pw.comp and squeeze.comp (conv_common.h): the vec4s in the order their loops read
 * them, a group's input slices in turn. */
float *vki_conv_pack_1x1(const float *f, int ic, int oc, int tile_s, int groups, size_t *count) {
    const int in_s = (ic + 3) / 4;
    *count = (size_t)groups * in_s * tile_s * 16;
    float *out = vki_calloc(*count, sizeof(float));
    if (!out) return NULL;
    size_t at = 0;
    for (int g = 0; g < groups; g++)
        for (int s = 0; s < in_s; s++)
            for (int j = 0; j < tile_s; j++)
                for (int i = 0; i < 4; i++)
                    for (int lane = 0; lane < 4; lane++, at++) {
                        int co = (g * tile_s + j) * 4 + lane, ci = s * 4 + i;
                        if (co < oc && ci < ic) out[at] = f[(size_t)co * ic + ci];
                    }
    return out;
}
