/* optimal.c: the exact offset search, in two forms over one setup. The decision form looks for
 * a plan whose total is the aligned lower bound, or proves that none exists; BEST and OPTIMAL
 * run it first. The minimising form (OPTIMAL's branch and bound) improves an incumbent plan
 * (the best heuristic) and says whether it proved optimality. Both run under a node and a time
 * budget.
 *
 * Why the search is complete. Work in units of the alignment (a tensor of s bytes takes
 * ceil(s/a) units; aligned placements that avoid sharing units are exactly those that avoid
 * sharing bytes). Push every tensor of an optimal plan down while it can go lower: each then sits
 * at 0 or on the end of a tensor it is live with. Placing the tensors in increasing offset order,
 * each one's offset is then exactly the highest end among the already placed tensors it is live
 * with (the skyline over its lifetime). So branching on which tensor comes next, and putting it
 * on the skyline, reaches an optimal plan; offsets need no branching at all. The same argument
 * holds for any plan within a target height, so the decision form is complete too.
 *
 * The placement order can itself be canonical: sorted by offset, ties by rank. So a child must
 * land at or above the previous one's offset (the floor), and at the same offset come later in
 * rank.
 *
 * Pruning, all of it safe:
 *  - bound: everything still to place sits at or above the floor and above the skyline, and
 *    the tensors live at one step are stacked, so max_s (max(skyline(s), floor) + unplaced live
 *    units at s) bounds every completion; the minimiser cuts a child when its bound reaches the
 *    incumbent, the decision form when it passes the target;
 *  - twins (same size and lifetime) are placed in rank order;
 *  - decision form only, per node: each unplaced tensor's lowest possible offset (low) is
 *    max(floor, its skyline), or floor + the smallest unplaced size when it can no longer sit
 *    on its skyline (below the floor, or at the floor but earlier in rank: it must wait for a
 *    tensor placed at or above the floor to raise it). The node is dead when a tensor's low +
 *    its size passes the target, or when at some step the smallest low among the tensors live
 *    there + their units passes it (they are stacked above that).
 * Children are tried lowest offset first, then by rank (largest, then longest first): a
 * best-fit skyline that on the 39 MediaPipe sets of tests/data/plan reaches the bound with
 * little or no backtracking (bench/planner_sets).
 * Steps are compressed to the distinct start steps (the live set anywhere else is a subset of
 * the set at the start before it). Per node: O(n * span + m) with m compressed steps.
 * Exponential in the worst case, hence the budgets. */
#include "internal.h"

#include "../tuner/stats.h"

#include <stdlib.h>
#include <string.h>

/* Beyond this many tensors the child and undo stacks (O(n^2)) are not worth allocating. */
#define MAX_SEARCH_TENSORS 1500

typedef struct search_item {
    uint64_t units;
    int lo, hi;         /* span over the compressed steps, inclusive */
    int first, tensor;
} search_item;

typedef struct child {
    uint64_t bound, offset;
    int item;
} child;

typedef struct search {
    int n_items, m;
    search_item *item;         /* in rank order */
    int *twin_before;          /* rank of the previous identical item, or -1 */
    uint64_t *skyline, *unplaced, *before, *after;   /* per compressed step */
    uint64_t *on;              /* decision: per item, its skyline */
    uint64_t *low;             /* decision: per step, the lowest start of an item live there */
    unsigned char *placed;
    uint64_t *offset, *best_offset;                  /* per item, in units */
    uint64_t best, bound;      /* minimiser: incumbent and static bound, in units */
    uint64_t target;           /* decision: the height to reach, in units */
    child *children;
    uint64_t *undo;
    long long nodes, node_budget;
    double deadline_ms;
    int aborted, finished;
} search;

static int by_rank(const void *pa, const void *pb) {
    const search_item *a = pa, *b = pb;
    if (a->units != b->units) return a->units > b->units ? -1 : 1;
    int span_a = a->hi - a->lo, span_b = b->hi - b->lo;
    if (span_a != span_b) return span_a > span_b ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->tensor - b->tensor;
}

static int by_bound_then_rank(const void *pa, const void *pb) {
    const child *a = pa, *b = pb;
    if (a->bound != b->bound) return a->bound < b->bound ? -1 : 1;
    return a->item - b->item;
}

