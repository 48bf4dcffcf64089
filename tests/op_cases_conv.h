/* op_cases_conv.h: the CONV_2D / DEPTHWISE_CONV_2D model builder of cases_conv.c, shared
 * with the validation tests of test_ops_conv.c. */
#ifndef VKI_TEST_OP_CASES_CONV_H
#define VKI_TEST_OP_CASES_CONV_H

#include "op_cases.h"

typedef struct conv_case {
    int h, w, ci, co;           /* co: output channels (conv) or depth multiplier (depthwise) */
    int kh, kw;
    int sh, sw, dh, dw;         /* 0 means 1; dilation 0 is also what files use for 1 */
    vki_padding pad;
    int no_bias;
    vki_activation act;
    int dm_option;              /* depthwise: the depth_multiplier option, 0 = unset */
} conv_case;

/* The one-op model: tensors 0 input, 1 filter (from seed * 3 + 1, in [-1, 1)), 2 bias
 * (from seed * 5 + 2, in [-2, 2); none with no_bias), then the output. code is
 * VKI_OP_CONV_2D or VKI_OP_DEPTHWISE_CONV_2D. */
vki_model *conv_model(vki_op_code code, const conv_case *c, uint32_t seed);

#endif
