/* test_tuner.c: work-group tuning. The local search (pure C) on synthetic cost surfaces,
 * warming up until steady (tuner/stats.h) on synthetic run times, the tuning file's round
 * trip and its tolerance of damage, and on the device: a tuned
 * graph computes what the untuned one does, and a second build takes every size from the
 * file. */
#include "../tuner/search.h"
#include "../tuner/stats.h"
#include "../tuner/store.h"
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* By count alone (no times): exactly min_runs runs. */
Test(warmup, by_count) {
    static vki_warmup w;
    vki_warmup_init(&w, 10, 0, 0, 0.05);
    int r = 0;
    while (!vki_warmup_add(&w, 1.0)) r++;
    cr_expect_eq(w.runs, 10);
    cr_expect_eq(r, 9);
    cr_expect_eq(w.steady, 0);
}

/* A clock ramp: runs take 3 ms, falling linearly to 1 ms over the first 400 ms, then 1 ms.
 * Warm-up must not end on the ramp, even after min_ms (200): the windows' medians still
 * fall by more than 5%. It ends steady within a few windows of the ramp's end. */
Test(warmup, waits_out_a_clock_ramp) {
    static vki_warmup w;
    vki_warmup_init(&w, 10, 200, 5000, 0.05);
    double t = 0;
    int ramp_runs = 0;
    for (;;) {
        double ms = t < 400 ? 3.0 - 2.0 * t / 400 : 1.0;
        ramp_runs += t < 400;
        t += ms;
        if (vki_warmup_add(&w, ms)) break;
    }
    cr_expect_eq(w.steady, 1);
    cr_expect_gt(w.runs, ramp_runs, "stopped on the ramp after %d runs", w.runs);
    cr_expect_geq(w.elapsed_ms, 400);
    cr_expect_leq(w.elapsed_ms, 400 + 3 * VKI_WARMUP_WINDOW_MS + 10, "%.1f", w.elapsed_ms);
    cr_expect(fabs(w.median_ms - 1.0) < 1e-9, "%.4f", w.median_ms);
}

/* Steady from the start: done at min_ms (rounded up to a window), not before min_runs. */
Test(warmup, steady_ends_at_the_minimum) {
    static vki_warmup w;
    vki_warmup_init(&w, 100, 120, 5000, 0.05);
    while (!vki_warmup_add(&w, 2.0)) {}
    cr_expect_eq(w.steady, 1);
    cr_expect_geq(w.runs, 100);
    cr_expect_leq(w.elapsed_ms, 200 + VKI_WARMUP_WINDOW_MS, "%.1f", w.elapsed_ms);
}

/* Never steady (windows alternate 1 ms and 2 ms): ends at max_ms, not steady. Slow runs
 * longer than a window still make windows of VKI_WARMUP_WINDOW_RUNS runs. */
Test(warmup, gives_up_at_the_maximum) {
    static vki_warmup w;
    vki_warmup_init(&w, 0, 100, 1000, 0.05);
    int window = 0, in = 0;
    double ms = 1.0, sum = 0;
    while (!vki_warmup_add(&w, ms)) {
        sum += ms;
        if (++in >= VKI_WARMUP_WINDOW_RUNS && sum >= VKI_WARMUP_WINDOW_MS) {
            in = 0;
            sum = 0;
            window++;
            ms = window % 2 ? 2.0 : 1.0;
        }
    }
    cr_expect_eq(w.steady, 0);
    cr_expect_geq(w.elapsed_ms, 1000);
    cr_expect_lt(w.elapsed_ms, 1003);
    static vki_warmup slow;
    vki_warmup_init(&slow, 0, 1, 10000, 0.05);
    while (!vki_warmup_add(&slow, 100.0)) {}
    cr_expect_eq(slow.steady, 1);
    cr_expect_eq(slow.runs, 2 * VKI_WARMUP_WINDOW_RUNS);
}

