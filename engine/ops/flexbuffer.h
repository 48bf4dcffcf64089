/* flexbuffer.h: a bounds-checked reader of FlexBuffers, the schemaless format of
 * flatbuffers that custom ops (TFLite_Detection_PostProcess) keep their custom_options in.
 *
 * Enough of the format for options: the root, a map's value by key, and a value as a
 * number or a bool, read as flexbuffers' own Reference::AsInt64 / AsDouble / AsBool read
 * them (so as TFLite's kernels see them). Every read is checked against the buffer: a
 * malformed buffer gives a message, never a read outside it. A value is located by
 * offsets into the caller's buffer, which must outlive it.
 *
 * The format, in short: a value is stored in a slot of its parent's byte width (1, 2, 4 or
 * 8) with a packed type byte (type << 2 | log2 of a width) kept beside it; the root's slot
 * ends the buffer, followed by its packed type and its slot's width. Scalars (INT, UINT,
 * FLOAT, BOOL, NULL) sit in the slot; everything else is an unsigned offset back from the
 * slot to the data, whose own elements have the packed type's width. A map's data: [offset
 * back to its keys vector][that vector's width][count] then the values, then one packed
 * type byte a value; keys vector: [count] then offsets back to 0-terminated keys, sorted
 * (strcmp order).
 */
#ifndef VKI_FLEXBUFFER_H
#define VKI_FLEXBUFFER_H

#include "vkinfer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* FlexBuffers' value types (flexbuffers::Type), the ones this reader tells apart. */
enum {
    VKI_FLEX_NULL = 0,
    VKI_FLEX_INT = 1,
    VKI_FLEX_UINT = 2,
    VKI_FLEX_FLOAT = 3,
    VKI_FLEX_KEY = 4,
    VKI_FLEX_STRING = 5,
    VKI_FLEX_INDIRECT_INT = 6,
    VKI_FLEX_INDIRECT_UINT = 7,
    VKI_FLEX_INDIRECT_FLOAT = 8,
    VKI_FLEX_MAP = 9,
    VKI_FLEX_VECTOR = 10,
    VKI_FLEX_BLOB = 25,
    VKI_FLEX_BOOL = 26,
};

/* One value: where its slot is and how to read it. */
typedef struct vki_flex {
    const uint8_t *buf;
    size_t size;
    size_t at;              /* offset of the value's slot in buf */
    uint8_t slot_width;     /* bytes of the slot: the parent's width */
    uint8_t width;          /* the packed type's width: of the data an offset leads to */
    uint8_t type;           /* VKI_FLEX_* (or another flexbuffers type) */
} vki_flex;

/* Each function returns NULL on success, or a short description of what is malformed
 * ("offset 812 points outside the 64-byte buffer") for the caller's message. */

/* The root value of size bytes at buf. */
const char *vki_flex_root(const uint8_t *buf, size_t size, vki_flex *root);
/* Map `map`'s value for `key`; a value of type VKI_FLEX_NULL where the map has no such
 * key (as flexbuffers' Map::operator[]). Fails where map is not a map. */
const char *vki_flex_map_get(const vki_flex *map, const char *key, vki_flex *value);
/* The value as AsInt64: INT, UINT, FLOAT (truncated toward zero; out of int64's range
 * fails), their INDIRECT forms, BOOL (0 / 1) and NULL (0); other types fail. */
const char *vki_flex_int(const vki_flex *v, int64_t *out);
/* The value as AsDouble: the same types (INT and UINT converted, NULL 0). */
const char *vki_flex_double(const vki_flex *v, double *out);
/* The value as AsBool: a BOOL's slot nonzero, or the number (as an integer) nonzero. */
const char *vki_flex_bool(const vki_flex *v, bool *out);
/* "int", "float", "map", ... for messages. */
const char *vki_flex_type_name(int type);

/* ---- a custom op's options (ops.h's reader) ------------------------------------------ */
struct vki_options_reader;
/* The op's custom_options as the root map of a FlexBuffer; `missing` says, for the message,
 * why the op needs them ("has no custom_options (<missing>)"). */
vki_status vki_flex_opt_root(struct vki_options_reader *r, const char *missing, vki_flex *root);
/* "<op>: custom_options (FlexBuffer) key '<key>': <err>" (key NULL: the buffer itself). */
vki_status vki_flex_opt_fail(struct vki_options_reader *r, const char *key, const char *err);
/* Key `key` of `map` as flexbuffers' AsInt32 (`def` where absent), refusing what int32
 * cannot hold (AsInt32 would wrap it); as AsFloat (0 where absent). */
vki_status vki_flex_opt_i32(struct vki_options_reader *r, const vki_flex *map, const char *key,
                            int32_t def, int32_t *out);
vki_status vki_flex_opt_f32(struct vki_options_reader *r, const vki_flex *map, const char *key,
                            float *out);

#endif /* VKI_FLEXBUFFER_H */
