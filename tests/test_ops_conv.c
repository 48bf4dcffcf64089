/* test_ops_conv.c: CONV_2D and DEPTHWISE_CONV_2D against their C references on odd
 * shapes and channel counts (padded slices), every kernel size, stride, dilation,
 * padding and fused activation, every conv tile variant, and the validation errors. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const int channels[] = {1, 3, 4, 5, 17};
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

typedef struct conv_case {
    int h, w, ci, co;           /* co: output channels (conv) or depth multiplier (depthwise) */
    int kh, kw;
    int sh, sw, dh, dw;         /* 0 means 1; dilation 0 is also what files use for 1 */
    vki_padding pad;
    int no_bias;
    vki_activation act;
    int dm_option;              /* depthwise: the depth_multiplier option, 0 = unset */
} conv_case;

static int or1(int v) { return v ? v : 1; }

/* Builds the one-op model for c; returns it with *out_tensor set. */
static vki_model *make_model(const conv_case *c, int depthwise, uint32_t seed) {
    vki_model *m = vki_model_new(depthwise ? "depthwise" : "conv");
    cr_assert(m);
    int sh = or1(c->sh), sw = or1(c->sw), dh = or1(c->dh), dw = or1(c->dw);
    int oc = depthwise ? c->ci * c->co : c->co;
    int oh = vki_conv_out_size(c->pad, c->h, c->kh, sh, dh);
    int ow = vki_conv_out_size(c->pad, c->w, c->kw, sw, dw);
    cr_assert(oh > 0 && ow > 0);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {depthwise ? 1 : oc, c->kh, c->kw, depthwise ? oc : c->ci};
    int filter = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = -1;
    if (!c->no_bias) bias = harness_const(m, 1, &oc, seed * 5u + 2u, -2.0f, 2.0f);
    int out = harness_tensor(m, oh, ow, oc);
    int ins[3] = {in, filter, bias};
    vki_op *op = vki_model_add_op(m, depthwise ? VKI_OP_DEPTHWISE_CONV_2D : VKI_OP_CONV_2D, 3,
                                  ins, 1, &out);
    cr_assert(op);
    op->opt.conv.padding = c->pad;
    op->opt.conv.stride_h = sh;
    op->opt.conv.stride_w = sw;
    op->opt.conv.dilation_h = c->dh;
    op->opt.conv.dilation_w = c->dw;
    op->opt.conv.activation = c->act;
    op->opt.conv.depth_multiplier = c->dm_option;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

static uint32_t case_seed(const conv_case *c) {
    return (uint32_t)(c->h * 131 + c->w * 71 + c->ci * 37 + c->co * 17 + c->kh * 7 + c->kw * 3 +
                      (int)c->act * 1009 + c->sh * 11 + c->dh * 13);
}

/* tile: a VKI_CONV_TILE value ("S,X") or NULL for the heuristic's choice. */
static void check_conv(conv_case c, const char *tile) {
    if (tile) setenv("VKI_CONV_TILE", tile, 1);
    else unsetenv("VKI_CONV_TILE");
    uint32_t seed = case_seed(&c);
    harness_check(make_model(&c, 0, seed), seed, TOL);
    unsetenv("VKI_CONV_TILE");
}

/* Every tile shape the kernel has: plain, slices only, columns only, both, and odd ones
 * that leave ragged groups. */
static const char *const all_tiles[] = {NULL, "1,1", "2,1", "4,1", "1,2", "4,2", "2,4", "3,3"};
#define N_TILES (int)(sizeof all_tiles / sizeof all_tiles[0])

static void check_conv_all_tiles(conv_case c) {
    for (int t = 0; t < N_TILES; t++) check_conv(c, all_tiles[t]);
}

static void check_depthwise(conv_case c) {
    uint32_t seed = case_seed(&c);
    harness_check(make_model(&c, 1, seed), seed, TOL);
}

/* ---- CONV_2D -------------------------------------------------------------------------- */

Test(conv2d, pointwise_channel_cross) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++)
            check_conv_all_tiles((conv_case){.h = 7, .w = 9, .ci = channels[i], .co = channels[o],
                                             .kh = 1, .kw = 1, .pad = VKI_PAD_SAME});
}

