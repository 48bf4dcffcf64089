/* planner.h: places intermediate tensors in device memory (pure C11, libc only, no Vulkan).
 * Input: each tensor's byte size and lifetime [first, last] in execution steps.
 * Output: either shared objects (tensor -> object, objects laid back to back) or byte offsets
 * in one arena, plus the arena's size and the lower bound every plan is judged against.
 * Everything here is reentrant: no static mutable state. */
#ifndef VKI_PLANNER_H
#define VKI_PLANNER_H

#include <stddef.h>
#include <stdint.h>

typedef struct vki_plan_tensor {
    uint64_t size;
    int first, last;            /* inclusive steps during which the tensor is live */
} vki_plan_tensor;

typedef enum vki_plan_strategy {
    VKI_PLAN_NAIVE = 0,         /* objects: every tensor its own object, the baseline */
    VKI_PLAN_GREEDY_BY_SIZE,    /* objects: TFLite GPU greedy in execution order, best-fit pool */
    VKI_PLAN_GREEDY_BY_BREADTH, /* objects: widest steps first, largest tensors first */
    VKI_PLAN_MIN_COST_FLOW,     /* objects: reuse chains from a min-cost bipartite flow */
    VKI_PLAN_ARENA,             /* offsets: TFLite's arena, largest first, lowest gap that fits */
    VKI_PLAN_OPTIMAL,           /* offsets: a search for a plan at the lower bound, then a branch
                                 * and bound from the best heuristic, both under budgets */
    VKI_PLAN_BEST,              /* the smallest of the four fast strategies above NAIVE; when it
                                 * is above the lower bound, the search for a plan at the bound
                                 * (OPTIMAL's first step) runs too, and its plan wins if found */
    VKI_PLAN_STRATEGY_COUNT
} vki_plan_strategy;

/* The budgets of the search for a plan at the (aligned) lower bound, which BEST and OPTIMAL
 * run when their heuristics stay above it. On the 39 MediaPipe sets of tests/data/plan it
 * reaches the bound on every one, within a few milliseconds (bench/planner_sets). */
#define VKI_PLAN_DEFAULT_BOUND_NODES 1000000LL
#define VKI_PLAN_DEFAULT_BOUND_TIME_MS 50.0

typedef struct vki_plan_options {
    uint64_t alignment;             /* offsets are multiples of this; 0 means 1 */
    long long optimal_node_budget;  /* OPTIMAL: search nodes; <= 0 = default (2e6) */
    double optimal_time_budget_ms;  /* OPTIMAL: search wall time, on top of the heuristics that
                                     * give its starting plan and of the bound search;
                                     * <= 0 = default (200 ms) */
    long long bound_node_budget;    /* BEST and OPTIMAL: nodes of the search for a plan at the
                                     * lower bound; <= 0 = VKI_PLAN_DEFAULT_BOUND_NODES */
    double bound_time_budget_ms;    /* BEST and OPTIMAL: its wall time;
                                     * <= 0 = VKI_PLAN_DEFAULT_BOUND_TIME_MS */
} vki_plan_options;

typedef struct vki_plan {
    vki_plan_strategy strategy;     /* the strategy that produced it (BEST: the winner) */
    int n_tensors;
    uint64_t *offsets;              /* byte offset of each tensor in one arena (object forms:
                                     * objects laid back to back, each aligned) */
    int *object_of;                 /* object id per tensor for shared-object strategies,
                                     * NULL for offset strategies */
    int n_objects;                  /* 0 for offset strategies */
    uint64_t *object_size;          /* max size of the object's tensors; NULL for offsets */
    uint64_t total;                 /* arena bytes = what gets allocated */
    uint64_t lower_bound;           /* max over steps of the sum of live sizes */
    int proven_optimal;             /* 1 if no smaller plan exists: OPTIMAL's search finished
                                     * within budget, or (BEST too) the total is the lower bound
                                     * aligned up */
    double plan_ms;                 /* wall time spent planning */
} vki_plan;

/* Plans n tensors with strategy s (o may be NULL for defaults). Returns 0 on success, -1 when
 * host memory ran out, arguments are bad (first < 0, first > last, unknown strategy) or the
 * plan's total would not fit in 64 bits. On failure *out is left empty (safe to free). */
int vki_plan_make(const vki_plan_tensor *t, int n, vki_plan_strategy s, const vki_plan_options *o,
                  vki_plan *out);
void vki_plan_free(vki_plan *p);

/* "naive", "greedy_by_size", "greedy_by_breadth", "min_cost_flow", "arena", "optimal", "best";
 * "unknown" otherwise. */
const char *vki_plan_strategy_name(vki_plan_strategy s);

/* Validates p against the tensors: no two tensors with overlapping lifetimes share a byte; each
 * tensor fits its object / offset range; offsets are aligned; object sizes are the max of their
 * tensors; totals add up (objects: total = sum of aligned object sizes, offsets laid back to
 * back; offsets: total >= max end); lower_bound matches. Returns 1 if valid, else 0 with a
 * reason in why (may be NULL). */
int vki_plan_check(const vki_plan_tensor *t, int n, const vki_plan_options *o, const vki_plan *p,
                   char *why, size_t why_len);

/* The largest sum of sizes of tensors live at one step: no plan can be smaller. Saturates at
 * UINT64_MAX; tensors with first > last are ignored. */
uint64_t vki_plan_lower_bound(const vki_plan_tensor *t, int n);

/* Compatibility wrapper for the old interface: fills offsets[n] (multiples of alignment) and
 * *total using vki_plan_make. Returns 0 on success, -1 on failure. */
int vki_plan_offsets(const vki_plan_tensor *tensors, int n, uint64_t alignment,
                     vki_plan_strategy strategy, uint64_t *offsets, uint64_t *total);

#endif
