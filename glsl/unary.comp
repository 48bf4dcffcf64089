// unary.comp: out = f(in) elementwise over a PHWC4 tensor; f is chosen by OP_* (and
// ALPHA for OP_LEAKY_RELU).
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2
//   + {OP_RELU|OP_RELU6|OP_LOGISTIC|OP_TANH|OP_HARD_SWISH|OP_LEAKY_RELU ALPHA=float(0.200000003)}
//   + OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    FLT4 v = LOADF(src, IDX(OUT, x, y, s));
#if defined(OP_RELU)
    v = max(v, FLT4(0.0));
#elif defined(OP_RELU6)
    v = clamp(v, FLT4(0.0), FLT4(6.0));
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
#endif
    // Padded channels must stay zero for channel-wise consumers, and f(0) need not be 0.
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) v[i] = FLT(0.0);
    STORE(dst, IDX(OUT, x, y, s), v);
}
