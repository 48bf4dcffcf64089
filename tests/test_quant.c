/* test_quant.c: int8 and hybrid models against the real TFLite interpreter (LiteRT's int8
 * kernels; tests/data/quant, written by tests/make_quant_models.py), and the loader's
 * checks of quantization parameters. tests/test_int8.c checks every integer form on its
 * own.
 *
 * int8_cnn is full-integer quantization as TFLite's converter writes it: QUANTIZE, int8
 * CONV_2D (per-channel weights, int32 bias) with RELU, DEPTHWISE_CONV_2D, a 1x1 CONV_2D,
 * ADD, MEAN, FULLY_CONNECTED, SOFTMAX (int8 at 1/256), two DEQUANTIZEs. Errors are in
 * steps of the output's grid (LSB). hybrid_conv_fc holds int8 weights under float
 * activations (dynamic-range quantization). */
#include "harness.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *read_f32(const char *name, const char *suffix, size_t count) {
    return harness_read_data_f32("quant", name, suffix, count);
}

static vki_model *load(const char *name) { return harness_load_data_model("quant", name); }

typedef struct run_result {
    float *out;                 /* every output, concatenated */
    size_t n[4], total;
    int n_out;
} run_result;

/* Runs the model on its stored input in one precision (or, with reference set, on the C
 * references). */
static run_result run(const char *name, vki_precision precision, int reference) {
    vki_model *m = load(name);
    run_result r = {.n_out = vki_model_output_count(m)};
    cr_assert(r.n_out <= 4 && vki_model_input_count(m) == 1);
    vki_tensor_info ti;
    vki_model_input_info(m, 0, &ti);
    float *in = read_f32(name, "in", ti.element_count);
    for (int i = 0; i < r.n_out; i++) {
        vki_tensor_info to;
        vki_model_output_info(m, i, &to);
        r.n[i] = to.element_count;
        r.total += to.element_count;
    }
    r.out = malloc(r.total * sizeof(float));
    float *outs[4];
    for (int i = 0, at = 0; i < r.n_out; at += (int)r.n[i], i++) outs[i] = r.out + at;
    if (reference) {
        cr_assert_eq(vki_model_reference_run(m, (const float *const *)&in, outs), VKI_OK, "%s",
                     vki_last_error());
    } else {
        vki_graph_options o = {.precision = precision};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_set_input(g, 0, in, ti.element_count * sizeof(float)), VKI_OK);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        for (int i = 0; i < r.n_out; i++)
            cr_assert_eq(vki_graph_get_output(g, i, outs[i], r.n[i] * sizeof(float)), VKI_OK);
        vki_graph_destroy(g);
    }
    free(in);
    vki_model_destroy(m);
    return r;
}

/* The largest difference in steps of `step`, how many elements differ at all, and the
 * mean difference in steps (where mean is not NULL). */
static double lsb_error_mean(const float *a, const float *b, size_t n, double step, int *differ,
                             double *mean) {
    double worst = 0.0, sum = 0.0;
    *differ = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / step;
        worst = d > worst ? d : worst;
        sum += d;
        *differ += d > 1e-3;
    }
    if (mean) *mean = n ? sum / (double)n : 0.0;
    return worst;
}


/* int8_cnn's outputs: DEQUANTIZE of the softmax (grid 1/256) and of the ADD (its grid from
 * calibration, read from the model). */
static void output_steps(double step[2]) {
    step[0] = 1.0 / 256.0;
    vki_model *m = load("int8_cnn");
    /* The ADD's output is the DEQUANTIZE's input: the only tensor named "a1". */
    step[1] = 0.0;
    for (int t = 0; t < m->n_tensors; t++)
        if (!strcmp(m->tensors[t].name, "a1") && vki_tensor_quantized(&m->tensors[t]))
            step[1] = m->tensors[t].quant_scale;
    cr_assert_gt(step[1], 0.0, "int8_cnn: tensor a1 lost its grid");
    vki_model_destroy(m);
}

