/* flexbuffer.c: the FlexBuffers reader of flexbuffer.h. Every read goes through
 * read_bits(), which checks the slot lies inside the buffer, and every offset is checked
 * to lead back into it before it is followed; counts are checked against the bytes they
 * would cover before they are multiplied. */
#include "flexbuffer.h"

#include "ops.h"

#include <math.h>
#include <string.h>

static bool valid_width(unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* The `width` little-endian bytes at `at`, zero-extended; false where they are not all
 * inside the buffer (or width is not 1, 2, 4 or 8). */
static bool read_bits(const uint8_t *buf, size_t size, size_t at, unsigned width, uint64_t *v) {
    if (!valid_width(width) || at > size || size - at < width) return false;
    uint64_t x = 0;
    for (unsigned i = 0; i < width; i++) x |= (uint64_t)buf[at + i] << (8 * i);
    *v = x;
    return true;
}

static int64_t sign_extend(uint64_t x, unsigned width) {
    if (width == 8) return (int64_t)x;
    const uint64_t sign = (uint64_t)1 << (8 * width - 1);
    return (int64_t)((x ^ sign) - sign);
}

/* flexbuffers' ReadDouble: 4 bytes a float, 8 a double, and (its placeholder for the
 * narrow widths no writer uses for floats) 1 or 2 bytes a signed integer. */
static double bits_to_double(uint64_t x, unsigned width) {
    if (width == 8) {
        double d;
        memcpy(&d, &x, sizeof d);
        return d;
    }
    if (width == 4) {
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    return (double)sign_extend(x, width);
}

const char *vki_flex_type_name(int type) {
    static const char *const names[] = {
        "null", "int", "uint", "float", "key", "string", "indirect int", "indirect uint",
        "indirect float", "map", "vector", "int vector", "uint vector", "float vector",
        "key vector", "string vector", "int[2]", "uint[2]", "float[2]", "int[3]", "uint[3]",
        "float[3]", "int[4]", "uint[4]", "float[4]", "blob", "bool",
    };
    if (type >= 0 && type < (int)(sizeof names / sizeof names[0])) return names[type];
    return type == 36 ? "bool vector" : "unknown";
}

const char *vki_flex_root(const uint8_t *buf, size_t size, vki_flex *root) {
    memset(root, 0, sizeof *root);
    if (!buf || size < 3) return "shorter than a FlexBuffer's root (3 bytes)";
    const unsigned width = buf[size - 1];
    const uint8_t packed = buf[size - 2];
    if (!valid_width(width)) return "the root's byte width is not 1, 2, 4 or 8";
    if (size - 2 < width) return "the root's slot runs past the start of the buffer";
    root->buf = buf;
    root->size = size;
    root->at = size - 2 - width;
    root->slot_width = (uint8_t)width;
    root->width = (uint8_t)(1u << (packed & 3));
    root->type = (uint8_t)(packed >> 2);
    return NULL;
}

/* Where v's offset leads (flexbuffers' Indirect()): its slot's value back from the slot. */
static const char *indirect(const vki_flex *v, size_t *target) {
    uint64_t off;
    if (!read_bits(v->buf, v->size, v->at, v->slot_width, &off))
        return "a value's slot lies outside the buffer";
    if (off > v->at) return "an offset points before the start of the buffer";
    *target = v->at - (size_t)off;
    return NULL;
}

/* The count stored `width` bytes before `data` (a vector's, a map's, a key vector's). */
static const char *count_before(const vki_flex *v, size_t data, unsigned width, uint64_t *n) {
    if (data < width || !read_bits(v->buf, v->size, data - width, width, n))
        return "a vector's size lies outside the buffer";
    /* The elements (and a map's type bytes) must fit in what follows. */
    if (*n > (v->size - data) / width) return "a vector's size runs past the end of the buffer";
    return NULL;
}

/* strcmp of `key` against the 0-terminated key at `at`; *err is set where it has no
 * terminator inside the buffer. */
static int compare_key(const vki_flex *v, const char *key, size_t at, const char **err) {
    if (at >= v->size || !memchr(v->buf + at, 0, v->size - at)) {
        *err = "a key runs past the end of the buffer";
        return 0;
    }
    return strcmp(key, (const char *)(v->buf + at));
}

const char *vki_flex_map_get(const vki_flex *map, const char *key, vki_flex *value) {
    memset(value, 0, sizeof *value);
    value->buf = map->buf;
    value->size = map->size;
    value->slot_width = value->width = 1;
    value->type = VKI_FLEX_NULL;
    if (map->type != VKI_FLEX_MAP) return "not a map";
    size_t data;
    const char *err = indirect(map, &data);
    if (err) return err;
    const unsigned w = map->width;
    uint64_t n, keys_width, keys_off;
    if ((err = count_before(map, data, w, &n))) return err;
    /* The values are followed by a type byte each. */
    if (n > (map->size - data) / (w + 1))
        return "a map's type bytes run past the end of the buffer";
    if (data < 3 * (size_t)w || !read_bits(map->buf, map->size, data - 2 * w, w, &keys_width) ||
        !read_bits(map->buf, map->size, data - 3 * w, w, &keys_off))
        return "a map's keys vector reference lies outside the buffer";
    if (!valid_width((unsigned)keys_width)) return "a map's keys width is not 1, 2, 4 or 8";
    if (keys_off > data - 3 * (size_t)w) return "a map's keys offset points before the buffer";
    const size_t keys = data - 3 * (size_t)w - (size_t)keys_off;
    const unsigned kw = (unsigned)keys_width;
    uint64_t n_keys;
    if ((err = count_before(map, keys, kw, &n_keys))) return err;
    /* Binary search over the sorted keys, as flexbuffers' Map::operator[] (bsearch). */
    size_t lo = 0, hi = (size_t)n_keys;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2, slot = keys + mid * kw;
        uint64_t off;
        if (!read_bits(map->buf, map->size, slot, kw, &off))
            return "a key's slot lies outside the buffer";
        if (off > slot) return "a key's offset points before the start of the buffer";
        const int c = compare_key(map, key, slot - (size_t)off, &err);
        if (err) return err;
        if (c == 0) {
            if (mid >= n) return NULL;   /* beyond the values: null, as flexbuffers */
            value->at = data + mid * w;
            value->slot_width = (uint8_t)w;
            const uint8_t packed = map->buf[data + (size_t)n * w + mid];
            value->width = (uint8_t)(1u << (packed & 3));
            value->type = (uint8_t)(packed >> 2);
            return NULL;
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return NULL;
}

/* A scalar's bits: in its slot (INT, UINT, FLOAT, BOOL) or where its offset leads
 * (INDIRECT_*), with their width. */
static const char *scalar_bits(const vki_flex *v, uint64_t *bits, unsigned *width) {
    size_t at = v->at;
    unsigned w = v->slot_width;
    if (v->type == VKI_FLEX_INDIRECT_INT || v->type == VKI_FLEX_INDIRECT_UINT ||
        v->type == VKI_FLEX_INDIRECT_FLOAT) {
        const char *err = indirect(v, &at);
        if (err) return err;
        w = v->width;
    }
    if (!read_bits(v->buf, v->size, at, w, bits)) return "a value lies outside the buffer";
    *width = w;
    return NULL;
}

const char *vki_flex_double(const vki_flex *v, double *out) {
    *out = 0.0;
    if (v->type == VKI_FLEX_NULL) return NULL;
    uint64_t bits;
    unsigned w;
    switch (v->type) {
    case VKI_FLEX_INT: case VKI_FLEX_INDIRECT_INT:
    case VKI_FLEX_UINT: case VKI_FLEX_INDIRECT_UINT:
    case VKI_FLEX_FLOAT: case VKI_FLEX_INDIRECT_FLOAT:
    case VKI_FLEX_BOOL:
        break;
    default:
        return "not a number";
    }
    const char *err = scalar_bits(v, &bits, &w);
    if (err) return err;
    switch (v->type) {
    case VKI_FLEX_INT: case VKI_FLEX_INDIRECT_INT: *out = (double)sign_extend(bits, w); break;
    case VKI_FLEX_FLOAT: case VKI_FLEX_INDIRECT_FLOAT: *out = bits_to_double(bits, w); break;
    default: *out = (double)bits; break;   /* UINT, BOOL */
    }
    return NULL;
}

const char *vki_flex_int(const vki_flex *v, int64_t *out) {
    *out = 0;
    if (v->type == VKI_FLEX_NULL) return NULL;
    uint64_t bits;
    unsigned w;
    const char *err;
    switch (v->type) {
    case VKI_FLEX_INT: case VKI_FLEX_INDIRECT_INT: case VKI_FLEX_BOOL:
        if ((err = scalar_bits(v, &bits, &w))) return err;
        *out = sign_extend(bits, w);
        return NULL;
    case VKI_FLEX_UINT: case VKI_FLEX_INDIRECT_UINT:
        if ((err = scalar_bits(v, &bits, &w))) return err;
        *out = (int64_t)bits;
        return NULL;
    case VKI_FLEX_FLOAT: case VKI_FLEX_INDIRECT_FLOAT: {
        double d;
        if ((err = vki_flex_double(v, &d))) return err;
        /* Truncated as a C++ cast truncates; where that cast is undefined, malformed. */
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
            return "a float out of the integers' range";
        *out = (int64_t)d;
        return NULL;
    }
    default:
        return "not a number";
    }
}

const char *vki_flex_bool(const vki_flex *v, bool *out) {
    *out = false;
    if (v->type == VKI_FLEX_FLOAT || v->type == VKI_FLEX_INDIRECT_FLOAT) {
        /* AsUInt64 truncates toward zero: true from a magnitude of 1. */
        double d;
        const char *err = vki_flex_double(v, &d);
        if (!err) *out = fabs(d) >= 1.0;
        return err;
    }
    int64_t i;
    const char *err = vki_flex_int(v, &i);
    if (!err) *out = i != 0;
    return err;
}

/* ---- a custom op's options ------------------------------------------------------------ */

vki_status vki_flex_opt_root(vki_options_reader *r, const char *missing, vki_flex *root) {
    const uint8_t *data;
    size_t size;
    vki_status s = vki_opt_custom(r, &data, &size);
    if (s) return s;
    if (!size) return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "has no custom_options (%s)", missing);
    const char *err = vki_flex_root(data, size, root);
    if (err) return vki_flex_opt_fail(r, NULL, err);
    if (root->type != VKI_FLEX_MAP)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options: the FlexBuffer root is of "
                            "type %s, not a map", vki_flex_type_name(root->type));
    return VKI_OK;
}

vki_status vki_flex_opt_fail(vki_options_reader *r, const char *key, const char *err) {
    if (!key) return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options (FlexBuffer): %s", err);
    return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options (FlexBuffer) key '%s': %s",
                        key, err);
}

vki_status vki_flex_opt_i32(vki_options_reader *r, const vki_flex *map, const char *key,
                            int32_t def, int32_t *out) {
    vki_flex v;
    int64_t x;
    const char *err = vki_flex_map_get(map, key, &v);
    if (!err && v.type == VKI_FLEX_NULL) {
        *out = def;
        return VKI_OK;
    }
    if (!err) err = vki_flex_int(&v, &x);
    if (err) return vki_flex_opt_fail(r, key, err);
    if (x < INT32_MIN || x > INT32_MAX)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options key '%s' = %lld is out of "
                            "the int32 range", key, (long long)x);
    *out = (int32_t)x;
    return VKI_OK;
}

vki_status vki_flex_opt_f32(vki_options_reader *r, const vki_flex *map, const char *key,
                            float *out) {
    vki_flex v;
    double x;
    const char *err = vki_flex_map_get(map, key, &v);
    if (!err) err = vki_flex_double(&v, &x);
    if (err) return vki_flex_opt_fail(r, key, err);
    *out = (float)x;
    return VKI_OK;
}
