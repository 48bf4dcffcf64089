/* vkinfer.c: the command-line tool, written against the public API only.
 *
 *   vkinfer run MODEL [--input FILE]... [--save DIR] [--runs N] [--warmup N]
 *   vkinfer bench MODEL [--runs N] [--warmup N]      (run with 100 runs, 10 warm-ups)
 *   vkinfer info [MODEL]                              devices; with MODEL its I/O and ops
 *   vkinfer plan MODEL [--json]                       every memory strategy's plan
 *   vkinfer calibrate MODEL [--input FILE]... [--tolerance T]   ops fp16 must keep fp32
 *
 * Common options: --device INDEX|NAME, --validation. Inputs without --input are filled
 * from the reference runner's generator (xorshift32, seed 0x12345678, values in [-1, 1))
 * so that outputs are comparable with the TFLite interpreter's. Written against the public
 * API, plus tuner/stats.h (pure C: the clock, timing summaries, that generator and the
 * conformance metric) which the library and the tests share.
 */
#include "vkinfer.h"

#include "../tuner/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_FILES 16
#define MAX_FP32_OPS 4096

typedef struct cli {
    const char *command;
    const char *model;
    const char *inputs[MAX_FILES];
    int n_inputs;
    const char *save_dir;
    const char *check_dir;
    double tolerance;
    int tolerance_given;
    int fp32_ops[MAX_FP32_OPS];
    int n_fp32_ops;
    const char *tuning_file;
    int tune;
    int runs, warmup;
    int profile;
    int json;
    vki_memory_strategy memory;
    vki_precision precision;
    vki_wait_mode wait;
    vki_context_options ctx_opts;
} cli;

static int usage(void) {
    fprintf(stderr,
            "usage: vkinfer run MODEL [--input FILE]... [--save DIR] [--runs N] [--warmup N]\n"
            "       vkinfer bench MODEL [--runs N] [--warmup N]\n"
            "       vkinfer info [MODEL]\n"
            "       vkinfer plan MODEL [--json] [--fp16]\n"
            "       vkinfer calibrate MODEL [--input FILE]... [--tolerance T] [--fp16-storage]\n"
            "options: --device INDEX|NAME   pick a Vulkan device (also VKI_DEVICE)\n"
            "         --validation          enable the Khronos validation layer\n"
            "         --profile             print GPU time per dispatch and per kernel\n"
            "         --fp16                float16 storage, and float16 arithmetic where\n"
            "                               the device has it (sums stay float32)\n"
            "         --fp16-storage        float16 storage, float32 arithmetic\n"
            "         --fp32-ops LIST       with --fp16: ops kept float32, e.g. 0-79,85\n"
            "                               (calibrate prints a list that meets a tolerance)\n"
            "         --cache-dir DIR       keep compiled kernels there (also VKI_CACHE_DIR)\n"
            "         --tune                tune work-group sizes on the device while building\n"
            "         --tuning-file FILE    take sizes from FILE; with --tune, save them there\n"
            "         --memory STRATEGY     best (default), naive, greedy_by_size,\n"
            "                               greedy_by_breadth, min_cost_flow, arena, optimal\n"
            "         --spin | --block      poll for completion, or sleep; the default polls\n"
            "                               up to 2 ms on GPUs and sleeps on CPU devices\n"
            "         --check DIR           compare outputs with DIR/output_<i>.f32: error =\n"
            "                               max|a-b| / max(max|b|,1), fail above --tolerance\n"
            "         --tolerance T         default 1e-4 (calibrate: 1e-2 against fp32)\n"
            "inputs are raw little-endian float32 NHWC, one file per model input in order;\n"
            "--save writes DIR/output_<i>.f32 for every output in model order.\n");
    return 2;
}

/* Library messages already name the model, op and tensor; `what` adds the stage. */
static int fail(const char *what, vki_status s) {
    fprintf(stderr, "vkinfer: %s failed: %s (%s)\n", what, vki_last_error(), vki_status_name(s));
    return 1;
}

