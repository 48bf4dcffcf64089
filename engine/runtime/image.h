/* image.h: the camera-frame stage, device-free (internal): a frame and its transform
 * checked against a graph input, the plan of what glsl/image.comp computes (its
 * parameters, which the kernel reads as they are laid out here), the packing of the
 * frame's bytes into the staging layout the kernel reads, and the plain C reference of
 * the kernel. The device side (buffers, pipeline, swapping the input's step) is
 * image_input.c. */
#ifndef VKI_IMAGE_H
#define VKI_IMAGE_H

#include "model.h"
#include "vkinfer.h"

#include <stddef.h>
#include <stdint.h>

#define VKI_IMAGE_MAX_SIDE 16384

/* BT.601 full range (JFIF), as Android camera frames; glsl/image.comp has the same. */
#define VKI_YUV_RV 1.402f
#define VKI_YUV_GU 0.344136f
#define VKI_YUV_GV 0.714136f
#define VKI_YUV_BU 1.772f
#define VKI_LUMA_R 0.299f
#define VKI_LUMA_G 0.587f
#define VKI_LUMA_B 0.114f

/* The kernel's parameters: a std430 block of 4-byte fields in this order
 * (glsl/image.comp's `params`). The frame staging holds a region of the frame only (the
 * crop, or what a roi or matrix reads): region_h rows of row_bytes, then for NV12/NV21 the
 * chroma rows that cover it at uv_offset. Region pixel (a, b) is frame pixel
 * (region_x + a, region_y + b).
 *
 * Output pixel (x, y) inside the content box takes the bilinear sample at region
 * coordinates (a, b) (pixel centres at integers) with px = (x - content_x) + 0.5,
 * py = (y - content_y) + 0.5 and
 *   a = map_x[4] + (map_x[3] + ((map_x[0] * px + map_x[1] * py) + map_x[2])),
 * b likewise from map_y, evaluated in this order without fused multiply-adds. The
 * translation is split in three terms so that a crop's quarter turns and mirror round as
 * the crop-only kernel did (its coordinates were t = px * scale - 0.5, then
 * (size - 1) - t for a mirror or a turn, then once more for a turn after a mirror): a crop
 * gives the same values bit for bit. Of the four taps, those outside the bounds (the
 * frame, or the crop) read black with zero_border, else the nearest pixel inside. */
typedef struct vki_image_params {
    int32_t format;              /* vki_pixel_format */
    int32_t region_w, region_h;  /* the packed part of the frame */
    int32_t row_bytes;           /* bytes per packed row of pixels or luma */
    int32_t uv_offset;           /* byte offset of the packed chroma rows */
    int32_t uv_row_bytes;
    int32_t region_x_odd, region_y_odd;  /* chroma of region pixel (a, b): ((a+x_odd)/2, (b+y_odd)/2) */
    int32_t bound_x0, bound_y0, bound_x1, bound_y1;   /* region pixels a, b with taps */
    int32_t zero_border;         /* taps outside the bounds: nonzero black, 0 the nearest */
    int32_t content_x, content_y, content_w, content_h;   /* output pixels the frame covers */
    float map_x[5], map_y[5];    /* content pixel centre -> region coordinates (above) */
    float fill;                  /* pixel value outside the content (letterbox) */
    float norm_scale[3], norm_bias[3];   /* out = pixel * scale + bias */
} vki_image_params;

/* A checked frame and transform for one input: the kernel's parameters and what packing
 * reads. */
typedef struct vki_image_job {
    vki_image_params params;
    const uint8_t *pixels;       /* the first plane */
    const uint8_t *uv;           /* NV12/NV21 chroma */
    size_t row_stride, uv_row_stride;
    int region_x, region_y;      /* the packed region's origin in the frame */
    size_t bytes;                /* of the packed staging, a multiple of 4 */
    int channels;                /* of the input: 3 (RGB) or 1 (luma) */
    /* The map from input pixels to frame pixels (pixel centres at +0.5 on both sides),
     * from the float parameters: frame x = to_frame[0] x + to_frame[1] y + to_frame[2],
     * frame y = to_frame[3] x + to_frame[4] y + to_frame[5]. */
    double to_frame[6];
} vki_image_job;

/* The geometry alone: checks transform (NULL: defaults) for a frame_w x frame_h frame and
 * an out_w x out_h input and fills the job's region, bounds, content box, maps, fill and
 * to_frame (not the format's fields, nor normalisation). Failures as vki_image_job_make. */
vki_status vki_image_job_geometry(const char *call, const char *where,
                                  const vki_image_transform *transform, int frame_w, int frame_h,
                                  int out_w, int out_h, vki_image_job *job);

/* Checks image and transform (NULL: defaults) for an input of NHWC shape `rank`/`shape`
 * and fills the job. Failures are VKI_ERROR_INVALID_ARGUMENT with a message
 * "<call>: <where>: <cause>", where names the graph's model and the input. */
vki_status vki_image_job_make(const char *call, const char *where, const vki_image *image,
                              const vki_image_transform *transform, int rank, const int *shape,
                              vki_image_job *job);

/* Copies the region's bytes (and its chroma) into dst, job->bytes long, as the kernel reads. */
void vki_image_pack(const vki_image_job *job, void *dst);

/* What the kernel computes, from the frame itself (its strides, not the packed copy):
 * dense NHWC floats, H x W x C of the job's input. */
void vki_image_job_reference(const vki_image_job *job, int height, int width, float *out);

/* The plain C reference of the whole stage: checks like vki_graph_set_input_image and
 * writes height * width * channels floats (channels 3 or 1) to out. */
vki_status vki_image_reference(const vki_image *image, const vki_image_transform *transform,
                               int height, int width, int channels, float *out);

#endif
