/* search.c: local search over work-group sizes: neighbours by doubling or halving one
 * axis, a move only when it is faster by more than the noise margin. */
#include "search.h"

#include <string.h>

/* A move must be 1% faster, and at most 24 sizes are timed per dispatch, the starts
 * included. On exhaustive sweeps of ten dispatches of the MediaPipe models on an NVIDIA
 * H200 (bench/results/wg_search.txt), replaying the search on the sweep's timings: the
 * old defaults (5%, the table's start alone) landed within 5% of the best size on 6 of
 * 10, worst 1.078x; 1% with the two extra starts on 10 of 10, worst 1.013x, timing 10 of
 * the 60-200 sizes on average. A 5% margin stopped walks whose single steps gain 2-4%;
 * the extra starts reach wide and deep shapes a climb from the table does not. */
#define DEFAULT_MIN_GAIN 0.01
#define DEFAULT_MAX_EVALUATIONS 24

int vki_wg_neighbours(const vki_wg_device *dev, const uint32_t grid[3], const uint32_t wg[3],
                      uint32_t out[6][3]) {
    int n = 0;
    uint32_t total = wg[0] * wg[1] * wg[2];
    for (int a = 0; a < 3; a++) {
        /* Doubling an axis the grid already fits in only adds idle threads. */
        if (wg[a] < grid[a] && wg[a] * 2 <= dev->max_size[a] && total * 2 <= dev->max_invocations) {
            memcpy(out[n], wg, 3 * sizeof wg[0]);
            out[n++][a] = wg[a] * 2;
        }
        if (wg[a] > 1) {
            memcpy(out[n], wg, 3 * sizeof wg[0]);
            out[n++][a] = wg[a] / 2;
        }
    }
    return n;
}

typedef struct visited {
    uint32_t wg[64][3];
    int n;
} visited;

static int seen(visited *v, const uint32_t wg[3]) {
    for (int i = 0; i < v->n; i++)
        if (!memcmp(v->wg[i], wg, 3 * sizeof wg[0])) return 1;
    if (v->n < 64) memcpy(v->wg[v->n++], wg, 3 * sizeof wg[0]);
    return 0;
}

/* A start shape cut to the grid (no axis past the grid's extent rounded up to a power of
 * two) and to the device's limits. */
static void clip(const vki_wg_device *dev, const uint32_t grid[3], const uint32_t in[3], uint32_t out[3]) {
    for (int a = 0; a < 3; a++) {
        uint32_t lim = 1;
        while (lim < grid[a]) lim *= 2;
        if (dev->max_size[a] && lim > dev->max_size[a]) lim = dev->max_size[a];
        out[a] = in[a] < lim ? in[a] : lim;
    }
    while (dev->max_invocations && out[0] * out[1] * out[2] > dev->max_invocations) {
        int a = out[0] >= out[1] && out[0] >= out[2] ? 0 : out[1] >= out[2] ? 1 : 2;
        out[a] /= 2;
    }
}

void vki_wg_search(const vki_wg_device *dev, const uint32_t grid[3], const uint32_t start[3],
                   const vki_wg_search_options *options, vki_wg_measure measure, void *user,
                   vki_wg_search_result *out) {
    const vki_wg_search_options none = {0}, *o = options ? options : &none;
    double min_gain = o->min_gain > 0 ? o->min_gain : DEFAULT_MIN_GAIN;
    int budget = o->max_evaluations > 0 ? o->max_evaluations : DEFAULT_MAX_EVALUATIONS;
    memset(out, 0, sizeof *out);
    memcpy(out->wg, start, 3 * sizeof start[0]);
    visited v = {.n = 0};
    seen(&v, start);
    out->start_ms = out->best_ms = measure(user, start);
    out->evaluations = 1;
    if (out->best_ms < 0) return;
    static const uint32_t starts[][3] = VKI_WG_SEARCH_STARTS;
    for (size_t i = 0; !o->single_start && i < sizeof starts / sizeof starts[0]; i++) {
        uint32_t s[3];
        clip(dev, grid, starts[i], s);
        if (out->evaluations >= budget || seen(&v, s)) continue;
        double ms = measure(user, s);
        out->evaluations++;
        if (ms >= 0 && ms < out->best_ms * (1.0 - min_gain)) {
            memcpy(out->wg, s, sizeof s);
            out->best_ms = ms;
            out->moves++;
        }
    }
    for (;;) {
        uint32_t next[6][3], best_wg[3];
        int n = vki_wg_neighbours(dev, grid, out->wg, next);
        double best = -1;
        for (int i = 0; i < n && out->evaluations < budget; i++) {
            if (seen(&v, next[i])) continue;
            double ms = measure(user, next[i]);
            out->evaluations++;
            if (ms >= 0 && (best < 0 || ms < best)) {
                best = ms;
                memcpy(best_wg, next[i], sizeof best_wg);
            }
        }
        /* Within the margin is noise: staying put keeps the table's choice. */
        if (best < 0 || best >= out->best_ms * (1.0 - min_gain)) return;
        memcpy(out->wg, best_wg, sizeof best_wg);
        out->best_ms = best;
        out->moves++;
        if (out->evaluations >= budget) return;
    }
}
