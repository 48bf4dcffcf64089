/* test_op_models.c: small models of our own (tests/op_models/specs.py, written by
 * tests/tflite_writer.py) against the real TFLite interpreter: LiteRT's outputs for them
 * are in tests/data/op_models (tests/op_models/make.py). Every model runs on the device in
 * fp32, fp16 and fp16 storage and on the C references, and every output element is compared
 * with LiteRT's: error = max|a - b| / max(max|b|, 1).
 *
 * Bounds: fp32 1e-4 (as the MediaPipe conformance models), the C references 1e-5 (measured
 * at most 3e-7 on both); fp16 and fp16 storage 2e-2. Models named *_exact (integer or bool
 * outputs: FLOOR, ROUND, CAST, ARG_MAX, comparisons) are compared exactly in fp32 and on the
 * C references and not run in fp16, whose rounding of the inputs moves integers; models
 * named *_fp32 hold values float16 cannot (L2_NORMALIZATION below its epsilon) and are not
 * run in fp16 either. One test per group (the name up to its first '_'); each logs every
 * failing model with its error or the loader's message. */
#include "harness.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IO 32

typedef struct model_io {
    vki_model *m;
    int n_in, n_out;
    size_t in_n[MAX_IO], out_n[MAX_IO];
    float *in[MAX_IO], *want[MAX_IO];
} model_io;

static void io_free(model_io *io) {
    for (int i = 0; i < MAX_IO; i++) {
        free(io->in[i]);
        free(io->want[i]);
    }
    vki_model_destroy(io->m);
}

/* Loads the model and its stored inputs and LiteRT outputs (a missing data file fails the
 * test); 0 (logged) when the model does not load or its I/O is not the manifest's. */
static int io_load(const char *name, int n_in, int n_out, model_io *io) {
    memset(io, 0, sizeof *io);
    char path[1024];
    snprintf(path, sizeof path, "%s/op_models/%s.tflite", harness_data_dir(), name);
    if (vki_model_load_file(path, &io->m) != VKI_OK) {
        cr_log_error("%s: load: %s", name, vki_last_error());
        return 0;
    }
    io->n_in = vki_model_input_count(io->m);
    io->n_out = vki_model_output_count(io->m);
    if (io->n_in != n_in || io->n_out != n_out || n_in > MAX_IO || n_out > MAX_IO) {
        cr_log_error("%s: %d inputs and %d outputs, the manifest says %d and %d", name, io->n_in,
                     io->n_out, n_in, n_out);
        return 0;
    }
    for (int i = 0; i < n_in + n_out; i++) {
        vki_tensor_info t;
        int is_in = i < n_in, k = is_in ? i : i - n_in;
        if (is_in) vki_model_input_info(io->m, k, &t);
        else vki_model_output_info(io->m, k, &t);
        snprintf(path, sizeof path, "%s/op_models/%s.%s%d.f32", harness_data_dir(), name,
                 is_in ? "in" : "out", k);
        float *v = harness_read_f32(path, t.element_count);
        if (is_in) io->in[k] = v, io->in_n[k] = t.element_count;
        else io->want[k] = v, io->out_n[k] = t.element_count;
    }
    return 1;
}

/* The worst error over the outputs of one run: on the device in `precision`, or (reference
 * set) on the C references. Negative (logged) when the run failed. */
static double run_error(const char *name, model_io *io, vki_precision precision, int reference) {
    float *got[MAX_IO] = {0};
    double worst = 0.0;
    for (int i = 0; i < io->n_out; i++) got[i] = malloc(io->out_n[i] * sizeof(float));
    vki_graph *g = NULL;
    vki_status s;
    if (reference) {
        s = vki_model_reference_run(io->m, (const float *const *)io->in, got);
    } else {
        vki_graph_options o = {.precision = precision};
        s = vki_graph_create(harness_context(), io->m, &o, &g);
        for (int i = 0; i < io->n_in && !s; i++)
            s = vki_graph_set_input(g, i, io->in[i], io->in_n[i] * sizeof(float));
        if (!s) s = vki_graph_run(g);
        for (int i = 0; i < io->n_out && !s; i++)
            s = vki_graph_get_output(g, i, got[i], io->out_n[i] * sizeof(float));
    }
    if (s) {
        cr_log_error("%s: %s: %s", name, reference ? "C reference" : "device run", vki_last_error());
        worst = -1.0;
    }
    for (int i = 0; i < io->n_out && !s; i++) {
        double e = vki_relative_error(got[i], io->want[i], io->out_n[i], NULL);
        worst = e > worst ? e : worst;
    }
    for (int i = 0; i < io->n_out; i++) free(got[i]);
    vki_graph_destroy(g);
    return worst;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* Checks one model; 1 when every bound holds. */
static int check_model(const char *name, int n_in, int n_out) {
    model_io io;
    int ok = io_load(name, n_in, n_out, &io);
    if (ok) {
        int exact = ends_with(name, "_exact"), no_fp16 = exact || ends_with(name, "_fp32");
        double fp32_bound = exact ? 0.0 : 1e-4, ref_bound = exact ? 0.0 : 1e-5, fp16_bound = 2e-2;
        double e32 = run_error(name, &io, VKI_PRECISION_FP32, 0);
        double ref = run_error(name, &io, VKI_PRECISION_FP32, 1);
        double e16 = no_fp16 ? 0.0 : run_error(name, &io, VKI_PRECISION_FP16, 0);
        double e16s = no_fp16 ? 0.0 : run_error(name, &io, VKI_PRECISION_FP16_STORAGE, 0);
        fprintf(stderr, "op_models: %-34s fp32 %.2g  C reference %.2g  fp16 %.2g  fp16-storage %.2g\n",
                name, e32, ref, e16, e16s);
        ok = e32 >= 0 && e32 <= fp32_bound && ref >= 0 && ref <= ref_bound && e16 >= 0 &&
             e16 <= fp16_bound && e16s >= 0 && e16s <= fp16_bound;
        if (!ok)
            cr_log_error("%s: errors fp32 %g, C reference %g, fp16 %g, fp16-storage %g (bounds %g, "
                         "%g, %g)", name, e32, ref, e16, e16s, fp32_bound, ref_bound, fp16_bound);
    }
    io_free(&io);
    return ok;
}

/* Runs every model of the manifest whose name starts with "<group>_". */
static void check_group(const char *group) {
    char path[1024];
    snprintf(path, sizeof path, "%s/op_models/manifest.txt", harness_data_dir());
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s (tests/op_models/make.py writes it)", path);
    char line[4096], name[256];
    int n_in, n_out, models = 0, failed = 0;
    size_t len = strlen(group);
    /* A line: NAME N_IN N_OUT, then shapes and ops (in=... out=... ops=...) for people. */
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%255s %d %d", name, &n_in, &n_out) != 3) continue;
        if (strncmp(name, group, len) || name[len] != '_') continue;
        models++;
        failed += !check_model(name, n_in, n_out);
    }
    fclose(f);
    cr_assert_gt(models, 0, "no %s_* models in %s", group, path);
    cr_assert_eq(failed, 0, "%d of %d %s models failed (logged above)", failed, models, group);
}

Test(op_models, unary) { check_group("unary"); }
Test(op_models, binary) { check_group("binary"); }
Test(op_models, reduce) { check_group("reduce"); }
Test(op_models, layout) { check_group("layout"); }
Test(op_models, matmul) { check_group("matmul"); }
Test(op_models, blocks) { check_group("block"); }
Test(op_models, spatial) { check_group("spatial"); }
Test(op_models, cpu) { check_group("cpu"); }
Test(op_models, cpu_misc) { check_group("cpum"); }
