/* greedy_by_size.c: GREEDY_BY_SIZE shared objects, Algorithm 1 of the TFLite GPU paper
 * (Lee et al. 2019; GreedyInOrder in TFLite): tensors in execution order each take the free
 * object closest in size, growing it if none is large enough.
 *
 * Free pool: a Fenwick tree of counts over the distinct tensor sizes (an object's size is always
 * one of them) with a stack of objects per size, so "smallest >= size, else the largest" is two
 * O(log n) descents. In-use objects sit in a min-heap keyed by the last step of their current
 * tensor. O(n log n) in all. */
#include "internal.h"

#include <stdlib.h>

typedef struct tensor_key {
    uint64_t size;
    int first, index;
} tensor_key;

static int by_first_then_index(const void *pa, const void *pb) {
    const tensor_key *a = pa, *b = pb;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->index - b->index;
}

static int by_size_then_index(const void *pa, const void *pb) {
    const tensor_key *a = pa, *b = pb;
    if (a->size != b->size) return a->size < b->size ? -1 : 1;
    return a->index - b->index;
}

typedef struct release {
    int last, object;
} release;

static void heap_push(release *h, int *len, release r) {
    int i = (*len)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (h[parent].last <= r.last) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = r;
}

static release heap_pop(release *h, int *len) {
    release top = h[0], moved = h[--*len];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *len) break;
        if (c + 1 < *len && h[c + 1].last < h[c].last) c++;
        if (moved.last <= h[c].last) break;
        h[i] = h[c];
        i = c;
    }
    if (*len) h[i] = moved;
    return top;
}

/* Fenwick tree over size ranks 1..k: fen[i] counts free objects. */
static void fen_add(int *fen, int k, int rank, int delta) {
    for (int i = rank + 1; i <= k; i += i & -i) fen[i] += delta;
}

static int fen_prefix(const int *fen, int rank_exclusive) {
    int s = 0;
    for (int i = rank_exclusive; i > 0; i -= i & -i) s += fen[i];
    return s;
}

/* The rank holding the nth (1-based) free object in size order. */
static int fen_nth(const int *fen, int k, int nth) {
    int pos = 0, step = 1;
    while (step <= k / 2) step *= 2;
    for (; step; step /= 2)
        if (pos + step <= k && fen[pos + step] < nth) {
            pos += step;
            nth -= fen[pos];
        }
    return pos;   /* 0-based rank */
}

int vki_plan_greedy_by_size(const vki_plan_tensor *t, int n, int *object_of, int *n_objects) {
    *n_objects = 0;
    if (n == 0) return VKI_PLAN_OK;
    size_t count = (size_t)n;
    tensor_key *order = malloc(sizeof *order * count);
    tensor_key *by_size = malloc(sizeof *by_size * count);
    int *rank_of = malloc(sizeof *rank_of * count);      /* per tensor */
    int *fen = calloc(count + 1, sizeof *fen);
    int *bucket = malloc(sizeof *bucket * count);        /* per rank: top free object, or -1 */
    int *below = malloc(sizeof *below * count);          /* per object: next free one of its rank */
    int *object_rank = malloc(sizeof *object_rank * count);
    release *busy = malloc(sizeof *busy * count);
    int rc = VKI_PLAN_ENOMEM;
    if (!order || !by_size || !rank_of || !fen || !bucket || !below || !object_rank ||
        !busy)
        goto done;

    for (int i = 0; i < n; i++) {
        order[i] = (tensor_key){t[i].size, t[i].first, i};
        by_size[i] = order[i];
    }
    qsort(order, count, sizeof *order, by_first_then_index);
    qsort(by_size, count, sizeof *by_size, by_size_then_index);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0 || by_size[i].size != by_size[i - 1].size) k++;
        rank_of[by_size[i].index] = k - 1;
    }
    for (int r = 0; r < k; r++) bucket[r] = -1;

    int n_busy = 0, n_free = 0, n_obj = 0;
    for (int step = 0; step < n; step++) {
        int i = order[step].index;
        /* Objects whose tensor died before this one starts go back to the pool. */
        while (n_busy && busy[0].last < t[i].first) {
            int obj = heap_pop(busy, &n_busy).object;
            int r = object_rank[obj];
            below[obj] = bucket[r];
            bucket[r] = obj;
            fen_add(fen, k, r, 1);
            n_free++;
        }
        int obj = -1, want = rank_of[i];
        if (n_free) {
            int smaller = fen_prefix(fen, want);
            int r = fen_nth(fen, k, smaller < n_free ? smaller + 1 : n_free);
            obj = bucket[r];
            bucket[r] = below[obj];
            fen_add(fen, k, r, -1);
            n_free--;
            if (object_rank[obj] < want) object_rank[obj] = want;   /* grown to fit */
        } else {
            obj = n_obj++;
            object_rank[obj] = want;
        }
        object_of[i] = obj;
        heap_push(busy, &n_busy, (release){t[i].last, obj});
    }
    *n_objects = n_obj;
    rc = VKI_PLAN_OK;
done:
    free(order);
    free(by_size);
    free(rank_of);
    free(fen);
    free(bucket);
    free(below);
    free(object_rank);
    free(busy);
    return rc;
}
