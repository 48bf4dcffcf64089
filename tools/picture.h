/* picture.h: photos in and pictures out for the command-line tool (tools/picture.c):
 * PNG/JPEG to RGB, PNG out, and drawing boxes, lines, dots and masks in exact colours. */
#ifndef VKI_PICTURE_H
#define VKI_PICTURE_H

#include <stddef.h>

typedef struct vki_picture {
    int width, height;
    unsigned char *rgb;              /* RGB888, tightly packed rows */
} vki_picture;

/* PNG or JPEG (whatever stb_image reads) to RGB: alpha dropped, grey expanded. 1, or 0
 * with err naming the path and the cause. */
int vki_picture_load(const char *path, vki_picture *out, char *err, size_t err_size);
/* Writes an 8-bit RGB PNG; 1, or 0 with err naming the path and the cause. */
int vki_picture_save_png(const char *path, const vki_picture *p, char *err, size_t err_size);
/* NULL-safe and idempotent. */
void vki_picture_free(vki_picture *p);

/* Drawing in exact colours, clipped to the picture; coordinates in pixels, rounded to the
 * nearest. A rectangle's outline grows inward from its edges; a line of thickness t is a
 * chain of dots of radius (t-1)/2. */
void vki_picture_rect(vki_picture *p, float x0, float y0, float x1, float y1,
                      const unsigned char rgb[3], int thickness);
void vki_picture_line(vki_picture *p, float x0, float y0, float x1, float y1,
                      const unsigned char rgb[3], int thickness);
void vki_picture_dot(vki_picture *p, float x, float y, float radius, const unsigned char rgb[3]);
/* pixel * (1 - alpha*m) + rgb * (alpha*m) for m = mask[y*width + x] clamped to 0..1; the
 * mask has the picture's size. */
void vki_picture_blend_mask(vki_picture *p, const float *mask, const unsigned char rgb[3],
                            float alpha);

#endif /* VKI_PICTURE_H */