Test(conv2d, k3x3_channel_cross) {
    static const char *const tiles[] = {NULL, "1,1", "4,2", "2,3"};
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++)
            for (int t = 0; t < 4; t++)
                check_conv((conv_case){.h = 7, .w = 9, .ci = channels[i], .co = channels[o],
                                       .kh = 3, .kw = 3, .pad = VKI_PAD_SAME},
                           tiles[t]);
}

Test(conv2d, k3x3_valid) {
    for (int i = 0; i < N_CHANNELS; i++)
        check_conv_all_tiles((conv_case){.h = 7, .w = 9, .ci = channels[i],
                                         .co = channels[N_CHANNELS - 1 - i], .kh = 3, .kw = 3,
                                         .pad = VKI_PAD_VALID});
}

Test(conv2d, tiny_and_odd_spatial) {
    /* 1x1 input under a 3x3 SAME window: only the centre tap lands. */
    check_conv_all_tiles((conv_case){.h = 1, .w = 1, .ci = 5, .co = 3, .kh = 3, .kw = 3,
                                     .pad = VKI_PAD_SAME});
    check_conv_all_tiles((conv_case){.h = 1, .w = 1, .ci = 17, .co = 17, .kh = 1, .kw = 1,
                                     .pad = VKI_PAD_VALID});
    check_conv_all_tiles((conv_case){.h = 5, .w = 3, .ci = 4, .co = 5, .kh = 3, .kw = 3,
                                     .pad = VKI_PAD_SAME});
    /* The window covers the whole input: a 1x1 output. */
    check_conv_all_tiles((conv_case){.h = 5, .w = 3, .ci = 3, .co = 17, .kh = 5, .kw = 3,
                                     .pad = VKI_PAD_VALID});
}

Test(conv2d, kernel_sizes) {
    static const int k[][2] = {{5, 5}, {2, 2}, {1, 3}, {3, 1}, {4, 2}, {7, 7}};
    for (int i = 0; i < 6; i++)
        for (int p = 0; p < 2; p++)
            check_conv_all_tiles((conv_case){.h = 9, .w = 7, .ci = 5, .co = 6, .kh = k[i][0],
                                             .kw = k[i][1],
                                             .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME});
}

Test(conv2d, strides) {
    static const int k[] = {1, 2, 3, 5};
    for (int i = 0; i < 4; i++)
        for (int p = 0; p < 2; p++) {
            conv_case c = {.h = 9, .w = 7, .ci = 3, .co = 17, .kh = k[i], .kw = k[i], .sh = 2,
                           .sw = 2, .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
            check_conv_all_tiles(c);
            c.sh = 1;           /* different strides per axis */
            c.sw = 3;
            check_conv_all_tiles(c);
        }
}

Test(conv2d, dilation) {
    for (int p = 0; p < 2; p++) {
        conv_case c = {.h = 9, .w = 7, .ci = 4, .co = 5, .kh = 3, .kw = 3, .dh = 2, .dw = 2,
                       .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
        check_conv_all_tiles(c);
        c.dh = 3;
        c.dw = 1;
        check_conv_all_tiles(c);
        c.sh = c.sw = 2;    /* dilation with stride */
        c.dh = c.dw = 2;
        check_conv_all_tiles(c);
    }
}

Test(conv2d, without_bias) {
    check_conv_all_tiles((conv_case){.h = 7, .w = 9, .ci = 5, .co = 17, .kh = 3, .kw = 3,
                                     .pad = VKI_PAD_SAME, .no_bias = 1});
    check_conv_all_tiles((conv_case){.h = 7, .w = 9, .ci = 17, .co = 3, .kh = 1, .kw = 1,
                                     .pad = VKI_PAD_VALID, .no_bias = 1});
}

Test(conv2d, fused_activations) {
    /* 17 channels x 9 taps gives sums well past 1 and 6, so every clamp is exercised. */
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_RELU6, VKI_ACT_TANH};
    for (int a = 0; a < 5; a++) {
        check_conv_all_tiles((conv_case){.h = 7, .w = 9, .ci = 17, .co = 5, .kh = 3, .kw = 3,
                                         .pad = VKI_PAD_SAME, .act = acts[a]});
        check_conv_all_tiles((conv_case){.h = 5, .w = 3, .ci = 17, .co = 17, .kh = 1, .kw = 1,
                                         .pad = VKI_PAD_SAME, .act = acts[a]});
    }
}

/* Shapes large enough that the heuristic picks wide tiles on its own (it widens while
 * 64k threads remain): 1x2, 2x2 and a ragged 4x2 (slices x columns), and a small 1x1. */
Test(conv2d, heuristic_tiles_on_larger_shapes) {
    check_conv((conv_case){.h = 128, .w = 128, .ci = 8, .co = 32, .kh = 1, .kw = 1,
                           .pad = VKI_PAD_SAME, .act = VKI_ACT_RELU6}, NULL);
    check_conv((conv_case){.h = 256, .w = 256, .ci = 3, .co = 16, .kh = 3, .kw = 3,
                           .pad = VKI_PAD_SAME}, NULL);
    check_conv((conv_case){.h = 260, .w = 257, .ci = 5, .co = 17, .kh = 1, .kw = 1,
                           .pad = VKI_PAD_VALID}, NULL);
    check_conv((conv_case){.h = 33, .w = 31, .ci = 24, .co = 40, .kh = 3, .kw = 3, .sh = 2,
                           .sw = 2, .pad = VKI_PAD_SAME}, NULL);
}

/* ---- DEPTHWISE_CONV_2D ---------------------------------------------------------------- */

Test(depthwise, multiplier_1_channels) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int p = 0; p < 2; p++)
            check_depthwise((conv_case){.h = 7, .w = 9, .ci = channels[i], .co = 1, .kh = 3,
                                        .kw = 3, .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME});
}

