// depthwise_conv2d.comp: depthwise 2D convolution over PHWC4 tensors with zero padding,
// strides, dilations and a fused activation (engine/ops/depthwise_conv2d.c packs the
// weights and sets the defines).
//
// One output vec4 per thread. Weights are one vec4 per (output slice, ky, kx); output
// channel o reads input channel o / DEPTH_MULTIPLIER, so with a multiplier of 1 output
// slice s reads input slice s and otherwise the lanes are gathered one by one. Padded
// output lanes have zero weights and bias, so they stay zero.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 $ACT DEPTH_MULTIPLIER={1|2} $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU DEPTH_MULTIPLIER=1 $EPILOGUE $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, weights)
WEIGHTS(2, bias)
OUTPUT(3)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 acc = LOAD(bias, s);
    int w = s * (KH * KW);
    for (int ky = 0; ky < KH; ky++) {
        int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
        if (iy < 0 || iy >= IN_H) continue;
        for (int kx = 0; kx < KW; kx++) {
            int ix = x * STRIDE_W - PAD_W + kx * DIL_W;
            if (ix < 0 || ix >= IN_W) continue;
#if DEPTH_MULTIPLIER == 1
            FLT4 v = LOADF(src, IDX(IN, ix, iy, s));
#else
            FLT4 v = FLT4(0.0);
            for (int i = 0; i < 4; i++) {
                int o = s * 4 + i;
                // Lanes past OUT_C could map past the last input slice.
                if (o < OUT_C) {
                    int c = o / DEPTH_MULTIPLIER;
                    v[i] = LOADF(src, IDX(IN, ix, iy, c / 4))[c % 4];
                }
            }
#endif
            acc += vec4(LOADF(weights, w + ky * KW + kx) * v);
        }
    }
    STORE_OUTPUT(x, y, s, acc)
}