static const vki_wg_device device = {.max_invocations = 256, .max_size = {256, 64, 16}};
static const uint32_t big_grid[3] = {1024, 1024, 64};

Test(search, neighbours_respect_limits_and_grid) {
    uint32_t out[6][3];
    uint32_t wg[3] = {16, 16, 1};
    int n = vki_wg_neighbours(&device, big_grid, wg, out);
    /* 16*16 = 256 = max_invocations: no doubling; halving x or y; z is 1. */
    cr_assert_eq(n, 2);
    for (int i = 0; i < n; i++) cr_assert(out[i][0] * out[i][1] * out[i][2] <= 128);
    uint32_t grid[3] = {8, 1, 1}, small[3] = {8, 1, 1};
    n = vki_wg_neighbours(&device, grid, small, out);
    cr_assert_eq(n, 1, "x already covers the grid; y and z are 1");
    cr_assert_eq(out[0][0], 4);
    uint32_t tall[3] = {1, 64, 1};
    n = vki_wg_neighbours(&device, big_grid, tall, out);
    for (int i = 0; i < n; i++) cr_assert(out[i][1] <= 64, "max_size[1] is 64");
}

typedef struct surface { int calls; double noise; uint32_t seed; } surface;

/* A bowl with its minimum at (16, 4, 1), plus optional noise. */
static double bowl(void *user, const uint32_t wg[3]) {
    surface *s = user;
    s->calls++;
    double x = log2(wg[0]) - 4, y = log2(wg[1]) - 2, z = log2(wg[2]);
    s->seed = s->seed * 1664525u + 1013904223u;
    return 1.0 + x * x + y * y + z * z + s->noise * ((double)(s->seed >> 8) / 16777216.0);
}

Test(search, walks_down_a_bowl) {
    surface s = {0};
    uint32_t start[3] = {1, 1, 1};
    vki_wg_search_options o = {.single_start = 1};
    vki_wg_search_result r;
    vki_wg_search(&device, big_grid, start, &o, bowl, &s, &r);
    cr_assert(r.wg[0] == 16 && r.wg[1] == 4 && r.wg[2] == 1, "ended at %ux%ux%u", r.wg[0], r.wg[1], r.wg[2]);
    cr_assert_eq(r.best_ms, 1.0);
    cr_assert_eq(r.start_ms, 1.0 + 16 + 4);
    cr_assert_eq(r.evaluations, s.calls);
    cr_assert(r.moves >= 6);
}

static double flat(void *user, const uint32_t wg[3]) {
    surface *s = user;
    s->calls++;
    s->seed = s->seed * 1664525u + 1013904223u;
    (void)wg;
    /* Within 0.9% of 10 ms, inside the default 1% margin: noise, not a better size. */
    return 10.0 * (1.0 - 0.009 * (double)(s->seed >> 8) / 16777216.0);
}

Test(search, noise_is_not_a_move) {
    surface s = {.seed = 7};
    uint32_t start[3] = {8, 8, 1};
    vki_wg_search_result r;
    vki_wg_search(&device, big_grid, start, NULL, flat, &s, &r);
    cr_assert_eq(r.moves, 0);
    cr_assert(r.wg[0] == 8 && r.wg[1] == 8 && r.wg[2] == 1);
}

/* Two basins: a shallow one around the start (8x8x1) and the deepest at 8x4x8, behind a
 * ridge at z = 2 that a climb from the start does not cross. */
static double two_basins(void *user, const uint32_t wg[3]) {
    surface *s = user;
    s->calls++;
    double x = log2(wg[0]) - 3, y = log2(wg[1]) - 2, z = log2(wg[2]);
    if (wg[2] <= 1) return 5.0 + x * x + (log2(wg[1]) - 3) * (log2(wg[1]) - 3);
    if (wg[2] == 2) return 9.0;
    return 1.0 + x * x + y * y + (z - 3) * (z - 3);
}