Test(depthwise, multiplier_2_and_more) {
    for (int i = 0; i < N_CHANNELS; i++) {
        check_depthwise((conv_case){.h = 7, .w = 9, .ci = channels[i], .co = 2, .kh = 3,
                                    .kw = 3, .pad = VKI_PAD_SAME, .dm_option = 2});
        /* The option may be 0 in files: the multiplier comes from the shapes. */
        check_depthwise((conv_case){.h = 5, .w = 3, .ci = channels[i], .co = 2, .kh = 3,
                                    .kw = 3, .pad = VKI_PAD_VALID});
    }
    check_depthwise((conv_case){.h = 7, .w = 5, .ci = 3, .co = 3, .kh = 3, .kw = 3,
                                .pad = VKI_PAD_SAME, .dm_option = 3});
    check_depthwise((conv_case){.h = 7, .w = 5, .ci = 1, .co = 5, .kh = 3, .kw = 3,
                                .pad = VKI_PAD_SAME, .dm_option = 5});
    check_depthwise((conv_case){.h = 6, .w = 5, .ci = 4, .co = 4, .kh = 2, .kw = 2,
                                .pad = VKI_PAD_SAME, .sh = 2, .sw = 2});
}

Test(depthwise, kernels_strides_dilations) {
    static const int k[][2] = {{1, 1}, {3, 3}, {5, 5}, {2, 2}, {3, 1}};
    for (int i = 0; i < 5; i++)
        for (int p = 0; p < 2; p++) {
            vki_padding pad = p ? VKI_PAD_VALID : VKI_PAD_SAME;
            check_depthwise((conv_case){.h = 9, .w = 7, .ci = 17, .co = 1, .kh = k[i][0],
                                        .kw = k[i][1], .pad = pad});
            check_depthwise((conv_case){.h = 9, .w = 7, .ci = 5, .co = 1, .kh = k[i][0],
                                        .kw = k[i][1], .sh = 2, .sw = 2, .pad = pad});
            check_depthwise((conv_case){.h = 9, .w = 7, .ci = 3, .co = 2, .kh = k[i][0],
                                        .kw = k[i][1], .sh = 1, .sw = 2, .pad = pad});
            check_depthwise((conv_case){.h = 9, .w = 9, .ci = 4, .co = 1, .kh = k[i][0],
                                        .kw = k[i][1], .dh = 2, .dw = 2, .pad = pad});
        }
    check_depthwise((conv_case){.h = 1, .w = 1, .ci = 5, .co = 1, .kh = 3, .kw = 3,
                                .pad = VKI_PAD_SAME});
    check_depthwise((conv_case){.h = 5, .w = 3, .ci = 3, .co = 2, .kh = 5, .kw = 3,
                                .pad = VKI_PAD_VALID});
}

