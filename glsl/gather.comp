// gather.comp: RESHAPE between tensors whose PHWC4 layouts differ. Each output lane takes
// the input element with the same dense NHWC linear index.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2 OUT_W=10 OUT_H=1 OUT_C=12 OUT_S=3
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int base = (y * OUT_W + x) * OUT_C;
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;          // padded lanes stay zero
        int l = base + c;
        int ic = l % IN_C, p = l / IN_C;
        v[i] = LOAD(src, IDX(IN, p % IN_W, p / IN_W, ic >> 2))[ic & 3];
    }
    STORE(dst, IDX(OUT, x, y, s), v);
}
