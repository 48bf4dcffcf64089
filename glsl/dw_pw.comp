// dw_pw.comp: a DEPTHWISE_CONV_2D (depth multiplier 1, any window, stride, dilation and
// activation) and the 1x1 stride-1 CONV_2D that alone reads its output, in one dispatch
// (engine/ops/dw_pw.c picks the pairs, packs both ops' weights and sets the defines).
//
// A work group owns a tile of (TILE_W * TILE_X) x TILE_H output pixels (its x and y
// threads, TILE_X adjacent columns each) and BLOCK_G groups of PW_TILE_S output slices
// (its WG_Z threads along z share them: thread z takes groups z, z + WG_Z, ...).
//  1. The threads compute the depthwise outputs of the tile, CHUNK_S slices at a time,
//     into shared memory (`mid`, slice-major); each thread its own pixels, the z threads
//     of a pixel splitting the slices. The depthwise bias and activation (DW_ACT_*) are
//     applied there, in fp32 as the unfused epilogue does, and each value is rounded to
//     the depthwise op's storage type (that of its weights, binding 1) as the unfused
//     graph's store to the intermediate tensor rounds it, then kept as FLT4, the type
//     the unfused 1x1 reads it in. So the pair computes exactly what the two dispatches
//     did, in every precision (fp16 storage too: pose_landmark_lite's ill-conditioned
//     segmentation output moved by 0.15 of its range with the intermediate kept fp32).
//  2. Each thread then accumulates, for its pixels, PW_TILE_S output slices at a time over
//     the depthwise slices read from shared memory, sums in vec4, and stores each output
//     vec4 through STORE_OUTPUT (residual, the 1x1 op's activation ACT_*, padded lanes).
// INT8 (both ops int8 / uint8 with integer forms, int8.h): the same steps on q - zero
// point, as the unfused integer kernels compute them (common.glsl's INT8 section). The
// depthwise part sums (q - zero) products in int32 onto its int32 bias (binding 2, its
// requantization scales from vec4 DW_RQ_BASE on), requantizes in fp32 ties to even onto
// its output's grid clamped to DW_QMIN..DW_QMAX (a fused table op, DW_TABLE, maps it
// after), and keeps that whole number, which is exactly the q - zero point the unfused
// graph stores, as an ivec4; the 1x1 part sums those times its weights in int32 onto its
// bias (binding 4, named `bias` for STORE_OUTPUT's scales at RQ_BASE) and stores through
// the integer epilogue with whatever the passes fused into the 1x1 conv (INT8_ADD with
// RESIDUAL, INT8_TABLE). Integer tensors are bytes in every precision, so the result is
// the same bit for bit in fp32, fp16 and fp16 storage.
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
// each in fp32, fp16 storage and fp16 arithmetic). The tiles: CPU devices 8x2x1 threads
// of 4 columns (or 2 or 1) with all groups in one block; GPUs a whole tile (DW_PW_WHOLE:
// TILE_W x TILE_H pixels, WG_Z = N_GROUPS threads a pixel, every group in one block), or
// where its slices do not fit 8x8x2 threads with one group per thread, CHUNK_S=1 below
// IN_S=2 taking the chunked path.
// variant-set: DW_PW_CPU = TILE_W=8 TILE_H=2 TILE_X=4 WG_Z=1 PW_TILE_S=2 BLOCK_G=2 CHUNK_S=2
// variant-set: DW_PW_GPU = TILE_W=8 TILE_H=8 TILE_X=1 WG_Z=2 PW_TILE_S=2 BLOCK_G=2
// variant-set: DW_PW_WHOLE = TILE_W=4 TILE_H=2 TILE_X=1 WG_Z=3 PW_TILE_S=1 BLOCK_G=3 CHUNK_S=2
// variant-set: DW_PW_KSPLIT = TILE_W=4 TILE_H=2 TILE_X=1 WG_Z=3 PW_TILE_S=1 BLOCK_G=3 CHUNK_S=2
//   + KSPLIT=4
// variant-set: DW_PW_EPILOGUE = {N_BINDINGS=6|N_BINDINGS=7 RESIDUAL RES_BINDING=6 RES_W=5
//   + RES_H=4 RES_C=6 RES_S=2|N_BINDINGS=6 DENSE_OUT DENSE_BASE=12}
// variant: @bindings=6 {$DW_PW_CPU|$DW_PW_GPU CHUNK_S=2|$DW_PW_GPU CHUNK_S=1|$DW_PW_WHOLE
//   + |$DW_PW_KSPLIT} $CONV_WINDOW
// variant: @bindings=6 TILE_W=8 TILE_H=2 TILE_X={1|2} WG_Z=1 PW_TILE_S=1 BLOCK_G=3 CHUNK_S=2
//   + $CONV_WINDOW
// A stride-1 window: columns share their taps.
// variant: @bindings=6 ACT_RELU DW_ACT_RELU6 $DW_PW_CPU IN_W=9 IN_H=7 IN_C=5 IN_S=2 OUT_W=9
//   + OUT_H=7 OUT_C=10 OUT_S=3 KH=3 KW=3 STRIDE_H=1 STRIDE_W=1 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=1
// variant: @bindings=6 $ACT $DW_PW_CPU $CONV_WINDOW
// variant: @bindings=6 {DW_ACT_RELU|DW_ACT_RELU6|DW_ACT_RELU_N1_TO_1|DW_ACT_TANH
//   + |DW_ACT_SIGMOID|DW_ACT_HARD_SWISH} ACT_RELU6 $DW_PW_GPU CHUNK_S=1 $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU DW_ACT_RELU $DW_PW_EPILOGUE {$DW_PW_GPU CHUNK_S=1
//   + |$DW_PW_WHOLE|$DW_PW_KSPLIT} $CONV_WINDOW
// The integer form: both tilings; the 1x1's fused integer ADD and table op; a depthwise
// table op (bound after the 1x1's).
// variant-set: DW_PW_INT8 = INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 DW_RQ_BASE=2 DW_QMIN=-128
//   + DW_QMAX=127
// variant: @bindings=6 $DW_PW_INT8 {$DW_PW_CPU|$DW_PW_GPU CHUNK_S=2|$DW_PW_GPU CHUNK_S=1
//   + |$DW_PW_WHOLE|$DW_PW_KSPLIT} $CONV_WINDOW
// variant: @bindings=6 $DW_PW_INT8 TILE_W=8 TILE_H=2 TILE_X={1|2} WG_Z=1 PW_TILE_S=1 BLOCK_G=3
//   + CHUNK_S=2 $CONV_WINDOW
// variant: @bindings=6 $DW_PW_INT8 $DW_PW_CPU IN_W=9 IN_H=7 IN_C=5 IN_S=2 OUT_W=9 OUT_H=7
//   + OUT_C=10 OUT_S=3 KH=3 KW=3 STRIDE_H=1 STRIDE_W=1 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=1
// variant: @bindings=N_BINDINGS $DW_PW_INT8 {$DW_PW_CPU|$DW_PW_GPU CHUNK_S=1}
//   + {N_BINDINGS=7 RESIDUAL RES_BINDING=6 RES_W=5 RES_H=4 RES_C=6 RES_S=2 INT8_ADD OWN_MULT=5000
//   + RES_MULT=-3000 Q_SHIFT=12 ADD_QMIN=-128 ADD_QMAX=127
//   + |N_BINDINGS=8 RESIDUAL RES_BINDING=6 RES_W=5 RES_H=4 RES_C=6 RES_S=2 INT8_ADD OWN_MULT=5000
//   + RES_MULT=3000 Q_SHIFT=12 ADD_QMIN=-128 ADD_QMAX=127 INT8_TABLE TABLE_BINDING=7
//   + TABLE_OFFSET=128|N_BINDINGS=8 INT8_TABLE TABLE_BINDING=6 TABLE_OFFSET=128 DW_TABLE
//   + DW_TABLE_BINDING=7 DW_TABLE_OFFSET=128|N_BINDINGS=6 DENSE_OUT DENSE_BASE=12
//   + DENSE_SCALE=float(0.0235)} $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, dw_weights)
#ifdef INT8
// int32 biases, then the requantization scales (int8.c's vki_int8_bias_blob). The 1x1's
// is named `bias`: common.glsl's integer STORE_OUTPUT reads its scales there.
BIAS_BUFFER(2, dw_bias)
WEIGHTS(3, pw_weights)
BIAS_BUFFER(4, bias)
#define PW_BIAS bias
#ifdef DW_TABLE
WEIGHTS(DW_TABLE_BINDING, dw_qtable)
#endif
// A depthwise value in shared memory: its q - zero point.
#define MID4 ivec4
#else
WEIGHTS(2, dw_bias)
WEIGHTS(3, pw_weights)
WEIGHTS(4, pw_bias)
#define PW_BIAS pw_bias
#define MID4 FLT4
#endif
OUTPUT(5)