static int parse_int(const char *text, const char *flag, int *out) {
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == 0 || *end != 0 || v < 0 || v > 1000000) {
        fprintf(stderr, "vkinfer: %s takes a count, got '%s'\n", flag, text);
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* "0-79,85" -> op indices. */
static int parse_ops(const char *text, cli *c) {
    const char *p = text;
    c->n_fp32_ops = 0;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b = a;
        if (end == p || a < 0) break;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a) break;
            p = end;
        }
        if (b - a + 1 > MAX_FP32_OPS - c->n_fp32_ops) break;
        for (long i = a; i <= b; i++) c->fp32_ops[c->n_fp32_ops++] = (int)i;
        if (*p == ',') p++;
        else if (*p) break;
    }
    if (*p || !*text) {
        fprintf(stderr, "vkinfer: --fp32-ops takes op indices and ranges like 0-79,85, got '%s'\n", text);
        return 0;
    }
    return 1;
}

static const char *const strategy_names[VKI_MEMORY_STRATEGY_COUNT] = {
    "best", "naive", "greedy_by_size", "greedy_by_breadth", "min_cost_flow", "arena", "optimal"};

static int parse_strategy(const char *text, vki_memory_strategy *out) {
    for (int i = 0; i < VKI_MEMORY_STRATEGY_COUNT; i++)
        if (!strcmp(text, strategy_names[i])) { *out = (vki_memory_strategy)i; return 1; }
    fprintf(stderr, "vkinfer: unknown memory strategy '%s'\n", text);
    return 0;
}

static int parse_args(int argc, char **argv, cli *c) {
    if (argc < 2) return 0;
    c->command = argv[1];
    int bench = !strcmp(c->command, "bench");
    c->runs = bench ? 100 : 1;
    c->tolerance = 1e-4;
    c->warmup = bench ? 10 : 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--validation")) { c->ctx_opts.enable_validation = 1; continue; }
        if (!strcmp(a, "--profile")) { c->profile = 1; continue; }
        if (!strcmp(a, "--fp16")) { c->precision = VKI_PRECISION_FP16; continue; }
        if (!strcmp(a, "--fp16-storage")) { c->precision = VKI_PRECISION_FP16_STORAGE; continue; }
        if (!strcmp(a, "--spin")) { c->wait = VKI_WAIT_SPIN; continue; }
        if (!strcmp(a, "--tune")) { c->tune = 1; continue; }
        if (!strcmp(a, "--block")) { c->wait = VKI_WAIT_BLOCK; continue; }
        if (!strcmp(a, "--json")) { c->json = 1; continue; }
        if (a[0] != '-' || a[1] != '-') {
            if (c->model) { fprintf(stderr, "vkinfer: unexpected argument '%s'\n", a); return 0; }
            c->model = a;
            continue;
        }
        if (!next) { fprintf(stderr, "vkinfer: %s needs a value\n", a); return 0; }
        i++;
        if (!strcmp(a, "--input")) {
            if (c->n_inputs == MAX_FILES) { fprintf(stderr, "vkinfer: too many --input\n"); return 0; }
            c->inputs[c->n_inputs++] = next;
        } else if (!strcmp(a, "--save")) {
            c->save_dir = next;
        } else if (!strcmp(a, "--check")) {
            c->check_dir = next;
        } else if (!strcmp(a, "--tolerance")) {
            char *end;
            c->tolerance = strtod(next, &end);
            c->tolerance_given = 1;
            if (*end || !(c->tolerance >= 0)) {
                fprintf(stderr, "vkinfer: --tolerance takes a number, got '%s'\n", next);
                return 0;
            }
        } else if (!strcmp(a, "--runs")) {
            if (!parse_int(next, a, &c->runs)) return 0;
            if (c->runs < 1) c->runs = 1;
        } else if (!strcmp(a, "--warmup")) {
            if (!parse_int(next, a, &c->warmup)) return 0;
        } else if (!strcmp(a, "--cache-dir")) {
            c->ctx_opts.cache_dir = next;
        } else if (!strcmp(a, "--tuning-file")) {
            c->tuning_file = next;
        } else if (!strcmp(a, "--fp32-ops")) {
            if (!parse_ops(next, c)) return 0;
        } else if (!strcmp(a, "--memory")) {
            if (!parse_strategy(next, &c->memory)) return 0;
        } else if (!strcmp(a, "--device")) {
            c->ctx_opts.device = next;
        } else {
            fprintf(stderr, "vkinfer: unknown option '%s'\n", a);
            return 0;
        }
    }
    return 1;
}

