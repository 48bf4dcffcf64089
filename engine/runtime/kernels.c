/* kernels.c: the kernels stage: layouts, shader modules and pipelines, each made once per
 * context and kept until the context is destroyed; shared by the context's threads. */
#include "kernels.h"

#include "kernel_cache.h"
#include "../ops/ops.h"
#include "shader.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

typedef struct cached {
    uint64_t key;
    union { VkShaderModule module; VkPipeline pipeline; } h;
} cached;

struct vki_kernel_cache {
    VkDescriptorSetLayout set_layouts[VKI_MAX_BINDINGS + 1];
    VkPipelineLayout pipe_layouts[VKI_MAX_BINDINGS + 1];
    cached *modules, *pipelines;
    int n_modules, cap_modules, n_pipelines, cap_pipelines;
};

static vki_status cache_of(vki_context *ctx, struct vki_kernel_cache **out) {
    if (!ctx->kernel_cache) {
        ctx->kernel_cache = vki_calloc(1, sizeof *ctx->kernel_cache);
        if (!ctx->kernel_cache) return vki_fail_oom("kernels");
    }
    *out = ctx->kernel_cache;
    return VKI_OK;
}

static vki_status layout_locked(vki_context *ctx, int n, VkDescriptorSetLayout *set,
                                VkPipelineLayout *pipeline) {
    struct vki_kernel_cache *c = NULL;
    vki_status s = cache_of(ctx, &c);
    if (s) return s;
    if (n < 0 || n > VKI_MAX_BINDINGS)
        return vki_fail(VKI_ERROR_INTERNAL, "kernels: %d bindings, at most %d", n, VKI_MAX_BINDINGS);
    if (!c->set_layouts[n]) {
        VkDescriptorSetLayoutBinding bindings[VKI_MAX_BINDINGS];
        for (int i = 0; i < n; i++)
            bindings[i] = (VkDescriptorSetLayoutBinding){
                .binding = (uint32_t)i,
                .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                .descriptorCount = 1,
                .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
            };
        VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                              .bindingCount = (uint32_t)n, .pBindings = bindings};
        VkResult r = ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &li, NULL, &c->set_layouts[n]);
        if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "kernels", "vkCreateDescriptorSetLayout");
    }
    if (!c->pipe_layouts[n]) {
        VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                         .setLayoutCount = 1, .pSetLayouts = &c->set_layouts[n]};
        VkResult r = ctx->vk.vkCreatePipelineLayout(ctx->device, &pi, NULL, &c->pipe_layouts[n]);
        if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "kernels", "vkCreatePipelineLayout");
    }
    if (set) *set = c->set_layouts[n];
    if (pipeline) *pipeline = c->pipe_layouts[n];
    return VKI_OK;
}

static uint64_t variant_hash(const vki_kernel_variant *v) {
    uint64_t key = vki_cache_hash(VKI_CACHE_HASH_SEED, v->kernel, strlen(v->kernel) + 1);
    return vki_cache_hash(key, v->defines, v->defines_len);
}

static const cached *find(const cached *list, int n, uint64_t key) {
    for (int i = 0; i < n; i++)
        if (list[i].key == key) return &list[i];
    return NULL;
}

static vki_status module_for(vki_context *ctx, struct vki_kernel_cache *c,
                             const vki_kernel_variant *v, VkShaderModule *out) {
    uint64_t key = vki_cache_hash(variant_hash(v), v->precision, strlen(v->precision));
    const cached *hit = find(c->modules, c->n_modules, key);
    if (hit) { *out = hit->h.module; return VKI_OK; }
    if (!vki_grow((void **)&c->modules, &c->cap_modules, c->n_modules + 1, sizeof *c->modules))
        return vki_fail_oom("kernels");
    uint32_t *words;
    size_t n_bytes;
    vki_status s = vki_shader_spirv(ctx, v, &words, &n_bytes);
    if (s) return s;
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = n_bytes, .pCode = words};
    VkResult r = (VkResult)vki_fault_check(VKI_FAULT_SHADER);
    if (r == VK_SUCCESS) r = ctx->vk.vkCreateShaderModule(ctx->device, &mi, NULL, out);
    free(words);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, v->kernel, "vkCreateShaderModule");
    c->modules[c->n_modules++] = (cached){key, {.module = *out}};
    return VKI_OK;
}

