/* test_planner.c: the memory planner alone (pure C, no device): the paper's Figure 5 example,
 * every strategy on randomised lifetimes through the checker, OPTIMAL and the search for a plan
 * at the bound against a test-only brute force, BEST on the MediaPipe lifetime sets of
 * tests/data/plan, the checker's own rejections, edge cases, and a timing print. */
#include "../planner/internal.h"
#include "../planner/planner.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const vki_plan_strategy all_strategies[] = {
    VKI_PLAN_NAIVE, VKI_PLAN_GREEDY_BY_SIZE, VKI_PLAN_GREEDY_BY_BREADTH, VKI_PLAN_MIN_COST_FLOW,
    VKI_PLAN_ARENA, VKI_PLAN_OPTIMAL,        VKI_PLAN_BEST,
};
#define N_STRATEGIES ((int)(sizeof all_strategies / sizeof all_strategies[0]))

static const vki_plan_strategy fast_strategies[] = {
    VKI_PLAN_GREEDY_BY_SIZE, VKI_PLAN_GREEDY_BY_BREADTH, VKI_PLAN_MIN_COST_FLOW, VKI_PLAN_ARENA};

/* 64 random bits from the one generator (tuner/stats.h). */
static uint64_t next64(uint32_t *rng) {
    uint64_t hi = vki_xorshift32(rng);
    return hi << 32 | vki_xorshift32(rng);
}

static uint64_t below(uint32_t *rng, uint64_t n) { return next64(rng) % n; }

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Plans, checks, and returns the plan (caller frees). */
static vki_plan plan_checked(const vki_plan_tensor *t, int n, vki_plan_strategy s,
                             const vki_plan_options *o) {
    vki_plan p;
    cr_assert_eq(vki_plan_make(t, n, s, o, &p), 0, "%s failed on %d tensors",
                 vki_plan_strategy_name(s), n);
    char why[256];
    cr_assert(vki_plan_check(t, n, o, &p, why, sizeof why), "%s (n=%d, align=%llu): %s",
              vki_plan_strategy_name(s), n, (unsigned long long)(o ? o->alignment : 1), why);
    cr_assert_leq(p.lower_bound, p.total, "%s: total below the lower bound", vki_plan_strategy_name(s));
    return p;
}

/* ---- Figure 5 of Lee et al. 2019 --------------------------------------------------------- */

/* Op k writes tensor k; op1 reads t0, op2 and op3 read t1, op4 reads t2 and t3, op5 reads t4. */
static const vki_plan_tensor figure5[] = {
    {32, 0, 1}, {8, 1, 3}, {32, 2, 4}, {8, 3, 4}, {64, 4, 5},
};

Test(planner, figure5_greedy_by_size_is_104) {
    vki_plan_options o = {.alignment = 1};
    vki_plan p = plan_checked(figure5, 5, VKI_PLAN_GREEDY_BY_SIZE, &o);
    cr_assert_eq(p.total, 104, "greedy_by_size total %llu", (unsigned long long)p.total);
    cr_assert_eq(p.n_objects, 3);
    vki_plan_free(&p);
}

Test(planner, figure5_every_strategy) {
    vki_plan_options o = {.alignment = 1};
    for (int k = 0; k < N_STRATEGIES; k++) {
        vki_plan p = plan_checked(figure5, 5, all_strategies[k], &o);
        printf("figure5 %-17s total %3llu  objects %d  lower bound %llu%s%s%s\n",
               vki_plan_strategy_name(all_strategies[k]), (unsigned long long)p.total, p.n_objects,
               (unsigned long long)p.lower_bound,
               all_strategies[k] == VKI_PLAN_OPTIMAL && p.proven_optimal ? "  (proven optimal)" : "",
               all_strategies[k] == VKI_PLAN_BEST ? "  winner: " : "",
               all_strategies[k] == VKI_PLAN_BEST ? vki_plan_strategy_name(p.strategy) : "");
        cr_assert_eq(p.lower_bound, 104);
        if (all_strategies[k] == VKI_PLAN_NAIVE) cr_assert_eq(p.total, 144);
        if (all_strategies[k] == VKI_PLAN_OPTIMAL) {
            cr_assert_eq(p.total, 104);
            cr_assert(p.proven_optimal);
        }
        vki_plan_free(&p);
    }
}

/* ---- randomised sets ------------------------------------------------------------------------ */