static const char *type_name(int type) {
    static const char *const names[] = {"other", "integrated", "discrete", "virtual", "cpu"};
    return type >= 0 && type <= 4 ? names[type] : "other";
}

static int cmd_devices(void) {
    vki_device_info infos[16];
    int n = 0;
    vki_status s = vki_enumerate_devices(infos, 16, &n);
    if (s) return fail("devices", s);
    for (int i = 0; i < n && i < 16; i++)
        printf("device %d: %s (%s, vendor 0x%04x, device 0x%04x, Vulkan %u.%u.%u, subgroup %u, "
               "fp16 storage %s, fp16 arithmetic %s)\n", i,
               infos[i].name, type_name(infos[i].type), infos[i].vendor_id, infos[i].device_id,
               infos[i].api_version >> 22, (infos[i].api_version >> 12) & 0x3ff,
               infos[i].api_version & 0xfff, infos[i].subgroup_size,
               infos[i].fp16_storage ? "yes" : "no", infos[i].fp16_arithmetic ? "yes" : "no");
    return 0;
}

static void print_shape(const vki_tensor_info *t) {
    printf("[");
    for (int d = 0; d < t->rank; d++) printf(d ? ",%d" : "%d", t->shape[d]);
    printf("]");
}

static int cmd_info(const cli *c) {
    if (!c->model) return cmd_devices();
    vki_model *m;
    vki_status s = vki_model_load_file(c->model, &m);
    if (s) return fail("load", s);
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        printf("input %d '%s' ", i, t.name);
        print_shape(&t);
        printf("\n");
    }
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        printf("output %d '%s' ", i, t.name);
        print_shape(&t);
        printf("\n");
    }
    printf("%d ops:", vki_model_op_count(m));
    for (int i = 0; i < vki_model_op_count(m); i++) printf(" %s", vki_model_op_name(m, i));
    printf("\n");
    vki_model_destroy(m);
    return 0;
}

static int read_input(const char *path, float *dst, size_t count) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "vkinfer: %s: %s\n", path, strerror(errno)); return 0; }
    size_t got = fread(dst, sizeof(float), count, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != count || extra) {
        fprintf(stderr, "vkinfer: %s: expected exactly %zu bytes (%zu float32 values)\n", path,
                count * sizeof(float), count);
        return 0;
    }
    return 1;
}

/* Every model input from its --input file, or from the reference generator. */
static int load_inputs(const cli *c, const vki_model *m, float **ins) {
    uint32_t state = 0x12345678u;   /* the reference runner's seed: tests/data/ref */
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        ins[i] = malloc(t.element_count * sizeof(float));
        if (!ins[i]) { fprintf(stderr, "vkinfer: out of memory\n"); return 0; }
        if (c->n_inputs) { if (!read_input(c->inputs[i], ins[i], t.element_count)) return 0; }
        else vki_fill_uniform(ins[i], t.element_count, &state, -1.0f, 1.0f);
    }
    return 1;
}

static int write_output(const char *dir, int index, const float *data, size_t count) {
    char path[4096];
    snprintf(path, sizeof path, "%s/output_%d.f32", dir, index);
    FILE *f = fopen(path, "wb");
    if (!f) { fprintf(stderr, "vkinfer: %s: %s\n", path, strerror(errno)); return 0; }
    size_t put = fwrite(data, sizeof(float), count, f);
    int ok = put == count && fclose(f) == 0;
    if (!ok) fprintf(stderr, "vkinfer: %s: write failed\n", path);
    return ok;
}