#define TILE_PIX (TILE_W * TILE_X * TILE_H)
#define N_GROUPS ((OUT_S + PW_TILE_S - 1) / PW_TILE_S)
// KSPLIT (whole tiles only): the work group's y is KSPLIT rows of TILE_H threads, each row
// a part. Every part computes depthwise slices with the others; then part k sums the 1x1
// over its range of depthwise slices, parts past the first leave their sums in `partial`,
// and part 0 adds them in part order before the epilogue, so a run always gives the same
// result (not, in fp32, the unsplit sum's rounding).
#ifndef KSPLIT
#define KSPLIT 1
#endif

shared MID4 mid[CHUNK_S * TILE_PIX];
#define MID(c, p) mid[(c) * TILE_PIX + (p)]
#if KSPLIT > 1
shared ACC4 partial[(KSPLIT - 1) * WG_Z * PW_TILE_S * TILE_PIX];
#define PARTIAL(k, z, j, q) partial[(((k) * WG_Z + (z)) * PW_TILE_S + (j)) * TILE_PIX + (q)]
#endif

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

#ifdef INT8
// The depthwise op's integer epilogue on slice s (common.glsl's integer STORE_OUTPUT with
// the depthwise op's scales and range): float(sum) times the scale in one float32
// rounding, ties to even, clamped; then its fused table op, if any.
ivec4 dw_requantize(ivec4 acc, int s) {
    precise vec4 f = vec4(acc) * intBitsToFloat(dw_bias[DW_RQ_BASE + s]);
    vec4 v = clamp(roundEven(f), vec4(DW_QMIN), vec4(DW_QMAX));
#ifdef DW_TABLE
    for (int k = 0; k < 4; k++) {
        int e = clamp(int(v[k]) + DW_TABLE_OFFSET, 0, 255);
        v[k] = LOAD(dw_qtable, e >> 2)[e & 3];
    }
#endif
    return ivec4(v);
}
#endif

