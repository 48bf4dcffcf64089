// to_phwc4.comp: dense NHWC float32 (host staging) -> PHWC4, zero in the padded channels.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// graph.c converts each graph input (binding 0: its dense float32 staging).
// variant: @bindings=2 OUT_W=5 OUT_H=4 OUT_C=6 OUT_S=2
// variant: @bindings=2 OUT_W=5 OUT_H=4 OUT_C=6 OUT_S=2 INV_SCALE=float(42.5531921) ZERO=-3
//   + QMIN=-128 QMAX=127
RAW_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int base = (y * OUT_W + x) * OUT_C + s * 4;
    for (int i = 0; i < 4; i++)
        if (s * 4 + i < OUT_C) v[i] = src[base + i];
#ifdef INV_SCALE
    // The model's first QUANTIZE, run here: dst is its int8 / uint8 output.
    v = quantize_q(v);
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) v[i] = 0.0;
#endif
    STORE(dst, IDX(OUT, x, y, s), v);
}