Test(search, other_starts_find_a_basin_the_climb_misses) {
    surface s = {0};
    uint32_t start[3] = {8, 8, 1};
    vki_wg_search_options one = {.single_start = 1};
    vki_wg_search_result r;
    vki_wg_search(&device, big_grid, start, &one, two_basins, &s, &r);
    cr_assert(r.wg[0] == 8 && r.wg[1] == 8 && r.wg[2] == 1, "climb alone: %ux%ux%u", r.wg[0], r.wg[1], r.wg[2]);
    s.calls = 0;
    vki_wg_search(&device, big_grid, start, NULL, two_basins, &s, &r);
    /* The deep start (8x4x4) lands in the far basin; the climb ends at its floor. */
    cr_assert(r.wg[0] == 8 && r.wg[1] == 4 && r.wg[2] == 8, "with starts: %ux%ux%u", r.wg[0], r.wg[1], r.wg[2]);
    cr_assert_eq(r.best_ms, 1.0);
    cr_assert_eq(r.start_ms, 5.0);
    cr_assert_eq(r.evaluations, s.calls);
    cr_assert(r.evaluations <= 24);
}

typedef struct trail { int n; uint32_t wg[64][3]; } trail;

static double logging(void *user, const uint32_t wg[3]) {
    trail *t = user;
    if (t->n < 64) memcpy(t->wg[t->n++], wg, sizeof t->wg[0]);
    return 1.0;
}

Test(search, starts_are_clipped_to_the_grid_and_limits) {
    static const uint32_t small_grid[3] = {3, 5, 1};
    static const vki_wg_device tiny = {.max_invocations = 16, .max_size = {16, 16, 2}};
    uint32_t start[3] = {2, 2, 1};
    trail t = {0};
    vki_wg_search_result r;
    vki_wg_search(&device, small_grid, start, NULL, logging, &t, &r);
    cr_assert(t.n >= 3, "the start and two others first");
    cr_assert(t.wg[1][0] == 4 && t.wg[1][1] == 2 && t.wg[1][2] == 1, "wide: %ux%ux%u", t.wg[1][0],
              t.wg[1][1], t.wg[1][2]);
    cr_assert(t.wg[2][0] == 4 && t.wg[2][1] == 4 && t.wg[2][2] == 1, "deep: %ux%ux%u", t.wg[2][0],
              t.wg[2][1], t.wg[2][2]);
    static const uint32_t big[3] = {1000, 1000, 100};
    t.n = 0;
    vki_wg_search(&tiny, big, start, NULL, logging, &t, &r);
    for (int i = 1; i < 3; i++)
        cr_assert(t.wg[i][0] * t.wg[i][1] * t.wg[i][2] <= 16 && t.wg[i][0] <= 16 && t.wg[i][2] <= 2,
                  "start %d: %ux%ux%u past the device's limits", i, t.wg[i][0], t.wg[i][1], t.wg[i][2]);
}

Test(search, budget_is_kept) {
    surface s = {0};
    uint32_t start[3] = {1, 1, 1};
    vki_wg_search_options o = {.max_evaluations = 5};
    vki_wg_search_result r;
    vki_wg_search(&device, big_grid, start, &o, bowl, &s, &r);
    cr_assert_eq(s.calls, 5);
    cr_assert_eq(r.evaluations, 5);
}

static double cannot_run(void *user, const uint32_t wg[3]) {
    (void)user;
    (void)wg;
    return -1;
}

Test(search, a_start_that_cannot_run_stays) {
    uint32_t start[3] = {4, 4, 4};
    vki_wg_search_result r;
    vki_wg_search(&device, big_grid, start, NULL, cannot_run, NULL, &r);
    cr_assert(r.best_ms < 0);
    cr_assert(r.wg[0] == 4 && r.wg[1] == 4 && r.wg[2] == 4);
    cr_assert_eq(r.evaluations, 1);
}

static char *temp_path(const char *name) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/vki_test_%d_%s", (int)getpid(), name);
    return path;
}

