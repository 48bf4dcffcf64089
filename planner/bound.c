/* bound.c: the lower bound every plan is judged against: the largest sum of sizes of the
 * tensors live at one step. Its own file so that planner.c (which reports it) and
 * optimal.c (which prunes with it) both depend on it and not on each other. */
#include "internal.h"

#include <stdlib.h>

typedef struct live_event {
    long long at;       /* a step; last + 1 for a release, in 64 bits so INT_MAX cannot wrap */
    int is_start;
    uint64_t size;
} live_event;

static int by_step_releases_first(const void *pa, const void *pb) {
    const live_event *a = pa, *b = pb;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return a->is_start - b->is_start;
}

/* A sweep over starts and releases; the running sum is kept in two words because live sizes
 * can add past 2^64 even when each fits, and a saturated sum could not be decremented. */
uint64_t vki_plan_lower_bound(const vki_plan_tensor *t, int n) {
    if (!t || n <= 0) return 0;
    live_event *ev = malloc(sizeof *ev * 2 * (size_t)n);
    uint64_t best_lo = 0, best_hi = 0;
    if (!ev) {
        /* No memory for the sweep: fall back to checking every tensor's first step. */
        for (int i = 0; i < n; i++) {
            if (t[i].first > t[i].last) continue;
            uint64_t lo = 0, hi = 0;
            for (int j = 0; j < n; j++)
                if (t[j].first <= t[j].last && t[j].first <= t[i].first && t[i].first <= t[j].last) {
                    lo += t[j].size;
                    if (lo < t[j].size) hi++;
                }
            if (hi > best_hi || (hi == best_hi && lo > best_lo)) { best_hi = hi; best_lo = lo; }
        }
        return best_hi ? UINT64_MAX : best_lo;
    }
    int ne = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].first > t[i].last) continue;
        ev[ne++] = (live_event){t[i].first, 1, t[i].size};
        ev[ne++] = (live_event){(long long)t[i].last + 1, 0, t[i].size};
    }
    qsort(ev, (size_t)ne, sizeof *ev, by_step_releases_first);
    uint64_t lo = 0, hi = 0;
    for (int e = 0; e < ne; e++) {
        if (ev[e].is_start) {
            lo += ev[e].size;
            if (lo < ev[e].size) hi++;
            if (hi > best_hi || (hi == best_hi && lo > best_lo)) { best_hi = hi; best_lo = lo; }
        } else {
            if (lo < ev[e].size) hi--;
            lo -= ev[e].size;
        }
    }
    free(ev);
    return best_hi ? UINT64_MAX : best_lo;
}

