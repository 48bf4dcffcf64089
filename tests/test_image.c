/* test_image.c: camera frames into graph inputs (vki_graph_set_input_image) and zero-copy
 * I/O. The image kernel is compared element by element with the plain C reference
 * (engine/runtime/image.c) through models whose output is their input (a MUL by 1, one real
 * dispatch after the kernel), on odd sizes, padded strides, every format, rotation and
 * mirror, crops, letterbox and normalisations, rotated rois at every angle class and
 * matrices with both borders, in fp32, fp16 and fp16 storage; the reference itself is
 * pinned to hand-computed values and to a direct computation of MediaPipe's rotated crop;
 * vki_image_transform_to_frame maps input pixels to where the frame holds what the kernel
 * wrote; a real model fed a frame gives what it gives fed the reference's floats; bad
 * arguments fail with a message. */
#include "harness.h"
#include "image.h"
#include "../tuner/stats.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FP32_TOL 1e-5
#define FP16_TOL 1e-3

/* ---- frames ---------------------------------------------------------------------------- */

typedef struct frame {
    vki_image img;
    uint8_t *data, *uv;          /* owned */
} frame;

static const char *const format_names[] = {"RGBA", "RGB", "NV21", "NV12"};

static int bpp_of(vki_pixel_format f) {
    return f == VKI_PIXEL_RGBA8888 ? 4 : f == VKI_PIXEL_RGB888 ? 3 : 1;
}

/* A frame of random bytes. pad > 0 adds pad bytes to every row; separate_uv puts an NV
 * frame's chroma in a buffer of its own with its own stride (else right after Y). */
static frame make_frame(vki_pixel_format f, int w, int h, int pad, int separate_uv, uint32_t seed) {
    frame fr = {.img = {.format = f, .width = w, .height = h}};
    size_t row = (size_t)(w * bpp_of(f) + pad);
    fr.img.row_stride = pad ? (int)row : 0;
    size_t bytes = row * (size_t)h, uv_bytes = 0;
    int is_yuv = f == VKI_PIXEL_NV21 || f == VKI_PIXEL_NV12;
    size_t uv_min = 2 * (size_t)((w + 1) / 2), uv_rows = (size_t)((h + 1) / 2);
    if (is_yuv && separate_uv) {
        fr.img.uv_row_stride = (int)(uv_min + 3);
        uv_bytes = (uv_min + 3) * uv_rows;
    } else if (is_yuv) {
        bytes += (row > uv_min ? row : uv_min) * uv_rows;
    }
    fr.data = malloc(bytes);
    cr_assert(fr.data);
    uint32_t state = seed ? seed : 1u;
    for (size_t i = 0; i < bytes; i++) fr.data[i] = (uint8_t)(vki_xorshift32(&state) >> 24);
    if (uv_bytes) {
        fr.uv = malloc(uv_bytes);
        cr_assert(fr.uv);
        for (size_t i = 0; i < uv_bytes; i++) fr.uv[i] = (uint8_t)(vki_xorshift32(&state) >> 24);
    }
    fr.img.data = fr.data;
    fr.img.uv = fr.uv;
    return fr;
}

static void free_frame(frame *fr) {
    free(fr->data);
    free(fr->uv);
}

/* ---- graphs whose output is their input ------------------------------------------------ */

static vki_model *identity_model(int h, int w, int c) {
    char name[64];
    snprintf(name, sizeof name, "identity_%dx%dx%d", h, w, c);
    vki_model *m = vki_model_new(name);
    int in = harness_tensor(m, h, w, c), out = harness_tensor(m, h, w, c);
    harness_binary(m, VKI_OP_MUL, in, harness_scalar(m, 1.0f), out);
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

/* Runs an identity graph whose input holds `in` (bytes long) and expects it back exactly. */
static void expect_identity_run(vki_graph *g, const float *in, size_t bytes, const char *what) {
    float *out = malloc(bytes);
    cr_assert_not_null(out);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s: %s", what, vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, bytes), VKI_OK, "%s", what);
    cr_assert_eq(memcmp(in, out, bytes), 0, "%s", what);
    free(out);
}

static const vki_precision precisions[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                           VKI_PRECISION_FP16_STORAGE};

/* NULL where the device cannot store fp16. */
static vki_graph *make_graph(const vki_model *m, int p, int profile) {
    vki_device_info dev;
    vki_context_device_info(harness_context(), &dev);
    if (p > 0 && !dev.fp16_storage) return NULL;
    vki_graph_options o = {.precision = precisions[p], .debug_guards = 1, .profile = profile};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &o, &g), VKI_OK, "%s", vki_last_error());
    return g;
}

