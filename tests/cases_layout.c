/* cases_layout.c: MAX_POOL_2D, AVERAGE_POOL_2D, PAD, RESHAPE and CONCATENATION on odd
 * shapes and channel counts. */
#include "op_cases_layout.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* ---- pooling --------------------------------------------------------------------------- */

vki_model *pool_model(vki_op_code code, int h, int w, int c, pool_case pc, vki_activation act) {
    vki_model *m = vki_model_new(code == VKI_OP_MAX_POOL_2D ? "max_pool" : "average_pool");
    int oh = vki_conv_out_size(pc.pad, h, pc.fh, pc.sh, 1);
    int ow = vki_conv_out_size(pc.pad, w, pc.fw, pc.sw, 1);
    int in = harness_tensor(m, h, w, c);
    int out = harness_tensor(m, oh, ow, c);
    harness_op(m, code, 1, &in, out)->opt.pool =
        (vki_pool_options){pc.pad, pc.sw, pc.sh, pc.fw, pc.fh, act};
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

typedef struct pool_params {
    int h, w, c;
    pool_case pc;
    vki_activation act;
} pool_params;

static vki_model *build_pool(const op_case *oc) {
    const pool_params *p = OP_CASE_PARAMS(oc, const pool_params);
    return pool_model(oc->op, p->h, p->w, p->c, p->pc, p->act);
}

static void pool(op_case_list *l, vki_op_code code, int h, int w, int c, pool_case pc,
                 vki_activation act, double tol) {
    uint32_t seed = 500u + (uint32_t)(h * 131 + w * 17 + c * 3 + pc.fh + (int)pc.pad);
    op_case *oc = op_case_add(l, code, build_pool, seed, tol);
    OP_CASE_SET_PARAMS(oc, pool_params, ((pool_params){h, w, c, pc, act}));
    char s[16];
    op_case_pair(s, sizeof s, "s", pc.sh, pc.sw);
    op_case_label(oc, "%s %dx%d %s %s %dx%dx%d%s%s", vki_op_name((int)code), pc.fh, pc.fw, s,
                  pc.pad == VKI_PAD_SAME ? "SAME" : "VALID", h, w, c, act ? " " : "",
                  op_case_activation(act));
}

static const pool_case pool_cases[] = {
    {2, 2, 2, 2, VKI_PAD_VALID}, {2, 2, 2, 2, VKI_PAD_SAME}, {3, 3, 2, 2, VKI_PAD_SAME},
    {3, 3, 2, 2, VKI_PAD_VALID}, {3, 3, 1, 1, VKI_PAD_SAME}, {3, 2, 1, 2, VKI_PAD_SAME},
};
#define N_POOL_CASES (int)(sizeof pool_cases / sizeof pool_cases[0])

void op_cases_max_pool__windows_on_odd_inputs(op_case_list *l) {
    for (int k = 0; k < N_POOL_CASES; k++)
        for (int i = 0; i < N_CHANNELS; i++)
            pool(l, VKI_OP_MAX_POOL_2D, 9, 7, channels[i], pool_cases[k], VKI_ACT_NONE, 0.0);
}

void op_cases_max_pool__fused_activations_and_even_input(op_case_list *l) {
    pool_case p = {3, 3, 2, 2, VKI_PAD_SAME};
    pool(l, VKI_OP_MAX_POOL_2D, 9, 7, 5, p, VKI_ACT_RELU, 0.0);
    pool(l, VKI_OP_MAX_POOL_2D, 8, 8, 17, p, VKI_ACT_RELU6, 0.0);
    pool(l, VKI_OP_MAX_POOL_2D, 7, 9, 3, p, VKI_ACT_RELU_N1_TO_1, 0.0);
    pool(l, VKI_OP_MAX_POOL_2D, 16, 16, 32, (pool_case){2, 2, 2, 2, VKI_PAD_VALID}, VKI_ACT_NONE, 0.0);
}

void op_cases_average_pool__windows_on_odd_inputs(op_case_list *l) {
    for (int k = 0; k < N_POOL_CASES; k++)
        for (int i = 0; i < N_CHANNELS; i++)
            pool(l, VKI_OP_AVERAGE_POOL_2D, 9, 7, channels[i], pool_cases[k], VKI_ACT_NONE, 1e-6);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 9, 7, 5, pool_cases[2], VKI_ACT_RELU6, 1e-6);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 7, 9, 17, pool_cases[4], VKI_ACT_RELU, 1e-6);
}

