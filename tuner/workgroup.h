/* workgroup.h: the work-group size of a dispatch: the family table's shape for the device,
 * op class and grid, fitted to the grid and the device limits (pure C, no Vulkan). The
 * engine describes the device and the dispatch; the table (table.h) answers. */
#ifndef VKI_WORKGROUP_H
#define VKI_WORKGROUP_H

#include <stdint.h>

struct vki_wg_table;

typedef struct vki_wg_device {
    uint32_t vendor_id;
    uint32_t device_id;
    int is_cpu;
    int is_discrete;                 /* a discrete GPU: host-visible memory lies across a bus */
    const char *name;                /* VkPhysicalDeviceProperties.deviceName; NULL: unknown */
    uint32_t subgroup_size;
    uint32_t max_invocations;        /* maxComputeWorkGroupInvocations */
    uint32_t max_size[3];            /* maxComputeWorkGroupSize */
    uint32_t max_shared_bytes;       /* maxComputeSharedMemorySize; 0: unknown */
    const struct vki_wg_table *table;   /* the family table; NULL: VKI_WG_FALLBACK for all */
} vki_wg_device;

/* The classes of dispatch the table keys on: X(ID, name in table files, tunable). A
 * kernel's class says what shape of work group suits it. REDUCE is one whose size is part
 * of what it computes (its lane count), so it is never tuned. DW_PW (glsl/dw_pw.comp) is
 * a fixed shape, the kernel's pixel tile: it is not fitted to the grid (only to the device
 * limits) and never tuned, so the op file learns it from vki_wg_pick before it emits the
 * dispatch. CONV is a direct kxk convolution (and the matrix products), CONV_1X1 the
 * pointwise kernel, whose grid is (pixels, 1, slice groups). */
#define VKI_WG_CLASS_LIST(X)                                                               \
    X(ELEMENTWISE, "elementwise", 1)                                                       \
    X(CONV, "conv", 1)                                                                     \
    X(CONV_1X1, "conv_1x1", 1)                                                             \
    X(DEPTHWISE, "depthwise", 1)                                                           \
    X(POOL, "pool", 1)                                                                     \
    X(REDUCE, "reduce", 0)                                                                 \
    X(DW_PW, "dw_pw", 0)

typedef enum vki_wg_class {
#define VKI_WG_CLASS_ENUM_(id, name, tunable) VKI_WG_##id,
    VKI_WG_CLASS_LIST(VKI_WG_CLASS_ENUM_)
#undef VKI_WG_CLASS_ENUM_
    VKI_WG_CLASS_COUNT
} vki_wg_class;

/* With no table, or no row for a dispatch: 64 threads as 8x8x1, a shape every Vulkan
 * device runs (the spec's minimum maxComputeWorkGroupInvocations is 128). */
#define VKI_WG_FALLBACK {8, 8, 1}

/* Whether local search may change a class's work group. */
int vki_wg_tunable(vki_wg_class c);
/* The class's name in table files ("conv_1x1"); "?" for a value outside the list. */
const char *vki_wg_class_name(vki_wg_class c);
/* The class named name, or -1. */
int vki_wg_class_from_name(const char *name);

/* The table's shape for a dispatch of class c over grid, as its row writes it (not
 * fitted); VKI_WG_FALLBACK without a table or a row. */
void vki_wg_table_shape(const vki_wg_device *dev, vki_wg_class c, const uint32_t grid[3],
                        uint32_t out[3]);
/* shape fitted to grid and the device: see vki_wg_pick. DW_PW shapes are fitted to the
 * device limits only. */
void vki_wg_fit(const vki_wg_device *dev, vki_wg_class c, const uint32_t grid[3],
                const uint32_t shape[3], uint32_t out[3]);
/* The table's work group for a dispatch of class c over grid (threads per axis), fitted:
 * an axis the grid does not fill gives its threads to x, and every axis and the total stay
 * within the device's limits. */
void vki_wg_pick(const vki_wg_device *dev, vki_wg_class c, const uint32_t grid[3],
                 uint32_t out[3]);

#endif
