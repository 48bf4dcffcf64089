/* op_cases_tconv.h: the TRANSPOSE_CONV and Convolution2DTransposeBias model builders of
 * cases_tconv.c, shared with the reference and validation tests of test_ops_tconv.c. */
#ifndef VKI_TEST_OP_CASES_TCONV_H
#define VKI_TEST_OP_CASES_TCONV_H

#include "op_cases.h"

#define TCONV_CUSTOM_NAME "Convolution2DTransposeBias"

enum { BIAS_NONE = 0, BIAS_PRESENT, BIAS_OMITTED };   /* OMITTED: 4th input is -1 */

typedef struct tc_case {
    int h, w, ci, co, kh, kw, sh, sw;
    vki_padding pad;
    int bias;                   /* BIAS_*; the custom op always has one */
    vki_activation act;
    int oh, ow;                 /* TRANSPOSE_CONV output size; 0: the usual one for pad */
} tc_case;

/* The output size a converter writes for a consistent model: SAME in*stride, VALID
 * (in-1)*stride + K. */
int tconv_usual_out(vki_padding pad, int in, int k, int stride);

/* MediaPipe's Prepare: stride*(in-1) + K - total, total = max(0, K - (in-1)%stride - 1)
 * for SAME. */
int tconv_mediapipe_total(vki_padding pad, int in, int k, int stride);
int tconv_mediapipe_out(vki_padding pad, int in, int k, int stride);

uint32_t tconv_case_seed(const tc_case *c);

/* One TRANSPOSE_CONV op. Tensors: 0 input, 1 weights (from seed * 3 + 1), 2 bias (if any,
 * from seed * 5 + 2), then output_shape and output. */
vki_model *tconv_builtin_model(const tc_case *c, uint32_t seed);

/* One Convolution2DTransposeBias op as the loader produces it. Tensors: 0 input,
 * 1 weights, 2 bias, 3 output. */
vki_model *tconv_custom_model(const tc_case *c, uint32_t seed);

#endif
