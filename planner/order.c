/* order.c: the order stage (order.h): a memory-aware order of the steps.
 *
 * The peak of an order depends only on which steps are done before each step, so the search
 * runs over sets of done steps (those closed under the dependencies), level by level: a set
 * of k steps keeps the lowest peak of any order that reaches it (f), and every ready step
 * extends it. That dynamic programme is exact (SERENITY, MLSys 2020, does the same over the
 * graph's nodes); the number of sets per level is small for the chains and short branches of
 * convolutional graphs (tens per level on the MediaPipe models), and grows with the width of
 * the graph. When a level holds more sets than the work budget allows, it keeps the ones
 * with the lowest f, then the fewest live bytes (a beam), and the result is no longer proven.
 * Sets whose f reaches the stored order's peak are dropped: only a strictly lower peak is
 * worth a different order, so on graphs where the stored order is already best the search
 * ends after a few levels.
 *
 * Dependencies come from the accesses in stored order: per storage, a write follows every
 * earlier access, a read follows the last earlier write. Reads of one storage may swap. */
#include "order.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_WORK 3e7
#define MAX_BEAM 4096

typedef uint64_t word;

typedef struct prep {
    int n, ns, W;                /* steps, storages, 64-bit words per set of steps */
    const uint64_t *size;
    word *pred;                  /* n x W: the steps each step must follow */
    word *acc;                   /* ns x W: the steps that touch each storage */
    int *touch_at, *touch;       /* CSR per step: the storages it touches */
    int *reuse_at, *reuse_in, *reuse_out;   /* CSR per step: in-place pairs */
    int *succ_at, *succ;         /* CSR per step: the steps that must follow it directly */
} prep;

static void prep_free(prep *P) {
    free(P->pred);
    free(P->acc);
    free(P->touch_at);
    free(P->touch);
    free(P->reuse_at);
    free(P->reuse_in);
    free(P->reuse_out);
    free(P->succ_at);
    free(P->succ);
}

static int by_step_storage(const void *pa, const void *pb) {
    const vki_order_access *a = pa, *b = pb;
    if (a->step != b->step) return a->step < b->step ? -1 : 1;
    return (a->storage > b->storage) - (a->storage < b->storage);
}

static int has(const word *set, int k) { return (int)((set[k >> 6] >> (k & 63)) & 1u); }
static void put(word *set, int k) { set[k >> 6] |= (word)1 << (k & 63); }

static int intersects(const word *a, const word *b, int W) {
    for (int w = 0; w < W; w++)
        if (a[w] & b[w]) return 1;
    return 0;
}

/* a is a subset of b plus step v. */
static int within(const word *a, const word *b, int v, int W) {
    for (int w = 0; w < W; w++) {
        word extra = w == (v >> 6) ? (word)1 << (v & 63) : 0;
        if (a[w] & ~(b[w] | extra)) return 0;
    }
    return 1;
}

