// from_phwc4.comp: PHWC4 -> dense NHWC float32 (host staging), dropping padded channels.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// graph.c converts each graph output (binding 1: its dense float32 staging).
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2 DEQUANT_SCALE=float(0.0235)
TENSOR_IN(0, src)
RAW_OUT(1, dst)

void main() {
    OUTPUT_POSITION(IN, x, y, s)
    vec4 v = LOAD(src, IDX(IN, x, y, s));
#ifdef DEQUANT_SCALE
    // An int8 model's closing DEQUANTIZE (engine/emit/builder.c): src holds q - zero point.
    precise vec4 real = v * DEQUANT_SCALE;
    v = real;
#endif
    int base = (y * IN_W + x) * IN_C + s * 4;
    for (int i = 0; i < 4; i++)
        if (s * 4 + i < IN_C) dst[base + i] = v[i];
}
