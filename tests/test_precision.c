/* test_precision.c: mixed precision. Any set of ops kept fp32 in an fp16 graph gives the
 * C reference's outputs (each binding reads and writes its own storage type), the options
 * are checked, and vki_calibrate_fp32_ops returns a set that meets its tolerance where one
 * op fewer does not. */
#include "harness.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define N_OPS 5
#define IN_ELEMS (7 * 5 * 3)
#define OUT_ELEMS (7 * 5 * 8)

/* conv -> add constant -> depthwise -> concat with the graph input -> logistic: weights,
 * a constant operand, and a graph input read by two ops. */
static vki_model *chain_model(void) {
    vki_model *m = vki_model_new("chain");
    int in = harness_tensor(m, 7, 5, 3);
    int fshape[4] = {5, 3, 3, 3}, dshape[4] = {1, 3, 3, 5}, five = 5;
    int filter = harness_const(m, 4, fshape, 11u, -1.0f, 1.0f);
    int bias = harness_const(m, 1, &five, 12u, -1.0f, 1.0f);
    int offset = harness_const(m, 1, &five, 13u, -1.0f, 1.0f);
    int dfilter = harness_const(m, 4, dshape, 14u, -1.0f, 1.0f);
    int dbias = harness_const(m, 1, &five, 15u, -1.0f, 1.0f);
    int t1 = harness_tensor(m, 7, 5, 5), t2 = harness_tensor(m, 7, 5, 5);
    int t3 = harness_tensor(m, 7, 5, 5), t4 = harness_tensor(m, 7, 5, 8);
    int out = harness_tensor(m, 7, 5, 8);
    int conv_in[3] = {in, filter, bias}, add_in[2] = {t1, offset};
    int dw_in[3] = {t2, dfilter, dbias}, cat_in[2] = {t3, in};
    vki_op *op = vki_model_add_op(m, VKI_OP_CONV_2D, 3, conv_in, 1, &t1);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1};
    vki_model_add_op(m, VKI_OP_ADD, 2, add_in, 1, &t2);
    op = vki_model_add_op(m, VKI_OP_DEPTHWISE_CONV_2D, 3, dw_in, 1, &t3);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1};
    op = vki_model_add_op(m, VKI_OP_CONCATENATION, 2, cat_in, 1, &t4);
    op->opt.concat.axis = 3;
    vki_model_add_op(m, VKI_OP_LOGISTIC, 1, &t4, 1, &out);
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

/* Runs m built with o on the seeded input; returns the relative error against ref. */
static double run_error(vki_model *m, const vki_graph_options *o, const float *in,
                        const float *ref, vki_precision_report *report) {
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, o, &g), VKI_OK, "%s", vki_last_error());
    float out[OUT_ELEMS];
    cr_assert_eq(vki_graph_set_input(g, 0, in, IN_ELEMS * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, sizeof out), VKI_OK);
    if (report) cr_assert_eq(vki_graph_precision(g, report), VKI_OK);
    vki_graph_destroy(g);
    return vki_relative_error(out, ref, OUT_ELEMS, NULL);
}

/* chain_model as a file numbers it when a DEQUANTIZE of a constant precedes every op: file
 * ops 0, 2, 4, 6 and 8 fold at load, and the IR's five ops are file ops 1, 3, 5, 7, 9. */
static vki_model *chain_model_after_folding(void) {
    vki_model *m = chain_model();
    m->n_file_ops = 2 * N_OPS;
    m->file_op_codes = malloc(sizeof(int) * 2 * N_OPS);
    cr_assert(m->file_op_codes);
    for (int f = 0; f < 2 * N_OPS; f++)
        m->file_op_codes[f] = f % 2 ? (int)m->ops[f / 2].code : VKI_OP_DEQUANTIZE;
    for (int o = 0; o < N_OPS; o++) m->ops[o].file_index = 2 * o + 1;
    return m;
}

/* Runs m built with o on in; the output into out. */
static void run_output(vki_model *m, const vki_graph_options *o, const float *in, float *out,
                       vki_precision_report *report) {
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, o, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_set_input(g, 0, in, IN_ELEMS * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, OUT_ELEMS * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_precision(g, report), VKI_OK);
    vki_graph_destroy(g);
}

static int has_fp16(void) {
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    return dev.fp16_storage;
}

