/* tflite_loader.c: .tflite bytes to the IR of model.h, the load-time constant folding
 * (sparse densify, DENSIFY and float16 DEQUANTIZE), and the public vki_model_load_file /
 * vki_model_load_memory.
 *
 * The FlatBuffer is read through flatbuf.h, which checks every offset before use; this
 * file adds the TFLite schema on top (field ids from tensorflow/lite/schema/schema.fbs)
 * and the semantic checks a reader needs before trusting a value as an index or a size.
 * Constant data is assumed little-endian on the host, as TFLite itself assumes.
 */
#include "loader.h"
#include "half.h"

#include "flatbuf.h"
#include "tflite_ops.h"
#include "../ops/int8.h"
#include "../ops/ops.h"
#include "status.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TFLITE_SCHEMA_VERSION 3

/* Field ids (declaration order in schema.fbs). */
enum { MODEL_VERSION = 0, MODEL_OPCODES = 1, MODEL_SUBGRAPHS = 2, MODEL_BUFFERS = 4,
       MODEL_SIGNATURE_DEFS = 7 };
enum { SIG_INPUTS = 0, SIG_OUTPUTS = 1, SIG_KEY = 2, SIG_SUBGRAPH = 4 };
enum { TENSORMAP_NAME = 0, TENSORMAP_INDEX = 1 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
       TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5, TENSOR_SPARSITY = 6,
       TENSOR_SHAPE_SIGNATURE = 7 };
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DIMENSION = 6 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { SPARSE_TRAVERSAL = 0, SPARSE_BLOCK_MAP = 1, SPARSE_DIM_METADATA = 2 };
enum { DIM_FORMAT = 0, DIM_DENSE_SIZE = 1, DIM_SEGMENTS_TYPE = 2, DIM_SEGMENTS = 3,
       DIM_INDICES_TYPE = 4, DIM_INDICES = 5 };
enum { OPCODE_DEPRECATED = 0, OPCODE_CUSTOM = 1, OPCODE_BUILTIN = 3 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3,
       OP_OPTIONS = 4, OP_CUSTOM_OPTIONS = 5, OP_LARGE_CUSTOM_OFFSET = 9,
       OP_LARGE_CUSTOM_SIZE = 10 };

/* TensorType values that are not in vki_dtype. */
enum { TT_STRING = 5, TT_INT16 = 7, TT_COMPLEX64 = VKI_DTYPE_COMPLEX64, TT_FLOAT64 = 10,
       TT_COMPLEX128 = 11, TT_UINT64 = 12, TT_UINT32 = 15, TT_UINT16 = 16, TT_BFLOAT16 = 18 };

#define ACT_SIGN_BIT 5

typedef struct opcode_entry {
    int32_t code;
    char custom[sizeof(((vki_op *)0)->custom_name)];
} opcode_entry;

typedef struct loader {
    vki_fb fb;
    const char *name;
    vki_model *m;
    vki_fb_vec buffers;
    opcode_entry *opcodes;
    uint32_t n_opcodes;
    /* Several tensors may share one buffer and each gets its own copy, and a sparse
     * tensor expands when densified; capping the total keeps a small hostile file from
     * asking for gigabytes. */
    uint64_t const_bytes, const_limit;
    uint32_t sg;                /* the subgraph read */
} loader;

/* ---- errors ------------------------------------------------------------------------- */

static vki_status failv(loader *L, vki_status st, bool with_fb, const char *fmt, va_list ap) {
    char what[640];
    vsnprintf(what, sizeof what, fmt, ap);
    if (with_fb) return vki_fail(st, "%s: %s: %s", L->name, what, L->fb.err);
    return vki_fail(st, "%s: %s", L->name, what);
}

/* A semantic error: the message is the caller's. */
static vki_status bad(loader *L, vki_status st, const char *fmt, ...) VKI_PRINTF(3, 4);
static vki_status bad(loader *L, vki_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vki_status r = failv(L, st, false, fmt, ap);
    va_end(ap);
    return r;
}

/* A FlatBuffer structure error: the caller says what was being read, flatbuf.h why. */
static vki_status bad_fb(loader *L, const char *fmt, ...) VKI_PRINTF(2, 3);
static vki_status bad_fb(loader *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vki_status r = failv(L, VKI_ERROR_MODEL_FORMAT, true, fmt, ap);
    va_end(ap);
    return r;
}

static vki_status oom(loader *L, const char *what) {
    char where[256];
    snprintf(where, sizeof where, "%s: reading %s", L->name, what);
    return vki_fail_oom(where);
}

typedef struct label { char s[128]; } label;

static label tensor_label(uint32_t i, const char *name) {
    label l;
    snprintf(l.s, sizeof l.s, "tensor %u '%.64s'", i, name);
    return l;
}

static label op_label(uint32_t i, int32_t code, const char *custom) {
    label l;
    const char *n = vki_op_name(code);
    if (code == VKI_OP_CUSTOM) snprintf(l.s, sizeof l.s, "op %u CUSTOM '%.64s'", i, custom);
    else if (strcmp(n, "UNKNOWN") == 0)
        snprintf(l.s, sizeof l.s, "op %u (builtin code %d)", i, code);
    else snprintf(l.s, sizeof l.s, "op %u %s", i, n);
    return l;
}

/* ---- fp16 --------------------------------------------------------------------------- */

/* Converts n little-endian fp16 values into a new float32 array. */
static float *half_array_to_float(const void *src, size_t n) {
    float *dst = vki_malloc(n ? n * sizeof(float) : 1);
    if (!dst) return NULL;
    const uint8_t *p = src;
    for (size_t i = 0; i < n; i++) dst[i] = vki_half_to_float((uint16_t)(p[2 * i] | p[2 * i + 1] << 8));
    return dst;
}

/* ---- tensors ------------------------------------------------------------------------ */

static vki_dtype map_dtype(int8_t type) {
    switch (type) {
    case VKI_DTYPE_FLOAT32: case VKI_DTYPE_FLOAT16: case VKI_DTYPE_INT32:
    case VKI_DTYPE_UINT8: case VKI_DTYPE_INT64: case VKI_DTYPE_INT8: case VKI_DTYPE_BOOL:
    case VKI_DTYPE_RESOURCE: case VKI_DTYPE_COMPLEX64:
        return (vki_dtype)type;
    }
    return VKI_DTYPE_OTHER;
}

/* Bytes per element, or 0 where the size is not fixed (strings, resources, int4). */
static size_t type_size(int8_t type) {
    switch (type) {
    case VKI_DTYPE_UINT8: case VKI_DTYPE_INT8: case VKI_DTYPE_BOOL: return 1;
    case VKI_DTYPE_FLOAT16: case TT_INT16: case TT_UINT16: case TT_BFLOAT16: return 2;
    case VKI_DTYPE_FLOAT32: case VKI_DTYPE_INT32: case TT_UINT32: return 4;
    case VKI_DTYPE_INT64: case TT_FLOAT64: case TT_COMPLEX64: case TT_UINT64: return 8;
    case TT_COMPLEX128: return 16;
    }
    return 0;
}

static vki_status read_shape(loader *L, const vki_fb_table *t, const label *lb,
                             vki_tensor *out, uint64_t *elements) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(t, TENSOR_SHAPE, 4, &v)) return bad_fb(L, "%s: shape", lb->s);
    if (v.len > VKI_MAX_RANK)
        return bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "%s: rank %u exceeds the maximum of %d",
                   lb->s, v.len, VKI_MAX_RANK);
    uint64_t n = 1;
    out->rank = (int)v.len;
    for (uint32_t d = 0; d < v.len; d++) {
        int32_t dim = vki_fb_vec_i32(&L->fb, &v, d);
        if (dim < 0)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: negative shape dimension %d at axis %u",
                       lb->s, dim, d);
        out->shape[d] = dim;
        n *= (uint64_t)dim;          /* cannot wrap: n <= INT32_MAX before each step */
        if (n > INT32_MAX)
            return bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "%s: shape has more than %d elements",
                       lb->s, INT32_MAX);
    }
    *elements = n;
    /* shape_signature: -1 marks a dimension of any size (the shape holds the size the
     * converter wrote, usually 1); one of another rank is ignored, as TFLite does. */
    if (vki_fb_vec_field(t, TENSOR_SHAPE_SIGNATURE, 4, &v) && v.len == (uint32_t)out->rank)
        for (uint32_t d = 0; d < v.len; d++)
            if (vki_fb_vec_i32(&L->fb, &v, d) == -1) out->dynamic_dims |= 1u << d;
    return VKI_OK;
}

/* Finds the bytes of buffer `index`: inline data, or the large-model form where the
 * buffer gives an offset and size relative to the start of the file. */
static vki_status buffer_bytes(loader *L, const label *lb, uint32_t index,
                               const uint8_t **data, size_t *bytes) {
    vki_fb_table bt;
    vki_fb_vec v;
    uint64_t off, size;
    *data = NULL;
    *bytes = 0;
    if (!vki_fb_vec_table(&L->fb, &L->buffers, index, &bt))
        return bad_fb(L, "%s: buffer %u", lb->s, index);
    if (!vki_fb_vec_field(&bt, BUFFER_DATA, 1, &v) || !vki_fb_u64(&bt, BUFFER_OFFSET, 0, &off) ||
        !vki_fb_u64(&bt, BUFFER_SIZE, 0, &size))
        return bad_fb(L, "%s: buffer %u", lb->s, index);
    if (v.len > 0) {
        *data = L->fb.buf + v.data;
        *bytes = v.len;
        return VKI_OK;
    }
    /* TFLite treats offset 0 and 1 as "no external data". */
    if (off <= 1 || size == 0) return VKI_OK;
    if (off > L->fb.size || size > L->fb.size - off)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: buffer %u: data at offset %llu size %llu "
                   "runs past the end of the file (%zu bytes)", lb->s, index,
                   (unsigned long long)off, (unsigned long long)size, L->fb.size);
    *data = L->fb.buf + off;
    *bytes = (size_t)size;
    return VKI_OK;
}

/* Counts bytes about to be copied against the file's constant budget. */
static vki_status charge(loader *L, const label *lb, uint64_t bytes) {
    L->const_bytes += bytes;
    if (L->const_bytes > L->const_limit)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: constant data totals more than %llu bytes "
                   "(buffers shared too often, or a sparse tensor too sparse)", lb->s,
                   (unsigned long long)L->const_limit);
    return VKI_OK;
}

/* ---- sparse constants ----------------------------------------------------------------
 * TFLite's sparse format (SparsityParameters): the dense shape's n dims, k of them split
 * into blocks, are traversed in traversal_order over n + k levels; each level is DENSE
 * (every index in turn) or SPARSE_CSR (segments[p]..segments[p+1] of indices for parent
 * position p). Values are stored in traversal order. The loader densifies at read time,
 * so the IR only ever holds dense constants and a DENSIFY of a constant folds away.
 * Every count is checked against the file before the walk, which therefore does work
 * bounded by the file size and the dense size. */

#define SPARSE_MAX_LEVELS (2 * VKI_MAX_RANK)

typedef struct index_vec {
    vki_fb_vec v;
    unsigned width;             /* 4, 2 or 1 bytes per entry */
} index_vec;

typedef struct sparse_level {
    bool csr;
    uint32_t size;              /* extent of the traversed (possibly blocked) dim */
    index_vec segments, indices;
} sparse_level;

typedef struct sparse_plan {
    int rank, n_levels, n_blocks;
    const int *shape;
    int block_map[VKI_MAX_RANK];
    int block_size[VKI_MAX_RANK];
    int level_of[SPARSE_MAX_LEVELS];    /* which level traverses dim d (n + b: block b) */
    sparse_level lv[SPARSE_MAX_LEVELS];
} sparse_plan;

