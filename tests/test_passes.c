/* test_passes.c: activation fusion changes the dispatch count, never the results (the
 * reference runs the unfused model). */
#include "harness.h"
#include "ops/reduce.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dispatches(vki_model *m) {
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    return n;
}

/* input -> ADD(input, const) -> act -> (optionally also read by a second op) -> output */
static vki_model *add_then(vki_op_code act, int second_reader, int act_is_output) {
    vki_model *m = vki_model_new("fuse");
    int x = harness_tensor(m, 5, 7, 5);
    int shape[4] = {1, 1, 1, 5};
    int k = harness_const(m, 4, shape, 3, -1.0f, 1.0f);
    int sum = harness_tensor(m, 5, 7, 5);
    int act_out = harness_tensor(m, 5, 7, 5);
    int ins[2] = {x, k};
    vki_model_add_op(m, VKI_OP_ADD, 2, ins, 1, &sum);
    vki_model_add_op(m, act, 1, &sum, 1, &act_out);
    int outs[2] = {act_out, sum};
    if (second_reader) {
        int other = harness_tensor(m, 5, 7, 5);
        int in2[2] = {sum, act_out};
        vki_model_add_op(m, VKI_OP_ADD, 2, in2, 1, &other);
        outs[0] = other;
    }
    vki_model_set_io(m, 1, &x, act_is_output ? 2 : 1, outs);
    return m;
}

Test(fusion, relu_into_add) {
    vki_model *m = add_then(VKI_OP_RELU, 0, 0);
    cr_assert_eq(dispatches(m), 2, "input, ADD+RELU writing the output");
    harness_check(m, 11, 1e-6);
}

Test(fusion, relu6_and_tanh_into_add) {
    vki_model *m = add_then(VKI_OP_RELU6, 0, 0);
    cr_assert_eq(dispatches(m), 2);
    harness_check(m, 12, 1e-6);
    m = add_then(VKI_OP_TANH, 0, 0);
    cr_assert_eq(dispatches(m), 2);
    harness_check(m, 13, 1e-5);
}

Test(fusion, not_when_the_tensor_has_another_reader) {
    vki_model *m = add_then(VKI_OP_RELU, 1, 0);
    cr_assert_eq(dispatches(m), 4, "input, ADD, RELU, ADD writing the output");
    harness_check(m, 14, 1e-6);
}

Test(fusion, not_when_the_tensor_is_a_graph_output) {
    vki_model *m = add_then(VKI_OP_RELU, 0, 1);
    cr_assert_eq(dispatches(m), 5, "input, ADD, RELU, two outputs");
    harness_check(m, 15, 1e-6);
}

Test(fusion, conv_pool_chain) {
    vki_model *m = vki_model_new("chain");
    int x = harness_tensor(m, 9, 7, 3);
    int wshape[4] = {5, 3, 3, 3}, bshape[1] = {5};
    int w = harness_const(m, 4, wshape, 21, -1.0f, 1.0f);
    int b = harness_const(m, 1, bshape, 22, -1.0f, 1.0f);
    int c = harness_tensor(m, 9, 7, 5), r = harness_tensor(m, 9, 7, 5);
    int p = harness_tensor(m, 5, 4, 5), r6 = harness_tensor(m, 5, 4, 5);
    int cin[3] = {x, w, b};
    vki_op *conv = vki_model_add_op(m, VKI_OP_CONV_2D, 3, cin, 1, &c);
    conv->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1,
                                        .dilation_w = 1, .dilation_h = 1};
    vki_model_add_op(m, VKI_OP_RELU, 1, &c, 1, &r);
    vki_op *pool = vki_model_add_op(m, VKI_OP_MAX_POOL_2D, 1, &r, 1, &p);
    pool->opt.pool = (vki_pool_options){.padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2,
                                        .filter_w = 2, .filter_h = 2};
    vki_model_add_op(m, VKI_OP_RELU6, 1, &p, 1, &r6);
    vki_model_set_io(m, 1, &x, 1, &r6);
    cr_assert_eq(dispatches(m), 3, "input, CONV+RELU, POOL+RELU6 writing the output");
    harness_check(m, 23, 1e-5);
}

/* ---- the fusion passes of engine/emit/passes.c, each on a graph of its own -------------------
 * Odd shapes throughout (5 and 17 channels leave padded lanes, odd H and W, stride 2 on
 * odd input); harness_check compares every element with the unfused C reference in fp32,
 * fp16 and fp16 storage. */

