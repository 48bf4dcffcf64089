/* test_loader.c: Criterion tests for the .tflite loader (engine/ir/tflite_loader.c).
 *
 * Real models come from $VKI_MODEL_DIR (default models/cache). Small models are written
 * by the forward FlatBuffer builder below, so each malformation can be made exactly:
 * it lays objects out parent-first and patches each uoffset once the child is written,
 * which keeps every offset positive as the format requires.
 */
#include "harness.h"
#include "loader.h"
#include "half.h"
#include "status.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- byte writer -------------------------------------------------------------------- */

typedef struct fbb {
    uint8_t *b;
    size_t n, cap;
} fbb;

static void put(fbb *f, const void *p, size_t k) {
    if (f->n + k > f->cap) {
        f->cap = (f->n + k) * 2 + 64;
        f->b = realloc(f->b, f->cap);
        cr_assert_not_null(f->b);
    }
    if (p) memcpy(f->b + f->n, p, k);
    else memset(f->b + f->n, 0, k);
    f->n += k;
}

static void pad_to(fbb *f, size_t a) {
    while (f->n % a) put(f, NULL, 1);
}

static void set_le(fbb *f, size_t at, uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; i++) f->b[at + i] = (uint8_t)(v >> (8 * i));
}

static size_t put_u32(fbb *f, uint32_t v) {
    pad_to(f, 4);
    size_t at = f->n;
    put(f, NULL, 4);
    set_le(f, at, v, 4);
    return at;
}

/* Points the uoffset at `at` to `target` (which must come later). */
static void link(fbb *f, size_t at, size_t target) {
    cr_assert(target > at);
    set_le(f, at, target - at, 4);
}

/* A table field: width 0 marks an unused entry; refs get their slot position in `at`. */
typedef struct fld {
    unsigned id, width;
    uint64_t v;
    size_t at;
} fld;

/* Writes a vtable and then the table it describes; returns the table position. */
static size_t put_table(fbb *f, fld *fs, int n) {
    unsigned max_id = 0, off = 4;
    uint16_t offs[32] = {0};
    for (int i = 0; i < n; i++) {
        if (!fs[i].width) continue;
        if (fs[i].id > max_id) max_id = fs[i].id;
        off = (off + fs[i].width - 1) / fs[i].width * fs[i].width;
        offs[fs[i].id] = (uint16_t)off;
        off += fs[i].width;
    }
    pad_to(f, 2);
    size_t vt = f->n;
    uint16_t hdr[2] = {(uint16_t)(4 + 2 * (max_id + 1)), (uint16_t)off};
    put(f, hdr, 4);
    put(f, offs, 2 * (max_id + 1));
    pad_to(f, 8);   /* tables start 8-aligned so 8-byte fields align relative to the start */
    size_t t = f->n;
    put(f, NULL, off);
    set_le(f, t, (uint32_t)(int32_t)(t - vt), 4);
    for (int i = 0; i < n; i++) {
        if (!fs[i].width) continue;
        fs[i].at = t + offs[fs[i].id];
        set_le(f, fs[i].at, fs[i].v, fs[i].width);
    }
    return t;
}

static size_t put_vec(fbb *f, const void *elems, uint32_t n, size_t esize) {
    size_t at = put_u32(f, n);
    put(f, elems, n * esize);
    return at;
}

static size_t put_str(fbb *f, const char *s) {
    size_t at = put_vec(f, s, (uint32_t)strlen(s), 1);
    put(f, NULL, 1);
    return at;
}

/* A vector of n uoffsets, to be linked later; element i is at returned + 4 + 4 i. */
static size_t put_refs(fbb *f, uint32_t n) {
    size_t at = put_u32(f, n);
    put(f, NULL, 4 * (size_t)n);
    return at;
}

/* ---- model description -------------------------------------------------------------- */

typedef struct tb_index { uint8_t type; uint32_t n; const int32_t *v; } tb_index;
typedef struct tb_dim { int8_t format; int32_t dense_size; tb_index seg, idx; } tb_dim;
typedef struct tb_sparsity {
    uint32_t n_order; const int32_t *order;
    uint32_t n_blocks; const int32_t *block_map;
    uint32_t n_dims; const tb_dim *dims;
} tb_sparsity;

typedef struct tb_tensor {
    const char *name;
    int8_t type;
    int rank;                   /* -1: no shape field */
    int32_t shape[10];
    uint32_t buffer;
    const tb_sparsity *sparsity;
} tb_tensor;

typedef struct tb_buffer {
    const void *data;
    uint32_t size;
    bool external;              /* large-model form: offset/size into the file's tail */
} tb_buffer;

typedef struct tb_opcode { int8_t deprecated; int32_t builtin; const char *custom; } tb_opcode;

typedef struct tb_op {
    uint32_t opcode;
    int n_in, n_out;
    int32_t in[VKI_MAX_OP_INPUTS + 1], out[6];   /* one past the limits: too_many_op_inputs */
    uint8_t opt_type;
    int n_opt;
    fld opt[8];
    const void *custom;         /* custom_options bytes, or NULL for none */
    uint32_t n_custom;
    bool custom_external;       /* large-model form: large_custom_options_offset/size */
} tb_op;

typedef struct tb_model {
    const char *ident;          /* NULL: "TFL3" */
    uint32_t version;           /* 0: 3 */
    int n_tensors, n_buffers, n_opcodes, n_ops, n_in, n_out;
    tb_tensor tensors[12];
    tb_buffer buffers[8];
    tb_opcode opcodes[8];
    tb_op ops[8];
    int32_t in[4], out[4];
} tb_model;

/* Where things landed, for tests that corrupt them afterwards. */
typedef struct tb_where {
    size_t model, tensors_vec, tensor0_name;
} tb_where;

static void put_index_vec(fbb *f, size_t slot, const tb_index *x) {
    fld vf[] = {{0, 4, 0, 0}};
    size_t t = put_table(f, vf, 1);
    link(f, slot, t);
    unsigned w = x->type == 1 ? 4 : x->type == 2 ? 2 : 1;
    size_t at = put_u32(f, x->n);
    link(f, vf[0].at, at);
    for (uint32_t i = 0; i < x->n; i++) {
        size_t p = f->n;
        put(f, NULL, w);
        set_le(f, p, (uint32_t)x->v[i], w);
    }
}

static void put_sparsity(fbb *f, size_t slot, const tb_sparsity *s) {
    fld sf[] = {{0, 4, 0, 0}, {1, s->n_blocks ? 4 : 0, 0, 0}, {2, 4, 0, 0}};
    link(f, slot, put_table(f, sf, 3));
    link(f, sf[0].at, put_vec(f, s->order, s->n_order, 4));
    if (s->n_blocks) link(f, sf[1].at, put_vec(f, s->block_map, s->n_blocks, 4));
    size_t dims = put_refs(f, s->n_dims);
    link(f, sf[2].at, dims);
    for (uint32_t i = 0; i < s->n_dims; i++) {
        const tb_dim *d = &s->dims[i];
        bool csr = d->format == 1;
        fld df[] = {{0, 1, (uint8_t)d->format, 0}, {1, 4, (uint32_t)d->dense_size, 0},
                    {2, csr ? 1 : 0, d->seg.type, 0}, {3, csr ? 4 : 0, 0, 0},
                    {4, csr ? 1 : 0, d->idx.type, 0}, {5, csr ? 4 : 0, 0, 0}};
        link(f, dims + 4 + 4 * i, put_table(f, df, 6));
        if (csr) {
            put_index_vec(f, df[3].at, &d->seg);
            put_index_vec(f, df[5].at, &d->idx);
        }
    }
}

static void put_tensors(fbb *f, const tb_model *s, size_t slot, tb_where *w) {
    size_t vec = put_refs(f, (uint32_t)s->n_tensors);
    link(f, slot, vec);
    w->tensors_vec = vec;
    for (int i = 0; i < s->n_tensors; i++) {
        const tb_tensor *t = &s->tensors[i];
        fld tf[] = {{0, t->rank >= 0 ? 4 : 0, 0, 0}, {1, 1, (uint8_t)t->type, 0},
                    {2, 4, t->buffer, 0}, {3, 4, 0, 0}, {6, t->sparsity ? 4 : 0, 0, 0}};
        link(f, vec + 4 + 4 * (size_t)i, put_table(f, tf, 5));
        if (t->rank >= 0) link(f, tf[0].at, put_vec(f, t->shape, (uint32_t)t->rank, 4));
        size_t name = put_str(f, t->name ? t->name : "");
        link(f, tf[3].at, name);
        if (i == 0) w->tensor0_name = name;
        if (t->sparsity) put_sparsity(f, tf[4].at, t->sparsity);
    }
}

/* External custom options go at the end of the file; their offset slots are patched then. */
static void put_ops(fbb *f, const tb_model *s, size_t slot, size_t *ext_slots) {
    size_t vec = put_refs(f, (uint32_t)s->n_ops);
    link(f, slot, vec);
    for (int i = 0; i < s->n_ops; i++) {
        const tb_op *o = &s->ops[i];
        bool inl = o->custom && !o->custom_external, ext = o->custom && o->custom_external;
        fld of[] = {{0, 4, o->opcode, 0}, {1, 4, 0, 0}, {2, 4, 0, 0},
                    {3, o->opt_type ? 1 : 0, o->opt_type, 0}, {4, o->n_opt ? 4 : 0, 0, 0},
                    {5, inl ? 4 : 0, 0, 0}, {9, ext ? 8 : 0, 0, 0},
                    {10, ext ? 8 : 0, o->n_custom, 0}};
        link(f, vec + 4 + 4 * (size_t)i, put_table(f, of, 8));
        ext_slots[i] = ext ? of[6].at : 0;
        link(f, of[1].at, put_vec(f, o->in, (uint32_t)o->n_in, 4));
        link(f, of[2].at, put_vec(f, o->out, (uint32_t)o->n_out, 4));
        if (o->n_opt) {
            fld opt[8];
            memcpy(opt, o->opt, sizeof opt);
            link(f, of[4].at, put_table(f, opt, o->n_opt));
        }
        if (inl) link(f, of[5].at, put_vec(f, o->custom, o->n_custom, 1));
    }
}