/* Lifetimes shaped like execution schedules: most tensors are short-lived (a chain), some are
 * skip connections, some sets are random intervals; a quarter of the sizes come from a small
 * pool so that ties are common. */
static int random_set(uint64_t seed, vki_plan_tensor *t, int max_n, uint64_t *alignment) {
    uint32_t rng = (uint32_t)(seed * 0x9E3779B9u + 0x1234567u) | 1u;
    for (int warm = 0; warm < 4; warm++) next64(&rng);
    static const uint64_t alignments[] = {1, 16, 256};
    *alignment = alignments[below(&rng, 3)];
    int n = 1 + (int)below(&rng, (uint64_t)max_n);
    const uint64_t pool[4] = {1 + below(&rng, 1000000), 1 + below(&rng, 1000000),
                              1 + below(&rng, 1000000), 1 + below(&rng, 1000000)};
    int random_intervals = below(&rng, 4) == 0;
    for (int i = 0; i < n; i++) {
        int first, len;
        if (random_intervals) {
            first = (int)below(&rng, (uint64_t)n);
            len = (int)below(&rng, (uint64_t)(n / 2 + 1));
        } else {
            first = i;
            len = below(&rng, 5) == 0 ? (int)below(&rng, (uint64_t)(n / 3 + 2)) : (int)below(&rng, 3);
        }
        t[i].first = first;
        t[i].last = first + len;
        t[i].size = below(&rng, 4) == 0 ? pool[below(&rng, 4)] : 1 + below(&rng, 1000000);
    }
    return n;
}

Test(planner, random_sets_every_strategy_valid) {
    enum { SETS = 300, MAX_N = 60 };
    vki_plan_tensor t[MAX_N];
    int proven = 0, improved = 0, reached = 0;
    for (int set = 0; set < SETS; set++) {
        uint64_t alignment;
        int n = random_set((uint64_t)set + 1, t, MAX_N, &alignment);
        /* Small search budgets keep 300 sets quick; validity must not depend on them. */
        vki_plan_options o = {.alignment = alignment, .optimal_node_budget = 20000,
                              .optimal_time_budget_ms = 50.0, .bound_node_budget = 20000};
        uint64_t totals[VKI_PLAN_STRATEGY_COUNT] = {0};
        for (int k = 0; k < N_STRATEGIES; k++) {
            vki_plan p = plan_checked(t, n, all_strategies[k], &o);
            totals[all_strategies[k]] = p.total;
            if (all_strategies[k] == VKI_PLAN_OPTIMAL) proven += p.proven_optimal;
            vki_plan_free(&p);
        }
        uint64_t naive = 0, fast_min = UINT64_MAX, heuristic_min = UINT64_MAX;
        for (int i = 0; i < n; i++) naive += align_up(t[i].size, alignment);
        cr_assert_eq(totals[VKI_PLAN_NAIVE], naive, "set %d: naive total", set);
        for (int k = 0; k < 4; k++)
            if (totals[fast_strategies[k]] < fast_min) fast_min = totals[fast_strategies[k]];
        /* BEST is the smallest fast plan, or one at the bound that the search found. */
        uint64_t bound = align_up(vki_plan_lower_bound(t, n), alignment);
        cr_assert(totals[VKI_PLAN_BEST] == fast_min ||
                  (totals[VKI_PLAN_BEST] == bound && bound < fast_min),
                  "set %d: best %llu, fast strategies %llu, bound %llu", set,
                  (unsigned long long)totals[VKI_PLAN_BEST], (unsigned long long)fast_min,
                  (unsigned long long)bound);
        reached += totals[VKI_PLAN_BEST] < fast_min;
        for (int s = 0; s < VKI_PLAN_STRATEGY_COUNT; s++)
            if (s != VKI_PLAN_OPTIMAL && totals[s] < heuristic_min) heuristic_min = totals[s];
        cr_assert_leq(totals[VKI_PLAN_OPTIMAL], heuristic_min, "set %d: optimal above a heuristic", set);
        improved += totals[VKI_PLAN_OPTIMAL] < heuristic_min;
    }
    printf("random sets: %d, best at the bound below every fast strategy on %d, optimal proven on "
           "%d, strictly better than every heuristic on %d\n", SETS, reached, proven, improved);
}

/* ---- OPTIMAL against brute force ---------------------------------------------------------- */

