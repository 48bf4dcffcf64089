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
} vki_wg_device;

/* op_class is a vki_wg_class value; grid is the thread count per axis. */
void vki_wg_pick(const vki_wg_device *dev, int op_class, const uint32_t grid[3],
                 uint32_t out[3]);

#endif