// Depthwise slices [first, first + count) of the thread's TILE_X pixels (columns x..,
// row y, tile index p..) into mid. Thread z of part k takes slices lz = z + k * WG_Z,
// lz + WG_Z * KSPLIT, ...: with one
// thread per pixel (CPU devices) the slice, and so the weights' index, is the same for
// all threads, which on lavapipe made the fused pairs of face_detection_short_range
// about 20% faster than spreading (slice, pixel) items over the threads.
void depthwise_chunk(int x, int y, int p, int lz, int first, int count) {
    for (int c = lz; c < count; c += WG_Z * KSPLIT) {
        int s = first + c;
        ACC4 b = LOADACC(dw_bias, s);
        ACC4 acc[TILE_X];
        for (int t = 0; t < TILE_X; t++) acc[t] = b;
        if (y < OUT_H) {
            int w = s * (KH * KW);
            for (int ky = 0; ky < KH; ky++) {
                int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
                if (iy < 0 || iy >= IN_H) continue;
#if STRIDE_W == 1 && DIL_W == 1 && TILE_X > 1
                // Adjacent columns share KW - 1 of their taps: KW + TILE_X - 1 loads a row
                // instead of KW * TILE_X (columns past OUT_W are computed, never stored).
                VAL4 row[KW + TILE_X - 1];
                for (int j = 0; j < KW + TILE_X - 1; j++) {
                    int ix = x - PAD_W + j;
                    row[j] = ix >= 0 && ix < IN_W ? LOADV(src, IDX(IN, ix, iy, s)) : VAL4(0);
                }
                for (int kx = 0; kx < KW; kx++) {
                    VAL4 wt = LOADV(dw_weights, w + ky * KW + kx);
                    for (int t = 0; t < TILE_X; t++) acc[t] += ACC4(wt * row[t + kx]);
                }
#else
                for (int kx = 0; kx < KW; kx++) {
                    VAL4 wt = LOADV(dw_weights, w + ky * KW + kx);
                    for (int t = 0; t < TILE_X; t++) {
                        int ix = (x + t) * STRIDE_W - PAD_W + kx * DIL_W;
                        if (x + t < OUT_W && ix >= 0 && ix < IN_W)
                            acc[t] += ACC4(wt * LOADV(src, IDX(IN, ix, iy, s)));
                    }
                }
#endif
            }
        }
#ifdef INT8
        for (int t = 0; t < TILE_X; t++) MID(c, p + t) = dw_requantize(acc[t], s);
#else
        for (int t = 0; t < TILE_X; t++) MID(c, p + t) = FLT4(STORAGE_TYPE(1)(dw_activate(acc[t])));
#endif
    }
}