/* Window sizes (H*W = 1, 3, 63, 64, 65, 127, 4160, 4113) around the reduction's lane
 * count, 64 on GPUs and one SIMD vector (8 on lavapipe) on CPU devices: fewer cells than
 * lanes, a round short by one, exact or over by one, and thousands of cells. */
static const int global_sizes[][2] = {{1, 1}, {1, 3}, {7, 9}, {8, 8}, {5, 13}, {127, 1},
                                      {65, 64}, {9, 457}};
#define N_GLOBAL_SIZES (int)(sizeof global_sizes / sizeof global_sizes[0])

static void global_pools(op_case_list *l, vki_op_code code, double tol) {
    for (int k = 0; k < N_GLOBAL_SIZES; k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int h = global_sizes[k][0], w = global_sizes[k][1];
            pool(l, code, h, w, channels[i], (pool_case){h, w, 1, 1, VKI_PAD_VALID}, VKI_ACT_NONE, tol);
        }
}

void op_cases_average_pool__global(op_case_list *l) {
    global_pools(l, VKI_OP_AVERAGE_POOL_2D, 1e-5);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 16, 16, 32, (pool_case){16, 16, 2, 2, VKI_PAD_VALID},
         VKI_ACT_NONE, 1e-5);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 7, 7, 13, (pool_case){7, 7, 1, 1, VKI_PAD_VALID},
         VKI_ACT_RELU, 1e-5);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 9, 7, 17, (pool_case){9, 7, 9, 7, VKI_PAD_VALID},
         VKI_ACT_TANH, 1e-5);
    pool(l, VKI_OP_AVERAGE_POOL_2D, 65, 64, 5, (pool_case){65, 64, 1, 1, VKI_PAD_VALID},
         VKI_ACT_RELU_N1_TO_1, 1e-5);
}

void op_cases_max_pool__global(op_case_list *l) {
    global_pools(l, VKI_OP_MAX_POOL_2D, 0.0);
    pool(l, VKI_OP_MAX_POOL_2D, 7, 7, 13, (pool_case){7, 7, 1, 1, VKI_PAD_VALID}, VKI_ACT_RELU, 0.0);
    pool(l, VKI_OP_MAX_POOL_2D, 9, 457, 5, (pool_case){9, 457, 9, 457, VKI_PAD_VALID},
         VKI_ACT_RELU6, 0.0);
    /* The device's tanh may differ from libm's in the last bit. */
    pool(l, VKI_OP_MAX_POOL_2D, 8, 8, 17, (pool_case){8, 8, 1, 1, VKI_PAD_VALID}, VKI_ACT_TANH, 1e-6);
}

/* A 1x1 output whose window is not the input: SAME windows hanging over every edge
 * (TFLite averages only the cells inside), VALID windows that leave rows or columns
 * out (whole rows: one contiguous run; part rows: a 2-D walk), and a SAME window that
 * fits inside. */
void op_cases_pool__global_window_not_the_input(op_case_list *l) {
    static const struct { int h, w; pool_case pc; } cases[] = {
        {4, 5, {7, 8, 4, 5, VKI_PAD_SAME}},     {9, 13, {12, 14, 9, 13, VKI_PAD_SAME}},
        {1, 1, {3, 3, 2, 2, VKI_PAD_SAME}},     {5, 7, {4, 6, 3, 4, VKI_PAD_VALID}},
        {9, 8, {7, 8, 5, 1, VKI_PAD_VALID}},    {70, 66, {66, 65, 10, 10, VKI_PAD_VALID}},
        {9, 7, {3, 3, 9, 7, VKI_PAD_SAME}},
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            pool(l, VKI_OP_MAX_POOL_2D, cases[k].h, cases[k].w, channels[i], cases[k].pc,
                 VKI_ACT_NONE, 0.0);
            pool(l, VKI_OP_AVERAGE_POOL_2D, cases[k].h, cases[k].w, channels[i], cases[k].pc,
                 k % 2 ? VKI_ACT_RELU6 : VKI_ACT_NONE, 1e-5);
        }
}

/* ---- PAD ------------------------------------------------------------------------------- */

vki_model *pad_model(int rank, const int *shape, const int32_t *pads, int *pads_tensor) {
    vki_model *m = vki_model_new("pad");
    int out_shape[4];
    for (int i = 0; i < rank; i++) out_shape[i] = shape[i] + pads[2 * i] + pads[2 * i + 1];
    int in = harness_tensor_nd(m, rank, shape);
    int pshape[2] = {rank, 2};
    int p = harness_int_const(m, "paddings", 2, pshape, pads);
    int out = harness_tensor_nd(m, rank, out_shape);
    int ins[2] = {in, p};
    harness_op(m, VKI_OP_PAD, 2, ins, out);
    vki_model_set_io(m, 1, &in, 1, &out);
    if (pads_tensor) *pads_tensor = p;
    return m;
}

