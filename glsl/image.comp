// image.comp: a camera frame (RGBA8888, RGB888, NV21 or NV12 bytes) -> a graph input's
// PHWC4 tensor in one pass: one affine map from output pixel centres into the frame (the
// host folds crop, quarter turns, mirror, half-pixel-centre resize, letterbox, a rotated
// roi or a matrix into it), a bilinear sample of four taps with a border outside the
// frame (black, or the nearest edge pixel), BT.601 full-range YUV -> RGB, the letterbox
// fill, normalisation. One thread per output pixel. The frame-dependent values are in
// `params` (engine/runtime/image.h's vki_image_params, field for field, which says how
// the map is evaluated), so a new frame or transform needs no new pipeline; the frame
// buffer holds only the part of the frame the map reads. The plain C reference of the
// same steps is engine/runtime/image.c. Coordinates and colours are `precise`, so that no
// fused multiply-add moves them from the reference's.
//
// Variants: what the engine emits (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// image_input.c: an RGB or a luma input; binding 0 the frame bytes, 1 the params.
// variant: @bindings=3 OUT_W=17 OUT_H=13 {OUT_C=3|OUT_C=1} OUT_S=1
// variant: @bindings=3 OUT_W=17 OUT_H=13 OUT_C=3 OUT_S=1 INV_SCALE=float(127.5) ZERO=-1
//   + QMIN=-128 QMAX=127
layout(std430, set = 0, binding = 0) readonly restrict buffer frame_block { uint frame[]; };
layout(std430, set = 0, binding = 1) readonly restrict buffer params_block {
    int format;              // 0 RGBA8888, 1 RGB888, 2 NV21, 3 NV12
    int region_w, region_h;
    int row_bytes;
    int uv_offset, uv_row_bytes;
    int region_x_odd, region_y_odd;
    int bound_x0, bound_y0, bound_x1, bound_y1;
    int zero_border;
    int content_x, content_y, content_w, content_h;
    float map_x[5];
    float map_y[5];
    float fill;
    float norm_scale[3];
    float norm_bias[3];
} P;
TENSOR_OUT(2, dst)

#define FORMAT_RGBA 0
#define FORMAT_RGB 1
#define FORMAT_NV12 3

float byte_at(int offset) {
    return float((frame[offset >> 2] >> (uint(offset & 3) * 8u)) & 0xFFu);
}

// Region pixel (a, b): RGB in .xyz, or luma in .x for a one-channel input. Outside the
// bounds, black or the nearest pixel inside.
vec3 tap(int a, int b) {
    if (a < P.bound_x0 || a > P.bound_x1 || b < P.bound_y0 || b > P.bound_y1) {
        if (P.zero_border != 0) return vec3(0.0);
        a = clamp(a, P.bound_x0, P.bound_x1);
        b = clamp(b, P.bound_y0, P.bound_y1);
    }
    a = clamp(a, 0, P.region_w - 1);
    b = clamp(b, 0, P.region_h - 1);
    if (P.format <= FORMAT_RGB) {
        int bpp = P.format == FORMAT_RGBA ? 4 : 3;
        int at = b * P.row_bytes + a * bpp;
        precise vec3 rgb = vec3(byte_at(at), byte_at(at + 1), byte_at(at + 2));
#if OUT_C == 1
        precise float luma = 0.299 * rgb.x + 0.587 * rgb.y + 0.114 * rgb.z;
        return vec3(luma, 0.0, 0.0);
#else
        return rgb;
#endif
    }
    float y = byte_at(b * P.row_bytes + a);
#if OUT_C == 1
    return vec3(y, 0.0, 0.0);
#else
    int c = P.uv_offset + ((b + P.region_y_odd) >> 1) * P.uv_row_bytes + ((a + P.region_x_odd) >> 1) * 2;
    float first = byte_at(c), second = byte_at(c + 1);
    float u = P.format == FORMAT_NV12 ? first : second;
    float v = P.format == FORMAT_NV12 ? second : first;
    precise float du = u - 128.0, dv = v - 128.0;
    precise float r = y + 1.402 * dv;
    precise float g = y - 0.344136 * du - 0.714136 * dv;
    precise float bl = y + 1.772 * du;
    return clamp(vec3(r, g, bl), 0.0, 255.0);
#endif
}

void main() {
    int x = int(gl_GlobalInvocationID.x);
    int y = int(gl_GlobalInvocationID.y);
    if (x >= OUT_W || y >= OUT_H) return;
    precise vec3 v = vec3(P.fill);
    int cx = x - P.content_x, cy = y - P.content_y;
    if (cx >= 0 && cy >= 0 && cx < P.content_w && cy < P.content_h) {
        precise float px = float(cx) + 0.5, py = float(cy) + 0.5;
        precise float a = P.map_x[4] + (P.map_x[3] + ((P.map_x[0] * px + P.map_x[1] * py) + P.map_x[2]));
        precise float b = P.map_y[4] + (P.map_y[3] + ((P.map_y[0] * px + P.map_y[1] * py) + P.map_y[2]));
        // 2 pixels past the bounds every tap is a border tap: keeps floor() in int range.
        a = clamp(a, float(P.bound_x0 - 2), float(P.bound_x1 + 2));
        b = clamp(b, float(P.bound_y0 - 2), float(P.bound_y1 + 2));
        int a0 = int(floor(a)), b0 = int(floor(b));
        int a1 = a0 + 1, b1 = b0 + 1;
        precise float fa = a - float(a0), fb = b - float(b0);
        vec3 t00 = tap(a0, b0), t10 = tap(a1, b0), t01 = tap(a0, b1), t11 = tap(a1, b1);
        precise vec3 top = t00 + (t10 - t00) * fa;
        precise vec3 bottom = t01 + (t11 - t01) * fa;
        v = top + (bottom - top) * fb;
    }
    precise vec3 o = v * vec3(P.norm_scale[0], P.norm_scale[1], P.norm_scale[2]) +
                     vec3(P.norm_bias[0], P.norm_bias[1], P.norm_bias[2]);
#ifdef INV_SCALE
    // The model's first QUANTIZE, run here: dst is its int8 / uint8 output.
    vec3 q = quantize_q(vec4(o, 0.0)).xyz;
#else
    vec3 q = o;
#endif
#if OUT_C == 1
    STORE(dst, IDX(OUT, x, y, 0), vec4(q.x, 0.0, 0.0, 0.0));
#else
    STORE(dst, IDX(OUT, x, y, 0), vec4(q, 0.0));
#endif
}