static void check_int8(vki_precision precision, int reference, double bound_lsb) {
    run_result r = run("int8_cnn", precision, reference);
    float *want = read_f32("int8_cnn", "litert", r.total);
    double step[2];
    output_steps(step);
    static const char *const names[] = {"fp32", "fp16", "fp16-storage"};
    for (int i = 0, at = 0; i < r.n_out; at += (int)r.n[i], i++) {
        int differ;
        double mean;
        double lsb = lsb_error_mean(r.out + at, want + at, r.n[i], step[i], &differ, &mean);
        fprintf(stderr, "quant: int8_cnn %s output %d: %.2f LSB from LiteRT at most, %.3f LSB "
                "mean, %d of %zu elements differ\n", reference ? "C reference" : names[precision],
                i, lsb, mean, differ, r.n[i]);
        cr_expect(lsb <= bound_lsb, "output %d: %.2f LSB from LiteRT, bound %.1f", i, lsb, bound_lsb);
    }
    free(want);
    free(r.out);
}

/* Every op of int8_cnn has an integer form (SOFTMAX too: TFLite's float table kernel,
 * engine/ops/softmax.c): bit for bit with LiteRT (0 LSB) in fp32, in the C references and
 * in the fp16 precisions (integer tensors hold whole numbers that float16 holds exactly,
 * and the integer forms compute in int32 and float32 whatever the precision). */
Test(quant, int8_model_bit_exact) { check_int8(VKI_PRECISION_FP32, 0, 0.0); }
Test(quant, int8_model_c_reference_bit_exact) { check_int8(VKI_PRECISION_FP32, 1, 0.0); }
Test(quant, int8_model_fp16) { check_int8(VKI_PRECISION_FP16, 0, 0.0); }
Test(quant, int8_model_fp16_storage) { check_int8(VKI_PRECISION_FP16_STORAGE, 0, 0.0); }

/* LiteRT's own int8 model against the float model it was quantized from: the int8 error
 * budget the delegate approach works within (logged for the record). */
Test(quant, litert_int8_against_float) {
    size_t n = 4 + 100;
    float *q = read_f32("int8_cnn", "litert", n), *f = read_f32("int8_cnn", "float", n);
    double worst = 0.0, peak = 0.0;
    /* Comparisons, not fmax: Debian 12's aarch64 GCC crashes vectorizing an fmax
     * reduction (internal compiler error in vect_transform_reduction). */
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)q[i] - (double)f[i]), a = fabs((double)f[i]);
        if (d > worst) worst = d;
        if (a > peak) peak = a;
    }
    fprintf(stderr, "quant: LiteRT int8 vs float: %.3g of the output range\n", worst / peak);
    cr_expect(worst / peak < 0.1);
    double step[2], mean[2], lsb[2];
    int differ;
    output_steps(step);
    lsb[0] = lsb_error_mean(q, f, 4, step[0], &differ, &mean[0]);
    lsb[1] = lsb_error_mean(q + 4, f + 4, 100, step[1], &differ, &mean[1]);
    fprintf(stderr, "quant: int8_cnn: LiteRT int8 vs float: softmax %.2f LSB at most (%.2f mean), "
            "ADD %.2f LSB at most (%.2f mean)\n", lsb[0], mean[0], lsb[1], mean[1]);
    free(q);
    free(f);
}

/* Hybrid: vkinfer runs the dequantized weights in float (as the GPU delegate does); LiteRT
 * quantizes the activations on the fly, which moved its outputs 0.65% from the float
 * model's. Measured 0.55% between the two; bound 2%. The C reference is held to 1e-5. */
static void check_hybrid(const char *name, vki_precision precision, double bound) {
    run_result r = run(name, precision, 0), ref = run(name, 0, 1);
    float *want = read_f32(name, "litert", r.total), *flt = read_f32(name, "float", r.total);
    double err = vki_relative_error(r.out, want, r.total, NULL);
    double ref_err = vki_relative_error(r.out, ref.out, r.total, NULL);
    fprintf(stderr, "quant: %s precision %d: %.3g from LiteRT, %.3g from the C reference; "
            "LiteRT's hybrid %.3g and vkinfer %.3g from the float model\n", name, (int)precision,
            err, ref_err, vki_relative_error(want, flt, r.total, NULL),
            vki_relative_error(r.out, flt, r.total, NULL));
    free(flt);
    cr_expect(err <= bound, "%.3g from LiteRT, bound %.3g", err, bound);
    cr_expect(ref_err <= (precision == VKI_PRECISION_FP32 ? 1e-5 : 1e-2), "%.3g from the C reference",
              ref_err);
    free(want);
    free(r.out);
    free(ref.out);
}

