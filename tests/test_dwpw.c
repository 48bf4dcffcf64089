/* test_dwpw.c: a DEPTHWISE_CONV_2D and the 1x1 CONV_2D reading it in one dispatch
 * (engine/ops/dw_pw.c, glsl/dw_pw.comp). Every model is checked element by element
 * against the C reference of the unfused ops, in every precision, fused (VKI_DWPW=1: the
 * device's tiling; VKI_DWPW=2: the GPU tiling in one-slice chunks, whatever the device)
 * and with the pass disabled; the dispatch counts say whether the pair was fused, and
 * fused and unfused graphs agree to the bit. */
#include "harness.h"

#include <criterion/criterion.h>
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
} pair;

static vki_conv_options conv_options(vki_padding pad, int stride, vki_activation act) {
    return (vki_conv_options){.padding = pad, .stride_w = stride, .stride_h = stride,
                              .dilation_w = 1, .dilation_h = 1, .activation = act};
}

static int out_size(vki_padding pad, int in, int k, int stride) {
    return pad == VKI_PAD_SAME ? (in + stride - 1) / stride : (in - k) / stride + 1;
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
    vki_op *dw = harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, p->no_bias ? 2 : 3, din, mid);
    dw->opt.conv = conv_options(p->padding, p->stride, p->dw_act);
    dw->opt.conv.depth_multiplier = dm;
    vki_op *pw = harness_op(m, VKI_OP_CONV_2D, p->no_bias ? 2 : 3, pin, out);
    pw->opt.conv = conv_options(VKI_PAD_SAME, pws, p->pw_act);
    int inputs[2] = {x, -1}, outputs[3] = {out, -1, -1}, n_in = 1, n_out = 1;
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

/* Dispatches of m's fp32 graph with env name=value while it builds. */
static int dispatches(const vki_model *m, const char *name, const char *value) {
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    setenv(name, value, 1);
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    if (saved) setenv(name, saved, 1);
    else unsetenv(name);
    free(saved);
    cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
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
 * and every result, fused in both tilings and unfused. Consumes the model. Returns the
 * dispatch count with the pass disabled. */
static int check_pair(vki_model *m, int fused, uint32_t seed) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    int off = dispatches(m, "VKI_DISABLE_PASSES", "dw_pw");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "1"), off - fused, "VKI_DWPW=1");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "2"), off - fused, "VKI_DWPW=2");
    cr_assert_eq(dispatches(m, "VKI_DWPW", "0"), off, "VKI_DWPW=0");
    compare(m, "VKI_DWPW", "1", seed);
    compare(m, "VKI_DWPW", "2", seed + 1);
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
     * memory the tile narrows to two and to one column a thread; the GPU tiling
     * (VKI_DWPW=2) runs one chunk per slice. */
    pair p = {.h = 9, .w = 11, .cin = 133, .cout = 17, .k = 3, .stride = 1,
              .padding = VKI_PAD_SAME, .dw_act = VKI_ACT_RELU};
    check_pair(pair_model(&p), 1, 500);
    pair q = {.h = 5, .w = 7, .cin = 261, .cout = 6, .k = 3, .stride = 2,
              .padding = VKI_PAD_SAME, .pw_act = VKI_ACT_RELU6};
    check_pair(pair_model(&q), 1, 510);
}

/* An fp16 graph keeping op `fp32_op` fp32: the pair's dispatch then runs fp32 (weights,
 * arithmetic, output) and stays within the fp16 bound of the reference. */
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
     * intermediate's storage type: fused and unfused agree to the bit in every precision. */
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
        float *gpu = run_graph(m, precisions[i], "VKI_DWPW", "2", in, n_in, n_out);
        cr_assert(!memcmp(off, cpu, n_out * sizeof(float)), "precision %d: VKI_DWPW=1", i);
        cr_assert(!memcmp(off, gpu, n_out * sizeof(float)), "precision %d: VKI_DWPW=2", i);
        free(off);
        free(cpu);
        free(gpu);
    }
    free(in);
    vki_model_destroy(m);
}