static void put_opcodes(fbb *f, const tb_model *s, size_t slot) {
    size_t vec = put_refs(f, (uint32_t)s->n_opcodes);
    link(f, slot, vec);
    for (int i = 0; i < s->n_opcodes; i++) {
        const tb_opcode *c = &s->opcodes[i];
        fld cf[] = {{0, 1, (uint8_t)c->deprecated, 0}, {1, c->custom ? 4 : 0, 0, 0},
                    {3, 4, (uint32_t)c->builtin, 0}};
        link(f, vec + 4 + 4 * (size_t)i, put_table(f, cf, 3));
        if (c->custom) link(f, cf[1].at, put_str(f, c->custom));
    }
}

/* External buffer data goes at the end of the file; their offset slots are patched then. */
static void put_buffers(fbb *f, const tb_model *s, size_t slot, size_t *ext_slots) {
    size_t vec = put_refs(f, (uint32_t)s->n_buffers);
    link(f, slot, vec);
    for (int i = 0; i < s->n_buffers; i++) {
        const tb_buffer *b = &s->buffers[i];
        bool inl = b->size && !b->external;
        fld bf[] = {{0, inl ? 4 : 0, 0, 0}, {1, b->external ? 8 : 0, 0, 0},
                    {2, b->external ? 8 : 0, b->size, 0}};
        link(f, vec + 4 + 4 * (size_t)i, put_table(f, bf, 3));
        ext_slots[i] = b->external ? bf[1].at : 0;
        if (inl) link(f, bf[0].at, put_vec(f, b->data, b->size, 1));
    }
}

static fbb build(const tb_model *s, tb_where *where) {
    fbb f = {0};
    tb_where w = {0};
    size_t ext[8] = {0}, op_ext[8] = {0};
    put_u32(&f, 0);
    put(&f, s->ident ? s->ident : "TFL3", 4);
    fld mf[] = {{0, 4, s->version ? s->version : 3, 0}, {1, 4, 0, 0}, {2, 4, 0, 0},
                {4, 4, 0, 0}};
    w.model = put_table(&f, mf, 4);
    link(&f, 0, w.model);
    put_opcodes(&f, s, mf[1].at);
    size_t sgs = put_refs(&f, 1);
    link(&f, mf[2].at, sgs);
    fld sf[] = {{0, 4, 0, 0}, {1, 4, 0, 0}, {2, 4, 0, 0}, {3, 4, 0, 0}};
    link(&f, sgs + 4, put_table(&f, sf, 4));
    put_tensors(&f, s, sf[0].at, &w);
    link(&f, sf[1].at, put_vec(&f, s->in, (uint32_t)s->n_in, 4));
    link(&f, sf[2].at, put_vec(&f, s->out, (uint32_t)s->n_out, 4));
    put_ops(&f, s, sf[3].at, op_ext);
    put_buffers(&f, s, mf[3].at, ext);
    for (int i = 0; i < s->n_buffers; i++) {
        if (!ext[i]) continue;
        pad_to(&f, 16);
        set_le(&f, ext[i], f.n, 8);
        put(&f, s->buffers[i].data, s->buffers[i].size);
    }
    for (int i = 0; i < s->n_ops; i++) {
        if (!op_ext[i]) continue;
        pad_to(&f, 16);
        set_le(&f, op_ext[i], f.n, 8);
        put(&f, s->ops[i].custom, s->ops[i].n_custom);
    }
    if (where) *where = w;
    return f;
}

/* ---- a tiny model: fp16 weights -> DEQUANTIZE -> CONV_2D -------------------------------- */

static const uint16_t tiny_w16[2] = {0x3c00, 0xc000};     /* 1.0, -2.0 */
static const float tiny_bias[1] = {0.5f};

/* tensors: 0 input [1,2,2,2], 1 weights fp16 [1,1,1,2], 2 weights f32, 3 bias, 4 output */
static tb_model tiny_model(void) {
    tb_model s = {
        .n_tensors = 5, .n_buffers = 3, .n_opcodes = 2, .n_ops = 2, .n_in = 1, .n_out = 1,
        .tensors = {
            {"input", 0, 4, {1, 2, 2, 2}, 0, NULL},
            {"w16", 1, 4, {1, 1, 1, 2}, 1, NULL},
            {"w", 0, 4, {1, 1, 1, 2}, 0, NULL},
            {"bias", 0, 1, {1}, 2, NULL},
            {"output", 0, 4, {1, 2, 2, 1}, 0, NULL},
        },
        .buffers = {{NULL, 0, false}, {tiny_w16, 4, false}, {tiny_bias, 4, false}},
        .opcodes = {{6, 6, NULL}, {3, 3, NULL}},
        .ops = {
            {.opcode = 0, .n_in = 1, .in = {1}, .n_out = 1, .out = {2}},
            {.opcode = 1, .n_in = 3, .in = {0, 2, 3}, .n_out = 1, .out = {4}, .opt_type = 1,
             .n_opt = 6, .opt = {{0, 1, 1, 0}, {1, 4, 2, 0}, {2, 4, 3, 0}, {3, 1, 3, 0},
                                 {4, 4, 1, 0}, {5, 4, 2, 0}}},
        },
        .in = {0}, .out = {4},
    };
    return s;
}

static vki_status parse_fbb(const fbb *f, vki_model **m) {
    return vki_tflite_parse(f->b ? (const void *)f->b : "", f->n, "tiny.tflite", m);
}

/* Asserts that `s` fails with `want` and a message containing `needle`. */
static void expect_error(const tb_model *s, vki_status want, const char *needle) {
    fbb f = build(s, NULL);
    vki_model *m = (vki_model *)1;
    vki_status st = parse_fbb(&f, &m);
    cr_expect_eq(st, want, "status %s, want %s (%s)", vki_status_name(st),
                 vki_status_name(want), vki_last_error());
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(),
              needle);
    free(f.b);
}

static void expect_bytes_error(const fbb *f, const char *needle) {
    vki_model *m = (vki_model *)1;
    vki_status st = parse_fbb(f, &m);
    cr_expect_eq(st, VKI_ERROR_MODEL_FORMAT, "status %s (%s)", vki_status_name(st),
                 vki_last_error());
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(),
              needle);
}

/* Properties every successfully parsed model must have, whatever the input was. */
static void check_invariants(const vki_model *m) {
    cr_assert_not_null(m);
    for (int i = 0; i < m->n_tensors; i++) {
        const vki_tensor *t = &m->tensors[i];
        cr_assert_not_null(t->name);
        cr_assert(t->rank >= 0 && t->rank <= VKI_MAX_RANK);
        cr_assert(!(t->data && t->dtype == VKI_DTYPE_FLOAT16), "float16 constant left");
        if (t->data && (t->dtype == VKI_DTYPE_FLOAT32 || t->dtype == VKI_DTYPE_INT32))
            cr_assert_eq(t->data_bytes, vki_tensor_elements(t) * 4);
    }
    for (int i = 0; i < m->n_ops; i++) {
        const vki_op *op = &m->ops[i];
        cr_assert(op->n_inputs >= 0 && op->n_inputs <= VKI_MAX_OP_INPUTS);
        cr_assert(op->n_outputs >= 0 && op->n_outputs <= VKI_MAX_OP_OUTPUTS);
        for (int k = 0; k < op->n_inputs; k++)
            cr_assert(op->inputs[k] >= -1 && op->inputs[k] < m->n_tensors);
        for (int k = 0; k < op->n_outputs; k++)
            cr_assert(op->outputs[k] >= 0 && op->outputs[k] < m->n_tensors);
    }
    for (int k = 0; k < m->n_inputs; k++) cr_assert(m->inputs[k] >= 0 && m->inputs[k] < m->n_tensors);
    for (int k = 0; k < m->n_outputs; k++)
        cr_assert(m->outputs[k] >= 0 && m->outputs[k] < m->n_tensors);
}

static int find_tensor(const vki_model *m, const char *name) {
    for (int i = 0; i < m->n_tensors; i++)
        if (strcmp(m->tensors[i].name, name) == 0) return i;
    return -1;
}

/* ---- real model --------------------------------------------------------------------- */


#define FACE_SHORT "face_detection_short_range.tflite"

static uint8_t *need_model(const char *file, size_t *size) {
    uint8_t *b = harness_read_model(file, size);
    if (!b) cr_skip_test("%s not found in $VKI_MODEL_DIR", file);
    return b;
}

enum {
    CV = VKI_OP_CONV_2D, DW = VKI_OP_DEPTHWISE_CONV_2D, AD = VKI_OP_ADD, RL = VKI_OP_RELU,
    PD = VKI_OP_PAD, MP = VKI_OP_MAX_POOL_2D, RS = VKI_OP_RESHAPE, CC = VKI_OP_CONCATENATION,
};

/* BlazeFace short range after folding its 74 float16 DEQUANTIZE ops. Blocks are
 * depthwise 3x3 + 1x1 conv + residual ADD + RELU; where channels grow, the residual
 * goes through a channel PAD; where resolution halves, through a 2x2 MAX_POOL. */
static const int face_short_ops[] = {
    CV, RL,                                     /* 5x5 s2 stem, 128 -> 64 */
    DW, CV, AD, RL,                             /* 24 */
    DW, CV, PD, AD, RL,                         /* 24 -> 28 */
    DW, MP, CV, PD, AD, RL,                     /* s2 -> 32x32, 28 -> 32 */
    DW, CV, PD, AD, RL,                         /* 32 -> 36 */
    DW, CV, PD, AD, RL,                         /* 36 -> 42 */
    DW, MP, CV, PD, AD, RL,                     /* s2 -> 16x16, 42 -> 48 */
    DW, CV, PD, AD, RL,                         /* 48 -> 56 */
    DW, CV, PD, AD, RL,                         /* 56 -> 64 */
    DW, CV, PD, AD, RL,                         /* 64 -> 72 */
    DW, CV, PD, AD, RL,                         /* 72 -> 80 */
    DW, CV, PD, AD, RL,                         /* 80 -> 88 */
    DW, MP, CV, PD, AD, RL,                     /* s2 -> 8x8, 88 -> 96 */
    DW, CV, AD, RL,                             /* 96 x 4 */
    DW, CV, AD, RL,
    DW, CV, AD, RL,
    DW, CV, AD, RL,
    CV, CV, CV, CV,                             /* heads: 16x16 and 8x8, scores and boxes */
    RS, RS, RS, RS,
    CC, CC,                                     /* classificators, regressors */
};

