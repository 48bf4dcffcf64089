/* test_ops_eltwise.c: the elementwise ops (unary.c, binary.c). Their cases on the device
 * are the tables of cases_eltwise.c (OP_TABLES_ELTWISE); here, also spot checks of the
 * references themselves against hand-worked TFLite values, and the validation messages. */
#include "op_cases.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

OP_TABLES_ELTWISE(OP_TABLE_TEST)

/* ---- the references against hand-worked values ------------------------------------------- */

/* Runs one op over a [1,1,n,1] input on the C reference only. */
static void reference_unary(vki_op_code code, float alpha, const float *x, float *y, int n) {
    vki_model *m = vki_model_new("ref");
    int in = harness_tensor(m, 1, n, 1), out = harness_tensor(m, 1, n, 1);
    vki_op *op = vki_model_add_op(m, code, 1, &in, 1, &out);
    op->opt.leaky_relu.alpha = alpha;
    vki_model_set_io(m, 1, &in, 1, &out);
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    cr_assert_eq(vki_model_reference_run(m, &x, &y), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
}

static void expect_values(const float *got, const float *want, int n, float tol) {
    for (int i = 0; i < n; i++)
        cr_expect(fabsf(got[i] - want[i]) <= tol, "element %d: %.9g, want %.9g", i,
                  (double)got[i], (double)want[i]);
}

Test(eltwise_reference, unary_values) {
    const float x[] = {-100.0f, -4.0f, -3.0f, -1.5f, -0.0f, 0.0f, 1.0f, 3.0f, 5.0f, 20.0f};
    float y[10];
    reference_unary(VKI_OP_RELU6, 0.0f, x, y, 10);
    expect_values(y, (const float[]){0, 0, 0, 0, 0, 0, 1, 3, 5, 6}, 10, 0.0f);
    reference_unary(VKI_OP_HARD_SWISH, 0.0f, x, y, 10);
    expect_values(y, (const float[]){0, 0, 0, -0.375f, 0, 0, 4.0f / 6.0f, 3, 5, 20}, 10, 1e-6f);
    reference_unary(VKI_OP_LEAKY_RELU, 0.1f, x, y, 10);
    expect_values(y, (const float[]){-10, -0.4f, -0.3f, -0.15f, 0, 0, 1, 3, 5, 20}, 10, 1e-6f);
    reference_unary(VKI_OP_LOGISTIC, 0.0f, x, y, 10);
    expect_values(y, (const float[]){0, 0.0179862100f, 0.0474258732f, 0.182425524f, 0.5f, 0.5f,
                                     0.731058579f, 0.952574127f, 0.993307149f, 1.0f}, 10, 1e-7f);
    reference_unary(VKI_OP_TANH, 0.0f, x, y, 10);
    expect_values(y, (const float[]){-1, -0.999329300f, -0.995054754f, -0.905148254f, 0, 0,
                                     0.761594156f, 0.995054754f, 0.999909204f, 1.0f}, 10, 1e-7f);
}

Test(eltwise_reference, binary_values) {
    /* [1,1,2,3] op [3]: c broadcast along W. */
    const float a[] = {1, -2, 3, -4, 5, -6}, b[] = {2, -4, 0.5f};
    struct { vki_op_code code; float want[6]; } cases[] = {
        {VKI_OP_SUB, {-1, 2, 2.5f, -6, 9, -6.5f}},
        {VKI_OP_MUL, {2, 8, 1.5f, -8, -20, -3}},
        {VKI_OP_DIV, {0.5f, 0.5f, 6, -2, -1.25f, -12}},
        {VKI_OP_MAXIMUM, {2, -2, 3, 2, 5, 0.5f}},
        {VKI_OP_MINIMUM, {1, -4, 0.5f, -4, -4, -6}},
        {VKI_OP_PRELU, {1, 8, 3, -8, 5, -3}},
    };
    for (int k = 0; k < 6; k++) {
        vki_model *m = vki_model_new("ref");
        int ta = harness_tensor(m, 1, 2, 3), tb = harness_tensor_nd(m, 1, (int[]){3});
        int out = harness_binary(m, cases[k].code, ta, tb, harness_tensor(m, 1, 2, 3));
        vki_model_set_io(m, 2, (int[]){ta, tb}, 1, &out);
        float y[6];
        cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
        cr_assert_eq(vki_model_reference_run(m, (const float *const[]){a, b}, (float *const[]){y}),
                     VKI_OK, "%s", vki_last_error());
        expect_values(y, cases[k].want, 6, 1e-6f);
        vki_model_destroy(m);
    }
}

/* ---- validation messages ---------------------------------------------------------------- */

static vki_model *binary_model(vki_op_code code, harness_operand a, harness_operand b,
                               int out_rank, const int *out_dims) {
    vki_model *m = vki_model_new("bad");
    int inputs[2], n_inputs = 0;
    int ta = harness_operand_add(m, a, 1, inputs, &n_inputs);
    int tb = harness_operand_add(m, b, 2, inputs, &n_inputs);
    int out = harness_binary(m, code, ta, tb, harness_tensor_nd(m, out_rank, out_dims));
    vki_model_set_io(m, n_inputs, inputs, 1, &out);
    return m;
}

#define ACT OPERAND_ACT
#define CONST OPERAND_CONST

Test(eltwise_validation, binary_shapes) {
    const int out[4] = {1, 3, 5, 4};
    harness_expect_invalid(binary_model(VKI_OP_MUL, ACT(1, 3, 5, 4), ACT(1, 3, 5, 3), 4, out),
                           VKI_ERROR_MODEL_FORMAT, "do not broadcast");
    harness_expect_invalid(binary_model(VKI_OP_SUB, ACT(1, 3, 5, 4), CONST(-1, 1, 5, 5, 4), 4, out),
                           VKI_ERROR_MODEL_FORMAT, "do not broadcast");
    /* Output larger than the broadcast of the inputs. */
    harness_expect_invalid(binary_model(VKI_OP_ADD, ACT(1, 1, 1, 4), CONST(-1, 1, 4), 4, out),
                           VKI_ERROR_MODEL_FORMAT, "is [1,3,5,4], the op makes [1,1,1,4]");
    harness_expect_invalid(binary_model(VKI_OP_PRELU, ACT(1, 3, 5, 4), CONST(-1, 1, 1, 1, 4), 4,
                                        (int[]){1, 3, 5, 3}),
                           VKI_ERROR_MODEL_FORMAT, "is [1,3,5,3]");
    harness_expect_invalid(binary_model(VKI_OP_MAXIMUM, ACT(1, 3, 5, 4), CONST(-1, 1, 2, 1, 1, 4), 4,
                                        out),
                           VKI_ERROR_MODEL_FORMAT, "the op makes [2,3,5,4]");
}

Test(eltwise_validation, binary_constants_and_activation) {
    vki_model *m = vki_model_new("bad");
    int a = harness_const(m, 1, (int[]){4}, 1, -1, 1), b = harness_const(m, 1, (int[]){4}, 2, -1, 1);
    int x = harness_tensor(m, 1, 1, 4);
    int out = harness_binary(m, VKI_OP_DIV, a, b, harness_tensor(m, 1, 1, 4));
    int out2 = harness_binary(m, VKI_OP_ADD, out, x, harness_tensor(m, 1, 1, 4));
    vki_model_set_io(m, 1, &x, 1, &out2);
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "every input is a constant");

    m = binary_model(VKI_OP_MUL, ACT(1, 3, 5, 4), ACT(1, 3, 5, 4), 4, (int[]){1, 3, 5, 4});
    m->ops[m->n_ops - 1].opt.eltwise.activation = (vki_activation)7;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation 7");
}

