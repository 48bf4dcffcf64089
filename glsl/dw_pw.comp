// dw_pw.comp: a DEPTHWISE_CONV_2D (depth multiplier 1, any window, stride, dilation and
// activation) and the 1x1 stride-1 CONV_2D that alone reads its output, in one dispatch
// (engine/ops/dw_pw.c picks the pairs, packs both ops' weights and sets the defines).
//
// A work group owns a tile of TILE_W x TILE_H output pixels (its x and y threads, one
// pixel each) and BLOCK_G groups of PW_TILE_S output slices (its WG_Z threads along z
// share them: thread z takes groups z, z + WG_Z, ...).
//  1. Every thread of the group computes depthwise outputs of the tile, CHUNK_S slices at
//     a time, into shared memory (`mid`, slice-major: consecutive threads, consecutive
//     pixels). The depthwise bias and activation (DW_ACT_*) are applied there; the values
//     are kept as FLT4, the precision the unfused graph reads them in from its
//     intermediate tensor (fp32, or fp16 with fp16 arithmetic), with the fp32 sum rounded
//     once as the unfused epilogue's store would.
//  2. Each thread then accumulates, for its pixel, PW_TILE_S output slices at a time over
//     the depthwise slices read from shared memory, sums in vec4, and stores each output
//     vec4 through STORE_OUTPUT (residual, the 1x1 op's activation ACT_*, padded lanes).
// With CHUNK_S == IN_S (all depthwise slices fit) the depthwise work is done once and
// each thread loops over its groups. Otherwise (large channel counts) the kernel takes
// the depthwise slices chunk by chunk, and each thread then owns exactly one group
// (BLOCK_G == WG_Z), whose sums live in registers across the chunks.
//
// 1x1 weights for slice group g and depthwise slice s are PW_TILE_S*4 vec4 in a row: for
// output slice j of the group and input lane i, the 4 output channels' weights (as
// conv2d.comp). Depthwise weights are one vec4 per (slice, ky, kx) (as
// depthwise_conv2d.comp). Padded lanes and groups past OUT_S have zero weights and bias.
//
// Variants: what dw_pw.c emits (glsl/embed.py reads these; tests/test_kernels.c compiles
// each in fp32, fp16 storage and fp16 arithmetic). The tiles: CPU devices 8x4x1 with all
// groups in one block, GPUs 8x8x2 with one group per thread, CHUNK_S=1 below IN_S=2
// taking the chunked path.
// variant-set: DW_PW_CPU = TILE_W=8 TILE_H=4 WG_Z=1 PW_TILE_S=4 BLOCK_G=1 CHUNK_S=2
// variant-set: DW_PW_GPU = TILE_W=8 TILE_H=8 WG_Z=2 PW_TILE_S=2 BLOCK_G=2
// variant-set: DW_PW_EPILOGUE = {N_BINDINGS=6|N_BINDINGS=7 RESIDUAL RES_BINDING=6 RES_W=5
//   + RES_H=4 RES_C=6 RES_S=2|N_BINDINGS=6 DENSE_OUT DENSE_BASE=12}
// variant: @bindings=6 {$DW_PW_CPU|$DW_PW_GPU CHUNK_S=2|$DW_PW_GPU CHUNK_S=1} $CONV_WINDOW
// variant: @bindings=6 $ACT $DW_PW_CPU $CONV_WINDOW
// variant: @bindings=6 {DW_ACT_RELU|DW_ACT_RELU6|DW_ACT_RELU_N1_TO_1|DW_ACT_TANH
//   + |DW_ACT_SIGMOID|DW_ACT_HARD_SWISH} ACT_RELU6 $DW_PW_GPU CHUNK_S=1 $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU DW_ACT_RELU $DW_PW_EPILOGUE $DW_PW_GPU CHUNK_S=1
//   + $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, dw_weights)
WEIGHTS(2, dw_bias)
WEIGHTS(3, pw_weights)
WEIGHTS(4, pw_bias)
OUTPUT(5)

#define TILE_PIX (TILE_W * TILE_H)
#define WG_THREADS (TILE_PIX * WG_Z)
#define N_GROUPS ((OUT_S + PW_TILE_S - 1) / PW_TILE_S)

shared FLT4 mid[CHUNK_S * TILE_PIX];

// The depthwise op's activation, in fp32 as its epilogue applies it: common.glsl's
// ACTIVATE_BODY formulas under DW_ACT_* names (ACT_* is the 1x1 op's).
vec4 dw_activate(vec4 v) {
#if defined(DW_ACT_TANH)
    return tanh(clamp(v, -10.0, 10.0));
#elif defined(DW_ACT_SIGMOID)
    vec4 e = exp(-abs(v));
    vec4 r = 1.0 / (1.0 + e);
    return mix(e * r, r, greaterThanEqual(v, vec4(0.0)));
#elif defined(DW_ACT_HARD_SWISH)
    return v * clamp(v + 3.0, 0.0, 6.0) / 6.0;
#elif defined(DW_ACT_RELU)
    return max(v, 0.0);
#elif defined(DW_ACT_RELU6)
    return clamp(v, 0.0, 6.0);
#elif defined(DW_ACT_RELU_N1_TO_1)
    return clamp(v, -1.0, 1.0);
#else
    return v;
#endif
}