typedef struct pad_params {
    int rank;
    int shape[4];
    int32_t pads[8];
} pad_params;

static vki_model *build_pad(const op_case *oc) {
    const pad_params *p = OP_CASE_PARAMS(oc, const pad_params);
    return pad_model(p->rank, p->shape, p->pads, NULL);
}

static void pad(op_case_list *l, int rank, const int *shape, const int32_t *pads) {
    uint32_t seed = 900u + (uint32_t)(shape[rank - 1] * 7 + pads[2 * rank - 1]);
    op_case *oc = op_case_add(l, VKI_OP_PAD, build_pad, seed, 0.0);
    pad_params p = {.rank = rank};
    memcpy(p.shape, shape, (size_t)rank * sizeof(int));
    memcpy(p.pads, pads, (size_t)rank * 2 * sizeof(int32_t));
    OP_CASE_SET_PARAMS(oc, pad_params, p);
    char buf[96];
    size_t n = 0;
    op_case_shape(buf, sizeof buf, &n, rank, shape);
    n += (size_t)snprintf(buf + n, sizeof buf - n, " pads");
    for (int i = 0; i < rank; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %d:%d", pads[2 * i], pads[2 * i + 1]);
    op_case_label(oc, "PAD %s", buf);
}

void op_cases_pad__spatial_asymmetric(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int shape[4] = {1, 5, 6, channels[i]};
        int32_t pads[8] = {0, 0, 1, 2, 0, 3, 0, 0};
        pad(l, 4, shape, pads);
    }
    int shape[4] = {1, 7, 9, 3};
    int32_t pads[8] = {0, 0, 0, 1, 1, 0, 0, 0};   /* the TF "SAME" stride-2 pre-pad */
    pad(l, 4, shape, pads);
}

void op_cases_pad__channels(op_case_list *l) {
    static const int32_t cpad[][2] = {{0, 2}, {0, 12}, {0, 8}, {3, 1}, {1, 0}, {4, 4}, {5, 6}};
    static const int cin[] = {3, 5, 24, 5, 3, 8, 17};
    for (int i = 0; i < (int)(sizeof cin / sizeof cin[0]); i++) {
        int shape[4] = {1, 3, 4, cin[i]};
        int32_t pads[8] = {0, 0, 0, 0, 0, 0, cpad[i][0], cpad[i][1]};
        pad(l, 4, shape, pads);
    }
}

void op_cases_pad__spatial_and_channel_together_and_lower_ranks(op_case_list *l) {
    int s4[4] = {1, 4, 3, 5};
    int32_t p4[8] = {0, 0, 2, 1, 1, 2, 2, 3};
    pad(l, 4, s4, p4);
    int s3[3] = {1, 6, 7};                        /* [N, W, C] */
    int32_t p3[6] = {0, 0, 1, 2, 1, 0};
    pad(l, 3, s3, p3);
    int s2[2] = {1, 9};                           /* [N, C] */
    int32_t p2[4] = {0, 0, 2, 5};
    pad(l, 2, s2, p2);
}

/* ---- RESHAPE --------------------------------------------------------------------------- */

vki_model *reshape_chain(int n, const int *ranks, const int (*shapes)[4]) {
    vki_model *m = vki_model_new("reshape");
    int prev = harness_tensor_nd(m, ranks[0], shapes[0]);
    int first = prev;
    for (int i = 1; i < n; i++) {
        int t = harness_tensor_nd(m, ranks[i], shapes[i]);
        harness_op(m, VKI_OP_RESHAPE, 1, &prev, t);
        prev = t;
    }
    vki_model_set_io(m, 1, &first, 1, &prev);
    return m;
}

#define MAX_CHAIN 5

typedef struct reshape_params {
    int n;
    int ranks[MAX_CHAIN];
    int shapes[MAX_CHAIN][4];
} reshape_params;

static vki_model *build_reshape(const op_case *oc) {
    const reshape_params *p = OP_CASE_PARAMS(oc, const reshape_params);
    return reshape_chain(p->n, p->ranks, p->shapes);
}

