/* recorder.c: the submitter (command pool, buffer, fence, bounded wait) and the recording
 * of a graph's steps into one command buffer. */
#include "recorder.h"

#include "../../tuner/stats.h"
#include "fault.h"
#include "options.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* ---- the submitter ------------------------------------------------------------------- */

vki_status vki_submitter_open(vki_context *ctx, uint64_t spin_ns, uint64_t timeout_ns,
                              vki_submitter *s) {
    *s = (vki_submitter){.ctx = ctx, .spin_ns = spin_ns, .timeout_ns = timeout_ns};
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = ctx->queue_family};
    VkResult r = ctx->vk.vkCreateCommandPool(ctx->device, &pi, NULL, &s->pool);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "submit", "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = s->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    r = ctx->vk.vkAllocateCommandBuffers(ctx->device, &ai, &s->cmd);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "submit", "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = ctx->vk.vkCreateFence(ctx->device, &fi, NULL, &s->fence);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "submit", "vkCreateFence");
    return VKI_OK;
}

vki_status vki_submitter_record(vki_submitter *s, vki_record_fn fn, void *user, int one_time) {
    const vki_context *ctx = s->ctx;
    vki_submitter_drain(s);
    VkResult r = ctx->vk.vkResetCommandPool(ctx->device, s->pool, 0);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "record", "vkResetCommandPool");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = one_time ? VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT : 0};
    r = ctx->vk.vkBeginCommandBuffer(s->cmd, &bi);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "record", "vkBeginCommandBuffer");
    fn(user, ctx, s->cmd);
    r = ctx->vk.vkEndCommandBuffer(s->cmd);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "record", "vkEndCommandBuffer");
    return VKI_OK;
}

/* A bounded wait. Polling first skips the scheduler's wake-up (options.h). */
static VkResult wait_fence(const vki_submitter *s, uint64_t timeout_ns) {
    const vki_context *ctx = s->ctx;
    double start = vki_now_ms();
    for (unsigned polls = 0; s->spin_ns; polls++) {
        VkResult r = ctx->vk.vkGetFenceStatus(ctx->device, s->fence);
        if (r != VK_NOT_READY) return r;
        if (polls % 256 == 0) {
            double ns = (vki_now_ms() - start) * 1e6;
            if (ns > (double)timeout_ns) return VK_TIMEOUT;
            if (ns > (double)s->spin_ns) break;
        }
    }
    return ctx->vk.vkWaitForFences(ctx->device, 1, &s->fence, VK_TRUE, timeout_ns);
}

vki_status vki_submitter_start(vki_submitter *s, const char *what) {
    vki_context *ctx = s->ctx;
    if (atomic_load(&ctx->lost))
        return vki_fail(VKI_ERROR_DEVICE_LOST, "%s: the device was lost; make a new context", what);
    /* Work whose wait failed may still run: it must end before its fence is reused. */
    vki_submitter_drain(s);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &s->cmd};
    VkResult r = ctx->vk.vkResetFences(ctx->device, 1, &s->fence);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, what, "vkResetFences");
    /* The queue is the context's one externally synchronised object that runs share. */
    pthread_mutex_lock(&ctx->queue_lock);
    r = vki_fault_check(VKI_FAULT_SUBMIT);
    if (r == VK_SUCCESS) r = ctx->vk.vkQueueSubmit(ctx->queue, 1, &si, s->fence);
    pthread_mutex_unlock(&ctx->queue_lock);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, what, "vkQueueSubmit");
    s->pending = 1;
    return VKI_OK;
}

vki_status vki_submitter_wait(vki_submitter *s, uint64_t timeout_ns, const char *what) {
    VkResult r = vki_fault_check(VKI_FAULT_WAIT);
    if (r == VK_SUCCESS) r = wait_fence(s, timeout_ns);
    /* Only a finished wait ends the work: after any failure (even a reported loss) the
     * submitter drains before it reuses or frees what the work uses. */
    if (r == VK_SUCCESS) s->pending = 0;
    /* A poll: not an error, and the thread's last error stays as it was. */
    if (r == VK_TIMEOUT && timeout_ns == 0) return VKI_NOT_READY;
    if (r == VK_TIMEOUT)
        return vki_fail(VKI_ERROR_TIMEOUT, "%s: not finished after %.3f s", what, (double)timeout_ns / 1e9);
    if (r != VK_SUCCESS) return vki_vk_fail(s->ctx, r, what, "waiting for the fence");
    return VKI_OK;
}