Test(depthwise, bias_and_activations) {
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_RELU6, VKI_ACT_TANH};
    for (int a = 0; a < 5; a++)
        for (int nb = 0; nb < 2; nb++) {
            /* 49 taps plus a bias in [-2, 2] spread sums (sd ~2.6) past -1, 1 and 6, so
             * every clamp bites. */
            check_depthwise((conv_case){.h = 7, .w = 9, .ci = 5, .co = 1, .kh = 7, .kw = 7,
                                        .pad = VKI_PAD_SAME, .no_bias = nb, .act = acts[a]});
            check_depthwise((conv_case){.h = 5, .w = 3, .ci = 3, .co = 2, .kh = 3, .kw = 3,
                                        .pad = VKI_PAD_SAME, .no_bias = nb, .act = acts[a]});
        }
}

/* ---- validation ------------------------------------------------------------------------ */

/* A valid 3x3 SAME conv (or depthwise) 5x5x4 -> 5x5x8 with tensors:
 * 0 input, 1 filter, 2 bias, 3 output. Callers break one thing. */
static vki_model *valid_model(int depthwise) {
    conv_case c = {.h = 5, .w = 5, .ci = 4, .co = depthwise ? 2 : 8, .kh = 3, .kw = 3,
                   .pad = VKI_PAD_SAME};
    return make_model(&c, depthwise, 1u);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect_failure(vki_model *m, vki_status want, const char *const *needles) {
    vki_status s = vki_model_validate(m);
    const char *msg = vki_last_error();
    cr_assert_eq(s, want, "status %d, want %d: %s", (int)s, (int)want, msg);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(msg, needles[i]), "message '%s' lacks '%s'", msg, needles[i]);
    vki_model_destroy(m);
}

/* Replaces input `slot` of op 0 by a new constant of the given shape. */
static void replace_const(vki_model *m, int slot, int rank, const int *shape) {
    int t = harness_const(m, rank, shape, 5u, -1.0f, 1.0f);
    m->ops[0].inputs[slot] = t;
}

Test(validation, ok_models_pass) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
        vki_model_destroy(m);
    }
}

Test(validation, filter_rank) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int shape[3] = {8, 3, 3};
        replace_const(m, 1, 3, shape);   /* tensor 4 */
        expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                       NEEDLES("weights tensor 4", "3 dims, need 4"));
    }
}

Test(validation, filter_not_constant) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int t = harness_tensor(m, 8, 3, 3);   /* tensor 4, an activation */
        m->ops[0].inputs[1] = t;
        expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL,
                       NEEDLES("weights tensor 4", "constant"));
    }
}

Test(validation, bias_length) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int n = 7;
        replace_const(m, 2, 1, &n);
        expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                       NEEDLES("bias tensor 4", "7 elements, need 8"));
    }
}

Test(validation, bias_rank) {
    vki_model *m = valid_model(0);
    int shape[2] = {1, 8};
    replace_const(m, 2, 2, shape);
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("bias tensor 4", "2 dims"));
}

Test(validation, output_shape) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->tensors[3].shape[2] = 4;      /* width 5 expected */
        expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                       NEEDLES("tensor 3", "[5,4,8], expected [5,5,8]"));
    }
    vki_model *m = valid_model(0);
    m->tensors[3].shape[3] = 9;          /* channels must be the filter's O */
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("tensor 3", "expected [5,5,8]"));
}

