/* test_dwpw.c: a DEPTHWISE_CONV_2D and the 1x1 CONV_2D reading it in one dispatch
 * (engine/ops/dw_pw.c, glsl/dw_pw.comp). Every model is checked element by element
 * against the C reference of the unfused ops, in every precision, fused (VKI_DWPW=1: the
 * device's tiling; VKI_DWPW=2: the GPU tiling, whatever the device: the whole-tile plan
 * where it fits, its 1x1 sums split in 4 parts, or unsplit, in 2 or in 8 with 2:1, 2:2
 * and 2:8; VKI_DWPW=3: the GPU's chunked plan in one-slice chunks)
 * and with the pass disabled; the dispatch counts say whether the pair was fused, and
 * fused and unfused graphs agree to the bit. int8 / uint8 pairs (the kernel's integer
 * form) must equal the C references of the unfused integer ops element for element (0 LSB)
 * fused and unfused, in every precision. */
#include "harness.h"
#include "ops/conv_common.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 2e-5

typedef struct pair {
    int h, w, cin, cout;           /* depthwise input; 1x1 output channels */
    int k, stride;                 /* depthwise window k x k */
    vki_padding padding;
    vki_activation dw_act, pw_act;
    int no_bias;                   /* both ops without a bias */
    int residual;                  /* ADD(1x1 output, a second graph input) after the pair */
    int second_reader;             /* the depthwise output also feeds an ADD (a second output) */
    int dw_is_output;              /* the depthwise output is also a graph output */
    int pw_stride;                 /* 1x1 stride (0: 1) */
    int multiplier;                /* depth multiplier (0: 1) */
    /* BlazeFace's downsampling shortcut: ADD(1x1 output, the input through a 2x2 stride-2
     * SAME MAX_POOL_2D, zero-padded in channels to cout), the pool written 1 before the
     * depthwise op, 2 between it and the 1x1, 3 after the 1x1; 0: none. The pool's output
     * is a second graph output. */
    int pool_shortcut;
} pair;

static vki_conv_options conv_options(vki_padding pad, int stride, vki_activation act) {
    return (vki_conv_options){.padding = pad, .stride_w = stride, .stride_h = stride,
                              .dilation_w = 1, .dilation_h = 1, .activation = act};
}

static int out_size(vki_padding pad, int in, int k, int stride) {
    return pad == VKI_PAD_SAME ? (in + stride - 1) / stride : (in - k) / stride + 1;
}

/* A 2x2 stride-2 SAME MAX_POOL_2D from x to out. */
static void add_pool(vki_model *m, int x, int out) {
    harness_op(m, VKI_OP_MAX_POOL_2D, 1, &x, out)->opt.pool =
        (vki_pool_options){.padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2,
                           .filter_w = 2, .filter_h = 2};
}

/* input -> DEPTHWISE_CONV_2D -> CONV_2D 1x1 [-> ADD residual] -> output */
static vki_model *pair_model(const pair *p) {
    vki_model *m = vki_model_new("dwpw");
    const int dm = p->multiplier ? p->multiplier : 1, mid_c = p->cin * dm;
    const int pws = p->pw_stride ? p->pw_stride : 1;
    const int oh = out_size(p->padding, p->h, p->k, p->stride);
    const int ow = out_size(p->padding, p->w, p->k, p->stride);
    const int ph = (oh - 1) / pws + 1, pwid = (ow - 1) / pws + 1;
    int x = harness_tensor(m, p->h, p->w, p->cin);
    int dshape[4] = {1, p->k, p->k, mid_c}, dbshape[1] = {mid_c};
    int pshape[4] = {p->cout, 1, 1, mid_c}, pbshape[1] = {p->cout};
    int dwt = harness_const(m, 4, dshape, 101, -0.6f, 0.6f);
    int dwb = harness_const(m, 1, dbshape, 102, -0.5f, 0.5f);
    int pwt = harness_const(m, 4, pshape, 103, -0.5f, 0.5f);
    int pwb = harness_const(m, 1, pbshape, 104, -0.5f, 0.5f);
    int mid = harness_tensor(m, oh, ow, mid_c);
    int out = harness_tensor(m, ph, pwid, p->cout);
    int din[3] = {x, dwt, dwb}, pin[3] = {mid, pwt, pwb};
    int pooled = p->pool_shortcut ? harness_tensor(m, oh, ow, p->cin) : -1;
    if (p->pool_shortcut == 1) add_pool(m, x, pooled);
    vki_op *dw = harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, p->no_bias ? 2 : 3, din, mid);
    dw->opt.conv = conv_options(p->padding, p->stride, p->dw_act);
    dw->opt.conv.depth_multiplier = dm;
    if (p->pool_shortcut == 2) add_pool(m, x, pooled);
    vki_op *pw = harness_op(m, VKI_OP_CONV_2D, p->no_bias ? 2 : 3, pin, out);
    pw->opt.conv = conv_options(VKI_PAD_SAME, pws, p->pw_act);
    if (p->pool_shortcut == 3) add_pool(m, x, pooled);
    int inputs[2] = {x, -1}, outputs[3] = {out, -1, -1}, n_in = 1, n_out = 1;
    if (p->pool_shortcut) {
        int sc = pooled, sum = harness_tensor(m, ph, pwid, p->cout);
        if (p->cout > p->cin) {
            int32_t pads[8] = {0, 0, 0, 0, 0, 0, 0, p->cout - p->cin};
            int pshape2[2] = {4, 2}, ins[2];
            ins[0] = pooled;
            ins[1] = harness_int_const(m, "channel pad", 2, pshape2, pads);
            sc = harness_tensor(m, ph, pwid, p->cout);
            harness_op(m, VKI_OP_PAD, 2, ins, sc);
        }
        harness_binary(m, VKI_OP_ADD, out, sc, sum);
        m->ops[m->n_ops - 1].opt.eltwise.activation = VKI_ACT_RELU;
        outputs[0] = sum;
        /* The pool's output is a graph output too, so the pool_residual pass leaves it
         * and the ADD's residual is the pool's. */
        outputs[n_out++] = pooled;
    }
    if (p->residual) {
        int r = harness_tensor(m, ph, pwid, p->cout), sum = harness_tensor(m, ph, pwid, p->cout);
        harness_binary(m, VKI_OP_ADD, out, r, sum);
        inputs[n_in++] = r;
        outputs[0] = sum;
    }
    if (p->second_reader) {
        int twice = harness_tensor(m, oh, ow, mid_c);
        harness_binary(m, VKI_OP_ADD, mid, mid, twice);
        outputs[n_out++] = twice;
    }
    if (p->dw_is_output) outputs[n_out++] = mid;
    cr_assert(vki_model_set_io(m, n_in, inputs, n_out, outputs));
    return m;
}

