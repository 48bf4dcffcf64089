/* graph.c: turns a validated model into device work, and runs it.
 *
 * Build: ops emit dispatches and weights through the builder; tensors that alias are
 * folded onto one storage; the planner lays storages out in one arena; kernels are
 * compiled and pipelines created once per distinct (kernel, defines, work group);
 * descriptor sets are written once; ONE command buffer is recorded. Run: submit it,
 * wait on a fence. Inputs and outputs pass through host-visible staging buffers that the
 * first and last dispatches convert from and to dense NHWC.
 */
#include "graph.h"

#include "../planner/planner.h"
#include "../tuner/workgroup.h"
#include "half.h"
#include "passes.h"
#include "precision.h"
#include "shader.h"
#include "kernel_cache.h"
#include "status.h"
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static vki_wg_device wg_device(const vki_context *ctx) {
    const VkPhysicalDeviceLimits *l = &ctx->props.limits;
    return (vki_wg_device){
        .vendor_id = ctx->props.vendorID,
        .device_id = ctx->props.deviceID,
        .is_cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU,
        .subgroup_size = ctx->subgroup_size,
        .max_invocations = l->maxComputeWorkGroupInvocations,
        .max_size = {l->maxComputeWorkGroupSize[0], l->maxComputeWorkGroupSize[1],
                     l->maxComputeWorkGroupSize[2]},
    };
}

/* ---- the builder that op files talk to ------------------------------------------------ */

/* A weights blob: `count` floats at `offset` in the host array, stored on the device at
 * `device_offset` bytes as float16 when `half`, the precision of the op that made it. */
typedef struct vki_blob {
    size_t offset, count;
    VkDeviceSize device_offset;
    int half;
} vki_blob;

struct vki_build {
    vki_graph *g;
    const vki_model *m;
    vki_dispatch *dispatches;
    int n_dispatches, cap_dispatches;
    float *weights;             /* all blobs, each starting at a multiple of 4 floats */
    size_t weights_count, weights_cap;
    vki_blob *blobs;
    int n_blobs, cap_blobs;
    int *storage_of;            /* tensor -> tensor whose storage it uses */
    int current_op;             /* op being built, -1 for I/O conversions */
    vki_model view;             /* the model with the passes' private op list */
    unsigned char *skip;        /* ops the passes made redundant */
    vki_wg_device device;
    unsigned char *op_half;     /* per op: outputs and weights stored fp16 */
};

const vki_wg_device *vki_build_device(const vki_build *b) { return &b->device; }

static int grow(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap) return 1;
    int n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}

int vki_build_weights(vki_build *b, const float *data, size_t count) {
    size_t start = (b->weights_count + 3) / 4 * 4;
    size_t need = start + (count ? count : 4);
    if (need > b->weights_cap) {
        size_t cap = b->weights_cap ? b->weights_cap : 1024;
        while (cap < need) cap *= 2;
        float *w = realloc(b->weights, cap * sizeof(float));
        if (!w) return -1;
        b->weights = w;
        b->weights_cap = cap;
    }
    if (!grow((void **)&b->blobs, &b->cap_blobs, b->n_blobs + 1, sizeof *b->blobs)) return -1;
    memset(b->weights + b->weights_count, 0, (need - b->weights_count) * sizeof(float));
    if (count) memcpy(b->weights + start, data, count * sizeof(float));
    b->weights_count = need;
    int half = b->current_op >= 0 && b->op_half[b->current_op];
    b->blobs[b->n_blobs] = (vki_blob){start, count ? count : 4, 0, half};
    return b->n_blobs++;
}

int vki_build_weights_phwc4(vki_build *b, const float *nhwc, vki_shape4 s) {
    size_t count = (size_t)((s.c + 3) / 4) * (size_t)s.h * (size_t)s.w * 4;
    float *packed = malloc(count * sizeof(float));
    if (!packed) return -1;
    vki_pack_phwc4(nhwc, s, packed);
    int blob = vki_build_weights(b, packed, count);
    free(packed);
    return blob;
}

int vki_build_bias(vki_build *b, const vki_tensor *bias, int channels, size_t count) {
    float *padded = calloc(count ? count : 1, sizeof(float));
    if (!padded) return -1;
    if (bias) memcpy(padded, bias->data, (size_t)channels * sizeof(float));
    int blob = vki_build_weights(b, padded, count);
    free(padded);
    return blob;
}

vki_status vki_build_bind_operand(vki_build *b, vki_dispatch *d, int t, vki_shape4 s) {
    const vki_tensor *tensor = &b->m->tensors[t];
    if (!tensor->data) {
        vki_dispatch_bind_tensor(d, t);
        return VKI_OK;
    }
    int blob = vki_build_weights_phwc4(b, tensor->data, s);
    if (blob < 0) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_dispatch_bind_weights(d, blob);
    return VKI_OK;
}

vki_status vki_build_dispatch(vki_build *b, const vki_dispatch *d) {
    if (!grow((void **)&b->dispatches, &b->cap_dispatches, b->n_dispatches + 1, sizeof *d))
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    b->dispatches[b->n_dispatches] = *d;
    b->dispatches[b->n_dispatches++].op_index = b->current_op;
    return VKI_OK;
}

static int storage_root(const vki_build *b, int t) {
    while (b->storage_of[t] != t) t = b->storage_of[t];
    return t;
}

vki_status vki_build_alias(vki_build *b, int alias, int of) {
    b->storage_of[alias] = storage_root(b, of);
    return VKI_OK;
}

/* ---- sizes ------------------------------------------------------------------------------ */

/* Bytes of tensor t in PHWC4, in its storage precision. */
static VkDeviceSize phwc4_bytes(const vki_graph *g, const vki_model *m, int t) {
    vki_shape4 s = vki_tensor_shape4(&m->tensors[t]);
    VkDeviceSize elem = g->tensor_half[t] ? 2 : 4;
    return (VkDeviceSize)s.h * (VkDeviceSize)s.w * (VkDeviceSize)((s.c + 3) / 4) * 4u * elem;
}