/* A CONV_2D (cout output channels) or DEPTHWISE_CONV_2D (multiplier 1) of x. */
static int conv(vki_model *m, vki_op_code code, int x, int k, int stride, vki_padding pad,
                int cout, vki_activation act, uint32_t seed) {
    const int h = m->tensors[x].shape[1], w = m->tensors[x].shape[2], ci = m->tensors[x].shape[3];
    int dw = code == VKI_OP_DEPTHWISE_CONV_2D;
    int oc = dw ? ci : cout;
    int fshape[4] = {dw ? 1 : oc, k, k, dw ? oc : ci};
    int f = harness_const(m, 4, fshape, seed, -1.0f, 1.0f);
    int b = harness_const(m, 1, &oc, seed + 1, -1.0f, 1.0f);
    int out = harness_tensor(m, vki_conv_out_size(pad, h, k, stride, 1),
                             vki_conv_out_size(pad, w, k, stride, 1), oc);
    int ins[3] = {x, f, b};
    vki_op *op = harness_op(m, code, 3, ins, out);
    op->opt.conv = (vki_conv_options){.padding = pad, .stride_w = stride, .stride_h = stride,
                                      .dilation_w = 1, .dilation_h = 1, .activation = act};
    return out;
}

/* PAD of x by [top, bottom] rows, [left, right] columns and `channels` trailing channels. */
static int pad(vki_model *m, int x, int top, int bottom, int left, int right, int channels) {
    /* Copied first: adding tensors may move m->tensors. */
    const int h = m->tensors[x].shape[1], w = m->tensors[x].shape[2], c = m->tensors[x].shape[3];
    int32_t p[8] = {0, 0, top, bottom, left, right, 0, channels};
    int pshape[2] = {4, 2};
    int pt = harness_int_const(m, "paddings", 2, pshape, p);
    int out = harness_tensor(m, h + top + bottom, w + left + right, c + channels);
    int ins[2] = {x, pt};
    harness_op(m, VKI_OP_PAD, 2, ins, out);
    return out;
}

static int add(vki_model *m, int a, int b, vki_activation act) {
    const vki_tensor *t = &m->tensors[a];
    int out = harness_tensor(m, t->shape[1], t->shape[2], t->shape[3]);
    int ins[2] = {a, b};
    harness_op(m, VKI_OP_ADD, 2, ins, out)->opt.eltwise.activation = act;
    return out;
}

static int unary(vki_model *m, vki_op_code code, int x) {
    const vki_tensor *t = &m->tensors[x];
    int out = harness_tensor(m, t->shape[1], t->shape[2], t->shape[3]);
    harness_op(m, code, 1, &x, out);
    return out;
}

/* Dispatches with every pass but dw_pw (whose choice depends on the device; test_dwpw.c
 * covers it) and with none (VKI_DISABLE_PASSES=all). */
static void expect_dispatches(vki_model *m, int fused, int unfused) {
    setenv("VKI_DISABLE_PASSES", "dw_pw", 1);
    int f = dispatches(m);
    setenv("VKI_DISABLE_PASSES", "all", 1);
    int n = dispatches(m);
    unsetenv("VKI_DISABLE_PASSES");
    cr_assert_eq(f, fused, "with the passes: %d dispatches, expected %d", f, fused);
    cr_assert_eq(n, unfused, "with no pass: %d dispatches, expected %d", n, unfused);
}

Test(fusion, residual_add_into_conv_epilogue) {
    /* MobileNetV2's block: 1x1 expand, depthwise, 1x1 project, ADD of the block's input. */
    vki_model *m = vki_model_new("residual");
    int x = harness_tensor(m, 9, 7, 5);
    int e = conv(m, VKI_OP_CONV_2D, x, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_RELU6, 31);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, e, 3, 1, VKI_PAD_SAME, 0, VKI_ACT_RELU6, 33);
    int p = conv(m, VKI_OP_CONV_2D, d, 1, 1, VKI_PAD_SAME, 5, VKI_ACT_NONE, 35);
    int y = add(m, p, x, VKI_ACT_RELU);
    vki_model_set_io(m, 1, &x, 1, &y);
    /* input, expand, depthwise, project + ADD writing the dense output */
    expect_dispatches(m, 4, 6);
    harness_check(m, 37, 1e-5);
}

Test(fusion, residual_through_a_channel_pad) {
    /* BlazeFace's block: the input zero-extended from 3 to 5 channels, then a RELU op. */
    vki_model *m = vki_model_new("residual_pad");
    int x = harness_tensor(m, 11, 9, 3);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, x, 5, 1, VKI_PAD_SAME, 0, VKI_ACT_NONE, 41);
    int c = conv(m, VKI_OP_CONV_2D, d, 1, 1, VKI_PAD_SAME, 5, VKI_ACT_NONE, 43);
    int xp = pad(m, x, 0, 0, 0, 0, 2);
    int y = unary(m, VKI_OP_RELU, add(m, c, xp, VKI_ACT_NONE));
    vki_model_set_io(m, 1, &x, 1, &y);
    expect_dispatches(m, 3, 7);
    harness_check(m, 45, 1e-5);
}

