/* test_conformance.c: real MediaPipe models against the real TFLite interpreter's outputs
 * (tests/data/ref, written by LiteRT's CPU path), on the default device.
 * Error of an output = max|a - b| / max(max|b|, 1). */
#include "harness.h"
#include "graph.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_or(const char *name, const char *fallback) {
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* VKI_AGREE_MODELS=one keeps the agreement checks (memory strategies, passes, the schedule
 * stage: the same host code on every model) to face_detection_short_range, for
 * tools/test.sh's slower runs; the plain run covers them all. */
static int agree_on_one(void) { return !strcmp(env_or("VKI_AGREE_MODELS", "all"), "one"); }

static void agree_scope(const char *model) {
    if (agree_on_one() && strcmp(model, "face_detection_short_range"))
        cr_skip_test("VKI_AGREE_MODELS=one: face_detection_short_range only");
}

/* Runs `model` on the device (and, when check_reference, on the C references too) with
 * the reference input, comparing every output with TFLite's. */
/* An output whose bound differs from the model's, with the reason in a comment where used.
 * An output of mask logits (mask set) is also compared as the mask they stand for: the mean
 * of |sigmoid(a) - sigmoid(b)| over its pixels must stay within mask_mean, and at most
 * mask_flips of them may change side of 0.5. */
typedef struct {
    int output;
    double tol;
    int mask;
    double mask_mean, mask_flips;
} output_bound;

static const output_bound *special_for(int output, const output_bound *special) {
    for (; special && special->output >= 0; special++)
        if (special->output == output) return special;
    return NULL;
}

/* The mean of |sigmoid(got) - sigmoid(want)| (NaN where got has one), and in *flipped the
 * fraction of elements on different sides of 0.5. */
static double mask_error(const float *got, const float *want, size_t n, double *flipped) {
    double sum = 0.0;
    size_t flips = 0;
    for (size_t k = 0; k < n; k++) {
        double a = 1.0 / (1.0 + exp(-(double)got[k])), b = 1.0 / (1.0 + exp(-(double)want[k]));
        sum += fabs(a - b);
        flips += (a >= 0.5) != (b >= 0.5);
    }
    *flipped = n ? (double)flips / (double)n : 0.0;
    return n ? sum / (double)n : 0.0;
}

static const char *precision_name(const vki_graph_options *o) {
    if (o->precision == VKI_PRECISION_FP32) return "fp32";
    if (o->n_fp32_ops) return "fp16 mixed";
    return o->precision == VKI_PRECISION_FP16 ? "fp16" : "fp16-storage";
}

