/* test_api.c: the public API refuses misuse with a status and a message, and a graph can
 * be run many times with fresh inputs. */
#include "graph.h"
#include "harness.h"
#include "kernel_pack.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static void run_tiny(vki_context *ctx, float out[45], vki_kernel_stats *stats);

static vki_model *tiny_model(void) {
    vki_model *m = vki_model_new("tiny");
    int a = harness_tensor(m, 3, 5, 3), out = harness_tensor(m, 3, 5, 3);
    vki_model_add_op(m, VKI_OP_RELU, 1, &a, 1, &out);
    vki_model_set_io(m, 1, &a, 1, &out);
    cr_assert_eq(vki_model_validate(m), VKI_OK);
    return m;
}

Test(api, null_arguments) {
    cr_assert_eq(vki_context_create(NULL, NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_model_load_file(NULL, NULL), VKI_ERROR_INVALID_ARGUMENT);
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_memory(NULL, 10, "x", &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_null(m);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(NULL, NULL, NULL, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_null(g);
    cr_assert_eq(vki_graph_run(NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_neq(strlen(vki_last_error()), 0);
    vki_graph_destroy(NULL);
    vki_model_destroy(NULL);
    vki_context_destroy(NULL);
}

Test(api, wrong_sizes_and_indices) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    float buf[45] = {0};
    cr_assert_eq(vki_graph_set_input(g, 0, buf, 44 * sizeof(float)), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "180 bytes"), "%s", vki_last_error());
    cr_assert_eq(vki_graph_set_input(g, 1, buf, sizeof buf), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "out of range"), "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, -1, buf, sizeof buf), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_get_output(g, 0, NULL, sizeof buf), VKI_ERROR_INVALID_ARGUMENT);
    vki_tensor_info info;
    /* A failure sets its own message, never leaves the previous one. */
    cr_assert_eq(vki_graph_run(NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_model_input_info(m, 3, &info), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_model_input_info: tiny: index 3 out of range"), "%s",
              vki_last_error());
    cr_assert_eq(vki_model_output_info(NULL, 0, &info), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_model_output_info: NULL argument"), "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(api, unknown_options) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    vki_graph_options o = {.precision = (vki_precision)7};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "precision"), "%s", vki_last_error());
    o = (vki_graph_options){.memory = VKI_MEMORY_STRATEGY_COUNT};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "memory strategy"), "%s", vki_last_error());
    o = (vki_graph_options){.wait = (vki_wait_mode)9};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_null(g);
    vki_model_destroy(m);
}

Test(api, bad_device_choice) {
    vki_context *ctx = NULL;
    /* The option counts from 0, as VKI_DEVICE and vki_enumerate_devices do. */
    vki_context_options o = {.device = "98"};
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_ERROR_NO_DEVICE);
    cr_assert(strstr(vki_last_error(), "device 98 not found"), "%s", vki_last_error());
    o = (vki_context_options){.device = "-1"};
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "-1 out of range"), "%s", vki_last_error());
    o = (vki_context_options){.device = "no such device"};
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_ERROR_NO_DEVICE);
    cr_assert(strstr(vki_last_error(), "no such device"), "%s", vki_last_error());
    cr_assert_null(ctx);
}

/* A recorded command buffer is resubmitted: each run must see its own input. */
Test(api, repeated_runs_with_new_inputs) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    for (int run = 0; run < 5; run++) {
        float in[45], out[45];
        harness_fill(in, 45, 100u + (uint32_t)run, -1.0f, 1.0f);
        cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_get_output(g, 0, out, sizeof out), VKI_OK);
        for (int i = 0; i < 45; i++) cr_assert_eq(out[i], in[i] > 0 ? in[i] : 0.0f, "run %d element %d", run, i);
    }
    vki_memory_report mem;
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert(mem.staging_bytes >= 2 * 45 * sizeof(float));
    cr_assert_eq(vki_graph_dispatch_count(g), 3);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* run_timeout_ms bounds vki_graph_run's wait; the run stays in flight and vki_graph_wait
 * finishes it with the answer a patient graph gives. On a CPU device a first run of a
 * 41-dispatch model takes far more than 1 ms (lavapipe: 10 ms, more while it compiles). */
