/* test_ops_spatial.c: MEAN, FULLY_CONNECTED, SOFTMAX, RESIZE_BILINEAR,
 * RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE, SPACE_TO_DEPTH, STRIDED_SLICE and SLICE on odd
 * shapes and channel counts, against the C references; and their validation messages.
 * Expected output shapes are written out by hand so that the ops' shape rules are
 * checked too. */
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int channels[] = {1, 3, 4, 5, 17};
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])
#define COUNT(a) (int)(sizeof(a) / sizeof((a)[0]))

/* Arithmetic ops: 1e-5 relative. Data movement: exact. */
#define TOL 1e-5
#define EXACT 0.0

static int tensor(vki_model *m, int rank, const int *shape) {
    int t = vki_model_add_tensor(m, "t", VKI_DTYPE_FLOAT32, rank, shape, NULL, 0);
    cr_assert(t >= 0);
    return t;
}

static int int_const(vki_model *m, const char *name, int count, const int32_t *data) {
    int shape[1] = {count};
    int t = vki_model_add_tensor(m, name, VKI_DTYPE_INT32, 1, shape, data,
                                 (size_t)count * sizeof(int32_t));
    cr_assert(t >= 0);
    return t;
}

/* Validation must fail with this status and a message containing `needle`. */
static void expect_invalid(vki_model *m, vki_status want, const char *needle) {
    vki_status s = vki_model_validate(m);
    cr_assert_eq(s, want, "status %s, want %s (%s)", vki_status_name(s), vki_status_name(want),
                 s ? vki_last_error() : "validated");
    cr_assert(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(),
              needle);
    vki_model_destroy(m);
}

/* ---- MEAN ------------------------------------------------------------------------------ */

static vki_model *mean_model(int h, int w, int c, bool keep, int n_axes, const int32_t *axes) {
    vki_model *m = vki_model_new("mean");
    int in_shape[4] = {1, h, w, c};
    int in = tensor(m, 4, in_shape);
    int ax = int_const(m, "axes", n_axes, axes);
    int keep_shape[4] = {1, 1, 1, c}, flat_shape[2] = {1, c};
    int out = keep ? tensor(m, 4, keep_shape) : tensor(m, 2, flat_shape);
    int ins[2] = {in, ax};
    vki_op *op = vki_model_add_op(m, VKI_OP_MEAN, 2, ins, 1, &out);
    op->opt.reduce.keep_dims = keep;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

Test(mean, spatial_keep_dims_both) {
    static const int32_t hw[2] = {1, 2};
    static const int sizes[][2] = {{7, 9}, {1, 1}, {5, 3}, {16, 16}, {1, 13}};
    for (int k = 0; k < COUNT(sizes); k++)
        for (int i = 0; i < N_CHANNELS; i++)
            for (int keep = 0; keep < 2; keep++)
                harness_check(mean_model(sizes[k][0], sizes[k][1], channels[i], keep, 2, hw),
                              3000u + (uint32_t)(k * 100 + i * 10 + keep), TOL);
}

Test(mean, axis_spellings_and_large_window) {
    static const int32_t swapped[2] = {2, 1}, negative[2] = {-3, -2}, repeated[3] = {1, 2, 1};
    harness_check(mean_model(7, 9, 5, true, 2, swapped), 31, TOL);
    harness_check(mean_model(7, 9, 17, false, 2, negative), 32, TOL);
    harness_check(mean_model(5, 3, 3, true, 3, repeated), 33, TOL);
    static const int32_t hw[2] = {1, 2};
    harness_check(mean_model(64, 48, 20, false, 2, hw), 34, TOL);
}

/* Window sizes (H*W = 1, 3, 63, 64, 65, 127, 4160, 4113) around the reduction's lane
 * count, 64 on GPUs and one SIMD vector (8 on lavapipe) on CPU devices: fewer cells than
 * lanes, a round short by one, exact or over by one, and thousands of cells. */
Test(mean, reduction_edges) {
    static const int32_t hw[2] = {1, 2};
    static const int sizes[][2] = {{1, 1}, {3, 1}, {9, 7}, {8, 8}, {13, 5}, {1, 127},
                                   {65, 64}, {457, 9}};
    for (int k = 0; k < COUNT(sizes); k++)
        for (int i = 0; i < N_CHANNELS; i++)
            for (int keep = 0; keep < 2; keep++)
                harness_check(mean_model(sizes[k][0], sizes[k][1], channels[i], keep, 2, hw),
                              3500u + (uint32_t)(k * 100 + i * 10 + keep), TOL);
}

Test(mean, invalid) {
    static const int32_t h_only[1] = {1}, hwc[3] = {1, 2, 3}, bad[2] = {1, 5}, hw[2] = {1, 2};
    expect_invalid(mean_model(7, 9, 3, true, 1, h_only), VKI_ERROR_UNSUPPORTED_MODEL,
                   "axes [1] are not supported, only the mean over H and W");
    expect_invalid(mean_model(7, 9, 3, false, 3, hwc), VKI_ERROR_UNSUPPORTED_MODEL, "axes [1,2,3]");
    expect_invalid(mean_model(7, 9, 3, false, 2, bad), VKI_ERROR_MODEL_FORMAT,
                   "axis 5 is out of range for rank 4");
    vki_model *m = mean_model(7, 9, 3, true, 2, hw);
    m->ops[0].opt.reduce.keep_dims = false;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,1,1,3], expected [1,3] with keep_dims false");
    m = mean_model(7, 9, 3, true, 2, hw);
    m->tensors[m->ops[0].inputs[1]].dtype = VKI_DTYPE_FLOAT32;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is not int32");
    m = mean_model(7, 9, 3, true, 2, hw);
    m->tensors[m->ops[0].inputs[0]].rank = 3;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "input has rank 3, only rank 4");
}

