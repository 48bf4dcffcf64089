/* test_ops_conv.c: CONV_2D and DEPTHWISE_CONV_2D. Their cases on the device are the
 * tables of cases_conv.c (OP_TABLES_CONV); here, the validation errors and the references
 * against hand-computed values. */
#include "op_cases_conv.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

OP_TABLES_CONV(OP_TABLE_TEST)

/* ---- validation ------------------------------------------------------------------------ */

/* A valid 3x3 SAME conv (or depthwise) 5x5x4 -> 5x5x8 with tensors:
 * 0 input, 1 filter, 2 bias, 3 output. Callers break one thing. */
static vki_model *valid_model(int depthwise) {
    conv_case c = {.h = 5, .w = 5, .ci = 4, .co = depthwise ? 2 : 8, .kh = 3, .kw = 3,
                   .pad = VKI_PAD_SAME};
    return conv_model(depthwise ? VKI_OP_DEPTHWISE_CONV_2D : VKI_OP_CONV_2D, &c, 1u);
}

/* Replaces input `slot` of op 0 by a new constant of the given shape. */
static void replace_const(vki_model *m, int slot, int rank, const int *shape) {
    int t = harness_const(m, rank, shape, 5u, -1.0f, 1.0f);
    m->ops[0].inputs[slot] = t;
}

Test(conv_validation, ok_models_pass) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
        vki_model_destroy(m);
    }
}

Test(conv_validation, filter_rank) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int shape[3] = {8, 3, 3};
        replace_const(m, 1, 3, shape);   /* tensor 4 */
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 4", "3 dims, need 4");
    }
}

Test(conv_validation, filter_not_constant) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int t = harness_tensor(m, 8, 3, 3);   /* tensor 4, an activation */
        m->ops[0].inputs[1] = t;
        harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "weights tensor 4", "constant");
    }
}

Test(conv_validation, bias_length) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        int n = 7;
        replace_const(m, 2, 1, &n);
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "bias tensor 4", "7 elements, need 8");
    }
}

Test(conv_validation, bias_rank) {
    vki_model *m = valid_model(0);
    int shape[2] = {1, 8};
    replace_const(m, 2, 2, shape);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "bias tensor 4", "2 dims");
}

Test(conv_validation, output_shape) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->tensors[3].shape[2] = 4;      /* width 5 expected */
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "tensor 3", "[5,4,8], expected [5,5,8]");
    }
    vki_model *m = valid_model(0);
    m->tensors[3].shape[3] = 9;          /* channels must be the filter's O */
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "tensor 3", "expected [5,5,8]");
}

Test(conv_validation, input_channels) {
    vki_model *m = valid_model(0);
    int shape[4] = {8, 3, 3, 2};         /* I = C/2: grouped */
    replace_const(m, 1, 4, shape);
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "grouped", "weights tensor 4");
    m = valid_model(0);
    int shape3[4] = {8, 3, 3, 3};        /* not a divisor either */
    replace_const(m, 1, 4, shape3);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 4", "3 input channels");
}

Test(conv_validation, strides_and_dilations) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->ops[0].opt.conv.stride_w = 0;
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "stride 1x0");
        m = valid_model(dw);
        m->ops[0].opt.conv.dilation_h = -1;
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "dilation");
    }
}

Test(conv_validation, overflowing_window_or_stride) {
    for (int dw = 0; dw < 2; dw++) {
        vki_model *m = valid_model(dw);
        m->ops[0].opt.conv.dilation_w = 2000000000;
        harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "dilation 1x2000000000");
        m = valid_model(dw);
        m->ops[0].opt.conv.stride_h = 2147483647;
        harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "stride 2147483647x1");
    }
}

Test(conv_validation, window_larger_than_valid_input) {
    vki_model *m = valid_model(0);
    int shape[4] = {8, 7, 3, 4};
    replace_const(m, 1, 4, shape);
    m->ops[0].opt.conv.padding = VKI_PAD_VALID;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 4", "does not fit");
}

Test(conv_validation, depthwise_multiplier) {
    vki_model *m = valid_model(1);
    m->ops[0].opt.conv.depth_multiplier = 3;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "depth_multiplier 3");
    m = valid_model(1);
    int shape[4] = {1, 3, 3, 6};         /* 6 output channels from 4 inputs */
    replace_const(m, 1, 4, shape);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 4", "multiple");
    m = valid_model(1);
    int shape2[4] = {2, 3, 3, 8};
    replace_const(m, 1, 4, shape2);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 4", "leading");
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
    /* Without a bias the op has two inputs here (conv_model passes -1 instead). */
    vki_op *op = vki_model_add_op(m, code, bias ? 3 : 2, ins, 1, &out);
    op->opt.conv = opt;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

static const float nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

Test(conv_reference, conv_even_kernel_same) {
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

Test(conv_reference, conv_dilated_valid) {
    static const int fshape[4] = {2, 2, 2, 1};
    static const float f[8] = {1, 1, 1, 1, 0, 1, -1, 0};
    static const float want[2] = {1 + 3 + 7 + 9, 3 - 7};
    vki_conv_options opt = {.padding = VKI_PAD_VALID, .stride_w = 1, .stride_h = 1,
                            .dilation_w = 2, .dilation_h = 2};
    check_known(known_model(VKI_OP_CONV_2D, 3, 3, 1, fshape, f, NULL, 1, 1, 2, opt), nine, want, 2);
}

Test(conv_reference, depthwise_multiplier_channel_order) {
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

