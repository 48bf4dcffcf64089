/* wg_sweep.c: local search against an exhaustive sweep of work-group sizes, on
 * representative dispatches of real models.
 *
 * Per op class (conv_1x1, conv, depthwise, elementwise, pool, and reduce: the engine does
 * not tune a reduction, whose grid's x is its lane count, but glsl/reduce.comp sizes itself
 * from gl_WorkGroupSize, so any group is legal and the sweep measures what tuning it would
 * be worth) it takes the dispatches of the models and picks the one with the largest grid
 * and the one with the median grid. For each it times every power-of-two size the search could reach (each
 * axis up to the grid's extent rounded up to a power of two, within the device's limits)
 * with vki_graph_time_dispatch, then runs vki_wg_search from the table's size twice: on
 * the sweep's own timings (replay: what the search decides given the same numbers) and
 * live on the device (what it decides with fresh noise). It prints, per dispatch, the
 * sweep's best, where each search landed (as a ratio of the sweep's time for that size to
 * the best), and the evaluations against the sweep's. With --csv FILE it writes every
 * timing (model, dispatch, class, grid, size, ms) for replaying other searches.
 *
 * Usage: wg_sweep [--csv FILE] [--class NAME] MODEL...   (VKI_DEVICE picks the device) */
#include "../engine/runtime/gpu.h"
#include "../tuner/search.h"
#include "vkinfer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 16
#define MAX_PICKS 12
#define MAX_SIZES 512

typedef struct pick {
    int model, index;
    vki_dispatch_info info;
    double volume;
} pick;

typedef struct sweep {
    vki_graph *g;
    int index;
    uint32_t wg[MAX_SIZES][3];
    double ms[MAX_SIZES];
    int n;
    int live;                    /* measure on the device, not from the table above */
    int evaluations;
} sweep;

static double lookup(void *user, const uint32_t wg[3]) {
    sweep *s = user;
    s->evaluations++;
    if (s->live) {
        double ms = -1;
        if (vki_graph_time_dispatch(s->g, s->index, wg, &ms)) return -1;
        return ms;
    }
    for (int i = 0; i < s->n; i++)
        if (!memcmp(s->wg[i], wg, sizeof s->wg[i])) return s->ms[i];
    return -1;
}

static double sweep_ms(const sweep *s, const uint32_t wg[3]) {
    for (int i = 0; i < s->n; i++)
        if (!memcmp(s->wg[i], wg, sizeof s->wg[i])) return s->ms[i];
    return -1;
}

static uint32_t pow2_at_least(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p *= 2;
    return p;
}

static int by_volume(const void *a, const void *b) {
    const pick *x = a, *y = b;
    return x->volume < y->volume ? -1 : x->volume > y->volume;
}

static void fill_inputs(vki_graph *g, const vki_model *m) {
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        vki_model_input_info(m, i, &t);
        float *x = malloc(t.element_count * sizeof *x);
        for (size_t k = 0; x && k < t.element_count; k++) x[k] = (float)((k * 2654435761u) % 1000) / 1000.0f;
        if (x) vki_graph_set_input(g, i, x, t.element_count * sizeof *x);
        free(x);
    }
    vki_graph_run(g);
}

