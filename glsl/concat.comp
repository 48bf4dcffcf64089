// concat.comp: CONCATENATION of N_INPUTS tensors (bindings 0..N_INPUTS-1, output last)
// along AXIS_H, AXIS_W or AXIS_C. Input k starts at OFF<k> along the axis. GLSL cannot
// index a list of buffers, so each input gets its own block and fetch function, stamped
// out by macro below for the inputs that exist.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=N_INPUTS+1 {AXIS_H|AXIS_W|AXIS_C} N_INPUTS={1..15} $ACT
//   + [IN#_W=5 IN#_H=3 IN#_C=6 IN#_S=2 OFF#=#]*N_INPUTS OUT_W=5 OUT_H=3 OUT_C=9 OUT_S=3
// variant: @bindings=5 {AXIS_H|AXIS_W|AXIS_C} N_INPUTS=3 INT8_LUT TABLE_BINDING=4
//   + [IN#_W=5 IN#_H=3 IN#_C=6 IN#_S=2 OFF#=# LUT#=-1 LUTZ#=128]*N_INPUTS OUT_W=5 OUT_H=3
//   + OUT_C=9 OUT_S=3
//
// INT8_LUT (uint8 inputs on other grids than the output's, engine/ops/concatenation.c):
// input k's q - zero point values go through its table in binding TABLE_BINDING, whose
// entry for q - zero point v is at LUT<k> + v + LUTZ<k> (LUT<k> < 0: input k is copied).

#ifdef INT8_LUT
WEIGHTS(TABLE_BINDING, table)
vec4 requantize(vec4 v, int base, int zero) {
    for (int i = 0; i < 4; i++) {
        int e = base + clamp(int(v[i]) + zero, 0, 255);
        v[i] = LOAD(table, e >> 2)[e & 3];
    }
    return v;
}
#define MAP(k, v) (LUT##k >= 0 ? requantize(v, LUT##k, LUTZ##k) : v)
#else
#define MAP(k, v) v
#endif

#define DECLARE_INPUT(k) \
    TENSOR_IN(k, src##k) \
    vec4 slice##k(int x, int y, int sl) { \
        return sl >= 0 && sl < IN##k##_S ? MAP(k, LOAD(src##k, IDX(IN##k, x, y, sl))) : vec4(0.0); \
    }

#if defined(AXIS_H)
#define TAKE(k) if (y >= OFF##k && y < OFF##k + IN##k##_H) v = slice##k(x, y - OFF##k, s);
#elif defined(AXIS_W)
#define TAKE(k) if (x >= OFF##k && x < OFF##k + IN##k##_W) v = slice##k(x - OFF##k, y, s);
#else
// Channel offsets need not be multiples of 4: an output slice may take lanes from several
// inputs, and from two slices of one input; each of those slices is loaded once.
#define TAKE(k) { \
    int c0 = s * 4 - OFF##k; \
    if (c0 > -4 && c0 < IN##k##_C) { \
        int sl = c0 >> 2, r = c0 & 3; \
        vec4 a = slice##k(x, y, sl), b = r != 0 ? slice##k(x, y, sl + 1) : vec4(0.0); \
        for (int i = 0; i < 4; i++) { \
            int ic = c0 + i, j = r + i; \
            if (ic >= 0 && ic < IN##k##_C) v[i] = j < 4 ? a[j] : b[j - 4]; \
        } \
    } }
#endif

DECLARE_INPUT(0)
#if N_INPUTS > 1
DECLARE_INPUT(1)
#endif
#if N_INPUTS > 2
DECLARE_INPUT(2)
#endif
#if N_INPUTS > 3
DECLARE_INPUT(3)
#endif
#if N_INPUTS > 4
DECLARE_INPUT(4)
#endif
#if N_INPUTS > 5
DECLARE_INPUT(5)
#endif
#if N_INPUTS > 6
DECLARE_INPUT(6)
#endif
#if N_INPUTS > 7
DECLARE_INPUT(7)
#endif
#if N_INPUTS > 8
DECLARE_INPUT(8)
#endif
#if N_INPUTS > 9
DECLARE_INPUT(9)
#endif
#if N_INPUTS > 10
DECLARE_INPUT(10)
#endif
#if N_INPUTS > 11
DECLARE_INPUT(11)
#endif
#if N_INPUTS > 12
DECLARE_INPUT(12)
#endif
#if N_INPUTS > 13
DECLARE_INPUT(13)
#endif
#if N_INPUTS > 14
DECLARE_INPUT(14)
#endif

TENSOR_OUT(N_INPUTS, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    TAKE(0)
#if N_INPUTS > 1
    TAKE(1)
#endif
#if N_INPUTS > 2
    TAKE(2)
#endif
#if N_INPUTS > 3
    TAKE(3)
#endif
#if N_INPUTS > 4
    TAKE(4)
#endif
#if N_INPUTS > 5
    TAKE(5)
#endif
#if N_INPUTS > 6
    TAKE(6)
#endif
#if N_INPUTS > 7
    TAKE(7)
#endif
#if N_INPUTS > 8
    TAKE(8)
#endif
#if N_INPUTS > 9
    TAKE(9)
#endif
#if N_INPUTS > 10
    TAKE(10)
#endif
#if N_INPUTS > 11
    TAKE(11)
#endif
#if N_INPUTS > 12
    TAKE(12)
#endif
#if N_INPUTS > 13
    TAKE(13)
#endif
#if N_INPUTS > 14
    TAKE(14)
#endif
    v = activate(v);
    // Keep padded channels zero so that later channel-wise reads see clean data.
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) v[i] = 0.0;
    STORE(dst, IDX(OUT, x, y, s), v);
}
