/* test_order.c: the order stage (planner/order.c) against brute force: on small random step
 * graphs, every order that keeps the storages' accesses in order is tried, and the stage must
 * find the lowest peak (when it says its search was exact), return a legal order whose peak
 * it reports truly, and never return a higher peak than the stored order's. */
#include "../planner/order.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 9
#define MAX_STORAGES 12

typedef struct problem {
    vki_order_problem p;
    uint64_t size[MAX_STORAGES];
    vki_order_access access[MAX_STEPS * 4];
    vki_order_reuse reuse[MAX_STEPS];
} problem;

/* A random graph of steps: storage j is written by one step and read by 1-3 later ones;
 * some steps may write their output over an input of the same size. */
static void random_problem(uint32_t *rng, problem *P) {
    memset(P, 0, sizeof *P);
    int n = 3 + (int)(vki_xorshift32(rng) % (MAX_STEPS - 2));
    int ns = 0, na = 0, nr = 0;
    for (int k = 0; k < n; k++) {
        /* Step k reads up to two storages written before it, then writes a new one. */
        int reads[2] = {-1, -1};
        for (int j = 0; j < 2 && ns > 0; j++) {
            if (j == 1 && vki_xorshift32(rng) % 2) break;
            int r = (int)(vki_xorshift32(rng) % (uint32_t)ns);
            if (r == reads[0]) continue;
            reads[j] = r;
            P->access[na++] = (vki_order_access){k, r, 0};
        }
        if (ns < MAX_STORAGES) {
            int sized_like = reads[0] >= 0 && vki_xorshift32(rng) % 3 == 0 ? reads[0] : -1;
            P->size[ns] = sized_like >= 0 ? P->size[sized_like] : 16u * (1 + vki_xorshift32(rng) % 8);
            P->access[na++] = (vki_order_access){k, ns, 1};
            if (sized_like >= 0) P->reuse[nr++] = (vki_order_reuse){k, sized_like, ns};
            ns++;
        }
    }
    P->p = (vki_order_problem){n, ns, P->size, P->access, na, P->reuse, nr};
}

/* j must run before k (j < k in the stored order) when both touch a storage and one of
 * them writes it: the oracle's own reading of the rule in order.h. */
static int must_precede(const vki_order_problem *p, int j, int k) {
    for (int a = 0; a < p->n_access; a++)
        for (int b = 0; b < p->n_access; b++)
            if (p->access[a].step == j && p->access[b].step == k &&
                p->access[a].storage == p->access[b].storage &&
                (p->access[a].writes || p->access[b].writes))
                return 1;
    return 0;
}

/* The lowest peak over every legal order: all orders that respect must_precede, tried one
 * by one (vki_order_peak prices each). */
static uint64_t brute_best(const vki_order_problem *p, int *perm, int k, unsigned done,
                           uint64_t best) {
    if (k == p->n_steps) {
        uint64_t peak = vki_order_peak(p, perm);
        return peak < best ? peak : best;
    }
    for (int v = 0; v < p->n_steps; v++) {
        if (done >> v & 1u) continue;
        int ready = 1;
        for (int j = 0; j < v && ready; j++)
            if (!(done >> j & 1u) && must_precede(p, j, v)) ready = 0;
        if (!ready) continue;
        perm[k] = v;
        best = brute_best(p, perm, k + 1, done | 1u << v, best);
    }
    return best;
}

Test(order, matches_brute_force_on_small_graphs) {
    uint32_t rng = 0x2545F491u;
    int lowered = 0;
    for (int trial = 0; trial < 400; trial++) {
        problem P;
        random_problem(&rng, &P);
        int perm[MAX_STEPS], order[MAX_STEPS];
        for (int k = 0; k < P.p.n_steps; k++) perm[k] = k;
        uint64_t best = brute_best(&P.p, perm, 0, 0, UINT64_MAX);
        vki_order_result r;
        cr_assert_eq(vki_order_make(&P.p, NULL, order, &r), 0, "trial %d", trial);
        cr_assert_eq(vki_order_peak(&P.p, order), r.peak, "trial %d: the order's peak", trial);
        for (int k = 0; k < P.p.n_steps; k++) perm[k] = k;
        cr_assert_eq(vki_order_peak(&P.p, perm), r.stored_peak, "trial %d: stored peak", trial);
        cr_assert_leq(r.peak, r.stored_peak, "trial %d", trial);
        cr_assert(r.exact, "trial %d: a graph this small is searched exhaustively", trial);
        cr_assert_eq(r.peak, best, "trial %d: %d steps, peak %llu, brute force %llu", trial,
                     P.p.n_steps, (unsigned long long)r.peak, (unsigned long long)best);
        cr_assert_eq(r.changed, r.peak < r.stored_peak, "trial %d: changed only when lower", trial);
        lowered += r.changed;
    }
    /* The generator must give the search something to do. */
    cr_assert_gt(lowered, 20, "only %d of 400 graphs had a better order", lowered);
}

