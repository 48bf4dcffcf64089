/* test_mediapipe_ops.c: MediaPipe's custom ops on the CPU (engine/ops/cpu_mediapipe.c):
 * MaxPoolingWithArgmax2D, MaxUnpooling2D, TransformTensorBilinear, Landmarks2TransformMatrix,
 * TransformLandmarks. LiteRT refuses them (not registered), so the oracle is MediaPipe's
 * source (mediapipe/util/tflite/operations/<op>.cc): tiny cases worked by hand (the arithmetic
 * in the comments), then odd shapes checked element by element against an independent
 * implementation written here from the same semantics (in double, without the kernel's
 * float/double mixing) and, through harness_compare, against the op's C reference, with GPU
 * ops before and after the CPU op. Then the loader: the same graphs written as .tflite by
 * tests/tflite_writer.py (custom ops with custom_options bytes: a raw TfLitePoolParams, or a
 * FlexBuffer map built here, typed vectors included) must give the same outputs, and
 * malformed options and shapes must fail with a status and a message naming the fault. */
#include "harness.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- building and running ------------------------------------------------------------- */

static vki_op *custom(vki_model *m, const char *name, int n_in, const int *in, int n_out,
                      const int *out) {
    vki_op *op = vki_model_add_op(m, VKI_OP_CUSTOM, n_in, in, n_out, out);
    cr_assert(op);
    snprintf(op->custom_name, sizeof op->custom_name, "%s", name);
    return op;
}

static size_t elems(const vki_model *m, int t) { return vki_tensor_elements(&m->tensors[t]); }

/* Validates m, runs it once as a graph on harness_context() with the given inputs, and
 * returns its outputs (malloc'd, one array an output). */
static float **run_graph(const vki_model *m, const float *const *in) {
    cr_assert_eq(vki_model_validate((vki_model *)m), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    for (int i = 0; i < m->n_inputs; i++)
        cr_assert_eq(vki_graph_set_input(g, i, in[i], elems(m, m->inputs[i]) * sizeof(float)),
                     VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    float **out = calloc((size_t)m->n_outputs, sizeof *out);
    cr_assert(out);
    for (int i = 0; i < m->n_outputs; i++) {
        const size_t n = elems(m, m->outputs[i]);
        out[i] = malloc(n * sizeof(float));
        cr_assert(out[i]);
        cr_assert_eq(vki_graph_get_output(g, i, out[i], n * sizeof(float)), VKI_OK, "%s",
                     vki_last_error());
    }
    vki_graph_destroy(g);
    return out;
}

static void free_outputs(float **out, int n) {
    for (int i = 0; i < n; i++) free(out[i]);
    free(out);
}

/* Every element of got within tol of want (absolute); NaN only where want is NaN. */
static void expect_close(const float *got, const float *want, size_t n, double tol,
                         const char *what) {
    for (size_t i = 0; i < n; i++) {
        if (isnan(want[i])) {
            cr_expect(isnan(got[i]), "%s[%zu] = %g, want NaN", what, i, (double)got[i]);
            continue;
        }
        cr_assert(fabs((double)got[i] - (double)want[i]) <= tol, "%s[%zu] = %.9g, want %.9g",
                  what, i, (double)got[i], (double)want[i]);
    }
}

static void expect_same(const float *got, const float *want, size_t n, const char *what) {
    for (size_t i = 0; i < n; i++)
        cr_assert(!memcmp(&got[i], &want[i], sizeof(float)), "%s[%zu] = %.9g, want %.9g", what,
                  i, (double)got[i], (double)want[i]);
}

/* harness_compare in fp32: the graph (GPU ops around the CPU op included) against the
 * references of the whole model. Consumes m. */
static void check_against_reference(vki_model *m, uint32_t seed) {
    harness_spec spec = {.seed = seed, .tol = 1e-5, .precisions = HARNESS_FP32};
    harness_result r;
    cr_assert(harness_compare(m, &spec, &r), "%s: %s", m->name, r.message);
    vki_model_destroy(m);
}

/* ---- options as the ops' options() would set them ------------------------------------- */

static void set_pool(vki_op *op, vki_padding pad, int stride, int filter, vki_activation act) {
    op->opt.pool = (vki_pool_options){.padding = pad, .stride_w = stride, .stride_h = stride,
                                      .filter_w = filter, .filter_h = filter, .activation = act};
}

static void set_bilinear(vki_op *op, int out_h, int out_w) {
    memset(&op->opt.mp, 0, sizeof op->opt.mp);
    op->opt.mp.i[0] = out_h;
    op->opt.mp.i[1] = out_w;
}

/* Landmarks2TransformMatrix's opt.mp (cpu_mediapipe.c): 16-bit fields, the subset two to an
 * int, 0xFFFF ending it. */
typedef struct l2m {
    int left, right, out_h, out_w, n;
    int subset[16];
    float target, scale_x, scale_y;
} l2m;

static void set_l2m(vki_op *op, const l2m *d) {
    memset(&op->opt.mp, 0, sizeof op->opt.mp);
    int *i = op->opt.mp.i;
    i[0] = (int)((unsigned)d->left | (unsigned)d->right << 16);
    i[1] = (int)((unsigned)d->out_h | (unsigned)d->out_w << 16);
    for (int k = 0; k < 12; k++) {
        unsigned v = k < d->n ? (unsigned)d->subset[k] : 0xFFFFu;
        i[2 + k / 2] = (int)((unsigned)i[2 + k / 2] | v << (16 * (k % 2)));
    }
    op->opt.mp.f[0] = d->target;
    op->opt.mp.f[1] = d->scale_x;
    op->opt.mp.f[2] = d->scale_y;
}

/* ---- MaxPoolingWithArgmax2D and MaxUnpooling2D: by hand ------------------------------- */

/* [1,3,3,1], filter 2, stride 2, SAME: OH = OW = ceil(3 / 2) = 2, padding
 * max(0, ((2 - 1) * 2 + 2 - 3) / 2) = 0 (1 / 2 truncated), so windows start at 0 and 2 and
 * the second is clipped to one row or column:
 *     1 5 | 2        window (0,0) {1,5,7,3}: 7 at (y 1, x 0) -> index 1*2+0 = 2 -> 2.1
 *     7 3 | 9        window (0,1) {2,9}:     9 at (y 1, x 0) -> 2.1
 *     ----+--        window (1,0) {4,8}:     8 at (y 0, x 1) -> 1.1
 *     4 8 | 6        window (1,1) {6}:       6 at (0,0)       -> 0.1
 * MaxUnpooling2D of those (filter 2, stride 2): output [1,4,4,1] (the input times the
 * filter), padding max(0, ((2 - 1) * 2 + 2 - 4) / 2) = 0; (y, x) goes to (2y + idx / 2,
 * 2x + idx % 2): 7 -> (1,0), 9 -> (1,2), 8 -> (2,1), 6 -> (2,2), zeros elsewhere. */
Test(max_pool_argmax, by_hand_same_odd_input) {
    vki_model *m = vki_model_new("pool_by_hand");
    int x = harness_tensor(m, 3, 3, 1), v = harness_tensor(m, 2, 2, 1);
    int i = harness_tensor(m, 2, 2, 1), u = harness_tensor(m, 4, 4, 1);
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_SAME, 2, 2,
             VKI_ACT_NONE);
    set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), VKI_PAD_SAME, 2, 2,
             VKI_ACT_NONE);
    cr_assert(vki_model_set_io(m, 1, &x, 3, (int[]){v, i, u}));
    const float in[9] = {1, 5, 2, 7, 3, 9, 4, 8, 6};
    float **out = run_graph(m, (const float *[]){in});
    expect_same(out[0], (const float[]){7, 9, 8, 6}, 4, "values");
    expect_same(out[1], (const float[]){2.1f, 2.1f, 1.1f, 0.1f}, 4, "indices");
    expect_same(out[2], (const float[]){0, 0, 0, 0, 7, 0, 9, 0, 0, 8, 6, 0, 0, 0, 0, 0}, 16,
                "unpooled");
    free_outputs(out, 3);
    vki_model_destroy(m);
}

