/* cli_graph.c: the command-line verbs that build graphs and run them: run, bench, tune
 * and calibrate, with what they share: opening the device with the cache directory,
 * checking every path and size against the model before a graph is built, feeding inputs
 * (raw files, the reference generator, or a photo through the library's image input), and
 * timing runs. Also the output helpers of cli.h. */
#include "cli.h"
#include "picture.h"

#include "../tuner/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- output helpers ------------------------------------------------------------------- */

int cli_fail(const char *what, vki_status s) {
    fprintf(stderr, "vkinfer: %s failed: %s (%s)\n", what, vki_last_error(), vki_status_name(s));
    return 1;
}

void cli_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

void cli_json_number(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.9g", v);
    else fputs("null", f);
}

void cli_json_member(FILE *f, const char *text, double v) {
    fputs(text, f);
    cli_json_number(f, v);
}

void cli_json_sep(FILE *f, int index) {
    if (index) fputs(", ", f);
}

void cli_progress(void *user, const char *stage, int done, int total) {
    (void)user;
    if (total <= 0) return;
    if (isatty(STDERR_FILENO)) {
        enum { WIDTH = 30 };
        int fill = (int)((long long)done * WIDTH / total);
        fprintf(stderr, "\r%-12s [%.*s%*s] %d/%d", stage, fill, "##############################",
                WIDTH - fill, "", done, total);
        if (done >= total) fputc('\n', stderr);
    } else {
        fprintf(stderr, "%s: %d/%d\n", stage, done, total);
    }
    fflush(stderr);
}

vki_status cli_context(const cli *c, vki_context **out) {
    vki_context_options o = c->ctx_opts;
    o.cache_dir = c->cache_dir;
    vki_status s = vki_context_create(&o, out);
    if (s == VKI_ERROR_IO && o.cache_dir) {
        fprintf(stderr, "vkinfer: warning: %s; going on without a cache\n", vki_last_error());
        o.cache_dir = NULL;
        s = vki_context_create(&o, out);
    }
    return s;
}

/* ---- checks before building ------------------------------------------------------------ */

static void shape_text(const vki_tensor_info *t, char *buf, size_t size) {
    size_t n = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < t->rank && n < size; d++)
        n += (size_t)snprintf(buf + n, size - n, d ? ",%d" : "%d", t->shape[d]);
    if (n < size) snprintf(buf + n, size - n, "]");
}

/* A raw float32 file of exactly count values; 0 after printing why. */
static int check_raw_file(const char *path, const char *what, size_t count) {
    struct stat st;
    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        fprintf(stderr, "vkinfer: %s: %s\n", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(st.st_mode) || (size_t)st.st_size != count * sizeof(float)) {
        fprintf(stderr, "vkinfer: %s: %lld bytes, but %s takes %zu (%zu float32 values)\n", path,
                (long long)st.st_size, what, count * sizeof(float), count);
        return 0;
    }
    return 1;
}

int cli_check_writable_dir(const char *dir, const char *flag, int create) {
    struct stat st;
    if (create && stat(dir, &st) != 0 && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "vkinfer: %s %s: %s\n", flag, dir, strerror(errno));
        return 0;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0) {
        fprintf(stderr, "vkinfer: %s %s: %s\n", flag, dir,
                errno && !S_ISREG(st.st_mode) ? strerror(errno) : "not a writable directory");
        return 0;
    }
    return 1;
}

/* The directory a file would be written into must be writable. */
int cli_check_writable_file(const char *path, const char *flag) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == dir) dir[1] = 0;
    else *slash = 0;
    errno = 0;
    return cli_check_writable_dir(dir, flag, 0);
}

/* What one model's run needs, checked and loaded before any graph is built. */
typedef struct job {
    const char *path;
    vki_model *model;
    int n_in, n_out;
    float *ins[CLI_MAX_FILES];       /* raw inputs (files or the generator) */
    vki_picture photo;               /* --image */
    vki_image image;
    vki_image_transform transform;
    vki_task task;
    char tuning[4096];               /* the tuning file, or "" */
} job;

static void job_free(job *j) {
    for (int i = 0; i < CLI_MAX_FILES; i++) free(j->ins[i]);
    vki_picture_free(&j->photo);
    vki_model_destroy(j->model);
    memset(j, 0, sizeof *j);
}

static int read_raw(const char *path, float *dst, size_t count) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "vkinfer: %s: %s\n", path, strerror(errno)); return 0; }
    size_t got = fread(dst, sizeof(float), count, f);
    fclose(f);
    if (got != count) { fprintf(stderr, "vkinfer: %s: short read\n", path); return 0; }
    return 1;
}

