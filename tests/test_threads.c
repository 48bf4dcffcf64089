/* test_threads.c: the thread contract of vkinfer.h. Graphs of one context built and run on
 * several threads at once give outputs bit-identical to one thread's; graphs come and go
 * while others run; two contexts on two threads are independent; a graph used by two
 * threads at once answers the loser with a status; asynchronous runs interleave. Worker
 * threads record what they saw and the test thread asserts it (Criterion asserts belong
 * on the test's own thread). The suite runs plain, under the validation layer (fatal), and
 * under ASan and ThreadSanitizer (tools/test.sh). */
#include "graph.h"
#include "harness.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "face_detection_short_range.tflite"
#define THREADS 4
#define RUNS 6
/* A first run compiles every kernel: under qemu on a loaded CI machine that passed the
 * default 60 s run wait. Each test has a 600 s limit of its own. */
#define PATIENCE_MS 540000u
static const vki_graph_options patient = {.run_timeout_ms = PATIENCE_MS};

typedef harness_io_model loaded;

static loaded load(const char *file) { return harness_load_io_model(file); }

/* Outputs of one run: all outputs concatenated. */
static size_t out_total(const loaded *l) { return l->out_total; }

/* Sets inputs from `seed` and runs; returns the status of the first failing call, with
 * its message copied to why. */
static vki_status run_once(vki_graph *g, const loaded *l, uint32_t seed, float *out, char *why,
                           size_t why_size) {
    vki_status s = VKI_OK;
    for (int i = 0; !s && i < l->n_in; i++) {
        float *in = malloc(l->in_elems[i] * sizeof(float));
        if (!in) return VKI_ERROR_OUT_OF_MEMORY;
        harness_fill(in, l->in_elems[i], seed + 77u * (uint32_t)i, -1.0f, 1.0f);
        s = vki_graph_set_input(g, i, in, l->in_elems[i] * sizeof(float));
        free(in);
    }
    if (!s) s = vki_graph_run(g);
    for (int i = 0; !s && i < l->n_out; i++) {
        s = vki_graph_get_output(g, i, out, l->out_elems[i] * sizeof(float));
        out += l->out_elems[i];
    }
    if (s) snprintf(why, why_size, "%s: %s", vki_status_name(s), vki_last_error());
    return s;
}

/* The single-threaded answer for each seed. */
static float *reference(vki_context *ctx, const loaded *l, const vki_graph_options *o,
                        uint32_t seed) {
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, l->model, o, &g), VKI_OK, "%s", vki_last_error());
    float *out = malloc(out_total(l) * sizeof(float));
    char why[1200] = "";
    cr_assert_eq(run_once(g, l, seed, out, why, sizeof why), VKI_OK, "%s", why);
    vki_graph_destroy(g);
    return out;
}

/* ---- T threads x their own graphs x N runs, one context ------------------------------ */

typedef struct worker {
    pthread_t thread;
    vki_context *ctx;
    const loaded *l;
    vki_graph_options options;
    uint32_t seed;
    const float *want;
    int runs, ok_runs;
    char why[1200];
} worker;

static void *own_graph(void *arg) {
    worker *w = arg;
    vki_graph *g = NULL;
    vki_status s = vki_graph_create(w->ctx, w->l->model, &w->options, &g);
    if (s) {
        snprintf(w->why, sizeof w->why, "create: %s", vki_last_error());
        return NULL;
    }
    size_t n = out_total(w->l);
    float *got = malloc(n * sizeof(float));
    for (int r = 0; got && r < w->runs; r++) {
        if (run_once(g, w->l, w->seed, got, w->why, sizeof w->why)) break;
        if (memcmp(got, w->want, n * sizeof(float))) {
            snprintf(w->why, sizeof w->why, "run %d: outputs differ from one thread's", r);
            break;
        }
        w->ok_runs++;
    }
    free(got);
    vki_graph_destroy(g);
    return NULL;
}