/* Ties, -inf, NaN and the activation, [1,2,4,2] (two channels), filter 2, stride 2, VALID:
 * channel 0, window 0 {3, 3, 1, 3}: the first 3 wins -> index 0.1; window 1
 * {-inf, -inf, -inf, -inf}: nothing beats -FLT_MAX -> -FLT_MAX at index 0.1;
 * channel 1, window 0 {NaN, -2, -5, -3}: NaN never wins, -2 at (0,1) -> 1.1; window 1
 * {-7, -4, NaN, -6}: -4 at (0,1) -> 1.1. With RELU6 the values clamp: 3 -> 3, -FLT_MAX -> 0,
 * -2 -> 0, -4 -> 0; the indices are the unclamped maxima's. */
Test(max_pool_argmax, ties_infinities_nan_and_activation) {
    const float inf = INFINITY, nan = NAN;
    /* [y][x][c] */
    const float in[16] = {3, nan, 3, -2, -inf, -7, -inf, -4,
                          1, -5, 3, -3, -inf, nan, -inf, -6};
    for (int relu6 = 0; relu6 < 2; relu6++) {
        vki_model *m = vki_model_new("pool_ties");
        int x = harness_tensor(m, 2, 4, 2), v = harness_tensor(m, 1, 2, 2);
        int i = harness_tensor(m, 1, 2, 2);
        set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_VALID, 2,
                 2, relu6 ? VKI_ACT_RELU6 : VKI_ACT_NONE);
        cr_assert(vki_model_set_io(m, 1, &x, 2, (int[]){v, i}));
        float **out = run_graph(m, (const float *[]){in});
        /* [x][c]: (window 0, c0), (window 0, c1), (window 1, c0), (window 1, c1) */
        const float want_plain[4] = {3, -2, -FLT_MAX, -4}, want_relu6[4] = {3, 0, 0, 0};
        expect_same(out[0], relu6 ? want_relu6 : want_plain, 4, "values");
        expect_same(out[1], (const float[]){0.1f, 1.1f, 0.1f, 1.1f}, 4, "indices");
        free_outputs(out, 2);
        vki_model_destroy(m);
    }
}

/* Indices as MaxUnpooling2D decodes them, [1,2,2,1] into [1,4,4,1] (filter 2, stride 2, no
 * padding): (0,0) 7.9 -> idx 7 -> (0 + 7/2, 0 + 7%2) = (3,1): inside, written;
 * (0,1) -1.5 -> idx -1 (truncated) -> (0 + -1/2, 2 + -1%2) = (0, 1): written;
 * (1,0) 3.1 -> (2 + 1, 0 + 1) = (3,1) again: the later write wins (5 over 1);
 * (1,1) 9.0 -> (2 + 4, 2 + 1): outside, skipped; NaN and 1e10 in a second channel are
 * skipped too. */
Test(max_unpooling, indices_decoded_as_mediapipe) {
    vki_model *m = vki_model_new("unpool_indices");
    int v = harness_tensor(m, 2, 2, 2), i = harness_tensor(m, 2, 2, 2);
    int u = harness_tensor(m, 4, 4, 2);
    set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), VKI_PAD_SAME, 2, 2,
             VKI_ACT_NONE);
    cr_assert(vki_model_set_io(m, 2, (int[]){v, i}, 1, &u));
    const float values[8] = {1, 10, 2, 20, 5, 50, 4, 40};
    const float indices[8] = {7.9f, NAN, -1.5f, 1e10f, 3.1f, 0.1f, 9.0f, 3.1f};
    float **out = run_graph(m, (const float *[]){values, indices});
    float want[32] = {0};
    want[(0 * 4 + 1) * 2 + 0] = 2;    /* (0,1) from -1.5 */
    want[(3 * 4 + 1) * 2 + 0] = 5;    /* (3,1): 1, then 5 */
    want[(2 * 4 + 0) * 2 + 1] = 50;   /* channel 1: (1,0) idx 0 -> (2,0) */
    want[(3 * 4 + 3) * 2 + 1] = 40;   /* channel 1: (1,1) idx 3 -> (3,3) */
    expect_same(out[0], want, 32, "unpooled");
    free_outputs(out, 1);
    vki_model_destroy(m);
}

/* ---- pooling: odd shapes against an independent implementation ------------------------ */

typedef struct pool_case {
    int b, h, w, c, filter, stride;
    vki_padding pad;
} pool_case;

static const pool_case pool_cases[] = {
    {1, 5, 7, 1, 2, 2, VKI_PAD_SAME},  {1, 7, 5, 3, 3, 2, VKI_PAD_SAME},
    {1, 5, 5, 5, 3, 2, VKI_PAD_VALID}, {1, 9, 3, 17, 2, 2, VKI_PAD_SAME},
    {2, 3, 3, 1, 3, 1, VKI_PAD_SAME},  {1, 11, 13, 3, 2, 2, VKI_PAD_VALID},
    {1, 6, 6, 5, 3, 3, VKI_PAD_SAME},  {2, 7, 9, 17, 3, 2, VKI_PAD_VALID},
};

static int out_size(vki_padding pad, int in, int f, int s) {
    return pad == VKI_PAD_SAME ? (in + s - 1) / s : (in - f + s) / s;
}

static int pad_of(int in, int f, int s, int out) {
    int t = ((out - 1) * s + f - in) / 2;
    return t > 0 ? t : 0;
}

/* Pool then unpool (the hair segmentation's pair), checked per element: the value is the
 * first strict maximum of the clipped window and the index names it; the unpooled output
 * holds each pooled value at its decoded place (later writes winning), zeros elsewhere. */
static void check_pool_case(const pool_case *pc, uint32_t seed) {
    const int oh = out_size(pc->pad, pc->h, pc->filter, pc->stride);
    const int ow = out_size(pc->pad, pc->w, pc->filter, pc->stride);
    const int uh = oh * pc->filter, uw = ow * pc->filter;
    vki_model *m = vki_model_new("pool_case");
    int x = harness_tensor_nd(m, 4, (int[]){pc->b, pc->h, pc->w, pc->c});
    int v = harness_tensor_nd(m, 4, (int[]){pc->b, oh, ow, pc->c});
    int i = harness_tensor_nd(m, 4, (int[]){pc->b, oh, ow, pc->c});
    int u = harness_tensor_nd(m, 4, (int[]){pc->b, uh, uw, pc->c});
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), pc->pad, pc->stride,
             pc->filter, VKI_ACT_NONE);
    set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), pc->pad, pc->stride,
             pc->filter, VKI_ACT_NONE);
    cr_assert(vki_model_set_io(m, 1, &x, 3, (int[]){v, i, u}));
    const size_t n_in = elems(m, x);
    float *in = malloc(n_in * sizeof(float));
    cr_assert(in);
    /* Values on a coarse grid, so windows hold ties. */
    harness_fill(in, n_in, seed, -4.0f, 4.0f);
    for (size_t k = 0; k < n_in; k++) in[k] = floorf(in[k]);
    float **out = run_graph(m, (const float *[]){in});
    const int ph = pad_of(pc->h, pc->filter, pc->stride, oh);
    const int pw = pad_of(pc->w, pc->filter, pc->stride, ow);
    float *unpooled = calloc(elems(m, u), sizeof(float));
    cr_assert(unpooled);
    const int uph = pad_of(uh, pc->filter, pc->stride, oh), upw = pad_of(uw, pc->filter, pc->stride, ow);
    for (int b = 0; b < pc->b; b++)
        for (int y = 0; y < oh; y++)
            for (int xx = 0; xx < ow; xx++)
                for (int c = 0; c < pc->c; c++) {
                    const size_t at = (((size_t)b * oh + y) * ow + xx) * pc->c + c;
                    double best = -INFINITY;
                    int best_at = -1;
                    for (int fy = 0; fy < pc->filter; fy++)
                        for (int fx = 0; fx < pc->filter; fx++) {
                            const int iy = y * pc->stride - ph + fy, ix = xx * pc->stride - pw + fx;
                            if (iy < 0 || iy >= pc->h || ix < 0 || ix >= pc->w) continue;
                            const float val = in[(((size_t)b * pc->h + iy) * pc->w + ix) * pc->c + c];
                            if (val > best) best = val, best_at = fy * pc->filter + fx;
                        }
                    cr_assert(best_at >= 0);
                    cr_assert_eq(out[0][at], (float)best, "case %dx%dx%d f%d s%d: value %zu",
                                 pc->h, pc->w, pc->c, pc->filter, pc->stride, at);
                    cr_assert_eq(out[1][at], (float)best_at + 0.1f, "index %zu: %g, want %d.1",
                                 at, (double)out[1][at], best_at);
                    const int ty = y * pc->stride - uph + best_at / pc->filter;
                    const int tx = xx * pc->stride - upw + best_at % pc->filter;
                    if (ty >= 0 && ty < uh && tx >= 0 && tx < uw)
                        unpooled[(((size_t)b * uh + ty) * uw + tx) * pc->c + c] = (float)best;
                }
    expect_same(out[2], unpooled, elems(m, u), "unpooled");
    free(unpooled);
    free(in);
    free_outputs(out, 3);
    vki_model_destroy(m);
}

