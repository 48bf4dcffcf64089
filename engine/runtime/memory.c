/* memory.c: the plan stage: lifetimes, the planner's arena, graph I/O tensors, weights,
 * staging and guard bytes. */
#include "memory.h"

#include "half.h"
#include "precision.h"
#include "recorder.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTES 256u
#define GUARD_WORD 0xA5A5A5A5u

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t vki_arena_alignment(const vki_context *ctx) {
    uint64_t align = ctx->props.limits.minStorageBufferOffsetAlignment;
    return align < 16 ? 16 : align;
}

vki_plan_strategy vki_plan_strategy_of(vki_memory_strategy s) {
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

/* ---- lifetimes ----------------------------------------------------------------------- */

void vki_lifetimes_free(vki_lifetimes *l) {
    free(l->records);
    free(l->record_of);
    free(l->root_bytes);
    free(l->is_io);
    memset(l, 0, sizeof *l);
}

vki_status vki_lifetimes_collect(const vki_build *b, uint64_t guard_bytes, vki_lifetimes *l) {
    const vki_model *m = b->m;
    const size_t nt = (size_t)(m->n_tensors ? m->n_tensors : 1);
    memset(l, 0, sizeof *l);
    int *first = vki_malloc(sizeof(int) * nt), *last = vki_malloc(sizeof(int) * nt);
    l->records = vki_malloc(sizeof *l->records * nt);
    l->record_of = vki_malloc(sizeof(int) * nt);
    l->root_bytes = vki_calloc(nt, sizeof *l->root_bytes);
    l->is_io = vki_calloc(nt, 1);
    if (!first || !last || !l->records || !l->record_of || !l->root_bytes || !l->is_io) {
        free(first);
        free(last);
        vki_lifetimes_free(l);
        return vki_fail_oom("memory plan");
    }
    for (int t = 0; t < m->n_tensors; t++) first[t] = last[t] = l->record_of[t] = -1;
    for (int k = 0; k < b->n_dispatches; k++)
        for (int i = 0; i < b->dispatches[k].n_bindings; i++) {
            const vki_binding *bd = &b->dispatches[k].bindings[i];
            if (bd->kind != VKI_BIND_TENSOR) continue;
            int r = b->storage_of[bd->index];
            if (first[r] < 0) first[r] = k;
            last[r] = k;
            uint64_t need = vki_build_tensor_bytes(b, bd->index);
            if (need > l->root_bytes[r]) l->root_bytes[r] = need;
        }
    for (int i = 0; i < m->n_inputs; i++) l->is_io[b->storage_of[m->inputs[i]]] = 1;
    for (int i = 0; i < m->n_outputs; i++) l->is_io[b->storage_of[m->outputs[i]]] = 1;
    for (int t = 0; t < m->n_tensors; t++) {
        if (last[t] < 0 || l->is_io[t]) continue;
        l->record_of[t] = l->n;
        l->records[l->n++] = guard_bytes
            ? (vki_plan_tensor){l->root_bytes[t] + guard_bytes, 0, b->n_dispatches - 1}
            : (vki_plan_tensor){l->root_bytes[t], first[t], last[t]};
    }
    free(first);
    free(last);
    return VKI_OK;
}

/* ---- the arena ----------------------------------------------------------------------- */

/* Which op writes storage root t (for guard messages). */
static void describe_storage(const vki_build *b, int t, char *out, size_t cap) {
    const vki_model *m = b->m;
    int n = snprintf(out, cap, "tensor %d '%.48s'", t, m->tensors[t].name);
    for (int o = 0; o < m->n_ops; o++) {
        if (b->skip[o]) continue;
        for (int i = 0; i < m->ops[o].n_outputs; i++)
            if (m->ops[o].outputs[i] >= 0 && b->storage_of[m->ops[o].outputs[i]] == t) {
                const vki_op *op = &m->ops[o];
                snprintf(out + n, cap - (size_t)n, " (written by op %d %s)", op->file_index,
                         op->code == VKI_OP_CUSTOM ? op->custom_name : vki_op_name(op->code));
                return;
            }
    }
    snprintf(out + n, cap - (size_t)n, " (a graph input)");
}

static vki_status add_guard(vki_memory *mem, const vki_build *b, int t, uint64_t offset) {
    if (!vki_grow((void **)&mem->guards, &mem->cap_guards, mem->n_guards + 1, sizeof *mem->guards))
        return vki_fail_oom("memory: guards");
    vki_guard *g = &mem->guards[mem->n_guards++];
    g->offset = offset;
    describe_storage(b, t, g->what, sizeof g->what);
    return VKI_OK;
}

static void fill_guards(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const vki_memory *mem = user;
    for (int i = 0; i < mem->n_guards; i++)
        ctx->vk.vkCmdFillBuffer(cmd, mem->arena.buffer, mem->guards[i].offset, GUARD_BYTES, GUARD_WORD);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 0, 1, &barrier, 0, NULL, 0, NULL);
}