Test(quant, hybrid_model_fp32) { check_hybrid("hybrid_conv_fc", VKI_PRECISION_FP32, 2e-2); }
Test(quant, hybrid_model_fp16) { check_hybrid("hybrid_conv_fc", VKI_PRECISION_FP16, 3e-2); }
/* hybrid_dw_bmm: DEPTHWISE_CONV_2D (per-channel int8 weights along axis 3, depth
 * multiplier 2) and BATCH_MATMUL with an int8 constant. Measured 0.37% from LiteRT in fp32
 * (0.40% fp16); LiteRT's hybrid output is 0.71% from the float model's, vkinfer's 0.53%
 * (its only error is the weights' rounding). Bounds as hybrid_conv_fc's. */
Test(quant, hybrid_dw_bmm_fp32) { check_hybrid("hybrid_dw_bmm", VKI_PRECISION_FP32, 2e-2); }
Test(quant, hybrid_dw_bmm_fp16) { check_hybrid("hybrid_dw_bmm", VKI_PRECISION_FP16, 3e-2); }

/* ---- the loader's checks ------------------------------------------------------------- */

static void expect_load_error(const char *name, vki_status want, const char *needle) {
    char path[1024];
    snprintf(path, sizeof path, "%s/quant/%s.tflite", harness_data_dir(), name);
    vki_model *m = (vki_model *)1;
    vki_status s = vki_model_load_file(path, &m);
    cr_expect_eq(s, want, "%s: %s: %s", name, vki_status_name(s), vki_last_error());
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), needle), "%s: message '%s' lacks '%s'", name,
              vki_last_error(), needle);
}

Test(quant, malformed_quantization_is_an_error_naming_the_tensor) {
    expect_load_error("bad_scale_count", VKI_ERROR_MODEL_FORMAT,
                      "tensor 1 'w': 3 per-channel scales along quantized_dimension 0");
    expect_load_error("bad_zero_scale", VKI_ERROR_MODEL_FORMAT,
                      "tensor 1 'w': scale 1 is 0, need a positive finite value");
    expect_load_error("bad_axis", VKI_ERROR_MODEL_FORMAT, "quantized_dimension 7, which is out of range");
    expect_load_error("bad_zero_point", VKI_ERROR_MODEL_FORMAT,
                      "tensor 2 'y': zero point 300 is outside -128..127");
    expect_load_error("bad_per_channel_activation", VKI_ERROR_UNSUPPORTED_MODEL,
                      "an activation quantized per channel is not supported");
    expect_load_error("bad_zero_point_count", VKI_ERROR_MODEL_FORMAT,
                      "bad_zero_point_count.tflite: tensor 1 'w': 2 scales but 3 zero points");
    expect_load_error("bad_nan_scale", VKI_ERROR_MODEL_FORMAT,
                      "tensor 1 'w': scale 1 is nan, need a positive finite value");
    expect_load_error("bad_negative_axis", VKI_ERROR_MODEL_FORMAT,
                      "quantized_dimension -1, which is out of range");
    expect_load_error("bad_no_grid", VKI_ERROR_UNSUPPORTED_MODEL,
                      "tensor 2 'y': int8 without quantization parameters is not supported");
}

/* The per-channel weights came back as the float values the converter quantized. */
Test(quant, per_channel_weights_dequantize_at_load) {
    vki_model *m = load("int8_cnn");
    int found = 0;
    for (int t = 0; t < m->n_tensors; t++) {
        const vki_tensor *x = &m->tensors[t];
        if (strcmp(x->name, "w1")) continue;
        found = 1;
        cr_expect_eq(x->dtype, VKI_DTYPE_FLOAT32);
        cr_expect_eq(x->data_bytes, 5 * 27 * sizeof(float));
        /* Channel c's largest magnitude is exactly 127 steps of its own scale. */
        for (int c = 0; c < 5; c++) {
            float peak = 0.0f;
            for (int i = 0; i < 27; i++) {
                float a = fabsf(((const float *)x->data)[c * 27 + i]);
                if (a > peak) peak = a;
            }
            cr_expect_gt(peak, 0.3f, "channel %d", c);
        }
        /* The file's int8 values and per-channel grids are kept for the integer forms. */
        cr_expect(x->qdata && x->qscale && x->qzero && x->n_qscale == 5 && x->qaxis == 0);
        for (int e = 0; x->qdata && e < 5 * 27; e++)
            cr_expect_eq(((const float *)x->data)[e], x->qscale[e / 27] * (float)x->qdata[e]);
    }
    cr_expect(found);
    /* Every quantized activation became float32 with a grid, and stays in the q domain:
     * every op has an integer form (SOFTMAX's too), so the loader adds no QUANTIZE to the
     * file's one. */
    int steps = 0;
    for (int o = 0; o < m->n_ops; o++) steps += m->ops[o].code == VKI_OP_QUANTIZE;
    cr_expect_eq(steps, 1, "the file's QUANTIZE alone");
    vki_model_destroy(m);
}