static VkDeviceSize align_up(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

/* ---- step 1: dispatches ----------------------------------------------------------------- */

static vki_status emit_io_conversion(vki_build *b, int io, int is_input) {
    const vki_model *m = b->m;
    int t = is_input ? m->inputs[io] : m->outputs[io];
    vki_dispatch d;
    vki_dispatch_init(&d, is_input ? "to_phwc4" : "from_phwc4", VKI_WG_ELEMENTWISE);
    vki_shape4 s = vki_tensor_shape4(&m->tensors[t]);
    vki_define_shape(&d, is_input ? "OUT" : "IN", s);
    if (is_input) {
        d.bindings[d.n_bindings++] = (vki_binding){VKI_BIND_INPUT_STAGING, io};
        vki_dispatch_bind_tensor(&d, t);
    } else {
        vki_dispatch_bind_tensor(&d, t);
        d.bindings[d.n_bindings++] = (vki_binding){VKI_BIND_OUTPUT_STAGING, io};
    }
    vki_dispatch_grid_phwc4(&d, s);
    return vki_build_dispatch(b, &d);
}

static vki_status emit_all(vki_build *b) {
    const vki_model *m = b->m;
    vki_status s = VKI_OK;
    b->current_op = -1;
    for (int i = 0; i < m->n_inputs && !s; i++) s = emit_io_conversion(b, i, 1);
    for (int o = 0; o < m->n_ops && !s; o++) {
        if (b->skip[o]) continue;
        const vki_op_def *def = vki_op_find(&m->ops[o]);
        if (!def) return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "op is not supported");
        b->current_op = o;
        s = def->build(b, m, o);
    }
    b->current_op = -1;
    for (int i = 0; i < m->n_outputs && !s; i++) s = emit_io_conversion(b, i, 0);
    return s;
}

/* ---- step 2: memory --------------------------------------------------------------------- */

/* Lifetimes of the storages the planner places: every storage root a dispatch binds, in
 * dispatch steps, except the device copies of graph inputs and outputs, which live for the
 * whole run and are laid out after the plan. */
typedef struct lifetimes {
    vki_plan_tensor *records;
    int n;
    int *record_of;             /* per tensor (storage roots only): record index or -1 */
    VkDeviceSize *root_bytes;   /* per tensor: bytes its storage needs, 0 if unused */
    unsigned char *is_io;       /* per tensor: storage root of a graph input or output */
} lifetimes;

static void lifetimes_free(lifetimes *l) {
    free(l->records);
    free(l->record_of);
    free(l->root_bytes);
    free(l->is_io);
}

