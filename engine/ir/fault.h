/* fault.h: the test-only fault injector. Armed on one thread, it makes the Nth check point
 * of one kind on that thread fail: a Vulkan call returns the armed VkResult instead of
 * running, or a host allocation returns NULL. Its state is thread-local, so arming it in
 * one test thread never touches another thread's work. Internal; Vulkan-free (results
 * travel as the VkResult's int value). */
#ifndef VKI_FAULT_H
#define VKI_FAULT_H

#include <stddef.h>

/* Every kind of point, what it covers and its name in VKI_FAULT. */
#define VKI_FAULT_LIST(X)                                                                  \
    X(MEMORY, "memory")          /* vkAllocateMemory */                                    \
    X(BUFFER, "buffer")          /* vkCreateBuffer */                                      \
    X(SHADER, "shader")          /* vkCreateShaderModule */                                \
    X(PIPELINE, "pipeline")      /* vkCreateComputePipelines */                            \
    X(DESCRIPTOR, "descriptor")  /* vkCreateDescriptorPool, vkAllocateDescriptorSets */    \
    X(SUBMIT, "submit")          /* vkQueueSubmit */                                       \
    X(WAIT, "wait")              /* every fence wait */                                    \
    X(MALLOC, "malloc")          /* the engine's malloc, calloc and realloc */

#define VKI_FAULT_ENUM_(name, text) VKI_FAULT_##name,
typedef enum vki_fault_kind { VKI_FAULT_LIST(VKI_FAULT_ENUM_) VKI_FAULT_KIND_COUNT } vki_fault_kind;
#undef VKI_FAULT_ENUM_

const char *vki_fault_kind_name(vki_fault_kind kind);
/* Arms this thread: the at-th point of `kind` from now fails with `result` (a VkResult;
 * ignored for MALLOC); at = 0 only counts. Re-arming resets the count. */
void vki_fault_arm(vki_fault_kind kind, long at, int result);
void vki_fault_disarm(void);
/* Points of the armed kind passed on this thread since arming; whether one failed. */
long vki_fault_seen(void);
int vki_fault_fired(void);
/* Arms this thread from a "kind:N[:RESULT]" text (the VKI_FAULT variable), RESULT one of
 * VK_ERROR_OUT_OF_DEVICE_MEMORY (default), VK_ERROR_OUT_OF_HOST_MEMORY,
 * VK_ERROR_DEVICE_LOST. Returns 0 on a malformed text. */
int vki_fault_arm_from_text(const char *text);

/* A check point: 0 (VK_SUCCESS), or the armed result when this is the one to fail. */
int vki_fault_check(vki_fault_kind kind);

/* The engine allocates through these (MALLOC points). */
void *vki_malloc(size_t n);
void *vki_calloc(size_t count, size_t n);
void *vki_realloc(void *p, size_t n);
/* A copy of s ("" for NULL), through vki_malloc. */
char *vki_strdup(const char *s);

#endif