static void conform_bounds(const char *model, const vki_graph_options *options, double tol,
                           int check_reference, const output_bound *special) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tflite", env_or("VKI_MODEL_DIR", "models/cache"), model);
    vki_model *m = NULL;
    vki_status s = vki_model_load_file(path, &m);
    cr_assert_eq(s, VKI_OK, "%s: %s (run tools/fetch_models.sh)", path, vki_last_error());
    vki_graph *g = NULL;
    s = vki_graph_create(harness_context(), m, options, &g);
    cr_assert_eq(s, VKI_OK, "graph: %s", vki_last_error());
    const char *data = harness_data_dir();
    float *inputs[8] = {0};
    cr_assert(vki_model_input_count(m) <= 8 && vki_model_output_count(m) <= 8);
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        snprintf(path, sizeof path, "%s/ref/%s/input_%d.f32", data, model, i);
        inputs[i] = harness_read_f32(path, t.element_count);
        s = vki_graph_set_input(g, i, inputs[i], t.element_count * sizeof(float));
        cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
    }
    cr_assert_eq(vki_graph_run(g), VKI_OK, "run: %s", vki_last_error());
    float *ref_run[8] = {0};
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        ref_run[i] = malloc(t.element_count * sizeof(float));
    }
    if (check_reference)
        cr_assert_eq(vki_model_reference_run(m, (const float *const *)inputs, ref_run), VKI_OK,
                     "reference run: %s", vki_last_error());
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        float *got = malloc(t.element_count * sizeof(float));
        cr_assert_eq(vki_graph_get_output(g, i, got, t.element_count * sizeof(float)), VKI_OK);
        snprintf(path, sizeof path, "%s/ref/%s/output_%d.f32", data, model, i);
        float *want = harness_read_f32(path, t.element_count);
        double err = vki_relative_error(got, want, t.element_count, NULL);
        const output_bound *sp = special_for(i, special);
        double bound = sp ? sp->tol : tol;
        cr_log_info("%s output %d '%s': device error %.3g", model, i, t.name, err);
        fprintf(stderr, "conformance: %s %s output %d '%s': device error %.3g", model,
                precision_name(options), i, t.name, err);
        cr_expect(err <= bound, "%s output %d '%s': device error %g > %g", model, i, t.name, err, bound);
        if (sp && sp->mask) {
            double flipped, mean = mask_error(got, want, t.element_count, &flipped);
            fprintf(stderr, ", mask: mean |sigmoid error| %.3g, %.3g%% of pixels flipped", mean,
                    100.0 * flipped);
            cr_expect(mean <= sp->mask_mean, "%s output %d '%s': mean mask error %g > %g", model,
                      i, t.name, mean, sp->mask_mean);
            cr_expect(flipped <= sp->mask_flips, "%s output %d '%s': %g%% of the mask's pixels "
                      "flipped, more than %g%%", model, i, t.name, 100.0 * flipped,
                      100.0 * sp->mask_flips);
        }
        if (check_reference) {
            double ref_err = vki_relative_error(ref_run[i], want, t.element_count, NULL);
            fprintf(stderr, ", C reference error %.3g", ref_err);
            cr_expect(ref_err <= tol, "%s output %d: C reference error %g > %g", model, i, ref_err, tol);
        }
        fprintf(stderr, "\n");
        free(got);
        free(want);
    }
    for (int i = 0; i < 8; i++) { free(inputs[i]); free(ref_run[i]); }
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* fp32 within 1e-4 of TFLite (5e-4 for pose_landmark_lite, whose segmentation logits
 * reach 800 and where LiteRT itself is 1.2e-4 from float64); fp16, with fp16 arithmetic
 * where the device has it, and fp16 storage alone within 3e-2. The fp32 runs also hold
 * the C references to the real interpreter. */
static void conform(const char *model, vki_precision precision, double tol, int check_reference) {
    vki_graph_options options = {.precision = precision};
    conform_bounds(model, &options, tol, check_reference, NULL);
}

