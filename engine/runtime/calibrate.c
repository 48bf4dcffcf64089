/* calibrate.c: finds the ops an fp16 graph must keep fp32 for its outputs to stay within
 * a tolerance of the fp32 graph's (vki_calibrate_fp32_ops). Written against the public
 * graph API: every candidate is a real graph on the real device. */
#include "../../tuner/stats.h"
#include "model.h"
#include "options.h"
#include "status.h"
#include "vkinfer.h"

#include <stdlib.h>

typedef struct outputs {
    int n;
    float *data[64];
    size_t count[64];
} outputs;

static void outputs_free(outputs *o) {
    for (int i = 0; i < o->n; i++) free(o->data[i]);
    o->n = 0;
}

/* Builds the model with `opts`, runs it on `inputs`, and keeps every output. */
static vki_status run_graph(vki_context *ctx, const vki_model *m, const vki_graph_options *opts,
                            const float *const *inputs, outputs *out) {
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(ctx, m, opts, &g);
    for (int i = 0; !s && i < m->n_inputs; i++)
        s = vki_graph_set_input(g, i, inputs[i], vki_tensor_elements(&m->tensors[m->inputs[i]]) * sizeof(float));
    if (!s) s = vki_graph_run(g);
    out->n = 0;
    for (int i = 0; !s && i < m->n_outputs; i++) {
        out->count[i] = vki_tensor_elements(&m->tensors[m->outputs[i]]);
        out->data[i] = vki_malloc(out->count[i] * sizeof(float));
        if (!out->data[i]) s = vki_fail_oom("calibrate");
        else {
            out->n = i + 1;
            s = vki_graph_get_output(g, i, out->data[i], out->count[i] * sizeof(float));
        }
    }
    vki_graph_destroy(g);
    if (s) outputs_free(out);
    return s;
}

/* The conformance metric (tuner/stats.h) over all outputs: the worst of them. */
static double worst_error(const outputs *a, const outputs *b) {
    double worst = 0;
    for (int i = 0; i < b->n; i++) {
        double e = vki_relative_error(a->data[i], b->data[i], b->count[i], NULL);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

/* The file op numbers of the ops that run (not folded at load), ascending: what the
 * bisection takes prefixes of. Returns their count. */
static int running_ops(const vki_model *m, int *out) {
    int n = 0;
    for (int f = 0; f < vki_model_file_op_count(m); f++)
        if (vki_model_file_op_runs(m, f)) out[n++] = f;
    return n;
}

/* Error of the fp16 graph that keeps the first `prefix` of the running ops fp32. */
static vki_status error_with_prefix(vki_context *ctx, const vki_model *m, vki_precision precision,
                                    const float *const *inputs, const outputs *exact,
                                    const int *ops, int prefix, double *err) {
    vki_graph_options o = {.precision = precision, .fp32_ops = ops, .n_fp32_ops = prefix};
    outputs got;
    vki_status s = run_graph(ctx, m, &o, inputs, &got);
    if (s) return s;
    *err = worst_error(&got, exact);
    outputs_free(&got);
    return VKI_OK;
}

vki_status vki_calibrate_fp32_ops(vki_context *ctx, const vki_model *m, const float *const *inputs,
                                  const vki_calibration_options *options, int *ops, int max,
                                  int *n_ops) {
    if (!ctx || !m || !inputs || !n_ops || (!ops && max > 0))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_calibrate_fp32_ops: NULL argument");
    *n_ops = 0;
    if (m->n_outputs > 64)
        return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL, "%s: more than 64 outputs", m->name);
    const vki_calibration_options none = {0}, *o = options ? options : &none;
    double tolerance = o->tolerance > 0 ? o->tolerance : VKI_DEFAULT_CALIBRATION_TOLERANCE;
    vki_precision precision = o->precision ? o->precision : VKI_PRECISION_FP16;
    if (precision != VKI_PRECISION_FP16 && precision != VKI_PRECISION_FP16_STORAGE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_calibrate_fp32_ops: precision %d is "
                        "not an fp16 precision", (int)precision);
    int n_file = vki_model_file_op_count(m);
    int *prefix_ops = vki_malloc(sizeof(int) * (size_t)(n_file ? n_file : 1));
    if (!prefix_ops) return vki_fail_oom("calibrate");
    int n_run = running_ops(m, prefix_ops);
    /* Progress: the reference, the all-fp16 graph, then at most ceil(log2(ops + 1))
     * bisection steps; the last report says done == total. */
    int steps = 0;
    while ((1 << steps) < n_run + 1 && steps < 30) steps++;
    int total = 2 + steps, done = 0;
#define PROGRESS_() \
    do { if (o->progress) o->progress(o->progress_user, "calibrate", ++done, total); } while (0)
    outputs exact;
    vki_graph_options fp32 = {0};
    vki_status s = run_graph(ctx, m, &fp32, inputs, &exact);
    if (!s) PROGRESS_();
    /* Bisection keeps err(lo) > tolerance >= err(hi); keeping every op fp32 is exact. The
     * error need not fall monotonically with the prefix, but the prefix found always meets
     * the tolerance, and one op fewer does not. */
    int lo = -1, hi = n_run;
    double err = 0;
    if (!s) s = error_with_prefix(ctx, m, precision, inputs, &exact, prefix_ops, 0, &err);
    if (!s) PROGRESS_();
    if (!s && err <= tolerance) hi = 0;
    else lo = 0;
    while (!s && hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        s = error_with_prefix(ctx, m, precision, inputs, &exact, prefix_ops, mid, &err);
        if (!s && err <= tolerance) hi = mid;
        else lo = mid;
        if (!s && done < total - 1) PROGRESS_();
    }
    if (!s && o->progress && done < total) o->progress(o->progress_user, "calibrate", total, total);
#undef PROGRESS_
    if (!s && hi > max)
        s = vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_calibrate_fp32_ops: %d ops must stay fp32, "
                     "ops holds %d", hi, max);
    if (!s) {
        for (int i = 0; i < hi; i++) ops[i] = prefix_ops[i];
        *n_ops = hi;
    }
    if (exact.n) outputs_free(&exact);
    free(prefix_ops);
    return s;
}