Test(loader, face_short_range_ops) {
    size_t size;
    uint8_t *b = need_model(FACE_SHORT, &size);
    vki_model *m;
    vki_status st = vki_tflite_parse(b, size, FACE_SHORT, &m);
    cr_assert_eq(st, VKI_OK, "%s", vki_last_error());
    check_invariants(m);
    cr_expect_str_eq(m->name, FACE_SHORT);
    int n = (int)(sizeof face_short_ops / sizeof face_short_ops[0]);
    cr_assert_eq(m->n_ops, n, "%d ops", m->n_ops);
    for (int i = 0; i < n; i++)
        cr_expect_eq((int)m->ops[i].code, face_short_ops[i], "op %d is %s, want %s", i,
                     vki_op_name(m->ops[i].code), vki_op_name(face_short_ops[i]));

    cr_assert_eq(m->n_inputs, 1);
    const vki_tensor *in = &m->tensors[m->inputs[0]];
    cr_expect_eq(in->rank, 4);
    cr_expect(in->shape[0] == 1 && in->shape[1] == 128 && in->shape[2] == 128 &&
              in->shape[3] == 3);
    cr_expect_null(in->data);

    cr_assert_eq(m->n_outputs, 2);
    const vki_tensor *reg = &m->tensors[m->outputs[0]], *cls = &m->tensors[m->outputs[1]];
    cr_expect_str_eq(reg->name, "regressors");
    cr_expect_str_eq(cls->name, "classificators");
    cr_expect(reg->rank == 3 && reg->shape[0] == 1 && reg->shape[1] == 896 && reg->shape[2] == 16);
    cr_expect(cls->rank == 3 && cls->shape[0] == 1 && cls->shape[1] == 896 && cls->shape[2] == 1);

    /* Stem: 5x5 stride 2 SAME, weights folded to float32 [24,5,5,3]. */
    const vki_op *stem = &m->ops[0];
    cr_expect_eq(stem->opt.conv.padding, VKI_PAD_SAME);
    cr_expect(stem->opt.conv.stride_w == 2 && stem->opt.conv.stride_h == 2);
    cr_expect(stem->opt.conv.dilation_w == 1 && stem->opt.conv.dilation_h == 1);
    const vki_tensor *w = &m->tensors[stem->inputs[1]];
    cr_expect_eq(w->dtype, VKI_DTYPE_FLOAT32);
    cr_expect(w->rank == 4 && w->shape[0] == 24 && w->shape[1] == 5 && w->shape[2] == 5 &&
              w->shape[3] == 3);
    cr_expect_eq(w->data_bytes, 24 * 5 * 5 * 3 * sizeof(float));
    const vki_op *pool = &m->ops[12];
    cr_expect(pool->opt.pool.filter_w == 2 && pool->opt.pool.filter_h == 2 &&
              pool->opt.pool.stride_w == 2 && pool->opt.pool.stride_h == 2);
    cr_expect_eq(m->ops[n - 1].opt.concat.axis, 1);
    cr_expect_eq(m->ops[n - 2].opt.concat.axis, 1);

    for (int i = 0; i < m->n_ops; i++) cr_expect_neq(m->ops[i].code, VKI_OP_DEQUANTIZE);
    for (int i = 0; i < m->n_tensors; i++) {
        const vki_tensor *t = &m->tensors[i];
        cr_expect(!(t->data && t->dtype == VKI_DTYPE_FLOAT16), "tensor %d is float16", i);
        if (t->data && t->dtype == VKI_DTYPE_FLOAT32)
            for (size_t k = 0; k < t->data_bytes / 4; k++)
                cr_assert(isfinite(((const float *)t->data)[k]), "tensor %d non-finite", i);
    }
    vki_model_destroy(m);
    free(b);
}

Test(loader, truncated_prefixes_fail_cleanly) {
    size_t size;
    uint8_t *b = need_model(FACE_SHORT, &size);
    size_t len = 0;
    while (len < size) {
        /* An exact-size copy, so a read past the prefix is a sanitizer error. */
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, b, len);
        vki_model *m = (vki_model *)1;
        vki_status st = vki_tflite_parse(p, len, FACE_SHORT, &m);
        cr_assert_eq(st, VKI_ERROR_MODEL_FORMAT, "prefix %zu: %s", len, vki_status_name(st));
        cr_assert_null(m);
        cr_assert(vki_last_error()[0] != '\0', "prefix %zu: empty message", len);
        free(p);
        len += len < 4096 ? 1 : 997;
    }
    free(b);
}

/* The one generator (tuner/stats.h). */
static uint32_t xorshift(uint32_t *s) { return vki_xorshift32(s); }

/* Mostly near the ends of the file, where TFLite's converter puts the tables. */
static size_t pick_offset(uint32_t *rng, size_t size) {
    size_t window = size < 8192 ? size : 8192;
    switch (xorshift(rng) % 4) {
    case 0: return (size_t)(xorshift(rng) % window);
    case 1: return size - 1 - (size_t)(xorshift(rng) % window);
    default: return (size_t)(xorshift(rng) % size);
    }
}

static void mutate(uint8_t *p, size_t size, uint32_t *rng) {
    static const uint32_t words[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffc, 8, 99};
    int n = 1 + (int)(xorshift(rng) % 4);
    for (int k = 0; k < n; k++) {
        size_t at = pick_offset(rng, size);
        switch (xorshift(rng) % 3) {
        case 0: p[at] ^= (uint8_t)(1u << (xorshift(rng) % 8)); break;
        case 1: p[at] = (uint8_t)xorshift(rng); break;
        default: {
            uint32_t v = words[xorshift(rng) % (sizeof words / sizeof words[0])];
            for (int i = 0; i < 4 && at + (size_t)i < size; i++) p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
        }
        }
    }
}

Test(loader, random_mutations_never_crash, .timeout = 600) {
    size_t size;
    uint8_t *b = need_model(FACE_SHORT, &size);
    uint8_t *p = malloc(size);
    uint32_t rng = 0x9e3779b9u;
    int ok = 0, failed = 0;
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(p, b, size);
        mutate(p, size, &rng);
        vki_model *m = NULL;
        vki_status st = vki_tflite_parse(p, size, FACE_SHORT, &m);
        cr_assert(st == VKI_OK || st == VKI_ERROR_MODEL_FORMAT ||
                  st == VKI_ERROR_UNSUPPORTED_MODEL || st == VKI_ERROR_UNSUPPORTED_OP,
                  "iteration %d: %s %s", iter, vki_status_name(st), vki_last_error());
        if (st == VKI_OK) {
            check_invariants(m);
            vki_model_destroy(m);
            ok++;
        } else {
            cr_assert_null(m);
            cr_assert(vki_last_error()[0] != '\0');
            failed++;
        }
    }
    cr_log_info("mutations: %d parsed, %d rejected", ok, failed);
    free(p);
    free(b);
}

Test(loader, sparse_model_densifies) {
    size_t size;
    uint8_t *b = need_model("face_detection_full_range_sparse.tflite", &size);
    vki_model *m;
    vki_status st = vki_tflite_parse(b, size, "sparse", &m);
    cr_assert_eq(st, VKI_OK, "%s", vki_last_error());
    check_invariants(m);
    for (int i = 0; i < m->n_ops; i++) {
        cr_expect_neq(m->ops[i].code, VKI_OP_DENSIFY);
        cr_expect_neq(m->ops[i].code, VKI_OP_DEQUANTIZE);
    }
    vki_model_destroy(m);
    free(b);
}

/* ---- the tiny model ----------------------------------------------------------------- */

Test(loader, tiny_model_folds_dequantize) {
    tb_model s = tiny_model();
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    check_invariants(m);
    cr_assert_eq(m->n_ops, 1);
    cr_assert_eq(m->n_tensors, 4, "the float16 source is dropped");
    cr_expect_eq(find_tensor(m, "w16"), -1);
    const vki_op *op = &m->ops[0];
    cr_expect_eq(op->code, VKI_OP_CONV_2D);
    cr_expect_eq(op->opt.conv.padding, VKI_PAD_VALID);
    cr_expect_eq(op->opt.conv.stride_w, 2);
    cr_expect_eq(op->opt.conv.stride_h, 3);
    cr_expect_eq(op->opt.conv.activation, VKI_ACT_RELU6);
    cr_expect_eq(op->opt.conv.dilation_w, 1);
    cr_expect_eq(op->opt.conv.dilation_h, 2);
    const vki_tensor *w = &m->tensors[op->inputs[1]];
    cr_expect_str_eq(w->name, "w");
    cr_assert_eq(w->dtype, VKI_DTYPE_FLOAT32);
    cr_assert_eq(w->data_bytes, 8);
    cr_expect_eq(((const float *)w->data)[0], 1.0f);
    cr_expect_eq(((const float *)w->data)[1], -2.0f);
    const vki_tensor *bias = &m->tensors[op->inputs[2]];
    cr_expect_eq(((const float *)bias->data)[0], 0.5f);
    cr_expect_str_eq(m->tensors[m->inputs[0]].name, "input");
    cr_expect_str_eq(m->tensors[m->outputs[0]].name, "output");
    vki_model_destroy(m);
    free(f.b);
}