Test(store, round_trip_and_later_lines_win) {
    vki_wg_store s = {0};
    uint32_t a[3] = {8, 4, 2}, b[3] = {32, 1, 1};
    cr_assert(vki_wg_store_put(&s, 0x1234u, a, 1.5));
    cr_assert(vki_wg_store_put(&s, 0xfedcba9876543210ull, b, 0.25));
    cr_assert(vki_wg_store_put(&s, 0x1234u, b, 0.5));
    cr_assert_eq(s.n, 2);
    const char *path = temp_path("round_trip");
    cr_assert(vki_wg_store_save(&s, path));
    vki_wg_store_free(&s);
    cr_assert_eq(vki_wg_store_load(&s, path), 2);
    const vki_wg_entry *e = vki_wg_store_find(&s, 0x1234u);
    cr_assert(e && e->wg[0] == 32 && e->wg[1] == 1 && e->wg[2] == 1 && e->ms == 0.5);
    e = vki_wg_store_find(&s, 0xfedcba9876543210ull);
    cr_assert(e && e->wg[0] == 32);
    cr_assert_null(vki_wg_store_find(&s, 99));
    vki_wg_store_free(&s);
    remove(path);
}

Test(store, damage_costs_entries_not_answers) {
    const char *path = temp_path("damaged");
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("vkinfer-tuning 1\n"
          "00000000000000aa 8 8 1 0.5\n"
          "garbage line\n"
          "00000000000000bb 0 8 1 0.5\n"           /* zero axis */
          "00000000000000cc 8 8 99999999 0.5\n"    /* absurd axis */
          "00000000000000dd 8 8 1 0.5 trailing\n"
          "00000000000000ee 8 8\n"
          "00000000000000aa 16 2 1 0.25\n",
          f);
    fclose(f);
    vki_wg_store s = {0};
    cr_assert_eq(vki_wg_store_load(&s, path), 2);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.entries[0].wg[0], 16, "the later line wins");
    vki_wg_store_free(&s);
    f = fopen(path, "w");
    fputs("not a tuning file\n00000000000000aa 8 8 1 0.5\n", f);
    fclose(f);
    cr_assert_eq(vki_wg_store_load(&s, path), 0);
    cr_assert_eq(vki_wg_store_load(&s, temp_path("missing")), 0);
    cr_assert_eq(s.n, 0);
    uint32_t wg[3] = {1, 1, 1};
    vki_wg_store_put(&s, 1, wg, 1);
    cr_assert_eq(vki_wg_store_save(&s, "/nonexistent-dir/tuning"), 0);
    vki_wg_store_free(&s);
    remove(path);
}

/* conv (3x3, 5 -> 7 channels, stride 2 on odd input) then ADD: three kernels to tune. */
static vki_model *small_model(void) {
    vki_model *m = vki_model_new("tune");
    int in = harness_tensor(m, 13, 11, 5);
    int fshape[4] = {7, 3, 3, 5}, seven = 7;
    int filter = harness_const(m, 4, fshape, 21u, -1.0f, 1.0f);
    int bias = harness_const(m, 1, &seven, 22u, -1.0f, 1.0f);
    int offset = harness_const(m, 1, &seven, 23u, -1.0f, 1.0f);
    int t = harness_tensor(m, 7, 6, 7), out = harness_tensor(m, 7, 6, 7);
    int conv_in[3] = {in, filter, bias}, add_in[2] = {t, offset};
    vki_op *op = vki_model_add_op(m, VKI_OP_CONV_2D, 3, conv_in, 1, &t);
    op->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2};
    vki_model_add_op(m, VKI_OP_ADD, 2, add_in, 1, &out);
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

static void run(vki_model *m, const vki_graph_options *o, float *out, vki_tuning_report *r) {
    float in[13 * 11 * 5];
    harness_fill(in, sizeof in / sizeof in[0], 3u, -1.0f, 1.0f);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, o, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, 7 * 6 * 7 * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_tuning(g, r), VKI_OK);
    vki_graph_destroy(g);
}

