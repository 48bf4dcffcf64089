// from_phwc4.comp: PHWC4 -> dense NHWC float32 (host staging), dropping padded channels.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// graph.c converts each graph output (binding 1: its dense float32 staging).
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2
TENSOR_IN(0, src)
RAW_OUT(1, dst)

void main() {
    OUTPUT_POSITION(IN, x, y, s)
    vec4 v = LOAD(src, IDX(IN, x, y, s));
    int base = (y * IN_W + x) * IN_C + s * 4;
    for (int i = 0; i < 4; i++)
        if (s * 4 + i < IN_C) dst[base + i] = v[i];
}