/* ---- FULLY_CONNECTED ------------------------------------------------------------------- */

static vki_model *fc_model(int rank, const int *in_shape, int n, int k, bool bias, bool keep,
                           vki_activation act) {
    vki_model *m = vki_model_new("fully_connected");
    int in = tensor(m, rank, in_shape);
    int wshape[2] = {n, k}, bshape[1] = {n};
    uint32_t seed = 7000u + (uint32_t)(n * 131 + k);
    int w = harness_const(m, 2, wshape, seed, -1.0f, 1.0f);
    int b = bias ? harness_const(m, 1, bshape, seed + 1, -1.0f, 1.0f) : -1;
    int out_shape[4] = {1, n}, out_rank = 2;
    if (keep) {
        out_rank = rank;
        memcpy(out_shape, in_shape, (size_t)rank * sizeof(int));
        out_shape[rank - 1] = n;
    }
    int out = tensor(m, out_rank, out_shape);
    int ins[3] = {in, w, b};
    /* Without a bias, alternate between the 2-input form and an omitted third input. */
    vki_op *op = vki_model_add_op(m, VKI_OP_FULLY_CONNECTED, bias || k % 2 ? 3 : 2, ins, 1, &out);
    op->opt.fully_connected.activation = act;
    op->opt.fully_connected.keep_num_dims = keep;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

static void check_fc(int rank, const int *in_shape, int n, int k, bool bias, bool keep,
                     vki_activation act) {
    harness_check(fc_model(rank, in_shape, n, k, bias, keep, act),
                  7100u + (uint32_t)(rank * 1000 + n * 37 + k), TOL);
}

Test(fully_connected, k_by_n_rank2) {
    static const int ks[] = {1, 3, 5, 17, 64}, ns[] = {1, 3, 5, 17};
    for (int a = 0; a < COUNT(ks); a++)
        for (int b = 0; b < COUNT(ns); b++) {
            int shape[2] = {1, ks[a]};
            check_fc(2, shape, ns[b], ks[a], (a + b) % 2 == 0, (a + b) % 3 == 0, VKI_ACT_NONE);
        }
}

Test(fully_connected, rank4_single_pixel_keep_both) {
    static const int ks[] = {1, 5, 17, 64}, ns[] = {3, 17};
    for (int a = 0; a < COUNT(ks); a++)
        for (int b = 0; b < COUNT(ns); b++)
            for (int keep = 0; keep < 2; keep++) {
                int shape[4] = {1, 1, 1, ks[a]};
                check_fc(4, shape, ns[b], ks[a], true, keep, VKI_ACT_NONE);
            }
}

Test(fully_connected, flatten_nhwc_order) {
    /* [1,H,W,C] with H*W > 1 flattens to K = H*W*C in dense NHWC order. */
    static const int shapes[][4] = {{1, 3, 5, 3}, {1, 7, 9, 1}, {1, 2, 3, 5}, {1, 5, 3, 17},
                                    {1, 2, 2, 4}, {1, 3, 1, 6}};
    static const int ns[] = {1, 3, 5, 17};
    for (int a = 0; a < COUNT(shapes); a++)
        for (int b = 0; b < COUNT(ns); b++) {
            const int *s = shapes[a];
            check_fc(4, s, ns[b], s[1] * s[2] * s[3], b % 2 == 0, false, VKI_ACT_NONE);
        }
    int r3[3] = {1, 4, 5};                          /* [N, W, C] */
    check_fc(3, r3, 7, 20, true, false, VKI_ACT_NONE);
}

Test(fully_connected, per_pixel_keep_num_dims) {
    /* keep_num_dims with last dimension K: one row per pixel, output [1,H,W,N]. */
    int a[4] = {1, 7, 9, 5};
    check_fc(4, a, 3, 5, true, true, VKI_ACT_NONE);
    int b[4] = {1, 5, 3, 17};
    check_fc(4, b, 17, 17, false, true, VKI_ACT_RELU);
    int c[3] = {1, 6, 4};
    check_fc(3, c, 5, 4, true, true, VKI_ACT_NONE);
    int d[4] = {1, 1, 3, 1};
    check_fc(4, d, 1, 1, true, true, VKI_ACT_NONE);
}

Test(fully_connected, activations_and_large) {
    int s[2] = {1, 17};
    check_fc(2, s, 5, 17, true, false, VKI_ACT_RELU);
    check_fc(2, s, 5, 17, true, false, VKI_ACT_RELU6);
    check_fc(2, s, 5, 17, true, false, VKI_ACT_RELU_N1_TO_1);
    check_fc(2, s, 5, 17, true, false, VKI_ACT_TANH);
    int big[2] = {1, 1024};
    check_fc(2, big, 1001, 1024, true, false, VKI_ACT_NONE);
    int img[4] = {1, 7, 7, 33};
    check_fc(4, img, 10, 7 * 7 * 33, true, false, VKI_ACT_RELU6);
}

Test(fully_connected, invalid) {
    int s[2] = {1, 6};
    vki_model *m = fc_model(2, s, 3, 6, true, false, VKI_ACT_NONE);
    int four[1] = {4};
    m->ops[0].inputs[2] = harness_const(m, 1, four, 5, -1.0f, 1.0f);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "bias has 4 elements but weights have 3 rows");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    m->tensors[m->ops[0].inputs[0]].shape[1] = 7;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                   "input [1,7] has 7 elements, not a multiple of K = 6");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[1] = 4;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,4], expected [1,3] for input [1,6]");

    int pixels[4] = {1, 2, 3, 6};
    m = fc_model(4, pixels, 3, 6, false, true, VKI_ACT_NONE);
    m->ops[0].opt.fully_connected.keep_num_dims = false;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "would be [6,3], batch > 1 is not supported");

    int img[4] = {1, 2, 3, 4};
    m = fc_model(4, img, 3, 24, false, false, VKI_ACT_NONE);
    m->ops[0].opt.fully_connected.keep_num_dims = true;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                   "keep_num_dims needs the last dimension to be K = 24");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    free(m->tensors[m->ops[0].inputs[1]].data);
    m->tensors[m->ops[0].inputs[1]].data = NULL;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "must be a constant");
}

