/* tune.c: work-group sizes from the table, the tuning file and local search on the device.
 * A candidate is timed alone: one command buffer with the dispatch REPEATS times between
 * two timestamps, submitted SAMPLES times, median kept (options.h). */
#include "tune.h"

#include "../../tuner/search.h"
#include "../../tuner/stats.h"
#include "kernel_cache.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

typedef struct vki_tune_step {
    uint64_t key;                /* the tuning file's key; 0 until needed */
    int tunable;                 /* the work group is free to change (not a reduction's) */
    int from_file;
    int moved;                   /* local search moved it: the table's size is kept below */
    uint32_t table_wg[3], table_groups[3];
    VkPipeline table_pipeline;
} vki_tune_step;

uint64_t vki_tune_key(const vki_context *ctx, const vki_kernel_variant *v, const uint32_t grid[3]) {
    uint64_t h = vki_context_identity(ctx);
    h = vki_cache_hash(h, v->kernel, strlen(v->kernel) + 1);
    h = vki_cache_hash(h, v->defines, v->defines_len);
    h = vki_cache_hash(h, v->precision, strlen(v->precision) + 1);
    return vki_cache_hash(h, grid, 3 * sizeof grid[0]);
}

vki_status vki_tuning_open(vki_tuning *t, vki_context *ctx, const vki_graph_config *cfg, int n_steps) {
    *t = (vki_tuning){.ctx = ctx, .cfg = cfg, .n_steps = n_steps};
    t->device = vki_context_wg_device(ctx);
    t->steps = vki_calloc((size_t)(n_steps ? n_steps : 1), sizeof *t->steps);
    if (!t->steps) return vki_fail_oom("tune");
    if (cfg->tuning_file && vki_wg_store_load(&t->store, cfg->tuning_file) < 0)
        return vki_fail_oom("tune: reading the tuning file");
    return VKI_OK;
}

void vki_tuning_pick(vki_tuning *t, int k, const vki_kernel_variant *v, vki_wg_class cls,
                     const uint32_t grid[3], const uint32_t table_wg[3], uint32_t wg[3]) {
    vki_tune_step *s = &t->steps[k];
    memcpy(wg, table_wg, 3 * sizeof wg[0]);
    s->tunable = vki_wg_tunable(cls);
    if (!s->tunable) return;
    t->report.dispatches++;
    if (!t->cfg->tuning_file && !t->cfg->tune) return;   /* the key is for the file and search */
    s->key = vki_tune_key(t->ctx, v, grid);
    const vki_wg_entry *e = t->cfg->tuning_file ? vki_wg_store_find(&t->store, s->key) : NULL;
    uint32_t groups[3];
    if (e && vki_recording_fits(t->ctx, grid, e->wg, groups)) {
        memcpy(wg, e->wg, 3 * sizeof wg[0]);
        s->from_file = 1;
        t->report.from_file++;
    }
}

/* ---- timing one step ----------------------------------------------------------------- */

typedef struct timer {
    vki_recording *rec;
    vki_submitter sub;
    VkQueryPool queries;
    vki_make_pipeline make;
    void *user;
    int step;
    VkPipeline pipeline;         /* the candidate being recorded */
    uint32_t groups[3];
    vki_status failure;          /* a Vulkan error that is not about the candidate */
} timer;

static void record_candidate(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const timer *t = user;
    const vki_step *s = &t->rec->steps[t->step];
    VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    ctx->vk.vkCmdResetQueryPool(cmd, t->queries, 0, 2);
    ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->queries, 0);
    ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, t->pipeline);
    ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1, &s->set,
                                    0, NULL);
    for (int k = 0; k < VKI_TUNE_REPEATS; k++) {
        /* In-place kernels must not race with themselves across repeats. */
        if (k) ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between,
                                            0, NULL, 0, NULL);
        ctx->vk.vkCmdDispatch(cmd, t->groups[0], t->groups[1], t->groups[2]);
    }
    ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 1);
}