Test(fusion, residual_not_ready_when_the_producer_runs) {
    /* The other operand is made after the convolution: the ADD stays. */
    vki_model *m = vki_model_new("residual_late");
    int x = harness_tensor(m, 5, 3, 5);
    int c = conv(m, VKI_OP_CONV_2D, x, 3, 1, VKI_PAD_SAME, 5, VKI_ACT_NONE, 51);
    int r = unary(m, VKI_OP_TANH, x);
    int y = add(m, c, r, VKI_ACT_NONE);
    vki_model_set_io(m, 1, &x, 1, &y);
    /* input, conv, TANH, ADD writing the output */
    expect_dispatches(m, 4, 5);
    harness_check(m, 53, 1e-5);
}

Test(fusion, residual_after_the_producers_activation_not_from_a_graph_output) {
    vki_model *m = vki_model_new("residual_no");
    int x = harness_tensor(m, 5, 3, 5);
    int c = conv(m, VKI_OP_CONV_2D, x, 1, 1, VKI_PAD_SAME, 5, VKI_ACT_RELU, 55);
    int y = add(m, x, c, VKI_ACT_NONE);
    int c2 = conv(m, VKI_OP_CONV_2D, y, 1, 1, VKI_PAD_SAME, 5, VKI_ACT_NONE, 57);
    int z = add(m, c2, y, VKI_ACT_NONE);
    int outs[2] = {z, c2};   /* c2 is also a graph output: its ADD stays */
    vki_model_set_io(m, 1, &x, 2, outs);
    /* input, conv + RELU + ADD (RES_PRE_ACT), conv, ADD writing z, c2's output */
    expect_dispatches(m, 5, 7);
    harness_check(m, 59, 1e-5);
}

Test(fusion, spatial_pad_into_the_window) {
    /* MediaPipe's explicit padding ahead of stride-2 depthwise convs: asymmetric, odd input. */
    vki_model *m = vki_model_new("spatial_pad");
    int x = harness_tensor(m, 9, 7, 5);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, pad(m, x, 0, 1, 1, 2, 0), 3, 2, VKI_PAD_VALID, 0,
                 VKI_ACT_RELU, 61);
    int c = conv(m, VKI_OP_CONV_2D, pad(m, d, 2, 1, 0, 1, 0), 3, 2, VKI_PAD_SAME, 3,
                 VKI_ACT_NONE, 63);
    vki_model_set_io(m, 1, &x, 1, &c);
    expect_dispatches(m, 3, 6);
    harness_check(m, 65, 1e-5);
}

Test(fusion, channel_pad_into_the_add) {
    /* Both operands are graph inputs, so no producer takes the ADD; the PAD still folds. */
    vki_model *m = vki_model_new("channel_pad");
    int a = harness_tensor(m, 7, 5, 17), b = harness_tensor(m, 7, 5, 6);
    int y = add(m, pad(m, b, 0, 0, 0, 0, 11), a, VKI_ACT_RELU6);
    int ins[2] = {a, b};
    vki_model_set_io(m, 2, ins, 1, &y);
    expect_dispatches(m, 3, 5);
    harness_check(m, 67, 1e-6);
}

Test(fusion, sigmoid_and_hard_swish_keep_padded_lanes_zero) {
    /* sigmoid(0) = 0.5: a channel CONCATENATION after it reads the padded lanes' slots. */
    vki_model *m = vki_model_new("sigmoid");
    int x = harness_tensor(m, 5, 7, 3);
    int s = unary(m, VKI_OP_LOGISTIC, conv(m, VKI_OP_CONV_2D, x, 3, 2, VKI_PAD_SAME, 5, VKI_ACT_NONE, 71));
    int h = unary(m, VKI_OP_HARD_SWISH, conv(m, VKI_OP_CONV_2D, x, 3, 2, VKI_PAD_SAME, 3, VKI_ACT_NONE, 73));
    int cat = harness_tensor(m, 3, 4, 8);
    int ins[2] = {s, h};
    harness_op(m, VKI_OP_CONCATENATION, 2, ins, cat)->opt.concat.axis = 3;
    vki_model_set_io(m, 1, &x, 1, &cat);
    expect_dispatches(m, 5, 7);
    harness_check(m, 75, 1e-5);
}

