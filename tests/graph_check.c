/* graph_check.c: the device side of the random-graph tester (tests/graphs/fuzz.py): runs
 * every graph of a list through vkinfer under every configuration and checks it against
 * its oracles, one result line per graph.
 *
 *   graph_check [--quick] LIST
 *
 * A line of LIST: PREFIX N_IN N_OUT FLAGS, for PREFIX.tflite, its inputs PREFIX.in<i>.f32
 * and LiteRT's outputs PREFIX.out<i>.f32 (raw little-endian float32). FLAGS are letters:
 * 'h' the graph may run in fp16 (no discontinuous op reads what fp16 rounding moves),
 * 'q' it has int8/uint8 sections (QUANTIZE of a float tensor, integer forms, DEQUANTIZE:
 * the integer forms are exact, but the float value quantized may sit on a tie that a
 * float op one ulp away from LiteRT's flips, so such graphs take the int8 bound below).
 *
 * The checks, each against an independent answer or a metamorphic twin:
 *   litert      the default build (all passes, BEST memory, fp32) against LiteRT
 *   reference   the ops' C references over the whole graph against LiteRT
 *   -<pass>     every pass left out in turn, and "none" (no pass), against LiteRT
 *   gpu-kernels what a GPU runs by default, on any device: the depthwise + 1x1 pairs fused
 *               with the GPU's whole-tile plan (VKI_DWPW=2, its 1x1 sums split in 4
 *               parts), every CONV_2D on the split-K kernel (VKI_CONV_KERNEL=splitk:1,4),
 *               one-row FULLY_CONNECTEDs over 4 lanes a slice (VKI_FC_SPLIT=4), the
 *               squeeze kernel at 1024 lanes (VKI_SQUEEZE) and every inverted residual
 *               block in one dispatch (VKI_BLOCK=1), against LiteRT; the passes that fire
 *               here count as covered
 *   gpu-tiled   the same with the pointwise CONV_2Ds on the tiled kernel, its sum split 4
 *               ways a slice at a time, so that 5 channels split (VKI_CONV_KERNEL=tiled:1,4,4,1),
 *               and the blocks in tiles of 2x2 pixels (VKI_BLOCK=1:2)
 *   memory      every memory strategy, bit for bit against the default build
 *   schedule    the stored order and no in-place outputs, bit for bit against the default
 *   fp16, fp16s float16 arithmetic and float16 storage against LiteRT (flag 'h')
 *   twice       a second graph of the same model, bit for bit
 *   threads     two graphs of the model run at once on two threads, bit for bit
 * Error: max|a - b| / max(max|b|, 1) over every element of every output (vki_relative_error).
 * Bounds: fp32 1e-4 and C references 1e-5, as tests/test_op_models.c (measured there at
 * most 3e-7); fp16 3e-2 (op models: 2e-2 for one op; a chain of ten adds its roundings);
 * int8 sections 2.5e-2 in fp32 (one step of a grid spanning the values, plus what the ops
 * after it make of it). Models that are integer from their first QUANTIZE are checked bit
 * for bit by tests/test_int8.c.
 *
 * A result line: "RESULT <prefix> ok dispatches=<n> fired=<passes>" or "RESULT <prefix>
 * FAIL <check>: <what>; <check>: ..." or "RESULT <prefix> REFUSED <vkinfer's message>".
 * --quick (CI's fixed set) leaves out the leave-one-out builds (it still runs none and all),
 * and graph k of the list checks one memory strategy (1 + k mod 6) and one of fp16 and fp16
 * storage (k mod 2): over the set every strategy and both precisions still run. Exit status: 1
 * when a graph failed, 0 otherwise (refusals are reported, not failures: fuzz.py decides).
 */
#include "graph.h"
#include "ops/ops.h"
#include "vkinfer.h"
#include "../tuner/stats.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IO 16

