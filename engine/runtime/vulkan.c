/* vulkan.c: the Vulkan loading stage: opens the loader library for volk, loads volk's
 * instance-level entry points once, and one context's device table; checks that every
 * function vkinfer calls is there, naming the first that is not. */
#if defined(__SANITIZE_ADDRESS__)
#define VKI_PIN_EVERYTHING 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKI_PIN_EVERYTHING 1
#endif
#endif
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE */

#include "vulkan.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What vkinfer calls, by level: loading fails, naming the function, when one is absent.
 * (vkEnumerateInstanceVersion is optional: NULL on a 1.0 loader.) */
#define VKI_VK_GLOBAL_LIST(X)                                                              \
    X(vkCreateInstance)                                                                    \
    X(vkEnumerateInstanceLayerProperties)

#define VKI_VK_INSTANCE_LIST(X)                                                            \
    X(vkDestroyInstance)                                                                   \
    X(vkEnumeratePhysicalDevices)                                                          \
    X(vkGetPhysicalDeviceProperties)                                                       \
    X(vkGetPhysicalDeviceProperties2)                                                      \
    X(vkGetPhysicalDeviceMemoryProperties)                                                 \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                            \
    X(vkGetPhysicalDeviceFeatures2)                                                        \
    X(vkEnumerateDeviceExtensionProperties)                                                \
    X(vkCreateDevice)                                                                      \
    X(vkGetDeviceProcAddr)

#define VKI_VK_DEVICE_LIST(X)                                                              \
    X(vkDestroyDevice)                                                                     \
    X(vkGetDeviceQueue)                                                                    \
    X(vkQueueSubmit)                                                                       \
    X(vkAllocateMemory)                                                                    \
    X(vkFreeMemory)                                                                        \
    X(vkMapMemory)                                                                         \
    X(vkFlushMappedMemoryRanges)                                                           \
    X(vkInvalidateMappedMemoryRanges)                                                      \
    X(vkCreateBuffer)                                                                      \
    X(vkDestroyBuffer)                                                                     \
    X(vkGetBufferMemoryRequirements)                                                       \
    X(vkBindBufferMemory)                                                                  \
    X(vkCreateShaderModule)                                                                \
    X(vkDestroyShaderModule)                                                               \
    X(vkCreatePipelineCache)                                                               \
    X(vkDestroyPipelineCache)                                                              \
    X(vkGetPipelineCacheData)                                                              \
    X(vkMergePipelineCaches)                                                               \
    X(vkCreateComputePipelines)                                                            \
    X(vkDestroyPipeline)                                                                   \
    X(vkCreatePipelineLayout)                                                              \
    X(vkDestroyPipelineLayout)                                                             \
    X(vkCreateDescriptorSetLayout)                                                         \
    X(vkDestroyDescriptorSetLayout)                                                        \
    X(vkCreateDescriptorPool)                                                              \
    X(vkDestroyDescriptorPool)                                                             \
    X(vkAllocateDescriptorSets)                                                            \
    X(vkUpdateDescriptorSets)                                                              \
    X(vkCreateCommandPool)                                                                 \
    X(vkDestroyCommandPool)                                                                \
    X(vkResetCommandPool)                                                                  \
    X(vkAllocateCommandBuffers)                                                            \
    X(vkBeginCommandBuffer)                                                                \
    X(vkEndCommandBuffer)                                                                  \
    X(vkCreateFence)                                                                       \
    X(vkDestroyFence)                                                                      \
    X(vkResetFences)                                                                       \
    X(vkGetFenceStatus)                                                                    \
    X(vkWaitForFences)                                                                     \
    X(vkCreateQueryPool)                                                                   \
    X(vkDestroyQueryPool)                                                                  \
    X(vkGetQueryPoolResults)                                                               \
    X(vkCmdBindPipeline)                                                                   \
    X(vkCmdBindDescriptorSets)                                                             \
    X(vkCmdDispatch)                                                                       \
    X(vkCmdPipelineBarrier)                                                                \
    X(vkCmdCopyBuffer)                                                                     \
    X(vkCmdFillBuffer)                                                                     \
    X(vkCmdResetQueryPool)                                                                 \
    X(vkCmdWriteTimestamp)

#include <link.h>

/* The driver stays loaded once the first instance exists. The loader unloads a driver with
 * the last instance and loads it again with the next, and NVIDIA's cannot take that for
 * long: on an H100 (driver 580.159.04) the 30th context created and destroyed in turn in
 * one process failed, vkCreateInstance returning VK_ERROR_INCOMPATIBLE_DRIVER, with or
 * without volk. So every library loaded since the loader was opened (the drivers, and the
 * layers the instance enabled) is marked never-unloaded as each instance is created; libraries loaded before
 * it, the app's among them, are left alone. Built with AddressSanitizer, every library is
 * pinned: a driver keeps some allocations in its own globals (lavapipe in Mesa 22.3: 128
 * bytes per instance), and once its pages are gone LeakSanitizer reports them as leaks of
 * an "<unknown module>" that no suppression can name (tests/lsan.supp). */