/* What a progress callback saw: per stage, the calls and whether done climbed by one
 * from 1 to a fixed total. */
typedef struct progress_log {
    char stage[4][32];
    int calls[4], last[4], total[4], in_order[4];
    int n;
} progress_log;

static void log_progress(void *user, const char *stage, int done, int total) {
    progress_log *l = user;
    int i = 0;
    while (i < l->n && strcmp(l->stage[i], stage)) i++;
    if (i == l->n && l->n < 4) {
        snprintf(l->stage[l->n], sizeof l->stage[0], "%s", stage);
        l->total[i] = total;
        l->in_order[i] = 1;
        l->n++;
    }
    if (i == 4) return;
    l->in_order[i] &= done == l->last[i] + 1 && total == l->total[i];
    l->last[i] = done;
    l->calls[i]++;
}

static int progress_stage(const progress_log *l, const char *stage) {
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->stage[i], stage)) return i;
    return -1;
}

Test(tuning, progress_counts_every_dispatch_searched, .timeout = 600) {
    vki_model *m = small_model();
    progress_log log = {0};
    float out[7 * 6 * 7];
    vki_tuning_report r;
    vki_graph_options o = {.tune = 1, .progress = log_progress, .progress_user = &log};
    run(m, &o, out, &r);
    int t = progress_stage(&log, "tune");
    cr_assert_geq(t, 0, "no \"tune\" progress");
    cr_expect_eq(log.total[t], r.searched);
    cr_expect_eq(log.calls[t], r.searched);
    cr_expect(log.in_order[t], "done went 1..total");
    cr_expect_eq(log.last[t], log.total[t]);
    int c = progress_stage(&log, "tune check");
    /* The whole-graph check reports its rounds (engine/runtime/options.h: 3). */
    if (r.moved) cr_expect(c >= 0 && log.calls[c] == 3 && log.in_order[c] && log.total[c] == 3);
    else cr_expect_eq(c, -1, "no whole-graph check when nothing moved");
    /* Without tuning there is nothing to report. */
    progress_log none = {0};
    vki_graph_options plain = {.progress = log_progress, .progress_user = &none};
    run(m, &plain, out, &r);
    cr_expect_eq(none.n, 0);
    vki_model_destroy(m);
}

Test(tuning, tuned_graph_computes_the_same_and_the_file_is_reused, .timeout = 600) {
    vki_model *m = small_model();
    const char *path = temp_path("graph.tune");
    remove(path);
    float plain[7 * 6 * 7], tuned[7 * 6 * 7], reused[7 * 6 * 7];
    vki_tuning_report r;
    run(m, NULL, plain, &r);
    cr_assert_eq(r.searched + r.from_file, 0);
    cr_assert_eq(r.dispatches, 3, "to_phwc4, conv, add writing the output");
    vki_graph_options o = {.tune = 1, .tuning_file = path};
    run(m, &o, tuned, &r);
    cr_assert_eq(r.searched, 3);
    cr_assert(r.moved <= r.searched);
    cr_assert(r.tuned_ms <= r.table_ms, "%g > %g", r.tuned_ms, r.table_ms);
    /* Sizes that moved were checked on the whole graph, and kept only if it was faster. */
    if (r.moved) {
        cr_assert(r.graph_table_ms > 0 && r.graph_tuned_ms > 0);
        cr_assert_eq(r.kept, r.graph_tuned_ms < r.graph_table_ms);
    }
    /* Work-group size changes which thread computes an element, never its value. */
    cr_assert(!memcmp(plain, tuned, sizeof plain));
    o.tune = 0;
    run(m, &o, reused, &r);
    cr_assert_eq(r.from_file, 3);
    cr_assert_eq(r.searched, 0);
    cr_assert(!memcmp(plain, reused, sizeof plain));
    vki_model_destroy(m);
    remove(path);
}