/* ---- SOFTMAX --------------------------------------------------------------------------- */

static vki_model *softmax_model(int rank, const int *shape, float beta) {
    vki_model *m = vki_model_new("softmax");
    int in = tensor(m, rank, shape);
    int out = tensor(m, rank, shape);
    vki_op *op = vki_model_add_op(m, VKI_OP_SOFTMAX, 1, &in, 1, &out);
    op->opt.softmax.beta = beta;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

Test(softmax, ranks_and_channels) {
    static const float betas[] = {1.0f, 0.5f, 2.5f};
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        int r2[2] = {1, c}, r3[3] = {1, 5, c}, r4[4] = {1, 7, 9, c}, r1[1] = {c};
        float beta = betas[i % COUNT(betas)];
        harness_check(softmax_model(2, r2, beta), 8000u + (uint32_t)c, TOL);
        harness_check(softmax_model(3, r3, beta), 8100u + (uint32_t)c, TOL);
        harness_check(softmax_model(4, r4, beta), 8200u + (uint32_t)c, TOL);
        harness_check(softmax_model(1, r1, beta), 8300u + (uint32_t)c, TOL);
    }
    int wide[2] = {1, 1001};
    harness_check(softmax_model(2, wide, 1.0f), 8400, TOL);
}

Test(softmax, large_beta_is_stable) {
    /* exp(200 * x) overflows without subtracting the max first. */
    int r4[4] = {1, 3, 5, 17};
    harness_check(softmax_model(4, r4, 200.0f), 8500, TOL);
    int r2[2] = {1, 5};
    harness_check(softmax_model(2, r2, 100.0f), 8501, TOL);
}

Test(softmax, invalid) {
    int s[4] = {1, 3, 5, 7};
    vki_model *m = softmax_model(4, s, 1.0f);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 8;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                   "input is [1,3,5,7] but output tensor 1 is [1,3,5,8]");
    m = softmax_model(4, s, NAN);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is not finite");
}

/* ---- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR ---------------------------------------- */