Test(api, run_timeout_leaves_the_run_in_flight, .timeout = 600) {
    harness_io_model l = harness_load_io_model("face_detection_short_range.tflite");
    vki_context *ctx = harness_context();
    vki_device_info info;
    cr_assert_eq(vki_context_device_info(ctx, &info), VKI_OK);
    float *in = malloc(l.in_elems[0] * sizeof(float));
    float *want = malloc(l.out_total * sizeof(float)), *got = malloc(l.out_total * sizeof(float));
    harness_fill(in, l.in_elems[0], 3u, -1.0f, 1.0f);
    for (int hasty = 0; hasty < 2; hasty++) {
        /* The patient graph runs first and compiles every kernel: under qemu (the arm64
         * run) that takes longer than the default 60 s. */
        vki_graph_options o = {.run_timeout_ms = hasty ? 1 : 540000};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(ctx, l.model, &o, &g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_set_input(g, 0, in, l.in_elems[0] * sizeof(float)), VKI_OK);
        vki_status s = vki_graph_run(g);
        if (hasty) {
            if (info.is_cpu) cr_assert_eq(s, VKI_ERROR_TIMEOUT, "%s", vki_status_name(s));
            if (s == VKI_ERROR_TIMEOUT) {
                cr_expect(strstr(vki_last_error(), "not finished after 0.001 s"),
                          "%s", vki_last_error());
                cr_expect_eq(vki_graph_get_output(g, 0, got, l.out_elems[0] * sizeof(float)),
                             VKI_ERROR_INVALID_ARGUMENT, "outputs of a run in flight");
                cr_assert_eq(vki_graph_wait(g, 600000000000ull), VKI_OK, "%s", vki_last_error());
            }
        } else {
            cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
        }
        float *out = hasty ? got : want;
        for (int i = 0; i < l.n_out; i++) {
            cr_assert_eq(vki_graph_get_output(g, i, out, l.out_elems[i] * sizeof(float)), VKI_OK,
                         "%s", vki_last_error());
            out += l.out_elems[i];
        }
        vki_graph_destroy(g);
    }
    cr_expect(!memcmp(got, want, l.out_total * sizeof(float)), "a finished run differs");
    free(in);
    free(want);
    free(got);
    vki_model_destroy(l.model);
}