/* Two branches from one input, stored breadth first: A1 B1 A2 B2 keeps both big tensors
 * live together; depth first (A1 A2 B1 B2) does not. */
Test(order, depth_first_beats_breadth_first) {
    uint64_t size[] = {10, 100, 100, 1, 1, 5};
    vki_order_access acc[] = {
        {0, 0, 1},                       /* step 0 writes x */
        {1, 0, 0}, {1, 1, 1},            /* A1: x -> a (big) */
        {2, 0, 0}, {2, 2, 1},            /* B1: x -> b (big) */
        {3, 1, 0}, {3, 3, 1},            /* A2: a -> a2 */
        {4, 2, 0}, {4, 4, 1},            /* B2: b -> b2 */
        {5, 3, 0}, {5, 4, 0}, {5, 5, 1}, /* join */
    };
    vki_order_problem p = {6, 6, size, acc, 12, NULL, 0};
    int order[6];
    vki_order_result r;
    cr_assert_eq(vki_order_make(&p, NULL, order, &r), 0);
    cr_assert_eq(r.stored_peak, 210);
    cr_assert_eq(r.peak, 111, "x, a and a2 at A2; then x, a2, b");
    cr_assert(r.exact && r.changed);
    int pos[6];
    for (int k = 0; k < 6; k++) pos[order[k]] = k;
    cr_assert(pos[3] < pos[2], "A2 runs before B1");
}

/* In place: a step that is the last reader of a storage writes its output there, so the
 * order that makes it the last reader wins. */
Test(order, in_place_counts_where_the_step_reads_last) {
    uint64_t size[] = {50, 50, 1, 1};
    vki_order_access acc[] = {
        {0, 0, 1},                       /* x */
        {1, 0, 0}, {1, 1, 1},            /* y = relu(x), may write over x */
        {2, 0, 0}, {2, 3, 1},            /* s = sum(x) */
        {3, 1, 0}, {3, 3, 0}, {3, 2, 1}, /* z = y . s */
    };
    vki_order_reuse reuse[] = {{1, 0, 1}};
    vki_order_problem p = {4, 4, size, acc, 8, reuse, 1};
    int order[4];
    vki_order_result r;
    cr_assert_eq(vki_order_make(&p, NULL, order, &r), 0);
    cr_assert_eq(r.stored_peak, 101, "x, y and s at step 2: relu does not read x last");
    cr_assert_eq(r.peak, 52, "sum first, then relu over x: y, s and z at most");
    cr_assert(r.exact && r.changed);
    cr_assert(order[1] == 2 && order[2] == 1, "the sum moves before the relu");
    /* Without the later reader of x, relu reads it last in the stored order already. */
    vki_order_access acc2[] = {{0, 0, 1}, {1, 0, 0}, {1, 1, 1}, {2, 1, 0}, {2, 2, 1}};
    vki_order_problem p2 = {3, 3, size, acc2, 5, reuse, 1};
    cr_assert_eq(vki_order_make(&p2, NULL, order, &r), 0);
    cr_assert_eq(r.stored_peak, 51, "x and y share at step 1; y and z at step 2");
    cr_assert(!r.changed);
}

Test(order, beam_beyond_the_budget_is_legal_and_never_worse) {
    uint32_t rng = 0x9E3779B9u;
    for (int trial = 0; trial < 100; trial++) {
        problem P;
        random_problem(&rng, &P);
        int order[MAX_STEPS];
        vki_order_result r;
        vki_order_options o = {.work_budget = 1};   /* the smallest beam */
        cr_assert_eq(vki_order_make(&P.p, &o, order, &r), 0);
        cr_assert_eq(vki_order_peak(&P.p, order), r.peak, "trial %d", trial);
        cr_assert_leq(r.peak, r.stored_peak, "trial %d", trial);
    }
}

