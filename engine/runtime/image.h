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
 * (glsl/image.comp's `params`). The frame staging holds the crop only: crop_h rows of
 * row_bytes, then for NV12/NV21 the chroma rows that cover it at uv_offset. */
typedef struct vki_image_params {
    int32_t format;              /* vki_pixel_format */
    int32_t crop_w, crop_h;      /* the packed frame */
    int32_t row_bytes;           /* bytes per packed row of pixels or luma */
    int32_t uv_offset;           /* byte offset of the packed chroma rows */
    int32_t uv_row_bytes;
    int32_t crop_x_odd, crop_y_odd;  /* chroma of crop pixel (a, b): ((a+x_odd)/2, (b+y_odd)/2) */
    int32_t rotation;            /* quarter turns clockwise */
    int32_t mirror;
    int32_t content_x, content_y, content_w, content_h;   /* output pixels the frame covers */
    float scale_x, scale_y;      /* rotated-crop pixels per output pixel */
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
    int crop_x, crop_y;
    size_t bytes;                /* of the packed staging, a multiple of 4 */
    int channels;                /* of the input: 3 (RGB) or 1 (luma) */
} vki_image_job;

/* Checks image and transform (NULL: defaults) for an input of NHWC shape `rank`/`shape`
 * and fills the job. Failures are VKI_ERROR_INVALID_ARGUMENT with a message
 * "<call>: <where>: <cause>", where names the graph's model and the input. */
vki_status vki_image_job_make(const char *call, const char *where, const vki_image *image,
                              const vki_image_transform *transform, int rank, const int *shape,
                              vki_image_job *job);

/* Copies the crop's bytes (and its chroma) into dst, job->bytes long, as the kernel reads. */
void vki_image_pack(const vki_image_job *job, void *dst);

/* What the kernel computes, from the frame itself (its strides, not the packed copy):
 * dense NHWC floats, H x W x C of the job's input. */
void vki_image_job_reference(const vki_image_job *job, int height, int width, float *out);

/* The plain C reference of the whole stage: checks like vki_graph_set_input_image and
 * writes height * width * channels floats (channels 3 or 1) to out. */
vki_status vki_image_reference(const vki_image *image, const vki_image_transform *transform,
                               int height, int width, int channels, float *out);

#endif
