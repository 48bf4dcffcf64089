// reduce_axes.comp: reductions over any set of axes of a tensor of up to 5 dims (SUM,
// MEAN, REDUCE_MAX/MIN/PROD/ANY, ARG_MAX/ARG_MIN over one axis) and CUMSUM along one axis,
// for engine/ops/reduce.c. A thread per output vec4 of the keep-dims output (rows view):
// its coordinates o0..o3 come from (x, y), and the input coordinates of the r-th reduced
// element are CRD_0..CRD_3, expressions of o0..o3 and r the op file writes. With RED_C the
// channel axis is reduced too (the output has one channel): every slice is read and its
// lanes folded; otherwise the four lanes reduce side by side. Where the output tensor's
// layout is not the keep-dims one (RED_DENSE), each lane reduces on its own. Sums and products
// accumulate in float32 whatever the storage.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 {RED_SUM|RED_MEAN|RED_MAX|RED_MIN|RED_PROD|RED_ANY|RED_ARGMAX|RED_ARGMIN}
//   + {|RED_C} $REDUCE_SHAPES RED_COUNT=4 CRD_0=o0 CRD_1=o1 CRD_2=(r%2) CRD_3=(r/2)
// variant: @bindings=2 RED_DENSE {RED_SUM|RED_MEAN|RED_MAX|RED_ARGMAX} $REDUCE_SHAPES RED_COUNT=5
//   + K0=1 K1=1 K2=2 K3=4 K4=1 CRD_0=o0 CRD_1=o1 CRD_2=o2 CRD_3=o3 CRD_4=r
// variant: @bindings=2 CUMSUM CUM_AXIS={2|4} {|CUM_EXCLUSIVE} {|CUM_REVERSE} $REDUCE_SHAPES
//   + RED_COUNT=1 CRD_0=o0 CRD_1=o1 CRD_2=o2 CRD_3=o3
// variant-set: REDUCE_SHAPES = IN_E0=1 IN_E1=2 IN_E2=3 IN_E3=4 IN_E4=5 IN_H=6 IN_W=4 IN_C=5
//   + IN_S=2 OUT_R1=2 OUT_R2=1 OUT_H=2 OUT_W=2 OUT_C=5 OUT_S=2
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

int row_of(int c0, int c1, int c2) { return (c0 * IN_E1 + c1) * IN_E2 + c2; }

#if defined(RED_MAX) || defined(RED_ARGMAX)
const float START = -3.40282347e38;   // TFLite starts from the lowest float, not -inf
#elif defined(RED_MIN) || defined(RED_ARGMIN)
const float START = 3.40282347e38;
#elif defined(RED_PROD)
const float START = 1.0;
#else
const float START = 0.0;
#endif

float fold(float a, float b) {
#if defined(RED_MAX)
    return max(a, b);
#elif defined(RED_MIN)
    return min(a, b);
#elif defined(RED_PROD)
    return a * b;
#elif defined(RED_ANY)
    return max(a, b != 0.0 ? 1.0 : 0.0);
#else
    return a + b;
#endif
}

// ARG_MAX / ARG_MIN: a strictly better value moves the index, so ties keep the first, as
// TFLite's do.
bool better(float v, float best) {
#if defined(RED_ARGMIN)
    return v < best;
#else
    return v > best;
#endif
}

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    int s = int(gl_GlobalInvocationID.z);
    if (x >= OUT_W || y >= OUT_H || s >= OUT_S) return;
    int o3 = x, o2 = y % OUT_R2, o1 = (y / OUT_R2) % OUT_R1, o0 = y / (OUT_R2 * OUT_R1);
    vec4 result = vec4(0.0);
