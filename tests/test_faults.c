/* test_faults.c: what a failing device or host does to vkinfer. The fault injector
 * (engine/ir/fault.h) makes the Nth point of one kind fail: memory allocation, buffer
 * creation, shader module or pipeline creation, descriptor allocation, queue submit, fence
 * wait, host malloc. For every kind, N walks over the points of face_detection_short_range's
 * graph build and run (every point by default; see stride() for what tools/test.sh walks):
 * each failure must come back as a status with a message, nothing may leak (the suite runs
 * under LeakSanitizer in tools/test.sh), and the same context must then build and run the
 * model with outputs bit-identical to a clean run. A lost device must stay lost for its
 * graphs while a new context works. */
#include "fault.h"
#include "harness.h"
#include "kernels.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

#define MODEL "face_detection_short_range.tflite"

typedef struct fixture {
    harness_io_model io;
    float *inputs[8];
    float *want;                 /* outputs of a clean run */
} fixture;

static fixture load(void) {
    fixture f = {.io = harness_load_io_model(MODEL)};
    for (int i = 0; i < f.io.n_in; i++) {
        f.inputs[i] = malloc(f.io.in_elems[i] * sizeof(float));
        harness_fill(f.inputs[i], f.io.in_elems[i], 31u + (uint32_t)i, -1.0f, 1.0f);
    }
    return f;
}

static void unload(fixture *f) {
    for (int i = 0; i < f->io.n_in; i++) free(f->inputs[i]);
    free(f->want);
    vki_model_destroy(f->io.model);
}

/* Build, set inputs, run, read outputs into out (may be NULL); destroys the graph. */
static vki_status build_and_run(vki_context *ctx, const fixture *f, float *out) {
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(ctx, f->io.model, NULL, &g);
    for (int i = 0; !s && i < f->io.n_in; i++)
        s = vki_graph_set_input(g, i, f->inputs[i], f->io.in_elems[i] * sizeof(float));
    if (!s) s = vki_graph_run(g);
    for (int i = 0; !s && out && i < f->io.n_out; i++) {
        s = vki_graph_get_output(g, i, out, f->io.out_elems[i] * sizeof(float));
        out += f->io.out_elems[i];
    }
    vki_graph_destroy(g);
    return s;
}

static vki_context *new_context(void) {
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    return ctx;
}

/* Shader and pipeline points are reached only while the context's kernel cache lacks the
 * kernels, so those walks empty it before each build; the others run on a warm cache
 * (host allocations of compiling are walked in host_malloc_compiling). */
static int cold(vki_fault_kind kind) {
    return kind == VKI_FAULT_SHADER || kind == VKI_FAULT_PIPELINE;
}

/* Points first, first + N, first + 2N, ... are walked, and always the last: N[:FIRST] from
 * VKI_FAULT_STRIDE for warm walks (default 1: every point), VKI_FAULT_COLD_STRIDE for cold
 * ones (default 3, coprime with the four host allocations of compiling one kernel); FIRST
 * defaults to 1. A cold point costs two builds that create every pipeline (1.5 s on
 * lavapipe); all 384 of them take about 10 minutes, so tools/test.sh does not walk them all:
 * its plain run walks every warm point and the cold points 1, 4, 7, ... (a third), the
 * validation run the cold points 2, 17, 32, ... (15:2, a fifteenth) and the sanitizer run
 * 3, 66, 129, ... (63:3, a 63rd): disjoint sets, about 42% of the cold points
 * together, with the last point in each; the other 58% are never walked there.
 * `VKI_FAULT_COLD_STRIDE=1` walks them all. */
static long stride(int cold_cache, long *first) {
    const char *v = getenv(cold_cache ? "VKI_FAULT_COLD_STRIDE" : "VKI_FAULT_STRIDE");
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : cold_cache ? 3 : 1;
    *first = v && *end == ':' ? strtol(end + 1, NULL, 10) : 1;
    if (*first < 1) *first = 1;
    return n > 0 ? n : 1;
}

/* Points of `kind` in one build and run on ctx. */
static long count_points(vki_context *ctx, const fixture *f, vki_fault_kind kind, int cold_cache) {
    if (cold_cache) vki_kernels_release(ctx);
    vki_fault_arm(kind, 0, 0);
    vki_status s = build_and_run(ctx, f, NULL);
    long n = vki_fault_seen();
    vki_fault_disarm();
    cr_assert_eq(s, VKI_OK, "counting %s points: %s", vki_fault_kind_name(kind), vki_last_error());
    return n;
}

