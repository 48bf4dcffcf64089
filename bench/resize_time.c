/* resize_time.c: what an input resize costs an app, in one process and one context:
 *
 *   resize_time MODEL H,W [H,W ...] [--rounds N]
 *
 * For each size in turn (and each round, the sizes again), the model's input 0 takes
 * [1,H,W,C] (vki_model_resize_inputs), a graph is built for it (vki_graph_create: the plan
 * and command buffer made again; kernels the context compiled for a shape seen before come
 * from its cache) and run once, then 20 more times. Prints per size: the resize, the build,
 * the first run, and the median of the 20. A size's first round pays its new kernels'
 * compiles (and, with VKI_CACHE_DIR warm, loads them from disk); later rounds show a resize
 * back to a size seen before. */
#include <vkinfer.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: resize_time MODEL H,W [H,W ...] [--rounds N]\n");
        return 2;
    }
    int rounds = 2, n_sizes = 0, sizes[16][2];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (n_sizes < 16 && sscanf(argv[i], "%d,%d", &sizes[n_sizes][0], &sizes[n_sizes][1]) == 2) n_sizes++;
    }
    vki_context *ctx;
    vki_model *m;
    if (vki_context_create(NULL, &ctx) || vki_model_load_file(argv[1], &m)) {
        fprintf(stderr, "%s\n", vki_last_error());
        return 1;
    }
    vki_device_info dev;
    vki_context_device_info(ctx, &dev);
    vki_tensor_info in;
    vki_model_input_info(m, 0, &in);
    printf("%s on %s, input 0 '%s' of rank %d\n", argv[1], dev.name, in.name, in.rank);
    int rc = 0;
    for (int r = 0; r < rounds && !rc; r++) {
        for (int k = 0; k < n_sizes && !rc; k++) {
            vki_input_shape s = {.index = 0, .rank = 4, .dims = {1, sizes[k][0], sizes[k][1], in.shape[3]}};
            double t0 = now_ms();
            vki_status st = vki_model_resize_inputs(m, &s, 1);
            double t1 = now_ms();
            vki_graph *g = NULL;
            if (!st) st = vki_graph_create(ctx, m, NULL, &g);
            double t2 = now_ms();
            if (!st) st = vki_graph_run(g);
            double t3 = now_ms(), runs[20];
            for (int i = 0; i < 20 && !st; i++) {
                double a = now_ms();
                st = vki_graph_run(g);
                runs[i] = now_ms() - a;
            }
            if (st) {
                fprintf(stderr, "%dx%d: %s\n", sizes[k][0], sizes[k][1], vki_last_error());
                rc = 1;
            } else {
                qsort(runs, 20, sizeof *runs, cmp);
                printf("round %d  %4dx%-4d resize %.3f ms  build %.1f ms  first run %.2f ms  "
                       "median of 20 %.3f ms\n", r, sizes[k][0], sizes[k][1], t1 - t0, t2 - t1,
                       t3 - t2, (runs[9] + runs[10]) / 2);
            }
            vki_graph_destroy(g);
        }
    }
    vki_model_destroy(m);
    vki_context_destroy(ctx);
    return rc;
}
