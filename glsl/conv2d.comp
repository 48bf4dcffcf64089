// conv2d.comp: 2D convolution over PHWC4 tensors with zero padding, strides, dilations
// and a fused activation (engine/ops/conv2d.c packs the weights and sets the defines).
//
// Each thread computes TILE_S output slices (4 channels each) at TILE_X adjacent
// columns of one row: every input vec4 fetched feeds TILE_S slices, every weight vec4
// TILE_X columns. Weights for slice group g, tap (ky,kx), input slice is are TILE_S*4
// vec4 in a row; vec4 i of output slice j holds the 4 output channels' weights for
// input lane i, so acc += w0*v.x + w1*v.y + w2*v.z + w3*v.w. Slices past OUT_S in the
// last group have zero weights and bias and are not stored.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// TILE_S and TILE_X: conv2d.c picks 1, 2 or 4 by 1 or 2 on GPUs, 1 or 2 by 1 to 4 on CPU
// devices; VKI_CONV_TILE forces up to 8 by 8.
// variant: @bindings=4 $ACT TILE_S={1|2|4} TILE_X={1|2|4} $CONV_WINDOW
// variant: @bindings=4 TILE_S={3|8} TILE_X={3|8} $CONV_WINDOW
// CPU devices' tile for a one-slice input (the first layers), float and integer.
// variant: @bindings=4 TILE_S=2 TILE_X=8 $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S=2 TILE_X=8
//   + INT8_PACKED SRC_ZERO=-3 $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S={1|2|4} TILE_X={1|2}
//   + $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S={1|2} TILE_X={1|2}
//   + INT8_PACKED SRC_ZERO=-3 {SRC_SIGNED|} {INT8_DOT|} $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU TILE_S={1|4} TILE_X=2 $EPILOGUE $CONV_WINDOW
// A gate on the input (the gate pass), after the output or the residual.
// variant: @bindings=5 TILE_S=2 TILE_X=2 GATE_BINDING=4 $CONV_WINDOW
// variant: @bindings=6 ACT_RELU TILE_S=1 TILE_X=1 N_BINDINGS=5 RESIDUAL RES_BINDING=4 RES_W=5
//   + RES_H=4 RES_C=6 RES_S=2 GATE_BINDING=5 $CONV_WINDOW
// A MAX_POOL_2D folded into the residual read (the pool_residual pass).
// variant: @bindings=5 ACT_RELU TILE_S={1|2} TILE_X=2 N_BINDINGS=5 RESIDUAL RES_BINDING=4
//   + RES_W=9 RES_H=7 RES_C=5 RES_S=2 RES_POOL RES_POOL_KH=2 RES_POOL_KW=2 RES_POOL_SH=2
//   + RES_POOL_SW=2 RES_POOL_PT=0 RES_POOL_PL=0 $CONV_WINDOW
//
// The packed integer form (INT8_PACKED): an input word (4 input lanes' bytes) meets each
// output lane's weight word (each 4x4 block transposed by the engine) in one packed dot
// product (DOT_WX), and a tap outside the input reads the zero point's word, as the
// engine took the input's zero point times every tap's weights off the bias: no tap is
// skipped, no byte unpacked, the same int32 sums as (q - zero point) products.
#extension GL_EXT_control_flow_attributes : require
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#define TILE (TILE_S * TILE_X)

void main() {
    int x0 = int(gl_GlobalInvocationID.x) * TILE_X;
    int y = int(gl_GlobalInvocationID.y);
    int group = int(gl_GlobalInvocationID.z);
    if (x0 >= OUT_W || y >= OUT_H || group * TILE_S >= OUT_S) return;

    ACC4 acc[TILE];
    [[unroll]] for (int j = 0; j < TILE_S; j++) {
        ACC4 b = LOADACC(bias, group * TILE_S + j);
        [[unroll]] for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
    }

    const int taps_stride = IN_S * TILE_S * 4;   // vec4 per (ky, kx) in one group
    int group_base = group * (KH * KW * taps_stride);
    for (int ky = 0; ky < KH; ky++) {
        int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
        bool row_in = iy >= 0 && iy < IN_H;
#ifndef INT8_PACKED
        if (!row_in) continue;
#endif
        for (int kx = 0; kx < KW; kx++) {
            int ix0 = x0 * STRIDE_W - PAD_W + kx * DIL_W;
            // Columns of the tile inside the input; the others read zero.
            bool inside[TILE_X];
            bool any = false;
            [[unroll]] for (int t = 0; t < TILE_X; t++) {
                int ix = ix0 + t * STRIDE_W;
                inside[t] = row_in && ix >= 0 && ix < IN_W;
                any = any || inside[t];
            }
            int w = group_base + (ky * KW + kx) * taps_stride;
            int at = IDX(IN, ix0, iy, 0);
#ifdef INT8_PACKED
            for (int is = 0; is < IN_S; is++) {
                uint v[TILE_X];
                [[unroll]] for (int t = 0; t < TILE_X; t++)
                    v[t] = inside[t] ? SRC_WORD(at + t * STRIDE_W) : SRC_ZERO_WORD;
                [[unroll]] for (int j = 0; j < TILE_S; j++) {
                    uint w0 = W_WORD(w + 0), w1 = W_WORD(w + 1), w2 = W_WORD(w + 2),
                         w3 = W_WORD(w + 3);
                    w += 4;
                    [[unroll]] for (int t = 0; t < TILE_X; t++)
                        acc[j * TILE_X + t] += ivec4(DOT_WX(w0, v[t]), DOT_WX(w1, v[t]),
                                                     DOT_WX(w2, v[t]), DOT_WX(w3, v[t]));
                }
                at += IN_H * IN_W;
            }
            continue;
#endif
            if (!any) continue;
            for (int is = 0; is < IN_S; is++) {
                VAL4 v[TILE_X];
                [[unroll]] for (int t = 0; t < TILE_X; t++) {
                    v[t] = VAL4(0);
                    if (inside[t]) v[t] = GATED(LOADV(src, at + t * STRIDE_W), is);
                }
                [[unroll]] for (int j = 0; j < TILE_S; j++) {
                    VAL4 w0 = LOADV(weights, w + 0);
                    VAL4 w1 = LOADV(weights, w + 1);
                    VAL4 w2 = LOADV(weights, w + 2);
                    VAL4 w3 = LOADV(weights, w + 3);
                    w += 4;
                    [[unroll]] for (int t = 0; t < TILE_X; t++) {
                        ACC4 a = acc[j * TILE_X + t];
                        MAC4(a, w0, w1, w2, w3, v[t]);
                        acc[j * TILE_X + t] = a;
                    }
                }
                at += IN_H * IN_W;
            }
        }
    }

    [[unroll]] for (int j = 0; j < TILE_S; j++) {
        int s = group * TILE_S + j;
        if (s >= OUT_S) break;
        [[unroll]] for (int t = 0; t < TILE_X; t++)
            if (x0 + t < OUT_W) STORE_OUTPUT(x0 + t, y, s, acc[j * TILE_X + t])
    }
}