#define CONFORMANCE(model, tol32)                                                          \
    Test(conformance, model) { conform(#model, VKI_PRECISION_FP32, tol32, 1); }            \
    Test(conformance, model##_fp16) { conform(#model, VKI_PRECISION_FP16, 3e-2, 0); }      \
    Test(conformance, model##_fp16_storage) { conform(#model, VKI_PRECISION_FP16_STORAGE, 3e-2, 0); }

CONFORMANCE(face_detection_short_range, 1e-4)
CONFORMANCE(face_detection_full_range, 1e-4)
CONFORMANCE(selfie_segmentation, 1e-4)
CONFORMANCE(hand_landmark_lite, 1e-4)
Test(conformance, pose_landmark_lite) { conform("pose_landmark_lite", VKI_PRECISION_FP32, 5e-4, 1); }

/* pose_landmark_lite is ill-conditioned in fp16: its segmentation logits (output 2, |x| up
 * to 800) move by 0.1 of that when every activation is rounded to fp16, and rounding any
 * single early activation in the C reference already moves them by about that much. With
 * all-fp16 storage single logits move by up to 122 (80 unfused), 28 (80 unfused) even
 * where TFLite's is within 8 of 0, so no bound on one logit tells a kernel bug from
 * rounding: the logits keep a loose 0.25 (measured 0.152, 0.10 unfused) against wild
 * values, and the mask they stand for is held instead: the mean of |sigmoid error| was
 * 0.0013 (0.0011 unfused) and 0.07% of its 65536 pixels changed side of 0.5, held to 0.005
 * and 0.5%; a bias of 1 on every logit, which the 0.25 alone passes, breaks both. The
 * other outputs keep 3e-2. */
Test(conformance, pose_landmark_lite_fp16_storage) {
    static const output_bound segmentation[] = {{2, 0.25, 1, 5e-3, 5e-3}, {-1, 0, 0, 0, 0}};
    vki_graph_options options = {.precision = VKI_PRECISION_FP16_STORAGE};
    conform_bounds("pose_landmark_lite", &options, 3e-2, 0, segmentation);
}

/* The mirror image of an NHWC image: a natural input the test does not compare against. */
static float *mirrored(const float *in, const vki_tensor_info *t) {
    int h = t->shape[1], w = t->shape[2], c = t->shape[3];
    float *out = malloc(t->element_count * sizeof(float));
    cr_assert(out);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int k = 0; k < c; k++)
                out[((size_t)y * w + x) * c + k] = in[((size_t)y * w + (w - 1 - x)) * c + k];
    return out;
}

/* fp16 with mixed precision meets 3e-2 on every output: vki_calibrate_fp32_ops picks the
 * ops to keep fp32 on the mirrored input (1e-2 against fp32), and the graph built with
 * them is checked against TFLite on the reference input it never saw. */
Test(conformance, pose_landmark_lite_fp16, .timeout = 1200) {
    char path[1024];
    snprintf(path, sizeof path, "%s/pose_landmark_lite.tflite", env_or("VKI_MODEL_DIR", "models/cache"));
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    vki_tensor_info in;
    vki_model_input_info(m, 0, &in);
    snprintf(path, sizeof path, "%s/ref/pose_landmark_lite/input_0.f32", harness_data_dir());
    float *input = harness_read_f32(path, in.element_count);
    float *calibration = mirrored(input, &in);
    int n_ops = vki_model_op_count(m), kept = 0;
    int *ops = malloc(sizeof(int) * (size_t)n_ops);
    cr_assert(ops);
    vki_calibration_options co = {.tolerance = 1e-2};
    cr_assert_eq(vki_calibrate_fp32_ops(harness_context(), m, (const float *const *)&calibration,
                                        &co, ops, n_ops, &kept),
                 VKI_OK, "calibrate: %s", vki_last_error());
    fprintf(stderr, "conformance: pose_landmark_lite fp16 keeps %d of %d ops fp32\n", kept, n_ops);
    cr_assert(kept < n_ops, "calibration kept every op fp32");
    vki_graph_options options = {.precision = VKI_PRECISION_FP16, .fp32_ops = ops, .n_fp32_ops = kept};
    conform_bounds("pose_landmark_lite", &options, 3e-2, 0, NULL);
    free(ops);
    free(calibration);
    free(input);
    vki_model_destroy(m);
}

/* The other float models in the same MediaPipe packages (pose_detection among them) have
 * no TFLite outputs here; they must load, build and match the C reference run on the
 * seeded input, in fp32 and fp16.
 * The pose models' segmentation logits get pose_landmark_lite's 5e-4 in fp32 (summation
 * order alone moves them); in fp16 they are as ill-conditioned as pose_landmark_lite's
 * (see above), so only their fp32 graphs are checked here. */
static void matches_reference(const char *model, double tol, double fp16_tol) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tflite", env_or("VKI_MODEL_DIR", "models/cache"), model);
    FILE *f = fopen(path, "rb");
    /* Device runs carry only some models; tools/test.sh always fetches them all. */
    if (!f) cr_skip_test("%s is not here", path);
    fclose(f);
    vki_model *m = NULL;
    vki_status s = vki_model_load_file(path, &m);
    cr_assert_eq(s, VKI_OK, "%s: %s", path, vki_last_error());
    harness_check_precisions(m, 0x12345678u, tol, fp16_tol);
}

Test(other_models, face_detection_full_range_sparse) { matches_reference("face_detection_full_range_sparse", 1e-4, 3e-2); }
Test(other_models, hand_landmark_full) { matches_reference("hand_landmark_full", 1e-4, 3e-2); }
Test(other_models, pose_landmark_full) { matches_reference("pose_landmark_full", 5e-4, -1); }
Test(other_models, pose_landmark_heavy) { matches_reference("pose_landmark_heavy", 5e-4, -1); }
Test(other_models, pose_detection) { matches_reference("pose_detection", 1e-4, 3e-2); }
Test(other_models, selfie_segmentation_landscape) { matches_reference("selfie_segmentation_landscape", 1e-4, 3e-2); }

/* A conformance model loaded with its reference input. */
typedef struct loaded {
    vki_model *m;
    float *input;
    size_t input_elems;
} loaded;

static loaded load_with_input(const char *model) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.tflite", env_or("VKI_MODEL_DIR", "models/cache"), model);
    loaded l = {0};
    cr_assert_eq(vki_model_load_file(path, &l.m), VKI_OK, "%s", vki_last_error());
    vki_tensor_info in;
    vki_model_input_info(l.m, 0, &in);
    snprintf(path, sizeof path, "%s/ref/%s/input_0.f32", harness_data_dir(), model);
    l.input = harness_read_f32(path, in.element_count);
    l.input_elems = in.element_count;
    return l;
}

static void loaded_free(loaded *l) {
    free(l->input);
    vki_model_destroy(l->m);
}

/* Runs the graph once; returns its outputs concatenated (malloc'd) and *bytes. */
static float *run_outputs(vki_graph *g, const loaded *l, size_t *bytes) {
    cr_assert_eq(vki_graph_set_input(g, 0, l->input, l->input_elems * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    size_t total = 0;
    for (int i = 0; i < vki_model_output_count(l->m); i++) {
        vki_tensor_info t;
        vki_model_output_info(l->m, i, &t);
        total += t.element_count;
    }
    float *out = malloc(total * sizeof(float)), *at = out;
    cr_assert(out);
    for (int i = 0; i < vki_model_output_count(l->m); i++) {
        vki_tensor_info t;
        vki_model_output_info(l->m, i, &t);
        cr_assert_eq(vki_graph_get_output(g, i, at, t.element_count * sizeof(float)), VKI_OK);
        at += t.element_count;
    }
    *bytes = total * sizeof(float);
    return out;
}

/* Every memory strategy must give bit-identical outputs (the plan only moves bytes), and
 * the engine must allocate exactly what vki_memory_plans reports for that strategy. */
static void strategies_agree(const char *model) {
    agree_scope(model);
    loaded l = load_with_input(model);
    vki_memory_plan_info plans[VKI_MEMORY_STRATEGY_COUNT];
    cr_assert_eq(vki_memory_plans(harness_context(), l.m, NULL, plans, VKI_MEMORY_STRATEGY_COUNT), VKI_OK,
                 "%s", vki_last_error());
    float *first = NULL;
    size_t first_bytes = 0;
    for (int s = 0; s < VKI_MEMORY_STRATEGY_COUNT; s++) {
        vki_graph_options o = {.memory = (vki_memory_strategy)s};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), l.m, &o, &g), VKI_OK, "%s", vki_last_error());
        vki_memory_report mem;
        cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
        cr_assert_eq(mem.intermediate_bytes, plans[s].total_bytes, "strategy %s", plans[s].name);
        cr_assert(mem.intermediate_bytes >= mem.lower_bound_bytes);
        size_t bytes;
        float *got = run_outputs(g, &l, &bytes);
        vki_graph_destroy(g);
        if (!first) { first = got; first_bytes = bytes; continue; }
        cr_assert(bytes == first_bytes && !memcmp(got, first, bytes),
                  "%s outputs differ under strategy %s", model, plans[s].name);
        free(got);
    }
    free(first);
    loaded_free(&l);
}