/* The values, and that exactly `extra` dispatches run beyond the two I/O conversions. */
static void reshape(op_case_list *l, int n, const int *ranks, const int (*shapes)[4], int extra) {
    cr_assert(n <= MAX_CHAIN);
    op_case *oc = op_case_add(l, VKI_OP_RESHAPE, build_reshape, 1300u + (uint32_t)n, 0.0);
    oc->dispatches = 2 + extra;
    reshape_params p = {.n = n};
    memcpy(p.ranks, ranks, (size_t)n * sizeof(int));
    memcpy(p.shapes, shapes, (size_t)n * sizeof(shapes[0]));
    OP_CASE_SET_PARAMS(oc, reshape_params, p);
    char buf[112];
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (i) len += (size_t)snprintf(buf + len, sizeof buf - len, "->");
        op_case_shape(buf, sizeof buf, &len, ranks[i], shapes[i]);
    }
    op_case_label(oc, "RESHAPE %s, %d dispatch%s", buf, extra, extra == 1 ? "" : "es");
}

void op_cases_reshape__face_detector_head(op_case_list *l) {
    static const int r[2] = {4, 3};
    static const int s[2][4] = {{1, 16, 16, 32}, {1, 512, 16}};
    reshape(l, 2, r, s, 1);
}

void op_cases_reshape__chain_through_ranks(op_case_list *l) {
    static const int r[5] = {4, 2, 3, 4, 1};
    static const int s[5][4] = {{1, 7, 5, 3}, {1, 105}, {1, 3, 35}, {1, 5, 7, 3}, {105}};
    /* 3 -> 105 -> 35 -> 3 -> 105 channels: every step gathers */
    reshape(l, 5, r, s, 4);
}

void op_cases_reshape__same_channels_alias(op_case_list *l) {
    static const int r[2] = {4, 3};
    static const int s[2][4] = {{1, 3, 5, 17}, {1, 15, 17}};
    reshape(l, 2, r, s, 0);
    static const int r2[3] = {4, 4, 2};
    static const int s2[3][4] = {{1, 4, 6, 10}, {1, 6, 4, 10}, {1, 240}};
    reshape(l, 3, r2, s2, 1);   /* the H/W swap aliases, the flatten gathers */
}

void op_cases_reshape__channel_changes(op_case_list *l) {
    static const int r[2] = {4, 4};
    static const int s[2][4] = {{1, 4, 6, 10}, {1, 4, 10, 6}};
    reshape(l, 2, r, s, 1);
    static const int r2[2] = {3, 3};
    static const int s2[2][4] = {{1, 6, 5}, {1, 5, 6}};
    reshape(l, 2, r2, s2, 1);
    static const int r3[2] = {4, 4};
    static const int s3[2][4] = {{1, 2, 3, 8}, {1, 1, 1, 48}};
    reshape(l, 2, r3, s3, 1);
}

/* RESHAPE(const [1,4,6] -> [1,24] with shape [1,-1]) + input [1,24] */
static vki_model *build_reshape_const(const op_case *oc) {
    (void)oc;
    vki_model *m = vki_model_new("reshape_const");
    int cshape[3] = {1, 4, 6}, fshape[2] = {1, 24};
    int c = harness_const(m, 3, cshape, 5, -1.0f, 1.0f);
    int32_t want[2] = {1, -1};
    int st = harness_int_vector(m, "shape", 2, want);
    int flat = harness_tensor_nd(m, 2, fshape);
    int in = harness_tensor_nd(m, 2, fshape);
    int out = harness_tensor_nd(m, 2, fshape);
    int rin[2] = {c, st};
    harness_op(m, VKI_OP_RESHAPE, 2, rin, flat);
    harness_binary(m, VKI_OP_ADD, in, flat, out);
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

void op_cases_reshape__shape_input_and_constant_input(op_case_list *l) {
    op_case *oc = op_case_add(l, VKI_OP_RESHAPE, build_reshape_const, 77u, 0.0);
    op_case_label(oc, "RESHAPE const[1,4,6]->[1,24] by shape [1,-1], then ADD [1,24]");
}

/* ---- CONCATENATION --------------------------------------------------------------------- */

#define MAX_CONCAT 15

vki_model *concat_model(int rank, int axis, int n, const int (*shapes)[4], unsigned const_mask,
                        vki_activation act) {
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
            ins[i] = harness_tensor_nd(m, rank, shapes[i]);
            graph_in[n_graph_in++] = ins[i];
        }
    }
    int out = harness_tensor_nd(m, rank, out_shape);
    vki_op *op = harness_op(m, VKI_OP_CONCATENATION, n, ins, out);
    op->opt.concat.axis = axis;
    op->opt.concat.activation = act;
    vki_model_set_io(m, n_graph_in, graph_in, 1, &out);
    return m;
}

typedef struct concat_params {
    int rank, axis, n;
    int shapes[MAX_CONCAT][4];
    unsigned const_mask;
    vki_activation act;
} concat_params;

