/* stats.c: the clock, timing summaries, warming up until steady, the input generator and
 * the conformance metric. */
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

void vki_warmup_init(vki_warmup *w, int min_runs, double min_ms, double max_ms,
                     double tolerance) {
    *w = (vki_warmup){.min_runs = min_runs > 0 ? min_runs : 0,
                      .min_ms = min_ms > 0 ? min_ms : 0,
                      .max_ms = max_ms > min_ms ? max_ms : (min_ms > 0 ? min_ms : 0),
                      .tolerance = tolerance > 0 ? tolerance : 0};
}

int vki_warmup_add(vki_warmup *w, double run_ms) {
    w->runs++;
    w->elapsed_ms += run_ms;
    if (w->min_ms <= 0 && w->max_ms <= 0) return w->runs >= w->min_runs;   /* by count */
    w->window[w->in_window++] = run_ms;
    w->window_ms += run_ms;
    if ((w->in_window >= VKI_WARMUP_WINDOW_RUNS && w->window_ms >= VKI_WARMUP_WINDOW_MS) ||
        w->in_window == VKI_WARMUP_WINDOW_MAX) {
        double previous = w->median_ms;
        w->median_ms = vki_sample_stats_of(w->window, w->in_window).median;
        w->windows++;
        w->in_window = 0;
        w->window_ms = 0;
        int minimum = w->runs >= w->min_runs && w->elapsed_ms >= w->min_ms;
        if (minimum && w->windows >= 2 &&
            fabs(w->median_ms - previous) <= w->tolerance * previous) {
            w->steady = 1;
            return 1;
        }
    }
    return w->runs >= w->min_runs && w->elapsed_ms >= w->max_ms;
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
