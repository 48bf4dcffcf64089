/* context.c: the context stage: instance and validation (entry points from vulkan.c),
 * device choice, the logical device with one compute queue, the log, and the public
 * context calls. */
#include "gpu.h"

#include "../../tuner/table.h"
#include "kernel_cache.h"
#include "kernel_pack.h"
#include "kernels.h"
#include "loader.h"
#include "options.h"
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>
#ifdef __linux__
#include <elf.h>
#include <sys/auxv.h>
#endif

const char *vki_vk_result_name(VkResult r) {
    switch (r) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FORMAT_NOT_SUPPORTED: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VK_ERROR_UNKNOWN";
    }
}

vki_status vki_vk_fail(const vki_context *ctx, VkResult r, const char *what, const char *call) {
    vki_status s = VKI_ERROR_DEVICE_LOST;
    /* A lost device stays lost: every later run of every graph of the context fails. */
    if (r == VK_ERROR_DEVICE_LOST && ctx) atomic_store(&((vki_context *)ctx)->lost, 1);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ||
        r == VK_ERROR_OUT_OF_POOL_MEMORY || r == VK_ERROR_FRAGMENTED_POOL ||
        r == VK_ERROR_TOO_MANY_OBJECTS)
        s = VKI_ERROR_OUT_OF_MEMORY;
    else if (r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_INCOMPATIBLE_DRIVER)
        s = VKI_ERROR_NO_DEVICE;
    else if (r == VK_ERROR_FEATURE_NOT_PRESENT || r == VK_ERROR_EXTENSION_NOT_PRESENT ||
             r == VK_ERROR_LAYER_NOT_PRESENT)
        s = VKI_ERROR_DEVICE_FEATURE;
    else if (r == VK_TIMEOUT)
        s = VKI_ERROR_TIMEOUT;
    return vki_fail(s, "%s: %s failed (%s)", what, call, vki_vk_result_name(r));
}

void vki_log_stderr(void *user, vki_log_level level, const char *message) {
    (void)user;
    (void)level;
    fprintf(stderr, "vkinfer: %s\n", message);
}

void vki_log(const vki_context *ctx, vki_log_level level, const char *fmt, ...) {
    char message[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_user, level, message);
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)types;
    const vki_context *ctx = user;
    int error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
    vki_log(ctx, error ? VKI_LOG_ERROR : VKI_LOG_WARNING, "validation %s: %s",
            error ? "error" : "warning", data->pMessage);
    /* enable_validation = 2 (VKI_VALIDATION=fatal): the test suites fail on any error. */
    if (ctx->validation_abort && error) abort();
    return VK_FALSE;
}

static int has_layer(const char *name) {
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || !n) return 0;
    VkLayerProperties *layers = vki_calloc(n, sizeof *layers);
    if (!layers) return 0;
    int found = 0;
    if (vkEnumerateInstanceLayerProperties(&n, layers) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) found |= !strcmp(layers[i].layerName, name);
    free(layers);
    return found;
}

/* Whether this process is a fully static executable: one whose program headers have no
 * PT_INTERP (no dynamic linker), static-pie included. glibc's dlopen there cannot load
 * libvulkan.so.1, which needs the shared C library, and crashes inside it; the context
 * refuses before trying. p_type is the first 4 bytes of a program header, 32- or 64-bit. */
static int static_executable(void) {
#ifdef __linux__
    const unsigned char *phdr = (const unsigned char *)(uintptr_t)getauxval(AT_PHDR);
    unsigned long count = getauxval(AT_PHNUM), size = getauxval(AT_PHENT);
    if (!phdr || !count || size < sizeof(uint32_t)) return 0;  /* unknown: try dlopen */
    for (unsigned long i = 0; i < count; i++) {
        uint32_t type;
        memcpy(&type, phdr + i * size, sizeof type);
        if (type == PT_INTERP) return 0;
    }
    return 1;
#else
    return 0;
#endif
}