static int job_open(const cli *c, const char *path, job *j) {
    memset(j, 0, sizeof *j);
    j->path = path;
    vki_status s = vki_model_load_signature_file(path, c->signature, &j->model);
    if (s) return !cli_fail("loading the model", s);
    vki_model *m = j->model;
    /* --input-shape: the model itself takes the new shapes, so every size below is theirs. */
    if (c->n_input_shapes) {
        s = vki_model_resize_inputs(m, c->input_shapes, c->n_input_shapes);
        if (s) return !cli_fail("resizing the inputs", s);
    }
    j->n_in = vki_model_input_count(m);
    j->n_out = vki_model_output_count(m);
    if (j->n_in > CLI_MAX_FILES || j->n_out > CLI_MAX_FILES) {
        fprintf(stderr, "vkinfer: %s: %d inputs and %d outputs; this tool takes up to %d each\n",
                path, j->n_in, j->n_out, CLI_MAX_FILES);
        return 0;
    }
    j->task = c->task_given ? c->task : vki_task_guess(m);
    for (int i = 0; i < c->n_fp32_ops; i++)
        if (c->fp32_ops[i] >= vki_model_op_count(m)) {
            fprintf(stderr, "vkinfer: --fp32-ops: op %d is past the model's last op, %d (ops are "
                    "numbered as `vkinfer info` lists them)\n", c->fp32_ops[i],
                    vki_model_op_count(m) - 1);
            return 0;
        }
    if (c->n_inputs && c->n_inputs != j->n_in) {
        fprintf(stderr, "vkinfer: %s has %d input%s, %d --input given\n", path, j->n_in,
                j->n_in == 1 ? "" : "s", c->n_inputs);
        return 0;
    }
    uint32_t state = 0x12345678u;    /* the reference runner's seed: tests/data/ref */
    for (int i = 0; i < j->n_in; i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        if (c->n_inputs) {
            char what[320], dims[96];
            shape_text(&t, dims, sizeof dims);
            snprintf(what, sizeof what, "input %d '%.64s' %s", i, t.name, dims);
            if (!check_raw_file(c->inputs[i], what, t.element_count)) return 0;
        }
        j->ins[i] = malloc(t.element_count * sizeof(float) + 1);
        if (!j->ins[i]) return !cli_fail("reading inputs", VKI_ERROR_OUT_OF_MEMORY);
        if (c->n_inputs) {
            if (!read_raw(c->inputs[i], j->ins[i], t.element_count)) return 0;
        } else {
            vki_fill_uniform(j->ins[i], t.element_count, &state, -1.0f, 1.0f);
        }
    }
    if (c->image) {
        vki_tensor_info t;
        vki_model_input_info(m, 0, &t);
        if (t.rank != 4 || t.shape[0] != 1 || (t.shape[3] != 3 && t.shape[3] != 1)) {
            char dims[96];
            shape_text(&t, dims, sizeof dims);
            fprintf(stderr, "vkinfer: --image: %s's input 0 '%s' is %s; a photo needs "
                            "[1,H,W,3] or [1,H,W,1]\n", path, t.name, dims);
            return 0;
        }
        char err[512];
        if (!vki_picture_load(c->image, &j->photo, err, sizeof err)) {
            fprintf(stderr, "vkinfer: --image %s\n", err);
            return 0;
        }
        j->image = (vki_image){.format = VKI_PIXEL_RGB888, .width = j->photo.width,
                               .height = j->photo.height, .data = j->photo.rgb};
        j->transform.letterbox = 1;
        if (c->norm_given) {
            memcpy(j->transform.mean, c->mean, sizeof c->mean);
            memcpy(j->transform.std, c->std, sizeof c->std);
        } else {
            cli_task_range(j->task, j->transform.mean, j->transform.std);
        }
    }
    if (c->check_dir)
        for (int i = 0; i < j->n_out; i++) {
            vki_tensor_info t;
            vki_model_output_info(m, i, &t);
            char file[4096], what[160];
            snprintf(file, sizeof file, "%s/output_%d.f32", c->check_dir, i);
            snprintf(what, sizeof what, "output %d '%.64s'", i, t.name);
            if (!check_raw_file(file, what, t.element_count)) return 0;
        }
    if (c->save_dir && !cli_check_writable_dir(c->save_dir, "--save", 1)) return 0;
    if (c->out && !cli_check_writable_file(c->out, "--out")) return 0;
    if (c->tuning_file) {
        snprintf(j->tuning, sizeof j->tuning, "%s", c->tuning_file);
        if ((c->verb == CLI_TUNE || c->tune) && !cli_check_writable_file(j->tuning, "--tuning-file"))
            return 0;
    } else if (c->cache_dir) {
        snprintf(j->tuning, sizeof j->tuning, "%s/tuning.txt", c->cache_dir);
    }
    return 1;
}

static vki_graph_options graph_options(const cli *c, const job *j, int tune) {
    return (vki_graph_options){
        .precision = c->precision, .memory = c->memory, .wait = c->wait, .profile = c->profile,
        .gpu_only = c->gpu_only,
        .warm_up = c->no_warm_up ? VKI_WARM_UP_OFF : VKI_WARM_UP_AUTO,
        .fp32_ops = c->fp32_ops, .n_fp32_ops = c->n_fp32_ops,
        .tuning_file = j->tuning[0] ? j->tuning : NULL, .tune = tune,
        .progress = tune ? cli_progress : NULL};
}

static vki_status feed(vki_graph *g, const job *j) {
    vki_status s = VKI_OK;
    for (int i = 0; i < j->n_in && !s; i++) {
        if (i == 0 && j->photo.rgb) {
            s = vki_graph_set_input_image(g, 0, &j->image, &j->transform);
            continue;
        }
        vki_tensor_info t;
        vki_model_input_info(j->model, i, &t);
        s = vki_graph_set_input(g, i, j->ins[i], t.element_count * sizeof(float));
    }
    return s;
}

/* Timings of one graph: the first run, the warm-up (at least c->warmup runs and
 * c->warmup_ms, then until steady: vki_warmup), then `runs` timed. The inputs are fed
 * once before; with --with-io again inside every timed run. */
typedef struct timing {
    double first_ms;
    int warmup_runs, steady;
    double warmup_ms;                /* the warm-up runs' summed time */
    vki_sample_stats stats;
} timing;

/* One timed run, the input copy included with --with-io. */
static vki_status timed_run(const cli *c, vki_graph *g, const job *j, double *ms) {
    double start = vki_now_ms();
    vki_status s = c->with_io ? feed(g, j) : VKI_OK;
    if (!s) s = vki_graph_run(g);
    *ms = vki_now_ms() - start;
    return s;
}

/* The first run, then the warm-up. */
static int first_and_warm(const cli *c, vki_graph *g, const job *j, timing *out) {
    vki_status s = feed(g, j);
    if (s) return !cli_fail("feeding inputs", s);
    if ((s = timed_run(c, g, j, &out->first_ms))) return !cli_fail("running", s);
    vki_warmup *w = malloc(sizeof *w);
    if (!w) return !cli_fail("timing", VKI_ERROR_OUT_OF_MEMORY);
    cli_warmup_init(c, w);
    double ms = 0;
    if (c->warmup > 0 || c->warmup_ms > 0)
        do {
            if ((s = timed_run(c, g, j, &ms))) break;
        } while (!vki_warmup_add(w, ms));
    out->warmup_runs = w->runs;
    out->warmup_ms = w->elapsed_ms;
    out->steady = w->steady;
    free(w);
    return s ? !cli_fail("running", s) : 1;
}

