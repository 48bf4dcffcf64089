// from_phwc4.comp: PHWC4 -> dense NHWC float32 (host staging), dropping padded channels.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// graph.c converts each graph output (binding 1: its dense float32 staging).
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2
// variant: @bindings=2 IN_W=5 IN_H=4 IN_C=6 IN_S=2 DEQUANT_SCALE=float(0.0235)
TENSOR_IN(0, src)
RAW_OUT(1, dst)

// One thread per dense float, in the dense order: a row's W * C floats are written by
// consecutive threads. The staging is host memory on a discrete GPU, where a thread per
// vec4 (stores C floats apart) made pose_landmark_full's 64x64x39 heatmap cost 200 us on
// an H200; each vec4 is read by up to 4 threads instead, from device memory.
void main() {
    int i = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    if (i >= IN_W * IN_C || y >= IN_H) return;
    int x = i / IN_C, c = i - x * IN_C;
    float v = LOAD(src, IDX(IN, x, y, c >> 2))[c & 3];
#ifdef DEQUANT_SCALE
    // An int8 model's closing DEQUANTIZE (engine/emit/builder.c): src holds q - zero point.
    precise float real = v * DEQUANT_SCALE;
    v = real;
#endif
    dst[y * (IN_W * IN_C) + i] = v;
}
