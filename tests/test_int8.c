/* test_int8.c: every integer form of engine/ops/int8.h against LiteRT (TFLite's interpreter
 * with XNNPACK, LiteRT.js 2.5.3), bit for bit. tests/data/int8 holds the models
 * (tests/make_int8_models.py writes them: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
 * ADD / SUB / MUL, the pools, MEAN, the table ops on all 256 inputs, QUANTIZE, the value
 * movers, and small MobileNetV3 / MobileNetV2 / BlazeFace / uint8 networks, on odd shapes,
 * int8 and uint8), their float inputs (whole steps of the input grids, so the models'
 * QUANTIZE gives the intended q), LiteRT's outputs, and cases.txt: each model and the grid
 * scale of each output.
 *
 * Every output element must equal LiteRT's exactly (0 LSB) in fp32, fp16 and fp16 storage
 * (where the device has fp16 storage and VKI_TEST_PRECISIONS allows them) and in the C
 * references. Each model and precision logs its largest difference in LSB of the output's
 * grid and how many elements differ. Further tests check that the models run their
 * integer forms (no float op between a DEQUANTIZE and a QUANTIZE, no separate rounding
 * dispatch) and that the models cover every op with an integer form. */
#include "harness.h"
#include "image.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CASES 128
#define MAX_IO 16

typedef struct int8_case {
    char name[96];
    int n_out;
    double scale[MAX_IO];       /* each output's grid scale: one LSB */
} int8_case;

/* cases.txt: "NAME SCALE0 [SCALE1 ...]" per line, '#' comments. */
static int read_cases(int8_case *cases) {
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%.900s/int8/cases.txt", harness_data_dir());
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s: cannot open (run tests/make_int8_models.py)", path);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || !*p) continue;
        cr_assert_lt(n, MAX_CASES, "cases.txt: more than %d cases", MAX_CASES);
        int8_case *c = &cases[n++];
        int used = 0;
        cr_assert_eq(sscanf(p, "%95s%n", c->name, &used), 1, "cases.txt: '%s'", line);
        p += used;
        c->n_out = 0;
        for (;;) {
            char *end;
            double s = strtod(p, &end);
            if (end == p) break;
            cr_assert_lt(c->n_out, MAX_IO, "%s: too many outputs", c->name);
            cr_assert(s > 0.0 && isfinite(s), "%s: bad scale", c->name);
            c->scale[c->n_out++] = s;
            p = end;
        }
        cr_assert_gt(c->n_out, 0, "%s: no output scales", c->name);
    }
    fclose(f);
    cr_assert_gt(n, 0, "%s: no cases", path);
    return n;
}

static vki_model *load(const char *name) { return harness_load_data_model("int8", name); }

static float *read_f32(const char *name, const char *suffix, size_t count) {
    return harness_read_data_f32("int8", name, suffix, count);
}

typedef struct run_result {
    float *out;                 /* every output, concatenated */
    size_t n[MAX_IO], total;
    int n_out;
} run_result;

/* The context graphs run on: the harness's, or one without packed dot products. */
static vki_context *no_dot_context;
static vki_context *run_context(void) { return no_dot_context ? no_dot_context : harness_context(); }

/* Runs the model on its stored inputs in precision index p (0 fp32, 1 fp16, 2 fp16
 * storage), or on the C references for p < 0. */