/* Test-only exhaustive search in units of the alignment: tensors in index order, each at every
 * offset that keeps the height below the best found, no cleverness shared with the planner. It
 * stops once the best height is at most enough (0: the optimum). */
typedef struct brute {
    int n;
    const vki_plan_tensor *t;
    uint64_t units[16], offset[16], best, enough;
} brute;

static void brute_place(brute *b, int k, uint64_t height) {
    if (k == b->n) {
        if (height < b->best) b->best = height;
        return;
    }
    if (b->best <= b->enough) return;
    if (!b->units[k]) {
        brute_place(b, k + 1, height);
        return;
    }
    for (uint64_t o = 0; o + b->units[k] < b->best; o++) {
        int clash = 0;
        for (int j = 0; j < k && !clash; j++)
            clash = b->units[j] && b->t[j].first <= b->t[k].last && b->t[k].first <= b->t[j].last &&
                    o < b->offset[j] + b->units[j] && b->offset[j] < o + b->units[k];
        if (clash) continue;
        b->offset[k] = o;
        brute_place(b, k + 1, height > o + b->units[k] ? height : o + b->units[k]);
        if (b->best <= b->enough) return;
    }
}

Test(planner, optimal_matches_brute_force_on_tiny_sets) {
    enum { SETS = 400 };
    static const uint64_t alignments[] = {1, 16, 256};
    for (int set = 0; set < SETS; set++) {
        uint32_t rng = 0xC0FFEEu + (uint32_t)set * 7919u;
        next64(&rng);
        uint64_t align = alignments[set % 3];
        vki_plan_tensor t[6];
        brute b = {0};
        b.n = 1 + (int)below(&rng, 6);
        b.t = t;
        b.best = 1;
        for (int i = 0; i < b.n; i++) {
            t[i].first = (int)below(&rng, 5);
            t[i].last = t[i].first + (int)below(&rng, 4);
            uint64_t u = below(&rng, 10) == 0 ? 0 : 1 + below(&rng, 6);
            t[i].size = u ? u * align - below(&rng, align) : 0;
            b.units[i] = u;
            b.best += u;
        }
        brute_place(&b, 0, 0);
        vki_plan_options o = {.alignment = align};
        vki_plan p = plan_checked(t, b.n, VKI_PLAN_OPTIMAL, &o);
        cr_assert(p.proven_optimal, "set %d: tiny search not finished", set);
        cr_assert_eq(p.total, b.best * align, "set %d (n=%d, align %llu): optimal %llu, brute force %llu",
                     set, b.n, (unsigned long long)align, (unsigned long long)p.total,
                     (unsigned long long)(b.best * align));
        vki_plan_free(&p);
    }
}

/* ---- the search for a plan at the bound, against brute force ------------------------------- */

