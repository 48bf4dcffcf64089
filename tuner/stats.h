/* stats.h: measuring and comparing, pure C with no Vulkan, shared by the library, the CLI
 * and the tests: a monotonic clock, the median and spread of repeated timings, the
 * xorshift32 generator that reference inputs come from, and the conformance metric. */
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
