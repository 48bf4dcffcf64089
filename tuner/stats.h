/* stats.h: measuring and comparing, pure C with no Vulkan, shared by the library, the CLI
 * and the tests: a monotonic clock, the median and spread of repeated timings, warming up
 * until timings are steady, the xorshift32 generator that reference inputs come from, and
 * the conformance metric. */
#ifndef VKI_STATS_H
#define VKI_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds on a monotonic clock (CLOCK_MONOTONIC where the platform has it). */
double vki_now_ms(void);

typedef struct vki_sample_stats {
    int n;
    double median, min, max;
    double p10, p90;             /* the 10th and 90th percentiles, nearest rank */
    double mean, std;            /* population standard deviation */
} vki_sample_stats;

/* Sorts samples[0..n) in place and summarises them; n = 0 gives all zeros. */
vki_sample_stats vki_sample_stats_of(double *samples, int n);

/* Warming up by time until the latency is steady. A GPU that has idled (after a compile,
 * a tuning sweep, a host-side pause) runs at a low clock and takes a while to climb: an
 * H100 idles at 345 MHz and boosts to 1980 MHz, and right after a cold build a model's
 * first 200 runs had p90 3.5 times the median. A count of warm-up runs cannot know how
 * long that is; this watches the runs instead. Feed every warm-up run's time to
 * vki_warmup_add until it returns 1:
 *   - at least min_runs runs and min_ms milliseconds (the sum of the runs' times) first;
 *   - then until steady: the runs are cut into windows of at least VKI_WARMUP_WINDOW_RUNS
 *     runs and VKI_WARMUP_WINDOW_MS ms, and the last two windows' medians differ by at
 *     most tolerance (a fraction of the earlier one);
 *   - or max_ms has passed (then steady stays 0: say so beside the figures).
 * min_ms 0 and max_ms 0 warm up by count alone (min_runs runs; steady 0). */
#define VKI_WARMUP_WINDOW_RUNS 5
#define VKI_WARMUP_WINDOW_MS 50.0
#define VKI_WARMUP_WINDOW_MAX 4096  /* a window closes at this many runs whatever its time */

typedef struct vki_warmup {
    int min_runs;
    double min_ms, max_ms, tolerance;
    int runs;                    /* so far */
    double elapsed_ms;           /* so far: the sum of the runs' times */
    int steady;                  /* 1 once two windows agreed */
    double median_ms;            /* the last closed window's median (0 before one) */
    int in_window, windows;
    double window_ms;
    double window[VKI_WARMUP_WINDOW_MAX];
} vki_warmup;

void vki_warmup_init(vki_warmup *w, int min_runs, double min_ms, double max_ms,
                     double tolerance);

/* Adds one run's time; returns 1 when the warm-up is over (no more runs needed). */
int vki_warmup_add(vki_warmup *w, double run_ms);

/* One step of Marsaglia's xorshift32 (13, 17, 5); a zero state stays zero, so seed != 0. */
static inline uint32_t vki_xorshift32(uint32_t *state) {
    uint32_t s = *state;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return *state = s;
}

/* n values in [lo, hi): lo + (hi - lo) * (top 24 bits of the next state) / 2^24. With
 * *state = 0x12345678 and [-1, 1) this is the generator of the reference runner that wrote
 * tests/data/ref, so default inputs match its outputs. */
void vki_fill_uniform(float *v, size_t n, uint32_t *state, float lo, float hi);

/* The conformance metric: max|got - want| / max(max|want|, 1); a NaN difference counts
 * as infinitely far. *worst_at (may be NULL) gets the index of the largest difference. */
double vki_relative_error(const float *got, const float *want, size_t n, size_t *worst_at);

#endif