Test(api, profile_reports_every_dispatch) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    vki_graph_options o = {.profile = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    float in[45] = {1};
    vki_graph_set_input(g, 0, in, sizeof in);
    cr_assert_eq(vki_graph_run(g), VKI_OK);
    vki_dispatch_profile p[8];
    cr_assert_eq(vki_graph_profile(g, p, 8), 3);
    cr_assert_str_eq(p[1].kernel, "unary");
    cr_assert_eq(p[1].op_index, 0);
    cr_assert(p[1].ms >= 0.0);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* The profile numbers dispatches by the file's operator list, as vki_model_list_ops_file
 * and `vkinfer info` do. dequant.tflite's ops 4 and 5 (DEQUANTIZEs of constants) fold at
 * load and the loader adds a rounding step after its int8 CONV_2D and DEPTHWISE_CONV_2D, so
 * the op list's own positions differ from the file's numbers after op 1. */
Test(api, profile_numbers_ops_as_the_file_does) {
    char path[1024];
    snprintf(path, sizeof path, "%s/quant/dequant.tflite", harness_data_dir());
    vki_op_entry file_ops[16];
    int n_file = 0;
    cr_assert_eq(vki_model_list_ops_file(path, file_ops, 16, &n_file), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(n_file, 8);
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_op_count(m), n_file);
    vki_graph *g = NULL;
    vki_graph_options o = {.profile = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    vki_tensor_info in;
    vki_model_input_info(m, 0, &in);
    float x[64];
    cr_assert(in.element_count <= 64);
    harness_fill(x, in.element_count, 3u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, x, in.element_count * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    vki_dispatch_profile p[32];
    int n = vki_graph_profile(g, p, 32);
    cr_assert(n > 2 && n <= 32, "%d dispatches", n);
    /* What each kernel runs, by the file's name for it (unary also runs rounding steps,
     * which carry their producer's number). */
    static const struct { const char *kernel, *op; } runs[] = {
        {"conv2d", "CONV_2D"}, {"conv2d_1x1", "CONV_2D"}, {"depthwise_conv2d", "DEPTHWISE_CONV_2D"},
        {"dw_pw", "DEPTHWISE_CONV_2D"}, {"binary", "ADD"},
    };
    int adds = 0;
    for (int k = 0; k < n; k++) {
        int op = p[k].op_index;
        if (op < 0) continue;
        cr_assert_lt(op, n_file, "dispatch %d (%s): op %d", k, p[k].kernel, op);
        cr_assert_eq(vki_model_op_folded(m, op), 0, "dispatch %d (%s) names op %d %s, which folds "
                     "at load", k, p[k].kernel, op, file_ops[op].name);
        cr_assert_str_eq(vki_model_op_name(m, op), file_ops[op].name, "op %d", op);
        for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
            if (!strcmp(p[k].kernel, runs[i].kernel))
                cr_assert_str_eq(file_ops[op].name, runs[i].op, "dispatch %d: kernel %s runs op %d "
                                 "%s", k, p[k].kernel, op, file_ops[op].name);
        adds += !strcmp(file_ops[op].name, "ADD");
    }
    cr_assert_gt(adds, 0, "the ADDs (file ops 6 and 7) run");
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(api, status_names_come_from_the_list) {
#define CHECK_(name, value, what)                                                  \
    cr_assert_str_eq(vki_status_name(VKI_##name), "VKI_" #name);                   \
    cr_assert_eq((int)VKI_##name, value);                                          \
    cr_assert_neq(strlen(what), 0);
    VKI_STATUS_LIST(CHECK_)
#undef CHECK_
    cr_assert_str_eq(vki_status_name((vki_status)99), "VKI_ERROR_UNKNOWN");
}

/* Guard bytes after every tensor: a write past a tensor fails the next run with
 * VKI_ERROR_INTERNAL naming the tensor and the op that writes it. The write is made from
 * outside (as a kernel writing out of bounds would), since no kernel here does. */
Test(api, guard_bytes_catch_a_write_past_a_tensor) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    vki_graph_options o = {.debug_guards = 1};
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(g->mem.n_guards, 2, "one guard per storage: the input and the output");
    float in[45], out[45];
    harness_fill(in, 45, 5u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, sizeof out), VKI_OK);
    for (int i = 0; i < 45; i++) cr_assert_eq(out[i], in[i] > 0 ? in[i] : 0.0f);
    cr_assert_eq(vki_memory_spoil_guard(harness_context(), &g->mem, 1), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_ERROR_INTERNAL);
    cr_assert(strstr(vki_last_error(), "tiny: a kernel wrote past tensor 1 't' (written by op 0 RELU)"),
              "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* Kernels live in the context: a second graph of the same model compiles nothing. */
Test(api, graphs_of_a_context_share_kernels) {
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    float a[45], b[45];
    vki_kernel_stats first, second;
    run_tiny(ctx, a, &first);
    run_tiny(ctx, b, &second);
    cr_assert(first.compiled >= 3, "compiled %d", first.compiled);
    cr_assert_eq(second.compiled, first.compiled);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
    vki_context_destroy(ctx);
}

/* ---- kernel packs ------------------------------------------------------------------------ */

/* A pack recorded while one context compiles serves another: nothing compiled, the
 * outputs bit for bit the same; damaged or foreign bytes are refused. */
Test(api, kernel_pack_serves_another_context) {
    unsetenv("VKI_CACHE_DIR");
    unsetenv("VKI_KERNEL_PACK");
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    vki_pack_writer *w = vki_pack_writer_new();
    cr_assert_not_null(w);
    vki_context_record_kernels(ctx, w);
    float a[45], b[45];
    vki_kernel_stats compiled, packed;
    run_tiny(ctx, a, &compiled);
    vki_context_record_kernels(ctx, NULL);
    vki_context_destroy(ctx);
    cr_assert_eq(vki_pack_writer_count(w), compiled.compiled);
    void *bytes;
    size_t n;
    cr_assert_eq(vki_pack_writer_bytes(w, &bytes, &n), VKI_OK);
    vki_pack_writer_free(w);

    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_context_add_kernel_pack(NULL, bytes, n), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_context_add_kernel_pack(ctx, NULL, n), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_context_add_kernel_pack(ctx, bytes, n - 1), VKI_ERROR_IO);
    ((unsigned char *)bytes)[n - 1] ^= 1;
    cr_assert_eq(vki_context_add_kernel_pack(ctx, bytes, n), VKI_ERROR_IO);
    cr_assert(strstr(vki_last_error(), "checksum"), "%s", vki_last_error());
    ((unsigned char *)bytes)[n - 1] ^= 1;
    cr_assert_eq(vki_context_add_kernel_pack(ctx, "not a pack at all, no", 21), VKI_ERROR_IO);
    cr_assert_eq(vki_context_load_kernel_pack(ctx, "/nonexistent/app.vkpack"), VKI_ERROR_IO);
    cr_assert_eq(vki_context_add_kernel_pack(ctx, bytes, n), VKI_OK, "%s", vki_last_error());
    free(bytes);                                 /* copied */
    run_tiny(ctx, b, &packed);
    vki_context_destroy(ctx);
    cr_assert_eq(packed.compiled, 0);
    cr_assert_eq(packed.from_pack, compiled.compiled);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
}

/* ---- a graph keeps its context alive ------------------------------------------------- */

static void run_graph_once(vki_graph *g, uint32_t seed, float out[45]) {
    float in[45];
    harness_fill(in, 45, seed, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, 45 * sizeof(float)), VKI_OK, "%s", vki_last_error());
}

/* Destroying the context first gives up only the app's handle: the graph still runs on
 * its device, and destroying it frees both (LSan, in tools/test.sh, sees any leak). */
Test(api, graph_outlives_its_destroyed_context) {
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, m, NULL, &g), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
    float before[45], after[45];
    run_graph_once(g, 31u, before);
    vki_context_destroy(ctx);
    run_graph_once(g, 31u, after);
    cr_assert_eq(memcmp(before, after, sizeof before), 0, "the run after the context's destroy differs");
    vki_memory_report mem;
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    vki_graph_destroy(g);
}

static void *destroy_graph_thread(void *graph) {
    float out[45];
    run_graph_once(graph, 7u, out);
    vki_graph_destroy(graph);
    return NULL;
}

/* Graphs of a destroyed context released from several threads at once: exactly the last
 * one frees the context (a double free or a leak would show under ASan and LSan). */
Test(api, graphs_of_a_destroyed_context_released_on_several_threads) {
    enum { N = 4 };
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    vki_model *m = tiny_model();
    vki_graph *g[N];
    for (int i = 0; i < N; i++)
        cr_assert_eq(vki_graph_create(ctx, m, NULL, &g[i]), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
    vki_context_destroy(ctx);
    pthread_t t[N];
    for (int i = 0; i < N; i++) cr_assert_eq(pthread_create(&t[i], NULL, destroy_graph_thread, g[i]), 0);
    for (int i = 0; i < N; i++) cr_assert_eq(pthread_join(t[i], NULL), 0);
}

/* ---- the on-disk kernel cache ---------------------------------------------------------- */

static void run_tiny(vki_context *ctx, float out[45], vki_kernel_stats *stats) {
    vki_model *m = tiny_model();
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, m, NULL, &g), VKI_OK, "%s", vki_last_error());
    float in[45];
    harness_fill(in, 45, 9u, -1.0f, 1.0f);
    vki_graph_set_input(g, 0, in, sizeof in);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    vki_graph_get_output(g, 0, out, 45 * sizeof(float));
    cr_assert_eq(vki_context_kernel_stats(ctx, stats), VKI_OK);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

static vki_context *context_with_cache(const char *dir) {
    vki_context_options o = {.cache_dir = dir};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    return ctx;
}

/* Flips a byte in the middle of every compiled kernel in dir; returns how many. */
static int damage_kernels(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s/*.spv 2>/dev/null | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = 0;
    cr_assert(p && fscanf(p, "%d", &n) == 1);
    pclose(p);
    snprintf(cmd, sizeof cmd,
             "for f in %s/*.spv; do printf '\\377' | dd of=$f bs=1 seek=100 conv=notrunc 2>/dev/null; done",
             dir);
    cr_assert_eq(system(cmd), 0);
    return n;
}

Test(kernel_cache, second_context_loads_what_the_first_compiled) {
    char dir[128];
    snprintf(dir, sizeof dir, "/tmp/vki_test_kernels_%d", (int)getpid());
    float first[45], second[45], third[45];
    vki_kernel_stats a, b, c;
    vki_context *ctx = context_with_cache(dir);   /* creates the directory */
    run_tiny(ctx, first, &a);
    vki_context_destroy(ctx);
    cr_assert(a.compiled >= 3 && a.from_disk == 0, "compiled %d, from disk %d", a.compiled, a.from_disk);
    ctx = context_with_cache(dir);
    run_tiny(ctx, second, &b);
    vki_context_destroy(ctx);
    cr_assert_eq(b.compiled, 0);
    cr_assert_eq(b.from_disk, a.compiled);
    cr_assert(!memcmp(first, second, sizeof first));
    /* A damaged entry is compiled again, never loaded. */
    cr_assert_eq(damage_kernels(dir), a.compiled);
    ctx = context_with_cache(dir);
    run_tiny(ctx, third, &c);
    vki_context_destroy(ctx);
    cr_assert_eq(c.from_disk, 0);
    cr_assert_eq(c.compiled, a.compiled);
    cr_assert(!memcmp(first, third, sizeof first));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(kernel_cache, a_file_is_not_a_cache_directory) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/vki_test_notadir_%d", (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fclose(f);
    vki_context_options o = {.cache_dir = path};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_ERROR_IO);
    cr_assert(strstr(vki_last_error(), "not a directory"), "%s", vki_last_error());
    cr_assert_null(ctx);
    remove(path);
}

/* Warnings a context logged, joined. */
typedef struct warnings { char text[2048]; int n; } warnings;

static void collect(void *user, vki_log_level level, const char *message) {
    warnings *w = user;
    if (level != VKI_LOG_WARNING) return;
    w->n++;
    size_t len = strlen(w->text);
    snprintf(w->text + len, sizeof w->text - len, "%s\n", message);
}

/* An entry that cannot be saved (here the pipeline cache, whose name is taken by a
 * directory) is one warning naming the directory and the cause; kernels still work. */
Test(kernel_cache, a_write_that_fails_is_a_warning) {
    char dir[128], blocker[192], cmd[512];
    snprintf(dir, sizeof dir, "/tmp/vki_test_blocked_%d", (int)getpid());
    snprintf(blocker, sizeof blocker, "%s/pipelines.bin/x", dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, blocker);
    cr_assert_eq(system(cmd), 0);
    warnings w = {{0}, 0};
    vki_context_options o = {.cache_dir = dir, .log = collect, .log_user = &w};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    float out[45];
    vki_kernel_stats st;
    run_tiny(ctx, out, &st);
    vki_context_destroy(ctx);
    cr_expect_eq(w.n, 1, "warnings: %s", w.text);
    cr_expect(strstr(w.text, dir) && strstr(w.text, "pipelines.bin"), "%s", w.text);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* A directory that cannot be written is read from, with a warning at creation. Root
 * writes anywhere, so as root (CI) the test process first becomes nobody (65534): the
 * directory is then its own, mode 0555, which it cannot write. */
Test(kernel_cache, a_read_only_directory_is_a_warning) {
    if (geteuid() == 0) {
#ifdef VKI_CRITERION_ONE_PROCESS
        cr_skip_test("as root: becoming nobody would change every later test of this process");
#endif
        /* In a user namespace that maps only root (tools/test-arm64.sh under qemu), uid
         * 65534 does not exist: EINVAL. */
        if (setgid(65534) != 0 && errno == EINVAL)
            cr_skip_test("uid 65534 is not mapped in this user namespace");
        cr_assert(getgid() == 65534 && setuid(65534) == 0,
                  "root could not become nobody: %s", strerror(errno));
        /* Changing credentials clears the dumpable flag, which LeakSanitizer's tracer
         * needs (tools/test.sh runs this suite under it). */
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    }
    char dir[128], probe[160];
    snprintf(dir, sizeof dir, "/tmp/vki_test_readonly_%d", (int)getpid());
    cr_assert(mkdir(dir, 0777) == 0, "%s: %s", dir, strerror(errno));
    chmod(dir, 0555);
    snprintf(probe, sizeof probe, "%s/probe", dir);
    FILE *f = fopen(probe, "w");
    if (f) {
        fclose(f);
        remove(probe);
        chmod(dir, 0755);
        rmdir(dir);
        cr_assert_fail("uid %d writes into its own 0555 directory: nothing to test", (int)geteuid());
    }
    warnings w = {{0}, 0};
    vki_context_options o = {.cache_dir = dir, .log = collect, .log_user = &w};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    cr_expect(strstr(w.text, "not writable"), "%s", w.text);
    float out[45];
    vki_kernel_stats st;
    run_tiny(ctx, out, &st);
    vki_context_destroy(ctx);
    cr_expect_eq(w.n, 1, "one warning, not one per kernel: %s", w.text);
    chmod(dir, 0755);
    rmdir(dir);
}

/* ---- version, destroy(NULL), the thread's last error ----------------------------------- */

Test(api, version_matches_the_header) {
    cr_assert_eq(vki_version(), VKI_VERSION);
    cr_assert_eq(VKI_VERSION_GET_MAJOR(vki_version()), VKI_VERSION_MAJOR);
    cr_assert_eq(VKI_VERSION_GET_MINOR(vki_version()), VKI_VERSION_MINOR);
    cr_assert_eq(VKI_VERSION_GET_PATCH(vki_version()), VKI_VERSION_PATCH);
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", VKI_VERSION_MAJOR, VKI_VERSION_MINOR, VKI_VERSION_PATCH);
    cr_assert_str_eq(vki_version_string(), text);
    cr_assert(VKI_MAKE_VERSION(0, 2, 0) > VKI_MAKE_VERSION(0, 1, 9));
    cr_assert(VKI_MAKE_VERSION(1, 0, 0) > VKI_MAKE_VERSION(0, 1023, 4095));
}

Test(api, destroy_null_does_nothing) {
    vki_graph_destroy(NULL);
    vki_model_destroy(NULL);
    vki_context_destroy(NULL);
}

/* The message stays through calls that succeed and is the calling thread's own. */
static void *fail_on_another_thread(void *arg) {
    (void)arg;
    cr_assert_eq(vki_last_error()[0], 0, "a new thread starts with no message");
    cr_assert_eq(vki_graph_run(NULL), VKI_ERROR_INVALID_ARGUMENT);
    return NULL;
}

Test(api, last_error_is_per_thread_and_kept_until_the_next_failure) {
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_memory("not a model", 11, "junk", &m), VKI_ERROR_MODEL_FORMAT);
    cr_assert_null(m);
    char first[1024];
    snprintf(first, sizeof first, "%s", vki_last_error());
    cr_assert(strstr(first, "junk"), "%s", first);
    vki_model *tiny = tiny_model();
    vki_tensor_info info;
    cr_assert_eq(vki_model_input_info(tiny, 0, &info), VKI_OK);
    cr_assert_str_eq(vki_last_error(), first, "a call that succeeds keeps the message");
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, fail_on_another_thread, NULL), 0);
    cr_assert_eq(pthread_join(t, NULL), 0);
    cr_assert_str_eq(vki_last_error(), first, "another thread's failure is its own");
    cr_assert_eq(vki_model_output_info(tiny, 5, &info), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "index 5 out of range"), "%s", vki_last_error());
    vki_model_destroy(tiny);
}