Test(mixed_precision, every_subset_of_fp32_ops) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *m = chain_model();
    float in[IN_ELEMS], ref[OUT_ELEMS];
    harness_fill(in, IN_ELEMS, 5u, -1.0f, 1.0f);
    float *out = ref;
    const float *ins = in;
    cr_assert_eq(vki_model_reference_run(m, &ins, &out), VKI_OK);
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    for (vki_precision p = VKI_PRECISION_FP16; p <= VKI_PRECISION_FP16_STORAGE; p++)
        for (unsigned mask = 0; mask < (1u << N_OPS); mask++) {
            int ops[N_OPS], n = 0;
            for (int i = 0; i < N_OPS; i++)
                if (mask & (1u << i)) ops[n++] = i;
            vki_graph_options o = {.precision = p, .fp32_ops = ops, .n_fp32_ops = n};
            vki_precision_report r;
            double err = run_error(m, &o, in, ref, &r);
            cr_assert(err <= 1e-2, "precision %d, fp32 ops mask %#x: error %g", (int)p, mask, err);
            cr_assert_eq(r.ops, N_OPS);
            cr_assert_eq(r.fp16_ops, N_OPS - n, "mask %#x", mask);
            cr_assert_eq(r.fp16_arithmetic, p == VKI_PRECISION_FP16 && dev.fp16_arithmetic);
            /* Every op kept fp32 is the fp32 graph, to the bit. */
            if (n == N_OPS) cr_assert(err <= 1e-5, "all fp32: error %g", err);
        }
    vki_model_destroy(m);
}

Test(mixed_precision, fp16_halves_weights) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *m = chain_model();
    vki_memory_report full, half;
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK);
    vki_graph_memory(g, &full);
    vki_graph_destroy(g);
    vki_graph_options o = {.precision = VKI_PRECISION_FP16};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK);
    vki_graph_memory(g, &half);
    vki_graph_destroy(g);
    cr_assert(half.weights_bytes < full.weights_bytes, "%llu vs %llu",
              (unsigned long long)half.weights_bytes, (unsigned long long)full.weights_bytes);
    cr_assert(half.intermediate_bytes < full.intermediate_bytes);
    vki_model_destroy(m);
}

Test(mixed_precision, bad_fp32_ops) {
    vki_model *m = chain_model();
    vki_graph *g = NULL;
    int ops[2] = {1, N_OPS};
    vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = ops, .n_fp32_ops = 2};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "fp32_ops[1] = 5"), "%s", vki_last_error());
    o.fp32_ops = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "NULL"), "%s", vki_last_error());
    cr_assert_null(g);
    /* An fp32 graph has nothing to keep: the list is accepted and changes nothing. */
    o = (vki_graph_options){.fp32_ops = ops, .n_fp32_ops = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    vki_precision_report r;
    cr_assert_eq(vki_graph_precision(g, &r), VKI_OK);
    cr_assert_eq(r.fp16_ops, 0);
    cr_assert_eq(vki_graph_precision(g, NULL), VKI_ERROR_INVALID_ARGUMENT);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* fp32_ops name the file's ops: file op 2k+1 keeps the IR's op k fp32, exactly as the same
 * model numbered without folded ops keeps op k; a folded op may be named and changes
 * nothing; numbers run to the file's last op, past the IR's. */
Test(mixed_precision, fp32_ops_are_file_op_numbers) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *plain = chain_model(), *m = chain_model_after_folding();
    cr_assert_eq(vki_model_op_count(m), 2 * N_OPS);
    float in[IN_ELEMS], want[OUT_ELEMS], got[OUT_ELEMS];
    harness_fill(in, IN_ELEMS, 8u, -1.0f, 1.0f);
    for (int f = 0; f < 2 * N_OPS; f++) {
        int k = f / 2;
        vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = &f, .n_fp32_ops = 1};
        vki_graph_options same = {.precision = VKI_PRECISION_FP16, .fp32_ops = &k,
                                  .n_fp32_ops = f % 2};
        vki_precision_report r, r_want;
        run_output(plain, &same, in, want, &r_want);
        run_output(m, &o, in, got, &r);
        cr_assert_eq(r.fp16_ops, r_want.fp16_ops, "file op %d: %d fp16 ops, want %d", f,
                     r.fp16_ops, r_want.fp16_ops);
        cr_assert_eq(memcmp(got, want, sizeof got), 0, "file op %d kept fp32 is not IR op %d", f, k);
    }
    int past = 2 * N_OPS;
    vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = &past, .n_fp32_ops = 1};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "fp32_ops[0] = 10, but chain has ops 0..9"), "%s",
              vki_last_error());
    vki_model_destroy(plain);
    vki_model_destroy(m);
}