/* m's fp32 graph, built with env name=value. */
static vki_graph *graph_with(const vki_model *m, const char *name, const char *value) {
    char *saved = harness_set_env(name, value);
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    harness_restore_env(name, saved);
    cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
    return g;
}

/* Dispatches of m's fp32 graph with env name=value while it builds. */
static int dispatches(const vki_model *m, const char *name, const char *value) {
    vki_graph *g = graph_with(m, name, value);
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    return n;
}

/* Every precision against the reference with name=value while graphs build. */
static void compare(const vki_model *m, const char *name, const char *value, uint32_t seed) {
    harness_spec spec = {.seed = seed, .tol = TOL, .fp16_tol = harness_fp16_tolerance(TOL),
                         .precisions = HARNESS_ALL_PRECISIONS, .env_name = name,
                         .env_value = value};
    harness_result r;
    cr_assert(harness_compare(m, &spec, &r), "%s=%s: %s", name, value, r.message);
}

/* Checks the pair fused or not (fused: one dispatch fewer than with the pass disabled)
 * and every result, fused in the three tilings and unfused. Consumes the model. Returns the
 * dispatch count with the pass disabled. */
static int check_pair(vki_model *m, int fused, uint32_t seed) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    int off = dispatches(m, "VKI_DISABLE_PASSES", "dw_pw");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "1"), off - fused, "VKI_DWPW=1");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "2"), off - fused, "VKI_DWPW=2");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "3"), off - fused, "VKI_DWPW=3");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "2:4"), off - fused, "VKI_DWPW=2:4");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "0"), off, "VKI_DWPW=0");
    compare(m, "VKI_DWPW", "1", seed);
    compare(m, "VKI_DWPW", "2", seed + 1);
    compare(m, "VKI_DWPW", "3", seed + 3);
    /* The whole tiles' 1x1 sums split in 2 and in 8 parts (parts past the slices sum
     * nothing where there are fewer than 8). */
    compare(m, "VKI_DWPW", "2:1", seed + 4);
    compare(m, "VKI_DWPW", "2:2", seed + 5);
    compare(m, "VKI_DWPW", "2:8", seed + 6);
    compare(m, "VKI_DISABLE_PASSES", "dw_pw", seed + 2);
    vki_model_destroy(m);
    return off;
}

Test(dwpw, fused_shapes) {
    /* input, the pair (one dispatch fused), output */
    const pair cases[] = {
        {.h = 7, .w = 5, .cin = 1, .cout = 1, .k = 3, .stride = 1, .padding = VKI_PAD_SAME},
        {.h = 9, .w = 7, .cin = 3, .cout = 5, .k = 3, .stride = 2, .padding = VKI_PAD_SAME},
        {.h = 11, .w = 9, .cin = 5, .cout = 17, .k = 5, .stride = 1, .padding = VKI_PAD_VALID},
        {.h = 13, .w = 11, .cin = 17, .cout = 3, .k = 5, .stride = 2, .padding = VKI_PAD_VALID},
        {.h = 15, .w = 13, .cin = 17, .cout = 17, .k = 3, .stride = 2, .padding = VKI_PAD_SAME},
        {.h = 5, .w = 19, .cin = 5, .cout = 1, .k = 5, .stride = 2, .padding = VKI_PAD_SAME},
        {.h = 21, .w = 3, .cin = 1, .cout = 5, .k = 3, .stride = 1, .padding = VKI_PAD_VALID},
        {.h = 7, .w = 7, .cin = 3, .cout = 17, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .no_bias = 1},
        /* 35 x 33 outputs: several tiles each way, the last ones partial */
        {.h = 35, .w = 33, .cin = 5, .cout = 3, .k = 3, .stride = 1, .padding = VKI_PAD_SAME},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int off = check_pair(pair_model(&cases[i]), 1, 10 + 10 * (uint32_t)i);
        cr_assert_eq(off, 3, "case %zu: input, DEPTHWISE, CONV writing the output", i);
    }
}

Test(dwpw, activations_on_both_ops) {
    const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU6,
                                   VKI_ACT_RELU_N1_TO_1, VKI_ACT_TANH};
    const int n = (int)(sizeof acts / sizeof acts[0]);
    for (int i = 0; i < n; i++) {
        /* Each activation on each op, with another on the other op. */
        pair p = {.h = 9, .w = 7, .cin = 5, .cout = 17, .k = 3, .stride = 1,
                  .padding = VKI_PAD_SAME, .dw_act = acts[i], .pw_act = acts[(i + 2) % n]};
        check_pair(pair_model(&p), 1, 200 + 10 * (uint32_t)i);
    }
}

Test(dwpw, residual_add_after_the_pointwise) {
    /* The ADD runs after the fused dispatch, or in its epilogue once the residual pass
     * folds it: either way the pair saves one dispatch. */
    pair p = {.h = 11, .w = 9, .cin = 17, .cout = 5, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU6, .pw_act = VKI_ACT_RELU,
              .residual = 1};
    check_pair(pair_model(&p), 1, 300);
    pair q = {.h = 9, .w = 7, .cin = 3, .cout = 17, .k = 5, .stride = 2,
              .padding = VKI_PAD_VALID, .residual = 1};
    check_pair(pair_model(&q), 1, 310);
}

Test(dwpw, downsampling_block_with_a_pooled_shortcut) {
    /* Where the pool is written after the depthwise op, its output (the 1x1's residual) is
     * not there when the depthwise op runs: the pair is emitted where the 1x1 stood. In
     * every place the pool may stand the pair saves one dispatch, on odd planes, with and
     * without a channel pad. */
    for (int at = 1; at <= 3; at++) {
        pair p = {.h = 9, .w = 7, .cin = 5, .cout = 17, .k = 3, .stride = 2,
                  .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU, .pool_shortcut = at};
        check_pair(pair_model(&p), 1, 320 + 10 * (uint32_t)at);
        pair q = {.h = 11, .w = 13, .cin = 3, .cout = 3, .k = 5, .stride = 2,
                  .padding = VKI_PAD_SAME, .pool_shortcut = at};
        check_pair(pair_model(&q), 1, 350 + 10 * (uint32_t)at);
    }
}

