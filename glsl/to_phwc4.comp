// to_phwc4.comp: dense NHWC float32 (host staging) -> PHWC4, zero in the padded channels.
RAW_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    vec4 v = vec4(0.0);
    int base = (y * OUT_W + x) * OUT_C + s * 4;
    for (int i = 0; i < 4; i++)
        if (s * 4 + i < OUT_C) v[i] = src[base + i];
    STORE(dst, IDX(OUT, x, y, s), v);
}
