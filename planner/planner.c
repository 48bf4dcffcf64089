/* planner.c: arena offset planning (naive and TFLite's greedy-by-size arena). */
#include "planner.h"

#include <stdlib.h>

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static int overlaps(const vki_plan_tensor *a, const vki_plan_tensor *b) {
    return a->first <= b->last && b->first <= a->last;
}

static const vki_plan_tensor *sort_base;
static int by_size_desc(const void *pa, const void *pb) {
    const vki_plan_tensor *a = &sort_base[*(const int *)pa], *b = &sort_base[*(const int *)pb];
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return *(const int *)pa - *(const int *)pb;
}

static int by_offset(const void *pa, const void *pb) {
    const uint64_t *a = pa, *b = pb;   /* pairs (offset, end) */
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* Largest first; each tensor goes to the lowest aligned offset that fits between the
 * already placed tensors whose lifetimes overlap its own. */
static int plan_arena(const vki_plan_tensor *t, int n, uint64_t align, uint64_t *offsets,
                      uint64_t *total) {
    int *order = malloc(sizeof(int) * (size_t)(n ? n : 1));
    uint64_t *busy = malloc(sizeof(uint64_t) * 2 * (size_t)(n ? n : 1));
    unsigned char *placed = calloc((size_t)(n ? n : 1), 1);
    if (!order || !busy || !placed) { free(order); free(busy); free(placed); return -1; }
    for (int i = 0; i < n; i++) order[i] = i;
    sort_base = t;
    qsort(order, (size_t)n, sizeof *order, by_size_desc);
    uint64_t end_max = 0;
    for (int k = 0; k < n; k++) {
        int i = order[k];
        int nb = 0;
        for (int j = 0; j < n; j++)
            if (placed[j] && overlaps(&t[i], &t[j])) {
                busy[2 * nb] = offsets[j];
                busy[2 * nb + 1] = offsets[j] + t[j].size;
                nb++;
            }
        qsort(busy, (size_t)nb, 2 * sizeof(uint64_t), by_offset);
        uint64_t candidate = 0;
        for (int b = 0; b < nb; b++) {
            if (candidate + t[i].size <= busy[2 * b]) break;
            if (busy[2 * b + 1] > candidate) candidate = align_up(busy[2 * b + 1], align);
        }
        offsets[i] = candidate;
        placed[i] = 1;
        if (candidate + t[i].size > end_max) end_max = candidate + t[i].size;
    }
    *total = align_up(end_max, align);
    free(order);
    free(busy);
    free(placed);
    return 0;
}

int vki_plan_offsets(const vki_plan_tensor *tensors, int n, uint64_t alignment,
                     vki_plan_strategy strategy, uint64_t *offsets, uint64_t *total) {
    if (strategy == VKI_PLAN_ARENA) return plan_arena(tensors, n, alignment, offsets, total);
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        offsets[i] = at;
        at = align_up(at + tensors[i].size, alignment);
    }
    *total = at;
    return 0;
}

uint64_t vki_plan_lower_bound(const vki_plan_tensor *tensors, int n) {
    int steps = 0;
    for (int i = 0; i < n; i++)
        if (tensors[i].last + 1 > steps) steps = tensors[i].last + 1;
    uint64_t best = 0;
    for (int s = 0; s < steps; s++) {
        uint64_t live = 0;
        for (int i = 0; i < n; i++)
            if (tensors[i].first <= s && s <= tensors[i].last) live += tensors[i].size;
        if (live > best) best = live;
    }
    return best;
}