Test(planner, bound_search_matches_brute_force) {
    enum { SETS = 1500 };
    static const uint64_t alignments[] = {1, 16, 256};
    int reached = 0, infeasible = 0, rounding = 0;
    for (int set = 0; set < SETS; set++) {
        uint32_t rng = 0xB0B0CAFEu + (uint32_t)set * 104729u;
        next64(&rng);
        uint64_t align = alignments[set % 3];
        vki_plan_tensor t[8], rounded[8];
        brute b = {0};
        b.n = 1 + (int)below(&rng, 7);
        b.t = t;
        int steps = 2 + (int)below(&rng, 6);
        for (int i = 0; i < b.n; i++) {
            t[i].first = (int)below(&rng, (uint64_t)steps);
            t[i].last = t[i].first + (int)below(&rng, 4);
            uint64_t u = below(&rng, 12) == 0 ? 0 : 1 + below(&rng, 7);
            /* Half the sets have sizes that are multiples of the alignment. */
            t[i].size = u ? u * align - (set & 4 ? below(&rng, align) : 0) : 0;
            b.units[i] = u;
            rounded[i] = (vki_plan_tensor){u * align, t[i].first, t[i].last};
        }
        /* BEST and OPTIMAL, which run the search, never go below the optimum; OPTIMAL finds it.
         * BEST's checked plan caps the brute force's heights, which keeps 8 tensors quick. */
        vki_plan_options o = {.alignment = align};
        vki_plan best = plan_checked(t, b.n, VKI_PLAN_BEST, &o);
        vki_plan optimal = plan_checked(t, b.n, VKI_PLAN_OPTIMAL, &o);
        b.best = best.total / align + 1;
        brute_place(&b, 0, 0);
        uint64_t bound = align_up(vki_plan_lower_bound(t, b.n), align);
        uint64_t offsets[8], total = 0;
        int outcome;
        cr_assert_eq(vki_plan_bound_search(t, b.n, align, 10000000, 1e9, offsets, &total, &outcome),
                     0);
        if (b.best * align == bound) {
            cr_assert_eq(outcome, VKI_PLAN_BOUND_REACHED, "set %d (n=%d, align %llu): the optimum "
                         "%llu is the bound, the search says %d", set, b.n,
                         (unsigned long long)align, (unsigned long long)bound, outcome);
            cr_assert_eq(total, bound);
            vki_plan p = {.strategy = VKI_PLAN_OPTIMAL, .n_tensors = b.n, .offsets = offsets,
                          .total = total, .lower_bound = vki_plan_lower_bound(t, b.n)};
            char why[256];
            cr_assert(vki_plan_check(t, b.n, &o, &p, why, sizeof why), "set %d: %s", set, why);
            reached++;
        } else {
            cr_assert_eq(outcome, VKI_PLAN_BOUND_INFEASIBLE, "set %d (n=%d, align %llu): optimum "
                         "%llu above the bound %llu, the search says %d", set, b.n,
                         (unsigned long long)align, (unsigned long long)(b.best * align),
                         (unsigned long long)bound, outcome);
            infeasible++;
            /* Sizes rounded up to the alignment can stack past the byte bound at one step. */
            rounding += vki_plan_lower_bound(rounded, b.n) > bound;
        }
        cr_assert_geq(best.total, b.best * align, "set %d: best below the optimum", set);
        if (b.best * align == bound) {
            cr_assert_eq(best.total, bound, "set %d: best misses the bound", set);
            cr_assert(best.proven_optimal);
        }
        cr_assert_eq(optimal.total, b.best * align, "set %d: optimal %llu, brute force %llu", set,
                     (unsigned long long)optimal.total, (unsigned long long)(b.best * align));
        cr_assert(optimal.proven_optimal, "set %d: tiny search not finished", set);
        vki_plan_free(&best);
        vki_plan_free(&optimal);
    }
    printf("bound search on %d tiny sets: the bound reached on %d, proven infeasible on %d "
           "(%d of them as their sizes aligned up stack past it)\n", SETS, reached, infeasible, rounding);
    cr_assert_gt(reached, 0);
    cr_assert_gt(infeasible, 0);
}

/* No plan reaches the bound of this set (16; 17 does): the smallest such set found among
 * random ones, which reach their bound almost always. The brute force confirms it below. */
static const vki_plan_tensor no_plan_at_bound[10] = {
    {5, 3, 4}, {1, 2, 4}, {5, 4, 4}, {2, 2, 2}, {1, 0, 3},
    {4, 0, 2}, {3, 2, 3}, {6, 0, 0}, {5, 0, 3}, {5, 4, 4},
};

/* That set shuffled, shifted in time, scaled to an alignment, with up to three random tensors
 * added (which may make the bound reachable again): the brute force, asked only for a plan at
 * the bound, decides; the search must agree. */