static int64_t index_at(const vki_fb *fb, const index_vec *iv, uint32_t i) {
    size_t at = iv->v.data + (size_t)i * iv->width;
    if (iv->width == 4) return (int32_t)vki_fb_rd32(fb, at);
    if (iv->width == 2) return vki_fb_rd16(fb, at);
    return fb->buf[at];
}

/* A SparseIndexVector union: Int32Vector (1), Uint16Vector (2) or Uint8Vector (3), each a
 * table whose field 0 is the values vector. */
static vki_status read_index_vec(loader *L, const vki_fb_table *dm, unsigned type_field,
                                 const label *lb, int level, const char *what, index_vec *iv) {
    static const unsigned widths[4] = {0, 4, 2, 1};
    uint8_t type;
    vki_fb_table t;
    bool present;
    if (!vki_fb_u8(dm, type_field, 0, &type) || !vki_fb_table_field(dm, type_field + 1, &t, &present))
        return bad_fb(L, "%s: sparsity level %d: %s", lb->s, level, what);
    if (type < 1 || type > 3 || !present)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: %s has type %u, need "
                   "an index vector", lb->s, level, what, type);
    iv->width = widths[type];
    if (!vki_fb_vec_field(&t, 0, iv->width, &iv->v))
        return bad_fb(L, "%s: sparsity level %d: %s", lb->s, level, what);
    return VKI_OK;
}

/* Checks that traversal_order lists the n dims and then the k block dims, once each. */
static vki_status read_traversal(loader *L, const vki_fb_table *sp, const label *lb,
                                 sparse_plan *p) {
    vki_fb_vec order, blocks;
    if (!vki_fb_vec_field(sp, SPARSE_TRAVERSAL, 4, &order) ||
        !vki_fb_vec_field(sp, SPARSE_BLOCK_MAP, 4, &blocks))
        return bad_fb(L, "%s: sparsity", lb->s);
    if (blocks.len > (uint32_t)p->rank || order.len != (uint32_t)p->rank + blocks.len)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity: traversal_order has %u entries "
                   "for rank %d with %u block dims", lb->s, order.len, p->rank, blocks.len);
    p->n_blocks = (int)blocks.len;
    p->n_levels = (int)order.len;
    for (int d = 0; d < p->n_levels; d++) p->level_of[d] = -1;
    for (int l = 0; l < p->n_levels; l++) {
        int32_t d = vki_fb_vec_i32(&L->fb, &order, (uint32_t)l);
        bool ok = l < p->rank ? d >= 0 && d < p->rank : d >= p->rank && d < p->n_levels;
        if (!ok || p->level_of[d] >= 0)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity: traversal_order[%d] = %d is "
                       "invalid or repeated", lb->s, l, d);
        p->level_of[d] = l;
    }
    for (int b = 0; b < p->n_blocks; b++) {
        int32_t d = vki_fb_vec_i32(&L->fb, &blocks, (uint32_t)b);
        if (d < 0 || d >= p->rank || (b > 0 && d <= p->block_map[b - 1]))
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity: block_map[%d] = %d is invalid "
                       "(need increasing dims below %d)", lb->s, b, d, p->rank);
        p->block_map[b] = d;
    }
    return VKI_OK;
}

/* Reads each level's format and sizes; block sizes come from the dense block levels. */
static vki_status read_levels(loader *L, const vki_fb_table *sp, const label *lb,
                              sparse_plan *p) {
    vki_fb_vec dims;
    int32_t dense_size[SPARSE_MAX_LEVELS];
    if (!vki_fb_vec_field(sp, SPARSE_DIM_METADATA, 4, &dims))
        return bad_fb(L, "%s: sparsity: dim_metadata", lb->s);
    if (dims.len != (uint32_t)p->n_levels)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity: %u dim_metadata entries for %d "
                   "levels", lb->s, dims.len, p->n_levels);
    for (int l = 0; l < p->n_levels; l++) {
        vki_fb_table dm;
        int8_t format;
        if (!vki_fb_vec_table(&L->fb, &dims, (uint32_t)l, &dm) ||
            !vki_fb_i8(&dm, DIM_FORMAT, 0, &format) ||
            !vki_fb_i32(&dm, DIM_DENSE_SIZE, 0, &dense_size[l]))
            return bad_fb(L, "%s: sparsity level %d", lb->s, l);
        if (format != 0 && format != 1)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: unknown format %d",
                       lb->s, l, format);
        sparse_level *lv = &p->lv[l];
        lv->csr = format == 1;
        vki_status st = VKI_OK;
        if (lv->csr) st = read_index_vec(L, &dm, DIM_SEGMENTS_TYPE, lb, l, "array_segments",
                                         &lv->segments);
        if (lv->csr && st == VKI_OK)
            st = read_index_vec(L, &dm, DIM_INDICES_TYPE, lb, l, "array_indices", &lv->indices);
        if (st != VKI_OK) return st;
    }
    int blocked[VKI_MAX_RANK];
    for (int d = 0; d < p->rank; d++) blocked[d] = p->shape[d];
    for (int b = 0; b < p->n_blocks; b++) {
        int l = p->level_of[p->rank + b], d = p->block_map[b];
        int32_t bs = dense_size[l];
        if (p->lv[l].csr || bs <= 0 || blocked[d] % bs)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity: block %d of dim %d has size "
                       "%d, need a dense level dividing %d", lb->s, b, d, bs, blocked[d]);
        p->block_size[b] = bs;
        blocked[d] /= bs;
    }
    for (int l = 0; l < p->n_levels; l++) {
        int d = -1;
        while (p->level_of[++d] != l) {}
        sparse_level *lv = &p->lv[l];
        lv->size = (uint32_t)(d < p->rank ? blocked[d] : p->block_size[d - p->rank]);
        if (!lv->csr && dense_size[l] != (int32_t)lv->size)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: dense_size %d, "
                       "expected %u", lb->s, l, dense_size[l], lv->size);
    }
    return VKI_OK;
}

/* Checks a CSR level for `parents` parent positions and returns how many it yields. */
static vki_status check_csr(loader *L, const label *lb, int l, const sparse_level *lv,
                            uint64_t parents, uint64_t *children) {
    if ((uint64_t)lv->segments.v.len != parents + 1)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: %u array_segments for "
                   "%llu positions", lb->s, l, lv->segments.v.len,
                   (unsigned long long)parents);
    int64_t prev = 0;
    for (uint32_t i = 0; i <= (uint32_t)parents; i++) {
        int64_t s = index_at(&L->fb, &lv->segments, i);
        if (s < prev || (i == 0 && s != 0) || s > (int64_t)lv->indices.v.len)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: array_segments[%u] "
                       "= %lld is out of order or range", lb->s, l, i, (long long)s);
        prev = s;
    }
    if (prev != (int64_t)lv->indices.v.len)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: segments cover %lld of "
                   "%u array_indices", lb->s, l, (long long)prev, lv->indices.v.len);
    for (uint32_t i = 0; i < lv->indices.v.len; i++) {
        int64_t x = index_at(&L->fb, &lv->indices, i);
        if (x < 0 || x >= (int64_t)lv->size)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: array_indices[%u] "
                       "= %lld, dim size %u", lb->s, l, i, (long long)x, lv->size);
    }
    *children = (uint64_t)prev;
    return VKI_OK;
}

/* Walks the levels once to check the CSR arrays and count the stored values. */
static vki_status count_stored(loader *L, const label *lb, const sparse_plan *p,
                               uint64_t *count) {
    uint64_t positions = 1;
    for (int l = 0; l < p->n_levels; l++) {
        const sparse_level *lv = &p->lv[l];
        if (!lv->csr) {
            positions *= lv->size;
        } else {
            vki_status st = check_csr(L, lb, l, lv, positions, &positions);
            if (st != VKI_OK) return st;
        }
        /* Dense levels only multiply up to the dense element count (< 2^31), and a CSR
         * level yields at most its in-file index count, so this bound holds for files
         * that are consistent; it stops the walk early for those that are not. */
        if (positions > INT32_MAX)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity level %d: %llu positions",
                       lb->s, l, (unsigned long long)positions);
    }
    *count = positions;
    return VKI_OK;
}

typedef struct sparse_walk {
    const sparse_plan *p;
    const vki_fb *fb;
    const uint8_t *src;
    uint8_t *dst;
    size_t esize;
    size_t next;                        /* next stored value */
    uint32_t idx[SPARSE_MAX_LEVELS];    /* index at each level */
} sparse_walk;

static size_t dense_offset(const sparse_walk *w) {
    const sparse_plan *p = w->p;
    size_t orig[VKI_MAX_RANK];
    for (int d = 0; d < p->rank; d++) orig[d] = w->idx[p->level_of[d]];
    for (int b = 0; b < p->n_blocks; b++) {
        int d = p->block_map[b];
        orig[d] = orig[d] * (size_t)p->block_size[b] + w->idx[p->level_of[p->rank + b]];
    }
    size_t off = 0;
    for (int d = 0; d < p->rank; d++) off = off * (size_t)p->shape[d] + orig[d];
    return off;
}

/* Depth is at most SPARSE_MAX_LEVELS; count_stored has checked every index and count. */
static void sparse_walk_level(sparse_walk *w, int l, size_t pos) {
    if (l == w->p->n_levels) {
        memcpy(w->dst + dense_offset(w) * w->esize, w->src + w->next * w->esize, w->esize);
        w->next++;
        return;
    }
    const sparse_level *lv = &w->p->lv[l];
    if (!lv->csr) {
        for (uint32_t i = 0; i < lv->size; i++) {
            w->idx[l] = i;
            sparse_walk_level(w, l + 1, pos * lv->size + i);
        }
        return;
    }
    size_t from = (size_t)index_at(w->fb, &lv->segments, (uint32_t)pos);
    size_t to = (size_t)index_at(w->fb, &lv->segments, (uint32_t)pos + 1);
    for (size_t j = from; j < to; j++) {
        w->idx[l] = (uint32_t)index_at(w->fb, &lv->indices, (uint32_t)j);
        sparse_walk_level(w, l + 1, j);
    }
}

static vki_status read_sparse(loader *L, const vki_fb_table *t, const label *lb,
                              const uint8_t *src, size_t bytes, size_t esize,
                              uint64_t elements, vki_tensor *out) {
    vki_fb_table sp;
    bool present;
    if (!vki_fb_table_field(t, TENSOR_SPARSITY, &sp, &present))
        return bad_fb(L, "%s: sparsity", lb->s);
    if (!present) return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparsity is missing", lb->s);
    if (esize == 0)
        return bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "%s: sparse tensor of a type without a "
                   "fixed element size", lb->s);
    sparse_plan p = {.rank = out->rank, .shape = out->shape};
    uint64_t stored = 0;
    vki_status st = read_traversal(L, &sp, lb, &p);
    if (st == VKI_OK) st = read_levels(L, &sp, lb, &p);
    if (st == VKI_OK) st = count_stored(L, lb, &p, &stored);
    if (st != VKI_OK) return st;
    if (stored * esize != bytes)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparse buffer holds %zu bytes, the "
                   "sparsity describes %llu values of %zu bytes", lb->s, bytes,
                   (unsigned long long)stored, esize);
    size_t dense = (size_t)elements * esize;
    if ((st = charge(L, lb, dense)) != VKI_OK) return st;
    out->data = vki_calloc(dense ? dense : 1, 1);
    if (!out->data) return oom(L, lb->s);
    out->data_bytes = dense;
    sparse_walk w = {.p = &p, .fb = &L->fb, .src = src, .dst = out->data, .esize = esize};
    sparse_walk_level(&w, 0, 0);
    return VKI_OK;
}

/* ---- dense constants ---------------------------------------------------------------- */

