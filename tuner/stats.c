/* stats.c: the clock, timing summaries, the input generator and the conformance metric. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

double vki_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

vki_sample_stats vki_sample_stats_of(double *v, int n) {
    vki_sample_stats s = {.n = n > 0 ? n : 0};
    if (n <= 0) return s;
    qsort(v, (size_t)n, sizeof *v, by_value);
    s.min = v[0];
    s.max = v[n - 1];
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.p10 = v[n / 10];
    s.p90 = v[n - 1 - n / 10];
    double sum = 0, sq = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    s.mean = sum / n;
    for (int i = 0; i < n; i++) sq += (v[i] - s.mean) * (v[i] - s.mean);
    s.std = sqrt(sq / n);
    return s;
}

void vki_fill_uniform(float *v, size_t n, uint32_t *state, float lo, float hi) {
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * (float)(vki_xorshift32(state) >> 8) / 16777216.0f;
}

double vki_relative_error(const float *got, const float *want, size_t n, size_t *worst_at) {
    double max_want = 1.0, max_diff = 0.0;
    size_t worst = 0;
    for (size_t k = 0; k < n; k++) {
        if (fabs(want[k]) > max_want) max_want = fabs(want[k]);
        double d = fabs((double)got[k] - (double)want[k]);
        if (!(d <= max_diff)) {
            max_diff = d != d ? INFINITY : d;
            worst = k;
        }
    }
    if (worst_at) *worst_at = worst;
    return max_diff / max_want;
}
