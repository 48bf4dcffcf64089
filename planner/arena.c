/* arena.c: ARENA offsets, TFLite's arena planner: tensors largest first (ties by first use),
 * each at the lowest aligned offset whose gap fits among the already placed tensors it is live
 * together with, else just above the highest of them. The placed tensors are kept sorted by
 * offset so that each placement is one scan: O(n log n) sort + O(n^2). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct arena_key {
    uint64_t size;
    int first, index;
} arena_key;

static int by_size_desc_then_first(const void *pa, const void *pb) {
    const arena_key *a = pa, *b = pb;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->index - b->index;
}

int vki_plan_arena(const vki_plan_tensor *t, int n, uint64_t align, uint64_t *offsets,
                   uint64_t *total) {
    *total = 0;
    if (n == 0) return VKI_PLAN_OK;
    arena_key *order = malloc(sizeof *order * (size_t)n);
    int *placed = malloc(sizeof *placed * (size_t)n);   /* tensor ids by increasing offset */
    if (!order || !placed) { free(order); free(placed); return VKI_PLAN_ENOMEM; }
    for (int i = 0; i < n; i++) order[i] = (arena_key){t[i].size, t[i].first, i};
    qsort(order, (size_t)n, sizeof *order, by_size_desc_then_first);

    int n_placed = 0, overflow = 0;
    uint64_t end_max = 0;
    for (int k = 0; k < n && !overflow; k++) {
        int i = order[k].index;
        uint64_t size = t[i].size, candidate = 0;
        if (size) {
            for (int p = 0; p < n_placed; p++) {
                int j = placed[p];
                /* Zero-size tensors own no bytes, so they cannot block a gap. */
                if (!t[j].size || !vki_plan_lifetimes_overlap(&t[i], &t[j])) continue;
                if (offsets[j] >= candidate && offsets[j] - candidate >= size) break;
                uint64_t above = vki_plan_align_up(offsets[j] + t[j].size, align, &overflow);
                if (above > candidate) candidate = above;
            }
            if (size > UINT64_MAX - candidate) overflow = 1;
        }
        offsets[i] = candidate;
        if (candidate + size > end_max) end_max = candidate + size;
        /* Insert keeping the placed list sorted by offset. */
        int lo = 0, hi = n_placed;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (offsets[placed[mid]] <= candidate) lo = mid + 1;
            else hi = mid;
        }
        memmove(placed + lo + 1, placed + lo, sizeof *placed * (size_t)(n_placed - lo));
        placed[lo] = i;
        n_placed++;
    }
    if (!overflow) *total = vki_plan_align_up(end_max, align, &overflow);
    free(order);
    free(placed);
    return overflow ? VKI_PLAN_EOVERFLOW : VKI_PLAN_OK;
}
