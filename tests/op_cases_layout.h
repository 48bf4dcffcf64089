/* op_cases_layout.h: the pooling, PAD, RESHAPE and CONCATENATION model builders of
 * cases_layout.c, shared with the validation tests of test_ops_layout.c. */
#ifndef VKI_TEST_OP_CASES_LAYOUT_H
#define VKI_TEST_OP_CASES_LAYOUT_H

#include "op_cases.h"

typedef struct pool_case {
    int fh, fw, sh, sw;
    vki_padding pad;
} pool_case;

/* One MAX_POOL_2D or AVERAGE_POOL_2D over a [1,h,w,c] input. */
vki_model *pool_model(vki_op_code code, int h, int w, int c, pool_case pc, vki_activation act);

/* PAD of a rank-`rank` input; pads holds [before, after] per dimension. *pads_tensor (if
 * not NULL) gets the paddings tensor. */
vki_model *pad_model(int rank, const int *shape, const int32_t *pads, int *pads_tensor);

/* A chain of RESHAPEs through n shapes; the first is the graph input, the last the output. */
vki_model *reshape_chain(int n, const int *ranks, const int (*shapes)[4]);

/* CONCATENATION of n inputs of rank `rank` along `axis`; shapes[i] are the inputs' shapes.
 * Inputs whose bit is set in const_mask are constants (input i from seed 40 + i). */
vki_model *concat_model(int rank, int axis, int n, const int (*shapes)[4], unsigned const_mask,
                        vki_activation act);

#endif
