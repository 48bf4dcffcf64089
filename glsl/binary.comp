// binary.comp: out = activate(a OP b) (through the producer epilogue), or for OP_SELECT
// a ? b : c, with numpy broadcasting over tensors of up to 5 dims; OP is chosen by OP_*
// (PRELU: a is the input, b the alpha). Comparisons and logical ops write 0 or 1.
// Storage is each tensor's rows view: the dims before the last two fold into rows, so an
// operand's row for output row y comes from y's digits over the output's leading extents
// (OUT_R0..2), each read at 0 where the operand's extent (P_R0..2) is 1; P_ROWS marks an
// operand whose rows are the output's. Along W an extent of 1 is broadcast; a 1-channel
// operand is broadcast over all four lanes of every slice. An operand with more channels
// but fewer slices than the output reads zero past its last slice: the passes fold a
// channel PAD that zero-extends an operand this way (padded lanes are zero already).
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic). An operand is whole or
// broadcast (1 channel, and 1x1 or 1 row, or along leading axes).
// variant: @bindings=3 {OP_ADD|OP_SUB|OP_MUL|OP_DIV} $ACT $BINARY_OPERANDS
// variant: @bindings=3 {OP_MAXIMUM|OP_MINIMUM|OP_PRELU|OP_SQUARED_DIFFERENCE|OP_POW
//   + |OP_FLOOR_DIV|OP_FLOOR_MOD|OP_GREATER|OP_GREATER_EQUAL|OP_LESS|OP_LESS_EQUAL|OP_EQUAL
//   + |OP_NOT_EQUAL|OP_LOGICAL_AND|OP_LOGICAL_OR} $BINARY_OPERANDS
// variant: @bindings=3 OP_ADD IN_PLACE $BINARY_OPERANDS
// variant: @bindings=3 INT8 OUT_QMIN=-100 OUT_QMAX=127
//   + {OP_ADD A_MULT=1048576 B_MULT=-524288 Q_SHIFT=20|OP_MUL Q_SCALE=float(0.0125)}
//   + $BINARY_OPERANDS
// variant: @bindings=3 INT8 OUT_QMIN=-100 OUT_QMAX=155 OP_PRELU PRELU_MULT1=1518500250
//   + PRELU_SHIFT1=1 PRELU_MULT2=1288490189 PRELU_SHIFT2=-6 $BINARY_OPERANDS
// variant: @bindings=4 N_OPERANDS=3 OP_SELECT $BINARY_OPERANDS
//   + C_W=6 C_H=5 C_C=7 C_S=2 C_R0=1 C_R1=1 C_R2=5 C_ROWS
// variant: @bindings=N_BINDINGS OP_MUL ACT_RELU OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2 OUT_R0=1
//   + OUT_R1=1 OUT_R2=5 A_W=6 A_H=5 A_C=7 A_S=2 A_R0=1 A_R1=1 A_R2=5 A_ROWS
//   + B_W=1 B_H=1 B_C=7 B_S=2 B_R0=1 B_R1=1 B_R2=1 $EPILOGUE3
// variant-set: BINARY_OPERANDS = OUT_W=6 OUT_H=10 OUT_C=7 OUT_S=2 OUT_R0=1 OUT_R1=2 OUT_R2=5
//   + {A_W=6 A_H=10 A_C=7 A_S=2 A_R0=1 A_R1=2 A_R2=5 A_ROWS|A_W=1 A_H=1 A_C=1 A_S=1 A_R0=1
//   + A_R1=1 A_R2=1}
//   + {B_W=6 B_H=10 B_C=7 B_S=2 B_R0=1 B_R1=2 B_R2=5 B_ROWS|B_W=6 B_H=1 B_C=1 B_S=1 B_R0=1
//   + B_R1=1 B_R2=1|B_W=6 B_H=2 B_C=3 B_S=1 B_R0=1 B_R1=2 B_R2=1}
#ifndef N_OPERANDS
#define N_OPERANDS 2
#endif
TENSOR_IN(0, a)
TENSOR_IN(1, b)
#if N_OPERANDS == 3
TENSOR_IN(2, c)
OUTPUT(3)
#else
OUTPUT(2)
#endif

