/* vulkan.h: the Vulkan entry points vkinfer calls, from one list, loaded per context.
 *
 * Nothing here is global: each context opens the Vulkan loader library itself (dlopen
 * counts references), and keeps its own instance-level and device-level function tables,
 * so two contexts, or an app with its own volk or libvulkan link, never see each other's
 * pointers. The library defines no vk* symbol. Internal. */
#ifndef VKI_VULKAN_H
#define VKI_VULKAN_H

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

/* Before an instance exists (vkGetInstanceProcAddr with a NULL instance). */
#define VKI_VK_GLOBAL_LIST(X)                                                              \
    X(vkCreateInstance)                                                                    \
    X(vkEnumerateInstanceLayerProperties)

/* Through the instance; required unless listed as optional. */
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
#define VKI_VK_INSTANCE_OPTIONAL_LIST(X)                                                   \
    X(vkCreateDebugUtilsMessengerEXT)                                                      \
    X(vkDestroyDebugUtilsMessengerEXT)

/* Through the device (vkGetDeviceProcAddr): no loader trampoline per call. */
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

#define VKI_VK_MEMBER_(name) PFN_##name name;

/* The loader library and what it gives before and with an instance. */
typedef struct vki_vk_instance {
    void *library;
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion;   /* NULL: a 1.0 loader */
    VKI_VK_GLOBAL_LIST(VKI_VK_MEMBER_)
    VKI_VK_INSTANCE_LIST(VKI_VK_MEMBER_)
    VKI_VK_INSTANCE_OPTIONAL_LIST(VKI_VK_MEMBER_)
} vki_vk_instance;

typedef struct vki_vk_device {
    VKI_VK_DEVICE_LIST(VKI_VK_MEMBER_)
} vki_vk_device;

/* Opens the loader library (libvulkan.so.1, or libvulkan.so as Android names it) and
 * loads the global entry points. Returns 0 when there is no loader; *missing then names
 * what was not found. */
int vki_vk_open(vki_vk_instance *vi, const char **missing);
/* Loads the instance-level entry points; 0 and *missing when a required one is absent. */
int vki_vk_load_instance(vki_vk_instance *vi, VkInstance instance, const char **missing);
/* Loads the device-level entry points; 0 and *missing when one is absent. */
int vki_vk_load_device(const vki_vk_instance *vi, VkDevice device, vki_vk_device *vd,
                       const char **missing);
/* Closes the library (after vkDestroyInstance). Safe on a zeroed or failed table. */
void vki_vk_close(vki_vk_instance *vi);

#endif