Test(planner, bound_search_proves_infeasibility) {
    enum { SETS = 300 };
    static const uint64_t alignments[] = {1, 16, 256};
    int reached = 0, infeasible = 0;
    for (int set = 0; set < SETS; set++) {
        uint32_t rng = 0x5EEDu + (uint32_t)set * 6151u;
        next64(&rng);
        uint64_t align = alignments[set % 3];
        vki_plan_tensor t[13];
        int n = 10, shift = (int)below(&rng, 4);
        for (int i = 0; i < n; i++) t[i] = no_plan_at_bound[i];
        for (int i = n - 1; i > 0; i--) {
            int j = (int)below(&rng, (uint64_t)i + 1);
            vki_plan_tensor swap = t[i];
            t[i] = t[j];
            t[j] = swap;
        }
        for (int extra = (int)below(&rng, 4); extra > 0; extra--) {
            int first = (int)below(&rng, 6);
            t[n++] = (vki_plan_tensor){1 + below(&rng, 3), first, first + (int)below(&rng, 2)};
        }
        for (int i = 0; i < n; i++) {
            t[i].size = t[i].size * align - (set & 4 ? below(&rng, align) : 0);
            t[i].first += shift;
            t[i].last += shift;
        }
        /* The brute force gets the tensors largest first, which prunes far sooner. */
        brute b = {0};
        vki_plan_tensor sorted[13];
        memcpy(sorted, t, sizeof *t * (size_t)n);
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && sorted[j].size > sorted[j - 1].size; j--) {
                vki_plan_tensor swap = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = swap;
            }
        b.n = n;
        b.t = sorted;
        for (int i = 0; i < n; i++) b.units[i] = (sorted[i].size + align - 1) / align;
        uint64_t bound = align_up(vki_plan_lower_bound(t, n), align);
        b.best = bound / align + 1;   /* only plans at the bound */
        b.enough = bound / align;
        brute_place(&b, 0, 0);
        int exists = b.best * align <= bound;
        uint64_t offsets[13], total = 0;
        int outcome;
        cr_assert_eq(vki_plan_bound_search(t, n, align, 10000000, 1e9, offsets, &total, &outcome), 0);
        cr_assert_eq(outcome, exists ? VKI_PLAN_BOUND_REACHED : VKI_PLAN_BOUND_INFEASIBLE,
                     "set %d (n=%d, align %llu): brute force %s a plan at %llu, the search says %d",
                     set, n, (unsigned long long)align, exists ? "finds" : "rules out",
                     (unsigned long long)bound, outcome);
        vki_plan_options o = {.alignment = align};
        vki_plan optimal = plan_checked(t, n, VKI_PLAN_OPTIMAL, &o);
        if (exists) {
            cr_assert_eq(total, bound);
            vki_plan p = {.strategy = VKI_PLAN_OPTIMAL, .n_tensors = n, .offsets = offsets,
                          .total = total, .lower_bound = vki_plan_lower_bound(t, n)};
            char why[256];
            cr_assert(vki_plan_check(t, n, &o, &p, why, sizeof why), "set %d: %s", set, why);
            cr_assert_eq(optimal.total, bound);
            reached++;
        } else {
            cr_assert_gt(optimal.total, bound, "set %d: optimal below what brute force allows", set);
            infeasible++;
        }
        cr_assert(optimal.proven_optimal, "set %d: not proven", set);
        vki_plan_free(&optimal);
    }
    printf("bound search on %d variants of a set with no plan at its bound: reached on %d, proven "
           "infeasible on %d\n", SETS, reached, infeasible);
    cr_assert_gt(infeasible, SETS / 4);
}

/* ---- the MediaPipe sets ------------------------------------------------------------------- */

static int by_name(const void *pa, const void *pb) {
    return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* A set file of tests/data/plan: a '#' header line ending in "alignment N", then "bytes first
 * last" per tensor. Returns the tensor count, at most max_n. */
static int read_plan_set(const char *path, vki_plan_tensor *t, int max_n, uint64_t *alignment) {
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[512];
    int n = 0;
    *alignment = 0;
    while (fgets(line, sizeof line, f)) {
        const char *a = strstr(line, "alignment ");
        if (line[0] == '#') {
            if (a) *alignment = strtoull(a + 10, NULL, 10);
            continue;
        }
        unsigned long long size;
        int first, last;
        cr_assert_eq(sscanf(line, "%llu %d %d", &size, &first, &last), 3, "%s: bad line %s", path,
                     line);
        cr_assert_lt(n, max_n, "%s: more than %d tensors", path, max_n);
        t[n++] = (vki_plan_tensor){size, first, last};
    }
    fclose(f);
    cr_assert_gt(*alignment, 0, "%s: no alignment in the header", path);
    return n;
}

Test(planner, mediapipe_sets_best_reaches_the_bound) {
    enum { MAX_SETS = 256, MAX_N = 4096 };
    const char *data = getenv("VKI_TEST_DATA");
    if (!data) cr_skip_test("VKI_TEST_DATA is not set (it names tests/data, whose plan/ is planned)");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/plan", data);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    char *names[MAX_SETS];
    int n_sets = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 4, ".txt")) continue;
        cr_assert_lt(n_sets, MAX_SETS);
        names[n_sets++] = strdup(e->d_name);
    }
    closedir(d);
    cr_assert_gt(n_sets, 0, "no sets in %s", dir);
    qsort(names, (size_t)n_sets, sizeof *names, by_name);
    static vki_plan_tensor t[MAX_N];
    for (int k = 0; k < n_sets; k++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        uint64_t alignment;
        int n = read_plan_set(path, t, MAX_N, &alignment);
        /* A node budget and a time budget that cannot run out first: the outcome must not
         * depend on the machine's speed (these sets need at most a few hundred nodes). */
        vki_plan_options o = {.alignment = alignment, .bound_time_budget_ms = 1e9};
        uint64_t bound = align_up(vki_plan_lower_bound(t, n), alignment);
        vki_plan best = plan_checked(t, n, VKI_PLAN_BEST, &o);
        printf("%-45s %3d tensors  bound %9llu  best %9llu (%s)\n", names[k], n,
               (unsigned long long)bound, (unsigned long long)best.total,
               vki_plan_strategy_name(best.strategy));
        cr_assert_eq(best.total, bound, "%s: best %llu, aligned lower bound %llu", names[k],
                     (unsigned long long)best.total, (unsigned long long)bound);
        cr_assert(best.proven_optimal, "%s", names[k]);
        vki_plan_free(&best);
        free(names[k]);
    }
}

