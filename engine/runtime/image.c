/* image.c: the camera-frame stage without the device: checking a frame and its transform
 * against a graph input, the kernel's parameters (crop, rotation, mirror, letterbox, roi,
 * matrix, border, normalisation: one affine map from output pixels into the frame),
 * packing the frame's bytes for the kernel, the reference that computes what
 * glsl/image.comp writes, and the map between input and frame points
 * (vki_image_transform_to_frame / _from_frame). */
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

/* The output pixels the rotated crop (rw x rh) covers, and the scales onto it. */
static void content(int letterbox, int64_t rw, int64_t rh, int64_t w, int64_t h, vki_image_params *p,
                    float *scale_x, float *scale_y) {
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
    *scale_x = (float)rw / (float)cw;
    *scale_y = (float)rh / (float)ch;
}

/* One region coordinate of a crop as k + (l + sign * t), t = p * scale - 0.5 of the
 * content pixel centre p along output axis `axis` (0: x, 1: y). */
typedef struct crop_axis { int axis, sign; float l, k; } crop_axis;

/* c - e, for an e with k = 0: c + (-l + -sign * t), which rounds as c - (l + sign * t). */
static crop_axis crop_axis_from(float c, crop_axis e) {
    return (crop_axis){e.axis, -e.sign, -e.l, c};
}

static void crop_map(crop_axis e, float sx, float sy, float *m) {
    m[0] = e.axis == 0 ? (float)e.sign * sx : 0.0f;
    m[1] = e.axis == 1 ? (float)e.sign * sy : 0.0f;
    m[2] = (float)-e.sign * 0.5f;
    m[3] = e.l;
    m[4] = e.k;
}

static int any_nonzero(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] != 0.0f) return 1;
    return 0;
}

static int all_finite_within(const float *v, int n, double limit) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]) || fabs((double)v[i]) > limit) return 0;
    return 1;
}

#define VKI_IMAGE_MAX_COORD 1e6

/* The region of a frame of side `side` that taps at index coordinates lo .. hi read
 * (taps floor(i) and floor(i) + 1), a pixel wider on each side against rounding, clamped
 * to the frame; at least one pixel. */
static void region_span(double lo, double hi, int side, int *origin, int *size) {
    double a = floor(lo) - 1.0, b = floor(hi) + 2.0;
    a = a < 0.0 ? 0.0 : a > side - 1 ? side - 1 : a;
    b = b < 0.0 ? 0.0 : b > side - 1 ? side - 1 : b;
    *origin = (int)a;
    *size = (int)b - (int)a + 1;
}

