/* test_ops_layout.c: MAX_POOL_2D, AVERAGE_POOL_2D, PAD, RESHAPE and CONCATENATION on odd
 * shapes and channel counts, against the C references; and their validation messages. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const int channels[] = {1, 3, 4, 5, 17};
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* A float activation tensor of any rank. */
static int tensor(vki_model *m, int rank, const int *shape) {
    int t = vki_model_add_tensor(m, "t", VKI_DTYPE_FLOAT32, rank, shape, NULL, 0);
    cr_assert(t >= 0);
    return t;
}

static int int_const(vki_model *m, const char *name, int rank, const int *shape,
                     const int32_t *data, size_t count) {
    int t = vki_model_add_tensor(m, name, VKI_DTYPE_INT32, rank, shape, data, count * sizeof(int32_t));
    cr_assert(t >= 0);
    return t;
}

/* Validation must fail with this status and a message containing `needle`. */
static void expect_invalid(vki_model *m, vki_status want, const char *needle) {
    vki_status s = vki_model_validate(m);
    cr_assert_eq(s, want, "status %s, want %s (%s)", vki_status_name(s), vki_status_name(want),
                 s ? vki_last_error() : "validated");
    cr_assert(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(), needle);
    vki_model_destroy(m);
}

static int dispatches_of(const vki_model *m) {
    cr_assert_eq(vki_model_validate((vki_model *)m), VKI_OK, "validate: %s", vki_last_error());
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    cr_assert_eq(s, VKI_OK, "graph: %s", vki_last_error());
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    return n;
}

/* ---- pooling --------------------------------------------------------------------------- */

typedef struct pool_case {
    int fh, fw, sh, sw;
    vki_padding pad;
} pool_case;

static vki_model *pool_model(vki_op_code code, int h, int w, int c, pool_case pc, vki_activation act) {
    vki_model *m = vki_model_new(code == VKI_OP_MAX_POOL_2D ? "max_pool" : "average_pool");
    int oh = vki_conv_out_size(pc.pad, h, pc.fh, pc.sh, 1);
    int ow = vki_conv_out_size(pc.pad, w, pc.fw, pc.sw, 1);
    int in = harness_tensor(m, h, w, c);
    int out = harness_tensor(m, oh, ow, c);
    vki_op *op = vki_model_add_op(m, code, 1, &in, 1, &out);
    op->opt.pool = (vki_pool_options){pc.pad, pc.sw, pc.sh, pc.fw, pc.fh, act};
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

static void check_pool(vki_op_code code, int h, int w, int c, pool_case pc, vki_activation act,
                       double tol) {
    vki_model *m = pool_model(code, h, w, c, pc, act);
    harness_check(m, 500u + (uint32_t)(h * 131 + w * 17 + c * 3 + pc.fh + pc.pad), tol);
}

static const pool_case pool_cases[] = {
    {2, 2, 2, 2, VKI_PAD_VALID}, {2, 2, 2, 2, VKI_PAD_SAME}, {3, 3, 2, 2, VKI_PAD_SAME},
    {3, 3, 2, 2, VKI_PAD_VALID}, {3, 3, 1, 1, VKI_PAD_SAME}, {3, 2, 1, 2, VKI_PAD_SAME},
};
#define N_POOL_CASES (int)(sizeof pool_cases / sizeof pool_cases[0])

static void skip_unless_registered(vki_op_code code) {
    vki_op op = {.code = code};
    if (!vki_op_find(&op)) cr_skip_test("%s is not in ops.c's table yet", vki_op_name(code));
}

Test(max_pool, windows_on_odd_inputs) {
    for (int k = 0; k < N_POOL_CASES; k++)
        for (int i = 0; i < N_CHANNELS; i++)
            check_pool(VKI_OP_MAX_POOL_2D, 9, 7, channels[i], pool_cases[k], VKI_ACT_NONE, 0.0);
}

Test(max_pool, fused_activations_and_even_input) {
    pool_case p = {3, 3, 2, 2, VKI_PAD_SAME};
    check_pool(VKI_OP_MAX_POOL_2D, 9, 7, 5, p, VKI_ACT_RELU, 0.0);
    check_pool(VKI_OP_MAX_POOL_2D, 8, 8, 17, p, VKI_ACT_RELU6, 0.0);
    check_pool(VKI_OP_MAX_POOL_2D, 7, 9, 3, p, VKI_ACT_RELU_N1_TO_1, 0.0);
    check_pool(VKI_OP_MAX_POOL_2D, 16, 16, 32, (pool_case){2, 2, 2, 2, VKI_PAD_VALID}, VKI_ACT_NONE, 0.0);
}

Test(average_pool, windows_on_odd_inputs) {
    skip_unless_registered(VKI_OP_AVERAGE_POOL_2D);
    for (int k = 0; k < N_POOL_CASES; k++)
        for (int i = 0; i < N_CHANNELS; i++)
            check_pool(VKI_OP_AVERAGE_POOL_2D, 9, 7, channels[i], pool_cases[k], VKI_ACT_NONE, 1e-6);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 9, 7, 5, pool_cases[2], VKI_ACT_RELU6, 1e-6);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 7, 9, 17, pool_cases[4], VKI_ACT_RELU, 1e-6);
}