/* Feeds the frame, runs, and compares every element with the reference; returns the error. */
static double check_frame(vki_graph *g, int p, int h, int w, int c, const vki_image *img,
                          const vki_image_transform *t, const char *label) {
    size_t n = (size_t)h * (size_t)w * (size_t)c;
    float *got = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
    cr_assert(got && want);
    cr_assert_eq(vki_image_reference(img, t, h, w, c, want), VKI_OK, "%s: %s", label, vki_last_error());
    cr_assert_eq(vki_graph_set_input_image(g, 0, img, t), VKI_OK, "%s: %s", label, vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s: %s", label, vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, got, n * sizeof(float)), VKI_OK);
    size_t at = 0;
    double err = vki_relative_error(got, want, n, &at), tol = p ? FP16_TOL : FP32_TOL;
    cr_assert(err <= tol, "%s %s: error %g > %g at element %zu (y %zu x %zu c %zu): gpu %.9g, "
              "reference %.9g", harness_precision_name(p), label, err, tol, at, at / c / (size_t)w,
              at / c % (size_t)w, at % (size_t)c, (double)got[at], (double)want[at]);
    free(got);
    free(want);
    return err;
}

/* ---- the reference, by hand ------------------------------------------------------------ */

static float ref1(const vki_image *img, const vki_image_transform *t, int h, int w, int c,
                  float *out) {
    cr_assert_eq(vki_image_reference(img, t, h, w, c, out), VKI_OK, "%s", vki_last_error());
    return out[0];
}

/* A 3x2 RGB frame whose red channel reads A..F: rotations and mirror permute it. */
Test(image_reference, rotation_and_mirror_permute_pixels) {
    enum { A = 10, B = 20, C = 30, D = 40, E = 50, F = 60 };
    const uint8_t red[6] = {A, B, C, D, E, F};
    uint8_t px[18];
    for (int i = 0; i < 6; i++) px[3 * i] = red[i], px[3 * i + 1] = 7, px[3 * i + 2] = 9;
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = 3, .height = 2, .data = px};
    static const struct { int rotation, mirror, h, w; uint8_t want[6]; } cases[] = {
        {0, 0, 2, 3, {A, B, C, D, E, F}},
        {0, 1, 2, 3, {C, B, A, F, E, D}},
        {90, 0, 3, 2, {D, A, E, B, F, C}},
        {90, 1, 3, 2, {A, D, B, E, C, F}},
        {180, 0, 2, 3, {F, E, D, C, B, A}},
        {180, 1, 2, 3, {D, E, F, A, B, C}},
        {270, 0, 3, 2, {C, F, B, E, A, D}},
        {270, 1, 3, 2, {F, C, E, B, D, A}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        vki_image_transform t = {.rotation = cases[k].rotation, .mirror = cases[k].mirror,
                                 .std = {1, 1, 1}};
        float out[18];
        ref1(&img, &t, cases[k].h, cases[k].w, 3, out);
        for (int i = 0; i < 6; i++) {
            cr_assert_eq(out[3 * i], (float)cases[k].want[i], "rotation %d mirror %d pixel %d: %g, "
                         "want %d", cases[k].rotation, cases[k].mirror, i, (double)out[3 * i],
                         cases[k].want[i]);
            cr_assert_eq(out[3 * i + 1], 7.0f);
            cr_assert_eq(out[3 * i + 2], 9.0f);
        }
    }
}

Test(image_reference, bilinear_has_half_pixel_centres_and_repeats_edges) {
    /* 4x4 -> 2x2: each output is the mean of a 2x2 block. */
    uint8_t px[16 * 4];
    for (int i = 0; i < 16; i++) px[4 * i] = px[4 * i + 1] = px[4 * i + 2] = (uint8_t)(i * 16), px[4 * i + 3] = 255;
    vki_image img = {.format = VKI_PIXEL_RGBA8888, .width = 4, .height = 4, .data = px};
    vki_image_transform t = {.std = {1, 1, 1}};
    float out[12];
    ref1(&img, &t, 2, 2, 3, out);
    const float want[4] = {(0 + 1 + 4 + 5) * 4.0f, (2 + 3 + 6 + 7) * 4.0f, (8 + 9 + 12 + 13) * 4.0f,
                           (10 + 11 + 14 + 15) * 4.0f};
    for (int i = 0; i < 4; i++) cr_assert_float_eq(out[3 * i], want[i], 1e-4, "pixel %d", i);
    /* 2x1 -> 4x1: source x = (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, clamped. */
    uint8_t two[6] = {100, 0, 0, 200, 0, 0};
    img = (vki_image){.format = VKI_PIXEL_RGB888, .width = 2, .height = 1, .data = two};
    float wide[12];
    ref1(&img, &t, 1, 4, 3, wide);
    const float want_wide[4] = {100, 125, 175, 200};
    for (int i = 0; i < 4; i++) cr_assert_float_eq(wide[3 * i], want_wide[i], 1e-4, "pixel %d", i);
}

Test(image_reference, yuv_is_bt601_full_range) {
    /* 2x2 frame, one chroma pair: Y 100, U 178, V 108. */
    uint8_t nv21[6] = {100, 100, 100, 100, 108, 178}, nv12[6] = {100, 100, 100, 100, 178, 108};
    vki_image_transform t = {.std = {1, 1, 1}};
    float a[12], b[12];
    vki_image img = {.format = VKI_PIXEL_NV21, .width = 2, .height = 2, .data = nv21};
    ref1(&img, &t, 2, 2, 3, a);
    img = (vki_image){.format = VKI_PIXEL_NV12, .width = 2, .height = 2, .data = nv12};
    ref1(&img, &t, 2, 2, 3, b);
    const double r = 100 + 1.402 * -20, g = 100 - 0.344136 * 50 - 0.714136 * -20, bl = 100 + 1.772 * 50;
    for (int i = 0; i < 4; i++) {
        cr_assert_float_eq(a[3 * i], r, 1e-3);
        cr_assert_float_eq(a[3 * i + 1], g, 1e-3);
        cr_assert_float_eq(a[3 * i + 2], bl, 1e-3);
    }
    cr_assert_eq(memcmp(a, b, sizeof a), 0, "NV12 is NV21 with U and V swapped");
    /* Grey chroma leaves Y; a luma input reads Y alone; values clamp to 0..255. */
    uint8_t grey[6] = {0, 77, 200, 255, 128, 128}, sat[6] = {250, 250, 250, 250, 255, 255};
    img = (vki_image){.format = VKI_PIXEL_NV21, .width = 2, .height = 2, .data = grey};
    ref1(&img, &t, 2, 2, 3, a);
    for (int i = 0; i < 12; i++) cr_assert_eq(a[i], (float)grey[i / 3]);
    ref1(&img, &t, 2, 2, 1, a);
    for (int i = 0; i < 4; i++) cr_assert_eq(a[i], (float)grey[i]);
    img.data = sat;
    ref1(&img, &t, 2, 2, 3, a);
    cr_assert_eq(a[0], 255.0f);
    cr_assert_eq(a[2], 255.0f);
}

Test(image_reference, crop_letterbox_and_normalisation) {
    uint8_t px[5 * 3 * 3];
    for (int i = 0; i < 45; i++) px[i] = (uint8_t)(3 * i);
    vki_image img = {.format = VKI_PIXEL_RGB888, .width = 5, .height = 3, .data = px};
    /* Crop the centre pixel (1 wide, from (2,1)); default normalisation is pixel / 255. */
    vki_image_transform t = {.crop_x = 2, .crop_y = 1, .crop_width = 1, .crop_height = 1};
    float out[4 * 4 * 3];
    ref1(&img, &t, 1, 1, 3, out);
    for (int c = 0; c < 3; c++) cr_assert_float_eq(out[c], px[(5 + 2) * 3 + c] / 255.0f, 1e-7);
    /* mean / std per channel. */
    t = (vki_image_transform){.crop_x = 2, .crop_y = 1, .crop_width = 1, .crop_height = 1,
                              .mean = {10, 20, 30}, .std = {2, 4, 8}};
    ref1(&img, &t, 1, 1, 3, out);
    for (int c = 0; c < 3; c++)
        cr_assert_float_eq(out[c], (px[21 + c] - t.mean[c]) / t.std[c], 1e-5);
    /* A 4x2 crop letterboxed into 4x4: rows 0 and 3 are the fill, rows 1-2 the crop. */
    t = (vki_image_transform){.crop_width = 4, .crop_height = 2, .letterbox = 1, .fill = 114,
                              .std = {1, 1, 1}};
    ref1(&img, &t, 4, 4, 3, out);
    for (int x = 0; x < 4; x++)
        for (int c = 0; c < 3; c++) {
            cr_assert_eq(out[(0 * 4 + x) * 3 + c], 114.0f);
            cr_assert_eq(out[(3 * 4 + x) * 3 + c], 114.0f);
            cr_assert_eq(out[(1 * 4 + x) * 3 + c], (float)px[(0 * 5 + x) * 3 + c]);
            cr_assert_eq(out[(2 * 4 + x) * 3 + c], (float)px[(1 * 5 + x) * 3 + c]);
        }
    /* Rotated by 90 the crop is 2 wide and 4 high: columns 0 and 3 are the fill. */
    t.rotation = 90;
    ref1(&img, &t, 4, 4, 3, out);
    for (int y = 0; y < 4; y++) {
        cr_assert_eq(out[(y * 4 + 0) * 3], 114.0f);
        cr_assert_eq(out[(y * 4 + 3) * 3], 114.0f);
        cr_assert_eq(out[(y * 4 + 1) * 3], (float)px[(1 * 5 + y) * 3]);
        cr_assert_eq(out[(y * 4 + 2) * 3], (float)px[(0 * 5 + y) * 3]);
    }
}

/* ---- rotated regions of interest, by hand ---------------------------------------------- */

/* A smooth RGB frame: bilinear samples of it move little with a coordinate's last bits. */
static uint8_t *smooth_rgb(int w, int h) {
    uint8_t *px = malloc((size_t)w * (size_t)h * 3);
    cr_assert(px);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = px + ((size_t)y * (size_t)w + (size_t)x) * 3;
            p[0] = (uint8_t)(20 + 4 * x + y);
            p[1] = (uint8_t)(200 - 3 * y);
            p[2] = (uint8_t)(60 + 2 * x + 2 * y);
        }
    return px;
}

/* The bilinear sample of an RGB888 frame at frame point (fx, fy), pixel centres at +0.5,
 * written out directly in double: taps outside the frame are black or the nearest edge
 * pixel. */
static void direct_sample(const uint8_t *px, int w, int h, double fx, double fy, int replicate,
                          double *out) {
    const double i = fx - 0.5, j = fy - 0.5;
    const int i0 = (int)floor(i), j0 = (int)floor(j);
    const double fi = i - i0, fj = j - j0;
    for (int c = 0; c < 3; c++) out[c] = 0.0;
    for (int k = 0; k < 4; k++) {
        int ti = i0 + (k & 1), tj = j0 + (k >> 1);
        const double weight = ((k & 1) ? fi : 1.0 - fi) * ((k >> 1) ? fj : 1.0 - fj);
        if (ti < 0 || tj < 0 || ti >= w || tj >= h) {
            if (!replicate) continue;
            ti = ti < 0 ? 0 : ti >= w ? w - 1 : ti;
            tj = tj < 0 ? 0 : tj >= h ? h - 1 : tj;
        }
        for (int c = 0; c < 3; c++) out[c] += weight * px[((size_t)tj * (size_t)w + (size_t)ti) * 3 + c];
    }
}

