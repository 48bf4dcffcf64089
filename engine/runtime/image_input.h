/* image_input.h: camera frames into graph inputs, the device side (internal). Per input:
 * the staging buffer of the frame's bytes, the image kernel's parameter buffer, its
 * pipeline and descriptor set, and the swap of the input's conversion step (the first
 * dispatches of the command buffer) between the float conversion and the image kernel.
 * The checks, parameters and reference are image.c's. */
#ifndef VKI_IMAGE_INPUT_H
#define VKI_IMAGE_INPUT_H

#include "builder.h"
#include "gpu.h"

typedef struct vki_image_inputs vki_image_inputs;

/* While the graph builds: notes each input tensor's storage and precision, which the
 * image kernel writes. Nothing is made on the device until a frame comes. */
vki_status vki_image_inputs_open(vki_graph *g, const vki_build *b);
void vki_image_inputs_close(vki_graph *g);

/* vki_graph_set_input_image: checks, copies the frame, writes the parameters, and the
 * first time (or when the frame buffer grew) puts the image kernel in the input's step
 * and re-records; at the switch from floats the input's float staging is given back. */
vki_status vki_image_inputs_set(vki_graph *g, int index, const vki_image *image,
                                const vki_image_transform *transform);
/* Puts input `index` back on its float staging, re-recording if it ran from frames; makes
 * the staging again if frames had it given back (VKI_ERROR_OUT_OF_MEMORY leaves the input
 * on frames). */
vki_status vki_image_inputs_floats(vki_graph *g, int index);
/* Input `index`'s float staging address is held elsewhere: frames never give it back. */
void vki_image_inputs_keep_floats(vki_graph *g, int index);

#endif