Test(loader, float16_constant_used_directly_is_converted) {
    tb_model s = tiny_model();
    s.ops[0] = s.ops[1];
    s.ops[0].in[1] = 1;                     /* conv reads the float16 weights itself */
    s.n_ops = 1;
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    const vki_tensor *w = &m->tensors[m->ops[0].inputs[1]];
    cr_expect_str_eq(w->name, "w16");
    cr_expect_eq(w->dtype, VKI_DTYPE_FLOAT32);
    cr_assert_eq(w->data_bytes, 8);
    cr_expect_eq(((const float *)w->data)[1], -2.0f);
    vki_model_destroy(m);
    free(f.b);
}

Test(loader, half_to_float_edge_cases) {
    cr_expect_eq(vki_half_to_float(0x0000), 0.0f);
    cr_expect(signbit(vki_half_to_float(0x8000)) && vki_half_to_float(0x8000) == 0.0f);
    cr_expect_eq(vki_half_to_float(0x3c00), 1.0f);
    cr_expect_eq(vki_half_to_float(0xc000), -2.0f);
    cr_expect_eq(vki_half_to_float(0x3555), 0.333251953125f);
    cr_expect_eq(vki_half_to_float(0x7bff), 65504.0f);              /* largest normal */
    cr_expect_eq(vki_half_to_float(0x0400), ldexpf(1.0f, -14));     /* smallest normal */
    cr_expect_eq(vki_half_to_float(0x0001), ldexpf(1.0f, -24));     /* smallest subnormal */
    cr_expect_eq(vki_half_to_float(0x03ff), 1023.0f * ldexpf(1.0f, -24));
    cr_expect_eq(vki_half_to_float(0x8200), -ldexpf(1.0f, -15));
    cr_expect(isinf(vki_half_to_float(0x7c00)) && vki_half_to_float(0x7c00) > 0);
    cr_expect(isinf(vki_half_to_float(0xfc00)) && vki_half_to_float(0xfc00) < 0);
    cr_expect(isnan(vki_half_to_float(0x7e00)));
    cr_expect(isnan(vki_half_to_float(0x7c01)));
    /* Every finite half converts exactly: doubling/halving by the exponent is exact. */
    for (uint32_t h = 0; h < 0x7c00; h++) {
        uint32_t e = h >> 10, man = h & 0x3ff;
        float want = e ? ldexpf(1.0f + (float)man / 1024.0f, (int)e - 15)
                       : ldexpf((float)man, -24);
        cr_assert_eq(vki_half_to_float((uint16_t)h), want, "0x%04x", h);
        cr_assert_eq(vki_half_to_float((uint16_t)(h | 0x8000)), -want, "0x%04x", h | 0x8000);
    }
}

Test(loader, options_pool_eltwise_concat_custom) {
    tb_model s = {
        .n_tensors = 5, .n_buffers = 1, .n_opcodes = 4, .n_ops = 4, .n_in = 2, .n_out = 1,
        .tensors = {
            {"a", 0, 4, {1, 4, 4, 2}, 0, NULL}, {"b", 0, 4, {1, 4, 4, 2}, 0, NULL},
            {"p", 0, 4, {1, 2, 2, 2}, 0, NULL}, {"c", 0, 4, {1, 4, 4, 4}, 0, NULL},
            {"x", 0, 4, {1, 4, 4, 4}, 0, NULL},
        },
        .opcodes = {{17, 17, NULL}, {0, 41, NULL}, {2, 2, NULL}, {32, 32, "MyCustomOp"}},
        .ops = {
            {.opcode = 0, .n_in = 1, .in = {0}, .n_out = 1, .out = {2}, .opt_type = 5,
             .n_opt = 6, .opt = {{0, 1, 1, 0}, {1, 4, 2, 0}, {2, 4, 2, 0}, {3, 4, 3, 0},
                                 {4, 4, 2, 0}, {5, 1, 1, 0}}},
            {.opcode = 1, .n_in = 2, .in = {0, 1}, .n_out = 1, .out = {1}, .opt_type = 28,
             .n_opt = 1, .opt = {{0, 1, 4, 0}}},
            {.opcode = 2, .n_in = 2, .in = {0, 1}, .n_out = 1, .out = {3}, .opt_type = 10,
             .n_opt = 2, .opt = {{0, 4, (uint32_t)-1, 0}, {1, 1, 2, 0}}},
            {.opcode = 3, .n_in = 3, .in = {3, -1, 2}, .n_out = 1, .out = {4}},
        },
        .in = {0, 1}, .out = {4},
    };
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    check_invariants(m);
    cr_assert_eq(m->n_ops, 4);
    const vki_pool_options *p = &m->ops[0].opt.pool;
    cr_expect_eq(m->ops[0].code, VKI_OP_MAX_POOL_2D);
    cr_expect(p->padding == VKI_PAD_VALID && p->stride_w == 2 && p->stride_h == 2 &&
              p->filter_w == 3 && p->filter_h == 2 && p->activation == VKI_ACT_RELU);
    cr_expect_eq(m->ops[1].code, VKI_OP_SUB, "builtin_code wins over the deprecated field");
    /* TFLite's float kernels ignore a fused TANH (their activation range knows RELU, RELU6
     * and RELU_N1_TO_1) and CONCATENATION never applies its activation: so does vkinfer. */
    cr_expect_eq(m->ops[1].opt.eltwise.activation, VKI_ACT_NONE, "a file's fused TANH is ignored");
    cr_expect_eq(m->ops[2].opt.concat.axis, 3, "axis -1 of rank 4");
    cr_expect_eq(m->ops[2].opt.concat.activation, VKI_ACT_NONE, "CONCATENATION's is ignored");
    cr_expect_eq(m->ops[3].code, VKI_OP_CUSTOM);
    cr_expect_str_eq(m->ops[3].custom_name, "MyCustomOp");
    cr_expect_eq(m->ops[3].inputs[1], -1);
    vki_model_destroy(m);
    free(f.b);
}

Test(loader, options_defaults_when_absent) {
    tb_model s = tiny_model();
    s.ops[1].opt_type = 0;
    s.ops[1].n_opt = 0;
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    const vki_conv_options *c = &m->ops[0].opt.conv;
    cr_expect(c->padding == VKI_PAD_SAME && c->stride_w == 0 && c->stride_h == 0 &&
              c->dilation_w == 1 && c->dilation_h == 1 && c->activation == VKI_ACT_NONE);
    vki_model_destroy(m);
    free(f.b);
}

Test(loader, depthwise_options) {
    tb_model s = tiny_model();
    s.opcodes[1] = (tb_opcode){4, 4, NULL};
    s.ops[1].opt_type = 2;
    s.ops[1].n_opt = 7;
    fld o[] = {{0, 1, 0, 0}, {1, 4, 1, 0}, {2, 4, 2, 0}, {3, 4, 2, 0}, {4, 1, 1, 0},
               {5, 4, 3, 0}, {6, 4, 4, 0}};
    memcpy(s.ops[1].opt, o, sizeof o);
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    const vki_conv_options *c = &m->ops[0].opt.conv;
    cr_expect_eq(m->ops[0].code, VKI_OP_DEPTHWISE_CONV_2D);
    cr_expect(c->padding == VKI_PAD_SAME && c->stride_w == 1 && c->stride_h == 2 &&
              c->depth_multiplier == 2 && c->activation == VKI_ACT_RELU &&
              c->dilation_w == 3 && c->dilation_h == 4);
    vki_model_destroy(m);
    free(f.b);
}

/* 4x4 with 2x2 blocks, block rows CSR-compressed (the schema's own example shape):
 *   1 2 0 0
 *   3 4 0 0
 *   0 0 5 6
 *   0 0 7 8 */
Test(loader, sparse_block_csr_densifies) {
    static const float vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const int32_t order[4] = {0, 1, 2, 3}, bmap[2] = {0, 1};
    static const int32_t seg[3] = {0, 1, 2}, idx[2] = {0, 1};
    static const tb_dim dims[4] = {
        {0, 2, {0}, {0}}, {1, 0, {3, 3, seg}, {2, 2, idx}}, {0, 2, {0}, {0}}, {0, 2, {0}, {0}}};
    static const tb_sparsity sp = {4, order, 2, bmap, 4, dims};
    tb_model s = {
        .n_tensors = 4, .n_buffers = 2, .n_opcodes = 2, .n_ops = 2, .n_in = 1, .n_out = 1,
        .tensors = {{"sparse", 0, 2, {4, 4}, 1, &sp}, {"dense", 0, 2, {4, 4}, 0, NULL},
                    {"x", 0, 2, {4, 4}, 0, NULL}, {"y", 0, 2, {4, 4}, 0, NULL}},
        .buffers = {{NULL, 0, false}, {vals, sizeof vals, false}},
        .opcodes = {{0, 124, NULL}, {0, 0, NULL}},
        .ops = {{.opcode = 0, .n_in = 1, .in = {0}, .n_out = 1, .out = {1}},
                {.opcode = 1, .n_in = 2, .in = {1, 2}, .n_out = 1, .out = {3}}},
        .in = {2}, .out = {3},
    };
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(m->n_ops, 1, "DENSIFY folded");
    int d = find_tensor(m, "dense");
    cr_assert_geq(d, 0);
    static const float want[16] = {1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0, 7, 8};
    cr_assert_eq(m->tensors[d].data_bytes, sizeof want);
    cr_expect_arr_eq(m->tensors[d].data, want, sizeof want);
    vki_model_destroy(m);
    free(f.b);
}

Test(loader, sparse_inconsistent_segments_rejected) {
    static const float vals[8] = {0};
    static const int32_t order[4] = {0, 1, 2, 3}, bmap[2] = {0, 1};
    static const int32_t seg[3] = {0, 2, 1}, idx[2] = {0, 1};
    static const tb_dim dims[4] = {
        {0, 2, {0}, {0}}, {1, 0, {1, 3, seg}, {1, 2, idx}}, {0, 2, {0}, {0}}, {0, 2, {0}, {0}}};
    static const tb_sparsity sp = {4, order, 2, bmap, 4, dims};
    tb_model s = {
        .n_tensors = 1, .n_buffers = 2, .n_in = 1, .n_out = 1,
        .tensors = {{"sparse", 0, 2, {4, 4}, 1, &sp}},
        .buffers = {{NULL, 0, false}, {vals, sizeof vals, false}},
        .in = {0}, .out = {0},
    };
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "array_segments");
}