static int prepare(const vki_order_problem *p, prep *P) {
    memset(P, 0, sizeof *P);
    P->n = p->n_steps;
    P->ns = p->n_storages;
    P->W = (p->n_steps + 63) / 64;
    P->size = p->size;
    size_t W = (size_t)(P->W ? P->W : 1), n = (size_t)(P->n ? P->n : 1);
    size_t ns = (size_t)(P->ns ? P->ns : 1), na = (size_t)(p->n_access ? p->n_access : 1);
    size_t nr = (size_t)(p->n_reuse ? p->n_reuse : 1);
    vki_order_access *acc = malloc(sizeof *acc * na);
    word *readers = calloc(ns * W, sizeof *readers);
    int *last_write = malloc(sizeof *last_write * ns);
    P->pred = calloc(n * W, sizeof *P->pred);
    P->acc = calloc(ns * W, sizeof *P->acc);
    P->touch_at = calloc(n + 1, sizeof *P->touch_at);
    P->touch = malloc(sizeof *P->touch * na);
    P->reuse_at = calloc(n + 1, sizeof *P->reuse_at);
    P->reuse_in = malloc(sizeof *P->reuse_in * nr);
    P->reuse_out = malloc(sizeof *P->reuse_out * nr);
    int ok = acc && readers && last_write && P->pred && P->acc && P->touch_at && P->touch &&
             P->reuse_at && P->reuse_in && P->reuse_out;
    if (ok) {
        if (p->n_access) memcpy(acc, p->access, sizeof *acc * (size_t)p->n_access);
        qsort(acc, (size_t)p->n_access, sizeof *acc, by_step_storage);
        for (int r = 0; r < P->ns; r++) last_write[r] = -1;
        int m = 0;
        for (int i = 0; i < p->n_access;) {
            /* One access per (step, storage): a write if any of them writes. */
            int k = acc[i].step, r = acc[i].storage, writes = 0;
            for (; i < p->n_access && acc[i].step == k && acc[i].storage == r; i++)
                writes |= acc[i].writes != 0;
            word *pk = P->pred + (size_t)k * W, *rd = readers + (size_t)r * W;
            if (last_write[r] >= 0) put(pk, last_write[r]);
            if (writes) {
                for (size_t w = 0; w < W; w++) pk[w] |= rd[w], rd[w] = 0;
                last_write[r] = k;
            } else {
                put(rd, k);
            }
            put(P->acc + (size_t)r * W, k);
            P->touch[m++] = r;
            P->touch_at[k + 1]++;
        }
        for (int k = 0; k < P->n; k++) P->touch_at[k + 1] += P->touch_at[k];
        /* touch[] was filled in step order, so the prefix sums index it directly. */
        for (int i = 0; i < p->n_reuse; i++) P->reuse_at[p->reuse[i].step + 1]++;
        for (int k = 0; k < P->n; k++) P->reuse_at[k + 1] += P->reuse_at[k];
        int *fill = calloc(n, sizeof *fill);
        if (!fill) ok = 0;
        for (int i = 0; ok && i < p->n_reuse; i++) {
            int k = p->reuse[i].step, at = P->reuse_at[k] + fill[k]++;
            P->reuse_in[at] = p->reuse[i].in;
            P->reuse_out[at] = p->reuse[i].out;
        }
        free(fill);
        /* Successors, from the predecessor sets: O(n^2), as the sets themselves. */
        P->succ_at = calloc(n + 1, sizeof *P->succ_at);
        int *at = calloc(n + 1, sizeof *at);
        if (!P->succ_at || !at) ok = 0;
        for (int u = 0; ok && u < P->n; u++)
            for (int v = 0; v < P->n; v++)
                if (has(P->pred + (size_t)u * W, v)) P->succ_at[v + 1]++;
        for (int v = 0; ok && v < P->n; v++) P->succ_at[v + 1] += P->succ_at[v], at[v] = P->succ_at[v];
        P->succ = ok ? malloc(sizeof *P->succ * (size_t)(P->succ_at[P->n] ? P->succ_at[P->n] : 1)) : NULL;
        if (!P->succ) ok = 0;
        for (int u = 0; ok && u < P->n; u++)
            for (int v = 0; v < P->n; v++)
                if (has(P->pred + (size_t)u * W, v)) P->succ[at[v]++] = u;
        free(at);
    }
    free(acc);
    free(readers);
    free(last_write);
    if (!ok) prep_free(P);
    return ok ? 0 : -1;
}

/* Step v after the steps in done: the bytes live while it runs (live = those live between
 * steps before it) and those live after it (*after). */
static uint64_t step_cost(const prep *P, const word *done, int v, uint64_t live, uint64_t *after) {
    uint64_t starts = 0, ends = 0, saved = 0;
    for (int i = P->touch_at[v]; i < P->touch_at[v + 1]; i++) {
        int r = P->touch[i];
        const word *a = P->acc + (size_t)r * (size_t)P->W;
        if (!intersects(a, done, P->W)) starts += P->size[r];
        if (within(a, done, v, P->W)) ends += P->size[r];
    }
    for (int i = P->reuse_at[v]; i < P->reuse_at[v + 1] && !saved; i++) {
        const word *in = P->acc + (size_t)P->reuse_in[i] * (size_t)P->W;
        const word *out = P->acc + (size_t)P->reuse_out[i] * (size_t)P->W;
        if (within(in, done, v, P->W) && intersects(in, done, P->W) && !intersects(out, done, P->W))
            saved = P->size[P->reuse_out[i]];
    }
    *after = live + starts - ends;
    return live + starts - saved;
}

