/* test_ops_tconv.c: TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias against
 * their C references (strides, kernel sizes, paddings, odd shapes and channel counts,
 * bias, activations), the references against an independent scatter implementation,
 * the selfie segmentation model's op with its real weights, and validation errors. */
#include "harness.h"
#include "loader.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int channels[] = {1, 3, 4, 5, 17};
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

#define CUSTOM_NAME "Convolution2DTransposeBias"

enum { BIAS_NONE = 0, BIAS_PRESENT, BIAS_OMITTED };   /* OMITTED: 4th input is -1 */

typedef struct tc_case {
    int h, w, ci, co, kh, kw, sh, sw;
    vki_padding pad;
    int bias;                   /* BIAS_*; the custom op always has one */
    vki_activation act;
    int oh, ow;                 /* TRANSPOSE_CONV output size; 0: the usual one for pad */
} tc_case;

/* The output size a converter writes for a consistent model: SAME in*stride, VALID
 * (in-1)*stride + K. */
static int usual_out(vki_padding pad, int in, int k, int stride) {
    return pad == VKI_PAD_SAME ? in * stride : (in - 1) * stride + k;
}

/* MediaPipe's Prepare: stride*(in-1) + K - total, total = max(0, K - (in-1)%stride - 1)
 * for SAME. */
static int mediapipe_total(vki_padding pad, int in, int k, int stride) {
    if (pad != VKI_PAD_SAME) return 0;
    int t = k - (in - 1) % stride - 1;
    return t > 0 ? t : 0;
}
static int mediapipe_out(vki_padding pad, int in, int k, int stride) {
    return stride * (in - 1) + k - mediapipe_total(pad, in, k, stride);
}

static uint32_t case_seed(const tc_case *c) {
    return (uint32_t)(c->h * 131 + c->w * 71 + c->ci * 37 + c->co * 17 + c->kh * 7 +
                      c->kw * 3 + c->sh * 11 + c->sw * 13 + (int)c->pad * 101 +
                      (int)c->act * 1009 + c->bias * 5);
}

static int add_shape_tensor(vki_model *m, const int32_t v[4]) {
    int one = 4;
    int t = vki_model_add_tensor(m, "output_shape", VKI_DTYPE_INT32, 1, &one, v,
                                 4 * sizeof(int32_t));
    cr_assert(t >= 0);
    return t;
}

/* One TRANSPOSE_CONV op. Tensors: 0 input, 1 weights, 2 bias (if any), then
 * output_shape and output. */
