/* optimal.c: OPTIMAL offsets, an exact branch and bound under a node and a time budget that
 * improves an incumbent plan (the best heuristic) and says whether it proved optimality.
 *
 * Why the search is complete. Work in units of the alignment (a tensor of s bytes takes
 * ceil(s/a) units; aligned placements that avoid sharing units are exactly those that avoid
 * sharing bytes). Push every tensor of an optimal plan down while it can go lower: each then sits
 * at 0 or on the end of a tensor it is live with. Placing the tensors in increasing offset order,
 * each one's offset is then exactly the highest end among the already placed tensors it is live
 * with (the skyline over its lifetime). So branching on which tensor comes next, and putting it
 * on the skyline, reaches an optimal plan; offsets need no branching at all.
 *
 * The placement order can itself be canonical: sorted by offset, ties by rank. So a child must
 * land at or above the previous one's offset (the floor), and at the same offset come later in
 * rank.
 *
 * Pruning, all of it safe:
 *  - bound: everything still to place sits at or above the floor and above the skyline, and
 *    the tensors live at one step are stacked, so max_s (max(skyline(s), floor) + unplaced live
 *    units at s) bounds every completion; a child is cut when its bound reaches the incumbent;
 *  - twins (same size and lifetime) are placed in rank order.
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
    const search_item *item;   /* in rank order */
    int *twin_before;          /* rank of the previous identical item, or -1 */
    uint64_t *skyline, *unplaced, *before, *after;   /* per compressed step */
    unsigned char *placed;
    uint64_t *offset, *best_offset;                  /* per item, in units */
    uint64_t best, bound;                            /* incumbent and static bound, in units */
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


static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

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
    if (++S->nodes > S->node_budget ||
        ((S->nodes & 255) == 0 && vki_now_ms() > S->deadline_ms)) {
        S->aborted = 1;
        return;
    }
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
        for (int s = it->lo; s <= it->hi; s++) {
            saved[s - it->lo] = S->skyline[s];
            S->skyline[s] = top;
            S->unplaced[s] -= it->units;
        }
        S->placed[k] = 1;
        S->offset[k] = kids[c].offset;
        descend(S, depth + 1, k, kids[c].offset, child_base + (size_t)n_kids,
                undo_base + (size_t)(it->hi - it->lo + 1), max_u64(height, top));
        S->placed[k] = 0;
        for (int s = it->lo; s <= it->hi; s++) {
            S->skyline[s] = saved[s - it->lo];
            S->unplaced[s] += it->units;
        }
        if (S->aborted || S->finished) return;
    }
}

int vki_plan_optimal_search(const vki_plan_tensor *t, int n, uint64_t align, long long node_budget,
                            double time_budget_ms, uint64_t *offsets, uint64_t *total, int *proven) {
    double start = vki_now_ms();
    *proven = 0;
    int overflow = 0;
    uint64_t floor_bytes = vki_plan_align_up(vki_plan_lower_bound(t, n), align, &overflow);
    if (!overflow && *total <= floor_bytes) { *proven = 1; return VKI_PLAN_OK; }

    int n_items = 0;
    uint64_t sum_units = 0;
    for (int i = 0; i < n; i++) {
        uint64_t u = t[i].size / align + (t[i].size % align != 0);
        if (!u) continue;
        n_items++;
        sum_units = u > UINT64_MAX - sum_units ? UINT64_MAX : sum_units + u;
    }
    /* Too big to search, or sums that could leave 64 bits: keep the incumbent, unproven. */
    if (n_items > MAX_SEARCH_TENSORS || sum_units > UINT64_MAX / 4) return VKI_PLAN_OK;

    size_t ni = (size_t)(n_items ? n_items : 1);
    search S = {0};
    search_item *items = malloc(sizeof *items * ni);
    int *starts = malloc(sizeof *starts * ni);
    S.twin_before = malloc(sizeof *S.twin_before * ni);
    S.placed = calloc(ni, 1);
    S.offset = calloc(ni, sizeof *S.offset);
    S.best_offset = calloc(ni, sizeof *S.best_offset);
    S.children = malloc(sizeof *S.children * (ni * (ni + 1) / 2));
    int rc = VKI_PLAN_ENOMEM;
    if (!items || !starts || !S.twin_before || !S.placed || !S.offset || !S.best_offset ||
        !S.children)
        goto done;

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
        search_item *it = &items[n_items++];
        it->units = t[i].size / align + (t[i].size % align != 0);
        it->lo = vki_plan_last_at_or_below(starts, m, t[i].first);
        it->hi = vki_plan_last_at_or_below(starts, m, t[i].last);
        it->first = t[i].first;
        it->tensor = i;
        undo_len += (size_t)(it->hi - it->lo + 1);
    }
    qsort(items, (size_t)n_items, sizeof *items, by_rank);
    for (int k = 0; k < n_items; k++) {
        S.twin_before[k] = -1;
        if (k > 0 && items[k].units == items[k - 1].units && items[k].lo == items[k - 1].lo &&
            items[k].hi == items[k - 1].hi)
            S.twin_before[k] = k - 1;
    }

    size_t ms = (size_t)(m ? m : 1);
    S.skyline = calloc(ms, sizeof *S.skyline);
    S.unplaced = calloc(ms, sizeof *S.unplaced);
    S.before = malloc(sizeof *S.before * ms);
    S.after = malloc(sizeof *S.after * ms);
    S.undo = malloc(sizeof *S.undo * (undo_len ? undo_len : 1));
    if (!S.skyline || !S.unplaced || !S.before || !S.after || !S.undo) goto done;
    for (int k = 0; k < n_items; k++)
        for (int s = items[k].lo; s <= items[k].hi; s++) S.unplaced[s] += items[k].units;
    for (int s = 0; s < m; s++) S.bound = max_u64(S.bound, S.unplaced[s]);

    S.n_items = n_items;
    S.m = m;
    S.item = items;
    S.best = *total / align;
    S.node_budget = node_budget;
    S.deadline_ms = start + time_budget_ms;
    uint64_t incumbent = S.best;
    if (S.best > S.bound) descend(&S, 0, -1, 0, 0, 0, 0);
    *proven = !S.aborted || S.best <= S.bound;
    if (S.best < incumbent) {
        for (int i = 0; i < n; i++) offsets[i] = 0;   /* zero-size tensors sit at 0 */
        for (int k = 0; k < n_items; k++) offsets[items[k].tensor] = S.best_offset[k] * align;
        *total = S.best * align;
    }
    rc = VKI_PLAN_OK;
done:
    free(items);
    free(starts);
    free(S.twin_before);
    free(S.placed);
    free(S.offset);
    free(S.best_offset);
    free(S.children);
    free(S.skyline);
    free(S.unplaced);
    free(S.before);
    free(S.after);
    free(S.undo);
    return rc;
}
