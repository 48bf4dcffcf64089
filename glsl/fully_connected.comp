// fully_connected.comp: FULLY_CONNECTED, one thread per output vec4 (4 output channels),
// looping over K_VEC4 input vec4s. FC_ONE_ROW: the whole input is one row and the
// weights were permuted into its PHWC4 order, so input vec4 j is simply element j of the
// buffer; threads run along x over output slices. FC_PER_PIXEL: each pixel is a row of
// IN_C channels, input vec4 j of pixel (x, y) is slice j.
// SPLIT (FC_ONE_ROW, GPUs): a work group of SPLIT lanes per output slice (work group y),
// lane l summing input vec4s l, l + SPLIT, ...; a shared-memory tree adds the lanes' sums
// in a fixed order and lane 0 stores. A landmark model's heads have a few output slices
// and long sums: one thread each left the GPU idle (engine/ops/fully_connected.c).
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 {FC_ONE_ROW|FC_PER_PIXEL} $ACT IN_W=3 IN_H=2 IN_C=10 IN_S=3
//   + OUT_W=3 OUT_H=2 OUT_C=6 OUT_S=2 K_VEC4=3
// variant: @bindings=4 INT8 RQ_BASE=2 OUT_QMIN=-120 OUT_QMAX=100 {FC_ONE_ROW|FC_PER_PIXEL}
//   + IN_W=3 IN_H=2 IN_C=10 IN_S=3 OUT_W=3 OUT_H=2 OUT_C=6 OUT_S=2 K_VEC4=3
// variant: @bindings=4 INT8 RQ_BASE=2 OUT_QMIN=-120 OUT_QMAX=100 FC_ONE_ROW IN_W=3 IN_H=2
//   + IN_C=10 IN_S=3 OUT_W=1 OUT_H=1 OUT_C=6 OUT_S=2 K_VEC4=3 DENSE_OUT DENSE_BASE=12
//   + DENSE_SCALE=float(0.0235)
// variant: @bindings=4 INT8 RQ_BASE=2 OUT_QMIN=-120 OUT_QMAX=100 {FC_ONE_ROW|FC_PER_PIXEL}
//   + IN_W=3 IN_H=2 IN_C=10 IN_S=3 OUT_W=3 OUT_H=2 OUT_C=6 OUT_S=2 K_VEC4=3 INT8_PACKED
//   + {SRC_SIGNED|} {INT8_DOT|}
// variant: @bindings=N_BINDINGS FC_ONE_ROW ACT_SIGMOID IN_W=3 IN_H=2 IN_C=10 IN_S=3
//   + OUT_W=1 OUT_H=1 OUT_C=6 OUT_S=2 K_VEC4=3 $EPILOGUE
// variant: @bindings=4 FC_ONE_ROW SPLIT={1|4} $ACT IN_W=3 IN_H=2 IN_C=10 IN_S=3 OUT_W=1
//   + OUT_H=1 OUT_C=6 OUT_S=2 K_VEC4=7
// variant: @bindings=4 INT8 RQ_BASE=2 OUT_QMIN=-120 OUT_QMAX=100 FC_ONE_ROW SPLIT=4
//   + IN_W=3 IN_H=2 IN_C=10 IN_S=3 OUT_W=1 OUT_H=1 OUT_C=6 OUT_S=2 K_VEC4=7 {INT8_PACKED|}
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#ifdef SPLIT
shared ACC4 part[SPLIT];
#endif

void main() {
#if defined(FC_ONE_ROW) && defined(SPLIT)
    // The work group is exactly SPLIT lanes (fixed by the engine), one per output slice.
    int lane = int(gl_LocalInvocationID.x);
    int x = 0, y = 0, s = int(gl_WorkGroupID.y);
    if (s >= OUT_S) return;   // uniform over the group
    const int in_step = SPLIT;
    int in_at = lane;
    int w_at = (s * K_VEC4 + lane) * 4;
    const int w_step = 4 * SPLIT;
    const int j0 = lane, j_step = SPLIT;
#elif defined(FC_ONE_ROW)
    int x = 0, y = 0, s = int(gl_GlobalInvocationID.x);
    if (s >= OUT_S) return;
    const int in_step = 1;
    int in_at = 0;
#else
    OUTPUT_POSITION(OUT, x, y, s)
    // The output's pixels are the input's in the same linear order, however each view
    // splits them into rows.
    const int in_step = IN_H * IN_W;
    int in_at = y * OUT_W + x;
#endif
#ifndef SPLIT
    int w_at = s * K_VEC4 * 4;
    const int w_step = 4, j0 = 0, j_step = 1;
#endif
    ACC4 acc = ACC4(0);
    for (int j = j0; j < K_VEC4; j += j_step) {
#ifdef INT8_PACKED
        // The words as stored (common.glsl): a weight word is one output channel's 4 lanes.
        uint v = SRC_WORD(in_at);
        acc += ivec4(DOT_WX(W_WORD(w_at), v), DOT_WX(W_WORD(w_at + 1), v),
                     DOT_WX(W_WORD(w_at + 2), v), DOT_WX(W_WORD(w_at + 3), v));
#else
        VAL4 v = LOADV(src, in_at);
        acc.x += DOT4(v, LOADV(weights, w_at));
        acc.y += DOT4(v, LOADV(weights, w_at + 1));
        acc.z += DOT4(v, LOADV(weights, w_at + 2));
        acc.w += DOT4(v, LOADV(weights, w_at + 3));
#endif
        in_at += in_step;
        w_at += w_step;
    }
#ifdef SPLIT
    part[lane] = acc;
    barrier();
    for (int stride = SPLIT / 2; stride > 0; stride /= 2) {
        if (lane < stride) part[lane] += part[lane + stride];
        barrier();
    }
    if (lane != 0) return;
    acc = part[0];
#endif
    // Bias after the sum, as TFLite adds it.
    STORE_OUTPUT(x, y, s, acc + LOADACC(bias, s))
}