/* Window sizes (H*W = 1, 3, 63, 64, 65, 127, 4160, 4113) around the reduction's lane
 * count, 64 on GPUs and one SIMD vector (8 on lavapipe) on CPU devices: fewer cells than
 * lanes, a round short by one, exact or over by one, and thousands of cells. */
static const int global_sizes[][2] = {{1, 1}, {1, 3}, {7, 9}, {8, 8}, {5, 13}, {127, 1},
                                      {65, 64}, {9, 457}};
#define N_GLOBAL_SIZES (int)(sizeof global_sizes / sizeof global_sizes[0])

static void check_global_pools(vki_op_code code, double tol) {
    for (int k = 0; k < N_GLOBAL_SIZES; k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int h = global_sizes[k][0], w = global_sizes[k][1];
            check_pool(code, h, w, channels[i], (pool_case){h, w, 1, 1, VKI_PAD_VALID},
                       VKI_ACT_NONE, tol);
        }
}

Test(average_pool, global) {
    skip_unless_registered(VKI_OP_AVERAGE_POOL_2D);
    check_global_pools(VKI_OP_AVERAGE_POOL_2D, 1e-5);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 16, 16, 32, (pool_case){16, 16, 2, 2, VKI_PAD_VALID},
               VKI_ACT_NONE, 1e-5);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 7, 7, 13, (pool_case){7, 7, 1, 1, VKI_PAD_VALID},
               VKI_ACT_RELU, 1e-5);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 9, 7, 17, (pool_case){9, 7, 9, 7, VKI_PAD_VALID},
               VKI_ACT_TANH, 1e-5);
    check_pool(VKI_OP_AVERAGE_POOL_2D, 65, 64, 5, (pool_case){65, 64, 1, 1, VKI_PAD_VALID},
               VKI_ACT_RELU_N1_TO_1, 1e-5);
}

Test(max_pool, global) {
    check_global_pools(VKI_OP_MAX_POOL_2D, 0.0);
    check_pool(VKI_OP_MAX_POOL_2D, 7, 7, 13, (pool_case){7, 7, 1, 1, VKI_PAD_VALID}, VKI_ACT_RELU,
               0.0);
    check_pool(VKI_OP_MAX_POOL_2D, 9, 457, 5, (pool_case){9, 457, 9, 457, VKI_PAD_VALID},
               VKI_ACT_RELU6, 0.0);
    /* The device's tanh may differ from libm's in the last bit. */
    check_pool(VKI_OP_MAX_POOL_2D, 8, 8, 17, (pool_case){8, 8, 1, 1, VKI_PAD_VALID}, VKI_ACT_TANH,
               1e-6);
}

/* A 1x1 output whose window is not the input: SAME windows hanging over every edge
 * (TFLite averages only the cells inside), VALID windows that leave rows or columns
 * out (whole rows: one contiguous run; part rows: a 2-D walk), and a SAME window that
 * fits inside. */