static vki_model *resize_model(vki_op_code code, int h, int w, int c, int oh, int ow, bool align,
                               bool half) {
    vki_model *m =
        vki_model_new(code == VKI_OP_RESIZE_BILINEAR ? "resize_bilinear" : "resize_nearest");
    int in = harness_tensor(m, h, w, c);
    int32_t size[2] = {oh, ow};
    int st = int_const(m, "size", 2, size);
    int out = harness_tensor(m, oh, ow, c);
    int ins[2] = {in, st};
    vki_op *op = vki_model_add_op(m, code, 2, ins, 1, &out);
    op->opt.resize.align_corners = align;
    op->opt.resize.half_pixel_centers = half;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

/* (input HxW, output HxW): upscales, downscales, mixed, to and from 1x1, identity. */
static const int resize_sizes[][4] = {{4, 5, 8, 10}, {5, 3, 7, 9}, {3, 3, 10, 7}, {7, 9, 3, 4},
                                      {9, 7, 5, 3}, {16, 12, 5, 7}, {7, 9, 14, 4}, {1, 1, 3, 5},
                                      {5, 3, 1, 1}, {3, 3, 3, 3}, {2, 2, 1, 3}};
/* (align_corners, half_pixel_centers) */
static const bool resize_flags[][2] = {{false, false}, {true, false}, {false, true}};

static void check_resize(vki_op_code code, double tol) {
    for (int k = 0; k < COUNT(resize_sizes); k++)
        for (int f = 0; f < COUNT(resize_flags); f++)
            for (int i = 0; i < N_CHANNELS; i++) {
                const int *z = resize_sizes[k];
                harness_check(resize_model(code, z[0], z[1], channels[i], z[2], z[3],
                                           resize_flags[f][0], resize_flags[f][1]),
                              9000u + (uint32_t)(k * 100 + f * 10 + i), tol);
            }
}

Test(resize_bilinear, sizes_flags_channels) { check_resize(VKI_OP_RESIZE_BILINEAR, TOL); }

Test(resize_nearest, sizes_flags_channels) {
    check_resize(VKI_OP_RESIZE_NEAREST_NEIGHBOR, EXACT);
    /* TFLite's nearest kernel also takes both flags together. */
    for (int k = 0; k < COUNT(resize_sizes); k++) {
        const int *z = resize_sizes[k];
        harness_check(resize_model(VKI_OP_RESIZE_NEAREST_NEIGHBOR, z[0], z[1], 5, z[2], z[3], true,
                                   true), 9500u + (uint32_t)k, EXACT);
    }
}

Test(resize_bilinear, invalid) {
    vki_model *m = resize_model(VKI_OP_RESIZE_BILINEAR, 4, 5, 3, 8, 10, true, true);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "align_corners and half_pixel_centers are both set");
    m = resize_model(VKI_OP_RESIZE_BILINEAR, 4, 5, 3, 8, 10, false, false);
    m->tensors[m->ops[0].outputs[0]].shape[2] = 9;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [8,9,3], expected [8,10,3]");
    m = resize_model(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 4, 5, 3, 8, 10, false, false);
    m->tensors[m->ops[0].inputs[1]].shape[0] = 1;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must hold 2 values [height, width]");
    m = resize_model(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 4, 5, 3, 8, 10, false, false);
    ((int32_t *)m->tensors[m->ops[0].inputs[1]].data)[0] = 0;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "size [0,10] must be positive");
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH --------------------------------------------------- */

static vki_model *space_depth_model(vki_op_code code, int h, int w, int c, int bs) {
    vki_model *m =
        vki_model_new(code == VKI_OP_DEPTH_TO_SPACE ? "depth_to_space" : "space_to_depth");
    int in = harness_tensor(m, h, w, c);
    int out = code == VKI_OP_DEPTH_TO_SPACE ? harness_tensor(m, h * bs, w * bs, c / (bs * bs))
                                            : harness_tensor(m, h / bs, w / bs, c * bs * bs);
    vki_op *op = vki_model_add_op(m, code, 1, &in, 1, &out);
    op->opt.space_depth.block_size = bs;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

Test(depth_to_space, blocks_and_channels) {
    for (int bs = 2; bs <= 3; bs++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int c = channels[i] * bs * bs;
            harness_check(space_depth_model(VKI_OP_DEPTH_TO_SPACE, 3, 5, c, bs),
                          10000u + (uint32_t)(bs * 10 + i), EXACT);
            harness_check(space_depth_model(VKI_OP_DEPTH_TO_SPACE, 1, 1, c, bs),
                          10100u + (uint32_t)(bs * 10 + i), EXACT);
        }
    harness_check(space_depth_model(VKI_OP_DEPTH_TO_SPACE, 7, 9, 16 * 3, 4), 10200, EXACT);
}

Test(space_to_depth, blocks_and_channels) {
    for (int bs = 2; bs <= 3; bs++)
        for (int i = 0; i < N_CHANNELS; i++) {
            harness_check(space_depth_model(VKI_OP_SPACE_TO_DEPTH, 3 * bs, 5 * bs, channels[i], bs),
                          11000u + (uint32_t)(bs * 10 + i), EXACT);
            harness_check(space_depth_model(VKI_OP_SPACE_TO_DEPTH, bs, bs, channels[i], bs),
                          11100u + (uint32_t)(bs * 10 + i), EXACT);
        }
    harness_check(space_depth_model(VKI_OP_SPACE_TO_DEPTH, 8, 12, 5, 4), 11200, EXACT);
}

Test(space_depth, invalid) {
    vki_model *m = space_depth_model(VKI_OP_DEPTH_TO_SPACE, 3, 5, 8, 2);
    m->ops[0].opt.space_depth.block_size = 1;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "block_size 1 must be at least 2");
    m = space_depth_model(VKI_OP_DEPTH_TO_SPACE, 3, 5, 12, 2);
    m->tensors[m->ops[0].inputs[0]].shape[3] = 10;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                   "input depth 10 is not a multiple of block_size^2 = 4");
    m = space_depth_model(VKI_OP_SPACE_TO_DEPTH, 6, 4, 3, 2);
    m->tensors[m->ops[0].inputs[0]].shape[1] = 7;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input 7x4 (HxW) is not a multiple of block_size 2");
    m = space_depth_model(VKI_OP_SPACE_TO_DEPTH, 6, 4, 3, 2);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 13;
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [3,2,13], expected [3,2,12]");
}

