/* flatbuf.h: bounds-checked reading of FlatBuffers binaries, with no generated code.
 *
 * Every offset is checked against the buffer before it is followed, so a reader built on
 * these calls cannot read outside [buf, buf + size) whatever the bytes say. Values are
 * assembled from little-endian bytes, so the caller's buffer needs no alignment; the
 * alignment that FlatBuffers guarantees relative to the buffer start is still checked,
 * as the reference verifier does, because a misaligned offset means a corrupt file.
 *
 * Calls return false on a violation and leave the reason, with the offending offset, in
 * fb->err; the caller adds what it was reading ("tensor 12 'w': shape").
 */
#ifndef VKI_FLATBUF_H
#define VKI_FLATBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct vki_fb {
    const uint8_t *buf;
    size_t size;
    char err[200];
} vki_fb;

/* A table whose vtable has been checked: every field slot lies inside the buffer. */
typedef struct vki_fb_table {
    vki_fb *fb;
    size_t pos;       /* start of the table (its soffset to the vtable) */
    size_t vtable;
    size_t vt_size;   /* bytes of the vtable, header included */
    size_t tbl_size;  /* bytes of the table's inline part */
} vki_fb_table;

/* A vector whose length has been checked: len elements of the given size fit. */
typedef struct vki_fb_vec {
    size_t data;      /* offset of element 0 */
    uint32_t len;
} vki_fb_vec;

#define VKI_FB_ERR(fb, ...) ((void)snprintf((fb)->err, sizeof (fb)->err, __VA_ARGS__), false)

static inline void vki_fb_init(vki_fb *fb, const void *buf, size_t size) {
    fb->buf = buf;
    fb->size = size;
    fb->err[0] = '\0';
}

