/* harness.c: model builders and the device-against-reference comparison for op tests. */
#include "harness.h"

#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void harness_fill(float *v, size_t n, uint32_t seed, float lo, float hi) {
    uint32_t state = seed ? seed : 0x9e3779b9u;
    vki_fill_uniform(v, n, &state, lo, hi);
}

/* ---- building models ------------------------------------------------------------------ */

int harness_tensor_nd(vki_model *m, int rank, const int *shape) {
    int t = vki_model_add_tensor(m, "t", VKI_DTYPE_FLOAT32, rank, shape, NULL, 0);
    cr_assert(t >= 0);
    return t;
}

int harness_tensor(vki_model *m, int h, int w, int c) {
    int shape[4] = {1, h, w, c};
    return harness_tensor_nd(m, 4, shape);
}

int harness_const(vki_model *m, int rank, const int *shape, uint32_t seed, float lo, float hi) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)shape[i];
    float *v = malloc(n * sizeof(float));
    cr_assert(v);
    harness_fill(v, n, seed, lo, hi);
    int t = vki_model_add_tensor(m, "const", VKI_DTYPE_FLOAT32, rank, shape, v, n * sizeof(float));
    free(v);
    cr_assert(t >= 0);
    return t;
}

int harness_scalar(vki_model *m, float v) {
    int t = vki_model_add_tensor(m, "k", VKI_DTYPE_FLOAT32, 0, NULL, &v, sizeof v);
    cr_assert(t >= 0);
    return t;
}

int harness_int_const(vki_model *m, const char *name, int rank, const int *shape,
                      const int32_t *data) {
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)shape[i];
    int t = vki_model_add_tensor(m, name, VKI_DTYPE_INT32, rank, shape, data, n * sizeof(int32_t));
    cr_assert(t >= 0);
    return t;
}

int harness_int_vector(vki_model *m, const char *name, int count, const int32_t *data) {
    return harness_int_const(m, name, 1, &count, data);
}

vki_op *harness_op(vki_model *m, vki_op_code code, int n_inputs, const int *inputs, int output) {
    vki_op *op = vki_model_add_op(m, code, n_inputs, inputs, 1, &output);
    cr_assert(op);
    return op;
}

int harness_binary(vki_model *m, vki_op_code code, int a, int b, int out) {
    int ins[2] = {a, b};
    harness_op(m, code, 2, ins, out);
    return out;
}

int harness_operand_add(vki_model *m, harness_operand o, uint32_t seed, int *inputs,
                        int *n_inputs) {
    if (o.is_const) return harness_const(m, o.rank, o.dims, seed, o.lo, o.hi);
    int t = harness_tensor_nd(m, o.rank, o.dims);
    inputs[(*n_inputs)++] = t;
    if (o.lo == -1.0f && o.hi == 1.0f) return t;
    int k = harness_scalar(m, (o.hi - o.lo) / 2.0f), off = harness_scalar(m, (o.hi + o.lo) / 2.0f);
    int scaled = harness_binary(m, VKI_OP_MUL, t, k, harness_tensor_nd(m, o.rank, o.dims));
    return harness_binary(m, VKI_OP_ADD, scaled, off, harness_tensor_nd(m, o.rank, o.dims));
}

/* ---- validation ----------------------------------------------------------------------- */

void harness_expect_invalid_list(vki_model *m, vki_status want, const char *const *needles) {
    vki_status s = vki_model_validate(m);
    const char *msg = s ? vki_last_error() : "validated";
    cr_assert_eq(s, want, "status %s, want %s (%s)", vki_status_name(s), vki_status_name(want), msg);
    for (int i = 0; needles[i]; i++)
        cr_assert(strstr(msg, needles[i]), "message '%s' lacks '%s'", msg, needles[i]);
    vki_model_destroy(m);
}

static vki_context *shared_ctx;