/* Big graphs stay cheap: a chain of 3000 steps is searched exactly (one set per level),
 * and 600 branches from one input, past a small budget, keep the stored order; with the
 * default budget the order is legal and never worse. */
Test(order, big_graphs_stay_cheap) {
    enum { N = 3000, B = 600 };
    static uint64_t size[N];
    static vki_order_access acc[3 * N];
    static int order[N];
    int na = 0;
    for (int k = 0; k < N; k++) {
        size[k] = 16;
        if (k) acc[na++] = (vki_order_access){k, k - 1, 0};
        acc[na++] = (vki_order_access){k, k, 1};
    }
    vki_order_problem p = {N, N, size, acc, na, NULL, 0};
    vki_order_result r;
    double t0 = vki_now_ms();
    cr_assert_eq(vki_order_make(&p, NULL, order, &r), 0);
    cr_assert(r.exact && !r.changed && r.peak == 32);
    cr_log_info("3000-step chain: %.1f ms", vki_now_ms() - t0);

    /* Step 0 writes x; step 1 + 2i reads x into a big y_i, step 2 + 2i reads y_i into a
     * small z_i. */
    na = 0;
    size[0] = 16;
    acc[na++] = (vki_order_access){0, 0, 1};
    for (int i = 0; i < B; i++) {
        size[1 + 2 * i] = 1000 + (uint64_t)i;
        size[2 + 2 * i] = 8;
        acc[na++] = (vki_order_access){1 + 2 * i, 0, 0};
        acc[na++] = (vki_order_access){1 + 2 * i, 1 + 2 * i, 1};
        acc[na++] = (vki_order_access){2 + 2 * i, 1 + 2 * i, 0};
        acc[na++] = (vki_order_access){2 + 2 * i, 2 + 2 * i, 1};
    }
    vki_order_problem q = {1 + 2 * B, 1 + 2 * B, size, acc, na, NULL, 0};
    vki_order_options tiny = {.work_budget = 1e4};
    cr_assert_eq(vki_order_make(&q, &tiny, order, &r), 0);
    cr_assert(!r.exact && !r.changed, "past its budget the search keeps the stored order");
    t0 = vki_now_ms();
    cr_assert_eq(vki_order_make(&q, NULL, order, &r), 0);
    cr_log_info("600 branches: %.1f ms, peak %llu from %llu", vki_now_ms() - t0,
                (unsigned long long)r.peak, (unsigned long long)r.stored_peak);
    cr_assert_eq(vki_order_peak(&q, order), r.peak);
    cr_assert_leq(r.peak, r.stored_peak);
}

Test(order, bad_arguments) {
    uint64_t size[] = {4, 8};
    vki_order_access acc[] = {{0, 0, 1}, {1, 0, 0}, {1, 1, 1}};
    vki_order_problem p = {2, 2, size, acc, 3, NULL, 0};
    int order[2];
    vki_order_result r;
    cr_assert_eq(vki_order_make(NULL, NULL, order, &r), -1);
    cr_assert_eq(vki_order_make(&p, NULL, NULL, &r), -1);
    vki_order_access bad[] = {{0, 0, 1}, {2, 0, 0}};
    vki_order_problem q = {2, 2, size, bad, 2, NULL, 0};
    cr_assert_eq(vki_order_make(&q, NULL, order, &r), -1, "a step past n_steps");
    vki_order_reuse mismatched[] = {{1, 0, 1}};
    vki_order_problem u = {2, 2, size, acc, 3, mismatched, 1};
    cr_assert_eq(vki_order_make(&u, NULL, order, &r), -1, "in place between sizes 4 and 8");
    int illegal[2] = {1, 0};
    cr_assert_eq(vki_order_peak(&p, illegal), UINT64_MAX, "a read before its write");
    vki_order_problem empty = {0, 0, NULL, NULL, 0, NULL, 0};
    cr_assert_eq(vki_order_make(&empty, NULL, order, &r), 0);
    cr_assert_eq(r.peak, 0);
}