static vki_model *make_builtin(const tc_case *c, uint32_t seed) {
    vki_model *m = vki_model_new("tconv");
    cr_assert(m);
    int oh = c->oh ? c->oh : usual_out(c->pad, c->h, c->kh, c->sh);
    int ow = c->ow ? c->ow : usual_out(c->pad, c->w, c->kw, c->sw);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {c->co, c->kh, c->kw, c->ci};
    int weights = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = -1;
    if (c->bias == BIAS_PRESENT) bias = harness_const(m, 1, &c->co, seed * 5u + 2u, -2.0f, 2.0f);
    int32_t shape[4] = {1, oh, ow, c->co};
    int shape_t = add_shape_tensor(m, shape);
    int out = harness_tensor(m, oh, ow, c->co);
    int ins[4] = {shape_t, weights, in, bias};
    vki_op *op = vki_model_add_op(m, VKI_OP_TRANSPOSE_CONV, c->bias == BIAS_NONE ? 3 : 4, ins,
                                  1, &out);
    cr_assert(op);
    op->opt.transpose_conv.padding = c->pad;
    op->opt.transpose_conv.stride_h = c->sh;
    op->opt.transpose_conv.stride_w = c->sw;
    op->opt.transpose_conv.activation = c->act;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

/* One Convolution2DTransposeBias op as the loader produces it. Tensors: 0 input,
 * 1 weights, 2 bias, 3 output. */
static vki_model *make_custom(const tc_case *c, uint32_t seed) {
    vki_model *m = vki_model_new("tconv_bias");
    cr_assert(m);
    int oh = mediapipe_out(c->pad, c->h, c->kh, c->sh);
    int ow = mediapipe_out(c->pad, c->w, c->kw, c->sw);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {c->co, c->kh, c->kw, c->ci};
    int weights = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = harness_const(m, 1, &c->co, seed * 5u + 2u, -2.0f, 2.0f);
    int out = harness_tensor(m, oh, ow, c->co);
    int ins[3] = {in, weights, bias};
    vki_op *op = vki_model_add_op(m, VKI_OP_CUSTOM, 3, ins, 1, &out);
    cr_assert(op);
    strcpy(op->custom_name, CUSTOM_NAME);
    op->opt.transpose_conv.padding = c->pad;
    op->opt.transpose_conv.stride_h = c->sh;
    op->opt.transpose_conv.stride_w = c->sw;
    op->opt.transpose_conv.activation = VKI_ACT_NONE;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

static void check_builtin(const tc_case *c) {
    uint32_t seed = case_seed(c);
    harness_check(make_builtin(c, seed), seed, TOL);
}

static void check_custom(const tc_case *c) {
    uint32_t seed = case_seed(c) + 7u;
    harness_check(make_custom(c, seed), seed, TOL);
}

/* ---- TRANSPOSE_CONV on the device ---------------------------------------------------- */

Test(transpose_conv, strides_kernels_paddings) {
    static const int strides[] = {1, 2, 3}, kernels[] = {2, 3, 4};
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 3; ki++)
            for (int p = 0; p < 2; p++) {
                tc_case c = {.h = 5, .w = 7, .ci = 5, .co = 3, .kh = kernels[ki],
                             .kw = kernels[ki], .sh = strides[si], .sw = strides[si],
                             .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME, .bias = BIAS_PRESENT};
                check_builtin(&c);
            }
}

Test(transpose_conv, channel_counts) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++) {
            tc_case c = {.h = 5, .w = 7, .ci = channels[i], .co = channels[o], .kh = 3, .kw = 3,
                         .sh = 2, .sw = 2, .pad = (i + o) % 2 ? VKI_PAD_VALID : VKI_PAD_SAME,
                         .bias = (i + o) % 3 ? BIAS_PRESENT : BIAS_NONE};
            check_builtin(&c);
        }
}