static int check_outputs(const cli *c, const vki_model *m, float **outs) {
    int ok = 1;
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        char path[4096];
        snprintf(path, sizeof path, "%s/output_%d.f32", c->check_dir, i);
        float *want = malloc(t.element_count * sizeof(float));
        if (!want || !read_input(path, want, t.element_count)) { free(want); return 0; }
        double err = vki_relative_error(outs[i], want, t.element_count, NULL);
        int pass = err <= c->tolerance;
        printf("check output %d '%s': error %.3g %s %.3g: %s\n", i, t.name, err,
               pass ? "<=" : ">", c->tolerance, pass ? "ok" : "FAIL");
        ok &= pass;
        free(want);
    }
    return ok;
}

static void print_outputs(vki_graph *g, const vki_model *m, float **outs) {
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        printf("output %d '%s' ", i, t.name);
        print_shape(&t);
        printf(":");
        for (size_t k = 0; k < t.element_count && k < 6; k++) printf(" %.6g", outs[i][k]);
        printf(t.element_count > 6 ? " ...\n" : "\n");
    }
    (void)g;
}

static void print_latency(double *ms, int runs, int warmup) {
    vki_sample_stats st = vki_sample_stats_of(ms, runs);
    printf("latency: median %.3f ms, min %.3f, p10 %.3f, p90 %.3f, max %.3f (%d runs after %d warm-up)\n",
           st.median, st.min, st.p10, st.p90, st.max, runs, warmup);
}

/* GPU time of the last run: every dispatch, then the total per kernel. */
static void print_profile(const vki_graph *g, const vki_model *m) {
    int n = vki_graph_profile(g, NULL, 0);
    if (n <= 0) return;
    vki_dispatch_profile *p = calloc((size_t)n, sizeof *p);
    if (!p) return;
    vki_graph_profile(g, p, n);
    double total = 0;
    printf("%5s %-24s %-18s %-16s %-16s %-10s %9s\n", "step", "op", "kernel", "variant", "grid",
           "workgroup", "ms");
    for (int k = 0; k < n; k++) {
        char grid[32], wg[32];
        snprintf(grid, sizeof grid, "%ux%ux%u", p[k].grid[0], p[k].grid[1], p[k].grid[2]);
        snprintf(wg, sizeof wg, "%ux%ux%u", p[k].workgroup[0], p[k].workgroup[1], p[k].workgroup[2]);
        char op[48];
        if (p[k].op_index >= 0) snprintf(op, sizeof op, "%d %s", p[k].op_index, vki_model_op_name(m, p[k].op_index));
        else snprintf(op, sizeof op, "-");
        const char *variant = p[k].variant && *p[k].variant ? p[k].variant : "-";
        printf("%5d %-24s %-18s %-16s %-16s %-10s %9.4f\n", k, op, p[k].kernel, variant, grid, wg,
               p[k].ms);
        total += p[k].ms;
    }
    printf("per kernel:\n");
    for (int k = 0; k < n; k++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = !strcmp(p[j].kernel, p[k].kernel);
        if (seen) continue;
        double sum = 0;
        int count = 0;
        for (int j = k; j < n; j++)
            if (!strcmp(p[j].kernel, p[k].kernel)) { sum += p[j].ms; count++; }
        printf("  %-18s %4d dispatches %9.3f ms %5.1f%%\n", p[k].kernel, count, sum,
               total > 0 ? 100 * sum / total : 0);
        /* Then the kernel's forms the ops chose, each once. */
        for (int j = k; j < n; j++) {
            if (strcmp(p[j].kernel, p[k].kernel) || !p[j].variant || !*p[j].variant) continue;
            int again = 0;
            for (int i = k; i < j && !again; i++)
                again = !strcmp(p[i].kernel, p[k].kernel) && p[i].variant &&
                        !strcmp(p[i].variant, p[j].variant);
            if (again) continue;
            double vsum = 0;
            int vcount = 0;
            for (int i = j; i < n; i++)
                if (!strcmp(p[i].kernel, p[k].kernel) && p[i].variant &&
                    !strcmp(p[i].variant, p[j].variant)) { vsum += p[i].ms; vcount++; }
            printf("    %-16s %4d dispatches %9.3f ms %5.1f%%\n", p[j].variant, vcount, vsum,
                   total > 0 ? 100 * vsum / total : 0);
        }
    }
    printf("GPU total %.3f ms over %d dispatches\n", total, n);
    free(p);
}