Test(memory_strategies, face_detection_short_range) { strategies_agree("face_detection_short_range"); }
Test(memory_strategies, face_detection_full_range) { strategies_agree("face_detection_full_range"); }
Test(memory_strategies, selfie_segmentation) { strategies_agree("selfie_segmentation"); }
Test(memory_strategies, hand_landmark_lite) { strategies_agree("hand_landmark_lite"); }
Test(memory_strategies, pose_landmark_lite) { strategies_agree("pose_landmark_lite"); }

/* The graph passes only fold ops into others: in fp32 the outputs must be bit-identical
 * with every pass, with none, and with each one left out, and the passes must save
 * dispatches. Prints the dispatch counts. On lavapipe they are bit-identical, but where
 * the squeeze pass fired: its kernel sums the mean and the two convolutions in another
 * order. A GPU driver may also compile the same formula differently inside another kernel
 * (the H100 gives selfie_segmentation's sigmoid outputs near 3e-21 a last-digit
 * difference), and dw_pw splits its sums there. Those graphs are held to 1e-6 of the
 * conformance metric, max|a-b| / max(max|b|, 1). */
static const unsigned pass_bits[] = {
#define PASS_BIT_(name, bit, text) VKI_PASS_##name,
    VKI_PASS_LIST(PASS_BIT_)
#undef PASS_BIT_
};
static const char *const pass_names[] = {
#define PASS_TEXT_(name, bit, text) text,
    VKI_PASS_LIST(PASS_TEXT_)
#undef PASS_TEXT_
};
#define N_PASSES (int)(sizeof pass_bits / sizeof pass_bits[0])