Test(transpose_conv, odd_and_tiny_shapes) {
    static const tc_case cases[] = {
        {.h = 1, .w = 1, .ci = 3, .co = 5, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        {.h = 1, .w = 1, .ci = 17, .co = 4, .kh = 4, .kw = 4, .sh = 3, .sw = 3, .pad = VKI_PAD_VALID},
        {.h = 1, .w = 1, .ci = 1, .co = 1, .kh = 2, .kw = 2, .sh = 1, .sw = 1, .pad = VKI_PAD_VALID},
        {.h = 1, .w = 1, .ci = 4, .co = 17, .kh = 2, .kw = 2, .sh = 3, .sw = 3, .pad = VKI_PAD_SAME},
        {.h = 7, .w = 5, .ci = 4, .co = 5, .kh = 4, .kw = 4, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        {.h = 1, .w = 7, .ci = 5, .co = 3, .kh = 3, .kw = 3, .sh = 3, .sw = 3, .pad = VKI_PAD_VALID},
        {.h = 5, .w = 1, .ci = 3, .co = 17, .kh = 2, .kw = 2, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        /* Different strides and windows along H and W. */
        {.h = 5, .w = 7, .ci = 5, .co = 4, .kh = 2, .kw = 4, .sh = 2, .sw = 3, .pad = VKI_PAD_SAME},
        {.h = 7, .w = 5, .ci = 3, .co = 5, .kh = 4, .kw = 3, .sh = 3, .sw = 1, .pad = VKI_PAD_VALID},
        /* Window smaller than the stride: some output rows receive nothing. */
        {.h = 5, .w = 7, .ci = 4, .co = 3, .kh = 2, .kw = 2, .sh = 3, .sw = 3, .pad = VKI_PAD_VALID},
        /* 1x1 window. */
        {.h = 5, .w = 7, .ci = 17, .co = 5, .kh = 1, .kw = 1, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_case c = cases[i];
        c.bias = i % 2 ? BIAS_NONE : BIAS_PRESENT;
        check_builtin(&c);
    }
}

Test(transpose_conv, bias_present_absent_omitted) {
    for (int b = BIAS_NONE; b <= BIAS_OMITTED; b++) {
        tc_case c = {.h = 5, .w = 7, .ci = 5, .co = 17, .kh = 3, .kw = 3, .sh = 2, .sw = 2,
                     .pad = VKI_PAD_SAME, .bias = b};
        check_builtin(&c);
    }
}

Test(transpose_conv, fused_activations) {
    static const vki_activation acts[] = {VKI_ACT_RELU, VKI_ACT_RELU6, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_TANH};
    for (int a = 0; a < 4; a++) {
        /* 17 channels through a 4x4 window at stride 1 reach past 6 in magnitude. */
        tc_case c = {.h = 5, .w = 7, .ci = 17, .co = 5, .kh = 4, .kw = 4, .sh = 1 + a % 2,
                     .sw = 1 + a % 2, .pad = a % 2 ? VKI_PAD_VALID : VKI_PAD_SAME,
                     .bias = BIAS_PRESENT, .act = acts[a]};
        check_builtin(&c);
    }
}

/* Output sizes other than the usual one: TFLite derives the padding from the output
 * size, and extra or missing output rows must still come out right. */
Test(transpose_conv, other_output_sizes) {
    static const tc_case cases[] = {
        /* SAME with an odd output: ceil(9/2) = 5 is still consistent with the input. */
        {.h = 5, .w = 7, .ci = 3, .co = 4, .kh = 3, .kw = 4, .sh = 2, .sw = 2,
         .pad = VKI_PAD_SAME, .oh = 9, .ow = 13},
        /* Inconsistent sizes, accepted by TFLite: larger and smaller than the input gives. */
        {.h = 5, .w = 7, .ci = 5, .co = 3, .kh = 3, .kw = 3, .sh = 2, .sw = 2,
         .pad = VKI_PAD_SAME, .oh = 14, .ow = 11},
        {.h = 5, .w = 7, .ci = 4, .co = 5, .kh = 4, .kw = 2, .sh = 3, .sw = 2,
         .pad = VKI_PAD_VALID, .oh = 8, .ow = 17},
        /* VALID output smaller than the window (TFLite's padding turns positive here). */
        {.h = 1, .w = 1, .ci = 3, .co = 3, .kh = 4, .kw = 4, .sh = 4, .sw = 4,
         .pad = VKI_PAD_VALID, .oh = 2, .ow = 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_case c = cases[i];
        c.bias = BIAS_PRESENT;
        check_builtin(&c);
    }
}

/* ---- Convolution2DTransposeBias on the device ----------------------------------------- */

Test(conv2d_transpose_bias, mediapipe_shapes) {
    static const tc_case cases[] = {
        /* selfie_segmentation's op, smaller: 2x2 stride 2 SAME, 16 -> 1 channels. */
        {.h = 16, .w = 16, .ci = 16, .co = 1, .kh = 2, .kw = 2, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        /* Odd input: MediaPipe pads one row (out 2*in - 1). */
        {.h = 5, .w = 7, .ci = 5, .co = 3, .kh = 2, .kw = 2, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        {.h = 5, .w = 6, .ci = 3, .co = 5, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        {.h = 7, .w = 4, .ci = 17, .co = 4, .kh = 4, .kw = 4, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
        {.h = 5, .w = 7, .ci = 4, .co = 17, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .pad = VKI_PAD_SAME},
        {.h = 5, .w = 7, .ci = 4, .co = 5, .kh = 4, .kw = 2, .sh = 3, .sw = 3, .pad = VKI_PAD_SAME},
        {.h = 5, .w = 7, .ci = 1, .co = 3, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pad = VKI_PAD_VALID},
        {.h = 1, .w = 1, .ci = 5, .co = 1, .kh = 4, .kw = 4, .sh = 3, .sw = 3, .pad = VKI_PAD_VALID},
        {.h = 1, .w = 1, .ci = 3, .co = 5, .kh = 3, .kw = 3, .sh = 2, .sw = 2, .pad = VKI_PAD_SAME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_custom(&cases[i]);
}

/* ---- references against an independent scatter ---------------------------------------- */

/* TFLite's reference loop order: every input pixel adds its window into the output,
 * with the padding given in terms of the input (valid for consistent shapes). */
static void scatter(const tc_case *c, int oh, int ow, int pad_h, int pad_w, const float *in,
                    const float *w, const float *bias, double *acc) {
    for (int i = 0; i < oh * ow * c->co; i++) acc[i] = bias ? bias[i % c->co] : 0.0;
    for (int iy = 0; iy < c->h; iy++)
        for (int ix = 0; ix < c->w; ix++)
            for (int ky = 0; ky < c->kh; ky++)
                for (int kx = 0; kx < c->kw; kx++) {
                    int y = iy * c->sh + ky - pad_h, x = ix * c->sw + kx - pad_w;
                    if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
                    for (int o = 0; o < c->co; o++)
                        for (int i = 0; i < c->ci; i++)
                            acc[(y * ow + x) * c->co + o] +=
                                (double)in[(iy * c->w + ix) * c->ci + i] *
                                w[((o * c->kh + ky) * c->kw + kx) * c->ci + i];
                }
}

static void compare_reference(vki_model *m, const tc_case *c, int oh, int ow, int pad_h,
                              int pad_w, int w_slot, int b_slot) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    size_t n_in = (size_t)c->h * c->w * c->ci, n_out = (size_t)oh * ow * c->co;
    float *in = malloc(n_in * sizeof(float)), *out = malloc(n_out * sizeof(float));
    double *want = malloc(n_out * sizeof(double));
    cr_assert(in && out && want);
    harness_fill(in, n_in, case_seed(c), -1.0f, 1.0f);
    const vki_op *op = &m->ops[0];
    const float *w = m->tensors[op->inputs[w_slot]].data;
    const float *bias = b_slot >= 0 && op->n_inputs > b_slot && op->inputs[b_slot] >= 0
                            ? m->tensors[op->inputs[b_slot]].data : NULL;
    scatter(c, oh, ow, pad_h, pad_w, in, w, bias, want);
    const float *ins[1] = {in};
    float *outs[1] = {out};
    cr_assert_eq(vki_model_reference_run(m, ins, outs), VKI_OK, "%s", vki_last_error());
    for (size_t i = 0; i < n_out; i++) {
        float e = vki_apply_activation(c->act, (float)want[i]);
        cr_assert(fabsf(out[i] - e) <= 1e-6f * fmaxf(1.0f, fabsf(e)),
                  "element %zu: reference %g, scatter %g (h %d w %d k %dx%d s %dx%d pad %d)", i,
                  out[i], e, c->h, c->w, c->kh, c->kw, c->sh, c->sw, (int)c->pad);
    }
    free(in);
    free(out);
    free(want);
    vki_model_destroy(m);
}

/* The padding rule as usually stated: total = max(0, (in-1)*stride + K - out), half of
 * it before. TFLite's output-size-based rule agrees whenever the sizes are consistent. */
static int pad_from_input(int in, int k, int stride, int out) {
    int total = (in - 1) * stride + k - out;
    return total > 0 ? total / 2 : 0;
}

Test(reference, transpose_conv_matches_scatter) {
    static const int strides[] = {1, 2, 3}, kernels[] = {1, 2, 3, 4};
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU6,
                                          VKI_ACT_RELU_N1_TO_1, VKI_ACT_TANH};
    int n = 0;
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 4; ki++)
            for (int p = 0; p < 2; p++)
                for (int hw = 0; hw < 3; hw++, n++) {
                    static const int hs[] = {1, 5, 4}, ws[] = {1, 7, 6};
                    tc_case c = {.h = hs[hw], .w = ws[hw], .ci = channels[n % N_CHANNELS],
                                 .co = channels[(n / 2) % N_CHANNELS], .kh = kernels[ki],
                                 .kw = kernels[(ki + hw) % 4], .sh = strides[si],
                                 .sw = strides[(si + hw) % 3],
                                 .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME,
                                 .bias = n % 3 == 0 ? BIAS_NONE : BIAS_PRESENT,
                                 .act = acts[n % 5]};
                    int oh = usual_out(c.pad, c.h, c.kh, c.sh);
                    int ow = usual_out(c.pad, c.w, c.kw, c.sw);
                    vki_model *m = make_builtin(&c, case_seed(&c));
                    compare_reference(m, &c, oh, ow, pad_from_input(c.h, c.kh, c.sh, oh),
                                      pad_from_input(c.w, c.kw, c.sw, ow), 1, 3);
                }
}

Test(reference, conv2d_transpose_bias_matches_scatter) {
    static const int strides[] = {1, 2, 3}, kernels[] = {1, 2, 3, 4}, sizes[] = {1, 4, 5, 7};
    int n = 0;
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 4; ki++)
            for (int p = 0; p < 2; p++)
                for (int zi = 0; zi < 4; zi++, n++) {
                    tc_case c = {.h = sizes[zi], .w = sizes[(zi + 1) % 4],
                                 .ci = channels[n % N_CHANNELS],
                                 .co = channels[(n / 3) % N_CHANNELS], .kh = kernels[ki],
                                 .kw = kernels[(ki + zi) % 4], .sh = strides[si],
                                 .sw = strides[(si + zi) % 3],
                                 .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
                    /* MediaPipe's Eval: half the total padding before. */
                    int oh = mediapipe_out(c.pad, c.h, c.kh, c.sh);
                    int ow = mediapipe_out(c.pad, c.w, c.kw, c.sw);
                    vki_model *m = make_custom(&c, case_seed(&c));
                    compare_reference(m, &c, oh, ow, mediapipe_total(c.pad, c.h, c.kh, c.sh) / 2,
                                      mediapipe_total(c.pad, c.w, c.kw, c.sw) / 2, 1, 2);
                }
}

/* A hand-worked case: 2x2 input, 3x3 window of ones, stride 2, SAME to 4x4. Total
 * padding (2-1)*2 + 3 - 4 = 1, so none before: output row/column 2 gets both input
 * rows/columns (taps 2 and 0), row/column 3 only the second (tap 1). */
Test(reference, hand_worked) {
    vki_model *m = vki_model_new("hand");
    int in = harness_tensor(m, 2, 2, 1);
    float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int fshape[4] = {1, 3, 3, 1};
    int weights = vki_model_add_tensor(m, "w", VKI_DTYPE_FLOAT32, 4, fshape, ones, sizeof ones);
    int32_t shape[4] = {1, 4, 4, 1};
    int shape_t = add_shape_tensor(m, shape);
    int out = harness_tensor(m, 4, 4, 1);
    int ins[3] = {shape_t, weights, in};
    vki_op *op = vki_model_add_op(m, VKI_OP_TRANSPOSE_CONV, 3, ins, 1, &out);
    cr_assert(op);
    op->opt.transpose_conv.padding = VKI_PAD_SAME;
    op->opt.transpose_conv.stride_h = 2;
    op->opt.transpose_conv.stride_w = 2;
    op->opt.transpose_conv.activation = VKI_ACT_NONE;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    const float x[4] = {1, 10, 100, 1000};   /* a b / c d */
    float got[16];
    const float *ins_f[1] = {x};
    float *outs[1] = {got};
    cr_assert_eq(vki_model_reference_run(m, ins_f, outs), VKI_OK, "%s", vki_last_error());
    /* Rows: 0,1 <- a-row; 2 <- both; 3 <- c-row. Same for columns. */
    const float want[16] = {
        1, 1, 11, 10,
        1, 1, 11, 10,
        101, 101, 1111, 1010,
        100, 100, 1100, 1000,
    };
    for (int i = 0; i < 16; i++)
        cr_assert_eq(got[i], want[i], "element %d: %g, want %g", i, got[i], want[i]);
    harness_check(m, 3u, TOL);
}

/* ---- the selfie segmentation model's op ------------------------------------------------ */

static uint8_t *read_model(const char *file, size_t *size) {
    const char *dir = getenv("VKI_MODEL_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "models/cache", file);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

static int copy_tensor(vki_model *dst, const vki_tensor *t) {
    int i = vki_model_add_tensor(dst, t->name, t->dtype, t->rank, t->shape, t->data,
                                 t->data_bytes);
    cr_assert(i >= 0);
    return i;
}

/* The file's op validates as loaded, then runs alone with its own weights. */
static void check_model_op(const char *file) {
    size_t size;
    uint8_t *bytes = read_model(file, &size);
    if (!bytes) cr_skip_test("%s not found in $VKI_MODEL_DIR", file);
    vki_model *m = NULL;
    cr_assert_eq(vki_tflite_parse(bytes, size, file, &m), VKI_OK, "%s", vki_last_error());
    free(bytes);
    int found = 0;
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op *op = &m->ops[o];
        if (op->code != VKI_OP_CUSTOM || strcmp(op->custom_name, CUSTOM_NAME)) continue;
        found++;
        const vki_op_def *def = vki_op_find(op);
        cr_assert(def);
        cr_assert_eq(def->validate(m, o), VKI_OK, "%s", vki_last_error());

        vki_model *one = vki_model_new(file);
        int ins[3];
        for (int i = 0; i < 3; i++) ins[i] = copy_tensor(one, &m->tensors[op->inputs[i]]);
        int out = copy_tensor(one, &m->tensors[op->outputs[0]]);
        vki_op *c = vki_model_add_op(one, VKI_OP_CUSTOM, 3, ins, 1, &out);
        cr_assert(c);
        strcpy(c->custom_name, op->custom_name);
        c->opt = op->opt;
        cr_assert(vki_model_set_io(one, 1, &ins[0], 1, &out));
        harness_check(one, 11u + (uint32_t)o, TOL);
    }
    vki_model_destroy(m);
    cr_assert(found, "%s has no %s op", file, CUSTOM_NAME);
}

Test(conv2d_transpose_bias, selfie_segmentation) { check_model_op("selfie_segmentation.tflite"); }
Test(conv2d_transpose_bias, selfie_segmentation_landscape) {
    check_model_op("selfie_segmentation_landscape.tflite");
}

/* ---- validation ------------------------------------------------------------------------ */

static void expect_failure(vki_model *m, vki_status want, const char *const *needles) {
    vki_status s = vki_model_validate(m);
    const char *msg = vki_last_error();
    cr_assert_eq(s, want, "status %d, want %d: %s", (int)s, (int)want, msg);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(msg, needles[i]), "message '%s' lacks '%s'", msg, needles[i]);
    vki_model_destroy(m);
}

/* 5x7x5 -> 10x14x3, 3x3 stride 2 SAME. Builtin tensors: 0 input, 1 weights, 2 bias,
 * 3 output_shape, 4 output; custom: 0 input, 1 weights, 2 bias, 3 output. */
static const tc_case valid_case = {.h = 5, .w = 7, .ci = 5, .co = 3, .kh = 3, .kw = 3,
                                   .sh = 2, .sw = 2, .pad = VKI_PAD_SAME,
                                   .bias = BIAS_PRESENT};

static vki_model *valid_builtin(void) { return make_builtin(&valid_case, 1u); }
static vki_model *valid_custom(void) { return make_custom(&valid_case, 1u); }

Test(validation, ok_models_pass) {
    vki_model *m = valid_builtin();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
    m = valid_custom();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
}

Test(validation, output_shape_mismatch) {
    vki_model *m = valid_builtin();
    ((int32_t *)m->tensors[3].data)[2] = 15;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                   (const char *[]){"TRANSPOSE_CONV", "output_shape tensor 3 is [1,10,15,3]",
                                    "[1,10,14,3]", NULL});
    /* Both agree but disagree with the weights' output channels. */
    m = valid_builtin();
    ((int32_t *)m->tensors[3].data)[3] = 4;
    m->tensors[4].shape[3] = 4;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"4 channels", "3 output", NULL});
}

Test(validation, output_shape_tensor) {
    vki_model *m = valid_builtin();
    m->tensors[3].dtype = VKI_DTYPE_INT64;
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, (const char *[]){"output_shape", "int32", NULL});
    m = valid_builtin();
    free(m->tensors[3].data);
    m->tensors[3].data = NULL;
    m->tensors[3].data_bytes = 0;
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL,
                   (const char *[]){"output_shape", "must be a constant", NULL});
    m = valid_builtin();
    m->tensors[3].shape[0] = 3;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"output_shape", "[4]", NULL});
    m = valid_builtin();
    m->tensors[3].data_bytes = 8;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"output_shape", "8 bytes", NULL});
    m = valid_builtin();
    m->ops[0].inputs[0] = 99;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"index 99", NULL});
}