static int cmd_run(const cli *c) {
    if (!c->model) return usage();
    int rc = 1;
    vki_context *ctx = NULL;
    vki_model *m = NULL;
    vki_graph *g = NULL;
    float *ins[MAX_FILES] = {0}, *outs[MAX_FILES] = {0};
    double *ms = NULL;
    vki_status s = vki_model_load_file(c->model, &m);
    if (s) { fail("load", s); goto done; }
    int n_in = vki_model_input_count(m), n_out = vki_model_output_count(m);
    if (n_in > MAX_FILES || n_out > MAX_FILES) { fprintf(stderr, "vkinfer: too many model I/O\n"); goto done; }
    if (c->n_inputs && c->n_inputs != n_in) {
        fprintf(stderr, "vkinfer: the model has %d inputs, %d --input given\n", n_in, c->n_inputs);
        goto done;
    }
    s = vki_context_create(&c->ctx_opts, &ctx);
    if (s) { fail("device", s); goto done; }
    vki_device_info dev;
    vki_context_device_info(ctx, &dev);
    double t0 = vki_now_ms();
    vki_graph_options graph_opts = {.precision = c->precision, .memory = c->memory,
                                    .wait = c->wait, .profile = c->profile,
                                    .fp32_ops = c->fp32_ops, .n_fp32_ops = c->n_fp32_ops,
                                    .tuning_file = c->tuning_file, .tune = c->tune};
    s = vki_graph_create(ctx, m, &graph_opts, &g);
    if (s) { fail("graph build", s); goto done; }
    double build_ms = vki_now_ms() - t0;
    printf("model %s on %s: %d ops, %d dispatches, built in %.1f ms\n", c->model, dev.name,
           vki_model_op_count(m), vki_graph_dispatch_count(g), build_ms);
    vki_tuning_report tuning;
    vki_graph_tuning(g, &tuning);
    if (c->tune || c->tuning_file)
        printf("tuning: %d dispatches tunable, %d sizes from the file, %d searched, %d moved "
               "(searched: %.3f ms with the table's sizes, %.3f ms tuned)\n", tuning.dispatches,
               tuning.from_file, tuning.searched, tuning.moved, tuning.table_ms, tuning.tuned_ms);
    if (c->tune && tuning.moved)
        printf("tuning: whole graph %.3f ms with the table's sizes, %.3f ms tuned: %s\n",
               tuning.graph_table_ms, tuning.graph_tuned_ms,
               tuning.kept ? "tuned sizes kept" : "table's sizes kept");
    vki_precision_report prec;
    vki_graph_precision(g, &prec);
    if (c->precision != VKI_PRECISION_FP32)
        printf("precision: %d of %d ops fp16, %s arithmetic\n", prec.fp16_ops, prec.ops,
               prec.fp16_arithmetic ? "fp16" : "fp32");
    if (!load_inputs(c, m, ins)) goto done;
    for (int i = 0; i < n_in; i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        s = vki_graph_set_input(g, i, ins[i], t.element_count * sizeof(float));
        if (s) { fail("input", s); goto done; }
    }
    ms = malloc(sizeof(double) * (size_t)c->runs);
    if (!ms) goto done;
    for (int r = 0; r < c->warmup; r++)
        if ((s = vki_graph_run(g))) { fail("run", s); goto done; }
    for (int r = 0; r < c->runs; r++) {
        double start = vki_now_ms();
        /* Each timed run includes the input copy, as an application's would. */
        for (int i = 0; i < n_in; i++) {
            vki_tensor_info t;
            vki_model_input_info(m, i, &t);
            vki_graph_set_input(g, i, ins[i], t.element_count * sizeof(float));
        }
        if ((s = vki_graph_run(g))) { fail("run", s); goto done; }
        ms[r] = vki_now_ms() - start;
    }
    for (int i = 0; i < n_out; i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        outs[i] = malloc(t.element_count * sizeof(float));
        if (!outs[i]) goto done;
        s = vki_graph_get_output(g, i, outs[i], t.element_count * sizeof(float));
        if (s) { fail("output", s); goto done; }
        if (c->save_dir && !write_output(c->save_dir, i, outs[i], t.element_count)) goto done;
    }
    print_outputs(g, m, outs);
    vki_memory_report mem;
    vki_graph_memory(g, &mem);
    printf("memory: weights %.3f MB, intermediates %.3f MB (%s; lower bound %.3f MB), "
           "I/O tensors %.3f MB, staging %.3f MB\n", mem.weights_bytes / 1e6,
           mem.intermediate_bytes / 1e6, mem.strategy, mem.lower_bound_bytes / 1e6,
           mem.io_bytes / 1e6, mem.staging_bytes / 1e6);
    if (c->profile) print_profile(g, m);
    print_latency(ms, c->runs, c->warmup);
    rc = c->check_dir && !check_outputs(c, m, outs) ? 1 : 0;
done:
    for (int i = 0; i < MAX_FILES; i++) { free(ins[i]); free(outs[i]); }
    free(ms);
    vki_graph_destroy(g);
    vki_model_destroy(m);
    vki_context_destroy(ctx);
    return rc;
}