/* Plans the intermediates with the configured strategy, then appends the I/O tensors. */
static vki_status plan_arena(vki_context *ctx, const vki_build *b, const vki_graph_config *cfg,
                             vki_memory *mem) {
    const vki_model *m = b->m;
    uint64_t guard = cfg->debug_guards ? GUARD_BYTES : 0;
    vki_lifetimes l;
    vki_status s = vki_lifetimes_collect(b, guard, &l);
    if (s) return s;
    mem->tensor_offset = vki_calloc((size_t)(m->n_tensors ? m->n_tensors : 1), sizeof *mem->tensor_offset);
    uint64_t align = vki_arena_alignment(ctx);
    vki_plan_options opts = {.alignment = align};
    vki_plan plan = {0};
    if (!mem->tensor_offset) s = vki_fail_oom("memory plan");
    else if (vki_plan_make(l.records, l.n, vki_plan_strategy_of(cfg->memory), &opts, &plan))
        s = vki_fail(VKI_ERROR_OUT_OF_MEMORY, "%s: the %s memory plan failed: out of host memory "
                     "or a plan larger than 2^64 bytes", m->name,
                     vki_plan_strategy_name(vki_plan_strategy_of(cfg->memory)));
    /* The planner is pure and tested; checking its answer here is cheap and turns a planner
     * bug into an error instead of silently corrupted activations. */
    char why[256];
    if (!s && !vki_plan_check(l.records, l.n, &opts, &plan, why, sizeof why))
        s = vki_fail(VKI_ERROR_INTERNAL, "%s: memory plan %s is invalid: %s", m->name,
                     vki_plan_strategy_name(plan.strategy), why);
    uint64_t io_at = align_up(plan.total, align);
    for (int t = 0; !s && t < m->n_tensors; t++) {
        if (!l.root_bytes[t]) continue;
        if (l.is_io[t]) {
            mem->tensor_offset[t] = io_at;
            io_at = align_up(io_at + l.root_bytes[t] + guard, align);
        } else {
            mem->tensor_offset[t] = plan.offsets[l.record_of[t]];
        }
        if (guard) s = add_guard(mem, b, t, mem->tensor_offset[t] + l.root_bytes[t]);
    }
    for (int t = 0; !s && t < m->n_tensors; t++)
        if (l.root_bytes[b->storage_of[t]]) mem->tensor_offset[t] = mem->tensor_offset[b->storage_of[t]];
    if (!s) {
        mem->report.intermediate_bytes = plan.total;
        mem->report.lower_bound_bytes = plan.lower_bound;
        mem->report.io_bytes = io_at - align_up(plan.total, align);
        mem->report.strategy = vki_plan_strategy_name(plan.strategy);
        s = vki_buffer_create(ctx, io_at, VKI_MEMORY_DEVICE, "activation arena", &mem->arena);
    }
    vki_plan_free(&plan);
    vki_lifetimes_free(&l);
    if (!s && mem->n_guards) {
        s = vki_buffer_create(ctx, (uint64_t)mem->n_guards * GUARD_BYTES, VKI_MEMORY_READBACK,
                              "guard readback", &mem->guard_readback);
        if (!s) s = vki_submit_once(ctx, fill_guards, mem, "guard bytes");
    }
    return s;
}

