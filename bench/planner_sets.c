/* planner_sets.c: the memory planner on lifetime sets (the files of tests/data/plan, written by
 * tests/dump_lifetimes): per set, the tensor count, the lower bound, every strategy's total in
 * bytes and as a multiple of the bound, and the planning time of BEST and of the exact search
 * for a plan at the bound (median and min-max of 21 runs after 3 warm-ups).
 * Usage: planner_sets SET.txt... */
#include "../planner/internal.h"
#include "../tuner/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARMUPS = 3, RUNS = 21 };

/* A set file: a '#' header line ending in "alignment N", then "bytes first last" per tensor.
 * Returns the tensor count (*t malloc'ed), or -1. */
static int read_set(const char *path, vki_plan_tensor **t, uint64_t *alignment) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    *alignment = 1;
    *t = NULL;
    int n = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            const char *a = strstr(line, "alignment ");
            if (a) *alignment = strtoull(a + 10, NULL, 10);
            continue;
        }
        unsigned long long size;
        int first, last;
        if (sscanf(line, "%llu %d %d", &size, &first, &last) != 3) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            vki_plan_tensor *grown = realloc(*t, sizeof **t * (size_t)cap);
            if (!grown) { free(*t); fclose(f); return -1; }
            *t = grown;
        }
        (*t)[n++] = (vki_plan_tensor){size, first, last};
    }
    fclose(f);
    return n;
}

/* Median and spread of RUNS timings of one planning call, after WARMUPS. */
typedef struct timed { vki_sample_stats stats; int failed; } timed;

static timed time_best(const vki_plan_tensor *t, int n, const vki_plan_options *o) {
    double ms[RUNS];
    timed r = {0};
    for (int k = 0; k < WARMUPS + RUNS; k++) {
        vki_plan p;
        double start = vki_now_ms();
        if (vki_plan_make(t, n, VKI_PLAN_BEST, o, &p)) r.failed = 1;
        if (k >= WARMUPS) ms[k - WARMUPS] = vki_now_ms() - start;
        vki_plan_free(&p);
    }
    r.stats = vki_sample_stats_of(ms, RUNS);
    return r;
}

static timed time_exact(const vki_plan_tensor *t, int n, const vki_plan_options *o, int *outcome) {
    double ms[RUNS];
    timed r = {0};
    uint64_t *offsets = malloc(sizeof *offsets * (size_t)(n ? n : 1)), total;
    if (!offsets) { r.failed = 1; return r; }
    for (int k = 0; k < WARMUPS + RUNS; k++) {
        double start = vki_now_ms();
        if (vki_plan_bound_search(t, n, o->alignment, VKI_PLAN_DEFAULT_BOUND_NODES,
                                  VKI_PLAN_DEFAULT_BOUND_TIME_MS, offsets, &total, outcome)) r.failed = 1;
        if (k >= WARMUPS) ms[k - WARMUPS] = vki_now_ms() - start;
    }
    free(offsets);
    r.stats = vki_sample_stats_of(ms, RUNS);
    return r;
}

int main(int argc, char **argv) {
    static const vki_plan_strategy shown[] = {
        VKI_PLAN_NAIVE, VKI_PLAN_GREEDY_BY_SIZE, VKI_PLAN_GREEDY_BY_BREADTH, VKI_PLAN_MIN_COST_FLOW,
        VKI_PLAN_ARENA, VKI_PLAN_BEST, VKI_PLAN_OPTIMAL};
    if (argc < 2) {
        fprintf(stderr, "usage: planner_sets SET.txt...\n");
        return 2;
    }
    int failed = 0;
    for (int a = 1; a < argc; a++) {
        vki_plan_tensor *t;
        uint64_t alignment;
        int n = read_set(argv[a], &t, &alignment);
        if (n < 0) {
            fprintf(stderr, "planner_sets: cannot read %s\n", argv[a]);
            failed = 1;
            continue;
        }
        const char *base = strrchr(argv[a], '/');
        vki_plan_options o = {.alignment = alignment};
        uint64_t bound = vki_plan_lower_bound(t, n);
        printf("%s: %d tensors, alignment %llu, lower bound %llu\n", base ? base + 1 : argv[a], n,
               (unsigned long long)alignment, (unsigned long long)bound);
        for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++) {
            vki_plan p;
            if (vki_plan_make(t, n, shown[k], &o, &p) || !vki_plan_check(t, n, &o, &p, NULL, 0)) {
                printf("  %-17s failed\n", vki_plan_strategy_name(shown[k]));
                failed = 1;
                continue;
            }
            printf("  %-17s %11llu  x%.4f", vki_plan_strategy_name(shown[k]),
                   (unsigned long long)p.total, bound ? (double)p.total / (double)bound : 1.0);
            if (shown[k] == VKI_PLAN_BEST) printf("  (%s)", vki_plan_strategy_name(p.strategy));
            if (shown[k] == VKI_PLAN_BEST || shown[k] == VKI_PLAN_OPTIMAL)
                printf("%s", p.proven_optimal ? "  proven optimal" : "");
            printf("\n");
            vki_plan_free(&p);
        }
        int outcome = VKI_PLAN_BOUND_UNKNOWN;
        timed best = time_best(t, n, &o), exact = time_exact(t, n, &o, &outcome);
        printf("  time best  %8.3f ms  (%.3f-%.3f)\n", best.stats.median, best.stats.min,
               best.stats.max);
        printf("  time exact %8.3f ms  (%.3f-%.3f)  %s\n", exact.stats.median, exact.stats.min,
               exact.stats.max,
               outcome == VKI_PLAN_BOUND_REACHED      ? "bound reached"
               : outcome == VKI_PLAN_BOUND_INFEASIBLE ? "bound proven infeasible"
                                                      : "budget ran out");
        failed |= best.failed | exact.failed;
        free(t);
    }
    return failed;
}