/* ---- options and the environment ------------------------------------------------------- */

/* ADD then RELU: the activation pass folds the RELU into the ADD's dispatch. */
static vki_model *add_relu_model(void) {
    vki_model *m = vki_model_new("add_relu");
    int a = harness_tensor(m, 3, 5, 3), b = harness_tensor(m, 3, 5, 3);
    int sum = harness_tensor(m, 3, 5, 3), out = harness_tensor(m, 3, 5, 3);
    harness_binary(m, VKI_OP_ADD, a, b, sum);
    vki_model_add_op(m, VKI_OP_RELU, 1, &sum, 1, &out);
    int ins[2] = {a, b};
    vki_model_set_io(m, 2, ins, 1, &out);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

static int dispatches_with(vki_context *ctx, const vki_model *m, unsigned disable_passes) {
    vki_graph_options o = {.disable_passes = disable_passes};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, m, &o, &g), VKI_OK, "%s", vki_last_error());
    int n = vki_graph_dispatch_count(g);
    vki_graph_destroy(g);
    return n;
}

/* The environment only fills what the options leave zero: an app's explicit device wins
 * over VKI_DEVICE, and ignore_environment reads none of it. */
Test(options, explicit_device_wins_over_the_environment) {
    char *saved = harness_set_env("VKI_DEVICE", "no such device");
    vki_context *ctx = NULL;
    cr_expect_eq(vki_context_create(NULL, &ctx), VKI_ERROR_NO_DEVICE, "VKI_DEVICE fills a NULL device");
    cr_expect(strstr(vki_last_error(), "no such device"), "%s", vki_last_error());
    vki_context_options o = {.device = "0"};
    cr_expect_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    vki_context_destroy(ctx);
    ctx = NULL;
    o = (vki_context_options){.ignore_environment = 1};
    cr_expect_eq(vki_context_create(&o, &ctx), VKI_OK, "%s", vki_last_error());
    vki_context_destroy(ctx);
    harness_restore_env("VKI_DEVICE", saved);
}