Test(max_pool_argmax, odd_shapes_against_independent_code) {
    for (size_t k = 0; k < sizeof pool_cases / sizeof pool_cases[0]; k++)
        check_pool_case(&pool_cases[k], 11 + (uint32_t)k);
}

/* ABS (GPU) -> MaxPoolingWithArgmax2D -> LOGISTIC (GPU) on the values, the indices and
 * MaxUnpooling2D's output as outputs: the partition's plumbing against the references. */
Test(max_pool_argmax, between_gpu_ops_against_reference) {
    for (size_t k = 0; k < sizeof pool_cases / sizeof pool_cases[0]; k++) {
        const pool_case *pc = &pool_cases[k];
        const int oh = out_size(pc->pad, pc->h, pc->filter, pc->stride);
        const int ow = out_size(pc->pad, pc->w, pc->filter, pc->stride);
        vki_model *m = vki_model_new("pool_gpu");
        const int in_dims[4] = {pc->b, pc->h, pc->w, pc->c}, o_dims[4] = {pc->b, oh, ow, pc->c};
        int x = harness_tensor_nd(m, 4, in_dims), a = harness_tensor_nd(m, 4, in_dims);
        harness_op(m, VKI_OP_ABS, 1, &x, a);
        int v = harness_tensor_nd(m, 4, o_dims), i = harness_tensor_nd(m, 4, o_dims);
        int u = harness_tensor_nd(m, 4, (int[]){pc->b, oh * pc->filter, ow * pc->filter, pc->c});
        int s = harness_tensor_nd(m, 4, o_dims);
        set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &a, 2, (int[]){v, i}), pc->pad,
                 pc->stride, pc->filter, VKI_ACT_RELU6);
        set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), pc->pad, pc->stride,
                 pc->filter, VKI_ACT_NONE);
        harness_op(m, VKI_OP_LOGISTIC, 1, &v, s);
        cr_assert(vki_model_set_io(m, 1, &x, 3, (int[]){s, i, u}));
        check_against_reference(m, 100 + (uint32_t)k);
    }
}

/* ---- TransformTensorBilinear ---------------------------------------------------------- */

static int bilinear_model(vki_model *m, int h, int w, int c, int oh, int ow, int *x, int *mat) {
    *x = harness_tensor(m, h, w, c);
    *mat = harness_tensor_nd(m, 3, (int[]){1, 4, 4});
    int y = harness_tensor(m, oh, ow, c);
    set_bilinear(custom(m, "TransformTensorBilinear", 2, (int[]){*x, *mat}, 1, &y), oh, ow);
    return y;
}

/* data [1,2,3,1] = {0,1,2 / 10,11,12}: each row is linear in x, so a sample at (tx, ty) with
 * 0 <= ty <= 1 is tx + 10 ty.
 * Identity: the corner correction adds m00 * 0.5 + m01 * 0.5 - 0.5 = 0 to m03: the output
 * is the input (tx = 2 = W - 1 is inside, its right neighbour has weight 0).
 * Scale 0.5 ([0.5,0,0,0 / 0,0.5,0,0]): m03 = 0 + 0.25 - 0.5 = -0.25, so tx = 0.5 x - 0.25:
 * x 0..5 -> -0.25 (outside: 0), 0.25, 0.75, 1.25, 1.75, 2.25 (outside); ty likewise for y
 * 0..3 -> -0.25 (0), 0.25, 0.75, 1.25 (> H - 1: 0). Row 1: tx + 2.5 = 2.75 3.25 3.75 4.25;
 * row 2: tx + 7.5 = 7.75 8.25 8.75 9.25.
 * Shift by one ([1,0,0,1 / 0,1,0,0]): m03 = 1 + 0.5 - 0.5 = 1: x -> x + 1: {1, 2, 0 / 11, 12, 0}. */
