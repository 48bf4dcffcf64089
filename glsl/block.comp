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
//     pixel of the tile) into shared memory, an item a (pixel, slice), the threads going
//     along pixels first so that neighbours share the slice's weights; cells outside the
//     input are the zeros the depthwise window pads with;
//  2. computes the tile's depthwise outputs of those slices from it into shared memory;
//  3. adds their 1x1 products into each thread's sums: an item is a (pixel, output slice),
//     split over KSPLIT parts that each take every KSPLIT-th middle slice; parts past the
//     first leave their sums in shared memory and part 0 adds them in part order, so every
//     run gives the same result.
// Each expanded and depthwise value is rounded to its op's storage type (that of the
// weights, bindings 1 and 3) as the unfused graph's store to the intermediate tensor rounds
// it, then kept as FLT4, the type the next op reads it in (as dw_pw.comp does). The window
// cells of neighbouring tiles overlap, so the expansion is computed again for them: the
// block trades those products for two dispatches and the intermediates' round trips.
// Weights: the 1x1 convolutions as conv_common.c's vki_conv_pack_1x1 with a slice a group,
// the depthwise one vec4 per (slice, ky, kx); biases padded to whole slices.
//
// Variants: what block.c emits (glsl/embed.py reads these; tests/test_kernels.c compiles
// each in fp32, fp16 storage and fp16 arithmetic).
// variant-set: BLOCK_SHAPE = IN_W=9 IN_H=7 IN_C=5 IN_S=2 MID_C=10 MID_S=3 OUT_W=5 OUT_H=4
//   + OUT_C=6 OUT_S=2 KH=3 KW=3 STRIDE_H=2 STRIDE_W=2 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=1
// variant: @bindings=8 EXP_ACT={0|3|17} DW_ACT={0|3} $ACT LANES=64 TILE_W=2 TILE_H=2
//   + CHUNK_S={3|2} KSPLIT={1|4} $BLOCK_SHAPE
// variant: @bindings=N_BINDINGS EXP_ACT=3 DW_ACT=1 ACT_RELU LANES=32 TILE_W=4 TILE_H=1
//   + CHUNK_S=1 KSPLIT=2 {N_BINDINGS=9 RESIDUAL RES_BINDING=8 RES_W=5 RES_H=4 RES_C=6 RES_S=2
//   + |N_BINDINGS=8 DENSE_OUT DENSE_BASE=12} $BLOCK_SHAPE
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
#define TILE_PIX (TILE_W * TILE_H)
#define ITEMS (TILE_PIX * OUT_S)
#define SLOTS (ITEMS * KSPLIT)
#define SLOTS_PER_LANE ((SLOTS + LANES - 1) / LANES)

shared FLT4 expanded[CHUNK_S * HALO_PIX];
shared FLT4 depthwise[CHUNK_S * TILE_PIX];
#if KSPLIT > 1
shared vec4 partial[(KSPLIT - 1) * ITEMS];
#endif

void main() {
    const int t = int(gl_LocalInvocationID.x);
    const int ox0 = int(gl_WorkGroupID.x) * TILE_W, oy0 = int(gl_WorkGroupID.y) * TILE_H;
    const int ix0 = ox0 * STRIDE_W - PAD_W, iy0 = oy0 * STRIDE_H - PAD_H;
    // Slot r of the thread: item (t + r * LANES) % ITEMS, part (t + r * LANES) / ITEMS;
    // part 0 starts from the bias.
    ACC4 acc[SLOTS_PER_LANE];
    for (int r = 0; r < SLOTS_PER_LANE; r++) {
        int i = t + r * LANES;
        acc[r] = i < ITEMS ? LOADACC(pw_b, i / TILE_PIX) : ACC4(0);
    }
    for (int first = 0; first < MID_S; first += CHUNK_S) {
        const int count = min(CHUNK_S, MID_S - first);
        // 1. The expansion over the window (the depthwise phase of the chunk before read
        //    `expanded` ahead of the barrier every thread passed since).
        for (int i = t; i < count * HALO_PIX; i += LANES) {
            int c = i / HALO_PIX, h = i % HALO_PIX;
            int ix = ix0 + h % HALO_W, iy = iy0 + h / HALO_W;
            FLT4 v = FLT4(0);
            if (ix >= 0 && ix < IN_W && iy >= 0 && iy < IN_H) {
                int s = first + c, w = s * IN_S * 4;
                ACC4 a = LOADACC(exp_b, s);
                for (int k = 0; k < IN_S; k++, w += 4) {
                    FLT4 x = LOADF(src, IDX(IN, ix, iy, k));
                    MAC4(a, LOADF(exp_w, w), LOADF(exp_w, w + 1), LOADF(exp_w, w + 2),
                         LOADF(exp_w, w + 3), x);
                }
                v = FLT4(STORAGE_TYPE(1)(activation(a, EXP_ACT)));
            }
            expanded[c * HALO_PIX + h] = v;
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
        // 3. The 1x1 products of the chunk's slices.
        for (int r = 0; r < SLOTS_PER_LANE; r++) {
            int i = t + r * LANES;
            if (i >= SLOTS) break;
            int item = i % ITEMS, part = i / ITEMS, p = item % TILE_PIX, os = item / TILE_PIX;
            for (int c = part; c < count; c += KSPLIT) {
                int w = (os * MID_S + first + c) * 4;
                FLT4 v = depthwise[c * TILE_PIX + p];
                MAC4(acc[r], LOADF(pw_w, w), LOADF(pw_w, w + 1), LOADF(pw_w, w + 2),
                     LOADF(pw_w, w + 3), v);
            }
        }
    }
#if KSPLIT > 1
    for (int r = 0; r < SLOTS_PER_LANE; r++) {
        int i = t + r * LANES;
        if (i >= ITEMS && i < SLOTS) partial[i - ITEMS] = acc[r];
    }
    barrier();
#endif
    for (int r = 0; r < SLOTS_PER_LANE; r++) {
        int i = t + r * LANES;
        if (i >= ITEMS) break;
        ACC4 a = acc[r];
#if KSPLIT > 1
        for (int k = 1; k < KSPLIT; k++) a += partial[(k - 1) * ITEMS + i];
#endif
        int p = i % TILE_PIX, os = i / TILE_PIX;
        int x = ox0 + p % TILE_W, y = oy0 + p / TILE_W;
        if (x < OUT_W && y < OUT_H) STORE_OUTPUT(x, y, os, a)
    }
}