Test(fusion, heads_write_the_output_layout) {
    /* Detection heads: two convs reshaped to [1, n, 4] and concatenated along n. */
    vki_model *m = vki_model_new("heads");
    int x = harness_tensor(m, 5, 3, 5);
    int a = conv(m, VKI_OP_CONV_2D, x, 1, 1, VKI_PAD_SAME, 8, VKI_ACT_NONE, 81);
    int b = conv(m, VKI_OP_CONV_2D, x, 3, 2, VKI_PAD_SAME, 4, VKI_ACT_NONE, 83);
    int sa[3] = {1, 30, 4}, sb[3] = {1, 6, 4}, so[3] = {1, 36, 4};
    int ra = harness_tensor_nd(m, 3, sa), rb = harness_tensor_nd(m, 3, sb);
    harness_op(m, VKI_OP_RESHAPE, 1, &a, ra);
    harness_op(m, VKI_OP_RESHAPE, 1, &b, rb);
    int cat = harness_tensor_nd(m, 3, so);
    int ins[2] = {ra, rb};
    harness_op(m, VKI_OP_CONCATENATION, 2, ins, cat)->opt.concat.axis = 1;
    /* A second output straight from a conv with 17 channels. */
    int c = conv(m, VKI_OP_DEPTHWISE_CONV_2D, x, 3, 1, VKI_PAD_VALID, 0, VKI_ACT_RELU, 85);
    int outs[2] = {cat, c};
    vki_model_set_io(m, 1, &x, 2, outs);
    /* unfused: one RESHAPE keeps the PHWC4 layout and needs no dispatch */
    expect_dispatches(m, 4, 8);
    harness_check(m, 87, 1e-5);
}

Test(fusion, disable_passes_names_are_checked) {
    vki_model *m = add_then(VKI_OP_RELU, 0, 0);
    setenv("VKI_DISABLE_PASSES", "residual,nonsense", 1);
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    unsetenv("VKI_DISABLE_PASSES");
    cr_assert_eq(s, VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "unknown pass 'nonsense'"), "%s", vki_last_error());
    vki_graph_options o = {.disable_passes = VKI_PASS_ACTIVATION};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK);
    cr_assert_eq(vki_graph_dispatch_count(g), 4, "input, ADD, RELU, output");
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(fusion, residual_into_pool_resize_and_mul) {
    /* pose_landmark's MAX_POOL -> ADD and RESIZE_BILINEAR -> ADD, selfie_segmentation's
     * squeeze-and-excitation MUL -> ADD: the ADD rides on the op made last. */
    vki_model *m = vki_model_new("residual_others");
    int x = harness_tensor(m, 9, 7, 5);
    int c = conv(m, VKI_OP_CONV_2D, x, 3, 2, VKI_PAD_SAME, 5, VKI_ACT_NONE, 91);
    int p = harness_tensor(m, 5, 4, 5);
    harness_op(m, VKI_OP_MAX_POOL_2D, 1, &x, p)->opt.pool =
        (vki_pool_options){.padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2,
                           .filter_w = 2, .filter_h = 2};
    int a = add(m, c, p, VKI_ACT_RELU);
    int32_t size[2] = {9, 7};
    int sz = harness_int_vector(m, "size", 2, size);
    int r = harness_tensor(m, 9, 7, 5), rin[2] = {a, sz};
    harness_op(m, VKI_OP_RESIZE_BILINEAR, 2, rin, r)->opt.resize.half_pixel_centers = true;
    int b = add(m, x, r, VKI_ACT_NONE);
    int gate_shape[4] = {1, 1, 1, 5};
    int gate = harness_const(m, 4, gate_shape, 93, 0.0f, 1.0f);
    int g = harness_tensor(m, 9, 7, 5);
    int gin[2] = {b, gate};
    harness_op(m, VKI_OP_MUL, 2, gin, g);
    int y = add(m, g, x, VKI_ACT_RELU6);
    vki_model_set_io(m, 1, &x, 1, &y);
    /* input, conv, pool + ADD, resize + ADD, MUL + ADD writing the output */
    expect_dispatches(m, 5, 9);
    harness_check(m, 95, 1e-5);
}

static int mul(vki_model *m, int a, int b, int h, int w, int c) {
    int out = harness_tensor(m, h, w, c), ins[2] = {a, b};
    harness_op(m, VKI_OP_MUL, 2, ins, out);
    return out;
}

/* The dispatches pass `pass` saves: every pass but dw_pw (whose choice depends on the
 * device) against those less `pass` too. */
static void expect_saved(vki_model *m, const char *pass, int saved) {
    char both[64];
    snprintf(both, sizeof both, "dw_pw,%s", pass);
    setenv("VKI_DISABLE_PASSES", "dw_pw", 1);
    int f = dispatches(m);
    setenv("VKI_DISABLE_PASSES", both, 1);
    int n = dispatches(m);
    unsetenv("VKI_DISABLE_PASSES");
    cr_assert_eq(n - f, saved, "%s saved %d dispatches, expected %d", pass, n - f, saved);
}

