/* tune.c: refines each dispatch's work-group size on the device. A candidate is timed
 * alone: a command buffer with the dispatch three times between two timestamps, submitted
 * five times, median kept. The search itself (tuner/search.c) is pure. */
#include "tune.h"

#include "../tuner/search.h"
#include "kernel_cache.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 3
#define SAMPLES 5

uint64_t vki_tune_key(const vki_context *ctx, const char *kernel, const char *defines,
                      size_t defines_len, const char *precision, const uint32_t grid[3]) {
    uint64_t h = vki_context_identity(ctx);
    h = vki_cache_hash(h, kernel, strlen(kernel) + 1);
    h = vki_cache_hash(h, defines, defines_len);
    h = vki_cache_hash(h, precision, strlen(precision) + 1);
    return vki_cache_hash(h, grid, 3 * sizeof grid[0]);
}

int vki_tune_fits(const vki_context *ctx, const uint32_t grid[3], const uint32_t wg[3],
                  uint32_t groups[3]) {
    const VkPhysicalDeviceLimits *l = &ctx->props.limits;
    if ((uint64_t)wg[0] * wg[1] * wg[2] > l->maxComputeWorkGroupInvocations) return 0;
    for (int a = 0; a < 3; a++) {
        if (wg[a] < 1 || wg[a] > l->maxComputeWorkGroupSize[a]) return 0;
        groups[a] = (grid[a] + wg[a] - 1) / wg[a];
        if (groups[a] > l->maxComputeWorkGroupCount[a]) return 0;
    }
    return 1;
}

typedef struct timer {
    vki_graph *g;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    vki_tune_pipeline make;
    void *user;
    int step;
    vki_status failure;     /* a Vulkan error that is not about the candidate */
} timer;

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ms per dispatch of the timer's step with work group wg, or -1 if it cannot run. */
static double measure(void *user, const uint32_t wg[3]) {
    timer *t = user;
    vki_graph *g = t->g;
    const vki_context *ctx = g->ctx;
    const vki_step *s = &g->steps[t->step];
    uint32_t groups[3];
    VkPipeline pipeline;
    if (t->failure || !vki_tune_fits(ctx, s->grid, wg, groups)) return -1;
    if (t->make(t->user, t->step, wg, &pipeline)) return -1;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    double samples[SAMPLES];
    for (int n = 0; n < SAMPLES; n++) {
        VkResult r = ctx->vk.vkResetCommandPool(ctx->device, t->pool, 0);
        if (r == VK_SUCCESS) r = ctx->vk.vkBeginCommandBuffer(t->cmd, &bi);
        if (r != VK_SUCCESS) { t->failure = vki_vk_fail(r, "tune", "vkBeginCommandBuffer"); return -1; }
        ctx->vk.vkCmdResetQueryPool(t->cmd, t->queries, 0, 2);
        ctx->vk.vkCmdWriteTimestamp(t->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, t->queries, 0);
        ctx->vk.vkCmdBindPipeline(t->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        ctx->vk.vkCmdBindDescriptorSets(t->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1,
                                        &s->set, 0, NULL);
        for (int k = 0; k < REPEATS; k++) {
            /* In-place kernels must not race with themselves across repeats. */
            if (k) ctx->vk.vkCmdPipelineBarrier(t->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                                &between, 0, NULL, 0, NULL);
            ctx->vk.vkCmdDispatch(t->cmd, groups[0], groups[1], groups[2]);
        }
        ctx->vk.vkCmdWriteTimestamp(t->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, t->queries, 1);
        r = ctx->vk.vkEndCommandBuffer(t->cmd);
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &t->cmd};
        if (r == VK_SUCCESS) r = ctx->vk.vkResetFences(ctx->device, 1, &t->fence);
        if (r == VK_SUCCESS) r = ctx->vk.vkQueueSubmit(ctx->queue, 1, &si, t->fence);
        if (r == VK_SUCCESS) r = ctx->vk.vkWaitForFences(ctx->device, 1, &t->fence, VK_TRUE, 60ull * 1000000000ull);
        uint64_t ticks[2];
        if (r == VK_SUCCESS)
            r = ctx->vk.vkGetQueryPoolResults(ctx->device, t->queries, 0, 2, sizeof ticks, ticks,
                                              sizeof ticks[0], VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        if (r != VK_SUCCESS) { t->failure = vki_vk_fail(r, "tune", "timing a dispatch"); return -1; }
        samples[n] = (double)(ticks[1] - ticks[0]) * ctx->props.limits.timestampPeriod / 1e6 / REPEATS;
    }
    qsort(samples, SAMPLES, sizeof samples[0], by_value);
    return samples[SAMPLES / 2];
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Median wall time of whole runs, as an application sees them. */
static vki_status time_graph(vki_graph *g, double *median) {
    double ms[15];
    for (int r = 0; r < 3; r++) {
        vki_status s = vki_graph_run(g);
        if (s) return s;
    }
    for (int r = 0; r < 15; r++) {
        double t0 = now_ms();
        vki_status s = vki_graph_run(g);
        if (s) return s;
        ms[r] = now_ms() - t0;
    }
    qsort(ms, 15, sizeof ms[0], by_value);
    *median = ms[7];
    return VKI_OK;
}

/* Puts the table's sizes back into the steps tuning moved (tuned = 0) or the tuned ones. */
static void swap_sizes(vki_graph *g) {
    for (int k = 0; k < g->n_steps; k++) {
        vki_step *s = &g->steps[k];
        if (!s->table_pipeline) continue;
        uint32_t wg[3], groups[3];
        memcpy(wg, s->wg, sizeof wg);
        memcpy(groups, s->groups, sizeof groups);
        VkPipeline p = s->pipeline;
        memcpy(s->wg, s->table_wg, sizeof wg);
        memcpy(s->groups, s->table_groups, sizeof groups);
        s->pipeline = s->table_pipeline;
        memcpy(s->table_wg, wg, sizeof wg);
        memcpy(s->table_groups, groups, sizeof groups);
        s->table_pipeline = p;
    }
}

vki_status vki_tune_check_graph(vki_graph *g, vki_wg_store *store, vki_status (*rerecord)(vki_graph *)) {
    for (int i = 0; i < g->model_io->n_inputs; i++) {
        vki_buffer *b = &g->io[i].staging;
        memset(b->mapped, 0, (size_t)b->size);
        vki_buffer_flush(g->ctx, b);
    }
    vki_status s = time_graph(g, &g->tuning.graph_tuned_ms);
    swap_sizes(g);                       /* now the table's */
    if (!s) s = rerecord(g);
    if (!s) s = time_graph(g, &g->tuning.graph_table_ms);
    if (s) return s;
    g->tuning.kept = g->tuning.graph_tuned_ms < g->tuning.graph_table_ms;
    if (g->tuning.kept) {
        swap_sizes(g);                   /* back to the tuned ones */
        return rerecord(g);
    }
    /* The table's sizes stay; the file remembers them, so no later build searches again. */
    for (int k = 0; k < g->n_steps; k++)
        if (g->steps[k].table_pipeline &&
            !vki_wg_store_put(store, g->steps[k].tune_key, g->steps[k].wg, -1))
            return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    return VKI_OK;
}

static vki_status timer_open(timer *t, vki_graph *g) {
    const vki_context *ctx = g->ctx;
    if (!ctx->props.limits.timestampComputeAndGraphics || ctx->props.limits.timestampPeriod <= 0)
        return vki_fail(VKI_ERROR_DEVICE_FEATURE, "tune: timing dispatches needs timestamps, which %s lacks",
                        ctx->props.deviceName);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = ctx->queue_family};
    VkResult r = ctx->vk.vkCreateCommandPool(ctx->device, &pi, NULL, &t->pool);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = t->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    if (r == VK_SUCCESS) r = ctx->vk.vkAllocateCommandBuffers(ctx->device, &ai, &t->cmd);
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (r == VK_SUCCESS) r = ctx->vk.vkCreateFence(ctx->device, &fi, NULL, &t->fence);
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2};
    if (r == VK_SUCCESS) r = ctx->vk.vkCreateQueryPool(ctx->device, &qi, NULL, &t->queries);
    return r == VK_SUCCESS ? VKI_OK : vki_vk_fail(r, "tune", "creating the timing objects");
}