vki_status vki_submitter_submit(vki_submitter *s, const char *what) {
    vki_status st = vki_submitter_start(s, what);
    if (st) return st;
    st = vki_submitter_wait(s, s->timeout_ns, what);
    /* A wait that gave up leaves the work pending: it must end before anything it uses is
     * freed, so wait once more for the driver's own limit (the device is then lost). */
    if (st == VKI_ERROR_TIMEOUT) vki_submitter_drain(s);
    return st;
}

void vki_submitter_drain(vki_submitter *s) {
    const vki_context *ctx = s->ctx;
    if (!ctx || !s->pending) return;
    ctx->vk.vkWaitForFences(ctx->device, 1, &s->fence, VK_TRUE, VKI_FENCE_TIMEOUT_NS);
    s->pending = 0;
}

void vki_submitter_close(vki_submitter *s) {
    const vki_context *ctx = s->ctx;
    if (!ctx) return;
    vki_submitter_drain(s);
    if (s->fence) ctx->vk.vkDestroyFence(ctx->device, s->fence, NULL);
    if (s->pool) ctx->vk.vkDestroyCommandPool(ctx->device, s->pool, NULL);
    memset(s, 0, sizeof *s);
}

vki_status vki_submit_once(vki_context *ctx, vki_record_fn fn, void *user, const char *what) {
    vki_submitter s;
    vki_status st = vki_submitter_open(ctx, 0, VKI_FENCE_TIMEOUT_NS, &s);
    if (!st) st = vki_submitter_record(&s, fn, user, 1);
    if (!st) st = vki_submitter_submit(&s, what);
    vki_submitter_close(&s);
    return st;
}

/* ---- the recording ------------------------------------------------------------------- */

vki_status vki_recording_open(vki_context *ctx, int n_steps, uint32_t n_bindings, int profile,
                              uint64_t spin_ns, uint64_t timeout_ns, vki_recording *r) {
    *r = (vki_recording){.ctx = ctx, .n_steps = n_steps};
    r->steps = vki_calloc((size_t)(n_steps ? n_steps : 1), sizeof *r->steps);
    if (!r->steps) return vki_fail_oom("record");
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n_bindings ? n_bindings : 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = (uint32_t)(n_steps ? n_steps : 1),
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &size};
    VkResult res = (VkResult)vki_fault_check(VKI_FAULT_DESCRIPTOR);
    if (res == VK_SUCCESS) res = ctx->vk.vkCreateDescriptorPool(ctx->device, &pi, NULL, &r->descriptors);
    if (res != VK_SUCCESS) return vki_vk_fail(ctx, res, "graph", "vkCreateDescriptorPool");
    vki_status s = vki_submitter_open(ctx, spin_ns, timeout_ns, &r->sub);
    if (s || !profile) return s;
    if (!ctx->props.limits.timestampComputeAndGraphics || ctx->props.limits.timestampPeriod <= 0)
        return vki_fail(VKI_ERROR_DEVICE_FEATURE, "graph: profiling needs timestamps, which %s lacks",
                        ctx->props.deviceName);
    VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                .queryCount = (uint32_t)n_steps + 1};
    res = ctx->vk.vkCreateQueryPool(ctx->device, &qi, NULL, &r->timestamps);
    if (res != VK_SUCCESS) return vki_vk_fail(ctx, res, "graph", "vkCreateQueryPool");
    r->step_ms = vki_calloc((size_t)n_steps + 1, sizeof *r->step_ms);
    if (!r->step_ms) return vki_fail_oom("graph: profile");
    return VKI_OK;
}

