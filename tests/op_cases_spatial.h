/* op_cases_spatial.h: the MEAN, FULLY_CONNECTED, SOFTMAX, RESIZE_*, DEPTH_TO_SPACE,
 * SPACE_TO_DEPTH, STRIDED_SLICE and SLICE model builders of cases_spatial.c, shared with
 * the validation tests of test_ops_spatial.c. Expected output shapes are written out by
 * hand so that the ops' shape rules are checked too. */
#ifndef VKI_TEST_OP_CASES_SPATIAL_H
#define VKI_TEST_OP_CASES_SPATIAL_H

#include "op_cases.h"

#include <stdbool.h>

/* MEAN of [1,h,w,c] over the n_axes axes; output [1,1,1,c] with keep, else [1,c]. */
vki_model *mean_model(int h, int w, int c, bool keep, int n_axes, const int32_t *axes);

/* FULLY_CONNECTED of an input of rank `rank` with n x k weights (from seed
 * 7000 + n * 131 + k) and, with bias, a bias (the next seed). Without a bias, the op has
 * two inputs for even k and an omitted third one for odd k. */
vki_model *fc_model(int rank, const int *in_shape, int n, int k, bool bias, bool keep,
                    vki_activation act);

vki_model *softmax_model(int rank, const int *shape, float beta);

/* RESIZE_BILINEAR or RESIZE_NEAREST_NEIGHBOR of [1,h,w,c] to [1,oh,ow,c]. */
vki_model *resize_model(vki_op_code code, int h, int w, int c, int oh, int ow, bool align,
                        bool half);

/* DEPTH_TO_SPACE or SPACE_TO_DEPTH of [1,h,w,c] with block size bs. */
vki_model *space_depth_model(vki_op_code code, int h, int w, int c, int bs);

typedef struct ss_case {
    int rank;
    int32_t begin[4], end[4], strides[4];
    int begin_mask, end_mask, shrink_mask;
    bool offset;
    int out_rank, out[4];       /* expected, written by hand */
} ss_case;

/* STRIDED_SLICE of an input of shape in_shape (rank k->rank). */
vki_model *ss_model(const int *in_shape, const ss_case *k);

/* SLICE of an input of rank `rank`. */
vki_model *slice_model(int rank, const int *in_shape, const int32_t *begin, const int32_t *size,
                       const int *out_shape);

#endif