static vki_status read_constant(loader *L, const vki_fb_table *t, const label *lb,
                                int8_t type, uint64_t elements, vki_tensor *out) {
    uint32_t index;
    if (!vki_fb_u32(t, TENSOR_BUFFER, 0, &index)) return bad_fb(L, "%s: buffer index", lb->s);
    if (index >= L->buffers.len)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: buffer index %u out of range (%u buffers)",
                   lb->s, index, L->buffers.len);
    const uint8_t *src;
    size_t bytes;
    vki_status st = buffer_bytes(L, lb, index, &src, &bytes);
    if (st != VKI_OK) return st;
    bool sparse = vki_fb_present(t, TENSOR_SPARSITY);
    if (bytes == 0) {
        if (sparse)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: sparse tensor without data", lb->s);
        return VKI_OK;
    }
    size_t esize = type_size(type);
    if (sparse) return read_sparse(L, t, lb, src, bytes, esize, elements, out);
    if (esize && (uint64_t)bytes != elements * esize)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: buffer %u holds %zu bytes but the shape "
                   "needs %llu elements of %zu bytes", lb->s, index, bytes,
                   (unsigned long long)elements, esize);
    if ((st = charge(L, lb, bytes)) != VKI_OK) return st;
    out->data = vki_malloc(bytes);
    if (!out->data) return oom(L, lb->s);
    memcpy(out->data, src, bytes);
    out->data_bytes = bytes;
    return VKI_OK;
}

/* ---- quantization -------------------------------------------------------------------- */

/* A quantized constant becomes float32: real = scale[c] * (q - zero[c]), c the element's
 * index along `axis` (per-channel) or 0 (per-tensor). */
static vki_status dequantize_constant(loader *L, const label *lb, vki_tensor *t, int n,
                                      const float *scale, const int64_t *zero, int axis) {
    size_t count = vki_tensor_elements(t), inner = 1;
    size_t width = t->dtype == VKI_DTYPE_INT32 ? 4 : 1;
    if (t->data_bytes < count * width)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: %zu bytes of data, its shape needs %zu",
                   lb->s, t->data_bytes, count * width);
    for (int i = axis + 1; n > 1 && i < t->rank; i++) inner *= (size_t)t->shape[i];
    vki_status st = charge(L, lb, count * sizeof(float));
    if (st != VKI_OK) return st;
    st = charge(L, lb, count * sizeof(int32_t) + (size_t)n * 8);
    if (st != VKI_OK) return st;
    float *f = vki_malloc((count ? count : 1) * sizeof *f);
    int32_t *qd = vki_malloc((count ? count : 1) * sizeof *qd), *qz = vki_malloc((size_t)n * sizeof *qz);
    float *qs = vki_malloc((size_t)n * sizeof *qs);
    if (!f || !qd || !qz || !qs) {
        free(f);
        free(qd);
        free(qz);
        free(qs);
        return oom(L, lb->s);
    }
    const uint8_t *p = t->data;
    for (size_t e = 0; e < count; e++) {
        size_t c = n > 1 ? (e / inner) % (size_t)n : 0;
        int32_t q;
        if (width == 4) memcpy(&q, p + 4 * e, 4);
        else q = t->dtype == VKI_DTYPE_INT8 ? (int8_t)p[e] : p[e];
        f[e] = scale[c] * (float)((int64_t)q - zero[c]);
        qd[e] = q;
    }
    for (int c = 0; c < n; c++) {
        qs[c] = scale[c];
        qz[c] = (int32_t)zero[c];
    }
    free(t->data);
    t->data = f;
    t->data_bytes = count * sizeof *f;
    t->dtype = VKI_DTYPE_FLOAT32;
    t->qdata = qd;
    t->qscale = qs;
    t->qzero = qz;
    t->n_qscale = n;
    t->qaxis = n > 1 ? axis : 0;
    return VKI_OK;
}

/* Reads a tensor's QuantizationParameters: int8 / uint8 / int32 constants are dequantized
 * (per-tensor or per-channel along quantized_dimension); int8 / uint8 activations become
 * float32 tensors that remember their grid (vki_tensor.quant_*). */
static vki_status read_quantization(loader *L, const vki_fb_table *t, const label *lb,
                                    vki_tensor *out) {
    bool quantizable = out->dtype == VKI_DTYPE_INT8 || out->dtype == VKI_DTYPE_UINT8 ||
                       (out->dtype == VKI_DTYPE_INT32 && out->data);
    vki_fb_table q;
    bool present;
    if (!vki_fb_table_field(t, TENSOR_QUANTIZATION, &q, &present))
        return bad_fb(L, "%s: quantization", lb->s);
    vki_fb_vec vs = {0, 0}, vz = {0, 0};
    int32_t axis = 0;
    if (present && (!vki_fb_vec_field(&q, QUANT_SCALE, 4, &vs) ||
                    !vki_fb_vec_field(&q, QUANT_ZERO_POINT, 8, &vz) ||
                    !vki_fb_i32(&q, QUANT_DIMENSION, 0, &axis)))
        return bad_fb(L, "%s: quantization parameters", lb->s);
    if (!quantizable) return VKI_OK;   /* float tensors may carry min/max: unused */
    if (vs.len == 0) {
        if (out->dtype == VKI_DTYPE_INT32) return VKI_OK;   /* shapes, axes, indices */
        return bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "%s: %s without quantization parameters is "
                   "not supported", lb->s, out->dtype == VKI_DTYPE_INT8 ? "int8" : "uint8");
    }
    int n = (int)vs.len;
    if (vz.len != 0 && vz.len != vs.len)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: %u scales but %u zero points", lb->s, vs.len,
                   vz.len);
    if (n > 1 && (axis < 0 || axis >= out->rank || out->shape[axis] != n))
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: %d per-channel scales along quantized_dimension "
                   "%d, which %s", lb->s, n, (int)axis,
                   axis < 0 || axis >= out->rank ? "is out of range" : "has another extent");
    vki_status st = charge(L, lb, (size_t)n * (sizeof(float) + sizeof(int64_t)));
    if (st != VKI_OK) return st;
    float *scale = vki_malloc((size_t)n * sizeof *scale);
    int64_t *zero = vki_calloc((size_t)n, sizeof *zero);
    if (!scale || !zero) {
        free(scale);
        free(zero);
        return oom(L, lb->s);
    }
    int lo = out->dtype == VKI_DTYPE_UINT8 ? 0 : -128, hi = out->dtype == VKI_DTYPE_UINT8 ? 255 : 127;
    for (int c = 0; c < n && st == VKI_OK; c++) {
        uint32_t bits = (uint32_t)vki_fb_vec_i32(&L->fb, &vs, (uint32_t)c);
        memcpy(&scale[c], &bits, 4);
        if (vz.len) zero[c] = (int64_t)vki_fb_rd64(&L->fb, vz.data + 8 * (size_t)c);
        if (!(scale[c] > 0.0f) || !isfinite(scale[c]))
            st = bad(L, VKI_ERROR_MODEL_FORMAT, "%s: scale %d is %g, need a positive finite "
                     "value", lb->s, c, (double)scale[c]);
        else if (out->dtype != VKI_DTYPE_INT32 && (zero[c] < lo || zero[c] > hi))
            st = bad(L, VKI_ERROR_MODEL_FORMAT, "%s: zero point %lld is outside %d..%d", lb->s,
                     (long long)zero[c], lo, hi);
        /* An int32 (bias) zero point is 0 in practice; any int32 keeps q - zero in range. */
        else if (out->dtype == VKI_DTYPE_INT32 && (zero[c] < INT32_MIN || zero[c] > INT32_MAX))
            st = bad(L, VKI_ERROR_MODEL_FORMAT, "%s: zero point %lld does not fit int32", lb->s,
                     (long long)zero[c]);
    }
    if (st == VKI_OK && out->data) {
        st = dequantize_constant(L, lb, out, n, scale, zero, axis);
    } else if (st == VKI_OK) {
        if (n > 1)
            st = bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "%s: an activation quantized per channel "
                     "is not supported", lb->s);
        out->dtype = VKI_DTYPE_FLOAT32;
        out->quant_scale = scale[0];
        out->quant_zero = (int)zero[0];
        out->quant_min = lo;
        out->quant_max = hi;
    }
    free(scale);
    free(zero);
    return st;
}

static char *dup_cstr(const char *s) {
    size_t n = strlen(s);
    char *d = vki_malloc(n + 1);
    if (d) memcpy(d, s, n + 1);
    return d;
}

static vki_status read_tensor(loader *L, uint32_t i, const vki_fb_table *t, vki_tensor *out) {
    const char *name;
    uint32_t name_len;
    int8_t type;
    uint64_t elements = 0;
    label lb = tensor_label(i, "");
    if (!vki_fb_string_field(t, TENSOR_NAME, &name, &name_len))
        return bad_fb(L, "%s: name", lb.s);
    lb = tensor_label(i, name);
    out->name = dup_cstr(name);
    if (!out->name) return oom(L, lb.s);
    if (!vki_fb_i8(t, TENSOR_TYPE, 0, &type)) return bad_fb(L, "%s: type", lb.s);
    out->dtype = map_dtype(type);
    uint8_t is_variable;
    if (!vki_fb_u8(t, TENSOR_IS_VARIABLE, 0, &is_variable)) return bad_fb(L, "%s: is_variable", lb.s);
    out->is_variable = is_variable != 0;
    vki_status st = read_shape(L, t, &lb, out, &elements);
    if (st == VKI_OK) st = read_constant(L, t, &lb, type, elements, out);
    if (st == VKI_OK) st = read_quantization(L, t, &lb, out);
    return st;
}

static vki_status read_tensors(loader *L, const vki_fb_table *sg) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(sg, SG_TENSORS, 4, &v)) return bad_fb(L, "subgraph %u: tensors", L->sg);
    if (v.len > INT_MAX)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph %u: %u tensors is too many", L->sg, v.len);
    vki_model *m = L->m;
    m->tensors = vki_calloc(v.len ? v.len : 1, sizeof *m->tensors);
    if (!m->tensors) return oom(L, "tensors");
    /* Entries are zeroed, so the model can be destroyed at any point of the loop. */
    m->n_tensors = (int)v.len;
    for (uint32_t i = 0; i < v.len; i++) {
        vki_fb_table t;
        if (!vki_fb_vec_table(&L->fb, &v, i, &t)) return bad_fb(L, "tensor %u", i);
        vki_status st = read_tensor(L, i, &t, &m->tensors[i]);
        if (st != VKI_OK) return st;
    }
    return VKI_OK;
}

/* ---- operator codes ----------------------------------------------------------------- */

static vki_status read_opcode(loader *L, uint32_t i, const vki_fb_table *t, opcode_entry *e) {
    int8_t deprecated;
    int32_t builtin;
    const char *custom;
    uint32_t custom_len;
    if (!vki_fb_i8(t, OPCODE_DEPRECATED, 0, &deprecated) ||
        !vki_fb_i32(t, OPCODE_BUILTIN, 0, &builtin) ||
        !vki_fb_string_field(t, OPCODE_CUSTOM, &custom, &custom_len))
        return bad_fb(L, "operator code %u", i);
    /* Files from before the int32 field hold the code in the int8 one (and older
     * readers see 127 there for newer codes); TFLite takes the larger of the two. */
    e->code = builtin > deprecated ? builtin : deprecated;
    if (e->code < 0)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "operator code %u: negative builtin code %d", i,
                   e->code);
    snprintf(e->custom, sizeof e->custom, "%s", custom);
    return VKI_OK;
}

static vki_status read_opcodes(loader *L, const vki_fb_table *model) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(model, MODEL_OPCODES, 4, &v)) return bad_fb(L, "operator_codes");
    L->opcodes = vki_calloc(v.len ? v.len : 1, sizeof *L->opcodes);
    if (!L->opcodes) return oom(L, "operator codes");
    L->n_opcodes = v.len;
    for (uint32_t i = 0; i < v.len; i++) {
        vki_fb_table t;
        if (!vki_fb_vec_table(&L->fb, &v, i, &t)) return bad_fb(L, "operator code %u", i);
        vki_status st = read_opcode(L, i, &t, &L->opcodes[i]);
        if (st != VKI_OK) return st;
    }
    return VKI_OK;
}