/* ---- STRIDED_SLICE / SLICE ------------------------------------------------------------- */

typedef struct ss_case {
    int rank;
    int32_t begin[4], end[4], strides[4];
    int begin_mask, end_mask, shrink_mask;
    bool offset;
    int out_rank, out[4];       /* expected, written by hand */
} ss_case;

static vki_model *ss_model(const int *in_shape, const ss_case *k) {
    vki_model *m = vki_model_new("strided_slice");
    int in = tensor(m, k->rank, in_shape);
    int b = int_const(m, "begin", k->rank, k->begin);
    int e = int_const(m, "end", k->rank, k->end);
    int s = int_const(m, "strides", k->rank, k->strides);
    int out = tensor(m, k->out_rank, k->out);
    int ins[4] = {in, b, e, s};
    vki_op *op = vki_model_add_op(m, VKI_OP_STRIDED_SLICE, 4, ins, 1, &out);
    op->opt.strided_slice.begin_mask = k->begin_mask;
    op->opt.strided_slice.end_mask = k->end_mask;
    op->opt.strided_slice.shrink_axis_mask = k->shrink_mask;
    op->opt.strided_slice.offset = k->offset;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

/* Cases on a [1,7,9,C] input; C is filled in where a case says CC. */
#define CC -1000
static const ss_case ss_cases[] = {
    /* strides 2 on odd H and W */
    {4, {0, 0, 0, 0}, {1, 7, 9, CC}, {1, 2, 2, 1}, 0, 0, 0, false, 4, {1, 4, 5, CC}},
    /* negative begins */
    {4, {0, -3, -5, 0}, {1, 7, 9, CC}, {1, 1, 1, 1}, 0, 0, 0, false, 4, {1, 3, 5, CC}},
    /* begin_mask on N, H, C; end_mask on N, W, C; begin/end values under a mask ignored */
    {4, {0, 99, 2, 5}, {0, 3, 99, 0}, {1, 1, 3, 1}, 0xb, 0xd, 0, false, 4, {1, 3, 3, CC}},
    /* ends past the input clamp; negative end */
    {4, {0, 1, 2, 0}, {1, 100, -2, 100}, {1, 3, 2, 1}, 0, 0, 0, false, 4, {1, 2, 3, CC}},
    /* shrink H: [1,9,C] */
    {4, {0, 3, 0, 0}, {1, 4, 9, CC}, {1, 1, 1, 1}, 0, 0, 0x2, false, 3, {1, 9, CC}},
    /* shrink H (negative index) and W: [1,C] */
    {4, {0, -1, 4, 0}, {1, 0, 5, CC}, {1, 1, 1, 1}, 0, 0, 0x6, false, 2, {1, CC}},
    /* negative strides: H reversed whole, W every other from the end, C reversed */
    {4, {0, -1, -1, -1}, {1, 0, 0, 0}, {1, -1, -2, -1}, 0, 0xa, 0, false, 4, {1, 7, 4, CC}},
    /* offset: end is a size from begin */
    {4, {0, 2, 1, 0}, {1, 3, 4, CC}, {1, 1, 1, 1}, 0, 0, 0, true, 4, {1, 3, 4, CC}},
    /* negative strides from explicit begins to negative ends: rows 6,3,0, columns 8,4,0 */
    {4, {0, 6, 8, 0}, {1, -8, -10, CC}, {1, -3, -4, 1}, 0, 0, 0, false, 4, {1, 3, 3, CC}},
};
#define N_SS_CASES COUNT(ss_cases)

static ss_case with_channels(ss_case k, int c) {
    for (int i = 0; i < 4; i++) {
        if (k.end[i] == CC) k.end[i] = c;
        if (k.out[i] == CC) k.out[i] = c;
    }
    return k;
}

Test(strided_slice, cases_on_odd_input) {
    int shape[4] = {1, 7, 9, 0};
    for (int j = 0; j < N_SS_CASES; j++)
        for (int i = 0; i < N_CHANNELS; i++) {
            shape[3] = channels[i];
            ss_case k = with_channels(ss_cases[j], channels[i]);
            harness_check(ss_model(shape, &k), 12000u + (uint32_t)(j * 10 + i), EXACT);
        }
}

Test(strided_slice, channel_slicing) {
    int shape[4] = {1, 7, 9, 17};
    /* strided channels from 1: 1,4,...,16 */
    ss_case a = {4, {0, 0, 0, 1}, {1, 7, 9, 17}, {1, 1, 1, 3}, 0, 0, 0, false, 4, {1, 7, 9, 6}};
    harness_check(ss_model(shape, &a), 12500, EXACT);
    /* a start that is not a multiple of 4, on every axis */
    ss_case b = {4, {0, 1, 2, 5}, {1, 6, 8, 16}, {1, 2, 3, 2}, 0, 0, 0, false, 4, {1, 3, 2, 6}};
    harness_check(ss_model(shape, &b), 12501, EXACT);
    /* shrink C: [1,7,9] is seen as W=7, C=9, so output axes read other input axes */
    ss_case c = {4, {0, 0, 0, 2}, {1, 7, 9, 3}, {1, 1, 1, 1}, 0, 0, 0x8, false, 3, {1, 7, 9}};
    harness_check(ss_model(shape, &c), 12502, EXACT);
    /* shrink W and stride on H and C: [1,4,6] -> W=4, C=6 */
    ss_case d = {4, {0, 0, 5, 0}, {1, 7, 6, 17}, {1, 2, 1, 3}, 0, 0, 0x4, false, 3, {1, 4, 6}};
    harness_check(ss_model(shape, &d), 12503, EXACT);
    /* shrink N, H and W: one pixel as a rank-1 [17] */
    ss_case e = {4, {0, 2, 4, 0}, {1, 3, 5, 17}, {1, 1, 1, 1}, 0, 0, 0x7, false, 1, {17}};
    harness_check(ss_model(shape, &e), 12504, EXACT);
    /* shrink N of [1,1,9,17]: [1,9,17], whose batch axis reads the input's H */
    int flat[4] = {1, 1, 9, 17};
    ss_case f = {4, {0, 0, 1, 2}, {1, 1, 9, 17}, {1, 1, 2, 1}, 0, 0, 0x1, false, 3, {1, 4, 15}};
    harness_check(ss_model(flat, &f), 12505, EXACT);
}

Test(strided_slice, lower_ranks) {
    int r3[3] = {1, 9, 5};                         /* [N, W, C] */
    ss_case a = {3, {0, 1, 0}, {1, 9, 5}, {1, 2, 1}, 0, 0, 0, false, 3, {1, 4, 5}};
    harness_check(ss_model(r3, &a), 12600, EXACT);
    int r2[2] = {1, 17};
    ss_case b = {2, {0, 3}, {1, -2}, {1, 1}, 0, 0, 0, false, 2, {1, 12}};
    harness_check(ss_model(r2, &b), 12601, EXACT);
    int r1[1] = {17};
    ss_case c = {1, {2}, {15}, {4}, 0, 0, 0, false, 1, {4}};
    harness_check(ss_model(r1, &c), 12602, EXACT);
    ss_case d = {1, {-1}, {0}, {-3}, 0, 1, 0, false, 1, {6}};
    harness_check(ss_model(r1, &d), 12603, EXACT);
    int odd[4] = {1, 5, 3, 3};
    ss_case e = {4, {0, 0, 0, 0}, {1, 5, 3, 3}, {1, 2, 2, 2}, 0, 0, 0, false, 4, {1, 3, 2, 2}};
    harness_check(ss_model(odd, &e), 12604, EXACT);
}

Test(strided_slice, invalid) {
    int shape[4] = {1, 7, 9, 3};
    ss_case k = with_channels(ss_cases[0], 3);
    vki_model *m = ss_model(shape, &k);
    m->ops[0].opt.strided_slice.ellipsis_mask = 2;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL,
                   "ellipsis_mask 2 and new_axis_mask 0 are not supported");
    m = ss_model(shape, &k);
    m->ops[0].opt.strided_slice.new_axis_mask = 1;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "new_axis_mask 1 are not supported");

    ss_case z = k;
    z.strides[2] = 0;
    expect_invalid(ss_model(shape, &z), VKI_ERROR_MODEL_FORMAT, "stride of dimension 2 is 0");

    ss_case wrong = k;
    wrong.out[2] = 4;
    expect_invalid(ss_model(shape, &wrong), VKI_ERROR_MODEL_FORMAT,
                   "is [1,4,4,3], expected [1,4,5,3]");

    ss_case shrink = {4, {0, 7, 0, 0}, {1, 8, 9, 3}, {1, 1, 1, 1}, 0, 0, 0x2, false, 3, {1, 9, 3}};
    expect_invalid(ss_model(shape, &shrink), VKI_ERROR_MODEL_FORMAT,
                   "shrink_axis_mask keeps index 7 of dimension 1, which has size 7");

    ss_case below = {4, {0, 0, -8, 0}, {1, 7, 0, 3}, {1, 1, 1, 1}, 0, 0, 0x4, false, 3, {1, 7, 3}};
    shape[2] = 7;
    expect_invalid(ss_model(shape, &below), VKI_ERROR_MODEL_FORMAT,
                   "shrink_axis_mask keeps index -8 of dimension 2, which has size 7");
    shape[2] = 9;

    ss_case empty = {4, {0, 5, 0, 0}, {1, 2, 9, 3}, {1, 1, 1, 1}, 0, 0, 0, false, 4, {1, 1, 9, 3}};
    expect_invalid(ss_model(shape, &empty), VKI_ERROR_UNSUPPORTED_MODEL,
                   "selects no elements along dimension 1");

    m = ss_model(shape, &k);
    m->tensors[m->ops[0].inputs[2]].shape[0] = 3;
    char want[128];
    snprintf(want, sizeof want, "end tensor %d 'end' has shape [3], need [4] for the rank-4 input",
             m->ops[0].inputs[2]);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);

    m = ss_model(shape, &k);
    m->tensors[m->ops[0].inputs[1]].dtype = VKI_DTYPE_INT64;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is int64, only int32 is supported");

    m = ss_model(shape, &k);
    free(m->tensors[m->ops[0].inputs[3]].data);
    m->tensors[m->ops[0].inputs[3]].data = NULL;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "strides tensor");
}

