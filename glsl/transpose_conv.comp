// transpose_conv.comp: transposed 2D convolution over PHWC4 tensors (TRANSPOSE_CONV and
// MediaPipe's Convolution2DTransposeBias; engine/ops/transpose_conv.c packs the weights,
// works out the padding and sets the defines).
//
// One thread per output vec4, gathering rather than scattering so that no two threads
// write the same element: output row y receives input row iy through tap ky exactly when
// y + PAD_H = iy * STRIDE_H + ky, so only taps with ky = (y + PAD_H) mod STRIDE_H, then
// every STRIDE_H-th one, contribute (the same along x). Weights for output slice s, tap
// (ky,kx), input slice is are 4 vec4 in a row; vec4 i holds the 4 output channels'
// weights for input lane i, as in conv2d.comp.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 $ACT IN_W=5 IN_H=4 IN_C=6 IN_S=2 OUT_W=10 OUT_H=8 OUT_C=5 OUT_S=2
//   + KH=4 KW=3 STRIDE_H=2 STRIDE_W=2 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=0
TENSOR_IN(0, src)
WEIGHTS(1, weights)
WEIGHTS(2, bias)
TENSOR_OUT(3, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 acc = LOAD(bias, s);

    // PAD_* >= 0, so ny and nx are never negative and % needs no sign fix-up.
    int ny = y + PAD_H;
    int nx = x + PAD_W;
    for (int ky = ny % STRIDE_H; ky < KH; ky += STRIDE_H) {
        // Rows only move up as ky grows: once above the input, stay there.
        if (ny - ky < 0) break;
        int iy = (ny - ky) / STRIDE_H;
        if (iy >= IN_H) continue;
        for (int kx = nx % STRIDE_W; kx < KW; kx += STRIDE_W) {
            if (nx - kx < 0) break;
            int ix = (nx - kx) / STRIDE_W;
            if (ix >= IN_W) continue;
            int w = ((s * KH + ky) * KW + kx) * IN_S * 4;
            int at = IDX(IN, ix, iy, 0);
            for (int is = 0; is < IN_S; is++) {
                FLT4 v = LOADF(src, at);
                MAC4(acc, LOADF(weights, w + 0), LOADF(weights, w + 1), LOADF(weights, w + 2),
                     LOADF(weights, w + 3), v);
                w += 4;
                at += IN_H * IN_W;
            }
        }
    }
    STORE(dst, IDX(OUT, x, y, s), activate(acc));
}
