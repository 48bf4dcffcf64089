/* cli_pack.c: the pack verb: builds each model's graph in each precision on the device,
 * collecting the SPIR-V of every kernel variant the graphs get (compiled, from the cache
 * directory or from a pack), and writes them as one kernel pack
 * (engine/runtime/kernel_pack.h) for libraries built without the shader compiler. */
#include "cli.h"

#include "../engine/runtime/kernel_pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *precision_name(vki_precision p) {
    return p == VKI_PRECISION_FP16 ? "fp16" : p == VKI_PRECISION_FP16_STORAGE ? "fp16-storage" : "fp32";
}

/* The input-image dispatch (vki_graph_set_input_image) is made when a frame first comes,
 * from the input's shape and storage only: feed each [1,H,W,3] or [1,H,W,1] input one
 * tiny frame so that its kernel is in the pack too. A failure only leaves it out. */
static void add_image_kernels(vki_graph *g, const vki_model *m) {
    static const unsigned char pixels[2 * 2 * 4] = {0};
    const vki_image frame = {.format = VKI_PIXEL_RGBA8888, .width = 2, .height = 2, .data = pixels};
    for (int i = 0; i < vki_model_input_count(m); i++) {
        vki_tensor_info t;
        if (vki_model_input_info(m, i, &t)) continue;
        if (t.rank == 4 && t.shape[0] == 1 && (t.shape[3] == 3 || t.shape[3] == 1))
            vki_graph_set_input_image(g, i, &frame, NULL);
    }
}

int cli_pack(const cli *c) {
    if (!vki_have_compiler()) {
        fprintf(stderr, "vkinfer pack: this library has no shader compiler (built with "
                        "-Dcompiler=disabled): make packs with a vkinfer built with it\n");
        return 1;
    }
    vki_context *ctx = NULL;
    vki_status s = cli_context(c, &ctx);
    if (s) return cli_fail("opening the device", s);
    vki_pack_writer *w = vki_pack_writer_new();
    if (!w) {
        vki_context_destroy(ctx);
        return cli_fail("making the pack", VKI_ERROR_OUT_OF_MEMORY);
    }
    vki_context_record_kernels(ctx, w);
    int failed = 0;
    if (c->json) printf("{\"models\": [");
    for (int i = 0; i < c->n_models && !failed; i++) {
        vki_model *m = NULL;
        if ((s = vki_model_load_file(c->models[i], &m))) {
            fprintf(stderr, "vkinfer: %s: ", c->models[i]);
            failed = cli_fail("loading the model", s);
            break;
        }
        for (int k = 0; k < c->n_pack_precisions && !failed; k++) {
            int before = vki_pack_writer_count(w);
            vki_graph_options go = {.precision = c->pack_precisions[k]};
            vki_graph *g = NULL;
            if ((s = vki_graph_create(ctx, m, &go, &g))) {
                fprintf(stderr, "vkinfer: %s, %s: ", c->models[i], precision_name(c->pack_precisions[k]));
                failed = cli_fail("building the graph", s);
                break;
            }
            add_image_kernels(g, m);
            vki_graph_destroy(g);
            int added = vki_pack_writer_count(w) - before;
            if (c->json) {
                cli_json_sep(stdout, i * c->n_pack_precisions + k);
                printf("{\"model\": ");
                cli_json_string(stdout, c->models[i]);
                printf(", \"precision\": \"%s\", \"new_kernels\": %d}", precision_name(c->pack_precisions[k]),
                       added);
            } else {
                printf("%s, %s: %d new kernels\n", c->models[i], precision_name(c->pack_precisions[k]), added);
            }
        }
        vki_model_destroy(m);
    }
    vki_context_record_kernels(ctx, NULL);
    const int kernels = vki_pack_writer_count(w);
    const int pipelines = !failed && vki_context_pack_pipelines(ctx, w);
    vki_context_destroy(ctx);
    if (!failed && (s = vki_pack_writer_save(w, c->pack_out))) failed = cli_fail("writing the pack", s);
    if (!failed) {
        struct stat st;
        long long bytes = stat(c->pack_out, &st) == 0 ? (long long)st.st_size : -1;
        if (c->json) {
            printf("], \"pack\": ");
            cli_json_string(stdout, c->pack_out);
            printf(", \"kernels\": %d, \"pipeline_cache\": %s, \"bytes\": %lld}\n", kernels,
                   pipelines ? "true" : "false", bytes);
        } else {
            printf("wrote %s: %d kernels%s, %lld bytes\n", c->pack_out, kernels,
                   pipelines ? " and this device's pipeline cache" : "", bytes);
        }
    } else if (c->json) {
        printf("]}\n");
    }
    vki_pack_writer_free(w);
    return failed ? 1 : 0;
}