Test(threads, graphs_of_one_context_in_parallel, .timeout = 600) {
    loaded l = load(MODEL);
    vki_context *ctx = harness_context();
    worker w[THREADS];
    float *want[THREADS];
    for (int t = 0; t < THREADS; t++) {
        /* Half fp32, half fp16 storage where the device has it: different pipelines are
         * compiled by different threads at once. */
        vki_graph_options o = patient;
        vki_device_info info;
        vki_context_device_info(ctx, &info);
        if (t % 2 && info.fp16_storage && (harness_allowed_precisions() & HARNESS_FP16_STORAGE))
            o.precision = VKI_PRECISION_FP16_STORAGE;
        want[t] = reference(ctx, &l, &o, 1000u + (uint32_t)t);
        w[t] = (worker){.ctx = ctx, .l = &l, .options = o, .seed = 1000u + (uint32_t)t,
                        .want = want[t], .runs = RUNS};
    }
    for (int t = 0; t < THREADS; t++) cr_assert_eq(pthread_create(&w[t].thread, NULL, own_graph, &w[t]), 0);
    for (int t = 0; t < THREADS; t++) pthread_join(w[t].thread, NULL);
    for (int t = 0; t < THREADS; t++) {
        cr_expect_eq(w[t].ok_runs, RUNS, "thread %d: %d of %d runs matched: %s", t, w[t].ok_runs,
                     RUNS, w[t].why);
        free(want[t]);
    }
    vki_model_destroy(l.model);
}

/* ---- graphs created and destroyed while others run ------------------------------------ */

typedef struct churn {
    vki_context *ctx;
    const loaded *l;
    atomic_int *stop;
    int made;
    char why[1200];
} churn;

static void *create_destroy(void *arg) {
    churn *c = arg;
    vki_graph_options o = {.memory = VKI_MEMORY_NAIVE, .run_timeout_ms = PATIENCE_MS};
    while (!atomic_load(c->stop)) {
        vki_graph *g = NULL;
        if (vki_graph_create(c->ctx, c->l->model, &o, &g)) {
            snprintf(c->why, sizeof c->why, "create: %s", vki_last_error());
            return NULL;
        }
        /* Run it once too: its submits interleave with the other thread's. */
        vki_status s = vki_graph_run(g);
        vki_graph_destroy(g);
        if (s) {
            snprintf(c->why, sizeof c->why, "run: %s", vki_last_error());
            return NULL;
        }
        c->made++;
    }
    return NULL;
}

Test(threads, graphs_created_and_destroyed_while_others_run, .timeout = 600) {
    loaded l = load(MODEL);
    vki_context *ctx = harness_context();
    vki_graph_options o = patient;
    float *want = reference(ctx, &l, &o, 7);
    atomic_int stop = 0;
    churn c = {.ctx = ctx, .l = &l, .stop = &stop};
    worker w = {.ctx = ctx, .l = &l, .seed = 7, .want = want, .runs = 3 * RUNS};
    pthread_t churner;
    cr_assert_eq(pthread_create(&churner, NULL, create_destroy, &c), 0);
    own_graph(&w);
    atomic_store(&stop, 1);
    pthread_join(churner, NULL);
    cr_expect_eq(w.ok_runs, w.runs, "runner: %d of %d runs matched: %s", w.ok_runs, w.runs, w.why);
    cr_expect(c.why[0] == 0, "churner: %s", c.why);
    cr_expect_gt(c.made, 0, "no graph was created and destroyed meanwhile");
    free(want);
    vki_model_destroy(l.model);
}

/* ---- two contexts, two threads -------------------------------------------------------- */

typedef struct own_context {
    pthread_t thread;
    const loaded *l;
    const float *want;
    int ok;
    char why[1200];
} own_context;

static void *context_thread(void *arg) {
    own_context *o = arg;
    vki_context *ctx = NULL;
    if (vki_context_create(NULL, &ctx)) {
        snprintf(o->why, sizeof o->why, "context: %s", vki_last_error());
        return NULL;
    }
    /* Device enumeration makes and drops an instance of its own meanwhile. */
    int count = 0;
    if (vki_enumerate_devices(NULL, 0, &count) || count < 1)
        snprintf(o->why, sizeof o->why, "enumerate: %s", vki_last_error());
    worker w = {.ctx = ctx, .l = o->l, .options = patient, .seed = 5, .want = o->want, .runs = RUNS};
    own_graph(&w);
    vki_context_destroy(ctx);
    o->ok = w.ok_runs == RUNS && !o->why[0];
    if (w.why[0]) snprintf(o->why, sizeof o->why, "%s", w.why);
    return NULL;
}