static int by_offset_then_rank(const void *pa, const void *pb) {
    const child *a = pa, *b = pb;
    if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
    return a->item - b->item;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t units_of(uint64_t size, uint64_t align) { return size / align + (size % align != 0); }

/* ---- shared setup --------------------------------------------------------------------------- */

static void release(search *S) {
    free(S->item);
    free(S->twin_before);
    free(S->placed);
    free(S->offset);
    free(S->best_offset);
    free(S->on);
    free(S->low);
    free(S->children);
    free(S->skyline);
    free(S->unplaced);
    free(S->before);
    free(S->after);
    free(S->undo);
}

/* Fills S for the tensors of nonzero size: items in rank order, compressed steps, twins, the
 * unplaced units per step and S->bound (the largest of them). Returns VKI_PLAN_EOVERFLOW (S
 * empty) when the set is too big to search or its sums could leave 64 bits. */
static int prepare(search *S, const vki_plan_tensor *t, int n, uint64_t align) {
    memset(S, 0, sizeof *S);
    int n_items = 0;
    uint64_t sum_units = 0;
    for (int i = 0; i < n; i++) {
        uint64_t u = units_of(t[i].size, align);
        if (!u) continue;
        n_items++;
        sum_units = u > UINT64_MAX - sum_units ? UINT64_MAX : sum_units + u;
    }
    if (n_items > MAX_SEARCH_TENSORS || sum_units > UINT64_MAX / 4) return VKI_PLAN_EOVERFLOW;

    size_t ni = (size_t)(n_items ? n_items : 1);
    int *starts = malloc(sizeof *starts * ni);
    S->item = malloc(sizeof *S->item * ni);
    S->twin_before = malloc(sizeof *S->twin_before * ni);
    S->placed = calloc(ni, 1);
    S->offset = calloc(ni, sizeof *S->offset);
    S->best_offset = calloc(ni, sizeof *S->best_offset);
    S->on = calloc(ni, sizeof *S->on);
    S->children = malloc(sizeof *S->children * (ni * (ni + 1) / 2));
    if (!starts || !S->item || !S->twin_before || !S->placed || !S->offset || !S->best_offset ||
        !S->on || !S->children) {
        free(starts);
        return VKI_PLAN_ENOMEM;
    }

    int m = 0;
    for (int i = 0; i < n; i++)
        if (t[i].size) starts[m++] = t[i].first;
    qsort(starts, (size_t)m, sizeof *starts, vki_plan_by_int);
    int distinct = 0;
    for (int s = 0; s < m; s++)
        if (distinct == 0 || starts[s] != starts[distinct - 1]) starts[distinct++] = starts[s];
    m = distinct;
    size_t undo_len = 0;
    n_items = 0;
    for (int i = 0; i < n; i++) {
        if (!t[i].size) continue;
        search_item *it = &S->item[n_items++];
        it->units = units_of(t[i].size, align);
        it->lo = vki_plan_last_at_or_below(starts, m, t[i].first);
        it->hi = vki_plan_last_at_or_below(starts, m, t[i].last);
        it->first = t[i].first;
        it->tensor = i;
        undo_len += (size_t)(it->hi - it->lo + 1);
    }
    free(starts);
    qsort(S->item, (size_t)n_items, sizeof *S->item, by_rank);
    for (int k = 0; k < n_items; k++) {
        S->twin_before[k] = -1;
        if (k > 0 && S->item[k].units == S->item[k - 1].units &&
            S->item[k].lo == S->item[k - 1].lo && S->item[k].hi == S->item[k - 1].hi)
            S->twin_before[k] = k - 1;
    }

    size_t ms = (size_t)(m ? m : 1);
    S->skyline = calloc(ms, sizeof *S->skyline);
    S->unplaced = calloc(ms, sizeof *S->unplaced);
    S->before = malloc(sizeof *S->before * ms);
    S->after = malloc(sizeof *S->after * ms);
    S->low = malloc(sizeof *S->low * ms);
    S->undo = malloc(sizeof *S->undo * (undo_len ? undo_len : 1));
    if (!S->skyline || !S->unplaced || !S->before || !S->after || !S->low || !S->undo)
        return VKI_PLAN_ENOMEM;
    for (int k = 0; k < n_items; k++)
        for (int s = S->item[k].lo; s <= S->item[k].hi; s++) S->unplaced[s] += S->item[k].units;
    for (int s = 0; s < m; s++) S->bound = max_u64(S->bound, S->unplaced[s]);
    S->n_items = n_items;
    S->m = m;
    return VKI_PLAN_OK;
}

/* Puts item k at offset (units) on the skyline, saving the skyline it covers at saved. */
static void place(search *S, int k, uint64_t offset, uint64_t *saved) {
    const search_item *it = &S->item[k];
    for (int s = it->lo; s <= it->hi; s++) {
        saved[s - it->lo] = S->skyline[s];
        S->skyline[s] = offset + it->units;
        S->unplaced[s] -= it->units;
    }
    S->placed[k] = 1;
    S->offset[k] = offset;
}

static void unplace(search *S, int k, const uint64_t *saved) {
    const search_item *it = &S->item[k];
    S->placed[k] = 0;
    for (int s = it->lo; s <= it->hi; s++) {
        S->skyline[s] = saved[s - it->lo];
        S->unplaced[s] += it->units;
    }
}

/* Counts a node; 0 (and S->aborted) once a budget is spent. */
static int within_budget(search *S) {
    if (++S->nodes > S->node_budget || ((S->nodes & 255) == 0 && vki_now_ms() > S->deadline_ms)) {
        S->aborted = 1;
        return 0;
    }
    return 1;
}

/* The best offsets found, in bytes, into offsets[n] (zero-size tensors sit at 0). */
static void write_offsets(const search *S, int n, uint64_t align, uint64_t *offsets) {
    for (int i = 0; i < n; i++) offsets[i] = 0;
    for (int k = 0; k < S->n_items; k++) offsets[S->item[k].tensor] = S->best_offset[k] * align;
}

/* ---- decision: a plan at the target height ---------------------------------------------------- */

/* last: rank of the item placed just before, floor: its offset (units). */
static void decide(search *S, int depth, int last, uint64_t floor, size_t child_base,
                   size_t undo_base) {
    if (depth == S->n_items) {
        memcpy(S->best_offset, S->offset, sizeof *S->offset * (size_t)S->n_items);
        S->finished = 1;
        return;
    }
    if (!within_budget(S)) return;
    const int m = S->m;
    const uint64_t target = S->target;
    uint64_t most_unplaced = 0, least_units = UINT64_MAX;
    for (int s = 0; s < m; s++) {
        most_unplaced = max_u64(most_unplaced, S->unplaced[s]);
        S->low[s] = UINT64_MAX;
    }
    for (int k = 0; k < S->n_items; k++) {
        if (S->placed[k]) continue;
        const search_item *it = &S->item[k];
        uint64_t on = 0;
        for (int s = it->lo; s <= it->hi; s++) on = max_u64(on, S->skyline[s]);
        S->on[k] = on;
        if (it->units < least_units) least_units = it->units;
    }

    child *kids = S->children + child_base;
    int n_kids = 0;
    for (int k = 0; k < S->n_items; k++) {
        if (S->placed[k]) continue;
        const search_item *it = &S->item[k];
        uint64_t on = S->on[k];
        int stuck = on < floor || (on == floor && k < last);   /* not in offset order */
        uint64_t low = stuck ? floor + least_units : on;
        if (low + it->units > target) return;
        for (int s = it->lo; s <= it->hi; s++)
            if (low < S->low[s]) S->low[s] = low;
        if (stuck || (S->twin_before[k] >= 0 && !S->placed[S->twin_before[k]])) continue;
        if (on + most_unplaced > target) continue;
        kids[n_kids++] = (child){0, on, k};
    }
    for (int s = 0; s < m; s++)
        if (S->unplaced[s] && S->low[s] + S->unplaced[s] > target) return;
    qsort(kids, (size_t)n_kids, sizeof *kids, by_offset_then_rank);

    for (int c = 0; c < n_kids; c++) {
        int k = kids[c].item;
        const search_item *it = &S->item[k];
        uint64_t *saved = S->undo + undo_base;
        place(S, k, kids[c].offset, saved);
        decide(S, depth + 1, k, kids[c].offset, child_base + (size_t)n_kids,
               undo_base + (size_t)(it->hi - it->lo + 1));
        unplace(S, k, saved);
        if (S->aborted || S->finished) return;
    }
}

int vki_plan_bound_search(const vki_plan_tensor *t, int n, uint64_t align, long long node_budget,
                          double time_budget_ms, uint64_t *offsets, uint64_t *total, int *outcome) {
    double start = vki_now_ms();
    *outcome = VKI_PLAN_BOUND_UNKNOWN;
    int overflow = 0;
    uint64_t bound_bytes = vki_plan_align_up(vki_plan_lower_bound(t, n), align, &overflow);
    if (overflow) return VKI_PLAN_OK;
    search S;
    int rc = prepare(&S, t, n, align);
    if (rc == VKI_PLAN_EOVERFLOW) return VKI_PLAN_OK;   /* too big to search: unknown */
    if (rc) { release(&S); return rc; }
    S.target = bound_bytes / align;
    S.node_budget = node_budget;
    S.deadline_ms = start + time_budget_ms;
    /* Sizes rounded up to units can stack past the target at one step: then no plan fits. */
    if (S.bound <= S.target) decide(&S, 0, -1, 0, 0, 0);
    if (S.finished) {
        write_offsets(&S, n, align, offsets);
        *total = bound_bytes;
        *outcome = VKI_PLAN_BOUND_REACHED;
    } else if (!S.aborted) {
        *outcome = VKI_PLAN_BOUND_INFEASIBLE;
    }
    release(&S);
    return VKI_PLAN_OK;
}

/* ---- minimisation: improving an incumbent ----------------------------------------------------- */

/* last: rank of the item placed just before, floor: its offset (units); height: max end. */
static void descend(search *S, int depth, int last, uint64_t floor, size_t child_base,
                    size_t undo_base, uint64_t height) {
    if (depth == S->n_items) {
        if (height < S->best) {
            S->best = height;
            memcpy(S->best_offset, S->offset, sizeof *S->offset * (size_t)S->n_items);
            if (S->best <= S->bound) S->finished = 1;
        }
        return;
    }
    if (!within_budget(S)) return;
    const int m = S->m;
    uint64_t run = 0, most_unplaced = 0;
    for (int s = 0; s < m; s++) {
        S->before[s] = run = max_u64(run, S->skyline[s] + S->unplaced[s]);
        most_unplaced = max_u64(most_unplaced, S->unplaced[s]);
    }
    run = 0;
    for (int s = m - 1; s >= 0; s--) S->after[s] = run = max_u64(run, S->skyline[s] + S->unplaced[s]);

    child *kids = S->children + child_base;
    int n_kids = 0;
    for (int k = 0; k < S->n_items; k++) {
        if (S->placed[k]) continue;
        if (S->twin_before[k] >= 0 && !S->placed[S->twin_before[k]]) continue;
        const search_item *it = &S->item[k];
        uint64_t on = 0;
        for (int s = it->lo; s <= it->hi; s++) on = max_u64(on, S->skyline[s]);
        if (on < floor || (on == floor && k < last)) continue;   /* not in offset order */
        /* Everything still to place sits at or above on from now on: wherever tensors remain
         * live, they stack above max(skyline, on). */
        uint64_t bound = on + most_unplaced;
        if (it->lo > 0) bound = max_u64(bound, S->before[it->lo - 1]);
        if (it->hi + 1 < m) bound = max_u64(bound, S->after[it->hi + 1]);
        if (bound >= S->best) continue;
        kids[n_kids++] = (child){bound, on, k};
    }
    qsort(kids, (size_t)n_kids, sizeof *kids, by_bound_then_rank);

    for (int c = 0; c < n_kids; c++) {
        if (kids[c].bound >= S->best) break;
        int k = kids[c].item;
        const search_item *it = &S->item[k];
        uint64_t top = kids[c].offset + it->units;
        uint64_t *saved = S->undo + undo_base;
        place(S, k, kids[c].offset, saved);
        descend(S, depth + 1, k, kids[c].offset, child_base + (size_t)n_kids,
                undo_base + (size_t)(it->hi - it->lo + 1), max_u64(height, top));
        unplace(S, k, saved);
        if (S->aborted || S->finished) return;
    }
}

int vki_plan_optimal_search(const vki_plan_tensor *t, int n, uint64_t align, uint64_t at_least,
                            long long node_budget, double time_budget_ms, uint64_t *offsets,
                            uint64_t *total, int *proven) {
    double start = vki_now_ms();
    *proven = 0;
    int overflow = 0;
    uint64_t floor_bytes = vki_plan_align_up(vki_plan_lower_bound(t, n), align, &overflow);
    floor_bytes = max_u64(floor_bytes, at_least);
    if (!overflow && *total <= floor_bytes) { *proven = 1; return VKI_PLAN_OK; }

    search S;
    int rc = prepare(&S, t, n, align);
    /* Too big to search, or sums that could leave 64 bits: keep the incumbent, unproven. */
    if (rc == VKI_PLAN_EOVERFLOW) return VKI_PLAN_OK;
    if (rc) { release(&S); return rc; }
    S.bound = max_u64(S.bound, at_least / align);
    S.best = *total / align;
    S.node_budget = node_budget;
    S.deadline_ms = start + time_budget_ms;
    uint64_t incumbent = S.best;
    if (S.best > S.bound) descend(&S, 0, -1, 0, 0, 0, 0);
    *proven = !S.aborted || S.best <= S.bound;
    if (S.best < incumbent) {
        write_offsets(&S, n, align, offsets);
        *total = S.best * align;
    }
    release(&S);
    return VKI_PLAN_OK;
}
