/* image_input.c: camera frames into graph inputs on the device. The graph's first
 * dispatches convert each input's float staging to PHWC4; for an input fed from frames,
 * that step runs glsl/image.comp instead, reading the frame's bytes (the part the
 * transform reads) from a host-visible buffer of the input and its map into the frame and
 * normalisation from a small host-visible parameter buffer, so a new frame or transform is
 * a copy, not a re-recording. The
 * command buffer is re-recorded only when an input switches between frames and floats or
 * its frame buffer grows.
 *
 * While frames feed an input its float staging is read by nothing, so it is given back
 * (vki_memory_release_input) and made again when floats come (vki_image_inputs_floats),
 * which rebinds the float conversion's descriptor to the new buffer. An input whose
 * staging address was handed out (vki_graph_input_pointer, valid until the graph is
 * destroyed; a partition's segments, whose staging the CPU ops write) keeps it. Likewise
 * the frame buffer goes when floats come back and is made again by the next frame; the
 * parameter buffer (144 bytes) stays once made. */
#include "image_input.h"

#include "graph.h"
#include "image.h"
#include "kernels.h"
#include "../ops/ops.h"
#include "precision.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Frame buffers grow to the next multiple of this. */
#define FRAME_GRANULE 4096u

typedef struct image_input {
    VkDescriptorBufferInfo tensor;   /* the input's PHWC4 storage */
    int half;                        /* its storage (VKI_STORE_*) */
    int target;                      /* the tensor written: the input, or the int8 output of
                                        the QUANTIZE its conversion runs (builder.h) */
    int conversion_op;               /* that QUANTIZE's file index (its step's op_index), or -1 */
    int quantize;                    /* the target is int8 / uint8, on grid's scale and range */
    vki_tensor grid;                 /* its quant_* fields only */
    vki_buffer frame, params;
    VkDescriptorSet set;
    vki_step step;                   /* the image kernel's step, once made */
    vki_step float_step;             /* the conversion it replaces, while active */
    int active;                      /* the recording runs `step` for this input */
    int staging_slot;                /* the conversion's binding of the float staging, or -1 */
    int keep_floats;                 /* the float staging's address is held: never release it */
} image_input;

struct vki_image_inputs {
    int n;
    int fp16;                        /* the graph stores fp16 somewhere (VKI_FP16_STORAGE) */
    vki_wg_device device;
    VkDescriptorPool pool;           /* a set of 3 bindings per input */
    image_input *in;
};

vki_status vki_image_inputs_open(vki_graph *g, const vki_build *b) {
    const vki_model *m = b->m;
    vki_image_inputs *st = vki_calloc(1, sizeof *st);
    if (st) st->in = vki_calloc((size_t)(m->n_inputs ? m->n_inputs : 1), sizeof *st->in);
    if (!st || !st->in) {
        free(st);
        return vki_fail_oom("graph: image inputs");
    }
    st->n = m->n_inputs;
    st->fp16 = b->cfg->fp16;
    st->device = b->device;
    for (int i = 0; i < m->n_inputs; i++) {
        st->in[i].target = vki_build_input_target(b, i);
        const int q = b->input_quantize[i];
        st->in[i].conversion_op = q >= 0 ? m->ops[q].file_index : -1;
        const vki_tensor *target = &m->tensors[st->in[i].target];
        st->in[i].quantize = q >= 0;
        st->in[i].grid.quant_scale = target->quant_scale;
        st->in[i].grid.quant_zero = target->quant_zero;
        st->in[i].grid.quant_min = target->quant_min;
        st->in[i].grid.quant_max = target->quant_max;
        const vki_binding bd = {VKI_BIND_TENSOR, st->in[i].target};
        st->in[i].tensor = vki_memory_binding(&g->mem, b, &bd);
        st->in[i].half = b->tensor_half[st->in[i].target];
        /* Dispatch i is input i's conversion (emit_all); vki_image_inputs_set checks it. */
        st->in[i].staging_slot = -1;
        for (int k = 0; i < b->n_dispatches && k < b->dispatches[i].n_bindings; k++)
            if (b->dispatches[i].bindings[k].kind == VKI_BIND_INPUT_STAGING &&
                b->dispatches[i].bindings[k].index == i)
                st->in[i].staging_slot = k;
    }
    g->images = st;
    return VKI_OK;
}

