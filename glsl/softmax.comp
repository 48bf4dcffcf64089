// softmax.comp: SOFTMAX over C, one thread per (x, y) walking every slice three times
// (max, sum, write); exp is recomputed rather than stored since C is unbounded. Lanes
// past IN_C take no part and are written as zero.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 IN_W=3 IN_H=2 IN_C=10 IN_S=3 OUT_W=3 OUT_H=2 OUT_C=10 OUT_S=3
//   + BETA=float(1)
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

// Lanes of slice s that hold channels.
bvec4 live(int s) {
    int n = IN_C - s * 4;
    return bvec4(true, n > 1, n > 2, n > 3);
}

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= IN_W || y >= IN_H) return;
    // TFLite starts from the lowest float, not -inf.
    float m = -3.40282347e38;
    for (int s = 0; s < IN_S; s++) {
        vec4 v = LOAD(src, IDX(IN, x, y, s));
        bvec4 l = live(s);
        for (int i = 0; i < 4; i++)
            if (l[i]) m = max(m, v[i]);
    }
    float sum = 0.0;
    for (int s = 0; s < IN_S; s++) {
        vec4 e = exp((LOAD(src, IDX(IN, x, y, s)) - m) * BETA);
        bvec4 l = live(s);
        for (int i = 0; i < 4; i++)
            if (l[i]) sum += e[i];
    }
    for (int s = 0; s < IN_S; s++) {
        vec4 e = exp((LOAD(src, IDX(IN, x, y, s)) - m) * BETA) / sum;
        STORE(dst, IDX(OUT, x, y, s), mix(vec4(0.0), e, live(s)));
    }
}
