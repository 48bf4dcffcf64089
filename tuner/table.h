/* table.h: the work-group family table (pure C, no Vulkan): which family a device belongs
 * to, and per family, op class and shape bucket the work group to start from, each row
 * saying where it came from. The shipped table is tuner/wg_table.txt, built into the
 * library; a device's tuning runs export rows in the same format (vki_wg_table_export).
 *
 * The format, one item per line, '#' to the end of a line is a comment:
 *
 *   source ID free text saying where rows citing ID come from
 *   family NAME [vendor=0x10DE] [device=0x06000000-0x06FFFFFF] [name="Adreno (TM) 6*"]
 *               [type=cpu|gpu]
 *   CLASS  PIXELS  SLICES  XxYxZ  SOURCE-ID
 *
 * A family matches a device when every criterion it names does: vendor id, device id in
 * an inclusive range, device name against a glob ('*', '?', case-insensitive; several
 * separated by '|'), and CPU or GPU type. No criteria match every device. A row belongs
 * to the family line above it; CLASS is a vki_wg_class name, PIXELS a range of the grid's
 * x*y (the output extent) and SLICES of its z (channel slices): "*", "N", "N-M" or "N-*".
 *
 * Lookup: the device's families are every family that matches it, in table order; the
 * answer is the first row of the first such family whose class and ranges hold the
 * dispatch. So specific families (adreno-6xx) come before general ones (adreno, gpu),
 * a family's narrow rows before its wide ones, and the last family, matching every
 * device, has a "* *" row for every class. */
#ifndef VKI_TABLE_H
#define VKI_TABLE_H

#include <stddef.h>

#include "workgroup.h"

typedef struct vki_wg_table vki_wg_table;

/* The row that answered a lookup. Strings point into the table. */
typedef struct vki_wg_row_info {
    uint32_t wg[3];             /* as written, before fitting */
    const char *family;
    const char *source;         /* the row's source id */
    const char *source_text;    /* what its source line says */
    const char *origin;         /* the text's name given to vki_wg_table_parse */
    int line;                   /* the row's line in that text */
} vki_wg_row_info;

/* Parses len bytes of text (need not end in NUL), named origin in messages, and appends
 * its sources, families and rows after those already in *table (a new table when *table
 * is NULL). Returns 1, or 0 with "ORIGIN:LINE: cause" in err (err_size bytes) and *table
 * as it was. A row's source must be defined in the same text; a family name may not
 * repeat within one text (a later text may reuse one: its rows are looked up first only
 * if it is parsed first). */
int vki_wg_table_parse(vki_wg_table **table, const char *text, size_t len, const char *origin,
                       char *err, size_t err_size);
/* The shipped table's text (tuner/wg_table.txt) and its length. */
const char *vki_wg_table_builtin_text(size_t *len);
void vki_wg_table_free(vki_wg_table *table);

/* The names of the families that match dev, in lookup order; up to cap written, the
 * count of matches returned. */
int vki_wg_table_families(const vki_wg_table *table, const vki_wg_device *dev, const char **names,
                          int cap);
/* The row for a dispatch of class c over grid on dev: 1 and *out, or 0 when no row holds
 * it. dev's table member is not used; table is. */
int vki_wg_table_lookup(const vki_wg_table *table, const vki_wg_device *dev, vki_wg_class c,
                        const uint32_t grid[3], vki_wg_row_info *out);

/* ---- export ---------------------------------------------------------------------------- */

/* One timing from a tuning run: dispatch (any id, the same for every timing of one
 * dispatch) of class cls over grid took ms with work group wg. */
typedef struct vki_wg_sample {
    int dispatch;
    vki_wg_class cls;
    uint32_t grid[3];
    uint32_t wg[3];
    double ms;
} vki_wg_sample;

typedef struct vki_wg_export_options {
    const char *family;         /* family name; required */
    const char *match;          /* its criteria as written after the name ("vendor=0x10DE") */
    const char *source;         /* source id; required */
    const char *source_text;    /* the source line's text (device, driver, date, models) */
} vki_wg_export_options;

/* The bucket scale rows are exported on: pixel ranges end at these (the last is open),
 * slice ranges likewise. */
#define VKI_WG_PIXEL_EDGES {64, 256, 1024, 4096, 16384}
#define VKI_WG_SLICE_EDGES {1, 4, 16, 64}

/* A grid's export bucket: its pixel range's index (0..5, on VKI_WG_PIXEL_EDGES) times 5
 * plus its slice range's (0..4, on VKI_WG_SLICE_EDGES). */
int vki_wg_bucket_of(const uint32_t grid[3]);

/* Table text for one family from a tuning run's timings: a source line, a family line,
 * and per class and bucket that holds a dispatch, the work group with the least total
 * time over the bucket's dispatches, among the sizes timed on every one of them (a bucket
 * with no such size gets no row). A dispatch's repeated timings of one size count by
 * their least. Rows go in class order, then by pixel and slice range; equal totals go to
 * the smaller size, then the lexicographically smaller (x, y, z). The same samples in any
 * order give the same text. Returns a malloc'd NUL-terminated string, or NULL on bad
 * options or out of memory. */
char *vki_wg_table_export(const vki_wg_sample *samples, int n, const vki_wg_export_options *o);

#endif