Test(loader, external_buffer_offset) {
    tb_model s = tiny_model();
    s.buffers[2].external = true;
    fbb f = build(&s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    const vki_tensor *bias = &m->tensors[m->ops[0].inputs[2]];
    cr_assert_eq(bias->data_bytes, 4);
    cr_expect_eq(((const float *)bias->data)[0], 0.5f);
    vki_model_destroy(m);
    /* Cut the tail: the offset now points past the end. */
    f.n -= 2;
    expect_bytes_error(&f, "past the end of the file");
    free(f.b);
}

/* ---- malformed inputs --------------------------------------------------------------- */

Test(loader, empty_and_tiny_buffers) {
    fbb f = {0};
    expect_bytes_error(&f, "too short");
    uint8_t four[4] = {8, 0, 0, 0};
    f = (fbb){four, 4, 4};
    expect_bytes_error(&f, "too short");
}

Test(loader, wrong_identifier) {
    tb_model s = tiny_model();
    s.ident = "TFL2";
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "identifier");
}

Test(loader, wrong_schema_version) {
    tb_model s = tiny_model();
    s.version = 2;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "version");
}

Test(loader, root_offset_past_end) {
    tb_model s = tiny_model();
    fbb f = build(&s, NULL);
    set_le(&f, 0, f.n + 4, 4);
    expect_bytes_error(&f, "root");
    set_le(&f, 0, 6, 4);                                /* inside, but misaligned */
    expect_bytes_error(&f, "aligned");
    free(f.b);
}

Test(loader, vtable_outside_buffer) {
    tb_model s = tiny_model();
    tb_where w;
    fbb f = build(&s, &w);
    set_le(&f, w.model, (uint32_t)-4096, 4);            /* vtable after the end */
    expect_bytes_error(&f, "vtable");
    set_le(&f, w.model, (uint32_t)(w.model + 2), 4);    /* vtable before the start */
    expect_bytes_error(&f, "vtable");
    free(f.b);
}

Test(loader, vtable_field_outside_table) {
    tb_model s = tiny_model();
    tb_where w;
    fbb f = build(&s, &w);
    size_t vt = w.model - (size_t)(int32_t)(f.b[w.model] | f.b[w.model + 1] << 8 |
                                            f.b[w.model + 2] << 16 | f.b[w.model + 3] << 24);
    set_le(&f, vt + 4 + 2 * 2, 0x7ff0, 2);              /* subgraphs field offset */
    expect_bytes_error(&f, "outside the table");
    free(f.b);
}

Test(loader, vector_length_huge) {
    tb_model s = tiny_model();
    tb_where w;
    fbb f = build(&s, &w);
    set_le(&f, w.tensors_vec, 0x40000000, 4);
    expect_bytes_error(&f, "length");
    cr_expect(strstr(vki_last_error(), "tensors"), "%s", vki_last_error());
    free(f.b);
}

Test(loader, string_without_nul) {
    tb_model s = tiny_model();
    tb_where w;
    fbb f = build(&s, &w);
    f.b[w.tensor0_name + 4 + strlen("input")] = 'x';
    expect_bytes_error(&f, "NUL");
    /* A string whose length runs to the last byte leaves no room for the NUL. */
    set_le(&f, w.tensor0_name, (uint32_t)(f.n - w.tensor0_name - 4), 4);
    expect_bytes_error(&f, "NUL");
    free(f.b);
}

Test(loader, tensor_buffer_index_out_of_range) {
    tb_model s = tiny_model();
    s.tensors[3].buffer = 99;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "tensor 3 'bias': buffer index 99 out of range "
                 "(3 buffers)");
}

Test(loader, opcode_index_out_of_range) {
    tb_model s = tiny_model();
    s.ops[1].opcode = 7;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "opcode index 7 out of range");
}

Test(loader, op_input_index_out_of_range) {
    tb_model s = tiny_model();
    s.ops[1].in[0] = 42;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "tensor index 42 out of range");
    s = tiny_model();
    s.ops[1].in[2] = -2;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "tensor index -2");
    s = tiny_model();
    s.ops[1].out[0] = -1;                               /* only inputs may be omitted */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "outputs 0: tensor index -1");
}

Test(loader, graph_io_index_out_of_range) {
    tb_model s = tiny_model();
    s.out[0] = 5;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "outputs 0: tensor index 5");
}

Test(loader, negative_shape_dim) {
    tb_model s = tiny_model();
    s.tensors[4].shape[2] = -1;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "negative shape dimension -1 at axis 2");
}

Test(loader, constant_size_mismatch) {
    tb_model s = tiny_model();
    s.tensors[3].shape[0] = 2;                          /* bias buffer holds one float */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "'bias': buffer 2 holds 4 bytes");
}

Test(loader, shape_too_large) {
    tb_model s = tiny_model();
    s.tensors[4] = (tb_tensor){"output", 0, 4, {65536, 65536, 65536, 1}, 0, NULL};
    expect_error(&s, VKI_ERROR_UNSUPPORTED_MODEL, "elements");
    s.tensors[4] = (tb_tensor){"output", 0, 9, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 0, NULL};
    expect_error(&s, VKI_ERROR_UNSUPPORTED_MODEL, "rank 9");
}

Test(loader, bad_options) {
    tb_model s = tiny_model();
    s.ops[1].opt_type = 5;                              /* Pool2DOptions on a CONV_2D */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "Conv2DOptions");
    s = tiny_model();
    s.ops[1].opt[3].v = 9;                              /* activation */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "activation 9");
    s.ops[1].opt[3].v = 5;
    expect_error(&s, VKI_ERROR_UNSUPPORTED_OP, "SIGN_BIT");
    s = tiny_model();
    s.ops[1].opt[0].v = 2;                              /* padding */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "padding 2");
}

Test(loader, too_many_op_inputs) {
    tb_model s = tiny_model();
    s.ops[1].n_in = VKI_MAX_OP_INPUTS + 1;
    char want[32];
    snprintf(want, sizeof want, "%d inputs, at most %d", VKI_MAX_OP_INPUTS + 1, VKI_MAX_OP_INPUTS);
    expect_error(&s, VKI_ERROR_UNSUPPORTED_OP, want);
}

Test(loader, dequantize_shape_mismatch) {
    tb_model s = tiny_model();
    s.tensors[2].shape[3] = 3;
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "DEQUANTIZE");
}