/* ---- the checker ---------------------------------------------------------------------------- */

Test(planner, checker_rejects_overlap_and_misalignment) {
    const vki_plan_tensor t[3] = {{100, 0, 2}, {50, 1, 3}, {70, 4, 5}};
    uint64_t offsets[3] = {0, 100, 0};
    vki_plan p = {0};
    p.strategy = VKI_PLAN_ARENA;
    p.n_tensors = 3;
    p.offsets = offsets;
    p.total = 150;
    p.lower_bound = vki_plan_lower_bound(t, 3);
    cr_assert_eq(p.lower_bound, 150);
    char why[256];
    cr_assert(vki_plan_check(t, 3, NULL, &p, why, sizeof why), "%s", why);

    offsets[1] = 60;   /* t0 [0,100) and t1 [60,110) are live together at steps 1..2 */
    p.total = 160;
    cr_assert_not(vki_plan_check(t, 3, NULL, &p, why, sizeof why));
    printf("checker, overlap: %s\n", why);

    offsets[1] = 100;
    vki_plan_options o16 = {.alignment = 16};
    cr_assert_not(vki_plan_check(t, 3, &o16, &p, why, sizeof why), "offset 100 is not 16-aligned");
    printf("checker, alignment: %s\n", why);
    offsets[1] = 112;
    p.total = 176;
    cr_assert(vki_plan_check(t, 3, &o16, &p, why, sizeof why), "%s", why);

    p.total = 100;   /* t1 ends at 162 */
    cr_assert_not(vki_plan_check(t, 3, &o16, &p, why, sizeof why));

    /* Object form: wrong object size, then a shared object for overlapping tensors. */
    int object_of[3] = {0, 1, 0};
    uint64_t object_size[2] = {100, 50};
    uint64_t obj_offsets[3] = {0, 100, 0};
    vki_plan q = {0};
    q.strategy = VKI_PLAN_GREEDY_BY_SIZE;
    q.n_tensors = 3;
    q.offsets = obj_offsets;
    q.object_of = object_of;
    q.n_objects = 2;
    q.object_size = object_size;
    q.total = 150;
    q.lower_bound = p.lower_bound;
    cr_assert(vki_plan_check(t, 3, NULL, &q, why, sizeof why), "%s", why);
    object_size[0] = 90;
    q.total = 140;
    cr_assert_not(vki_plan_check(t, 3, NULL, &q, why, sizeof why), "object smaller than its tensor");
    object_size[0] = 100;
    object_of[1] = 0;
    object_size[1] = 0;
    obj_offsets[1] = 0;
    q.total = 100;
    cr_assert_not(vki_plan_check(t, 3, NULL, &q, why, sizeof why), "t0 and t1 share an object");
    printf("checker, shared object: %s\n", why);
    object_of[1] = 1;
    object_size[1] = 50;
    obj_offsets[1] = 100;
    q.total = 150;
    cr_assert(vki_plan_check(t, 3, NULL, &q, why, sizeof why), "%s", why);
    q.lower_bound = 1;
    cr_assert_not(vki_plan_check(t, 3, NULL, &q, why, sizeof why), "wrong lower bound");
}

/* ---- edge cases ----------------------------------------------------------------------------- */

