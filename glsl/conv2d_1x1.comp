// conv2d_1x1.comp: a 1x1 convolution with stride 1 and no padding as a matrix product
// (pixels x input channels times input x output channels), for CPU devices; engine/ops/
// conv2d.c picks it and packs the weights as for conv2d.comp (one tap).
//
// With no window the pixels of a row and of the next row are adjacent in PHWC4, so a
// thread takes TILE_X consecutive pixels of the flattened H*W plane (across row ends) and
// TILE_S output slices: every input vec4 it loads feeds TILE_S slices and every weight
// vec4 TILE_X pixels, and no tap needs a bounds check. The last thread's pixels past the
// plane re-read the last pixel and are not stored.
//
// llvmpipe loads a storage buffer lane by lane even where every lane reads the same weight.
// Loading the weights in one lane and broadcasting them instead (subgroupElect, then
// subgroupBroadcastFirst, where subgroupAllEqual says the subgroup shares the slice group)
// made hand_landmark_lite's 1x1 convolutions 1.6x slower on lavapipe (16.5 -> 27 ms of
// kernel time, two rounds): the masked branch and the broadcasts cost more than the loads.
// How much the weight loads cost at all, on lavapipe (Mesa 22.3, LLVM 15, 2 cores; kernel
// time of hand_landmark_lite's 1x1 convolutions, median of 3 interleaved rounds, probes
// that compute wrong results): with every weight index a compile-time constant 0.86-0.88x
// the time, with no weight loads at all 0.69x. So scalar weight loads could save at most
// about 30% of this kernel. Mesa's gallivm loads a UBO (or push constant) as one scalar
// only where NIR proves the offset uniform from constants and push constants alone
// (Mesa 21.3's visit_load_ubo: nir_src_is_dynamically_uniform; a loop counter or
// gl_WorkGroupID does not count), else as an 8-lane gather; a UBO holds 64 KB there. A
// UBO at this kernel's offsets is that gather: see glsl/dw_pw.comp for what it measured.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic). conv2d.c picks TILE_S 4 by
// TILE_X 4 or 8 (or fewer for small layers); VKI_CONV_KERNEL forces any up to 8 by 16.
// variant: @bindings=4 $ACT TILE_S={1|2|4} TILE_X={4|8} $CONV_WINDOW
// variant: @bindings=4 TILE_S={3|8} TILE_X={1|3|16} $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S={1|2|4} TILE_X={4|8}
//   + $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S={1|4} TILE_X={2|8}
//   + INT8_PACKED {SRC_SIGNED|} {INT8_DOT|} $CONV_WINDOW
// variant: @bindings=4 INT8 RQ_BASE=3 OUT_QMIN=-120 OUT_QMAX=100 TILE_S=4 TILE_X=8 DENSE_OUT
//   + DENSE_BASE=12 DENSE_SCALE=float(0.0235) $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU TILE_S=4 TILE_X=8 $EPILOGUE $CONV_WINDOW
// variant: @bindings=5 TILE_S={1|4} TILE_X=8 GATE_BINDING=4 $CONV_WINDOW
#extension GL_EXT_control_flow_attributes : require
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#define PLANE (OUT_W * OUT_H)
#define TILE (TILE_S * TILE_X)

// INT8_PACKED (conv2d.c): the words as stored (common.glsl), the weights packed so that a
// word holds one output channel's 4 input lanes.

void main() {
    int p0 = int(gl_GlobalInvocationID.x) * TILE_X;
    int group = int(gl_GlobalInvocationID.z);
    if (p0 >= PLANE || group * TILE_S >= OUT_S) return;

    ACC4 acc[TILE];
    [[unroll]] for (int j = 0; j < TILE_S; j++) {
        ACC4 b = LOADACC(bias, group * TILE_S + j);
        [[unroll]] for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
    }

    int at[TILE_X];
    [[unroll]] for (int t = 0; t < TILE_X; t++) at[t] = min(p0 + t, PLANE - 1);
    int w = group * (IN_S * TILE_S * 4);
    for (int is = 0; is < IN_S; is++) {
#ifdef INT8_PACKED
        uint x[TILE_X];
        [[unroll]] for (int t = 0; t < TILE_X; t++) x[t] = SRC_WORD(is * PLANE + at[t]);
        [[unroll]] for (int j = 0; j < TILE_S; j++) {
            uint w0 = W_WORD(w + 0), w1 = W_WORD(w + 1), w2 = W_WORD(w + 2), w3 = W_WORD(w + 3);
            w += 4;
            [[unroll]] for (int t = 0; t < TILE_X; t++)
                acc[j * TILE_X + t] += ivec4(DOT_WX(w0, x[t]), DOT_WX(w1, x[t]), DOT_WX(w2, x[t]),
                                             DOT_WX(w3, x[t]));
        }
#else
        VAL4 v[TILE_X];
        [[unroll]] for (int t = 0; t < TILE_X; t++) v[t] = GATED(LOADV(src, is * PLANE + at[t]), is);
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
#endif
    }

    [[unroll]] for (int j = 0; j < TILE_S; j++) {
        int s = group * TILE_S + j;
        if (s >= OUT_S) break;
        [[unroll]] for (int t = 0; t < TILE_X; t++) {
            int p = p0 + t;
            if (p < PLANE) STORE_OUTPUT(p % OUT_W, p / OUT_W, s, acc[j * TILE_X + t])
        }
    }
}