Test(dwpw, not_when_the_depthwise_output_has_another_reader) {
    pair p = {.h = 9, .w = 7, .cin = 5, .cout = 3, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .second_reader = 1};
    check_pair(pair_model(&p), 0, 400);
}

Test(dwpw, not_when_the_depthwise_output_is_a_graph_output) {
    pair p = {.h = 9, .w = 7, .cin = 5, .cout = 3, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_is_output = 1};
    check_pair(pair_model(&p), 0, 410);
}

Test(dwpw, not_a_strided_pointwise_nor_a_depth_multiplier) {
    pair p = {.h = 9, .w = 7, .cin = 5, .cout = 3, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .pw_stride = 2};
    check_pair(pair_model(&p), 0, 420);
    pair q = {.h = 9, .w = 7, .cin = 3, .cout = 5, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .multiplier = 2};
    check_pair(pair_model(&q), 0, 430);
}

Test(dwpw, many_depthwise_channels) {
    /* 133 and 261 channels (34 and 66 slices): on a CPU device with 32 KB of shared
     * memory the tile narrows to two and to one column a thread; the GPU's whole tile
     * (VKI_DWPW=2) narrows to fewer pixels, its chunked plan (VKI_DWPW=3) runs one chunk
     * per slice. */
    pair p = {.h = 9, .w = 11, .cin = 133, .cout = 17, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU};
    check_pair(pair_model(&p), 1, 500);
    pair q = {.h = 5, .w = 7, .cin = 261, .cout = 6, .k = 3, .stride = 2,
              .padding = VKI_PAD_SAME, .pw_act = VKI_ACT_RELU6};
    check_pair(pair_model(&q), 1, 510);
}

/* An fp16 graph keeping op `fp32_op` fp32: the pair's dispatch then runs fp32 (weights,
 * arithmetic, output) and stays within the fp16 bound of the reference. */
/* The rule a GPU fuses pairs by (dw_pw.c's pays, measured on an H200), on a GPU like it: a
 * pair past 24 depthwise slices fuses where its plane has at least 144 pixels and at most
 * 900 slice-taps, or 256 pixels and at most 132 slices; none under 144 pixels. */
Test(dwpw, gpu_rule_picks_the_pairs_measured_faster) {
    const vki_wg_device gpu = {.vendor_id = 0x10DE, .is_discrete = 1, .subgroup_size = 32,
                               .max_invocations = 1024, .max_size = {1024, 1024, 64},
                               .max_shared_bytes = 49152};
    static const struct {
        int h, cin, k, fused;
    } cases[] = {
        {12, 96, 3, 1},    /* 24 slices: always */
        {12, 192, 3, 1},   /* 144 pixels, 48 slices x 9 taps = 432 */
        {14, 400, 3, 1},   /* 196 pixels, 100 x 9 = 900 */
        {14, 480, 3, 0},   /* 120 x 9 = 1080: past 900 below 256 pixels */
        {28, 144, 5, 1},   /* 784 pixels, 36 x 25 = 900 */
        {16, 528, 5, 1},   /* 256 pixels, 132 slices */
        {16, 544, 5, 0},   /* 136 slices */
        {11, 128, 3, 0},   /* 121 pixels */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pair p = {.h = cases[i].h, .w = cases[i].h, .cin = cases[i].cin, .cout = 16,
                  .k = cases[i].k, .stride = 1, .padding = VKI_PAD_SAME};
        vki_model *m = pair_model(&p);
        unsigned char skip[8] = {0};
        cr_assert_leq(m->n_ops, 8);
        int fused = vki_fuse_dw_pw(m, m->ops, skip, &gpu, NULL);
        cr_expect_eq(fused, cases[i].fused, "%dx%d, %d channels, %dx%d: %d pairs fused, expected %d",
                     p.h, p.w, p.cin, p.k, p.k, fused, cases[i].fused);
        vki_model_destroy(m);
    }
}

static void check_mixed(int fp32_op, uint32_t seed) {
    pair p = {.h = 9, .w = 7, .cin = 5, .cout = 17, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU6};
    vki_model *m = pair_model(&p);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    size_t n_in = 9 * 7 * 5, n_out = 9 * 7 * 17;
    float *in = malloc(n_in * sizeof(float)), *ref = malloc(n_out * sizeof(float));
    float *got = malloc(n_out * sizeof(float));
    cr_assert(in && ref && got);
    harness_fill(in, n_in, seed, -1.0f, 1.0f);
    cr_assert_eq(vki_model_reference_run(m, (const float *const[]){in}, (float *const[]){ref}),
                 VKI_OK);
    setenv("VKI_DWPW", "1", 1);
    int ops[1] = {fp32_op};
    vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = ops, .n_fp32_ops = 1,
                           .debug_guards = 1};
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, &o, &g);
    unsetenv("VKI_DWPW");
    cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_dispatch_count(g), 2, "input, the pair writing the output");
    cr_assert_eq(vki_graph_set_input(g, 0, in, n_in * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, got, n_out * sizeof(float)), VKI_OK);
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < n_out; i++)
        if (ref[i] > scale || -ref[i] > scale) scale = ref[i] > 0 ? ref[i] : -ref[i];
    for (size_t i = 0; i < n_out; i++) {
        double e = got[i] - ref[i];
        if (e < 0) e = -e;
        if (e > worst) worst = e;
    }
    cr_assert_leq(worst / scale, harness_fp16_tolerance(TOL), "fp32 op %d: error %g", fp32_op,
                  worst / scale);
    vki_graph_destroy(g);
    vki_model_destroy(m);
    free(in);
    free(ref);
    free(got);
}

Test(dwpw, mixed_precision) {
    /* A skip, not a silent pass, where fp16 cannot run; lavapipe (CI's device) has 16-bit
     * storage, so on a CPU device its absence is a failure. */
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    if (!(harness_allowed_precisions() & HARNESS_FP16))
        cr_skip_test("VKI_TEST_PRECISIONS leaves fp16 out");
    cr_assert(dev.fp16_storage || !dev.is_cpu, "%s (a CPU device) reports no 16-bit storage",
              dev.name);
    if (!dev.fp16_storage) cr_skip_test("%s has no 16-bit storage: no fp16 graph", dev.name);
    check_mixed(0, 600);   /* the depthwise kept fp32 */
    check_mixed(1, 610);   /* the 1x1 kept fp32 */
}

