/* internal.h: what the strategy modules of planner/ share; not part of the public API. */
#ifndef VKI_PLANNER_INTERNAL_H
#define VKI_PLANNER_INTERNAL_H

#include "planner.h"

/* Keeps the helpers out of libvkinfer.so's exported symbols where the compiler allows it. */
#if defined(__GNUC__)
#define VKI_PLAN_INTERNAL __attribute__((visibility("hidden")))
#else
#define VKI_PLAN_INTERNAL
#endif

/* Internal status codes; the public API folds both into -1. BEST tells them apart: a strategy
 * whose total does not fit in 64 bits is skipped, running out of memory is not. */
enum { VKI_PLAN_OK = 0, VKI_PLAN_ENOMEM = -1, VKI_PLAN_EOVERFLOW = -2 };

/* a rounded up to a multiple of align (align >= 1); 0 and sets *overflow if it does not fit. */
static inline uint64_t vki_plan_align_up(uint64_t v, uint64_t align, int *overflow) {
    uint64_t r = v % align;
    if (!r) return v;
    if (v > UINT64_MAX - (align - r)) { *overflow = 1; return 0; }
    return v + (align - r);
}

static inline int vki_plan_lifetimes_overlap(const vki_plan_tensor *a, const vki_plan_tensor *b) {
    return a->first <= b->last && b->first <= a->last;
}

/* qsort order of ints, ascending. */
static inline int vki_plan_by_int(const void *pa, const void *pb) {
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

/* Index of the last entry of sorted[0..m) that is <= v, or -1. */
static inline int vki_plan_last_at_or_below(const int *sorted, int m, int v) {
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= v) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* Object strategies fill object_of[n] with ids in [0, *n_objects). */
VKI_PLAN_INTERNAL int vki_plan_greedy_by_size(const vki_plan_tensor *t, int n, int *object_of,
                                              int *n_objects);
VKI_PLAN_INTERNAL int vki_plan_greedy_by_breadth(const vki_plan_tensor *t, int n, int *object_of,
                                                 int *n_objects);
VKI_PLAN_INTERNAL int vki_plan_min_cost_flow(const vki_plan_tensor *t, int n, int *object_of,
                                             int *n_objects);

/* Offset strategies fill offsets[n] and *total (a multiple of align). */
VKI_PLAN_INTERNAL int vki_plan_arena(const vki_plan_tensor *t, int n, uint64_t align,
                                     uint64_t *offsets, uint64_t *total);

/* The decision form of the exact search: offsets whose total is the aligned lower bound, within
 * a node and a time budget. *outcome is VKI_PLAN_BOUND_REACHED (offsets[n] and *total filled),
 * VKI_PLAN_BOUND_INFEASIBLE (no plan reaches the bound; offsets untouched) or
 * VKI_PLAN_BOUND_UNKNOWN (a budget ran out, or the set is too big to search). */
enum { VKI_PLAN_BOUND_UNKNOWN = -1, VKI_PLAN_BOUND_INFEASIBLE = 0, VKI_PLAN_BOUND_REACHED = 1 };
VKI_PLAN_INTERNAL int vki_plan_bound_search(const vki_plan_tensor *t, int n, uint64_t align,
                                            long long node_budget, double time_budget_ms,
                                            uint64_t *offsets, uint64_t *total, int *outcome);

/* Improves an incumbent offset plan (offsets[n], *total, both multiples of align) in place.
 * at_least (a multiple of align, or 0) is a total that every plan is known to need, beyond the
 * aligned lower bound: the bound + align once the bound is proven infeasible. *proven is 1 when
 * the search showed that nothing smaller exists. */
VKI_PLAN_INTERNAL int vki_plan_optimal_search(const vki_plan_tensor *t, int n, uint64_t align,
                                              uint64_t at_least, long long node_budget,
                                              double time_budget_ms, uint64_t *offsets,
                                              uint64_t *total, int *proven);

#endif