static vki_status collect_lifetimes(const vki_graph *g, const vki_build *b, lifetimes *l) {
    const vki_model *m = b->m;
    const size_t nt = (size_t)(m->n_tensors ? m->n_tensors : 1);
    memset(l, 0, sizeof *l);
    int *first = malloc(sizeof(int) * nt), *last = malloc(sizeof(int) * nt);
    l->records = malloc(sizeof *l->records * nt);
    l->record_of = malloc(sizeof(int) * nt);
    l->root_bytes = calloc(nt, sizeof *l->root_bytes);
    l->is_io = calloc(nt, 1);
    if (!first || !last || !l->records || !l->record_of || !l->root_bytes || !l->is_io) {
        free(first);
        free(last);
        lifetimes_free(l);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    for (int t = 0; t < m->n_tensors; t++) first[t] = last[t] = l->record_of[t] = -1;
    for (int k = 0; k < b->n_dispatches; k++)
        for (int i = 0; i < b->dispatches[k].n_bindings; i++) {
            const vki_binding *bd = &b->dispatches[k].bindings[i];
            if (bd->kind != VKI_BIND_TENSOR) continue;
            int r = storage_root(b, bd->index);
            if (first[r] < 0) first[r] = k;
            last[r] = k;
            VkDeviceSize need = phwc4_bytes(g, m, bd->index);
            if (need > l->root_bytes[r]) l->root_bytes[r] = need;
        }
    for (int i = 0; i < m->n_inputs; i++) l->is_io[storage_root(b, m->inputs[i])] = 1;
    for (int i = 0; i < m->n_outputs; i++) l->is_io[storage_root(b, m->outputs[i])] = 1;
    for (int t = 0; t < m->n_tensors; t++) {
        if (last[t] < 0 || l->is_io[t]) continue;
        l->record_of[t] = l->n;
        l->records[l->n++] = (vki_plan_tensor){l->root_bytes[t], first[t], last[t]};
    }
    free(first);
    free(last);
    return VKI_OK;
}

static VkDeviceSize arena_alignment(const vki_context *ctx) {
    VkDeviceSize align = ctx->props.limits.minStorageBufferOffsetAlignment;
    return align < 16 ? 16 : align;
}

static vki_plan_strategy plan_strategy(vki_memory_strategy s) {
    switch (s) {
    case VKI_MEMORY_NAIVE: return VKI_PLAN_NAIVE;
    case VKI_MEMORY_GREEDY_BY_SIZE: return VKI_PLAN_GREEDY_BY_SIZE;
    case VKI_MEMORY_GREEDY_BY_BREADTH: return VKI_PLAN_GREEDY_BY_BREADTH;
    case VKI_MEMORY_MIN_COST_FLOW: return VKI_PLAN_MIN_COST_FLOW;
    case VKI_MEMORY_ARENA: return VKI_PLAN_ARENA;
    case VKI_MEMORY_OPTIMAL: return VKI_PLAN_OPTIMAL;
    default: return VKI_PLAN_BEST;
    }
}

/* Plans the intermediates with the chosen strategy, then appends the I/O tensors. */
static vki_status plan_memory(vki_graph *g, vki_build *b, vki_memory_strategy strategy) {
    const vki_model *m = b->m;
    lifetimes l;
    vki_status s = collect_lifetimes(g, b, &l);
    if (s) return s;
    g->tensor_offset = calloc((size_t)(m->n_tensors ? m->n_tensors : 1), sizeof *g->tensor_offset);
    g->tensor_used = calloc((size_t)(m->n_tensors ? m->n_tensors : 1), 1);
    VkDeviceSize align = arena_alignment(g->ctx);
    vki_plan_options opts = {.alignment = align};
    vki_plan plan;
    if (!g->tensor_offset || !g->tensor_used ||
        vki_plan_make(l.records, l.n, plan_strategy(strategy), &opts, &plan)) {
        lifetimes_free(&l);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    /* The planner is pure and tested; checking its answer here is cheap and turns a
     * planner bug into an error instead of silently corrupted activations. */
    char why[256];
    if (!vki_plan_check(l.records, l.n, &opts, &plan, why, sizeof why)) {
        vki_plan_free(&plan);
        lifetimes_free(&l);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "%s: memory plan %s is invalid: %s", m->name,
                        vki_plan_strategy_name(plan.strategy), why);
    }
    VkDeviceSize io_at = align_up(plan.total, align);
    for (int t = 0; t < m->n_tensors; t++) {
        if (!l.root_bytes[t]) continue;
        if (l.is_io[t]) {
            g->tensor_offset[t] = io_at;
            io_at = align_up(io_at + l.root_bytes[t], align);
        } else {
            g->tensor_offset[t] = plan.offsets[l.record_of[t]];
        }
    }
    for (int t = 0; t < m->n_tensors; t++) {
        int r = storage_root(b, t);
        if (!l.root_bytes[r]) continue;
        g->tensor_used[t] = 1;
        g->tensor_offset[t] = g->tensor_offset[r];
    }
    g->memory.intermediate_bytes = plan.total;
    g->memory.lower_bound_bytes = plan.lower_bound;
    g->memory.io_bytes = io_at - align_up(plan.total, align);
    g->memory.strategy = vki_plan_strategy_name(plan.strategy);
    vki_plan_free(&plan);
    lifetimes_free(&l);
    return vki_buffer_create(g->ctx, io_at, VKI_MEMORY_DEVICE, "activation arena", &g->arena);
}

/* Lays the blobs out in device memory, each in its op's precision, and uploads them. */
static vki_status upload_weights(vki_graph *g, vki_build *b) {
    VkDeviceSize align = arena_alignment(g->ctx), weight_bytes = 0;
    for (int i = 0; i < b->n_blobs; i++) {
        b->blobs[i].device_offset = align_up(weight_bytes, align);
        weight_bytes = b->blobs[i].device_offset + b->blobs[i].count * (b->blobs[i].half ? 2 : 4);
    }
    g->memory.weights_bytes = weight_bytes;
    vki_status s = vki_buffer_create(g->ctx, align_up(weight_bytes + 16, 16), VKI_MEMORY_DEVICE,
                                     "weights", &g->weights);
    if (s || !b->n_blobs) return s;
    unsigned char *packed = calloc(weight_bytes, 1);
    if (!packed) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; i < b->n_blobs; i++) {
        const vki_blob *blob = &b->blobs[i];
        const float *src = b->weights + blob->offset;
        unsigned char *dst = packed + blob->device_offset;
        if (!blob->half) { memcpy(dst, src, blob->count * sizeof(float)); continue; }
        for (size_t k = 0; k < blob->count; k++) {
            uint16_t h = vki_float_to_half(src[k]);
            memcpy(dst + 2 * k, &h, 2);
        }
    }
    s = vki_buffer_upload(g->ctx, &g->weights, packed, weight_bytes);
    free(packed);
    return s;
}

static vki_status create_staging(vki_graph *g) {
    const vki_model *m = g->model_io;
    g->io = calloc((size_t)(m->n_inputs + m->n_outputs), sizeof *g->io);
    if (!g->io) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; i < m->n_inputs + m->n_outputs; i++) {
        int is_input = i < m->n_inputs;
        int t = is_input ? m->inputs[i] : m->outputs[i - m->n_inputs];
        vki_graph_io *io = &g->io[i];
        io->elements = vki_tensor_elements(&m->tensors[t]);
        char what[64];
        snprintf(what, sizeof what, "%s %d staging", is_input ? "input" : "output",
                 is_input ? i : i - m->n_inputs);
        vki_status s = vki_buffer_create(g->ctx, align_up(io->elements * 4, 16),
                                         is_input ? VKI_MEMORY_UPLOAD : VKI_MEMORY_READBACK, what,
                                         &io->staging);
        if (s) return s;
        g->memory.staging_bytes += io->staging.size;
    }
    return VKI_OK;
}

/* ---- step 3: pipelines and descriptors -------------------------------------------------- */

static vki_status layout_for(vki_graph *g, int n_bindings) {
    if (g->set_layouts[n_bindings]) return VKI_OK;
    VkDescriptorSetLayoutBinding bindings[VKI_MAX_BINDINGS];
    for (int i = 0; i < n_bindings; i++)
        bindings[i] = (VkDescriptorSetLayoutBinding){
            .binding = (uint32_t)i,
            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
            .descriptorCount = 1,
            .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        };
    VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = (uint32_t)n_bindings,
                                          .pBindings = bindings};
    const vki_context *ctx = g->ctx;
    VkResult r = ctx->vk.vkCreateDescriptorSetLayout(ctx->device, &li, NULL, &g->set_layouts[n_bindings]);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreateDescriptorSetLayout");
    VkPipelineLayoutCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                     .setLayoutCount = 1,
                                     .pSetLayouts = &g->set_layouts[n_bindings]};
    r = ctx->vk.vkCreatePipelineLayout(ctx->device, &pi, NULL, &g->pipe_layouts[n_bindings]);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreatePipelineLayout");
    return VKI_OK;
}

