/* buffer.c: buffers with dedicated memory, memory-type choice, and one-shot uploads. */
#include "gpu.h"
#include "recorder.h"
#include "status.h"

#include <string.h>

static int find_memory_type(const vki_context *ctx, uint32_t allowed, VkMemoryPropertyFlags want,
                            VkMemoryPropertyFlags avoid) {
    for (uint32_t i = 0; i < ctx->mem_props.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = ctx->mem_props.memoryTypes[i].propertyFlags;
        if ((allowed & (1u << i)) && (f & want) == want && !(f & avoid)) return (int)i;
    }
    return -1;
}

static int pick_memory_type(const vki_context *ctx, uint32_t allowed, vki_memory_use use) {
    const VkMemoryPropertyFlags dl = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    const VkMemoryPropertyFlags hc = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags cached = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    int t = -1;
    switch (use) {
    case VKI_MEMORY_INPUT:
        /* Kernels read a graph input's staging every run; in system memory a discrete GPU
         * reads it across the bus. Measured on an H200 (bench --with-io, 200 runs, two
         * alternating rounds): selfie_segmentation's input conversion 21.6 -> 5.4 us from
         * device-local memory, whole runs 5-6% faster on five MediaPipe models (e.g.
         * face_detection_full_range 0.384 / 0.385 -> 0.359 / 0.363 ms), the host's copy
         * into it included. */
        t = find_memory_type(ctx, allowed, dl | hv | hc, cached);
        if (t < 0) t = pick_memory_type(ctx, allowed, VKI_MEMORY_UPLOAD);
        break;
    case VKI_MEMORY_DEVICE:
        t = find_memory_type(ctx, allowed, dl, 0);
        if (t < 0) t = find_memory_type(ctx, allowed, 0, 0);
        break;
    case VKI_MEMORY_UPLOAD:
        /* Uncached write-combined memory is best for host writes. */
        t = find_memory_type(ctx, allowed, hv | hc, cached);
        if (t < 0) t = find_memory_type(ctx, allowed, hv | hc, 0);
        if (t < 0) t = find_memory_type(ctx, allowed, hv, 0);
        break;
    case VKI_MEMORY_READBACK:
        t = find_memory_type(ctx, allowed, hv | cached, 0);
        if (t < 0) t = find_memory_type(ctx, allowed, hv, 0);
        break;
    }
    return t;
}

vki_status vki_buffer_create(vki_context *ctx, VkDeviceSize size, vki_memory_use use,
                             const char *what, vki_buffer *out) {
    memset(out, 0, sizeof *out);
    if (size == 0) size = 16;
    const VkDevice dev = ctx->device;
    VkBufferCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
        .size = size,
        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
    };
    VkResult r = (VkResult)vki_fault_check(VKI_FAULT_BUFFER);
    if (r == VK_SUCCESS) r = ctx->vk.vkCreateBuffer(dev, &info, NULL, &out->buffer);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, what, "vkCreateBuffer");
    VkMemoryRequirements req;
    ctx->vk.vkGetBufferMemoryRequirements(dev, out->buffer, &req);
    int type = pick_memory_type(ctx, req.memoryTypeBits, use);
    if (type < 0) {
        vki_buffer_destroy(ctx, out);
        return vki_fail(VKI_ERROR_DEVICE_FEATURE, "%s: no suitable memory type", what);
    }
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = (uint32_t)type,
    };
    r = (VkResult)vki_fault_check(VKI_FAULT_MEMORY);
    if (r == VK_SUCCESS) r = ctx->vk.vkAllocateMemory(dev, &alloc, NULL, &out->memory);
    /* Device-local host-visible memory may be a small heap (a 256 MB BAR): input staging
     * that does not fit there goes to system memory. */
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && use == VKI_MEMORY_INPUT) {
        const int upload = pick_memory_type(ctx, req.memoryTypeBits, VKI_MEMORY_UPLOAD);
        if (upload >= 0 && upload != type) {
            alloc.memoryTypeIndex = (uint32_t)(type = upload);
            r = (VkResult)vki_fault_check(VKI_FAULT_MEMORY);
            if (r == VK_SUCCESS) r = ctx->vk.vkAllocateMemory(dev, &alloc, NULL, &out->memory);
        }
    }
    if (r != VK_SUCCESS) {
        vki_buffer_destroy(ctx, out);
        return vki_vk_fail(ctx, r, what, "vkAllocateMemory");
    }
    r = ctx->vk.vkBindBufferMemory(dev, out->buffer, out->memory, 0);
    if (r != VK_SUCCESS) {
        vki_buffer_destroy(ctx, out);
        return vki_vk_fail(ctx, r, what, "vkBindBufferMemory");
    }
    out->size = size;
    VkMemoryPropertyFlags flags = ctx->mem_props.memoryTypes[type].propertyFlags;
    out->coherent = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
    if (use != VKI_MEMORY_DEVICE) {
        r = ctx->vk.vkMapMemory(dev, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
        if (r != VK_SUCCESS) {
            vki_buffer_destroy(ctx, out);
            return vki_vk_fail(ctx, r, what, "vkMapMemory");
        }
    }
    return VKI_OK;
}

void vki_buffer_destroy(vki_context *ctx, vki_buffer *b) {
    if (b->buffer) ctx->vk.vkDestroyBuffer(ctx->device, b->buffer, NULL);
    if (b->memory) ctx->vk.vkFreeMemory(ctx->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

void vki_buffer_invalidate(vki_context *ctx, vki_buffer *b) {
    if (b->coherent || !b->mapped) return;
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                 .memory = b->memory, .size = VK_WHOLE_SIZE};
    ctx->vk.vkInvalidateMappedMemoryRanges(ctx->device, 1, &range);
}

void vki_buffer_flush(vki_context *ctx, vki_buffer *b) {
    if (b->coherent || !b->mapped) return;
    VkMappedMemoryRange range = {.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE,
                                 .memory = b->memory, .size = VK_WHOLE_SIZE};
    ctx->vk.vkFlushMappedMemoryRanges(ctx->device, 1, &range);
}

typedef struct copy { VkBuffer from, to; VkDeviceSize size; } copy;

static void record_copy(void *user, const vki_context *ctx, VkCommandBuffer cmd) {
    const copy *c = user;
    VkBufferCopy region = {.size = c->size};
    ctx->vk.vkCmdCopyBuffer(cmd, c->from, c->to, 1, &region);
    VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL, 0,
                                 NULL);
}

/* One copy through a staging buffer, waited for: uploads happen once, at graph build, so
 * simplicity wins over overlap here. */
vki_status vki_buffer_upload(vki_context *ctx, vki_buffer *dst, const void *data, size_t size) {
    vki_buffer staging;
    vki_status s = vki_buffer_create(ctx, size, VKI_MEMORY_UPLOAD, "upload staging", &staging);
    if (s) return s;
    memcpy(staging.mapped, data, size);
    vki_buffer_flush(ctx, &staging);
    copy c = {staging.buffer, dst->buffer, size};
    s = vki_submit_once(ctx, record_copy, &c, "weights upload");
    vki_buffer_destroy(ctx, &staging);
    return s;
}