/* Lays the blobs out in device memory, each in its op's precision, and uploads them. */
static vki_status upload_weights(vki_context *ctx, const vki_build *b, vki_memory *mem) {
    uint64_t align = vki_arena_alignment(ctx), weight_bytes = 0;
    mem->blob_offset = vki_calloc((size_t)(b->n_blobs ? b->n_blobs : 1), sizeof *mem->blob_offset);
    if (!mem->blob_offset) return vki_fail_oom("weights");
    for (int i = 0; i < b->n_blobs; i++) {
        mem->blob_offset[i] = align_up(weight_bytes, align);
        weight_bytes = mem->blob_offset[i] + vki_build_blob_bytes(b, i);
    }
    mem->report.weights_bytes = weight_bytes;
    vki_status s = vki_buffer_create(ctx, align_up(weight_bytes + 16, 16), VKI_MEMORY_DEVICE,
                                     "weights", &mem->weights);
    if (s || !b->n_blobs) return s;
    unsigned char *packed = vki_calloc(weight_bytes, 1);
    if (!packed) return vki_fail_oom("weights");
    for (int i = 0; i < b->n_blobs; i++) {
        const vki_blob *blob = &b->blobs[i];
        const float *src = b->weights + blob->offset;
        unsigned char *dst = packed + mem->blob_offset[i];
        if (blob->half != VKI_STORE_F16) { memcpy(dst, src, blob->count * sizeof(float)); continue; }
        for (size_t k = 0; k < blob->count; k++) {
            uint16_t h = vki_float_to_half(src[k]);
            memcpy(dst + 2 * k, &h, 2);
        }
    }
    s = vki_buffer_upload(ctx, &mem->weights, packed, weight_bytes);
    free(packed);
    return s;
}

/* Staging buffer i (inputs, then outputs), reported. */
static vki_status make_staging(vki_context *ctx, vki_memory *mem, int i) {
    const int is_input = i < mem->n_inputs;
    char what[64];
    snprintf(what, sizeof what, "%s %d staging", is_input ? "input" : "output",
             is_input ? i : i - mem->n_inputs);
    vki_status s = vki_buffer_create(ctx, align_up(mem->elements[i] * 4, 16),
                                     is_input ? VKI_MEMORY_INPUT : VKI_MEMORY_READBACK, what,
                                     &mem->staging[i]);
    if (!s) mem->report.staging_bytes += mem->staging[i].size;
    return s;
}

static vki_status create_staging(vki_context *ctx, const vki_model *m, vki_memory *mem) {
    int n = m->n_inputs + m->n_outputs;
    mem->n_inputs = m->n_inputs;
    mem->n_outputs = m->n_outputs;
    mem->staging = vki_calloc((size_t)n, sizeof *mem->staging);
    mem->elements = vki_calloc((size_t)n, sizeof *mem->elements);
    if (!mem->staging || !mem->elements) return vki_fail_oom("staging");
    for (int i = 0; i < n; i++) {
        int t = i < m->n_inputs ? m->inputs[i] : m->outputs[i - m->n_inputs];
        mem->elements[i] = vki_tensor_elements(&m->tensors[t]);
        vki_status s = make_staging(ctx, mem, i);
        if (s) return s;
    }
    return VKI_OK;
}

void vki_memory_release_input(vki_context *ctx, vki_memory *mem, int i) {
    mem->report.staging_bytes -= mem->staging[i].size;
    vki_buffer_destroy(ctx, &mem->staging[i]);
}

vki_status vki_memory_restore_input(vki_context *ctx, vki_memory *mem, int i) {
    if (mem->staging[i].buffer) return VKI_OK;
    vki_status s = make_staging(ctx, mem, i);
    if (s) return s;
    memset(mem->staging[i].mapped, 0, (size_t)mem->staging[i].size);
    vki_buffer_flush(ctx, &mem->staging[i]);
    return VKI_OK;
}

vki_status vki_memory_create(vki_context *ctx, const vki_build *b, const vki_graph_config *cfg,
                             vki_memory *mem) {
    memset(mem, 0, sizeof *mem);
    vki_status s = plan_arena(ctx, b, cfg, mem);
    if (!s) s = upload_weights(ctx, b, mem);
    if (!s) s = create_staging(ctx, b->m, mem);
    return s;
}