static vki_model *build_concat(const op_case *oc) {
    const concat_params *p = OP_CASE_PARAMS(oc, const concat_params);
    return concat_model(p->rank, p->axis, p->n, p->shapes, p->const_mask, p->act);
}

static void concat(op_case_list *l, int rank, int axis, int n, const int (*shapes)[4],
                   unsigned const_mask, vki_activation act) {
    cr_assert(n <= MAX_CONCAT);
    uint32_t seed = 2000u + (uint32_t)(rank * 100 + axis * 10 + n);
    op_case *oc = op_case_add(l, VKI_OP_CONCATENATION, build_concat, seed, 0.0);
    concat_params p = {.rank = rank, .axis = axis, .n = n, .const_mask = const_mask, .act = act};
    memcpy(p.shapes, shapes, (size_t)n * sizeof(shapes[0]));
    OP_CASE_SET_PARAMS(oc, concat_params, p);
    char buf[88] = "", count[32] = "";
    size_t len = 0;
    int shown = 0;
    for (; shown < n && len + 24 < sizeof buf; shown++) {
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", shown ? "+" : "",
                                const_mask & (1u << shown) ? "const" : "");
        op_case_shape(buf, sizeof buf, &len, rank, shapes[shown]);
    }
    if (n > 3) snprintf(count, sizeof count, " %d inputs", n);
    op_case_label(oc, "CONCATENATION axis %d%s %s%s%s%s", axis, count, buf,
                  shown < n ? "+..." : "", act ? " " : "", op_case_activation(act));
}

void op_cases_concatenation__channels_not_multiple_of_4(op_case_list *l) {
    static const int a[2][4] = {{1, 5, 3, 3}, {1, 5, 3, 5}};
    concat(l, 4, 3, 2, a, 0, VKI_ACT_NONE);
    static const int b[3][4] = {{1, 4, 7, 5}, {1, 4, 7, 17}, {1, 4, 7, 1}};
    concat(l, 4, 3, 3, b, 0, VKI_ACT_NONE);
    static const int c[2][4] = {{1, 3, 3, 4}, {1, 3, 3, 4}};
    concat(l, 4, 3, 2, c, 0, VKI_ACT_NONE);
    static const int d[3][4] = {{1, 2, 5, 2}, {1, 2, 5, 7}, {1, 2, 5, 4}};
    concat(l, 4, 3, 3, d, 0, VKI_ACT_RELU);
    static const int e[2][4] = {{1, 6, 6}, {1, 6, 11}};   /* rank 3: [N, W, C] */
    concat(l, 3, 2, 2, e, 0, VKI_ACT_NONE);
    static const int f[3][4] = {{1, 3}, {1, 9}, {1, 1}};  /* rank 2: [N, C] */
    concat(l, 2, 1, 3, f, 0, VKI_ACT_NONE);
}

void op_cases_concatenation__rank3_axis1_anchors(op_case_list *l) {
    static const int a[2][4] = {{1, 512, 16}, {1, 384, 16}};
    concat(l, 3, 1, 2, a, 0, VKI_ACT_NONE);
    static const int b[2][4] = {{1, 512, 1}, {1, 384, 1}};
    concat(l, 3, 1, 2, b, 0, VKI_ACT_NONE);
}

void op_cases_concatenation__height_and_width(op_case_list *l) {
    static const int h[3][4] = {{1, 2, 5, 3}, {1, 5, 5, 3}, {1, 1, 5, 3}};
    concat(l, 4, 1, 3, h, 0, VKI_ACT_NONE);
    static const int w[2][4] = {{1, 4, 3, 17}, {1, 4, 6, 17}};
    concat(l, 4, 2, 2, w, 0, VKI_ACT_RELU6);
}

void op_cases_concatenation__constant_inputs_and_many_inputs(op_case_list *l) {
    static const int a[3][4] = {{1, 3, 4, 6}, {1, 3, 4, 3}, {1, 3, 4, 2}};
    concat(l, 4, 3, 3, a, 2u, VKI_ACT_RELU_N1_TO_1);
    static const int b[2][4] = {{1, 3, 4, 5}, {1, 2, 4, 5}};
    concat(l, 4, 1, 2, b, 1u, VKI_ACT_NONE);
    int many[15][4];
    for (int i = 0; i < 15; i++) {
        many[i][0] = 1; many[i][1] = 2; many[i][2] = 3; many[i][3] = 1 + i % 4;
    }
    concat(l, 4, 3, 15, (const int (*)[4])many, 1u << 7, VKI_ACT_NONE);
}