/* The precision #defines of one dispatch: each binding's storage type (common.glsl's
 * STORE4_<binding>) and whether the op computes in fp16. */
static void precision_defines(const vki_graph *g, const vki_build *b, const vki_dispatch *d,
                              char *out, size_t cap) {
    int n = 0;
    out[0] = 0;
    if (g->fp16) n += snprintf(out + n, cap - (size_t)n, "#define VKI_FP16_STORAGE 1\n");
    if (g->fp16_arith && d->op_index >= 0 && b->op_half[d->op_index])
        n += snprintf(out + n, cap - (size_t)n, "#define VKI_FP16_ARITH 1\n");
    for (int i = 0; i < d->n_bindings && n < (int)cap; i++) {
        const vki_binding *bd = &d->bindings[i];
        int half = bd->kind == VKI_BIND_TENSOR    ? g->tensor_half[bd->index]
                   : bd->kind == VKI_BIND_WEIGHTS ? b->blobs[bd->index].half
                                                  : 0;
        n += snprintf(out + n, cap - (size_t)n, "#define STORE4_%d %s\n", i, half ? "f16vec4" : "vec4");
    }
}

/* Finds or compiles the shader module of a dispatch's kernel, defines and precision. */
static vki_status module_for(vki_graph *g, const vki_dispatch *d, const char *precision,
                             VkShaderModule *out) {
    uint64_t key = vki_cache_hash(VKI_CACHE_HASH_SEED, d->kernel, strlen(d->kernel) + 1);
    key = vki_cache_hash(key, d->defines, d->defines_len);
    key = vki_cache_hash(key, precision, strlen(precision));
    for (int i = 0; i < g->n_modules; i++)
        if (g->modules[i].key == key) { *out = g->modules[i].module; return VKI_OK; }
    if (!grow((void **)&g->modules, &g->cap_modules, g->n_modules + 1, sizeof *g->modules))
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_context *ctx = g->ctx;
    uint32_t *words;
    size_t n_bytes;
    vki_status s = vki_shader_compile(ctx, d->kernel, precision, d->defines, &words, &n_bytes);
    if (s) return s;
    VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = n_bytes, .pCode = words};
    VkResult r = ctx->vk.vkCreateShaderModule(ctx->device, &mi, NULL, out);
    free(words);
    if (r != VK_SUCCESS) return vki_vk_fail(r, d->kernel, "vkCreateShaderModule");
    g->modules[g->n_modules++] = (vki_module_entry){key, *out};
    return VKI_OK;
}

static void release_modules(vki_graph *g) {
    for (int i = 0; i < g->n_modules; i++)
        g->ctx->vk.vkDestroyShaderModule(g->ctx->device, g->modules[i].module, NULL);
    free(g->modules);
    g->modules = NULL;
    g->n_modules = g->cap_modules = 0;
}

/* Finds or creates the pipeline for a dispatch; identical kernels share one. */
static vki_status pipeline_for(vki_graph *g, const vki_dispatch *d, const char *precision,
                               const uint32_t wg[3], VkPipeline *out) {
    uint64_t key = vki_cache_hash(VKI_CACHE_HASH_SEED, d->kernel, strlen(d->kernel) + 1);
    key = vki_cache_hash(key, d->defines, d->defines_len);
    key = vki_cache_hash(key, wg, 3 * sizeof wg[0]);
    key = vki_cache_hash(key, precision, strlen(precision));
    for (int i = 0; i < g->n_pipelines; i++)
        if (g->pipelines[i].key == key) { *out = g->pipelines[i].pipeline; return VKI_OK; }
    if (!grow((void **)&g->pipelines, &g->cap_pipelines, g->n_pipelines + 1, sizeof *g->pipelines))
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_context *ctx = g->ctx;
    VkShaderModule module;
    vki_status s = module_for(g, d, precision, &module);
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
        .layout = g->pipe_layouts[d->n_bindings],
    };
    VkPipeline pipeline;
    VkResult r = ctx->vk.vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, 1, &ci, NULL, &pipeline);
    /* Some drivers report failure yet hand back a handle; never bind it. */
    if (r != VK_SUCCESS) return vki_vk_fail(r, d->kernel, "vkCreateComputePipelines");
    g->pipelines[g->n_pipelines++] = (vki_pipeline_entry){key, pipeline};
    *out = pipeline;
    return VKI_OK;
}

static VkDescriptorBufferInfo binding_info(const vki_graph *g, const vki_build *b,
                                           const vki_binding *bd) {
    switch (bd->kind) {
    case VKI_BIND_TENSOR:
        return (VkDescriptorBufferInfo){g->arena.buffer, g->tensor_offset[bd->index],
                                        phwc4_bytes(g, b->m, bd->index)};
    case VKI_BIND_WEIGHTS: {
        const vki_blob *blob = &b->blobs[bd->index];
        return (VkDescriptorBufferInfo){g->weights.buffer, blob->device_offset,
                                        blob->count * (blob->half ? 2 : 4)};
    }
    case VKI_BIND_INPUT_STAGING:
        return (VkDescriptorBufferInfo){g->io[bd->index].staging.buffer, 0, g->io[bd->index].staging.size};
    case VKI_BIND_OUTPUT_STAGING:
    default:
        return (VkDescriptorBufferInfo){g->io[b->m->n_inputs + bd->index].staging.buffer, 0,
                                        g->io[b->m->n_inputs + bd->index].staging.size};
    }
}