typedef struct gc_case {
    const char *prefix;
    vki_model *m;
    int n_in, n_out;
    size_t in_n[MAX_IO], out_n[MAX_IO];
    float *in[MAX_IO], *want[MAX_IO];
    int fp16, int8;
} gc_case;

typedef struct gc_outputs {
    float *v[MAX_IO];
} gc_outputs;

static char report[8192];
static size_t report_len;
static int failed;

static void fail(const char *check, const char *fmt, ...) {
    va_list ap;
    if (report_len < sizeof report)
        report_len += (size_t)snprintf(report + report_len, sizeof report - report_len, "%s%s: ",
                                       failed ? "; " : "", check);
    va_start(ap, fmt);
    if (report_len < sizeof report)
        report_len += (size_t)vsnprintf(report + report_len, sizeof report - report_len, fmt, ap);
    va_end(ap);
    failed++;
}

static float *read_f32(const char *path, size_t n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    float *v = malloc((n ? n : 1) * sizeof(float));
    size_t got = v ? fread(v, sizeof(float), n, f) : 0;
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != n || extra) {
        free(v);
        return NULL;
    }
    return v;
}

static void outputs_free(gc_outputs *o) {
    for (int i = 0; i < MAX_IO; i++) free(o->v[i]), o->v[i] = NULL;
}

static int outputs_alloc(const gc_case *c, gc_outputs *o) {
    memset(o, 0, sizeof *o);
    for (int i = 0; i < c->n_out; i++)
        if (!(o->v[i] = calloc(c->out_n[i] ? c->out_n[i] : 1, sizeof(float)))) return 0;
    return 1;
}

/* Builds a graph of c with `opt`; NULL (the message in *why) on failure. */
static vki_graph *build(vki_context *ctx, const gc_case *c, const vki_graph_options *opt,
                        char *why, size_t why_n) {
    vki_graph *g = NULL;
    if (vki_graph_create(ctx, c->m, opt, &g)) {
        snprintf(why, why_n, "build: %s", vki_last_error());
        return NULL;
    }
    return g;
}

static vki_status run(vki_graph *g, const gc_case *c, gc_outputs *o) {
    vki_status s = VKI_OK;
    for (int i = 0; i < c->n_in && !s; i++)
        s = vki_graph_set_input(g, i, c->in[i], c->in_n[i] * sizeof(float));
    if (!s) s = vki_graph_run(g);
    for (int i = 0; i < c->n_out && !s; i++)
        s = vki_graph_get_output(g, i, o->v[i], c->out_n[i] * sizeof(float));
    return s;
}

/* Builds and runs with opt into o; 0 (failure recorded under `check`) when either fails. */
static int build_run(vki_context *ctx, const gc_case *c, const vki_graph_options *opt,
                     gc_outputs *o, const char *check, unsigned *fired, int *dispatches) {
    char why[512];
    vki_graph *g = build(ctx, c, opt, why, sizeof why);
    if (!g) {
        fail(check, "%s", why);
        return 0;
    }
    vki_status s = run(g, c, o);
    if (s) fail(check, "run: %s", vki_last_error());
    if (fired) *fired = vki_graph_passes_fired(g);
    if (dispatches) *dispatches = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    return !s;
}

/* Worst error of o against LiteRT; records a failure above bound. */
static double against_litert(const gc_case *c, const gc_outputs *o, const char *check,
                             double bound) {
    double worst = 0.0;
    int at_out = 0;
    size_t at = 0;
    for (int i = 0; i < c->n_out; i++) {
        size_t where = 0;
        double e = vki_relative_error(o->v[i], c->want[i], c->out_n[i], &where);
        if (e > worst || e != e) worst = e, at_out = i, at = where;
    }
    if (!(worst <= bound))
        fail(check, "error %.3g > %.1g (output %d element %zu: %.7g, LiteRT %.7g)", worst, bound,
             at_out, at, (double)o->v[at_out][at], (double)c->want[at_out][at]);
    return worst;
}