static void expect_clean_run(vki_context *ctx, const fixture *f, const char *after) {
    float *got = malloc(f->io.out_total * sizeof(float));
    vki_status s = build_and_run(ctx, f, got);
    cr_assert_eq(s, VKI_OK, "after %s: the same context fails: %s", after, vki_last_error());
    cr_assert(!memcmp(got, f->want, f->io.out_total * sizeof(float)),
              "after %s: outputs differ from a clean run", after);
    free(got);
}

static vki_status want_status(int result) {
    return result == VK_ERROR_DEVICE_LOST ? VKI_ERROR_DEVICE_LOST : VKI_ERROR_OUT_OF_MEMORY;
}

/* Fails point `at` of `kind` with `result`; checks the status and message. A failure the
 * engine works around (a host allocation for an optional cache) may give VKI_OK, but then
 * the outputs must be right. Returns 1 for a failure reported, 0 for one worked around. */
static int fail_at(vki_context *ctx, const fixture *f, vki_fault_kind kind, long at, int result,
                   int cold_cache) {
    if (cold_cache) vki_kernels_release(ctx);
    float *got = malloc(f->io.out_total * sizeof(float));
    vki_fault_arm(kind, at, result);
    vki_status s = build_and_run(ctx, f, got);
    int fired = vki_fault_fired();
    vki_fault_disarm();
    cr_assert(fired, "%s point %ld was not reached", vki_fault_kind_name(kind), at);
    const char *msg = vki_last_error();
    if (s == VKI_OK && result != VK_ERROR_DEVICE_LOST) {
        cr_assert(!memcmp(got, f->want, f->io.out_total * sizeof(float)),
                  "%s point %ld: reported success with wrong outputs", vki_fault_kind_name(kind), at);
        free(got);
        return 0;
    }
    free(got);
    cr_assert_eq(s, want_status(result), "%s point %ld (%d): got %s: %s", vki_fault_kind_name(kind),
                 at, result, vki_status_name(s), msg);
    cr_assert(msg[0], "%s point %ld: no message", vki_fault_kind_name(kind), at);
    return 1;
}

/* Every point of a kind with out-of-memory (device and host by turns), each followed by a
 * clean build and run on the same context. Returns the number of points. */
static long walk(vki_fault_kind kind, int cold_cache) {
    fixture f = load();
    vki_context *ctx = new_context();
    f.want = malloc(f.io.out_total * sizeof(float));
    cr_assert_eq(build_and_run(ctx, &f, f.want), VKI_OK, "%s", vki_last_error());
    long n = count_points(ctx, &f, kind, cold_cache);
    cr_assert_gt(n, 0, "no %s point in a build and run", vki_fault_kind_name(kind));
    long reported = 0, walked = 0;
    long first, step = stride(cold_cache, &first);
    if (first > n) first = n;
    for (long at = first; at <= n; at += at + step > n && at != n ? n - at : step) {
        int result = at % 2 ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_ERROR_OUT_OF_HOST_MEMORY;
        reported += fail_at(ctx, &f, kind, at, result, cold_cache);
        walked++;
        char after[64];
        snprintf(after, sizeof after, "%s point %ld", vki_fault_kind_name(kind), at);
        expect_clean_run(ctx, &f, after);
    }
    fprintf(stderr, "faults: %s%s: %ld points, %ld walked (from %ld every %ld, and the last): "
            "%ld reported a status, %ld worked around; the context recovered after each\n",
            vki_fault_kind_name(kind), cold_cache && kind == VKI_FAULT_MALLOC ? " (compiling)" : "",
            n, walked, first, step, reported, walked - reported);
    vki_context_destroy(ctx);
    unload(&f);
    return n;
}

Test(faults, memory_allocation, .timeout = 600) { walk(VKI_FAULT_MEMORY, 0); }
Test(faults, buffer_creation, .timeout = 600) { walk(VKI_FAULT_BUFFER, 0); }
Test(faults, shader_module_creation, .timeout = 900) { walk(VKI_FAULT_SHADER, 1); }
Test(faults, pipeline_creation, .timeout = 900) { walk(VKI_FAULT_PIPELINE, 1); }
Test(faults, descriptor_allocation, .timeout = 600) { walk(VKI_FAULT_DESCRIPTOR, 0); }
Test(faults, queue_submit, .timeout = 600) { walk(VKI_FAULT_SUBMIT, 0); }
Test(faults, fence_wait, .timeout = 600) { walk(VKI_FAULT_WAIT, 0); }
Test(faults, host_malloc, .timeout = 900) { walk(VKI_FAULT_MALLOC, 0); }
Test(faults, host_malloc_compiling, .timeout = 900) { walk(VKI_FAULT_MALLOC, 1); }