/* The work group of a dispatch: the tuning file's if it has one that fits, else the table's. */
static void pick_workgroup(vki_graph *g, const vki_wg_device *dev, const vki_dispatch *d,
                           const char *precision, const vki_wg_store *store, int tune,
                           vki_step *step) {
    vki_wg_pick(dev, d->wg_class, d->grid, step->wg);
    /* A reduction's group size is its lane count, part of what it computes. */
    step->tunable = d->wg_class != VKI_WG_REDUCE;
    if (!step->tunable) return;
    g->tuning.dispatches++;
    if (!store && !tune) return;   /* the key is only for the file and the search */
    step->tune_key = vki_tune_key(g->ctx, d->kernel, d->defines, d->defines_len, precision, d->grid);
    const vki_wg_entry *e = store ? vki_wg_store_find(store, step->tune_key) : NULL;
    uint32_t groups[3];
    if (e && vki_tune_fits(g->ctx, d->grid, e->wg, groups)) {
        memcpy(step->wg, e->wg, sizeof step->wg);
        step->from_file = 1;
        g->tuning.from_file++;
    }
}

static vki_status create_descriptors(vki_graph *g, vki_build *b, const vki_wg_store *store,
                                     int tune) {
    vki_context *ctx = g->ctx;
    uint32_t total_bindings = 0;
    for (int k = 0; k < b->n_dispatches; k++) total_bindings += (uint32_t)b->dispatches[k].n_bindings;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, total_bindings ? total_bindings : 1};
    VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .maxSets = (uint32_t)(b->n_dispatches ? b->n_dispatches : 1),
                                     .poolSizeCount = 1,
                                     .pPoolSizes = &size};
    VkResult r = ctx->vk.vkCreateDescriptorPool(ctx->device, &pi, NULL, &g->descriptor_pool);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreateDescriptorPool");
    g->steps = calloc((size_t)(b->n_dispatches ? b->n_dispatches : 1), sizeof *g->steps);
    if (!g->steps) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_wg_device dev = wg_device(ctx);
    for (int k = 0; k < b->n_dispatches; k++) {
        const vki_dispatch *d = &b->dispatches[k];
        vki_step *step = &g->steps[k];
        vki_status s = layout_for(g, d->n_bindings);
        if (s) return s;
        char precision[1024];
        precision_defines(g, b, d, precision, sizeof precision);
        pick_workgroup(g, &dev, d, precision, store, tune, step);
        s = pipeline_for(g, d, precision, step->wg, &step->pipeline);
        if (s) return s;
        step->layout = g->pipe_layouts[d->n_bindings];
        const VkPhysicalDeviceLimits *lim = &ctx->props.limits;
        for (int a = 0; a < 3; a++) {
            step->groups[a] = (d->grid[a] + step->wg[a] - 1) / step->wg[a];
            step->grid[a] = d->grid[a];
            if (step->groups[a] > lim->maxComputeWorkGroupCount[a])
                return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                                "%s: op %d (kernel %s) needs %u work groups along axis %d, the "
                                "device allows %u", b->m->name, d->op_index, d->kernel,
                                step->groups[a], a, lim->maxComputeWorkGroupCount[a]);
        }
        step->kernel = d->kernel;
        step->op_index = d->op_index;
        VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                          .descriptorPool = g->descriptor_pool,
                                          .descriptorSetCount = 1,
                                          .pSetLayouts = &g->set_layouts[d->n_bindings]};
        r = ctx->vk.vkAllocateDescriptorSets(ctx->device, &ai, &step->set);
        if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkAllocateDescriptorSets");
        VkDescriptorBufferInfo infos[VKI_MAX_BINDINGS];
        VkWriteDescriptorSet writes[VKI_MAX_BINDINGS];
        for (int i = 0; i < d->n_bindings; i++) {
            infos[i] = binding_info(g, b, &d->bindings[i]);
            /* A descriptor past maxStorageBufferRange is invalid (VUID-...-00333). */
            if (infos[i].range > lim->maxStorageBufferRange)
                return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                                "%s: op %d (kernel %s) binds %llu bytes at binding %d, more than "
                                "the device's maxStorageBufferRange %u", b->m->name, d->op_index,
                                d->kernel, (unsigned long long)infos[i].range, i,
                                lim->maxStorageBufferRange);
            writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                               .dstSet = step->set,
                                               .dstBinding = (uint32_t)i,
                                               .descriptorCount = 1,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .pBufferInfo = &infos[i]};
        }
        ctx->vk.vkUpdateDescriptorSets(ctx->device, (uint32_t)d->n_bindings, writes, 0, NULL);
    }
    g->n_steps = b->n_dispatches;
    return VKI_OK;
}

/* The pipeline of dispatch k with another work group, for the tuner. */
static vki_status tune_pipeline(void *user, int k, const uint32_t wg[3], VkPipeline *out) {
    vki_build *b = user;
    char precision[1024];
    precision_defines(b->g, b, &b->dispatches[k], precision, sizeof precision);
    return pipeline_for(b->g, &b->dispatches[k], precision, wg, out);
}

static vki_status record(vki_graph *g, int profile);
static vki_status record_commands(vki_graph *g);

/* Takes sizes from the tuning file, searches the rest when asked, keeps the tuned sizes
 * only if the whole graph runs faster with them, records, and saves the file. */
static vki_status tune_describe_record(vki_graph *g, vki_build *b, const vki_graph_options *o) {
    vki_wg_store store = {0};
    const char *file = o ? o->tuning_file : NULL;
    int tune = o && o->tune;
    if (file && vki_wg_store_load(&store, file) < 0) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_status s = create_descriptors(g, b, file ? &store : NULL, tune);
    if (!s && tune) s = vki_tune_search(g, &store, tune_pipeline, b);
    release_modules(g);
    if (!s) s = record(g, o && o->profile);
    if (!s && tune && g->tuning.moved) s = vki_tune_check_graph(g, &store, record_commands);
    if (!s && tune && file && !vki_wg_store_save(&store, file))
        s = vki_fail(VKI_ERROR_IO, "%s: cannot write the tuning file", file);
    vki_wg_store_free(&store);
    return s;
}

