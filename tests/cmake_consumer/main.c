/* main.c: tests/cmake_consumer's application. Creates a context, loads the model
 * argv[1], builds its graph (compiling every kernel with the shader compiler inside the
 * library), runs it once on a constant input and checks that every output is finite.
 * Prints "ok" and exits 0 on success; exits 3 when the context is refused because the
 * program is a fully static executable (tests/install_check.sh builds it so too), 1 on
 * any other failure, naming the call and vki_last_error(). */
#include <vkinfer.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const char *what, vki_status s) {
    fprintf(stderr, "consumer: %s: %s: %s\n", what, vki_status_name(s), vki_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL\n", argv[0]);
        return 2;
    }
    if (vki_version() != VKI_VERSION) {
        fprintf(stderr, "consumer: library %s, header %d.%d.%d\n", vki_version_string(),
                VKI_VERSION_MAJOR, VKI_VERSION_MINOR, VKI_VERSION_PATCH);
        return 1;
    }
    vki_context *ctx = NULL;
    vki_model *model = NULL;
    vki_graph *graph = NULL;
    float *data = NULL;
    int rc = 1;
    vki_status s = vki_context_create(NULL, &ctx);
    if (s != VKI_OK) {
        if (s == VKI_ERROR_NO_DEVICE && strstr(vki_last_error(), "static executable")) {
            fprintf(stderr, "consumer: refused: %s\n", vki_last_error());
            return 3;
        }
        return failed("vki_context_create", s);
    }
    if ((s = vki_model_load_file(argv[1], &model)) != VKI_OK) {
        failed("vki_model_load_file", s);
        goto out;
    }
    if ((s = vki_graph_create(ctx, model, NULL, &graph)) != VKI_OK) {
        failed("vki_graph_create", s);
        goto out;
    }
    for (int i = 0; i < vki_model_input_count(model); i++) {
        vki_tensor_info info;
        if ((s = vki_model_input_info(model, i, &info)) != VKI_OK) {
            failed("vki_model_input_info", s);
            goto out;
        }
        free(data);
        if (!(data = malloc(info.element_count * sizeof *data))) goto out;
        for (size_t k = 0; k < info.element_count; k++) data[k] = 0.25f;
        if ((s = vki_graph_set_input(graph, i, data, info.element_count * sizeof *data)) != VKI_OK) {
            failed("vki_graph_set_input", s);
            goto out;
        }
    }
    if ((s = vki_graph_run(graph)) != VKI_OK) {
        failed("vki_graph_run", s);
        goto out;
    }
    for (int i = 0; i < vki_model_output_count(model); i++) {
        vki_tensor_info info;
        if ((s = vki_model_output_info(model, i, &info)) != VKI_OK) {
            failed("vki_model_output_info", s);
            goto out;
        }
        free(data);
        if (!(data = malloc(info.element_count * sizeof *data))) goto out;
        if ((s = vki_graph_get_output(graph, i, data, info.element_count * sizeof *data)) != VKI_OK) {
            failed("vki_graph_get_output", s);
            goto out;
        }
        for (size_t k = 0; k < info.element_count; k++)
            if (!isfinite(data[k])) {
                fprintf(stderr, "consumer: output %d [%zu] is %g\n", i, k, data[k]);
                goto out;
            }
    }
    printf("ok\n");
    rc = 0;
out:
    free(data);
    vki_graph_destroy(graph);
    vki_model_destroy(model);
    vki_context_destroy(ctx);
    return rc;
}