static void bit_identical(const gc_case *c, const gc_outputs *a, const gc_outputs *b,
                          const char *check) {
    for (int i = 0; i < c->n_out; i++)
        if (memcmp(a->v[i], b->v[i], c->out_n[i] * sizeof(float))) {
            size_t k = 0;
            while (k < c->out_n[i] && !memcmp(&a->v[i][k], &b->v[i][k], sizeof(float))) k++;
            fail(check, "output %d element %zu: %.9g, default build %.9g", i, k,
                 (double)b->v[i][k], (double)a->v[i][k]);
            return;
        }
}

typedef struct thread_job {
    vki_graph *g;
    const gc_case *c;
    gc_outputs o;
    vki_status s;
} thread_job;

static void *thread_run(void *p) {
    thread_job *j = p;
    for (int r = 0; r < 3 && !j->s; r++) j->s = run(j->g, j->c, &j->o);
    return NULL;
}

/* Sets name=value and returns the old value (malloc'd; NULL where unset) for env_restore. */
static char *env_set(const char *name, const char *value) {
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    setenv(name, value, 1);
    return saved;
}

static void env_restore(const char *name, char *saved) {
    if (saved) setenv(name, saved, 1);
    else unsetenv(name);
    free(saved);
}

static const char *pass_names[] = {
#define PASS_NAME_(id, bit, name) name,
    VKI_PASS_LIST(PASS_NAME_)
#undef PASS_NAME_
};
enum { N_PASSES = (int)(sizeof pass_names / sizeof pass_names[0]) };

