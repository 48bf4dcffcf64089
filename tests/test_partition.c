/* test_partition.c: graphs with CPU ops run as GPU segments with the CPU ops between them.
 * Each structure (GPU -> CPU -> GPU, CPU first, CPU last, a CPU op's output read by two
 * GPU segments, a GPU tensor read again after a CPU op) is checked element by element
 * against the C references of the whole model (harness_check), in every precision; the
 * partition itself (segments, profile, I/O pointers, submit and wait, gpu_only) through the
 * public API. The op models cpu_* (test_op_models) hold the same structures to LiteRT. */
#include "graph.h"
#include "harness.h"
#include "image.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* TOPK_V2 of x's last axis: the values (returned) and the indices (*indices). */
static int topk(vki_model *m, int x, int k, int *indices) {
    const vki_tensor *t = &m->tensors[x];
    int shape[VKI_MAX_RANK], rank = t->rank;
    memcpy(shape, t->shape, sizeof(int) * (size_t)rank);
    shape[rank - 1] = k;
    int kt = harness_int_const(m, "k", 0, NULL, (int32_t[]){k});
    int v = harness_tensor_nd(m, rank, shape);
    int i = vki_model_add_tensor(m, "indices", VKI_DTYPE_INT32, rank, shape, NULL, 0);
    cr_assert(i >= 0);
    int outs[2] = {v, i};
    cr_assert(vki_model_add_op(m, VKI_OP_TOPK_V2, 2, (int[]){x, kt}, 2, outs));
    if (indices) *indices = i;
    return v;
}

/* A float activation of tensor x's shape (copied first: adding a tensor moves the array). */
static int like(vki_model *m, int x) {
    int shape[VKI_MAX_RANK], rank = m->tensors[x].rank;
    memcpy(shape, m->tensors[x].shape, sizeof shape);
    return harness_tensor_nd(m, rank, shape);
}

static int unary(vki_model *m, vki_op_code code, int x) {
    int y = like(m, x);
    harness_op(m, code, 1, &x, y);
    return y;
}

static int binary(vki_model *m, vki_op_code code, int a, int b) {
    return harness_binary(m, code, a, b, like(m, a));
}

/* x [3,17] -> ABS -> TOPK (k 5) -> LOGISTIC; the indices an output; ABS's result read
 * again after the CPU op (MUL): GPU, CPU, GPU. */
static vki_model *gpu_cpu_gpu(void) {
    vki_model *m = vki_model_new("gpu_cpu_gpu");
    int x = harness_tensor_nd(m, 2, (int[]){3, 17});
    int a = unary(m, VKI_OP_ABS, x), idx;
    int v = topk(m, a, 5, &idx);
    int y = unary(m, VKI_OP_LOGISTIC, v);
    int z = binary(m, VKI_OP_MUL, a, a);
    cr_assert(vki_model_set_io(m, 1, &x, 3, (int[]){y, idx, z}));
    return m;
}

static void expect_segments(const vki_model *m, int n, const int *on_cpu) {
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_segment_count(g), n);
    for (int i = 0; i < n; i++) {
        vki_segment_info si;
        cr_assert_eq(vki_graph_segment_info(g, i, &si), VKI_OK);
        cr_assert_eq(si.on_cpu, on_cpu[i], "segment %d", i);
        cr_assert(si.on_cpu ? si.dispatches == 0 : si.dispatches > 0, "segment %d", i);
    }
    vki_segment_info si;
    cr_assert_eq(vki_graph_segment_info(g, n, &si), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "out of range"), "%s", vki_last_error());
    vki_graph_destroy(g);
}

Test(partition, gpu_cpu_gpu) {
    vki_model *m = gpu_cpu_gpu();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    /* MUL needs nothing from the CPU op: it joins the first GPU segment. */
    expect_segments(m, 3, (int[]){0, 1, 0});
    cr_assert_eq(vki_model_op_on_cpu(m, 1), 1);
    cr_assert_eq(vki_model_op_on_cpu(m, 0), 0);
    cr_assert_eq(vki_model_op_on_cpu(m, 9), -1);
    harness_check(m, 11, 1e-6);
}