vki_status vki_recording_bind(vki_recording *r, int k, VkDescriptorSetLayout layout, int n,
                              const VkDescriptorBufferInfo *buffers) {
    const vki_context *ctx = r->ctx;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = r->descriptors,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &layout};
    VkResult res = (VkResult)vki_fault_check(VKI_FAULT_DESCRIPTOR);
    if (res == VK_SUCCESS) res = ctx->vk.vkAllocateDescriptorSets(ctx->device, &ai, &r->steps[k].set);
    if (res != VK_SUCCESS) return vki_vk_fail(ctx, res, "graph", "vkAllocateDescriptorSets");
    VkWriteDescriptorSet writes[32];
    if (n > 32) return vki_fail(VKI_ERROR_INTERNAL, "graph: %d bindings in one step", n);
    for (int i = 0; i < n; i++)
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                           .dstSet = r->steps[k].set,
                                           .dstBinding = (uint32_t)i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &buffers[i]};
    ctx->vk.vkUpdateDescriptorSets(ctx->device, (uint32_t)n, writes, 0, NULL);
    return VKI_OK;
}

int vki_recording_fits(const vki_context *ctx, const uint32_t grid[3], const uint32_t wg[3],
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

static void record_steps(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const vki_recording *r = user;
    if (r->timestamps) {
        ctx->vk.vkCmdResetQueryPool(cmd, r->timestamps, 0, (uint32_t)r->n_steps + 1);
        ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, r->timestamps, 0);
    }
    if (r->prologue) r->prologue(r->hook_user, ctx, cmd);
    VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    for (int k = 0; k < r->n_steps; k++) {
        const vki_step *s = &r->steps[k];
        if (k > 0)
            ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between,
                                         0, NULL, 0, NULL);
        ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
        ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1,
                                        &s->set, 0, NULL);
        ctx->vk.vkCmdDispatch(cmd, s->groups[0], s->groups[1], s->groups[2]);
        if (r->timestamps)
            ctx->vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                        r->timestamps, (uint32_t)k + 1);
    }
    if (r->epilogue) r->epilogue(r->hook_user, ctx, cmd);
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
}

vki_status vki_recording_record(vki_recording *r) {
    return vki_submitter_record(&r->sub, record_steps, r, 0);
}

static vki_status read_timestamps(vki_recording *r) {
    const vki_context *ctx = r->ctx;
    uint32_t n = (uint32_t)r->n_steps + 1;
    uint64_t *ticks = vki_malloc(sizeof(uint64_t) * n);
    if (!ticks) return vki_fail_oom("run: timestamps");
    VkResult res = ctx->vk.vkGetQueryPoolResults(ctx->device, r->timestamps, 0, n, sizeof(uint64_t) * n,
                                                 ticks, sizeof(uint64_t),
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (res == VK_SUCCESS)
        for (uint32_t k = 1; k < n; k++)
            r->step_ms[k - 1] = (double)(ticks[k] - ticks[k - 1]) * ctx->props.limits.timestampPeriod / 1e6;
    free(ticks);
    return res == VK_SUCCESS ? VKI_OK : vki_vk_fail(ctx, res, "run", "vkGetQueryPoolResults");
}

vki_status vki_recording_start(vki_recording *r) { return vki_submitter_start(&r->sub, "run"); }

vki_status vki_recording_submit(vki_recording *r) {
    vki_status s = vki_recording_start(r);
    if (!s) s = vki_recording_finish(r, r->sub.timeout_ns);
    if (s == VKI_ERROR_TIMEOUT) vki_submitter_drain(&r->sub);
    return s;
}

vki_status vki_recording_finish(vki_recording *r, uint64_t timeout_ns) {
    vki_status s = vki_submitter_wait(&r->sub, timeout_ns, "run");
    if (!s && r->timestamps) s = read_timestamps(r);
    return s;
}

void vki_recording_close(vki_recording *r) {
    const vki_context *ctx = r->ctx;
    if (!ctx) return;
    vki_submitter_close(&r->sub);
    if (r->timestamps) ctx->vk.vkDestroyQueryPool(ctx->device, r->timestamps, NULL);
    if (r->descriptors) ctx->vk.vkDestroyDescriptorPool(ctx->device, r->descriptors, NULL);
    free(r->steps);
    free(r->step_ms);
    memset(r, 0, sizeof *r);
}