void vki_image_inputs_close(vki_graph *g) {
    vki_image_inputs *st = g->images;
    if (!st) return;
    for (int i = 0; i < st->n; i++) {
        vki_buffer_destroy(g->ctx, &st->in[i].frame);
        vki_buffer_destroy(g->ctx, &st->in[i].params);
    }
    if (st->pool) g->ctx->vk.vkDestroyDescriptorPool(g->ctx->device, st->pool, NULL);
    free(st->in);
    free(st);
    g->images = NULL;
}

/* The image kernel's step for input `index`: pipeline, parameter buffer, descriptor set. */
static vki_status make_step(vki_graph *g, int index, const char *where) {
    vki_context *ctx = g->ctx;
    vki_image_inputs *st = g->images;
    image_input *in = &st->in[index];
    if (!st->pool) {
        VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3u * (uint32_t)st->n};
        VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                         .maxSets = (uint32_t)st->n,
                                         .poolSizeCount = 1,
                                         .pPoolSizes = &size};
        VkResult r = (VkResult)vki_fault_check(VKI_FAULT_DESCRIPTOR);
        if (r == VK_SUCCESS) r = ctx->vk.vkCreateDescriptorPool(ctx->device, &pi, NULL, &st->pool);
        if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "image input", "vkCreateDescriptorPool");
    }
    const vki_tensor *t = &g->model_io->tensors[g->model_io->inputs[index]];
    vki_shape4 shape = vki_tensor_shape4(t);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_image, VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "OUT", shape);
    int q8_offset[3] = {0, 0, 0};
    if (in->quantize) {   /* quantize as the model's first QUANTIZE does */
        vki_quantize_define(&d, &in->grid);
        q8_offset[2] = in->grid.quant_zero - in->grid.quant_min;
    }
    char precision[1024];
    const unsigned char half[3] = {0, 0, (unsigned char)in->half};
    vki_precision_defines(st->fp16, 0, 3, half, q8_offset, precision, sizeof precision);
    const vki_kernel_variant v = {VKI_KERNEL_image, d.defines, d.defines_len, precision, 3};
    vki_step step = {.grid = {(uint32_t)shape.w, (uint32_t)shape.h, 1}, .kernel = VKI_KERNEL_image,
                     .op_index = -1};
    vki_wg_pick(&st->device, VKI_WG_ELEMENTWISE, step.grid, step.wg);
    if (!vki_recording_fits(ctx, step.grid, step.wg, step.groups))
        return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL, "vki_graph_set_input_image: %s: a %ux%u grid "
                        "exceeds the device's work-group limits", where, step.grid[0], step.grid[1]);
    VkDescriptorSetLayout set_layout;
    vki_status s = vki_kernels_layout(ctx, 3, &set_layout, &step.layout);
    if (!s) s = vki_kernels_pipeline(ctx, &v, step.wg, &step.pipeline);
    if (!s && !in->params.buffer) {
        s = vki_buffer_create(ctx, (sizeof(vki_image_params) + 15) / 16 * 16, VKI_MEMORY_UPLOAD,
                              "image parameters", &in->params);
        if (!s) g->mem.report.frame_bytes += in->params.size;
    }
    if (s) return s;
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = st->pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &set_layout};
    VkResult r = (VkResult)vki_fault_check(VKI_FAULT_DESCRIPTOR);
    if (r == VK_SUCCESS) r = ctx->vk.vkAllocateDescriptorSets(ctx->device, &ai, &step.set);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "image input", "vkAllocateDescriptorSets");
    in->set = step.set;
    in->step = step;
    return VKI_OK;
}

/* Grows input `index`'s frame buffer to hold `bytes` and points the descriptor set at it;
 * *rebound is set when the recording must be made again. */
static vki_status fit_frame(vki_graph *g, int index, size_t bytes, const char *where, int *rebound) {
    vki_context *ctx = g->ctx;
    image_input *in = &g->images->in[index];
    if (in->frame.buffer && in->frame.size >= bytes) return VKI_OK;
    const uint64_t limit = ctx->props.limits.maxStorageBufferRange;
    if (bytes > limit)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_set_input_image: %s: the part "
                        "of the frame the transform reads takes %zu bytes, more than the "
                        "device's maxStorageBufferRange %llu", where, bytes,
                        (unsigned long long)limit);
    uint64_t size = (bytes + FRAME_GRANULE - 1) / FRAME_GRANULE * FRAME_GRANULE;
    if (size > limit) size = limit / 4 * 4;
    vki_buffer frame;
    vki_status s = vki_buffer_create(ctx, size, VKI_MEMORY_UPLOAD, "image frame", &frame);
    if (s) return s;
    g->mem.report.frame_bytes += frame.size - in->frame.size;
    vki_buffer_destroy(ctx, &in->frame);
    in->frame = frame;
    const VkDescriptorBufferInfo infos[3] = {
        {in->frame.buffer, 0, in->frame.size}, {in->params.buffer, 0, in->params.size}, in->tensor};
    VkWriteDescriptorSet writes[3];
    for (int i = 0; i < 3; i++)
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                           .dstSet = in->set,
                                           .dstBinding = (uint32_t)i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &infos[i]};
    ctx->vk.vkUpdateDescriptorSets(ctx->device, 3, writes, 0, NULL);
    *rebound = 1;
    return VKI_OK;
}

