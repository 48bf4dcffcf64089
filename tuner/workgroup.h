/* workgroup.h: starting work-group sizes per GPU family and op class (pure C, no Vulkan).
 * The engine describes the device and the dispatch; the table answers. */
#ifndef VKI_WORKGROUP_H
#define VKI_WORKGROUP_H

#include <stdint.h>

typedef struct vki_wg_device {
    uint32_t vendor_id;
    uint32_t device_id;
    int is_cpu;
    uint32_t subgroup_size;
    uint32_t max_invocations;        /* maxComputeWorkGroupInvocations */
    uint32_t max_size[3];            /* maxComputeWorkGroupSize */
    uint32_t max_shared_bytes;       /* maxComputeSharedMemorySize; 0: unknown */
} vki_wg_device;

/* The classes of dispatch the table keys on. A kernel's class says what shape of work
 * group suits it; REDUCE is one whose size is part of what it computes (its lane count),
 * so it is never tuned. DW_PW (glsl/dw_pw.comp) is a fixed shape, the kernel's pixel tile:
 * it is not fitted to the grid (only to the device limits) and never tuned, so the op file
 * learns it from vki_wg_pick before it emits the dispatch. */
typedef enum vki_wg_class {
    VKI_WG_ELEMENTWISE = 0,
    VKI_WG_CONV,
    VKI_WG_DEPTHWISE,
    VKI_WG_POOL,
    VKI_WG_REDUCE,
    VKI_WG_DW_PW,
    VKI_WG_CLASS_COUNT
} vki_wg_class;

/* Whether local search may change a class's work group. */
static inline int vki_wg_tunable(vki_wg_class c) { return c != VKI_WG_REDUCE && c != VKI_WG_DW_PW; }

/* The table's work group for a dispatch of class c over grid (threads per axis). */
void vki_wg_pick(const vki_wg_device *dev, vki_wg_class c, const uint32_t grid[3],
                 uint32_t out[3]);

#endif