static vki_status create_instance(vki_context *ctx, int validation) {
    if (static_executable())
        return vki_fail(VKI_ERROR_NO_DEVICE,
                        "this program is a fully static executable, which cannot load the "
                        "Vulkan loader (libvulkan.so.1 needs the shared C library); link the "
                        "program dynamically (without -static: libvkinfer.a itself may stay "
                        "static)");
    const char *missing;
    if (!vki_vk_open(&ctx->vi, &missing))
        return vki_fail(VKI_ERROR_NO_DEVICE,
                        "no usable Vulkan loader (%s not found); install one, e.g. the "
                        "mesa-vulkan-drivers and libvulkan1 packages", missing);
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vkEnumerateInstanceVersion &&
        vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS)
        loader_version = VK_API_VERSION_1_0;
    if (loader_version < VK_API_VERSION_1_1)
        return vki_fail(VKI_ERROR_NO_DEVICE, "the Vulkan loader supports only %u.%u, need 1.1",
                        VK_API_VERSION_MAJOR(loader_version), VK_API_VERSION_MINOR(loader_version));
    const char *layer = "VK_LAYER_KHRONOS_validation";
    const char *debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    if (validation && !has_layer(layer)) {
        vki_log(ctx, VKI_LOG_WARNING, "validation requested but %s is not installed", layer);
        validation = 0;
    }
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "vkinfer",
        .pEngineName = "vkinfer",
        .engineVersion = VK_MAKE_VERSION(VKI_VERSION_MAJOR, VKI_VERSION_MINOR, VKI_VERSION_PATCH),
        .apiVersion = VK_API_VERSION_1_1,
    };
    VkInstanceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
        .enabledLayerCount = validation ? 1 : 0,
        .ppEnabledLayerNames = &layer,
        .enabledExtensionCount = validation ? 1 : 0,
        .ppEnabledExtensionNames = &debug_ext,
    };
    VkResult r = vkCreateInstance(&info, NULL, &ctx->instance);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "context", "vkCreateInstance");
    if (!vki_vk_load_instance(&ctx->vi, ctx->instance, &missing))
        return vki_fail(VKI_ERROR_NO_DEVICE, "the Vulkan loader lacks %s", missing);
    if (validation && ctx->vi.vkCreateDebugUtilsMessengerEXT) {
        VkDebugUtilsMessengerCreateInfoEXT m = {
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = on_validation_message,
            .pUserData = ctx,
        };
        r = ctx->vi.vkCreateDebugUtilsMessengerEXT(ctx->instance, &m, NULL, &ctx->messenger);
        if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "context", "vkCreateDebugUtilsMessengerEXT");
    }
    return VKI_OK;
}

/* Case-insensitive substring test; strcasestr is not in C11 or every libc. */
static int name_contains(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++) {
        size_t i = 0;
        while (i < n && haystack[i] &&
               tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n) return 1;
    }
    return n == 0;
}

static int compute_queue_family(VkPhysicalDevice pd, uint32_t *family) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
    VkQueueFamilyProperties q[32];
    if (n > 32) n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, q);
    /* Prefer a compute queue without graphics: on desktop GPUs it is the async one. */
    int best = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (!(q[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
        if (best < 0 || !(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) best = (int)i;
    }
    if (best < 0) return 0;
    *family = (uint32_t)best;
    return 1;
}

static int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

typedef struct fp16_features {
    VkPhysicalDevice16BitStorageFeatures storage;
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR arith;
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot;
    VkPhysicalDeviceFeatures2 all;
    int has_arith_ext, has_dot_ext;
} fp16_features;

static int has_device_extension(VkPhysicalDevice pd, const char *name) {
    uint32_t n = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || !n) return 0;
    VkExtensionProperties *ext = vki_calloc(n, sizeof *ext);
    if (!ext) return 0;
    int found = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ext) == VK_SUCCESS)
        for (uint32_t i = 0; i < n; i++) found |= !strcmp(ext[i].extensionName, name);
    free(ext);
    return found;
}

/* 16-bit storage is core in 1.1; float16 arithmetic needs VK_KHR_shader_float16_int8, and
 * packed int8 dot products VK_KHR_shader_integer_dot_product (core in 1.3, which still
 * lists it; the instance asks for 1.1, so the extension is what is enabled). */