Test(fusion, squeeze_excite_gate_into_the_conv) {
    /* MobileNetV3's block end: a depthwise conv's output times a gate of one value per
     * channel (LOGISTIC of an input), then the 1x1 project; a second gate (HARD_SWISH,
     * the other operand order) on the project's 17 channels before a 3x3 stride-2 conv
     * over the odd plane. Both MULs fold into their convolutions. */
    vki_model *m = vki_model_new("gate");
    int x = harness_tensor(m, 9, 7, 5);
    int g1 = harness_tensor(m, 1, 1, 5), g2 = harness_tensor(m, 1, 1, 17);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, x, 3, 1, VKI_PAD_SAME, 0, VKI_ACT_RELU6, 41);
    int a = mul(m, d, unary(m, VKI_OP_LOGISTIC, g1), 9, 7, 5);
    int p = conv(m, VKI_OP_CONV_2D, a, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_NONE, 43);
    int b = mul(m, unary(m, VKI_OP_HARD_SWISH, g2), p, 9, 7, 17);
    int y = conv(m, VKI_OP_CONV_2D, b, 3, 2, VKI_PAD_SAME, 3, VKI_ACT_RELU, 45);
    int ins[3] = {x, g1, g2};
    vki_model_set_io(m, 3, ins, 1, &y);
    expect_saved(m, "gate", 2);
    harness_check(m, 47, 1e-5);
}

Test(fusion, gate_stays_where_its_product_has_another_reader_or_is_not_per_channel) {
    /* A gated product that a second op also reads (an ADD), and a MUL of two full
     * tensors before a convolution: neither folds. */
    vki_model *m = vki_model_new("no_gate");
    int x = harness_tensor(m, 5, 7, 17), g = harness_tensor(m, 1, 1, 17);
    int a = mul(m, x, g, 5, 7, 17);
    int c = conv(m, VKI_OP_CONV_2D, a, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_NONE, 51);
    int s = add(m, c, a, VKI_ACT_NONE);
    int b = mul(m, s, x, 5, 7, 17);
    int y = conv(m, VKI_OP_CONV_2D, b, 1, 1, VKI_PAD_SAME, 3, VKI_ACT_NONE, 53);
    int ins[2] = {x, g};
    vki_model_set_io(m, 2, ins, 1, &y);
    expect_saved(m, "gate", 0);
    harness_check(m, 55, 1e-5);
}

/* MAX_POOL_2D of x: a k x k window, stride `stride`. */
static int max_pool(vki_model *m, int x, int k, int stride, vki_padding padding) {
    const int h = m->tensors[x].shape[1], w = m->tensors[x].shape[2], c = m->tensors[x].shape[3];
    int out = harness_tensor(m, vki_conv_out_size(padding, h, k, stride, 1),
                             vki_conv_out_size(padding, w, k, stride, 1), c);
    harness_op(m, VKI_OP_MAX_POOL_2D, 1, &x, out)->opt.pool =
        (vki_pool_options){.padding = padding, .stride_w = stride, .stride_h = stride,
                           .filter_w = k, .filter_h = k};
    return out;
}

Test(fusion, max_pool_shortcut_into_the_residual_read) {
    /* BlazeFace's downsampling block over an odd 9x7 plane: a 2x2 stride-2 SAME pool of
     * the input, zero-padded from 5 to 17 channels, added to the 1x1 conv after a stride-2
     * depthwise conv. Then a 3x3 stride-1 SAME pool (windows clipped on every side) added
     * to a 3x3 conv, and a 3x3 stride-2 VALID pool added to a 3x3 stride-2 VALID conv.
     * Each pool's window is read in the epilogue. */
    vki_model *m = vki_model_new("pool_residual");
    int x = harness_tensor(m, 9, 7, 5);
    int sc = pad(m, max_pool(m, x, 2, 2, VKI_PAD_SAME), 0, 0, 0, 0, 12);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, x, 3, 2, VKI_PAD_SAME, 0, VKI_ACT_RELU, 61);
    int y = add(m, conv(m, VKI_OP_CONV_2D, d, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_NONE, 63), sc,
                VKI_ACT_RELU);
    int p1 = max_pool(m, y, 3, 1, VKI_PAD_SAME);
    int c1 = conv(m, VKI_OP_CONV_2D, y, 3, 1, VKI_PAD_SAME, 17, VKI_ACT_RELU6, 65);
    int z = add(m, p1, c1, VKI_ACT_NONE);
    int p2 = max_pool(m, z, 3, 2, VKI_PAD_VALID);
    int c2 = conv(m, VKI_OP_CONV_2D, z, 3, 2, VKI_PAD_VALID, 17, VKI_ACT_NONE, 69);
    int out = add(m, c2, p2, VKI_ACT_RELU);
    vki_model_set_io(m, 1, &x, 1, &out);
    expect_saved(m, "pool_residual", 3);
    harness_check(m, 67, 1e-5);
}