harness_io_model harness_load_io_model(const char *file) {
    size_t size = 0;
    uint8_t *bytes = harness_read_model(file, &size);
    cr_assert(bytes, "%s is missing: run tools/fetch_models.sh", file);
    harness_io_model l = {0};
    vki_status s = vki_model_load_memory(bytes, size, file, &l.model);
    free(bytes);
    cr_assert_eq(s, VKI_OK, "%s: %s", file, vki_last_error());
    l.n_in = vki_model_input_count(l.model);
    l.n_out = vki_model_output_count(l.model);
    cr_assert(l.n_in <= 8 && l.n_out <= 8, "%s: more than 8 inputs or outputs", file);
    for (int i = 0; i < l.n_in + l.n_out; i++) {
        vki_tensor_info t;
        if (i < l.n_in) vki_model_input_info(l.model, i, &t);
        else vki_model_output_info(l.model, i - l.n_in, &t);
        if (i < l.n_in) l.in_elems[i] = t.element_count;
        else l.out_elems[i - l.n_in] = t.element_count;
        if (i >= l.n_in) l.out_total += t.element_count;
    }
    return l;
}

vki_context *harness_context(void) {
    if (!shared_ctx) {
        vki_status s = vki_context_create(NULL, &shared_ctx);
        cr_assert_eq(s, VKI_OK, "context: %s", vki_last_error());
    }
    return shared_ctx;
}

/* ---- device against reference ------------------------------------------------------- */

static const vki_precision precisions[HARNESS_N_PRECISIONS] = {
    VKI_PRECISION_FP32, VKI_PRECISION_FP16, VKI_PRECISION_FP16_STORAGE};
static const char *const precision_names[HARNESS_N_PRECISIONS] = {"fp32", "fp16",
                                                                  "fp16-storage"};

const char *harness_precision_name(int index) {
    return index >= 0 && index < HARNESS_N_PRECISIONS ? precision_names[index] : "?";
}

/* The precisions VKI_TEST_PRECISIONS allows: a comma-separated list of "fp32", "fp16" and
 * "fp16-storage" (unset or empty: all three). For a driver that offers fp16 storage but
 * cannot compile fp16 kernels, as lavapipe under qemu-aarch64 (tools/test-arm64.sh). */
unsigned harness_allowed_precisions(void) {
    const char *env = getenv("VKI_TEST_PRECISIONS");
    if (!env || !*env) return HARNESS_ALL_PRECISIONS;
    unsigned mask = 0;
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ",");
        int known = 0;
        for (int i = 0; i < HARNESS_N_PRECISIONS; i++)
            if (strlen(precision_names[i]) == n && !strncmp(p, precision_names[i], n)) {
                mask |= 1u << i;
                known = 1;
            }
        cr_assert(known, "VKI_TEST_PRECISIONS: unknown precision '%.*s'", (int)n, p);
        p += n + (p[n] == ',');
    }
    return mask;
}

double harness_fp16_tolerance(double tol) {
    return tol > HARNESS_FP16_TOLERANCE ? tol : HARNESS_FP16_TOLERANCE;
}

/* Appends a reason to r->message ("; " between reasons); returns 0. */
static int fail(harness_result *r, const char *fmt, ...) {
    size_t len = strlen(r->message);
    if (len && len + 2 < sizeof r->message) {
        memcpy(r->message + len, "; ", 3);
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message + len, sizeof r->message - len, fmt, ap);
    va_end(ap);
    return 0;
}

static size_t elements(const vki_model *m, int tensor) {
    return vki_tensor_elements(&m->tensors[tensor]);
}

char *harness_set_env(const char *name, const char *value) {
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
    return saved;
}

void harness_restore_env(const char *name, char *saved) {
    if (saved) setenv(name, saved, 1);
    else unsetenv(name);
    free(saved);
}

/* Sets (or, for a NULL value, unsets) the spec's variable while a graph builds; restores
 * it after. */
typedef struct env_save {
    const char *name;
    char *old;
} env_save;

static env_save env_push(const harness_spec *s) {
    env_save e = {s->env_name, NULL};
    if (e.name) e.old = harness_set_env(e.name, s->env_value);
    return e;
}

static void env_pop(env_save *e) {
    if (!e->name) return;
    harness_restore_env(e->name, e->old);
    e->old = NULL;
}