// acc[j * TILE_X + t] += the 1x1 weights of group g times depthwise slices
// [first, first + count) of tile pixel p + t (mid holds slice `first` at `base`).
void pointwise(inout ACC4 acc[PW_TILE_S * TILE_X], int g, int p, int first, int count, int base) {
    int w = (g * IN_S + first) * (PW_TILE_S * 4);
    for (int c = 0; c < count; c++) {
        MID4 v[TILE_X];
        for (int t = 0; t < TILE_X; t++) v[t] = MID(base + c, p + t);
        for (int j = 0; j < PW_TILE_S; j++) {
            VAL4 w0 = LOADV(pw_weights, w + 0);
            VAL4 w1 = LOADV(pw_weights, w + 1);
            VAL4 w2 = LOADV(pw_weights, w + 2);
            VAL4 w3 = LOADV(pw_weights, w + 3);
            w += 4;
            for (int t = 0; t < TILE_X; t++) {
                ACC4 a = acc[j * TILE_X + t];
                MAC4(a, w0, w1, w2, w3, v[t]);
                acc[j * TILE_X + t] = a;
            }
        }
    }
}

void store_group(ACC4 acc[PW_TILE_S * TILE_X], int g, int x, int y) {
    for (int j = 0; j < PW_TILE_S; j++) {
        int s = g * PW_TILE_S + j;
        if (s >= OUT_S) break;
        for (int t = 0; t < TILE_X; t++)
            if (x + t < OUT_W) STORE_OUTPUT(x + t, y, s, acc[j * TILE_X + t])
    }
}

// With one thread per pixel (WG_Z == 1, the CPU tile) every thread reads back only the
// values it wrote itself, which needs no barrier.
// Tried on lavapipe for that tile and kept out (face_detection_short_range, dw_pw kernel
// time, medians of 5-9 interleaved rounds on 2 loaded cores, against this kernel):
//  - each thread's depthwise values in a private array instead of shared memory (`mid`
//    as MID4[CHUNK_S * TILE_X]): 1.6x slower indexed by the slice loop, 1.4x slower with
//    that loop [[unroll]]ed so every index is a constant (llvmpipe loads shared memory
//    lane by lane too, but the private array spills worse);
//  - the 1x1 weights (binding 3) as a std140 uniform block: 1.05x slower (their offsets
//    are not uniform in Mesa's sense, see glsl/conv2d_1x1.comp, so each load is a gather);
//  - [[unroll]] on the tile loops: no change (NIR unrolls them already);
//  - a probe computing wrong results split the time: without the 1x1 weight loads 0.66x,
//    without the depthwise taps 0.74x, without the shared-memory reads of the 1x1 part
//    0.60x.
#if WG_Z == 1 && KSPLIT == 1
#define SHARED_BARRIER()
#else
#define SHARED_BARRIER() barrier()
#endif

