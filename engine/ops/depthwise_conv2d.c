/* depthwise_conv2d.c: DEPTHWISE_CONV_2D (NHWC input, [1,KH,KW,O] constant filter with
 * O = input channels * depth multiplier, optional bias, SAME/VALID padding, strides,
 * dilations, fused activation): validation, weight packing for
 * glsl/depthwise_conv2d.comp, the choice of its form, and the C reference.
 *
 * With a multiplier of 1 the kernel can compute TILE_X adjacent output columns per thread,
 * sharing the input loads of overlapping windows and the weights (see pick_tile_x);
 * VKI_DW_KERNEL="direct" or "cols:N" forces one column or N, for tests and device sweeps.
 */
#include "conv_common.h"
#include "int8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_conv_check_operands(m, o);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_conv_options *c = &op->opt.conv;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_shape4 is = vki_tensor_shape4(in);
    const int oc = f->shape[3];
    if (f->shape[0] != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' has leading dimension %d, need 1",
                           op->inputs[1], f->name, f->shape[0]);
    if (oc % is.c != 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' has %d channels, not a multiple of the %d "
                           "channels of input tensor %d",
                           op->inputs[1], f->name, oc, is.c, op->inputs[0]);
    if (c->depth_multiplier != 0 && (long long)c->depth_multiplier * is.c != oc)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "depth_multiplier %d disagrees with weights tensor %d '%s' "
                           "(%d channels) and input tensor %d (%d channels)",
                           c->depth_multiplier, op->inputs[1], f->name, oc, op->inputs[0], is.c);
    return vki_conv_check_window(m, o, oc);
}

/* Output columns per thread. On a CPU device every load costs a loop over the SIMD
 * lanes, so a thread takes 4 columns: a 3x3 stride-1 row then loads 3 weights and 6
 * inputs for 4 outputs instead of 12 and 12. Measured on lavapipe (2 cores, CPU time per
 * inference, medians of 2), columns 1, 2, 4, 8: hand_landmark_lite (seven 5x5 and five
 * 3x3 stride-1 layers) 69, 58, 52, 59 ms; pose_landmark_lite (21 3x3 stride-1 layers)
 * 131, 108, 102, 105 ms. GPUs keep one column until measured. */
static int pick_tile_x(const vki_build *b, const vki_conv_window *g, int multiplier) {
    const vki_wg_device *dev = vki_build_device(b);
    if (multiplier != 1) return 1;
    int x = 1;
    if (dev->is_cpu) x = 4;
    const char *env = vki_build_env(b, VKI_ENV_DW_KERNEL);
    if (env && !strcmp(env, "direct")) x = 1;
    if (env && !strncmp(env, "cols", 4)) {
        x = 4;
        if (env[4] == ':') {
            long n = strtol(env + 5, NULL, 10);
            if (n >= 1 && n <= 8) x = (int)n;
        }
    }
    while (x > 1 && x / 2 >= g->out.w) x /= 2;
    return x;
}

/* The integer form (int8.h): weights [1, KH, KW, O] per tensor or per channel (axis 3). */
static bool integer(const vki_model *m, const vki_op *op) { return vki_int8_conv_ok(m, op, 3); }

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

/* The packed integer form's weights and bias (depthwise_conv2d.comp, DW_PACKED): the
 * weights (q - zero point, one vec4 per (slice, tap) as packed) as int32, and the input's
 * zero point times each output channel's weight sum over all `taps` off its bias, as the
 * kernel reads that zero point for a tap outside the input. */
