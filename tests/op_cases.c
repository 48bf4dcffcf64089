/* op_cases.c: the case list, the table of tables and the runner. */
#include "op_cases.h"
#include "status.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/logging.h>
#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One entry macro per family, so that each table carries its family's name. */
#define OP_TABLE_ENTRY_eltwise_(s, n) {"eltwise", #s, #n, op_cases_##s##__##n},
#define OP_TABLE_ENTRY_conv_(s, n) {"conv", #s, #n, op_cases_##s##__##n},
#define OP_TABLE_ENTRY_layout_(s, n) {"layout", #s, #n, op_cases_##s##__##n},
#define OP_TABLE_ENTRY_spatial_(s, n) {"spatial", #s, #n, op_cases_##s##__##n},
#define OP_TABLE_ENTRY_tconv_(s, n) {"tconv", #s, #n, op_cases_##s##__##n},
#define OP_TABLE_ENTRY_general_(s, n) {"general", #s, #n, op_cases_##s##__##n},
#define OP_FAMILY_ENTRIES_(family, tables) tables(OP_TABLE_ENTRY_##family##_)

const op_table op_tables[] = {OP_CASE_FAMILIES(OP_FAMILY_ENTRIES_)};
const int op_table_count = (int)(sizeof op_tables / sizeof op_tables[0]);

op_case *op_case_add(op_case_list *l, vki_op_code op, op_case_builder build, uint32_t seed,
                     double tol) {
    cr_assert(vki_grow((void **)&l->cases, &l->cap, l->n + 1, sizeof *l->cases));
    op_case *c = &l->cases[l->n++];
    memset(c, 0, sizeof *c);
    c->op = op;
    c->build = build;
    c->seed = seed;
    c->tol = tol;
    c->fp16_tol = harness_fp16_tolerance(tol);
    return c;
}

void op_case_label(op_case *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->label, sizeof c->label, fmt, ap);
    va_end(ap);
}

void op_case_list_free(op_case_list *l) {
    free(l->cases);
    memset(l, 0, sizeof *l);
}

void op_case_shape(char *buf, size_t size, size_t *len, int rank, const int *dims) {
    for (int i = 0; i <= rank && *len < size; i++) {
        const char *sep = i == 0 ? "[" : ",";
        if (i == rank) *len += (size_t)snprintf(buf + *len, size - *len, "%s]", rank ? "" : "[");
        else *len += (size_t)snprintf(buf + *len, size - *len, "%s%d", sep, dims[i]);
    }
    if (*len >= size) *len = size - 1;
}

const char *op_case_pair(char *buf, size_t size, const char *prefix, int y, int x) {
    if (y == x) snprintf(buf, size, "%s%d", prefix, y);
    else snprintf(buf, size, "%s%dx%d", prefix, y, x);
    return buf;
}

const char *op_case_activation(vki_activation act) {
    static _Thread_local char name[32];
    if (act == VKI_ACT_NONE) return "";
    snprintf(name, sizeof name, "%s", vki_activation_name(act));
    for (char *p = name; *p; p++) *p = (char)tolower((unsigned char)*p);
    return name;
}

static void format_errors(char *buf, size_t size, const harness_result *r) {
    size_t len = 0;
    buf[0] = '\0';
    for (int p = 0; p < HARNESS_N_PRECISIONS && len < size; p++) {
        if (r->error[p] < 0) continue;
        len += (size_t)snprintf(buf + len, size - len, "%s%s %.2g", len ? ", " : "",
                                harness_precision_name(p), r->error[p]);
    }
}

/* ---- one kernel cache per run ------------------------------------------------------------ */

/* Criterion runs every test in a process of its own, and each case builds three graphs,
 * so the same kernel (the same GLSL text: I/O conversions, the shapes several tables
 * share, kernels the fp16 precisions have in common) would be compiled many times over.
 * Unless VKI_CACHE_DIR is set (even empty, which turns caching off), the runner points it
 * at a new directory for the run that the test processes share, and removes it at the
 * end: every kernel is still compiled once per run, and loaded, checked, from the cache
 * after that. */
static char run_cache[512];

ReportHook(PRE_ALL)(struct criterion_test_set *tests) {
    (void)tests;
    if (getenv("VKI_CACHE_DIR")) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(run_cache, sizeof run_cache, "%s/vkinfer-op-cases-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(run_cache) || setenv("VKI_CACHE_DIR", run_cache, 1) != 0) run_cache[0] = '\0';
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats) {
    (void)stats;
    if (!run_cache[0]) return;
    DIR *d = opendir(run_cache);
    if (d) {
        char path[1024];
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            snprintf(path, sizeof path, "%s/%s", run_cache, e->d_name);
            remove(path);
        }
        closedir(d);
    }
    remove(run_cache);
    unsetenv("VKI_CACHE_DIR");
    run_cache[0] = '\0';
}

