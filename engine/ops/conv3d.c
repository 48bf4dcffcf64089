/* conv3d.c: CONV_3D and CONV_3D_TRANSPOSE on the CPU (video and volume models), float32,
 * TFLite's conv3d.cc and conv3d_transpose.cc:
 *   CONV_3D: input [N,D,H,W,C], filter [kd,kh,kw,C,O], optional bias [O]; SAME or VALID per
 *     axis by TFLite's rule (the leading half of the total padding), strides and dilations
 *     by D, H, W; a fused activation.
 *   CONV_3D_TRANSPOSE: output_shape (a constant [5]), filter [kd,kh,kw,O,C], input
 *     [N,D,H,W,C], optional bias [O]: every input value times the filter scattered into the
 *     output, the padding that of the forward convolution from the output's size to the
 *     input's.
 * The reference serves as run: its loops already walk each tap's filter slice contiguously
 * (channels innermost) and skip taps outside the input once per pixel, not per product. */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* Conv3DOptions: padding 0, stride_d 1, stride_w 2, stride_h 3, activation 4, dilation_d 5,
 * dilation_w 6, dilation_h 7. */
static vki_status read_conv3d(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t pad, act;
    int32_t sd, sw, sh, dd, dw, dh;
    if (!vki_opt_i8(r, 0, 0, &pad) || !vki_opt_i32(r, 1, 0, &sd) || !vki_opt_i32(r, 2, 0, &sw) ||
        !vki_opt_i32(r, 3, 0, &sh) || !vki_opt_i8(r, 4, 0, &act) || !vki_opt_i32(r, 5, 1, &dd) ||
        !vki_opt_i32(r, 6, 1, &dw) || !vki_opt_i32(r, 7, 1, &dh))
        return vki_opt_malformed(r);
    vki_status s = vki_opt_padding(r, pad, &op->opt.conv3d.padding);
    if (!s) s = vki_opt_activation(r, act, &op->opt.conv3d.activation);
    int v[6] = {sd, sh, sw, dd, dh, dw};
    for (int i = 0; !s && i < 6; i++)
        if (v[i] < 1) s = vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "%s %d, need 1 or more",
                                       i < 3 ? "stride" : "dilation", v[i]);
    for (int i = 0; !s && i < 3; i++) {
        op->opt.conv3d.stride[i] = v[i];
        op->opt.conv3d.dilation[i] = v[3 + i];
    }
    return s;
}

typedef struct geom {
    int n, in[3], c, k[3], out[3], o, pad[3];
    const int *stride, *dilation;
} geom;

static vki_status check_5d(const vki_model *m, int o, int t, const char *role) {
    const vki_tensor *x = &m->tensors[t];
    if (x->rank != 5)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d '%s') has rank %d, need 5",
                           role, t, x->name, x->rank);
    return VKI_OK;
}

static vki_status check_bias(const vki_model *m, int o, int slot, int channels) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs <= slot || op->inputs[slot] < 0) return VKI_OK;
    vki_status s = vki_op_check_const(m, o, slot, "bias", 1);
    if (!s && vki_op_in(m, op, slot)->shape[0] != channels)
        s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "bias has %d values, the output %d channels",
                        vki_op_in(m, op, slot)->shape[0], channels);
    return s;
}

static vki_status validate_conv3d(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 3, 1);
    if (!s) s = check_5d(m, o, op->inputs[0], "input");
    if (!s) s = vki_op_check_const(m, o, 1, "filter", 5);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *f = vki_op_in(m, op, 1);
    if (f->shape[3] != in->shape[4])
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "filter takes %d channels, the input has %d",
                           f->shape[3], in->shape[4]);
    s = check_bias(m, o, 2, f->shape[4]);
    if (s) return s;
    int dims[5] = {in->shape[0], 0, 0, 0, f->shape[4]};
    for (int a = 0; a < 3; a++) {
        dims[1 + a] = vki_conv_out_size(op->opt.conv3d.padding, in->shape[1 + a], f->shape[a],
                                        op->opt.conv3d.stride[a], op->opt.conv3d.dilation[a]);
        if (dims[1 + a] < 1)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "the window does not fit the input "
                               "along axis %d", 1 + a);
    }
    return vki_op_expect_dims(m, o, op->outputs[0], 5, dims);
}

static vki_status validate_transpose3d(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs < 3 || op->n_inputs > 4 || op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need 3 or "
                           "4 and 1", op->n_inputs, op->n_outputs);
    const int32_t *shape;
    int n;
    vki_status s = vki_op_int_values(m, o, 0, "output_shape", 5, 5, &shape, &n);
    if (!s) s = vki_op_check_const(m, o, 1, "filter", 5);
    if (!s) s = vki_op_check_float_tensor(m, o, op->inputs[2], "input", 2);
    if (!s) s = check_5d(m, o, op->inputs[2], "input");
    if (!s) s = vki_op_check_float_tensor(m, o, op->outputs[0], "output", 0);
    if (s) return s;
    const vki_tensor *f = vki_op_in(m, op, 1), *in = vki_op_in(m, op, 2);
    if (f->shape[4] != in->shape[4] || shape[4] != f->shape[3] || shape[0] != in->shape[0])
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "filter [%d,%d,%d,%d,%d] does not fit "
                           "input channels %d, output channels %d and batches %d/%d", f->shape[0],
                           f->shape[1], f->shape[2], f->shape[3], f->shape[4], in->shape[4],
                           shape[4], shape[0], in->shape[0]);
    for (int a = 0; a < 4; a++)
        if (shape[a] < 1)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output_shape[%d] = %d", a, shape[a]);
    s = check_bias(m, o, 3, f->shape[3]);
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], 5, shape);
}