static void pack_packed(const float *w, size_t count, int taps, int oc, int zero, int32_t *wi,
                        int32_t *adjust) {
    for (size_t i = 0; i < count; i++) wi[i] = (int32_t)w[i];
    for (int c = 0; c < oc; c++) {
        int64_t sum = 0;
        for (int t = 0; t < taps; t++) sum += wi[((size_t)(c / 4) * taps + t) * 4 + c % 4];
        adjust[c] = (int32_t)(-(int64_t)zero * sum);
    }
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->fused.expand) return vki_build_block(b, m, o);
    if (op->fused.pointwise) return vki_build_dw_pw(b, m, o, op->fused.pointwise - 1);
    const vki_conv_options *c = &op->opt.conv;
    const bool int8 = runs_integer(m, op);
    float *values = int8 ? vki_int8_weight_values(vki_op_in(m, op, 1)) : NULL;
    if (int8 && !values) return vki_fail_oom("graph build");
    const float *f = int8 ? values : vki_op_in(m, op, 1)->data;
    const vki_conv_window win = vki_conv_window_of(m, op);
    const vki_shape4 in = win.in, out = win.out;
    const int kh = win.kh, kw = win.kw, oc = out.c, out_s = (oc + 3) / 4;

    /* One vec4 per (output slice, ky, kx); padded lanes zero so padded outputs stay 0. */
    size_t count = (size_t)out_s * kh * kw * 4;
    float *w = vki_calloc(count, sizeof(float));
    if (!w) {
        free(values);
        return vki_fail_oom("graph build");
    }
    for (int s = 0; s < out_s; s++)
        for (int ky = 0; ky < kh; ky++)
            for (int kx = 0; kx < kw; kx++)
                for (int i = 0; i < 4; i++) {
                    int ch = s * 4 + i;
                    if (ch < oc)
                        w[(((size_t)s * kh + ky) * kw + kx) * 4 + i] =
                            f[((size_t)ky * kw + kx) * oc + ch];
                }
    const vki_tensor *bt = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    const int multiplier = oc / in.c;
    const bool packed = int8 && multiplier == 1;
    int wblob, bblob;
    if (packed) {
        wblob = bblob = -1;
        int32_t *wi = vki_malloc(count * sizeof *wi);
        int32_t *adjust = vki_calloc((size_t)oc, sizeof *adjust);
        if (wi && adjust) {
            pack_packed(w, count, kh * kw, oc, vki_op_in(m, op, 0)->quant_zero, wi, adjust);
            wblob = vki_build_weights_i32(b, wi, count);
            bblob = vki_int8_bias_blob_adjusted(b, m, op, (size_t)out_s * 4, adjust);
        }
        free(wi);
        free(adjust);
    } else {
        wblob = int8 ? vki_build_weights_q8(b, w, count) : vki_build_weights(b, w, count);
        bblob = int8 ? vki_int8_bias_blob(b, m, op, (size_t)out_s * 4)
                     : vki_build_bias(b, bt, oc, (size_t)out_s * 4);
    }
    free(w);
    free(values);
    if (wblob < 0 || bblob < 0) return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_conv_dispatch(&d, VKI_KERNEL_depthwise_conv2d, VKI_WG_DEPTHWISE, &win,
                      int8 ? VKI_ACT_NONE : c->activation, op->inputs[0], wblob, bblob, -1);
    vki_status st = vki_build_bind_output(b, &d, op);
    if (st) return st;
    if (int8 && (st = vki_int8_define_epilogue(b, &d, m, op, c->activation, (size_t)out_s * 4)))
        return st;
    if (packed) vki_int8_define_packed_src(&d, vki_op_in(m, op, 0));
    const int tile_x = pick_tile_x(b, &win, multiplier);
    vki_define_int(&d, "DEPTH_MULTIPLIER", multiplier);
    vki_define_int(&d, "TILE_X", tile_x);
    /* "dw3x3s2 4c": window, stride, columns a thread; "dw3x3s1 m2": a multiplier of 2;
     * " q8": the packed integer form. */
    snprintf(d.variant, sizeof d.variant, "dw%dx%ds%d %d%s%s", kh, kw, win.stride_w,
             multiplier == 1 ? tile_x : multiplier, multiplier == 1 ? "c" : "m",
             packed ? " q8" : "");
    vki_dispatch_grid_phwc4(&d, out);
    d.grid[0] = (uint32_t)((out.w + tile_x - 1) / tile_x);
    return vki_build_dispatch(b, &d);
}

/* TFLite's float DepthwiseConv: out[y][x][ic*dm + k] = act(bias + sum over ky, kx of
 * in[y*sh - pad + ky*dh][x*sw - pad + kx*dw][ic] * f[0][ky][kx][ic*dm + k]), taps
 * outside the input contributing zero. Accumulates in double. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_conv_options *c = &op->opt.conv;
    const vki_conv_window w = vki_conv_window_of(m, op);
    const vki_shape4 is = w.in, os = w.out;
    const int kh = w.kh, kw = w.kw, dh = w.dil_h, dw = w.dil_w, ph = w.pad_h, pw = w.pad_w;
    const int dm = os.c / is.c;
    const float *src = in[0], *f = in[1], *bias = op->n_inputs > 2 ? in[2] : NULL;
    /* The integer form: int32 sums of q - zero point, requantized (int8.h). */
    const bool int8 = runs_integer(m, op);
    const vki_tensor *ft = vki_op_in(m, op, 1);
    int lo = 0, hi = 0;
    if (int8) vki_int8_activation_range(vki_op_out(m, op, 0), c->activation, &lo, &hi);
    for (int y = 0; y < os.h; y++)
        for (int x = 0; x < os.w; x++)
            for (int ic = 0; ic < is.c; ic++)
                for (int k = 0; k < dm; k++) {
                    int co = ic * dm + k;
                    double sum = bias ? bias[co] : 0.0;
                    int32_t isum = int8 ? vki_int8_bias(m, op, co) : 0;
                    for (int ky = 0; ky < kh; ky++) {
                        int iy = y * c->stride_h - ph + ky * dh;
                        if (iy < 0 || iy >= is.h) continue;
                        for (int kx = 0; kx < kw; kx++) {
                            int ix = x * c->stride_w - pw + kx * dw;
                            if (ix < 0 || ix >= is.w) continue;
                            const float v = src[((size_t)iy * is.w + ix) * is.c + ic];
                            const size_t fe = ((size_t)ky * kw + kx) * os.c + co;
                            if (int8) isum += (int32_t)v * vki_tensor_qvalue(ft, fe, 1);
                            else sum += (double)v * f[fe];
                        }
                    }
                    out[0][((size_t)y * os.w + x) * os.c + co] =
                        int8 ? vki_int8_requantize(isum, vki_int8_conv_scale(m, op, co), lo, hi)
                             : vki_apply_activation(c->activation, (float)sum);
                }
}

const vki_op_def vki_op_depthwise_conv2d = {
    .validate = validate, .build = build, .reference = reference,
    .options = vki_conv_read_options, .integer = integer};