/* ---- step 4: the command buffer --------------------------------------------------------- */

static vki_status record(vki_graph *g, int profile) {
    vki_context *ctx = g->ctx;
    const VkDevice dev = ctx->device;
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .queueFamilyIndex = ctx->queue_family};
    VkResult r = ctx->vk.vkCreateCommandPool(dev, &pi, NULL, &g->command_pool);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->command_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    r = ctx->vk.vkAllocateCommandBuffers(dev, &ai, &g->cmd);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = ctx->vk.vkCreateFence(dev, &fi, NULL, &g->fence);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreateFence");

    if (profile) {
        if (!ctx->props.limits.timestampComputeAndGraphics || ctx->props.limits.timestampPeriod <= 0)
            return vki_fail(VKI_ERROR_DEVICE_FEATURE, "graph: profiling needs timestamps, which %s lacks",
                            ctx->props.deviceName);
        VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                    .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                    .queryCount = (uint32_t)g->n_steps + 1};
        r = ctx->vk.vkCreateQueryPool(dev, &qi, NULL, &g->timestamps);
        if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkCreateQueryPool");
        g->step_ms = calloc((size_t)g->n_steps + 1, sizeof *g->step_ms);
        if (!g->step_ms) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    return record_commands(g);
}

/* (Re)records the command buffer from the steps. */
static vki_status record_commands(vki_graph *g) {
    vki_context *ctx = g->ctx;
    VkResult r = ctx->vk.vkResetCommandPool(ctx->device, g->command_pool, 0);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkResetCommandPool");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    r = ctx->vk.vkBeginCommandBuffer(g->cmd, &bi);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkBeginCommandBuffer");
    if (g->timestamps) {
        ctx->vk.vkCmdResetQueryPool(g->cmd, g->timestamps, 0, (uint32_t)g->n_steps + 1);
        ctx->vk.vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->timestamps, 0);
    }
    VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    for (int k = 0; k < g->n_steps; k++) {
        const vki_step *s = &g->steps[k];
        if (k > 0)
            ctx->vk.vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between,
                                         0, NULL, 0, NULL);
        ctx->vk.vkCmdBindPipeline(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->pipeline);
        ctx->vk.vkCmdBindDescriptorSets(g->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s->layout, 0, 1,
                                        &s->set, 0, NULL);
        ctx->vk.vkCmdDispatch(g->cmd, s->groups[0], s->groups[1], s->groups[2]);
        if (g->timestamps)
            ctx->vk.vkCmdWriteTimestamp(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                        g->timestamps, (uint32_t)k + 1);
    }
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    ctx->vk.vkCmdPipelineBarrier(g->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
    r = ctx->vk.vkEndCommandBuffer(g->cmd);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "graph", "vkEndCommandBuffer");
    return VKI_OK;
}

/* ---- public calls ----------------------------------------------------------------------- */

static void build_free(vki_build *b) {
    free(b->dispatches);
    free(b->weights);
    free(b->blobs);
    free(b->storage_of);
    free(b->view.ops);
    free(b->skip);
    free(b->op_half);
}

/* The graph keeps only what it needs of the model: its I/O tensors' shapes. */
static vki_model *copy_io(const vki_model *m) {
    vki_model *c = vki_model_new(m->name);
    if (!c) return NULL;
    int in[64], out[64];
    if (m->n_inputs > 64 || m->n_outputs > 64) { vki_model_destroy(c); return NULL; }
    for (int i = 0; i < m->n_inputs + m->n_outputs; i++) {
        int is_input = i < m->n_inputs;
        const vki_tensor *t = &m->tensors[is_input ? m->inputs[i] : m->outputs[i - m->n_inputs]];
        int idx = vki_model_add_tensor(c, t->name, t->dtype, t->rank, t->shape, NULL, 0);
        if (idx < 0) { vki_model_destroy(c); return NULL; }
        if (is_input) in[i] = idx;
        else out[i - m->n_inputs] = idx;
    }
    if (!vki_model_set_io(c, m->n_inputs, in, m->n_outputs, out)) { vki_model_destroy(c); return NULL; }
    return c;
}

/* Checks options against the device and fills the graph fields they set. */
static vki_status apply_options(vki_graph *g, const vki_model *model, const vki_graph_options *o) {
    const vki_context *ctx = g->ctx;
    if (o && (unsigned)o->precision > VKI_PRECISION_FP16_STORAGE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown precision %d",
                        (int)o->precision);
    if (o && (unsigned)o->memory >= VKI_MEMORY_STRATEGY_COUNT)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown memory strategy %d",
                        (int)o->memory);
    if (o && (unsigned)o->wait > VKI_WAIT_SPIN)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown wait mode %d",
                        (int)o->wait);
    g->fp16 = o && o->precision != VKI_PRECISION_FP32;
    g->fp16_arith = g->fp16 && o->precision == VKI_PRECISION_FP16 && ctx->fp16_arithmetic;
    if (g->fp16 && !ctx->fp16_storage)
        return vki_fail(VKI_ERROR_DEVICE_FEATURE,
                        "%s: fp16 precision needs storageBuffer16BitAccess, which %s lacks "
                        "(or the context disabled)",
                        model->name, ctx->props.deviceName);
    /* On a CPU device the driver's threads need the cores a spinning caller would take. */
    vki_wait_mode wait = o ? o->wait : VKI_WAIT_AUTO;
    int cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    g->spin_ns = wait == VKI_WAIT_SPIN ? UINT64_MAX : wait == VKI_WAIT_AUTO && !cpu ? 2000000u : 0;
    return VKI_OK;
}