/* ---- operators ---------------------------------------------------------------------- */

/* Reads an op's tensor index list into dst; -1 (an omitted optional input) is kept
 * where allow_omitted. */
static vki_status read_index_list(loader *L, const vki_fb_table *t, unsigned field,
                                  const label *lb, const char *what, int max, bool allow_omitted,
                                  int *dst, int *count) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(t, field, 4, &v)) return bad_fb(L, "%s: %s", lb->s, what);
    if (v.len > (uint32_t)max)
        return bad(L, VKI_ERROR_UNSUPPORTED_OP, "%s: %u %s, at most %d are supported", lb->s,
                   v.len, what, max);
    for (uint32_t k = 0; k < v.len; k++) {
        int32_t idx = vki_fb_vec_i32(&L->fb, &v, k);
        if (!(idx == -1 && allow_omitted) && (idx < 0 || idx >= L->m->n_tensors))
            return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: %s %u: tensor index %d out of range "
                       "(%d tensors)", lb->s, what, k, idx, L->m->n_tensors);
        dst[k] = idx;
    }
    *count = (int)v.len;
    return VKI_OK;
}

/* ---- operator options ----------------------------------------------------------------
 * Each op file reads its own options (vki_op_def.options) through the reader below; the
 * loader finds the table the op list names for the op (OPTS(id, Name) in op_list.h) and
 * turns what goes wrong into messages naming the op. */

struct vki_options_reader {
    loader *L;
    const label *lb;
    const vki_fb_table *op;     /* the Operator table */
    vki_fb_table table;         /* its options table, or an empty one: schema defaults */
    const char *table_name;     /* "Conv2DOptions"; NULL for custom ops */
};

static vki_status check_activation(loader *L, const label *lb, int8_t act, vki_activation *out) {
    if (act == ACT_SIGN_BIT)
        return bad(L, VKI_ERROR_UNSUPPORTED_OP, "%s: fused activation SIGN_BIT is not "
                   "supported", lb->s);
    if (act < VKI_ACT_NONE || act > VKI_ACT_TANH)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: unknown fused activation %d", lb->s, act);
    /* TFLite's float kernels of every op with a fused activation slot (ADD, SUB, MUL, DIV,
     * the convolutions, pools, FULLY_CONNECTED, CONCATENATION) clamp to the activation's
     * range (CalculateActivationRange), which exists for RELU, RELU6 and RELU_N1_TO_1 only:
     * a fused TANH leaves the values as they are. So does vkinfer, or a file would give
     * other numbers here than in TFLite (the graph tester's seed 25: ADD with TANH). The
     * activation pass may still put a TANH op of its own into a producer. */
    *out = act == VKI_ACT_TANH ? VKI_ACT_NONE : (vki_activation)act;
    return VKI_OK;
}

static vki_status check_padding(loader *L, const label *lb, int8_t pad, vki_padding *out) {
    if (pad != VKI_PAD_SAME && pad != VKI_PAD_VALID)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: unknown padding %d", lb->s, pad);
    *out = (vki_padding)pad;
    return VKI_OK;
}

/* Locates the op's options table. Absent options (type NONE or no table) leave *present
 * false and the schema defaults apply, as in TFLite; a table of another type is an error
 * because its fields would mean something else. */
static vki_status find_options(loader *L, const vki_fb_table *op, const label *lb,
                               uint8_t want, const char *want_name, vki_fb_table *opt,
                               bool *present) {
    uint8_t type;
    *present = false;
    if (!vki_fb_u8(op, OP_OPTIONS_TYPE, 0, &type)) return bad_fb(L, "%s: options type", lb->s);
    if (type == 0) return VKI_OK;
    if (type != want)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: builtin_options has type %u, expected "
                   "%s (%u)", lb->s, type, want_name, want);
    if (!vki_fb_table_field(op, OP_OPTIONS, opt, present))
        return bad_fb(L, "%s: %s", lb->s, want_name);
    return VKI_OK;
}

/* An empty table: every field read from it gives the schema default. */
static vki_fb_table empty_table(loader *L) {
    return (vki_fb_table){&L->fb, 0, 0, 0, 0};
}

/* find_options with an empty table standing in for absent options, so that every read
 * from *o gives the schema default. */
static vki_status options_table(loader *L, const vki_fb_table *op, const label *lb,
                                uint8_t want, const char *want_name, vki_fb_table *o) {
    bool present;
    vki_status st = find_options(L, op, lb, want, want_name, o, &present);
    if (st == VKI_OK && !present) *o = empty_table(L);
    return st;
}

/* The op's custom_options bytes: the inline vector, or for files written in the large
 * model form, large_custom_options_offset/size into the file (offset 0 or 1: none, as
 * in TFLite). *at is a file offset; *size is 0 when there are none. */
static vki_status custom_options(loader *L, const vki_fb_table *op, const label *lb,
                                 size_t *at, size_t *size) {
    vki_fb_vec v;
    uint64_t off, len;
    *at = 0;
    *size = 0;
    if (!vki_fb_vec_field(op, OP_CUSTOM_OPTIONS, 1, &v) ||
        !vki_fb_u64(op, OP_LARGE_CUSTOM_OFFSET, 0, &off) ||
        !vki_fb_u64(op, OP_LARGE_CUSTOM_SIZE, 0, &len))
        return bad_fb(L, "%s: custom_options", lb->s);
    if (vki_fb_present(op, OP_CUSTOM_OPTIONS)) {
        *at = v.data;
        *size = v.len;
        return VKI_OK;
    }
    if (off <= 1) return VKI_OK;
    if (off > L->fb.size || len > L->fb.size - off)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "%s: custom options at offset %llu size %llu "
                   "run past the end of the file (%zu bytes)", lb->s, (unsigned long long)off,
                   (unsigned long long)len, L->fb.size);
    *at = (size_t)off;
    *size = (size_t)len;
    return VKI_OK;
}

bool vki_opt_i8(vki_options_reader *r, unsigned id, int8_t def, int8_t *v) {
    return vki_fb_i8(&r->table, id, def, v);
}

bool vki_opt_i32(vki_options_reader *r, unsigned id, int32_t def, int32_t *v) {
    return vki_fb_i32(&r->table, id, def, v);
}

bool vki_opt_string(vki_options_reader *r, unsigned id, const char **v) {
    uint32_t len;
    return vki_fb_string_field(&r->table, id, v, &len);
}

vki_status vki_opt_f32_vector_input(vki_options_reader *r, unsigned id, vki_op *op) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(&r->table, id, 4, &v)) return vki_opt_malformed(r);
    if (!v.len) return VKI_OK;   /* no tensor of no elements: the op sees no input */
    if (op->n_inputs >= VKI_MAX_OP_INPUTS)
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_MODEL, "has %d inputs, no room for its "
                            "options' vector", op->n_inputs);
    vki_status st = charge(r->L, r->lb, (uint64_t)v.len * sizeof(float));
    if (st) return st;
    float *f = vki_malloc(sizeof(float) * (v.len ? v.len : 1));
    if (!f) return oom(r->L, r->lb->s);
    for (uint32_t i = 0; i < v.len; i++) {
        uint32_t bits = (uint32_t)vki_fb_vec_i32(&r->L->fb, &v, i);
        memcpy(&f[i], &bits, sizeof bits);
    }
    char name[96];
    snprintf(name, sizeof name, "%s options vector", r->table_name ? r->table_name : "custom");
    int n = (int)v.len;
    int t = vki_model_add_tensor(r->L->m, name, VKI_DTYPE_FLOAT32, 1, &n, f, sizeof(float) * v.len);
    free(f);
    if (t < 0) return oom(r->L, r->lb->s);
    op->inputs[op->n_inputs++] = t;
    return VKI_OK;
}

bool vki_opt_f32(vki_options_reader *r, unsigned id, float def, float *v) {
    uint32_t bits, def_bits;
    memcpy(&def_bits, &def, sizeof def_bits);
    if (!vki_fb_u32(&r->table, id, def_bits, &bits)) return false;
    memcpy(v, &bits, sizeof *v);
    return true;
}

/* FlatBuffers bools are a byte; like the generated readers, any nonzero byte is true. */
bool vki_opt_bool(vki_options_reader *r, unsigned id, bool def, bool *v) {
    uint8_t b;
    if (!vki_fb_u8(&r->table, id, def ? 1 : 0, &b)) return false;
    *v = b != 0;
    return true;
}

vki_status vki_opt_malformed(vki_options_reader *r) {
    return bad_fb(r->L, "%s: %s", r->lb->s, r->table_name ? r->table_name : "options");
}

vki_status vki_opt_activation(vki_options_reader *r, int8_t value, vki_activation *out) {
    return check_activation(r->L, r->lb, value, out);
}

vki_status vki_opt_padding(vki_options_reader *r, int8_t value, vki_padding *out) {
    return check_padding(r->L, r->lb, value, out);
}

vki_status vki_opt_custom(vki_options_reader *r, const uint8_t **data, size_t *size) {
    size_t at;
    vki_status st = custom_options(r->L, r->op, r->lb, &at, size);
    *data = st == VKI_OK ? r->L->fb.buf + at : NULL;
    return st;
}

vki_status vki_opt_fail(vki_options_reader *r, vki_status status, const char *fmt, ...) {
    char what[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return bad(r->L, status, "%s: %s", r->lb->s, what);
}

/* The BuiltinOptions union type (its position in the union, NONE = 0) and table name of
 * each builtin op, from the op list; {0, NULL} for ops that have none. */
typedef struct options_type {
    uint8_t id;
    const char *name;
} options_type;

static options_type options_type_of(vki_op_code code) {
#define OPTS(id, name) {id, #name}
#define NO_OPTS {0, NULL}
#define TYPE_(name, value, def, options, ...) \
    case VKI_OP_##name: return (options_type)options;
    switch (code) {
        VKI_OP_LIST(TYPE_)
        VKI_CPU_OP_LIST(TYPE_)
    default: return (options_type)NO_OPTS;
    }
#undef TYPE_
#undef OPTS
#undef NO_OPTS
}

/* Only option values that cannot be represented (unknown enums) are rejected here;
 * ranges (strides, block sizes, flag combinations) are for the ops' validation. */
static vki_status read_options(loader *L, const vki_fb_table *op, const label *lb, vki_op *out) {
    options_type type = options_type_of(out->code);
    vki_options_reader r = {L, lb, op, empty_table(L), type.name};
    if (type.name) {
        vki_status st = options_table(L, op, lb, type.id, type.name, &r.table);
        if (st != VKI_OK) return st;
    }
    const vki_op_def *def = vki_op_find(out);
    return def && def->options ? def->options(&r, L->m, out) : VKI_OK;
}

static vki_status read_op(loader *L, uint32_t i, const vki_fb_table *t, vki_op *out) {
    uint32_t oc;
    if (!vki_fb_u32(t, OP_OPCODE_INDEX, 0, &oc)) return bad_fb(L, "op %u: opcode_index", i);
    if (oc >= L->n_opcodes)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "op %u: opcode index %u out of range (%u "
                   "operator codes)", i, oc, L->n_opcodes);
    const opcode_entry *e = &L->opcodes[oc];
    label lb = op_label(i, e->code, e->custom);
    out->code = (vki_op_code)e->code;
    out->file_index = (int)i;
    if (e->code == VKI_OP_CUSTOM) memcpy(out->custom_name, e->custom, sizeof out->custom_name);
    vki_status st = read_index_list(L, t, OP_INPUTS, &lb, "inputs", VKI_MAX_OP_INPUTS, true,
                                    out->inputs, &out->n_inputs);
    if (st == VKI_OK)
        st = read_index_list(L, t, OP_OUTPUTS, &lb, "outputs", VKI_MAX_OP_OUTPUTS, false,
                             out->outputs, &out->n_outputs);
    return st != VKI_OK ? st : read_options(L, t, &lb, out);
}

