/* image.c: the camera-frame stage without the device: checking a frame and its transform
 * against a graph input, the kernel's parameters (crop, rotation, mirror, letterbox,
 * normalisation), packing the frame's bytes for the kernel, and the reference that
 * computes what glsl/image.comp writes. */
#include "image.h"

#include "../ops/ops.h"
#include "status.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int bytes_per_pixel(vki_pixel_format f) {
    return f == VKI_PIXEL_RGBA8888 ? 4 : f == VKI_PIXEL_RGB888 ? 3 : 1;
}

static int is_yuv(vki_pixel_format f) { return f == VKI_PIXEL_NV21 || f == VKI_PIXEL_NV12; }

static const char *format_name(vki_pixel_format f) {
    switch (f) {
    case VKI_PIXEL_RGBA8888: return "RGBA8888";
    case VKI_PIXEL_RGB888: return "RGB888";
    case VKI_PIXEL_NV21: return "NV21";
    case VKI_PIXEL_NV12: return "NV12";
    }
    return "?";
}

static vki_status bad(const char *call, const char *where, const char *fmt, ...) VKI_PRINTF(3, 4);
static vki_status bad(const char *call, const char *where, const char *fmt, ...) {
    char cause[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof cause, fmt, ap);
    va_end(ap);
    return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s: %s", call, where, cause);
}

static size_t align4(size_t v) { return (v + 3) / 4 * 4; }

/* Normalisation as scale and bias: out = pixel * (1/std) - mean/std. */
static vki_status normalisation(const char *call, const char *where, const vki_image_transform *t,
                                int channels, vki_image_params *p) {
    int n = channels == 3 ? 3 : 1, any_std = 0;
    for (int c = 0; c < n; c++) {
        if (!isfinite(t->mean[c]) || !isfinite(t->std[c]))
            return bad(call, where, "mean[%d] %g or std[%d] %g is not finite", c, (double)t->mean[c],
                       c, (double)t->std[c]);
        any_std |= t->std[c] != 0.0f;
    }
    for (int c = 0; c < n; c++) {
        if (!any_std) {
            if (t->mean[c] != 0.0f)
                return bad(call, where, "mean[%d] is %g but every std is 0; give std too (all std "
                           "0 means pixel / 255)", c, (double)t->mean[c]);
            p->norm_scale[c] = 1.0f / 255.0f;
            p->norm_bias[c] = 0.0f;
        } else {
            if (t->std[c] == 0.0f)
                return bad(call, where, "std[%d] is 0 while another std is not; give every "
                           "channel's std", c);
            p->norm_scale[c] = 1.0f / t->std[c];
            p->norm_bias[c] = -t->mean[c] / t->std[c];
        }
    }
    for (int c = n; c < 3; c++) p->norm_scale[c] = p->norm_scale[0], p->norm_bias[c] = p->norm_bias[0];
    return VKI_OK;
}

/* The output pixels the rotated crop (rw x rh) covers and the scales onto it. */
static void content(int letterbox, int64_t rw, int64_t rh, int64_t w, int64_t h, vki_image_params *p) {
    int64_t cw = w, ch = h;
    if (letterbox && rw * h >= rh * w) {
        ch = (2 * rh * w + rw) / (2 * rw);       /* rh * w / rw, rounded */
        ch = ch < 1 ? 1 : ch > h ? h : ch;
    } else if (letterbox) {
        cw = (2 * rw * h + rh) / (2 * rh);
        cw = cw < 1 ? 1 : cw > w ? w : cw;
    }
    p->content_x = (int32_t)((w - cw) / 2);
    p->content_y = (int32_t)((h - ch) / 2);
    p->content_w = (int32_t)cw;
    p->content_h = (int32_t)ch;
    p->scale_x = (float)rw / (float)cw;
    p->scale_y = (float)rh / (float)ch;
}