static int valid(const vki_order_problem *p) {
    if (!p || p->n_steps < 0 || p->n_storages < 0 || p->n_access < 0 || p->n_reuse < 0) return 0;
    if ((p->n_storages && !p->size) || (p->n_access && !p->access) || (p->n_reuse && !p->reuse))
        return 0;
    for (int i = 0; i < p->n_access; i++)
        if (p->access[i].step < 0 || p->access[i].step >= p->n_steps || p->access[i].storage < 0 ||
            p->access[i].storage >= p->n_storages)
            return 0;
    for (int i = 0; i < p->n_reuse; i++) {
        const vki_order_reuse *u = &p->reuse[i];
        if (u->step < 0 || u->step >= p->n_steps || u->in < 0 || u->in >= p->n_storages ||
            u->out < 0 || u->out >= p->n_storages || u->in == u->out || p->size[u->in] != p->size[u->out])
            return 0;
    }
    /* Live sums must not wrap. */
    uint64_t sum = 0;
    for (int r = 0; r < p->n_storages; r++) {
        if (p->size[r] > UINT64_MAX - sum) return 0;
        sum += p->size[r];
    }
    return 1;
}

static uint64_t peak_of(const prep *P, const int *order, word *done) {
    memset(done, 0, sizeof *done * (size_t)(P->W ? P->W : 1));
    uint64_t live = 0, peak = 0;
    for (int i = 0; i < P->n; i++) {
        int v = order[i];
        if (v < 0 || v >= P->n || has(done, v)) return UINT64_MAX;
        for (int w = 0; w < P->W; w++)
            if (P->pred[(size_t)v * (size_t)P->W + w] & ~done[w]) return UINT64_MAX;
        uint64_t after, cost = step_cost(P, done, v, live, &after);
        if (cost > peak) peak = cost;
        live = after;
        put(done, v);
    }
    return peak;
}

uint64_t vki_order_peak(const vki_order_problem *p, const int *order) {
    if (!valid(p) || (p->n_steps && !order)) return UINT64_MAX;
    prep P;
    if (prepare(p, &P)) return UINT64_MAX;
    word *done = malloc(sizeof *done * (size_t)(P.W ? P.W : 1));
    uint64_t peak = done ? peak_of(&P, order, done) : UINT64_MAX;
    free(done);
    prep_free(&P);
    return peak;
}

/* ---- the search ------------------------------------------------------------------------- */

/* One level's sets: bits (count x W), f, live bytes, and where each came from. */
typedef struct level {
    word *bits, *ready;          /* count x W each: the done steps, the steps that may run */
    uint64_t *f, *live;
    int *from, *step;            /* index in the previous level, the step added */
    int count, cap;
    int *table;                  /* open addressing: index + 1, 0 = empty */
    int table_size;
} level;

typedef struct history {         /* every kept set of every level, for the order at the end */
    int *from, *step;
    int count, cap;
} history;

static void level_free(level *L) {
    free(L->bits);
    free(L->ready);
    free(L->f);
    free(L->live);
    free(L->from);
    free(L->step);
    free(L->table);
    memset(L, 0, sizeof *L);
}

static uint64_t hash_set(const word *s, int W) {
    uint64_t h = 0x9E3779B97F4A7C15u;
    for (int w = 0; w < W; w++) h = (h ^ s[w]) * 0xFF51AFD7ED558CCDu, h ^= h >> 29;
    return h;
}

static int level_grow(level *L, int W) {
    if (L->count < L->cap) return 0;
    int cap = L->cap ? L->cap * 2 : 64;
    word *bits = realloc(L->bits, sizeof *bits * (size_t)cap * (size_t)W);
    if (bits) L->bits = bits;
    word *ready = realloc(L->ready, sizeof *ready * (size_t)cap * (size_t)W);
    if (ready) L->ready = ready;
    uint64_t *f = realloc(L->f, sizeof *f * (size_t)cap);
    if (f) L->f = f;
    uint64_t *live = realloc(L->live, sizeof *live * (size_t)cap);
    if (live) L->live = live;
    int *from = realloc(L->from, sizeof *from * (size_t)cap);
    if (from) L->from = from;
    int *step = realloc(L->step, sizeof *step * (size_t)cap);
    if (step) L->step = step;
    if (!bits || !ready || !f || !live || !from || !step) return -1;
    L->cap = cap;
    return 0;
}

static int table_rebuild(level *L, int W) {
    int size = 64;
    while (size < 2 * (L->count + 1)) size *= 2;
    free(L->table);
    L->table = calloc((size_t)size, sizeof *L->table);
    if (!L->table) return -1;
    L->table_size = size;
    for (int i = 0; i < L->count; i++) {
        size_t h = (size_t)hash_set(L->bits + (size_t)i * (size_t)W, W) & (size_t)(size - 1);
        while (L->table[h]) h = (h + 1) & (size_t)(size - 1);
        L->table[h] = i + 1;
    }
    return 0;
}

/* Adds the set s (with its ready steps) with f and live, or lowers f of the copy already
 * there. */
