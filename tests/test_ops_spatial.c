/* test_ops_spatial.c: MEAN, FULLY_CONNECTED, SOFTMAX, RESIZE_BILINEAR,
 * RESIZE_NEAREST_NEIGHBOR, DEPTH_TO_SPACE, SPACE_TO_DEPTH, STRIDED_SLICE and SLICE. Their
 * cases on the device are the tables of cases_spatial.c (OP_TABLES_SPATIAL); here, their
 * validation messages. */
#include "op_cases_spatial.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

OP_TABLES_SPATIAL(OP_TABLE_TEST)

/* ---- MEAN ---------------------------------------------------------------------------- */

Test(mean, invalid) {
    /* Any axis set is a mean (reduce.c takes what the global pool does not); the output's
     * extents must be what the axes and keep_dims make. */
    static const int32_t h_only[1] = {1}, hwc[3] = {1, 2, 3}, bad[2] = {1, 5}, hw[2] = {1, 2};
    harness_expect_invalid(mean_model(7, 9, 3, true, 1, h_only), VKI_ERROR_MODEL_FORMAT,
                           "is [1,1,1,3], the op makes [1,1,9,3]");
    harness_expect_invalid(mean_model(7, 9, 3, false, 3, hwc), VKI_ERROR_MODEL_FORMAT,
                           "the op makes [1]");
    harness_expect_invalid(mean_model(7, 9, 3, false, 2, bad), VKI_ERROR_MODEL_FORMAT,
                           "axis 5 is out of range for rank 4");
    vki_model *m = mean_model(7, 9, 3, true, 2, hw);
    m->ops[0].opt.reduce.keep_dims = false;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,1,1,3], the op makes [1,3]");
    m = mean_model(7, 9, 3, true, 2, hw);
    m->tensors[m->ops[0].inputs[1]].dtype = VKI_DTYPE_FLOAT32;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is not int32");
    m = mean_model(7, 9, 3, true, 2, hw);
    m->tensors[m->ops[0].inputs[0]].rank = 3;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "the op makes [1,1,1]");
}

/* ---- FULLY_CONNECTED ----------------------------------------------------------------- */

Test(fully_connected, invalid) {
    int s[2] = {1, 6};
    vki_model *m = fc_model(2, s, 3, 6, true, false, VKI_ACT_NONE);
    int four[1] = {4};
    m->ops[0].inputs[2] = harness_const(m, 1, four, 5, -1.0f, 1.0f);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "bias has 4 elements but weights have 3 rows");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    m->tensors[m->ops[0].inputs[0]].shape[1] = 7;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                           "input [1,7] has 7 elements, not a multiple of K = 6");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[1] = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,4], the op makes [1,3]");

    int pixels[4] = {1, 2, 3, 6};
    m = fc_model(4, pixels, 3, 6, false, true, VKI_ACT_NONE);
    m->ops[0].opt.fully_connected.keep_num_dims = false;
    /* Without keep_num_dims six rows of K make [6,3] (run by the cases of
     * fully_connected/rows_without_keep_num_dims); the model says [1,2,3,3]. */
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,2,3,3], the op makes [6,3]");

    int img[4] = {1, 2, 3, 4};
    m = fc_model(4, img, 3, 24, false, false, VKI_ACT_NONE);
    m->ops[0].opt.fully_connected.keep_num_dims = true;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                           "keep_num_dims needs the last dimension to be K = 24");

    m = fc_model(2, s, 3, 6, false, false, VKI_ACT_NONE);
    free(m->tensors[m->ops[0].inputs[1]].data);
    m->tensors[m->ops[0].inputs[1]].data = NULL;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "must be a constant");
}

/* ---- SOFTMAX ------------------------------------------------------------------------- */

Test(softmax, invalid) {
    int s[4] = {1, 3, 5, 7};
    vki_model *m = softmax_model(4, s, 1.0f);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 8;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                           "is [1,3,5,8], the op makes [1,3,5,7]");
    m = softmax_model(4, s, NAN);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is not finite");
}

/* ---- RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR --------------------------------------- */

Test(resize_bilinear, invalid) {
    vki_model *m = resize_model(VKI_OP_RESIZE_BILINEAR, 4, 5, 3, 8, 10, true, true);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "align_corners and half_pixel_centers are both set");
    m = resize_model(VKI_OP_RESIZE_BILINEAR, 4, 5, 3, 8, 10, false, false);
    m->tensors[m->ops[0].outputs[0]].shape[2] = 9;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [8,9,3], expected [8,10,3]");
    m = resize_model(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 4, 5, 3, 8, 10, false, false);
    m->tensors[m->ops[0].inputs[1]].shape[0] = 1;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must hold 2 values [height, width]");
    m = resize_model(VKI_OP_RESIZE_NEAREST_NEIGHBOR, 4, 5, 3, 8, 10, false, false);
    ((int32_t *)m->tensors[m->ops[0].inputs[1]].data)[0] = 0;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "size [0,10] must be positive");
}

/* ---- DEPTH_TO_SPACE / SPACE_TO_DEPTH ------------------------------------------------- */