Test(partition, cpu_first) {
    vki_model *m = vki_model_new("cpu_first");
    int x = harness_tensor_nd(m, 3, (int[]){2, 5, 13});
    int v = topk(m, x, 13, NULL);   /* k = n: a sort of every row */
    int y = binary(m, VKI_OP_MUL, v, v);
    cr_assert(vki_model_set_io(m, 1, &x, 1, &y));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    expect_segments(m, 2, (int[]){1, 0});
    harness_check(m, 12, 1e-6);
}

Test(partition, cpu_last) {
    vki_model *m = vki_model_new("cpu_last");
    int x = harness_tensor_nd(m, 1, (int[]){29});
    int a = unary(m, VKI_OP_NEG, x), idx;
    int v = topk(m, a, 1, &idx);
    cr_assert(vki_model_set_io(m, 1, &x, 2, (int[]){v, idx}));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    expect_segments(m, 2, (int[]){0, 1});
    harness_check(m, 13, 0);
}

/* The first TOPK's values are read by the GPU segment after it and again by the one after
 * the second TOPK (a copy into that segment's input); a graph input read on both sides. */
Test(partition, cpu_output_read_by_two_segments) {
    vki_model *m = vki_model_new("two_readers");
    int x = harness_tensor_nd(m, 2, (int[]){5, 7});
    int a = unary(m, VKI_OP_ABS, x);
    int v1 = topk(m, a, 7, NULL);
    int p = binary(m, VKI_OP_MUL, v1, x);
    int v2 = topk(m, p, 7, NULL);
    int s = binary(m, VKI_OP_ADD, v2, v1);
    int t = binary(m, VKI_OP_SUB, s, x);
    cr_assert(vki_model_set_io(m, 1, &x, 2, (int[]){t, v1}));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    expect_segments(m, 5, (int[]){0, 1, 0, 1, 0});
    harness_check(m, 14, 1e-6);
}

/* The I/O pointers, submit and wait, and repeated runs with fresh inputs give what
 * vki_graph_run with vki_graph_set_input gives; the profile lists the CPU op. */