Test(threads, two_contexts_on_two_threads, .timeout = 600) {
    loaded l = load(MODEL);
    float *want = reference(harness_context(), &l, &patient, 5);
    own_context o[2] = {{.l = &l, .want = want}, {.l = &l, .want = want}};
    for (int t = 0; t < 2; t++) cr_assert_eq(pthread_create(&o[t].thread, NULL, context_thread, &o[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(o[t].thread, NULL);
    for (int t = 0; t < 2; t++) cr_expect(o[t].ok, "context thread %d: %s", t, o[t].why);
    free(want);
    vki_model_destroy(l.model);
}

/* ---- one graph, two threads: the loser gets a status --------------------------------- */

typedef struct racer {
    pthread_t thread;
    vki_graph *g;
    int runs, ok, busy, other;
    char why[1200];
} racer;

static void *race(void *arg) {
    racer *r = arg;
    for (int i = 0; i < r->runs; i++) {
        vki_status s = vki_graph_run(r->g);
        if (s == VKI_OK) r->ok++;
        else if (s == VKI_ERROR_INVALID_ARGUMENT && strstr(vki_last_error(), "another thread")) r->busy++;
        else {
            r->other++;
            snprintf(r->why, sizeof r->why, "%s: %s", vki_status_name(s), vki_last_error());
        }
    }
    return NULL;
}

Test(threads, one_graph_two_threads_gets_a_status, .timeout = 600) {
    loaded l = load(MODEL);
    vki_context *ctx = harness_context();
    float *want = reference(ctx, &l, &patient, 9);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, l.model, &patient, &g), VKI_OK, "%s", vki_last_error());
    racer r[2] = {{.g = g, .runs = 2 * RUNS}, {.g = g, .runs = 2 * RUNS}};
    for (int t = 0; t < 2; t++) cr_assert_eq(pthread_create(&r[t].thread, NULL, race, &r[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(r[t].thread, NULL);
    for (int t = 0; t < 2; t++) {
        cr_expect_eq(r[t].other, 0, "thread %d: %s", t, r[t].why);
        cr_expect_eq(r[t].ok + r[t].busy, r[t].runs);
    }
    cr_expect_gt(r[0].ok + r[1].ok, 0, "no run got through");
    /* The graph is intact: it still gives the single-threaded answer. */
    float *got = malloc(out_total(&l) * sizeof(float));
    char why[1200] = "";
    cr_assert_eq(run_once(g, &l, 9, got, why, sizeof why), VKI_OK, "%s", why);
    cr_expect(!memcmp(got, want, out_total(&l) * sizeof(float)), "outputs changed after the race");
    free(got);
    free(want);
    vki_graph_destroy(g);
    vki_model_destroy(l.model);
}

/* A graph held by a call on another thread: every call says so; destroy logs and leaves
 * the graph alone (the log callback receives the message). */
typedef struct log_capture {
    int errors;
    char last[512];
} log_capture;

static void capture(void *user, vki_log_level level, const char *message) {
    log_capture *c = user;
    if (level == VKI_LOG_ERROR) c->errors++;
    snprintf(c->last, sizeof c->last, "%s", message);
}

Test(threads, busy_graph_answers_every_call_and_destroy_logs) {
    loaded l = load(MODEL);
    log_capture cap = {0};
    vki_context_options co = {.log = capture, .log_user = &cap};
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(&co, &ctx), VKI_OK, "%s", vki_last_error());
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(ctx, l.model, &patient, &g), VKI_OK, "%s", vki_last_error());
    /* Stand in for a call in progress on another thread. */
    cr_assert_eq(vki_graph_enter(g, "test"), VKI_OK);
    float x[4] = {0};
    cr_expect_eq(vki_graph_run(g), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "another thread"), "%s", vki_last_error());
    cr_expect_eq(vki_graph_submit(g), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_graph_wait(g, 0), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_graph_set_input(g, 0, x, sizeof x), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_graph_get_output(g, 0, x, sizeof x), VKI_ERROR_INVALID_ARGUMENT);
    vki_graph_destroy(g);
    cr_expect_eq(cap.errors, 1, "destroy of a busy graph must log one error");
    cr_expect(strstr(cap.last, "another thread"), "log: %s", cap.last);
    vki_graph_leave(g);
    cr_expect_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_context_destroy(ctx);
    vki_model_destroy(l.model);
}

/* ---- asynchronous runs ---------------------------------------------------------------- */

/* Sets inputs from seed, submits without waiting. */
static void submit_with(vki_graph *g, const loaded *l, uint32_t seed) {
    for (int i = 0; i < l->n_in; i++) {
        float *in = malloc(l->in_elems[i] * sizeof(float));
        harness_fill(in, l->in_elems[i], seed + 77u * (uint32_t)i, -1.0f, 1.0f);
        cr_assert_eq(vki_graph_set_input(g, i, in, l->in_elems[i] * sizeof(float)), VKI_OK, "%s",
                     vki_last_error());
        free(in);
    }
    cr_assert_eq(vki_graph_submit(g), VKI_OK, "%s", vki_last_error());
}

static void expect_outputs(vki_graph *g, const loaded *l, const float *want, const char *what) {
    size_t n = out_total(l);
    float *got = malloc(n * sizeof(float)), *at = got;
    for (int i = 0; i < l->n_out; i++) {
        cr_assert_eq(vki_graph_get_output(g, i, at, l->out_elems[i] * sizeof(float)), VKI_OK,
                     "%s", vki_last_error());
        at += l->out_elems[i];
    }
    cr_expect(!memcmp(got, want, n * sizeof(float)), "%s: outputs differ from sequential runs", what);
    free(got);
}

Test(threads, interleaved_submit_and_wait_match_sequential_runs, .timeout = 600) {
    loaded l = load(MODEL);
    vki_context *ctx = harness_context();
    float *want_a = reference(ctx, &l, &patient, 21), *want_b = reference(ctx, &l, &patient, 22);
    float *want_a2 = reference(ctx, &l, &patient, 23);
    vki_graph *a = NULL, *b = NULL;
    cr_assert_eq(vki_graph_create(ctx, l.model, &patient, &a), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_create(ctx, l.model, &patient, &b), VKI_OK, "%s", vki_last_error());
    cr_expect_eq(vki_graph_wait(a, 0), VKI_ERROR_INVALID_ARGUMENT, "wait with nothing in flight");
    submit_with(a, &l, 21);
    submit_with(b, &l, 22);
    /* In flight: the graph refuses what would race with the device. */
    float x[4];
    cr_expect_eq(vki_graph_set_input(a, 0, x, sizeof x), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "in flight"), "%s", vki_last_error());
    cr_expect_eq(vki_graph_submit(a), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_graph_run(a), VKI_ERROR_INVALID_ARGUMENT);
    vki_status s = vki_graph_wait(a, 0);
    cr_expect(s == VKI_OK || s == VKI_NOT_READY, "a zero wait looks: %s", vki_status_name(s));
    cr_assert_eq(vki_graph_wait(b, 10000000000ull), VKI_OK, "%s", vki_last_error());
    if (s == VKI_NOT_READY)
        cr_assert_eq(vki_graph_wait(a, 10000000000ull), VKI_OK, "%s", vki_last_error());
    expect_outputs(a, &l, want_a, "graph a");
    expect_outputs(b, &l, want_b, "graph b");
    /* A second frame on a while b is destroyed with a run in flight. */
    submit_with(a, &l, 23);
    submit_with(b, &l, 22);
    vki_graph_destroy(b);
    cr_assert_eq(vki_graph_wait(a, 10000000000ull), VKI_OK, "%s", vki_last_error());
    expect_outputs(a, &l, want_a2, "graph a, second frame");
    vki_graph_destroy(a);
    free(want_a);
    free(want_b);
    free(want_a2);
    vki_model_destroy(l.model);
}
