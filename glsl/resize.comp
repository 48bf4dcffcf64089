// resize.comp: bilinear (RESIZE_BILINEAR defined) or nearest-neighbour (RESIZE_NEAREST)
// resizing, one output vec4 per thread, with ALIGN_CORNERS / HALF_PIXEL_CENTERS.
// SCALE_H / SCALE_W are TFLite's float scales. Coordinates are `precise`: a fused
// multiply-add could move a value across an integer and change which row is read.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// resize.c refuses ALIGN_CORNERS with HALF_PIXEL_CENTERS for bilinear only.
// variant: @bindings=2 RESIZE_BILINEAR {|ALIGN_CORNERS|HALF_PIXEL_CENTERS} $RESIZE_SHAPES
// variant: @bindings=2 RESIZE_NEAREST {|ALIGN_CORNERS} {|HALF_PIXEL_CENTERS} $RESIZE_SHAPES
// variant: @bindings=N_BINDINGS RESIZE_BILINEAR HALF_PIXEL_CENTERS $RESIZE_SHAPES $EPILOGUE2
// variant: @bindings=2 INT8 RESIZE_BILINEAR {|ALIGN_CORNERS|HALF_PIXEL_CENTERS} $RESIZE_SHAPES
//   + OFFSET_H=float(-0.25) OFFSET_W=float(-0.266666651)
// variant: @bindings=N_BINDINGS INT8 RESIZE_BILINEAR $RESIZE_SHAPES OFFSET_H=float(-0.25)
//   + OFFSET_W=float(-0.266666651) N_BINDINGS=2 DENSE_OUT DENSE_BASE=12 DENSE_SCALE=float(0.05)
// variant-set: RESIZE_SHAPES = IN_W=7 IN_H=5 IN_C=6 IN_S=2 OUT_W=15 OUT_H=10 OUT_C=6 OUT_S=2
//   + SCALE_H=float(0.5) SCALE_W=float(0.466666669)
TENSOR_IN(0, src)
OUTPUT(1)

#if defined(RESIZE_BILINEAR) && defined(INT8)
// The integer form (engine/ops/int8.c): XNNPACK's xnn_indirection_init_resize_bilinear2d_
// hwc_q11 coordinate in float32 (i * scale, + OFFSET and clamped at 0 with half-pixel
// centers, clamped at size - 1; `precise`: one rounding each), its integer part, the next
// index, and the fraction's weight of 11 bits, rounded half to even.
void interpolation_q11(int value, float scale, float offset, int size, out int lo, out int hi,
                       out int weight) {
    precise float v = float(value) * scale;
#if defined(HALF_PIXEL_CENTERS) && !defined(ALIGN_CORNERS)
    precise float shifted = v + offset;
    v = max(shifted, 0.0);
#endif
    v = min(v, float(size - 1));
    lo = int(v);
    hi = min(lo + 1, size - 1);
    precise float fraction = v - float(lo);
    weight = int(roundEven(fraction * 2048.0));
}
#elif defined(RESIZE_BILINEAR)
// TFLite's ComputeInterpolationValues: the lower bound is clamped at 0, the upper at
// size - 1.
void interpolation(int value, float scale, int size, out float scaled, out int lo, out int hi) {
#if defined(HALF_PIXEL_CENTERS)
    precise float v = (float(value) + 0.5) * scale - 0.5;
#else
    precise float v = float(value) * scale;
#endif
    scaled = v;
    lo = max(int(floor(v)), 0);
    hi = min(int(ceil(v)), size - 1);
}
#else
// TFLite's GetNearestNeighbor; rounding (align_corners) takes halves away from zero,
// which for these non-negative values is floor plus one when the fraction is >= 0.5.
int nearest(int value, float scale, int size) {
#if defined(HALF_PIXEL_CENTERS)
    precise float v = (float(value) + 0.5) * scale;
#else
    precise float v = float(value) * scale;
#endif
    float f = floor(v);
#if defined(ALIGN_CORNERS)
    int r = int(f) + (v - f >= 0.5 ? 1 : 0);
#else
    int r = int(f);
#endif
    r = min(r, size - 1);
#if defined(HALF_PIXEL_CENTERS)
    r = max(r, 0);
#endif
    return r;
}
#endif

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
#if defined(RESIZE_BILINEAR) && defined(INT8)
    // XNNPACK's s8 / u8 ibilinear on q - zero point: rows blended, then columns, in int32,
    // the sum of 22 fraction bits floored after adding half (the same on q: exact shift).
    int y0, y1, x0, x1, wy, wx;
    interpolation_q11(y, SCALE_H, OFFSET_H, IN_H, y0, y1, wy);
    interpolation_q11(x, SCALE_W, OFFSET_W, IN_W, x0, x1, wx);
    ivec4 tl = ivec4(LOAD(src, IDX(IN, x0, y0, s))), tr = ivec4(LOAD(src, IDX(IN, x1, y0, s)));
    ivec4 bl = ivec4(LOAD(src, IDX(IN, x0, y1, s))), br = ivec4(LOAD(src, IDX(IN, x1, y1, s)));
    ivec4 top = tl * 2048 + (tr - tl) * wx, bottom = bl * 2048 + (br - bl) * wx;
    ivec4 acc = top * 2048 + (bottom - top) * wy;
    STORE_Q(x, y, s, vec4((acc + (1 << 21)) >> 22))
#elif defined(RESIZE_BILINEAR)
    float iy, ix;
    int y0, y1, x0, x1;
    interpolation(y, SCALE_H, IN_H, iy, y0, y1);
    interpolation(x, SCALE_W, IN_W, ix, x0, x1);
    // The weights as TFLite writes them; with the clamped lower bound they can leave
    // [0, 1] at the edges, where both taps read the same row and still sum to it.
    float dy = iy - float(y0), dx = ix - float(x0);
    vec4 v = LOAD(src, IDX(IN, x0, y0, s)) * (1.0 - dy) * (1.0 - dx) +
             LOAD(src, IDX(IN, x0, y1, s)) * dy * (1.0 - dx) +
             LOAD(src, IDX(IN, x1, y0, s)) * (1.0 - dy) * dx +
             LOAD(src, IDX(IN, x1, y1, s)) * dy * dx;
#else
    vec4 v = LOAD(src, IDX(IN, nearest(x, SCALE_W, IN_W), nearest(y, SCALE_H, IN_H), s));
#endif
#if !defined(INT8)
    STORE_OUTPUT(x, y, s, v)
#endif
}
