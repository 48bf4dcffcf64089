/* dump_lifetimes.c: writes the lifetimes the planner sees for a model's graph on a device, as
 * text (a header, then "bytes first last" per storage), for tests/data/plan/. The planner
 * suite plans these sets without a device. Usage: dump_lifetimes MODEL.tflite [DEVICE] > OUT */
#include "builder.h"
#include "gpu.h"
#include "memory.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dump_lifetimes MODEL.tflite [DEVICE]\n");
        return 2;
    }
    vki_context_options co = {.device = argc > 2 ? argv[2] : NULL};
    vki_context *ctx = NULL;
    vki_model *m = NULL;
    if (vki_context_create(&co, &ctx) || vki_model_load_file(argv[1], &m)) {
        fprintf(stderr, "dump_lifetimes: %s\n", vki_last_error());
        vki_context_destroy(ctx);
        return 1;
    }
    vki_graph_config cfg;
    vki_build b = {0};
    vki_lifetimes l = {0};
    vki_status s = vki_graph_config_resolve(ctx, m, NULL, &cfg);
    if (!s) s = vki_build_open(&b, ctx, m, &cfg);
    if (!s) s = vki_lifetimes_collect(&b, 0, &l);
    if (!s) {
        const char *base = strrchr(argv[1], '/');
        printf("# %s on %s: %d storages, %d dispatches, alignment %llu\n", base ? base + 1 : argv[1],
               ctx->props.deviceName, l.n, b.n_dispatches,
               (unsigned long long)vki_arena_alignment(ctx));
        for (int i = 0; i < l.n; i++)
            printf("%llu %d %d\n", (unsigned long long)l.records[i].size, l.records[i].first,
                   l.records[i].last);
    } else {
        fprintf(stderr, "dump_lifetimes: %s\n", vki_last_error());
    }
    vki_lifetimes_free(&l);
    vki_build_close(&b);
    vki_model_destroy(m);
    vki_context_destroy(ctx);
    return s ? 1 : 0;
}