/* ---- the rounding step on its own ------------------------------------------------------ */

/* The q - zero point LiteRT's QUANTIZE gives (XNNPACK's f32-qs8-vcvt: x times the
 * float32 reciprocal of the scale, ties to even, clamped), worked out in double: exact for
 * a power-of-two scale, where the product is. */
static float expected_step(float x, float scale, int zero, int lo, int hi) {
    double f = (double)x * (1.0 / (double)scale);
    double q = fabs(f) > 1e6 ? (f > 0 ? 1e6 : -1e6) : nearbyint(f);
    q += zero;
    q = q < lo ? lo : q > hi ? hi : q;
    return (float)(q - zero);
}

/* x = k + 0.5 steps (ties), just below and above the ties, whole steps, and values far
 * past both ends of the grid, cycling over the tensor. */
static void fill_ties(float *x, size_t n, float scale, int zero) {
    for (size_t i = 0; i < n; i++) {
        int k = (int)(i % 300) - 150 - zero;     /* steps from the zero point */
        float t = (float)k + 0.5f;
        switch (i % 7) {
        case 0: case 1: x[i] = t * scale; break;                          /* a tie */
        case 2: x[i] = nextafterf(t, 0.0f) * scale; break;               /* just inside */
        case 3: x[i] = nextafterf(t, t > 0 ? INFINITY : -INFINITY) * scale; break;
        case 4: x[i] = (float)k * scale; break;                          /* on the grid */
        case 5: x[i] = (i & 8 ? 1e5f : -1e5f) * scale; break;            /* clamped */
        default: x[i] = nextafterf(i & 16 ? 0.5f : -0.5f, 0.0f) * scale; break;
        }
    }
}

typedef struct grid { float scale; int zero, lo, hi; } grid;

/* QUANTIZE alone on a [1,h,w,c] graph input (a model built by hand: its output holds
 * q - zero point), on the device in fp32 and in the C reference; returns how many elements
 * of the device's output differ from `want`. */
static int run_step(int h, int w, int c, grid g, const float *x, const float *want, float *dev,
                    float *ref) {
    vki_model *m = vki_model_new("quantize_step");
    cr_assert(m);
    int in = harness_tensor(m, h, w, c), out = harness_tensor(m, h, w, c);
    m->tensors[out].quant_scale = g.scale;
    m->tensors[out].quant_zero = g.zero;
    m->tensors[out].quant_min = g.lo;
    m->tensors[out].quant_max = g.hi;
    harness_op(m, VKI_OP_QUANTIZE, 1, &in, out);
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    size_t n = (size_t)h * w * c;
    cr_assert_eq(vki_model_reference_run(m, &x, &ref), VKI_OK, "%s", vki_last_error());
    vki_graph_options o = {.precision = VKI_PRECISION_FP32};
    vki_graph *gr = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &gr), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_set_input(gr, 0, x, n * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(gr), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(gr, 0, dev, n * sizeof(float)), VKI_OK);
    vki_graph_destroy(gr);
    vki_model_destroy(m);
    int differ = 0;
    for (size_t i = 0; i < n; i++) differ += dev[i] != want[i];
    return differ;
}

/* Power-of-two scales, so x / scale is exact everywhere and every tie is a tie: the device
 * and the C reference must give LiteRT's value bit for bit (ties to even, clamped at the
 * grid's ends), int8 and uint8, for channel counts that fill a vec4 partly. */