Test(validation, input_channels) {
    vki_model *m = valid_model(0);
    int shape[4] = {8, 3, 3, 2};         /* I = C/2: grouped */
    replace_const(m, 1, 4, shape);
    expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL,
                   NEEDLES("grouped", "weights tensor 4"));
    m = valid_model(0);
    int shape3[4] = {8, 3, 3, 3};        /* not a divisor either */
    replace_const(m, 1, 4, shape3);
    expect_failure(m, VKI_ERROR_MODEL_FORMAT,
                   NEEDLES("weights tensor 4", "3 input channels"));
}

Test(validation, strides_and_dilations) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->ops[0].opt.conv.stride_w = 0;
        expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("stride 1x0"));
        m = valid_model(dw);
        m->ops[0].opt.conv.dilation_h = -1;
        expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("dilation"));
    }
}

Test(validation, overflowing_window_or_stride) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->ops[0].opt.conv.dilation_w = 2000000000;
        expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, NEEDLES("dilation 1x2000000000"));
        m = valid_model(dw);
        m->ops[0].opt.conv.stride_h = 2147483647;
        expect_failure(m, VKI_ERROR_UNSUPPORTED_MODEL, NEEDLES("stride 2147483647x1"));
    }
}

Test(validation, window_larger_than_valid_input) {
    vki_model *m = valid_model(0);
    int shape[4] = {8, 7, 3, 4};
    replace_const(m, 1, 4, shape);
    m->ops[0].opt.conv.padding = VKI_PAD_VALID;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("weights tensor 4", "does not fit"));
}

Test(validation, depthwise_multiplier) {
    vki_model *m = valid_model(1);
    m->ops[0].opt.conv.depth_multiplier = 3;
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("depth_multiplier 3"));
    m = valid_model(1);
    int shape[4] = {1, 3, 3, 6};         /* 6 output channels from 4 inputs */
    replace_const(m, 1, 4, shape);
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("weights tensor 4", "multiple"));
    m = valid_model(1);
    int shape2[4] = {2, 3, 3, 8};
    replace_const(m, 1, 4, shape2);
    expect_failure(m, VKI_ERROR_MODEL_FORMAT, NEEDLES("weights tensor 4", "leading"));
}

/* ---- hand-computed values: checks the references themselves ---------------------------- */

/* Runs a one-op model on the reference with the given input and compares exactly, then
 * checks the device against the reference. */
static void check_known(vki_model *m, const float *input, const float *want, size_t n) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    float got[64];
    cr_assert(n <= 64 && vki_tensor_elements(&m->tensors[m->outputs[0]]) == n);
    const float *ins[1] = {input};
    float *outs[1] = {got};
    cr_assert_eq(vki_model_reference_run(m, ins, outs), VKI_OK, "%s", vki_last_error());
    for (size_t i = 0; i < n; i++)
        cr_assert_float_eq(got[i], want[i], 1e-6, "element %zu: %g, want %g", i, got[i], want[i]);
    harness_check(m, 3u, TOL);
}