/* Times graphs a and b (b may be NULL) `runs` times each after both warmed up. Two
 * graphs go in CLI_COMPARE_ROUNDS alternating rounds (a's share of the runs, then b's),
 * each after CLI_COMPARE_REWARM untimed runs, so that both see the same clock and load
 * and each its own data in the caches, as one graph alone does: interleaved run by run,
 * pose_landmark_full took 1.49 ms a run on an H100, against bench's 1.00 (two graphs'
 * weights and intermediates do not fit the 50 MB L2 together). */
#define CLI_COMPARE_ROUNDS 3
#define CLI_COMPARE_REWARM 5
static int time_graphs(const cli *c, vki_graph *a, vki_graph *b, const job *j, int runs,
                       timing *ta, timing *tb) {
    if (!first_and_warm(c, a, j, ta) || (b && !first_and_warm(c, b, j, tb))) return 0;
    double *ms = malloc(sizeof(double) * 2 * (size_t)runs);
    if (!ms) return !cli_fail("timing", VKI_ERROR_OUT_OF_MEMORY);
    vki_status s = VKI_OK;
    const int rounds = b ? CLI_COMPARE_ROUNDS : 1;
    for (int round = 0, done = 0; round < rounds && !s; round++) {
        const int n = round + 1 < rounds ? runs / rounds : runs - done;
        for (int k = 0; k < (b ? 2 : 1) && !s; k++) {
            vki_graph *g = k ? b : a;
            double *out = ms + (k ? runs : 0) + done, spare;
            /* Another graph ran in between: its inputs again, its caches warm again. */
            if (b) s = feed(g, j);
            for (int r = 0; b && r < CLI_COMPARE_REWARM && !s; r++) s = timed_run(c, g, j, &spare);
            for (int r = 0; r < n && !s; r++) s = timed_run(c, g, j, &out[r]);
        }
        done += n;
    }
    if (s) {
        free(ms);
        return !cli_fail("running", s);
    }
    ta->stats = vki_sample_stats_of(ms, runs);
    if (b) tb->stats = vki_sample_stats_of(ms + runs, runs);
    free(ms);
    return 1;
}

static int time_graph(const cli *c, vki_graph *g, const job *j, int runs, timing *out) {
    return time_graphs(c, g, NULL, j, runs, out, NULL);
}

void cli_warmup_init(const cli *c, vki_warmup *w) {
    vki_warmup_init(w, c->warmup, c->warmup_ms, c->warmup_ms * CLI_WARMUP_MAX_FACTOR,
                    CLI_WARMUP_TOLERANCE);
}

const char *cli_warmup_text(const cli *c, int runs, double ms, int steady, char *buf, size_t n) {
    if (c->warmup_ms > 0)
        snprintf(buf, n, "a warm-up of %d runs in %.2f s, %s", runs, ms / 1e3,
                 steady ? "steady" : "not steady at its time limit");
    else
        snprintf(buf, n, "%d warm-up", c->warmup);
    return buf;
}

static const char *warmup_text(const cli *c, const timing *t, char *buf, size_t n) {
    return cli_warmup_text(c, t->warmup_runs, t->warmup_ms, t->steady, buf, n);
}

static void json_warmup(FILE *f, const timing *t) {
    fprintf(f, "\"warmup_runs\": %d, \"warmup_ms\": ", t->warmup_runs);
    cli_json_number(f, t->warmup_ms);
    fprintf(f, ", \"steady\": %s", t->steady ? "true" : "false");
}

static void json_stats(FILE *f, const vki_sample_stats *st) {
    const char *names[] = {"mean", "std", "median", "p10", "p90", "min", "max"};
    const double values[] = {st->mean, st->std, st->median, st->p10, st->p90, st->min, st->max};
    for (int i = 0; i < 7; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", names[i]);
        cli_json_number(f, values[i]);
    }
}

static const char *device_name(vki_context *ctx, vki_device_info *info) {
    vki_context_device_info(ctx, info);
    return info->name;
}

/* ---- run ------------------------------------------------------------------------------- */

/* The file's ops that run: those not folded at load (vki_model_op_count counts them all). */
static int ops_that_run(const vki_model *m) {
    int n = 0;
    for (int i = 0; i < vki_model_op_count(m); i++) n += vki_model_op_folded(m, i) == 0;
    return n;
}

static void print_shape(FILE *f, const vki_tensor_info *t) {
    char dims[96];
    shape_text(t, dims, sizeof dims);
    fputs(dims, f);
}

/* GPU time of the last run: every dispatch, then the total per kernel and its variants. */
/* A graph with CPU ops: its segments in run order, with the last run's host time of each. */
static void print_segments(const vki_graph *g, const vki_model *m, int json) {
    int n = vki_graph_segment_count(g);
    if (n <= 1) return;
    if (json) printf(", \"segments\": [");
    else printf("partition: %d segments (host time of the last run):\n", n);
    for (int i = 0; i < n; i++) {
        vki_segment_info si;
        if (vki_graph_segment_info(g, i, &si)) break;
        const char *first = si.first_op >= 0 ? vki_model_op_name(m, si.first_op) : "";
        if (json) {
            cli_json_sep(stdout, i);
            printf("{\"on_cpu\": %s, \"ops\": %d, \"first_op\": %d, \"dispatches\": %d, "
                   "\"inputs\": %d, \"outputs\": %d", si.on_cpu ? "true" : "false", si.ops,
                   si.first_op, si.dispatches, si.inputs, si.outputs);
            cli_json_member(stdout, ", \"ms\": ", si.last_ms);
            printf("}");
        } else if (si.on_cpu) {
            printf("  %d CPU  %d op%s from op %d %s, %.3f ms\n", i, si.ops, si.ops == 1 ? "" : "s",
                   si.first_op, first, si.last_ms);
        } else {
            printf("  %d GPU  %d ops from op %d %s, %d dispatches, %d in, %d out, %.3f ms\n", i,
                   si.ops, si.first_op, first, si.dispatches, si.inputs, si.outputs, si.last_ms);
        }
    }
    if (json) printf("]");
}

/* " 12.3 GFLOP/s" for flops in ms, or nothing where the dispatches count none. */
static const char *rate_text(char *buf, size_t n, double flops, double ms) {
    if (flops > 0 && ms > 0) snprintf(buf, n, " %8.1f GFLOP/s", flops / (ms * 1e6));
    else buf[0] = 0;
    return buf;
}

/* The dispatches from `from` on of `kernel` (and of `variant`, unless NULL): their count,
 * GPU ms and floating-point operations. */
