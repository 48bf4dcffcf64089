/* test_picture.c: the command-line tool's pictures (tools/picture.c): every drawing
 * primitive pixel by pixel against what it must touch and leave alone, clipping far
 * outside the picture, PNG written and read back bit for bit, and files that are not
 * images refused with a message naming them. */
#include "picture.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef VKI_HAVE_STB
#include <stb/stb_image_write.h>
#endif

static const unsigned char RED[3] = {255, 0, 0}, GREY[3] = {10, 20, 30};

static vki_picture blank(int w, int h) {
    vki_picture p = {w, h, malloc((size_t)w * (size_t)h * 3)};
    cr_assert(p.rgb);
    for (int i = 0; i < w * h; i++) memcpy(p.rgb + 3 * i, GREY, 3);
    return p;
}

static int is(const vki_picture *p, int x, int y, const unsigned char c[3]) {
    return !memcmp(p->rgb + ((size_t)y * (size_t)p->width + (size_t)x) * 3, c, 3);
}

static int count(const vki_picture *p, const unsigned char c[3]) {
    int n = 0;
    for (int y = 0; y < p->height; y++)
        for (int x = 0; x < p->width; x++) n += is(p, x, y, c);
    return n;
}

static const char *temp(const char *name) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/vki_picture_%d_%s", (int)getpid(), name);
    return path;
}

Test(picture, rect_outline_and_interior) {
    vki_picture p = blank(9, 7);
    vki_picture_rect(&p, 1, 1, 7, 5, RED, 1);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++) {
            int edge = (x == 1 || x == 7) && y >= 1 && y <= 5;
            edge |= (y == 1 || y == 5) && x >= 1 && x <= 7;
            cr_expect_eq(is(&p, x, y, RED), edge, "pixel %d,%d", x, y);
        }
    /* Thickness grows inward; corners given in either order. */
    vki_picture q = blank(9, 7);
    vki_picture_rect(&q, 7, 5, 1, 1, RED, 2);
    cr_expect(is(&q, 1, 3, RED) && is(&q, 2, 3, RED) && !is(&q, 3, 3, RED));
    cr_expect(is(&q, 6, 3, RED) && is(&q, 7, 3, RED) && !is(&q, 0, 3, RED));
    cr_expect_eq(count(&q, RED), 7 * 5 - 3 * 1, "a 7x5 box 2 thick leaves 3x1 inside");
    vki_picture_free(&p);
    vki_picture_free(&q);
}

Test(picture, clipped_far_outside) {
    vki_picture p = blank(5, 5);
    vki_picture_rect(&p, -100, -100, 2, 1e9f, RED, 1);
    cr_expect(is(&p, 2, 0, RED) && is(&p, 2, 4, RED) && !is(&p, 3, 2, RED));
    vki_picture_line(&p, -1e12f, 0, 1e12f, 0, RED, 3);        /* too long to walk: skipped */
    vki_picture_dot(&p, -50, -50, 3, RED);
    vki_picture_dot(&p, 0.0f / 0.0f, 1, 3, RED);                /* NaN: nothing */
    vki_picture_line(&p, 0, 0, 0.0f / 0.0f, 1, RED, 1);
    cr_expect_eq(count(&p, RED), 5);
    vki_picture_free(&p);
}

Test(picture, line_endpoints_and_thickness) {
    vki_picture p = blank(10, 10);
    vki_picture_line(&p, 1, 1, 8, 8, RED, 1);
    for (int i = 1; i <= 8; i++) cr_expect(is(&p, i, i, RED), "diagonal %d", i);
    cr_expect_eq(count(&p, RED), 8);
    vki_picture q = blank(10, 10);
    vki_picture_line(&q, 2, 5, 7, 5, RED, 3);
    cr_expect(is(&q, 2, 4, RED) && is(&q, 7, 6, RED) && is(&q, 5, 4, RED));
    cr_expect(!is(&q, 5, 3, RED) && !is(&q, 5, 7, RED) && !is(&q, 0, 5, RED));
    vki_picture_free(&p);
    vki_picture_free(&q);
}

Test(picture, dot_radius) {
    vki_picture p = blank(11, 11);
    vki_picture_dot(&p, 5, 5, 2, RED);
    /* Radius 2: the 13 pixels within distance 2 (and a quarter) of the centre. */
    cr_expect_eq(count(&p, RED), 13);
    cr_expect(is(&p, 5, 3, RED) && is(&p, 7, 5, RED) && !is(&p, 7, 7, RED));
    vki_picture_free(&p);
}

