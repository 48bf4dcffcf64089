// from_phwc4.comp: PHWC4 -> dense NHWC float32 (host staging), dropping padded channels.
TENSOR_IN(0, src)
RAW_OUT(1, dst)

void main() {
    OUTPUT_POSITION(IN, x, y, s)
    vec4 v = LOAD(src, IDX(IN, x, y, s));
    int base = (y * IN_W + x) * IN_C + s * 4;
    for (int i = 0; i < 4; i++)
        if (s * 4 + i < IN_C) dst[base + i] = v[i];
}