Test(strided_slice, whole_input_aliases) {
    int shape[4] = {1, 7, 9, 5};
    ss_case k = {4, {0, 0, 0, 0}, {1, 7, 9, 5}, {1, 1, 1, 1}, 0, 0xf, 0, false, 4, {1, 7, 9, 5}};
    vki_model *m = ss_model(shape, &k);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "validate: %s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "graph: %s",
                 vki_last_error());
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    cr_assert_eq(n, 2, "%d dispatches, want only the two I/O conversions", n);
    harness_check(m, 12700, EXACT);
}

static vki_model *slice_model(int rank, const int *in_shape, const int32_t *begin,
                              const int32_t *size, const int *out_shape) {
    vki_model *m = vki_model_new("slice");
    int in = tensor(m, rank, in_shape);
    int b = int_const(m, "begin", rank, begin);
    int s = int_const(m, "size", rank, size);
    int out = tensor(m, rank, out_shape);
    int ins[3] = {in, b, s};
    vki_model_add_op(m, VKI_OP_SLICE, 3, ins, 1, &out);
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

Test(slice, sizes_and_to_the_end) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        int in[4] = {1, 7, 9, c};
        int32_t b[4] = {0, 1, 2, c > 1 ? 1 : 0}, z[4] = {1, -1, 3, -1};
        int out[4] = {1, 6, 3, c > 1 ? c - 1 : c};
        harness_check(slice_model(4, in, b, z, out), 13000u + (uint32_t)c, EXACT);
        int32_t b2[4] = {0, 6, 0, 0}, z2[4] = {-1, 1, 9, c};
        int out2[4] = {1, 1, 9, c};
        harness_check(slice_model(4, in, b2, z2, out2), 13100u + (uint32_t)c, EXACT);
    }
    int in[4] = {1, 5, 3, 17};
    int32_t b[4] = {0, 2, 1, 5}, z[4] = {1, 3, 2, 9};
    int out[4] = {1, 3, 2, 9};
    harness_check(slice_model(4, in, b, z, out), 13200, EXACT);
    int r2[2] = {1, 17};
    int32_t b2[2] = {0, 6}, z2[2] = {-1, -1};
    int o2[2] = {1, 11};
    harness_check(slice_model(2, r2, b2, z2, o2), 13201, EXACT);
    int r3[3] = {1, 9, 6};
    int32_t b3[3] = {0, 3, 3}, z3[3] = {1, 5, 3};
    int o3[3] = {1, 5, 3};
    harness_check(slice_model(3, r3, b3, z3, o3), 13202, EXACT);
}

