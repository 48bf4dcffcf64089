/* pack_time.c: how long vki_graph_create takes when the kernels come from source (shaderc,
 * nothing cached), from the disk cache (cache_dir: SPIR-V files and the driver's pipeline
 * cache), and from a kernel pack file (loading the file counted in), each in a fresh
 * context so that nothing is shared between runs. Prints the median and range of each.
 *
 *   ninja -C build pack_time && build/pack_time MODEL [RUNS] [fp32|fp16|fp16-storage] [no-warm-up]
 *
 * The driver's own caches (Mesa's shader cache, for one) are left as the environment
 * sets them: they serve every row alike. */
#include "vkinfer.h"

#include "kernel_pack.h"
#include "../tuner/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* vki_graph_create's warm-up run (default on) or not: "no-warm-up" as the 4th argument
 * times getting the kernels and pipelines alone, without the first dispatch's compile
 * (lavapipe's most of it). */
static vki_warm_up warm_up = VKI_WARM_UP_AUTO;

typedef enum mode { FROM_SOURCE, FROM_DISK, FROM_PACK, FROM_PACK_AND_DISK, MODE_COUNT } mode;
static const char *const mode_names[MODE_COUNT] = {
    "source (cold compile)", "disk cache (cache_dir)", "pack file", "pack file + cache_dir"};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(const char *what, vki_status s) {
    fprintf(stderr, "pack_time: %s: %s (%s)\n", what, vki_last_error(), vki_status_name(s));
    exit(1);
}

/* One graph creation in a fresh context; the time of the pack's loading and the graph's
 * creation, in ms. */
static double one(const vki_model *m, vki_precision p, mode md, const char *cache_dir,
                  const char *pack, vki_pack_writer *record, vki_kernel_stats *stats) {
    vki_context_options o = {.cache_dir = md == FROM_DISK || md == FROM_PACK_AND_DISK ? cache_dir : NULL};
    vki_context *ctx;
    vki_status s = vki_context_create(&o, &ctx);
    if (s) die("vki_context_create", s);
    if (record) vki_context_record_kernels(ctx, record);
    vki_graph_options go = {.precision = p, .warm_up = warm_up};
    vki_graph *g;
    double t0 = vki_now_ms();
    if (md == FROM_PACK || md == FROM_PACK_AND_DISK) {
        s = vki_context_load_kernel_pack(ctx, pack);
        if (s) die("vki_context_load_kernel_pack", s);
    }
    s = vki_graph_create(ctx, m, &go, &g);
    double ms = vki_now_ms() - t0;
    if (s) die("vki_graph_create", s);
    vki_context_kernel_stats(ctx, stats);
    if (record) {
        vki_context_record_kernels(ctx, NULL);
        vki_context_pack_pipelines(ctx, record);   /* as `vkinfer pack` does */
    }
    vki_graph_destroy(g);
    vki_context_destroy(ctx);
    return ms;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: pack_time MODEL [RUNS] [fp32|fp16|fp16-storage] [no-warm-up]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 7;
    if (runs < 1) runs = 1;
    const char *pname = argc > 3 ? argv[3] : "fp32";
    if (argc > 4 && !strcmp(argv[4], "no-warm-up")) warm_up = VKI_WARM_UP_OFF;
    vki_precision p = !strcmp(pname, "fp16") ? VKI_PRECISION_FP16
                    : !strcmp(pname, "fp16-storage") ? VKI_PRECISION_FP16_STORAGE : VKI_PRECISION_FP32;
    /* Only what the options say: no cache directory or pack from the environment. */
    unsetenv("VKI_CACHE_DIR");
    unsetenv("VKI_KERNEL_PACK");
    vki_model *m;
    vki_status s = vki_model_load_file(argv[1], &m);
    if (s) die("vki_model_load_file", s);
    char dir[] = "/tmp/vki_pack_time.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("pack_time: mkdtemp");
        return 1;
    }
    char pack[sizeof dir + 16];
    snprintf(pack, sizeof pack, "%s/app.vkpack", dir);
    char cache[sizeof dir + 16];
    snprintf(cache, sizeof cache, "%s/cache", dir);

    /* Unmeasured: the pack (recorded while compiling) and the disk cache filled. */
    vki_pack_writer *w = vki_pack_writer_new();
    vki_kernel_stats st;
    one(m, p, FROM_SOURCE, NULL, NULL, w, &st);
    if ((s = vki_pack_writer_save(w, pack))) die("writing the pack", s);
    int n_kernels = vki_pack_writer_count(w);
    vki_pack_writer_free(w);
    one(m, p, FROM_DISK, cache, NULL, NULL, &st);

    printf("%s, %s: %d kernels; graph creation in ms, %d runs each (fresh context each)\n",
           argv[1], pname, n_kernels, runs);
    printf("%-24s %9s %9s %9s   %s\n", "kernels from", "median", "min", "max", "compiled/disk/pack");
    double *t = calloc((size_t)runs, sizeof *t);
    for (int md = 0; md < MODE_COUNT; md++) {
        for (int r = 0; r < runs; r++) t[r] = one(m, p, (mode)md, cache, pack, NULL, &st);
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        printf("%-24s %9.1f %9.1f %9.1f   %d/%d/%d\n", mode_names[md], t[runs / 2], t[0],
               t[runs - 1], st.compiled, st.from_disk, st.from_pack);
    }
    free(t);
    vki_model_destroy(m);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "pack_time: could not remove %s\n", dir);
    return 0;
}