static void query_fp16(VkPhysicalDevice pd, fp16_features *f) {
    memset(f, 0, sizeof *f);
    f->has_arith_ext = has_device_extension(pd, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    f->has_dot_ext = has_device_extension(pd, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    f->storage.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    f->arith.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR;
    f->dot.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR;
    f->dot.pNext = f->has_arith_ext ? &f->arith : NULL;
    f->storage.pNext = f->has_dot_ext ? (void *)&f->dot : f->dot.pNext;
    f->all.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f->all.pNext = &f->storage;
    vkGetPhysicalDeviceFeatures2(pd, &f->all);
}

static void fill_info(VkPhysicalDevice pd, vki_device_info *out) {
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sub};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    const VkPhysicalDeviceProperties *p = &p2.properties;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p->deviceName);
    out->vendor_id = p->vendorID;
    out->device_id = p->deviceID;
    out->api_version = p->apiVersion;
    out->driver_version = p->driverVersion;
    out->type = (int)p->deviceType;
    out->is_cpu = p->deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    out->subgroup_size = sub.subgroupSize;
    out->max_workgroup_invocations = p->limits.maxComputeWorkGroupInvocations;
    out->min_storage_buffer_offset_alignment = p->limits.minStorageBufferOffsetAlignment;
    out->max_storage_buffer_range = p->limits.maxStorageBufferRange;
    fp16_features f;
    query_fp16(pd, &f);
    out->fp16_storage = f.storage.storageBuffer16BitAccess == VK_TRUE;
    out->fp16_arithmetic = f.has_arith_ext && f.arith.shaderFloat16 == VK_TRUE;
    out->int_dot_product = f.has_dot_ext && f.dot.shaderIntegerDotProduct == VK_TRUE;
}

/* By index, by part of the name, or the best type (options.c resolved VKI_DEVICE). */
static vki_status choose_device(vki_context *ctx, const vki_context_config *cfg) {
    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(ctx->instance, &n, NULL);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "context", "vkEnumeratePhysicalDevices");
    if (n == 0) return vki_fail(VKI_ERROR_NO_DEVICE, "no Vulkan device found");
    VkPhysicalDevice *devs = vki_calloc(n, sizeof *devs);
    if (!devs) return vki_fail_oom("context");
    r = vkEnumeratePhysicalDevices(ctx->instance, &n, devs);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(devs);
        return vki_vk_fail(ctx, r, "context", "vkEnumeratePhysicalDevices");
    }
    const char *want_name = cfg->device_name;
    int want_index = cfg->device_index;
    int best = -1, best_rank = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t family;
        if (!compute_queue_family(devs[i], &family)) continue;
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        if (p.apiVersion < VK_API_VERSION_1_1) continue;
        if (want_index >= 0) {
            if ((int)i == want_index) best = (int)i;
            continue;
        }
        if (want_name) {
            if (name_contains(p.deviceName, want_name) && best < 0) best = (int)i;
            continue;
        }
        if (type_rank(p.deviceType) > best_rank) { best = (int)i; best_rank = type_rank(p.deviceType); }
    }
    if (best < 0) {
        free(devs);
        if (want_index >= 0)
            return vki_fail(VKI_ERROR_NO_DEVICE,
                            "device %d not found or has no Vulkan 1.1 compute queue (%u devices)",
                            want_index, n);
        if (want_name)
            return vki_fail(VKI_ERROR_NO_DEVICE, "no Vulkan 1.1 compute device matches '%s'", want_name);
        return vki_fail(VKI_ERROR_NO_DEVICE, "no device with Vulkan 1.1 and a compute queue");
    }
    ctx->physical = devs[best];
    free(devs);
    compute_queue_family(ctx->physical, &ctx->queue_family);
    vkGetPhysicalDeviceProperties(ctx->physical, &ctx->props);
    vkGetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->mem_props);
    vki_device_info info;
    fill_info(ctx->physical, &info);
    ctx->subgroup_size = info.subgroup_size ? info.subgroup_size : 1;
    return VKI_OK;
}

#define PIPELINE_CACHE_FILE "pipelines.bin"