vki_status vki_image_inputs_set(vki_graph *g, int index, const vki_image *image,
                                const vki_image_transform *transform) {
    static const char call[] = "vki_graph_set_input_image";
    if (!g) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", call);
    const vki_model *m = g->model_io;
    if (index < 0 || index >= m->n_inputs)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s: input %d out of range (%d inputs)",
                        call, m->name, index, m->n_inputs);
    const vki_tensor *t = &m->tensors[m->inputs[index]];
    char where[192];
    snprintf(where, sizeof where, "%s: input %d '%.64s'", m->name, index, t->name);
    vki_image_job job;
    vki_status s = vki_image_job_make(call, where, image, transform, t->rank, t->shape, &job);
    if (s) return s;
    image_input *in = &g->images->in[index];
    const vki_step *current = in->active ? &in->float_step
                              : index < g->rec.n_steps ? &g->rec.steps[index] : NULL;
    if (!current || strcmp(current->kernel, VKI_KERNEL_to_phwc4) ||
        current->op_index != in->conversion_op)
        return vki_fail(VKI_ERROR_INTERNAL, "%s: %s: step %d is not the input's conversion", call,
                        where, index);
    const int new_kernel = !in->step.pipeline;
    if (new_kernel) s = make_step(g, index, where);
    int rebound = 0;
    if (!s) s = fit_frame(g, index, job.bytes, where, &rebound);
    if (s) return s;
    vki_image_pack(&job, in->frame.mapped);
    memcpy(in->params.mapped, &job.params, sizeof job.params);
    vki_buffer_flush(g->ctx, &in->frame);
    vki_buffer_flush(g->ctx, &in->params);
    if (in->active && !rebound) return VKI_OK;
    if (!in->active) in->float_step = g->rec.steps[index];
    g->rec.steps[index] = in->step;
    in->active = 1;
    s = vki_recording_record(&g->rec);
    /* The recording no longer reads the float staging. */
    if (!s && in->staging_slot >= 0 && !in->keep_floats && g->mem.staging[index].buffer)
        vki_memory_release_input(g->ctx, &g->mem, index);
    /* The image kernel is made at the first frame, after vki_graph_create's warm-up: its
     * own first dispatch (lavapipe compiles it there) is done here, not in the next run.
     * The demo's face detector ran its first run in 136 ms against a 23 ms median without
     * this, on lavapipe. */
    if (!s && new_kernel && g->warm_up) s = vki_graph_warm_up(g, 0);
    return s;
}

vki_status vki_image_inputs_floats(vki_graph *g, int index) {
    image_input *in = g->images && index >= 0 && index < g->images->n ? &g->images->in[index] : NULL;
    if (!in || !in->active) return VKI_OK;
    if (!g->mem.staging[index].buffer) {
        /* A failure leaves the input on frames, as it was. */
        vki_status s = vki_memory_restore_input(g->ctx, &g->mem, index);
        if (s) return s;
        const VkDescriptorBufferInfo info = {g->mem.staging[index].buffer, 0,
                                             g->mem.staging[index].size};
        const VkWriteDescriptorSet write = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                            .dstSet = in->float_step.set,
                                            .dstBinding = (uint32_t)in->staging_slot,
                                            .descriptorCount = 1,
                                            .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            .pBufferInfo = &info};
        g->ctx->vk.vkUpdateDescriptorSets(g->ctx->device, 1, &write, 0, NULL);
    }
    g->rec.steps[index] = in->float_step;
    in->active = 0;
    vki_status s = vki_recording_record(&g->rec);
    /* Nor does the recording read the frame now; the next frame makes its buffer again
     * (fit_frame), as large as that frame needs. */
    if (!s) {
        g->mem.report.frame_bytes -= in->frame.size;
        vki_buffer_destroy(g->ctx, &in->frame);
    }
    return s;
}

void vki_image_inputs_keep_floats(vki_graph *g, int index) {
    if (g->images && index >= 0 && index < g->images->n) g->images->in[index].keep_floats = 1;
}