Test(partition, api) {
    vki_model *m = gpu_cpu_gpu();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    vki_graph_options o = {.profile = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    float in[51], ref[3][51], out[3][51];
    const size_t sizes[3] = {15 * sizeof(float), 15 * sizeof(float), 51 * sizeof(float)};
    for (int round = 0; round < 3; round++) {
        harness_fill(in, 51, 100 + (uint32_t)round, -1, 1);
        const float *ins[1] = {in};
        float *refs[3] = {ref[0], ref[1], ref[2]};
        cr_assert_eq(vki_model_reference_run(m, ins, refs), VKI_OK);
        if (round == 0) {
            cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        } else {
            float *p;
            size_t size;
            cr_assert_eq(vki_graph_input_pointer(g, 0, &p, &size), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(size, sizeof in);
            memcpy(p, in, sizeof in);
            cr_assert_eq(vki_graph_submit(g), VKI_OK, "%s", vki_last_error());
            /* In flight: its inputs and outputs are not the app's. */
            cr_assert_eq(vki_graph_input_pointer(g, 0, &p, &size), VKI_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(vki_graph_submit(g), VKI_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(vki_graph_wait(g, UINT64_MAX), VKI_OK, "%s", vki_last_error());
            cr_assert_eq(vki_graph_wait(g, 0), VKI_ERROR_INVALID_ARGUMENT);
        }
        for (int i = 0; i < 3; i++) {
            if (round == 2) {
                const float *p;
                size_t size;
                cr_assert_eq(vki_graph_output_pointer(g, i, &p, &size), VKI_OK, "%s", vki_last_error());
                cr_assert_eq(size, sizes[i]);
                memcpy(out[i], p, size);
            } else {
                cr_assert_eq(vki_graph_get_output(g, i, out[i], sizes[i]), VKI_OK, "%s", vki_last_error());
            }
            for (size_t k = 0; k < sizes[i] / sizeof(float); k++)
                cr_assert_float_eq(out[i][k], ref[i][k], 1e-6, "round %d output %d [%zu]", round, i, k);
        }
    }
    int n = vki_graph_profile(g, NULL, 0);
    cr_assert_gt(n, vki_graph_dispatch_count(g));
    vki_dispatch_profile prof[64];
    cr_assert_leq(n, 64);
    vki_graph_profile(g, prof, n);
    int cpu = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(prof[k].kernel, "cpu")) {
            cpu++;
            cr_assert_eq(prof[k].op_index, 1);
            cr_assert_geq(prof[k].ms, 0);
        }
    cr_assert_eq(cpu, 1);
    vki_segment_info si;
    cr_assert_eq(vki_graph_segment_info(g, 1, &si), VKI_OK);
    cr_assert(si.on_cpu && si.ops == 1 && si.first_op == 1 && si.last_ms >= 0);
    vki_dispatch_info di;
    for (int k = 0; k < vki_graph_dispatch_count(g); k++)
        cr_assert_eq(vki_graph_dispatch_info(g, k, &di), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_dispatch_info(g, vki_graph_dispatch_count(g), &di), VKI_ERROR_INVALID_ARGUMENT);
    vki_memory_report mem;
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_gt(mem.staging_bytes, 0);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* Frames into an input of a partitioned graph: the report sums the segments' memory as
 * it is now, frame buffer included; the segment keeps the input's float staging, where the
 * partition keeps the input's values. */
Test(partition, frames_into_a_segment) {
    vki_model *m = vki_model_new("frames_gpu_cpu");
    int x = harness_tensor(m, 8, 8, 3), idx;
    int v = topk(m, unary(m, VKI_OP_ABS, x), 2, &idx);
    int y = unary(m, VKI_OP_LOGISTIC, v);
    cr_assert(vki_model_set_io(m, 1, &x, 2, (int[]){y, idx}));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_gt(vki_graph_segment_count(g), 1);
    vki_memory_report before, mem;
    cr_assert_eq(vki_graph_memory(g, &before), VKI_OK);
    cr_assert_eq(before.frame_bytes, 0);
    uint8_t px[8 * 8 * 3];
    for (int i = 0; i < 8 * 8 * 3; i++) px[i] = (uint8_t)(i * 5);
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = 8, .height = 8, .data = px};
    cr_assert_eq(vki_graph_set_input_image(g, 0, &img, NULL), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.frame_bytes, 4096 + (sizeof(vki_image_params) + 15) / 16 * 16);
    cr_assert_eq(mem.staging_bytes, before.staging_bytes, "the segment gave its input's staging back");
    cr_assert_eq(mem.weights_bytes, before.weights_bytes);
    cr_assert_str_eq(mem.strategy, before.strategy);
    float in[8 * 8 * 3], out[8 * 8 * 2];
    for (int i = 0; i < 8 * 8 * 3; i++) in[i] = (float)(i % 7) - 3.0f;
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, sizeof out), VKI_OK, "%s", vki_last_error());
    for (int p = 0; p < 64; p++) {   /* the two largest of |in| per pixel, through LOGISTIC */
        float a = 0, b = 0;
        for (int c = 0; c < 3; c++) {
            float t = in[p * 3 + c] < 0 ? -in[p * 3 + c] : in[p * 3 + c];
            if (t > a) { b = a; a = t; } else if (t > b) b = t;
        }
        cr_assert_float_eq(out[p * 2], 1.0f / (1.0f + expf(-a)), 1e-5, "pixel %d: %g %g", p, (double)out[p * 2], (double)a);
        cr_assert_float_eq(out[p * 2 + 1], 1.0f / (1.0f + expf(-b)), 1e-5, "pixel %d", p);
    }
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.frame_bytes, (sizeof(vki_image_params) + 15) / 16 * 16);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(partition, gpu_only_refuses) {
    vki_model *m = gpu_cpu_gpu();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    vki_graph_options o = {.gpu_only = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_UNSUPPORTED_OP);
    cr_assert_null(g);
    cr_assert(strstr(vki_last_error(), "op 1 TOPK_V2") && strstr(vki_last_error(), "gpu_only"),
              "%s", vki_last_error());
    vki_model_destroy(m);
}

Test(partition, topk_rejects_bad_k) {
    vki_model *m = vki_model_new("bad_k");
    int x = harness_tensor_nd(m, 2, (int[]){3, 4});
    topk(m, x, 4, NULL);
    m->tensors[m->ops[0].inputs[1]].data = memcpy(m->tensors[m->ops[0].inputs[1]].data,
                                                  (int32_t[]){5}, sizeof(int32_t));
    cr_assert(vki_model_set_io(m, 1, &x, 1, &m->ops[0].outputs[0]));
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "op 0 TOPK_V2", "k = 5, need 1 to 4");
}