int main(int argc, char **argv) {
    const char *csv_path = NULL, *only = NULL;
    const char *paths[MAX_MODELS];
    int n_models = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--class") && i + 1 < argc) only = argv[++i];
        else if (n_models < MAX_MODELS) paths[n_models++] = argv[i];
    }
    if (!n_models) {
        fprintf(stderr, "usage: wg_sweep [--csv FILE] [--class NAME] MODEL...\n");
        return 2;
    }
    vki_context *ctx = NULL;
    if (vki_context_create(NULL, &ctx)) {
        fprintf(stderr, "wg_sweep: %s\n", vki_last_error());
        return 1;
    }
    const vki_wg_device dev = vki_context_wg_device(ctx);
    vki_model *models[MAX_MODELS] = {0};
    vki_graph *graphs[MAX_MODELS] = {0};
    static pick all[VKI_WG_CLASS_COUNT][4096];
    int n_all[VKI_WG_CLASS_COUNT] = {0};
    for (int m = 0; m < n_models; m++) {
        if (vki_model_load_file(paths[m], &models[m]) ||
            vki_graph_create(ctx, models[m], NULL, &graphs[m])) {
            fprintf(stderr, "wg_sweep: %s: %s\n", paths[m], vki_last_error());
            return 1;
        }
        fill_inputs(graphs[m], models[m]);
        for (int k = 0; k < vki_graph_dispatch_count(graphs[m]); k++) {
            vki_dispatch_info d;
            vki_graph_dispatch_info(graphs[m], k, &d);
            int c = vki_wg_class_from_name(d.wg_class);
            if ((!d.tunable && c != VKI_WG_REDUCE) || c < 0 || n_all[c] >= 4096) continue;
            if (only && strcmp(only, d.wg_class)) continue;
            all[c][n_all[c]++] = (pick){m, k, d, (double)d.grid[0] * d.grid[1] * d.grid[2]};
        }
    }
    pick picks[MAX_PICKS];
    int n_picks = 0;
    for (int c = 0; c < VKI_WG_CLASS_COUNT && n_picks < MAX_PICKS; c++) {
        if (!n_all[c]) continue;
        qsort(all[c], (size_t)n_all[c], sizeof all[c][0], by_volume);
        picks[n_picks++] = all[c][n_all[c] - 1];
        if (n_all[c] > 2 && n_picks < MAX_PICKS) picks[n_picks++] = all[c][n_all[c] / 2];
    }
    vki_device_info di;
    vki_context_device_info(ctx, &di);
    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) fprintf(csv, "model,dispatch,class,gx,gy,gz,x,y,z,ms\n");
    printf("# %s: local search (vki_wg_search defaults: 1%% margin, 24 evaluations, starts: the table's, 64x2x1, 8x4x4)\n"
           "# against every power-of-two size it could reach; ms per dispatch, median of 5 timed\n"
           "# submits of 3 repeats. replay = the search on the sweep's timings, live = on the device.\n",
           di.name);
    printf("%-28s %-11s %-14s %-9s %5s %-9s %8s %-9s %6s %5s %-9s %6s %5s\n", "model:dispatch", "class",
           "grid", "table", "sizes", "best", "best_ms", "replay", "ratio", "evals", "live", "ratio",
           "evals");
    int ok_ratio = 0, ok_evals = 0;
    double worst = 1;
    for (int p = 0; p < n_picks; p++) {
        const pick *pk = &picks[p];
        static sweep s;
        memset(&s, 0, sizeof s);
        s.g = graphs[pk->model];
        s.index = pk->index;
        const uint32_t *grid = pk->info.grid;
        uint32_t lim[3];
        for (int a = 0; a < 3; a++) {
            lim[a] = pow2_at_least(grid[a]);
            if (lim[a] > dev.max_size[a]) lim[a] = dev.max_size[a];
        }
        int best = -1;
        for (uint32_t z = 1; z <= lim[2]; z *= 2)
            for (uint32_t y = 1; y <= lim[1]; y *= 2)
                for (uint32_t x = 1; x <= lim[0]; x *= 2) {
                    if (x * y * z > dev.max_invocations || s.n >= MAX_SIZES) continue;
                    uint32_t wg[3] = {x, y, z};
                    double ms = -1;
                    if (vki_graph_time_dispatch(s.g, s.index, wg, &ms)) {
                        fprintf(stderr, "wg_sweep: %s\n", vki_last_error());
                        return 1;
                    }
                    memcpy(s.wg[s.n], wg, sizeof wg);
                    s.ms[s.n] = ms;
                    if (csv)
                        fprintf(csv, "%s,%d,%s,%u,%u,%u,%u,%u,%u,%.6f\n", paths[pk->model], pk->index,
                                pk->info.wg_class, grid[0], grid[1], grid[2], x, y, z, ms);
                    if (ms >= 0 && (best < 0 || ms < s.ms[best])) best = s.n;
                    s.n++;
                }
        if (best < 0) continue;
        vki_wg_search_result replay, live;
        s.live = 0;
        s.evaluations = 0;
        vki_wg_search(&dev, grid, pk->info.table_workgroup, NULL, lookup, &s, &replay);
        s.live = 1;
        vki_wg_search(&dev, grid, pk->info.table_workgroup, NULL, lookup, &s, &live);
        double r_replay = sweep_ms(&s, replay.wg) / s.ms[best];
        double r_live = sweep_ms(&s, live.wg) / s.ms[best];
        const char *name = strrchr(paths[pk->model], '/');
        char label[64], gridt[32], tab[16], bst[16], rep[16], liv[16];
        snprintf(label, sizeof label, "%.22s:%d", name ? name + 1 : paths[pk->model], pk->index);
        snprintf(gridt, sizeof gridt, "%ux%ux%u", grid[0], grid[1], grid[2]);
        snprintf(tab, sizeof tab, "%ux%ux%u", pk->info.table_workgroup[0], pk->info.table_workgroup[1],
                 pk->info.table_workgroup[2]);
        snprintf(bst, sizeof bst, "%ux%ux%u", s.wg[best][0], s.wg[best][1], s.wg[best][2]);
        snprintf(rep, sizeof rep, "%ux%ux%u", replay.wg[0], replay.wg[1], replay.wg[2]);
        snprintf(liv, sizeof liv, "%ux%ux%u", live.wg[0], live.wg[1], live.wg[2]);
        printf("%-28s %-11s %-14s %-9s %5d %-9s %8.4f %-9s %6.3f %5d %-9s %6.3f %5d\n", label,
               pk->info.wg_class, gridt, tab, s.n, bst, s.ms[best], rep, r_replay, replay.evaluations,
               liv, r_live, live.evaluations);
        ok_ratio += r_replay <= 1.05;
        ok_evals += replay.evaluations <= 0.15 * s.n;
        if (r_replay > worst) worst = r_replay;
        fflush(stdout);
    }
    printf("# replay: %d of %d within 5%% of the best (worst %.3f), %d of %d within 15%% of the "
           "sweep's evaluations\n", ok_ratio, n_picks, worst, ok_evals, n_picks);
    if (csv) fclose(csv);
    for (int m = 0; m < n_models; m++) {
        vki_graph_destroy(graphs[m]);
        vki_model_destroy(models[m]);
    }
    vki_context_destroy(ctx);
    return 0;
}