/* Device loss at the first, a middle and the last point of each Vulkan kind: the status
 * is VKI_ERROR_DEVICE_LOST; the context's graphs then answer every call with it, and so
 * does graph creation; a new context works. */
Test(faults, device_lost_stays_lost_and_a_new_context_works, .timeout = 600) {
    fixture f = load();
    vki_context *probe = new_context();
    f.want = malloc(f.io.out_total * sizeof(float));
    cr_assert_eq(build_and_run(probe, &f, f.want), VKI_OK, "%s", vki_last_error());
    static const vki_fault_kind kinds[] = {VKI_FAULT_MEMORY, VKI_FAULT_BUFFER, VKI_FAULT_SHADER,
                                           VKI_FAULT_PIPELINE, VKI_FAULT_DESCRIPTOR,
                                           VKI_FAULT_SUBMIT, VKI_FAULT_WAIT};
    int cases = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        long n = count_points(probe, &f, kinds[k], cold(kinds[k]));
        long points[3] = {1, (n + 1) / 2, n};
        for (int p = 0; p < 3; p++) {
            if (p && points[p] == points[p - 1]) continue;
            vki_context *ctx = new_context();
            /* A graph built before the loss, to see how it behaves after. */
            vki_graph *before = NULL;
            cr_assert_eq(vki_graph_create(ctx, f.io.model, NULL, &before), VKI_OK, "%s", vki_last_error());
            fail_at(ctx, &f, kinds[k], points[p], VK_ERROR_DEVICE_LOST, cold(kinds[k]));
            float x[4];
            cr_expect_eq(vki_graph_run(before), VKI_ERROR_DEVICE_LOST);
            cr_expect_eq(vki_graph_submit(before), VKI_ERROR_DEVICE_LOST);
            cr_expect_eq(vki_graph_set_input(before, 0, x, sizeof x), VKI_ERROR_DEVICE_LOST);
            cr_expect_eq(vki_graph_get_output(before, 0, x, sizeof x), VKI_ERROR_DEVICE_LOST);
            cr_expect(strstr(vki_last_error(), "lost"), "%s", vki_last_error());
            vki_graph *after = NULL;
            cr_expect_eq(vki_graph_create(ctx, f.io.model, NULL, &after), VKI_ERROR_DEVICE_LOST);
            cr_expect_null(after);
            vki_graph_destroy(before);
            vki_context_destroy(ctx);
            ctx = new_context();
            expect_clean_run(ctx, &f, "device loss, in a new context");
            vki_context_destroy(ctx);
            cases++;
        }
    }
    fprintf(stderr, "faults: device lost at %d points (first, middle, last of each kind)\n", cases);
    vki_context_destroy(probe);
    unload(&f);
}

/* An input fed frames gives its float staging back and makes it again at the next float
 * input: every point of that remaking fails with VKI_ERROR_OUT_OF_MEMORY and a message,
 * the graph stays on frames (its next run gives the frame's outputs), and then takes
 * floats with a clean run's outputs. */
Test(faults, floats_after_frames, .timeout = 600) {
    fixture f = load();
    vki_context *ctx = new_context();
    f.want = malloc(f.io.out_total * sizeof(float));
    cr_assert_eq(build_and_run(ctx, &f, f.want), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(f.io.in_elems[0], 128 * 128 * 3);
    uint8_t *pixels = malloc(160 * 120 * 3);
    for (int i = 0; i < 160 * 120 * 3; i++) pixels[i] = (uint8_t)(i * 7 + i / 480);
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = 160, .height = 120, .data = pixels};
    float *from_frame = malloc(f.io.out_total * sizeof(float));
    float *got = malloc(f.io.out_total * sizeof(float));
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, f.io.model, NULL, &g), VKI_OK, "%s", vki_last_error());
    const size_t in_bytes = f.io.in_elems[0] * sizeof(float);
    /* Runs g and reads every output into out. */