Test(transform_tensor_bilinear, by_hand) {
    const float data[6] = {0, 1, 2, 10, 11, 12};
    const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float half[16] = {0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float shift[16] = {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float want_half[24] = {0, 0, 0, 0, 0, 0,
                                 0, 2.75f, 3.25f, 3.75f, 4.25f, 0,
                                 0, 7.75f, 8.25f, 8.75f, 9.25f, 0,
                                 0, 0, 0, 0, 0, 0};
    const struct { const float *mat; int oh, ow; const float *want; } cases[] = {
        {identity, 2, 3, data},
        {half, 4, 6, want_half},
        {shift, 2, 3, (const float[]){1, 2, 0, 11, 12, 0}},
    };
    for (size_t k = 0; k < 3; k++) {
        vki_model *m = vki_model_new("bilinear_by_hand");
        int x, mat, y = bilinear_model(m, 2, 3, 1, cases[k].oh, cases[k].ow, &x, &mat);
        cr_assert(vki_model_set_io(m, 2, (int[]){x, mat}, 1, &y));
        float **out = run_graph(m, (const float *[]){data, cases[k].mat});
        expect_close(out[0], cases[k].want, (size_t)(cases[k].oh * cases[k].ow), 1e-6, "output");
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* A NaN in the matrix gives NaN coordinates, hence NaN samples (inside, by MediaPipe's test);
 * an infinite one puts every pixel outside (0). */
Test(transform_tensor_bilinear, non_finite_matrix) {
    const float data[6] = {0, 1, 2, 10, 11, 12};
    const float nan_m[16] = {NAN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float inf_m[16] = {1, 0, 0, INFINITY, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int k = 0; k < 2; k++) {
        vki_model *m = vki_model_new("bilinear_nan");
        int x, mat, y = bilinear_model(m, 2, 3, 1, 2, 3, &x, &mat);
        cr_assert(vki_model_set_io(m, 2, (int[]){x, mat}, 1, &y));
        float **out = run_graph(m, (const float *[]){data, k ? inf_m : nan_m});
        for (int e = 0; e < 6; e++)
            cr_assert(k ? out[0][e] == 0.0f : isnan(out[0][e]), "element %d: %g", e,
                      (double)out[0][e]);
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* The matrix rotating by `angle`, scaling by s and centring an oh x ow output on (cx, cy). */
static void crop_matrix(float *mt, double angle, double s, double cx, double cy, int oh, int ow) {
    const double c = cos(angle) * s, sn = sin(angle) * s;
    const double ox = ow / 2.0, oy = oh / 2.0;
    const double rows[2][4] = {{c, -sn, 0, cx - c * ox + sn * oy}, {sn, c, 0, cy - sn * ox - c * oy}};
    memset(mt, 0, 16 * sizeof(float));
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 4; k++) mt[r * 4 + k] = (float)rows[r][k];
    mt[10] = mt[15] = 1.0f;
}

/* MediaPipe's sampling in double: corner corrected, bilinear, zero outside; NaN (not
 * compared) within 1e-4 of an edge, where float and double coordinates may fall apart. */
static double sample_ref(const float *x, int h, int w, int c, int ch, const float *mt, int ox, int oy) {
    double m03 = (double)mt[3] + mt[0] * 0.5 + mt[1] * 0.5 - 0.5;
    double m13 = (double)mt[7] + mt[4] * 0.5 + mt[5] * 0.5 - 0.5;
    double tx = (double)mt[0] * ox + (double)mt[1] * oy + m03;
    double ty = (double)mt[4] * ox + (double)mt[5] * oy + m13;
    if (fabs(tx) < 1e-4 || fabs(tx - (w - 1)) < 1e-4 || fabs(ty) < 1e-4 ||
        fabs(ty - (h - 1)) < 1e-4)
        return NAN;
    if (tx < 0 || tx > w - 1 || ty < 0 || ty > h - 1) return 0;
    int x0 = (int)floor(tx), y0 = (int)floor(ty);
    double fx = tx - x0, fy = ty - y0, q[2][2];
    for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
            int yy = y0 + dy, xx = x0 + dx;
            q[dy][dx] = yy < h && xx < w ? x[((size_t)yy * w + xx) * c + ch] : 0.0;
        }
    return (1 - fy) * ((1 - fx) * q[0][0] + fx * q[0][1]) + fy * ((1 - fx) * q[1][0] + fx * q[1][1]);
}

typedef struct bilinear_case { int h, w, c, oh, ow; double angle, s; } bilinear_case;

static const bilinear_case bilinear_cases[] = {
    {5, 7, 1, 3, 5, 0.3, 0.9},  {7, 5, 3, 7, 5, -0.7, 0.6}, {9, 9, 5, 4, 6, 1.2, 1.3},
    {3, 11, 17, 5, 3, 0.0, 0.5}, {1, 1, 3, 2, 2, 0.0, 0.1}, {13, 3, 5, 9, 9, 2.5, 0.4},
};

Test(transform_tensor_bilinear, odd_shapes_against_independent_code) {
    for (size_t k = 0; k < sizeof bilinear_cases / sizeof bilinear_cases[0]; k++) {
        const bilinear_case *bc = &bilinear_cases[k];
        vki_model *m = vki_model_new("bilinear_case");
        int x, mat, y = bilinear_model(m, bc->h, bc->w, bc->c, bc->oh, bc->ow, &x, &mat);
        cr_assert(vki_model_set_io(m, 2, (int[]){x, mat}, 1, &y));
        float *data = malloc(elems(m, x) * sizeof(float)), mt[16];
        cr_assert(data);
        harness_fill(data, elems(m, x), 7 + (uint32_t)k, -1.0f, 1.0f);
        crop_matrix(mt, bc->angle, bc->s, (bc->w - 1) / 2.0, (bc->h - 1) / 2.0, bc->oh, bc->ow);
        float **out = run_graph(m, (const float *[]){data, mt});
        int inside = 0;
        for (int oy = 0; oy < bc->oh; oy++)
            for (int ox = 0; ox < bc->ow; ox++)
                for (int c = 0; c < bc->c; c++) {
                    double want = sample_ref(data, bc->h, bc->w, bc->c, c, mt, ox, oy);
                    float got = out[0][((size_t)oy * bc->ow + ox) * bc->c + c];
                    if (isnan(want)) continue;
                    inside += want != 0.0;
                    cr_assert(fabs(got - want) <= 1e-5, "case %zu (%d,%d,%d): %.9g, want %.9g",
                              k, oy, ox, c, (double)got, want);
                }
        /* (a 1x1 input is inside only at exactly (0, 0)) */
        cr_assert(inside > 0 || bc->h == 1, "case %zu samples nothing inside", k);
        free(data);
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* ---- Landmarks2TransformMatrix -------------------------------------------------------- */

static int l2m_model(vki_model *m, int n, const l2m *d, int *lm) {
    *lm = harness_tensor_nd(m, 3, (int[]){1, n, 3});
    int y = harness_tensor_nd(m, 3, (int[]){1, 4, 4});
    set_l2m(custom(m, "Landmarks2TransformMatrix", 1, lm, 1, &y), d);
    return y;
}

/* Axis-aligned: left (0,0), right (4,0): atan2(0, 4) = 0, rotation = 0 - 0 = 0; the subset
 * {0, 2} spans x 0..4, y 0..2: box 4 x 2, centre (2, 1). Output 8 x 4, scales 1:
 * T(2,1) * S(4/8, 2/4) * T(-4, -2) = [0.5 0 0 2 - 2; 0 0.5 0 1 - 1; 0 0 1 0; 0 0 0 1].
 * Rotated: left (1,1), right (1,3): atan2(2, 0) = pi/2, rotation r = -pi/2;
 * R(r) = [cos r, -sin r; sin r, cos r] = [0 1; -1 0] takes (x, y) to (y, -x): the subset
 * {0, 1, 2} with p2 = (2,2) gives (1,-1), (3,-1), (2,-2): box x 1..3, y -2..-1, 2 x 1,
 * centre (2, -1.5), back through R(-r) = [0 -1; 1 0]: (1.5, 2). Output 4 x 2:
 * T(1.5, 2) * R(pi/2) * S(2/4, 1/2) * T(-2, -1): T * R = [0 -1 0 1.5; 1 0 0 2], times S
 * [0 -0.5 0 1.5; 0.5 0 0 2], times T(-2,-1): last column 1.5 + 0.5 = 2, 2 - 1 = 1:
 * [0 -0.5 0 2; 0.5 0 0 1; 0 0 1 0; 0 0 0 1]. (Pixel (0,0) -> (2,1), (4,2) -> (1,3): the
 * box's corners.) */
Test(landmarks_to_transform_matrix, by_hand) {
    const float axis[12] = {0, 0, 9, 4, 0, 9, 4, 2, 9, 0, 2, 9};
    const float turned[9] = {1, 1, 0, 1, 3, 0, 2, 2, 0};
    const l2m da = {.left = 0, .right = 1, .out_h = 4, .out_w = 8, .n = 2, .subset = {0, 2},
                    .scale_x = 1, .scale_y = 1};
    const l2m dr = {.left = 0, .right = 1, .out_h = 2, .out_w = 4, .n = 3, .subset = {0, 1, 2},
                    .scale_x = 1, .scale_y = 1};
    const struct { const float *lm; int n; const l2m *d; float want[16]; } cases[] = {
        {axis, 4, &da, {0.5f, 0, 0, 0, 0, 0.5f, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
        {turned, 3, &dr, {0, -0.5f, 0, 2, 0.5f, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1}},
    };
    for (int k = 0; k < 2; k++) {
        vki_model *m = vki_model_new("l2m_by_hand");
        int lm, y = l2m_model(m, cases[k].n, cases[k].d, &lm);
        cr_assert(vki_model_set_io(m, 1, &lm, 1, &y));
        float **out = run_graph(m, (const float *[]){cases[k].lm});
        expect_close(out[0], cases[k].want, 16, 1e-6, "matrix");
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* MediaPipe's matrix in double, written from its description (not the kernel's steps). */
static void l2m_ref(const float *lm, const l2m *d, double out[16]) {
    const double lx = lm[d->left * 3], ly = lm[d->left * 3 + 1];
    const double rx = lm[d->right * 3], ry = lm[d->right * 3 + 1];
    const double rot = d->target - atan2(ry - ly, rx - lx);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < d->n; k++) {
        const double x = lm[d->subset[k] * 3], y = lm[d->subset[k] * 3 + 1];
        const double p[2] = {cos(rot) * x - sin(rot) * y, sin(rot) * x + cos(rot) * y};
        for (int a = 0; a < 2; a++) {
            if (p[a] < lo[a]) lo[a] = p[a];
            if (p[a] > hi[a]) hi[a] = p[a];
        }
    }
    const double mx = (lo[0] + hi[0]) / 2, my = (lo[1] + hi[1]) / 2;
    /* the centre rotated back by -rot */
    const double cx = cos(-rot) * mx - sin(-rot) * my, cy = sin(-rot) * mx + cos(-rot) * my;
    const double sx = d->scale_x * (hi[0] - lo[0]) / d->out_w;
    const double sy = d->scale_y * (hi[1] - lo[1]) / d->out_h;
    /* T(c) R(-rot) S T(-o/2): x' = R(-rot) (S (p - o/2)) + c */
    const double c = cos(-rot), s = sin(-rot);
    memset(out, 0, 16 * sizeof(double));
    out[0] = c * sx, out[1] = -s * sy;
    out[4] = s * sx, out[5] = c * sy;
    out[3] = cx + out[0] * (-d->out_w / 2.0) + out[1] * (-d->out_h / 2.0);
    out[7] = cy + out[4] * (-d->out_w / 2.0) + out[5] * (-d->out_h / 2.0);
    out[10] = out[15] = 1;
}

Test(landmarks_to_transform_matrix, random_against_independent_code) {
    const l2m cases[] = {
        {.left = 0, .right = 4, .out_h = 5, .out_w = 7, .n = 4, .subset = {0, 1, 2, 3},
         .target = 0.0f, .scale_x = 1.0f, .scale_y = 1.0f},
        {.left = 6, .right = 2, .out_h = 16, .out_w = 16, .n = 5, .subset = {1, 5, 7, 3, 0},
         .target = 0.5f, .scale_x = 1.5f, .scale_y = 2.0f},
        {.left = 3, .right = 9, .out_h = 3, .out_w = 1, .n = 12,
         .subset = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 10, 10}, .target = -3.0f, .scale_x = 0.7f,
         .scale_y = 0.3f},
        {.left = 1, .right = 1, .out_h = 8, .out_w = 9, .n = 1, .subset = {2}, /* one point */
         .target = 1.0f, .scale_x = 1.0f, .scale_y = 1.0f},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vki_model *m = vki_model_new("l2m_random");
        const int n = 11;
        int lm, y = l2m_model(m, n, &cases[k], &lm);
        cr_assert(vki_model_set_io(m, 1, &lm, 1, &y));
        float pts[33];
        harness_fill(pts, 33, 3 + (uint32_t)k, 0.0f, 64.0f);
        float **out = run_graph(m, (const float *[]){pts});
        double want[16];
        l2m_ref(pts, &cases[k], want);
        for (int e = 0; e < 16; e++)
            cr_assert(fabs(out[0][e] - want[e]) <= 1e-4 * fmax(1.0, fabs(want[e])),
                      "case %zu element %d: %.9g, want %.9g", k, e, (double)out[0][e], want[e]);
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* ---- TransformLandmarks --------------------------------------------------------------- */

/* [[2,0,0,1],[0,3,0,-1],...]: (x, y, z) -> (2x + 1, 3y - 1, z): (1,2,5) -> (3,5,5),
 * (-1,0,7) -> (-1,-1,7); with D = 2 the same without z. m02 and m12 multiply 0. */
Test(transform_landmarks, by_hand) {
    const float mt[16] = {2, 0, 5, 1, 0, 3, 5, -1, 0, 0, 1, 0, 0, 0, 0, 1};
    for (int d = 2; d <= 3; d++) {
        vki_model *m = vki_model_new("tl_by_hand");
        int lm = harness_tensor_nd(m, 3, (int[]){1, 2, d});
        int mat = harness_tensor_nd(m, 2, (int[]){4, 4});
        int y = harness_tensor_nd(m, 3, (int[]){1, 2, d});
        custom(m, "TransformLandmarks", 2, (int[]){lm, mat}, 1, &y);
        cr_assert(vki_model_set_io(m, 2, (int[]){lm, mat}, 1, &y));
        const float in3[6] = {1, 2, 5, -1, 0, 7}, in2[4] = {1, 2, -1, 0};
        const float want3[6] = {3, 5, 5, -1, -1, 7}, want2[4] = {3, 5, -1, -1};
        float **out = run_graph(m, (const float *[]){d == 3 ? in3 : in2, mt});
        expect_same(out[0], d == 3 ? want3 : want2, (size_t)(2 * d), "landmarks");
        free_outputs(out, 1);
        vki_model_destroy(m);
    }
}

/* The attention model's chain: landmarks (moved onto 0..8 by GPU ops) ->
 * Landmarks2TransformMatrix -> TransformTensorBilinear of a feature map and
 * TransformLandmarks of other landmarks, LOGISTIC (GPU) after each: against the references. */
Test(transform_chain, between_gpu_ops_against_reference) {
    const int channels[] = {1, 3, 5, 17};
    for (int k = 0; k < 4; k++) {
        vki_model *m = vki_model_new("transform_chain");
        int ins[4], n_in = 0;
        int lm = harness_operand_add(m, OPERAND_ACT_IN(0.0f, 8.0f, 1, 7, 3), 1, ins, &n_in);
        int mat = harness_tensor_nd(m, 3, (int[]){1, 4, 4});
        const l2m d = {.left = 0, .right = 3, .out_h = 5, .out_w = 3, .n = 5,
                       .subset = {0, 1, 2, 4, 6}, .target = 0.2f, .scale_x = 1.2f, .scale_y = 1.1f};
        set_l2m(custom(m, "Landmarks2TransformMatrix", 1, &lm, 1, &mat), &d);
        int fmap = harness_tensor(m, 9, 7, channels[k]);
        ins[n_in++] = fmap;
        int crop = harness_tensor(m, 5, 3, channels[k]), crop_s = harness_tensor(m, 5, 3, channels[k]);
        set_bilinear(custom(m, "TransformTensorBilinear", 2, (int[]){fmap, mat}, 1, &crop), 5, 3);
        harness_op(m, VKI_OP_LOGISTIC, 1, &crop, crop_s);
        int other = harness_tensor_nd(m, 3, (int[]){1, 13, 3});
        ins[n_in++] = other;
        int moved = harness_tensor_nd(m, 3, (int[]){1, 13, 3});
        int moved_s = harness_tensor_nd(m, 3, (int[]){1, 13, 3});
        custom(m, "TransformLandmarks", 2, (int[]){other, mat}, 1, &moved);
        harness_op(m, VKI_OP_LOGISTIC, 1, &moved, moved_s);
        cr_assert(vki_model_set_io(m, n_in, ins, 3, (int[]){crop_s, moved_s, mat}));
        check_against_reference(m, 40 + (uint32_t)k);
    }
}

/* ---- validation of hand-built models -------------------------------------------------- */

static void io(vki_model *m, int n_in, const int *in, int n_out, const int *out) {
    cr_assert(vki_model_set_io(m, n_in, in, n_out, out));
}

Test(validation, shapes_and_options) {
    /* VALID with a filter larger than the input. */
    vki_model *m = vki_model_new("bad_pool");
    int x = harness_tensor(m, 3, 3, 1), v = harness_tensor(m, 1, 1, 1), i = harness_tensor(m, 1, 1, 1);
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_VALID, 1, 4,
             VKI_ACT_NONE);
    io(m, 1, (int[]){x}, 2, (int[]){v, i});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "MaxPoolingWithArgmax2D", "does not fit");
    /* Stride 0. */
    m = vki_model_new("bad_stride");
    x = harness_tensor(m, 3, 3, 1), v = harness_tensor(m, 2, 2, 1), i = harness_tensor(m, 2, 2, 1);
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_SAME, 0, 2,
             VKI_ACT_NONE);
    io(m, 1, (int[]){x}, 2, (int[]){v, i});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must be positive");
    /* Outputs of the wrong shape. */
    m = vki_model_new("bad_out");
    x = harness_tensor(m, 5, 5, 3), v = harness_tensor(m, 2, 2, 3), i = harness_tensor(m, 3, 3, 3);
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_SAME, 2, 2,
             VKI_ACT_NONE);
    io(m, 1, (int[]){x}, 2, (int[]){v, i});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,2,2,3]", "[1,3,3,3]");
    /* Unpooling: indices of another shape. */
    m = vki_model_new("bad_indices");
    v = harness_tensor(m, 2, 2, 3), i = harness_tensor(m, 2, 2, 1);
    int u = harness_tensor(m, 4, 4, 3);
    set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), VKI_PAD_SAME, 2, 2, VKI_ACT_NONE);
    io(m, 2, (int[]){v, i}, 1, (int[]){u});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "indices", "need the values' shape");
    /* TransformTensorBilinear: a 3x3 matrix; batch 2. */
    m = vki_model_new("bad_matrix");
    x = harness_tensor(m, 4, 4, 1);
    int mat = harness_tensor_nd(m, 2, (int[]){3, 3}), y = harness_tensor(m, 2, 2, 1);
    set_bilinear(custom(m, "TransformTensorBilinear", 2, (int[]){x, mat}, 1, &y), 2, 2);
    io(m, 2, (int[]){x, mat}, 1, (int[]){y});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "4x4 matrix");
    m = vki_model_new("bad_batch");
    x = harness_tensor_nd(m, 4, (int[]){2, 4, 4, 1});
    mat = harness_tensor_nd(m, 2, (int[]){4, 4}), y = harness_tensor(m, 2, 2, 1);
    set_bilinear(custom(m, "TransformTensorBilinear", 2, (int[]){x, mat}, 1, &y), 2, 2);
    io(m, 2, (int[]){x, mat}, 1, (int[]){y});
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "batch 2");
    /* Landmarks2TransformMatrix: a landmark beyond the input, an empty subset, scale 0. */
    const l2m beyond = {.left = 0, .right = 5, .out_h = 2, .out_w = 2, .n = 1, .subset = {0},
                        .scale_x = 1, .scale_y = 1};
    const l2m empty = {.left = 0, .right = 1, .out_h = 2, .out_w = 2, .n = 0, .scale_x = 1,
                       .scale_y = 1};
    const l2m unscaled = {.left = 0, .right = 1, .out_h = 2, .out_w = 2, .n = 1, .subset = {0},
                          .scale_x = 0, .scale_y = 1};
    const struct { const l2m *d; const char *needle; } bad[] = {
        {&beyond, "landmark 5"}, {&empty, "subset_idxs is empty"}, {&unscaled, "scale_x 0"}};
    for (int k = 0; k < 3; k++) {
        m = vki_model_new("bad_l2m");
        int lm, out = l2m_model(m, 5, bad[k].d, &lm);
        io(m, 1, (int[]){lm}, 1, (int[]){out});
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "Landmarks2TransformMatrix", bad[k].needle);
    }
    /* TransformLandmarks: rank 4 (version 1's form) and D = 4. */
    m = vki_model_new("bad_tl");
    int lm = harness_tensor_nd(m, 4, (int[]){1, 1, 5, 3});
    mat = harness_tensor_nd(m, 2, (int[]){4, 4});
    y = harness_tensor_nd(m, 4, (int[]){1, 1, 5, 3});
    custom(m, "TransformLandmarks", 2, (int[]){lm, mat}, 1, &y);
    io(m, 2, (int[]){lm, mat}, 1, (int[]){y});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,N,2] or [1,N,3]");
    m = vki_model_new("bad_tl_dims");
    lm = harness_tensor_nd(m, 3, (int[]){1, 5, 4});
    mat = harness_tensor_nd(m, 2, (int[]){4, 4});
    y = harness_tensor_nd(m, 3, (int[]){1, 5, 4});
    custom(m, "TransformLandmarks", 2, (int[]){lm, mat}, 1, &y);
    io(m, 2, (int[]){lm, mat}, 1, (int[]){y});
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,N,2] or [1,N,3]");
}