vki_status vki_image_job_make(const char *call, const char *where, const vki_image *image,
                              const vki_image_transform *transform, int rank, const int *shape,
                              vki_image_job *job) {
    memset(job, 0, sizeof *job);
    if (!image) return bad(call, where, "image is NULL");
    if (!image->data) return bad(call, where, "image data is NULL");
    if ((unsigned)image->format > (unsigned)VKI_PIXEL_NV12)
        return bad(call, where, "unknown pixel format %d", (int)image->format);
    const vki_pixel_format f = image->format;
    const int w = image->width, h = image->height;
    if (w < 1 || h < 1 || w > VKI_IMAGE_MAX_SIDE || h > VKI_IMAGE_MAX_SIDE)
        return bad(call, where, "a %dx%d frame; each side must be 1 to %d", w, h, VKI_IMAGE_MAX_SIDE);
    if (rank != 4 || shape[0] != 1 || (shape[3] != 3 && shape[3] != 1)) {
        char dims[96];
        vki_format_dims(dims, sizeof dims, rank, shape);
        return bad(call, where, "the input is %s; a frame needs [1,H,W,3] (RGB) or [1,H,W,1] "
                   "(luma)", dims);
    }
    job->channels = shape[3];

    /* Planes. */
    const int bpp = bytes_per_pixel(f), min_row = w * bpp;
    if (image->row_stride < 0 || (image->row_stride && image->row_stride < min_row))
        return bad(call, where, "row_stride %d; a %s row of %d pixels needs at least %d bytes (0: "
                   "packed)", image->row_stride, format_name(f), w, min_row);
    job->row_stride = image->row_stride ? (size_t)image->row_stride : (size_t)min_row;
    if ((uint64_t)job->row_stride * (uint64_t)h > SIZE_MAX / 2)
        return bad(call, where, "row_stride %d times %d rows exceeds the address space",
                   image->row_stride, h);
    job->pixels = image->data;
    if (is_yuv(f)) {
        const int min_uv = 2 * ((w + 1) / 2);
        if (image->uv_row_stride < 0 || (image->uv_row_stride && image->uv_row_stride < min_uv))
            return bad(call, where, "uv_row_stride %d; a %s chroma row of a %d-pixel frame needs "
                       "at least %d bytes (0: row_stride)", image->uv_row_stride, format_name(f),
                       w, min_uv);
        job->uv_row_stride = image->uv_row_stride ? (size_t)image->uv_row_stride
                             : job->row_stride > (size_t)min_uv ? job->row_stride : (size_t)min_uv;
        if ((uint64_t)job->uv_row_stride * (uint64_t)((h + 1) / 2) > SIZE_MAX / 2)
            return bad(call, where, "uv_row_stride %d times %d rows exceeds the address space",
                       image->uv_row_stride, (h + 1) / 2);
        job->uv = image->uv ? image->uv : job->pixels + job->row_stride * (size_t)h;
    }

    /* The transform. */
    static const vki_image_transform defaults;
    const vki_image_transform *t = transform ? transform : &defaults;
    if (t->crop_x < 0 || t->crop_y < 0 || t->crop_x >= w || t->crop_y >= h)
        return bad(call, where, "crop origin (%d, %d) is outside the %dx%d frame", t->crop_x,
                   t->crop_y, w, h);
    if (t->crop_width < 0 || t->crop_height < 0)
        return bad(call, where, "crop size %dx%d is negative", t->crop_width, t->crop_height);
    const int cw = t->crop_width ? t->crop_width : w - t->crop_x;
    const int ch = t->crop_height ? t->crop_height : h - t->crop_y;
    if ((int64_t)t->crop_x + cw > w || (int64_t)t->crop_y + ch > h)
        return bad(call, where, "crop %dx%d at (%d, %d) reaches past the %dx%d frame", cw, ch,
                   t->crop_x, t->crop_y, w, h);
    if (t->rotation != 0 && t->rotation != 90 && t->rotation != 180 && t->rotation != 270)
        return bad(call, where, "rotation %d; need 0, 90, 180 or 270 (clockwise)", t->rotation);
    if (!isfinite(t->fill)) return bad(call, where, "fill %g is not finite", (double)t->fill);
    vki_image_params *p = &job->params;
    vki_status s = normalisation(call, where, t, job->channels, p);
    if (s) return s;

    job->crop_x = t->crop_x;
    job->crop_y = t->crop_y;
    p->format = (int32_t)f;
    p->crop_w = cw;
    p->crop_h = ch;
    p->row_bytes = cw * bpp;
    p->crop_x_odd = t->crop_x & 1;
    p->crop_y_odd = t->crop_y & 1;
    p->rotation = t->rotation / 90;
    p->mirror = t->mirror != 0;
    p->fill = t->fill;
    const int odd = p->rotation & 1;
    content(t->letterbox, odd ? ch : cw, odd ? cw : ch, shape[2], shape[1], p);
    size_t bytes = (size_t)p->row_bytes * (size_t)ch;
    if (is_yuv(f)) {
        int cols = ((t->crop_x + cw - 1) >> 1) - (t->crop_x >> 1) + 1;
        int rows = ((t->crop_y + ch - 1) >> 1) - (t->crop_y >> 1) + 1;
        p->uv_offset = (int32_t)align4(bytes);
        p->uv_row_bytes = 2 * cols;
        bytes = (size_t)p->uv_offset + (size_t)p->uv_row_bytes * (size_t)rows;
    }
    job->bytes = align4(bytes);
    return VKI_OK;
}

void vki_image_pack(const vki_image_job *j, void *dst) {
    const vki_image_params *p = &j->params;
    uint8_t *d = dst;
    const size_t row = (size_t)p->row_bytes, bpp = (size_t)bytes_per_pixel(p->format);
    size_t end = row * (size_t)p->crop_h;
    for (int b = 0; b < p->crop_h; b++)
        memcpy(d + (size_t)b * row, j->pixels + (size_t)(j->crop_y + b) * j->row_stride +
               (size_t)j->crop_x * bpp, row);
    if (is_yuv(p->format)) {
        memset(d + end, 0, (size_t)p->uv_offset - end);
        const size_t uv_row = (size_t)p->uv_row_bytes;
        const int rows = ((j->crop_y + p->crop_h - 1) >> 1) - (j->crop_y >> 1) + 1;
        for (int r = 0; r < rows; r++)
            memcpy(d + (size_t)p->uv_offset + (size_t)r * uv_row,
                   j->uv + (size_t)((j->crop_y >> 1) + r) * j->uv_row_stride +
                   (size_t)(j->crop_x >> 1) * 2, uv_row);
        end = (size_t)p->uv_offset + uv_row * (size_t)rows;
    }
    memset(d + end, 0, j->bytes - end);
}