static run_result run(const char *name, int p) {
    static const vki_precision precisions[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                               VKI_PRECISION_FP16_STORAGE};
    vki_model *m = load(name);
    run_result r = {.n_out = vki_model_output_count(m)};
    const int n_in = vki_model_input_count(m);
    cr_assert(r.n_out >= 1 && r.n_out <= MAX_IO && n_in >= 1 && n_in <= MAX_IO, "%s", name);
    float *in[MAX_IO] = {0}, *outs[MAX_IO];
    size_t in_n[MAX_IO];
    for (int i = 0; i < n_in; i++) {
        vki_tensor_info ti;
        cr_assert_eq(vki_model_input_info(m, i, &ti), VKI_OK);
        char suffix[16];
        snprintf(suffix, sizeof suffix, "in%d", i);
        in_n[i] = ti.element_count;
        in[i] = read_f32(name, suffix, ti.element_count);
    }
    for (int i = 0; i < r.n_out; i++) {
        vki_tensor_info to;
        cr_assert_eq(vki_model_output_info(m, i, &to), VKI_OK);
        r.n[i] = to.element_count;
        r.total += to.element_count;
    }
    r.out = malloc(r.total * sizeof(float));
    cr_assert(r.out);
    for (int i = 0, at = 0; i < r.n_out; at += (int)r.n[i], i++) outs[i] = r.out + at;
    if (p < 0) {
        cr_assert_eq(vki_model_reference_run(m, (const float *const *)in, outs), VKI_OK, "%s: %s",
                     name, vki_last_error());
    } else {
        vki_graph_options o = {.precision = precisions[p]};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(run_context(), m, &o, &g), VKI_OK, "%s %s: %s", name,
                     harness_precision_name(p), vki_last_error());
        for (int i = 0; i < n_in; i++)
            cr_assert_eq(vki_graph_set_input(g, i, in[i], in_n[i] * sizeof(float)), VKI_OK);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s: %s", name, vki_last_error());
        for (int i = 0; i < r.n_out; i++)
            cr_assert_eq(vki_graph_get_output(g, i, outs[i], r.n[i] * sizeof(float)), VKI_OK);
        vki_graph_destroy(g);
    }
    for (int i = 0; i < n_in; i++) free(in[i]);
    vki_model_destroy(m);
    return r;
}

/* Runs every case in precision p (< 0: the C references) and compares each element with
 * LiteRT's: equal floats (both are DEQUANTIZE's float(q - zero) * scale), else the case
 * fails with its first differing elements in steps of the grid. */
static void check_all(int p) {
    const char *pname = p < 0 ? "C reference" : harness_precision_name(p);
    if (p >= 0) {
        if (!(harness_allowed_precisions() & (1u << p)))
            cr_skip_test("%s: not in VKI_TEST_PRECISIONS", pname);
        vki_device_info dev;
        cr_assert_eq(vki_context_device_info(harness_context(), &dev), VKI_OK);
        if (p > 0 && !dev.fp16_storage) cr_skip_test("%s: the device has no fp16 storage", pname);
    }
    static int8_case cases[MAX_CASES];
    int n_cases = read_cases(cases);
    size_t compared = 0, differ_total = 0;
    int failed = 0;
    for (int k = 0; k < n_cases; k++) {
        const int8_case *c = &cases[k];
        run_result r = run(c->name, p);
        cr_assert_eq(r.n_out, c->n_out, "%s: %d outputs, cases.txt gives %d scales", c->name,
                     r.n_out, c->n_out);
        float *want = read_f32(c->name, "litert", r.total);
        double worst = 0.0;
        size_t differ = 0;
        char first[512] = "";
        int shown = 0;
        for (int o = 0, at = 0; o < r.n_out; at += (int)r.n[o], o++)
            for (size_t e = 0; e < r.n[o]; e++) {
                float got = r.out[at + e], exp = want[at + e];
                if (got == exp) continue;
                double lsb = fabs((double)got - (double)exp) / c->scale[o];
                if (!(lsb <= worst)) worst = lsb;   /* NaN counts as worst */
                differ++;
                if (shown < 4) {
                    size_t len = strlen(first);
                    snprintf(first + len, sizeof first - len, "%s output %d [%zu]: %.9g (%.3f steps), "
                             "LiteRT %.9g (%.3f steps)", shown ? ";" : "", o, e, (double)got,
                             (double)got / c->scale[o], (double)exp, (double)exp / c->scale[o]);
                    shown++;
                }
            }
        fprintf(stderr, "int8: %s %s: %.3g LSB, %zu of %zu differ%s%s\n", c->name, pname, worst, differ,
                r.total, differ ? ":" : "", first);
        cr_expect_eq(differ, 0, "%s %s: %zu of %zu elements differ from LiteRT, %.3g LSB at most:%s",
                     c->name, pname, differ, r.total, worst, first);
        failed += differ > 0;
        compared += r.total;
        differ_total += differ;
        free(want);
        free(r.out);
    }
    fprintf(stderr, "int8: %s: %d models, %zu elements compared, %zu differ, %d models differ\n", pname,
            n_cases, compared, differ_total, failed);
}