Test(options, environment_fills_graph_options_left_zero) {
    vki_model *m = add_relu_model();
    vki_context *ctx = harness_context();
    char *saved = harness_set_env("VKI_DISABLE_PASSES", NULL);
    const int fused = dispatches_with(ctx, m, 0), unfused = dispatches_with(ctx, m, VKI_PASS_ACTIVATION);
    cr_assert_gt(unfused, fused, "the activation pass folds the RELU: %d, %d", fused, unfused);
    setenv("VKI_DISABLE_PASSES", "activation", 1);
    cr_expect_eq(dispatches_with(ctx, m, 0), unfused, "VKI_DISABLE_PASSES fills disable_passes = 0");
    cr_expect_eq(dispatches_with(ctx, m, VKI_PASS_IN_PLACE), fused,
                 "an explicit disable_passes wins over VKI_DISABLE_PASSES");
    vki_context_options co = {.ignore_environment = 1};
    vki_context *quiet = NULL;
    cr_assert_eq(vki_context_create(&co, &quiet), VKI_OK, "%s", vki_last_error());
    cr_expect_eq(dispatches_with(quiet, m, 0), fused, "ignore_environment reaches the graphs");
    setenv("VKI_DISABLE_PASSES", "nonsense", 1);
    vki_graph *g = NULL;
    cr_expect_eq(vki_graph_create(ctx, m, NULL, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "VKI_DISABLE_PASSES: unknown pass 'nonsense'"), "%s", vki_last_error());
    cr_expect_eq(dispatches_with(quiet, m, 0), fused, "ignore_environment reads no bad value either");
    vki_context_destroy(quiet);
    harness_restore_env("VKI_DISABLE_PASSES", saved);
    vki_model_destroy(m);
}

