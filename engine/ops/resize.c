/* resize.c: RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR of [1,H,W,C] tensors (one
 * kernel, glsl/resize.comp). The output size comes from a constant int32 [2] input and
 * must match the output tensor. Source coordinates follow TFLite's reference kernels to
 * the float operation: the scales are computed here exactly as TFLite computes them and
 * handed to the kernel as exact float literals, and the kernel forbids contraction where
 * a floor or ceil depends on the result. An int8 / uint8 RESIZE_BILINEAR on one grid has an
 * integer form (int8.h): XNNPACK's ibilinear, weights of 11 fraction bits. */
#include "int8.h"
#include "ops.h"

#include <math.h>

static bool is_bilinear(const vki_op *op) { return op->code == VKI_OP_RESIZE_BILINEAR; }

/* TFLite's scale along one axis (both kernels use the same rule). */
static float axis_scale(int in, int out, bool align_corners) {
    if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
    return (float)in / (float)out;
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank != 4 || out->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input and output must have rank 4, got %d and %d", in->rank, out->rank);
    if (is_bilinear(op) && op->opt.resize.align_corners && op->opt.resize.half_pixel_centers)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "align_corners and half_pixel_centers are both set; TFLite allows "
                           "half_pixel_centers only without align_corners");

    int t = op->inputs[1];
    const vki_tensor *size;
    s = vki_op_int_const(m, o, 1, "size", &size);
    if (s) return s;
    if (size->rank != 1 || size->shape[0] != 2 || size->data_bytes < 2 * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "size tensor %d '%s' must hold 2 values [height, width]", t, size->name);
    const int32_t *hw = (const int32_t *)size->data;
    if (hw[0] < 1 || hw[1] < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "size [%d,%d] must be positive",
                           (int)hw[0], (int)hw[1]);
    vki_shape4 si = vki_tensor_shape4(in);
    return vki_op_check_shape(m, o, op->outputs[0], (vki_shape4){1, hw[0], hw[1], si.c});
}

/* The integer form: RESIZE_BILINEAR of an int8 / uint8 activation onto its own grid. */
static bool integer(const vki_model *m, const vki_op *op) {
    return vki_int8_resize_bilinear_ok(m, op);
}

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_shape4 in = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    bool align = op->opt.resize.align_corners;
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_resize, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, is_bilinear(op) ? "RESIZE_BILINEAR" : "RESIZE_NEAREST", 1);
    if (align) vki_define_int(&d, "ALIGN_CORNERS", 1);
    if (op->opt.resize.half_pixel_centers) vki_define_int(&d, "HALF_PIXEL_CENTERS", 1);
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    if (is_bilinear(op) && runs_integer(m, op)) {
        /* XNNPACK's scales and half-pixel offsets (int8.c), its coordinate rule. */
        float sh, oh, sw, ow;
        vki_int8_resize_scale(in.h, out.h, align, &sh, &oh);
        vki_int8_resize_scale(in.w, out.w, align, &sw, &ow);
        vki_define_int(&d, "INT8", 1);
        vki_define_float(&d, "SCALE_H", sh);
        vki_define_float(&d, "SCALE_W", sw);
        vki_define_float(&d, "OFFSET_H", oh);
        vki_define_float(&d, "OFFSET_W", ow);
    } else {
        vki_define_float(&d, "SCALE_H", axis_scale(in.h, out.h, align));
        vki_define_float(&d, "SCALE_W", axis_scale(in.w, out.w, align));
    }
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_status bound = vki_build_bind_output(b, &d, op);
    if (bound) return bound;
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

/* ---- references ------------------------------------------------------------------------ */

/* TFLite's reference_ops::ComputeInterpolationValues, lower bound clamp included. */
static void interpolation_values(float value, float scale, bool half_pixel_centers, int in_size,
                                 float *scaled, int *lower, int *upper) {
    if (half_pixel_centers) *scaled = (value + 0.5f) * scale - 0.5f;
    else *scaled = value * scale;
    float scaled_floor = floorf(*scaled);
    *lower = (int)scaled_floor > 0 ? (int)scaled_floor : 0;
    int up = (int)ceilf(*scaled);
    *upper = up < in_size - 1 ? up : in_size - 1;
}

