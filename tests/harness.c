/* harness.c: device-vs-reference comparison for op tests. */
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

void harness_fill(float *v, size_t n, uint32_t seed, float lo, float hi) {
    uint32_t s = seed ? seed : 0x9e3779b9u;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        v[i] = lo + (hi - lo) * (float)(s >> 8) / 16777216.0f;
    }
}

int harness_tensor(vki_model *m, int h, int w, int c) {
    int shape[4] = {1, h, w, c};
    int t = vki_model_add_tensor(m, "t", VKI_DTYPE_FLOAT32, 4, shape, NULL, 0);
    cr_assert(t >= 0);
    return t;
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

static vki_context *shared_ctx;

vki_context *harness_context(void) {
    if (!shared_ctx) {
        vki_status s = vki_context_create(NULL, &shared_ctx);
        cr_assert_eq(s, VKI_OK, "context: %s", vki_last_error());
    }
    return shared_ctx;
}

/* Builds m with `precision`, runs it on inputs, and fills outs (malloc'd). */
static void device_run(vki_model *m, vki_precision precision, float **inputs, float **outs) {
    vki_graph_options o = {.precision = precision};
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, &o, &g);
    cr_assert_eq(s, VKI_OK, "graph (%s): %s", precision ? "fp16" : "fp32", vki_last_error());
    for (int i = 0; i < m->n_inputs; i++) {
        size_t n = vki_tensor_elements(&m->tensors[m->inputs[i]]);
        s = vki_graph_set_input(g, i, inputs[i], n * sizeof(float));
        cr_assert_eq(s, VKI_OK, "set_input: %s", vki_last_error());
    }
    s = vki_graph_run(g);
    cr_assert_eq(s, VKI_OK, "run: %s", vki_last_error());
    for (int i = 0; i < m->n_outputs; i++) {
        size_t n = vki_tensor_elements(&m->tensors[m->outputs[i]]);
        outs[i] = malloc(n * sizeof(float));
        cr_assert(outs[i]);
        s = vki_graph_get_output(g, i, outs[i], n * sizeof(float));
        cr_assert_eq(s, VKI_OK, "get_output: %s", vki_last_error());
    }
    vki_graph_destroy(g);
}

double harness_relative_error(const float *a, const float *b, size_t n, size_t *at) {
    double max_b = 1.0, max_diff = 0.0;
    size_t worst = 0;
    for (size_t k = 0; k < n; k++) {
        if (fabs(b[k]) > max_b) max_b = fabs(b[k]);
        double d = fabs((double)a[k] - (double)b[k]);
        if (!(d <= max_diff)) { max_diff = d != d ? INFINITY : d; worst = k; }
    }
    if (at) *at = worst;
    return max_diff / max_b;
}

/* Asserts every output within tol * max(max|ref|, 1); returns the worst relative error. */
static double compare(const vki_model *m, float **got, float **ref, double tol, const char *what) {
    double worst = 0.0;
    for (int i = 0; i < m->n_outputs; i++) {
        size_t n = vki_tensor_elements(&m->tensors[m->outputs[i]]), at;
        double rel = harness_relative_error(got[i], ref[i], n, &at);
        cr_assert(rel <= tol, "%s output %d: relative error %g > %g, worst at element %zu "
                  "(gpu %g, ref %g)", what, i, rel, tol, at, got[i][at], ref[i][at]);
        if (rel > worst) worst = rel;
    }
    return worst;
}

double harness_check(vki_model *m, uint32_t seed, double tol) {
    return harness_check_precisions(m, seed, tol, tol > HARNESS_FP16_TOLERANCE ? tol : HARNESS_FP16_TOLERANCE);
}

double harness_check_precisions(vki_model *m, uint32_t seed, double tol, double fp16_tol) {
    vki_status s = vki_model_validate(m);
    cr_assert_eq(s, VKI_OK, "validate: %s", vki_last_error());
    float *inputs[16] = {0}, *gpu[16] = {0}, *half[16] = {0}, *ref[16] = {0};
    cr_assert(m->n_inputs <= 16 && m->n_outputs <= 16);
    for (int i = 0; i < m->n_inputs; i++) {
        size_t n = vki_tensor_elements(&m->tensors[m->inputs[i]]);
        inputs[i] = malloc(n * sizeof(float));
        harness_fill(inputs[i], n, seed + 77u * (uint32_t)i, -1.0f, 1.0f);
    }
    for (int i = 0; i < m->n_outputs; i++)
        ref[i] = malloc(vki_tensor_elements(&m->tensors[m->outputs[i]]) * sizeof(float));
    s = vki_model_reference_run(m, (const float *const *)inputs, ref);
    cr_assert_eq(s, VKI_OK, "reference: %s", vki_last_error());
    device_run(m, VKI_PRECISION_FP32, inputs, gpu);
    double worst = compare(m, gpu, ref, tol, "fp32");
    /* fp16 storage and, where the device has it, fp16 arithmetic: the same kernels with
     * float16 types, so every op test also covers them. */
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    if (dev.fp16_storage && fp16_tol >= 0) {
        device_run(m, VKI_PRECISION_FP16, inputs, half);
        compare(m, half, ref, fp16_tol, "fp16");
    }
    for (int i = 0; i < 16; i++) { free(inputs[i]); free(gpu[i]); free(half[i]); free(ref[i]); }
    vki_model_destroy(m);
    return worst;
}