Test(eltwise_validation, unary) {
    vki_model *m = vki_model_new("bad");
    int x = harness_tensor(m, 3, 5, 4);
    int out = harness_tensor(m, 3, 5, 3);
    vki_model_add_op(m, VKI_OP_TANH, 1, &x, 1, &out);
    vki_model_set_io(m, 1, &x, 1, &out);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "is [1,3,5,3], the op makes [1,3,5,4]");

    m = vki_model_new("bad");
    x = harness_tensor(m, 3, 5, 4);
    out = harness_tensor(m, 3, 5, 4);
    vki_model_add_op(m, VKI_OP_LEAKY_RELU, 1, &x, 1, &out)->opt.leaky_relu.alpha = NAN;
    vki_model_set_io(m, 1, &x, 1, &out);
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "not finite");

    m = vki_model_new("bad");
    x = harness_tensor(m, 3, 5, 4);
    int k = harness_const(m, 4, (int[]){1, 3, 5, 4}, 3, -1, 1);
    out = harness_tensor(m, 3, 5, 4);
    int mid = harness_tensor(m, 3, 5, 4);
    vki_model_add_op(m, VKI_OP_LOGISTIC, 1, &k, 1, &mid);
    harness_binary(m, VKI_OP_ADD, mid, x, out);
    vki_model_set_io(m, 1, &x, 1, &out);
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is a constant");
}