/* Output 0 of m's graph in precision `precision` with name=value while it builds. */
static float *run_graph(const vki_model *m, vki_precision precision, const char *name,
                        const char *value, const float *in, size_t n_in, size_t n_out) {
    setenv(name, value, 1);
    vki_graph_options o = {.precision = precision};
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, &o, &g);
    unsetenv(name);
    cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
    float *out = malloc(n_out * sizeof(float));
    cr_assert(out);
    cr_assert_eq(vki_graph_set_input(g, 0, in, n_in * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, n_out * sizeof(float)), VKI_OK);
    vki_graph_destroy(g);
    return out;
}

Test(dwpw, bit_identical_to_the_two_dispatches) {
    /* The same arithmetic in the same order, and the depthwise values rounded to the
     * intermediate's storage type: fused and unfused agree to the bit in every precision
     * (the GPU's whole tiles unsplit, 2:1; split in parts, their sums round otherwise, and
     * check_pair holds them to the reference's tolerance; two builds of the split form
     * agree to the bit). */
    pair p = {.h = 13, .w = 11, .cin = 17, .cout = 5, .k = 5, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU6, .pw_act = VKI_ACT_TANH};
    vki_model *m = pair_model(&p);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    const size_t n_in = 13 * 11 * 17, n_out = 13 * 11 * 5;
    float *in = malloc(n_in * sizeof(float));
    cr_assert(in);
    harness_fill(in, n_in, 700, -1.0f, 1.0f);
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    const vki_precision precisions[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                        VKI_PRECISION_FP16_STORAGE};
    for (int i = 0; i < (dev.fp16_storage ? 3 : 1); i++) {
        float *off = run_graph(m, precisions[i], "VKI_DISABLE_PASSES", "dw_pw", in, n_in, n_out);
        float *cpu = run_graph(m, precisions[i], "VKI_DWPW", "1", in, n_in, n_out);
        float *gpu = run_graph(m, precisions[i], "VKI_DWPW", "2:1", in, n_in, n_out);
        float *chunked = run_graph(m, precisions[i], "VKI_DWPW", "3", in, n_in, n_out);
        float *split = run_graph(m, precisions[i], "VKI_DWPW", "2:4", in, n_in, n_out);
        float *again = run_graph(m, precisions[i], "VKI_DWPW", "2:4", in, n_in, n_out);
        cr_assert(!memcmp(off, cpu, n_out * sizeof(float)), "precision %d: VKI_DWPW=1", i);
        cr_assert(!memcmp(off, gpu, n_out * sizeof(float)), "precision %d: VKI_DWPW=2:1", i);
        cr_assert(!memcmp(off, chunked, n_out * sizeof(float)), "precision %d: VKI_DWPW=3", i);
        cr_assert(!memcmp(split, again, n_out * sizeof(float)), "precision %d: VKI_DWPW=2:4", i);
        free(off);
        free(cpu);
        free(gpu);
        free(chunked);
        free(split);
        free(again);
    }
    free(in);
    vki_model_destroy(m);
}

/* ---- the integer form ------------------------------------------------------------------ */

/* A quantized grid: real = scale * (q - zero), q in lo..hi. */
typedef struct qgrid {
    float scale;
    int zero, lo, hi;
} qgrid;

typedef struct qpair {
    int h, w, cin, cout, k, stride;
    vki_padding padding;
    vki_activation dw_act, pw_act;
    int uint8;          /* uint8 tensors and weights (per tensor, zero point 120) */
    int per_channel;    /* int8 weights with a scale per output channel */
    int ties;           /* power-of-two scales: many sums fall halfway between two steps */
    int no_bias;
    int residual;       /* an integer ADD of a second quantized input after the 1x1 conv */
    int pw_table;       /* a RELU6 op after the 1x1 conv (after its ADD) */
    int dw_table;       /* a HARD_SWISH op between the two convolutions */
} qpair;

static void set_grid(vki_model *m, int t, qgrid g) {
    m->tensors[t].quant_scale = g.scale;
    m->tensors[t].quant_zero = g.zero;
    m->tensors[t].quant_min = g.lo;
    m->tensors[t].quant_max = g.hi;
}

static qgrid grid_of(const qpair *p, float scale, int zero) {
    return p->uint8 ? (qgrid){scale, 128 + zero, 0, 255} : (qgrid){scale, zero, -128, 127};
}

/* A constant the file would have quantized: q drawn in qlo..qhi from seed, scale per index
 * along axis (n_scales of them; 1: per tensor) and one zero point, the float data its
 * dequantized values (as the loader keeps both). */
static int qconst(vki_model *m, int rank, const int *shape, uint32_t seed, int qlo, int qhi,
                  int axis, int n_scales, const float *scales, int zero) {
    size_t n = 1, inner = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)shape[i];
    for (int i = axis + 1; i < rank; i++) inner *= (size_t)shape[i];
    int t = harness_const(m, rank, shape, seed, 0.0f, 1.0f);
    vki_tensor *c = &m->tensors[t];
    float *u = malloc(n * sizeof(float));
    c->qdata = malloc(n * sizeof(int32_t));
    c->qscale = malloc((size_t)n_scales * sizeof(float));
    c->qzero = malloc((size_t)n_scales * sizeof(int32_t));
    cr_assert(u && c->qdata && c->qscale && c->qzero);
    harness_fill(u, n, seed, 0.0f, 1.0f);
    for (int i = 0; i < n_scales; i++) c->qscale[i] = scales[i], c->qzero[i] = zero;
    c->qaxis = axis;
    c->n_qscale = n_scales;
    float *data = c->data;
    for (size_t e = 0; e < n; e++) {
        int q = qlo + (int)(u[e] * (float)(qhi - qlo + 1));
        c->qdata[e] = q > qhi ? qhi : q;
        size_t at = n_scales > 1 ? (e / inner) % (size_t)n_scales : 0;
        data[e] = scales[at] * (float)(c->qdata[e] - zero);
    }
    free(u);
    return t;
}

/* The weights [.., channels] of a convolution on grid `in`: per-channel scales (or one),
 * and the int32 bias (scale in * w per channel, zero point 0) unless no_bias. *w_base is
 * the first weight scale. Returns the weight tensor; *bias the bias (-1: none). */
