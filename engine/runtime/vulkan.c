/* vulkan.c: the Vulkan loading stage: opens the loader library and fills one context's
 * function tables from the lists in vulkan.h. */
#if defined(__SANITIZE_ADDRESS__)
#define VKI_PIN_DRIVER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKI_PIN_DRIVER 1
#endif
#endif
#ifdef VKI_PIN_DRIVER
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE */
#endif

#include "vulkan.h"

#include <dlfcn.h>
#include <string.h>

#ifdef VKI_PIN_DRIVER
#include <link.h>

/* Built with AddressSanitizer only. The loader unloads the driver when the instance is
 * destroyed, so it is pinned once the instance exists; a driver keeps some allocations in its own globals (lavapipe in Mesa 22.3:
 * 128 bytes per instance), and once its pages are gone LeakSanitizer reports them as
 * leaks of an "<unknown module>" that no suppression can name. Marking every library
 * loaded by then as never-unloaded keeps those globals mapped and the suppressions in
 * tests/lsan.supp effective. Release builds never take this path. */
static int pin_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    if (info->dlpi_name && info->dlpi_name[0]) {
        void *h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h);
    }
    return 0;
}
#endif

/* dlsym returns void *; POSIX guarantees it converts to a function pointer. */
static PFN_vkVoidFunction symbol(void *library, const char *name) {
    PFN_vkVoidFunction f;
    void *p = dlsym(library, name);
    memcpy(&f, &p, sizeof f);
    return f;
}

int vki_vk_open(vki_vk_instance *vi, const char **missing) {
    static const char *const names[] = {"libvulkan.so.1", "libvulkan.so"};
    memset(vi, 0, sizeof *vi);
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !vi->library; i++)
        vi->library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    *missing = "libvulkan.so.1";
    if (!vi->library) return 0;
    vi->vkGetInstanceProcAddr = (PFN_vkGetInstanceProcAddr)symbol(vi->library, "vkGetInstanceProcAddr");
    *missing = "vkGetInstanceProcAddr";
    if (!vi->vkGetInstanceProcAddr) return 0;
    vi->vkEnumerateInstanceVersion =
        (PFN_vkEnumerateInstanceVersion)vi->vkGetInstanceProcAddr(NULL, "vkEnumerateInstanceVersion");
#define LOAD_(name)                                                                        \
    vi->name = (PFN_##name)vi->vkGetInstanceProcAddr(NULL, #name);                         \
    if (!vi->name) { *missing = #name; return 0; }
    VKI_VK_GLOBAL_LIST(LOAD_)
#undef LOAD_
    *missing = NULL;
    return 1;
}

int vki_vk_load_instance(vki_vk_instance *vi, VkInstance instance, const char **missing) {
#define LOAD_(name)                                                                        \
    vi->name = (PFN_##name)vi->vkGetInstanceProcAddr(instance, #name);                     \
    if (!vi->name) { *missing = #name; return 0; }
    VKI_VK_INSTANCE_LIST(LOAD_)
#undef LOAD_
#define LOAD_OPTIONAL_(name) vi->name = (PFN_##name)vi->vkGetInstanceProcAddr(instance, #name);
    VKI_VK_INSTANCE_OPTIONAL_LIST(LOAD_OPTIONAL_)
#undef LOAD_OPTIONAL_
#ifdef VKI_PIN_DRIVER
    dl_iterate_phdr(pin_library, NULL);
#endif
    *missing = NULL;
    return 1;
}

int vki_vk_load_device(const vki_vk_instance *vi, VkDevice device, vki_vk_device *vd,
                       const char **missing) {
#define LOAD_(name)                                                                        \
    vd->name = (PFN_##name)vi->vkGetDeviceProcAddr(device, #name);                         \
    if (!vd->name) { *missing = #name; return 0; }
    VKI_VK_DEVICE_LIST(LOAD_)
#undef LOAD_
    *missing = NULL;
    return 1;
}

void vki_vk_close(vki_vk_instance *vi) {
    if (vi->library) dlclose(vi->library);
    memset(vi, 0, sizeof *vi);
}