/* Checks the dispatch count of m's graph built with default options (fp32, no guard
 * bytes) against spec->dispatches. */
static int count_dispatches(const vki_model *m, const harness_spec *spec, harness_result *r) {
    vki_graph *g = NULL;
    env_save env = env_push(spec);
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    env_pop(&env);
    if (s != VKI_OK) return fail(r, "graph with default options: %s", vki_last_error());
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    if (n != spec->dispatches)
        return fail(r, "the graph has %d dispatches, want %d", n, spec->dispatches);
    return 1;
}

/* Builds, runs and compares one precision's graph; returns 1 when within bound. */
static int run_precision(const vki_model *m, const harness_spec *spec, int p, float **inputs,
                         float **ref, float **got, harness_result *r) {
    const char *what = precision_names[p];
    vki_graph_options o = {.precision = precisions[p], .debug_guards = 1};
    vki_graph *g = NULL;
    env_save env = env_push(spec);
    vki_status s = vki_graph_create(harness_context(), m, &o, &g);
    env_pop(&env);
    if (s != VKI_OK) return fail(r, "%s graph: %s", what, vki_last_error());
    int ok = 1;
    for (int i = 0; i < m->n_inputs; i++) {
        s = vki_graph_set_input(g, i, inputs[i], elements(m, m->inputs[i]) * sizeof(float));
        if (s != VKI_OK) { ok = fail(r, "%s set_input %d: %s", what, i, vki_last_error()); goto done; }
    }
    s = vki_graph_run(g);
    if (s != VKI_OK) { ok = fail(r, "%s run: %s", what, vki_last_error()); goto done; }
    double bound = p == 0 ? spec->tol : spec->fp16_tol;
    r->error[p] = 0.0;
    for (int i = 0; i < m->n_outputs; i++) {
        size_t n = elements(m, m->outputs[i]), at;
        s = vki_graph_get_output(g, i, got[i], n * sizeof(float));
        if (s != VKI_OK) { ok = fail(r, "%s get_output %d: %s", what, i, vki_last_error()); goto done; }
        double rel = vki_relative_error(got[i], ref[i], n, &at);
        if (rel > r->error[p] || rel != rel) r->error[p] = rel;
        if (!(rel <= bound)) {
            ok = fail(r, "%s output %d: relative error %g > %g, worst at element %zu (gpu %g, "
                      "ref %g)", what, i, rel, bound, at, (double)got[i][at], (double)ref[i][at]);
            goto done;
        }
    }
done:
    vki_graph_destroy(g);
    return ok;
}

int harness_compare(const vki_model *m, const harness_spec *spec, harness_result *r) {
    memset(r, 0, sizeof *r);
    for (int p = 0; p < HARNESS_N_PRECISIONS; p++) r->error[p] = -1.0;
    if (vki_model_validate((vki_model *)m) != VKI_OK)
        return fail(r, "validate: %s", vki_last_error());
    if (m->n_inputs > 16 || m->n_outputs > 16)
        return fail(r, "%d inputs and %d outputs, at most 16 each", m->n_inputs, m->n_outputs);
    float *inputs[16] = {0}, *ref[16] = {0}, *got[16] = {0};
    float *inputs16[16] = {0}, *ref16[16] = {0};
    int ok = 1;
    for (int i = 0; i < m->n_inputs; i++) {
        size_t n = elements(m, m->inputs[i]);
        inputs[i] = malloc(n * sizeof(float));
        cr_assert(inputs[i]);
        harness_fill(inputs[i], n, spec->seed + 77u * (uint32_t)i, -1.0f, 1.0f);
        if (spec->fp16_step > 0.0f) {
            inputs16[i] = malloc(n * sizeof(float));
            cr_assert(inputs16[i]);
            for (size_t k = 0; k < n; k++)
                inputs16[i][k] = floorf(inputs[i][k] / spec->fp16_step) * spec->fp16_step;
        }
    }
    for (int i = 0; i < m->n_outputs; i++) {
        size_t n = elements(m, m->outputs[i]);
        ref[i] = malloc(n * sizeof(float));
        got[i] = malloc(n * sizeof(float));
        cr_assert(ref[i] && got[i]);
        if (spec->fp16_step > 0.0f) cr_assert((ref16[i] = malloc(n * sizeof(float))));
    }
    if (vki_model_reference_run(m, (const float *const *)inputs, ref) != VKI_OK) {
        ok = fail(r, "reference: %s", vki_last_error());
    } else if (spec->fp16_step > 0.0f &&
               vki_model_reference_run(m, (const float *const *)inputs16, ref16) != VKI_OK) {
        ok = fail(r, "reference on the fp16 grid: %s", vki_last_error());
    } else if (spec->dispatches > 0 && !count_dispatches(m, spec, r)) {
        ok = 0;
    } else {
        unsigned want = (spec->precisions ? spec->precisions : HARNESS_ALL_PRECISIONS) &
                        harness_allowed_precisions();
        vki_device_info dev;
        vki_context_device_info(harness_context(), &dev);
        for (int p = 0; p < HARNESS_N_PRECISIONS; p++) {
            if (!(want & (1u << p)) || (p > 0 && !dev.fp16_storage)) continue;
            int grid = p > 0 && spec->fp16_step > 0.0f;
            if (!run_precision(m, spec, p, grid ? inputs16 : inputs, grid ? ref16 : ref, got, r))
                ok = 0;
        }
    }
    for (int i = 0; i < 16; i++) {
        free(inputs16[i]);
        free(ref16[i]);
        free(inputs[i]);
        free(ref[i]);
        free(got[i]);
    }
    return ok;
}