Test(fusion, pool_residual_not_where_the_pool_output_has_another_reader) {
    /* The pool's output is also a graph output, or read by a second op: it stays. */
    vki_model *m = vki_model_new("pool_kept");
    int x = harness_tensor(m, 7, 5, 3);
    int sc = max_pool(m, x, 2, 2, VKI_PAD_SAME);
    int y = add(m, conv(m, VKI_OP_CONV_2D, x, 3, 2, VKI_PAD_SAME, 3, VKI_ACT_NONE, 71), sc,
                VKI_ACT_NONE);
    int outs[2] = {y, sc};
    vki_model_set_io(m, 1, &x, 2, outs);
    expect_saved(m, "pool_residual", 0);
    harness_check(m, 73, 1e-5);
}

/* A global mean of x: an AVERAGE_POOL_2D with a 1x1 output (window k_h x k_w, stride the
 * input's extent, `pad`: SAME with a smaller window reads the top-left corner), or with
 * k_h == 0 a MEAN over H and W keeping the dims. */
static int global_mean(vki_model *m, int x, int k_h, int k_w, vki_padding padding) {
    const int h = m->tensors[x].shape[1], w = m->tensors[x].shape[2], c = m->tensors[x].shape[3];
    int out = harness_tensor(m, 1, 1, c);
    if (!k_h) {
        int32_t axes[2] = {1, 2};
        int ashape[1] = {2};
        int ins[2] = {x, harness_int_const(m, "axes", 1, ashape, axes)};
        harness_op(m, VKI_OP_MEAN, 2, ins, out)->opt.reduce.keep_dims = true;
        return out;
    }
    harness_op(m, VKI_OP_AVERAGE_POOL_2D, 1, &x, out)->opt.pool =
        (vki_pool_options){.padding = padding, .stride_w = w, .stride_h = h, .filter_w = k_w,
                           .filter_h = k_h};
    return out;
}

/* A squeeze-excite block on x: mean, 1x1 conv to mid channels (act1), 1x1 conv back to C
 * (act2, or with `gate_op` an op of its own: LOGISTIC, which the activation pass folds),
 * then the MUL of x by that gate. */
static int squeeze_excite(vki_model *m, int x, int mean, int mid, vki_activation act1,
                          vki_activation act2, vki_op_code gate_op, uint32_t seed) {
    const int h = m->tensors[x].shape[1], w = m->tensors[x].shape[2], c = m->tensors[x].shape[3];
    int s = conv(m, VKI_OP_CONV_2D, mean, 1, 1, VKI_PAD_VALID, mid, act1, seed);
    int e = conv(m, VKI_OP_CONV_2D, s, 1, 1, VKI_PAD_VALID, c, act2, seed + 2);
    if (gate_op) e = unary(m, gate_op, e);
    return mul(m, x, e, h, w, c);
}

/* MobileNetV3's blocks over odd planes, each mean and its two convolutions in one
 * dispatch: a whole-plane AVERAGE_POOL_2D over 9x7x17 (17 -> 5 -> 17, RELU then the sigmoid
 * of a fused LOGISTIC); a MEAN over 9x7 of 3 channels through 1 (RELU6, HARD_SWISH); a SAME
 * pool whose 3x3 window is the plane's corner, over 5 channels (no activation, then TANH);
 * and 300 -> 260 -> 300 channels, more slices than 64 lanes take at once. Each gate then
 * multiplies the activations. */
static vki_model *squeeze_model(void) {
    vki_model *m = vki_model_new("squeeze");
    int x = harness_tensor(m, 9, 7, 17);
    int g1 = squeeze_excite(m, x, global_mean(m, x, 9, 7, VKI_PAD_VALID), 5, VKI_ACT_RELU,
                            VKI_ACT_NONE, VKI_OP_LOGISTIC, 81);
    int y1 = conv(m, VKI_OP_CONV_2D, g1, 1, 1, VKI_PAD_SAME, 3, VKI_ACT_NONE, 83);
    int y2 = squeeze_excite(m, y1, global_mean(m, y1, 0, 0, VKI_PAD_VALID), 1, VKI_ACT_RELU6,
                            VKI_ACT_NONE, VKI_OP_HARD_SWISH, 85);
    int y3 = conv(m, VKI_OP_CONV_2D, y2, 3, 2, VKI_PAD_SAME, 5, VKI_ACT_NONE, 87);   /* 5x4 */
    int y4 = squeeze_excite(m, y3, global_mean(m, y3, 3, 3, VKI_PAD_SAME), 3, VKI_ACT_NONE,
                            VKI_ACT_TANH, 0, 89);
    int y5 = conv(m, VKI_OP_CONV_2D, y4, 1, 1, VKI_PAD_SAME, 300, VKI_ACT_RELU, 91);
    int y6 = squeeze_excite(m, y5, global_mean(m, y5, 0, 0, VKI_PAD_VALID), 260, VKI_ACT_RELU,
                            VKI_ACT_NONE, VKI_OP_LOGISTIC, 93);
    vki_model_set_io(m, 1, &x, 1, &y6);
    return m;
}

