// depthwise_conv2d.comp: depthwise 2D convolution over PHWC4 tensors with zero padding,
// strides, dilations and a fused activation (engine/ops/depthwise_conv2d.c packs the
// weights and sets the defines).
//
// One output vec4 per thread. Weights are one vec4 per (output slice, ky, kx); output
// channel o reads input channel o / DEPTH_MULTIPLIER, so with a multiplier of 1 output
// slice s reads input slice s and otherwise the lanes are gathered one by one. Padded
// output lanes have zero weights and bias, so they stay zero.
//
// With a multiplier of 1 a thread may compute TILE_X adjacent output columns of one row
// (TILE_X > 1, chosen for CPU devices): it walks each window row once, loading every input
// vec4 the tile's windows share once and adding it into each column whose window holds
// it, with that row's weights loaded once for all the columns. A 3x3 stride-1 tile of 4
// then loads 3 weights and 6 inputs a row for 4 outputs instead of 12 and 12.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 $ACT DEPTH_MULTIPLIER={1|2} TILE_X=1 $CONV_WINDOW
// TILE_X: depthwise_conv2d.c picks 4 on CPU devices (fewer on narrow outputs);
// VKI_DW_KERNEL forces 1 to 8.
// variant: @bindings=4 $ACT DEPTH_MULTIPLIER=1 TILE_X={2|4} $CONV_WINDOW
// variant: @bindings=4 DEPTH_MULTIPLIER=1 TILE_X={3|5|6|7|8} $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 DEPTH_MULTIPLIER=1
//   + TILE_X={1|2|4} $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 DEPTH_MULTIPLIER=2 TILE_X=1
//   + $CONV_WINDOW
// variant: @bindings=4 INT8 INT8_PACKED {SRC_SIGNED|} SRC_ZERO=-3 RQ_BASE=3 OUT_QMIN=-120
//   + OUT_QMAX=100 DEPTH_MULTIPLIER=1 TILE_X={1|2|4} $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU DEPTH_MULTIPLIER=1 TILE_X={1|4} $EPILOGUE $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

// The packed integer form (INT8_PACKED, a multiplier of 1): an input word's bytes unpack
// straight to q (SRC_LANES), the weights are int32 (q - zero point), and a tap outside
// the input reads the input's zero point, as the engine took that zero point times every
// tap's weight off the bias: no subtraction per value and no skipped tap, the same int32
// sum as (q - zero point) products over the taps inside. Otherwise a tap outside adds
// nothing and is skipped.
#if defined(INT8_PACKED) && DEPTH_MULTIPLIER == 1
#define DW_PACKED 1
#define DW_IN(i) SRC_LANES(SRC_WORD(i))
#define DW_OUTSIDE ivec4(SRC_ZERO)
#else
#define DW_IN(i) LOADV(src, i)
#define DW_OUTSIDE VAL4(0)
#endif

#if TILE_X > 1
#extension GL_EXT_control_flow_attributes : require
// Input columns a row of the tile's windows spans.
#define SPAN ((TILE_X - 1) * STRIDE_W + (KW - 1) * DIL_W + 1)

void main() {
    int x0 = int(gl_GlobalInvocationID.x) * TILE_X;
    int y = int(gl_GlobalInvocationID.y);
    int s = int(gl_GlobalInvocationID.z);
    if (x0 >= OUT_W || y >= OUT_H || s >= OUT_S) return;
    ACC4 b = LOADACC(bias, s);
    ACC4 acc[TILE_X];
    [[unroll]] for (int t = 0; t < TILE_X; t++) acc[t] = b;
    int ix0 = x0 * STRIDE_W - PAD_W;
    for (int ky = 0; ky < KH; ky++) {
        int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
        bool row_in = iy >= 0 && iy < IN_H;
#ifndef DW_PACKED
        if (!row_in) continue;
#endif
        VAL4 w[KW];
        [[unroll]] for (int kx = 0; kx < KW; kx++) w[kx] = LOADV(weights, (s * KH + ky) * KW + kx);
        int row = IDX(IN, 0, iy, s);
        [[unroll]] for (int c = 0; c < SPAN; c++) {
            int ix = ix0 + c;
            VAL4 v = DW_OUTSIDE;
            if (row_in && ix >= 0 && ix < IN_W) v = DW_IN(row + ix);
            // Column c is tap kx of output t where c = t*STRIDE_W + kx*DIL_W.
            [[unroll]] for (int kx = 0; kx < KW; kx++) {
                int d = c - kx * DIL_W;
                if (d >= 0 && d % STRIDE_W == 0 && d / STRIDE_W < TILE_X)
                    acc[d / STRIDE_W] += ACC4(w[kx] * v);
            }
        }
    }
    [[unroll]] for (int t = 0; t < TILE_X; t++)
        if (x0 + t < OUT_W) STORE_OUTPUT(x0 + t, y, s, acc[t])
}
#else
void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    ACC4 acc = LOADACC(bias, s);
    int w = s * (KH * KW);
    for (int ky = 0; ky < KH; ky++) {
        int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
#ifdef DW_PACKED
        bool row_in = iy >= 0 && iy < IN_H;
        for (int kx = 0; kx < KW; kx++) {
            int ix = x * STRIDE_W - PAD_W + kx * DIL_W;
            VAL4 v = DW_OUTSIDE;
            if (row_in && ix >= 0 && ix < IN_W) v = DW_IN(IDX(IN, ix, iy, s));
            acc += LOADV(weights, w + ky * KW + kx) * v;
        }
#else
        if (iy < 0 || iy >= IN_H) continue;
        for (int kx = 0; kx < KW; kx++) {
            int ix = x * STRIDE_W - PAD_W + kx * DIL_W;
            if (ix < 0 || ix >= IN_W) continue;
#if DEPTH_MULTIPLIER == 1
            VAL4 v = LOADV(src, IDX(IN, ix, iy, s));
#else
            VAL4 v = VAL4(0);
            for (int i = 0; i < 4; i++) {
                int o = s * 4 + i;
                // Lanes past OUT_C could map past the last input slice.
                if (o < OUT_C) {
                    int c = o / DEPTH_MULTIPLIER;
                    v[i] = LOADV(src, IDX(IN, ix, iy, c / 4))[c % 4];
                }
            }
#endif
            acc += ACC4(LOADV(weights, w + ky * KW + kx) * v);
        }
#endif
    }
    STORE_OUTPUT(x, y, s, acc)
}
#endif