static void passes_agree(const char *model) {
    agree_scope(model);
    loaded l = load_with_input(model);
    vki_device_info info;
    cr_assert_eq(vki_context_device_info(harness_context(), &info), VKI_OK);
    const int cpu = info.is_cpu;
    float *none = NULL;
    size_t none_bytes = 0;
    int counts[N_PASSES + 2];
    /* k = 0: every pass off; 1..N_PASSES: all but that one; N_PASSES + 1: all on. */
    for (int k = 0; k < N_PASSES + 2; k++) {
        vki_graph_options o = {.disable_passes = k == 0 ? ~0u : k <= N_PASSES ? pass_bits[k - 1] : 0};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), l.m, &o, &g), VKI_OK, "%s", vki_last_error());
        counts[k] = vki_graph_dispatch_count(g);
        const int exact = cpu && !(vki_graph_passes_fired(g) & VKI_PASS_SQUEEZE);
        size_t bytes;
        float *got = run_outputs(g, &l, &bytes);
        vki_graph_destroy(g);
        if (!none) { none = got; none_bytes = bytes; continue; }
        size_t n = bytes / sizeof(float), at = 0;
        while (at < n && !memcmp(&got[at], &none[at], sizeof(float))) at++;
        double worst = 0.0, scale = 1.0;
        for (size_t i = 0; i < n && !exact; i++) {
            double d = fabs((double)got[i] - none[i]);
            worst = d > worst ? d : worst;
            scale = fabs(none[i]) > scale ? fabs(none[i]) : scale;
        }
        cr_assert(bytes == none_bytes && (at == n || (!exact && worst / scale <= 1e-6)),
                  "%s: outputs with passes %s differ from the unfused graph's at float %zu "
                  "(%.9g, unfused %.9g)", model,
                  k <= N_PASSES ? "all but one" : "all", at, at < n ? got[at] : 0.0,
                  at < n ? none[at] : 0.0);
        if (k <= N_PASSES) cr_log_info("%s: without %s: %d dispatches", model, pass_names[k - 1], counts[k]);
        free(got);
    }
    cr_log_info("%s: %d dispatches unfused, %d with every pass", model, counts[0], counts[N_PASSES + 1]);
    printf("passes: %s: %d dispatches unfused, %d fused\n", model, counts[0], counts[N_PASSES + 1]);
    cr_assert_lt(counts[N_PASSES + 1], counts[0], "%s: the passes saved nothing", model);
    free(none);
    loaded_free(&l);
}

Test(passes_agree, face_detection_short_range) { passes_agree("face_detection_short_range"); }
Test(passes_agree, face_detection_full_range) { passes_agree("face_detection_full_range"); }
Test(passes_agree, selfie_segmentation) { passes_agree("selfie_segmentation"); }
Test(passes_agree, hand_landmark_lite) { passes_agree("hand_landmark_lite"); }
Test(passes_agree, pose_landmark_lite) { passes_agree("pose_landmark_lite"); }

/* The schedule stage (in-place outputs and the memory-aware order) moves bytes and
 * dispatches, never arithmetic: on every MediaPipe model here in fp32, and on the five
 * public ones in fp16 and in the graph GPUs get (the other eight would add minutes on
 * lavapipe), outputs with it must be bit-identical to those without it, and the lower bound
 * of live bytes must never be higher. Prints both bounds. VKI_SCHEDULE_MODELS=public keeps
 * the fp32 case to the five public models too, and VKI_AGREE_MODELS=one every case to
 * face_detection_short_range. CI (tools/test.sh) sets one or the other in all its runs, so
 * it checks the schedule on the five public models only, never on the other eight: all
 * thirteen took 278 s against 34 s for the five on its 2-core machine. Run the suite
 * without them to check all thirteen. */
static const char *const mediapipe_models[] = {
    "face_detection_short_range", "face_detection_full_range", "face_detection_full_range_sparse",
    "face_landmark", "hand_landmark_lite", "hand_landmark_full", "palm_detection_lite",
    "palm_detection_full", "pose_landmark_lite", "pose_landmark_full", "pose_landmark_heavy",
    "selfie_segmentation", "selfie_segmentation_landscape",
};

