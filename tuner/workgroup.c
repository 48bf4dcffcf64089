/* workgroup.c: a dispatch's work group: the family table's row (table.h) fitted to the
 * grid and the device.
 *
 * A size is a shape of threads over (x = width, y = height, z = channel slices). Fitting
 * shrinks any axis the grid does not fill (a 1-wide grid wastes an 8-wide group), gives
 * those threads to x while x has work for them, and respects the device limits. */
#include "workgroup.h"

#include "table.h"

#include <string.h>

static const struct { const char *name; int tunable; } classes[VKI_WG_CLASS_COUNT] = {
#define CLASS_(id, name, tunable) {name, tunable},
    VKI_WG_CLASS_LIST(CLASS_)
#undef CLASS_
};

int vki_wg_tunable(vki_wg_class c) {
    return (unsigned)c < VKI_WG_CLASS_COUNT && classes[c].tunable;
}

const char *vki_wg_class_name(vki_wg_class c) {
    return (unsigned)c < VKI_WG_CLASS_COUNT ? classes[c].name : "?";
}

int vki_wg_class_from_name(const char *name) {
    for (int c = 0; c < VKI_WG_CLASS_COUNT; c++)
        if (!strcmp(classes[c].name, name)) return c;
    return -1;
}

static uint32_t shrink_to(uint32_t want, uint32_t extent) {
    while (want > 1 && want / 2 >= extent) want /= 2;
    return want;
}

void vki_wg_fit(const vki_wg_device *dev, vki_wg_class op_class, const uint32_t grid[3],
                const uint32_t shape[3], uint32_t out[3]) {
    uint32_t s[3] = {shape[0] ? shape[0] : 1, shape[1] ? shape[1] : 1, shape[2] ? shape[2] : 1};
    if (op_class != VKI_WG_DW_PW) {
        /* Move threads the grid cannot use from small axes to x, then fit each axis. */
        uint32_t total = s[0] * s[1] * s[2];
        s[2] = shrink_to(s[2], grid[2]);
        s[1] = shrink_to(s[1], grid[1]);
        while (s[0] * s[1] * s[2] < total && s[0] < grid[0]) s[0] *= 2;
        s[0] = shrink_to(s[0], grid[0]);
    }
    uint32_t lim[3] = {dev->max_size[0] ? dev->max_size[0] : 128, dev->max_size[1] ? dev->max_size[1] : 128,
                       dev->max_size[2] ? dev->max_size[2] : 64};
    for (int a = 0; a < 3; a++)
        if (s[a] > lim[a]) s[a] = lim[a];
    uint32_t max_inv = dev->max_invocations ? dev->max_invocations : 128;
    while (s[0] * s[1] * s[2] > max_inv) {
        if (s[0] >= s[1] && s[0] > 1) s[0] /= 2;
        else if (s[1] > 1) s[1] /= 2;
        else s[2] /= 2;
    }
    for (int a = 0; a < 3; a++) out[a] = s[a] ? s[a] : 1;
}

void vki_wg_table_shape(const vki_wg_device *dev, vki_wg_class op_class, const uint32_t grid[3],
                        uint32_t out[3]) {
    static const uint32_t fallback[3] = VKI_WG_FALLBACK;
    vki_wg_row_info row;
    if (dev->table && (unsigned)op_class < VKI_WG_CLASS_COUNT &&
        vki_wg_table_lookup(dev->table, dev, op_class, grid, &row))
        memcpy(out, row.wg, sizeof row.wg);
    else
        memcpy(out, fallback, sizeof fallback);
}

void vki_wg_pick(const vki_wg_device *dev, vki_wg_class op_class, const uint32_t grid[3],
                 uint32_t out[3]) {
    if ((unsigned)op_class >= VKI_WG_CLASS_COUNT) op_class = VKI_WG_ELEMENTWISE;
    uint32_t shape[3];
    vki_wg_table_shape(dev, op_class, grid, shape);
    vki_wg_fit(dev, op_class, grid, shape, out);
}