/* ms per dispatch of the timer's step with work group wg, or -1 if it cannot run. */
static double measure(void *user, const uint32_t wg[3]) {
    timer *t = user;
    const vki_context *ctx = t->rec->ctx;
    const vki_step *s = &t->rec->steps[t->step];
    if (t->failure || !vki_recording_fits(ctx, s->grid, wg, t->groups)) return -1;
    if (t->make(t->user, t->step, wg, &t->pipeline)) return -1;
    double samples[VKI_TUNE_SAMPLES];
    for (int n = 0; n < VKI_TUNE_SAMPLES; n++) {
        t->failure = vki_submitter_record(&t->sub, record_candidate, t, 1);
        if (!t->failure) t->failure = vki_submitter_submit(&t->sub, "tune: timing a dispatch");
        if (t->failure) return -1;
        uint64_t ticks[2];
        VkResult r = ctx->vk.vkGetQueryPoolResults(ctx->device, t->queries, 0, 2, sizeof ticks, ticks,
                                                   sizeof ticks[0],
                                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS) { t->failure = vki_vk_fail(ctx, r, "tune", "vkGetQueryPoolResults"); return -1; }
        samples[n] = (double)(ticks[1] - ticks[0]) * ctx->props.limits.timestampPeriod / 1e6 / VKI_TUNE_REPEATS;
    }
    return vki_sample_stats_of(samples, VKI_TUNE_SAMPLES).median;
}

static vki_status timer_open(timer *t, vki_recording *rec) {
    vki_context *ctx = rec->ctx;
    if (!ctx->props.limits.timestampComputeAndGraphics || ctx->props.limits.timestampPeriod <= 0)
        return vki_fail(VKI_ERROR_DEVICE_FEATURE, "tune: timing dispatches needs timestamps, which %s lacks",
                        ctx->props.deviceName);
    vki_status s = vki_submitter_open(ctx, 0, VKI_FENCE_TIMEOUT_NS, &t->sub);
    if (s) return s;
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    VkResult r = ctx->vk.vkCreateQueryPool(ctx->device, &qi, NULL, &t->queries);
    return r == VK_SUCCESS ? VKI_OK : vki_vk_fail(ctx, r, "tune", "vkCreateQueryPool");
}

static void timer_close(timer *t) {
    const vki_context *ctx = t->rec->ctx;
    if (t->queries) ctx->vk.vkDestroyQueryPool(ctx->device, t->queries, NULL);
    vki_submitter_close(&t->sub);
}

vki_status vki_tune_time(vki_recording *rec, int k, const uint32_t wg[3], vki_make_pipeline make,
                         void *user, double *ms) {
    timer t = {.rec = rec, .make = make, .user = user, .step = k};
    *ms = -1;
    vki_status s = timer_open(&t, rec);
    if (!s) {
        *ms = measure(&t, wg);
        s = t.failure;
    }
    timer_close(&t);
    return s;
}

static vki_status search(vki_tuning *tu, vki_recording *rec, vki_make_pipeline make, void *user) {
    timer t = {.rec = rec, .make = make, .user = user};
    vki_status s = timer_open(&t, rec);
    int total = 0, done = 0;
    for (int k = 0; k < rec->n_steps; k++) total += tu->steps[k].tunable && !tu->steps[k].from_file;
    for (int k = 0; !s && k < rec->n_steps; k++) {
        vki_step *step = &rec->steps[k];
        vki_tune_step *ts = &tu->steps[k];
        if (!ts->tunable || ts->from_file) continue;
        t.step = k;
        vki_wg_search_result res;
        vki_wg_search(&tu->device, step->grid, step->wg, NULL, measure, &t, &res);
        if (t.failure) { s = t.failure; break; }
        tu->report.searched++;
        if (tu->cfg->progress) tu->cfg->progress(tu->cfg->progress_user, "tune", ++done, total);
        if (res.best_ms < 0) continue;   /* the table's size could not be timed: keep it */
        tu->report.table_ms += res.start_ms;
        tu->report.tuned_ms += res.best_ms;
        if (res.moves) {
            tu->report.moved++;
            ts->moved = 1;
            memcpy(ts->table_wg, step->wg, sizeof step->wg);
            memcpy(ts->table_groups, step->groups, sizeof step->groups);
            ts->table_pipeline = step->pipeline;
            memcpy(step->wg, res.wg, sizeof step->wg);
            vki_recording_fits(rec->ctx, step->grid, step->wg, step->groups);
            s = make(user, k, step->wg, &step->pipeline);
        }
        if (!s && !vki_wg_store_put(&tu->store, ts->key, step->wg, res.best_ms))
            s = vki_fail_oom("tune");
    }
    timer_close(&t);
    return s;
}

/* ---- timing the whole recording ------------------------------------------------------ */

/* n whole runs' wall times into ms, as an application sees them. */
static vki_status time_recording(vki_recording *rec, double *ms, int n) {
    for (int r = 0; r < n; r++) {
        double t0 = vki_now_ms();
        vki_status s = vki_recording_submit(rec);
        if (s) return s;
        ms[r] = vki_now_ms() - t0;
    }
    return VKI_OK;
}