Test(loader, null_arguments) {
    vki_model *m = (vki_model *)1;
    cr_expect_eq(vki_tflite_parse(NULL, 8, "x", &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_null(m);
    cr_expect_eq(vki_tflite_parse("", 0, "x", NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_load_memory(NULL, 0, "x", &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_load_memory("", 0, NULL, &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_load_memory("", 0, "x", NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_load_file(NULL, &m), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_load_file("x.tflite", NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect(strstr(vki_last_error(), "NULL"));
}

Test(loader, load_file_missing_path) {
    const char *path = "no/such/dir/missing_model.tflite";
    vki_model *m = (vki_model *)1;
    cr_assert_eq(vki_model_load_file(path, &m), VKI_ERROR_IO);
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), path), "%s", vki_last_error());
}

Test(loader, load_file_directory) {
    vki_model *m = (vki_model *)1;
    cr_assert_eq(vki_model_load_file(".", &m), VKI_ERROR_IO, "%s", vki_last_error());
    cr_expect_null(m);
}

Test(loader, load_memory_format_error) {
    vki_model *m = (vki_model *)1;
    cr_expect_eq(vki_model_load_memory("12345678", 8, "junk", &m), VKI_ERROR_MODEL_FORMAT);
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), "junk:"), "%s", vki_last_error());
}

/* ---- options of the other decoded ops ------------------------------------------------ */

static uint32_t f32_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* One op with builtin `code` from tensor 0 to tensor 1, options of union type opt_type
 * with the given fields (n_opt 0: no table). */
static tb_model one_op(int32_t code, uint8_t opt_type, int n_opt, const fld *opt) {
    tb_model s = {
        .n_tensors = 2, .n_buffers = 1, .n_opcodes = 1, .n_ops = 1, .n_in = 1, .n_out = 1,
        .tensors = {{"x", 0, 4, {1, 4, 4, 8}, 0, NULL}, {"y", 0, 4, {1, 4, 4, 8}, 0, NULL}},
        .opcodes = {{(int8_t)(code < 127 ? code : 127), code, NULL}},
        .ops = {{.opcode = 0, .n_in = 1, .in = {0}, .n_out = 1, .out = {1},
                 .opt_type = opt_type, .n_opt = n_opt}},
        .in = {0}, .out = {1},
    };
    if (n_opt) memcpy(s.ops[0].opt, opt, (size_t)n_opt * sizeof *opt);
    return s;
}

/* A CUSTOM op with the given custom_options bytes. */
static tb_model one_custom(const char *name, const void *bytes, uint32_t n) {
    tb_model s = one_op(VKI_OP_CUSTOM, 0, 0, NULL);
    s.opcodes[0].custom = name;
    s.ops[0].custom = bytes;
    s.ops[0].n_custom = n;
    return s;
}

/* Parses a one-op model that must load and returns a copy of its op. */
static vki_op parse_one(const tb_model *s) {
    fbb f = build(s, NULL);
    vki_model *m;
    cr_assert_eq(parse_fbb(&f, &m), VKI_OK, "%s", vki_last_error());
    check_invariants(m);
    cr_assert_eq(m->n_ops, 1);
    vki_op op = m->ops[0];
    vki_model_destroy(m);
    free(f.b);
    return op;
}

/* Options absent two ways: type NONE, and a type with no table behind it. */
static void parse_absent(int32_t code, uint8_t opt_type, vki_op out[2]) {
    tb_model s = one_op(code, 0, 0, NULL);
    out[0] = parse_one(&s);
    s = one_op(code, opt_type, 0, NULL);
    out[1] = parse_one(&s);
}

Test(loader, leaky_relu_options) {
    fld o[] = {{0, 4, f32_bits(0.2f), 0}};
    tb_model s = one_op(VKI_OP_LEAKY_RELU, 75, 1, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_LEAKY_RELU);
    cr_expect_eq(op.opt.leaky_relu.alpha, 0.2f);
    o[0].v = f32_bits(-3.5f);
    s = one_op(VKI_OP_LEAKY_RELU, 75, 1, o);
    cr_expect_eq(parse_one(&s).opt.leaky_relu.alpha, -3.5f);
    vki_op abs[2];
    parse_absent(VKI_OP_LEAKY_RELU, 75, abs);
    for (int k = 0; k < 2; k++) cr_expect_eq(abs[k].opt.leaky_relu.alpha, 0.0f);
    s = one_op(VKI_OP_LEAKY_RELU, 9, 1, o);                 /* SoftmaxOptions */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT,
                 "op 0 LEAKY_RELU: builtin_options has type 9, expected LeakyReluOptions (75)");
}

Test(loader, softmax_options) {
    fld o[] = {{0, 4, f32_bits(0.5f), 0}};
    tb_model s = one_op(VKI_OP_SOFTMAX, 9, 1, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_SOFTMAX);
    cr_expect_eq(op.opt.softmax.beta, 0.5f);
    vki_op abs[2];
    parse_absent(VKI_OP_SOFTMAX, 9, abs);
    for (int k = 0; k < 2; k++) cr_expect_eq(abs[k].opt.softmax.beta, 0.0f);
    s = one_op(VKI_OP_SOFTMAX, 75, 1, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 SOFTMAX: builtin_options has type 75, "
                 "expected SoftmaxOptions (9)");
}

Test(loader, resize_bilinear_options) {
    /* The deprecated new_height/new_width are set to catch an off-by-two field read. */
    fld o[] = {{0, 4, 7, 0}, {1, 4, 9, 0}, {2, 1, 1, 0}, {3, 1, 0, 0}};
    tb_model s = one_op(VKI_OP_RESIZE_BILINEAR, 15, 4, o);
    vki_op op = parse_one(&s);
    cr_expect(op.opt.resize.align_corners && !op.opt.resize.half_pixel_centers);
    o[2].v = 0;
    o[3].v = 2;                                             /* any nonzero byte is true */
    s = one_op(VKI_OP_RESIZE_BILINEAR, 15, 4, o);
    op = parse_one(&s);
    cr_expect(!op.opt.resize.align_corners && op.opt.resize.half_pixel_centers);
    vki_op abs[2];
    parse_absent(VKI_OP_RESIZE_BILINEAR, 15, abs);
    for (int k = 0; k < 2; k++)
        cr_expect(!abs[k].opt.resize.align_corners && !abs[k].opt.resize.half_pixel_centers);
    s = one_op(VKI_OP_RESIZE_BILINEAR, 74, 4, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 RESIZE_BILINEAR: builtin_options has type "
                 "74, expected ResizeBilinearOptions (15)");
}

Test(loader, resize_nearest_neighbor_options) {
    fld o[] = {{0, 1, 1, 0}, {1, 1, 0, 0}};
    tb_model s = one_op(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 74, 2, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_RESIZE_NEAREST_NEIGHBOR);
    cr_expect(op.opt.resize.align_corners && !op.opt.resize.half_pixel_centers);
    fld o2[] = {{1, 1, 1, 0}};
    s = one_op(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 74, 1, o2);
    op = parse_one(&s);
    cr_expect(!op.opt.resize.align_corners && op.opt.resize.half_pixel_centers);
    vki_op abs[2];
    parse_absent(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 74, abs);
    for (int k = 0; k < 2; k++)
        cr_expect(!abs[k].opt.resize.align_corners && !abs[k].opt.resize.half_pixel_centers);
    s = one_op(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 15, 2, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "expected ResizeNearestNeighborOptions (74)");
}

Test(loader, fully_connected_options) {
    fld o[] = {{0, 1, VKI_ACT_RELU6, 0}, {1, 1, 0, 0}, {2, 1, 1, 0}, {3, 1, 1, 0}};
    tb_model s = one_op(VKI_OP_FULLY_CONNECTED, 8, 4, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_FULLY_CONNECTED);
    cr_expect_eq(op.opt.fully_connected.activation, VKI_ACT_RELU6);
    cr_expect(op.opt.fully_connected.keep_num_dims);
    vki_op abs[2];
    parse_absent(VKI_OP_FULLY_CONNECTED, 8, abs);
    for (int k = 0; k < 2; k++) {
        cr_expect_eq(abs[k].opt.fully_connected.activation, VKI_ACT_NONE);
        cr_expect(!abs[k].opt.fully_connected.keep_num_dims);
    }
    s = one_op(VKI_OP_FULLY_CONNECTED, 9, 4, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 FULLY_CONNECTED: builtin_options has type "
                 "9, expected FullyConnectedOptions (8)");
    o[1].v = 1;
    s = one_op(VKI_OP_FULLY_CONNECTED, 8, 4, o);
    expect_error(&s, VKI_ERROR_UNSUPPORTED_OP, "op 0 FULLY_CONNECTED: weights_format "
                 "SHUFFLED4x16INT8 is not supported");
    o[1].v = 7;
    s = one_op(VKI_OP_FULLY_CONNECTED, 8, 4, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 FULLY_CONNECTED: unknown weights_format 7");
    o[1].v = 0;
    o[0].v = 9;
    s = one_op(VKI_OP_FULLY_CONNECTED, 8, 4, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 FULLY_CONNECTED: unknown fused activation 9");
}

Test(loader, mean_options) {
    fld o[] = {{0, 1, 1, 0}};
    tb_model s = one_op(VKI_OP_MEAN, 27, 1, o);
    cr_expect(parse_one(&s).opt.reduce.keep_dims);
    o[0].v = 0;
    s = one_op(VKI_OP_MEAN, 27, 1, o);
    cr_expect(!parse_one(&s).opt.reduce.keep_dims);
    vki_op abs[2];
    parse_absent(VKI_OP_MEAN, 27, abs);
    for (int k = 0; k < 2; k++) cr_expect(!abs[k].opt.reduce.keep_dims);
    s = one_op(VKI_OP_MEAN, 32, 1, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 MEAN: builtin_options has type 32, "
                 "expected ReducerOptions (27)");
}

Test(loader, depth_to_space_and_space_to_depth_options) {
    fld o[] = {{0, 4, 3, 0}};
    tb_model s = one_op(VKI_OP_DEPTH_TO_SPACE, 94, 1, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_DEPTH_TO_SPACE);
    cr_expect_eq(op.opt.space_depth.block_size, 3);
    o[0].v = 4;
    s = one_op(VKI_OP_SPACE_TO_DEPTH, 19, 1, o);
    op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_SPACE_TO_DEPTH);
    cr_expect_eq(op.opt.space_depth.block_size, 4);
    vki_op abs[2];
    parse_absent(VKI_OP_DEPTH_TO_SPACE, 94, abs);
    for (int k = 0; k < 2; k++) cr_expect_eq(abs[k].opt.space_depth.block_size, 0);
    parse_absent(VKI_OP_SPACE_TO_DEPTH, 19, abs);
    for (int k = 0; k < 2; k++) cr_expect_eq(abs[k].opt.space_depth.block_size, 0);
    s = one_op(VKI_OP_DEPTH_TO_SPACE, 19, 1, o);            /* each other's table */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 DEPTH_TO_SPACE: builtin_options has type "
                 "19, expected DepthToSpaceOptions (94)");
    s = one_op(VKI_OP_SPACE_TO_DEPTH, 94, 1, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 SPACE_TO_DEPTH: builtin_options has type "
                 "94, expected SpaceToDepthOptions (19)");
}

Test(loader, strided_slice_options) {
    fld o[] = {{0, 4, 1, 0}, {1, 4, 2, 0}, {2, 4, 4, 0}, {3, 4, 8, 0}, {4, 4, 16, 0},
               {5, 1, 1, 0}};
    tb_model s = one_op(VKI_OP_STRIDED_SLICE, 32, 6, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.opt.strided_slice.begin_mask, 1);
    cr_expect_eq(op.opt.strided_slice.end_mask, 2);
    cr_expect_eq(op.opt.strided_slice.ellipsis_mask, 4);
    cr_expect_eq(op.opt.strided_slice.new_axis_mask, 8);
    cr_expect_eq(op.opt.strided_slice.shrink_axis_mask, 16);
    cr_expect(op.opt.strided_slice.offset);
    fld o2[] = {{4, 4, 5, 0}};                              /* only shrink_axis_mask */
    s = one_op(VKI_OP_STRIDED_SLICE, 32, 1, o2);
    op = parse_one(&s);
    cr_expect(op.opt.strided_slice.begin_mask == 0 && op.opt.strided_slice.end_mask == 0 &&
              op.opt.strided_slice.ellipsis_mask == 0 && op.opt.strided_slice.new_axis_mask == 0 &&
              op.opt.strided_slice.shrink_axis_mask == 5 && !op.opt.strided_slice.offset);
    vki_op abs[2];
    parse_absent(VKI_OP_STRIDED_SLICE, 32, abs);
    for (int k = 0; k < 2; k++)
        cr_expect(abs[k].opt.strided_slice.begin_mask == 0 &&
                  abs[k].opt.strided_slice.end_mask == 0 &&
                  abs[k].opt.strided_slice.ellipsis_mask == 0 &&
                  abs[k].opt.strided_slice.new_axis_mask == 0 &&
                  abs[k].opt.strided_slice.shrink_axis_mask == 0 &&
                  !abs[k].opt.strided_slice.offset);
    s = one_op(VKI_OP_STRIDED_SLICE, 48, 6, o);            /* SliceOptions */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 STRIDED_SLICE: builtin_options has type "
                 "48, expected StridedSliceOptions (32)");
}