Test(picture, mask_blend) {
    vki_picture p = blank(2, 2);
    const float mask[4] = {0.0f, 1.0f, 0.5f, 7.0f};
    const unsigned char white[3] = {210, 220, 230};
    vki_picture_blend_mask(&p, mask, white, 0.5f);
    cr_expect(is(&p, 0, 0, GREY));
    const unsigned char half[3] = {110, 120, 130}, quarter[3] = {60, 70, 80};
    cr_expect(is(&p, 1, 0, half), "m 1, alpha 0.5");
    cr_expect(is(&p, 0, 1, quarter), "m 0.5, alpha 0.5");
    cr_expect(is(&p, 1, 1, half), "m clamped to 1");
    vki_picture_free(&p);
}

Test(picture, png_round_trip) {
    vki_picture p = blank(13, 7);
    for (int i = 0; i < 13 * 7 * 3; i++) p.rgb[i] = (unsigned char)(i * 37 + 11);
    char err[512];
    const char *path = temp("round.png");
    if (!vki_picture_save_png(path, &p, err, sizeof err)) {
        cr_expect(strstr(err, "without image support"), "%s", err);
        cr_skip_test("built without libstb-dev");
    }
    vki_picture q;
    cr_assert(vki_picture_load(path, &q, err, sizeof err), "%s", err);
    cr_expect_eq(q.width, 13);
    cr_expect_eq(q.height, 7);
    cr_expect(!memcmp(p.rgb, q.rgb, 13 * 7 * 3));
    vki_picture_free(&q);
    vki_picture_free(&q);                      /* idempotent */
    vki_picture_free(NULL);
    vki_picture_free(&p);
    remove(path);
}

/* JPEG in: a smooth picture written by stb's JPEG encoder comes back close. */
Test(picture, jpeg_is_read) {
#ifdef VKI_HAVE_STB
    enum { W = 33, H = 17 };
    unsigned char rgb[W * H * 3];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            unsigned char *q = rgb + 3 * (y * W + x);
            q[0] = (unsigned char)(x * 7), q[1] = (unsigned char)(y * 13), q[2] = 128;
        }
    const char *path = temp("photo.jpg");
    cr_assert(stbi_write_jpg(path, W, H, 3, rgb, 95));
    vki_picture p;
    char err[512];
    cr_assert(vki_picture_load(path, &p, err, sizeof err), "%s", err);
    cr_expect_eq(p.width, W);
    cr_expect_eq(p.height, H);
    double diff = 0;
    for (int i = 0; i < W * H * 3; i++) diff += abs((int)p.rgb[i] - (int)rgb[i]);
    cr_expect_lt(diff / (W * H * 3), 4.0, "mean difference %g", diff / (W * H * 3));
    vki_picture_free(&p);
    remove(path);
#else
    cr_skip_test("built without libstb-dev");
#endif
}

Test(picture, bad_files_are_refused_by_name) {
    char err[512];
    vki_picture p;
    cr_expect_not(vki_picture_load("/nonexistent/photo.png", &p, err, sizeof err));
    cr_expect(strstr(err, "/nonexistent/photo.png"), "%s", err);
    cr_expect_null(p.rgb);
    const char *text = temp("text.png");
    FILE *f = fopen(text, "w");
    cr_assert(f);
    fputs("not a picture\n", f);
    fclose(f);
    cr_expect_not(vki_picture_load(text, &p, err, sizeof err));
    cr_expect(strstr(err, text), "%s", err);
    /* A PNG cut short. */
    vki_picture good = blank(32, 32);
    const char *png = temp("cut.png");
    if (vki_picture_save_png(png, &good, err, sizeof err)) {
        f = fopen(png, "r+b");
        cr_assert(f);
        cr_assert_eq(ftruncate(fileno(f), 60), 0);
        fclose(f);
        cr_expect_not(vki_picture_load(png, &p, err, sizeof err));
        cr_expect(strstr(err, png), "%s", err);
    }
    cr_expect_not(vki_picture_save_png("/nonexistent/out.png", &good, err, sizeof err));
    cr_expect(strstr(err, "/nonexistent/out.png"), "%s", err);
    vki_picture_free(&good);
    remove(text);
    remove(png);
}