Test(quant, rounding_step_exact_on_ties_and_clamps) {
    static const grid grids[] = {
        {0.5f, -3, -128, 127}, {1.0f / 256, -128, -128, 127}, {0.25f, 128, 0, 255},
        {2.0f, 0, -128, 127}, {0.125f, 0, 0, 255},
    };
    static const int shapes[][3] = {{3, 5, 1}, {7, 3, 3}, {1, 9, 5}, {5, 7, 17}, {9, 1, 17}};
    for (size_t gi = 0; gi < sizeof grids / sizeof *grids; gi++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            grid g = grids[gi];
            int h = shapes[si][0], w = shapes[si][1], c = shapes[si][2];
            size_t n = (size_t)h * w * c;
            float *x = malloc(4 * n * sizeof(float)), *want = x + n, *dev = x + 2 * n, *ref = x + 3 * n;
            cr_assert(x);
            fill_ties(x, n, g.scale, g.zero);
            for (size_t i = 0; i < n; i++) want[i] = expected_step(x[i], g.scale, g.zero, g.lo, g.hi);
            int differ = run_step(h, w, c, g, x, want, dev, ref);
            for (size_t i = 0; i < n && differ; i++)
                if (dev[i] != want[i]) {
                    cr_expect_fail("grid %g/%d [%d,%d], shape %dx%dx%d: %d elements differ, first "
                                   "x = %.9g (%.9g steps): device %.9g, want %.9g", (double)g.scale,
                                   g.zero, g.lo, g.hi, h, w, c, differ, (double)x[i],
                                   (double)(x[i] / g.scale), (double)dev[i], (double)want[i]);
                    break;
                }
            for (size_t i = 0; i < n; i++)
                if (ref[i] != want[i]) {
                    cr_expect_fail("C reference: x = %.9g: %.9g, want %.9g", (double)x[i],
                                   (double)ref[i], (double)want[i]);
                    break;
                }
            free(x);
        }
}

/* Scales that are not powers of two: x / scale rounds, and the device's division may
 * differ from C's by an ulp, which moves a value within an ulp of a tie by one step. Held
 * to one step against the C reference; the count of such elements is logged. */
Test(quant, rounding_step_general_scales_within_one_step) {
    static const grid grids[] = {{0.0235f, -3, -128, 127}, {0.0371f, 131, 0, 255}, {0.3f, 7, -128, 127}};
    int total = 0, moved = 0;
    for (size_t gi = 0; gi < sizeof grids / sizeof *grids; gi++) {
        grid g = grids[gi];
        int h = 5, w = 7, c = 17;
        size_t n = (size_t)h * w * c;
        float *x = malloc(4 * n * sizeof(float)), *want = x + n, *dev = x + 2 * n, *ref = x + 3 * n;
        cr_assert(x);
        fill_ties(x, n, g.scale, g.zero);
        harness_fill(want, n, 11 + (uint32_t)gi, -1.0f, 1.0f);
        for (size_t i = 0; i < n; i += 2) x[i] = want[i] * 160.0f * g.scale;   /* random too */
        run_step(h, w, c, g, x, want, dev, ref);
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)dev[i] - (double)ref[i]) / g.scale;
            cr_expect(d <= 1.001, "x = %.9g: device %.9g, C %.9g", (double)x[i],
                      (double)dev[i], (double)ref[i]);
            moved += d > 1e-3;
            total++;
        }
        free(x);
    }
    fprintf(stderr, "quant: rounding step, general scales: %d of %d elements one step from the "
            "C reference\n", moved, total);
}

/* ---- int8 and uint8 graph inputs and outputs -------------------------------------------- */

/* int8_io: an int8 graph input and output around CONV_2D (per-channel, RELU6), MAX_POOL_2D,
 * AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED (per-tensor weights) and LOGISTIC (int8 at
 * 1/256); uint8_io: the same net with uint8 graph input and output, requantized to and
 * from int8 by QUANTIZE as the converter writes it. Both are fed real values on the
 * input's grid and give the output's real values, (q + 128) / 256. LiteRT's figures: from
 * its int8 net for int8_io (LiteRT.js has no int8 tensors: a float-I/O twin of the same
 * net, whose QUANTIZE maps the real input to the same int8 values), from the uint8 model
 * itself for uint8_io. */
