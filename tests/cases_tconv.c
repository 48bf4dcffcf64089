/* cases_tconv.c: TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias: strides,
 * kernel sizes, paddings, odd shapes and channel counts, bias, activations, output sizes
 * other than the usual one. */
#include "op_cases_tconv.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

int tconv_usual_out(vki_padding pad, int in, int k, int stride) {
    return pad == VKI_PAD_SAME ? in * stride : (in - 1) * stride + k;
}

int tconv_mediapipe_total(vki_padding pad, int in, int k, int stride) {
    if (pad != VKI_PAD_SAME) return 0;
    int t = k - (in - 1) % stride - 1;
    return t > 0 ? t : 0;
}

int tconv_mediapipe_out(vki_padding pad, int in, int k, int stride) {
    return stride * (in - 1) + k - tconv_mediapipe_total(pad, in, k, stride);
}

uint32_t tconv_case_seed(const tc_case *c) {
    return (uint32_t)(c->h * 131 + c->w * 71 + c->ci * 37 + c->co * 17 + c->kh * 7 +
                      c->kw * 3 + c->sh * 11 + c->sw * 13 + (int)c->pad * 101 +
                      (int)c->act * 1009 + c->bias * 5);
}

vki_model *tconv_builtin_model(const tc_case *c, uint32_t seed) {
    vki_model *m = vki_model_new("tconv");
    cr_assert(m);
    int oh = c->oh ? c->oh : tconv_usual_out(c->pad, c->h, c->kh, c->sh);
    int ow = c->ow ? c->ow : tconv_usual_out(c->pad, c->w, c->kw, c->sw);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {c->co, c->kh, c->kw, c->ci};
    int weights = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = -1;
    if (c->bias == BIAS_PRESENT) bias = harness_const(m, 1, &c->co, seed * 5u + 2u, -2.0f, 2.0f);
    int32_t shape[4] = {1, oh, ow, c->co};
    int shape_t = harness_int_vector(m, "output_shape", 4, shape);
    int out = harness_tensor(m, oh, ow, c->co);
    int ins[4] = {shape_t, weights, in, bias};
    vki_op *op = harness_op(m, VKI_OP_TRANSPOSE_CONV, c->bias == BIAS_NONE ? 3 : 4, ins, out);
    op->opt.transpose_conv.padding = c->pad;
    op->opt.transpose_conv.stride_h = c->sh;
    op->opt.transpose_conv.stride_w = c->sw;
    op->opt.transpose_conv.activation = c->act;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

vki_model *tconv_custom_model(const tc_case *c, uint32_t seed) {
    vki_model *m = vki_model_new("tconv_bias");
    cr_assert(m);
    int oh = tconv_mediapipe_out(c->pad, c->h, c->kh, c->sh);
    int ow = tconv_mediapipe_out(c->pad, c->w, c->kw, c->sw);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {c->co, c->kh, c->kw, c->ci};
    int weights = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = harness_const(m, 1, &c->co, seed * 5u + 2u, -2.0f, 2.0f);
    int out = harness_tensor(m, oh, ow, c->co);
    int ins[3] = {in, weights, bias};
    vki_op *op = harness_op(m, VKI_OP_CUSTOM, 3, ins, out);
    strcpy(op->custom_name, TCONV_CUSTOM_NAME);
    op->opt.transpose_conv.padding = c->pad;
    op->opt.transpose_conv.stride_h = c->sh;
    op->opt.transpose_conv.stride_w = c->sw;
    op->opt.transpose_conv.activation = VKI_ACT_NONE;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

static vki_model *build_tconv(const op_case *oc) {
    const tc_case *c = OP_CASE_PARAMS(oc, const tc_case);
    return oc->op == VKI_OP_CUSTOM ? tconv_custom_model(c, oc->seed)
                                   : tconv_builtin_model(c, oc->seed);
}

/* "TRANSPOSE_CONV k3 s2 SAME C=5->3 5x7->10x14 bias relu" */
static void label(op_case *oc, const tc_case *c, int oh, int ow) {
    char k[16], s[16];
    op_case_pair(k, sizeof k, "k", c->kh, c->kw);
    op_case_pair(s, sizeof s, "s", c->sh, c->sw);
    static const char *const bias[] = {"no bias", "bias", "bias omitted"};
    op_case_label(oc, "%s %s %s %s C=%d->%d %dx%d->%dx%d%s%s%s%s",
                  oc->custom ? oc->custom : vki_op_name((int)oc->op), k, s,
                  c->pad == VKI_PAD_SAME ? "SAME" : "VALID", c->ci, c->co, c->h, c->w, oh, ow,
                  oc->custom ? "" : " ", oc->custom ? "" : bias[c->bias], c->act ? " " : "",
                  op_case_activation(c->act));
}

static void builtin(op_case_list *l, tc_case c) {
    op_case *oc = op_case_add(l, VKI_OP_TRANSPOSE_CONV, build_tconv, tconv_case_seed(&c), TOL);
    OP_CASE_SET_PARAMS(oc, tc_case, c);
    label(oc, &c, c.oh ? c.oh : tconv_usual_out(c.pad, c.h, c.kh, c.sh),
          c.ow ? c.ow : tconv_usual_out(c.pad, c.w, c.kw, c.sw));
}

static void custom(op_case_list *l, tc_case c) {
    op_case *oc = op_case_add(l, VKI_OP_CUSTOM, build_tconv, tconv_case_seed(&c) + 7u, TOL);
    oc->custom = TCONV_CUSTOM_NAME;
    OP_CASE_SET_PARAMS(oc, tc_case, c);
    label(oc, &c, tconv_mediapipe_out(c.pad, c.h, c.kh, c.sh),
          tconv_mediapipe_out(c.pad, c.w, c.kw, c.sw));
}

/* ---- TRANSPOSE_CONV ------------------------------------------------------------------- */

void op_cases_transpose_conv__strides_kernels_paddings(op_case_list *l) {
    static const int strides[] = {1, 2, 3}, kernels[] = {2, 3, 4};
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 3; ki++)
            for (int p = 0; p < 2; p++)
                builtin(l, (tc_case){.h = 5, .w = 7, .ci = 5, .co = 3, .kh = kernels[ki],
                                     .kw = kernels[ki], .sh = strides[si], .sw = strides[si],
                                     .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME,
                                     .bias = BIAS_PRESENT});
}

void op_cases_transpose_conv__channel_counts(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++)
            builtin(l, (tc_case){.h = 5, .w = 7, .ci = channels[i], .co = channels[o], .kh = 3,
                                 .kw = 3, .sh = 2, .sw = 2,
                                 .pad = (i + o) % 2 ? VKI_PAD_VALID : VKI_PAD_SAME,
                                 .bias = (i + o) % 3 ? BIAS_PRESENT : BIAS_NONE});
}

