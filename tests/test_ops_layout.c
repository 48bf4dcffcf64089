/* test_ops_layout.c: MAX_POOL_2D, AVERAGE_POOL_2D, PAD, RESHAPE and CONCATENATION. Their
 * cases on the device are the tables of cases_layout.c (OP_TABLES_LAYOUT); here, the pool
 * kernel choice and the validation messages. */
#include "op_cases_layout.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

OP_TABLES_LAYOUT(OP_TABLE_TEST)

/* ---- pooling --------------------------------------------------------------------------- */

/* The one op of m must run as a single dispatch of `kernel` after the input conversion
 * (it writes the graph output itself). Consumes m. */
static void expect_kernel(vki_model *m, const char *kernel) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "validate: %s", vki_last_error());
    vki_graph_options opt = {.profile = 1};
    vki_graph *g = NULL;
    cr_assert_eq(vki_graph_create(harness_context(), m, &opt, &g), VKI_OK, "graph: %s",
                 vki_last_error());
    cr_assert_eq(vki_graph_run(g), VKI_OK, "run: %s", vki_last_error());
    vki_dispatch_profile prof[8];
    int n = vki_graph_profile(g, prof, 8);
    cr_assert_eq(n, 2, "%d dispatches, want 2", n);
    cr_assert_str_eq(prof[1].kernel, kernel);
    vki_graph_destroy(g);
    vki_model_destroy(m);
}

/* A 1x1 output takes the work-group reduction; any larger output keeps a thread per
 * output vec4. */
Test(pool, kernel_choice) {
    expect_kernel(pool_model(VKI_OP_AVERAGE_POOL_2D, 9, 7, 5,
                             (pool_case){9, 7, 1, 1, VKI_PAD_VALID}, VKI_ACT_NONE), "reduce");
    expect_kernel(pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 5, (pool_case){3, 3, 9, 7, VKI_PAD_SAME},
                             VKI_ACT_NONE), "reduce");
    expect_kernel(pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 5, (pool_case){8, 7, 1, 1, VKI_PAD_VALID},
                             VKI_ACT_NONE), "pool");
}

static const pool_case pool_2x2_s2_valid = {2, 2, 2, 2, VKI_PAD_VALID};

Test(pool, invalid) {
    vki_model *m = pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 3, pool_2x2_s2_valid, VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[1] = 5;    /* VALID 2x2 s2 of 9 is 4 */
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [5,3,3], expected [4,3,3]");
    m = pool_model(VKI_OP_MAX_POOL_2D, 9, 7, 3, pool_2x2_s2_valid, VKI_ACT_NONE);
    m->ops[0].opt.pool.stride_w = 0;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "must be positive");
    m = pool_model(VKI_OP_MAX_POOL_2D, 3, 3, 3, (pool_case){3, 3, 1, 1, VKI_PAD_VALID}, VKI_ACT_NONE);
    m->ops[0].opt.pool.filter_h = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "does not fit the 3x3 input");
}

/* ---- PAD ------------------------------------------------------------------------------- */

Test(pad, invalid) {
    int shape[4] = {1, 5, 6, 3};
    int32_t pads[8] = {0, 0, 1, 2, 0, 3, 0, 0};
    int p;
    /* paddings for a rank-3 tensor on a rank-4 input */
    vki_model *m = pad_model(4, shape, pads, &p);
    m->tensors[p].shape[0] = 3;
    char want[96];
    snprintf(want, sizeof want, "paddings tensor %d has shape [3,2], need [4,2]", p);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);

    int32_t batch[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    m = pad_model(4, shape, batch, NULL);
    m->tensors[m->ops[0].outputs[0]].shape[0] = 1;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,5,6,3], the op makes [2,5,6,3]");

    int32_t negative[8] = {0, 0, 0, 0, -1, 0, 0, 0};
    m = pad_model(4, shape, negative, NULL);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT,
                           "padding [-1,0] of axis 2 is out of range for extent 6");

    /* paddings whose sum leaves int (a fuzzed model): refused, no overflow */
    m = pad_model(4, shape, pads, &p);
    int32_t *huge = (int32_t *)m->tensors[p].data;
    huge[2] = 1426063392;
    huge[3] = 1330531150;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "of axis 1 is out of range for extent 5");

    m = pad_model(4, shape, pads, NULL);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [8,9,4], expected [8,9,3]");

    m = pad_model(4, shape, pads, &p);
    m->tensors[p].dtype = VKI_DTYPE_FLOAT32;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is not int32");
}

/* ---- RESHAPE --------------------------------------------------------------------------- */

Test(reshape, invalid) {
    static const int r[2] = {4, 2};
    static const int s[2][4] = {{1, 7, 5, 3}, {1, 104}};
    vki_model *m = reshape_chain(2, r, s);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input [1,7,5,3] has 105 elements but output [1,104] has 104");

    static const int s2[2][4] = {{1, 7, 5, 3}, {1, 105}};
    m = reshape_chain(2, r, s2);
    int32_t bad[2] = {1, 104};
    int st = harness_int_vector(m, "shape", 2, bad);
    m->ops[0].inputs[1] = st;
    m->ops[0].n_inputs = 2;
    char want[128];
    snprintf(want, sizeof want, "tensor %d 't' is [1,105], the op makes [1,104]", m->ops[0].outputs[0]);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, want);
}

/* ---- CONCATENATION --------------------------------------------------------------------- */

Test(concatenation, invalid) {
    static const int a[2][4] = {{1, 4, 4, 3}, {1, 4, 5, 3}};
    vki_model *m = concat_model(4, 3, 2, a, 0, VKI_ACT_NONE);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,4,5,3] does not match input 0 [1,4,4,3] outside axis 3");

    static const int b[2][4] = {{1, 4, 4, 3}, {1, 4, 4, 5}};
    m = concat_model(4, 3, 2, b, 0, VKI_ACT_NONE);
    m->tensors[m->ops[0].outputs[0]].shape[3] = 9;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,4,4,9], the op makes [1,4,4,8]");

    /* Along the batch the inputs must match outside axis 0 like any other axis (the
     * general form runs it: general_layout cases). */
    m = concat_model(4, 0, 2, b, 0, VKI_ACT_NONE);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "[1,4,4,5] does not match input 0 [1,4,4,3] outside axis 0");

    m = concat_model(4, 3, 2, b, 0, VKI_ACT_NONE);
    m->ops[0].opt.concat.axis = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "axis 4 is out of range for rank 4");
}