/* One row per strategy: bytes, objects, ratio to the lower bound, planning time. */
static int cmd_plan(const cli *c) {
    if (!c->model) return usage();
    vki_model *m = NULL;
    vki_context *ctx = NULL;
    vki_status s = vki_model_load_file(c->model, &m);
    if (s) return fail("load", s);
    s = vki_context_create(&c->ctx_opts, &ctx);
    if (s) { vki_model_destroy(m); return fail("device", s); }
    vki_graph_options opts = {.precision = c->precision};
    vki_memory_plan_info p[VKI_MEMORY_STRATEGY_COUNT];
    s = vki_memory_plans(ctx, m, &opts, p, VKI_MEMORY_STRATEGY_COUNT);
    if (s) { vki_context_destroy(ctx); vki_model_destroy(m); return fail("plan", s); }
    double lb = (double)p[0].lower_bound_bytes;
    if (c->json) {
        printf("{\"model\": \"%s\", \"tensors\": %d, \"lower_bound_bytes\": %llu, \"plans\": [",
               c->model, p[0].tensors, (unsigned long long)p[0].lower_bound_bytes);
        for (int i = 0; i < VKI_MEMORY_STRATEGY_COUNT; i++)
            printf("%s\n  {\"strategy\": \"%s\", \"chosen\": \"%s\", \"total_bytes\": %llu, "
                   "\"objects\": %d, \"ratio_to_lower_bound\": %.4f, \"plan_ms\": %.3f%s}",
                   i ? "," : "", strategy_names[i], p[i].name,
                   (unsigned long long)p[i].total_bytes, p[i].objects,
                   lb > 0 ? (double)p[i].total_bytes / lb : 1.0, p[i].plan_ms,
                   i == VKI_MEMORY_OPTIMAL ? (p[i].proven_optimal ? ", \"proven_optimal\": true"
                                                                 : ", \"proven_optimal\": false")
                                           : "");
        printf("\n]}\n");
    } else {
        printf("%s: %d intermediate tensors, lower bound %.3f MB\n", c->model, p[0].tensors, lb / 1e6);
        printf("%-18s %12s %8s %9s %10s\n", "strategy", "MB", "objects", "x bound", "plan ms");
        for (int i = 0; i < VKI_MEMORY_STRATEGY_COUNT; i++) {
            char name[64];
            if (i == VKI_MEMORY_BEST) snprintf(name, sizeof name, "best (%s)", p[i].name);
            else if (i == VKI_MEMORY_OPTIMAL)
                snprintf(name, sizeof name, "optimal%s", p[i].proven_optimal ? " (proven)" : " (budget)");
            else snprintf(name, sizeof name, "%s", strategy_names[i]);
            char objects[16] = "-";
            if (p[i].objects) snprintf(objects, sizeof objects, "%d", p[i].objects);
            printf("%-18s %12.3f %8s %9.3f %10.3f\n", name, p[i].total_bytes / 1e6, objects,
                   lb > 0 ? (double)p[i].total_bytes / lb : 1.0, p[i].plan_ms);
        }
    }
    vki_context_destroy(ctx);
    vki_model_destroy(m);
    return 0;
}