static vki_status read_ops(loader *L, const vki_fb_table *sg) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(sg, SG_OPERATORS, 4, &v)) return bad_fb(L, "subgraph %u: operators", L->sg);
    if (v.len > INT_MAX)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph %u: %u operators is too many", L->sg, v.len);
    vki_model *m = L->m;
    m->ops = vki_calloc(v.len ? v.len : 1, sizeof *m->ops);
    if (!m->ops) return oom(L, "operators");
    m->n_ops = (int)v.len;
    /* Kept as read: folding drops ops from m->ops, but they keep their numbers. */
    m->file_op_codes = vki_malloc(sizeof(int) * (v.len ? v.len : 1));
    if (!m->file_op_codes) return oom(L, "operators");
    m->n_file_ops = (int)v.len;
    for (uint32_t i = 0; i < v.len; i++) {
        vki_fb_table t;
        if (!vki_fb_vec_table(&L->fb, &v, i, &t)) return bad_fb(L, "op %u", i);
        vki_status st = read_op(L, i, &t, &m->ops[i]);
        if (st != VKI_OK) return st;
        m->file_op_codes[i] = (int)m->ops[i].code;
    }
    return VKI_OK;
}

/* ---- graph inputs and outputs ------------------------------------------------------- */

static vki_status read_io_list(loader *L, const vki_fb_table *sg, unsigned field,
                               const char *what, int **dst, int *count) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(sg, field, 4, &v)) return bad_fb(L, "subgraph %u: %s", L->sg, what);
    if (v.len > INT_MAX)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph %u: %u %s is too many", L->sg, v.len, what);
    int *list = vki_malloc(sizeof(int) * (v.len ? v.len : 1));
    if (!list) return oom(L, what);
    for (uint32_t k = 0; k < v.len; k++) {
        int32_t idx = vki_fb_vec_i32(&L->fb, &v, k);
        if (idx < 0 || idx >= L->m->n_tensors) {
            free(list);
            return bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph %u: %s %u: tensor index %d out of "
                       "range (%d tensors)", L->sg, what, k, idx, L->m->n_tensors);
        }
        list[k] = idx;
    }
    *dst = list;
    *count = (int)v.len;
    return VKI_OK;
}

static vki_status read_io(loader *L, const vki_fb_table *sg) {
    vki_model *m = L->m;
    vki_status st = read_io_list(L, sg, SG_INPUTS, "inputs", &m->inputs, &m->n_inputs);
    if (st == VKI_OK) st = read_io_list(L, sg, SG_OUTPUTS, "outputs", &m->outputs, &m->n_outputs);
    return st;
}

/* ---- model -------------------------------------------------------------------------- */

static vki_status read_header(loader *L, vki_fb_table *model) {
    if (L->fb.size < 8)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "file is %zu bytes, too short for a TFLite "
                   "model", L->fb.size);
    if (memcmp(L->fb.buf + 4, "TFL3", 4) != 0)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "file identifier is not \"TFL3\" (bytes 4..7)");
    if (!vki_fb_root(&L->fb, model)) return bad_fb(L, "model root");
    uint32_t version;
    if (!vki_fb_u32(model, MODEL_VERSION, 0, &version)) return bad_fb(L, "model version");
    if (version != TFLITE_SCHEMA_VERSION)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "schema version %u, expected %d", version,
                   TFLITE_SCHEMA_VERSION);
    return VKI_OK;
}

/* The signature named `key` (NULL: none): its subgraph, and its inputs' and outputs' tensor
 * indices and names, which replace the subgraph's own I/O lists. Every signature's key is
 * listed in the model. */
typedef struct signature_io {
    int n;
    int32_t *tensor;
    char **name;
} signature_io;

static void free_signature_io(signature_io *io) {
    for (int i = 0; io->name && i < io->n; i++) free(io->name[i]);
    free(io->name);
    free(io->tensor);
    memset(io, 0, sizeof *io);
}

static vki_status read_tensor_maps(loader *L, const vki_fb_table *sig, unsigned field,
                                   const char *key, signature_io *io) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(sig, field, 4, &v) || v.len > VKI_MAX_OP_INPUTS * 4u)
        return bad_fb(L, "signature '%s': %s", key, field == SIG_INPUTS ? "inputs" : "outputs");
    io->tensor = vki_calloc(v.len + 1, sizeof *io->tensor);
    io->name = vki_calloc(v.len + 1, sizeof *io->name);
    if (!io->tensor || !io->name) return oom(L, "signatures");
    for (uint32_t i = 0; i < v.len; i++) {
        vki_fb_table tm;
        const char *name;
        uint32_t index, len;
        if (!vki_fb_vec_table(&L->fb, &v, i, &tm) || !vki_fb_string_field(&tm, TENSORMAP_NAME, &name, &len) ||
            !vki_fb_u32(&tm, TENSORMAP_INDEX, 0, &index))
            return bad_fb(L, "signature '%s': tensor map %u", key, i);
        io->tensor[i] = index > INT32_MAX ? -1 : (int32_t)index;
        io->name[i] = vki_strdup(name);
        io->n = (int)i + 1;
        if (!io->name[i]) return oom(L, "signatures");
    }
    return VKI_OK;
}

static vki_status read_signatures(loader *L, const vki_fb_table *model, const char *want,
                                  signature_io *in, signature_io *out) {
    vki_fb_vec v;
    if (!vki_fb_vec_field(model, MODEL_SIGNATURE_DEFS, 4, &v)) return bad_fb(L, "signature_defs");
    vki_model *m = L->m;
    m->signature_names = vki_calloc(v.len + 1, sizeof *m->signature_names);
    if (!m->signature_names) return oom(L, "signatures");
    int found = 0;
    for (uint32_t i = 0; i < v.len; i++) {
        vki_fb_table sig;
        const char *key;
        uint32_t sg, len;
        if (!vki_fb_vec_table(&L->fb, &v, i, &sig) || !vki_fb_string_field(&sig, SIG_KEY, &key, &len) ||
            !vki_fb_u32(&sig, SIG_SUBGRAPH, 0, &sg))
            return bad_fb(L, "signature %u", i);
        m->signature_names[i] = vki_strdup(key);
        m->n_signatures = (int)i + 1;
        if (!m->signature_names[i]) return oom(L, "signatures");
        if (!want || found || strcmp(key, want)) continue;
        found = 1;
        L->sg = sg;
        vki_status st = read_tensor_maps(L, &sig, SIG_INPUTS, key, in);
        if (!st) st = read_tensor_maps(L, &sig, SIG_OUTPUTS, key, out);
        if (st) return st;
    }
    if (want && !found) {
        char list[512] = "";
        for (int i = 0; i < m->n_signatures; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", i ? ", " : "",
                     m->signature_names[i]);
        return bad(L, VKI_ERROR_INVALID_ARGUMENT, "no signature '%s' (the model has %s)", want,
                   m->n_signatures ? list : "none");
    }
    return VKI_OK;
}

/* The signature's tensors become the graph's inputs and outputs, in its order, with its
 * names. */
static vki_status apply_signature(loader *L, signature_io *io, int is_input) {
    vki_model *m = L->m;
    int *list = vki_malloc(sizeof(int) * (size_t)(io->n + 1));
    if (!list) return oom(L, "signatures");
    for (int i = 0; i < io->n; i++) {
        if (io->tensor[i] < 0 || io->tensor[i] >= m->n_tensors) {
            free(list);
            return bad(L, VKI_ERROR_MODEL_FORMAT, "signature '%s': %s '%s': tensor index %d out of "
                       "range (%d tensors)", m->signature, is_input ? "input" : "output",
                       io->name[i], io->tensor[i], m->n_tensors);
        }
        list[i] = io->tensor[i];
    }
    if (is_input) {
        free(m->inputs);
        m->inputs = list;
        m->n_inputs = io->n;
        m->input_names = io->name;
    } else {
        free(m->outputs);
        m->outputs = list;
        m->n_outputs = io->n;
        m->output_names = io->name;
    }
    io->name = NULL;
    free_signature_io(io);
    return VKI_OK;
}

static vki_status read_model(loader *L, const char *signature) {
    vki_fb_table model = {0}, sg = {0};
    vki_fb_vec subgraphs;
    signature_io sin = {0}, sout = {0};
    vki_status st = read_header(L, &model);
    if (st != VKI_OK) return st;
    if (!vki_fb_vec_field(&model, MODEL_SUBGRAPHS, 4, &subgraphs))
        return bad_fb(L, "subgraphs");
    if (subgraphs.len == 0) return bad(L, VKI_ERROR_MODEL_FORMAT, "model has no subgraphs");
    L->m->n_file_subgraphs = (int)(subgraphs.len > INT_MAX ? INT_MAX : subgraphs.len);
    if (!L->m->is_child) st = read_signatures(L, &model, signature, &sin, &sout);
    if (!st && signature) {
        L->m->signature = vki_strdup(signature);
        if (!L->m->signature) st = oom(L, "signatures");
    }
    if (!st && L->sg >= subgraphs.len)
        st = bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph %u out of range (%u subgraphs)", L->sg,
                 subgraphs.len);
    if (!st && !vki_fb_vec_table(&L->fb, &subgraphs, L->sg, &sg)) st = bad_fb(L, "subgraph %u", L->sg);
    if (!st && !vki_fb_vec_field(&model, MODEL_BUFFERS, 4, &L->buffers)) st = bad_fb(L, "buffers");
    if (!st && !vki_fb_present(&model, MODEL_BUFFERS))
        st = bad(L, VKI_ERROR_MODEL_FORMAT, "model has no buffers vector");
    if (!st) st = read_opcodes(L, &model);
    if (!st) st = read_tensors(L, &sg);
    if (!st) st = read_ops(L, &sg);
    if (!st) st = read_io(L, &sg);
    if (!st && signature) st = apply_signature(L, &sin, 1);
    if (!st && signature) st = apply_signature(L, &sout, 0);
    free_signature_io(&sin);
    free_signature_io(&sout);
    return st;
}

/* ---- constant folding ---------------------------------------------------------------- */

static bool is_half_constant(const vki_tensor *t) {
    return t->data && t->dtype == VKI_DTYPE_FLOAT16;
}

/* A DEQUANTIZE of a constant folds: float16 data, or int8 data dequantized at read. */
static bool is_dequantizable_constant(const vki_tensor *t) {
    return t->data && (t->dtype == VKI_DTYPE_FLOAT16 || t->dtype == VKI_DTYPE_FLOAT32);
}

/* Makes the DEQUANTIZE output a float32 constant holding the converted input. */
static vki_status fold_dequantize(loader *L, int op_index, const vki_op *op) {
    const vki_tensor *in = &L->m->tensors[op->inputs[0]];
    vki_tensor *out = &L->m->tensors[op->outputs[0]];
    const bool half = in->dtype == VKI_DTYPE_FLOAT16;
    size_t n = in->data_bytes / (half ? 2 : sizeof(float));
    if (out->data)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "op %d DEQUANTIZE: output '%.64s' is a constant",
                   op_index, out->name);
    if (out->dtype != VKI_DTYPE_FLOAT32)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "op %d DEQUANTIZE: float16 input '%.64s' needs "
                   "a float32 output", op_index, in->name);
    if (vki_tensor_elements(out) != n)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "op %d DEQUANTIZE: input '%.64s' has %zu "
                   "elements, output '%.64s' has %zu", op_index, in->name, n, out->name,
                   vki_tensor_elements(out));
    /* A float16 constant converts; an int8 one was dequantized when it was read. */
    float *f = half ? half_array_to_float(in->data, n) : vki_malloc((n ? n : 1) * sizeof *f);
    if (!f) return oom(L, "DEQUANTIZE constants");
    if (!half) memcpy(f, in->data, n * sizeof *f);
    out->data = f;
    out->data_bytes = n * sizeof(float);
    return VKI_OK;
}