/* ---- the runner --------------------------------------------------------------------------- */

/* A case that crashes the process names itself on stderr before the signal's previous
 * handler (the default, or a sanitizer's) takes over: returning re-runs the faulting
 * instruction, abort() raises again. */
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_CRASH_SIGNALS (int)(sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction crash_previous[N_CRASH_SIGNALS];
static char crash_message[256];
static size_t crash_length;

static void on_crash(int sig) {
    if (crash_length && write(STDERR_FILENO, crash_message, crash_length) < 0) crash_length = 0;
    for (int i = 0; i < N_CRASH_SIGNALS; i++)
        if (crash_signals[i] == sig) sigaction(sig, &crash_previous[i], NULL);
}

static void crash_handlers(int install) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < N_CRASH_SIGNALS; i++) {
        if (install) sigaction(crash_signals[i], &sa, &crash_previous[i]);
        else sigaction(crash_signals[i], &crash_previous[i], NULL);
    }
}

void op_table_run(op_table_generator generate, const char *suite, const char *name) {
    op_case_list l = {0};
    generate(&l);
    const char *filter = getenv("VKI_OP_CASES");
    /* VKI_OP_CASES_EVERY=N[:K]: cases K, K+N, K+2N, ... of each table (K = 0 unless
     * given), for a slow device, or to split the cases between two slow runs. */
    const char *every_env = getenv("VKI_OP_CASES_EVERY");
    int every = 1, offset = 0;
    if (every_env && *every_env) {
        char *end;
        every = (int)strtol(every_env, &end, 10);
        if (*end == ':') offset = (int)strtol(end + 1, &end, 10);
        cr_assert(!*end && every >= 1 && offset >= 0 && offset < every,
                  "VKI_OP_CASES_EVERY=%s: need N or N:K with N >= 1 and 0 <= K < N", every_env);
    }
    int run = 0, failed = 0;
    crash_handlers(1);
    for (int i = 0; i < l.n; i++) {
        const op_case *c = &l.cases[i];
        if (i % every != offset) continue;
        if (filter && *filter && !strstr(c->label, filter)) continue;
        run++;
        int n = snprintf(crash_message, sizeof crash_message, "%s/%s case %d: %s (seed %u) "
                         "crashed\n", suite, name, i, c->label, c->seed);
        crash_length = n < 0 ? 0 : strlen(crash_message);
        vki_model *m = c->build(c);
        cr_assert(m, "%s: the builder returned no model", c->label);
        harness_spec spec = {.seed = c->seed, .tol = c->tol, .fp16_tol = c->fp16_tol,
                             .precisions = HARNESS_ALL_PRECISIONS, .dispatches = c->dispatches,
                             .env_name = c->env_name, .env_value = c->env_value,
                             .fp16_step = c->fp16_step};
        harness_result r;
        int ok = harness_compare(m, &spec, &r);
        vki_model_destroy(m);
        crash_length = 0;
        char errors[128];
        format_errors(errors, sizeof errors, &r);
        if (ok) {
            cr_log_info("%s/%s case %d: %s: %s", suite, name, i, c->label, errors);
        } else {
            failed++;
            cr_log_error("%s/%s case %d: %s (seed %u) FAILED: %s%s%s", suite, name, i, c->label,
                         c->seed, r.message, *errors ? "; relative errors " : "", errors);
        }
    }
    crash_handlers(0);
    cr_log_info("%s/%s: %d cases run, %d failed", suite, name, run, failed);
    int total = l.n;
    op_case_list_free(&l);
    cr_assert_eq(failed, 0, "%s/%s: %d of %d cases failed (their labels are logged above)",
                 suite, name, failed, run);
    /* A table that ran nothing must not pass: the generator made no case, or the loop
     * skipped some. Without a label filter every case of the split runs; a split that
     * holds none of a small table's cases is a skip, not a pass. */
    cr_assert_gt(total, 0, "%s/%s: the generator made no case", suite, name);
    if (!(filter && *filter)) {
        int selected = total > offset ? (total - offset + every - 1) / every : 0;
        cr_assert_eq(run, selected, "%s/%s: %d of the %d cases of split %d:%d ran", suite, name,
                     run, selected, every, offset);
        if (run == 0)
            cr_skip_test("%s/%s: its %d cases all fall outside split %d:%d", suite, name, total,
                         every, offset);
    } else if (run == 0) {
        cr_skip_test("%s/%s: no case label contains '%s'", suite, name, filter);
    }
}