static void timer_close(timer *t) {
    const vki_context *ctx = t->g->ctx;
    if (t->queries) ctx->vk.vkDestroyQueryPool(ctx->device, t->queries, NULL);
    if (t->fence) ctx->vk.vkDestroyFence(ctx->device, t->fence, NULL);
    if (t->pool) ctx->vk.vkDestroyCommandPool(ctx->device, t->pool, NULL);
}

vki_status vki_tune_search(vki_graph *g, vki_wg_store *store, vki_tune_pipeline make, void *user) {
    timer t = {.g = g, .make = make, .user = user};
    vki_status s = timer_open(&t, g);
    const VkPhysicalDeviceLimits *l = &g->ctx->props.limits;
    vki_wg_device dev = {.max_invocations = l->maxComputeWorkGroupInvocations,
                         .max_size = {l->maxComputeWorkGroupSize[0], l->maxComputeWorkGroupSize[1],
                                      l->maxComputeWorkGroupSize[2]}};
    for (int k = 0; !s && k < g->n_steps; k++) {
        vki_step *step = &g->steps[k];
        if (!step->tunable || step->from_file) continue;
        t.step = k;
        vki_wg_search_result res;
        vki_wg_search(&dev, step->grid, step->wg, NULL, measure, &t, &res);
        if (t.failure) { s = t.failure; break; }
        g->tuning.searched++;
        if (res.best_ms < 0) continue;   /* the table's size could not be timed: keep it */
        g->tuning.table_ms += res.start_ms;
        g->tuning.tuned_ms += res.best_ms;
        if (res.moves) {
            g->tuning.moved++;
            memcpy(step->table_wg, step->wg, sizeof step->wg);
            memcpy(step->table_groups, step->groups, sizeof step->groups);
            step->table_pipeline = step->pipeline;
            memcpy(step->wg, res.wg, sizeof step->wg);
            vki_tune_fits(g->ctx, step->grid, step->wg, step->groups);
            s = make(user, k, step->wg, &step->pipeline);
        }
        if (!s && !vki_wg_store_put(store, step->tune_key, step->wg, res.best_ms))
            s = vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    timer_close(&t);
    return s;
}