Test(slice, invalid) {
    int in[4] = {1, 7, 9, 5};
    int32_t b[4] = {0, 1, 2, 0}, z[4] = {1, 7, 3, 5};
    int out[4] = {1, 7, 3, 5};
    expect_invalid(slice_model(4, in, b, z, out), VKI_ERROR_MODEL_FORMAT,
                   "size 7 of dimension 1 does not fit: begin 1, dimension 7");
    int32_t nb[4] = {0, -1, 0, 0}, nz[4] = {1, 1, 9, 5};
    int nout[4] = {1, 1, 9, 5};
    expect_invalid(slice_model(4, in, nb, nz, nout), VKI_ERROR_MODEL_FORMAT,
                   "begin -1 of dimension 1 is outside [0,7]");
    int32_t sb[4] = {0, 0, 0, 0}, sz[4] = {1, 7, 9, -2};
    expect_invalid(slice_model(4, in, sb, sz, in), VKI_ERROR_MODEL_FORMAT,
                   "size -2 of dimension 3");
    int32_t ob[4] = {0, 0, 0, 0}, oz[4] = {1, 3, -1, -1};
    int oout[4] = {1, 3, 8, 5};
    expect_invalid(slice_model(4, in, ob, oz, oout), VKI_ERROR_MODEL_FORMAT,
                   "is [1,3,8,5], expected [1,3,9,5]");
}