Test(options, out_of_range_values_are_refused) {
    vki_context *ctx = NULL;
    vki_context_options co = {.enable_validation = 3};
    cr_expect_eq(vki_context_create(&co, &ctx), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "enable_validation is 3"), "%s", vki_last_error());
    vki_model *m = tiny_model();
    vki_graph_options o = {.warm_up = (vki_warm_up)7};
    vki_graph *g = NULL;
    cr_expect_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "unknown warm_up 7"), "%s", vki_last_error());
    vki_model_destroy(m);
}

/* ---- graph I/O, polling, warm-up ----------------------------------------------------- */

/* A graph answers for its inputs and outputs after the model is gone. */
Test(api, graph_io_info_outlives_the_model) {
    harness_io_model l = harness_load_io_model("face_detection_short_range.tflite");
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), l.model, NULL, &g), VKI_OK, "%s", vki_last_error());
    const int n_in = vki_model_input_count(l.model), n_out = vki_model_output_count(l.model);
    vki_tensor_info want[8];
    char names[8][64];
    cr_assert_leq(n_in + n_out, 8);
    for (int i = 0; i < n_in + n_out; i++) {
        vki_status s = i < n_in ? vki_model_input_info(l.model, i, &want[i])
                                : vki_model_output_info(l.model, i - n_in, &want[i]);
        cr_assert_eq(s, VKI_OK);
        snprintf(names[i], sizeof names[i], "%s", want[i].name);
    }
    vki_model_destroy(l.model);
    cr_assert_eq(vki_graph_input_count(g), n_in);
    cr_assert_eq(vki_graph_output_count(g), n_out);
    for (int i = 0; i < n_in + n_out; i++) {
        vki_tensor_info t;
        int is_in = i < n_in, k = is_in ? i : i - n_in;
        cr_assert_eq(is_in ? vki_graph_input_info(g, k, &t) : vki_graph_output_info(g, k, &t), VKI_OK);
        cr_expect_str_eq(t.name, names[i]);
        cr_expect_eq(t.rank, want[i].rank);
        cr_expect_eq(t.element_count, want[i].element_count);
        cr_expect(!memcmp(t.shape, want[i].shape, sizeof t.shape), "%s: shape", names[i]);
        cr_expect_eq(is_in ? vki_graph_input_index(g, names[i]) : vki_graph_output_index(g, names[i]), k);
    }
    cr_expect_eq(vki_graph_output_index(g, "no such tensor"), -1);
    cr_expect_eq(vki_graph_input_index(g, NULL), -1);
    vki_tensor_info t;
    cr_expect_eq(vki_graph_output_info(g, n_out, &t), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "vki_graph_output_info"), "%s", vki_last_error());
    cr_expect_eq(vki_graph_input_info(NULL, 0, &t), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_graph_input_count(NULL), 0);
    vki_graph_destroy(g);
}

