// reduce.comp: global pooling, i.e. MEAN over H and W and pools with a 1x1 output. Each
// output channel slice gets a whole row of the work group: the lanes stride over the
// top-left WIN_H x WIN_W corner of its input slice (the window of a 1x1 output, which
// starts at or before the origin, clipped to the input) accumulating in fp32, then a
// shared-memory tree combines the lanes. REDUCE_MAX takes the max; REDUCE_MEAN sums and
// divides once by the cell count, as TFLite does. A thread per output vec4 (pool.comp)
// would leave each window to one lane and the GPU nearly idle.
//
// The grid is (lanes, 1, slices). The work group is whatever the tuner picked, so the
// shader sizes everything from gl_WorkGroupSize rather than assuming one shape: groups
// past the first along x (a device that caps x below the grid) return at once, and rows
// past the grid in y or z only take part in the barriers.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// pool.c (global pools) and mean.c; WIN_W == IN_W takes the contiguous path.
// variant: @bindings=2 REDUCE_MEAN INT8 IN_ZERO=-3 Q_INV=float(0.0125) Q_ZPF=float(-7.25)
//   + OUT_QLO=-128 OUT_QHI=127 OUT_ZERO=5 IN_W=7 IN_H=5 IN_C=9 IN_S=3 OUT_W=1 OUT_H=1 OUT_C=9
//   + OUT_S=3 WIN_W=7 WIN_H=5
// variant: @bindings=2 {REDUCE_MAX|REDUCE_MEAN} $ACT IN_W=7 IN_H=5 IN_C=9 IN_S=3
//   + OUT_W=1 OUT_H=1 OUT_C=9 OUT_S=3 {WIN_W=7 WIN_H=5|WIN_W=4 WIN_H=3}
TENSOR_IN(0, src)
OUTPUT(1)

const uint LANES = gl_WorkGroupSize.x;
shared vec4 partial[gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z];

#define WIN_COUNT (WIN_W * WIN_H)

vec4 combine(vec4 a, vec4 b) {
#if defined(REDUCE_MAX)
    return max(a, b);
#else
    return a + b;
#endif
}

void main() {
    // Uniform per group, so returning before the barriers is allowed.
    if (gl_WorkGroupID.x != 0u) return;
    uint lane = gl_LocalInvocationID.x;
    uint slot = gl_LocalInvocationIndex;
    int s = int(gl_GlobalInvocationID.z);
    bool live = gl_GlobalInvocationID.y == 0u && s < OUT_S;
#if defined(REDUCE_MAX)
    // TFLite starts from the lowest float, not -inf.
    vec4 acc = vec4(-3.40282347e38);
#else
    vec4 acc = vec4(0.0);
#endif
    if (live) {
#if WIN_W == IN_W
        // Whole rows: the window is one contiguous run of the slice.
        int base = IDX(IN, 0, 0, s);
        for (int i = int(lane); i < WIN_COUNT; i += int(LANES))
            acc = combine(acc, LOAD(src, base + i));
#else
        for (int i = int(lane); i < WIN_COUNT; i += int(LANES)) {
            int wy = i / WIN_W;
            acc = combine(acc, LOAD(src, IDX(IN, i - wy * WIN_W, wy, s)));
        }
#endif
    }
    partial[slot] = acc;
    barrier();
    // Start from the largest power of two below LANES so that a lane count the device
    // limits made odd still folds every lane in.
    uint stride = 1u;
    while (stride * 2u < LANES) stride *= 2u;
    for (; stride > 0u; stride >>= 1u) {
        if (lane < stride && lane + stride < LANES)
            partial[slot] = combine(partial[slot], partial[slot + stride]);
        barrier();
    }
    if (!live || lane != 0u) return;
    acc = partial[slot];
#if defined(INT8)
    // MEAN's integer form (engine/ops/int8.c), XNNPACK's: the raw sum (exact in float
    // below 2^24) times Q_INV plus Q_ZPF, each a float32 rounding, ties to even, clamped.
    precise vec4 scaled = (acc + float(WIN_COUNT * IN_ZERO)) * Q_INV;
    precise vec4 shifted = scaled + Q_ZPF;
    STORE_Q(0, 0, s, clamp(roundEven(shifted), vec4(OUT_QLO), vec4(OUT_QHI)) - float(OUT_ZERO))
#else
#if defined(REDUCE_MEAN)
    acc /= float(WIN_COUNT);
#endif
    STORE_OUTPUT(0, 0, s, acc)
#endif
}