static double check(vki_model *m, const harness_spec *spec) {
    harness_result r;
    int ok = harness_compare(m, spec, &r);
    cr_assert(ok, "%s: %s", m->name, r.message);
    vki_model_destroy(m);
    return r.error[0];
}

double harness_check(vki_model *m, uint32_t seed, double tol) {
    harness_spec spec = {.seed = seed, .tol = tol, .fp16_tol = harness_fp16_tolerance(tol),
                         .precisions = HARNESS_ALL_PRECISIONS};
    return check(m, &spec);
}

double harness_check_precisions(vki_model *m, uint32_t seed, double tol, double fp16_tol) {
    harness_spec spec = {.seed = seed, .tol = tol, .fp16_tol = fp16_tol,
                         .precisions = fp16_tol >= 0 ? HARNESS_FP32 | HARNESS_FP16 : HARNESS_FP32};
    return check(m, &spec);
}

uint8_t *harness_read_model(const char *file, size_t *size) {
    const char *dir = getenv("VKI_MODEL_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "models/cache", file);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    cr_assert_not_null(b);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return b;
}

float *harness_read_f32(const char *path, size_t count) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    float *v = malloc((count ? count : 1) * sizeof(float));
    cr_assert(v);
    size_t got = fread(v, sizeof(float), count, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    cr_assert(got == count && !extra, "%s: expected %zu floats", path, count);
    return v;
}

const char *harness_data_dir(void) {
    const char *d = getenv("VKI_TEST_DATA");
    return d && *d ? d : "tests/data";
}

vki_model *harness_load_data_model(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%.900s/%.32s/%.64s.tflite", harness_data_dir(), dir, name);
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s: %s", path, vki_last_error());
    return m;
}

float *harness_read_data_f32(const char *dir, const char *name, const char *suffix, size_t count) {
    char path[1024];
    snprintf(path, sizeof path, "%.900s/%.32s/%.64s.%.16s.f32", harness_data_dir(), dir, name, suffix);
    return harness_read_f32(path, count);
}

/* Written as plain compares: aarch64 GCC 12 at -O3 stops with an internal compiler error
 * vectorising an fmax reduction of float differences. */
double harness_scaled_error(const float *got, const float *want, size_t n) {
    double scale = 1, worst = 0;
    for (size_t k = 0; k < n; k++) {
        double a = fabs((double)want[k]);
        if (a > scale) scale = a;
    }
    for (size_t k = 0; k < n; k++) {
        double d = fabs((double)got[k] - (double)want[k]);
        if (d > worst || d != d) worst = d;
    }
    return worst / scale;
}