Test(int8, fp32_bit_exact, .timeout = 600) { check_all(0); }
Test(int8, fp16_bit_exact, .timeout = 600) { check_all(1); }
Test(int8, fp16_storage_bit_exact, .timeout = 600) { check_all(2); }
Test(int8, c_reference_bit_exact, .timeout = 600) { check_all(-1); }
/* FULLY_CONNECTED's one-row sums split over 4 lanes a slice, as a GPU splits them
 * (VKI_FC_SPLIT; integer sums, so still exact). */
Test(int8, fc_split_lanes_bit_exact, .timeout = 600) {
    setenv("VKI_FC_SPLIT", "4", 1);
    check_all(0);
    unsetenv("VKI_FC_SPLIT");
}

/* The integer convolutions (1x1 and direct) and FULLY_CONNECTED of a case sum packed bytes
 * (INT8_PACKED; their kernel's variant ends in q8dot or q8), and depthwise ones read them: by the
 * device's dot product instructions where it has them, and by plain integer products on
 * a context told the device lacks them (VKI_FEATURE_INT_DOT_PRODUCT); every case stays
 * bit-identical to LiteRT there too. */
static int packed_dispatches(vki_context *ctx, const char *name, const char *kernel, const char *form) {
    vki_model *m = load(name);
    vki_graph_options o = {.precision = VKI_PRECISION_FP32};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, m, &o, &g), VKI_OK, "%s: %s", name, vki_last_error());
    int n = 0;
    for (int d = 0; d < vki_graph_dispatch_count(g); d++) {
        vki_dispatch_info info;
        cr_assert_eq(vki_graph_dispatch_info(g, d, &info), VKI_OK);
        if (strcmp(info.kernel, kernel)) continue;
        const char *v = strrchr(info.variant, ' ');
        n += !strcmp(v ? v + 1 : info.variant, form);
    }
    vki_graph_destroy(g);
    vki_model_destroy(m);
    return n;
}

Test(int8, packed_sums_with_and_without_dot_products, .timeout = 600) {
    vki_device_info dev;
    cr_assert_eq(vki_context_device_info(harness_context(), &dev), VKI_OK);
    if (dev.int_dot_product) {
        cr_expect_gt(packed_dispatches(harness_context(), "net_mobilenet_v2", "conv2d_1x1", "q8dot"), 0,
                     "the device has integer dot products, no 1x1 convolution uses them");
        cr_expect_gt(packed_dispatches(harness_context(), "net_mobilenet_v3", "fully_connected", "q8dot"), 0,
                     "the device has integer dot products, no FULLY_CONNECTED uses them");
        cr_expect_eq(packed_dispatches(harness_context(), "conv_3x3_same_relu_pc", "conv2d", "q8dot"), 1,
                     "the device has integer dot products, a 3x3 convolution does not use them");
    }
    vki_context_options co = {.disable_features = VKI_FEATURE_INT_DOT_PRODUCT};
    cr_assert_eq(vki_context_create(&co, &no_dot_context), VKI_OK, "%s", vki_last_error());
    vki_device_info nd;
    cr_assert_eq(vki_context_device_info(no_dot_context, &nd), VKI_OK);
    cr_expect_eq(nd.int_dot_product, 0);
    cr_expect_gt(packed_dispatches(no_dot_context, "net_mobilenet_v2", "conv2d_1x1", "q8"), 0);
    cr_expect_gt(packed_dispatches(no_dot_context, "net_mobilenet_v3", "fully_connected", "q8"), 0);
    cr_expect_eq(packed_dispatches(no_dot_context, "net_mobilenet_v2", "conv2d_1x1", "q8dot"), 0);
    cr_expect_eq(packed_dispatches(no_dot_context, "conv_3x3_same_relu_pc", "conv2d", "q8"), 1);
    check_all(0);
    /* Depthwise ops of a multiplier of 1 (int8 and uint8) take the packed form too (bytes
     * unpacked to q, the zero point off the bias); a multiplier of 3 does not. */
    cr_expect_eq(packed_dispatches(harness_context(), "dw_3x3_same_relu6_pc", "depthwise_conv2d", "q8"), 1);
    cr_expect_eq(packed_dispatches(harness_context(), "dw_u8_3x3_same_relu", "depthwise_conv2d", "q8"), 1);
    cr_expect_eq(packed_dispatches(harness_context(), "dw_5x5_s2_same_dm3_relu", "depthwise_conv2d", "q8"), 0);
    vki_context_destroy(no_dot_context);
    no_dot_context = NULL;
}

/* ---- the integer forms run ---------------------------------------------------------- */

