// unary.comp: out = f(in) elementwise over a PHWC4 tensor.
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = LOAD(src, IDX(OUT, x, y, s));
#if defined(OP_RELU)
    v = max(v, vec4(0.0));
#elif defined(OP_RELU6)
    v = clamp(v, vec4(0.0), vec4(6.0));
#endif
    STORE(dst, IDX(OUT, x, y, s), v);
}
