/* vulkan.h: how vkinfer reaches Vulkan: through volk (volk.h), compiled into the library
 * (volk_impl.c), which loads the loader library (libvulkan.so.1) at run time.
 *
 * - Loader-level and core instance-level functions are volk's globals (vkCreateInstance,
 *   vkEnumeratePhysicalDevices, ...), set once per process by vki_vk_open and
 *   vki_vk_load_instance under a lock, then only read. They are loaded through the first
 *   instance created, and stay valid for every other, even after that one is destroyed:
 *   for core instance commands the Vulkan loader (Khronos' and Android's) returns its own
 *   trampolines, which dispatch on the instance or physical device passed in, whatever
 *   instance they were fetched with. Instance extensions are different (the loader returns
 *   them only for an instance that enabled the extension), so those few are per context
 *   (vki_vk_instance).
 * - Device-level functions are per context: a VolkDeviceTable (ctx->vk) filled through
 *   vkGetDeviceProcAddr for that device, so calls skip the loader's trampolines and two
 *   contexts on two devices never share pointers.
 *
 * The library exports none of volk's symbols (the version script, and public_archive.py
 * for libvkinfer.a), so an app's own volk or libvulkan link is independent of this one.
 * Internal. */
#ifndef VKI_VULKAN_H
#define VKI_VULKAN_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.h>

/* One context's instance extension entry points; NULL where the instance lacks the
 * extension. */
typedef struct vki_vk_instance {
    PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;
} vki_vk_instance;

/* The device-level entry points of one context. */
typedef struct VolkDeviceTable vki_vk_device;

/* Opens the loader library (libvulkan.so.1, or libvulkan.so as Android names it) once
 * per process and hands its vkGetInstanceProcAddr to volk, which loads the global entry
 * points; the library then stays loaded, as volk's pointers lead into it. Zeroes *vi.
 * Returns 0 when there is no usable loader; *missing then names what was not found. */
int vki_vk_open(vki_vk_instance *vi, const char **missing);
/* Loads volk's instance-level entry points (the first time: see above) and this
 * instance's extension entry points into *vi; 0 and *missing when a required one is
 * absent. */
int vki_vk_load_instance(vki_vk_instance *vi, VkInstance instance, const char **missing);
/* Fills *vd for the device; 0 and *missing when a function vkinfer calls is absent. */
int vki_vk_load_device(VkDevice device, vki_vk_device *vd, const char **missing);

#endif