/* After loading, an op without an integer form on int8 tensors runs in float between a
 * DEQUANTIZE and a QUANTIZE that carry its file index. Every op of every case has an
 * integer form (or moves values of one grid), so every QUANTIZE and DEQUANTIZE of the
 * loaded model is one of the file's own. */
Test(int8, every_case_runs_integer_forms) {
    static int8_case cases[MAX_CASES];
    int n_cases = read_cases(cases);
    for (int k = 0; k < n_cases; k++) {
        vki_model *m = load(cases[k].name);
        int steps = 0, file_steps = 0;
        for (int i = 0; i < vki_model_file_op_count(m); i++) {
            int code = vki_model_file_op_code(m, i);
            file_steps += code == VKI_OP_QUANTIZE || code == VKI_OP_DEQUANTIZE;
        }
        for (int o = 0; o < m->n_ops; o++) {
            const vki_op *op = &m->ops[o];
            if (op->code != VKI_OP_QUANTIZE && op->code != VKI_OP_DEQUANTIZE) continue;
            steps++;
            int file_code = op->file_index >= 0 ? vki_model_file_op_code(m, op->file_index) : -1;
            cr_expect_eq(file_code, (int)op->code, "%s: a %s added at load for file op %d (%s): "
                         "that op runs in float", cases[k].name, vki_op_name(op->code),
                         op->file_index, file_code >= 0 ? vki_op_name(file_code) : "graph I/O");
        }
        cr_expect_eq(steps, file_steps, "%s: %d QUANTIZE / DEQUANTIZE ops, the file has %d",
                     cases[k].name, steps, file_steps);
        vki_model_destroy(m);
    }
}

/* The dispatches of a graph that belong to file ops (op_index >= 0; a bare input or output
 * conversion has -1, an output conversion that runs the closing DEQUANTIZE carries that
 * op's index), per file op, written to per_op[0 .. file ops - 1], and all dispatches in
 * *total; returns the file ops' total. */
static int op_dispatches(const char *name, int *per_op, int max_ops, int *n_file_ops, int *total,
                        bool log) {
    vki_model *m = load(name);
    *n_file_ops = vki_model_op_count(m);
    cr_assert_leq(*n_file_ops, max_ops);
    memset(per_op, 0, (size_t)max_ops * sizeof *per_op);
    vki_graph_options o = {.precision = VKI_PRECISION_FP32};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    int n = vki_graph_dispatch_count(g), ops = 0;
    *total = n;
    for (int d = 0; d < n; d++) {
        vki_dispatch_info info;
        cr_assert_eq(vki_graph_dispatch_info(g, d, &info), VKI_OK);
        if (log)
            fprintf(stderr, "int8: %s dispatch %d: %s op %d %s\n", name, d, info.kernel, info.op_index,
                info.op_index >= 0 ? vki_model_op_name(m, info.op_index) : "(I/O conversion)");
        if (info.op_index < 0) continue;
        cr_assert_lt(info.op_index, *n_file_ops);
        per_op[info.op_index]++;
        ops++;
    }
    vki_graph_destroy(g);
    vki_model_destroy(m);
    return ops;
}

/* QUANTIZE -> CONV_2D -> DEQUANTIZE (conv_ties): two dispatches in all. The input's
 * conversion quantizes (it carries the QUANTIZE's index), the convolution requantizes its
 * int32 sums in its own epilogue (no rounding step after it) and, the DEQUANTIZE being
 * the graph output, stores them dequantized in the output's dense layout (no output
 * conversion). */
Test(int8, conv_is_one_integer_dispatch) {
    int per_op[8], n_ops, total;
    int ops = op_dispatches("conv_ties", per_op, 8, &n_ops, &total, true);
    cr_expect_eq(n_ops, 3);
    cr_expect_eq(ops, 2, "conv_ties: %d op dispatches, want 2 (QUANTIZE, CONV_2D)", ops);
    cr_expect_eq(total, 2, "conv_ties: %d dispatches, want 2 (no bare I/O conversion)", total);
    for (int i = 0; i < 2; i++) cr_expect_eq(per_op[i], 1, "file op %d: %d dispatches", i, per_op[i]);
    cr_expect_eq(per_op[2], 0, "the closing DEQUANTIZE: %d dispatches, want 0", per_op[2]);
}

