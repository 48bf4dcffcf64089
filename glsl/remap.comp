// remap.comp: every output element copied from one input element, or a fill value: the
// layout ops of engine/ops/remap.c (TRANSPOSE, TILE, BROADCAST_TO, MIRROR_PAD, PADV2,
// SPLIT, SPLIT_V, UNPACK, PACK, GATHER, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, REVERSE_V2,
// and the general forms of PAD, SLICE, STRIDED_SLICE and CONCATENATION).
//
// Tensors are up to 5-D, dims right-aligned to o[0..4]; storage is the rows view (rows =
// d0*d1*d2, W = d3, C = d4). The op file writes each input coordinate as an expression of
// the output coordinate o0..o4 (COORD_0..COORD_4), with an edge rule per axis (EDGE_j: 0 in
// range by construction, 1 outside reads FILL, 2 reflect, 3 symmetric, 4 wrap).
// With N_IN > 1 inputs, input k covers o[SEL_AXIS] from START<k>, and its coordinate
// SEL_COORD is taken relative to that (-1: none, PACK's new axis); inputs differ only
// in their extent along it.
// With TABLE, the coordinate along TABLE_AXIS is an index into the table binding (GATHER),
// clamped to the input.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 N_IN=1 OUT_BINDING=1 $REMAP_OUT $REMAP_IN0 $REMAP_COORDS FILL=float(0)
//   + {EDGE_0=0 EDGE_1=0 EDGE_2=1 EDGE_3=2 EDGE_4=0|EDGE_0=4 EDGE_1=4 EDGE_2=3 EDGE_3=0 EDGE_4=0}
// variant: @bindings=3 N_IN=1 OUT_BINDING=2 TABLE TABLE_BINDING=1 TABLE_AXIS=2 TABLE_EXTENT=3
//   + $REMAP_OUT $REMAP_IN0 $REMAP_COORDS FILL=float(0) EDGE_0=0 EDGE_1=0 EDGE_2=0 EDGE_3=0
//   + EDGE_4=0
// variant: @bindings=N_IN+1 N_IN={2..8} OUT_BINDING=N_IN SEL_AXIS=4 SEL_COORD={4|-1} $REMAP_OUT
//   + $REMAP_COORDS FILL=float(0) EDGE_0=0 EDGE_1=0 EDGE_2=0 EDGE_3=0 EDGE_4=0
//   + [START#=# I#_E0=1 I#_E1=2 I#_E2=3 I#_E3=4 I#_E4=5 I#_H=6 I#_W=4 I#_C=5 I#_S=2]*N_IN $ACT
// variant-set: REMAP_OUT = OUT_D0=1 OUT_D1=2 OUT_D2=3 OUT_D3=4 OUT_D4=5 OUT_H=6 OUT_W=4
//   + OUT_C=5 OUT_S=2
// variant-set: REMAP_IN0 = I0_E0=1 I0_E1=2 I0_E2=3 I0_E3=4 I0_E4=5 I0_H=6 I0_W=4 I0_C=5 I0_S=2
// variant-set: REMAP_COORDS = COORD_0=o0 COORD_1=o1 COORD_2=(o2-1) COORD_3=(3-o3)
//   + COORD_4=o4

#define DECLARE_INPUT(k) \
    TENSOR_IN(k, src##k) \
    float load##k(int c[5]) { \
        int row = (c[0] * I##k##_E1 + c[1]) * I##k##_E2 + c[2]; \
        return LOAD(src##k, IDX(I##k, c[3], row, c[4] >> 2))[c[4] & 3]; \
    }

DECLARE_INPUT(0)
#if N_IN > 1
DECLARE_INPUT(1)
#endif
#if N_IN > 2
DECLARE_INPUT(2)
#endif
#if N_IN > 3
DECLARE_INPUT(3)
#endif
#if N_IN > 4
DECLARE_INPUT(4)
#endif
#if N_IN > 5
DECLARE_INPUT(5)
#endif
#if N_IN > 6
DECLARE_INPUT(6)
#endif
#if N_IN > 7
DECLARE_INPUT(7)
#endif
#ifdef TABLE
TENSOR_IN(TABLE_BINDING, table)
#endif
TENSOR_OUT(OUT_BINDING, dst)

// Applies an axis' edge rule to coordinate c of extent e; false: the element is FILL.
bool edge(inout int c, const int e, const int rule) {
    if (rule == 1) return c >= 0 && c < e;
    if (rule == 2) { c = c < 0 ? -c : c; c = c >= e ? 2 * e - 2 - c : c; }
    if (rule == 3) { c = c < 0 ? -c - 1 : c; c = c >= e ? 2 * e - 1 - c : c; }
    if (rule == 4) { c %= e; c = c < 0 ? c + e : c; }
    return true;
}

float element(int o[5]) {
    int o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3], o4 = o[4];
    int c[5];
    c[0] = COORD_0; c[1] = COORD_1; c[2] = COORD_2; c[3] = COORD_3; c[4] = COORD_4;
    bool inside = edge(c[0], I0_E0, EDGE_0) && edge(c[1], I0_E1, EDGE_1) &&
                  edge(c[2], I0_E2, EDGE_2) && edge(c[3], I0_E3, EDGE_3) &&
                  edge(c[4], I0_E4, EDGE_4);
    if (!inside) return FILL;
#ifdef TABLE
    int t = c[TABLE_AXIS];
    int at = int(LOAD(table, t >> 2)[t & 3]);
    c[TABLE_AXIS] = clamp(at, 0, TABLE_EXTENT - 1);
#endif
#if N_IN > 1
    // Input k holds o[SEL_AXIS] in [START<k>, START<k+1>): the last one that starts at or
    // before it.
#if SEL_COORD >= 0
#define PICK(k) if (o[SEL_AXIS] >= START##k) { c[SEL_COORD] -= START##k; return load##k(c); }
#else
#define PICK(k) if (o[SEL_AXIS] >= START##k) return load##k(c);
#endif
#if N_IN > 7
    PICK(7)
#endif
#if N_IN > 6
    PICK(6)
#endif
#if N_IN > 5
    PICK(5)
#endif
#if N_IN > 4
    PICK(4)
#endif
#if N_IN > 3
    PICK(3)
#endif
#if N_IN > 2
    PICK(2)
#endif
    PICK(1)
#endif
    return load0(c);
}

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    int o[5];
    o[3] = x;
    o[2] = y % OUT_D2;
    o[1] = (y / OUT_D2) % OUT_D1;
    o[0] = y / (OUT_D2 * OUT_D1);
    vec4 v = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        o[4] = s * 4 + i;
        if (o[4] >= OUT_C) break;   // padded lanes stay zero
        v[i] = element(o);
    }
    v = activate(v);   // a fused activation (ACT_*), the identity without one
    for (int i = 0; i < 4; i++) if (s * 4 + i >= OUT_C) v[i] = 0.0;
    STORE(dst, IDX(OUT, x, y, s), v);
}
