/* workgroup.c: the family table of starting work-group sizes, fitted to the grid.
 *
 * A size is a shape of threads over (x = width, y = height, z = channel slices). The
 * table gives a preferred shape per family and op class; fitting then shrinks any axis
 * the grid does not fill (a 1-wide grid wastes a 8-wide group) and respects the device
 * limits, keeping the total a multiple of the subgroup where possible.
 */
#include "workgroup.h"

enum { VENDOR_AMD = 0x1002, VENDOR_NVIDIA = 0x10DE, VENDOR_INTEL = 0x8086,
       VENDOR_ARM = 0x13B5, VENDOR_QUALCOMM = 0x5143, VENDOR_IMG = 0x1010 };

typedef struct { uint32_t x, y, z; } shape3;

/* Per family, one shape per vki_wg_class. DW_PW (last) is the fused kernel's tile of
 * output pixels (x, y) times the threads that share each pixel's output slices (z); its
 * reasons are in engine/ops/dw_pw.c. */
static const shape3 desktop_table[VKI_WG_CLASS_COUNT] = {{16, 4, 1}, {8, 4, 2}, {8, 8, 1}, {8, 8, 1}, {64, 1, 1}, {8, 8, 2}};
/* Adreno: TFLite GPU's study favours deep z for conv (4x8x4 on 630). */
static const shape3 adreno_table[VKI_WG_CLASS_COUNT] = {{16, 4, 1}, {4, 8, 4}, {8, 4, 4}, {8, 8, 1}, {64, 1, 1}, {8, 8, 2}};
/* Mali: small groups, z-heavy for conv (TFLite GL's Mali table). */
static const shape3 mali_table[VKI_WG_CLASS_COUNT] = {{8, 4, 1}, {4, 4, 4}, {4, 4, 4}, {8, 4, 1}, {32, 1, 1}, {8, 4, 2}};
/* CPU implementations (lavapipe): a group is one SIMD loop; wide in x vectorises. */
static const shape3 cpu_table[VKI_WG_CLASS_COUNT] = {{32, 2, 1}, {16, 2, 1}, {16, 2, 1}, {16, 2, 1}, {64, 1, 1}, {8, 2, 1}};

static uint32_t shrink_to(uint32_t want, uint32_t extent) {
    while (want > 1 && want / 2 >= extent) want /= 2;
    return want;
}

void vki_wg_pick(const vki_wg_device *dev, vki_wg_class op_class, const uint32_t grid[3],
                 uint32_t out[3]) {
    const shape3 *table = desktop_table;
    if (dev->is_cpu) table = cpu_table;
    else if (dev->vendor_id == VENDOR_QUALCOMM) table = adreno_table;
    else if (dev->vendor_id == VENDOR_ARM) table = mali_table;
    if ((unsigned)op_class >= VKI_WG_CLASS_COUNT) op_class = VKI_WG_ELEMENTWISE;
    shape3 s = table[op_class];
    if (op_class != VKI_WG_DW_PW) {
        /* Move threads the grid cannot use from small axes to x, then fit each axis. */
        uint32_t total = s.x * s.y * s.z;
        s.z = shrink_to(s.z, grid[2]);
        s.y = shrink_to(s.y, grid[1]);
        while (s.x * s.y * s.z < total && s.x < grid[0]) s.x *= 2;
        s.x = shrink_to(s.x, grid[0]);
    }
    uint32_t lim[3] = {dev->max_size[0] ? dev->max_size[0] : 128, dev->max_size[1] ? dev->max_size[1] : 128,
                       dev->max_size[2] ? dev->max_size[2] : 64};
    if (s.x > lim[0]) s.x = lim[0];
    if (s.y > lim[1]) s.y = lim[1];
    if (s.z > lim[2]) s.z = lim[2];
    uint32_t max_inv = dev->max_invocations ? dev->max_invocations : 128;
    while (s.x * s.y * s.z > max_inv) {
        if (s.x >= s.y && s.x > 1) s.x /= 2;
        else if (s.y > 1) s.y /= 2;
        else s.z /= 2;
    }
    out[0] = s.x ? s.x : 1;
    out[1] = s.y ? s.y : 1;
    out[2] = s.z ? s.z : 1;
}
