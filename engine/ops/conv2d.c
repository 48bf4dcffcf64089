/* conv2d.c: CONV_2D (NHWC input, [O,KH,KW,I] constant filter, optional bias, SAME/VALID
 * padding, strides, dilations, fused activation): validation, weight packing for
 * glsl/conv2d.comp, and the C reference.
 *
 * The kernel computes a tile of TILE_S output slices x TILE_X adjacent columns per
 * thread: the input vec4 it loads is reused TILE_S times and each weight vec4 TILE_X
 * times. The tile is picked from the shapes (see pick_tile) and can be forced with
 * VKI_CONV_TILE="S,X" in the environment, which tests use to run every variant on the
 * same shapes and which helps when tuning a device.
 */
#include "conv_common.h"

#include <stdint.h>
#include <stdlib.h>


static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_conv_check_operands(m, o);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_shape4 is = vki_tensor_shape4(in);
    int oc = f->shape[0], fi = f->shape[3];
    if (fi != is.c) {
        /* TFLite expresses grouped convolution as a filter with fewer input channels. */
        if (is.c % fi == 0)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                               "grouped convolution is not supported: weights tensor %d '%s' has "
                               "%d input channels, input tensor %d has %d",
                               op->inputs[1], f->name, fi, op->inputs[0], is.c);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' has %d input channels, input tensor %d has %d",
                           op->inputs[1], f->name, fi, op->inputs[0], is.c);
    }
    return vki_conv_check_window(m, o, oc);
}

/* Threads a tiling leaves. */
static long tile_threads(const vki_conv_window *g, int tile_s, int tile_x) {
    const int out_s = (g->out.c + 3) / 4;
    return (long)((g->out.w + tile_x - 1) / tile_x) * g->out.h * ((out_s + tile_s - 1) / tile_s);
}

/* Output slices (TILE_S) and columns (TILE_X) per thread. Wider tiles reuse loads but
 * leave fewer threads. Measured on MobileNet-sized layers (kernel time): on an H200 the
 * 1,1 tile is best or tied, and wider ones lose 1.4-3x once fewer than ~64k threads
 * remain, the GPU running out of warps to hide latency; on lavapipe 4x2 or 1x4 tiles
 * are 2-3x faster at any size. So CPU devices get a 4x2 tile; GPUs widen only while at
 * least VKI_CONV_MIN_THREADS threads remain, columns first. */
#define VKI_CONV_MIN_THREADS 65536L
static void pick_tile(const vki_wg_device *dev, const vki_conv_window *g, int *tile_s, int *tile_x) {
    const int out_s = (g->out.c + 3) / 4;
    *tile_s = 1;
    *tile_x = 1;
    if (dev->is_cpu) {
        /* A CPU device runs a work group as one SIMD loop on one core: threads are cheap
         * to lose and reuse in registers is everything. */
        *tile_s = out_s >= 4 ? 4 : out_s >= 2 ? 2 : 1;
        *tile_x = g->out.w >= 2 ? 2 : 1;
    } else {
        if (g->out.w >= 4 && tile_threads(g, 1, 2) >= VKI_CONV_MIN_THREADS) *tile_x = 2;
        if (out_s >= 2 && tile_threads(g, 2, *tile_x) >= VKI_CONV_MIN_THREADS) *tile_s = 2;
        if (out_s >= 4 && tile_threads(g, 4, *tile_x) >= VKI_CONV_MIN_THREADS) *tile_s = 4;
    }

    const char *env = getenv("VKI_CONV_TILE");
    if (env && *env) {
        char *end;
        long s = strtol(env, &end, 10);
        if (*end == ',') {
            long x = strtol(end + 1, NULL, 10);
            if (s >= 1 && s <= 8 && x >= 1 && x <= 8) {
                *tile_s = (int)s;
                *tile_x = (int)x;
            }
        }
    }
}

/* Weights for slice group gi (TILE_S output slices), tap (ky,kx) and input slice is are
 * TILE_S*4 consecutive vec4: for output slice j of the group and input lane i, a vec4 of
 * the 4 output channels' weights for input channel is*4+i. Groups past the real output
 * slices, padded output channels and padded input lanes are zero. */
