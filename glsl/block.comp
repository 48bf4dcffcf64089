// block.comp: an inverted residual block in one dispatch (engine/ops/block.c picks the
// blocks and sets the defines): a 1x1 stride-1 CONV_2D that expands IN_C channels to MID_C
// (activation EXP_ACT, a code), the DEPTHWISE_CONV_2D (multiplier 1, any window, stride and
// dilation; activation DW_ACT) that alone reads its output, and the 1x1 CONV_2D that alone
// reads the depthwise output, projecting to OUT_C channels with whatever the passes fused
// into it (residual, activation ACT_*, dense output) through STORE_OUTPUT. Float forms.
//
// A work group of LANES threads (x) owns a TILE_W x TILE_H tile of output pixels
// (gl_WorkGroupID.xy). For CHUNK_S middle slices at a time it
//  1. expands the tile's input window (HALO_W x HALO_H pixels: the taps of every output
//     pixel of the tile) into shared memory: an item is EX_PX window pixels of one slice,
//     whose weights the thread loads once for all of them, the threads going along pixels
//     first so that neighbours share the slice's weights; cells outside the input are the
//     zeros the depthwise window pads with;
//  2. computes the tile's depthwise outputs of those slices from it into shared memory;
//  3. adds their 1x1 products into each thread's sums: thread t owns one slot, PW_PX tile
//     pixels of one output slice (their sums in registers) and one of KSPLIT parts, which
//     takes every KSPLIT-th middle slice; parts past the first leave their sums in shared
//     memory and part 0 adds them in part order, so every run gives the same result.
// Variants: what block.c emits (glsl/embed.py reads these; tests/test_kernels.c compiles
// each in fp32, fp16 storage and fp16 arithmetic).
// variant-set: BLOCK_SHAPE = IN_W=9 IN_H=7 IN_C=5 IN_S=2 MID_C=10 MID_S=3 OUT_W=5 OUT_H=4
//   + OUT_C=6 OUT_S=2 KH=3 KW=3 STRIDE_H=2 STRIDE_W=2 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=1
// variant: @bindings=8 EXP_ACT={0|3|17} DW_ACT={0|3} $ACT LANES=64 TILE_W=2 TILE_H=2
//   + CHUNK_S={3|2} KSPLIT={1|4} EX_PX={1|4} PW_PX={1|2} $BLOCK_SHAPE
// variant: @bindings=N_BINDINGS EXP_ACT=3 DW_ACT=1 ACT_RELU LANES=32 TILE_W=4 TILE_H=1
//   + CHUNK_S=1 KSPLIT=2 EX_PX=2 PW_PX=4 {N_BINDINGS=9 RESIDUAL RES_BINDING=8 RES_W=5 RES_H=4
//   + RES_C=6 RES_S=2|N_BINDINGS=8 DENSE_OUT DENSE_BASE=12} $BLOCK_SHAPE
#extension GL_EXT_control_flow_attributes : require
TENSOR_IN(0, src)
WEIGHTS(1, exp_w)
WEIGHTS(2, exp_b)
WEIGHTS(3, dw_w)
WEIGHTS(4, dw_b)
WEIGHTS(5, pw_w)
WEIGHTS(6, pw_b)
OUTPUT(7)

#define HALO_W ((TILE_W - 1) * STRIDE_W + (KW - 1) * DIL_W + 1)
#define HALO_H ((TILE_H - 1) * STRIDE_H + (KH - 1) * DIL_H + 1)
#define HALO_PIX (HALO_W * HALO_H)
#define HALO_GROUPS ((HALO_PIX + EX_PX - 1) / EX_PX)
#define TILE_PIX (TILE_W * TILE_H)
#define PW_GROUPS ((TILE_PIX + PW_PX - 1) / PW_PX)
#define ITEMS (PW_GROUPS * OUT_S)