static int qweights(vki_model *m, const qpair *p, int rank, const int *shape, int axis,
                    int channels, qgrid in, uint32_t seed, int *bias, float *w_base) {
    const int per_channel = p->per_channel && !p->uint8;
    const float base = p->ties ? 1.0f / 128 : 0.0173f;
    const int wq = p->ties ? 15 : 127;
    float *ws = malloc((size_t)channels * sizeof(float));
    float *bs = malloc((size_t)channels * sizeof(float));
    cr_assert(ws && bs);
    for (int c = 0; c < channels; c++) {
        /* powers of two with ties, else scales no product rounds the same way twice */
        ws[c] = !per_channel ? base
                : p->ties    ? base / (float)(1 << (c % 3))
                             : base / (1.0f + 0.37f * (float)(c % 5));
        bs[c] = in.scale * ws[c];
    }
    const int n_scales = per_channel ? channels : 1;
    int wt = p->uint8 ? qconst(m, rank, shape, seed, 0, 255, axis, 1, ws, 120)
                      : qconst(m, rank, shape, seed, -wq, wq, axis, n_scales, ws, 0);
    *bias = -1;
    if (!p->no_bias) {
        int bshape[1] = {channels};
        /* about a product's size times 25, less than a sum's spread */
        *bias = qconst(m, 1, bshape, seed + 1, -25 * wq, 25 * wq, 0, n_scales, bs, 0);
    }
    *w_base = base;
    free(ws);
    free(bs);
    return wt;
}

/* input -> QUANTIZE -> DEPTHWISE_CONV_2D [-> HARD_SWISH] -> CONV_2D 1x1 [-> ADD of a
 * second input's QUANTIZE] [-> RELU6] -> DEQUANTIZE -> output, every tensor between the
 * QUANTIZE and the DEQUANTIZE on its own grid. The grids' scales are chosen so the sums
 * spread over most of each grid (with ties, so that requantization scales are powers of
 * two). Returns the model; *out_scale the output grid's scale (one LSB). */
static vki_model *qpair_model(const qpair *p, float *out_scale) {
    vki_model *m = vki_model_new("dwpw_int8");
    const int oh = out_size(p->padding, p->h, p->k, p->stride);
    const int ow = out_size(p->padding, p->w, p->k, p->stride);
    /* Requantization scales: 1 / (step * a power of two) of a sum, so with ties exactly a
     * power of two (every scale derives from the input's by powers of two). */
    const float step = p->ties ? 8.0f : 23.7f;
    int x = harness_tensor(m, p->h, p->w, p->cin), xq = harness_tensor(m, p->h, p->w, p->cin);
    const qgrid in = grid_of(p, p->uint8 ? 1.0f / 128 : 1.0f / 100, p->uint8 ? -3 : 5);
    set_grid(m, xq, in);
    harness_op(m, VKI_OP_QUANTIZE, 1, &x, xq);
    int inputs[2] = {x, -1}, n_in = 1, r = -1;
    qgrid rg = {0};
    if (p->residual) {   /* quantized before the pair runs, so the ADD can join its epilogue */
        int xr = harness_tensor(m, oh, ow, p->cout);
        r = harness_tensor(m, oh, ow, p->cout);
        inputs[n_in++] = xr;
        harness_op(m, VKI_OP_QUANTIZE, 1, &xr, r);
    }
    int dshape[4] = {1, p->k, p->k, p->cin}, dbias, pbias;
    float dw_base, pw_base;
    int dwt = qweights(m, p, 4, dshape, 3, p->cin, in, 101, &dbias, &dw_base);
    /* The depthwise sums: k * k products of |q| ~58 (rms) by |w| ~73 (9 with ties), some
     * 60 steps of the grid. */
    const qgrid midg = grid_of(p, in.scale * dw_base * step * (p->k >= 5 ? 8.0f : 4.0f), -7);
    int mid = harness_tensor(m, oh, ow, p->cin);
    set_grid(m, mid, midg);
    int din[3] = {xq, dwt, dbias};
    vki_op *dw = harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, p->no_bias ? 2 : 3, din, mid);
    dw->opt.conv = conv_options(p->padding, p->stride, p->dw_act);
    dw->opt.conv.depth_multiplier = 1;
    qgrid pw_in = midg;
    if (p->dw_table) {
        int hs = harness_tensor(m, oh, ow, p->cin);
        pw_in = grid_of(p, midg.scale * 0.75f, 11);
        set_grid(m, hs, pw_in);
        harness_op(m, VKI_OP_HARD_SWISH, 1, &mid, hs);
        mid = hs;
    }
    int pshape[4] = {p->cout, 1, 1, p->cin};
    int pwt = qweights(m, p, 4, pshape, 0, p->cout, pw_in, 103, &pbias, &pw_base);
    /* ~sqrt(channels) products of |q| ~40 by |w| ~73 (9). */
    const float spread = p->cin < 4 ? 2.0f : p->cin < 16 ? 4.0f : p->cin < 64 ? 8.0f : 16.0f;
    qgrid g = grid_of(p, pw_in.scale * pw_base * step * spread, 3);
    int out = harness_tensor(m, oh, ow, p->cout);
    set_grid(m, out, g);
    int pin[3] = {mid, pwt, pbias};
    vki_op *pw = harness_op(m, VKI_OP_CONV_2D, p->no_bias ? 2 : 3, pin, out);
    pw->opt.conv = conv_options(VKI_PAD_SAME, 1, p->pw_act);
    if (p->residual) {
        rg = grid_of(p, g.scale * 0.8f, -9);
        set_grid(m, r, rg);
        int sum = harness_tensor(m, oh, ow, p->cout);
        g = grid_of(p, g.scale * 1.3f, -2);
        set_grid(m, sum, g);
        harness_binary(m, VKI_OP_ADD, out, r, sum);
        out = sum;
    }
    if (p->pw_table) {
        int relu = harness_tensor(m, oh, ow, p->cout);
        g = grid_of(p, g.scale * 0.5f, -100);
        set_grid(m, relu, g);
        harness_op(m, VKI_OP_RELU6, 1, &out, relu);
        out = relu;
    }
    int y = harness_tensor(m, oh, ow, p->cout);
    harness_op(m, VKI_OP_DEQUANTIZE, 1, &out, y);
    cr_assert(vki_model_set_io(m, n_in, inputs, 1, &y));
    *out_scale = g.scale;
    return m;
}

/* A graph of m in `precision` with name=value while it builds; NULL where the precision
 * cannot run here. */