uint64_t vki_context_identity(const vki_context *ctx) {
    const VkPhysicalDeviceProperties *p = &ctx->props;
    uint64_t h = vki_cache_hash(VKI_CACHE_HASH_SEED, &p->vendorID, sizeof p->vendorID);
    h = vki_cache_hash(h, &p->deviceID, sizeof p->deviceID);
    h = vki_cache_hash(h, &p->driverVersion, sizeof p->driverVersion);
    return vki_cache_hash(h, p->pipelineCacheUUID, sizeof p->pipelineCacheUUID);
}

vki_wg_device vki_context_wg_device(const vki_context *ctx) {
    const VkPhysicalDeviceLimits *l = &ctx->props.limits;
    return (vki_wg_device){
        .vendor_id = ctx->props.vendorID,
        .device_id = ctx->props.deviceID,
        .is_cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU,
        .is_discrete = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
        .subgroup_size = ctx->subgroup_size,
        .max_invocations = l->maxComputeWorkGroupInvocations,
        .max_size = {l->maxComputeWorkGroupSize[0], l->maxComputeWorkGroupSize[1],
                     l->maxComputeWorkGroupSize[2]},
        .max_shared_bytes = l->maxComputeSharedMemorySize,
        .name = ctx->props.deviceName,
        .table = ctx->wg_table,
    };
}

void vki_context_cache_store(const vki_context *ctx, const char *name, uint64_t key,
                             const void *data, size_t n) {
    if (vki_cache_store(ctx->cache_dir, name, key, data, n)) return;
    int err = errno;
    if (atomic_exchange(&((vki_context *)ctx)->cache_warned, 1)) return;
    vki_log(ctx, VKI_LOG_WARNING, "cache directory %s: cannot save %s: %s (later failures "
            "are not reported)", ctx->cache_dir, name, err ? strerror(err) : "write failed");
}

static void save_pipeline_cache(const vki_context *ctx) {
    size_t n = 0;
    if (ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &n, NULL) != VK_SUCCESS || !n) return;
    void *data = vki_malloc(n);
    if (data && ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &n, data) == VK_SUCCESS)
        vki_context_cache_store(ctx, PIPELINE_CACHE_FILE, vki_context_identity(ctx), data, n);
    free(data);
}

/* The cache directory, created if missing. A directory that cannot be made is an error:
 * the caller asked for it. */
static vki_status open_cache_dir(vki_context *ctx, const char *dir) {
    if (!dir) return VKI_OK;
    struct stat st;
    if (stat(dir, &st) != 0 && mkdir(dir, 0777) != 0 && errno != EEXIST)
        return vki_fail(VKI_ERROR_IO, "cache directory %s: %s", dir, strerror(errno));
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return vki_fail(VKI_ERROR_IO, "cache directory %s is not a directory", dir);
    ctx->cache_dir = vki_malloc(strlen(dir) + 1);
    if (!ctx->cache_dir) return vki_fail_oom("context");
    strcpy(ctx->cache_dir, dir);
    if (access(dir, W_OK) != 0) {
        vki_log(ctx, VKI_LOG_WARNING, "cache directory %s is not writable (%s): compiled "
                "kernels are read from it but not saved", dir, strerror(errno));
        atomic_store(&ctx->cache_warned, 1);
    }
    return VKI_OK;
}

/* The work-group table: the file's rows, looked up first, then the built-in ones. */
static vki_status load_wg_table(vki_context *ctx, const char *path) {
    char err[512];
    size_t len;
    const char *builtin = vki_wg_table_builtin_text(&len);
    if (path) {
        uint8_t *text;
        size_t n;
        vki_status s = vki_read_whole_file(path, &text, &n);
        if (s) return s;
        int ok = vki_wg_table_parse(&ctx->wg_table, (const char *)text, n, path, err, sizeof err);
        free(text);
        if (!ok) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "work-group table %s", err);
    }
    if (!vki_wg_table_parse(&ctx->wg_table, builtin, len, "wg_table.txt", err, sizeof err))
        return vki_fail(VKI_ERROR_INTERNAL, "built-in work-group table %s", err);
    return VKI_OK;
}