/* Sparse constants are densified at read time, so DENSIFY of a constant is a copy. */
static vki_status fold_densify(loader *L, int op_index, const vki_op *op) {
    const vki_tensor *in = &L->m->tensors[op->inputs[0]];
    vki_tensor *out = &L->m->tensors[op->outputs[0]];
    if (out->data || out->dtype != in->dtype ||
        vki_tensor_elements(out) != vki_tensor_elements(in))
        return bad(L, VKI_ERROR_MODEL_FORMAT, "op %d DENSIFY: output '%.64s' does not match "
                   "input '%.64s' in type or size, or is a constant", op_index, out->name,
                   in->name);
    out->data = vki_malloc(in->data_bytes ? in->data_bytes : 1);
    if (!out->data) return oom(L, "DENSIFY");
    memcpy(out->data, in->data, in->data_bytes);
    out->data_bytes = in->data_bytes;
    return VKI_OK;
}

static bool unary_on_constant(const vki_model *m, const vki_op *op) {
    return op->n_inputs == 1 && op->n_outputs == 1 && op->inputs[0] >= 0 &&
           m->tensors[op->inputs[0]].data != NULL;
}

/* One pass in execution order, so DENSIFY -> DEQUANTIZE chains fold completely. */
static vki_status fold_constant_ops(loader *L) {
    vki_model *m = L->m;
    int kept = 0;
    for (int i = 0; i < m->n_ops; i++) {
        vki_op *op = &m->ops[i];
        vki_status st = VKI_OK;
        if (op->code == VKI_OP_DENSIFY && unary_on_constant(m, op)) {
            st = fold_densify(L, op->file_index, op);
        } else if (op->code == VKI_OP_DEQUANTIZE && unary_on_constant(m, op) &&
                   is_dequantizable_constant(&m->tensors[op->inputs[0]])) {
            st = fold_dequantize(L, op->file_index, op);
        } else {
            m->ops[kept++] = *op;
            continue;
        }
        if (st != VKI_OK) return st;
    }
    m->n_ops = kept;
    return VKI_OK;
}

static vki_status convert_half_constants(loader *L) {
    vki_model *m = L->m;
    for (int i = 0; i < m->n_tensors; i++) {
        vki_tensor *t = &m->tensors[i];
        if (!is_half_constant(t)) continue;
        size_t n = t->data_bytes / 2;
        float *f = half_array_to_float(t->data, n);
        if (!f) return oom(L, "float16 constants");
        free(t->data);
        t->data = f;
        t->data_bytes = n * sizeof(float);
        t->dtype = VKI_DTYPE_FLOAT32;
    }
    return VKI_OK;
}

/* Drops tensors nothing refers to (mostly the float16 sources of folded DEQUANTIZEs),
 * so that their data is neither kept nor uploaded, and renumbers the rest. */
static vki_status drop_unused_tensors(loader *L) {
    vki_model *m = L->m;
    int *map = vki_calloc((size_t)m->n_tensors + 1, sizeof *map);
    if (!map) return oom(L, "tensor map");
    for (int i = 0; i < m->n_ops; i++) {
        for (int k = 0; k < m->ops[i].n_inputs; k++)
            if (m->ops[i].inputs[k] >= 0) map[m->ops[i].inputs[k]] = 1;
        for (int k = 0; k < m->ops[i].n_outputs; k++) map[m->ops[i].outputs[k]] = 1;
    }
    for (int k = 0; k < m->n_inputs; k++) map[m->inputs[k]] = 1;
    for (int k = 0; k < m->n_outputs; k++) map[m->outputs[k]] = 1;
    int kept = 0;
    for (int i = 0; i < m->n_tensors; i++) {
        if (!map[i]) {
            vki_tensor_release(&m->tensors[i]);
            map[i] = -1;
            continue;
        }
        m->tensors[kept] = m->tensors[i];
        map[i] = kept++;
    }
    m->n_tensors = kept;
    for (int i = 0; i < m->n_ops; i++) {
        for (int k = 0; k < m->ops[i].n_inputs; k++)
            if (m->ops[i].inputs[k] >= 0) m->ops[i].inputs[k] = map[m->ops[i].inputs[k]];
        for (int k = 0; k < m->ops[i].n_outputs; k++)
            m->ops[i].outputs[k] = map[m->ops[i].outputs[k]];
    }
    for (int k = 0; k < m->n_inputs; k++) m->inputs[k] = map[m->inputs[k]];
    for (int k = 0; k < m->n_outputs; k++) m->outputs[k] = map[m->outputs[k]];
    free(map);
    return VKI_OK;
}

/* INT64 constants (indices, axes written as int64) become INT32 and BOOL constants hold
 * one int32 0/1 per element, so ops read every index constant one way. A value outside
 * int32 is an error naming the tensor. */
static vki_status convert_index_constants(loader *L) {
    vki_model *m = L->m;
    for (int i = 0; i < m->n_tensors; i++) {
        vki_tensor *t = &m->tensors[i];
        if (!t->data || (t->dtype != VKI_DTYPE_INT64 && t->dtype != VKI_DTYPE_BOOL)) continue;
        size_t width = t->dtype == VKI_DTYPE_INT64 ? 8 : 1, n = t->data_bytes / width;
        int32_t *v = vki_malloc((n ? n : 1) * sizeof *v);
        if (!v) return oom(L, "index constants");
        const uint8_t *p = t->data;
        for (size_t k = 0; k < n; k++) {
            if (width == 1) { v[k] = p[k] != 0; continue; }
            int64_t x;
            memcpy(&x, p + 8 * k, 8);
            if (x < INT32_MIN || x > INT32_MAX) {
                free(v);
                return bad(L, VKI_ERROR_UNSUPPORTED_MODEL, "tensor %d '%.64s': int64 value "
                           "%lld at element %zu does not fit int32", i, t->name, (long long)x, k);
            }
            v[k] = (int32_t)x;
        }
        free(t->data);
        t->data = v;
        t->data_bytes = n * sizeof *v;
        if (t->dtype == VKI_DTYPE_INT64) t->dtype = VKI_DTYPE_INT32;
    }
    return VKI_OK;
}

/* ---- atrous convolutions ------------------------------------------------------------------ */

/* The op reading tensor t, when exactly one does and t is not a graph output; else -1. */
static int sole_reader(const vki_model *m, int t) {
    if (vki_model_is_output(m, t)) return -1;
    int reader = -1;
    for (int o = 0; o < m->n_ops; o++)
        for (int i = 0; i < m->ops[o].n_inputs; i++)
            if (m->ops[o].inputs[i] == t) {
                if (reader >= 0 && reader != o) return -1;
                reader = o;
            }
    return reader;
}

/* The int32 constant of n values at input `slot` of op, or NULL. */
static const int32_t *int_values(const vki_model *m, const vki_op *op, int slot, size_t n) {
    if (slot >= op->n_inputs || op->inputs[slot] < 0) return NULL;
    const vki_tensor *t = &m->tensors[op->inputs[slot]];
    if (!t->data || t->dtype != VKI_DTYPE_INT32 || vki_tensor_elements(t) != n ||
        t->data_bytes < n * sizeof(int32_t))
        return NULL;
    return t->data;
}

/* SPACE_TO_BATCH_ND -> CONV_2D or DEPTHWISE_CONV_2D (VALID, stride 1) -> BATCH_TO_SPACE_ND
 * with one block is how older converters wrote a dilated convolution (atrous, DeepLab):
 * the convolution runs on the blocks in the batch. The loader writes it back as it means,
 * a PAD (the paddings less the crops) and the convolution dilated by the block, so the
 * graph stays batch 1 and the PAD folds into the convolution's window at build. Output
 * row y of both reads padded input rows y + i*block, so the results are the same sums. */
static vki_status fold_atrous(loader *L) {
    vki_model *m = L->m;
    unsigned char *drop = NULL;
    for (int s = 0; s < m->n_ops; s++) {
        vki_op *stb = &m->ops[s];
        if (stb->code != VKI_OP_SPACE_TO_BATCH_ND || stb->n_inputs != 3 || stb->n_outputs != 1 ||
            stb->inputs[0] < 0)
            continue;
        const vki_tensor *x = &m->tensors[stb->inputs[0]];
        const int32_t *block = int_values(m, stb, 1, 2), *pads = int_values(m, stb, 2, 4);
        if (x->rank != 4 || x->shape[0] != 1 || x->data || !block || !pads) continue;
        int c = sole_reader(m, stb->outputs[0]);
        if (c < 0) continue;
        vki_op *conv = &m->ops[c];
        if ((conv->code != VKI_OP_CONV_2D && conv->code != VKI_OP_DEPTHWISE_CONV_2D) ||
            conv->n_inputs < 2 || conv->inputs[1] < 0 ||
            conv->inputs[0] != stb->outputs[0] || conv->n_outputs != 1 ||
            conv->opt.conv.padding != VKI_PAD_VALID || conv->opt.conv.stride_h != 1 ||
            conv->opt.conv.stride_w != 1 || conv->opt.conv.dilation_h > 1 ||
            conv->opt.conv.dilation_w > 1)
            continue;
        int b = sole_reader(m, conv->outputs[0]);
        if (b < 0) continue;
        vki_op *bts = &m->ops[b];
        const int32_t *block2 = int_values(m, bts, 1, 2), *crops = int_values(m, bts, 2, 4);
        if (bts->code != VKI_OP_BATCH_TO_SPACE_ND || bts->inputs[0] != conv->outputs[0] ||
            bts->n_outputs != 1 || !block2 || !crops || block2[0] != block[0] ||
            block2[1] != block[1] || block[0] < 1 || block[1] < 1)
            continue;
        int p[4];
        for (int i = 0; i < 4; i++) p[i] = pads[i] - crops[i];
        if (p[0] < 0 || p[1] < 0 || p[2] < 0 || p[3] < 0) continue;
        /* The dilated convolution's output must be the BATCH_TO_SPACE_ND's. */
        const vki_tensor *w = &m->tensors[conv->inputs[1]], *y = &m->tensors[bts->outputs[0]];
        if (w->rank != 4 || y->rank != 4) continue;
        int oh = x->shape[1] + p[0] + p[1] - (w->shape[1] - 1) * block[0];
        int ow = x->shape[2] + p[2] + p[3] - (w->shape[2] - 1) * block[1];
        if (y->shape[0] != 1 || y->shape[1] != oh || y->shape[2] != ow) continue;
        if (!drop && !(drop = vki_calloc((size_t)m->n_ops, 1))) return oom(L, "atrous convolutions");
        int32_t pad_values[8] = {0, 0, p[0], p[1], p[2], p[3], 0, 0};
        int pad_t = vki_model_add_tensor(m, "atrous paddings", VKI_DTYPE_INT32, 2, (int[]){4, 2},
                                         pad_values, sizeof pad_values);
        if (pad_t < 0) {
            free(drop);
            return oom(L, "atrous paddings");
        }
        /* Pointers into m->tensors moved; ops did not. */
        vki_tensor *t = &m->tensors[stb->outputs[0]];
        const vki_tensor *xin = &m->tensors[stb->inputs[0]];
        t->shape[0] = 1;
        t->shape[1] = xin->shape[1] + p[0] + p[1];
        t->shape[2] = xin->shape[2] + p[2] + p[3];
        stb->code = VKI_OP_PAD;
        stb->n_inputs = 2;
        stb->inputs[1] = pad_t;
        conv->opt.conv.dilation_h = block[0];
        conv->opt.conv.dilation_w = block[1];
        conv->outputs[0] = bts->outputs[0];
        drop[b] = 1;
    }
    if (!drop) return VKI_OK;
    int kept = 0;
    for (int o = 0; o < m->n_ops; o++)
        if (!drop[o]) m->ops[kept++] = m->ops[o];
    m->n_ops = kept;
    free(drop);
    return drop_unused_tensors(L);
}