/* Runs the passes on a private op list, lets every op emit its dispatches, and settles
 * the precision of every tensor. */
static vki_status build_dispatches(vki_build *b, vki_graph *g, const vki_model *model,
                                   const vki_graph_options *o) {
    memset(b, 0, sizeof *b);
    b->g = g;
    b->view = *model;
    b->m = &b->view;
    b->device = wg_device(g->ctx);
    b->storage_of = malloc(sizeof(int) * (size_t)(model->n_tensors ? model->n_tensors : 1));
    b->view.ops = malloc(sizeof(vki_op) * (size_t)(model->n_ops ? model->n_ops : 1));
    b->skip = calloc((size_t)(model->n_ops ? model->n_ops : 1), 1);
    b->op_half = calloc((size_t)(model->n_ops ? model->n_ops : 1), 1);
    g->tensor_half = calloc((size_t)(model->n_tensors ? model->n_tensors : 1), 1);
    if (!b->storage_of || !b->view.ops || !b->skip || !b->op_half || !g->tensor_half)
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_status s = vki_precision_ops(model, o, g->fp16, b->op_half);
    if (s) return s;
    memcpy(b->view.ops, model->ops, sizeof(vki_op) * (size_t)model->n_ops);
    vki_fuse_activations(&b->view, b->view.ops, b->skip);
    vki_precision_fused(&b->view, b->skip, b->op_half);
    for (int t = 0; t < model->n_tensors; t++) b->storage_of[t] = t;
    s = emit_all(b);
    if (s) return s;
    for (int t = 0; t < model->n_tensors; t++) b->storage_of[t] = storage_root(b, t);
    vki_precision_tensors(&b->view, b->skip, b->op_half, b->storage_of, g->tensor_half);
    for (int o = 0; o < model->n_ops; o++)
        if (!b->skip[o]) g->precision.fp16_ops += b->op_half[o], g->precision.ops++;
    g->precision.fp16_arithmetic = g->fp16_arith;
    return VKI_OK;
}

vki_status vki_graph_create(vki_context *ctx, const vki_model *model,
                            const vki_graph_options *options, vki_graph **out) {
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: out is NULL");
    *out = NULL;
    if (!ctx || !model) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: NULL context or model");
    vki_graph *g = calloc(1, sizeof *g);
    if (!g) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    g->ctx = ctx;
    vki_build b = {0};
    vki_status s = apply_options(g, model, options);
    if (s) {
        free(g);
        return s;
    }
    g->model_io = copy_io(model);
    if (!g->model_io) s = vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    if (!s) s = build_dispatches(&b, g, model, options);
    if (!s) s = plan_memory(g, &b, options ? options->memory : VKI_MEMORY_BEST);
    if (!s) s = upload_weights(g, &b);
    if (!s) s = create_staging(g);
    if (!s) s = tune_describe_record(g, &b, options);
    build_free(&b);
    if (s) {
        vki_graph_destroy(g);
        return s;
    }
    *out = g;
    return VKI_OK;
}

vki_status vki_memory_plans(vki_context *ctx, const vki_model *model,
                            const vki_graph_options *options, vki_memory_plan_info *out, int max) {
    if (!ctx || !model || (!out && max > 0))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_memory_plans: NULL argument");
    vki_graph g = {.ctx = ctx};
    vki_build b = {0};
    lifetimes l = {0};
    vki_status s = apply_options(&g, model, options);
    if (!s) s = build_dispatches(&b, &g, model, options);
    if (!s) s = collect_lifetimes(&g, &b, &l);
    vki_plan_options opts = {.alignment = arena_alignment(ctx)};
    for (int i = 0; !s && i < max && i < VKI_MEMORY_STRATEGY_COUNT; i++) {
        vki_plan plan;
        if (vki_plan_make(l.records, l.n, plan_strategy((vki_memory_strategy)i), &opts, &plan)) {
            s = vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
            break;
        }
        out[i] = (vki_memory_plan_info){
            .strategy = (vki_memory_strategy)i,
            .name = vki_plan_strategy_name(plan.strategy),
            .total_bytes = plan.total,
            .objects = plan.object_of ? plan.n_objects : 0,
            .lower_bound_bytes = plan.lower_bound,
            .plan_ms = plan.plan_ms,
            .proven_optimal = plan.proven_optimal,
            .tensors = l.n,
        };
        vki_plan_free(&plan);
    }
    lifetimes_free(&l);
    build_free(&b);
    free(g.tensor_half);
    return s;
}

void vki_graph_destroy(vki_graph *g) {
    if (!g) return;
    vki_context *ctx = g->ctx;
    const VkDevice dev = ctx->device;
    if (g->fence) ctx->vk.vkDestroyFence(dev, g->fence, NULL);
    if (g->timestamps) ctx->vk.vkDestroyQueryPool(dev, g->timestamps, NULL);
    free(g->step_ms);
    if (g->command_pool) ctx->vk.vkDestroyCommandPool(dev, g->command_pool, NULL);
    if (g->descriptor_pool) ctx->vk.vkDestroyDescriptorPool(dev, g->descriptor_pool, NULL);
    for (int i = 0; i < g->n_pipelines; i++) ctx->vk.vkDestroyPipeline(dev, g->pipelines[i].pipeline, NULL);
    release_modules(g);
    for (int n = 0; n <= VKI_MAX_BINDINGS; n++) {
        if (g->pipe_layouts[n]) ctx->vk.vkDestroyPipelineLayout(dev, g->pipe_layouts[n], NULL);
        if (g->set_layouts[n]) ctx->vk.vkDestroyDescriptorSetLayout(dev, g->set_layouts[n], NULL);
    }
    if (g->io && g->model_io)
        for (int i = 0; i < g->model_io->n_inputs + g->model_io->n_outputs; i++)
            vki_buffer_destroy(ctx, &g->io[i].staging);
    vki_buffer_destroy(ctx, &g->arena);
    vki_buffer_destroy(ctx, &g->weights);
    free(g->io);
    free(g->steps);
    free(g->pipelines);
    free(g->tensor_offset);
    free(g->tensor_used);
    free(g->tensor_half);
    vki_model_destroy(g->model_io);
    free(g);
}