/* MediaPipe's map (GetRotatedSubRectToRectTransformMatrix in frame pixels), by hand. */
static void roi_point(const vki_rect *r, int w, int h, double x, double y, double *fx, double *fy) {
    const double nx = (x / w - 0.5) * r->width, ny = (y / h - 0.5) * r->height;
    const double c = cos(r->rotation), s = sin(r->rotation);
    *fx = r->x_center + c * nx - s * ny;
    *fy = r->y_center + s * nx + c * ny;
}

static const float roi_angles[] = {0.0f, 0.3f, 1.5707964f, 2.3561945f, 3.1415927f, -1.7453293f,
                                   -0.7f, 4.0f};

/* Every input pixel of a roi, against the direct computation. */
Test(image_reference, roi_is_mediapipes_rotated_crop) {
    const int fw = 23, fh = 17, ow = 9, oh = 7;
    uint8_t *px = smooth_rgb(fw, fh);
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = fw, .height = fh, .data = px};
    float out[7 * 9 * 3];
    double worst = 0;
    for (size_t k = 0; k < sizeof roi_angles / sizeof roi_angles[0]; k++)
        for (int border = 0; border < 2; border++)
            for (int inside = 0; inside < 2; inside++) {
                /* Inside the frame, or over its top-left corner. */
                vki_image_transform t = {.std = {1, 1, 1}, .border = (vki_border)border,
                                         .roi = {inside ? 11.5f : 3.0f, inside ? 8.25f : 2.0f, 12.5f,
                                                 9.0f, roi_angles[k]}};
                ref1(&img, &t, oh, ow, 3, out);
                for (int y = 0; y < oh; y++)
                    for (int x = 0; x < ow; x++) {
                        double fx, fy, want[3];
                        roi_point(&t.roi, ow, oh, x + 0.5, y + 0.5, &fx, &fy);
                        direct_sample(px, fw, fh, fx, fy, border, want);
                        for (int c = 0; c < 3; c++) {
                            const double e = fabs(out[(y * ow + x) * 3 + c] - want[c]);
                            worst = e > worst ? e : worst;
                            cr_assert(e < 5e-3, "angle %g border %d inside %d pixel (%d, %d) c %d: %.6g, "
                                      "direct %.6g", (double)roi_angles[k], border, inside, x, y, c,
                                      (double)out[(y * ow + x) * 3 + c], want[c]);
                        }
                    }
            }
    cr_log_info("roi against the direct computation: worst %.3g of 255", worst);
    free(px);
}

/* A roi with rotation 0 on whole pixels is a crop; with -pi/2 over the whole frame, width
 * and height swapped, it is rotation 90; 180 degrees is rotation 180; a zero border
 * normalises like black; mirror flips; letterbox is PadRoi; a matrix is its roi. */
Test(image_reference, roi_matches_crops_and_quarter_turns) {
    const int fw = 12, fh = 8;
    uint8_t *px = smooth_rgb(fw, fh);
    for (int i = 0; i < fw * fh * 3; i++) px[i] = (uint8_t)(px[i] ^ (i * 37));   /* not smooth */
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = fw, .height = fh, .data = px};
    float a[12 * 12 * 3], b[12 * 12 * 3];
    /* Crop (2, 1) 8x6 onto 4x3 (scale 2: samples between pixels, inside the crop). */
    vki_image_transform crop = {.crop_x = 2, .crop_y = 1, .crop_width = 8, .crop_height = 6,
                                .std = {1, 1, 1}};
    vki_image_transform roi = {.roi = {6.0f, 4.0f, 8.0f, 6.0f, 0.0f}, .std = {1, 1, 1}};
    ref1(&img, &crop, 3, 4, 3, a);
    ref1(&img, &roi, 3, 4, 3, b);
    for (int i = 0; i < 36; i++) cr_assert_float_eq(a[i], b[i], 1e-4, "crop element %d", i);
    /* Rotation 90 of the whole frame onto 8x12 (scale 1) and 4x6 (scale 2). */
    static const int sizes[][2] = {{12, 8}, {6, 4}};
    for (int s = 0; s < 2; s++) {
        const int oh = sizes[s][0], ow = sizes[s][1], n = oh * ow * 3;
        vki_image_transform turn = {.rotation = 90, .std = {1, 1, 1}};
        roi = (vki_image_transform){.roi = {6.0f, 4.0f, 8.0f, 12.0f, -1.5707964f}, .std = {1, 1, 1}};
        ref1(&img, &turn, oh, ow, 3, a);
        ref1(&img, &roi, oh, ow, 3, b);
        for (int i = 0; i < n; i++) cr_assert_float_eq(a[i], b[i], 1e-2, "90: %dx%d element %d", ow, oh, i);
        turn.rotation = 180;
        roi.roi = (vki_rect){6.0f, 4.0f, 12.0f, 8.0f, 3.1415927f};
        const int oh2 = sizes[s][1], ow2 = sizes[s][0], n2 = oh2 * ow2 * 3;
        ref1(&img, &turn, oh2, ow2, 3, a);
        ref1(&img, &roi, oh2, ow2, 3, b);
        for (int i = 0; i < n2; i++) cr_assert_float_eq(a[i], b[i], 1e-2, "180: %dx%d element %d", ow2, oh2, i);
        /* mirror: column x of the mirrored input is column W-1-x. */
        roi.mirror = 1;
        ref1(&img, &roi, oh2, ow2, 3, a);
        for (int y = 0; y < oh2; y++)
            for (int x = 0; x < ow2; x++)
                for (int c = 0; c < 3; c++)
                    cr_assert_float_eq(a[(y * ow2 + x) * 3 + c], b[(y * ow2 + ow2 - 1 - x) * 3 + c], 1e-2);
    }
    /* Wholly outside the frame: black, normalised to -1 by mean 127.5 std 127.5; with
     * REPLICATE the nearest corner pixel. */
    roi = (vki_image_transform){.roi = {-50.0f, -40.0f, 6.0f, 6.0f, 0.4f},
                                .mean = {127.5f, 127.5f, 127.5f}, .std = {127.5f, 127.5f, 127.5f}};
    ref1(&img, &roi, 3, 3, 3, a);
    for (int i = 0; i < 27; i++) cr_assert_eq(a[i], -1.0f, "zero border element %d: %g", i, (double)a[i]);
    roi.border = VKI_BORDER_REPLICATE;
    ref1(&img, &roi, 3, 3, 3, a);
    for (int i = 0; i < 27; i++) cr_assert_float_eq(a[i], px[i % 3] / 127.5f - 1.0f, 1e-6);
    /* letterbox: a 4x8 roi into a 6x6 input is the 8x8 roi (PadRoi), fill unused. */
    roi = (vki_image_transform){.roi = {6.0f, 4.0f, 4.0f, 8.0f, 0.5f}, .letterbox = 1, .fill = 99,
                                .std = {1, 1, 1}};
    vki_image_transform padded = {.roi = {6.0f, 4.0f, 8.0f, 8.0f, 0.5f}, .std = {1, 1, 1}};
    ref1(&img, &roi, 6, 6, 3, a);
    ref1(&img, &padded, 6, 6, 3, b);
    cr_assert_eq(memcmp(a, b, 6 * 6 * 3 * sizeof(float)), 0, "letterbox roi is the padded roi");
    /* A matrix is the same map. */
    const vki_rect r = {5.5f, 3.0f, 7.0f, 5.0f, 0.9f};
    double x0, y0, x1, y1, x2, y2;
    roi_point(&r, 5, 4, 0, 0, &x0, &y0);
    roi_point(&r, 5, 4, 1, 0, &x1, &y1);
    roi_point(&r, 5, 4, 0, 1, &x2, &y2);
    roi = (vki_image_transform){.roi = r, .std = {1, 1, 1}};
    vki_image_transform mat = {.matrix = {(float)(x1 - x0), (float)(x2 - x0), (float)x0,
                                          (float)(y1 - y0), (float)(y2 - y0), (float)y0},
                               .std = {1, 1, 1}};
    ref1(&img, &roi, 4, 5, 3, a);
    ref1(&img, &mat, 4, 5, 3, b);
    for (int i = 0; i < 60; i++) cr_assert_float_eq(a[i], b[i], 1e-2, "matrix element %d", i);
    free(px);
}

/* ---- the kernel against the reference -------------------------------------------------- */

typedef struct out_shape { int h, w; } out_shape;
typedef struct frame_size { int w, h, pad; } frame_size;