static int level_offer(level *L, int W, const word *s, const word *ready, uint64_t f,
                       uint64_t live, int from, int step) {
    if (2 * (L->count + 1) > L->table_size && table_rebuild(L, W)) return -1;
    size_t mask = (size_t)(L->table_size - 1), h = (size_t)hash_set(s, W) & mask;
    for (; L->table[h]; h = (h + 1) & mask) {
        int i = L->table[h] - 1;
        if (memcmp(L->bits + (size_t)i * (size_t)W, s, sizeof *s * (size_t)W)) continue;
        if (f < L->f[i]) L->f[i] = f, L->from[i] = from, L->step[i] = step;
        return 0;
    }
    if (level_grow(L, W)) return -1;
    int i = L->count++;
    memcpy(L->bits + (size_t)i * (size_t)W, s, sizeof *s * (size_t)W);
    memcpy(L->ready + (size_t)i * (size_t)W, ready, sizeof *ready * (size_t)W);
    L->f[i] = f;
    L->live[i] = live;
    L->from[i] = from;
    L->step[i] = step;
    L->table[h] = i + 1;
    return 0;
}

typedef struct rank_key {
    uint64_t f, live;
    int index;
} rank_key;

static int by_f_live_index(const void *pa, const void *pb) {
    const rank_key *a = pa, *b = pb;
    if (a->f != b->f) return a->f < b->f ? -1 : 1;
    if (a->live != b->live) return a->live < b->live ? -1 : 1;
    return a->index - b->index;
}

/* Keeps the beam best sets of L (in place), in their first-found order. */
static int level_trim(level *L, int W, int beam) {
    rank_key *keys = malloc(sizeof *keys * (size_t)L->count);
    unsigned char *keep = calloc((size_t)L->count, 1);
    if (!keys || !keep) { free(keys); free(keep); return -1; }
    for (int i = 0; i < L->count; i++) keys[i] = (rank_key){L->f[i], L->live[i], i};
    qsort(keys, (size_t)L->count, sizeof *keys, by_f_live_index);
    for (int i = 0; i < beam; i++) keep[keys[i].index] = 1;
    int m = 0;
    for (int i = 0; i < L->count; i++) {
        if (!keep[i]) continue;
        memmove(L->bits + (size_t)m * (size_t)W, L->bits + (size_t)i * (size_t)W, sizeof *L->bits * (size_t)W);
        memmove(L->ready + (size_t)m * (size_t)W, L->ready + (size_t)i * (size_t)W, sizeof *L->ready * (size_t)W);
        L->f[m] = L->f[i];
        L->live[m] = L->live[i];
        L->from[m] = L->from[i];
        L->step[m] = L->step[i];
        m++;
    }
    L->count = m;
    free(keys);
    free(keep);
    return 0;
}

static int history_add(history *H, const level *L, int base_of_previous) {
    if (H->count + L->count > H->cap) {
        int cap = H->cap ? H->cap : 256;
        while (cap < H->count + L->count) cap *= 2;
        int *from = realloc(H->from, sizeof *from * (size_t)cap);
        if (from) H->from = from;
        int *step = realloc(H->step, sizeof *step * (size_t)cap);
        if (step) H->step = step;
        if (!from || !step) return -1;
        H->cap = cap;
    }
    for (int i = 0; i < L->count; i++) {
        H->from[H->count + i] = L->from[i] < 0 ? -1 : base_of_previous + L->from[i];
        H->step[H->count + i] = L->step[i];
    }
    H->count += L->count;
    return 0;
}

/* The search proper; *found is set when an order with a peak below `below` came out.
 * Work is counted in word operations as it goes: a set costs W per ready step to copy, plus
 * the successor and storage checks of each child. The beam is sized for the budget
 * assuming four ready steps of four successors and accesses per set; a search that runs
 * past the budget anyway stops and keeps the stored order. Counting (not timing) keeps the
 * order the same on every machine. */