/* The leading padding of a convolution from `big` to `small` along one axis. */
static int pad_of(vki_padding p, int big, int small, int k, int stride, int dil) {
    if (p == VKI_PAD_VALID) return 0;
    int total = (small - 1) * stride + (k - 1) * dil + 1 - big;
    return total > 0 ? total / 2 : 0;
}

/* in/out: the convolution's own input and output (for the transpose, the op's output and
 * input); filter axes 3 and 4: [.., c_in, c_out] forward, [.., c_out, c_in] transposed. */
static geom geom_of(const vki_model *m, const vki_op *op) {
    geom g = {0};
    const int transposed = op->code == VKI_OP_CONV_3D_TRANSPOSE;
    const vki_tensor *big = transposed ? vki_op_out(m, op, 0) : vki_op_in(m, op, 0);
    const vki_tensor *small = transposed ? vki_op_in(m, op, 2) : vki_op_out(m, op, 0);
    const vki_tensor *f = vki_op_in(m, op, 1);
    g.n = big->shape[0];
    g.c = big->shape[4];
    g.o = small->shape[4];
    g.stride = op->opt.conv3d.stride;
    g.dilation = op->opt.conv3d.dilation;
    for (int a = 0; a < 3; a++) {
        g.in[a] = big->shape[1 + a];
        g.out[a] = small->shape[1 + a];
        g.k[a] = f->shape[a];
        g.pad[a] = pad_of(op->opt.conv3d.padding, g.in[a], g.out[a], g.k[a], g.stride[a], g.dilation[a]);
    }
    return g;
}

/* The big tensor's coordinate of a tap, or -1 outside it. */
static long tap(const geom *g, const int *pos, const int *kk) {
    long at = 0;
    for (int a = 0; a < 3; a++) {
        int x = pos[a] * g->stride[a] - g->pad[a] + kk[a] * g->dilation[a];
        if (x < 0 || x >= g->in[a]) return -1;
        at = at * g->in[a] + x;
    }
    return at;
}

/* The sums of both ops, tap by tap: forward, out[small] += big[tap] * f[.., c, o];
 * transposed, big[tap] += small[pos] * f[.., o, c] (o: the op's output channel). */
static void sums(const vki_model *m, const vki_op *op, const float *const *in, float *const *out) {
    const geom g = geom_of(m, op);
    const int transposed = op->code == VKI_OP_CONV_3D_TRANSPOSE;
    const float *f = in[1];
    const int bias_slot = transposed ? 3 : 2;
    const float *bias = op->n_inputs > bias_slot ? in[bias_slot] : NULL;
    const long big_pix = (long)g.in[0] * g.in[1] * g.in[2], small_pix = (long)g.out[0] * g.out[1] * g.out[2];
    /* Forward: x = input (big, c channels), y = output (small, o). Transposed: x = input
     * (small, c' = in channels = filter axis 4), y = output (big, o' = filter axis 3). */
    const int fc3 = vki_op_in(m, op, 1)->shape[3], fc4 = vki_op_in(m, op, 1)->shape[4];
    float *y = out[0];
    const size_t y_n = vki_tensor_elements(vki_op_out(m, op, 0));
    const int y_c = transposed ? fc3 : fc4;
    for (size_t i = 0; i < y_n; i++) y[i] = bias ? bias[i % (size_t)y_c] : 0.0f;
    const float *x = transposed ? in[2] : in[0];
    for (int b = 0; b < g.n; b++)
        for (int p0 = 0; p0 < g.out[0]; p0++)
            for (int p1 = 0; p1 < g.out[1]; p1++)
                for (int p2 = 0; p2 < g.out[2]; p2++) {
                    const int pos[3] = {p0, p1, p2};
                    const long small = ((long)b * small_pix + ((long)p0 * g.out[1] + p1) * g.out[2] + p2);
                    for (int k0 = 0; k0 < g.k[0]; k0++)
                        for (int k1 = 0; k1 < g.k[1]; k1++)
                            for (int k2 = 0; k2 < g.k[2]; k2++) {
                                const int kk[3] = {k0, k1, k2};
                                long t = tap(&g, pos, kk);
                                if (t < 0) continue;
                                const long big = (long)b * big_pix + t;
                                const float *w = f + (((size_t)k0 * g.k[1] + k1) * g.k[2] + k2) * (size_t)fc3 * fc4;
                                if (!transposed) {       /* y[small][o] += x[big][c] w[c][o] */
                                    const float *xv = x + big * fc3;
                                    float *yv = y + small * fc4;
                                    for (int c = 0; c < fc3; c++)
                                        for (int oc = 0; oc < fc4; oc++) yv[oc] += xv[c] * w[c * fc4 + oc];
                                } else {                 /* y[big][o] += x[small][c] w[o][c] */
                                    const float *xv = x + small * fc4;
                                    float *yv = y + big * fc3;
                                    for (int oc = 0; oc < fc3; oc++) {
                                        float acc = 0;
                                        for (int c = 0; c < fc4; c++) acc += xv[c] * w[oc * fc4 + c];
                                        yv[oc] += acc;
                                    }
                                }
                            }
                }
    for (size_t i = 0; i < y_n; i++) y[i] = vki_apply_activation(op->opt.conv3d.activation, y[i]);
}

static void reference_conv3d(const vki_model *m, const vki_op *op, const float *const *in,
                             float *const *out) {
    sums(m, op, in, out);
}

const vki_op_def vki_op_conv3d = {.validate = validate_conv3d, .reference = reference_conv3d,
                                  .options = read_conv3d, .general = true};
const vki_op_def vki_op_conv3d_transpose = {.validate = validate_transpose3d,
                                            .reference = reference_conv3d,
                                            .options = read_conv3d, .general = true};