Test(space_depth, invalid) {
    vki_model *m = space_depth_model(VKI_OP_DEPTH_TO_SPACE, 3, 5, 8, 2);
    m->ops[0].opt.space_depth.block_size = 1;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "block_size 1 must be at least 2");
    m = space_depth_model(VKI_OP_DEPTH_TO_SPACE, 3, 5, 12, 2);
    m->tensors[m->ops[0].inputs[0]].shape[3] = 10;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                           "input depth 10 is not a multiple of block_size^2 = 4");
    m = space_depth_model(VKI_OP_SPACE_TO_DEPTH, 6, 4, 3, 2);
    m->tensors[m->ops[0].inputs[0]].shape[1] = 7;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input 7x4 (HxW) is not a multiple of block_size 2");
    m = space_depth_model(VKI_OP_SPACE_TO_DEPTH, 6, 4, 3, 2);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 13;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [3,2,13], expected [3,2,12]");
}

/* ---- STRIDED_SLICE / SLICE ----------------------------------------------------------- */

Test(strided_slice, invalid) {
    int shape[4] = {1, 7, 9, 3};
    /* strides 2 on H and W */
    ss_case k = {4, {0, 0, 0, 0}, {1, 7, 9, 3}, {1, 2, 2, 1}, 0, 0, 0, false, 4, {1, 4, 5, 3}};
    vki_model *m = ss_model(shape, &k);
    m->ops[0].opt.strided_slice.ellipsis_mask = 2;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL,
                           "ellipsis_mask 2 and new_axis_mask 0 are not supported");
    m = ss_model(shape, &k);
    m->ops[0].opt.strided_slice.new_axis_mask = 1;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "new_axis_mask 1 are not supported");

    ss_case z = k;
    z.strides[2] = 0;
    harness_expect_invalid(ss_model(shape, &z), VKI_ERROR_MODEL_FORMAT, "stride of dimension 2 is 0");

    ss_case wrong = k;
    wrong.out[2] = 4;
    harness_expect_invalid(ss_model(shape, &wrong), VKI_ERROR_MODEL_FORMAT,
                           "is [1,4,4,3], the op makes [1,4,5,3]");

    ss_case shrink = {4, {0, 7, 0, 0}, {1, 8, 9, 3}, {1, 1, 1, 1}, 0, 0, 0x2, false, 3, {1, 9, 3}};
    harness_expect_invalid(ss_model(shape, &shrink), VKI_ERROR_MODEL_FORMAT,
                           "shrink_axis_mask keeps index 7 of dimension 1, which has size 7");

    ss_case below = {4, {0, 0, -8, 0}, {1, 7, 0, 3}, {1, 1, 1, 1}, 0, 0, 0x4, false, 3, {1, 7, 3}};
    shape[2] = 7;
    harness_expect_invalid(ss_model(shape, &below), VKI_ERROR_MODEL_FORMAT,
                           "shrink_axis_mask keeps index -8 of dimension 2, which has size 7");
    shape[2] = 9;

    ss_case empty = {4, {0, 5, 0, 0}, {1, 2, 9, 3}, {1, 1, 1, 1}, 0, 0, 0, false, 4, {1, 1, 9, 3}};
    harness_expect_invalid(ss_model(shape, &empty), VKI_ERROR_UNSUPPORTED_MODEL,
                           "selects no elements along dimension 1");

    m = ss_model(shape, &k);
    m->tensors[m->ops[0].inputs[2]].shape[0] = 3;
    char want[128];
    snprintf(want, sizeof want, "end tensor %d 'end' has shape [3], need [4] for the rank-4 input",
             m->ops[0].inputs[2]);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);

    m = ss_model(shape, &k);
    m->tensors[m->ops[0].inputs[1]].dtype = VKI_DTYPE_INT64;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is int64, only int32 is supported");

    m = ss_model(shape, &k);
    free(m->tensors[m->ops[0].inputs[3]].data);
    m->tensors[m->ops[0].inputs[3]].data = NULL;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "strides tensor");
}

Test(slice, invalid) {
    int in[4] = {1, 7, 9, 5};
    int32_t b[4] = {0, 1, 2, 0}, z[4] = {1, 7, 3, 5};
    int out[4] = {1, 7, 3, 5};
    harness_expect_invalid(slice_model(4, in, b, z, out), VKI_ERROR_MODEL_FORMAT,
                           "size 7 of dimension 1 does not fit: begin 1, dimension 7");
    int32_t nb[4] = {0, -1, 0, 0}, nz[4] = {1, 1, 9, 5};
    int nout[4] = {1, 1, 9, 5};
    harness_expect_invalid(slice_model(4, in, nb, nz, nout), VKI_ERROR_MODEL_FORMAT,
                           "begin -1 of dimension 1 is outside [0,7]");
    int32_t sb[4] = {0, 0, 0, 0}, sz[4] = {1, 7, 9, -2};
    harness_expect_invalid(slice_model(4, in, sb, sz, in), VKI_ERROR_MODEL_FORMAT,
                           "size -2 of dimension 3");
    int32_t ob[4] = {0, 0, 0, 0}, oz[4] = {1, 3, -1, -1};
    int oout[4] = {1, 3, 8, 5};
    harness_expect_invalid(slice_model(4, in, ob, oz, oout), VKI_ERROR_MODEL_FORMAT,
                           "is [1,3,8,5], the op makes [1,3,9,5]");
}