static vki_status pipeline_locked(vki_context *ctx, const vki_kernel_variant *v,
                                  const uint32_t wg[3], VkPipeline *out) {
    struct vki_kernel_cache *c = NULL;
    vki_status s = cache_of(ctx, &c);
    if (s) return s;
    uint64_t key = vki_cache_hash(variant_hash(v), wg, 3 * sizeof wg[0]);
    key = vki_cache_hash(key, v->precision, strlen(v->precision));
    const cached *hit = find(c->pipelines, c->n_pipelines, key);
    if (hit) { *out = hit->h.pipeline; return VKI_OK; }
    if (!vki_grow((void **)&c->pipelines, &c->cap_pipelines, c->n_pipelines + 1, sizeof *c->pipelines))
        return vki_fail_oom("kernels");
    VkPipelineLayout layout;
    VkShaderModule module;
    s = layout_locked(ctx, v->n_bindings, NULL, &layout);
    if (!s) s = module_for(ctx, c, v, &module);
    if (s) return s;
    VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo spec = {.mapEntryCount = 3, .pMapEntries = entries,
                                 .dataSize = 3 * sizeof(uint32_t), .pData = wg};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module,
                  .pName = "main",
                  .pSpecializationInfo = &spec},
        .layout = layout,
    };
    VkPipeline pipeline;
    VkResult r = (VkResult)vki_fault_check(VKI_FAULT_PIPELINE);
    if (r == VK_SUCCESS)
        r = ctx->vk.vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, 1, &ci, NULL, &pipeline);
    /* Some drivers report failure yet hand back a handle; never bind it. */
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, v->kernel, "vkCreateComputePipelines");
    c->pipelines[c->n_pipelines++] = (cached){key, {.pipeline = pipeline}};
    *out = pipeline;
    return VKI_OK;
}

/* Graphs of one context may be built on several threads at once: the cache is theirs to
 * share, so each call holds the context's kernels lock (compiles included: a kernel is
 * compiled once, whichever thread needs it first). */
vki_status vki_kernels_layout(vki_context *ctx, int n, VkDescriptorSetLayout *set,
                              VkPipelineLayout *pipeline) {
    pthread_mutex_lock(&ctx->kernels_lock);
    vki_status s = layout_locked(ctx, n, set, pipeline);
    pthread_mutex_unlock(&ctx->kernels_lock);
    return s;
}

vki_status vki_kernels_pipeline(vki_context *ctx, const vki_kernel_variant *v, const uint32_t wg[3],
                                VkPipeline *out) {
    pthread_mutex_lock(&ctx->kernels_lock);
    vki_status s = pipeline_locked(ctx, v, wg, out);
    pthread_mutex_unlock(&ctx->kernels_lock);
    return s;
}

void vki_kernels_release(vki_context *ctx) {
    struct vki_kernel_cache *c = ctx->kernel_cache;
    if (!c) return;
    const VkDevice dev = ctx->device;
    for (int i = 0; i < c->n_pipelines; i++) ctx->vk.vkDestroyPipeline(dev, c->pipelines[i].h.pipeline, NULL);
    for (int i = 0; i < c->n_modules; i++) ctx->vk.vkDestroyShaderModule(dev, c->modules[i].h.module, NULL);
    for (int n = 0; n <= VKI_MAX_BINDINGS; n++) {
        if (c->pipe_layouts[n]) ctx->vk.vkDestroyPipelineLayout(dev, c->pipe_layouts[n], NULL);
        if (c->set_layouts[n]) ctx->vk.vkDestroyDescriptorSetLayout(dev, c->set_layouts[n], NULL);
    }
    free(c->pipelines);
    free(c->modules);
    free(c);
    ctx->kernel_cache = NULL;
}