Test(fusion, squeeze_excite_blocks_in_one_dispatch) {
    /* With the device's lanes (64 on lavapipe: the first block's weights preloaded, the
     * last one's sums in rounds), 32, and a GPU's 1024 (capped by the device). */
    static const char *const lanes[] = {NULL, "32", "1024"};
    for (int i = 0; i < 3; i++) {
        if (lanes[i]) setenv("VKI_SQUEEZE", lanes[i], 1);
        vki_model *m = squeeze_model();
        expect_saved(m, "squeeze", 8);
        harness_check(m, 95, 1e-5);
        unsetenv("VKI_SQUEEZE");
    }
}

Test(fusion, squeeze_on_a_gpu_only_where_one_work_group_streams_the_mean_fast) {
    /* squeeze.c's measured bound: a GPU fuses a block whose mean reads at most 16384 vec4s
     * (64x64 with 4 slices), a CPU device any that fits its shared memory. */
    const vki_wg_device gpu = {.vendor_id = 0x10DE, .subgroup_size = 32, .max_invocations = 1024,
                               .max_size = {1024, 1024, 64}, .max_shared_bytes = 49152};
    const vki_wg_device cpu = {.vendor_id = 0x10005, .is_cpu = 1, .subgroup_size = 8,
                               .max_invocations = 1024, .max_size = {1024, 1024, 1024},
                               .max_shared_bytes = 32768};
    static const struct {
        int h, w, c, gpu;
    } cases[] = {{64, 64, 16, 1}, {64, 64, 17, 0}, {128, 128, 16, 0}, {16, 16, 128, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vki_model *m = vki_model_new("fits");
        int x = harness_tensor(m, cases[i].h, cases[i].w, cases[i].c);
        global_mean(m, x, 0, 0, VKI_PAD_VALID);
        const vki_op *mean = &m->ops[0];
        cr_expect_eq(vki_squeeze_fits(&gpu, m, mean, 8, cases[i].c), cases[i].gpu,
                     "GPU, %dx%dx%d", cases[i].h, cases[i].w, cases[i].c);
        cr_expect(vki_squeeze_fits(&cpu, m, mean, 8, cases[i].c), "CPU, %dx%dx%d", cases[i].h,
                  cases[i].w, cases[i].c);
        vki_model_destroy(m);
    }
}

Test(fusion, squeeze_not_where_a_step_has_another_reader) {
    /* The mean is also a graph output; the middle layer is read by a second op: both
     * blocks stay three dispatches. */
    vki_model *m = vki_model_new("squeeze_kept");
    int x = harness_tensor(m, 5, 7, 5);
    int mean1 = global_mean(m, x, 5, 7, VKI_PAD_VALID);
    int y1 = squeeze_excite(m, x, mean1, 3, VKI_ACT_RELU, VKI_ACT_NONE, VKI_OP_LOGISTIC, 97);
    int mean2 = global_mean(m, y1, 0, 0, VKI_PAD_VALID);
    int s = conv(m, VKI_OP_CONV_2D, mean2, 1, 1, VKI_PAD_VALID, 2, VKI_ACT_RELU, 99);
    int e = conv(m, VKI_OP_CONV_2D, s, 1, 1, VKI_PAD_VALID, 5, VKI_ACT_NONE, 101);
    int y2 = mul(m, y1, unary(m, VKI_OP_LOGISTIC, e), 5, 7, 5);
    int s2 = unary(m, VKI_OP_TANH, s);
    int outs[3] = {y2, mean1, s2};
    vki_model_set_io(m, 1, &x, 3, outs);
    expect_saved(m, "squeeze", 0);
    harness_check(m, 103, 1e-5);
}

/* ---- the schedule stage: in-place outputs --------------------------------------------- */

/* The lower bound of live intermediate bytes with the schedule stage on, or off (and dw_pw
 * off, which fuses differently on CPU devices). */
static uint64_t bound_of(vki_model *m, int schedule) {
    vki_graph_options o = {.disable_passes = VKI_PASS_DW_PW |
                                             (schedule ? 0 : VKI_PASS_IN_PLACE | VKI_PASS_ORDER)};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    vki_memory_report r;
    cr_assert_eq(vki_graph_memory(g, &r), VKI_OK);
    vki_graph_destroy(g);
    return r.lower_bound_bytes;
}

/* 7x5x17 in PHWC4: 5 slices of 7x5 vec4 of fp32. */
#define BYTES_7x5x17 (5u * 7u * 5u * 16u)

Test(in_place, elementwise_chain_shares_one_storage) {
    vki_model *m = vki_model_new("in_place_chain");
    int x = harness_tensor(m, 7, 5, 17), c = 17;
    int k = harness_const(m, 1, &c, 3, 0.5f, 1.5f);
    int a = harness_tensor(m, 7, 5, 17), b = harness_tensor(m, 7, 5, 17);
    int e = harness_tensor(m, 7, 5, 17), y = harness_tensor(m, 7, 5, 17);
    harness_binary(m, VKI_OP_ADD, x, k, a);
    harness_op(m, VKI_OP_ABS, 1, &a, b);      /* over a */
    harness_op(m, VKI_OP_EXP, 1, &b, e);      /* over b, so over a */
    harness_binary(m, VKI_OP_MUL, e, k, y);
    vki_model_set_io(m, 1, &x, 1, &y);
    cr_assert_eq(bound_of(m, 0), 2 * BYTES_7x5x17, "two of a, b, e live at each step");
    cr_assert_eq(bound_of(m, 1), BYTES_7x5x17, "a, b and e share one storage");
    harness_check(m, 61, 1e-5);
}

Test(in_place, not_over_an_input_read_later) {
    vki_model *m = vki_model_new("in_place_read_later");
    int x = harness_tensor(m, 7, 5, 17), c = 17;
    int k = harness_const(m, 1, &c, 5, -1.0f, 1.0f);
    int a = harness_tensor(m, 7, 5, 17), b = harness_tensor(m, 7, 5, 17);
    int y = harness_tensor(m, 7, 5, 17);
    harness_binary(m, VKI_OP_ADD, x, k, a);
    harness_op(m, VKI_OP_ABS, 1, &a, b);      /* a is read again below */
    harness_binary(m, VKI_OP_MUL, a, b, y);
    vki_model_set_io(m, 1, &x, 1, &y);
    cr_assert_eq(bound_of(m, 1), 2 * BYTES_7x5x17);
    harness_check(m, 63, 1e-5);
}

/* A residual epilogue may write over its residual, but not where the convolution also reads
 * that tensor as its input: other invocations read it at other indices. */
Test(in_place, residual_epilogue_over_its_residual_only) {
    vki_model *m = vki_model_new("in_place_residual");
    int x = harness_tensor(m, 7, 5, 17);
    int a = harness_tensor(m, 7, 5, 17);
    harness_op(m, VKI_OP_ABS, 1, &x, a);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, a, 3, 1, VKI_PAD_SAME, 0, VKI_ACT_NONE, 65);
    int p = conv(m, VKI_OP_CONV_2D, d, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_NONE, 67);
    int r = add(m, p, a, VKI_ACT_NONE);       /* into p's epilogue: reads a, writes over it */
    int q = conv(m, VKI_OP_CONV_2D, r, 1, 1, VKI_PAD_SAME, 17, VKI_ACT_NONE, 69);
    int s = add(m, q, r, VKI_ACT_NONE);       /* the 1x1 reads r as input and residual */
    int y = harness_tensor(m, 7, 5, 17);
    harness_op(m, VKI_OP_ABS, 1, &s, y);
    vki_model_set_io(m, 1, &x, 1, &y);
    /* Off: a, d and r at the first epilogue. On: r over a; then r and s (not over r). */
    cr_assert_eq(bound_of(m, 0), 3 * BYTES_7x5x17);
    cr_assert_eq(bound_of(m, 1), 2 * BYTES_7x5x17);
    harness_check(m, 71, 1e-5);
}

