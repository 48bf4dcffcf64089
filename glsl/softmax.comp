// softmax.comp: the normalisations over C, one thread per (x, y) walking every slice:
// SOFTMAX (max, sum, write: three passes; exp is recomputed rather than stored since C is
// unbounded), LOG_SOFTMAX, L2_NORM (x / max(|x|, 1e-6), then the fused activation) and
// LRN (x * (BIAS + ALPHA * sum of x^2 over RADIUS channels each side)^-BETA_LRN). Lanes
// past IN_C take no part and are written as zero. Storage is the rows view, so any rank's
// last axis is C.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 {BETA=float(1)|LOG_SOFTMAX|LRN RADIUS=2 BIAS=float(1) ALPHA=float(0.5)
//   + BETA_LRN=float(0.75)} IN_W=6 IN_H=5 IN_C=7 IN_S=2 OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
// variant: @bindings=2 L2_NORM $ACT IN_W=6 IN_H=5 IN_C=7 IN_S=2 OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
// variant: @bindings=3 INT8_SOFTMAX {OUT_UINT8=0|OUT_UINT8=1} OUT_SCALE=float(0.00390625)
//   + OUT_QMAX=255 IN_W=6 IN_H=5 IN_C=7 IN_S=2 OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
//
// INT8_SOFTMAX: SOFTMAX of an int8 / uint8 tensor (q - zero point) onto the output grid
// (q - zero point, 0..OUT_QMAX), as TFLite's optimized_ops::Softmax computes it
// (engine/ops/softmax.c): the host's float32 table of exp(-in_scale * beta * d) for
// d = max - q (binding 2, entry 255 - d, as int32 bits so that float16 storage never
// touches it), summed over the row in channel order, 1 / (sum * OUT_SCALE) correctly
// rounded, each entry times that rounded to the grid: half away from zero (int8) or
// + 0.5 truncated (uint8). Float32 and integers in every precision; `precise` keeps
// each product and sum one float32 rounding, as LiteRT's scalar C++ does.
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)
#ifdef INT8_SOFTMAX
layout(std430, set = 0, binding = 2) readonly restrict buffer table_block { ivec4 table[]; };
float table_at(int k) { return intBitsToFloat(table[k >> 2][k & 3]); }

// 1 / d rounded to nearest for a positive normal float d = m * 2^(e - 23): 2^47 / m by
// restoring long division (25 quotient bits; the remainder decides the rounding, and can
// never be a tie), placed at exponent -1 - e. A quotient of 2^24 (m = 2^23, or a round
// up) carries into the exponent field and comes out 2^-e, as it should.
float reciprocal_rn(float d) {
    int bits = floatBitsToInt(d);
    int e = (bits >> 23) - 127;
    uint m = uint(bits & 0x7fffff) | 0x800000u;
    uint rem = 0x800000u, q = 0u;
    for (int i = 0; i < 25; i++) {
        q <<= 1;
        if (rem >= m) {
            rem -= m;
            q |= 1u;
        }
        rem <<= 1;
    }
    // rem now holds twice the remainder.
    if (rem > m) q++;
    return intBitsToFloat(((126 - e) << 23) + int(q) - 0x800000);
}
#endif

// Lanes of slice s that hold channels.
bvec4 live(int s) {
    int n = IN_C - s * 4;
    return bvec4(true, n > 1, n > 2, n > 3);
}

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= IN_W || y >= IN_H) return;
#if defined(INT8_SOFTMAX)
    int mx = -100000;
    for (int s = 0; s < IN_S; s++) {
        ivec4 v = ivec4(LOAD(src, IDX(IN, x, y, s)));
        for (int i = 0; i < 4 && s * 4 + i < IN_C; i++) mx = max(mx, v[i]);
    }
    precise float sum = 0.0;
    for (int s = 0; s < IN_S; s++) {
        ivec4 v = ivec4(LOAD(src, IDX(IN, x, y, s)));
        for (int i = 0; i < 4 && s * 4 + i < IN_C; i++) sum += table_at(255 - mx + v[i]);
    }
    precise float denom = sum * OUT_SCALE;
    float inv = reciprocal_rn(denom);
    for (int s = 0; s < IN_S; s++) {
        ivec4 v = ivec4(LOAD(src, IDX(IN, x, y, s)));
        vec4 r = vec4(0.0);
        for (int i = 0; i < 4 && s * 4 + i < IN_C; i++) {
            precise float p = table_at(255 - mx + v[i]) * inv;
#if OUT_UINT8
            precise float t = p + 0.5;
            int k = int(t);
#else
            float f = floor(p);
            int k = int(f) + (p - f >= 0.5 ? 1 : 0);
#endif
            r[i] = float(min(k, OUT_QMAX));
        }
        STORE(dst, IDX(OUT, x, y, s), r);
    }
#elif defined(L2_NORM)
    float sq = 0.0;
    for (int s = 0; s < IN_S; s++) {
        vec4 v = LOAD(src, IDX(IN, x, y, s));
        sq += dot(v, v);   // padded lanes are zero
    }
    float norm = max(sqrt(sq), 1e-6);
    for (int s = 0; s < IN_S; s++)
        STORE(dst, IDX(OUT, x, y, s), mix(vec4(0.0), activate(LOAD(src, IDX(IN, x, y, s)) / norm), live(s)));
#elif defined(LRN)
    for (int s = 0; s < IN_S; s++) {
        vec4 v = LOAD(src, IDX(IN, x, y, s)), r = vec4(0.0);
        for (int i = 0; i < 4 && s * 4 + i < IN_C; i++) {
            int c = s * 4 + i;
            float acc = 0.0;
            for (int k = max(c - RADIUS, 0); k <= min(c + RADIUS, IN_C - 1); k++) {
                float u = LOAD(src, IDX(IN, x, y, k >> 2))[k & 3];
                acc += u * u;
            }
            r[i] = v[i] * pow(BIAS + ALPHA * acc, -BETA_LRN);
        }
        STORE(dst, IDX(OUT, x, y, s), r);
    }
#else
    // TFLite starts from the lowest float, not -inf.
    float m = -3.40282347e38;
    for (int s = 0; s < IN_S; s++) {
        vec4 v = LOAD(src, IDX(IN, x, y, s));
        bvec4 l = live(s);
        for (int i = 0; i < 4; i++)
            if (l[i]) m = max(m, v[i]);
    }
#if defined(LOG_SOFTMAX)
#define SCALE 1.0
#else
#define SCALE BETA
#endif
    float sum = 0.0;
    for (int s = 0; s < IN_S; s++) {
        vec4 e = exp((LOAD(src, IDX(IN, x, y, s)) - m) * SCALE);
        bvec4 l = live(s);
        for (int i = 0; i < 4; i++)
            if (l[i]) sum += e[i];
    }
    for (int s = 0; s < IN_S; s++) {
#if defined(LOG_SOFTMAX)
        vec4 e = LOAD(src, IDX(IN, x, y, s)) - m - log(sum);
#else
        vec4 e = exp((LOAD(src, IDX(IN, x, y, s)) - m) * BETA) / sum;
#endif
        STORE(dst, IDX(OUT, x, y, s), mix(vec4(0.0), e, live(s)));
    }
#endif
}