Test(pool, global_window_not_the_input) {
    static const struct { int h, w; pool_case pc; } cases[] = {
        {4, 5, {7, 8, 4, 5, VKI_PAD_SAME}},     {9, 13, {12, 14, 9, 13, VKI_PAD_SAME}},
        {1, 1, {3, 3, 2, 2, VKI_PAD_SAME}},     {5, 7, {4, 6, 3, 4, VKI_PAD_VALID}},
        {9, 8, {7, 8, 5, 1, VKI_PAD_VALID}},    {70, 66, {66, 65, 10, 10, VKI_PAD_VALID}},
        {9, 7, {3, 3, 9, 7, VKI_PAD_SAME}},
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            check_pool(VKI_OP_MAX_POOL_2D, cases[k].h, cases[k].w, channels[i], cases[k].pc,
                       VKI_ACT_NONE, 0.0);
            check_pool(VKI_OP_AVERAGE_POOL_2D, cases[k].h, cases[k].w, channels[i], cases[k].pc,
                       k % 2 ? VKI_ACT_RELU6 : VKI_ACT_NONE, 1e-5);
        }
}

/* The one op of m must run as a single dispatch of `kernel` (between the input and
 * output conversions). Consumes m. */
static void expect_kernel(vki_model *m, const char *kernel) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "validate: %s", vki_last_error());
    vki_graph_options opt = {.profile = 1};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &opt, &g), VKI_OK, "graph: %s",
                 vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "run: %s", vki_last_error());
    vki_dispatch_profile prof[8];
    int n = vki_graph_profile(g, prof, 8);
    cr_assert_eq(n, 3, "%d dispatches, want 3", n);
    cr_assert_str_eq(prof[1].kernel, kernel);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* A 1x1 output takes the work-group reduction; any larger output keeps a thread per
 * output vec4. */
Test(pool, kernel_choice) {
    expect_kernel(pool_model(VKI_OP_AVERAGE_POOL_2D, 9, 7, 5,
                             (pool_case){9, 7, 1, 1, VKI_PAD_VALID}, VKI_ACT_NONE), "reduce");
    expect_kernel(pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 5, (pool_case){3, 3, 9, 7, VKI_PAD_SAME},
                             VKI_ACT_NONE), "reduce");
    expect_kernel(pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 5, (pool_case){8, 7, 1, 1, VKI_PAD_VALID},
                             VKI_ACT_NONE), "pool");
}

Test(pool, invalid) {
    vki_model *m = pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 3, pool_cases[0], VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[1] = 5;    /* VALID 2x2 s2 of 9 is 4 */
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [5,3,3], expected [4,3,3]");
    m = pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 3, pool_cases[0], VKI_ACT_NONE);
    m->ops[0].opt.pool.stride_w = 0;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must be positive");
    m = pool_model(VKI_OP_MAX_POOL_2D, 3, 3, 3, (pool_case){3, 3, 1, 1, VKI_PAD_VALID}, VKI_ACT_NONE);
    m->ops[0].opt.pool.filter_h = 4;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "does not fit the 3x3 input");
}

/* ---- PAD ------------------------------------------------------------------------------- */

/* Pads a rank-`rank` input; pads holds [before, after] per dimension. */
static vki_model *pad_model(int rank, const int *shape, const int32_t *pads, int *pads_tensor) {
    vki_model *m = vki_model_new("pad");
    int out_shape[4];
    for (int i = 0; i < rank; i++) out_shape[i] = shape[i] + pads[2 * i] + pads[2 * i + 1];
    int in = tensor(m, rank, shape);
    int pshape[2] = {rank, 2};
    int p = int_const(m, "paddings", 2, pshape, pads, (size_t)rank * 2);
    int out = tensor(m, rank, out_shape);
    int ins[2] = {in, p};
    vki_model_add_op(m, VKI_OP_PAD, 2, ins, 1, &out);
    vki_model_set_io(m, 1, &in, 1, &out);
    if (pads_tensor) *pads_tensor = p;
    return m;
}

static void check_pad(int rank, const int *shape, const int32_t *pads) {
    harness_check(pad_model(rank, shape, pads, NULL), 900u + (uint32_t)(shape[rank - 1] * 7 + pads[2 * rank - 1]), 0.0);
}