Test(tuning, a_tuning_file_that_cannot_be_written_is_an_error) {
    vki_model *m = small_model();
    vki_graph_options o = {.tuning_file = "/nonexistent-dir/graph.tune"};
    float out[7 * 6 * 7];
    vki_tuning_report r;
    run(m, &o, out, &r);   /* reading a missing file is fine */
    cr_assert_eq(r.from_file, 0);
    o.tune = 1;
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_IO);
    cr_assert(strstr(vki_last_error(), "/nonexistent-dir/graph.tune"), "%s", vki_last_error());
    cr_assert_null(g);
    vki_model_destroy(m);
}

/* ---- the family table in the engine: dispatch info, timing a size, the context's table
 * file, and export --------------------------------------------------------------------- */

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

Test(table, dispatch_info_and_timing_a_size, .timeout = 600) {
    vki_model *m = small_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    int n = vki_graph_dispatch_count(g), convs = 0;
    cr_assert_eq(n, 3);
    for (int k = 0; k < n; k++) {
        vki_dispatch_info d;
        cr_assert_eq(vki_graph_dispatch_info(g, k, &d), VKI_OK, "%s", vki_last_error());
        cr_assert(d.kernel && d.wg_class && d.variant);
        cr_assert(vki_wg_class_from_name(d.wg_class) >= 0, "%s", d.wg_class);
        /* No tuning file, no search: the graph runs the table's size. */
        cr_assert(!memcmp(d.workgroup, d.table_workgroup, sizeof d.workgroup));
        if (!strcmp(d.kernel, "conv2d")) {
            convs++;
            cr_assert_str_eq(d.wg_class, "conv", "a 3x3 window");
            cr_assert(d.tunable);
        }
        double ms = -2;
        uint32_t one[3] = {1, 1, 1};
        cr_assert_eq(vki_graph_time_dispatch(g, k, one, &ms), VKI_OK, "%s", vki_last_error());
        cr_assert(ms >= 0, "1x1x1 runs on every device: %g", ms);
        uint32_t huge[3] = {1u << 20, 1, 1};
        cr_assert_eq(vki_graph_time_dispatch(g, k, huge, &ms), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(ms, -1, "past the device's limits: cannot run, not an error");
    }
    cr_assert_eq(convs, 1);
    vki_dispatch_info d;
    double ms;
    uint32_t zero[3] = {4, 0, 1}, one[3] = {1, 1, 1};
    cr_assert_eq(vki_graph_dispatch_info(g, n, &d), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "out of range"), "%s", vki_last_error());
    cr_assert_eq(vki_graph_dispatch_info(g, -1, &d), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_dispatch_info(NULL, 0, &d), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_time_dispatch(g, 0, zero, &ms), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "zero axis"), "%s", vki_last_error());
    cr_assert_eq(vki_graph_time_dispatch(g, n, one, &ms), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_time_dispatch(g, 0, NULL, &ms), VKI_ERROR_INVALID_ARGUMENT);
    /* The graph still runs its own sizes. */
    float in[13 * 11 * 5] = {0};
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(table, a_table_file_is_looked_up_first) {
    const char *path = temp_path("rows.txt");
    write_text(path, "source here  a test\n"
                     "family any\n"
                     "conv  *  *  1x1x1  here\n");
    vki_context_options co = {.workgroup_table = path};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&co, &ctx), VKI_OK, "%s", vki_last_error());
    vki_model *m = small_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, m, NULL, &g), VKI_OK, "%s", vki_last_error());
    int seen = 0;
    for (int k = 0; k < vki_graph_dispatch_count(g); k++) {
        vki_dispatch_info d;
        vki_graph_dispatch_info(g, k, &d);
        if (strcmp(d.wg_class, "conv")) continue;
        seen++;
        cr_assert(d.workgroup[0] == 1 && d.workgroup[1] == 1 && d.workgroup[2] == 1,
                  "the file's row: %ux%ux%u", d.workgroup[0], d.workgroup[1], d.workgroup[2]);
    }
    cr_assert_eq(seen, 1);
    float plain[7 * 6 * 7], mine[7 * 6 * 7];
    vki_tuning_report r;
    run(m, NULL, plain, &r);
    float in[13 * 11 * 5];
    harness_fill(in, sizeof in / sizeof in[0], 3u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, mine, sizeof mine), VKI_OK);
    cr_assert(!memcmp(plain, mine, sizeof plain), "a work group changes no value");
    vki_graph_destroy(g);
    vki_context_destroy(ctx);

    /* A file that does not parse fails the context, naming the file and the line. */
    write_text(path, "source here  a test\nfamily any\nconv  *  *  0x1x1  here\n");
    cr_assert_eq(vki_context_create(&co, &ctx), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_null(ctx);
    char want[512];
    snprintf(want, sizeof want, "%s:3:", path);
    cr_assert(strstr(vki_last_error(), want), "%s", vki_last_error());
    remove(path);
    cr_assert_eq(vki_context_create(&co, &ctx), VKI_ERROR_IO);
    cr_assert(strstr(vki_last_error(), path), "%s", vki_last_error());
    vki_model_destroy(m);
}