static float *pack_weights(const float *f, const vki_conv_window *g, int tile_s, size_t *count) {
    const int in_s = (g->in.c + 3) / 4, out_s = (g->out.c + 3) / 4;
    const int groups = (out_s + tile_s - 1) / tile_s;
    const int ic = g->in.c, oc = g->out.c;
    *count = (size_t)groups * g->kh * g->kw * in_s * tile_s * 16;
    float *w = vki_calloc(*count, sizeof(float));
    if (!w) return NULL;
    size_t at = 0;
    for (int gi = 0; gi < groups; gi++)
        for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++)
                for (int is = 0; is < in_s; is++)
                    for (int j = 0; j < tile_s; j++)
                        for (int i = 0; i < 4; i++)
                            for (int lane = 0; lane < 4; lane++, at++) {
                                int co = ((gi * tile_s + j) * 4) + lane, ci = is * 4 + i;
                                if (co < oc && ci < ic)
                                    w[at] = f[(((size_t)co * g->kh + ky) * g->kw + kx) * ic + ci];
                            }
    return w;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_conv_window g = vki_conv_window_of(m, op);
    int tile_s, tile_x;
    pick_tile(vki_build_device(b), &g, &tile_s, &tile_x);
    const int out_s = (g.out.c + 3) / 4;
    const int groups = (out_s + tile_s - 1) / tile_s;

    size_t count;
    float *w = pack_weights(vki_op_in(m, op, 1)->data, &g, tile_s, &count);
    if (!w) return vki_fail_oom("graph build");
    int wblob = vki_build_weights(b, w, count);
    free(w);
    /* Bias padded to whole groups so the kernel reads it without a bound check. */
    const vki_tensor *bt = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    int bblob = vki_build_bias(b, bt, g.out.c, (size_t)groups * tile_s * 4);
    if (wblob < 0 || bblob < 0) return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_conv_dispatch(&d, VKI_KERNEL_conv2d, VKI_WG_CONV, &g, op->opt.conv.activation,
                      op->inputs[0], wblob, bblob, -1);
    vki_status st = vki_build_bind_output(b, &d, op);
    if (st) return st;
    vki_define_int(&d, "TILE_S", tile_s);
    vki_define_int(&d, "TILE_X", tile_x);
    d.grid[0] = (uint32_t)((g.out.w + tile_x - 1) / tile_x);
    d.grid[1] = (uint32_t)g.out.h;
    d.grid[2] = (uint32_t)groups;
    return vki_build_dispatch(b, &d);
}

/* Direct transcription of TFLite's float Conv: out[y][x][co] = act(bias[co] +
 * sum over ky, kx, ci of in[y*sh - pad + ky*dh][x*sw - pad + kx*dw][ci] * f[co][ky][kx][ci]),
 * taps outside the input contributing zero. Accumulates in double. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_conv_options *c = &op->opt.conv;
    const vki_conv_window w = vki_conv_window_of(m, op);
    const vki_shape4 is = w.in, os = w.out;
    const int kh = w.kh, kw = w.kw, dh = w.dil_h, dw = w.dil_w, ph = w.pad_h, pw = w.pad_w;
    const float *src = in[0], *f = in[1], *bias = op->n_inputs > 2 ? in[2] : NULL;
    for (int y = 0; y < os.h; y++)
        for (int x = 0; x < os.w; x++)
            for (int co = 0; co < os.c; co++) {
                double sum = bias ? bias[co] : 0.0;
                for (int ky = 0; ky < kh; ky++) {
                    int iy = y * c->stride_h - ph + ky * dh;
                    if (iy < 0 || iy >= is.h) continue;
                    for (int kx = 0; kx < kw; kx++) {
                        int ix = x * c->stride_w - pw + kx * dw;
                        if (ix < 0 || ix >= is.w) continue;
                        const float *p = src + ((size_t)iy * is.w + ix) * is.c;
                        const float *q = f + (((size_t)co * kh + ky) * kw + kx) * is.c;
                        for (int ci = 0; ci < is.c; ci++) sum += (double)p[ci] * q[ci];
                    }
                }
                out[0][((size_t)y * os.w + x) * os.c + co] =
                    vki_apply_activation(c->activation, (float)sum);
            }
}

const vki_op_def vki_op_conv2d = {
    .validate = validate, .build = build, .reference = reference,
    .options = vki_conv_read_options};
