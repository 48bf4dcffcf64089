// binary.comp: out = activate(a OP b) (through the producer epilogue) with broadcasting over H, W and C; OP is chosen by
// OP_* (PRELU: a is the input, b the alpha).
// An input whose extent along an axis is 1 is broadcast along it; a 1-channel input is
// broadcast over all four lanes of every slice. An input with more channels but fewer
// slices than the output reads zero past its last slice: the passes fold a channel PAD
// that zero-extends an operand this way (padded lanes of its last slice are zero already).
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic). An operand is whole or
// broadcast (1 channel, and 1x1 or 1 row).
// variant: @bindings=3 {OP_ADD|OP_SUB|OP_MUL|OP_DIV} $ACT $BINARY_OPERANDS
// variant: @bindings=3 {OP_MAXIMUM|OP_MINIMUM|OP_PRELU} $BINARY_OPERANDS
// variant: @bindings=N_BINDINGS OP_MUL ACT_RELU OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
//   + A_W=6 A_H=5 A_C=7 A_S=2 B_W=1 B_H=1 B_C=7 B_S=2 $EPILOGUE3
// variant-set: BINARY_OPERANDS = OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
//   + {A_W=6 A_H=5 A_C=7 A_S=2|A_W=1 A_H=1 A_C=1 A_S=1}
//   + {B_W=6 B_H=5 B_C=7 B_S=2|B_W=6 B_H=1 B_C=1 B_S=1|B_W=6 B_H=5 B_C=3 B_S=1}
TENSOR_IN(0, a)
TENSOR_IN(1, b)
OUTPUT(2)

FLT4 fetch_a(int x, int y, int s) {
    int xx = A_W == 1 ? 0 : x, yy = A_H == 1 ? 0 : y;
#if A_C != 1 && A_S < OUT_S
    if (s >= A_S) return FLT4(0.0);   // a channel PAD folded in: zeros past the operand
#endif
#if A_C == 1
    return FLT4(LOADF(a, IDX(A, xx, yy, 0)).x);
#else
    return LOADF(a, IDX(A, xx, yy, s));
#endif
}

FLT4 fetch_b(int x, int y, int s) {
    int xx = B_W == 1 ? 0 : x, yy = B_H == 1 ? 0 : y;
#if B_C != 1 && B_S < OUT_S
    if (s >= B_S) return FLT4(0.0);
#endif
#if B_C == 1
    return FLT4(LOADF(b, IDX(B, xx, yy, 0)).x);
#else
    return LOADF(b, IDX(B, xx, yy, s));
#endif
}

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    FLT4 va = fetch_a(x, y, s), vb = fetch_b(x, y, s);
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
#endif
    STORE_OUTPUT(x, y, s, v)
}