void vki_memory_destroy(vki_context *ctx, vki_memory *mem) {
    for (int i = 0; mem->staging && i < mem->n_inputs + mem->n_outputs; i++)
        vki_buffer_destroy(ctx, &mem->staging[i]);
    vki_buffer_destroy(ctx, &mem->arena);
    vki_buffer_destroy(ctx, &mem->weights);
    vki_buffer_destroy(ctx, &mem->guard_readback);
    free(mem->staging);
    free(mem->elements);
    free(mem->tensor_offset);
    free(mem->blob_offset);
    free(mem->guards);
    memset(mem, 0, sizeof *mem);
}

VkDescriptorBufferInfo vki_memory_binding(const vki_memory *mem, const vki_build *b,
                                          const vki_binding *bd) {
    switch (bd->kind) {
    case VKI_BIND_TENSOR:
        return (VkDescriptorBufferInfo){mem->arena.buffer, mem->tensor_offset[bd->index],
                                        vki_build_tensor_bytes(b, bd->index)};
    case VKI_BIND_WEIGHTS:
        return (VkDescriptorBufferInfo){mem->weights.buffer, mem->blob_offset[bd->index],
                                        vki_build_blob_bytes(b, bd->index)};
    case VKI_BIND_INPUT_STAGING:
        return (VkDescriptorBufferInfo){mem->staging[bd->index].buffer, 0, mem->staging[bd->index].size};
    case VKI_BIND_OUTPUT_STAGING:
    default: {
        const vki_buffer *out = &mem->staging[mem->n_inputs + bd->index];
        return (VkDescriptorBufferInfo){out->buffer, 0, out->size};
    }
    }
}

void vki_memory_clear_inputs(vki_context *ctx, vki_memory *mem) {
    for (int i = 0; i < mem->n_inputs; i++) {
        if (!mem->staging[i].mapped) continue;   /* given back: the input runs from frames */
        memset(mem->staging[i].mapped, 0, (size_t)mem->staging[i].size);
        vki_buffer_flush(ctx, &mem->staging[i]);
    }
}

/* ---- guard bytes --------------------------------------------------------------------- */

void vki_memory_record_guard_copy(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const vki_memory *mem = user;
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 0, 1, &barrier, 0, NULL, 0, NULL);
    for (int i = 0; i < mem->n_guards; i++) {
        VkBufferCopy region = {mem->guards[i].offset, (uint64_t)i * GUARD_BYTES, GUARD_BYTES};
        ctx->vk.vkCmdCopyBuffer(cmd, mem->arena.buffer, mem->guard_readback.buffer, 1, &region);
    }
}

vki_status vki_memory_check_guards(vki_context *ctx, const vki_memory *mem, const char *model) {
    if (!mem->n_guards) return VKI_OK;
    vki_buffer_invalidate(ctx, (vki_buffer *)&mem->guard_readback);
    const unsigned char *bytes = mem->guard_readback.mapped;
    for (int i = 0; i < mem->n_guards; i++)
        for (uint32_t k = 0; k < GUARD_BYTES; k += 4) {
            uint32_t word;
            memcpy(&word, bytes + (size_t)i * GUARD_BYTES + k, 4);
            if (word != GUARD_WORD)
                return vki_fail(VKI_ERROR_INTERNAL, "%s: a kernel wrote past %s: guard byte %u "
                                "after it holds 0x%08x", model, mem->guards[i].what, k, word);
        }
    return VKI_OK;
}

typedef struct spoil { const vki_memory *mem; int i; } spoil;

static void record_spoil(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const spoil *sp = user;
    ctx->vk.vkCmdFillBuffer(cmd, sp->mem->arena.buffer, sp->mem->guards[sp->i].offset + 8, 4, 0);
}

vki_status vki_memory_spoil_guard(vki_context *ctx, vki_memory *mem, int i) {
    if (i < 0 || i >= mem->n_guards)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "guard %d of %d", i, mem->n_guards);
    spoil sp = {mem, i};
    return vki_submit_once(ctx, record_spoil, &sp, "spoiling a guard");
}