/* vki_graph_wait(g, 0) polls: VKI_NOT_READY while the run is in flight, with the thread's
 * last error left as it was, then VKI_OK and the outputs of a run that was waited for. */
Test(api, wait_zero_polls_and_leaves_the_last_error) {
    harness_io_model l = harness_load_io_model("face_detection_short_range.tflite");
    vki_context *ctx = harness_context();
    vki_device_info info;
    cr_assert_eq(vki_context_device_info(ctx, &info), VKI_OK);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, l.model, NULL, &g), VKI_OK, "%s", vki_last_error());
    float *in = malloc(l.in_elems[0] * sizeof(float));
    float *want = malloc(l.out_elems[0] * sizeof(float)), *got = malloc(l.out_elems[0] * sizeof(float));
    harness_fill(in, l.in_elems[0], 5u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, in, l.in_elems[0] * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, want, l.out_elems[0] * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_wait(g, 0), VKI_ERROR_INVALID_ARGUMENT, "no run in flight");
    char before[256];
    snprintf(before, sizeof before, "%s", vki_last_error());
    cr_assert_eq(vki_graph_submit(g), VKI_OK, "%s", vki_last_error());
    int not_ready = 0;
    vki_status s;
    while ((s = vki_graph_wait(g, 0)) == VKI_NOT_READY) not_ready++;
    cr_assert_eq(s, VKI_OK, "%s: %s", vki_status_name(s), vki_last_error());
    /* A 28-dispatch graph takes lavapipe well over 1 ms: the first poll finds it running. */
    if (info.is_cpu) cr_expect_gt(not_ready, 0);
    cr_expect_str_eq(vki_last_error(), before, "a poll left an error");
    cr_assert_eq(vki_graph_get_output(g, 0, got, l.out_elems[0] * sizeof(float)), VKI_OK);
    cr_expect(!memcmp(got, want, l.out_elems[0] * sizeof(float)), "the polled run differs");
    vki_graph_destroy(g);
    free(in);
    free(want);
    free(got);
    vki_model_destroy(l.model);
}

/* The warm-up runs (inside vki_graph_create, and at an input's first camera frame) leave
 * nothing behind: a graph built with them and one built without give the same outputs, bit
 * for bit, from their first run, on floats and on a frame. */