Test(pad, spatial_asymmetric) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int shape[4] = {1, 5, 6, channels[i]};
        int32_t pads[8] = {0, 0, 1, 2, 0, 3, 0, 0};
        check_pad(4, shape, pads);
    }
    int shape[4] = {1, 7, 9, 3};
    int32_t pads[8] = {0, 0, 0, 1, 1, 0, 0, 0};   /* the TF "SAME" stride-2 pre-pad */
    check_pad(4, shape, pads);
}

Test(pad, channels) {
    static const int32_t cpad[][2] = {{0, 2}, {0, 12}, {0, 8}, {3, 1}, {1, 0}, {4, 4}, {5, 6}};
    static const int cin[] = {3, 5, 24, 5, 3, 8, 17};
    for (int i = 0; i < (int)(sizeof cin / sizeof cin[0]); i++) {
        int shape[4] = {1, 3, 4, cin[i]};
        int32_t pads[8] = {0, 0, 0, 0, 0, 0, cpad[i][0], cpad[i][1]};
        check_pad(4, shape, pads);
    }
}

Test(pad, spatial_and_channel_together_and_lower_ranks) {
    int s4[4] = {1, 4, 3, 5};
    int32_t p4[8] = {0, 0, 2, 1, 1, 2, 2, 3};
    check_pad(4, s4, p4);
    int s3[3] = {1, 6, 7};                        /* [N, W, C] */
    int32_t p3[6] = {0, 0, 1, 2, 1, 0};
    check_pad(3, s3, p3);
    int s2[2] = {1, 9};                           /* [N, C] */
    int32_t p2[4] = {0, 0, 2, 5};
    check_pad(2, s2, p2);
}

Test(pad, invalid) {
    int shape[4] = {1, 5, 6, 3};
    int32_t pads[8] = {0, 0, 1, 2, 0, 3, 0, 0};
    int p;
    /* paddings for a rank-3 tensor on a rank-4 input */
    vki_model *m = pad_model(4, shape, pads, &p);
    m->tensors[p].shape[0] = 3;
    char want[96];
    snprintf(want, sizeof want, "paddings tensor %d has shape [3,2], need [4,2]", p);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);

    int32_t batch[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    m = pad_model(4, shape, batch, NULL);
    m->tensors[m->ops[0].outputs[0]].shape[0] = 1;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "batch padding [1,0] is not supported");

    int32_t negative[8] = {0, 0, 0, 0, -1, 0, 0, 0};
    m = pad_model(4, shape, negative, NULL);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must not be negative");

    m = pad_model(4, shape, pads, NULL);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 4;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [8,9,4], expected [8,9,3]");

    m = pad_model(4, shape, pads, &p);
    m->tensors[p].dtype = VKI_DTYPE_FLOAT32;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is not int32");
}

/* ---- RESHAPE --------------------------------------------------------------------------- */

/* A chain of reshapes through `n` shapes; the first is the graph input, the last the output. */
static vki_model *reshape_chain(int n, const int *ranks, const int (*shapes)[4]) {
    vki_model *m = vki_model_new("reshape");
    int prev = tensor(m, ranks[0], shapes[0]);
    int first = prev;
    for (int i = 1; i < n; i++) {
        int t = tensor(m, ranks[i], shapes[i]);
        vki_model_add_op(m, VKI_OP_RESHAPE, 1, &prev, 1, &t);
        prev = t;
    }
    vki_model_set_io(m, 1, &first, 1, &prev);
    return m;
}

/* Checks the values and that exactly `extra` dispatches were added beyond the two I/O
 * conversions. */
static void check_reshape(int n, const int *ranks, const int (*shapes)[4], int extra) {
    vki_model *m = reshape_chain(n, ranks, shapes);
    int got = dispatches_of(m);
    cr_assert_eq(got, 2 + extra, "%d dispatches, want %d", got, 2 + extra);
    harness_check(m, 1300u + (uint32_t)n, 0.0);
}

Test(reshape, face_detector_head) {
    static const int r[2] = {4, 3};
    static const int s[2][4] = {{1, 16, 16, 32}, {1, 512, 16}};
    check_reshape(2, r, s, 1);
}

Test(reshape, chain_through_ranks) {
    static const int r[5] = {4, 2, 3, 4, 1};
    static const int s[5][4] = {{1, 7, 5, 3}, {1, 105}, {1, 3, 35}, {1, 5, 7, 3}, {105}};
    /* 3 -> 105 -> 35 -> 3 -> 105 channels: every step gathers */
    check_reshape(5, r, s, 4);
}