static vki_status create_device(vki_context *ctx, unsigned disable) {
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = ctx->queue_family,
        .queueCount = 1,
        .pQueuePriorities = &priority,
    };
    /* Enable exactly the fp16 features the device has; graphs that ask for fp16 check. */
    fp16_features f;
    query_fp16(ctx->physical, &f);
    if (disable & VKI_FEATURE_FP16_STORAGE) f.storage.storageBuffer16BitAccess = VK_FALSE;
    if (disable & VKI_FEATURE_FP16_ARITHMETIC) f.arith.shaderFloat16 = VK_FALSE;
    if (disable & VKI_FEATURE_INT_DOT_PRODUCT) f.dot.shaderIntegerDotProduct = VK_FALSE;
    VkPhysicalDevice16BitStorageFeatures storage = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
        .storageBuffer16BitAccess = f.storage.storageBuffer16BitAccess,
    };
    VkPhysicalDeviceShaderFloat16Int8FeaturesKHR arith = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES_KHR,
        .shaderFloat16 = f.arith.shaderFloat16,
    };
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dot = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR,
        .shaderIntegerDotProduct = VK_TRUE,
    };
    const char *ext[2];
    uint32_t n_ext = 0;
    int use_arith = f.has_arith_ext && f.arith.shaderFloat16;
    int use_dot = f.has_dot_ext && f.dot.shaderIntegerDotProduct;
    if (use_arith) ext[n_ext++] = VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME;
    if (use_dot) ext[n_ext++] = VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME;
    dot.pNext = use_arith ? &arith : NULL;
    storage.pNext = use_dot ? (void *)&dot : dot.pNext;
    ctx->fp16_storage = storage.storageBuffer16BitAccess == VK_TRUE;
    ctx->fp16_arithmetic = use_arith;
    ctx->int_dot_product = use_dot;
    VkDeviceCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .pNext = &storage,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &q,
        .enabledExtensionCount = n_ext,
        .ppEnabledExtensionNames = ext,
    };
    VkResult r = vkCreateDevice(ctx->physical, &info, NULL, &ctx->device);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "context", "vkCreateDevice");
    const char *missing;
    if (!vki_vk_load_device(ctx->device, &ctx->vk, &missing))
        return vki_fail(VKI_ERROR_NO_DEVICE, "context: the driver lacks %s", missing);
    ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
    VkPipelineCacheCreateInfo pc = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    void *saved = NULL;
    size_t saved_bytes = 0;
    if (ctx->cache_dir && vki_cache_load(ctx->cache_dir, PIPELINE_CACHE_FILE, vki_context_identity(ctx),
                                         &saved, &saved_bytes)) {
        pc.initialDataSize = saved_bytes;
        pc.pInitialData = saved;
    }
    r = ctx->vk.vkCreatePipelineCache(ctx->device, &pc, NULL, &ctx->pipeline_cache);
    free(saved);
    if (r != VK_SUCCESS) return vki_vk_fail(ctx, r, "context", "vkCreatePipelineCache");
#if VKI_HAVE_COMPILER
    ctx->compiler = shaderc_compiler_initialize();
    if (!ctx->compiler) return vki_fail(VKI_ERROR_SHADER, "context: shaderc_compiler_initialize failed");
#endif
    return VKI_OK;
}

vki_status vki_context_create(const vki_context_options *options, vki_context **out) {
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_create: out is NULL");
    *out = NULL;
    vki_context_config cfg;
    vki_status s = vki_context_config_resolve(options, &cfg);
    if (s) return s;
    vki_context *ctx = vki_calloc(1, sizeof *ctx);
    if (!ctx) return vki_fail_oom("vki_context_create");
    ctx->log = cfg.log;
    ctx->log_user = cfg.log_user;
    ctx->ignore_environment = cfg.ignore_environment;
    ctx->validation_abort = cfg.validation == 2;
    atomic_init(&ctx->refs, 1);     /* the app's */
    if (pthread_mutex_init(&ctx->queue_lock, NULL) != 0) {
        free(ctx);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "vki_context_create: cannot make a mutex");
    }
    if (pthread_mutex_init(&ctx->kernels_lock, NULL) != 0) {
        pthread_mutex_destroy(&ctx->queue_lock);
        free(ctx);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "vki_context_create: cannot make a mutex");
    }
    ctx->locks_ready = 1;
    s = create_instance(ctx, cfg.validation);
    if (!s) s = choose_device(ctx, &cfg);
    if (!s) s = open_cache_dir(ctx, cfg.cache_dir);
    if (!s) s = load_wg_table(ctx, cfg.workgroup_table);
    if (!s) s = create_device(ctx, cfg.disable_features);
    if (!s && cfg.kernel_pack) s = vki_context_load_kernel_pack(ctx, cfg.kernel_pack);
    if (s) {
        vki_context_destroy(ctx);
        return s;
    }
    *out = ctx;
    return VKI_OK;
}

