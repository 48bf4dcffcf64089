// unary.comp: out = f(in) elementwise over a PHWC4 tensor of any rank (its storage view);
// f is chosen by OP_* (with ALPHA for OP_LEAKY_RELU). Index tensors (int32, bool) are held
// as float values, so CAST, LOGICAL_NOT and SIGN are float formulas too.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2
//   + {OP_RELU|OP_RELU6|OP_RELU_0_TO_1|OP_RELU_N1_TO_1|OP_LOGISTIC|OP_TANH|OP_HARD_SWISH
//   + |OP_LEAKY_RELU ALPHA=float(0.200000003)|OP_ELU|OP_GELU|OP_GELU_TANH|OP_EXP|OP_LOG
//   + |OP_SQRT|OP_RSQRT|OP_ABS|OP_NEG|OP_SQUARE|OP_FLOOR|OP_CEIL|OP_ROUND|OP_SIGN|OP_SIN
//   + |OP_COS|OP_LOGICAL_NOT|OP_CAST_TRUNC|OP_CAST_BOOL|OP_IDENTITY
//   + |OP_QUANTIZE SCALE=float(0.0235) ZERO=-3 QMIN=-128 QMAX=127
//   + |OP_QUANTIZE SCALE=float(0.0235) ZERO=-3 QMIN=-128 QMAX=127 TIE_EPS=float(0.0625)}
//   + OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
// variant: @bindings=2 OP_RELU IN_PLACE OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

#if defined(OP_GELU)
// erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), in float32 whatever
// the op's arithmetic: GLSL has no erf.
vec4 erf4(vec4 x) {
    vec4 a = abs(x), t = 1.0 / (1.0 + 0.3275911 * a);
    vec4 p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 +
             t * 1.061405429))));
    return sign(x) * (1.0 - p * exp(-a * a));
}
#endif

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    FLT4 v = LOADF(src, IDX(OUT, x, y, s));
#if defined(OP_RELU)
    v = max(v, FLT4(0.0));
#elif defined(OP_RELU6)
    v = clamp(v, FLT4(0.0), FLT4(6.0));
#elif defined(OP_RELU_0_TO_1)
    v = clamp(v, FLT4(0.0), FLT4(1.0));
#elif defined(OP_RELU_N1_TO_1)
    v = clamp(v, FLT4(-1.0), FLT4(1.0));
#elif defined(OP_LOGISTIC)
    // 1/(1+exp(-x)) rewritten so exp never overflows: for x < 0 it equals e/(1+e) with
    // e = exp(x), and no driver has to get 1/(1+inf) right.
    FLT4 e = exp(-abs(v));
    FLT4 r = FLT(1.0) / (FLT(1.0) + e);
    v = mix(e * r, r, greaterThanEqual(v, FLT4(0.0)));
#elif defined(OP_TANH)
    // tanh is exactly +-1 in float beyond |x| = 9.01; clamping keeps drivers that build
    // tanh from exp() away from inf/inf = NaN.
    v = tanh(clamp(v, FLT4(-10.0), FLT4(10.0)));
#elif defined(OP_HARD_SWISH)
    v = v * clamp(v + FLT(3.0), FLT4(0.0), FLT4(6.0)) / FLT(6.0);
#elif defined(OP_LEAKY_RELU)
    v = mix(v * FLT(ALPHA), v, greaterThan(v, FLT4(0.0)));
#elif defined(OP_ELU)
    // exp(x) - 1 loses digits near 0 where expm1 would not; the tolerance covers it.
    v = mix(exp(min(v, FLT4(0.0))) - FLT(1.0), v, greaterThan(v, FLT4(0.0)));
#elif defined(OP_GELU)
    vec4 f = vec4(v);
    v = FLT4(0.5 * f * (1.0 + erf4(f * 0.70710678118654752)));
#elif defined(OP_GELU_TANH)
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the tanh clamped as OP_TANH's.
    vec4 f = vec4(v);
    vec4 inner = 0.79788456080286536 * (f + 0.044715 * f * f * f);
    v = FLT4(0.5 * f * (1.0 + tanh(clamp(inner, vec4(-10.0), vec4(10.0)))));
#elif defined(OP_EXP)
    v = exp(v);
#elif defined(OP_LOG)
    v = log(v);
#elif defined(OP_SQRT)
    v = sqrt(v);
#elif defined(OP_RSQRT)
    v = inversesqrt(v);
#elif defined(OP_ABS)
    v = abs(v);
#elif defined(OP_NEG)
    v = -v;
#elif defined(OP_SQUARE)
    v = v * v;
#elif defined(OP_FLOOR)
    v = floor(v);
#elif defined(OP_CEIL)
    v = ceil(v);
#elif defined(OP_ROUND)
    v = roundEven(v);   // TFLite rounds half to even
#elif defined(OP_SIGN)
    v = sign(v);
#elif defined(OP_SIN)
    v = FLT4(sin(vec4(v)));
#elif defined(OP_COS)
    v = FLT4(cos(vec4(v)));
#elif defined(OP_LOGICAL_NOT)
    v = mix(FLT4(0.0), FLT4(1.0), equal(v, FLT4(0.0)));
#elif defined(OP_CAST_TRUNC)
    v = trunc(v);       // float -> int32/int64: C's conversion, toward zero
#elif defined(OP_QUANTIZE)
    // Onto the int8 grid in float32 whatever the arithmetic: round half away from zero
    // (TFLite's TfLiteRound), clamp, back to the real value. The rounding compares the
    // fraction with 0.5 (a - floor(a) is exact) rather than flooring a + 0.5, which the
    // float addition rounds up to 1 for a = 0.49999997.
#ifdef TIE_EPS
    // After an int8 average pool: TFLite rounds the mean of the raw values, so round in
    // the q domain, taking values within TIE_EPS of a half as the half.
    vec4 f = vec4(v) / SCALE + float(ZERO), a = abs(f), r = floor(a);
    r += step(vec4(0.5 - TIE_EPS), a - r);
    vec4 q = clamp(sign(f) * r, vec4(QMIN), vec4(QMAX));
#else
    vec4 f = vec4(v) / SCALE, a = abs(f), r = floor(a);
    r += step(vec4(0.5), a - r);
    vec4 q = clamp(sign(f) * r + float(ZERO), vec4(QMIN), vec4(QMAX));
#endif
    v = FLT4(SCALE * (q - float(ZERO)));
#elif defined(OP_CAST_BOOL)
    v = mix(FLT4(1.0), FLT4(0.0), equal(v, FLT4(0.0)));
#endif
    // Padded channels must stay zero for channel-wise consumers, and f(0) need not be 0.
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) v[i] = FLT(0.0);
    STORE(dst, IDX(OUT, x, y, s), v);
}