/* Runs until the latency is steady (options.h VKI_TUNE_GRAPH_WARMUP*). */
static vki_status warm_recording(vki_recording *rec) {
    vki_warmup *w = malloc(sizeof *w);
    if (!w) return vki_fail_oom("tune");
    vki_warmup_init(w, VKI_TUNE_GRAPH_WARMUP, VKI_TUNE_GRAPH_WARMUP_MS,
                    VKI_TUNE_GRAPH_WARMUP_MAX_MS, 0.05);
    vki_status s;
    double ms;
    do {
        s = time_recording(rec, &ms, 1);
    } while (!s && !vki_warmup_add(w, ms));
    free(w);
    return s;
}

/* Swaps the tuned and the table's sizes of every step search moved. */
static void swap_sizes(vki_tuning *tu, vki_recording *rec) {
    for (int k = 0; k < rec->n_steps; k++) {
        vki_step *s = &rec->steps[k];
        vki_tune_step *ts = &tu->steps[k];
        if (!ts->moved) continue;
        uint32_t wg[3], groups[3];
        memcpy(wg, s->wg, sizeof wg);
        memcpy(groups, s->groups, sizeof groups);
        VkPipeline p = s->pipeline;
        memcpy(s->wg, ts->table_wg, sizeof wg);
        memcpy(s->groups, ts->table_groups, sizeof groups);
        s->pipeline = ts->table_pipeline;
        memcpy(ts->table_wg, wg, sizeof wg);
        memcpy(ts->table_groups, groups, sizeof groups);
        ts->table_pipeline = p;
    }
}

/* A dispatch timed alone can mislead (as on CPU devices, where it runs with hot caches and
 * every core to itself): the tuned sizes stay only if the whole recording runs faster. */
static vki_status check_whole(vki_tuning *tu, vki_recording *rec) {
    vki_tuning_report *rep = &tu->report;
    const vki_graph_config *cfg = tu->cfg;
    enum { PER = VKI_TUNE_GRAPH_RUNS / VKI_TUNE_GRAPH_ROUNDS, N = PER * VKI_TUNE_GRAPH_ROUNDS };
    double tuned[N], table[N];
    vki_status s = warm_recording(rec);
    /* Rounds of tuned, then table's sizes; the recording holds the tuned ones between. */
    for (int r = 0; r < VKI_TUNE_GRAPH_ROUNDS && !s; r++) {
        s = time_recording(rec, tuned + r * PER, PER);
        swap_sizes(tu, rec);             /* now the table's */
        if (!s) s = vki_recording_record(rec);
        if (!s) s = time_recording(rec, table + r * PER, PER);
        swap_sizes(tu, rec);             /* back to the tuned ones */
        if (!s) s = vki_recording_record(rec);
        if (!s && cfg->progress)
            cfg->progress(cfg->progress_user, "tune check", r + 1, VKI_TUNE_GRAPH_ROUNDS);
    }
    if (s) return s;
    rep->graph_tuned_ms = vki_sample_stats_of(tuned, N).median;
    rep->graph_table_ms = vki_sample_stats_of(table, N).median;
    rep->kept = rep->graph_tuned_ms < rep->graph_table_ms;
    if (rep->kept) return VKI_OK;
    swap_sizes(tu, rec);
    if ((s = vki_recording_record(rec))) return s;
    /* The table's sizes stay; the file remembers them, so no later build searches again. */
    for (int k = 0; k < rec->n_steps; k++)
        if (tu->steps[k].moved && !vki_wg_store_put(&tu->store, tu->steps[k].key, rec->steps[k].wg, -1))
            return vki_fail_oom("tune");
    return VKI_OK;
}

vki_status vki_tuning_finish(vki_tuning *t, vki_recording *rec, vki_make_pipeline make, void *user) {
    vki_status s = t->cfg->tune ? search(t, rec, make, user) : VKI_OK;
    if (!s) s = vki_recording_record(rec);
    if (!s && t->cfg->tune && t->report.moved) s = check_whole(t, rec);
    if (!s && t->cfg->tune && t->cfg->tuning_file && !vki_wg_store_save(&t->store, t->cfg->tuning_file))
        s = vki_fail(VKI_ERROR_IO, "%s: cannot write the tuning file", t->cfg->tuning_file);
    return s;
}

void vki_tuning_close(vki_tuning *t) {
    vki_wg_store_free(&t->store);
    free(t->steps);
    t->steps = NULL;
}