/* ---- the reference ------------------------------------------------------------------- */

static float clamp255(float v) { return v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v; }

/* Crop pixel (a, b) as RGB, or as luma for a one-channel input. */
static void tap(const vki_image_job *j, int a, int b, float *v) {
    const vki_image_params *p = &j->params;
    const size_t x = (size_t)(j->crop_x + a), y = (size_t)(j->crop_y + b);
    if (!is_yuv(p->format)) {
        const uint8_t *px = j->pixels + y * j->row_stride + x * (size_t)bytes_per_pixel(p->format);
        float r = px[0], g = px[1], bl = px[2];
        if (j->channels == 1) v[0] = VKI_LUMA_R * r + VKI_LUMA_G * g + VKI_LUMA_B * bl;
        else v[0] = r, v[1] = g, v[2] = bl;
        return;
    }
    float luma = j->pixels[y * j->row_stride + x];
    if (j->channels == 1) { v[0] = luma; return; }
    const uint8_t *c = j->uv + (y >> 1) * j->uv_row_stride + (x >> 1) * 2;
    float cu = p->format == VKI_PIXEL_NV12 ? c[0] : c[1], cv = p->format == VKI_PIXEL_NV12 ? c[1] : c[0];
    float du = cu - 128.0f, dv = cv - 128.0f;
    v[0] = clamp255(luma + VKI_YUV_RV * dv);
    v[1] = clamp255(luma - VKI_YUV_GU * du - VKI_YUV_GV * dv);
    v[2] = clamp255(luma + VKI_YUV_BU * du);
}

/* Bilinear sample at content pixel (cx, cy): half-pixel centres, rotation and mirror
 * mapped back into the crop, coordinates clamped to it. */
static void sample(const vki_image_job *j, int cx, int cy, float *v) {
    const vki_image_params *p = &j->params;
    const int rw = p->rotation & 1 ? p->crop_h : p->crop_w;
    float u = ((float)cx + 0.5f) * p->scale_x - 0.5f;
    float w = ((float)cy + 0.5f) * p->scale_y - 0.5f;
    if (p->mirror) u = (float)(rw - 1) - u;
    float a, b;
    switch (p->rotation) {
    case 1: a = w, b = (float)(p->crop_h - 1) - u; break;
    case 2: a = (float)(p->crop_w - 1) - u, b = (float)(p->crop_h - 1) - w; break;
    case 3: a = (float)(p->crop_w - 1) - w, b = u; break;
    default: a = u, b = w; break;
    }
    a = a < 0.0f ? 0.0f : a > (float)(p->crop_w - 1) ? (float)(p->crop_w - 1) : a;
    b = b < 0.0f ? 0.0f : b > (float)(p->crop_h - 1) ? (float)(p->crop_h - 1) : b;
    int a0 = (int)floorf(a), b0 = (int)floorf(b);
    int a1 = a0 + 1 < p->crop_w ? a0 + 1 : a0, b1 = b0 + 1 < p->crop_h ? b0 + 1 : b0;
    float fa = a - (float)a0, fb = b - (float)b0;
    float t00[3], t10[3], t01[3], t11[3];
    tap(j, a0, b0, t00);
    tap(j, a1, b0, t10);
    tap(j, a0, b1, t01);
    tap(j, a1, b1, t11);
    for (int c = 0; c < j->channels; c++) {
        float top = t00[c] + (t10[c] - t00[c]) * fa;
        float bottom = t01[c] + (t11[c] - t01[c]) * fa;
        v[c] = top + (bottom - top) * fb;
    }
}

void vki_image_job_reference(const vki_image_job *j, int height, int width, float *out) {
    const vki_image_params *p = &j->params;
    const int n = j->channels;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            float v[3] = {p->fill, p->fill, p->fill};
            int cx = x - p->content_x, cy = y - p->content_y;
            if (cx >= 0 && cy >= 0 && cx < p->content_w && cy < p->content_h) sample(j, cx, cy, v);
            for (int c = 0; c < n; c++)
                out[((size_t)y * (size_t)width + (size_t)x) * (size_t)n + (size_t)c] =
                    v[c] * p->norm_scale[c] + p->norm_bias[c];
        }
}

vki_status vki_image_reference(const vki_image *image, const vki_image_transform *transform,
                               int height, int width, int channels, float *out) {
    if (!out || height < 1 || width < 1)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_image_reference: output %dx%d%s", width,
                        height, out ? "" : " at NULL");
    const int shape[4] = {1, height, width, channels};
    vki_image_job job;
    vki_status s = vki_image_job_make("vki_image_reference", "reference", image, transform, 4,
                                      shape, &job);
    if (!s) vki_image_job_reference(&job, height, width, out);
    return s;
}