/* The bisection's promise: the prefix returned meets the tolerance against the fp32 graph
 * and the prefix one op shorter does not (unless none is needed). */
Test(calibration, prefix_meets_the_tolerance_and_is_minimal) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *m = chain_model();
    float in[IN_ELEMS], exact[OUT_ELEMS];
    harness_fill(in, IN_ELEMS, 6u, -1.0f, 1.0f);
    vki_graph_options fp32 = {0};
    const float *ins = in;
    /* The fp32 graph's output is the calibration's reference. */
    {
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), m, &fp32, &g), VKI_OK);
        vki_graph_set_input(g, 0, in, sizeof in);
        cr_assert_eq(vki_graph_run(g), VKI_OK);
        vki_graph_get_output(g, 0, exact, sizeof exact);
        vki_graph_destroy(g);
    }
    const double tolerances[] = {1e-1, 1e-3, 1e-4, 1e-6, 0x1p-30};
    for (int t = 0; t < 5; t++) {
        int ops[N_OPS], n = -1;
        vki_calibration_options co = {.tolerance = tolerances[t]};
        cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, &ins, &co, ops, N_OPS, &n), VKI_OK,
                     "%s", vki_last_error());
        cr_assert(n >= 0 && n <= N_OPS);
        for (int i = 0; i < n; i++) cr_assert_eq(ops[i], i);
        vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = ops, .n_fp32_ops = n};
        double err = run_error(m, &o, in, exact, NULL);
        cr_assert(err <= tolerances[t], "tolerance %g: %d ops kept, error %g", tolerances[t], n, err);
        if (n > 0) {
            o.n_fp32_ops = n - 1;
            double shorter = run_error(m, &o, in, exact, NULL);
            cr_assert(shorter > tolerances[t], "tolerance %g: %d ops would do (error %g)",
                      tolerances[t], n - 1, shorter);
        }
    }
    vki_model_destroy(m);
}

/* The calibration answers in file op numbers: the prefix of the ops that run, the folded
 * ones left out, the same ops as for the model numbered without them. */
Test(calibration, answers_in_file_op_numbers) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *plain = chain_model(), *m = chain_model_after_folding();
    float in[IN_ELEMS];
    harness_fill(in, IN_ELEMS, 6u, -1.0f, 1.0f);
    const float *ins = in;
    vki_calibration_options co = {.tolerance = 0x1p-30};
    int want[N_OPS], got[2 * N_OPS], n_want = -1, n_got = -1;
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), plain, &ins, &co, want, N_OPS, &n_want),
                 VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, &ins, &co, got, 2 * N_OPS, &n_got),
                 VKI_OK, "%s", vki_last_error());
    cr_assert_gt(n_want, 0, "the tolerance needs some op fp32");
    cr_assert_eq(n_got, n_want);
    for (int i = 0; i < n_got; i++)
        cr_assert_eq(got[i], 2 * want[i] + 1, "op %d of the answer: %d, want %d", i, got[i],
                     2 * want[i] + 1);
    vki_model_destroy(plain);
    vki_model_destroy(m);
}

static void count_progress(void *user, const char *stage, int done, int total) {
    int *c = user;   /* calls, last done, total, in order */
    c[3] &= !strcmp(stage, "calibrate") && done > c[1] && done <= total &&
            (c[0] == 0 || total == c[2]);
    c[0]++;
    c[1] = done;
    c[2] = total;
}

Test(calibration, progress_reaches_its_total) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *m = chain_model();
    float in[IN_ELEMS];
    harness_fill(in, IN_ELEMS, 6u, -1.0f, 1.0f);
    const float *ins = in;
    int ops[N_OPS], n = -1, c[4] = {0, 0, 0, 1};
    vki_calibration_options co = {.tolerance = 1e-6, .progress = count_progress, .progress_user = c};
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, &ins, &co, ops, N_OPS, &n), VKI_OK,
                 "%s", vki_last_error());
    cr_expect(c[3], "stage \"calibrate\", done rising within a fixed total");
    cr_expect_geq(c[0], 2, "the reference and the all-fp16 graph at least");
    cr_expect_eq(c[1], c[2], "the last call says done == total");
    vki_model_destroy(m);
}