#define RUN_INTO(out)                                                                          \
    do {                                                                                       \
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());                        \
        for (int i = 0, at = 0; i < f.io.n_out; at += (int)f.io.out_elems[i], i++)             \
            cr_assert_eq(vki_graph_get_output(g, i, (out) + at, f.io.out_elems[i] * sizeof(float)), \
                         VKI_OK, "%s", vki_last_error());                                      \
    } while (0)
    cr_assert_eq(vki_graph_set_input_image(g, 0, &img, NULL), VKI_OK, "%s", vki_last_error());
    RUN_INTO(from_frame);
    static const vki_fault_kind kinds[] = {VKI_FAULT_MEMORY, VKI_FAULT_BUFFER, VKI_FAULT_MALLOC,
                                           VKI_FAULT_DESCRIPTOR};
    long failures = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        cr_assert_eq(vki_graph_set_input_image(g, 0, &img, NULL), VKI_OK, "%s", vki_last_error());
        vki_fault_arm(kinds[k], 0, 0);
        cr_assert_eq(vki_graph_set_input(g, 0, f.inputs[0], in_bytes), VKI_OK, "%s", vki_last_error());
        long n = vki_fault_seen();
        vki_fault_disarm();
        for (long at = 1; at <= n; at++) {
            cr_assert_eq(vki_graph_set_input_image(g, 0, &img, NULL), VKI_OK, "%s", vki_last_error());
            int result = at % 2 ? VK_ERROR_OUT_OF_DEVICE_MEMORY : VK_ERROR_OUT_OF_HOST_MEMORY;
            vki_fault_arm(kinds[k], at, result);
            vki_status st = vki_graph_set_input(g, 0, f.inputs[0], in_bytes);
            int fired = vki_fault_fired();
            vki_fault_disarm();
            cr_assert(fired, "%s point %ld was not reached", vki_fault_kind_name(kinds[k]), at);
            cr_assert_eq(st, VKI_ERROR_OUT_OF_MEMORY, "%s point %ld: %s: %s",
                         vki_fault_kind_name(kinds[k]), at, vki_status_name(st), vki_last_error());
            cr_assert(vki_last_error()[0], "%s point %ld: no message", vki_fault_kind_name(kinds[k]), at);
            RUN_INTO(got);
            cr_assert(!memcmp(got, from_frame, f.io.out_total * sizeof(float)),
                      "%s point %ld: the graph left its frame", vki_fault_kind_name(kinds[k]), at);
            cr_assert_eq(vki_graph_set_input(g, 0, f.inputs[0], in_bytes), VKI_OK, "%s", vki_last_error());
            RUN_INTO(got);
            cr_assert(!memcmp(got, f.want, f.io.out_total * sizeof(float)),
                      "%s point %ld: floats after the failure differ from a clean run",
                      vki_fault_kind_name(kinds[k]), at);
            failures++;
        }
    }
#undef RUN_INTO
    cr_assert_geq(failures, 2, "no buffer or memory point when floats came back");
    fprintf(stderr, "faults: floats after frames: %ld points failed, the graph recovered after each\n",
            failures);
    vki_graph_destroy(g);
    free(pixels);
    free(from_frame);
    free(got);
    vki_context_destroy(ctx);
    unload(&f);
}

/* Context creation under host allocation failure: every point fails cleanly. */
Test(faults, context_creation_malloc, .timeout = 600) {
    vki_fault_arm(VKI_FAULT_MALLOC, 0, 0);
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    long n = vki_fault_seen();
    vki_fault_disarm();
    vki_context_destroy(ctx);
    long worked_around = 0;
    for (long at = 1; at <= n; at++) {
        vki_fault_arm(VKI_FAULT_MALLOC, at, 0);
        ctx = NULL;
        vki_status s = vki_context_create(NULL, &ctx);
        int fired = vki_fault_fired();
        vki_fault_disarm();
        if (!fired) {
            vki_context_destroy(ctx);
            continue;
        }
        /* A failed optional query (a layer or extension list) leaves a working context. */
        cr_expect(s == VKI_ERROR_OUT_OF_MEMORY || s == VKI_OK, "malloc point %ld: %s: %s", at,
                  vki_status_name(s), vki_last_error());
        if (s) cr_expect_null(ctx);
        else worked_around++;
        vki_context_destroy(ctx);
    }
    fprintf(stderr, "faults: context creation: %ld malloc points, %ld worked around\n", n,
            worked_around);
}

/* The injector's text form (VKI_FAULT). */
Test(faults, fault_text) {
    cr_expect(vki_fault_arm_from_text("pipeline:3"));
    cr_expect(vki_fault_arm_from_text("submit:1:VK_ERROR_DEVICE_LOST"));
    cr_expect_not(vki_fault_arm_from_text("pipeline"));
    cr_expect_not(vki_fault_arm_from_text("nothing:1"));
    cr_expect_not(vki_fault_arm_from_text("wait:x"));
    cr_expect_not(vki_fault_arm_from_text("wait:1:VK_SUCCESS"));
    vki_fault_disarm();
}
