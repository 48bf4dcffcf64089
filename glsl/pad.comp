// pad.comp: zero padding along H, W and C. Output (x, y, c) reads input
// (x - PAD_W, y - PAD_H, c - PAD_C). A channel shift that is not a multiple of 4 makes an
// output slice straddle two input slices; both are loaded once and the lanes picked.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2 OUT_W=8 OUT_H=6 OUT_C=11 OUT_S=3
//   + PAD_H=1 PAD_W=2 PAD_C=3
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

vec4 in_slice(int x, int y, int sl) {
    return sl >= 0 && sl < IN_S ? LOAD(src, IDX(IN, x, y, sl)) : vec4(0.0);
}

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int ix = x - PAD_W, iy = y - PAD_H;
    int c0 = s * 4 - PAD_C;                 // input channel of lane 0
    if (ix >= 0 && ix < IN_W && iy >= 0 && iy < IN_H && c0 > -4 && c0 < IN_C) {
        // Arithmetic shift and mask give floor division for negative c0 too.
        int sl = c0 >> 2, r = c0 & 3;
        vec4 a = in_slice(ix, iy, sl);
        vec4 b = r != 0 ? in_slice(ix, iy, sl + 1) : vec4(0.0);
        for (int i = 0; i < 4; i++) {
            int ic = c0 + i, j = r + i;
            // Lanes past IN_C (and so past OUT_C) stay zero.
            if (ic >= 0 && ic < IN_C) v[i] = j < 4 ? a[j] : b[j - 4];
        }
    }
    STORE(dst, IDX(OUT, x, y, s), v);
}