Test(calibration, bad_arguments) {
    vki_model *m = chain_model();
    float in[IN_ELEMS] = {0};
    const float *ins = in;
    int ops[N_OPS], n = 7;
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, NULL, NULL, ops, N_OPS, &n),
                 VKI_ERROR_INVALID_ARGUMENT);
    vki_calibration_options co = {.precision = (vki_precision)9};
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, &ins, &co, ops, N_OPS, &n),
                 VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "precision"), "%s", vki_last_error());
    cr_assert_eq(n, 0);
    if (has_fp16()) {
        co = (vki_calibration_options){.tolerance = 0x1p-30};
        cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, &ins, &co, ops, 0, &n),
                     VKI_ERROR_INVALID_ARGUMENT);
        cr_assert(strstr(vki_last_error(), "ops holds 0"), "%s", vki_last_error());
    }
    vki_model_destroy(m);
}

static vki_context *context_without(unsigned features) {
    vki_context_options o = {.disable_features = features};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    return ctx;
}

Test(device_features, fp16_refused_without_16bit_storage) {
    vki_context *ctx = context_without(VKI_FEATURE_FP16_STORAGE);
    vki_device_info dev;
    cr_assert_eq(vki_context_device_info(ctx, &dev), VKI_OK);
    cr_assert_eq(dev.fp16_storage, 0);
    vki_model *m = chain_model();
    vki_graph *g = NULL;
    for (vki_precision p = VKI_PRECISION_FP16; p <= VKI_PRECISION_FP16_STORAGE; p++) {
        vki_graph_options o = {.precision = p};
        cr_assert_eq(vki_graph_create(ctx, m, &o, &g), VKI_ERROR_DEVICE_FEATURE);
        cr_assert(strstr(vki_last_error(), "storageBuffer16BitAccess"), "%s", vki_last_error());
        cr_assert_null(g);
    }
    float in[IN_ELEMS] = {0};
    const float *ins = in;
    int ops[N_OPS], n = 0;
    cr_assert_eq(vki_calibrate_fp32_ops(ctx, m, &ins, NULL, ops, N_OPS, &n), VKI_ERROR_DEVICE_FEATURE);
    /* fp32 still works. */
    cr_assert_eq(vki_graph_create(ctx, m, NULL, &g), VKI_OK, "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
    vki_context_destroy(ctx);
}

/* Without shaderFloat16, fp16 computes in fp32: the fp16-storage graph, to the bit. */
Test(device_features, fp16_without_shader_float16_is_fp16_storage) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_context *ctx = context_without(VKI_FEATURE_FP16_ARITHMETIC);
    vki_model *m = chain_model();
    float in[IN_ELEMS], out[2][OUT_ELEMS];
    harness_fill(in, IN_ELEMS, 8u, -1.0f, 1.0f);
    for (int k = 0; k < 2; k++) {
        vki_graph_options o = {.precision = k ? VKI_PRECISION_FP16_STORAGE : VKI_PRECISION_FP16};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(ctx, m, &o, &g), VKI_OK, "%s", vki_last_error());
        vki_precision_report r;
        vki_graph_precision(g, &r);
        cr_assert_eq(r.fp16_arithmetic, 0);
        cr_assert_eq(r.fp16_ops, N_OPS);
        vki_graph_set_input(g, 0, in, sizeof in);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        vki_graph_get_output(g, 0, out[k], sizeof out[k]);
        vki_graph_destroy(g);
    }
    cr_assert(!memcmp(out[0], out[1], sizeof out[0]));
    vki_model_destroy(m);
    vki_context_destroy(ctx);
}

/* A RELU fused into its ADD: keeping either op fp32 keeps the one dispatch fp32. */
Test(mixed_precision, fused_activation_follows_either_op) {
    if (!has_fp16()) cr_skip_test("the device has no 16-bit storage");
    vki_model *m = vki_model_new("fused");
    int a = harness_tensor(m, 3, 5, 3), b = harness_tensor(m, 3, 5, 3);
    int sum = harness_tensor(m, 3, 5, 3), out = harness_tensor(m, 3, 5, 3);
    int ins[2] = {a, b}, io[2] = {a, b};
    vki_model_add_op(m, VKI_OP_ADD, 2, ins, 1, &sum);
    vki_model_add_op(m, VKI_OP_RELU, 1, &sum, 1, &out);
    cr_assert(vki_model_set_io(m, 2, io, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK);
    for (int keep = 0; keep < 2; keep++) {
        vki_graph_options o = {.precision = VKI_PRECISION_FP16, .fp32_ops = &keep, .n_fp32_ops = 1};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
        vki_precision_report r;
        vki_graph_precision(g, &r);
        cr_assert_eq(r.ops, 1, "the RELU is fused");
        cr_assert_eq(r.fp16_ops, 0, "op %d kept fp32", keep);
        vki_graph_destroy(g);
    }
    vki_model_destroy(m);
}
