/* cases_spatial.c: MEAN, FULLY_CONNECTED, SOFTMAX, RESIZE_BILINEAR,
 * RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE, SPACE_TO_DEPTH, STRIDED_SLICE and SLICE on odd
 * shapes and channel counts, and two chains of them. */
#include "op_cases_spatial.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

#define COUNT(a) (int)(sizeof(a) / sizeof((a)[0]))

/* Arithmetic ops: 1e-5 relative. Data movement: exact. */
#define TOL 1e-5
#define EXACT 0.0

/* Appends " [a,b,c]" of n int32 values. */
static size_t ints(char *buf, size_t size, size_t len, int n, const int32_t *v) {
    int dims[8];
    for (int i = 0; i < n && i < 8; i++) dims[i] = (int)v[i];
    len += (size_t)snprintf(buf + len, size - len, " ");
    op_case_shape(buf, size, &len, n, dims);
    return len;
}

/* ---- MEAN ------------------------------------------------------------------------------ */

vki_model *mean_model(int h, int w, int c, bool keep, int n_axes, const int32_t *axes) {
    vki_model *m = vki_model_new("mean");
    int in_shape[4] = {1, h, w, c};
    int in = harness_tensor_nd(m, 4, in_shape);
    int ax = harness_int_vector(m, "axes", n_axes, axes);
    int keep_shape[4] = {1, 1, 1, c}, flat_shape[2] = {1, c};
    int out = keep ? harness_tensor_nd(m, 4, keep_shape) : harness_tensor_nd(m, 2, flat_shape);
    int ins[2] = {in, ax};
    harness_op(m, VKI_OP_MEAN, 2, ins, out)->opt.reduce.keep_dims = keep;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct mean_params {
    int h, w, c;
    bool keep;
    int n_axes;
    int32_t axes[4];
} mean_params;

static vki_model *build_mean(const op_case *oc) {
    const mean_params *p = OP_CASE_PARAMS(oc, const mean_params);
    return mean_model(p->h, p->w, p->c, p->keep, p->n_axes, p->axes);
}

static void mean(op_case_list *l, int h, int w, int c, bool keep, int n_axes,
                 const int32_t *axes, uint32_t seed) {
    op_case *oc = op_case_add(l, VKI_OP_MEAN, build_mean, seed, TOL);
    mean_params p = {h, w, c, keep, n_axes, {0}};
    memcpy(p.axes, axes, (size_t)n_axes * sizeof(int32_t));
    OP_CASE_SET_PARAMS(oc, mean_params, p);
    char buf[48];
    ints(buf, sizeof buf, 0, n_axes, axes);
    op_case_label(oc, "MEAN [1,%d,%d,%d] axes%s%s", h, w, c, buf, keep ? " keep_dims" : "");
}

void op_cases_mean__spatial_keep_dims_both(op_case_list *l) {
    static const int32_t hw[2] = {1, 2};
    static const int sizes[][2] = {{7, 9}, {1, 1}, {5, 3}, {16, 16}, {1, 13}};
    for (int k = 0; k < COUNT(sizes); k++)
        for (int i = 0; i < N_CHANNELS; i++)
            for (int keep = 0; keep < 2; keep++)
                mean(l, sizes[k][0], sizes[k][1], channels[i], keep, 2, hw,
                     3000u + (uint32_t)(k * 100 + i * 10 + keep));
}

void op_cases_mean__axis_spellings_and_large_window(op_case_list *l) {
    static const int32_t swapped[2] = {2, 1}, negative[2] = {-3, -2}, repeated[3] = {1, 2, 1};
    mean(l, 7, 9, 5, true, 2, swapped, 31);
    mean(l, 7, 9, 17, false, 2, negative, 32);
    mean(l, 5, 3, 3, true, 3, repeated, 33);
    static const int32_t hw[2] = {1, 2};
    mean(l, 64, 48, 20, false, 2, hw, 34);
}

/* Window sizes (H*W = 1, 3, 63, 64, 65, 127, 4160, 4113) around the reduction's lane
 * count, 64 on GPUs and one SIMD vector (8 on lavapipe) on CPU devices: fewer cells than
 * lanes, a round short by one, exact or over by one, and thousands of cells. */
void op_cases_mean__reduction_edges(op_case_list *l) {
    static const int32_t hw[2] = {1, 2};
    static const int sizes[][2] = {{1, 1}, {3, 1}, {9, 7}, {8, 8}, {13, 5}, {1, 127},
                                   {65, 64}, {457, 9}};
    for (int k = 0; k < COUNT(sizes); k++)
        for (int i = 0; i < N_CHANNELS; i++)
            for (int keep = 0; keep < 2; keep++)
                mean(l, sizes[k][0], sizes[k][1], channels[i], keep, 2, hw,
                     3500u + (uint32_t)(k * 100 + i * 10 + keep));
}

/* ---- FULLY_CONNECTED ------------------------------------------------------------------- */

vki_model *fc_model(int rank, const int *in_shape, int n, int k, bool bias, bool keep,
                    vki_activation act) {
    vki_model *m = vki_model_new("fully_connected");
    int in = harness_tensor_nd(m, rank, in_shape);
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
    int out = harness_tensor_nd(m, out_rank, out_shape);
    int ins[3] = {in, w, b};
    /* Without a bias, alternate between the 2-input form and an omitted third input. */
    vki_op *op = harness_op(m, VKI_OP_FULLY_CONNECTED, bias || k % 2 ? 3 : 2, ins, out);
    op->opt.fully_connected.activation = act;
    op->opt.fully_connected.keep_num_dims = keep;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct fc_params {
    int rank, in_shape[4], n, k;
    bool bias, keep;
    vki_activation act;
} fc_params;

static vki_model *build_fc(const op_case *oc) {
    const fc_params *p = OP_CASE_PARAMS(oc, const fc_params);
    return fc_model(p->rank, p->in_shape, p->n, p->k, p->bias, p->keep, p->act);
}

static op_case *fc(op_case_list *l, int rank, const int *in_shape, int n, int k, bool bias,
                   bool keep, vki_activation act) {
    uint32_t seed = 7100u + (uint32_t)(rank * 1000 + n * 37 + k);
    op_case *oc = op_case_add(l, VKI_OP_FULLY_CONNECTED, build_fc, seed, TOL);
    fc_params p = {.rank = rank, .n = n, .k = k, .bias = bias, .keep = keep, .act = act};
    memcpy(p.in_shape, in_shape, (size_t)rank * sizeof(int));
    OP_CASE_SET_PARAMS(oc, fc_params, p);
    char buf[48];
    size_t len = 0;
    op_case_shape(buf, sizeof buf, &len, rank, in_shape);
    op_case_label(oc, "FULLY_CONNECTED %s by %dx%d %s%s%s%s", buf, n, k,
                  bias ? "bias" : k % 2 ? "bias omitted" : "no bias", keep ? " keep_num_dims" : "",
                  act ? " " : "", op_case_activation(act));
    return oc;
}

void op_cases_fully_connected__k_by_n_rank2(op_case_list *l) {
    static const int ks[] = {1, 3, 5, 17, 64}, ns[] = {1, 3, 5, 17};
    for (int a = 0; a < COUNT(ks); a++)
        for (int b = 0; b < COUNT(ns); b++) {
            int shape[2] = {1, ks[a]};
            fc(l, 2, shape, ns[b], ks[a], (a + b) % 2 == 0, (a + b) % 3 == 0, VKI_ACT_NONE);
        }
}

void op_cases_fully_connected__rank4_single_pixel_keep_both(op_case_list *l) {
    static const int ks[] = {1, 5, 17, 64}, ns[] = {3, 17};
    for (int a = 0; a < COUNT(ks); a++)
        for (int b = 0; b < COUNT(ns); b++)
            for (int keep = 0; keep < 2; keep++) {
                int shape[4] = {1, 1, 1, ks[a]};
                fc(l, 4, shape, ns[b], ks[a], true, keep, VKI_ACT_NONE);
            }
}

void op_cases_fully_connected__flatten_nhwc_order(op_case_list *l) {
    /* [1,H,W,C] with H*W > 1 flattens to K = H*W*C in dense NHWC order. */
    static const int shapes[][4] = {{1, 3, 5, 3}, {1, 7, 9, 1}, {1, 2, 3, 5}, {1, 5, 3, 17},
                                    {1, 2, 2, 4}, {1, 3, 1, 6}};
    static const int ns[] = {1, 3, 5, 17};
    for (int a = 0; a < COUNT(shapes); a++)
        for (int b = 0; b < COUNT(ns); b++) {
            const int *s = shapes[a];
            fc(l, 4, s, ns[b], s[1] * s[2] * s[3], b % 2 == 0, false, VKI_ACT_NONE);
        }
    int r3[3] = {1, 4, 5};                          /* [N, W, C] */
    fc(l, 3, r3, 7, 20, true, false, VKI_ACT_NONE);
}

void op_cases_fully_connected__per_pixel_keep_num_dims(op_case_list *l) {
    /* keep_num_dims with last dimension K: one row per pixel, output [1,H,W,N]. */
    int a[4] = {1, 7, 9, 5};
    fc(l, 4, a, 3, 5, true, true, VKI_ACT_NONE);
    int b[4] = {1, 5, 3, 17};
    fc(l, 4, b, 17, 17, false, true, VKI_ACT_RELU);
    int c[3] = {1, 6, 4};
    fc(l, 3, c, 5, 4, true, true, VKI_ACT_NONE);
    int d[4] = {1, 1, 3, 1};
    fc(l, 4, d, 1, 1, true, true, VKI_ACT_NONE);
}

void op_cases_fully_connected__activations_and_large(op_case_list *l) {
    int s[2] = {1, 17};
    fc(l, 2, s, 5, 17, true, false, VKI_ACT_RELU);
    fc(l, 2, s, 5, 17, true, false, VKI_ACT_RELU6);
    fc(l, 2, s, 5, 17, true, false, VKI_ACT_RELU_N1_TO_1);
    fc(l, 2, s, 5, 17, true, false, VKI_ACT_TANH);
    int big[2] = {1, 1024};
    fc(l, 2, big, 1001, 1024, true, false, VKI_ACT_NONE);
    int img[4] = {1, 7, 7, 33};
    fc(l, 4, img, 10, 7 * 7 * 33, true, false, VKI_ACT_RELU6);
}

void op_cases_fully_connected__split_lanes(op_case_list *l) {
    /* The one-row form's sums split over a work group's lanes (VKI_FC_SPLIT, the GPU's
     * default): fewer input vec4s than lanes, a ragged last round, exact rounds, and a
     * landmark head's 1152 inputs to 1 and 63 outputs. */
    static const struct { int k, n; const char *split; } c[] = {
        {5, 3, "4"}, {17, 5, "2"}, {17, 17, "4"}, {64, 1, "16"}, {33, 5, "8"},
        {1152, 1, "64"}, {1152, 63, "64"}, {1152, 63, "256"},
    };
    for (int i = 0; i < COUNT(c); i++) {
        int shape[4] = {1, 1, 1, c[i].k};
        op_case *oc = fc(l, i % 2 ? 4 : 2, i % 2 ? shape : shape + 2, c[i].n, c[i].k, i % 3 != 0,
                         false, i == 2 ? VKI_ACT_RELU6 : VKI_ACT_NONE);
        oc->env_name = "VKI_FC_SPLIT";
        oc->env_value = c[i].split;
        size_t len = strlen(oc->label);
        snprintf(oc->label + len, sizeof oc->label - len, " split %s", c[i].split);
    }
}

/* ---- SOFTMAX --------------------------------------------------------------------------- */

vki_model *softmax_model(int rank, const int *shape, float beta) {
    vki_model *m = vki_model_new("softmax");
    int in = harness_tensor_nd(m, rank, shape);
    int out = harness_tensor_nd(m, rank, shape);
    harness_op(m, VKI_OP_SOFTMAX, 1, &in, out)->opt.softmax.beta = beta;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct softmax_params {
    int rank, shape[4];
    float beta;
} softmax_params;

static vki_model *build_softmax(const op_case *oc) {
    const softmax_params *p = OP_CASE_PARAMS(oc, const softmax_params);
    return softmax_model(p->rank, p->shape, p->beta);
}

static void softmax(op_case_list *l, int rank, const int *shape, float beta, uint32_t seed) {
    op_case *oc = op_case_add(l, VKI_OP_SOFTMAX, build_softmax, seed, TOL);
    softmax_params p = {.rank = rank, .beta = beta};
    memcpy(p.shape, shape, (size_t)rank * sizeof(int));
    OP_CASE_SET_PARAMS(oc, softmax_params, p);
    char buf[48];
    size_t len = 0;
    op_case_shape(buf, sizeof buf, &len, rank, shape);
    op_case_label(oc, "SOFTMAX %s beta %g", buf, (double)beta);
}

void op_cases_softmax__ranks_and_channels(op_case_list *l) {
    static const float betas[] = {1.0f, 0.5f, 2.5f};
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        int r2[2] = {1, c}, r3[3] = {1, 5, c}, r4[4] = {1, 7, 9, c}, r1[1] = {c};
        float beta = betas[i % COUNT(betas)];
        softmax(l, 2, r2, beta, 8000u + (uint32_t)c);
        softmax(l, 3, r3, beta, 8100u + (uint32_t)c);
        softmax(l, 4, r4, beta, 8200u + (uint32_t)c);
        softmax(l, 1, r1, beta, 8300u + (uint32_t)c);
    }
    int wide[2] = {1, 1001};
    softmax(l, 2, wide, 1.0f, 8400);
}

void op_cases_softmax__large_beta_is_stable(op_case_list *l) {
    /* exp(200 * x) overflows without subtracting the max first. */
    int r4[4] = {1, 3, 5, 17};
    softmax(l, 4, r4, 200.0f, 8500);
    int r2[2] = {1, 5};
    softmax(l, 2, r2, 100.0f, 8501);
}

/* ---- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR ---------------------------------------- */

vki_model *resize_model(vki_op_code code, int h, int w, int c, int oh, int ow, bool align,
                        bool half) {
    vki_model *m =
        vki_model_new(code == VKI_OP_RESIZE_BILINEAR ? "resize_bilinear" : "resize_nearest");
    int in = harness_tensor(m, h, w, c);
    int32_t size[2] = {oh, ow};
    int st = harness_int_vector(m, "size", 2, size);
    int out = harness_tensor(m, oh, ow, c);
    int ins[2] = {in, st};
    vki_op *op = harness_op(m, code, 2, ins, out);
    op->opt.resize.align_corners = align;
    op->opt.resize.half_pixel_centers = half;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct resize_params {
    int h, w, c, oh, ow;
    bool align, half;
} resize_params;

static vki_model *build_resize(const op_case *oc) {
    const resize_params *p = OP_CASE_PARAMS(oc, const resize_params);
    return resize_model(oc->op, p->h, p->w, p->c, p->oh, p->ow, p->align, p->half);
}

static void resize(op_case_list *l, vki_op_code code, const int *z, int c, bool align, bool half,
                   uint32_t seed, double tol) {
    op_case *oc = op_case_add(l, code, build_resize, seed, tol);
    OP_CASE_SET_PARAMS(oc, resize_params, ((resize_params){z[0], z[1], c, z[2], z[3], align, half}));
    op_case_label(oc, "%s %dx%d->%dx%d C=%d%s%s", vki_op_name((int)code), z[0], z[1], z[2], z[3],
                  c, align ? " align_corners" : "", half ? " half_pixel_centers" : "");
}

/* (input HxW, output HxW): upscales, downscales, mixed, to and from 1x1, identity. */
static const int resize_sizes[][4] = {{4, 5, 8, 10}, {5, 3, 7, 9}, {3, 3, 10, 7}, {7, 9, 3, 4},
                                      {9, 7, 5, 3}, {16, 12, 5, 7}, {7, 9, 14, 4}, {1, 1, 3, 5},
                                      {5, 3, 1, 1}, {3, 3, 3, 3}, {2, 2, 1, 3}};
/* (align_corners, half_pixel_centers) */
static const bool resize_flags[][2] = {{false, false}, {true, false}, {false, true}};

static void resize_all(op_case_list *l, vki_op_code code, double tol) {
    for (int k = 0; k < COUNT(resize_sizes); k++)
        for (int f = 0; f < COUNT(resize_flags); f++)
            for (int i = 0; i < N_CHANNELS; i++)
                resize(l, code, resize_sizes[k], channels[i], resize_flags[f][0], resize_flags[f][1],
                       9000u + (uint32_t)(k * 100 + f * 10 + i), tol);
}

void op_cases_resize_bilinear__sizes_flags_channels(op_case_list *l) {
    resize_all(l, VKI_OP_RESIZE_BILINEAR, TOL);
}

void op_cases_resize_nearest__sizes_flags_channels(op_case_list *l) {
    resize_all(l, VKI_OP_RESIZE_NEAREST_NEIGHBOR, EXACT);
    /* TFLite's nearest kernel also takes both flags together. */
    for (int k = 0; k < COUNT(resize_sizes); k++)
        resize(l, VKI_OP_RESIZE_NEAREST_NEIGHBOR, resize_sizes[k], 5, true, true,
               9500u + (uint32_t)k, EXACT);
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH --------------------------------------------------- */

vki_model *space_depth_model(vki_op_code code, int h, int w, int c, int bs) {
    vki_model *m =
        vki_model_new(code == VKI_OP_DEPTH_TO_SPACE ? "depth_to_space" : "space_to_depth");
    int in = harness_tensor(m, h, w, c);
    int out = code == VKI_OP_DEPTH_TO_SPACE ? harness_tensor(m, h * bs, w * bs, c / (bs * bs))
                                            : harness_tensor(m, h / bs, w / bs, c * bs * bs);
    harness_op(m, code, 1, &in, out)->opt.space_depth.block_size = bs;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct space_depth_params {
    int h, w, c, bs;
} space_depth_params;

static vki_model *build_space_depth(const op_case *oc) {
    const space_depth_params *p = OP_CASE_PARAMS(oc, const space_depth_params);
    return space_depth_model(oc->op, p->h, p->w, p->c, p->bs);
}

static void space_depth(op_case_list *l, vki_op_code code, int h, int w, int c, int bs,
                        uint32_t seed) {
    op_case *oc = op_case_add(l, code, build_space_depth, seed, EXACT);
    OP_CASE_SET_PARAMS(oc, space_depth_params, ((space_depth_params){h, w, c, bs}));
    op_case_label(oc, "%s [1,%d,%d,%d] block %d", vki_op_name((int)code), h, w, c, bs);
}

void op_cases_depth_to_space__blocks_and_channels(op_case_list *l) {
    for (int bs = 2; bs <= 3; bs++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int c = channels[i] * bs * bs;
            space_depth(l, VKI_OP_DEPTH_TO_SPACE, 3, 5, c, bs, 10000u + (uint32_t)(bs * 10 + i));
            space_depth(l, VKI_OP_DEPTH_TO_SPACE, 1, 1, c, bs, 10100u + (uint32_t)(bs * 10 + i));
        }
    space_depth(l, VKI_OP_DEPTH_TO_SPACE, 7, 9, 16 * 3, 4, 10200);
}

void op_cases_space_to_depth__blocks_and_channels(op_case_list *l) {
    for (int bs = 2; bs <= 3; bs++)
        for (int i = 0; i < N_CHANNELS; i++) {
            space_depth(l, VKI_OP_SPACE_TO_DEPTH, 3 * bs, 5 * bs, channels[i], bs,
                        11000u + (uint32_t)(bs * 10 + i));
            space_depth(l, VKI_OP_SPACE_TO_DEPTH, bs, bs, channels[i], bs,
                        11100u + (uint32_t)(bs * 10 + i));
        }
    space_depth(l, VKI_OP_SPACE_TO_DEPTH, 8, 12, 5, 4, 11200);
}

/* ---- STRIDED_SLICE / SLICE ------------------------------------------------------------- */

vki_model *ss_model(const int *in_shape, const ss_case *k) {
    vki_model *m = vki_model_new("strided_slice");
    int in = harness_tensor_nd(m, k->rank, in_shape);
    int b = harness_int_vector(m, "begin", k->rank, k->begin);
    int e = harness_int_vector(m, "end", k->rank, k->end);
    int s = harness_int_vector(m, "strides", k->rank, k->strides);
    int out = harness_tensor_nd(m, k->out_rank, k->out);
    int ins[4] = {in, b, e, s};
    vki_op *op = harness_op(m, VKI_OP_STRIDED_SLICE, 4, ins, out);
    op->opt.strided_slice.begin_mask = k->begin_mask;
    op->opt.strided_slice.end_mask = k->end_mask;
    op->opt.strided_slice.shrink_axis_mask = k->shrink_mask;
    op->opt.strided_slice.offset = k->offset;
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct ss_params {
    int in_shape[4];
    ss_case k;
} ss_params;

static vki_model *build_ss(const op_case *oc) {
    const ss_params *p = OP_CASE_PARAMS(oc, const ss_params);
    return ss_model(p->in_shape, &p->k);
}

/* "STRIDED_SLICE [1,7,9,5] 0:1:1,0:7:2,... end_mask 0xd shrink 0x2 offset -> [1,3,5,5]",
 * begin:end:stride per axis. */
static op_case *strided_slice(op_case_list *l, const int *in_shape, ss_case k, uint32_t seed) {
    op_case *oc = op_case_add(l, VKI_OP_STRIDED_SLICE, build_ss, seed, EXACT);
    ss_params p = {.k = k};
    memcpy(p.in_shape, in_shape, (size_t)k.rank * sizeof(int));
    OP_CASE_SET_PARAMS(oc, ss_params, p);
    char buf[112];
    size_t len = 0;
    op_case_shape(buf, sizeof buf, &len, k.rank, in_shape);
    for (int i = 0; i < k.rank; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d:%d:%d", i ? "," : " ",
                                (int)k.begin[i], (int)k.end[i], (int)k.strides[i]);
    static const char *const mask_names[3] = {"begin_mask", "end_mask", "shrink"};
    const int masks[3] = {k.begin_mask, k.end_mask, k.shrink_mask};
    for (int i = 0; i < 3; i++)
        if (masks[i])
            len += (size_t)snprintf(buf + len, sizeof buf - len, " %s %#x", mask_names[i], masks[i]);
    if (k.offset) len += (size_t)snprintf(buf + len, sizeof buf - len, " offset");
    len += (size_t)snprintf(buf + len, sizeof buf - len, " -> ");
    op_case_shape(buf, sizeof buf, &len, k.out_rank, k.out);
    op_case_label(oc, "STRIDED_SLICE %s", buf);
    return oc;
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

static ss_case with_channels(ss_case k, int c) {
    for (int i = 0; i < 4; i++) {
        if (k.end[i] == CC) k.end[i] = c;
        if (k.out[i] == CC) k.out[i] = c;
    }
    return k;
}

void op_cases_strided_slice__cases_on_odd_input(op_case_list *l) {
    int shape[4] = {1, 7, 9, 0};
    for (int j = 0; j < COUNT(ss_cases); j++)
        for (int i = 0; i < N_CHANNELS; i++) {
            shape[3] = channels[i];
            strided_slice(l, shape, with_channels(ss_cases[j], channels[i]),
                          12000u + (uint32_t)(j * 10 + i));
        }
}

void op_cases_strided_slice__channel_slicing(op_case_list *l) {
    int shape[4] = {1, 7, 9, 17};
    /* strided channels from 1: 1,4,...,16 */
    ss_case a = {4, {0, 0, 0, 1}, {1, 7, 9, 17}, {1, 1, 1, 3}, 0, 0, 0, false, 4, {1, 7, 9, 6}};
    strided_slice(l, shape, a, 12500);
    /* a start that is not a multiple of 4, on every axis */
    ss_case b = {4, {0, 1, 2, 5}, {1, 6, 8, 16}, {1, 2, 3, 2}, 0, 0, 0, false, 4, {1, 3, 2, 6}};
    strided_slice(l, shape, b, 12501);
    /* shrink C: [1,7,9] is seen as W=7, C=9, so output axes read other input axes */
    ss_case c = {4, {0, 0, 0, 2}, {1, 7, 9, 3}, {1, 1, 1, 1}, 0, 0, 0x8, false, 3, {1, 7, 9}};
    strided_slice(l, shape, c, 12502);
    /* shrink W and stride on H and C: [1,4,6] -> W=4, C=6 */
    ss_case d = {4, {0, 0, 5, 0}, {1, 7, 6, 17}, {1, 2, 1, 3}, 0, 0, 0x4, false, 3, {1, 4, 6}};
    strided_slice(l, shape, d, 12503);
    /* shrink N, H and W: one pixel as a rank-1 [17] */
    ss_case e = {4, {0, 2, 4, 0}, {1, 3, 5, 17}, {1, 1, 1, 1}, 0, 0, 0x7, false, 1, {17}};
    strided_slice(l, shape, e, 12504);
    /* shrink N of [1,1,9,17]: [1,9,17], whose batch axis reads the input's H */
    int flat[4] = {1, 1, 9, 17};
    ss_case f = {4, {0, 0, 1, 2}, {1, 1, 9, 17}, {1, 1, 2, 1}, 0, 0, 0x1, false, 3, {1, 4, 15}};
    strided_slice(l, flat, f, 12505);
}

void op_cases_strided_slice__lower_ranks(op_case_list *l) {
    int r3[3] = {1, 9, 5};                         /* [N, W, C] */
    ss_case a = {3, {0, 1, 0}, {1, 9, 5}, {1, 2, 1}, 0, 0, 0, false, 3, {1, 4, 5}};
    strided_slice(l, r3, a, 12600);
    int r2[2] = {1, 17};
    ss_case b = {2, {0, 3}, {1, -2}, {1, 1}, 0, 0, 0, false, 2, {1, 12}};
    strided_slice(l, r2, b, 12601);
    int r1[1] = {17};
    ss_case c = {1, {2}, {15}, {4}, 0, 0, 0, false, 1, {4}};
    strided_slice(l, r1, c, 12602);
    ss_case d = {1, {-1}, {0}, {-3}, 0, 1, 0, false, 1, {6}};
    strided_slice(l, r1, d, 12603);
    int odd[4] = {1, 5, 3, 3};
    ss_case e = {4, {0, 0, 0, 0}, {1, 5, 3, 3}, {1, 2, 2, 2}, 0, 0, 0, false, 4, {1, 3, 2, 2}};
    strided_slice(l, odd, e, 12604);
}

/* The whole input: an alias, no dispatch beyond the two I/O conversions. */
void op_cases_strided_slice__whole_input_aliases(op_case_list *l) {
    int shape[4] = {1, 7, 9, 5};
    ss_case k = {4, {0, 0, 0, 0}, {1, 7, 9, 5}, {1, 1, 1, 1}, 0, 0xf, 0, false, 4, {1, 7, 9, 5}};
    strided_slice(l, shape, k, 12700)->dispatches = 2;
}

vki_model *slice_model(int rank, const int *in_shape, const int32_t *begin, const int32_t *size,
                       const int *out_shape) {
    vki_model *m = vki_model_new("slice");
    int in = harness_tensor_nd(m, rank, in_shape);
    int b = harness_int_vector(m, "begin", rank, begin);
    int s = harness_int_vector(m, "size", rank, size);
    int out = harness_tensor_nd(m, rank, out_shape);
    int ins[3] = {in, b, s};
    harness_op(m, VKI_OP_SLICE, 3, ins, out);
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct slice_params {
    int rank, in[4];
    int32_t begin[4], size[4];
    int out[4];
} slice_params;

static vki_model *build_slice(const op_case *oc) {
    const slice_params *p = OP_CASE_PARAMS(oc, const slice_params);
    return slice_model(p->rank, p->in, p->begin, p->size, p->out);
}

static void slice(op_case_list *l, int rank, const int *in, const int32_t *begin,
                  const int32_t *size, const int *out, uint32_t seed) {
    op_case *oc = op_case_add(l, VKI_OP_SLICE, build_slice, seed, EXACT);
    slice_params p = {.rank = rank};
    size_t n = (size_t)rank;
    memcpy(p.in, in, n * sizeof(int));
    memcpy(p.begin, begin, n * sizeof(int32_t));
    memcpy(p.size, size, n * sizeof(int32_t));
    memcpy(p.out, out, n * sizeof(int));
    OP_CASE_SET_PARAMS(oc, slice_params, p);
    char buf[112];
    size_t len = 0;
    op_case_shape(buf, sizeof buf, &len, rank, in);
    len += (size_t)snprintf(buf + len, sizeof buf - len, " begin");
    len = ints(buf, sizeof buf, len, rank, begin);
    len += (size_t)snprintf(buf + len, sizeof buf - len, " size");
    len = ints(buf, sizeof buf, len, rank, size);
    len += (size_t)snprintf(buf + len, sizeof buf - len, " -> ");
    op_case_shape(buf, sizeof buf, &len, rank, out);
    op_case_label(oc, "SLICE %s", buf);
}

void op_cases_slice__sizes_and_to_the_end(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        int in[4] = {1, 7, 9, c};
        int32_t b[4] = {0, 1, 2, c > 1 ? 1 : 0}, z[4] = {1, -1, 3, -1};
        int out[4] = {1, 6, 3, c > 1 ? c - 1 : c};
        slice(l, 4, in, b, z, out, 13000u + (uint32_t)c);
        int32_t b2[4] = {0, 6, 0, 0}, z2[4] = {-1, 1, 9, c};
        int out2[4] = {1, 1, 9, c};
        slice(l, 4, in, b2, z2, out2, 13100u + (uint32_t)c);
    }
    int in[4] = {1, 5, 3, 17};
    int32_t b[4] = {0, 2, 1, 5}, z[4] = {1, 3, 2, 9};
    int out[4] = {1, 3, 2, 9};
    slice(l, 4, in, b, z, out, 13200);
    int r2[2] = {1, 17};
    int32_t b2[2] = {0, 6}, z2[2] = {-1, -1};
    int o2[2] = {1, 11};
    slice(l, 2, r2, b2, z2, o2, 13201);
    int r3[3] = {1, 9, 6};
    int32_t b3[3] = {0, 3, 3}, z3[3] = {1, 5, 3};
    int o3[3] = {1, 5, 3};
    slice(l, 3, r3, b3, z3, o3, 13202);
}

/* ---- ops feeding each other ------------------------------------------------------------ */

/* A classifier head: MEAN -> FULLY_CONNECTED -> SOFTMAX, each reading the previous op's
 * PHWC4 output (padded lanes included). */
static vki_model *build_classifier_head(const op_case *oc) {
    (void)oc;
    vki_model *m = vki_model_new("head");
    int s4[4] = {1, 7, 9, 21}, sm[2] = {1, 21}, so[2] = {1, 10}, ws[2] = {10, 21}, bs[1] = {10};
    int in = harness_tensor_nd(m, 4, s4);
    int32_t hw[2] = {1, 2};
    int ax = harness_int_vector(m, "axes", 2, hw);
    int mean_out = harness_tensor_nd(m, 2, sm);
    int w = harness_const(m, 2, ws, 5, -1.0f, 1.0f);
    int b = harness_const(m, 1, bs, 6, -1.0f, 1.0f);
    int logits = harness_tensor_nd(m, 2, so), probs = harness_tensor_nd(m, 2, so);
    int mi[2] = {in, ax};
    harness_op(m, VKI_OP_MEAN, 2, mi, mean_out);
    int fi[3] = {mean_out, w, b};
    harness_op(m, VKI_OP_FULLY_CONNECTED, 3, fi, logits)->opt.fully_connected.activation =
        VKI_ACT_NONE;
    harness_op(m, VKI_OP_SOFTMAX, 1, &logits, probs)->opt.softmax.beta = 1.0f;
    vki_model_set_io(m, 1, &in, 1, &probs);
    return m;
}

void op_cases_spatial_chain__classifier_head(op_case_list *l) {
    op_case *oc = op_case_add(l, VKI_OP_MEAN, build_classifier_head, 14000, TOL);
    op_case_label(oc, "chain MEAN [1,7,9,21] -> FULLY_CONNECTED 10x21 -> SOFTMAX [1,10]");
}

/* An upsampling path: SPACE_TO_DEPTH -> RESIZE_BILINEAR -> STRIDED_SLICE -> DEPTH_TO_SPACE. */
static vki_model *build_resample_path(const op_case *oc) {
    (void)oc;
    vki_model *m = vki_model_new("resample");
    int a[4] = {1, 6, 10, 3}, b[4] = {1, 3, 5, 12}, c[4] = {1, 6, 10, 12}, d[4] = {1, 5, 9, 12},
        e[4] = {1, 10, 18, 3};
    int ta = harness_tensor_nd(m, 4, a), tb = harness_tensor_nd(m, 4, b),
        tc = harness_tensor_nd(m, 4, c), td = harness_tensor_nd(m, 4, d),
        te = harness_tensor_nd(m, 4, e);
    harness_op(m, VKI_OP_SPACE_TO_DEPTH, 1, &ta, tb)->opt.space_depth.block_size = 2;
    int32_t size[2] = {6, 10};
    int ri[2] = {tb, harness_int_vector(m, "size", 2, size)};
    harness_op(m, VKI_OP_RESIZE_BILINEAR, 2, ri, tc)->opt.resize.half_pixel_centers = true;
    int32_t begin[4] = {0, 1, 1, 0}, end[4] = {1, 6, 10, 12}, strides[4] = {1, 1, 1, 1};
    int si[4] = {tc, harness_int_vector(m, "begin", 4, begin), harness_int_vector(m, "end", 4, end),
                 harness_int_vector(m, "strides", 4, strides)};
    harness_op(m, VKI_OP_STRIDED_SLICE, 4, si, td);
    harness_op(m, VKI_OP_DEPTH_TO_SPACE, 1, &td, te)->opt.space_depth.block_size = 2;
    vki_model_set_io(m, 1, &ta, 1, &te);
    return m;
}

void op_cases_spatial_chain__resample_path(op_case_list *l) {
    op_case *oc = op_case_add(l, VKI_OP_SPACE_TO_DEPTH, build_resample_path, 14001, TOL);
    op_case_label(oc, "chain SPACE_TO_DEPTH -> RESIZE_BILINEAR -> STRIDED_SLICE -> "
                      "DEPTH_TO_SPACE [1,6,10,3]->[1,10,18,3]");
}