static void check_case(vki_context *ctx, gc_case *c, int quick, int k, int *dispatches,
                       unsigned *fired) {
    double b32 = c->int8 ? 2.5e-2 : 1e-4, bref = c->int8 ? 2.5e-2 : 1e-5, b16 = 3e-2;
    gc_outputs base, o;
    if (!outputs_alloc(c, &base) || !outputs_alloc(c, &o)) {
        fail("setup", "out of host memory");
        outputs_free(&base);
        outputs_free(&o);
        return;
    }
    /* The C references. */
    if (vki_model_reference_run(c->m, (const float *const *)c->in, o.v))
        fail("reference", "%s", vki_last_error());
    else
        against_litert(c, &o, "reference", bref);
    /* The default build. */
    vki_graph_options def = {0};
    int have_base = build_run(ctx, c, &def, &base, "litert", fired, dispatches);
    if (have_base) against_litert(c, &base, "litert", b32);
    /* No pass, and every pass left out. */
    vki_graph_options none = {.disable_passes = ~0u};
    if (build_run(ctx, c, &none, &o, "-all", NULL, NULL)) against_litert(c, &o, "-all", b32);
    for (int p = 0; p < N_PASSES && !quick; p++) {
        if (!(*fired & (1u << p))) continue;   /* leaving out a pass that did nothing: same build */
        char name[48];
        snprintf(name, sizeof name, "-%s", pass_names[p]);
        vki_graph_options leave = {.disable_passes = 1u << p};
        if (build_run(ctx, c, &leave, &o, name, NULL, NULL)) against_litert(c, &o, name, b32);
    }
    /* The GPU's kernel choices, which a CPU device does not make by default: every
     * CONV_2D on split-K, then the pointwise ones on the tiled kernel with its sum split
     * 4 ways a slice at a time (--quick: one of the two, by graph). */
    static const char *const gpu_conv[] = {"splitk:1,4", "tiled:1,4,4,1"};
    for (int v = 0; v < 2; v++) {
        if (quick && v != k % 2) continue;
        char *dwpw = env_set("VKI_DWPW", "2"), *conv = env_set("VKI_CONV_KERNEL", gpu_conv[v]);
        char *fc = env_set("VKI_FC_SPLIT", "4"), *sq = env_set("VKI_SQUEEZE", "1024");
        char *blk = env_set("VKI_BLOCK", v ? "1:2" : "1");
        const char *name = v ? "gpu-tiled" : "gpu-kernels";
        unsigned gpu_fired = 0;
        if (build_run(ctx, c, &def, &o, name, &gpu_fired, NULL)) against_litert(c, &o, name, b32);
        *fired |= gpu_fired;   /* passes only a GPU runs (block) count as covered here */
        env_restore("VKI_BLOCK", blk);
        env_restore("VKI_SQUEEZE", sq);
        env_restore("VKI_FC_SPLIT", fc);
        env_restore("VKI_CONV_KERNEL", conv);
        env_restore("VKI_DWPW", dwpw);
    }
    if (have_base) {
        /* Memory strategies and the schedule stage move storage, never arithmetic. */
        for (int s = 1; s < VKI_MEMORY_STRATEGY_COUNT; s++) {
            if (quick && s != 1 + k % (VKI_MEMORY_STRATEGY_COUNT - 1)) continue;
            char name[48];
            snprintf(name, sizeof name, "memory %d", s);
            vki_graph_options mem = {.memory = (vki_memory_strategy)s};
            if (build_run(ctx, c, &mem, &o, name, NULL, NULL)) bit_identical(c, &base, &o, name);
        }
        vki_graph_options stored = {.disable_passes = VKI_PASS_ORDER | VKI_PASS_IN_PLACE};
        if (build_run(ctx, c, &stored, &o, "schedule", NULL, NULL))
            bit_identical(c, &base, &o, "schedule");
        /* The same model built again. */
        if (build_run(ctx, c, &def, &o, "twice", NULL, NULL)) bit_identical(c, &base, &o, "twice");
        /* Two graphs at once on two threads, three runs each. */
        thread_job jobs[2] = {{0}};
        char why[512];
        int ok = 1;
        for (int t = 0; t < 2 && ok; t++) {
            jobs[t].c = c;
            ok = outputs_alloc(c, &jobs[t].o) && (jobs[t].g = build(ctx, c, &def, why, sizeof why));
            if (!ok) fail("threads", "%s", jobs[t].g ? "out of host memory" : why);
        }
        pthread_t th[2];
        int started[2] = {0};
        for (int t = 0; t < 2 && ok; t++) started[t] = !pthread_create(&th[t], NULL, thread_run, &jobs[t]);
        for (int t = 0; t < 2; t++) {
            if (started[t]) pthread_join(th[t], NULL);
            if (started[t] && jobs[t].s) fail("threads", "run: %s", vki_status_name(jobs[t].s));
            else if (started[t]) bit_identical(c, &base, &jobs[t].o, "threads");
            vki_graph_destroy(jobs[t].g);
            outputs_free(&jobs[t].o);
        }
    }
    if (c->fp16) {
        vki_device_info info;
        vki_context_device_info(ctx, &info);
        if (info.fp16_storage) {
            vki_graph_options h = {.precision = VKI_PRECISION_FP16};
            if ((!quick || k % 2 == 0) && build_run(ctx, c, &h, &o, "fp16", NULL, NULL))
                against_litert(c, &o, "fp16", b16);
            vki_graph_options hs = {.precision = VKI_PRECISION_FP16_STORAGE};
            if ((!quick || k % 2 == 1) && build_run(ctx, c, &hs, &o, "fp16s", NULL, NULL))
                against_litert(c, &o, "fp16s", b16);
        }
    }
    outputs_free(&base);
    outputs_free(&o);
}