/* A residual with fewer channels than the output (a channel PAD folded in) may take the
 * output too: its slices sit at the output's indices. Its storage grows to the output's
 * size, which here lowers the bound: at the convolution a, d and r were all live. */
Test(in_place, residual_with_fewer_channels_grows_into_the_output) {
    vki_model *m = vki_model_new("in_place_grow");
    int x = harness_tensor(m, 7, 5, 3);
    int a = harness_tensor(m, 7, 5, 3);
    harness_op(m, VKI_OP_ABS, 1, &x, a);
    int d = conv(m, VKI_OP_DEPTHWISE_CONV_2D, a, 3, 1, VKI_PAD_SAME, 0, VKI_ACT_NONE, 73);
    int p = conv(m, VKI_OP_CONV_2D, d, 3, 1, VKI_PAD_SAME, 5, VKI_ACT_NONE, 75);
    int r = add(m, p, pad(m, a, 0, 0, 0, 0, 2), VKI_ACT_RELU);
    int y = harness_tensor(m, 7, 5, 5);
    harness_op(m, VKI_OP_ABS, 1, &r, y);
    vki_model_set_io(m, 1, &x, 1, &y);
    const uint64_t slice = 7u * 5u * 16u;   /* one slice of 7x5 in fp32 PHWC4 */
    cr_assert_eq(bound_of(m, 0), 4 * slice, "a (1 slice), d (1) and r (2) at the convolution");
    cr_assert_eq(bound_of(m, 1), 3 * slice, "r over a, a grown to 2 slices, and d");
    harness_check(m, 77, 1e-5);
}
