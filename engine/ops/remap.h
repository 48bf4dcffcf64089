/* remap.h: layout ops described as where each output element comes from.
 *
 * TRANSPOSE, TILE, BROADCAST_TO, MIRROR_PAD, PADV2, SPLIT, SPLIT_V, UNPACK, PACK, GATHER,
 * SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and REVERSE_V2 move elements without arithmetic.
 * Each op file fills a vki_remap (tensors right-aligned to 5 dims; every input coordinate a
 * sum of digit terms of the output coordinate, plus an offset and an edge rule) and this
 * file turns it into one glsl/remap.comp dispatch and runs it as the op's C reference, so
 * an op is only its description. The LiteRT tests (tests/test_op_models.c) check the
 * descriptions against TFLite itself. */
#ifndef VKI_REMAP_H
#define VKI_REMAP_H

#include "ops.h"

#define VKI_REMAP_RANK 5
#define VKI_REMAP_MAX_INPUTS 8
#define VKI_REMAP_MAX_TERMS 3

/* What a coordinate outside the input's extent reads. */
typedef enum vki_edge {
    VKI_EDGE_INSIDE = 0,        /* cannot happen by construction */
    VKI_EDGE_FILL = 1,          /* the fill value (PADV2, SPACE_TO_BATCH_ND's padding) */
    VKI_EDGE_REFLECT = 2,       /* MIRROR_PAD REFLECT: -1 reads 1 */
    VKI_EDGE_SYMMETRIC = 3,     /* MIRROR_PAD SYMMETRIC: -1 reads 0 */
    VKI_EDGE_WRAP = 4,          /* TILE: modulo the extent */
} vki_edge;

/* ((o[axis] + add) / div % mod) * mul, with mod 0 meaning no modulo; add >= 0. */
typedef struct vki_remap_term {
    int axis, add, div, mod, mul;
} vki_remap_term;

typedef struct vki_remap_axis {
    int n_terms;
    vki_remap_term term[VKI_REMAP_MAX_TERMS];
    int offset;
    vki_edge edge;
} vki_remap_axis;

typedef struct vki_remap {
    int out[VKI_REMAP_RANK];                    /* output extents */
    int n_inputs;
    int inputs[VKI_REMAP_MAX_INPUTS];           /* the op's input slots */
    int in[VKI_REMAP_MAX_INPUTS][VKI_REMAP_RANK];
    /* With several inputs, input k covers o[sel_axis] from start[k] on, and reads input
     * coordinate sel_coord less start[k] (-1: PACK's inputs have no such axis). */
    int sel_axis, sel_coord;
    int start[VKI_REMAP_MAX_INPUTS];
    vki_remap_axis axis[VKI_REMAP_RANK];        /* input coordinate j from o[] */
    float fill;
    /* GATHER: input coordinate table_axis is looked up in the op's input slot `table`
     * (int32 values, clamped to the input's extent); -1: none. */
    int table, table_axis;
    /* Applied to every element moved (CONCATENATION's fused activation); NONE by default. */
    vki_activation activation;
} vki_remap;

/* A tensor's extents right-aligned to 5 dims ([7,3] -> [1,1,1,7,3]). */
void vki_dims5(const vki_tensor *t, int d[VKI_REMAP_RANK]);
/* An axis of a rank-`rank` tensor (negative counts from the end) as its index among the 5
 * right-aligned dims, or -1 when out of range. */
int vki_axis5(int axis, int rank);

/* Starts a description: the output's extents, no inputs, every input axis reading the
 * same output axis (the identity), no table. */
void vki_remap_init(vki_remap *r, const vki_tensor *out);
/* Adds the op's input `slot` (its extents from the tensor); returns its place k. */
int vki_remap_add_input(vki_remap *r, const vki_model *m, const vki_op *op, int slot);
/* Input axis j reads nothing of o[] (an axis the output dropped), only its offset. */
void vki_remap_fixed(vki_remap *r, int j, int offset);
/* Input axis j reads o[k] * mul (+ the offset set separately). */
void vki_remap_from(vki_remap *r, int j, int k, int mul);
/* Adds the term ((o[k] + add) / div % mod) * mul to input axis j. */
void vki_remap_term_add(vki_remap *r, int j, int k, int add, int div, int mod, int mul);

/* An op file's description of output `output` of op o: checks what it reads (inputs,
 * options, the output's extents) and fills r, or fails naming the op. */
typedef vki_status (*vki_remap_describe)(const vki_model *m, int o, int output, vki_remap *r);

/* The op's validate, build and reference, from its description of each output. */
vki_status vki_remap_validate(const vki_model *m, int o, vki_remap_describe describe);
vki_status vki_remap_build(vki_build *b, const vki_model *m, int o, vki_remap_describe describe);
void vki_remap_reference(const vki_model *m, const vki_op *op, const float *const *in,
                         float *const *out, vki_remap_describe describe);

/* Defines <name>_validate, _build and _reference and the op def vki_op_<name> around a
 * describe function (options: the def's options reader or NULL). */
#define VKI_REMAP_OP(name, describe, options_fn)                                               \
    static vki_status name##_validate(const vki_model *m, int o) {                            \
        return vki_remap_validate(m, o, describe);                                            \
    }                                                                                         \
    static vki_status name##_build(vki_build *b, const vki_model *m, int o) {                 \
        return vki_remap_build(b, m, o, describe);                                            \
    }                                                                                         \
    static void name##_reference(const vki_model *m, const vki_op *op, const float *const *in, \
                                 float *const *out) {                                         \
        vki_remap_reference(m, op, in, out, describe);                                        \
    }                                                                                         \
    const vki_op_def vki_op_##name = {.validate = name##_validate, .build = name##_build,      \
                                      .reference = name##_reference, .options = options_fn,   \
                                      .general = true}

/* PAD, PADV2 and MIRROR_PAD: input 1 is the [rank,2] paddings; the output reads the
 * input less the leading padding on every axis, and `rule` (with `fill`) where that is
 * outside (mirror_pad.c). */
vki_status vki_pad_describe(const vki_model *m, int o, vki_remap *r, vki_edge rule, float fill);

/* The most a fill pad adds on one side of an axis; more is refused as a malformed model. */
#define VKI_PAD_FILL_MAX (1 << 20)

/* extent + before + after of axis `axis` into *padded, or a model error naming the axis
 * when a padding is negative, over `limit`, or the sum leaves int. */
vki_status vki_pad_extent(const vki_model *m, int o, int axis, int extent, int before,
                          int after, int limit, int *padded);

#endif /* VKI_REMAP_H */