static const frame_size frame_sizes[] = {{5, 3, 0}, {37, 23, 7}, {64, 48, 0}};

/* Crops for a w x h frame: the whole frame, an interior one at odd offsets, one reaching
 * the edges by size 0. */
static vki_image_transform crop_of(int k, int w, int h) {
    vki_image_transform t = {0};
    if (k == 1) {
        t.crop_x = w > 4 ? 3 : 1;
        t.crop_y = 1;
        t.crop_width = w - t.crop_x - (w > 4 ? 2 : 1);
        t.crop_height = h - 2 > 0 ? h - 2 : 1;
    } else if (k == 2) {
        t.crop_x = w / 3;
        t.crop_y = h / 2;
    }
    return t;
}

static void normalise(vki_image_transform *t, int k) {
    static const float imagenet_mean[3] = {123.675f, 116.28f, 103.53f};
    static const float imagenet_std[3] = {58.395f, 57.12f, 57.375f};
    for (int c = 0; c < 3; c++) {
        t->mean[c] = k == 1 ? 127.5f : k == 2 ? imagenet_mean[c] : 0.0f;
        t->std[c] = k == 1 ? 127.5f : k == 2 ? imagenet_std[c] : 0.0f;
    }
}

/* Every format, frame size, rotation and mirror onto each output shape; crops,
 * normalisations and letterbox cycle through the combinations. */
static void sweep(int p, const out_shape *shapes, int n_shapes, int channels) {
    int runs = 0;
    double worst = 0;
    for (int s = 0; s < n_shapes; s++) {
        vki_model *m = identity_model(shapes[s].h, shapes[s].w, channels);
        vki_graph *g = make_graph(m, p, 0);
        if (!g) {
            vki_model_destroy(m);
            cr_skip_test("the device has no fp16 storage");
        }
        for (int f = 0; f < 4; f++)
            for (size_t z = 0; z < sizeof frame_sizes / sizeof frame_sizes[0]; z++) {
                const frame_size *fs = &frame_sizes[z];
                frame fr = make_frame((vki_pixel_format)f, fs->w, fs->h, fs->pad, (int)z == 2 && f >= 2,
                                      0x1234u + 97u * (uint32_t)(f * 7 + (int)z));
                for (int combo = 0; combo < 8; combo++) {
                    int k = combo + f + (int)z + s;
                    vki_image_transform t = crop_of(k % 3, fs->w, fs->h);
                    t.rotation = combo / 2 * 90;
                    t.mirror = combo & 1;
                    normalise(&t, (combo + f) % 3);
                    t.letterbox = k % 4 == 3;
                    t.fill = t.letterbox ? 114.0f : 0.0f;
                    char label[256];
                    snprintf(label, sizeof label, "input %dx%dx%d, %s frame %dx%d pad %d, crop (%d,%d) "
                             "%dx%d, rotation %d, mirror %d, norm %d, letterbox %d", shapes[s].h,
                             shapes[s].w, channels, format_names[f], fs->w, fs->h, fs->pad, t.crop_x,
                             t.crop_y, t.crop_width, t.crop_height, t.rotation, t.mirror,
                             (combo + f) % 3, t.letterbox);
                    double e = check_frame(g, p, shapes[s].h, shapes[s].w, channels, &fr.img, &t, label);
                    if (e > worst) worst = e;
                    runs++;
                }
                free_frame(&fr);
            }
        vki_graph_destroy(g);
        vki_model_destroy(m);
    }
    cr_log_info("%s: %d frames, worst error %.3g", harness_precision_name(p), runs, worst);
}

static const out_shape rgb_shapes[] = {{13, 17}, {16, 16}, {1, 1}};

Test(image, rgb_input_fp32) { sweep(0, rgb_shapes, 3, 3); }
Test(image, rgb_input_fp16) { sweep(1, rgb_shapes, 3, 3); }
Test(image, rgb_input_fp16_storage) { sweep(2, rgb_shapes, 3, 3); }

static const out_shape luma_shapes[] = {{13, 17}};

Test(image, luma_input) {
    for (int p = 0; p < 3; p++) sweep(p, luma_shapes, 1, 1);
}

/* Rotated rois of every angle class and both borders, partly outside odd-sized frames,
 * every format, onto odd-sized RGB and luma inputs (and a matrix, mirror and letterbox
 * cycling through), against the reference. */