#if defined(CUMSUM)
    // Along CUM_AXIS the element at t sums t' <= t (< t exclusive; >= / > reversed).
    int o[5];
    o[0] = o0; o[1] = o1; o[2] = o2; o[3] = o3; o[4] = s * 4;
    int e[5];
    e[0] = IN_E0; e[1] = IN_E1; e[2] = IN_E2; e[3] = IN_E3; e[4] = IN_E4;
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;
        int at = CUM_AXIS == 4 ? c : o[CUM_AXIS];
#if defined(CUM_REVERSE)
        int lo = at, hi = e[CUM_AXIS];
#else
        int lo = 0, hi = at + 1;
#endif
#if defined(CUM_EXCLUSIVE) && defined(CUM_REVERSE)
        lo += 1;
#elif defined(CUM_EXCLUSIVE)
        hi -= 1;
#endif
        float acc = 0.0;
        for (int t = lo; t < hi; t++) {
            int q[5];
            q[0] = o0; q[1] = o1; q[2] = o2; q[3] = o3; q[4] = c;
            q[CUM_AXIS] = t;
            acc += LOAD(src, IDX(IN, q[3], row_of(q[0], q[1], q[2]), q[4] >> 2))[q[4] & 3];
        }
        result[i] = acc;
    }
#elif defined(RED_DENSE)
    // The output's layout is not the keep-dims one (a dropped axis moved W or C): each
    // lane finds its keep-dims coordinates (K0..K4) from its dense index and reads its
    // reduced elements (RED_COUNT, channels included) one by one.
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;
        int l = (y * OUT_W + x) * OUT_C + c;
        int o4 = l % K4; l /= K4;
        int o3 = l % K3; l /= K3;
        int o2 = l % K2; l /= K2;
        int o1 = l % K1, o0 = l / K1;
        float acc = START, best = START;
        int best_at = 0;
        for (int r = 0; r < RED_COUNT; r++) {
            int c4 = CRD_4;
            float v = LOAD(src, IDX(IN, CRD_3, row_of(CRD_0, CRD_1, CRD_2), c4 >> 2))[c4 & 3];
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
            if (better(v, best)) { best = v; best_at = r; }
#else
            acc = fold(acc, v);
#endif
        }
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
        result[i] = float(best_at);
#elif defined(RED_MEAN)
        result[i] = acc / float(RED_COUNT);
#else
        result[i] = acc;
#endif
    }
#elif defined(RED_C)
    // One output lane: every reduced element of every slice.
    float acc = START, best = START;
    int best_at = 0;
    for (int r = 0; r < RED_COUNT; r++) {
        int row = row_of(CRD_0, CRD_1, CRD_2);
        for (int sl = 0; sl < IN_S; sl++) {
            vec4 v = LOAD(src, IDX(IN, CRD_3, row, sl));
            for (int i = 0; i < 4 && sl * 4 + i < IN_C; i++) {
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
                if (better(v[i], best)) { best = v[i]; best_at = sl * 4 + i; }
#else
                acc = fold(acc, v[i]);
#endif
            }
        }
    }
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
    result.x = float(best_at);
#elif defined(RED_MEAN)
    result.x = acc / float(RED_COUNT * IN_C);
#else
    result.x = acc;
#endif
#else
    // The four lanes of slice s side by side.
    vec4 acc = vec4(START), best = vec4(START);
    ivec4 best_at = ivec4(0);
    for (int r = 0; r < RED_COUNT; r++) {
        vec4 v = LOAD(src, IDX(IN, CRD_3, row_of(CRD_0, CRD_1, CRD_2), s));
        for (int i = 0; i < 4; i++) {
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
            if (better(v[i], best[i])) { best[i] = v[i]; best_at[i] = r; }
#else
            acc[i] = fold(acc[i], v[i]);
#endif
        }
    }
#if defined(RED_ARGMAX) || defined(RED_ARGMIN)
    result = vec4(best_at);
#elif defined(RED_MEAN)
    result = acc / float(RED_COUNT);
#else
    result = acc;
#endif
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) result[i] = 0.0;
#endif
    STORE(dst, IDX(OUT, x, y, s), result);
}