/* ---- the loader: .tflite files from tests/tflite_writer.py ---------------------------- */

/* A FlexBuffer map of int, float and int-vector values, laid out as tflite_writer.py's
 * flexbuffer_map (every width 4) with typed vectors (VECTOR_INT) for the vectors: their
 * elements (after a uint32 count) before the keys vector; the map's slot holds the offset
 * back to them. kind 'i' int, 'f' float, 'v' int vector. Keys must come sorted. */
typedef struct flex_entry {
    const char *key;
    char kind;
    double value;
    int n;
    const int *items;
} flex_entry;

static void put_u32(uint8_t *buf, size_t *len, uint32_t v) {
    for (int i = 0; i < 4; i++) buf[(*len)++] = (uint8_t)(v >> (8 * i));
}

static size_t flex_map(const flex_entry *e, int n, uint8_t *buf) {
    size_t len = 0, key_at[16], vec_at[16];
    for (int k = 0; k < n; k++) {
        if (k) cr_assert(strcmp(e[k - 1].key, e[k].key) < 0, "keys out of order");
        key_at[k] = len;
        memcpy(buf + len, e[k].key, strlen(e[k].key) + 1);
        len += strlen(e[k].key) + 1;
    }
    while (len % 4) buf[len++] = 0;
    for (int k = 0; k < n; k++) {
        if (e[k].kind != 'v') continue;
        put_u32(buf, &len, (uint32_t)e[k].n);
        vec_at[k] = len;
        for (int j = 0; j < e[k].n; j++) put_u32(buf, &len, (uint32_t)e[k].items[j]);
    }
    put_u32(buf, &len, (uint32_t)n);
    const size_t keys = len;
    for (int k = 0; k < n; k++) put_u32(buf, &len, (uint32_t)(len - key_at[k]));
    put_u32(buf, &len, (uint32_t)(len - keys));
    put_u32(buf, &len, 4);
    put_u32(buf, &len, (uint32_t)n);
    const size_t map = len;
    for (int k = 0; k < n; k++) {
        if (e[k].kind == 'i') put_u32(buf, &len, (uint32_t)(int32_t)e[k].value);
        else if (e[k].kind == 'f') {
            float f = (float)e[k].value;
            uint32_t u;
            memcpy(&u, &f, 4);
            put_u32(buf, &len, u);
        } else put_u32(buf, &len, (uint32_t)(len - vec_at[k]));
    }
    for (int k = 0; k < n; k++)   /* INT 1, FLOAT 3, VECTOR_INT 11; width 4 */
        buf[len++] = (uint8_t)((e[k].kind == 'i' ? 1 : e[k].kind == 'f' ? 3 : 11) << 2 | 2);
    while (len % 4) buf[len++] = 0;
    put_u32(buf, &len, (uint32_t)(len - map));
    buf[len++] = 9 << 2 | 2;   /* MAP, width 4 */
    buf[len++] = 4;
    return len;
}