static float *run_seeded(vki_graph *g, vki_model *m, uint32_t seed, size_t *bytes) {
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        float *in = malloc(t.element_count * sizeof(float));
        cr_assert(in);
        harness_fill(in, t.element_count, seed + (uint32_t)i, -1.0f, 1.0f);
        cr_assert_eq(vki_graph_set_input(g, i, in, t.element_count * sizeof(float)), VKI_OK);
        free(in);
    }
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    size_t total = 0;
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        total += t.element_count;
    }
    float *out = malloc((total ? total : 1) * sizeof(float)), *at = out;
    cr_assert(out);
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        cr_assert_eq(vki_graph_get_output(g, i, at, t.element_count * sizeof(float)), VKI_OK);
        at += t.element_count;
    }
    *bytes = total * sizeof(float);
    return out;
}

static int is_public(const char *model) {
    static const char *const five[] = {"face_detection_short_range", "face_detection_full_range",
                                       "selfie_segmentation", "hand_landmark_lite",
                                       "pose_landmark_lite"};
    for (size_t i = 0; i < sizeof five / sizeof five[0]; i++)
        if (!strcmp(model, five[i])) return 1;
    return 0;
}

static void schedule_agrees_with(vki_precision precision, unsigned disable);

static void schedule_agrees(vki_precision precision) { schedule_agrees_with(precision, 0); }

static void schedule_agrees_with(vki_precision precision, unsigned disable) {
    int tried = 0;
    const char *scope = env_or("VKI_SCHEDULE_MODELS", "all");
    const int public_only = precision != VKI_PRECISION_FP32 || disable || !strcmp(scope, "public");
    for (size_t k = 0; k < sizeof mediapipe_models / sizeof mediapipe_models[0]; k++) {
        if (public_only && !is_public(mediapipe_models[k])) continue;
        if (agree_on_one() && k > 0) break;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.tflite", env_or("VKI_MODEL_DIR", "models/cache"),
                 mediapipe_models[k]);
        vki_model *m = NULL;
        if (vki_model_load_file(path, &m) != VKI_OK) continue;   /* device runs carry a few */
        tried++;
        float *out[2];
        size_t bytes[2];
        vki_memory_report mem[2];
        for (int on = 0; on < 2; on++) {
            vki_graph_options o = {.precision = precision,
                                   .disable_passes = disable | (on ? 0 : VKI_PASS_IN_PLACE | VKI_PASS_ORDER)};
            vki_graph *g = NULL;
            cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s: %s",
                         mediapipe_models[k], vki_last_error());
            cr_assert_eq(vki_graph_memory(g, &mem[on]), VKI_OK);
            out[on] = run_seeded(g, m, 0x5EEDu + (uint32_t)k, &bytes[on]);
            vki_graph_destroy(g);
        }
        size_t n = bytes[0] / sizeof(float), at = 0;
        while (at < n && !memcmp(&out[0][at], &out[1][at], sizeof(float))) at++;
        cr_assert(bytes[0] == bytes[1] && at == n, "%s: outputs with the schedule stage differ at "
                  "float %zu (%.9g, without %.9g)", mediapipe_models[k], at,
                  at < n ? out[1][at] : 0.0, at < n ? out[0][at] : 0.0);
        cr_assert_leq(mem[1].lower_bound_bytes, mem[0].lower_bound_bytes, "%s: the bound went up",
                      mediapipe_models[k]);
        printf("schedule: %s: lower bound %.3f MB stored, %.3f MB in place and reordered\n",
               mediapipe_models[k], mem[0].lower_bound_bytes / 1e6, mem[1].lower_bound_bytes / 1e6);
        free(out[0]);
        free(out[1]);
        vki_model_destroy(m);
    }
    cr_assert_gt(tried, 0, "no MediaPipe model in %s", env_or("VKI_MODEL_DIR", "models/cache"));
}

Test(schedule, bit_identical_fp32, .timeout = 900) { schedule_agrees(VKI_PRECISION_FP32); }
Test(schedule, bit_identical_fp16, .timeout = 900) { schedule_agrees(VKI_PRECISION_FP16); }
/* The graph GPUs get (no dw_pw): more elementwise steps to write in place, and residuals
 * with fewer channels than their output that grow into it. */
Test(schedule, bit_identical_fp32_without_dw_pw, .timeout = 900) {
    schedule_agrees_with(VKI_PRECISION_FP32, VKI_PASS_DW_PW);
}
