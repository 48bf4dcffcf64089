// slice.comp: STRIDED_SLICE / SLICE, one output vec4 per thread, each lane gathered.
// The input coordinate (x, y, c) of output (x, y, c) is
//   START + x * DX + y * DY + c * DC
// with the vectors from slice.c: an output axis may read any input axis, with any
// (also negative) step. Consecutive lanes usually share an input slice, so the last
// slice loaded is reused.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 IN_W=7 IN_H=5 IN_C=9 IN_S=3 OUT_W=3 OUT_H=5 OUT_C=4 OUT_S=1
//   + START_X=1 START_Y=0 START_C=8 {DX_X=2 DC_C=1|DX_X=-2 DC_C=-1} DX_Y=0 DX_C=0
//   + DY_X=0 DY_Y=1 DY_C=0 DC_X=0 DC_Y=0
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    ivec3 p = ivec3(START_X, START_Y, START_C) + x * ivec3(DX_X, DX_Y, DX_C) +
              y * ivec3(DY_X, DY_Y, DY_C);
    const ivec3 dc = ivec3(DC_X, DC_Y, DC_C);
    vec4 v = vec4(0.0);
    int loaded = -1;
    vec4 cache = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;          // padded lanes stay zero
        ivec3 q = p + c * dc;
        int at = IDX(IN, q.x, q.y, q.z >> 2);
        if (at != loaded) {
            cache = LOAD(src, at);
            loaded = at;
        }
        v[i] = cache[q.z & 3];
    }
    STORE(dst, IDX(OUT, x, y, s), v);
}