/* ---- int8 activations in the q domain ---------------------------------------------------- */

static bool same_grid(const vki_tensor *a, const vki_tensor *b) {
    return a->quant_scale == b->quant_scale && a->quant_zero == b->quant_zero &&
           a->quant_min == b->quant_min && a->quant_max == b->quant_max;
}

/* Ops whose outputs are some of their inputs' values (or the zero point, for PAD): on the
 * inputs' grid already, they need no rounding step. */
static bool moves_values(vki_op_code code) {
    switch (code) {
    case VKI_OP_RESHAPE: case VKI_OP_SQUEEZE: case VKI_OP_EXPAND_DIMS: case VKI_OP_TRANSPOSE:
    case VKI_OP_MAX_POOL_2D: case VKI_OP_CONCATENATION: case VKI_OP_GATHER: case VKI_OP_SPLIT:
    case VKI_OP_SPLIT_V: case VKI_OP_PACK: case VKI_OP_UNPACK: case VKI_OP_STRIDED_SLICE:
    case VKI_OP_SLICE: case VKI_OP_PAD: case VKI_OP_MIRROR_PAD: case VKI_OP_TILE:
    case VKI_OP_BROADCAST_TO: case VKI_OP_DEPTH_TO_SPACE: case VKI_OP_SPACE_TO_DEPTH:
    case VKI_OP_SPACE_TO_BATCH_ND: case VKI_OP_BATCH_TO_SPACE_ND:
    case VKI_OP_RESIZE_NEAREST_NEIGHBOR: case VKI_OP_REVERSE_V2: case VKI_OP_MAXIMUM:
    case VKI_OP_MINIMUM:
        return true;
    default:
        return false;
    }
}

static bool on_grid_already(const vki_model *m, const vki_op *op, const vki_tensor *out) {
    if (!moves_values(op->code)) return false;
    /* Every float operand a quantized activation on the output's grid (a float constant
     * holds real values, not q - zero point); index operands (shapes, paddings) as they are. */
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *t = op->inputs[i] >= 0 ? &m->tensors[op->inputs[i]] : NULL;
        if (t && t->dtype == VKI_DTYPE_FLOAT32 && (t->data || !same_grid(t, out))) return false;
    }
    return true;
}

/* A float copy of tensor t (same name and shape, no grid); -1 on OOM. */
static int float_twin(vki_model *m, int t) {
    vki_tensor copy = m->tensors[t];
    int u = vki_model_add_tensor(m, copy.name, VKI_DTYPE_FLOAT32, copy.rank, copy.shape, NULL, 0);
    if (u >= 0) m->tensors[u].dynamic_dims = copy.dynamic_dims;
    return u;
}

static bool quantized_activation(const vki_model *m, int t) {
    return t >= 0 && !m->tensors[t].data && vki_tensor_quantized(&m->tensors[t]);
}

/* The op reads and writes its quantized tensors in the q domain as they are: an integer
 * form (vki_op_def.integer), a QUANTIZE or DEQUANTIZE, or an op that moves values of one
 * grid. */
static bool runs_on_q(const vki_model *m, const vki_op *op) {
    /* A requantization: a table, on one type's grids or across int8 and uint8. */
    if (op->code == VKI_OP_QUANTIZE)
        return !quantized_activation(m, op->inputs[0]) || vki_int8_table_ok(m, op) ||
               vki_int8_requantize_types_ok(m, op);
    if (op->code == VKI_OP_DEQUANTIZE) return true;
    const vki_op_def *def = vki_op_find(op);
    if (def && def->integer && def->integer(m, op)) return true;
    for (int k = 0; k < op->n_outputs; k++) {
        const vki_tensor *out = &m->tensors[op->outputs[k]];
        if (vki_tensor_quantized(out) && !on_grid_already(m, op, out)) return false;
    }
    /* A mover with a quantized input and a float output converts. */
    for (int k = 0; k < op->n_outputs; k++)
        if (!vki_tensor_quantized(&m->tensors[op->outputs[k]])) {
            for (int i = 0; i < op->n_inputs; i++)
                if (quantized_activation(m, op->inputs[i])) return false;
        }
    return true;
}

/* A DEQUANTIZE or QUANTIZE step from tensor `from` to tensor `to`, numbered as op file_index. */
static vki_op conversion(vki_op_code code, int file_index, int from, int to) {
    return (vki_op){.code = code, .file_index = file_index, .n_inputs = 1, .n_outputs = 1,
                    .inputs = {from}, .outputs = {to}};
}

/* int8 and uint8 activations hold q - zero point (whole numbers, exact in float16 too), as
 * TFLite's integer kernels see them. Ops that run on them as they are (runs_on_q) keep
 * them; any other op gets float twins: a DEQUANTIZE before it for each quantized input, a
 * QUANTIZE after it for each quantized output, and it computes in float as TFLite's GPU
 * delegate would. Graph inputs and outputs stay float real values: a QUANTIZE on entry,
 * a DEQUANTIZE at the exit. */
static vki_status lower_quantized(loader *L) {
    vki_model *m = L->m;
    int steps = 0;
    for (int i = 0; i < m->n_inputs; i++) steps += quantized_activation(m, m->inputs[i]);
    for (int i = 0; i < m->n_outputs; i++) steps += quantized_activation(m, m->outputs[i]);
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op *op = &m->ops[o];
        for (int k = 0; k < op->n_inputs; k++) steps += quantized_activation(m, op->inputs[k]);
        for (int k = 0; k < op->n_outputs; k++) steps += quantized_activation(m, op->outputs[k]);
    }
    if (!steps) return VKI_OK;
    vki_op *ops = vki_calloc((size_t)(m->n_ops + steps), sizeof *ops);
    if (!ops) return oom(L, "quantization steps");
    int n = 0;
    vki_status st = VKI_OK;
    for (int i = 0; i < m->n_inputs && st == VKI_OK; i++) {
        int t = m->inputs[i];
        if (!quantized_activation(m, t)) continue;
        int u = float_twin(m, t);
        if (u < 0) { st = oom(L, "quantization steps"); break; }
        ops[n++] = conversion(VKI_OP_QUANTIZE, -1, u, t);
        m->inputs[i] = u;
    }
    for (int o = 0; o < m->n_ops && st == VKI_OK; o++) {
        vki_op op = m->ops[o];
        if (runs_on_q(m, &op)) {
            ops[n++] = op;
            continue;
        }
        for (int k = 0; k < op.n_inputs && st == VKI_OK; k++) {
            int t = op.inputs[k];
            if (!quantized_activation(m, t)) continue;
            int u = float_twin(m, t);
            if (u < 0) { st = oom(L, "quantization steps"); break; }
            ops[n++] = conversion(VKI_OP_DEQUANTIZE, op.file_index, t, u);
            op.inputs[k] = u;
        }
        int at = n;
        ops[n++] = op;
        for (int k = 0; k < op.n_outputs && st == VKI_OK && op.code != VKI_OP_QUANTIZE; k++) {
            int t = op.outputs[k];
            if (!quantized_activation(m, t)) continue;
            int u = float_twin(m, t);
            if (u < 0) { st = oom(L, "quantization steps"); break; }
            ops[at].outputs[k] = u;
            ops[n++] = conversion(VKI_OP_QUANTIZE, op.file_index, u, t);
        }
    }
    for (int i = 0; i < m->n_outputs && st == VKI_OK; i++) {
        int t = m->outputs[i];
        if (!quantized_activation(m, t)) continue;
        int u = float_twin(m, t);
        if (u < 0) { st = oom(L, "quantization steps"); break; }
        ops[n++] = conversion(VKI_OP_DEQUANTIZE, -1, t, u);
        m->outputs[i] = u;
    }
    if (st != VKI_OK) {
        free(ops);
        return st;
    }
    free(m->ops);
    m->ops = ops;
    m->n_ops = n;
    return VKI_OK;
}

/* ---- wide ops ------------------------------------------------------------------------ */

/* A tensor like `like` (its type, name and grid) with extent n along `axis`; -1 on OOM. */
static int part_tensor(vki_model *m, int like, int axis, int n) {
    vki_tensor t = m->tensors[like];
    t.shape[axis] = n;
    int u = vki_model_add_tensor(m, t.name, t.dtype, t.rank, t.shape, NULL, 0);
    if (u < 0) return -1;
    vki_tensor *v = &m->tensors[u];
    v->quant_scale = t.quant_scale;
    v->quant_zero = t.quant_zero;
    v->quant_min = t.quant_min;
    v->quant_max = t.quant_max;
    return u;
}

/* The ops that replace `op` (n_inputs above `limit`) in `out`; returns how many, -1 on OOM.
 * ADD_N: a chain that sums in the file's order, each link taking the sum so far and the
 * next inputs. CONCATENATION: groups of `limit` inputs concatenated into parts on the
 * output's grid (uint8 inputs on other grids requantize in their group, as TFLite does
 * onto the output's grid), then the parts. PACK: groups packed into parts, then the parts
 * concatenated along the new axis. */
static int split_wide(vki_model *m, const vki_op *op, int limit, vki_op *out) {
    const int n = op->n_inputs, group = limit < 2 ? 2 : limit;
    int k = 0;
    if (op->code == VKI_OP_ADD_N) {
        int sum = -1;
        for (int at = 0; at < n;) {
            vki_op link = *op;
            int j = 0;
            if (sum >= 0) link.inputs[j++] = sum;
            for (; j < group && at < n; j++) link.inputs[j] = op->inputs[at++];
            link.n_inputs = j;
            if (at < n) {
                const vki_tensor *o = &m->tensors[op->outputs[0]];
                sum = part_tensor(m, op->outputs[0], 0, o->rank ? o->shape[0] : 1);
                if (sum < 0) return -1;
                link.outputs[0] = sum;
            }
            out[k++] = link;
        }
        return k;
    }
    const vki_tensor *o = &m->tensors[op->outputs[0]];
    const bool pack = op->code == VKI_OP_PACK;
    int axis = pack ? op->opt.pack.axis : op->opt.concat.axis;
    if (axis < 0) axis += o->rank;
    vki_op cat = *op;
    cat.code = VKI_OP_CONCATENATION;
    cat.opt.concat.axis = axis;
    cat.opt.concat.activation = VKI_ACT_NONE;
    cat.n_inputs = 0;
    for (int at = 0; at < n;) {
        vki_op part = *op;
        int j = 0, extent = 0;
        for (; j < group && at < n; j++, at++) {
            part.inputs[j] = op->inputs[at];
            extent += pack ? 1 : m->tensors[op->inputs[at]].shape[axis];
        }
        part.n_inputs = j;
        int t = part_tensor(m, op->outputs[0], axis, extent);
        if (t < 0) return -1;
        part.outputs[0] = t;
        out[k++] = part;
        cat.inputs[cat.n_inputs++] = t;
    }
    out[k++] = cat;
    return k;
}

/* The most inputs op binds in one dispatch where the loader can cut it (a CONCATENATION,
 * PACK or ADD_N of tensors that exist, with an axis in range), INT_MAX where it need not
 * or cannot: validation then names what is wrong. */
static int wide_limit(const vki_model *m, const vki_op *op) {
    if (op->n_inputs <= VKI_ADD_N_MAX_INPUTS || op->n_outputs != 1 || op->outputs[0] < 0 ||
        (op->code != VKI_OP_CONCATENATION && op->code != VKI_OP_PACK && op->code != VKI_OP_ADD_N))
        return INT_MAX;
    for (int i = 0; i < op->n_inputs; i++)
        if (op->inputs[i] < 0) return INT_MAX;
    const int rank = m->tensors[op->outputs[0]].rank;
    if (op->code != VKI_OP_ADD_N) {
        int axis = op->code == VKI_OP_PACK ? op->opt.pack.axis : op->opt.concat.axis;
        if (axis < -rank || axis >= rank) return INT_MAX;
        if (op->code == VKI_OP_CONCATENATION && axis < 0) return INT_MAX;
        for (int i = 0; i < op->n_inputs; i++)
            if (m->tensors[op->inputs[i]].rank != rank - (op->code == VKI_OP_PACK)) return INT_MAX;
    }
    return vki_op_max_inputs(m, op);
}