void vki_context_retain(vki_context *ctx) {
    /* The caller holds a reference already (the app's handle, or a graph's), so the count
     * cannot be zero here and no ordering is needed to take another. */
    atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
}

/* Frees everything once no graph and no app handle is left. */
static void context_free(vki_context *ctx) {
#if VKI_HAVE_COMPILER
    if (ctx->compiler) shaderc_compiler_release(ctx->compiler);
#endif
    vki_pack_set_free(ctx->packs);
    if (ctx->device) {
        vki_kernels_release(ctx);
        if (ctx->pipeline_cache && ctx->cache_dir) save_pipeline_cache(ctx);
        if (ctx->pipeline_cache) ctx->vk.vkDestroyPipelineCache(ctx->device, ctx->pipeline_cache, NULL);
        ctx->vk.vkDestroyDevice(ctx->device, NULL);
    }
    if (ctx->messenger) ctx->vi.vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
    if (ctx->instance && vkDestroyInstance) vkDestroyInstance(ctx->instance, NULL);
    if (ctx->locks_ready) {
        pthread_mutex_destroy(&ctx->queue_lock);
        pthread_mutex_destroy(&ctx->kernels_lock);
    }
    free(ctx->cache_dir);
    vki_wg_table_free(ctx->wg_table);
    free(ctx);
}

void vki_context_release(vki_context *ctx) {
    if (!ctx) return;
    /* acq_rel: every release's writes (a graph's last submits, its destroyed objects)
     * happen before the freeing thread tears the device down. */
    if (atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) == 1) context_free(ctx);
}

/* The app's reference only: graphs still alive keep the context until the last of them is
 * destroyed. */
void vki_context_destroy(vki_context *ctx) { vki_context_release(ctx); }

vki_status vki_context_kernel_stats(const vki_context *ctx, vki_kernel_stats *out) {
    if (!ctx || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_kernel_stats: NULL argument");
    pthread_mutex_t *lock = (pthread_mutex_t *)&ctx->kernels_lock;
    pthread_mutex_lock(lock);
    *out = ctx->kernels;
    pthread_mutex_unlock(lock);
    return VKI_OK;
}

vki_status vki_context_device_info(const vki_context *ctx, vki_device_info *out) {
    if (!ctx || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_device_info: NULL argument");
    fill_info(ctx->physical, out);
    /* What this context enabled, which disable_features may have narrowed. */
    out->fp16_storage = ctx->fp16_storage;
    out->fp16_arithmetic = ctx->fp16_arithmetic;
    out->int_dot_product = ctx->int_dot_product;
    return VKI_OK;
}

vki_status vki_enumerate_devices(vki_device_info *infos, int max, int *count) {
    if (!count) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_enumerate_devices: count is NULL");
    *count = 0;
    /* A context of its own (instance only): nothing shared with live contexts. */
    vki_context tmp = {.log = vki_log_stderr};
    vki_status s = create_instance(&tmp, 0);
    uint32_t n = 0;
    VkResult r = VK_SUCCESS;
    VkPhysicalDevice devs[16];
    if (!s) r = vkEnumeratePhysicalDevices(tmp.instance, &n, NULL);
    if (n > 16) n = 16;
    if (!s && r == VK_SUCCESS) r = vkEnumeratePhysicalDevices(tmp.instance, &n, devs);
    if (!s && r != VK_SUCCESS && r != VK_INCOMPLETE) s = vki_vk_fail(NULL, r, "enumerate", "vkEnumeratePhysicalDevices");
    for (uint32_t i = 0; !s && i < n && (int)i < max && infos; i++) fill_info(devs[i], &infos[i]);
    if (!s) *count = (int)n;
    if (tmp.instance && vkDestroyInstance) vkDestroyInstance(tmp.instance, NULL);
    return s;
}