/* Prints the ops an fp16 graph keeps fp32 to stay within the tolerance of fp32, as a
 * --fp32-ops list. */
static int cmd_calibrate(const cli *c) {
    if (!c->model) return usage();
    int rc = 1;
    vki_model *m = NULL;
    vki_context *ctx = NULL;
    float *ins[MAX_FILES] = {0};
    int *ops = NULL;
    vki_status s = vki_model_load_file(c->model, &m);
    if (s) { fail("load", s); goto done; }
    if (vki_model_input_count(m) > MAX_FILES) { fprintf(stderr, "vkinfer: too many model inputs\n"); goto done; }
    if (c->n_inputs && c->n_inputs != vki_model_input_count(m)) {
        fprintf(stderr, "vkinfer: the model has %d inputs, %d --input given\n",
                vki_model_input_count(m), c->n_inputs);
        goto done;
    }
    if (!load_inputs(c, m, ins)) goto done;
    s = vki_context_create(&c->ctx_opts, &ctx);
    if (s) { fail("device", s); goto done; }
    int n_ops = vki_model_op_count(m), kept = 0;
    ops = malloc(sizeof(int) * (size_t)(n_ops ? n_ops : 1));
    if (!ops) goto done;
    vki_calibration_options o = {
        .precision = c->precision == VKI_PRECISION_FP16_STORAGE ? VKI_PRECISION_FP16_STORAGE
                                                                : VKI_PRECISION_FP16,
        .tolerance = c->tolerance_given ? c->tolerance : 1e-2};
    double t0 = vki_now_ms();
    s = vki_calibrate_fp32_ops(ctx, m, (const float *const *)ins, &o, ops, n_ops, &kept);
    if (s) { fail("calibrate", s); goto done; }
    printf("%s: %d of %d ops must stay fp32 for error <= %.3g against fp32 (%.1f s)\n",
           c->model, kept, n_ops, o.tolerance, (vki_now_ms() - t0) / 1e3);
    if (kept) printf("--fp32-ops %d-%d\n", ops[0], ops[kept - 1]);
    rc = 0;
done:
    for (int i = 0; i < MAX_FILES; i++) free(ins[i]);
    free(ops);
    vki_context_destroy(ctx);
    vki_model_destroy(m);
    return rc;
}

int main(int argc, char **argv) {
    cli c = {0};
    if (argc < 2) return usage();
    /* parse_args has said what is wrong; the full usage would bury it. */
    if (!parse_args(argc, argv, &c)) return 2;
    if (!strcmp(c.command, "run") || !strcmp(c.command, "bench")) {
        if (c.save_dir) {
            struct stat st;
            if (stat(c.save_dir, &st) != 0 && mkdir(c.save_dir, 0777) != 0) {
                fprintf(stderr, "vkinfer: %s: %s\n", c.save_dir, strerror(errno));
                return 1;
            }
        }
        return cmd_run(&c);
    }
    if (!strcmp(c.command, "info")) return cmd_info(&c);
    if (!strcmp(c.command, "plan")) return cmd_plan(&c);
    if (!strcmp(c.command, "calibrate")) return cmd_calibrate(&c);
    return usage();
}