#define FETCH(P, buf)                                                                      \
    FLT4 fetch_##buf(int x, int y, int s) {                                                \
        int xx = P##_W == 1 ? 0 : x;                                                       \
        int yy = (((P##_R0 == 1 ? 0 : y / (OUT_R1 * OUT_R2)) * P##_R1 +                     \
                   (P##_R1 == 1 ? 0 : (y / OUT_R2) % OUT_R1)) * P##_R2 +                    \
                  (P##_R2 == 1 ? 0 : y % OUT_R2));                                          \
        ROWS_##P                                                                           \
        if (P##_C != 1 && P##_S < OUT_S && s >= P##_S) return FLT4(0.0);                    \
        if (P##_C == 1) return FLT4(LOADF(buf, IDX(P, xx, yy, 0)).x);                        \
        return LOADF(buf, IDX(P, xx, yy, s));                                               \
    }
#ifdef A_ROWS
#define ROWS_A yy = y;
#else
#define ROWS_A
#endif
#ifdef B_ROWS
#define ROWS_B yy = y;
#else
#define ROWS_B
#endif
#ifdef C_ROWS
#define ROWS_C yy = y;
#else
#define ROWS_C
#endif
FETCH(A, a)
FETCH(B, b)
#if N_OPERANDS == 3
FETCH(C, c)
#endif

#if defined(OP_POW)
// C's pow for float: |a|^b with the sign of a for an odd integer b, NaN for a negative a
// and a fractional b, and 0^b = 0, 1 or inf; GLSL's pow leaves a <= 0 undefined.
float pow1(float a, float b) {
    if (b == 0.0) return 1.0;
    if (a == 0.0) return b > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);   // inf
    float r = exp2(b * log2(abs(a)));
    if (a > 0.0) return r;
    if (floor(b) != b) return uintBitsToFloat(0x7fc00000u);              // NaN
    return mod(b, 2.0) == 1.0 ? -r : r;
}
#endif

#define BOOL4(x) mix(FLT4(0.0), FLT4(1.0), x)

#if defined(INT8) && defined(OP_PRELU)
// TFLite's MultiplyByQuantizedMultiplier (double rounding) of x by a Q31 multiplier m >= 0
// and a power-of-two exponent: x shifted left by the positive part, the doubled high
// product (|x| * m + 2^30, less one for x < 0, over 2^31, with x's sign: the rounding
// toward zero of SaturatingRoundingDoublingHighMul), then divided by 2^-shift, ties away
// from zero (RoundingDivideByPOT). Exact int32 arithmetic, as engine/ops/int8.c's mbqm.
int prelu_scale(int x, int m, int shift) {
    int a = x << max(shift, 0), right = max(-shift, 0);
    uint hi, lo, carry;
    umulExtended(uint(abs(a)), uint(m), hi, lo);
    lo = uaddCarry(lo, a < 0 ? 0x3fffffffu : 0x40000000u, carry);
    int h = int(((hi + carry) << 1) | (lo >> 31));
    if (a < 0) h = -h;
    int mask = (1 << right) - 1;
    int threshold = (mask >> 1) + (h < 0 ? 1 : 0);
    return (h >> right) + ((h & mask) > threshold ? 1 : 0);
}
#endif

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    FLT4 va = fetch_a(x, y, s), vb = fetch_b(x, y, s);
#if defined(INT8)
    // Integer forms on q - zero point (engine/ops/int8.c): XNNPACK's vadd (fixed-point
    // multipliers, half up by the shift) and vmul (fp32 requantization, ties to even);
    // TFLite's PRELU (b the alpha's q - zero point; a fixed-point multiplier per sign).
    ivec4 ia = ivec4(va), ib = ivec4(vb);
#if defined(OP_PRELU)
    vec4 q;
    for (int k = 0; k < 4; k++)
        q[k] = float(ia[k] >= 0 ? prelu_scale(ia[k], PRELU_MULT1, PRELU_SHIFT1)
                                : prelu_scale(ia[k] * ib[k], PRELU_MULT2, PRELU_SHIFT2));
#elif defined(OP_MUL)
    precise vec4 f = vec4(ia * ib) * Q_SCALE;
    vec4 q = roundEven(f);
#else
    vec4 q = vec4(((1 << (Q_SHIFT - 1)) + ia * A_MULT + ib * B_MULT) >> Q_SHIFT);
#endif
    q = clamp(q, vec4(OUT_QMIN), vec4(OUT_QMAX));
    INT8_APPLY_TABLE(q)   // a fused table op (RELU6, HARD_SWISH, ...): engine/emit/passes.c
    STORE_Q(x, y, s, q)
#else
#if defined(OP_ADD)
    FLT4 v = va + vb;
#elif defined(OP_SUB)
    FLT4 v = va - vb;
#elif defined(OP_MUL)
    FLT4 v = va * vb;
#elif defined(OP_DIV)
    FLT4 v = va / vb;
#elif defined(OP_MAXIMUM)
    FLT4 v = max(va, vb);
#elif defined(OP_MINIMUM)
    FLT4 v = min(va, vb);
#elif defined(OP_PRELU)
    FLT4 v = mix(va * vb, va, greaterThanEqual(va, FLT4(0.0)));
#elif defined(OP_SQUARED_DIFFERENCE)
    FLT4 d = va - vb;
    FLT4 v = d * d;
#elif defined(OP_POW)
    vec4 fa = vec4(va), fb = vec4(vb);
    FLT4 v = FLT4(pow1(fa.x, fb.x), pow1(fa.y, fb.y), pow1(fa.z, fb.z), pow1(fa.w, fb.w));
#elif defined(OP_FLOOR_DIV)
    FLT4 v = floor(va / vb);
#elif defined(OP_FLOOR_MOD)
    // C's fmod, moved into the divisor's sign as TFLite's FLOOR_MOD does.
    vec4 fa = vec4(va), fb = vec4(vb);
    vec4 t = fa - fb * trunc(fa / fb);
    vec4 moved = vec4(notEqual(lessThan(fb, vec4(0.0)), lessThan(t, vec4(0.0)))) *
                 vec4(notEqual(t, vec4(0.0)));
    FLT4 v = FLT4(t + fb * moved);
#elif defined(OP_GREATER)
    FLT4 v = BOOL4(greaterThan(va, vb));
#elif defined(OP_GREATER_EQUAL)
    FLT4 v = BOOL4(greaterThanEqual(va, vb));
#elif defined(OP_LESS)
    FLT4 v = BOOL4(lessThan(va, vb));
#elif defined(OP_LESS_EQUAL)
    FLT4 v = BOOL4(lessThanEqual(va, vb));
#elif defined(OP_EQUAL)
    FLT4 v = BOOL4(equal(va, vb));
#elif defined(OP_NOT_EQUAL)
    FLT4 v = BOOL4(notEqual(va, vb));
#elif defined(OP_LOGICAL_AND)
    FLT4 v = FLT4(vec4(notEqual(va, FLT4(0.0))) * vec4(notEqual(vb, FLT4(0.0))));
#elif defined(OP_LOGICAL_OR)
    FLT4 v = FLT4(max(vec4(notEqual(va, FLT4(0.0))), vec4(notEqual(vb, FLT4(0.0)))));
#elif defined(OP_SELECT)
    FLT4 v = mix(fetch_c(x, y, s), vb, notEqual(va, FLT4(0.0)));
#endif
    STORE_OUTPUT(x, y, s, v)
#endif
}