static int kernel_sum(const vki_dispatch_profile *p, const double *flops, int from, int n,
                      const char *kernel, const char *variant, double *ms, double *fl) {
    int count = 0;
    *ms = *fl = 0;
    for (int i = from; i < n; i++) {
        if (strcmp(p[i].kernel, kernel)) continue;
        if (variant && (!p[i].variant || strcmp(p[i].variant, variant))) continue;
        *ms += p[i].ms;
        *fl += flops[i];
        count++;
    }
    return count;
}

static void print_profile(const vki_graph *g, const vki_model *m, int json) {
    int n = vki_graph_profile(g, NULL, 0);
    vki_dispatch_profile *p = n > 0 ? calloc((size_t)n, sizeof *p) : NULL;
    double *flops = n > 0 ? calloc((size_t)n, sizeof *flops) : NULL;
    if (!p || !flops) {
        free(p);
        free(flops);
        return;
    }
    vki_graph_profile(g, p, n);
    /* A graph of GPU ops alone lists its dispatches in order; a partitioned one adds its
     * CPU ops, so its entries are not dispatch indices and no rate is given. */
    const int rated = vki_graph_segment_count(g) <= 1;
    double total = 0, total_flops = 0;
    for (int k = 0; k < n; k++) {
        flops[k] = rated ? vki_graph_dispatch_flops(g, k) : 0;
        total += p[k].ms;
        total_flops += flops[k];
    }
    if (json) {
        printf(", \"profile\": [");
        for (int k = 0; k < n; k++) {
            cli_json_sep(stdout, k);
            printf("\n  {\"op\": %d, \"op_name\": ", p[k].op_index);
            cli_json_string(stdout, p[k].op_index >= 0 ? vki_model_op_name(m, p[k].op_index) : "");
            printf(", \"kernel\": ");
            cli_json_string(stdout, p[k].kernel);
            printf(", \"variant\": ");
            cli_json_string(stdout, p[k].variant ? p[k].variant : "");
            printf(", \"grid\": [%u,%u,%u], \"workgroup\": [%u,%u,%u], \"ms\": ", p[k].grid[0],
                   p[k].grid[1], p[k].grid[2], p[k].workgroup[0], p[k].workgroup[1],
                   p[k].workgroup[2]);
            cli_json_number(stdout, p[k].ms);
            cli_json_member(stdout, ", \"flops\": ", flops[k]);
            printf("}");
        }
        cli_json_member(stdout, "], \"gpu_total_ms\": ", total);
        cli_json_member(stdout, ", \"gpu_total_flops\": ", total_flops);
        free(p);
        free(flops);
        return;
    }
    printf("%5s %-24s %-18s %-16s %-16s %-10s %9s\n", "step", "op", "kernel", "variant", "grid",
           "workgroup", "ms");
    for (int k = 0; k < n; k++) {
        char grid[32], wg[32], op[48];
        snprintf(grid, sizeof grid, "%ux%ux%u", p[k].grid[0], p[k].grid[1], p[k].grid[2]);
        snprintf(wg, sizeof wg, "%ux%ux%u", p[k].workgroup[0], p[k].workgroup[1], p[k].workgroup[2]);
        if (p[k].op_index >= 0) snprintf(op, sizeof op, "%d %s", p[k].op_index, vki_model_op_name(m, p[k].op_index));
        else snprintf(op, sizeof op, "-");
        const char *variant = p[k].variant && *p[k].variant ? p[k].variant : "-";
        printf("%5d %-24s %-18s %-16s %-16s %-10s %9.4f\n", k, op, p[k].kernel, variant, grid, wg,
               p[k].ms);
    }
    printf("per kernel:\n");
    char rate[32];
    for (int k = 0; k < n; k++) {
        int seen = 0;
        for (int i = 0; i < k && !seen; i++) seen = !strcmp(p[i].kernel, p[k].kernel);
        if (seen) continue;
        double sum, fl;
        int count = kernel_sum(p, flops, k, n, p[k].kernel, NULL, &sum, &fl);
        printf("  %-18s %4d dispatches %9.3f ms %5.1f%%%s\n", p[k].kernel, count, sum,
               total > 0 ? 100 * sum / total : 0, rate_text(rate, sizeof rate, fl, sum));
        /* Then the kernel's forms the ops chose, each once. */
        for (int v = k; v < n; v++) {
            if (strcmp(p[v].kernel, p[k].kernel) || !p[v].variant || !*p[v].variant) continue;
            int again = 0;
            for (int i = k; i < v && !again; i++)
                again = !strcmp(p[i].kernel, p[k].kernel) && p[i].variant &&
                        !strcmp(p[i].variant, p[v].variant);
            if (again) continue;
            double vsum, vfl;
            int vcount = kernel_sum(p, flops, v, n, p[k].kernel, p[v].variant, &vsum, &vfl);
            printf("    %-16s %4d dispatches %9.3f ms %5.1f%%%s\n", p[v].variant, vcount, vsum,
                   total > 0 ? 100 * vsum / total : 0, rate_text(rate, sizeof rate, vfl, vsum));
        }
    }
    printf("GPU total %.3f ms over %d dispatches", total, n);
    if (total_flops > 0)
        printf(", %.1f MFLOP counted (%.1f GFLOP/s)", total_flops / 1e6,
               total > 0 ? total_flops / (total * 1e6) : 0.0);
    printf("\n");
    free(p);
    free(flops);
}

static int write_raw(const char *dir, int index, const float *data, size_t count) {
    char path[4096];
    snprintf(path, sizeof path, "%s/output_%d.f32", dir, index);
    FILE *f = fopen(path, "wb");
    if (!f) { fprintf(stderr, "vkinfer: %s: %s\n", path, strerror(errno)); return 0; }
    int ok = fwrite(data, sizeof(float), count, f) == count;
    ok = (fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "vkinfer: %s: write failed\n", path);
    return ok;
}