Test(planner, empty_zero_size_and_bad_input) {
    vki_plan p;
    for (int k = 0; k < N_STRATEGIES; k++) {
        cr_assert_eq(vki_plan_make(NULL, 0, all_strategies[k], NULL, &p), 0);
        cr_assert_eq(p.total, 0);
        cr_assert(vki_plan_check(NULL, 0, NULL, &p, NULL, 0));
        vki_plan_free(&p);
    }
    const vki_plan_tensor zeros[4] = {{0, 0, 3}, {10, 0, 1}, {0, 1, 2}, {10, 2, 3}};
    vki_plan_options o = {.alignment = 16};
    for (int k = 0; k < N_STRATEGIES; k++) {
        p = plan_checked(zeros, 4, all_strategies[k], &o);
        if (all_strategies[k] != VKI_PLAN_NAIVE) cr_assert_eq(p.total, 16);
        vki_plan_free(&p);
    }
    const vki_plan_tensor backwards[1] = {{8, 3, 2}}, negative[1] = {{8, -1, 2}};
    cr_assert_eq(vki_plan_make(backwards, 1, VKI_PLAN_ARENA, NULL, &p), -1);
    cr_assert_null(p.offsets);
    cr_assert_eq(vki_plan_make(negative, 1, VKI_PLAN_GREEDY_BY_SIZE, NULL, &p), -1);
    cr_assert_eq(vki_plan_make(zeros, -1, VKI_PLAN_ARENA, NULL, &p), -1);
    cr_assert_eq(vki_plan_make(NULL, 2, VKI_PLAN_ARENA, NULL, &p), -1);
    cr_assert_eq(vki_plan_make(zeros, 4, VKI_PLAN_STRATEGY_COUNT, NULL, &p), -1);
    cr_assert_eq(vki_plan_make(zeros, 4, VKI_PLAN_ARENA, NULL, NULL), -1);
    vki_plan_free(&p);
    vki_plan_free(NULL);
}

Test(planner, huge_sizes_do_not_wrap) {
    const uint64_t big = 1ULL << 62;
    /* Three live together (3 * 2^62 fits), then one after them. */
    const vki_plan_tensor fits[4] = {{big, 0, 1}, {big - 5, 0, 2}, {big + 7, 1, 2}, {big, 3, 4}};
    vki_plan_options o = {.alignment = 256};
    for (int k = 0; k < N_STRATEGIES; k++) {
        vki_plan p;
        int rc = vki_plan_make(fits, 4, all_strategies[k], &o, &p);
        if (all_strategies[k] == VKI_PLAN_NAIVE) {   /* 4 * 2^62 + padding does not fit */
            cr_assert_eq(rc, -1);
            continue;
        }
        cr_assert_eq(rc, 0, "%s", vki_plan_strategy_name(all_strategies[k]));
        char why[256];
        cr_assert(vki_plan_check(fits, 4, &o, &p, why, sizeof why), "%s: %s",
                  vki_plan_strategy_name(all_strategies[k]), why);
        cr_assert_geq(p.total, 3 * big);
        vki_plan_free(&p);
    }
    /* Live sizes that add past 2^64: no plan exists; the lower bound saturates. */
    const vki_plan_tensor too_big[3] = {{big * 2, 0, 1}, {big * 2, 0, 1}, {big, 0, 1}};
    cr_assert_eq(vki_plan_lower_bound(too_big, 3), UINT64_MAX);
    for (int k = 0; k < N_STRATEGIES; k++) {
        vki_plan p;
        cr_assert_eq(vki_plan_make(too_big, 3, all_strategies[k], NULL, &p), -1,
                     "%s", vki_plan_strategy_name(all_strategies[k]));
    }
    /* Disjoint lifetimes: only NAIVE needs the sum. */
    const vki_plan_tensor disjoint[2] = {{big * 3, 0, 0}, {big * 3, 1, 1}};
    vki_plan p;
    cr_assert_eq(vki_plan_make(disjoint, 2, VKI_PLAN_NAIVE, NULL, &p), -1);
    cr_assert_eq(vki_plan_make(disjoint, 2, VKI_PLAN_BEST, NULL, &p), 0);
    cr_assert_eq(p.total, big * 3);
    vki_plan_free(&p);
}