static void roi_sweep(int p, int channels) {
    static const frame_size sizes[] = {{37, 23, 7}, {5, 3, 0}};
    const int oh = 13, ow = 17;
    vki_model *m = identity_model(oh, ow, channels);
    vki_graph *g = make_graph(m, p, 0);
    if (!g) {
        vki_model_destroy(m);
        cr_skip_test("the device has no fp16 storage");
    }
    int runs = 0;
    double worst = 0;
    for (int f = 0; f < 4; f++)
        for (int z = 0; z < 2; z++) {
            const frame_size *fs = &sizes[z];
            frame fr = make_frame((vki_pixel_format)f, fs->w, fs->h, fs->pad, z == 0 && f >= 2,
                                  0x5678u + 31u * (uint32_t)(f * 3 + z));
            const int n_angles = (int)(sizeof roi_angles / sizeof roi_angles[0]);
            for (int k = 0; k <= n_angles; k++)
                for (int border = 0; border < 2; border++) {
                    const int combo = k + border + f + z;
                    vki_image_transform t = {.border = (vki_border)border, .mirror = combo % 3 == 1};
                    /* Centred near the frame's right edge: partly outside; sizes not whole. */
                    const float cx = 0.8f * (float)fs->w, cy = 0.45f * (float)fs->h;
                    const float rw = 0.7f * (float)fs->w + 0.3f, rh = 0.55f * (float)fs->h + 0.1f;
                    if (k < n_angles) {
                        t.roi = (vki_rect){cx, cy, rw, rh, roi_angles[k]};
                        t.letterbox = combo % 4 == 2;
                    } else {   /* a matrix: shear and scale */
                        const float mx[6] = {0.9f * (float)fs->w / (float)ow, 0.15f, -1.3f,
                                             -0.2f, 1.1f * (float)fs->h / (float)oh, 0.7f};
                        memcpy(t.matrix, mx, sizeof mx);
                    }
                    normalise(&t, combo % 3);
                    char label[256];
                    snprintf(label, sizeof label, "input %dx%dx%d, %s frame %dx%d pad %d, %s angle "
                             "%g, border %d, mirror %d, letterbox %d, norm %d", oh, ow, channels,
                             format_names[f], fs->w, fs->h, fs->pad, k < n_angles ? "roi" : "matrix",
                             k < n_angles ? (double)roi_angles[k] : 0.0, border, t.mirror,
                             t.letterbox, combo % 3);
                    double e = check_frame(g, p, oh, ow, channels, &fr.img, &t, label);
                    worst = e > worst ? e : worst;
                    runs++;
                }
            free_frame(&fr);
        }
    cr_log_info("%s, %d channels: %d roi frames, worst error %.3g", harness_precision_name(p),
                channels, runs, worst);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(image, roi_rgb_fp32) { roi_sweep(0, 3); }
Test(image, roi_rgb_fp16) { roi_sweep(1, 3); }
Test(image, roi_luma) {
    roi_sweep(0, 1);
    roi_sweep(2, 1);
}

/* The kernel's output against the frame sampled where vki_image_transform_to_frame puts
 * each input pixel's centre; from_frame brings the point back. */
Test(image, roi_round_trip) {
    const int fw = 41, fh = 29, oh = 11, ow = 15;
    uint8_t *px = smooth_rgb(fw, fh);
    const vki_image img = {.format = VKI_PIXEL_RGB888, .width = fw, .height = fh, .data = px};
    vki_model *m = identity_model(oh, ow, 3);
    vki_graph *g = make_graph(m, 0, 0);
    const vki_image_transform transforms[] = {
        {.roi = {30.0f, 12.5f, 24.0f, 17.0f, 0.3f}, .std = {1, 1, 1}},
        {.roi = {8.0f, 25.0f, 19.0f, 14.0f, -1.7453293f}, .border = VKI_BORDER_REPLICATE,
         .mirror = 1, .letterbox = 1, .std = {1, 1, 1}},
        {.roi = {20.5f, 14.5f, 41.0f, 29.0f, 2.3561945f}, .std = {1, 1, 1}},
        {.matrix = {2.1f, 0.4f, 3.0f, -0.3f, 1.7f, 9.0f}, .std = {1, 1, 1}},
        {.crop_x = 3, .crop_y = 2, .crop_width = 30, .crop_height = 20, .rotation = 270,
         .mirror = 1, .std = {1, 1, 1}},
    };
    float got[11 * 15 * 3];
    for (size_t k = 0; k < sizeof transforms / sizeof transforms[0]; k++) {
        const vki_image_transform *t = &transforms[k];
        cr_assert_eq(vki_graph_set_input_image(g, 0, &img, t), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_get_output(g, 0, got, sizeof got), VKI_OK);
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                float fx, fy, bx, by;
                cr_assert_eq(vki_image_transform_to_frame(t, fw, fh, ow, oh, x + 0.5f, y + 0.5f, &fx,
                                                          &fy), VKI_OK, "%s", vki_last_error());
                double want[3];
                direct_sample(px, fw, fh, fx, fy, t->border == VKI_BORDER_REPLICATE, want);
                if (t->crop_width) {   /* a crop repeats its own edges: stay inside it */
                    cr_assert(fx >= 3.5f && fx <= 32.5f && fy >= 2.5f && fy <= 21.5f);
                }
                for (int c = 0; c < 3; c++)
                    cr_assert(fabs(got[(y * ow + x) * 3 + c] - want[c]) < 5e-3, "transform %zu pixel "
                              "(%d, %d) -> frame (%g, %g) c %d: kernel %.6g, frame %.6g", k, x, y,
                              (double)fx, (double)fy, c, (double)got[(y * ow + x) * 3 + c], want[c]);
                cr_assert_eq(vki_image_transform_from_frame(t, fw, fh, ow, oh, fx, fy, &bx, &by),
                             VKI_OK, "%s", vki_last_error());
                cr_assert(fabsf(bx - (x + 0.5f)) < 1e-3f && fabsf(by - (y + 0.5f)) < 1e-3f,
                          "transform %zu: (%d.5, %d.5) -> (%g, %g) -> (%g, %g)", k, x, y,
                          (double)fx, (double)fy, (double)bx, (double)by);
            }
    }
    /* Hand-worked points: the default transform scales; a roi's input corners are its
     * rectangle's corners; rotation 90 sends the input's top-left corner to the frame's
     * bottom-left. */
    float fx, fy;
    cr_assert_eq(vki_image_transform_to_frame(NULL, 40, 30, 20, 10, 5.0f, 5.0f, &fx, &fy), VKI_OK);
    cr_assert(fx == 10.0f && fy == 15.0f, "(%g, %g)", (double)fx, (double)fy);
    const vki_image_transform quarter = {.roi = {10.0f, 20.0f, 8.0f, 4.0f, 1.5707964f}};
    cr_assert_eq(vki_image_transform_to_frame(&quarter, 40, 30, 16, 8, 0.0f, 0.0f, &fx, &fy), VKI_OK);
    cr_assert(fabsf(fx - 12.0f) < 1e-4f && fabsf(fy - 16.0f) < 1e-4f, "(%g, %g)", (double)fx, (double)fy);
    const vki_image_transform turn = {.rotation = 90};
    cr_assert_eq(vki_image_transform_to_frame(&turn, 40, 30, 30, 40, 0.0f, 0.0f, &fx, &fy), VKI_OK);
    cr_assert(fx == 0.0f && fy == 30.0f, "(%g, %g)", (double)fx, (double)fy);
    free(px);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* A one-pixel frame, and upscaling a 2x2 NV21 frame onto 48x64. */
Test(image, tiny_and_upscaled_frames) {
    vki_model *m = identity_model(48, 64, 3);
    vki_graph *g = make_graph(m, 0, 0);
    for (int f = 0; f < 4; f++) {
        frame one = make_frame((vki_pixel_format)f, 1, 1, 0, 0, 5u + (uint32_t)f);
        frame two = make_frame((vki_pixel_format)f, 2, 2, 3, 1, 9u + (uint32_t)f);
        vki_image_transform t = {.rotation = 90, .mirror = 1};
        check_frame(g, 0, 48, 64, 3, &one.img, &t, format_names[f]);
        check_frame(g, 0, 48, 64, 3, &two.img, &t, format_names[f]);
        free_frame(&one);
        free_frame(&two);
    }
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* Frames grow and shrink: the buffer grows once per larger frame and is reused after. */
Test(image, frame_buffer_grows) {
    vki_model *m = identity_model(13, 17, 3);
    vki_graph *g = make_graph(m, 0, 0);
    vki_memory_report before, after;
    cr_assert_eq(vki_graph_memory(g, &before), VKI_OK);
    static const int sizes[][2] = {{8, 6}, {640, 480}, {37, 23}, {641, 481}, {5, 3}};
    cr_assert_eq(before.frame_bytes, 0);
    uint64_t frames = 0;
    for (int i = 0; i < 5; i++) {
        frame fr = make_frame(VKI_PIXEL_NV21, sizes[i][0], sizes[i][1], 0, 0, 77u + (uint32_t)i);
        vki_image_transform t = {.rotation = 270, .mean = {127.5f, 127.5f, 127.5f},
                                 .std = {127.5f, 127.5f, 127.5f}};
        check_frame(g, 0, 13, 17, 3, &fr.img, &t, "growing");
        cr_assert_eq(vki_graph_memory(g, &after), VKI_OK);
        cr_assert(after.frame_bytes >= frames, "the frame buffer shrank");
        if (i == 2 || i == 4) cr_assert_eq(after.frame_bytes, frames, "a smaller frame grew the buffer");
        frames = after.frame_bytes;
        free_frame(&fr);
    }
    cr_assert(frames >= 641 * 481 * 3 / 2);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* ---- switching between frames and floats ----------------------------------------------- */

/* The report counts the host-visible memory an input holds: its float staging while it
 * takes floats, the frame buffer (what the frame's transform reads, rounded up to 4 KiB)
 * and the kernel's parameters while it takes frames; an input pointer handed out keeps
 * its staging. */
Test(image, memory_report_is_what_frames_need) {
    vki_model *m = identity_model(13, 17, 3);
    vki_graph *g = make_graph(m, 0, 0);
    const uint64_t floats_bytes = (13 * 17 * 3 * 4 + 15) / 16 * 16;   /* one input or output */
    const uint64_t params = (sizeof(vki_image_params) + 15) / 16 * 16;
    vki_memory_report mem;
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.staging_bytes, 2 * floats_bytes);
    cr_assert_eq(mem.frame_bytes, 0);
    /* A 64x48 RGB frame, whole: 9216 bytes, one 12288-byte buffer; the input's floats go. */
    frame fr = make_frame(VKI_PIXEL_RGB888, 64, 48, 0, 0, 21u);
    check_frame(g, 0, 13, 17, 3, &fr.img, NULL, "whole frame");
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.staging_bytes, floats_bytes, "the input's float staging is kept for frames");
    cr_assert_eq(mem.frame_bytes, 12288 + params);
    /* A crop packs its part of the frame only; the buffer does not shrink. */
    vki_image_transform crop = {.crop_x = 8, .crop_y = 4, .crop_width = 20, .crop_height = 10};
    vki_image_job job;
    const int shape[4] = {1, 13, 17, 3};
    cr_assert_eq(vki_image_job_make("test", "crop", &fr.img, &crop, 4, shape, &job), VKI_OK, "%s",
                 vki_last_error());
    cr_assert_eq(job.bytes, 20 * 10 * 3);
    check_frame(g, 0, 13, 17, 3, &fr.img, &crop, "crop");
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.frame_bytes, 12288 + params);
    /* Floats again: the staging comes back, zeroed then written, and the frame buffer goes. */
    float in[13 * 17 * 3], out[13 * 17 * 3];
    harness_fill(in, 13 * 17 * 3, 5u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, in, sizeof in), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, out, sizeof out), VKI_OK);
    cr_assert_eq(memcmp(in, out, sizeof in), 0, "floats through the remade staging");
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.staging_bytes, 2 * floats_bytes);
    cr_assert_eq(mem.frame_bytes, params);
    /* The cropped frame alone: a 4096-byte buffer now. */
    check_frame(g, 0, 13, 17, 3, &fr.img, &crop, "crop after floats");
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.staging_bytes, floats_bytes);
    cr_assert_eq(mem.frame_bytes, 4096 + params);
    /* An input pointer is valid until the graph goes: frames keep its staging after it. */
    float *p = NULL;
    size_t size = 0;
    cr_assert_eq(vki_graph_input_pointer(g, 0, &p, &size), VKI_OK, "%s", vki_last_error());
    check_frame(g, 0, 13, 17, 3, &fr.img, NULL, "whole frame after the pointer");
    cr_assert_eq(vki_graph_memory(g, &mem), VKI_OK);
    cr_assert_eq(mem.staging_bytes, 2 * floats_bytes);
    cr_assert_eq(mem.frame_bytes, 12288 + params);
    float *again = NULL;
    cr_assert_eq(vki_graph_input_pointer(g, 0, &again, &size), VKI_OK, "%s", vki_last_error());
    cr_assert(again == p, "the pointer stays");
    memcpy(p, in, sizeof in);
    expect_identity_run(g, in, sizeof in, "floats through the pointer");
    free_frame(&fr);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(image, switching_between_frames_and_floats) {
    vki_model *m = identity_model(13, 17, 3);
    vki_graph *g = make_graph(m, 0, 1);
    const int n = 13 * 17 * 3;
    float floats[13 * 17 * 3], got[13 * 17 * 3];
    harness_fill(floats, (size_t)n, 3u, -1.0f, 1.0f);
    frame fr = make_frame(VKI_PIXEL_RGBA8888, 37, 23, 7, 0, 11u);
    vki_dispatch_profile prof[8];
    int dispatches = vki_graph_dispatch_count(g);
    for (int round = 0; round < 2; round++) {
        check_frame(g, 0, 13, 17, 3, &fr.img, NULL, "frame");
        cr_assert_eq(vki_graph_profile(g, prof, 8), dispatches);
        cr_assert_str_eq(prof[0].kernel, "image");
        cr_assert_eq(prof[0].op_index, -1);
        cr_assert_eq(vki_graph_set_input(g, 0, floats, sizeof floats), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_get_output(g, 0, got, sizeof got), VKI_OK);
        cr_assert_eq(memcmp(got, floats, sizeof got), 0, "round %d: floats after a frame", round);
        cr_assert_eq(vki_graph_profile(g, prof, 8), dispatches);
        cr_assert_str_eq(prof[0].kernel, "to_phwc4");
    }
    /* Through the input pointer too. */
    check_frame(g, 0, 13, 17, 3, &fr.img, NULL, "frame");
    float *in = NULL;
    size_t size = 0;
    cr_assert_eq(vki_graph_input_pointer(g, 0, &in, &size), VKI_OK, "%s", vki_last_error());
    memcpy(in, floats, sizeof floats);
    expect_identity_run(g, floats, sizeof floats, "floats through the pointer after a frame");
    free_frame(&fr);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* ---- bad arguments ---------------------------------------------------------------------- */

static void expect_bad(vki_graph *g, int index, const vki_image *img, const vki_image_transform *t,
                       const char *needle) {
    vki_status s = vki_graph_set_input_image(g, index, img, t);
    cr_assert_eq(s, VKI_ERROR_INVALID_ARGUMENT, "want INVALID_ARGUMENT for '%s', got %s (%s)",
                 needle, vki_status_name(s), vki_last_error());
    cr_assert(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(), needle);
}

Test(image, bad_arguments) {
    vki_model *m = identity_model(13, 17, 3);
    vki_graph *g = make_graph(m, 0, 0);
    const int n = 13 * 17 * 3;
    float floats[13 * 17 * 3], got[13 * 17 * 3];
    harness_fill(floats, (size_t)n, 8u, -1.0f, 1.0f);
    cr_assert_eq(vki_graph_set_input(g, 0, floats, sizeof floats), VKI_OK);
    frame fr = make_frame(VKI_PIXEL_NV21, 37, 23, 0, 0, 2u);
    vki_image img = fr.img;
    const char *prefix = "vki_graph_set_input_image: identity_13x17x3: input 0 't': ";

    expect_bad(NULL, 0, &img, NULL, "vki_graph_set_input_image: graph is NULL");
    expect_bad(g, 1, &img, NULL, "identity_13x17x3: input 1 out of range (1 inputs)");
    expect_bad(g, -1, &img, NULL, "input -1 out of range");
    expect_bad(g, 0, NULL, NULL, "image is NULL");
    cr_assert(strstr(vki_last_error(), prefix), "%s", vki_last_error());
    img.data = NULL;
    expect_bad(g, 0, &img, NULL, "image data is NULL");
    img = fr.img;
    img.format = (vki_pixel_format)7;
    expect_bad(g, 0, &img, NULL, "unknown pixel format 7");
    img.format = (vki_pixel_format)-1;
    expect_bad(g, 0, &img, NULL, "unknown pixel format -1");
    img = fr.img;
    img.width = 0;
    expect_bad(g, 0, &img, NULL, "a 0x23 frame; each side must be 1 to 16384");
    img.width = 16385;
    expect_bad(g, 0, &img, NULL, "each side must be 1 to 16384");
    img = fr.img;
    img.row_stride = -37;
    expect_bad(g, 0, &img, NULL, "row_stride -37");
    img.row_stride = 36;
    expect_bad(g, 0, &img, NULL, "row_stride 36; a NV21 row of 37 pixels needs at least 37 bytes");
    img = fr.img;
    img.uv_row_stride = 37;
    expect_bad(g, 0, &img, NULL, "uv_row_stride 37; a NV21 chroma row of a 37-pixel frame needs at least 38");
    img = fr.img;

    vki_image_transform t = {.crop_x = 37};
    expect_bad(g, 0, &img, &t, "crop origin (37, 0) is outside the 37x23 frame");
    t = (vki_image_transform){.crop_y = -1};
    expect_bad(g, 0, &img, &t, "crop origin (0, -1) is outside");
    t = (vki_image_transform){.crop_x = 30, .crop_width = 8};
    expect_bad(g, 0, &img, &t, "crop 8x23 at (30, 0) reaches past the 37x23 frame");
    t = (vki_image_transform){.crop_y = 20, .crop_height = 4};
    expect_bad(g, 0, &img, &t, "reaches past");
    t = (vki_image_transform){.crop_width = -2};
    expect_bad(g, 0, &img, &t, "crop size -2x0 is negative");
    static const int rotations[] = {45, -90, 360, 1};
    for (int i = 0; i < 4; i++) {
        t = (vki_image_transform){.rotation = rotations[i]};
        char needle[64];
        snprintf(needle, sizeof needle, "rotation %d; need 0, 90, 180 or 270", rotations[i]);
        expect_bad(g, 0, &img, &t, needle);
    }
    t = (vki_image_transform){.mean = {127.5f, 127.5f, 127.5f}};
    expect_bad(g, 0, &img, &t, "mean[0] is 127.5 but every std is 0");
    t = (vki_image_transform){.std = {1, 0, 1}};
    expect_bad(g, 0, &img, &t, "std[1] is 0 while another std is not");
    t = (vki_image_transform){.mean = {0, NAN, 0}, .std = {1, 1, 1}};
    expect_bad(g, 0, &img, &t, "mean[1] nan or std[1] 1 is not finite");
    t = (vki_image_transform){.letterbox = 1, .fill = INFINITY};
    expect_bad(g, 0, &img, &t, "fill inf is not finite");

    /* None of these touched the graph: it still runs on its floats. */
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_graph_get_output(g, 0, got, sizeof got), VKI_OK);
    cr_assert_eq(memcmp(got, floats, sizeof got), 0);
    vki_graph_destroy(g);
    vki_model_destroy(m);

    /* Inputs a frame cannot feed. */
    static const struct { int rank, shape[4]; const char *dims; } inputs[] = {
        {4, {1, 4, 4, 4}, "[1,4,4,4]"}, {4, {1, 4, 4, 2}, "[1,4,4,2]"}, {2, {1, 6}, "[1,6]"},
        {3, {1, 4, 3}, "[1,4,3]"},
    };
    for (int i = 0; i < 4; i++) {
        vki_model *bad = vki_model_new("odd_input");
        int in = harness_tensor_nd(bad, inputs[i].rank, inputs[i].shape);
        int out = harness_tensor_nd(bad, inputs[i].rank, inputs[i].shape);
        harness_binary(bad, VKI_OP_MUL, in, harness_scalar(bad, 1.0f), out);
        cr_assert(vki_model_set_io(bad, 1, &in, 1, &out));
        cr_assert_eq(vki_model_validate(bad), VKI_OK, "%s", vki_last_error());
        vki_graph *bg = make_graph(bad, 0, 0);
        char needle[160];
        snprintf(needle, sizeof needle, "odd_input: input 0 't': the input is %s; a frame needs "
                 "[1,H,W,3] (RGB) or [1,H,W,1] (luma)", inputs[i].dims);
        expect_bad(bg, 0, &img, NULL, needle);
        vki_graph_destroy(bg);
        vki_model_destroy(bad);
    }
    float out[3];
    cr_assert_eq(vki_image_reference(&img, NULL, 1, 1, 3, NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_image_reference(&img, NULL, 0, 1, 3, out), VKI_ERROR_INVALID_ARGUMENT);
    free_frame(&fr);
}

Test(image, bad_roi_and_matrix) {
    vki_model *m = identity_model(13, 17, 3);
    vki_graph *g = make_graph(m, 0, 0);
    frame fr = make_frame(VKI_PIXEL_RGB888, 37, 23, 0, 0, 3u);
    const vki_image img = fr.img;
    vki_image_transform t = {.roi = {10, 10, 8, 8, 0.5f}, .crop_x = 2};
    expect_bad(g, 0, &img, &t, "roi with crop (2, 0) 0x0; a roi replaces the crop, give one");
    t = (vki_image_transform){.roi = {10, 10, 8, 8, 0.5f}, .crop_height = 5};
    expect_bad(g, 0, &img, &t, "roi with crop (0, 0) 0x5");
    t = (vki_image_transform){.roi = {10, 10, 8, 8, 0.5f}, .rotation = 90};
    expect_bad(g, 0, &img, &t, "roi with rotation 90; give the angle as roi.rotation (radians)");
    t = (vki_image_transform){.roi = {10, 10, 8, 8, 0.5f}, .matrix = {1, 0, 0, 0, 1, 0}};
    expect_bad(g, 0, &img, &t, "both roi and matrix are given; give one");
    t = (vki_image_transform){.matrix = {1, 0, 0, 0, 1, 0}, .crop_y = 1};
    expect_bad(g, 0, &img, &t, "matrix with crop (0, 1) 0x0; a matrix replaces the crop");
    t = (vki_image_transform){.matrix = {1, 0, 0, 0, 1, 0}, .rotation = 180};
    expect_bad(g, 0, &img, &t, "matrix with rotation 180; the matrix holds it");
    t = (vki_image_transform){.matrix = {1, 0, 0, 0, 1, 0}, .letterbox = 1};
    expect_bad(g, 0, &img, &t, "matrix with letterbox; the matrix sets the whole map");
    t = (vki_image_transform){.matrix = {1, 0, INFINITY, 0, 1, 0}};
    expect_bad(g, 0, &img, &t, "matrix {1, 0, inf, 0, 1, 0}; each element must be finite");
    t = (vki_image_transform){.matrix = {2e6f, 0, 0, 0, 1, 0}};
    expect_bad(g, 0, &img, &t, "at most 1e+06 in magnitude");
    t = (vki_image_transform){.roi = {10, 10, 0, 8, 0}};
    expect_bad(g, 0, &img, &t, "roi size 0x8; width and height must be > 0");
    t = (vki_image_transform){.roi = {10, 10, -4, 8, 0}};
    expect_bad(g, 0, &img, &t, "roi size -4x8");
    t = (vki_image_transform){.roi = {0, 0, 0, 0, 0.3f}};
    expect_bad(g, 0, &img, &t, "roi size 0x0; width and height must be > 0 (all fields 0: no roi)");
    t = (vki_image_transform){.roi = {NAN, 10, 8, 8, 0}};
    expect_bad(g, 0, &img, &t, "roi centre (nan, 10) size 8x8 rotation 0; each must be finite");
    t = (vki_image_transform){.roi = {10, 10, 8, 8, INFINITY}};
    expect_bad(g, 0, &img, &t, "rotation inf; each must be finite");
    t = (vki_image_transform){.roi = {10, 10, 3e6f, 8, 0}};
    expect_bad(g, 0, &img, &t, "the centre and size at most 1e+06");
    t = (vki_image_transform){.roi = {10, 10, 8, 8, 0}, .border = (vki_border)2};
    expect_bad(g, 0, &img, &t, "border 2; need VKI_BORDER_ZERO (0) or VKI_BORDER_REPLICATE (1)");

    /* The point maps check the same transform, then their own arguments. */
    float x = 7, y = 7;
    const vki_image_transform ok = {.roi = {10, 10, 8, 8, 0.5f}};
    static const struct { const char *needle; int fw, fh, iw, ih; float px; int null_x; } cases[] = {
        {"vki_image_transform_to_frame: frame_x is NULL", 37, 23, 17, 13, 1.0f, 1},
        {"vki_image_transform_to_frame: frame 0x23; each side must be 1 to 16384", 0, 23, 17, 13, 1.0f, 0},
        {"vki_image_transform_to_frame: frame 37x16385", 37, 16385, 17, 13, 1.0f, 0},
        {"vki_image_transform_to_frame: input 17x-1; each side must be 1 to 16384", 37, 23, 17, -1, 1.0f, 0},
        {"vki_image_transform_to_frame: point (nan, 2) is not finite", 37, 23, 17, 13, NAN, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        x = y = 7;
        vki_status s = vki_image_transform_to_frame(&ok, cases[i].fw, cases[i].fh, cases[i].iw,
                                                    cases[i].ih, cases[i].px, 2.0f,
                                                    cases[i].null_x ? NULL : &x, &y);
        cr_assert_eq(s, VKI_ERROR_INVALID_ARGUMENT, "case %zu", i);
        cr_assert(strstr(vki_last_error(), cases[i].needle), "'%s' lacks '%s'", vki_last_error(),
                  cases[i].needle);
        cr_assert(y == 0.0f && (cases[i].null_x || x == 0.0f), "outputs are 0 after a failure");
    }
    cr_assert_eq(vki_image_transform_from_frame(&ok, 37, 23, 17, 13, 1, 2, &x, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_image_transform_from_frame: input_y is NULL"), "%s",
              vki_last_error());
    t = (vki_image_transform){.roi = {10, 10, -1, 8, 0}};
    cr_assert_eq(vki_image_transform_to_frame(&t, 37, 23, 17, 13, 1, 2, &x, &y), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_image_transform_to_frame: transform: roi size -1x8"), "%s",
              vki_last_error());
    t = (vki_image_transform){.matrix = {1, 2, 0, 2, 4, 0}};
    cr_assert_eq(vki_image_transform_to_frame(&t, 37, 23, 17, 13, 1, 2, &x, &y), VKI_OK);
    cr_assert(x == 5.0f && y == 10.0f);
    cr_assert_eq(vki_image_transform_from_frame(&t, 37, 23, 17, 13, 1, 2, &x, &y),
                 VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_image_transform_from_frame: transform: the map {1, 2, 2, "
                     "4} takes the input onto a line or a point; it has no inverse"), "%s",
              vki_last_error());
    free_frame(&fr);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* ---- a real model --------------------------------------------------------------------- */

/* face_detection_short_range fed a frame gives what it gives fed the reference's floats
 * (a crop, a letterbox, a roi). */
Test(image, face_detection_frame_matches_floats) {
    size_t bytes = 0;
    uint8_t *file = harness_read_model("face_detection_short_range.tflite", &bytes);
    cr_assert(file, "face_detection_short_range.tflite is missing (run tools/fetch_models.sh)");
    vki_model *m = NULL;
    cr_assert_eq(vki_model_load_memory(file, bytes, "face_detection_short_range.tflite", &m), VKI_OK,
                 "%s", vki_last_error());
    free(file);
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, NULL, &g), VKI_OK, "%s", vki_last_error());
    vki_tensor_info in, out[2];
    cr_assert_eq(vki_model_input_info(m, 0, &in), VKI_OK);
    cr_assert_eq(vki_model_output_count(m), 2);
    cr_assert(in.shape[1] == 128 && in.shape[2] == 128 && in.shape[3] == 3);
    float *ref_in = malloc(in.element_count * sizeof(float));
    float *a[2], *b[2];
    for (int i = 0; i < 2; i++) {
        vki_model_output_info(m, i, &out[i]);
        a[i] = malloc(out[i].element_count * sizeof(float));
        b[i] = malloc(out[i].element_count * sizeof(float));
        cr_assert(a[i] && b[i]);
    }
    /* A smooth NV21 camera frame (a portrait phone's sensor is landscape: rotate 270,
     * mirror as a front camera) and a letterboxed RGBA one. */
    frame nv = make_frame(VKI_PIXEL_NV21, 640, 480, 0, 0, 1u);
    for (int y = 0; y < 480; y++)
        for (int x = 0; x < 640; x++) nv.data[y * 640 + x] = (uint8_t)((x * 3 + y * 2 + (x * y) / 97) & 255);
    frame rgba = make_frame(VKI_PIXEL_RGBA8888, 320, 200, 12, 0, 2u);
    const frame *frames[3] = {&nv, &rgba, &nv};
    /* The third: a tilted roi reaching past the frame's edge, as a landmark model's. */
    const vki_image_transform transforms[3] = {
        {.crop_x = 80, .crop_width = 480, .rotation = 270, .mirror = 1,
         .mean = {127.5f, 127.5f, 127.5f}, .std = {127.5f, 127.5f, 127.5f}},
        {.rotation = 90, .letterbox = 1, .mean = {127.5f, 127.5f, 127.5f},
         .std = {127.5f, 127.5f, 127.5f}},
        {.roi = {520.0f, 200.0f, 300.0f, 240.0f, -0.4f}, .letterbox = 1, .mirror = 1,
         .border = VKI_BORDER_REPLICATE, .mean = {127.5f, 127.5f, 127.5f},
         .std = {127.5f, 127.5f, 127.5f}},
    };
    for (int k = 0; k < 3; k++) {
        cr_assert_eq(vki_image_reference(&frames[k]->img, &transforms[k], 128, 128, 3, ref_in), VKI_OK);
        cr_assert_eq(vki_graph_set_input_image(g, 0, &frames[k]->img, &transforms[k]), VKI_OK, "%s",
                     vki_last_error());
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        for (int i = 0; i < 2; i++)
            cr_assert_eq(vki_graph_get_output(g, i, a[i], out[i].element_count * sizeof(float)), VKI_OK);
        cr_assert_eq(vki_graph_set_input(g, 0, ref_in, in.element_count * sizeof(float)), VKI_OK);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        for (int i = 0; i < 2; i++) {
            cr_assert_eq(vki_graph_get_output(g, i, b[i], out[i].element_count * sizeof(float)), VKI_OK);
            double err = vki_relative_error(a[i], b[i], out[i].element_count, NULL);
            cr_log_info("frame %d output %d: error %.3g", k, i, err);
            cr_assert(err <= 1e-4, "frame %d output %d '%s': frame against floats %g > 1e-4", k, i,
                      out[i].name, err);
        }
    }
    for (int i = 0; i < 2; i++) { free(a[i]); free(b[i]); }
    free(ref_in);
    free_frame(&nv);
    free_frame(&rgba);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* ---- zero-copy I/O --------------------------------------------------------------------- */

static vki_model *relu_model(void) {
    vki_model *m = vki_model_new("relu");
    int a = harness_tensor(m, 3, 5, 3), b = harness_tensor(m, 2, 2, 1);
    int out_a = harness_tensor(m, 3, 5, 3), out_b = harness_tensor(m, 2, 2, 1);
    vki_model_add_op(m, VKI_OP_RELU, 1, &a, 1, &out_a);
    vki_model_add_op(m, VKI_OP_RELU, 1, &b, 1, &out_b);
    int ins[2] = {a, b}, outs[2] = {out_a, out_b};
    cr_assert(vki_model_set_io(m, 2, ins, 2, outs));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

Test(zero_copy, pointers_match_set_and_get) {
    vki_model *m = relu_model();
    vki_graph *g = make_graph(m, 0, 0);
    float *in[2];
    const float *out[2];
    size_t in_size[2], out_size[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(vki_graph_input_pointer(g, i, &in[i], &in_size[i]), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_output_pointer(g, i, &out[i], &out_size[i]), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(in_size[i], (i ? 4 : 45) * sizeof(float));
        cr_assert_eq(out_size[i], in_size[i]);
    }
    for (int run = 0; run < 3; run++) {
        float a[45], b[4], got_a[45], got_b[4];
        harness_fill(a, 45, 40u + (uint32_t)run, -1.0f, 1.0f);
        harness_fill(b, 4, 50u + (uint32_t)run, -1.0f, 1.0f);
        /* Zero-copy in, copies out. */
        memcpy(in[0], a, sizeof a);
        memcpy(in[1], b, sizeof b);
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_graph_get_output(g, 0, got_a, sizeof got_a), VKI_OK);
        cr_assert_eq(vki_graph_get_output(g, 1, got_b, sizeof got_b), VKI_OK);
        cr_assert_eq(memcmp(out[0], got_a, sizeof got_a), 0);
        cr_assert_eq(memcmp(out[1], got_b, sizeof got_b), 0);
        for (int i = 0; i < 45; i++) cr_assert_eq(got_a[i], a[i] > 0 ? a[i] : 0.0f);
        for (int i = 0; i < 4; i++) cr_assert_eq(got_b[i], b[i] > 0 ? b[i] : 0.0f);
        /* Copies in, zero-copy out; the pointers stay the same. */
        harness_fill(a, 45, 60u + (uint32_t)run, -1.0f, 1.0f);
        cr_assert_eq(vki_graph_set_input(g, 0, a, sizeof a), VKI_OK);
        cr_assert_eq(memcmp(in[0], a, sizeof a), 0, "set_input writes where the pointer points");
        cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
        for (int i = 0; i < 45; i++) cr_assert_eq(out[0][i], a[i] > 0 ? a[i] : 0.0f);
        float *again;
        const float *again_out;
        size_t sz;
        cr_assert_eq(vki_graph_input_pointer(g, 0, &again, &sz), VKI_OK);
        cr_assert_eq(vki_graph_output_pointer(g, 1, &again_out, &sz), VKI_OK);
        cr_assert(again == in[0] && again_out == out[1], "pointers are stable");
    }
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

Test(zero_copy, bad_arguments) {
    vki_model *m = relu_model();
    vki_graph *g = make_graph(m, 0, 0);
    float dummy = 0;
    float *in = &dummy;
    const float *out = &dummy;
    size_t size = 99;
    cr_assert_eq(vki_graph_input_pointer(NULL, 0, &in, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_graph_input_pointer: graph is NULL"), "%s", vki_last_error());
    cr_assert_null(in);
    cr_assert_eq(size, 0);
    cr_assert_eq(vki_graph_input_pointer(g, 0, NULL, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_input_pointer(g, 0, &in, NULL), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(vki_graph_output_pointer(g, 0, NULL, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_graph_output_pointer: NULL argument"), "%s", vki_last_error());
    cr_assert_eq(vki_graph_output_pointer(NULL, 0, &out, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_graph_output_pointer: graph is NULL"), "%s", vki_last_error());
    cr_assert_null(out);
    cr_assert_eq(vki_graph_input_pointer(g, 2, &in, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_graph_input_pointer: relu: index 2 out of range (2 inputs)"),
              "%s", vki_last_error());
    cr_assert_eq(vki_graph_output_pointer(g, -1, &out, &size), VKI_ERROR_INVALID_ARGUMENT);
    cr_assert(strstr(vki_last_error(), "vki_graph_output_pointer: relu: index -1 out of range (2 outputs)"),
              "%s", vki_last_error());
    vki_graph_destroy(g);
    vki_model_destroy(m);
}