static void check_io(const char *name, vki_precision precision, int reference, double bound_lsb) {
    run_result r = run(name, precision, reference);
    cr_assert_eq(r.n_out, 1);
    cr_assert_eq(r.total, 5);
    float *want = read_f32(name, "litert", r.total);
    int differ;
    double mean;
    double lsb = lsb_error_mean(r.out, want, r.total, 1.0 / 256.0, &differ, &mean);
    static const char *const names[] = {"fp32", "fp16", "fp16-storage"};
    fprintf(stderr, "quant: %s %s: %.2f LSB from LiteRT at most, %.3f LSB mean, %d of %zu "
            "elements differ\n", name, reference ? "C reference" : names[precision], lsb, mean,
            differ, r.total);
    cr_expect(lsb <= bound_lsb, "%s: %.2f LSB from LiteRT, bound %.1f", name, lsb, bound_lsb);
    /* Every output is on the grid: a whole number of 1/256 steps. */
    for (size_t i = 0; i < r.total; i++) {
        double q = (double)r.out[i] * 256.0;
        cr_expect(fabs(q - round(q)) < (precision == VKI_PRECISION_FP32 ? 1e-4 : 0.1),
                  "%s output %zu: %.9g is off the grid", name, i, (double)r.out[i]);
    }
    free(want);
    free(r.out);
}

/* The graph's inputs and outputs are float32 tensors of the file's shapes, and the loader
 * rounds an int8 graph input onto its grid first (a QUANTIZE of the graph input). */
Test(quant, int8_graph_io_is_float_real_values) {
    for (int k = 0; k < 2; k++) {
        vki_model *m = load(k ? "uint8_io" : "int8_io");
        vki_tensor_info ti;
        cr_assert_eq(vki_model_input_info(m, 0, &ti), VKI_OK);
        cr_expect(ti.rank == 4 && ti.shape[1] == 8 && ti.shape[2] == 6 && ti.shape[3] == 3);
        cr_expect_eq(m->tensors[m->inputs[0]].dtype, VKI_DTYPE_FLOAT32);
        cr_expect_eq(m->tensors[m->outputs[0]].dtype, VKI_DTYPE_FLOAT32);
        cr_expect(!vki_tensor_quantized(&m->tensors[m->inputs[0]]), "the caller's input has no grid");
        cr_expect_eq(m->ops[0].code, VKI_OP_QUANTIZE, "the graph input is rounded first");
        cr_expect_eq(m->ops[0].inputs[0], m->inputs[0]);
        /* Every op has an integer form, so no rounding step follows one: int8_io is its six
         * ops between the QUANTIZE of the graph input and the DEQUANTIZE of its output;
         * uint8_io's two QUANTIZE ops between uint8 and int8 are tables too (TFLite's
         * Requantize). */
        int steps = 0, back = 0;
        for (int o = 0; o < m->n_ops; o++) {
            steps += m->ops[o].code == VKI_OP_QUANTIZE;
            back += m->ops[o].code == VKI_OP_DEQUANTIZE;
        }
        const char *name = k ? "uint8_io" : "int8_io";
        cr_expect_eq(steps, k ? 3 : 1, "%s: %d QUANTIZE ops", name, steps);
        cr_expect_eq(back, 1, "%s: %d DEQUANTIZE ops", name, back);
        cr_expect_eq(m->n_ops, k ? 10 : 8, "%s: %d ops", name, m->n_ops);
        cr_expect_eq(m->ops[m->n_ops - 1].code, VKI_OP_DEQUANTIZE, "%s: the output is dequantized last", name);
        cr_expect_eq(m->ops[m->n_ops - 1].outputs[0], m->outputs[0]);
        vki_model_destroy(m);
    }
}

/* LiteRT's int8 net against the float net it was quantized from, in LSB of the output's
 * grid (logged for the record: the error int8 itself brings, which vkinfer does not add
 * to). */
Test(quant, litert_int8_io_against_float) {
    float *q = read_f32("int8_io", "litert", 5), *f = read_f32("int8_io", "float", 5);
    int differ;
    double mean, worst = lsb_error_mean(q, f, 5, 1.0 / 256.0, &differ, &mean);
    fprintf(stderr, "quant: int8_io: LiteRT int8 vs float: %.2f LSB at most, %.2f mean\n", worst, mean);
    cr_expect(worst < 8.0);
    free(q);
    free(f);
}