/* TfLitePoolParams bytes: padding (1 SAME, 2 VALID), stride w/h, filter w/h, activation,
 * then the 16 bytes of `computed`. */
static size_t pool_params(uint8_t *buf, int pad, int stride, int filter, int act) {
    size_t len = 0;
    const int32_t f[10] = {pad, stride, stride, filter, filter, act, 0, 0, 0, 0};
    for (int k = 0; k < 10; k++) put_u32(buf, &len, (uint32_t)f[k]);
    return len;
}

/* A .tflite spec in JSON, written piece by piece. */
typedef struct spec {
    char text[16384];
    size_t len;
    int n_tensors, n_ops;
} spec;

static void spec_add(spec *s, const char *fmt, ...) VKI_PRINTF(2, 3);
static void spec_add(spec *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->text + s->len, sizeof s->text - s->len, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < sizeof s->text - s->len, "spec too long");
    s->len += (size_t)n;
}

static int spec_tensor(spec *s, const char *name, int rank, const int *shape) {
    spec_add(s, "%s{\"name\": \"%s\", \"type\": \"float32\", \"shape\": [", s->n_tensors ? ", " : "", name);
    for (int i = 0; i < rank; i++) spec_add(s, "%s%d", i ? ", " : "", shape[i]);
    spec_add(s, "]}");
    return s->n_tensors++;
}

/* "ops": [...] entries: a custom op with its options bytes (NULL: none). */
static void spec_op(spec *s, const char *name, int n_in, const int *in, int n_out, const int *out,
                    const uint8_t *opts, size_t n_opts) {
    spec_add(s, "%s{\"custom\": \"%s\", \"inputs\": [", s->n_ops++ ? ", " : "", name);
    for (int i = 0; i < n_in; i++) spec_add(s, "%s%d", i ? ", " : "", in[i]);
    spec_add(s, "], \"outputs\": [");
    for (int i = 0; i < n_out; i++) spec_add(s, "%s%d", i ? ", " : "", out[i]);
    spec_add(s, "]");
    if (opts) {
        spec_add(s, ", \"custom_options\": [");
        for (size_t i = 0; i < n_opts; i++) spec_add(s, "%s%u", i ? ", " : "", opts[i]);
        spec_add(s, "]");
    }
    spec_add(s, "}");
}