static int search(const prep *P, double work_budget, uint64_t below, int *order, uint64_t *peak,
                  int *found, int *exact) {
    const int n = P->n, W = P->W;
    double per_set = 4.0 * (3.0 + 8.0) * (double)(W ? W : 1) + 16.0;
    double beam_d = work_budget / ((double)(n ? n : 1) * per_set), work = 0.0;
    int beam = beam_d > MAX_BEAM ? MAX_BEAM : beam_d < 1.0 ? 1 : (int)beam_d;
    level cur = {0}, next = {0};
    history H = {0};
    size_t ws = (size_t)(W ? W : 1);
    word *child = calloc(ws, sizeof *child), *ready = calloc(ws, sizeof *ready);
    int rc = -1, base = 0;
    *found = 0;
    *exact = 1;
    if (!child || !ready) goto done;
    for (int v = 0; v < n; v++) {
        int free_step = 1;
        for (int w = 0; w < W && free_step; w++) free_step = !P->pred[(size_t)v * ws + (size_t)w];
        if (free_step) put(ready, v);
    }
    if (level_offer(&cur, W, child, ready, 0, 0, -1, -1) || history_add(&H, &cur, 0)) goto done;
    for (int depth = 0; depth < n && cur.count; depth++) {
        next.count = 0;
        if (next.table) memset(next.table, 0, sizeof *next.table * (size_t)next.table_size);
        for (int i = 0; i < cur.count; i++) {
            const word *s = cur.bits + (size_t)i * ws, *rs = cur.ready + (size_t)i * ws;
            for (int w = 0; w < W; w++) {
                for (word bitsleft = rs[w]; bitsleft; bitsleft &= bitsleft - 1) {
                    int v = w * 64;
                    for (word low = bitsleft & (~bitsleft + 1); low > 1; low >>= 1) v++;
                    uint64_t after, cost = step_cost(P, s, v, cur.live[i], &after);
                    uint64_t f = cost > cur.f[i] ? cost : cur.f[i];
                    work += (double)(P->touch_at[v + 1] - P->touch_at[v] + 1) * 2.0 * W;
                    if (f >= below) continue;
                    memcpy(child, s, sizeof *child * ws);
                    put(child, v);
                    memcpy(ready, rs, sizeof *ready * ws);
                    ready[v >> 6] &= ~((word)1 << (v & 63));
                    for (int e = P->succ_at[v]; e < P->succ_at[v + 1]; e++) {
                        int u = P->succ[e], ok = 1;
                        const word *pu = P->pred + (size_t)u * ws;
                        for (int x = 0; x < W && ok; x++) ok = !(pu[x] & ~child[x]);
                        if (ok) put(ready, u);
                    }
                    work += (double)(P->succ_at[v + 1] - P->succ_at[v] + 3) * W;
                    if (level_offer(&next, W, child, ready, f, after, i, v)) goto done;
                }
            }
        }
        if (next.count > beam) {
            *exact = 0;
            if (level_trim(&next, W, beam) || table_rebuild(&next, W)) goto done;
        }
        if (work > work_budget) {      /* past the budget: keep the stored order */
            *exact = 0;
            rc = 0;
            goto done;
        }
        base = H.count - cur.count;
        if (history_add(&H, &next, base)) goto done;
        level tmp = cur;
        cur = next;
        next = tmp;
    }
    if (cur.count == 1 && n > 0 && H.count >= 1) {
        /* The full set: walk back through the history. */
        int at = H.count - 1;
        for (int k = n - 1; k >= 0; k--) {
            order[k] = H.step[at];
            at = H.from[at];
        }
        *peak = cur.f[0];
        *found = 1;
    }
    rc = 0;
done:
    level_free(&cur);
    level_free(&next);
    free(H.from);
    free(H.step);
    free(child);
    free(ready);
    return rc;
}

int vki_order_make(const vki_order_problem *p, const vki_order_options *o, int *order,
                   vki_order_result *out) {
    vki_order_result res = {0};
    if (out) *out = res;
    if (!valid(p) || (p->n_steps && !order)) return -1;
    for (int k = 0; k < p->n_steps; k++) order[k] = k;
    prep P;
    if (prepare(p, &P)) return -1;
    word *done = malloc(sizeof *done * (size_t)(P.W ? P.W : 1));
    int *found_order = malloc(sizeof *found_order * (size_t)(P.n ? P.n : 1));
    int rc = -1;
    if (done && found_order) {
        res.stored_peak = res.peak = peak_of(&P, order, done);
        double work = o && o->work_budget > 0 ? o->work_budget : DEFAULT_WORK;
        uint64_t peak = 0;
        int found = 0, exact = 0;
        rc = search(&P, work, res.stored_peak, found_order, &peak, &found, &exact);
        if (!rc) {
            res.exact = exact;
            if (found && peak < res.stored_peak) {
                memcpy(order, found_order, sizeof *order * (size_t)P.n);
                res.peak = peak;
                for (int k = 0; k < P.n; k++) res.changed |= order[k] != k;
            }
        }
    }
    free(done);
    free(found_order);
    prep_free(&P);
    if (out) *out = res;
    return rc;
}