/* The single-op cases of each integer form: one dispatch per file op (the QUANTIZE of
 * each input, the op), so no form is split into a float computation and a rounding step;
 * a closing DEQUANTIZE runs in its producer's store or in the output's conversion. */
Test(int8, each_form_is_one_dispatch) {
    static const char *const names[] = {
        "dw_3x3_same_relu6_pc", "dw_u8_3x3_same_relu", "conv_u8_3x3_same_relu",
        "fc_3x17_relu_pc", "fc_u8_3x17", "add_r3_bcast_relu", "sub_r4_bcast", "mul_r2_bcast",
        "add_u8_bcast_relu6", "maxpool_2x2_s2_valid", "avgpool_3x3_same_ties",
        "mean_flat_other_grid", "mean_u8_keep_other_grid", "unary_relu", "unary_relu6",
        "unary_relu_n1_to_1", "unary_logistic", "unary_tanh", "unary_elu", "unary_leaky_relu",
        "unary_hard_swish", "unary_quantize",
        "concat_u8_grids_c", "concat_u8_grids_h", "concat_u8_grids_w", "padv2_int8", "padv2_uint8",
        "quantize_types", "softmax_uint8", "prelu_int8", "resize_bilinear_uint8",
    };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        int per_op[32], n_ops, total;
        op_dispatches(names[k], per_op, 32, &n_ops, &total, false);
        vki_model *m = load(names[k]);
        for (int i = 0; i < n_ops; i++) {
            const bool closing = !strcmp(vki_model_op_name(m, i), "DEQUANTIZE");
            if (closing)
                cr_expect_leq(per_op[i], 1, "%s: file op %d: %d dispatches", names[k], i, per_op[i]);
            else
                cr_expect_eq(per_op[i], 1, "%s: file op %d: %d dispatches", names[k], i, per_op[i]);
        }
        vki_model_destroy(m);
    }
}

/* A table op after an integer ADD that no convolution takes runs in the ADD's dispatch:
 * net_mobilenet_v3's hard sigmoid (ADD 3 then RELU6, file ops 7 and 8) and net_blazeface's
 * ADD then RELU (12 and 13); net_mobilenet_v3's HARD_SWISH (2) in its CONV_2D's (1). */
Test(int8, table_ops_run_in_their_producers_dispatch) {
    static const struct { const char *name; int producer, table; } cases[] = {
        {"net_mobilenet_v3", 7, 8}, {"net_blazeface", 12, 13}, {"net_mobilenet_v3", 1, 2},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        int per_op[32], n_ops, total;
        op_dispatches(cases[k].name, per_op, 32, &n_ops, &total, false);
        vki_model *m = load(cases[k].name);
        const char *table = vki_model_op_name(m, cases[k].table);
        cr_assert(table && (!strcmp(table, "RELU6") || !strcmp(table, "RELU") ||
                            !strcmp(table, "HARD_SWISH")), "%s: op %d is %s", cases[k].name,
                  cases[k].table, table ? table : "?");
        cr_expect_eq(per_op[cases[k].producer], 1, "%s: op %d: %d dispatches", cases[k].name,
                     cases[k].producer, per_op[cases[k].producer]);
        cr_expect_eq(per_op[cases[k].table], 0, "%s: %s (op %d) runs in %d dispatches of its own",
                     cases[k].name, table, cases[k].table, per_op[cases[k].table]);
        vki_model_destroy(m);
    }
}

/* The cases cover every op that has an integer form on int8 / uint8 tensors, and the
 * value movers. */
Test(int8, cases_cover_every_integer_form) {
    static const char *const want[] = {
        "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "MAX_POOL_2D",
        "AVERAGE_POOL_2D", "MEAN", "RELU", "RELU6", "RELU_N1_TO_1", "LOGISTIC", "TANH", "ELU",
        "LEAKY_RELU", "HARD_SWISH", "QUANTIZE", "DEQUANTIZE", "RESHAPE", "TRANSPOSE",
        "CONCATENATION", "PAD", "SLICE", "STRIDED_SLICE", "SPACE_TO_DEPTH", "DEPTH_TO_SPACE",
        "RESIZE_NEAREST_NEIGHBOR", "GATHER", "PADV2", "SOFTMAX", "PRELU", "RESIZE_BILINEAR",
    };
    enum { N_WANT = sizeof want / sizeof *want };
    int seen[N_WANT] = {0};
    static int8_case cases[MAX_CASES];
    int n_cases = read_cases(cases);
    for (int k = 0; k < n_cases; k++) {
        vki_model *m = load(cases[k].name);
        for (int i = 0; i < vki_model_op_count(m); i++) {
            const char *name = vki_model_op_name(m, i);
            for (int w = 0; w < N_WANT; w++) seen[w] += name && !strcmp(name, want[w]);
        }
        vki_model_destroy(m);
    }
    for (int w = 0; w < N_WANT; w++) {
        fprintf(stderr, "int8: %s in %d op(s) of the cases\n", want[w], seen[w]);
        cr_expect_gt(seen[w], 0, "no case has a %s", want[w]);
    }
}