static vki_status check_io(const vki_graph *g, int index, int is_input, size_t size, const void *data) {
    const char *call = is_input ? "vki_graph_set_input" : "vki_graph_get_output";
    if (!g || !data) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: NULL argument", call);
    int n = is_input ? g->model_io->n_inputs : g->model_io->n_outputs;
    if (index < 0 || index >= n)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: index %d out of range (%d %s)", call,
                        index, n, is_input ? "inputs" : "outputs");
    const vki_graph_io *io = &g->io[is_input ? index : g->model_io->n_inputs + index];
    if (size != io->elements * sizeof(float))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s %d takes %zu bytes (%zu floats), got %zu",
                        call, is_input ? "input" : "output", index, io->elements * sizeof(float),
                        io->elements, size);
    return VKI_OK;
}

vki_status vki_graph_set_input(vki_graph *g, int index, const float *data, size_t size) {
    vki_status s = check_io(g, index, 1, size, data);
    if (s) return s;
    vki_graph_io *io = &g->io[index];
    memcpy(io->staging.mapped, data, size);
    vki_buffer_flush(g->ctx, &io->staging);
    return VKI_OK;
}

static uint64_t elapsed_ns(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)(now.tv_sec - start->tv_sec) * 1000000000ull +
           (uint64_t)(now.tv_nsec - start->tv_nsec);
}

/* A bounded wait: a hung device reports VKI_ERROR_TIMEOUT instead of hanging. Polling
 * first skips the scheduler's wake-up, which on a fast GPU can cost more than the work
 * (measured: a 0.8 ms graph took 2.5 ms at the median when only sleeping). */
static VkResult wait_fence(vki_graph *g) {
    vki_context *ctx = g->ctx;
    const uint64_t limit_ns = 60ull * 1000 * 1000 * 1000;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (unsigned polls = 0; g->spin_ns; polls++) {
        VkResult r = ctx->vk.vkGetFenceStatus(ctx->device, g->fence);
        if (r != VK_NOT_READY) return r;
        if (polls % 256 == 0) {
            uint64_t ns = elapsed_ns(&start);
            if (ns > limit_ns) return VK_TIMEOUT;
            if (ns > g->spin_ns) break;
        }
    }
    return ctx->vk.vkWaitForFences(ctx->device, 1, &g->fence, VK_TRUE, limit_ns);
}

static vki_status read_timestamps(vki_graph *g) {
    vki_context *ctx = g->ctx;
    uint32_t n = (uint32_t)g->n_steps + 1;
    uint64_t *ticks = malloc(sizeof(uint64_t) * n);
    if (!ticks) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    VkResult r = ctx->vk.vkGetQueryPoolResults(ctx->device, g->timestamps, 0, n, sizeof(uint64_t) * n,
                                               ticks, sizeof(uint64_t),
                                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r == VK_SUCCESS)
        for (uint32_t k = 1; k < n; k++)
            g->step_ms[k - 1] = (double)(ticks[k] - ticks[k - 1]) * ctx->props.limits.timestampPeriod / 1e6;
    free(ticks);
    return r == VK_SUCCESS ? VKI_OK : vki_vk_fail(r, "run", "vkGetQueryPoolResults");
}

vki_status vki_graph_run(vki_graph *g) {
    if (!g) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_run: graph is NULL");
    vki_context *ctx = g->ctx;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &g->cmd};
    VkResult r = ctx->vk.vkResetFences(ctx->device, 1, &g->fence);
    if (r == VK_SUCCESS) r = ctx->vk.vkQueueSubmit(ctx->queue, 1, &si, g->fence);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "run", "vkQueueSubmit");
    r = wait_fence(g);
    if (r != VK_SUCCESS) return vki_vk_fail(r, "run", "waiting for the fence");
    for (int i = 0; i < g->model_io->n_outputs; i++)
        vki_buffer_invalidate(ctx, &g->io[g->model_io->n_inputs + i].staging);
    if (g->timestamps) return read_timestamps(g);
    return VKI_OK;
}

vki_status vki_graph_get_output(vki_graph *g, int index, float *data, size_t size) {
    vki_status s = check_io(g, index, 0, size, data);
    if (s) return s;
    memcpy(data, g->io[g->model_io->n_inputs + index].staging.mapped, size);
    return VKI_OK;
}

vki_status vki_graph_memory(const vki_graph *g, vki_memory_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_memory: NULL argument");
    *out = g->memory;
    return VKI_OK;
}

vki_status vki_graph_tuning(const vki_graph *g, vki_tuning_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_tuning: NULL argument");
    *out = g->tuning;
    return VKI_OK;
}

vki_status vki_graph_precision(const vki_graph *g, vki_precision_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_precision: NULL argument");
    *out = g->precision;
    return VKI_OK;
}

int vki_graph_dispatch_count(const vki_graph *g) { return g ? g->n_steps : 0; }

int vki_graph_profile(const vki_graph *g, vki_dispatch_profile *out, int max) {
    if (!g || !g->timestamps) return -1;
    for (int k = 0; k < g->n_steps && k < max && out; k++) {
        const vki_step *s = &g->steps[k];
        out[k] = (vki_dispatch_profile){s->kernel, s->op_index, g->step_ms[k],
                                        {s->grid[0], s->grid[1], s->grid[2]},
                                        {s->wg[0], s->wg[1], s->wg[2]}};
    }
    return g->n_steps;
}