void op_cases_transpose_conv__odd_and_tiny_shapes(op_case_list *l) {
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
        builtin(l, c);
    }
}

void op_cases_transpose_conv__bias_present_absent_omitted(op_case_list *l) {
    for (int b = BIAS_NONE; b <= BIAS_OMITTED; b++)
        builtin(l, (tc_case){.h = 5, .w = 7, .ci = 5, .co = 17, .kh = 3, .kw = 3, .sh = 2,
                             .sw = 2, .pad = VKI_PAD_SAME, .bias = b});
}

void op_cases_transpose_conv__fused_activations(op_case_list *l) {
    static const vki_activation acts[] = {VKI_ACT_RELU, VKI_ACT_RELU6, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_TANH};
    for (int a = 0; a < 4; a++)
        /* 17 channels through a 4x4 window at stride 1 reach past 6 in magnitude. */
        builtin(l, (tc_case){.h = 5, .w = 7, .ci = 17, .co = 5, .kh = 4, .kw = 4, .sh = 1 + a % 2,
                             .sw = 1 + a % 2, .pad = a % 2 ? VKI_PAD_VALID : VKI_PAD_SAME,
                             .bias = BIAS_PRESENT, .act = acts[a]});
}

/* Output sizes other than the usual one: TFLite derives the padding from the output
 * size, and extra or missing output rows must still come out right. */
void op_cases_transpose_conv__other_output_sizes(op_case_list *l) {
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
        builtin(l, c);
    }
}

/* ---- Convolution2DTransposeBias ------------------------------------------------------- */

void op_cases_conv2d_transpose_bias__mediapipe_shapes(op_case_list *l) {
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
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) custom(l, cases[i]);
}