static int loaded_before_loader = -1;   /* libraries loaded before open_loader */

static int count_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)info, (void)size;
    ++*(int *)data;
    return 0;
}

/* The names of the libraries to pin, gathered by dl_iterate_phdr. They are opened only
 * after it returns: dlopen inside its callback would take the dynamic linker's load lock
 * under the list lock dl_iterate_phdr holds, the reverse of a dlopen on another thread
 * (the loader opening a driver for a second context), and the two would deadlock. */
typedef struct pin_list {
    int index;
    int n, cap;
    char **names;
} pin_list;

static int collect_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    pin_list *l = data;
#ifndef VKI_PIN_EVERYTHING
    if (l->index++ < loaded_before_loader) return 0;
#endif
    if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 32;
        char **grown = realloc(l->names, (size_t)cap * sizeof *grown);
        if (!grown) return 1;   /* out of memory: pin what was gathered */
        l->names = grown;
        l->cap = cap;
    }
    l->names[l->n] = strdup(info->dlpi_name);
    if (l->names[l->n]) l->n++;
    return 0;
}

static void pin_loaded_libraries(void) {
    pin_list l = {0};
    dl_iterate_phdr(collect_library, &l);
    for (int i = 0; i < l.n; i++) {
        void *h = dlopen(l.names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h);
        free(l.names[i]);
    }
    free(l.names);
}

static pthread_mutex_t volk_lock = PTHREAD_MUTEX_INITIALIZER;
static int loader_ready, instance_ready;

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
static PFN_vkVoidFunction symbol(void *library, const char *name) {
    PFN_vkVoidFunction f;
    void *p = dlsym(library, name);
    memcpy(&f, &p, sizeof f);
    return f;
}

/* The loader library, opened here rather than by volkInitialize so that a failure can
 * name what is missing; never closed, as volk's pointers lead into it. */
static int open_loader(const char **missing) {
    static const char *const names[] = {"libvulkan.so.1", "libvulkan.so"};
    void *library = NULL;
    loaded_before_loader = 0;
    dl_iterate_phdr(count_library, &loaded_before_loader);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++)
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    *missing = "libvulkan.so.1";
    if (!library) return 0;
    PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)symbol(library, "vkGetInstanceProcAddr");
    *missing = "vkGetInstanceProcAddr";
    if (!gipa) {
        dlclose(library);
        return 0;
    }
    volkInitializeCustom(gipa);
    *missing = NULL;
#define CHECK_(name) if (!name && !*missing) *missing = #name;
    VKI_VK_GLOBAL_LIST(CHECK_)
#undef CHECK_
    if (*missing) dlclose(library);   /* volk's pointers stay unused until a retry succeeds */
    return !*missing;
}

int vki_vk_open(vki_vk_instance *vi, const char **missing) {
    memset(vi, 0, sizeof *vi);
    pthread_mutex_lock(&volk_lock);
    int ok = loader_ready || (loader_ready = open_loader(missing));
    pthread_mutex_unlock(&volk_lock);
    if (ok) *missing = NULL;
    return ok;
}

/* volkLoadInstanceOnly once, with the first instance: the core instance functions it
 * loads are the loader's trampolines, valid for every instance (vulkan.h). Reloading them
 * for each instance would rewrite pointers other threads are calling through. */
static int load_instance_functions(VkInstance instance, const char **missing) {
    volkLoadInstanceOnly(instance);
#define CHECK_(name) if (!name) { *missing = #name; return 0; }
    VKI_VK_INSTANCE_LIST(CHECK_)
#undef CHECK_
    return 1;
}

int vki_vk_load_instance(vki_vk_instance *vi, VkInstance instance, const char **missing) {
    pthread_mutex_lock(&volk_lock);
    int ok = instance_ready || (instance_ready = load_instance_functions(instance, missing));
    pthread_mutex_unlock(&volk_lock);
    if (!ok) return 0;
    /* Per instance: the loader gives these only where the instance enabled the extension
     * (volk's globals of the same names hold the first instance's answer). */
#define LOAD_OPTIONAL_(name) vi->name = (PFN_##name)vkGetInstanceProcAddr(instance, #name);
    LOAD_OPTIONAL_(vkCreateDebugUtilsMessengerEXT)
    LOAD_OPTIONAL_(vkDestroyDebugUtilsMessengerEXT)
#undef LOAD_OPTIONAL_
    pin_loaded_libraries();   /* this instance's drivers and layers */
    *missing = NULL;
    return 1;
}

int vki_vk_load_device(VkDevice device, vki_vk_device *vd, const char **missing) {
    volkLoadDeviceTable(vd, device);
#define CHECK_(name) if (!vd->name) { *missing = #name; return 0; }
    VKI_VK_DEVICE_LIST(CHECK_)
#undef CHECK_
    *missing = NULL;
    return 1;
}