/* ---- camera frames --------------------------------------------------------------------- */

/* A model whose first op is its QUANTIZE runs it in the input's conversion, and so in the
 * image kernel that replaces the conversion for a camera frame: an RGBA frame must give,
 * bit for bit, what the image reference's floats given as the input give, in every
 * precision (net_blazeface and net_uint8: int8 and uint8 grids, 3 channels). */
Test(int8, camera_frame_quantizes_as_the_first_quantize) {
    static const char *const names[] = {"net_blazeface", "net_uint8"};
    const vki_precision precisions[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                        VKI_PRECISION_FP16_STORAGE};
    enum { W = 23, H = 17 };
    static uint8_t rgba[W * H * 4];
    for (int i = 0; i < W * H * 4; i++) rgba[i] = (uint8_t)((i * 37 + (i / 92) * 11) & 255);
    const vki_image img = {.format = VKI_PIXEL_RGBA8888, .width = W, .height = H, .data = rgba};
    const vki_image_transform tr = {.rotation = 90, .mirror = 1, .mean = {127.5f, 120.0f, 110.0f},
                                    .std = {127.5f, 60.0f, 64.0f}};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        vki_model *m = load(names[k]);
        vki_tensor_info in, out;
        cr_assert_eq(vki_model_input_info(m, 0, &in), VKI_OK);
        cr_assert_eq(vki_model_output_info(m, 0, &out), VKI_OK);
        cr_assert_eq(in.shape[3], 3);
        float *ref_in = malloc(in.element_count * sizeof(float));
        float *a = malloc(out.element_count * sizeof(float)), *b = malloc(out.element_count * sizeof(float));
        cr_assert(ref_in && a && b);
        cr_assert_eq(vki_image_reference(&img, &tr, in.shape[1], in.shape[2], 3, ref_in), VKI_OK, "%s",
                     vki_last_error());
        for (int p = 0; p < 3; p++) {
            vki_graph_options o = {.precision = precisions[p]};
            vki_graph *g = NULL;
            if (vki_graph_create(harness_context(), m, &o, &g) != VKI_OK) {
                cr_assert(p > 0, "%s: %s", names[k], vki_last_error());   /* no fp16 storage */
                continue;
            }
            vki_dispatch_info info;
            cr_assert_eq(vki_graph_dispatch_info(g, 0, &info), VKI_OK);
            const int first = info.op_index;
            const char *op = first >= 0 ? vki_model_op_name(m, first) : NULL;
            cr_expect(op && !strcmp(op, "QUANTIZE"),
                      "%s: the input's conversion runs op %d, not the QUANTIZE", names[k], first);
            cr_assert_eq(vki_graph_set_input_image(g, 0, &img, &tr), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(vki_graph_get_output(g, 0, a, out.element_count * sizeof(float)), VKI_OK);
            cr_assert_eq(vki_graph_set_input(g, 0, ref_in, in.element_count * sizeof(float)), VKI_OK);
            cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(vki_graph_get_output(g, 0, b, out.element_count * sizeof(float)), VKI_OK);
            size_t differ = 0;
            for (size_t i = 0; i < out.element_count; i++) differ += memcmp(&a[i], &b[i], sizeof(float)) != 0;
            fprintf(stderr, "int8: %s %s camera frame: %zu of %zu output elements differ from the "
                    "floats' run\n", names[k], harness_precision_name(p), differ, out.element_count);
            cr_expect_eq(differ, 0, "%s %s: %zu elements differ", names[k], harness_precision_name(p),
                         differ);
            vki_graph_destroy(g);
        }
        free(ref_in);
        free(a);
        free(b);
        vki_model_destroy(m);
    }
}
