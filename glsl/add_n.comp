// add_n.comp: ADD_N, the sum of N_IN tensors of one shape (bindings 0..N_IN-1, output
// last at OUT_BINDING), added in input order as TFLite's reference does.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=N_IN+1 N_IN={2..8} OUT_BINDING=N_IN OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
TENSOR_IN(0, src0)
TENSOR_IN(1, src1)
#if N_IN > 2
TENSOR_IN(2, src2)
#endif
#if N_IN > 3
TENSOR_IN(3, src3)
#endif
#if N_IN > 4
TENSOR_IN(4, src4)
#endif
#if N_IN > 5
TENSOR_IN(5, src5)
#endif
#if N_IN > 6
TENSOR_IN(6, src6)
#endif
#if N_IN > 7
TENSOR_IN(7, src7)
#endif
TENSOR_OUT(OUT_BINDING, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    int i = IDX(OUT, x, y, s);
    FLT4 v = LOADF(src0, i) + LOADF(src1, i);
#if N_IN > 2
    v += LOADF(src2, i);
#endif
#if N_IN > 3
    v += LOADF(src3, i);
#endif
#if N_IN > 4
    v += LOADF(src4, i);
#endif
#if N_IN > 5
    v += LOADF(src5, i);
#endif
#if N_IN > 6
    v += LOADF(src6, i);
#endif
#if N_IN > 7
    v += LOADF(src7, i);
#endif
    STORE(dst, i, v);
}