Test(reshape, same_channels_alias) {
    static const int r[2] = {4, 3};
    static const int s[2][4] = {{1, 3, 5, 17}, {1, 15, 17}};
    check_reshape(2, r, s, 0);
    static const int r2[3] = {4, 4, 2};
    static const int s2[3][4] = {{1, 4, 6, 10}, {1, 6, 4, 10}, {1, 240}};
    check_reshape(3, r2, s2, 1);   /* the H/W swap aliases, the flatten gathers */
}

Test(reshape, channel_changes) {
    static const int r[2] = {4, 4};
    static const int s[2][4] = {{1, 4, 6, 10}, {1, 4, 10, 6}};
    check_reshape(2, r, s, 1);
    static const int r2[2] = {3, 3};
    static const int s2[2][4] = {{1, 6, 5}, {1, 5, 6}};
    check_reshape(2, r2, s2, 1);
    static const int r3[2] = {4, 4};
    static const int s3[2][4] = {{1, 2, 3, 8}, {1, 1, 1, 48}};
    check_reshape(2, r3, s3, 1);
}

Test(reshape, shape_input_and_constant_input) {
    /* RESHAPE(const [1,4,6] -> [1,24] with shape [1,-1]) + input [1,24] */
    vki_model *m = vki_model_new("reshape_const");
    int cshape[3] = {1, 4, 6}, fshape[2] = {1, 24}, sshape[1] = {2};
    int c = harness_const(m, 3, cshape, 5, -1.0f, 1.0f);
    int32_t want[2] = {1, -1};
    int st = int_const(m, "shape", 1, sshape, want, 2);
    int flat = tensor(m, 2, fshape);
    int in = tensor(m, 2, fshape);
    int out = tensor(m, 2, fshape);
    int rin[2] = {c, st};
    vki_model_add_op(m, VKI_OP_RESHAPE, 2, rin, 1, &flat);
    int ain[2] = {in, flat};
    vki_model_add_op(m, VKI_OP_ADD, 2, ain, 1, &out);
    vki_model_set_io(m, 1, &in, 1, &out);
    harness_check(m, 77, 0.0);
}

Test(reshape, invalid) {
    static const int r[2] = {4, 2};
    static const int s[2][4] = {{1, 7, 5, 3}, {1, 104}};
    vki_model *m = reshape_chain(2, r, s);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input [1,7,5,3] has 105 elements but output [1,104] has 104");

    static const int s2[2][4] = {{1, 7, 5, 3}, {1, 105}};
    m = reshape_chain(2, r, s2);
    int sshape[1] = {2};
    int32_t bad[2] = {1, 104};
    int st = int_const(m, "shape", 1, sshape, bad, 2);
    m->ops[0].inputs[1] = st;
    m->ops[0].n_inputs = 2;
    char want[128];
    snprintf(want, sizeof want, "shape tensor %d asks for [1,104] but output tensor %d is [1,105]", st,
             m->ops[0].outputs[0]);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);
}

/* ---- CONCATENATION --------------------------------------------------------------------- */

/* Concatenates n inputs of rank `rank` along `axis`; shapes[i] are the inputs' shapes.
 * Inputs whose bit is set in const_mask are constants. */
static vki_model *concat_model(int rank, int axis, int n, const int (*shapes)[4],
                               unsigned const_mask, vki_activation act) {
    vki_model *m = vki_model_new("concat");
    int ins[16], graph_in[16], n_graph_in = 0;
    int out_shape[4];
    memcpy(out_shape, shapes[0], sizeof out_shape);
    out_shape[axis] = 0;
    for (int i = 0; i < n; i++) {
        out_shape[axis] += shapes[i][axis];
        if (const_mask & (1u << i)) {
            ins[i] = harness_const(m, rank, shapes[i], 40u + (uint32_t)i, -2.0f, 2.0f);
        } else {
            ins[i] = tensor(m, rank, shapes[i]);
            graph_in[n_graph_in++] = ins[i];
        }
    }
    int out = tensor(m, rank, out_shape);
    vki_op *op = vki_model_add_op(m, VKI_OP_CONCATENATION, n, ins, 1, &out);
    op->opt.concat.axis = axis;
    op->opt.concat.activation = act;
    vki_model_set_io(m, n_graph_in, graph_in, 1, &out);
    return m;
}