Test(validation, stride_zero) {
    for (int custom = 0; custom < 2; custom++) {
        for (int axis = 0; axis < 2; axis++) {
            vki_model *m = custom ? valid_custom() : valid_builtin();
            if (axis) m->ops[0].opt.transpose_conv.stride_w = 0;
            else m->ops[0].opt.transpose_conv.stride_h = 0;
            expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                           (const char *[]){axis ? "stride 2x0" : "stride 0x2", NULL});
        }
        vki_model *m = custom ? valid_custom() : valid_builtin();
        m->ops[0].opt.transpose_conv.stride_h = -3;
        expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"stride -3x2", NULL});
        m = custom ? valid_custom() : valid_builtin();
        m->ops[0].opt.transpose_conv.stride_w = 1 << 30;
        expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, (const char *[]){"exceeds", NULL});
    }
}

Test(validation, non_constant_weights) {
    for (int custom = 0; custom < 2; custom++) {
        vki_model *m = custom ? valid_custom() : valid_builtin();
        free(m->tensors[1].data);
        m->tensors[1].data = NULL;
        m->tensors[1].data_bytes = 0;
        expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL,
                       (const char *[]){"weights tensor 1", "must be a constant", NULL});
    }
}

Test(validation, operands) {
    /* Weights' input channels differ from the input's. */
    vki_model *m = valid_builtin();
    m->tensors[1].shape[3] = 4;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"4 input channels", "has 5", NULL});
    /* Weights data shorter than the shape. */
    m = valid_builtin();
    m->tensors[1].data_bytes = 12;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"weights tensor 1", "12 bytes", NULL});
    /* Bias of the wrong size, and a non-constant bias. */
    m = valid_builtin();
    m->tensors[2].shape[0] = 2;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"bias tensor 2", "2 elements", NULL});
    m = valid_custom();
    free(m->tensors[2].data);
    m->tensors[2].data = NULL;
    m->tensors[2].data_bytes = 0;
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, (const char *[]){"bias tensor 2", "constant", NULL});
    /* A constant input activation (another tensor stands in as the graph input). */
    m = valid_builtin();
    float v[5 * 7 * 5] = {0};
    m->tensors[0].data = malloc(sizeof v);
    cr_assert(m->tensors[0].data);
    memcpy(m->tensors[0].data, v, sizeof v);
    m->tensors[0].data_bytes = sizeof v;
    m->inputs[0] = harness_tensor(m, 1, 1, 1);
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, (const char *[]){"input 2", "is a constant", NULL});
    /* An input of rank 3. */
    m = valid_builtin();
    m->tensors[0].rank = 3;   /* [1,7,5]: the graph accepts it as NWC */
    m->tensors[0].shape[0] = 1;
    m->tensors[0].shape[1] = 7;
    m->tensors[0].shape[2] = 5;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"input 2", "3 dims", NULL});
}