int cli_run(const cli *c) {
    if (c->detector || c->roi_given) return cli_solution(c);
    int rc = 1;
    job j;
    vki_context *ctx = NULL;
    vki_graph *g = NULL;
    float *outs[CLI_MAX_FILES] = {0};
    cli_results res = {0};
    if (!job_open(c, c->models[0], &j)) goto done;
    vki_model *m = j.model;
    if (j.photo.rgb && vki_task_landmark_count(j.task))
        fprintf(stderr, "vkinfer: warning: %s is a %s model, which expects a crop around one %s, "
                "not a whole photo (MediaPipe runs a detector first: --detector MODEL)\n",
                j.path, vki_task_name(j.task), cli_thing_of(j.task));
    vki_status s = cli_context(c, &ctx);
    if (s) { cli_fail("opening the device", s); goto done; }
    vki_device_info dev;
    device_name(ctx, &dev);
    double t0 = vki_now_ms();
    vki_graph_options go = graph_options(c, &j, c->tune);
    if ((s = vki_graph_create(ctx, m, &go, &g))) { cli_fail("building the graph", s); goto done; }
    double build_ms = vki_now_ms() - t0;
    vki_kernel_stats kernels;
    vki_context_kernel_stats(ctx, &kernels);
    timing tm;
    if (!time_graph(c, g, &j, c->runs, &tm)) goto done;
    for (int i = 0; i < j.n_out; i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        outs[i] = malloc(t.element_count * sizeof(float) + 1);
        if (!outs[i]) { cli_fail("reading outputs", VKI_ERROR_OUT_OF_MEMORY); goto done; }
        if ((s = vki_graph_get_output(g, i, outs[i], t.element_count * sizeof(float)))) {
            cli_fail("reading outputs", s);
            goto done;
        }
        if (c->save_dir && !write_raw(c->save_dir, i, outs[i], t.element_count)) goto done;
    }
    vki_tensor_info in0;
    vki_model_input_info(m, 0, &in0);
    res.task = j.task;
    int in_w = in0.rank == 4 ? in0.shape[2] : 1, in_h = in0.rank == 4 ? in0.shape[1] : 1;
    res.letterbox = j.photo.rgb ? vki_letterbox_fit(j.photo.width, j.photo.height, in_w, in_h, 1)
                                : vki_letterbox_fit(in_w, in_h, in_w, in_h, 0);
    if (res.task != VKI_TASK_NONE && !cli_results_decode(c, m, outs, &res)) goto done;
    if (c->out && !cli_results_draw(&res, c->image, c->out)) goto done;

    /* The check, before printing, so that the JSON can carry it. */
    int check_ok = 1;
    double errors[CLI_MAX_FILES] = {0};
    for (int i = 0; c->check_dir && i < j.n_out; i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        float *want = malloc(t.element_count * sizeof(float) + 1);
        char path[4096];
        snprintf(path, sizeof path, "%s/output_%d.f32", c->check_dir, i);
        if (!want || !read_raw(path, want, t.element_count)) { free(want); goto done; }
        errors[i] = vki_relative_error(outs[i], want, t.element_count, NULL);
        check_ok &= errors[i] <= c->tolerance;
        free(want);
    }
    vki_memory_report mem;
    vki_graph_memory(g, &mem);
    vki_tuning_report tuning;
    vki_graph_tuning(g, &tuning);
    if (c->json) {
        printf("{\"model\": ");
        cli_json_string(stdout, j.path);
        printf(", \"device\": ");
        cli_json_string(stdout, dev.name);
        printf(", \"task\": \"%s\", \"image\": ", vki_task_name(res.task));
        if (j.photo.rgb) {
            printf("{\"path\": ");
            cli_json_string(stdout, c->image);
            printf(", \"width\": %d, \"height\": %d, \"mean\": [%g,%g,%g], \"std\": [%g,%g,%g]}",
                   j.photo.width, j.photo.height, j.transform.mean[0], j.transform.mean[1],
                   j.transform.mean[2], j.transform.std[0], j.transform.std[1], j.transform.std[2]);
        } else {
            printf("null");
        }
        printf(", \"outputs\": [");
        for (int i = 0; i < j.n_out; i++) {
            vki_tensor_info t;
            vki_model_output_info(m, i, &t);
            cli_json_sep(stdout, i);
            printf("{\"index\": %d, \"name\": ", i);
            cli_json_string(stdout, t.name);
            printf(", \"shape\": ");
            print_shape(stdout, &t);
            if (c->check_dir) {
                cli_json_member(stdout, ", \"check_error\": ", errors[i]);
            }
            printf("}");
        }
        printf("]");
        if (res.task != VKI_TASK_NONE) cli_results_json(&res);
        printf(", \"dispatches\": %d, \"kernels\": {\"compiled\": %d, \"from_disk\": %d, "
               "\"from_pack\": %d}, \"timings_ms\": {\"build\": ", vki_graph_dispatch_count(g),
               kernels.compiled, kernels.from_disk, kernels.from_pack);
        cli_json_number(stdout, build_ms);
        cli_json_member(stdout, ", \"first_run\": ", tm.first_ms);
        printf(", ");
        json_stats(stdout, &tm.stats);
        printf(", \"runs\": %d, \"warmup\": %d, ", c->runs, c->warmup);
        json_warmup(stdout, &tm);
        printf(", \"with_io\": %s}", c->with_io ? "true" : "false");
        printf(", \"memory_bytes\": {\"weights\": %llu, \"intermediates\": %llu, "
               "\"lower_bound\": %llu, \"io\": %llu, \"staging\": %llu, \"frames\": %llu}",
               (unsigned long long)mem.weights_bytes, (unsigned long long)mem.intermediate_bytes,
               (unsigned long long)mem.lower_bound_bytes, (unsigned long long)mem.io_bytes,
               (unsigned long long)mem.staging_bytes, (unsigned long long)mem.frame_bytes);
        if (c->profile) print_profile(g, m, 1);
        print_segments(g, m, 1);
        if (c->check_dir) printf(", \"check\": %s", check_ok ? "true" : "false");
        printf("}\n");
    } else {
        printf("model %s on %s: %d ops in the file, %d run after folding, %d dispatches, "
               "built in %.1f ms", j.path, dev.name, vki_model_op_count(m), ops_that_run(m),
               vki_graph_dispatch_count(g), build_ms);
        if (kernels.from_pack) printf(" (%d kernels from the pack)", kernels.from_pack);
        printf("\n");
        if (c->tune || tuning.from_file)
            printf("tuning: %d dispatches tunable, %d sizes from %s, %d searched, %d moved%s\n",
                   tuning.dispatches, tuning.from_file, j.tuning[0] ? j.tuning : "no file",
                   tuning.searched, tuning.moved,
                   tuning.moved ? (tuning.kept ? ", tuned sizes kept" : ", table's sizes kept") : "");
        if (j.photo.rgb)
            printf("photo %s %dx%d -> input %dx%d letterboxed, (pixel - %g) / %g\n", c->image,
                   j.photo.width, j.photo.height, in_w, in_h, j.transform.mean[0],
                   j.transform.std[0]);
        for (int i = 0; i < j.n_out; i++) {
            vki_tensor_info t;
            vki_model_output_info(m, i, &t);
            printf("output %d '%s' ", i, t.name);
            print_shape(stdout, &t);
            if (res.task == VKI_TASK_NONE) {
                printf(":");
                for (size_t k = 0; k < t.element_count && k < 6; k++) printf(" %.6g", outs[i][k]);
                if (t.element_count > 6) printf(" ...");
            }
            if (c->check_dir)
                printf("  check: error %.3g %s %.3g %s", errors[i],
                       errors[i] <= c->tolerance ? "<=" : ">", c->tolerance,
                       errors[i] <= c->tolerance ? "ok" : "FAIL");
            printf("\n");
        }
        if (res.task != VKI_TASK_NONE) cli_results_print(&res);
        if (c->out) printf("wrote %s\n", c->out);
        printf("memory: weights %.3f MB, intermediates %.3f MB (%s; lower bound %.3f MB), "
               "I/O tensors %.3f MB, staging %.3f MB", mem.weights_bytes / 1e6,
               mem.intermediate_bytes / 1e6, mem.strategy, mem.lower_bound_bytes / 1e6,
               mem.io_bytes / 1e6, mem.staging_bytes / 1e6);
        if (mem.frame_bytes) printf(", frames %.3f MB", mem.frame_bytes / 1e6);
        printf("\n");
        if (c->profile) print_profile(g, m, 0);
        char wt[96];
        printf("latency: median %.3f ms, min %.3f, p10 %.3f, p90 %.3f, max %.3f, mean %.3f, "
               "std %.3f (%d run%s after %s; first run %.1f ms)\n", tm.stats.median,
               tm.stats.min, tm.stats.p10, tm.stats.p90, tm.stats.max, tm.stats.mean,
               tm.stats.std, c->runs, c->runs == 1 ? "" : "s", warmup_text(c, &tm, wt, sizeof wt),
               tm.first_ms);
        print_segments(g, m, 0);
    }
    rc = check_ok ? 0 : 1;
done:
    for (int i = 0; i < CLI_MAX_FILES; i++) free(outs[i]);
    cli_results_free(&res);
    vki_graph_destroy(g);
    vki_context_destroy(ctx);
    job_free(&j);
    return rc;
}

