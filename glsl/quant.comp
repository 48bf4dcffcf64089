// quant.comp: elementwise steps between float tensors and int8 / uint8 tensors, which hold
// q - zero point (engine/ops/quantize.c, engine/ops/lut.c). In float32 and integers
// whatever the graph's precision: the results are whole numbers (or a dequantized value)
// that must come out bit for bit as TFLite's integer kernels give them.
//   OP_QUANTIZE    float x -> clamp(roundEven(x * INV_SCALE) + ZERO, QMIN, QMAX) - ZERO
//                  (XNNPACK's f32-qs8-vcvt: a multiply by the reciprocal, ties to even)
//   OP_DEQUANTIZE  c -> c * SCALE
//   OP_LUT         c -> table[c + ZERO - QMIN], a table of the 256 (or fewer) results the
//                  host computed with the op's integer reference (binding 2)
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 {OP_QUANTIZE INV_SCALE=float(42.5531921) ZERO=-3 QMIN=-128 QMAX=127
//   + |OP_DEQUANTIZE SCALE=float(0.0235)} OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
// variant: @bindings=3 OP_LUT ZERO=-3 QMIN=-128 OUT_W=6 OUT_H=5 OUT_C=7 OUT_S=2
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)
#ifdef OP_LUT
WEIGHTS(2, table)
#endif

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    int at = IDX(OUT, x, y, s);
    vec4 v = LOAD(src, at);
#if defined(OP_QUANTIZE)
    v = quantize_q(v);
#elif defined(OP_DEQUANTIZE)
    precise vec4 real = v * SCALE;
    v = real;
#elif defined(OP_LUT)
    for (int i = 0; i < 4; i++) {
        int k = clamp(int(v[i]) + ZERO - QMIN, 0, 255);
        v[i] = LOAD(table, k >> 2)[k & 3];
    }
#endif
    // Padded channels stay zero for channel-wise consumers.
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) v[i] = 0.0;
    STORE(dst, at, v);
}