static vki_graph *qgraph(const vki_model *m, vki_precision precision, const char *name,
                         const char *value) {
    setenv(name, value, 1);
    vki_graph_options o = {.precision = precision, .debug_guards = 1};
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, &o, &g);
    unsetenv(name);
    cr_assert_eq(s, VKI_OK, "%s=%s: %s", name, value, vki_last_error());
    return g;
}

/* Output 0 of graph g on inputs in[0..n_in) (sizes n[]), n_out floats, malloc'd. */
static float *qrun(vki_graph *g, float *const *in, const size_t *n, int n_in, size_t n_out) {
    float *out = malloc(n_out * sizeof(float));
    cr_assert(out);
    for (int i = 0; i < n_in; i++)
        cr_assert_eq(vki_graph_set_input(g, i, in[i], n[i] * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, n_out * sizeof(float)), VKI_OK);
    return out;
}

/* Every element equal (0 LSB): the first differences, in steps of the output grid. */
static void expect_same(const float *got, const float *want, size_t n, float lsb, const char *what,
                        size_t at_case) {
    size_t bad = 0, first = 0;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (!bad++) first = i;
            double d = (got[i] - want[i]) / lsb;
            if (d < 0) d = -d;
            if (d > worst) worst = d;
        }
    cr_assert_eq(bad, 0, "case %zu, %s: %zu of %zu elements differ, worst %.0f LSB; first at %zu: "
                 "%g, want %g", at_case, what, bad, n, worst, first, got[first], want[first]);
}

/* The pair's integer graph fused (VKI_DWPW=1, 2 and 3, one dispatch fewer, none of it
 * binary or table dispatches: the ADD and the table ops run in the convolutions') and
 * with the pass disabled, in every precision the device runs, element for element equal
 * to the C references of the unfused ops. Consumes nothing. */
static void check_qpair(const qpair *p, size_t at_case, uint32_t seed) {
    float lsb;
    vki_model *m = qpair_model(p, &lsb);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "case %zu: %s", at_case, vki_last_error());
    const int oh = out_size(p->padding, p->h, p->k, p->stride);
    const int ow = out_size(p->padding, p->w, p->k, p->stride);
    size_t n[2] = {(size_t)p->h * p->w * p->cin, (size_t)oh * ow * p->cout};
    const size_t n_out = (size_t)oh * ow * p->cout;
    const int n_in = p->residual ? 2 : 1;
    float *in[2] = {malloc(n[0] * sizeof(float)), malloc(n[1] * sizeof(float))};
    float *ref = malloc(n_out * sizeof(float));
    cr_assert(in[0] && in[1] && ref);
    for (int i = 0; i < 2; i++) harness_fill(in[i], n[i], seed + 77 * (uint32_t)i, -1.0f, 1.0f);
    cr_assert_eq(vki_model_reference_run(m, (const float *const *)in, (float *const[]){ref}),
                 VKI_OK, "%s", vki_last_error());
    /* The output is not all one value (the grids were chosen to spread it). */
    size_t distinct = 0;
    for (size_t i = 1; i < n_out; i++) distinct += ref[i] != ref[0];
    cr_assert(n_out < 4 || distinct > 0, "case %zu: a constant output", at_case);
    const int off = dispatches(m, "VKI_DISABLE_PASSES", "dw_pw");
    static const char *const modes[][2] = {
        {"VKI_DWPW", "1"}, {"VKI_DWPW", "2"}, {"VKI_DWPW", "3"}, {"VKI_DISABLE_PASSES", "dw_pw"}};
    const vki_precision precisions[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                        VKI_PRECISION_FP16_STORAGE};
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++) {
            if (!(harness_allowed_precisions() & (1u << i)) || (i > 0 && !dev.fp16_storage))
                continue;
            vki_graph *g = qgraph(m, precisions[i], modes[k][0], modes[k][1]);
            const int nd = vki_graph_dispatch_count(g);
            cr_assert_eq(nd, k < 3 ? off - 1 : off, "case %zu %s=%s: %d dispatches, %d unfused",
                         at_case, modes[k][0], modes[k][1], nd, off);
            for (int d = 0; d < nd; d++) {
                vki_dispatch_info info;
                cr_assert_eq(vki_graph_dispatch_info(g, d, &info), VKI_OK);
                cr_assert(strcmp(info.kernel, "binary") && strcmp(info.kernel, "quant"),
                          "case %zu: dispatch %d runs %s (op %d)", at_case, d, info.kernel,
                          info.op_index);
                if (k < 3) cr_assert(strcmp(info.kernel, "depthwise_conv2d"), "case %zu", at_case);
            }
            float *got = qrun(g, in, n, n_in, n_out);
            char what[96];
            snprintf(what, sizeof what, "%s=%s %s", modes[k][0], modes[k][1],
                     harness_precision_name(i));
            expect_same(got, ref, n_out, lsb, what, at_case);
            free(got);
            vki_graph_destroy(g);
        }
    free(in[0]);
    free(in[1]);
    free(ref);
    vki_model_destroy(m);
}

