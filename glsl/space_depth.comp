// space_depth.comp: DEPTH_TO_SPACE or SPACE_TO_DEPTH with block size BLOCK, one output
// vec4 per thread, each lane gathered from its input element. Neighbouring lanes mostly
// come from one input slice, so the last slice loaded is reused.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 {DEPTH_TO_SPACE|SPACE_TO_DEPTH} BLOCK=2 IN_W=4 IN_H=6 IN_C=8 IN_S=2
//   + OUT_W=8 OUT_H=12 OUT_C=2 OUT_S=1
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int loaded = -1;
    vec4 cache = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;          // padded lanes stay zero
#if defined(DEPTH_TO_SPACE)
        int ix = x / BLOCK, iy = y / BLOCK;
        int ic = c + ((y % BLOCK) * BLOCK + x % BLOCK) * OUT_C;
#else
        int k = c / IN_C, ic = c % IN_C;
        int ix = x * BLOCK + k % BLOCK, iy = y * BLOCK + k / BLOCK;
#endif
        int at = IDX(IN, ix, iy, ic >> 2);
        if (at != loaded) {
            cache = LOAD(src, at);
            loaded = at;
        }
        v[i] = cache[ic & 3];
    }
    STORE(dst, IDX(OUT, x, y, s), v);
}