static void spec_io(spec *s, int n_in, const int *in, int n_out, const int *out) {
    spec_add(s, "], \"inputs\": [");
    for (int i = 0; i < n_in; i++) spec_add(s, "%s%d", i ? ", " : "", in[i]);
    spec_add(s, "], \"outputs\": [");
    for (int i = 0; i < n_out; i++) spec_add(s, "%s%d", i ? ", " : "", out[i]);
    spec_add(s, "]}");
}

/* Writes the spec with tflite_writer.py and loads it: the status, and *out on success. */
static vki_status load_spec(const spec *s, vki_model **out) {
    const char *root = getenv("VKI_SOURCE_ROOT");
    char writer[1024], json[256], tfl[256], cmd[2600];
    if (root) snprintf(writer, sizeof writer, "%s/tests/tflite_writer.py", root);
    else {   /* __FILE__ is this file's path as the build gave it */
        snprintf(writer, sizeof writer, "%s", __FILE__);
        char *slash = strrchr(writer, '/');
        snprintf(slash ? slash + 1 : writer, sizeof writer - (size_t)(slash ? slash + 1 - writer : 0),
                 "tflite_writer.py");
    }
    snprintf(json, sizeof json, "/tmp/vki_mp_%d.json", (int)getpid());
    snprintf(tfl, sizeof tfl, "/tmp/vki_mp_%d.tflite", (int)getpid());
    FILE *f = fopen(json, "w");
    cr_assert(f);
    fwrite(s->text, 1, s->len, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s' '%s'", writer, json, tfl);
    int rc = system(cmd);
    if (rc != 0) {
        remove(json);
        cr_skip_test("tflite_writer.py failed (%d): no python3?", rc);
    }
    *out = NULL;
    vki_status st = vki_model_load_file(tfl, out);
    remove(json);
    remove(tfl);
    return st;
}

static vki_model *load_ok(const spec *s) {
    vki_model *m = NULL;
    vki_status st = load_spec(s, &m);
    cr_assert_eq(st, VKI_OK, "%s", vki_last_error());
    return m;
}

static void load_fails(const spec *s, vki_status want, const char *needle, const char *needle2) {
    vki_model *m = NULL;
    vki_status st = load_spec(s, &m);
    const char *msg = st ? vki_last_error() : "loaded";
    cr_assert_eq(st, want, "status %s, want %s: %s", vki_status_name(st), vki_status_name(want), msg);
    cr_assert(strstr(msg, needle), "'%s' lacks '%s'", msg, needle);
    if (needle2) cr_assert(strstr(msg, needle2), "'%s' lacks '%s'", msg, needle2);
    cr_assert_null(m);
}

/* x [1,5,7,3] -> pool (SAME, 2x2, stride 2, RELU6: values [1,3,4,3] and indices) ->
 * unpool -> [1,6,8,3]: from the file, then built by hand; the same outputs. */
static void pool_spec(spec *s, const uint8_t *pool_opts, size_t n_pool, const uint8_t *unpool_opts,
                      size_t n_unpool) {
    memset(s, 0, sizeof *s);
    spec_add(s, "{\"tensors\": [");
    int x = spec_tensor(s, "x", 4, (int[]){1, 5, 7, 3});
    int v = spec_tensor(s, "values", 4, (int[]){1, 3, 4, 3});
    int i = spec_tensor(s, "indices", 4, (int[]){1, 3, 4, 3});
    int u = spec_tensor(s, "unpooled", 4, (int[]){1, 6, 8, 3});
    spec_add(s, "], \"ops\": [");
    spec_op(s, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}, pool_opts, n_pool);
    spec_op(s, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u, unpool_opts, n_unpool);
    spec_io(s, 1, &x, 3, (int[]){v, i, u});
}

Test(loader, pooling_from_file_matches_hand_built) {
    uint8_t po[40], uo[40];
    const size_t np = pool_params(po, 1, 2, 2, 3), nu = pool_params(uo, 1, 2, 2, 0);
    spec s;
    pool_spec(&s, po, np, uo, nu);
    vki_model *file = load_ok(&s);
    cr_assert_eq(file->ops[0].opt.pool.activation, VKI_ACT_RELU6);
    vki_model *m = vki_model_new("pool_hand");
    int x = harness_tensor(m, 5, 7, 3), v = harness_tensor(m, 3, 4, 3), i = harness_tensor(m, 3, 4, 3);
    int u = harness_tensor(m, 6, 8, 3);
    set_pool(custom(m, "MaxPoolingWithArgmax2D", 1, &x, 2, (int[]){v, i}), VKI_PAD_SAME, 2, 2,
             VKI_ACT_RELU6);
    set_pool(custom(m, "MaxUnpooling2D", 2, (int[]){v, i}, 1, &u), VKI_PAD_SAME, 2, 2,
             VKI_ACT_NONE);
    cr_assert(vki_model_set_io(m, 1, &x, 3, (int[]){v, i, u}));
    float in[105];
    harness_fill(in, 105, 5, -8.0f, 8.0f);
    float **a = run_graph(file, (const float *[]){in}), **b = run_graph(m, (const float *[]){in});
    expect_same(a[0], b[0], 36, "values");
    expect_same(a[1], b[1], 36, "indices");
    expect_same(a[2], b[2], 144, "unpooled");
    free_outputs(a, 3);
    free_outputs(b, 3);
    vki_model_destroy(file);
    vki_model_destroy(m);
    /* The 24 bytes without `computed` are enough. */
    pool_spec(&s, po, 24, uo, 24);
    vki_model_destroy(load_ok(&s));
}

Test(loader, malformed_pool_options) {
    uint8_t po[40], uo[40];
    pool_params(uo, 1, 2, 2, 0);
    spec s;
    pool_params(po, 1, 2, 2, 0);
    pool_spec(&s, po, 8, uo, 40);                    /* short */
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "custom_options hold 8 bytes", "MaxPoolingWithArgmax2D");
    pool_spec(&s, po, 40, uo, 23);                   /* short, on the unpooling */
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "custom_options hold 23 bytes", "MaxUnpooling2D");
    pool_spec(&s, NULL, 0, uo, 40);                  /* none */
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "custom_options hold 0 bytes", NULL);
    pool_params(po, 0, 2, 2, 0);                     /* TfLitePadding unknown */
    pool_spec(&s, po, 40, uo, 40);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "unknown padding 0", NULL);
    pool_params(po, 1, 2, 2, 9);                     /* no such activation */
    pool_spec(&s, po, 40, uo, 40);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "unknown activation 9", NULL);
    pool_params(po, 1, 2, 2, 0);
    pool_params(uo, 1, 0, 2, 0);                     /* stride 0 */
    pool_spec(&s, po, 40, uo, 40);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "must be positive", "MaxUnpooling2D");
    pool_params(po, 2, 2, 2, 0);                     /* VALID: [1,2,3,3], not the file's [1,3,4,3] */
    pool_params(uo, 1, 2, 2, 0);
    pool_spec(&s, po, 40, uo, 40);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "[1,2,3,3]", NULL);
}

/* landmarks [1,11,3] -> Landmarks2TransformMatrix -> matrix [1,4,4]; data [1,9,7,5] with it
 * -> TransformTensorBilinear [1,5,3,5]; landmarks2 [1,13,3] with it -> TransformLandmarks. */