Test(dwpw, int8_pairs_fuse_bit_exact, .timeout = 600) {
    const qpair cases[] = {
        /* C = 1, 3, 5, 17; odd H and W; stride 2 on odd inputs; both paddings */
        {.h = 7, .w = 5, .cin = 1, .cout = 1, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .ties = 1},
        {.h = 9, .w = 7, .cin = 3, .cout = 5, .k = 3, .stride = 2, .padding = VKI_PAD_SAME,
         .per_channel = 1, .dw_act = VKI_ACT_RELU6},
        {.h = 11, .w = 9, .cin = 5, .cout = 17, .k = 5, .stride = 1, .padding = VKI_PAD_VALID,
         .per_channel = 1, .ties = 1, .pw_act = VKI_ACT_RELU},
        {.h = 13, .w = 11, .cin = 17, .cout = 3, .k = 3, .stride = 2, .padding = VKI_PAD_SAME,
         .dw_act = VKI_ACT_RELU, .pw_act = VKI_ACT_RELU_N1_TO_1},
        {.h = 15, .w = 13, .cin = 17, .cout = 17, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .ties = 1, .dw_act = VKI_ACT_RELU6, .no_bias = 1},
        /* uint8 (weights per tensor with a zero point: q - zero reaches 135) */
        {.h = 9, .w = 7, .cin = 5, .cout = 3, .k = 3, .stride = 2, .padding = VKI_PAD_SAME,
         .uint8 = 1, .dw_act = VKI_ACT_RELU},
        {.h = 7, .w = 9, .cin = 17, .cout = 5, .k = 3, .stride = 1, .padding = VKI_PAD_VALID,
         .uint8 = 1, .ties = 1, .pw_act = VKI_ACT_RELU6},
        /* 35 x 33 outputs: several tiles each way, the last ones partial */
        {.h = 35, .w = 33, .cin = 5, .cout = 3, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .ties = 1},
        /* 133 channels: on lavapipe's 32 KB the CPU tile narrows to two columns */
        {.h = 9, .w = 11, .cin = 133, .cout = 17, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .dw_act = VKI_ACT_RELU6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_qpair(&cases[i], i, 800 + 10 * (uint32_t)i);
}

Test(dwpw, int8_pairs_with_fused_add_and_tables, .timeout = 600) {
    /* MobileNetV2's block: the residual ADD joins the 1x1 conv's epilogue, and the pair
     * still fuses; a table op after it (RELU6) or between the convolutions (HARD_SWISH,
     * in the depthwise part) too. */
    const qpair cases[] = {
        {.h = 9, .w = 7, .cin = 17, .cout = 5, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .dw_act = VKI_ACT_RELU6, .residual = 1},
        {.h = 11, .w = 9, .cin = 3, .cout = 17, .k = 3, .stride = 2, .padding = VKI_PAD_SAME,
         .ties = 1, .residual = 1},
        {.h = 7, .w = 5, .cin = 1, .cout = 3, .k = 5, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .ties = 1, .residual = 1, .pw_act = VKI_ACT_RELU},
        {.h = 9, .w = 9, .cin = 5, .cout = 5, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .uint8 = 1, .residual = 1, .dw_act = VKI_ACT_RELU6},
        {.h = 9, .w = 7, .cin = 5, .cout = 17, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .per_channel = 1, .residual = 1, .pw_table = 1},
        {.h = 13, .w = 7, .cin = 17, .cout = 5, .k = 3, .stride = 2, .padding = VKI_PAD_SAME,
         .per_channel = 1, .ties = 1, .dw_table = 1},
        {.h = 9, .w = 11, .cin = 5, .cout = 5, .k = 3, .stride = 1, .padding = VKI_PAD_SAME,
         .uint8 = 1, .dw_table = 1, .pw_table = 1, .residual = 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_qpair(&cases[i], i, 900 + 10 * (uint32_t)i);
}

/* ---- an inverted residual block in one dispatch (engine/ops/block.c, glsl/block.comp) ---- */

typedef struct irb {
    int h, w, cin, mid, cout;     /* block input; expanded channels; projected channels */
    int k, stride;                 /* depthwise window k x k */
    vki_padding padding;
    vki_activation ex_act, dw_act, pw_act;
    int residual;                  /* ADD(projection, block input) after it (stride 1, cout == cin) */
    int ex_reads_twice;            /* the expansion's output also feeds an ADD (a second output) */
    int mid_is_output;             /* the depthwise output is also a graph output */
} irb;

/* input -> CONV_2D 1x1 -> DEPTHWISE_CONV_2D -> CONV_2D 1x1 [-> ADD input] -> output */
static vki_model *block_model(const irb *p) {
    vki_model *m = vki_model_new("block");
    const int oh = out_size(p->padding, p->h, p->k, p->stride);
    const int ow = out_size(p->padding, p->w, p->k, p->stride);
    int x = harness_tensor(m, p->h, p->w, p->cin);
    int eshape[4] = {p->mid, 1, 1, p->cin}, dshape[4] = {1, p->k, p->k, p->mid};
    int pshape[4] = {p->cout, 1, 1, p->mid};
    int ebias[1] = {p->mid}, pbias[1] = {p->cout};
    int ein[3] = {x, harness_const(m, 4, eshape, 401, -0.6f, 0.6f),
                  harness_const(m, 1, ebias, 402, -0.5f, 0.5f)};
    int e = harness_tensor(m, p->h, p->w, p->mid);
    harness_op(m, VKI_OP_CONV_2D, 3, ein, e)->opt.conv = conv_options(VKI_PAD_SAME, 1, p->ex_act);
    int din[3] = {e, harness_const(m, 4, dshape, 403, -0.6f, 0.6f),
                  harness_const(m, 1, ebias, 404, -0.5f, 0.5f)};
    int d = harness_tensor(m, oh, ow, p->mid);
    harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, 3, din, d)->opt.conv =
        conv_options(p->padding, p->stride, p->dw_act);
    int pin[3] = {d, harness_const(m, 4, pshape, 405, -0.5f, 0.5f),
                  harness_const(m, 1, pbias, 406, -0.5f, 0.5f)};
    int out = harness_tensor(m, oh, ow, p->cout);
    harness_op(m, VKI_OP_CONV_2D, 3, pin, out)->opt.conv = conv_options(VKI_PAD_SAME, 1, p->pw_act);
    int outputs[3] = {out, -1, -1}, n_out = 1;
    if (p->residual) {
        int sum = harness_tensor(m, oh, ow, p->cout);
        harness_binary(m, VKI_OP_ADD, out, x, sum);
        outputs[0] = sum;
    }
    if (p->ex_reads_twice) {
        int twice = harness_tensor(m, p->h, p->w, p->mid);
        harness_binary(m, VKI_OP_ADD, e, e, twice);
        outputs[n_out++] = twice;
    }
    if (p->mid_is_output) outputs[n_out++] = d;
    cr_assert(vki_model_set_io(m, 1, &x, n_out, outputs));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

/* All dispatches' FLOPs of m's fp32 graph with env name=value while it builds. */
static double flops(const vki_model *m, const char *name, const char *value) {
    vki_graph *g = graph_with(m, name, value);
    double sum = 0.0;
    for (int i = 0; i < vki_graph_dispatch_count(g); i++) sum += vki_graph_dispatch_flops(g, i);
    vki_graph_destroy(g);
    return sum;
}

/* The block fused (VKI_BLOCK=1: two dispatches fewer than with it and dw_pw off) or not
 * (as many as with the pass off), and every element in every precision against the
 * unfused C reference at the default tile and at tiles of 1, 2, 4 and 16 pixels a side
 * (the projection's sums split over 8, 8, 4 and 1 parts, or fewer where the slices or the
 * threads run out). Consumes the model. */
static void check_block(vki_model *m, int fused, uint32_t seed) {
    const int off = dispatches(m, "VKI_DISABLE_PASSES", "block,dw_pw");
    const int others = dispatches(m, "VKI_DISABLE_PASSES", "block");
    cr_assert_eq(dispatches(m, "VKI_BLOCK", "1"), fused ? off - 2 : others, "VKI_BLOCK=1");
    cr_assert_eq(dispatches(m, "VKI_BLOCK", "0"), others,
                 "VKI_BLOCK=0 leaves the block to the other passes");
    /* The fused dispatch counts the three ops' FLOPs (profiles' rates). */
    cr_assert_eq(flops(m, "VKI_BLOCK", "1"), flops(m, "VKI_DISABLE_PASSES", "block,dw_pw"));
    static const char *const tiles[] = {"1", "1:1", "1:2", "1:4", "1:16"};
    for (int i = 0; i < 5; i++) compare(m, "VKI_BLOCK", tiles[i], seed + (uint32_t)i);
    vki_model_destroy(m);
}

Test(block, fused_shapes) {
    const irb cases[] = {
        /* 3 -> 17 -> 5 channels, 3x3 stride 1 over 9x7 */
        {.h = 9, .w = 7, .cin = 3, .mid = 17, .cout = 5, .k = 3, .stride = 1,
         .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU6, .dw_act = VKI_ACT_RELU6},
        /* 5x5 stride 2 on odd input, SAME: the window's first row and column padding */
        {.h = 11, .w = 9, .cin = 5, .mid = 20, .cout = 5, .k = 5, .stride = 2,
         .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU, .dw_act = VKI_ACT_TANH,
         .pw_act = VKI_ACT_RELU_N1_TO_1},
        /* one channel throughout, VALID stride 2 */
        {.h = 7, .w = 5, .cin = 1, .mid = 1, .cout = 1, .k = 3, .stride = 2,
         .padding = VKI_PAD_VALID, .ex_act = VKI_ACT_RELU6},
        /* MobileNetV2's block: 17 -> 68 -> 17 and the residual ADD in the epilogue */
        {.h = 13, .w = 11, .cin = 17, .mid = 68, .cout = 17, .k = 3, .stride = 1,
         .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU6, .dw_act = VKI_ACT_RELU6,
         .residual = 1},
        /* 300 middle channels (75 slices): a 16x16 tile's window takes them in chunks */
        {.h = 5, .w = 7, .cin = 8, .mid = 300, .cout = 16, .k = 5, .stride = 1,
         .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU, .dw_act = VKI_ACT_RELU,
         .residual = 0},
        /* 19x21 output, 3 -> 9 -> 3 with the residual: several partial tiles each way */
        {.h = 19, .w = 21, .cin = 3, .mid = 9, .cout = 3, .k = 3, .stride = 1,
         .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU, .residual = 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_block(block_model(&cases[i]), 1, 500 + 10 * (uint32_t)i);
}

Test(block, not_where_an_intermediate_has_another_reader) {
    /* The expansion's output read twice, or the depthwise output a graph output: no block
     * (dw_pw may still take the depthwise op and the projection in the first). */
    irb p = {.h = 9, .w = 7, .cin = 5, .mid = 12, .cout = 5, .k = 3, .stride = 1,
             .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU6, .ex_reads_twice = 1};
    check_block(block_model(&p), 0, 600);
    p.ex_reads_twice = 0;
    p.mid_is_output = 1;
    check_block(block_model(&p), 0, 610);
}

/* The rule a GPU fuses blocks by (block.c's pays, measured on an H200): the tile of least
 * cost, fused where that cost is at most 200k multiply-adds; on blocks of the measured
 * models on each side of the bound. A CPU device fuses none unless VKI_BLOCK says so. */
Test(block, gpu_rule_picks_the_blocks_measured_faster) {
    const vki_wg_device gpu = {.vendor_id = 0x10DE, .is_discrete = 1, .subgroup_size = 32,
                               .max_invocations = 1024, .max_size = {1024, 1024, 64},
                               .max_shared_bytes = 49152};
    const vki_wg_device cpu = {.vendor_id = 0x10005, .is_cpu = 1, .subgroup_size = 8,
                               .max_invocations = 1024, .max_size = {1024, 1024, 1024},
                               .max_shared_bytes = 32768};
    static const struct {
        int h, cin, mid, cout, k, stride, fused;
    } cases[] = {
        {128, 8, 32, 16, 3, 2, 1},     /* pose_landmark_lite: 11.7 -> 6.4 us */
        {64, 16, 72, 24, 3, 2, 1},     /* selfie_segmentation: 12.6 -> 8.3 us */
        {16, 40, 240, 40, 3, 1, 1},    /* pose_landmark_lite: 19.3 -> 15.5 us */
        {28, 24, 144, 48, 3, 2, 1},    /* hand_landmark_lite: 14.2 -> 9.5 us */
        {128, 16, 64, 24, 3, 2, 0},    /* pose_landmark_full: 15.6 -> 11.1 at best, cost 226k */
        {14, 48, 288, 48, 3, 1, 0},    /* hand_landmark_lite: 13.4 -> 15.0 at best */
        {16, 40, 240, 56, 5, 1, 0},    /* pose_landmark_lite: 23.6 -> 21.4 at best, cost 259k */
        {7, 192, 1152, 192, 5, 1, 0},  /* hand_landmark_full: 29.3 -> 187.8 at best */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        irb p = {.h = cases[i].h, .w = cases[i].h, .cin = cases[i].cin, .mid = cases[i].mid,
                 .cout = cases[i].cout, .k = cases[i].k, .stride = cases[i].stride,
                 .padding = VKI_PAD_SAME, .ex_act = VKI_ACT_RELU6, .dw_act = VKI_ACT_RELU6};
        for (int d = 0; d < 2; d++) {
            vki_model *m = block_model(&p);
            unsigned char skip[8] = {0};
            cr_assert_leq(m->n_ops, 8);
            int fused = vki_fuse_blocks(m, m->ops, skip, d ? &cpu : &gpu, NULL);
            cr_expect_eq(fused, d ? 0 : 2 * cases[i].fused,
                         "%s: %dx%dx%d -> %d -> %d, %dx%d stride %d: %d ops folded", d ? "CPU" : "GPU",
                         p.h, p.w, p.cin, p.mid, p.cout, p.k, p.k, p.stride, fused);
            vki_model_destroy(m);
        }
    }
}