static inline uint16_t vki_fb_rd16(const vki_fb *fb, size_t at) {
    const uint8_t *p = fb->buf + at;
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t vki_fb_rd32(const vki_fb *fb, size_t at) {
    const uint8_t *p = fb->buf + at;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t vki_fb_rd64(const vki_fb *fb, size_t at) {
    return (uint64_t)vki_fb_rd32(fb, at) | (uint64_t)vki_fb_rd32(fb, at + 4) << 32;
}

/* True when [at, at + n) lies inside the buffer; written so that nothing can wrap. */
static inline bool vki_fb_fits(const vki_fb *fb, size_t at, size_t n) {
    return at <= fb->size && n <= fb->size - at;
}

static inline bool vki_fb_table_at(vki_fb *fb, size_t pos, vki_fb_table *t) {
    /* An empty table (every field absent) until the checks pass: outputs are always set. */
    *t = (vki_fb_table){fb, 0, 0, 0, 0};
    if (!vki_fb_fits(fb, pos, 4))
        return VKI_FB_ERR(fb, "table at offset %zu is past the end of the buffer (%zu bytes)",
                          pos, fb->size);
    if (pos % 4)
        return VKI_FB_ERR(fb, "table at offset %zu is not 4-byte aligned", pos);
    /* The vtable sits at pos - soffset; do the arithmetic wide so a hostile soffset
     * cannot wrap around into the buffer. */
    int64_t vt = (int64_t)pos - (int64_t)(int32_t)vki_fb_rd32(fb, pos);
    if (vt < 0 || (uint64_t)vt > (uint64_t)fb->size || !vki_fb_fits(fb, (size_t)vt, 4))
        return VKI_FB_ERR(fb, "table at offset %zu: vtable offset %lld is outside the buffer "
                          "(%zu bytes)", pos, (long long)vt, fb->size);
    if (vt % 2)
        return VKI_FB_ERR(fb, "table at offset %zu: vtable at %lld is not 2-byte aligned",
                          pos, (long long)vt);
    size_t vts = vki_fb_rd16(fb, (size_t)vt);
    size_t tbs = vki_fb_rd16(fb, (size_t)vt + 2);
    if (vts < 4 || vts % 2 || !vki_fb_fits(fb, (size_t)vt, vts))
        return VKI_FB_ERR(fb, "table at offset %zu: vtable at %lld has bad size %zu",
                          pos, (long long)vt, vts);
    if (tbs < 4 || !vki_fb_fits(fb, pos, tbs))
        return VKI_FB_ERR(fb, "table at offset %zu: size %zu runs past the end of the "
                          "buffer (%zu bytes)", pos, tbs, fb->size);
    *t = (vki_fb_table){fb, pos, (size_t)vt, vts, tbs};
    return true;
}

/* The root table: a uoffset at byte 0. */
static inline bool vki_fb_root(vki_fb *fb, vki_fb_table *t) {
    *t = (vki_fb_table){fb, 0, 0, 0, 0};
    if (fb->size < 8)
        return VKI_FB_ERR(fb, "file is %zu bytes, too short for a FlatBuffer", fb->size);
    uint32_t off = vki_fb_rd32(fb, 0);
    if (off >= fb->size)
        return VKI_FB_ERR(fb, "root table offset %u is past the end of the buffer (%zu bytes)",
                          off, fb->size);
    return vki_fb_table_at(fb, off, t);
}

/* Finds the inline slot of field id with the given width. *at = 0 when the field is
 * absent (callers then use the schema default). */
static inline bool vki_fb_slot(const vki_fb_table *t, unsigned id, size_t width, size_t *at) {
    vki_fb *fb = t->fb;
    size_t entry = 4 + 2 * (size_t)id;
    *at = 0;
    if (entry + 2 > t->vt_size) return true;
    size_t off = vki_fb_rd16(fb, t->vtable + entry);
    if (off == 0) return true;
    if (off < 4 || off > t->tbl_size || width > t->tbl_size - off)
        return VKI_FB_ERR(fb, "table at offset %zu: field %u at +%zu lies outside the table "
                          "(%zu bytes)", t->pos, id, off, t->tbl_size);
    if ((t->pos + off) % width)
        return VKI_FB_ERR(fb, "table at offset %zu: field %u at %zu is not %zu-byte aligned",
                          t->pos, id, t->pos + off, width);
    *at = t->pos + off;
    return true;
}

static inline bool vki_fb_present(const vki_fb_table *t, unsigned id) {
    size_t entry = 4 + 2 * (size_t)id;
    return entry + 2 <= t->vt_size && vki_fb_rd16(t->fb, t->vtable + entry) != 0;
}

static inline bool vki_fb_u8(const vki_fb_table *t, unsigned id, uint8_t def, uint8_t *v) {
    size_t at;
    if (!vki_fb_slot(t, id, 1, &at)) return false;
    *v = at ? t->fb->buf[at] : def;
    return true;
}

static inline bool vki_fb_i8(const vki_fb_table *t, unsigned id, int8_t def, int8_t *v) {
    uint8_t u;
    if (!vki_fb_u8(t, id, (uint8_t)def, &u)) return false;
    *v = (int8_t)u;
    return true;
}

static inline bool vki_fb_u32(const vki_fb_table *t, unsigned id, uint32_t def, uint32_t *v) {
    size_t at;
    if (!vki_fb_slot(t, id, 4, &at)) return false;
    *v = at ? vki_fb_rd32(t->fb, at) : def;
    return true;
}

static inline bool vki_fb_i32(const vki_fb_table *t, unsigned id, int32_t def, int32_t *v) {
    uint32_t u;
    if (!vki_fb_u32(t, id, (uint32_t)def, &u)) return false;
    *v = (int32_t)u;
    return true;
}

static inline bool vki_fb_u64(const vki_fb_table *t, unsigned id, uint64_t def, uint64_t *v) {
    size_t at;
    if (!vki_fb_slot(t, id, 8, &at)) return false;
    *v = at ? vki_fb_rd64(t->fb, at) : def;
    return true;
}

/* Follows the uoffset stored at `at` (already known to be inside the buffer). */
static inline bool vki_fb_deref(vki_fb *fb, size_t at, size_t *target) {
    *target = 0;
    uint32_t off = vki_fb_rd32(fb, at);
    if (off == 0 || off > fb->size - at)
        return VKI_FB_ERR(fb, "offset %u at %zu points outside the buffer (%zu bytes)",
                          off, at, fb->size);
    *target = at + off;
    return true;
}

/* Checks a vector whose length prefix is at vpos. */
static inline bool vki_fb_vec_at(vki_fb *fb, size_t vpos, size_t elem, vki_fb_vec *v) {
    *v = (vki_fb_vec){0, 0};
    if (!vki_fb_fits(fb, vpos, 4))
        return VKI_FB_ERR(fb, "vector at offset %zu is past the end of the buffer (%zu bytes)",
                          vpos, fb->size);
    if (vpos % 4)
        return VKI_FB_ERR(fb, "vector at offset %zu is not 4-byte aligned", vpos);
    uint32_t len = vki_fb_rd32(fb, vpos);
    size_t data = vpos + 4;
    if (elem > 4 && data % elem)
        return VKI_FB_ERR(fb, "vector at offset %zu: elements are not %zu-byte aligned",
                          vpos, elem);
    if ((uint64_t)len > (uint64_t)((fb->size - data) / elem))
        return VKI_FB_ERR(fb, "vector at offset %zu: length %u x %zu bytes runs past the end "
                          "of the buffer (%zu bytes)", vpos, len, elem, fb->size);
    *v = (vki_fb_vec){data, len};
    return true;
}

/* Optional sub-table field; *present tells whether it was there. */
static inline bool vki_fb_table_field(const vki_fb_table *t, unsigned id, vki_fb_table *sub,
                                      bool *present) {
    size_t at, target;
    *present = false;
    *sub = (vki_fb_table){t->fb, 0, 0, 0, 0};
    if (!vki_fb_slot(t, id, 4, &at)) return false;
    if (!at) return true;
    if (!vki_fb_deref(t->fb, at, &target) || !vki_fb_table_at(t->fb, target, sub)) return false;
    *present = true;
    return true;
}

/* Optional vector field; an absent vector reads as empty. */
static inline bool vki_fb_vec_field(const vki_fb_table *t, unsigned id, size_t elem,
                                    vki_fb_vec *v) {
    size_t at, target;
    *v = (vki_fb_vec){0, 0};
    if (!vki_fb_slot(t, id, 4, &at)) return false;
    if (!at) return true;
    return vki_fb_deref(t->fb, at, &target) && vki_fb_vec_at(t->fb, target, elem, v);
}

/* Optional string field: a byte vector followed by a NUL inside the buffer, so the
 * returned pointer is a C string (it may hold an earlier NUL; that only shortens it).
 * An absent string reads as "". */
static inline bool vki_fb_string_field(const vki_fb_table *t, unsigned id, const char **s,
                                       uint32_t *len) {
    vki_fb *fb = t->fb;
    vki_fb_vec v;
    *s = "";
    *len = 0;
    if (!vki_fb_vec_field(t, id, 1, &v)) return false;
    if (!vki_fb_present(t, id)) return true;
    if (!vki_fb_fits(fb, v.data, (size_t)v.len + 1))
        return VKI_FB_ERR(fb, "string at offset %zu: length %u leaves no room for its NUL",
                          v.data - 4, v.len);
    if (fb->buf[v.data + v.len] != 0)
        return VKI_FB_ERR(fb, "string at offset %zu (length %u) is not NUL-terminated",
                          v.data - 4, v.len);
    *s = (const char *)fb->buf + v.data;
    *len = v.len;
    return true;
}

static inline int32_t vki_fb_vec_i32(const vki_fb *fb, const vki_fb_vec *v, uint32_t i) {
    return (int32_t)vki_fb_rd32(fb, v->data + 4 * (size_t)i);
}

/* Element i of a vector of tables (each element a uoffset). */
static inline bool vki_fb_vec_table(vki_fb *fb, const vki_fb_vec *v, uint32_t i,
                                    vki_fb_table *t) {
    size_t target;
    return vki_fb_deref(fb, v->data + 4 * (size_t)i, &target) &&
           vki_fb_table_at(fb, target, t);
}

#endif /* VKI_FLATBUF_H */