static void check_concat(int rank, int axis, int n, const int (*shapes)[4], unsigned const_mask,
                         vki_activation act) {
    harness_check(concat_model(rank, axis, n, shapes, const_mask, act),
                  2000u + (uint32_t)(rank * 100 + axis * 10 + n), 0.0);
}

Test(concatenation, channels_not_multiple_of_4) {
    static const int a[2][4] = {{1, 5, 3, 3}, {1, 5, 3, 5}};
    check_concat(4, 3, 2, a, 0, VKI_ACT_NONE);
    static const int b[3][4] = {{1, 4, 7, 5}, {1, 4, 7, 17}, {1, 4, 7, 1}};
    check_concat(4, 3, 3, b, 0, VKI_ACT_NONE);
    static const int c[2][4] = {{1, 3, 3, 4}, {1, 3, 3, 4}};
    check_concat(4, 3, 2, c, 0, VKI_ACT_NONE);
    static const int d[3][4] = {{1, 2, 5, 2}, {1, 2, 5, 7}, {1, 2, 5, 4}};
    check_concat(4, 3, 3, d, 0, VKI_ACT_RELU);
    static const int e[2][4] = {{1, 6, 6}, {1, 6, 11}};   /* rank 3: [N, W, C] */
    check_concat(3, 2, 2, e, 0, VKI_ACT_NONE);
    static const int f[3][4] = {{1, 3}, {1, 9}, {1, 1}};  /* rank 2: [N, C] */
    check_concat(2, 1, 3, f, 0, VKI_ACT_NONE);
}

Test(concatenation, rank3_axis1_anchors) {
    static const int a[2][4] = {{1, 512, 16}, {1, 384, 16}};
    check_concat(3, 1, 2, a, 0, VKI_ACT_NONE);
    static const int b[2][4] = {{1, 512, 1}, {1, 384, 1}};
    check_concat(3, 1, 2, b, 0, VKI_ACT_NONE);
}

Test(concatenation, height_and_width) {
    static const int h[3][4] = {{1, 2, 5, 3}, {1, 5, 5, 3}, {1, 1, 5, 3}};
    check_concat(4, 1, 3, h, 0, VKI_ACT_NONE);
    static const int w[2][4] = {{1, 4, 3, 17}, {1, 4, 6, 17}};
    check_concat(4, 2, 2, w, 0, VKI_ACT_RELU6);
}

Test(concatenation, constant_inputs_and_many_inputs) {
    static const int a[3][4] = {{1, 3, 4, 6}, {1, 3, 4, 3}, {1, 3, 4, 2}};
    check_concat(4, 3, 3, a, 2u, VKI_ACT_RELU_N1_TO_1);
    static const int b[2][4] = {{1, 3, 4, 5}, {1, 2, 4, 5}};
    check_concat(4, 1, 2, b, 1u, VKI_ACT_NONE);
    int many[15][4];
    for (int i = 0; i < 15; i++) {
        many[i][0] = 1; many[i][1] = 2; many[i][2] = 3; many[i][3] = 1 + i % 4;
    }
    check_concat(4, 3, 15, (const int (*)[4])many, 1u << 7, VKI_ACT_NONE);
}

Test(concatenation, invalid) {
    static const int a[2][4] = {{1, 4, 4, 3}, {1, 4, 5, 3}};
    vki_model *m = concat_model(4, 3, 2, a, 0, VKI_ACT_NONE);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,4,5,3] does not match output [1,4,4,6] outside axis 3");

    static const int b[2][4] = {{1, 4, 4, 3}, {1, 4, 4, 5}};
    m = concat_model(4, 3, 2, b, 0, VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 9;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "inputs add up to 8 along axis 3");

    m = concat_model(4, 0, 2, b, 0, VKI_ACT_NONE);
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "batch");

    m = concat_model(4, 3, 2, b, 0, VKI_ACT_NONE);
    m->ops[0].opt.concat.axis = 4;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "axis 4 is out of range for rank 4");
}