/* ---- bench ----------------------------------------------------------------------------- */

typedef struct bench_row {
    int ok;
    double cold_ms, cached_ms;
    timing tm;
    int kernels_compiled;
} bench_row;

/* Cold: a context of its own with no disk cache, so every kernel is compiled; cached: the
 * same graph built again in that context, its kernels and pipelines kept there, as an
 * application sees when it builds a second graph. The runs use the second graph. */
static int bench_one(const cli *c, const char *path, vki_device_info *dev, bench_row *row) {
    job j;
    vki_context *ctx = NULL;
    vki_graph *g = NULL;
    int ok = 0;
    if (!job_open(c, path, &j)) goto done;
    vki_context_options o = c->ctx_opts;
    o.cache_dir = NULL;
    vki_status s = vki_context_create(&o, &ctx);
    if (s) { cli_fail("opening the device", s); goto done; }
    device_name(ctx, dev);
    vki_graph_options go = graph_options(c, &j, c->tune);
    double t0 = vki_now_ms();
    if ((s = vki_graph_create(ctx, j.model, &go, &g))) { cli_fail("building the graph", s); goto done; }
    row->cold_ms = vki_now_ms() - t0;
    vki_kernel_stats ks;
    vki_context_kernel_stats(ctx, &ks);
    row->kernels_compiled = ks.compiled;
    vki_graph_destroy(g);
    g = NULL;
    go.tune = 0;                      /* the cold build tuned already; the sizes are in the file */
    t0 = vki_now_ms();
    if ((s = vki_graph_create(ctx, j.model, &go, &g))) { cli_fail("building the graph", s); goto done; }
    row->cached_ms = vki_now_ms() - t0;
    ok = time_graph(c, g, &j, c->runs, &row->tm);
done:
    vki_graph_destroy(g);
    vki_context_destroy(ctx);
    job_free(&j);
    return row->ok = ok;
}