shared FLT4 expanded[CHUNK_S * HALO_PIX];
shared FLT4 depthwise[CHUNK_S * TILE_PIX];
#if KSPLIT > 1
shared vec4 partial[(KSPLIT - 1) * ITEMS * PW_PX];
#endif

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int ox0 = int(gl_WorkGroupID.x) * TILE_W, oy0 = int(gl_WorkGroupID.y) * TILE_H;
    const int ix0 = ox0 * STRIDE_W - PAD_W, iy0 = oy0 * STRIDE_H - PAD_H;
    // The thread's slot (block.c makes ITEMS * KSPLIT <= LANES): PW_PX pixels from p0 of
    // output slice os, part `part`; part 0 starts from the bias.
    const int item = t % ITEMS, part = t / ITEMS;
    const int os = item / PW_GROUPS, p0 = (item % PW_GROUPS) * PW_PX;
    const bool mine = part < KSPLIT;
    ACC4 acc[PW_PX];
    for (int j = 0; j < PW_PX; j++) acc[j] = mine && part == 0 ? LOADACC(pw_b, os) : ACC4(0);
    for (int first = 0; first < MID_S; first += CHUNK_S) {
        const int count = min(CHUNK_S, MID_S - first);
        // 1. The expansion over the window (the depthwise phase of the chunk before read
        //    `expanded` ahead of the barrier every thread passed since).
        for (int i = t; i < count * HALO_GROUPS; i += LANES) {
            const int c = i / HALO_GROUPS, h0 = (i % HALO_GROUPS) * EX_PX, s = first + c;
            ACC4 a[EX_PX];
            int at[EX_PX];
            for (int j = 0; j < EX_PX; j++) {
                int h = h0 + j, ix = ix0 + h % HALO_W, iy = iy0 + h / HALO_W;
                a[j] = LOADACC(exp_b, s);
                at[j] = h < HALO_PIX && ix >= 0 && ix < IN_W && iy >= 0 && iy < IN_H
                            ? IDX(IN, ix, iy, 0) : -1;
            }
            int w = s * IN_S * 4;
            for (int k = 0; k < IN_S; k++, w += 4) {
                FLT4 w0 = LOADF(exp_w, w), w1 = LOADF(exp_w, w + 1);
                FLT4 w2 = LOADF(exp_w, w + 2), w3 = LOADF(exp_w, w + 3);
                for (int j = 0; j < EX_PX; j++) {
                    FLT4 x = at[j] >= 0 ? LOADF(src, at[j] + k * IN_H * IN_W) : FLT4(0);
                    MAC4(a[j], w0, w1, w2, w3, x);
                }
            }
            for (int j = 0; j < EX_PX; j++)
                if (h0 + j < HALO_PIX)
                    expanded[c * HALO_PIX + h0 + j] =
                        at[j] >= 0 ? FLT4(STORAGE_TYPE(1)(activation(a[j], EXP_ACT))) : FLT4(0);
        }
        barrier();
        // 2. The depthwise outputs of the tile (every thread's sums of the chunk before
        //    read `depthwise` ahead of the barrier above).
        for (int i = t; i < count * TILE_PIX; i += LANES) {
            int c = i / TILE_PIX, p = i % TILE_PIX, s = first + c;
            int base = c * HALO_PIX + (p / TILE_W) * STRIDE_H * HALO_W + (p % TILE_W) * STRIDE_W;
            ACC4 a = LOADACC(dw_b, s);
            for (int ky = 0; ky < KH; ky++)
                for (int kx = 0; kx < KW; kx++)
                    a += ACC4(LOADF(dw_w, (s * KH + ky) * KW + kx) *
                              expanded[base + ky * DIL_H * HALO_W + kx * DIL_W]);
            depthwise[c * TILE_PIX + p] = FLT4(STORAGE_TYPE(3)(activation(a, DW_ACT)));
        }
        barrier();
        // 3. The 1x1 products of the chunk's slices: part `part` takes every KSPLIT-th.
        // A constant trip count (CHUNK_S / KSPLIT rounds up), so that the compiler can
        // unroll the rounds and issue their weight loads together.
        if (mine) {
            [[unroll]] for (int r = 0; r < (CHUNK_S + KSPLIT - 1) / KSPLIT; r++) {
                int c = part + r * KSPLIT;
                if (c >= count) break;
                int w = (os * MID_S + first + c) * 4;
                FLT4 w0 = LOADF(pw_w, w), w1 = LOADF(pw_w, w + 1);
                FLT4 w2 = LOADF(pw_w, w + 2), w3 = LOADF(pw_w, w + 3);
                for (int j = 0; j < PW_PX; j++) {
                    FLT4 v = depthwise[c * TILE_PIX + min(p0 + j, TILE_PIX - 1)];
                    MAC4(acc[j], w0, w1, w2, w3, v);
                }
            }
        }
    }
#if KSPLIT > 1
    if (mine && part > 0)
        for (int j = 0; j < PW_PX; j++) partial[((part - 1) * ITEMS + item) * PW_PX + j] = acc[j];
    barrier();
#endif
    if (!mine || part > 0) return;
    for (int j = 0; j < PW_PX; j++) {
        ACC4 a = acc[j];
#if KSPLIT > 1
        for (int k = 1; k < KSPLIT; k++) a += partial[((k - 1) * ITEMS + item) * PW_PX + j];
#endif
        int p = p0 + j, x = ox0 + p % TILE_W, y = oy0 + p / TILE_W;
        if (p < TILE_PIX && x < OUT_W && y < OUT_H) STORE_OUTPUT(x, y, os, a)
    }
}