/* ---- ops feeding each other ------------------------------------------------------------ */

/* A classifier head: MEAN -> FULLY_CONNECTED -> SOFTMAX, each reading the previous op's
 * PHWC4 output (padded lanes included). */
Test(spatial_chain, classifier_head) {
    vki_model *m = vki_model_new("head");
    int s4[4] = {1, 7, 9, 21}, sm[2] = {1, 21}, so[2] = {1, 10}, ws[2] = {10, 21}, bs[1] = {10};
    int in = tensor(m, 4, s4);
    int32_t hw[2] = {1, 2};
    int ax = int_const(m, "axes", 2, hw);
    int mean = tensor(m, 2, sm);
    int w = harness_const(m, 2, ws, 5, -1.0f, 1.0f);
    int b = harness_const(m, 1, bs, 6, -1.0f, 1.0f);
    int logits = tensor(m, 2, so), probs = tensor(m, 2, so);
    int mi[2] = {in, ax};
    vki_model_add_op(m, VKI_OP_MEAN, 2, mi, 1, &mean);
    int fi[3] = {mean, w, b};
    vki_model_add_op(m, VKI_OP_FULLY_CONNECTED, 3, fi, 1, &logits)->opt.fully_connected.activation =
        VKI_ACT_NONE;
    vki_model_add_op(m, VKI_OP_SOFTMAX, 1, &logits, 1, &probs)->opt.softmax.beta = 1.0f;
    vki_model_set_io(m, 1, &in, 1, &probs);
    harness_check(m, 14000, TOL);
}

/* An upsampling path: SPACE_TO_DEPTH -> RESIZE_BILINEAR -> STRIDED_SLICE -> DEPTH_TO_SPACE. */
Test(spatial_chain, resample_path) {
    vki_model *m = vki_model_new("resample");
    int a[4] = {1, 6, 10, 3}, b[4] = {1, 3, 5, 12}, c[4] = {1, 6, 10, 12}, d[4] = {1, 5, 9, 12},
        e[4] = {1, 10, 18, 3};
    int ta = tensor(m, 4, a), tb = tensor(m, 4, b), tc = tensor(m, 4, c), td = tensor(m, 4, d),
        te = tensor(m, 4, e);
    vki_model_add_op(m, VKI_OP_SPACE_TO_DEPTH, 1, &ta, 1, &tb)->opt.space_depth.block_size = 2;
    int32_t size[2] = {6, 10};
    int ri[2] = {tb, int_const(m, "size", 2, size)};
    vki_op *resize = vki_model_add_op(m, VKI_OP_RESIZE_BILINEAR, 2, ri, 1, &tc);
    resize->opt.resize.half_pixel_centers = true;
    int32_t begin[4] = {0, 1, 1, 0}, end[4] = {1, 6, 10, 12}, strides[4] = {1, 1, 1, 1};
    int si[4] = {tc, int_const(m, "begin", 4, begin), int_const(m, "end", 4, end),
                 int_const(m, "strides", 4, strides)};
    vki_model_add_op(m, VKI_OP_STRIDED_SLICE, 4, si, 1, &td);
    vki_model_add_op(m, VKI_OP_DEPTH_TO_SPACE, 1, &td, 1, &te)->opt.space_depth.block_size = 2;
    vki_model_set_io(m, 1, &ta, 1, &te);
    harness_check(m, 14001, TOL);
}
