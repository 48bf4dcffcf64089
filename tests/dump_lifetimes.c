/* dump_lifetimes.c: writes the lifetimes the planner sees for a model's graph on a device, as
 * text (a header, then "bytes first last" per storage), for tests/data/plan/. The planner
 * suite plans these sets without a device. Usage: dump_lifetimes MODEL.tflite [DEVICE] > OUT */
#include "builder.h"
#include "gpu.h"
#include "memory.h"
#include "options.h"
#include "../tuner/stats.h"

#include <stdio.h>
#include <stdlib.h>
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
    double start = vki_now_ms();
    if (!s) s = vki_build_open(&b, ctx, m, &cfg);
    double build_ms = vki_now_ms() - start;
    if (!s) s = vki_lifetimes_collect(&b, 0, &l);
    if (!s) {
        const char *base = strrchr(argv[1], '/');
        printf("# %s on %s: %d storages, %d dispatches, alignment %llu\n", base ? base + 1 : argv[1],
               ctx->props.deviceName, l.n, b.n_dispatches,
               (unsigned long long)vki_arena_alignment(ctx));
        if (!(cfg.passes & (VKI_PASS_IN_PLACE | VKI_PASS_ORDER)))
            printf("# schedule: off; build %.1f ms\n", build_ms);
        else printf("# schedule: peak %llu in the stored order, %llu in the chosen (%s%s), %d in place; "
               "build %.1f ms\n", (unsigned long long)b.schedule.stored_peak,
               (unsigned long long)b.schedule.peak, b.schedule.exact ? "exact" : "beam",
               b.schedule.reordered ? ", reordered" : "", b.schedule.in_place, build_ms);
        for (int k = 0; getenv("VKI_DUMP_DISPATCHES") && k < b.n_dispatches; k++) {
            const vki_dispatch *d = &b.dispatches[k];
            printf("# step %d: %s op %d %s:", k, d->kernel, d->op_index,
                   d->op_index >= 0 ? vki_op_name(m->ops[d->op_index].code) : "-");
            for (int i = 0; i < d->n_bindings; i++)
                if (d->bindings[i].kind == VKI_BIND_TENSOR)
                    printf(" %d(%llu)", b.storage_of[d->bindings[i].index],
                           (unsigned long long)vki_build_tensor_bytes(&b, d->bindings[i].index));
            printf("\n");
        }
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
