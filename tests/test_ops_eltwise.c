/* test_ops_eltwise.c: ADD with broadcasting and fused activations, and RELU, on odd shapes. */
#include "harness.h"

#include <criterion/criterion.h>

static const int channels[] = {1, 3, 4, 5, 17};

static void check_add(int h, int w, int c, int bh, int bw, int bc, int b_const, vki_activation act) {
    vki_model *m = vki_model_new("add");
    int a = harness_tensor(m, h, w, c);
    int b;
    if (b_const) {
        int shape[4] = {1, bh, bw, bc};
        b = harness_const(m, 4, shape, 99, -1.0f, 1.0f);
    } else {
        b = harness_tensor(m, bh, bw, bc);
    }
    int out = harness_tensor(m, h, w, c);
    int ins[2] = {a, b};
    vki_op *op = vki_model_add_op(m, VKI_OP_ADD, 2, ins, 1, &out);
    op->opt.eltwise.activation = act;
    int graph_in[2] = {a, b};
    vki_model_set_io(m, b_const ? 1 : 2, graph_in, 1, &out);
    harness_check(m, 1234u + (uint32_t)(h * 31 + w * 7 + c), 1e-6);
}

Test(add, same_shape_odd_channels) {
    for (size_t i = 0; i < sizeof channels / sizeof channels[0]; i++)
        check_add(7, 5, channels[i], 7, 5, channels[i], 0, VKI_ACT_NONE);
}

Test(add, fused_activations) {
    check_add(3, 9, 5, 3, 9, 5, 0, VKI_ACT_RELU);
    check_add(3, 9, 17, 3, 9, 17, 0, VKI_ACT_RELU6);
    check_add(1, 1, 3, 1, 1, 3, 0, VKI_ACT_RELU_N1_TO_1);
}

Test(add, broadcast_channel_vector_and_scalar) {
    check_add(5, 3, 17, 1, 1, 17, 1, VKI_ACT_NONE);   /* [1,H,W,C] + [1,1,1,C] const */
    check_add(5, 3, 5, 1, 1, 1, 1, VKI_ACT_NONE);     /* + scalar-like [1,1,1,1] */
    check_add(5, 3, 3, 5, 3, 1, 0, VKI_ACT_NONE);     /* + [1,H,W,1] activation */
}

Test(relu, odd_shapes) {
    for (size_t i = 0; i < sizeof channels / sizeof channels[0]; i++) {
        vki_model *m = vki_model_new("relu");
        int a = harness_tensor(m, 9, 3, channels[i]);
        int out = harness_tensor(m, 9, 3, channels[i]);
        vki_model_add_op(m, VKI_OP_RELU, 1, &a, 1, &out);
        vki_model_set_io(m, 1, &a, 1, &out);
        harness_check(m, 7u + (uint32_t)i, 0.0);
    }
}