static void transform_spec(spec *s, const uint8_t *l2m_opts, size_t n_l2m, const uint8_t *bil_opts,
                           size_t n_bil, int crop_h) {
    memset(s, 0, sizeof *s);
    spec_add(s, "{\"tensors\": [");
    int lm = spec_tensor(s, "landmarks", 3, (int[]){1, 11, 3});
    int mat = spec_tensor(s, "matrix", 3, (int[]){1, 4, 4});
    int data = spec_tensor(s, "data", 4, (int[]){1, 9, 7, 5});
    int crop = spec_tensor(s, "crop", 4, (int[]){1, crop_h, 3, 5});
    int other = spec_tensor(s, "other", 3, (int[]){1, 13, 3});
    int moved = spec_tensor(s, "moved", 3, (int[]){1, 13, 3});
    spec_add(s, "], \"ops\": [");
    spec_op(s, "Landmarks2TransformMatrix", 1, &lm, 1, &mat, l2m_opts, n_l2m);
    spec_op(s, "TransformTensorBilinear", 2, (int[]){data, mat}, 1, &crop, bil_opts, n_bil);
    spec_op(s, "TransformLandmarks", 2, (int[]){other, mat}, 1, &moved, NULL, 0);
    spec_io(s, 3, (int[]){lm, data, other}, 3, (int[]){mat, crop, moved});
}

static const int subset5[5] = {0, 1, 2, 4, 6};

static size_t l2m_options(uint8_t *buf, int left, const int *subset, int n, char subset_kind) {
    const flex_entry e[] = {
        {"left_rotation_idx", 'i', left, 0, NULL},
        {"output_height", 'i', 5, 0, NULL},
        {"output_width", 'i', 3, 0, NULL},
        {"right_rotation_idx", 'i', 3, 0, NULL},
        {"scale_x", 'f', 1.2, 0, NULL},
        {"scale_y", 'f', 1.1, 0, NULL},
        {"subset_idxs", subset_kind, 7, n, subset},
        {"target_rotation_radians", 'f', 0.2, 0, NULL},
    };
    return flex_map(e, 8, buf);
}

static size_t bilinear_options(uint8_t *buf, int h, int w, bool with_w) {
    const flex_entry e[] = {{"output_height", 'i', h, 0, NULL}, {"output_width", 'i', w, 0, NULL}};
    return flex_map(e, with_w ? 2 : 1, buf);
}

Test(loader, transforms_from_file_match_hand_built) {
    uint8_t lo[512], bo[128];
    const size_t nl = l2m_options(lo, 0, subset5, 5, 'v'), nb = bilinear_options(bo, 5, 3, true);
    spec s;
    transform_spec(&s, lo, nl, bo, nb, 5);
    vki_model *file = load_ok(&s);
    vki_model *m = vki_model_new("transforms_hand");
    const l2m d = {.left = 0, .right = 3, .out_h = 5, .out_w = 3, .n = 5,
                   .subset = {0, 1, 2, 4, 6}, .target = 0.2f, .scale_x = 1.2f, .scale_y = 1.1f};
    int lm, mat = l2m_model(m, 11, &d, &lm);
    int data = harness_tensor(m, 9, 7, 5), crop = harness_tensor(m, 5, 3, 5);
    set_bilinear(custom(m, "TransformTensorBilinear", 2, (int[]){data, mat}, 1, &crop), 5, 3);
    int other = harness_tensor_nd(m, 3, (int[]){1, 13, 3}), moved = harness_tensor_nd(m, 3, (int[]){1, 13, 3});
    custom(m, "TransformLandmarks", 2, (int[]){other, mat}, 1, &moved);
    cr_assert(vki_model_set_io(m, 3, (int[]){lm, data, other}, 3, (int[]){mat, crop, moved}));
    cr_assert(!memcmp(&file->ops[0].opt.mp, &m->ops[0].opt.mp, sizeof m->ops[0].opt.mp));
    cr_assert(!memcmp(&file->ops[1].opt.mp, &m->ops[1].opt.mp, sizeof m->ops[1].opt.mp));
    float pts[33], fmap[315], others[39];
    harness_fill(pts, 33, 1, 0.0f, 8.0f);
    harness_fill(fmap, 315, 2, -1.0f, 1.0f);
    harness_fill(others, 39, 3, -1.0f, 1.0f);
    const float *in[3] = {pts, fmap, others};
    float **a = run_graph(file, in), **b = run_graph(m, in);
    expect_same(a[0], b[0], 16, "matrix");
    expect_same(a[1], b[1], 75, "crop");
    expect_same(a[2], b[2], 39, "moved");
    int inside = 0;
    for (int k = 0; k < 75; k++) inside += a[1][k] != 0.0f;
    cr_assert(inside > 0, "the crop sampled nothing");
    free_outputs(a, 3);
    free_outputs(b, 3);
    vki_model_destroy(file);
    vki_model_destroy(m);
}

Test(loader, malformed_transform_options) {
    uint8_t lo[512], bo[128];
    size_t nl = l2m_options(lo, 0, subset5, 5, 'v'), nb = bilinear_options(bo, 5, 3, true);
    spec s;
    /* TransformTensorBilinear: none, a truncated FlexBuffer, output_width missing, a size
     * that disagrees with the output tensor. */
    transform_spec(&s, lo, nl, NULL, 0, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "TransformTensorBilinear", "has no custom_options");
    transform_spec(&s, lo, nl, bo + nb - 2, 2, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "TransformTensorBilinear", "FlexBuffer");
    uint8_t bo2[128];
    size_t nb2 = bilinear_options(bo2, 5, 3, false);
    transform_spec(&s, lo, nl, bo2, nb2, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "output_width 0", NULL);
    transform_spec(&s, lo, nl, bo, nb, 4);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "[1,4,3,5]", "the op makes [1,5,3,5]");
    /* Landmarks2TransformMatrix: the root's offset to the map past the buffer's start, the
     * subset a scalar, 13 indices, an index past the landmarks, a negative one. */
    uint8_t broken[512];
    memcpy(broken, lo, nl);
    broken[nl - 3] = 0x7f;   /* the top byte of the root's uint32 offset */
    transform_spec(&s, broken, nl, bo, nb, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "Landmarks2TransformMatrix", "FlexBuffer");
    nl = l2m_options(lo, 0, subset5, 5, 'i');
    transform_spec(&s, lo, nl, bo, nb, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "subset_idxs", "not a typed vector");
    const int many[13] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1};
    nl = l2m_options(lo, 0, many, 13, 'v');
    transform_spec(&s, lo, nl, bo, nb, 5);
    load_fails(&s, VKI_ERROR_UNSUPPORTED_MODEL, "lists 13 landmarks", "at most 12");
    const int past[2] = {3, 11};
    nl = l2m_options(lo, 0, past, 2, 'v');
    transform_spec(&s, lo, nl, bo, nb, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "landmark 11", "11 landmarks");
    nl = l2m_options(lo, -1, subset5, 5, 'v');
    transform_spec(&s, lo, nl, bo, nb, 5);
    load_fails(&s, VKI_ERROR_MODEL_FORMAT, "left_rotation_idx", "negative");
    /* All twelve the options hold, an odd count (the last one pairs with itself). */
    const int twelve[12] = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 5};
    nl = l2m_options(lo, 0, twelve, 12, 'v');
    transform_spec(&s, lo, nl, bo, nb, 5);
    vki_model_destroy(load_ok(&s));
    const int three[3] = {4, 0, 7};
    nl = l2m_options(lo, 0, three, 3, 'v');
    transform_spec(&s, lo, nl, bo, nb, 5);
    vki_model *m = load_ok(&s);
    float pts[33], fmap[315], others[39];
    harness_fill(pts, 33, 9, 0.0f, 8.0f);
    harness_fill(fmap, 315, 2, -1.0f, 1.0f);
    harness_fill(others, 39, 3, -1.0f, 1.0f);
    float **a = run_graph(m, (const float *[]){pts, fmap, others});
    const l2m d = {.left = 0, .right = 3, .out_h = 5, .out_w = 3, .n = 3, .subset = {4, 0, 7},
                   .target = 0.2f, .scale_x = 1.2f, .scale_y = 1.1f};
    double want[16];
    l2m_ref(pts, &d, want);
    for (int e = 0; e < 16; e++)
        cr_assert(fabs(a[0][e] - want[e]) <= 1e-4 * fmax(1.0, fabs(want[e])), "element %d: %g, "
                  "want %g", e, (double)a[0][e], want[e]);
    free_outputs(a, 3);
    vki_model_destroy(m);
}