Test(planner, old_interface_still_works) {
    const vki_plan_tensor t[5] = {{100, 0, 1}, {30, 1, 2}, {100, 2, 3}, {30, 0, 3}, {7, 3, 4}};
    uint64_t offsets[5], total;
    vki_plan_options o = {.alignment = 64};
    cr_assert_eq(vki_plan_offsets(t, 5, 64, VKI_PLAN_ARENA, offsets, &total), 0);
    vki_plan p = plan_checked(t, 5, VKI_PLAN_ARENA, &o);
    cr_assert_eq(total, p.total);
    cr_assert_eq(memcmp(offsets, p.offsets, sizeof offsets), 0);
    vki_plan_free(&p);
    cr_assert_eq(vki_plan_offsets(t, 5, 64, VKI_PLAN_NAIVE, offsets, &total), 0);
    cr_assert_eq(total, 128 + 64 + 128 + 64 + 64);
    cr_assert_eq(vki_plan_lower_bound(t, 5), 160);
}

Test(planner, strategy_names) {
    static const char *names[] = {"naive", "greedy_by_size", "greedy_by_breadth", "min_cost_flow",
                                  "arena", "optimal", "best"};
    for (int s = 0; s < VKI_PLAN_STRATEGY_COUNT; s++)
        cr_assert_str_eq(vki_plan_strategy_name((vki_plan_strategy)s), names[s]);
    cr_assert_str_eq(vki_plan_strategy_name(VKI_PLAN_STRATEGY_COUNT), "unknown");
}

/* ---- reentrancy ----------------------------------------------------------------------------- */

typedef struct worker {
    int first_set;
    uint64_t totals[40][VKI_PLAN_STRATEGY_COUNT];
    int failed;
} worker;

static void *plan_sets(void *arg) {
    worker *w = arg;
    for (int set = 0; set < 40; set++) {
        vki_plan_tensor t[60];
        uint64_t alignment;
        int n = random_set((uint64_t)(w->first_set + set) + 1000, t, 60, &alignment);
        /* Node budgets only: deterministic. */
        vki_plan_options o = {.alignment = alignment, .optimal_node_budget = 3000,
                              .optimal_time_budget_ms = 1000.0, .bound_node_budget = 3000,
                              .bound_time_budget_ms = 1000.0};
        for (int k = 0; k < N_STRATEGIES; k++) {
            vki_plan p;
            if (vki_plan_make(t, n, all_strategies[k], &o, &p) ||
                !vki_plan_check(t, n, &o, &p, NULL, 0))
                w->failed = 1;
            w->totals[set][all_strategies[k]] = p.total;
            vki_plan_free(&p);
        }
    }
    return NULL;
}

Test(planner, concurrent_plans_match_sequential) {
    worker alone = {0}, together[4];
    plan_sets(&alone);
    pthread_t th[4];
    for (int k = 0; k < 4; k++) {
        memset(&together[k], 0, sizeof together[k]);
        cr_assert_eq(pthread_create(&th[k], NULL, plan_sets, &together[k]), 0);
    }
    for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
    cr_assert_not(alone.failed);
    for (int k = 0; k < 4; k++) {
        cr_assert_not(together[k].failed);
        cr_assert_eq(memcmp(alone.totals, together[k].totals, sizeof alone.totals), 0);
    }
}

/* ---- timing (printed, not asserted) ------------------------------------------------------- */

Test(planner, timing_300_tensor_chain) {
    enum { N = 300 };
    vki_plan_tensor chain[N], branchy[N];
    uint32_t rng = 42;
    for (int i = 0; i < N; i++) {
        chain[i] = (vki_plan_tensor){1 + below(&rng, 1000000), i, i + 1};
        /* A residual network: every fourth tensor is also read three steps later. */
        branchy[i] = (vki_plan_tensor){1 + below(&rng, 1000000), i, i + (i % 4 == 0 ? 3 : 1)};
    }
    vki_plan_options o = {.alignment = 256};
    const struct { const char *name; const vki_plan_tensor *t; } cases[] = {{"chain", chain},
                                                                            {"residual", branchy}};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < N_STRATEGIES; k++) {
            vki_plan p = plan_checked(cases[c].t, N, all_strategies[k], &o);
            printf("300-tensor %-8s %-17s %8.3f ms  total %10llu  lower bound %10llu%s\n",
                   cases[c].name, vki_plan_strategy_name(all_strategies[k]), p.plan_ms,
                   (unsigned long long)p.total, (unsigned long long)p.lower_bound,
                   all_strategies[k] == VKI_PLAN_OPTIMAL ? (p.proven_optimal ? "  proven" : "  unproven")
                                                         : "");
            vki_plan_free(&p);
        }
}