/* GATHER forms its kernel cannot take (batch_dims, computed indices of rank 2, constant ones
 * of rank 4) run on the CPU (VKI_CPU_FALLBACK_LIST) rather than fail to load; LiteRT holds
 * their values (op model cpu_gather_beyond_kernel). A GATHER the kernel takes stays on the GPU. */
Test(partition, kernel_limits_fall_back) {
    char path[1024];
    snprintf(path, sizeof path, "%s/op_models/cpu_gather_beyond_kernel.tflite", harness_data_dir());
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    int gathers = 0;
    for (int i = 0; i < vki_model_op_count(m); i++) {
        if (strcmp(vki_model_op_name(m, i), "GATHER")) {
            cr_assert_eq(vki_model_op_on_cpu(m, i), 0, "op %d %s", i, vki_model_op_name(m, i));
            continue;
        }
        gathers++;
        cr_assert_eq(vki_model_op_on_cpu(m, i), 1, "op %d GATHER", i);
    }
    cr_assert_eq(gathers, 3);
    vki_model_destroy(m);
    snprintf(path, sizeof path, "%s/op_models/layout_gather_axis1.tflite", harness_data_dir());
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    for (int i = 0; i < vki_model_op_count(m); i++) cr_assert_eq(vki_model_op_on_cpu(m, i), 0);
    vki_graph *g = NULL;
    vki_graph_options o = {.gpu_only = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* A batch of images through the ops whose kernels take one image runs on the CPU image by
 * image (batched.c), held to LiteRT by the op model cpu_batched_images; resized back to one
 * image, the same op runs on the GPU again. */
Test(partition, batch_of_images_falls_back) {
    char path[1024];
    snprintf(path, sizeof path, "%s/op_models/cpu_batched_images.tflite", harness_data_dir());
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    for (int i = 0; i < vki_model_op_count(m); i++) {
        const char *name = vki_model_op_name(m, i);
        int elementwise = !strcmp(name, "TANH") || !strcmp(name, "ADD") || !strcmp(name, "NEG");
        cr_assert_eq(vki_model_op_on_cpu(m, i), !elementwise, "op %d %s", i, name);
    }
    vki_model_destroy(m);
    snprintf(path, sizeof path, "%s/op_models/spatial_conv_stride2_same_odd.tflite", harness_data_dir());
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_op_on_cpu(m, 0), 0);
    vki_input_shape s = {.index = 0, .rank = 4, .dims = {3, 13, 11, 5}};
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_op_on_cpu(m, 0), 1);
    vki_tensor_info t;
    cr_assert_eq(vki_model_output_info(m, 0, &t), VKI_OK);
    cr_assert(t.shape[0] == 3 && t.shape[1] == 7 && t.shape[2] == 6 && t.shape[3] == 7);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    vki_graph_destroy(g);
    s.dims[0] = 1;
    cr_assert_eq(vki_model_resize_inputs(m, &s, 1), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_op_on_cpu(m, 0), 0);
    vki_model_destroy(m);
}