/* Every op has an integer form: 0 LSB from LiteRT in every precision and in the C
 * references. */
Test(quant, int8_io_model_fp32) { check_io("int8_io", VKI_PRECISION_FP32, 0, 0.0); }
Test(quant, int8_io_model_c_reference) { check_io("int8_io", VKI_PRECISION_FP32, 1, 0.0); }
Test(quant, int8_io_model_fp16) { check_io("int8_io", VKI_PRECISION_FP16, 0, 0.0); }
Test(quant, int8_io_model_fp16_storage) { check_io("int8_io", VKI_PRECISION_FP16_STORAGE, 0, 0.0); }
Test(quant, uint8_io_model_fp32) { check_io("uint8_io", VKI_PRECISION_FP32, 0, 0.0); }
Test(quant, uint8_io_model_c_reference) { check_io("uint8_io", VKI_PRECISION_FP32, 1, 0.0); }
Test(quant, uint8_io_model_fp16) { check_io("uint8_io", VKI_PRECISION_FP16, 0, 0.0); }

/* ---- dequantization at load, value for value ------------------------------------------- */

static const vki_tensor *named(const vki_model *m, const char *name) {
    for (int t = 0; t < m->n_tensors; t++)
        if (!strcmp(m->tensors[t].name, name)) return &m->tensors[t];
    cr_assert_fail("no tensor '%s'", name);
    return NULL;
}

static void expect_values(const vki_model *m, const char *name, const float *want, int n) {
    const vki_tensor *t = named(m, name);
    cr_assert_eq(t->dtype, VKI_DTYPE_FLOAT32, "%s", name);
    cr_assert(t->data, "%s is not a constant", name);
    cr_assert_eq(t->data_bytes, (size_t)n * sizeof(float), "%s", name);
    for (int i = 0; i < n; i++)
        cr_expect_eq(((const float *)t->data)[i], want[i], "%s[%d]: %.9g, want %.9g", name, i,
                     (double)((const float *)t->data)[i], (double)want[i]);
}

/* dequant.tflite (make_quant_models.py): real = scale[c] * (q - zero[c]) per channel along
 * quantized_dimension 0 (CONV_2D weights [O,H,W,I]) and 3 (DEPTHWISE weights [1,H,W,O]),
 * int32 biases at their scale (input scale * weight scale), DEQUANTIZE of int8 and uint8
 * constants with zero points folded into float constants; activations float with grids. */
Test(quant, dequantization_at_load_value_for_value) {
    vki_model *m = load("dequant");
    expect_values(m, "wc", (const float[]){-64.0f, 63.5f, 0.25f, -0.25f, 0.375f, -0.625f}, 6);
    expect_values(m, "bc", (const float[]){1000 * 0.05f, -7 * 0.025f, 0.0f}, 3);
    float wd[12];
    static const float sd[3] = {0.1f, 0.2f, 0.4f};
    for (int e = 0; e < 12; e++) wd[e] = sd[e % 3] * (float)(e - 6);
    expect_values(m, "wd", wd, 12);
    expect_values(m, "bd", (const float[]){-40 * 0.025f, 40 * 0.05f, 2000 * 0.1f}, 3);
    expect_values(m, "k8f", (const float[]){-65.5f, -1.5f, 62.0f}, 3);
    expect_values(m, "kuf", (const float[]){-32.0f, 0.0f, 31.75f}, 3);
    const vki_tensor *c = named(m, "c"), *d = named(m, "d");
    cr_expect(c->dtype == VKI_DTYPE_FLOAT32 && !c->data && c->quant_scale == 0.25f &&
              c->quant_zero == -1 && c->quant_min == -128 && c->quant_max == 127);
    cr_expect(d->dtype == VKI_DTYPE_FLOAT32 && d->quant_scale == 0.5f && d->quant_zero == 0);
    /* No DEQUANTIZE of a constant is left; the one of the activation d is a copy. */
    int dq = 0;
    for (int o = 0; o < m->n_ops; o++) dq += m->ops[o].code == VKI_OP_DEQUANTIZE;
    cr_expect_eq(dq, 1);
    vki_model_destroy(m);
}