/* Loads c's model and data; 0 with the reason in why. */
static int load_case(gc_case *c, char *why, size_t why_n) {
    char path[4096];
    snprintf(path, sizeof path, "%s.tflite", c->prefix);
    if (vki_model_load_file(path, &c->m)) {
        snprintf(why, why_n, "%s", vki_last_error());
        return -1;
    }
    if (vki_model_input_count(c->m) != c->n_in || vki_model_output_count(c->m) != c->n_out) {
        snprintf(why, why_n, "%d inputs and %d outputs, the list says %d and %d",
                 vki_model_input_count(c->m), vki_model_output_count(c->m), c->n_in, c->n_out);
        return 0;
    }
    for (int i = 0; i < c->n_in + c->n_out; i++) {
        int is_in = i < c->n_in, k = is_in ? i : i - c->n_in;
        vki_tensor_info t;
        if (is_in) vki_model_input_info(c->m, k, &t);
        else vki_model_output_info(c->m, k, &t);
        snprintf(path, sizeof path, "%s.%s%d.f32", c->prefix, is_in ? "in" : "out", k);
        float *v = read_f32(path, t.element_count);
        if (!v) {
            snprintf(why, why_n, "%s: missing, or not %zu floats", path, t.element_count);
            return 0;
        }
        if (is_in) c->in[k] = v, c->in_n[k] = t.element_count;
        else c->want[k] = v, c->out_n[k] = t.element_count;
    }
    return 1;
}

static void free_case(gc_case *c) {
    for (int i = 0; i < MAX_IO; i++) free(c->in[i]), free(c->want[i]);
    vki_model_destroy(c->m);
}

int main(int argc, char **argv) {
    int quick = 0, argi = 1;
    if (argi < argc && !strcmp(argv[argi], "--quick")) quick = 1, argi++;
    if (argi != argc - 1) {
        fprintf(stderr, "usage: graph_check [--quick] LIST\n");
        return 2;
    }
    FILE *list = fopen(argv[argi], "r");
    if (!list) {
        fprintf(stderr, "graph_check: cannot open %s\n", argv[argi]);
        return 2;
    }
    vki_context *ctx = NULL;
    if (vki_context_create(NULL, &ctx)) {
        fprintf(stderr, "graph_check: no device: %s\n", vki_last_error());
        fclose(list);
        return 2;
    }
    char line[4096], prefix[4000], flags[16];
    int graphs = 0, bad = 0;
    while (fgets(line, sizeof line, list)) {
        gc_case c = {0};
        strcpy(flags, "-");
        if (sscanf(line, "%3999s %d %d %15s", prefix, &c.n_in, &c.n_out, flags) < 3) continue;
        if (c.n_in > MAX_IO || c.n_out > MAX_IO || c.n_in < 0 || c.n_out < 1) {
            printf("RESULT %s FAIL list: %d inputs, %d outputs\n", prefix, c.n_in, c.n_out);
            bad++;
            continue;
        }
        c.prefix = prefix;
        c.fp16 = strchr(flags, 'h') != NULL;
        c.int8 = strchr(flags, 'q') != NULL;
        report_len = 0;
        report[0] = 0;
        failed = 0;
        char why[8192];
        int loaded = load_case(&c, why, sizeof why);
        graphs++;
        if (loaded < 0) {
            printf("RESULT %s REFUSED %s\n", prefix, why);
        } else if (!loaded) {
            printf("RESULT %s FAIL load: %s\n", prefix, why);
            bad++;
        } else {
            int dispatches = 0;
            unsigned fired = 0;
            check_case(ctx, &c, quick, graphs, &dispatches, &fired);
            if (failed) {
                printf("RESULT %s FAIL %s; fired: ", prefix, report);
                bad++;
            } else {
                printf("RESULT %s ok dispatches=%d fired=", prefix, dispatches);
            }
            int any = 0;
            for (int p = 0; p < N_PASSES; p++)
                if (fired & (1u << p)) printf("%s%s", any++ ? "," : "", pass_names[p]);
            printf("%s\n", any ? "" : "-");
        }
        fflush(stdout);
        free_case(&c);
    }
    fclose(list);
    vki_context_destroy(ctx);
    fprintf(stderr, "graph_check: %d graphs, %d failed\n", graphs, bad);
    return bad ? 1 : 0;
}