Test(loader, transpose_conv_options) {
    fld o[] = {{0, 1, 1, 0}, {1, 4, 2, 0}, {2, 4, 3, 0}, {3, 1, VKI_ACT_RELU, 0}};
    tb_model s = one_op(VKI_OP_TRANSPOSE_CONV, 49, 4, o);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_TRANSPOSE_CONV);
    cr_expect_eq(op.opt.transpose_conv.padding, VKI_PAD_VALID);
    cr_expect_eq(op.opt.transpose_conv.stride_w, 2);
    cr_expect_eq(op.opt.transpose_conv.stride_h, 3);
    cr_expect_eq(op.opt.transpose_conv.activation, VKI_ACT_RELU);
    fld o2[] = {{0, 1, 0, 0}, {1, 4, 2, 0}, {2, 4, 2, 0}};  /* before the activation field */
    s = one_op(VKI_OP_TRANSPOSE_CONV, 49, 3, o2);
    op = parse_one(&s);
    cr_expect(op.opt.transpose_conv.padding == VKI_PAD_SAME &&
              op.opt.transpose_conv.stride_w == 2 && op.opt.transpose_conv.stride_h == 2 &&
              op.opt.transpose_conv.activation == VKI_ACT_NONE);
    vki_op abs[2];
    parse_absent(VKI_OP_TRANSPOSE_CONV, 49, abs);
    for (int k = 0; k < 2; k++)
        cr_expect(abs[k].opt.transpose_conv.padding == VKI_PAD_SAME &&
                  abs[k].opt.transpose_conv.stride_w == 0 &&
                  abs[k].opt.transpose_conv.stride_h == 0 &&
                  abs[k].opt.transpose_conv.activation == VKI_ACT_NONE);
    s = one_op(VKI_OP_TRANSPOSE_CONV, 1, 4, o);             /* Conv2DOptions */
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 TRANSPOSE_CONV: builtin_options has type 1, "
                 "expected TransposeConvOptions (49)");
    o[0].v = 2;
    s = one_op(VKI_OP_TRANSPOSE_CONV, 49, 4, o);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 TRANSPOSE_CONV: unknown padding 2");
    o[0].v = 0;
    o[3].v = 5;
    s = one_op(VKI_OP_TRANSPOSE_CONV, 49, 4, o);
    expect_error(&s, VKI_ERROR_UNSUPPORTED_OP, "SIGN_BIT");
}

#define TCB "Convolution2DTransposeBias"

Test(loader, conv2d_transpose_bias_custom_options) {
    static const int32_t same2[3] = {1, 2, 2}, valid[3] = {2, 1, 3};
    tb_model s = one_custom(TCB, same2, sizeof same2);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_CUSTOM);
    cr_expect_str_eq(op.custom_name, TCB);
    cr_expect(op.opt.transpose_conv.padding == VKI_PAD_SAME &&
              op.opt.transpose_conv.stride_w == 2 && op.opt.transpose_conv.stride_h == 2 &&
              op.opt.transpose_conv.activation == VKI_ACT_NONE);
    s = one_custom(TCB, valid, sizeof valid);
    op = parse_one(&s);
    cr_expect(op.opt.transpose_conv.padding == VKI_PAD_VALID &&
              op.opt.transpose_conv.stride_w == 1 && op.opt.transpose_conv.stride_h == 3);
    /* The large-model form keeps the bytes past the FlatBuffer. */
    s = one_custom(TCB, valid, sizeof valid);
    s.ops[0].custom_external = true;
    op = parse_one(&s);
    cr_expect(op.opt.transpose_conv.padding == VKI_PAD_VALID &&
              op.opt.transpose_conv.stride_w == 1 && op.opt.transpose_conv.stride_h == 3);
    /* A builtin options table on the custom op is ignored, as TFLite ignores it. */
    s = one_custom(TCB, same2, sizeof same2);
    s.ops[0].opt_type = 49;
    op = parse_one(&s);
    cr_expect(op.opt.transpose_conv.stride_w == 2 && op.opt.transpose_conv.stride_h == 2);
}

Test(loader, conv2d_transpose_bias_custom_rejected) {
    static const int32_t bytes[4] = {1, 2, 2, 0}, unknown[3] = {0, 2, 2}, big[3] = {3, 2, 2};
    tb_model s = one_custom(TCB, bytes, 8);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 CUSTOM '" TCB "': custom_options hold 8 "
                 "bytes, expected 12");
    s = one_custom(TCB, bytes, 16);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "custom_options hold 16 bytes, expected 12");
    s = one_custom(TCB, NULL, 0);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 CUSTOM '" TCB "': custom_options hold 0 "
                 "bytes");
    s = one_custom(TCB, unknown, sizeof unknown);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "op 0 CUSTOM '" TCB "': unknown padding 0");
    s = one_custom(TCB, big, sizeof big);
    expect_error(&s, VKI_ERROR_MODEL_FORMAT, "unknown padding 3");
    /* Large-model form whose bytes would run past the end of the file. */
    s = one_custom(TCB, bytes, 12);
    s.ops[0].custom_external = true;
    fbb f = build(&s, NULL);
    f.n -= 4;
    expect_bytes_error(&f, "op 0 CUSTOM '" TCB "': custom options at offset");
    free(f.b);
}

Test(loader, other_custom_ops_left_alone) {
    static const uint8_t junk[5] = {0xff, 0xfe, 0xfd, 0xfc, 0xfb};
    tb_model s = one_custom("SomethingElse", junk, sizeof junk);
    vki_op op = parse_one(&s);
    cr_expect_eq(op.code, VKI_OP_CUSTOM);
    cr_expect_str_eq(op.custom_name, "SomethingElse");
    cr_expect(op.opt.transpose_conv.padding == 0 && op.opt.transpose_conv.stride_w == 0 &&
              op.opt.transpose_conv.stride_h == 0, "options stay zeroed");
}

/* ---- the decoded options in the real models ------------------------------------------- */

typedef struct model_expect {
    const char *file;
    int resize_bilinear, mean, mean_keep_dims, fully_connected, depth_to_space,
        transpose_bias;
} model_expect;

/* Counts after folding. No model in the set has LEAKY_RELU, SOFTMAX,
 * RESIZE_NEAREST_NEIGHBOR, SPACE_TO_DEPTH, STRIDED_SLICE or TRANSPOSE_CONV.
 * The test has no .timeout: Criterion's runner leaks 48 bytes when two tests with
 * timeouts run at once (with -j2 and random_mutations_never_crash), which LeakSanitizer
 * then reports. */
static const model_expect real_models[] = {
    {"face_detection_full_range.tflite", 3, 0, 0, 0, 0, 0},
    {"face_detection_full_range_sparse.tflite", 3, 0, 0, 0, 2, 0},
    {"face_detection_short_range.tflite", 0, 0, 0, 0, 0, 0},
    {"hand_landmark_full.tflite", 0, 1, 0, 4, 0, 0},
    {"hand_landmark_lite.tflite", 0, 1, 0, 4, 0, 0},
    {"pose_landmark_full.tflite", 5, 0, 0, 0, 0, 0},
    {"pose_landmark_heavy.tflite", 5, 0, 0, 0, 0, 0},
    {"pose_landmark_lite.tflite", 5, 0, 0, 0, 0, 0},
    {"selfie_segmentation.tflite", 3, 0, 0, 0, 0, 1},
    {"selfie_segmentation_landscape.tflite", 3, 10, 10, 0, 0, 1},
};

Test(loader, real_models_options) {
    int found = 0;
    for (size_t k = 0; k < sizeof real_models / sizeof real_models[0]; k++) {
        const model_expect *e = &real_models[k];
        size_t size;
        uint8_t *b = harness_read_model(e->file, &size);
        if (!b) {
            /* A warning would make Criterion exit 1 on device runs that carry fewer models. */
            cr_log_info("%s not found in $VKI_MODEL_DIR; skipped", e->file);
            continue;
        }
        found++;
        vki_model *m;
        cr_assert_eq(vki_tflite_parse(b, size, e->file, &m), VKI_OK, "%s", vki_last_error());
        check_invariants(m);
        model_expect got = {e->file, 0, 0, 0, 0, 0, 0};
        for (int i = 0; i < m->n_ops; i++) {
            const vki_op *op = &m->ops[i];
            switch ((int)op->code) {
            case VKI_OP_RESIZE_BILINEAR:
                /* TF2 converter output: half-pixel centres, corners not aligned. */
                got.resize_bilinear++;
                cr_expect(!op->opt.resize.align_corners && op->opt.resize.half_pixel_centers,
                          "%s op %d", e->file, i);
                cr_expect_eq(op->n_inputs, 2, "%s op %d: input and size", e->file, i);
                break;
            case VKI_OP_MEAN:
                got.mean++;
                got.mean_keep_dims += op->opt.reduce.keep_dims;
                break;
            case VKI_OP_FULLY_CONNECTED:
                got.fully_connected++;
                cr_expect_eq(op->opt.fully_connected.activation, VKI_ACT_NONE, "%s op %d",
                             e->file, i);
                cr_expect(!op->opt.fully_connected.keep_num_dims, "%s op %d", e->file, i);
                break;
            case VKI_OP_DEPTH_TO_SPACE:
                got.depth_to_space++;
                cr_expect_eq(op->opt.space_depth.block_size, 2, "%s op %d", e->file, i);
                break;
            case VKI_OP_CUSTOM:
                cr_expect_str_eq(op->custom_name, TCB, "%s op %d", e->file, i);
                got.transpose_bias++;
                /* The decoder's last layer: 2x upsampling to the mask. */
                cr_expect_eq(op->opt.transpose_conv.padding, VKI_PAD_SAME);
                cr_expect(op->opt.transpose_conv.stride_w == 2 &&
                          op->opt.transpose_conv.stride_h == 2, "%s op %d", e->file, i);
                cr_expect_eq(op->opt.transpose_conv.activation, VKI_ACT_NONE);
                cr_expect_eq(op->n_inputs, 3, "%s op %d: input, weights, bias", e->file, i);
                break;
            case VKI_OP_LEAKY_RELU: case VKI_OP_SOFTMAX: case VKI_OP_RESIZE_NEAREST_NEIGHBOR:
            case VKI_OP_SPACE_TO_DEPTH: case VKI_OP_STRIDED_SLICE: case VKI_OP_TRANSPOSE_CONV:
                cr_expect_fail("%s op %d: unexpected %s", e->file, i, vki_op_name(op->code));
                break;
            default: break;
            }
        }
        cr_expect_eq(got.resize_bilinear, e->resize_bilinear, "%s", e->file);
        cr_expect_eq(got.mean, e->mean, "%s", e->file);
        cr_expect_eq(got.mean_keep_dims, e->mean_keep_dims, "%s", e->file);
        cr_expect_eq(got.fully_connected, e->fully_connected, "%s", e->file);
        cr_expect_eq(got.depth_to_space, e->depth_to_space, "%s", e->file);
        cr_expect_eq(got.transpose_bias, e->transpose_bias, "%s", e->file);
        vki_model_destroy(m);
        free(b);
    }
    if (!found) cr_skip_test("no models in $VKI_MODEL_DIR");
}