vki_status vki_image_job_geometry(const char *call, const char *where,
                                  const vki_image_transform *transform, int w, int h, int out_w,
                                  int out_h, vki_image_job *job) {
    static const vki_image_transform defaults;
    const vki_image_transform *t = transform ? transform : &defaults;
    vki_image_params *p = &job->params;
    const float roi_v[5] = {t->roi.x_center, t->roi.y_center, t->roi.width, t->roi.height,
                            t->roi.rotation};
    const int has_roi = any_nonzero(roi_v, 5), has_matrix = any_nonzero(t->matrix, 6);
    const int has_crop = t->crop_x || t->crop_y || t->crop_width || t->crop_height;
    if (!isfinite(t->fill)) return bad(call, where, "fill %g is not finite", (double)t->fill);
    if (t->border != VKI_BORDER_ZERO && t->border != VKI_BORDER_REPLICATE)
        return bad(call, where, "border %d; need VKI_BORDER_ZERO (0) or VKI_BORDER_REPLICATE (1)",
                   (int)t->border);
    if (has_roi && has_matrix) return bad(call, where, "both roi and matrix are given; give one");
    if ((has_roi || has_matrix) && has_crop)
        return bad(call, where, "%s with crop (%d, %d) %dx%d; a %s replaces the crop, give one",
                   has_roi ? "roi" : "matrix", t->crop_x, t->crop_y, t->crop_width, t->crop_height,
                   has_roi ? "roi" : "matrix");
    if ((has_roi || has_matrix) && t->rotation)
        return bad(call, where, "%s with rotation %d; %s", has_roi ? "roi" : "matrix", t->rotation,
                   has_roi ? "give the angle as roi.rotation (radians)" : "the matrix holds it");
    if (has_matrix && t->letterbox)
        return bad(call, where, "matrix with letterbox; the matrix sets the whole map");
    p->fill = t->fill;
    p->zero_border = 0;

    if (!has_roi && !has_matrix) {
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
        job->region_x = t->crop_x;
        job->region_y = t->crop_y;
        p->region_w = cw;
        p->region_h = ch;
        p->bound_x0 = p->bound_y0 = 0;
        p->bound_x1 = cw - 1;
        p->bound_y1 = ch - 1;
        const int turns = t->rotation / 90, odd = turns & 1;
        float sx, sy;
        content(t->letterbox, odd ? ch : cw, odd ? cw : ch, out_w, out_h, p, &sx, &sy);
        /* The crop-only kernel: u = t_x, then (rw - 1) - u for a mirror, then the turn. */
        const int rw = odd ? ch : cw;
        crop_axis u = {0, 1, 0.0f, 0.0f}, v = {1, 1, 0.0f, 0.0f}, a, b;
        if (t->mirror) u = (crop_axis){0, -1, (float)(rw - 1), 0.0f};
        switch (turns) {
        case 1: a = v, b = crop_axis_from((float)(ch - 1), u); break;
        case 2: a = crop_axis_from((float)(cw - 1), u), b = crop_axis_from((float)(ch - 1), v); break;
        case 3: a = crop_axis_from((float)(cw - 1), v), b = u; break;
        default: a = u, b = v; break;
        }
        crop_map(a, sx, sy, p->map_x);
        crop_map(b, sx, sy, p->map_y);
    } else {
        /* The affine from input pixels to frame pixels, in double. */
        double m[6];
        if (has_roi) {
            if (!all_finite_within(roi_v, 4, VKI_IMAGE_MAX_COORD) || !isfinite(t->roi.rotation))
                return bad(call, where, "roi centre (%g, %g) size %gx%g rotation %g; each must be "
                           "finite, the centre and size at most %g", (double)roi_v[0],
                           (double)roi_v[1], (double)roi_v[2], (double)roi_v[3], (double)roi_v[4],
                           VKI_IMAGE_MAX_COORD);
            if (!(t->roi.width > 0.0f) || !(t->roi.height > 0.0f))
                return bad(call, where, "roi size %gx%g; width and height must be > 0 (all "
                           "fields 0: no roi)", (double)t->roi.width, (double)t->roi.height);
            double rw = t->roi.width, rh = t->roi.height;
            if (t->letterbox) {   /* MediaPipe's PadRoi: enlarge to the input's aspect */
                const double aspect = (double)out_h / (double)out_w;
                if (aspect > rh / rw) rh = rw * aspect;
                else rw = rh / aspect;
            }
            const double c = cos((double)t->roi.rotation), s = sin((double)t->roi.rotation);
            const double flip = t->mirror ? -1.0 : 1.0;
            /* (x / W - 0.5, y / H - 0.5) scaled to the roi, flipped, rotated, moved to its
             * centre: GetRotatedSubRectToRectTransformMatrix in frame pixels. */
            m[0] = c * rw * flip / out_w;
            m[1] = -s * rh / out_h;
            m[2] = t->roi.x_center - 0.5 * c * rw * flip + 0.5 * s * rh;
            m[3] = s * rw * flip / out_w;
            m[4] = c * rh / out_h;
            m[5] = t->roi.y_center - 0.5 * s * rw * flip - 0.5 * c * rh;
        } else {
            if (!all_finite_within(t->matrix, 6, VKI_IMAGE_MAX_COORD))
                return bad(call, where, "matrix {%g, %g, %g, %g, %g, %g}; each element must be "
                           "finite and at most %g in magnitude", (double)t->matrix[0],
                           (double)t->matrix[1], (double)t->matrix[2], (double)t->matrix[3],
                           (double)t->matrix[4], (double)t->matrix[5], VKI_IMAGE_MAX_COORD);
            for (int i = 0; i < 6; i++) m[i] = t->matrix[i];
            if (t->mirror) {   /* x -> W - x first */
                m[2] += m[0] * out_w;
                m[5] += m[3] * out_w;
                m[0] = -m[0];
                m[3] = -m[3];
            }
        }
        p->content_x = p->content_y = 0;
        p->content_w = out_w;
        p->content_h = out_h;
        /* What the taps read: the frame under the output's pixel centres. */
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (int k = 0; k < 4; k++) {
            const double x = k & 1 ? out_w - 0.5 : 0.5, y = k & 2 ? out_h - 0.5 : 0.5;
            for (int d = 0; d < 2; d++) {
                const double i = m[3 * d] * x + m[3 * d + 1] * y + m[3 * d + 2] - 0.5;
                lo[d] = i < lo[d] ? i : lo[d];
                hi[d] = i > hi[d] ? i : hi[d];
            }
        }
        region_span(lo[0], hi[0], w, &job->region_x, &p->region_w);
        region_span(lo[1], hi[1], h, &job->region_y, &p->region_h);
        p->bound_x0 = -job->region_x;
        p->bound_y0 = -job->region_y;
        p->bound_x1 = w - 1 - job->region_x;
        p->bound_y1 = h - 1 - job->region_y;
        p->zero_border = t->border == VKI_BORDER_ZERO;
        /* Region coordinates: frame pixels less the region's origin and the half pixel. */
        const float map[10] = {(float)m[0], (float)m[1], (float)(m[2] - 0.5 - job->region_x), 0.0f,
                               0.0f, (float)m[3], (float)m[4],
                               (float)(m[5] - 0.5 - job->region_y), 0.0f, 0.0f};
        memcpy(p->map_x, map, sizeof p->map_x);
        memcpy(p->map_y, map + 5, sizeof p->map_y);
    }
    /* What the kernel's parameters map, in input pixels to frame pixels. */
    const float *maps[2] = {p->map_x, p->map_y};
    const int origin[2] = {job->region_x, job->region_y};
    for (int d = 0; d < 2; d++) {
        const float *mm = maps[d];
        job->to_frame[3 * d] = mm[0];
        job->to_frame[3 * d + 1] = mm[1];
        job->to_frame[3 * d + 2] = (double)mm[2] + mm[3] + mm[4] + origin[d] + 0.5 -
                                   (double)mm[0] * p->content_x - (double)mm[1] * p->content_y;
    }
    return VKI_OK;
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
    vki_status s = vki_image_job_geometry(call, where, transform, w, h, shape[2], shape[1], job);
    static const vki_image_transform defaults;
    vki_image_params *p = &job->params;
    if (!s) s = normalisation(call, where, transform ? transform : &defaults, job->channels, p);
    if (s) return s;

    p->format = (int32_t)f;
    const int rx = job->region_x, ry = job->region_y, rw = p->region_w, rh = p->region_h;
    p->row_bytes = rw * bpp;
    p->region_x_odd = rx & 1;
    p->region_y_odd = ry & 1;
    size_t bytes = (size_t)p->row_bytes * (size_t)rh;
    if (is_yuv(f)) {
        int cols = ((rx + rw - 1) >> 1) - (rx >> 1) + 1;
        int rows = ((ry + rh - 1) >> 1) - (ry >> 1) + 1;
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
    size_t end = row * (size_t)p->region_h;
    for (int b = 0; b < p->region_h; b++)
        memcpy(d + (size_t)b * row, j->pixels + (size_t)(j->region_y + b) * j->row_stride +
               (size_t)j->region_x * bpp, row);
    if (is_yuv(p->format)) {
        memset(d + end, 0, (size_t)p->uv_offset - end);
        const size_t uv_row = (size_t)p->uv_row_bytes;
        const int rows = ((j->region_y + p->region_h - 1) >> 1) - (j->region_y >> 1) + 1;
        for (int r = 0; r < rows; r++)
            memcpy(d + (size_t)p->uv_offset + (size_t)r * uv_row,
                   j->uv + (size_t)((j->region_y >> 1) + r) * j->uv_row_stride +
                   (size_t)(j->region_x >> 1) * 2, uv_row);
        end = (size_t)p->uv_offset + uv_row * (size_t)rows;
    }
    memset(d + end, 0, j->bytes - end);
}

/* ---- the reference ------------------------------------------------------------------- */

static float clamp255(float v) { return v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v; }

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Region pixel (a, b) as RGB, or as luma for a one-channel input; outside the bounds,
 * black or the nearest pixel inside. */
static void tap(const vki_image_job *j, int a, int b, float *v) {
    const vki_image_params *p = &j->params;
    if (a < p->bound_x0 || a > p->bound_x1 || b < p->bound_y0 || b > p->bound_y1) {
        if (p->zero_border) {
            v[0] = v[1] = v[2] = 0.0f;
            return;
        }
        a = clampi(a, p->bound_x0, p->bound_x1);
        b = clampi(b, p->bound_y0, p->bound_y1);
    }
    a = clampi(a, 0, p->region_w - 1);
    b = clampi(b, 0, p->region_h - 1);
    const size_t x = (size_t)(j->region_x + a), y = (size_t)(j->region_y + b);
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

/* One region coordinate of content pixel centre (px, py), in the kernel's order. */
static float map_at(const float *m, float px, float py) {
    return m[4] + (m[3] + ((m[0] * px + m[1] * py) + m[2]));
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Bilinear sample at content pixel (cx, cy): the map into the region, four taps. The
 * coordinates are clamped to 2 pixels past the bounds, where every tap is a border tap
 * (so the sample is too), to keep them in int range. */
static void sample(const vki_image_job *j, int cx, int cy, float *v) {
    const vki_image_params *p = &j->params;
    const float px = (float)cx + 0.5f, py = (float)cy + 0.5f;
    float a = map_at(p->map_x, px, py), b = map_at(p->map_y, px, py);
    a = clampf(a, (float)(p->bound_x0 - 2), (float)(p->bound_x1 + 2));
    b = clampf(b, (float)(p->bound_y0 - 2), (float)(p->bound_y1 + 2));
    int a0 = (int)floorf(a), b0 = (int)floorf(b);
    float fa = a - (float)a0, fb = b - (float)b0;
    float t00[3], t10[3], t01[3], t11[3];
    tap(j, a0, b0, t00);
    tap(j, a0 + 1, b0, t10);
    tap(j, a0, b0 + 1, t01);
    tap(j, a0 + 1, b0 + 1, t11);
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

/* ---- input <-> frame points ---------------------------------------------------------- */

static vki_status point_map(const char *call, const vki_image_transform *transform, int frame_w,
                            int frame_h, int input_w, int input_h, float x, float y, float *out_x,
                            float *out_y, vki_image_job *job) {
    if (out_x) *out_x = 0.0f;
    if (out_y) *out_y = 0.0f;
    if (!out_x || !out_y)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", call,
                        !out_x ? (strstr(call, "to_frame") ? "frame_x" : "input_x")
                               : (strstr(call, "to_frame") ? "frame_y" : "input_y"));
    if (frame_w < 1 || frame_h < 1 || frame_w > VKI_IMAGE_MAX_SIDE || frame_h > VKI_IMAGE_MAX_SIDE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: frame %dx%d; each side must be 1 to %d",
                        call, frame_w, frame_h, VKI_IMAGE_MAX_SIDE);
    if (input_w < 1 || input_h < 1 || input_w > VKI_IMAGE_MAX_SIDE || input_h > VKI_IMAGE_MAX_SIDE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: input %dx%d; each side must be 1 to %d",
                        call, input_w, input_h, VKI_IMAGE_MAX_SIDE);
    if (!isfinite(x) || !isfinite(y))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: point (%g, %g) is not finite", call,
                        (double)x, (double)y);
    memset(job, 0, sizeof *job);
    return vki_image_job_geometry(call, "transform", transform, frame_w, frame_h, input_w, input_h,
                                  job);
}

vki_status vki_image_transform_to_frame(const vki_image_transform *transform, int frame_width,
                                        int frame_height, int input_width, int input_height,
                                        float input_x, float input_y, float *frame_x,
                                        float *frame_y) {
    vki_image_job job;
    vki_status s = point_map("vki_image_transform_to_frame", transform, frame_width, frame_height,
                             input_width, input_height, input_x, input_y, frame_x, frame_y, &job);
    if (s) return s;
    const double *m = job.to_frame;
    *frame_x = (float)(m[0] * input_x + m[1] * input_y + m[2]);
    *frame_y = (float)(m[3] * input_x + m[4] * input_y + m[5]);
    return VKI_OK;
}

vki_status vki_image_transform_from_frame(const vki_image_transform *transform, int frame_width,
                                          int frame_height, int input_width, int input_height,
                                          float frame_x, float frame_y, float *input_x,
                                          float *input_y) {
    static const char call[] = "vki_image_transform_from_frame";
    vki_image_job job;
    vki_status s = point_map(call, transform, frame_width, frame_height, input_width, input_height,
                             frame_x, frame_y, input_x, input_y, &job);
    if (s) return s;
    const double *m = job.to_frame;
    const double det = m[0] * m[4] - m[1] * m[3];
    const double size = fmax(fabs(m[0] * m[4]), fabs(m[1] * m[3]));
    if (!(fabs(det) > 1e-12 * size))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: transform: the map {%g, %g, %g, %g} takes "
                        "the input onto a line or a point; it has no inverse", call, m[0], m[1],
                        m[3], m[4]);
    const double dx = frame_x - m[2], dy = frame_y - m[5];
    *input_x = (float)((m[4] * dx - m[1] * dy) / det);
    *input_y = (float)((m[0] * dy - m[3] * dx) / det);
    return VKI_OK;
}
