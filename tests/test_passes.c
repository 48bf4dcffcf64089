/* test_passes.c: activation fusion changes the dispatch count, never the results (the
 * reference runs the unfused model). */
#include "harness.h"

#include <criterion/criterion.h>

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
    cr_assert_eq(dispatches(m), 3, "input, ADD+RELU, output");
    harness_check(m, 11, 1e-6);
}

Test(fusion, relu6_and_tanh_into_add) {
    vki_model *m = add_then(VKI_OP_RELU6, 0, 0);
    cr_assert_eq(dispatches(m), 3);
    harness_check(m, 12, 1e-6);
    m = add_then(VKI_OP_TANH, 0, 0);
    cr_assert_eq(dispatches(m), 3);
    harness_check(m, 13, 1e-5);
}

Test(fusion, not_when_the_tensor_has_another_reader) {
    vki_model *m = add_then(VKI_OP_RELU, 1, 0);
    cr_assert_eq(dispatches(m), 5, "input, ADD, RELU, ADD, output");
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
    cr_assert_eq(dispatches(m), 4, "input, CONV+RELU, POOL+RELU6, output");
    harness_check(m, 23, 1e-5);
}