Test(validation, arity_and_options) {
    vki_model *m = valid_builtin();
    m->ops[0].n_inputs = 2;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"2 inputs", "3 or 4", NULL});
    m = valid_custom();
    m->ops[0].n_inputs = 2;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                   (const char *[]){CUSTOM_NAME, "2 inputs", "need 3", NULL});
    m = valid_custom();
    m->ops[0].inputs[2] = -1;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"input 2", "-1", NULL});
    m = valid_builtin();
    m->ops[0].opt.transpose_conv.padding = (vki_padding)5;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, (const char *[]){"unknown padding 5", NULL});
    m = valid_builtin();
    m->ops[0].opt.transpose_conv.activation = (vki_activation)9;
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, (const char *[]){"fused activation 9", NULL});
}

/* MediaPipe resizes the output itself; a file declaring another size would disagree
 * with it, so the op refuses it. */
Test(validation, custom_output_size) {
    vki_model *m = valid_custom();   /* MediaPipe: 5x7 SAME 3x3 s2 -> 9x13 */
    cr_assert_eq(m->tensors[3].shape[1], 9);
    cr_assert_eq(m->tensors[3].shape[2], 13);
    m->tensors[3].shape[1] = 10;
    m->tensors[3].shape[2] = 14;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                   (const char *[]){CUSTOM_NAME, "[10,14,3]", "expected [9,13,3]", NULL});
}