void main() {
    int lx = int(gl_LocalInvocationID.x), ly = int(gl_LocalInvocationID.y) % TILE_H;
    int lz = int(gl_LocalInvocationID.z), part = int(gl_LocalInvocationID.y) / TILE_H;
    int x = (int(gl_WorkGroupID.x) * TILE_W + lx) * TILE_X;
    int y = int(gl_WorkGroupID.y) * TILE_H + ly;
    int p = (ly * TILE_W + lx) * TILE_X;
    int first_g = int(gl_WorkGroupID.z) * BLOCK_G;
    int end_g = min(first_g + BLOCK_G, N_GROUPS);
    bool live = x < OUT_W && y < OUT_H;
    ACC4 acc[PW_TILE_S * TILE_X];
#if KSPLIT > 1
    depthwise_chunk(x, y, p, lz + part * WG_Z, 0, IN_S);
    barrier();
    // Part `part` sums depthwise slices [first, first + count); every thread runs the same
    // rounds (groups lz, lz + WG_Z, ...), so the barriers are uniform.
    const int per = (IN_S + KSPLIT - 1) / KSPLIT;
    int first = min(part * per, IN_S), count = min(per, IN_S - first);
    for (int round = 0; round < (N_GROUPS + WG_Z - 1) / WG_Z; round++) {
        int g = lz + round * WG_Z;
        bool mine = live && g < N_GROUPS;
        for (int j = 0; j < PW_TILE_S; j++) {
            ACC4 b = mine && part == 0 ? LOADACC(PW_BIAS, g * PW_TILE_S + j) : ACC4(0);
            for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
        }
        if (mine) pointwise(acc, g, p, first, count, first);
        if (part > 0)
            for (int j = 0; j < PW_TILE_S; j++)
                for (int t = 0; t < TILE_X; t++) PARTIAL(part - 1, lz, j, p + t) = acc[j * TILE_X + t];
        barrier();
        if (part == 0 && mine) {
            for (int k = 1; k < KSPLIT; k++)
                for (int j = 0; j < PW_TILE_S; j++)
                    for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] += PARTIAL(k - 1, lz, j, p + t);
            store_group(acc, g, x, y);
        }
        barrier();   // the partial sums are read before the next round writes them
    }
#elif CHUNK_S >= IN_S
    depthwise_chunk(x, y, p, lz, 0, IN_S);
    SHARED_BARRIER();
    if (!live) return;
    for (int g = first_g + lz; g < end_g; g += WG_Z) {
        for (int j = 0; j < PW_TILE_S; j++) {
            ACC4 b = LOADACC(PW_BIAS, g * PW_TILE_S + j);
            for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
        }
        pointwise(acc, g, p, 0, IN_S, 0);
        store_group(acc, g, x, y);
    }
#else
    // One group per thread (BLOCK_G == WG_Z); every thread takes part in every barrier.
    int g = first_g + lz;
    bool mine = live && g < end_g;
    for (int j = 0; j < PW_TILE_S; j++) {
        ACC4 b = mine ? LOADACC(PW_BIAS, g * PW_TILE_S + j) : ACC4(0);
        for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
    }
    for (int first = 0; first < IN_S; first += CHUNK_S) {
        int count = min(CHUNK_S, IN_S - first);
        if (first > 0) barrier();   // the previous chunk is read
        depthwise_chunk(x, y, p, lz, first, count);
        barrier();
        if (mine) pointwise(acc, g, p, first, count, 0);
    }
    if (mine) store_group(acc, g, x, y);
#endif
}
