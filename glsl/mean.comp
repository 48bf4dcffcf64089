// mean.comp: MEAN over H and W. One thread per channel slice (grid x) sums every
// position of its slice in fp32 and divides once, as TFLite does. Slice s of the input
// is one contiguous run of IN_H * IN_W vec4s in PHWC4.
TENSOR_IN(0, src)
TENSOR_OUT(1, dst)

void main() {
    int s = int(gl_GlobalInvocationID.x);
    if (s >= OUT_S) return;
    const int n = IN_H * IN_W;
    int base = s * n;
    vec4 acc = vec4(0.0);
    for (int i = 0; i < n; i++) acc += LOAD(src, base + i);
    acc /= float(n);
    // Keep padded channels zero so that later channel-wise reads see clean data.
    for (int i = 0; i < 4; i++)
        if (s * 4 + i >= OUT_C) acc[i] = 0.0;
    STORE(dst, s, acc);
}
