// gather.comp: RESHAPE between tensors whose PHWC4 layouts differ. Each output lane takes
// the input element with the same dense NHWC linear index.
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int base = (y * OUT_W + x) * OUT_C;
    for (int i = 0; i < 4; i++) {
        int c = s * 4 + i;
        if (c >= OUT_C) break;          // padded lanes stay zero
        int l = base + c;
        int ic = l % IN_C, p = l / IN_C;
        v[i] = LOAD(src, IDX(IN, p % IN_W, p / IN_W, ic >> 2))[ic & 3];
    }
    STORE(dst, IDX(OUT, x, y, s), v);
}