int cli_bench(const cli *c) {
    bench_row rows[CLI_MAX_MODELS] = {{0}};
    vki_device_info dev;
    memset(&dev, 0, sizeof dev);
    int failed = 0;
    if (c->csv)
        printf("model,device,build_cold_ms,build_cached_ms,first_run_ms,mean_ms,std_ms,median_ms,"
               "p10_ms,p90_ms,min_ms,max_ms,runs,warmup,with_io,warmup_runs,warmup_ms,steady\n");
    else if (!c->json)
        printf("%-40s %9s %9s %9s %8s %7s %8s %8s %8s %8s  %s\n", "model (ms)", "build", "cached",
               "1st run", "mean", "std", "median", "p10", "p90", "min", "warm-up");
    for (int i = 0; i < c->n_models; i++) {
        bench_row *r = &rows[i];
        if (!bench_one(c, c->models[i], &dev, r)) { failed++; continue; }
        const vki_sample_stats *st = &r->tm.stats;
        if (c->csv) {
            printf("\"%s\",\"%s\",%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%d,%d,%d,"
                   "%.1f,%d\n", c->models[i], dev.name, r->cold_ms, r->cached_ms, r->tm.first_ms,
                   st->mean, st->std, st->median, st->p10, st->p90, st->min, st->max, c->runs,
                   c->warmup, c->with_io, r->tm.warmup_runs, r->tm.warmup_ms, r->tm.steady);
        } else if (!c->json) {
            const char *base = strrchr(c->models[i], '/');
            printf("%-40.40s %9.1f %9.1f %9.2f %8.3f %7.3f %8.3f %8.3f %8.3f %8.3f  %d runs, "
                   "%.2f s%s\n", base ? base + 1 : c->models[i], r->cold_ms, r->cached_ms,
                   r->tm.first_ms, st->mean, st->std, st->median, st->p10, st->p90, st->min,
                   r->tm.warmup_runs, r->tm.warmup_ms / 1e3,
                   c->warmup_ms > 0 && !r->tm.steady ? ", not steady" : "");
        }
        fflush(stdout);
    }
    if (c->json) {
        printf("{\"device\": ");
        cli_json_string(stdout, dev.name);
        printf(", \"runs\": %d, \"warmup\": %d, \"warmup_min_ms\": ", c->runs, c->warmup);
        cli_json_number(stdout, c->warmup_ms);
        printf(", \"with_io\": %s, \"models\": [", c->with_io ? "true" : "false");
        for (int i = 0, k = 0; i < c->n_models; i++) {
            const bench_row *r = &rows[i];
            cli_json_sep(stdout, k++);
            printf("\n  {\"model\": ");
            cli_json_string(stdout, c->models[i]);
            if (!r->ok) {
                printf(", \"error\": true}");
                continue;
            }
            cli_json_member(stdout, ", \"build_cold_ms\": ", r->cold_ms);
            printf(", \"kernels_compiled\": %d, \"build_cached_ms\": ", r->kernels_compiled);
            cli_json_number(stdout, r->cached_ms);
            cli_json_member(stdout, ", \"first_run_ms\": ", r->tm.first_ms);
            printf(", ");
            json_warmup(stdout, &r->tm);
            printf(", \"latency_ms\": {");
            json_stats(stdout, &r->tm.stats);
            printf("}}");
        }
        printf("\n]}\n");
    } else if (!c->csv) {
        char wt[96];
        if (c->warmup_ms > 0)
            snprintf(wt, sizeof wt, "a warm-up of at least %d runs and %.2f s, then until steady",
                     c->warmup, c->warmup_ms / 1e3);
        else
            snprintf(wt, sizeof wt, "%d warm-up", c->warmup);
        printf("%d run%s after %s on %s; %s; build: cold in a fresh context, then cached "
               "(kernels kept in the context)\n", c->runs, c->runs == 1 ? "" : "s", wt,
               dev.name, c->with_io ? "input copy timed" : "input copy not timed");
    }
    return failed ? 1 : 0;
}

/* ---- tune ------------------------------------------------------------------------------ */

/* With --export-table: the tuned graphs of every model on one context, then the rows. */
static int export_table(const cli *c, vki_graph *const *graphs, int n) {
    if (!n) {
        fprintf(stderr, "vkinfer: %s: no model was tuned; nothing to export\n", c->export_table);
        return 0;
    }
    if (!c->json) printf("timing each bucket's candidate sizes on %d models...\n", n);
    fflush(stdout);
    vki_table_export_options o = {.progress = cli_progress, .progress_user = (void *)c->export_table};
    vki_status s = vki_export_workgroup_table(graphs, n, &o, c->export_table);
    if (s) return !cli_fail("exporting the work-group table", s);
    if (!c->json) printf("work-group table rows written to %s\n", c->export_table);
    return 1;
}

int cli_tune(const cli *c) {
    int failed = 0, n_kept = 0;
    vki_graph *kept[CLI_MAX_MODELS];
    vki_context *shared = NULL;          /* --export-table: one context for every model */
    if (c->export_table) {
        vki_status s = cli_context(c, &shared);
        if (s) return cli_fail("opening the device", s);
    }
    if (c->json) printf("{\"models\": [");
    for (int i = 0; i < c->n_models; i++) {
        job j;
        vki_context *ctx = shared;
        vki_graph *g = NULL, *table = NULL;
        int ok = 0;
        timing before = {0}, after = {0};
        vki_tuning_report rep = {0};
        if (!job_open(c, c->models[i], &j)) goto next;
        vki_status s = shared ? VKI_OK : cli_context(c, &ctx);
        if (s) { cli_fail("opening the device", s); goto next; }
        /* Before: the family table's sizes alone; after: tuned. Both graphs are timed
         * together once tuning is over, in alternating rounds after both warmed up, so
         * the GPU's clock and the machine's load are the same for both (timed on either
         * side of a tuning sweep, the clock had fallen: "before" 0.189 ms, "after" with
         * the same sizes 0.614 ms on an H100). */
        vki_graph_options go = graph_options(c, &j, 0);
        go.tuning_file = NULL;
        if ((s = vki_graph_create(ctx, j.model, &go, &table))) {
            cli_fail("building the graph", s);
            goto next;
        }
        if (!c->json) {
            printf("%s: tuning...\n", j.path);
            fflush(stdout);
        }
        go = graph_options(c, &j, 1);
        go.progress_user = (void *)j.path;
        if ((s = vki_graph_create(ctx, j.model, &go, &g))) { cli_fail("tuning", s); goto next; }
        vki_graph_tuning(g, &rep);
        if (!time_graphs(c, table, g, &j, c->runs, &before, &after)) goto next;
        ok = 1;
    next:
        if (c->json) {
            cli_json_sep(stdout, i);
            printf("\n  {\"model\": ");
            cli_json_string(stdout, c->models[i]);
            if (ok) {
                printf(", \"tuning_file\": ");
                if (j.tuning[0]) cli_json_string(stdout, j.tuning);
                else printf("null");
                printf(", \"dispatches\": %d, \"from_file\": %d, \"searched\": %d, \"moved\": %d, "
                       "\"kept\": %s, \"before_ms\": ", rep.dispatches, rep.from_file,
                       rep.searched, rep.moved, rep.kept ? "true" : "false");
                cli_json_number(stdout, before.stats.median);
                cli_json_member(stdout, ", \"after_ms\": ", after.stats.median);
                printf("}");
            } else {
                printf(", \"error\": true}");
            }
        } else if (ok) {
            char wt[96];
            printf("%s: %d dispatches tunable, %d sizes from the file, %d searched, %d moved%s\n"
                   "%s: latency %.3f ms -> %.3f ms (%+.1f%%; medians of %d runs each, in 3 "
                   "rounds of each in turn, after %s)\n",
                   j.path, rep.dispatches, rep.from_file, rep.searched, rep.moved,
                   rep.moved ? (rep.kept ? "; tuned sizes kept" : "; the whole graph was not "
                                "faster with them, table's sizes kept") : "",
                   j.path, before.stats.median, after.stats.median,
                   before.stats.median > 0
                       ? 100 * (after.stats.median - before.stats.median) / before.stats.median
                       : 0.0,
                   c->runs, warmup_text(c, &after, wt, sizeof wt));
            if (j.tuning[0]) printf("%s: sizes saved in %s\n", j.path, j.tuning);
            else printf("%s: sizes not saved (no cache directory; --tuning-file FILE keeps them)\n", j.path);
        }
        failed += !ok;
        vki_graph_destroy(table);
        if (ok && shared) kept[n_kept++] = g;
        else vki_graph_destroy(g);
        if (!shared) vki_context_destroy(ctx);
        job_free(&j);
    }
    if (c->json) printf("\n]");
    if (shared) {
        int exported = export_table(c, kept, n_kept);
        failed += !exported;
        if (c->json) {
            printf(", \"export_table\": ");
            if (exported) cli_json_string(stdout, c->export_table);
            else printf("null");
        }
        for (int i = 0; i < n_kept; i++) vki_graph_destroy(kept[i]);
        vki_context_destroy(shared);
    }
    if (c->json) printf("}\n");
    return failed ? 1 : 0;
}

