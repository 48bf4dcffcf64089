/* picture.c: photos in and pictures out for the command-line tool: PNG and JPEG read and
 * PNG written through Debian's libstb-dev (stb_image, stb_image_write), and the few
 * drawing primitives the results need, exact colours without antialiasing so that tests
 * can find them. Built without stb (cross builds that lack it), loading and saving fail
 * with a message and drawing still works. */
#include "picture.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef VKI_HAVE_STB
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#endif

int vki_picture_load(const char *path, vki_picture *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: %s", path, strerror(errno));
        return 0;
    }
#ifdef VKI_HAVE_STB
    int w, h, n;
    unsigned char *rgb = stbi_load_from_file(f, &w, &h, &n, 3);
    fclose(f);
    if (!rgb) {
        snprintf(err, err_size, "%s: not a PNG or JPEG image (stb: %s)", path, stbi_failure_reason());
        return 0;
    }
    /* Copied into memory of our own, so that vki_picture_free is free() for any picture. */
    size_t bytes = (size_t)w * (size_t)h * 3;
    out->rgb = malloc(bytes);
    if (!out->rgb) {
        stbi_image_free(rgb);
        snprintf(err, err_size, "%s: out of memory for a %dx%d image", path, w, h);
        return 0;
    }
    memcpy(out->rgb, rgb, bytes);
    stbi_image_free(rgb);
    out->width = w;
    out->height = h;
    return 1;
#else
    fclose(f);
    snprintf(err, err_size, "%s: built without image support (libstb-dev)", path);
    return 0;
#endif
}

int vki_picture_save_png(const char *path, const vki_picture *p, char *err, size_t err_size) {
#ifdef VKI_HAVE_STB
    if (!p || !p->rgb || p->width < 1 || p->height < 1) {
        snprintf(err, err_size, "%s: no picture to write", path);
        return 0;
    }
    errno = 0;
    if (!stbi_write_png(path, p->width, p->height, 3, p->rgb, p->width * 3)) {
        snprintf(err, err_size, "%s: %s", path, errno ? strerror(errno) : "PNG write failed");
        return 0;
    }
    return 1;
#else
    (void)p;
    snprintf(err, err_size, "%s: built without image support (libstb-dev)", path);
    return 0;
#endif
}

void vki_picture_free(vki_picture *p) {
    if (!p) return;
    free(p->rgb);
    p->rgb = NULL;
    p->width = p->height = 0;
}

static void put(vki_picture *p, int x, int y, const unsigned char rgb[3]) {
    if (x < 0 || y < 0 || x >= p->width || y >= p->height) return;
    unsigned char *q = p->rgb + ((size_t)y * (size_t)p->width + (size_t)x) * 3;
    q[0] = rgb[0], q[1] = rgb[1], q[2] = rgb[2];
}

/* Pixels x0..x1, y0..y1 inclusive, clipped. */
static void fill(vki_picture *p, long x0, long y0, long x1, long y1, const unsigned char rgb[3]) {
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 >= p->width) x1 = p->width - 1;
    if (y1 >= p->height) y1 = p->height - 1;
    for (long y = y0; y <= y1; y++)
        for (long x = x0; x <= x1; x++) put(p, (int)x, (int)y, rgb);
}

/* A coordinate to a pixel index, saturating far outside any picture. */
static long pixel(float v) {
    if (!(v > -1e7f)) return -10000000;
    if (v > 1e7f) return 10000000;
    return lroundf(v);
}

void vki_picture_rect(vki_picture *p, float x0, float y0, float x1, float y1,
                      const unsigned char rgb[3], int thickness) {
    if (!p || !p->rgb) return;
    long a = pixel(x0 < x1 ? x0 : x1), b = pixel(y0 < y1 ? y0 : y1);
    long c = pixel(x0 < x1 ? x1 : x0), d = pixel(y0 < y1 ? y1 : y0);
    long t = thickness < 1 ? 1 : thickness;
    /* The outline grows inward from the box's edges. */
    fill(p, a, b, c, b + t - 1, rgb);
    fill(p, a, d - t + 1, c, d, rgb);
    fill(p, a, b, a + t - 1, d, rgb);
    fill(p, c - t + 1, b, c, d, rgb);
}

void vki_picture_dot(vki_picture *p, float x, float y, float radius, const unsigned char rgb[3]) {
    if (!p || !p->rgb || !(radius >= 0) || !isfinite(x) || !isfinite(y)) return;
    long cx = pixel(x), cy = pixel(y), r = (long)ceilf(radius);
    for (long dy = -r; dy <= r; dy++)
        for (long dx = -r; dx <= r; dx++)
            if ((float)(dx * dx + dy * dy) <= radius * radius + 0.25f) {
                long px = cx + dx, py = cy + dy;
                if (px >= 0 && py >= 0 && px < p->width && py < p->height) put(p, (int)px, (int)py, rgb);
            }
}

void vki_picture_line(vki_picture *p, float x0, float y0, float x1, float y1,
                      const unsigned char rgb[3], int thickness) {
    if (!p || !p->rgb || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) || !isfinite(y1)) return;
    float dx = x1 - x0, dy = y1 - y0;
    float len = fabsf(dx) > fabsf(dy) ? fabsf(dx) : fabsf(dy);
    /* Lines far outside the picture are not walked pixel by pixel. */
    if (len > 4.0f * (float)(p->width + p->height)) return;
    int steps = (int)ceilf(len);
    float r = thickness > 1 ? (float)(thickness - 1) / 2.0f : 0.0f;
    for (int i = 0; i <= steps; i++) {
        float t = steps ? (float)i / (float)steps : 0.0f;
        float x = x0 + dx * t, y = y0 + dy * t;
        if (r > 0) vki_picture_dot(p, x, y, r, rgb);
        else put(p, (int)pixel(x), (int)pixel(y), rgb);
    }
}

void vki_picture_blend_mask(vki_picture *p, const float *mask, const unsigned char rgb[3],
                            float alpha) {
    if (!p || !p->rgb || !mask) return;
    size_t n = (size_t)p->width * (size_t)p->height;
    for (size_t i = 0; i < n; i++) {
        float m = mask[i];
        m = m > 0 ? (m < 1 ? m : 1) : 0;     /* NaN counts as 0 */
        float w = alpha * m;
        for (int k = 0; k < 3; k++) {
            float v = (float)p->rgb[3 * i + k] * (1 - w) + (float)rgb[k] * w;
            p->rgb[3 * i + k] = (unsigned char)lroundf(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
}