static vki_model *known_model(vki_op_code code, int ih, int iw, int ic, const int *fshape,
                              const float *f, const float *bias, int oh, int ow, int oc,
                              vki_conv_options opt) {
    vki_model *m = vki_model_new("known");
    int in = harness_tensor(m, ih, iw, ic);
    size_t fn = (size_t)fshape[0] * fshape[1] * fshape[2] * fshape[3];
    int ft = vki_model_add_tensor(m, "filter", VKI_DTYPE_FLOAT32, 4, fshape, f, fn * sizeof(float));
    int bt = bias ? vki_model_add_tensor(m, "bias", VKI_DTYPE_FLOAT32, 1, &oc, bias,
                                         (size_t)oc * sizeof(float))
                  : -1;
    int out = harness_tensor(m, oh, ow, oc);
    int ins[3] = {in, ft, bt};
    /* Without a bias the op has two inputs here (make_model passes -1 instead). */
    vki_op *op = vki_model_add_op(m, code, bias ? 3 : 2, ins, 1, &out);
    op->opt.conv = opt;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

static const float nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

Test(known_values, conv_even_kernel_same) {
    /* SAME with a 2x2 window pads 1 after, 0 before: out[y][x] = sum of in[y+ky][x+kx]*f. */
    static const int fshape[4] = {1, 2, 2, 1};
    static const float f[4] = {1, 2, 3, 4}, bias[1] = {0.5f};
    static const float want[9] = {37.5f, 47.5f, 21.5f, 67.5f, 77.5f, 33.5f, 23.5f, 26.5f, 9.5f};
    vki_conv_options opt = {.padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1};
    check_known(known_model(VKI_OP_CONV_2D, 3, 3, 1, fshape, f, bias, 3, 3, 1, opt), nine, want, 9);
    static const float want_s2[4] = {37, 21, 23, 9};
    opt.stride_w = opt.stride_h = 2;
    check_known(known_model(VKI_OP_CONV_2D, 3, 3, 1, fshape, f, NULL, 2, 2, 1, opt), nine,
                want_s2, 4);
}

Test(known_values, conv_dilated_valid) {
    static const int fshape[4] = {2, 2, 2, 1};
    static const float f[8] = {1, 1, 1, 1, 0, 1, -1, 0};
    static const float want[2] = {1 + 3 + 7 + 9, 3 - 7};
    vki_conv_options opt = {.padding = VKI_PAD_VALID, .stride_w = 1, .stride_h = 1,
                            .dilation_w = 2, .dilation_h = 2};
    check_known(known_model(VKI_OP_CONV_2D, 3, 3, 1, fshape, f, NULL, 1, 1, 2, opt), nine, want, 2);
}

Test(known_values, depthwise_multiplier_channel_order) {
    /* Output channel o reads input channel o / 2: in (a, b) -> (a*1, a*2, b*3, b*4). */
    static const float input[8] = {1, 5, 2, 6, 3, 7, 4, 8};
    static const int fshape[4] = {1, 1, 1, 4};
    static const float f[4] = {1, 2, 3, 4};
    static const float want[16] = {1, 2, 15, 20, 2, 4, 18, 24, 3, 6, 21, 28, 4, 8, 24, 32};
    vki_conv_options opt = {.padding = VKI_PAD_VALID, .stride_w = 1, .stride_h = 1,
                            .depth_multiplier = 2};
    check_known(known_model(VKI_OP_DEPTHWISE_CONV_2D, 2, 2, 2, fshape, f, NULL, 2, 2, 4, opt),
                input, want, 16);
}

/* ---- chained ops: intermediate PHWC4 tensors with padded slices ------------------------ */

Test(chain, conv_depthwise_pointwise) {
    vki_model *m = vki_model_new("chain");
    int in = harness_tensor(m, 9, 7, 3);
    int f1shape[4] = {5, 3, 3, 3}, f2shape[4] = {1, 3, 3, 10}, f3shape[4] = {17, 1, 1, 10};
    int f1 = harness_const(m, 4, f1shape, 11u, -1.0f, 1.0f);
    int b1 = harness_const(m, 1, &f1shape[0], 12u, -1.0f, 1.0f);
    int f2 = harness_const(m, 4, f2shape, 13u, -1.0f, 1.0f);
    int f3 = harness_const(m, 4, f3shape, 14u, -1.0f, 1.0f);
    int b3 = harness_const(m, 1, &f3shape[0], 15u, -1.0f, 1.0f);
    int t1 = harness_tensor(m, 9, 7, 5), t2 = harness_tensor(m, 5, 4, 10);
    int out = harness_tensor(m, 5, 4, 17);
    int i1[3] = {in, f1, b1}, i2[3] = {t1, f2, -1}, i3[3] = {t2, f3, b3};
    vki_op *op = vki_model_add_op(m, VKI_OP_CONV_2D, 3, i1, 1, &t1);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1,
                                      .activation = VKI_ACT_TANH};
    op = vki_model_add_op(m, VKI_OP_DEPTHWISE_CONV_2D, 3, i2, 1, &t2);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2,
                                      .depth_multiplier = 2, .activation = VKI_ACT_RELU};
    op = vki_model_add_op(m, VKI_OP_CONV_2D, 3, i3, 1, &out);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_VALID, .stride_w = 1, .stride_h = 1,
                                      .activation = VKI_ACT_RELU6};
    vki_model_set_io(m, 1, &in, 1, &out);
    harness_check(m, 21u, TOL);
}