// Depthwise slices [first, first + count) of the tile at (x0, y0) into mid.
void depthwise_chunk(int x0, int y0, int first, int count) {
    for (int i = int(gl_LocalInvocationIndex); i < count * TILE_PIX; i += WG_THREADS) {
        int c = i / TILE_PIX, p = i - c * TILE_PIX;
        int s = first + c;
        int x = x0 + p % TILE_W, y = y0 + p / TILE_W;
        vec4 acc = LOAD(dw_bias, s);
        if (x < OUT_W && y < OUT_H) {
            int w = s * (KH * KW);
            for (int ky = 0; ky < KH; ky++) {
                int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
                if (iy < 0 || iy >= IN_H) continue;
                for (int kx = 0; kx < KW; kx++) {
                    int ix = x * STRIDE_W - PAD_W + kx * DIL_W;
                    if (ix < 0 || ix >= IN_W) continue;
                    acc += vec4(LOADF(dw_weights, w + ky * KW + kx) * LOADF(src, IDX(IN, ix, iy, s)));
                }
            }
        }
        mid[i] = FLT4(dw_activate(acc));
    }
}

// acc[j] += the 1x1 weights of group g times depthwise slices [first, first + count) of
// pixel p (mid holds them from slice `first` on).
#define POINTWISE(acc, g, p, first, count) { \
    int w_ = ((g) * IN_S + (first)) * (PW_TILE_S * 4); \
    for (int c_ = 0; c_ < (count); c_++) { \
        FLT4 v_ = mid[c_ * TILE_PIX + (p)]; \
        for (int j_ = 0; j_ < PW_TILE_S; j_++) { \
            FLT4 w0_ = LOADF(pw_weights, w_ + 0); \
            FLT4 w1_ = LOADF(pw_weights, w_ + 1); \
            FLT4 w2_ = LOADF(pw_weights, w_ + 2); \
            FLT4 w3_ = LOADF(pw_weights, w_ + 3); \
            w_ += 4; \
            vec4 a_ = acc[j_]; \
            MAC4(a_, w0_, w1_, w2_, w3_, v_); \
            acc[j_] = a_; \
        } \
    } }

void main() {
    int x0 = int(gl_WorkGroupID.x) * TILE_W, y0 = int(gl_WorkGroupID.y) * TILE_H;
    int p = int(gl_LocalInvocationID.y) * TILE_W + int(gl_LocalInvocationID.x);
    int x = x0 + int(gl_LocalInvocationID.x), y = y0 + int(gl_LocalInvocationID.y);
    int lz = int(gl_LocalInvocationID.z);
    int first_g = int(gl_WorkGroupID.z) * BLOCK_G;
    int end_g = min(first_g + BLOCK_G, N_GROUPS);
    bool live = x < OUT_W && y < OUT_H;
#if CHUNK_S >= IN_S
    depthwise_chunk(x0, y0, 0, IN_S);
    barrier();
    if (!live) return;
    for (int g = first_g + lz; g < end_g; g += WG_Z) {
        vec4 acc[PW_TILE_S];
        for (int j = 0; j < PW_TILE_S; j++) acc[j] = LOAD(pw_bias, g * PW_TILE_S + j);
        POINTWISE(acc, g, p, 0, IN_S)
        for (int j = 0; j < PW_TILE_S; j++) {
            int s = g * PW_TILE_S + j;
            if (s < OUT_S) STORE_OUTPUT(x, y, s, acc[j])
        }
    }
#else
    // One group per thread (BLOCK_G == WG_Z); every thread takes part in every barrier.
    int g = first_g + lz;
    bool mine = live && g < end_g;
    vec4 acc[PW_TILE_S];
    for (int j = 0; j < PW_TILE_S; j++) acc[j] = mine ? LOAD(pw_bias, g * PW_TILE_S + j) : vec4(0.0);
    for (int first = 0; first < IN_S; first += CHUNK_S) {
        int count = min(CHUNK_S, IN_S - first);
        if (first > 0) barrier();   // the previous chunk is read
        depthwise_chunk(x0, y0, first, count);
        barrier();
        if (mine) POINTWISE(acc, g, p, first, count)
    }
    if (!mine) return;
    for (int j = 0; j < PW_TILE_S; j++) {
        int s = g * PW_TILE_S + j;
        if (s < OUT_S) STORE_OUTPUT(x, y, s, acc[j])
    }
#endif
}
