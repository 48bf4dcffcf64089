/* test_resize.c: resizable inputs. A model written at one input size, resized (to other
 * sizes, batches, and back), runs as LiteRT runs the same network written at those sizes
 * (the op models resize_*: one set of weights, a file per size), through
 * vki_model_resize_inputs and through vki_graph_options.input_shapes; shape_signature's -1
 * dims are reported; a resize that an op cannot take fails, naming the op, and leaves the
 * model as it was. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *read_f32(const char *name, const char *suffix, size_t count) {
    return harness_read_data_f32("op_models", name, suffix, count);
}

/* Runs m (as resized, or with `shapes` given to the graph) on `name`'s input and compares
 * every output with LiteRT's for that file. */
static void check_against(const vki_model *m, const char *name, const vki_input_shape *shapes,
                          int n_shapes, vki_precision precision, double tol) {
    vki_model *target = harness_load_data_model("op_models", name);
    vki_graph *g = NULL;
    vki_graph_options o = {.precision = precision, .input_shapes = shapes, .n_input_shapes = n_shapes};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s: %s", name, vki_last_error());
    for (int i = 0; i < vki_model_input_count(target); i++) {
        vki_tensor_info t;
        vki_model_input_info(target, i, &t);
        char suffix[16];
        snprintf(suffix, sizeof suffix, "in%d", i);
        float *in = read_f32(name, suffix, t.element_count);
        cr_assert_eq(vki_graph_set_input(g, i, in, t.element_count * sizeof(float)), VKI_OK,
                     "%s: %s", name, vki_last_error());
        free(in);
    }
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s: %s", name, vki_last_error());
    for (int i = 0; i < vki_model_output_count(target); i++) {
        vki_tensor_info t;
        vki_model_output_info(target, i, &t);
        char suffix[16];
        snprintf(suffix, sizeof suffix, "out%d", i);
        float *want = read_f32(name, suffix, t.element_count);
        float *got = malloc(t.element_count * sizeof(float));
        cr_assert(got);
        cr_assert_eq(vki_graph_get_output(g, i, got, t.element_count * sizeof(float)), VKI_OK,
                     "%s output %d: %s", name, i, vki_last_error());
        double worst = harness_scaled_error(got, want, t.element_count);
        cr_assert_leq(worst, tol, "%s output %d: error %g > %g", name, i, worst, tol);
        free(want);
        free(got);
    }
    vki_graph_destroy(g);
    vki_model_destroy(target);
}

static vki_input_shape shape4(int n, int h, int w, int c) {
    return (vki_input_shape){.index = 0, .rank = 4, .dims = {n, h, w, c}};
}

Test(resize, spatial_sizes_and_back) {
    vki_model *m = harness_load_data_model("op_models", "resize_net_9x7");
    vki_tensor_info t;
    cr_assert_eq(vki_model_input_info(m, 0, &t), VKI_OK);
    cr_assert_eq(t.dynamic_dims, 7u, "shape_signature [-1,-1,-1,3]: %x", t.dynamic_dims);
    const struct { const char *name; int h, w; } sizes[] = {
        {"resize_net_13x11", 13, 11}, {"resize_net_16x16", 16, 16}, {"resize_net_9x7", 9, 7}};
    for (int i = 0; i < 3; i++) {
        vki_input_shape s = shape4(1, sizes[i].h, sizes[i].w, 3);
        cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_model_input_info(m, 0, &t), VKI_OK);
        cr_assert(t.shape[1] == sizes[i].h && t.shape[2] == sizes[i].w);
        check_against(m, sizes[i].name, NULL, 0, VKI_PRECISION_FP32, 1e-5);
        check_against(m, sizes[i].name, NULL, 0, VKI_PRECISION_FP16, 2e-2);
    }
    vki_model_destroy(m);
}

/* The graph option resizes what it builds, not the model. */
Test(resize, graph_option) {
    vki_model *m = harness_load_data_model("op_models", "resize_net_9x7");
    vki_input_shape s = shape4(1, 16, 16, 3);
    check_against(m, "resize_net_16x16", &s, 1, VKI_PRECISION_FP32, 1e-5);
    vki_tensor_info t;
    cr_assert_eq(vki_model_input_info(m, 0, &t), VKI_OK);
    cr_assert(t.shape[1] == 9 && t.shape[2] == 7, "the model was resized");
    vki_graph *g = NULL;
    vki_graph_options o = {.input_shapes = &s, .n_input_shapes = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    float *p;
    size_t size;
    cr_assert_eq(vki_graph_input_pointer(g, 0, &p, &size), VKI_OK);
    cr_assert_eq(size, 16 * 16 * 3 * sizeof(float));
    vki_graph_destroy(g);
    s.dims[3] = 4;   /* C is read by the convolution's weights: refused, model unchanged */
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_MODEL_FORMAT);
    cr_assert(strstr(vki_last_error(), "CONV_2D"), "%s", vki_last_error());
    cr_assert_null(g);
    vki_model_destroy(m);
}

/* A dynamic batch, through FULLY_CONNECTED, BATCH_MATMUL and a CPU op (TOPK_V2). */
Test(resize, batch) {
    vki_model *m = harness_load_data_model("op_models", "resize_batch_1");
    vki_tensor_info t;
    cr_assert_eq(vki_model_input_info(m, 0, &t), VKI_OK);
    cr_assert_eq(t.dynamic_dims, 1u);
    const int batches[] = {3, 8, 1};
    for (int i = 0; i < 3; i++) {
        vki_input_shape s = {.index = 0, .rank = 2, .dims = {batches[i], 6}};
        cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_OK, "%s", vki_last_error());
        char name[32];
        snprintf(name, sizeof name, "resize_batch_%d", batches[i]);
        check_against(m, name, NULL, 0, VKI_PRECISION_FP32, 1e-5);
    }
    vki_model_destroy(m);
}

Test(resize, refusals_leave_the_model) {
    vki_model *m = vki_model_new("fixed_reshape");
    int x = harness_tensor_nd(m, 2, (int[]){1, 4});
    int shape = harness_int_vector(m, "shape", 2, (int32_t[]){2, 2});
    int y = harness_tensor_nd(m, 2, (int[]){2, 2});
    cr_assert(vki_model_add_op(m, VKI_OP_RESHAPE, 2, (int[]){x, shape}, 1, &y));
    cr_assert(vki_model_set_io(m, 1, &x, 1, &y));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_input_shape s = {.index = 0, .rank = 2, .dims = {1, 6}};
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_ERROR_MODEL_FORMAT);
    cr_assert(strstr(vki_last_error(), "op 0 RESHAPE") && strstr(vki_last_error(), "6 elements"),
              "%s", vki_last_error());
    cr_assert(m->tensors[x].shape[1] == 4 && m->tensors[y].shape[0] == 2, "shapes not restored");
    s.rank = 3;
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "rank 2"), "%s", vki_last_error());
    s = (vki_input_shape){.index = 1, .rank = 2, .dims = {1, 4}};
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_ERROR_INVALID_ARGUMENT);
    s = (vki_input_shape){.index = 0, .rank = 2, .dims = {1, 0}};
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_model_resize_inputs(NULL, &s, 1), VKI_ERROR_INVALID_ARGUMENT);
    /* With -1 in the shape constant the same model resizes. */
    ((int32_t *)m->tensors[shape].data)[0] = -1;
    s = (vki_input_shape){.index = 0, .rank = 2, .dims = {1, 6}};
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_OK, "%s", vki_last_error());
    cr_assert(m->tensors[y].shape[0] == 3 && m->tensors[y].shape[1] == 2);
    harness_check(m, 5, 0);
}