/* ---- listing a model's ops ---------------------------------------------------------- */

/* The file's ops in its own order, and the loaded model numbers its ops the same way:
 * vki_model_op_count and vki_model_op_name are the file's, the 74 float16 DEQUANTIZEs
 * marked folded, and every op of the IR carries the number of the file op it came from. */
Test(loader, list_ops_of_a_real_model) {
    size_t size;
    uint8_t *b = need_model(FACE_SHORT, &size);
    int n = -1;
    cr_assert_eq(vki_model_list_ops_memory(b, size, NULL, 0, &n), VKI_OK, "%s", vki_last_error());
    cr_assert_gt(n, 0);
    vki_op_entry *ops = calloc((size_t)n, sizeof *ops);
    int again = 0;
    cr_assert_eq(vki_model_list_ops_memory(b, size, ops, n, &again), VKI_OK);
    cr_assert_eq(again, n);
    vki_model *m;
    cr_assert_eq(vki_model_load_memory(b, size, "face", &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_op_count(m), n, "the file's operators, folded ones included");
    int k = 0, folded = 0;
    for (int i = 0; i < n; i++) {
        cr_expect_eq(ops[i].index, i);
        cr_expect(ops[i].supported && !ops[i].custom, "op %d %s", i, ops[i].name);
        cr_expect_str_eq(ops[i].name, vki_model_op_name(m, i), "file op %d", i);
        int dequantize = !strcmp(ops[i].name, "DEQUANTIZE");
        cr_expect_eq(vki_model_op_folded(m, i), dequantize, "file op %d %s", i, ops[i].name);
        folded += dequantize;
        if (dequantize) continue;
        cr_assert_lt(k, m->n_ops);
        cr_expect_eq(m->ops[k].file_index, i, "IR op %d", k);
        cr_expect_str_eq(ops[i].name, vki_op_name(m->ops[k].code), "file op %d, IR op %d", i, k);
        k++;
    }
    cr_expect_eq(k, m->n_ops);
    cr_expect_eq(folded, 74);
    cr_expect_eq(vki_model_op_folded(m, n), -1);
    cr_expect_eq(vki_model_op_folded(m, -1), -1);
    cr_expect_null(vki_model_op_name(m, n));
    /* A short buffer holds the first entries; the count is still every op. */
    cr_assert_eq(vki_model_list_ops_memory(b, size, ops, 3, &again), VKI_OK);
    cr_expect_eq(again, n);
    vki_model_destroy(m);
    free(ops);
    free(b);
}

/* An op that fails validation after a folded one is named by its number in the file: the
 * tiny model's CONV_2D is file op 1 (the DEQUANTIZE before it, op 0, folds at load), the
 * only op left in the IR. Its bias here has 3 values for 1 output channel. */
Test(loader, bad_op_after_a_folded_one_named_by_its_file_index) {
    static const float bias3[3] = {0.5f, 0.5f, 0.5f};
    tb_model s = tiny_model();
    s.tensors[4].shape[1] = s.tensors[4].shape[2] = 1;     /* VALID, strides 2 and 3 */
    s.tensors[3].shape[0] = 3;
    s.buffers[2] = (tb_buffer){bias3, sizeof bias3, false};
    fbb f = build(&s, NULL);
    vki_model *m = NULL;
    vki_status st = vki_model_load_memory(f.b, f.n, "tiny.tflite", &m);
    cr_assert_neq(st, VKI_OK);
    cr_assert_null(m);
    cr_assert(strstr(vki_last_error(), "tiny.tflite: op 1 CONV_2D: bias tensor 2 'bias' has 3 "
                                       "elements, need 1"), "%s", vki_last_error());
    /* The model loads without the fault: one IR op, numbered 1 of the file's 2. */
    s.tensors[3].shape[0] = 1;
    s.buffers[2] = (tb_buffer){tiny_bias, sizeof tiny_bias, false};
    free(f.b);
    f = build(&s, NULL);
    cr_assert_eq(vki_model_load_memory(f.b, f.n, "tiny.tflite", &m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(m->n_ops, 1);
    cr_expect_eq(m->ops[0].file_index, 1);
    cr_expect_eq(vki_model_op_count(m), 2);
    cr_expect_str_eq(vki_model_op_name(m, 0), "DEQUANTIZE");
    cr_expect_str_eq(vki_model_op_name(m, 1), "CONV_2D");
    cr_expect_eq(vki_model_op_folded(m, 0), 1);
    cr_expect_eq(vki_model_op_folded(m, 1), 0);
    vki_model_destroy(m);
    free(f.b);
}

/* Ops vkinfer lacks are named by TFLite's builtin names (or their custom names), listed,
 * and named by the load error with the file's op index. */
Test(loader, list_ops_names_unsupported_ones) {
    tb_model s = tiny_model();
    s.n_opcodes = 4;
    s.opcodes[2] = (tb_opcode){109, 109, NULL};          /* WHERE: a data-dependent shape */
    s.opcodes[3] = (tb_opcode){32, 32, "MyOwnOp"};
    s.n_ops = 4;
    s.n_tensors = 7;
    s.tensors[5] = (tb_tensor){"g", 0, 4, {1, 2, 2, 2}, 0, NULL};
    s.tensors[6] = (tb_tensor){"c", 0, 4, {1, 2, 2, 2}, 0, NULL};
    s.tensors[4].shape[1] = s.tensors[4].shape[2] = 1;   /* the conv's strides make 1x1 */
    /* File order: DEQUANTIZE, CONV_2D, WHERE, the custom op. The DEQUANTIZE folds at
     * load, so WHERE is the IR's op 1 but the file's op 2, which messages must say. */
    s.ops[2] = (tb_op){.opcode = 2, .n_in = 1, .in = {0}, .n_out = 1, .out = {5}};
    s.ops[3] = (tb_op){.opcode = 3, .n_in = 1, .in = {5}, .n_out = 1, .out = {6}};
    s.n_out = 2;
    s.out[1] = 6;
    fbb f = build(&s, NULL);
    vki_op_entry ops[8];
    int n = 0;
    cr_assert_eq(vki_model_list_ops_memory(f.b, f.n, ops, 8, &n), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(n, 4);
    cr_expect_str_eq(ops[0].name, "DEQUANTIZE");
    cr_expect(ops[0].supported, "a DEQUANTIZE folds at load");
    cr_expect_str_eq(ops[1].name, "CONV_2D");
    cr_expect(ops[1].supported);
    cr_expect_str_eq(ops[2].name, "WHERE");
    cr_expect(!ops[2].supported && !ops[2].custom && !ops[2].on_cpu);
    cr_expect_str_eq(ops[3].name, "MyOwnOp");
    cr_expect(!ops[3].supported && ops[3].custom);
    vki_model *m = (vki_model *)1;
    vki_status st = vki_model_load_memory(f.b, f.n, "tiny.tflite", &m);
    cr_expect_eq(st, VKI_ERROR_UNSUPPORTED_OP, "%s: %s", vki_status_name(st), vki_last_error());
    cr_expect_null(m);
    cr_expect(strstr(vki_last_error(), "op 2 WHERE"),
              "message '%s' lacks the file's index and name", vki_last_error());
    cr_expect(!strstr(vki_last_error(), "UNKNOWN"), "message '%s'", vki_last_error());
    free(f.b);
}

Test(loader, list_ops_bad_input) {
    vki_op_entry e[2];
    int n = 7;
    cr_expect_eq(vki_model_list_ops_memory(NULL, 4, e, 2, &n), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(n, 0, "the count is 0 after any failure");
    cr_expect_eq(vki_model_list_ops_memory("TFL3TFL3", 8, NULL, 2, &n), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_list_ops_memory("TFL3TFL3", 8, e, -1, &n), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_model_list_ops_memory("xxxxxxxx", 8, e, 2, &n), VKI_ERROR_MODEL_FORMAT);
    cr_expect_eq(n, 0);
    cr_expect_eq(vki_model_list_ops_file("/nonexistent/model.tflite", e, 2, &n), VKI_ERROR_IO);
    cr_expect(strstr(vki_last_error(), "/nonexistent/model.tflite"));
    /* Every prefix of a real model: an error, or the listing when the operators lie
     * before the cut; never a crash or a read past the end (exact-size copies, so ASan
     * would see one). */
    size_t size;
    uint8_t *b = need_model(FACE_SHORT, &size);
    int listed = 0;
    for (size_t len = 0; len < size; len += len < 4096 ? 7 : 4099) {
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, b, len);
        vki_status st = vki_model_list_ops_memory(p, len, e, 2, &n);
        cr_assert(st == VKI_ERROR_MODEL_FORMAT || st == VKI_OK, "prefix %zu: %s", len,
                  vki_status_name(st));
        if (len < 8) cr_assert_eq(st, VKI_ERROR_MODEL_FORMAT);
        listed += st == VKI_OK;
        free(p);
    }
    cr_expect_lt(listed, (int)(size / 4099) + 600, "most prefixes fail");
    free(b);
}