/* Ops with more inputs than their kernels bind in one dispatch (vki_op_max_inputs) become
 * chains of ops that bind few enough, before the integer lowering, so each link takes the
 * integer form the whole op would. The links keep the op's file index. */
static vki_status split_wide_ops(loader *L) {
    vki_model *m = L->m;
    int extra = 0;
    for (int o = 0; o < m->n_ops; o++) {
        int limit = wide_limit(m, &m->ops[o]);
        if (m->ops[o].n_inputs > limit) extra += m->ops[o].n_inputs / (limit - 1) + 2;
    }
    if (!extra) return VKI_OK;
    vki_op *ops = vki_calloc((size_t)(m->n_ops + extra), sizeof *ops);
    if (!ops) return oom(L, "wide ops");
    int n = 0;
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op op = m->ops[o];
        int limit = wide_limit(m, &op);
        if (op.n_inputs <= limit) {
            ops[n++] = op;
            continue;
        }
        int k = split_wide(m, &op, limit, ops + n);
        if (k < 0) {
            free(ops);
            return oom(L, "wide ops");
        }
        n += k;
    }
    free(m->ops);
    m->ops = ops;
    m->n_ops = n;
    return VKI_OK;
}

static vki_status fold_constants(loader *L) {
    vki_status st = fold_constant_ops(L);
    if (st == VKI_OK) st = drop_unused_tensors(L);
    if (st == VKI_OK) st = convert_half_constants(L);
    if (st == VKI_OK) st = convert_index_constants(L);
    if (st == VKI_OK) st = fold_atrous(L);
    if (st == VKI_OK) st = split_wide_ops(L);
    if (st == VKI_OK) st = lower_quantized(L);
    return st;
}

/* ---- entry points ------------------------------------------------------------------- */

/* One subgraph of the file (`subgraph`, or the signature's) as a model of its own. */
static vki_status parse_one(const void *data, size_t size, const char *name, const char *signature,
                            uint32_t subgraph, bool is_child, vki_model **out) {
    *out = NULL;
    loader L = {.name = name, .sg = subgraph};
    vki_fb_init(&L.fb, data, size);
    L.const_limit = 16 * (uint64_t)size + (16u << 20);
    L.m = vki_model_new(name);
    if (!L.m) return oom(&L, "the model");
    L.m->is_child = is_child;
    vki_status st = read_model(&L, signature);
    L.m->subgraph = (int)L.sg;
    if (st == VKI_OK) st = fold_constants(&L);
    free(L.opcodes);
    if (st != VKI_OK) {
        vki_model_destroy(L.m);
        return st;
    }
    *out = L.m;
    return VKI_OK;
}

vki_status vki_tflite_parse(const void *data, size_t size, const char *name, vki_model **out) {
    if (out) *out = NULL;
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_tflite_parse: out is NULL");
    if (!data) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_tflite_parse: data is NULL");
    if (!name) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_tflite_parse: name is NULL");
    return parse_one(data, size, name, NULL, 0, false, out);
}

/* The subgraphs control flow runs, each loaded once (named "<model>: subgraph <i>"), and
 * every op naming one checked against its inputs and outputs. */
static vki_status load_subgraphs(const void *data, size_t size, vki_model *root) {
    vki_model **list = vki_calloc((size_t)root->n_file_subgraphs + 1, sizeof *list);
    root->subgraphs = vki_calloc((size_t)root->n_file_subgraphs + 1, sizeof *root->subgraphs);
    if (!list || !root->subgraphs) {
        free(list);
        return vki_fail_oom("subgraphs");
    }
    int n = 0;
    list[n++] = root;
    vki_status st = VKI_OK;
    for (int k = 0; k < n && !st; k++) {
        vki_model *m = list[k];
        for (int o = 0; o < m->n_ops && !st; o++) {
            const vki_op *op = &m->ops[o];
            for (int j = 0; j < vki_op_subgraph_count(op) && !st; j++) {
                int sg = op->opt.control.subgraph[j];
                if (sg < 0 || sg >= root->n_file_subgraphs || sg == root->subgraph) {
                    st = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "names subgraph %d (the model "
                                     "has %d; subgraph %d is the one loaded)", sg,
                                     root->n_file_subgraphs, root->subgraph);
                    break;
                }
                if (root->subgraphs[sg]) continue;
                char name[160];
                snprintf(name, sizeof name, "%s: subgraph %d", root->name, sg);
                vki_model *child;
                st = parse_one(data, size, name, NULL, (uint32_t)sg, true, &child);
                if (st) break;
                child->subgraphs = root->subgraphs;
                child->n_file_subgraphs = root->n_file_subgraphs;
                root->subgraphs[sg] = child;
                list[n++] = child;
                st = vki_model_validate(child);
            }
        }
    }
    for (int k = 0; k < n && !st; k++)
        for (int o = 0; o < list[k]->n_ops && !st; o++)
            if (vki_op_subgraph_count(&list[k]->ops[o])) st = vki_op_check_subgraphs(list[k], o);
    free(list);
    return st;
}

static vki_status load(const void *data, size_t size, const char *name, const char *signature,
                       vki_model **out) {
    vki_model *m;
    vki_status st = parse_one(data, size, name, signature, 0, false, &m);
    if (st != VKI_OK) return st;
    st = vki_model_validate(m);
    if (st == VKI_OK) st = load_subgraphs(data, size, m);
    if (st != VKI_OK) {
        vki_model_destroy(m);
        return st;
    }
    *out = m;
    return VKI_OK;
}

vki_status vki_model_load_memory(const void *data, size_t size, const char *name,
                                 vki_model **out) {
    return vki_model_load_signature_memory(data, size, name, NULL, out);
}

vki_status vki_model_load_signature_memory(const void *data, size_t size, const char *name,
                                           const char *signature, vki_model **out) {
    if (out) *out = NULL;
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_load_memory: out is NULL");
    if (!data) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_load_memory: data is NULL");
    if (!name) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_load_memory: name is NULL");
    return load(data, size, name, signature, out);
}

static const char *base_name(const char *path) {
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

vki_status vki_read_whole_file(const char *path, uint8_t **buf, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return vki_fail(VKI_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *data = NULL;
    size_t len = 0, cap = 0;
    /* Read in growing chunks rather than trusting ftell, which fails on pipes. */
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? cap * 2 : (size_t)1 << 20;
            uint8_t *grown = ncap > cap ? vki_realloc(data, ncap) : NULL;
            if (!grown) {
                free(data);
                fclose(f);
                return vki_fail_oom(path);
            }
            data = grown;
            cap = ncap;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int failed = ferror(f);
    int err = errno;
    fclose(f);
    if (failed) {
        free(data);
        return vki_fail(VKI_ERROR_IO, "%s: read failed: %s", path, strerror(err));
    }
    *buf = data;
    *size = len;
    return VKI_OK;
}

/* ---- listing ops ------------------------------------------------------------------- */

static bool is_folded(int32_t code) {
#define FOLDED_(name, value) case value:
    switch (code) { VKI_FOLDED_OP_LIST(FOLDED_) return code != VKI_OP_CUSTOM; }
#undef FOLDED_
    return false;
}

static vki_status list_ops(loader *L, vki_op_entry *out, int max, int *count) {
    vki_fb_table model = {0}, sg = {0}, t;
    vki_fb_vec subgraphs, ops;
    vki_status st = read_header(L, &model);
    if (st != VKI_OK) return st;
    if (!vki_fb_vec_field(&model, MODEL_SUBGRAPHS, 4, &subgraphs)) return bad_fb(L, "subgraphs");
    if (subgraphs.len == 0) return bad(L, VKI_ERROR_MODEL_FORMAT, "model has no subgraphs");
    if (!vki_fb_vec_table(&L->fb, &subgraphs, 0, &sg)) return bad_fb(L, "subgraph 0");
    if ((st = read_opcodes(L, &model)) != VKI_OK) return st;
    if (!vki_fb_vec_field(&sg, SG_OPERATORS, 4, &ops)) return bad_fb(L, "subgraph 0: operators");
    if (ops.len > INT_MAX)
        return bad(L, VKI_ERROR_MODEL_FORMAT, "subgraph 0: %u operators is too many", ops.len);
    for (uint32_t i = 0; i < ops.len && (int)i < max; i++) {
        uint32_t oc;
        if (!vki_fb_vec_table(&L->fb, &ops, i, &t)) return bad_fb(L, "op %u", i);
        if (!vki_fb_u32(&t, OP_OPCODE_INDEX, 0, &oc)) return bad_fb(L, "op %u: opcode_index", i);
        if (oc >= L->n_opcodes)
            return bad(L, VKI_ERROR_MODEL_FORMAT, "op %u: opcode index %u out of range (%u "
                       "operator codes)", i, oc, L->n_opcodes);
        const opcode_entry *e = &L->opcodes[oc];
        vki_op probe = {.code = (vki_op_code)e->code};
        memcpy(probe.custom_name, e->custom, sizeof probe.custom_name);
        vki_op_entry *o = &out[i];
        memset(o, 0, sizeof *o);
        o->index = (int)i;
        o->custom = e->code == VKI_OP_CUSTOM;
        const char *name = vki_tflite_builtin_name(e->code);
        if (o->custom) snprintf(o->name, sizeof o->name, "%s", e->custom);
        else if (name) snprintf(o->name, sizeof o->name, "%s", name);
        else snprintf(o->name, sizeof o->name, "builtin code %d", (int)e->code);
        /* A kernel of its own, or folded at load (DENSIFY). */
        o->supported = vki_op_find(&probe) != NULL || is_folded(e->code);
        o->on_cpu = vki_op_def_cpu(vki_op_find(&probe));
    }
    *count = (int)ops.len;
    return VKI_OK;
}

vki_status vki_model_list_ops_memory(const void *data, size_t size, vki_op_entry *out, int max,
                                     int *count) {
    if (count) *count = 0;
    if (!data || !count || max < 0 || (!out && max > 0))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_list_ops: %s",
                        !data ? "data is NULL" : !count ? "count is NULL"
                        : max < 0 ? "max is negative" : "out is NULL but max > 0");
    loader L = {.name = "model"};
    vki_fb_init(&L.fb, data, size);
    vki_status st = list_ops(&L, out, max, count);
    free(L.opcodes);
    return st;
}

vki_status vki_model_list_ops_file(const char *path, vki_op_entry *out, int max, int *count) {
    if (count) *count = 0;
    if (!path || !count || max < 0 || (!out && max > 0))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_list_ops_file: %s",
                        !path ? "path is NULL" : !count ? "count is NULL"
                        : max < 0 ? "max is negative" : "out is NULL but max > 0");
    uint8_t *buf = NULL;
    size_t size = 0;
    vki_status st = vki_read_whole_file(path, &buf, &size);
    if (st != VKI_OK) return st;
    loader L = {.name = base_name(path)};
    vki_fb_init(&L.fb, buf, size);
    st = list_ops(&L, out, max, count);
    free(L.opcodes);
    free(buf);
    return st;
}

vki_status vki_model_load_file(const char *path, vki_model **out) {
    return vki_model_load_signature_file(path, NULL, out);
}

vki_status vki_model_load_signature_file(const char *path, const char *signature, vki_model **out) {
    if (out) *out = NULL;
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_load_file: out is NULL");
    if (!path) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_load_file: path is NULL");
    uint8_t *buf = NULL;
    size_t size = 0;
    vki_status st = vki_read_whole_file(path, &buf, &size);
    if (st != VKI_OK) return st;
    st = load(buf, size, base_name(path), signature, out);
    free(buf);
    return st;
}
