/* conv_common.h: validation shared by CONV_2D and DEPTHWISE_CONV_2D. */
#ifndef VKI_CONV_COMMON_H
#define VKI_CONV_COMMON_H

#include "ops.h"

/* Dilation as used: TFLite files may leave it at 0 to mean 1. */
int vki_conv_dilation(int d);
/* Arity (2 or 3 inputs), a non-constant rank-4 input and output, constant rank-4 weights. */
vki_status vki_conv_check_operands(const vki_model *m, int op_index);
/* Given oc output channels: the optional bias, padding, strides, dilations, activation,
 * window and stride limits, and the output shape [1, oh, ow, oc]. */
vki_status vki_conv_check_window(const vki_model *m, int op_index, int oc);

#endif
