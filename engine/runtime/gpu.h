/* gpu.h: the context's Vulkan state, its device description, and buffers with their own
 * memory (buffer.c). Internal: nothing here is part of the public API. */
#ifndef VKI_GPU_H
#define VKI_GPU_H

#include "../../tuner/workgroup.h"
#include "vkinfer.h"

#include "vulkan.h"

#include <pthread.h>
#include <stdatomic.h>

/* 1 when the library carries shaderc (meson -Dcompiler=enabled), 0 when it builds graphs
 * only from kernel packs. */
#ifndef VKI_HAVE_COMPILER
#define VKI_HAVE_COMPILER 1
#endif
#if VKI_HAVE_COMPILER
#include <shaderc/shaderc.h>
#endif

/* Threads: any number may use one context. What they share is locked: the queue (every
 * vkQueueSubmit holds queue_lock) and the kernel cache (kernels_lock: modules, pipelines,
 * layouts and the kernel counters). Everything else here is written only while the
 * context is created or destroyed. */
struct vki_context {
    vki_vk_instance vi;             /* the instance's extension entry points (vulkan.h) */
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical;
    VkDevice device;
    vki_vk_device vk;               /* device-level entry points: volk's table for this device */
    VkQueue queue;
    pthread_mutex_t queue_lock;
    pthread_mutex_t kernels_lock;
    int locks_ready;
    atomic_int lost;                /* a call returned VK_ERROR_DEVICE_LOST: every later run fails */
    /* Owners: the app's handle (until vki_context_destroy) and each live graph. The last
     * release frees the context, so a graph destroyed after its context still finds the
     * device, queue and kernel cache it uses. */
    atomic_int refs;
    vki_log_fn log;                 /* never NULL: the options' callback or stderr */
    void *log_user;
    int ignore_environment;         /* the options': its graphs read no VKI_* variable */
    int validation_abort;           /* abort() on the first validation error */
    uint32_t queue_family;
    VkPhysicalDeviceProperties props;
    VkPhysicalDeviceMemoryProperties mem_props;
    uint32_t subgroup_size;
    int fp16_storage, fp16_arithmetic;   /* enabled on the device */
    int int_dot_product;                 /* shaderIntegerDotProduct enabled */
#if VKI_HAVE_COMPILER
    shaderc_compiler_t compiler;
#endif
    struct vki_pack_set *packs;     /* kernel packs loaded (kernel_pack.c); NULL: none */
    struct vki_pack_writer *pack_writer;   /* collects every kernel got (`vkinfer pack`) */
    VkPipelineCache pipeline_cache;
    char *cache_dir;                /* compiled kernels and the pipeline cache; NULL: none */
    atomic_int cache_warned;        /* a failed cache write was reported (once a context) */
    vki_kernel_stats kernels;
    struct vki_kernel_cache *kernel_cache;   /* modules and pipelines (kernels.c) */
    struct vki_wg_table *wg_table;  /* the options' table file, then the built-in table */
};

/* A graph takes a reference to its context (vki_graph_create) and releases it when it is
 * destroyed; vki_context_destroy releases the app's. Any thread may release: the one that
 * drops the count to zero frees the context. */
void vki_context_retain(vki_context *ctx);
void vki_context_release(vki_context *ctx);

/* A hash of the device and driver build (vendor, device, driver version, pipeline cache
 * UUID): what the disk caches and the tuning file are only valid for. */
uint64_t vki_context_identity(const vki_context *ctx);
/* The device as the work-group table and the op files see it. */
vki_wg_device vki_context_wg_device(const vki_context *ctx);

/* A buffer with its own memory; `mapped` is non-NULL for host-visible buffers. */
typedef struct vki_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;
    int coherent;
} vki_buffer;

typedef enum vki_memory_use {
    VKI_MEMORY_DEVICE,        /* device-local; written by upload or shaders */
    VKI_MEMORY_UPLOAD,        /* host-visible, written by the host */
    VKI_MEMORY_INPUT,         /* written by the host, read by kernels every run: device-local
                               * host-visible where there is some (a discrete GPU's BAR),
                               * else as UPLOAD */
    VKI_MEMORY_READBACK,      /* host-visible, read by the host (cached when possible) */
} vki_memory_use;

/* `what` names the buffer in error messages ("weights", "input 0 staging"). */
vki_status vki_buffer_create(vki_context *ctx, VkDeviceSize size, vki_memory_use use,
                             const char *what, vki_buffer *out);
void vki_buffer_destroy(vki_context *ctx, vki_buffer *b);
/* Fills a device buffer from host memory through a temporary staging buffer. */
vki_status vki_buffer_upload(vki_context *ctx, vki_buffer *dst, const void *data, size_t size);
/* Makes device writes visible to the host for non-coherent memory. */
void vki_buffer_invalidate(vki_context *ctx, vki_buffer *b);
void vki_buffer_flush(vki_context *ctx, vki_buffer *b);

/* Maps a VkResult to a status with a message "<what>: <call> failed (VK_ERROR_...)";
 * VK_ERROR_DEVICE_LOST also marks ctx (may be NULL) lost. */
vki_status vki_vk_fail(const vki_context *ctx, VkResult r, const char *what, const char *call);

/* The context's log: the options' callback, or vki_log_stderr ("vkinfer: <message>"). */
void vki_log(const vki_context *ctx, vki_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void vki_log_stderr(void *user, vki_log_level level, const char *message);
/* Writes a cache entry (vki_cache_store) into ctx->cache_dir; a failure is one warning a
 * context, naming the file and the cause, and costs only the next run's compile time. */
void vki_context_cache_store(const vki_context *ctx, const char *name, uint64_t key,
                             const void *data, size_t n);
const char *vki_vk_result_name(VkResult r);

#endif