/* The integer form on q - zero point: XNNPACK's s8 / u8 ibilinear (int8.c). */
static void reference_integer(const vki_model *m, const vki_op *op, const float *src, float *dst) {
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    bool align = op->opt.resize.align_corners, half = op->opt.resize.half_pixel_centers;
#define AT(y, x, c) ((int32_t)src[((size_t)(y) * si.w + (x)) * si.c + (c)])
    for (int y = 0; y < so.h; y++) {
        int y0, y1, wy;
        vki_int8_resize_axis(y, si.h, so.h, align, half, &y0, &y1, &wy);
        for (int x = 0; x < so.w; x++) {
            int x0, x1, wx;
            vki_int8_resize_axis(x, si.w, so.w, align, half, &x0, &x1, &wx);
            for (int c = 0; c < si.c; c++)
                dst[((size_t)y * so.w + x) * so.c + c] = (float)vki_int8_resize_lerp(
                    AT(y0, x0, c), AT(y0, x1, c), AT(y1, x0, c), AT(y1, x1, c), wx, wy);
        }
    }
#undef AT
}

/* TFLite's reference_ops::ResizeBilinear (float). */
static void reference_bilinear(const vki_model *m, const vki_op *op, const float *const *in,
                               float *const *out) {
    if (runs_integer(m, op)) {
        reference_integer(m, op, in[0], out[0]);
        return;
    }
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    bool align = op->opt.resize.align_corners, half = op->opt.resize.half_pixel_centers;
    float scale_h = axis_scale(si.h, so.h, align), scale_w = axis_scale(si.w, so.w, align);
    const float *src = in[0];
#define AT(y, x, c) src[((size_t)(y) * si.w + (x)) * si.c + (c)]
    for (int y = 0; y < so.h; y++) {
        float iy;
        int y0, y1;
        interpolation_values((float)y, scale_h, half, si.h, &iy, &y0, &y1);
        for (int x = 0; x < so.w; x++) {
            float ix;
            int x0, x1;
            interpolation_values((float)x, scale_w, half, si.w, &ix, &x0, &x1);
            for (int c = 0; c < si.c; c++)
                out[0][((size_t)y * so.w + x) * so.c + c] =
                    AT(y0, x0, c) * (1 - (iy - y0)) * (1 - (ix - x0)) +
                    AT(y1, x0, c) * (iy - y0) * (1 - (ix - x0)) +
                    AT(y0, x1, c) * (1 - (iy - y0)) * (ix - x0) +
                    AT(y1, x1, c) * (iy - y0) * (ix - x0);
        }
    }
#undef AT
}

/* TFLite's reference_ops GetNearestNeighbor; TfLiteRound is roundf (halves away from 0). */
static int nearest(int value, int in_size, int out_size, bool align, bool half) {
    float scale = axis_scale(in_size, out_size, align);
    float offset = half ? 0.5f : 0.0f;
    float at = ((float)value + offset) * scale;
    int r = align ? (int)roundf(at) : (int)floorf(at);
    if (r > in_size - 1) r = in_size - 1;
    if (half && r < 0) r = 0;
    return r;
}

/* TFLite's reference_ops::ResizeNearestNeighbor. */
static void reference_nearest(const vki_model *m, const vki_op *op, const float *const *in,
                              float *const *out) {
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    bool align = op->opt.resize.align_corners, half = op->opt.resize.half_pixel_centers;
    for (int y = 0; y < so.h; y++) {
        int iy = nearest(y, si.h, so.h, align, half);
        for (int x = 0; x < so.w; x++) {
            int ix = nearest(x, si.w, so.w, align, half);
            for (int c = 0; c < si.c; c++)
                out[0][((size_t)y * so.w + x) * so.c + c] =
                    in[0][((size_t)iy * si.w + ix) * si.c + c];
        }
    }
}

/* ResizeBilinearOptions and ResizeNearestNeighborOptions: align_corners and
 * half_pixel_centers. ResizeBilinearOptions keeps its deprecated new_height and new_width
 * at 0 and 1; the output size comes from the op's second input. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    unsigned first = is_bilinear(op) ? 2 : 0;
    if (!vki_opt_bool(r, first, false, &op->opt.resize.align_corners) ||
        !vki_opt_bool(r, first + 1, false, &op->opt.resize.half_pixel_centers))
        return vki_opt_malformed(r);
    return VKI_OK;
}

const vki_op_def vki_op_resize_bilinear = {
    .validate = validate, .build = build, .reference = reference_bilinear,
    .options = read_options, .integer = integer};
const vki_op_def vki_op_resize_nearest = {
    .validate = validate, .build = build, .reference = reference_nearest,
    .options = read_options};