Test(table, export_writes_rows_the_table_reads, .timeout = 600) {
    vki_model *m = small_model();
    char tune[256], rows[256];            /* temp_path's buffer is static: copy each */
    snprintf(tune, sizeof tune, "%s", temp_path("export.tune"));
    snprintf(rows, sizeof rows, "%s", temp_path("export.txt"));
    remove(tune);
    vki_graph_options o = {.tune = 1, .tuning_file = tune};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    progress_log log = {0};
    vki_table_export_options eo = {.family = "mine", .match = "vendor=0x1234", .source = "test-run",
                                   .source_text = "a test", .progress = log_progress,
                                   .progress_user = &log};
    cr_assert_eq(vki_export_workgroup_table(&g, 1, &eo, rows), VKI_OK, "%s", vki_last_error());
    int e = progress_stage(&log, "export");
    cr_assert(e >= 0 && log.in_order[e] && log.total[e] == 3, "one step per tunable dispatch");
    FILE *f = fopen(rows, "r");
    cr_assert(f);
    char text[8192];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    cr_assert(strstr(text, "source test-run a test\n"), "%s", text);
    cr_assert(strstr(text, "family mine vendor=0x1234\n"), "%s", text);
    cr_assert(strstr(text, "\nconv "), "the convolution's bucket: %s", text);
    /* Defaults name the device's own family, and the rows read back into a context. */
    cr_assert_eq(vki_export_workgroup_table(&g, 1, NULL, rows), VKI_OK, "%s", vki_last_error());
    vki_context_options co = {.workgroup_table = rows};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&co, &ctx), VKI_OK, "%s", vki_last_error());
    vki_context_destroy(ctx);
    /* Misuse. */
    cr_assert_eq(vki_export_workgroup_table(NULL, 1, NULL, rows), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_export_workgroup_table(&g, 0, NULL, rows), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_export_workgroup_table(&g, 1, NULL, NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_export_workgroup_table(&g, 1, NULL, "/nonexistent-dir/rows.txt"), VKI_ERROR_IO);
    vki_context *other = NULL;
    cr_assert_eq(vki_context_create(NULL, &other), VKI_OK);
    vki_graph *h = NULL;
    cr_assert_eq(vki_graph_create(other, m, NULL, &h), VKI_OK, "%s", vki_last_error());
    vki_graph *two[2] = {g, h};
    cr_assert_eq(vki_export_workgroup_table(two, 2, NULL, rows), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "another context"), "%s", vki_last_error());
    vki_graph_destroy(h);
    vki_context_destroy(other);
    vki_graph_destroy(g);
    remove(tune);
    remove(rows);
    vki_model_destroy(m);
}
