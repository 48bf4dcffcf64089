/* search.h: refines a work-group size on the device by local search (pure C, no Vulkan).
 *
 * The engine supplies a measure callback (the dispatch's GPU time with a candidate size,
 * a median of several timed runs). It times the start and two other shapes, a wide one
 * and a deep one (VKI_WG_SEARCH_STARTS, clipped to the grid), keeps the fastest, then walks
 * to a neighbour (one axis doubled or halved) only when it beats the current size by more
 * than the noise margin, and stops when no neighbour does or the evaluation budget is
 * spent. bench/results/wg_search.txt has the sweeps these defaults were chosen on. */
#ifndef VKI_SEARCH_H
#define VKI_SEARCH_H

#include "workgroup.h"

/* Milliseconds for one run of the dispatch with work group wg; negative when that size
 * cannot run (pipeline creation failed). */
typedef double (*vki_wg_measure)(void *user, const uint32_t wg[3]);

/* The other start points: 128 threads wide in x, and deep in z. */
#define VKI_WG_SEARCH_STARTS {{64, 2, 1}, {8, 4, 4}}

typedef struct vki_wg_search_options {
    double min_gain;             /* a move must be this fraction faster; 0 means 0.01 */
    int max_evaluations;         /* sizes measured at most, the start included; 0 means 24 */
    int single_start;            /* nonzero: climb from start alone */
} vki_wg_search_options;

typedef struct vki_wg_search_result {
    uint32_t wg[3];              /* the size kept */
    double start_ms, best_ms;    /* the start's time and the kept size's */
    int evaluations, moves;
} vki_wg_search_result;

/* The neighbours of wg that the device allows and the grid can use (an axis is not
 * doubled past the grid's extent): up to 6, written to out; returns the count. */
int vki_wg_neighbours(const vki_wg_device *dev, const uint32_t grid[3], const uint32_t wg[3],
                      uint32_t out[6][3]);

/* Hill-climbs from start. A start the device cannot run leaves the result at start with
 * best_ms negative. */
void vki_wg_search(const vki_wg_device *dev, const uint32_t grid[3], const uint32_t start[3],
                   const vki_wg_search_options *options, vki_wg_measure measure, void *user,
                   vki_wg_search_result *out);

#endif