Test(api, warm_up_leaves_no_trace) {
    harness_io_model l = harness_load_io_model("face_detection_short_range.tflite");
    float *in = malloc(l.in_elems[0] * sizeof(float));
    float *out[4];
    for (int k = 0; k < 4; k++) out[k] = malloc(l.out_total * sizeof(float));
    harness_fill(in, l.in_elems[0], 9u, -1.0f, 1.0f);
    enum { W = 37, H = 29 };
    unsigned char *rgba = malloc(W * H * 4);
    for (int i = 0; i < W * H * 4; i++) rgba[i] = (unsigned char)(i * 7 % 251);
    const vki_image frame = {.format = VKI_PIXEL_RGBA8888, .width = W, .height = H, .data = rgba};
    for (int k = 0; k < 4; k++) {
        vki_graph_options o = {.warm_up = k % 2 ? VKI_WARM_UP_OFF : VKI_WARM_UP_ON};
        vki_graph *g = NULL;
        cr_assert_eq(vki_graph_create(harness_context(), l.model, &o, &g), VKI_OK, "%s", vki_last_error());
        if (k < 2) cr_assert_eq(vki_graph_set_input(g, 0, in, l.in_elems[0] * sizeof(float)), VKI_OK);
        else cr_assert_eq(vki_graph_set_input_image(g, 0, &frame, NULL), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        float *p = out[k];
        for (int i = 0; i < l.n_out; i++) {
            cr_assert_eq(vki_graph_get_output(g, i, p, l.out_elems[i] * sizeof(float)), VKI_OK);
            p += l.out_elems[i];
        }
        vki_graph_destroy(g);
    }
    cr_expect(!memcmp(out[0], out[1], l.out_total * sizeof(float)), "warm-up changed the outputs");
    cr_expect(!memcmp(out[2], out[3], l.out_total * sizeof(float)), "a frame's warm-up changed the outputs");
    free(rgba);
    free(out[2]);
    free(out[3]);
    free(in);
    free(out[0]);
    free(out[1]);
    vki_model_destroy(l.model);
}

/* Contexts created and destroyed in turn, as an app does across its lifecycle. The loader
 * unloads the driver with the last instance; NVIDIA's could not be loaded again after 29
 * such cycles (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER) until vulkan.c kept it
 * loaded. lavapipe never failed: this guards the GPU runs. */
Test(api, contexts_created_and_destroyed_in_turn) {
    for (int i = 0; i < 40; i++) {
        vki_context *ctx = NULL;
        cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "context %d: %s", i, vki_last_error());
        if (i % 8 == 0) {
            float out[45];
            vki_kernel_stats stats;
            run_tiny(ctx, out, &stats);
            for (int k = 0; k < 45; k++) cr_assert_geq(out[k], 0.0f, "context %d: a RELU output < 0", i);
        }
        vki_context_destroy(ctx);
    }
}

/* input 9x7x5 -> DEPTHWISE 3x3 SAME (5 channels) -> CONV_2D 1x1 (5 -> 6) -> RELU -> output:
 * the FLOPs of each dispatch are 2 per multiply-add of its op, the fused pair counting both,
 * and the input and output conversions and the RELU (fused or not) count none. */
static vki_model *flops_model(void) {
    vki_model *m = vki_model_new("flops");
    int in = harness_tensor(m, 9, 7, 5), mid = harness_tensor(m, 9, 7, 5);
    int pw = harness_tensor(m, 9, 7, 6), out = harness_tensor(m, 9, 7, 6);
    int dwf = harness_const(m, 4, (int[]){1, 3, 3, 5}, 11, -1.0f, 1.0f);
    int pwf = harness_const(m, 4, (int[]){6, 1, 1, 5}, 12, -1.0f, 1.0f);
    vki_op *dw = harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, 2, (int[]){in, dwf}, mid);
    dw->opt.conv = (vki_conv_options){.padding = VKI_PAD_SAME, .stride_h = 1, .stride_w = 1,
                                      .depth_multiplier = 1};
    vki_op *c = harness_op(m, VKI_OP_CONV_2D, 2, (int[]){mid, pwf}, pw);
    c->opt.conv = (vki_conv_options){.padding = VKI_PAD_VALID, .stride_h = 1, .stride_w = 1};
    vki_model_add_op(m, VKI_OP_RELU, 1, &pw, 1, &out);
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

static double graph_flops(const vki_model *m, const char *dwpw, int *dispatches) {
    char *saved = harness_set_env("VKI_DWPW", dwpw);
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(harness_context(), m, NULL, &g);
    harness_restore_env("VKI_DWPW", saved);
    cr_assert_eq(s, VKI_OK, "%s", vki_last_error());
    *dispatches = vki_graph_dispatch_count(g);
    double sum = 0;
    for (int k = 0; k < *dispatches; k++) {
        vki_dispatch_info info;
        cr_assert_eq(vki_graph_dispatch_info(g, k, &info), VKI_OK);
        double f = vki_graph_dispatch_flops(g, k);
        if (!strcmp(info.kernel, "to_phwc4") || !strcmp(info.kernel, "from_phwc4") ||
            !strcmp(info.kernel, "unary"))
            cr_assert_eq(f, 0.0, "%s counts %g", info.kernel, f);
        sum += f;
    }
    cr_assert_eq(vki_graph_dispatch_flops(g, -1), 0.0);
    cr_assert_eq(vki_graph_dispatch_flops(g, *dispatches), 0.0);
    cr_assert_eq(vki_graph_dispatch_flops(NULL, 0), 0.0);
    vki_graph_destroy(g);
    return sum;
}

Test(api, dispatch_flops) {
    vki_model *m = flops_model();
    const double dw = 2.0 * 9 * 7 * 5 * 9, pw = 2.0 * 9 * 7 * 6 * 5;
    int apart, fused;
    cr_assert_eq(graph_flops(m, "0", &apart), dw + pw);
    cr_assert_eq(graph_flops(m, "1", &fused), dw + pw);
    cr_assert_eq(fused, apart - 1, "the pair fused: %d dispatches against %d", fused, apart);
    vki_model_destroy(m);
}