/* ---- calibrate ------------------------------------------------------------------------- */

/* Op numbers as ranges ("2-83,85"). A range runs on over ops folded at load: naming one
 * in --fp32-ops changes nothing, and the line stays short. */
static int folded_between(const vki_model *m, int a, int b) {
    for (int i = a + 1; i < b; i++)
        if (vki_model_op_folded(m, i) != 1) return 0;
    return 1;
}

static void print_ranges(FILE *f, const vki_model *m, const int *ops, int n) {
    for (int i = 0; i < n;) {
        int k = i;
        while (k + 1 < n && ops[k + 1] > ops[k] && folded_between(m, ops[k], ops[k + 1])) k++;
        fprintf(f, i ? ",%d" : "%d", ops[i]);
        if (k > i) fprintf(f, "-%d", ops[k]);
        i = k + 1;
    }
}

static int latency_of(const cli *c, vki_context *ctx, const job *j, vki_precision p,
                      const int *ops, int n_ops, double *ms) {
    vki_graph_options go = graph_options(c, j, 0);
    go.precision = p;
    go.fp32_ops = ops;
    go.n_fp32_ops = n_ops;
    vki_graph *g;
    vki_status s = vki_graph_create(ctx, j->model, &go, &g);
    if (s) return !cli_fail("building the graph", s);
    timing tm;
    int ok = time_graph(c, g, j, c->runs, &tm);
    vki_graph_destroy(g);
    *ms = tm.stats.median;
    return ok;
}

int cli_calibrate(const cli *c) {
    int rc = 1;
    job j;
    vki_context *ctx = NULL;
    int *ops = NULL;
    if (!job_open(c, c->models[0], &j)) goto done;
    vki_status s = cli_context(c, &ctx);
    if (s) { cli_fail("opening the device", s); goto done; }
    int n_ops = vki_model_op_count(j.model), n_run = ops_that_run(j.model), kept = 0;
    ops = malloc(sizeof(int) * (size_t)(n_ops ? n_ops : 1));
    if (!ops) { cli_fail("calibrating", VKI_ERROR_OUT_OF_MEMORY); goto done; }
    vki_precision p = c->precision == VKI_PRECISION_FP16_STORAGE ? VKI_PRECISION_FP16_STORAGE
                                                                : VKI_PRECISION_FP16;
    vki_calibration_options o = {.precision = p, .tolerance = c->tolerance,
                                 .progress = cli_progress};
    double t0 = vki_now_ms();
    s = vki_calibrate_fp32_ops(ctx, j.model, (const float *const *)j.ins, &o, ops, n_ops, &kept);
    if (s) { cli_fail("calibrating", s); goto done; }
    double cal_s = (vki_now_ms() - t0) / 1e3;
    double fp32_ms, fp16_ms, mixed_ms;
    if (!latency_of(c, ctx, &j, VKI_PRECISION_FP32, NULL, 0, &fp32_ms) ||
        !latency_of(c, ctx, &j, p, NULL, 0, &fp16_ms) ||
        !latency_of(c, ctx, &j, p, ops, kept, &mixed_ms))
        goto done;
    const char *pname = p == VKI_PRECISION_FP16 ? "fp16" : "fp16-storage";
    if (c->json) {
        printf("{\"model\": ");
        cli_json_string(stdout, j.path);
        printf(", \"precision\": \"%s\", \"tolerance\": ", pname);
        cli_json_number(stdout, c->tolerance);
        printf(", \"ops\": %d, \"ops_run\": %d, \"fp32_ops\": \"", n_ops, n_run);
        print_ranges(stdout, j.model, ops, kept);
        printf("\", \"kept_fp32\": %d, \"seconds\": ", kept);
        cli_json_number(stdout, cal_s);
        cli_json_member(stdout, ", \"latency_ms\": {\"fp32\": ", fp32_ms);
        printf(", \"%s\": ", pname);
        cli_json_number(stdout, fp16_ms);
        cli_json_member(stdout, ", \"calibrated\": ", mixed_ms);
        printf("}}\n");
    } else {
        printf("%s: %d of the %d ops that run (%d in the file) must stay fp32 for error <= "
               "%.3g against fp32 (%.1f s)\n", j.path, kept, n_run, n_ops, c->tolerance, cal_s);
        if (kept) {
            printf("--fp32-ops ");
            print_ranges(stdout, j.model, ops, kept);
            printf("\n");
        }
        printf("latency (median of %d): fp32 %.3f ms, all %s %.3f ms, calibrated %.3f ms\n",
               c->runs, fp32_ms, pname, fp16_ms, mixed_ms);
    }
    rc = 0;
done:
    free(ops);
    vki_context_destroy(ctx);
    job_free(&j);
    return rc;
}
