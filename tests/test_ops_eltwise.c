/* test_ops_eltwise.c: the elementwise ops (unary.c, binary.c) on odd shapes against their
 * C references: RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU; ADD, SUB, MUL, DIV,
 * MAXIMUM, MINIMUM with every broadcast form, constants on either side and fused
 * activations; PRELU. Also spot checks of the references themselves against hand-worked
 * TFLite values, and the validation messages. */
#include "harness.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static const int channels[] = {1, 3, 4, 5, 17};
static const int spatial[][2] = {{7, 5}, {1, 1}, {3, 9}};
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])
#define N_SPATIAL (int)(sizeof spatial / sizeof spatial[0])

/* Arithmetic is correctly rounded on both sides; exp/tanh are not. */
#define TOL 1e-6
#define TOL_TRANSCENDENTAL 1e-5

/* ---- building operands ------------------------------------------------------------------ */

/* One operand of the op under test: an activation (a graph input, moved from the harness'
 * [-1, 1) onto [lo, hi) by a MUL and an ADD that run before the op) or a constant filled
 * in [lo, hi). */
typedef struct operand {
    int rank;
    int dims[4];
    bool is_const;
    float lo, hi;
} operand;

#define SHAPE(...) .rank = (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), .dims = {__VA_ARGS__}
#define ACT(...) ((operand){SHAPE(__VA_ARGS__), .lo = -1.0f, .hi = 1.0f})
#define ACT_IN(lo_, hi_, ...) ((operand){SHAPE(__VA_ARGS__), .lo = (lo_), .hi = (hi_)})
#define CONST(lo_, hi_, ...) ((operand){SHAPE(__VA_ARGS__), .is_const = true, .lo = (lo_), .hi = (hi_)})
#define SCALAR(lo_, hi_) ((operand){.rank = 0, .is_const = true, .lo = (lo_), .hi = (hi_)})

static int scalar_const(vki_model *m, float v) {
    int t = vki_model_add_tensor(m, "k", VKI_DTYPE_FLOAT32, 0, NULL, &v, sizeof v);
    cr_assert(t >= 0);
    return t;
}

static int tensor(vki_model *m, int rank, const int *dims) {
    int t = vki_model_add_tensor(m, "t", VKI_DTYPE_FLOAT32, rank, dims, NULL, 0);
    cr_assert(t >= 0);
    return t;
}

static int binary_op(vki_model *m, vki_op_code code, int a, int b, int out) {
    int ins[2] = {a, b};
    vki_op *op = vki_model_add_op(m, code, 2, ins, 1, &out);
    cr_assert(op);
    return out;
}

typedef struct graph_inputs {
    int n;
    int t[4];
} graph_inputs;

static int add_operand(vki_model *m, operand o, uint32_t seed, graph_inputs *gi) {
    if (o.is_const) return harness_const(m, o.rank, o.dims, seed, o.lo, o.hi);
    int t = tensor(m, o.rank, o.dims);
    gi->t[gi->n++] = t;
    if (o.lo == -1.0f && o.hi == 1.0f) return t;
    int k = scalar_const(m, (o.hi - o.lo) / 2.0f), off = scalar_const(m, (o.hi + o.lo) / 2.0f);
    int scaled = binary_op(m, VKI_OP_MUL, t, k, tensor(m, o.rank, o.dims));
    return binary_op(m, VKI_OP_ADD, scaled, off, tensor(m, o.rank, o.dims));
}

/* ---- unary ops -------------------------------------------------------------------------- */

static void check_unary(vki_op_code code, float alpha, operand in, uint32_t seed, double tol) {
    vki_model *m = vki_model_new(vki_op_name(code));
    graph_inputs gi = {0};
    int x = add_operand(m, in, seed, &gi);
    int out = tensor(m, in.rank, in.dims);
    vki_op *op = vki_model_add_op(m, code, 1, &x, 1, &out);
    cr_assert(op);
    op->opt.leaky_relu.alpha = alpha;
    vki_model_set_io(m, gi.n, gi.t, 1, &out);
    harness_check(m, seed, tol);
}

/* Every channel count on every odd spatial shape, inputs spanning [lo, hi). */
static void sweep_unary(vki_op_code code, float alpha, float lo, float hi, double tol) {
    for (int s = 0; s < N_SPATIAL; s++)
        for (int i = 0; i < N_CHANNELS; i++)
            check_unary(code, alpha, ACT_IN(lo, hi, 1, spatial[s][0], spatial[s][1], channels[i]),
                        (uint32_t)(100 * s + i + 1), tol);
}

Test(relu, odd_shapes) {
    sweep_unary(VKI_OP_RELU, 0.0f, -1.0f, 1.0f, TOL);
}

Test(relu6, odd_shapes_across_both_clips) {
    sweep_unary(VKI_OP_RELU6, 0.0f, -8.0f, 8.0f, TOL);
}

Test(logistic, odd_shapes) {
    sweep_unary(VKI_OP_LOGISTIC, 0.0f, -8.0f, 8.0f, TOL_TRANSCENDENTAL);
}

Test(logistic, saturates_where_exp_overflows) {
    /* exp(100) overflows float: the output must be 0 and 1, not NaN. */
    check_unary(VKI_OP_LOGISTIC, 0.0f, ACT_IN(-120.0f, 120.0f, 1, 7, 5, 17), 5, TOL_TRANSCENDENTAL);
}

Test(tanh, odd_shapes) {
    sweep_unary(VKI_OP_TANH, 0.0f, -8.0f, 8.0f, TOL_TRANSCENDENTAL);
}

Test(tanh, saturates_for_large_inputs) {
    check_unary(VKI_OP_TANH, 0.0f, ACT_IN(-25.0f, 25.0f, 1, 7, 5, 17), 6, TOL_TRANSCENDENTAL);
    check_unary(VKI_OP_TANH, 0.0f, ACT_IN(-1000.0f, 1000.0f, 1, 3, 9, 5), 7, TOL_TRANSCENDENTAL);
}

Test(hard_swish, odd_shapes) {
    sweep_unary(VKI_OP_HARD_SWISH, 0.0f, -8.0f, 8.0f, TOL);
    /* Dense around the kinks at -3 and 3. */
    check_unary(VKI_OP_HARD_SWISH, 0.0f, ACT_IN(-4.0f, 4.0f, 1, 7, 5, 17), 8, TOL);
}

Test(leaky_relu, odd_shapes_and_alphas) {
    sweep_unary(VKI_OP_LEAKY_RELU, 0.2f, -8.0f, 8.0f, TOL);
    check_unary(VKI_OP_LEAKY_RELU, 0.01f, ACT(1, 7, 5, 3), 9, TOL);
    check_unary(VKI_OP_LEAKY_RELU, 1.5f, ACT(1, 3, 9, 5), 10, TOL);
    check_unary(VKI_OP_LEAKY_RELU, -0.5f, ACT(1, 1, 1, 17), 11, TOL);
}

Test(unary, lower_ranks) {
    static const vki_op_code codes[] = {VKI_OP_RELU6, VKI_OP_LOGISTIC, VKI_OP_TANH,
                                        VKI_OP_HARD_SWISH, VKI_OP_LEAKY_RELU};
    for (int i = 0; i < 5; i++) {
        check_unary(codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 1, 5, 17), (uint32_t)(20 + i), TOL_TRANSCENDENTAL);
        check_unary(codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 1, 13), (uint32_t)(30 + i), TOL_TRANSCENDENTAL);
        check_unary(codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 5), (uint32_t)(40 + i), TOL_TRANSCENDENTAL);
    }
}

/* ---- binary ops ------------------------------------------------------------------------- */

/* The right-aligned broadcast of the operand shapes, at the larger rank. */
static int broadcast_shape(operand a, operand b, int *dims) {
    int rank = a.rank > b.rank ? a.rank : b.rank;
    for (int i = 0; i < rank; i++) {
        int ia = a.rank - rank + i, ib = b.rank - rank + i;
        int da = ia >= 0 ? a.dims[ia] : 1, db = ib >= 0 ? b.dims[ib] : 1;
        dims[i] = da == 1 ? db : da;
    }
    return rank;
}

static void check_binary(vki_op_code code, vki_activation act, operand a, operand b,
                         uint32_t seed, double tol) {
    vki_model *m = vki_model_new(vki_op_name(code));
    graph_inputs gi = {0};
    int ta = add_operand(m, a, seed, &gi);
    int tb = add_operand(m, b, seed + 1000u, &gi);
    int dims[4];
    int rank = broadcast_shape(a, b, dims);
    int out = binary_op(m, code, ta, tb, tensor(m, rank, dims));
    m->ops[m->n_ops - 1].opt.eltwise.activation = act;
    vki_model_set_io(m, gi.n, gi.t, 1, &out);
    harness_check(m, seed, tol);
}

static const vki_op_code binary_codes[] = {VKI_OP_ADD, VKI_OP_SUB, VKI_OP_MUL, VKI_OP_DIV,
                                           VKI_OP_MAXIMUM, VKI_OP_MINIMUM};
#define N_BINARY (int)(sizeof binary_codes / sizeof binary_codes[0])

/* A denominator-safe range for DIV's second operand, else [lo, hi). */
static operand rhs(vki_op_code code, operand o) {
    if (code == VKI_OP_DIV) {
        o.lo = 0.5f;
        o.hi = 2.0f;
    }
    return o;
}

Test(binary, same_shape_odd_channels) {
    for (int k = 0; k < N_BINARY; k++)
        for (int s = 0; s < N_SPATIAL; s++)
            for (int i = 0; i < N_CHANNELS; i++) {
                int h = spatial[s][0], w = spatial[s][1], c = channels[i];
                check_binary(binary_codes[k], VKI_ACT_NONE, ACT(1, h, w, c),
                             rhs(binary_codes[k], ACT(1, h, w, c)),
                             (uint32_t)(1000 * k + 100 * s + i), TOL);
            }
}

/* Each broadcast form, with the broadcast (or constant) operand on either side. */
static void broadcast_forms(vki_op_code code, vki_activation act, int h, int w, int c, uint32_t seed) {
    const operand full = ACT(1, h, w, c);
    const operand forms[] = {
        CONST(-1.0f, 1.0f, 1, 1, 1, c),     /* [1,1,1,C] constant */
        ACT(1, 1, 1, c),                    /* [1,1,1,C] activation */
        CONST(-1.0f, 1.0f, c),              /* [C] constant */
        CONST(-1.0f, 1.0f, 1, 1, c),        /* [1,1,C] constant (right-aligned to W=1) */
        SCALAR(-1.0f, 1.0f),                /* rank 0 */
        CONST(-1.0f, 1.0f, 1),              /* [1] */
        ACT(1, h, w, 1),                    /* [1,H,W,1] activation */
        CONST(-1.0f, 1.0f, 1, h, w, 1),     /* [1,H,W,1] constant */
        CONST(-1.0f, 1.0f, h, w, c),        /* [H,W,C] constant, right-aligned */
        CONST(-1.0f, 1.0f, 1, h, w, c),     /* same shape constant */
        ACT(1, h, 1, c),                    /* [1,H,1,C] activation */
        CONST(-1.0f, 1.0f, 1, 1, w, 1),     /* [1,1,W,1] constant */
    };
    for (int f = 0; f < (int)(sizeof forms / sizeof forms[0]); f++) {
        uint32_t sd = seed + 10u * (uint32_t)f;
        check_binary(code, act, full, rhs(code, forms[f]), sd, act == VKI_ACT_TANH ? TOL_TRANSCENDENTAL : TOL);
        /* Swapped: the broadcast operand first (scalar - x, [C] / x, ...). */
        operand den = code == VKI_OP_DIV ? ACT_IN(0.5f, 2.0f, 1, h, w, c) : full;
        check_binary(code, act, forms[f], den, sd + 1u, act == VKI_ACT_TANH ? TOL_TRANSCENDENTAL : TOL);
    }
}

Test(binary, broadcast_forms_both_sides) {
    for (int k = 0; k < N_BINARY; k++) {
        broadcast_forms(binary_codes[k], VKI_ACT_NONE, 7, 5, 17, 5000u + 300u * (uint32_t)k);
        broadcast_forms(binary_codes[k], VKI_ACT_NONE, 3, 9, 5, 9000u + 300u * (uint32_t)k);
    }
}

Test(binary, broadcast_odd_channels) {
    for (int k = 0; k < N_BINARY; k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int c = channels[i];
            vki_op_code code = binary_codes[k];
            uint32_t sd = 20000u + 100u * (uint32_t)k + 10u * (uint32_t)i;
            check_binary(code, VKI_ACT_NONE, ACT(1, 3, 9, c), rhs(code, CONST(-1.0f, 1.0f, 1, 1, 1, c)), sd, TOL);
            check_binary(code, VKI_ACT_NONE, ACT(1, 7, 5, c), rhs(code, ACT(1, 7, 5, 1)), sd + 1u, TOL);
            check_binary(code, VKI_ACT_NONE, ACT(1, 1, 1, c), rhs(code, SCALAR(-1.0f, 1.0f)), sd + 2u, TOL);
        }
}

Test(binary, both_operands_broadcast) {
    /* [1,H,1,C] op [1,1,W,1] -> [1,H,W,C]: neither operand has the output's shape. */
    for (int k = 0; k < N_BINARY; k++)
        check_binary(binary_codes[k], VKI_ACT_NONE, ACT(1, 3, 1, 5), rhs(binary_codes[k], ACT(1, 1, 9, 1)),
                     30000u + (uint32_t)k, TOL);
}

Test(binary, fused_activations) {
    static const vki_op_code fused[] = {VKI_OP_ADD, VKI_OP_SUB, VKI_OP_MUL, VKI_OP_DIV};
    static const vki_activation acts[] = {VKI_ACT_RELU, VKI_ACT_RELU6, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_TANH};
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 4; a++) {
            uint32_t sd = 40000u + 100u * (uint32_t)k + 10u * (uint32_t)a;
            double tol = acts[a] == VKI_ACT_TANH ? TOL_TRANSCENDENTAL : TOL;
            /* Wide ranges so that RELU6 and RELU_N1_TO_1 clip on both sides. */
            operand x = ACT_IN(-8.0f, 8.0f, 1, 7, 5, 5);
            operand y = fused[k] == VKI_OP_DIV ? CONST(0.25f, 2.0f, 1, 1, 1, 5)
                                               : CONST(-6.0f, 6.0f, 1, 1, 1, 5);
            check_binary(fused[k], acts[a], x, y, sd, tol);
            check_binary(fused[k], acts[a], SCALAR(-8.0f, 8.0f),
                         fused[k] == VKI_OP_DIV ? ACT_IN(0.5f, 2.0f, 1, 3, 9, 17) : ACT(1, 3, 9, 17),
                         sd + 1u, tol);
        }
    /* The tanh activation saturating well past where exp overflows. */
    check_binary(VKI_OP_MUL, VKI_ACT_TANH, ACT(1, 7, 5, 17), CONST(50.0f, 100.0f, 17), 40900u,
                 TOL_TRANSCENDENTAL);
}

Test(div, negative_and_mixed_sign_denominators) {
    check_binary(VKI_OP_DIV, VKI_ACT_NONE, ACT(1, 7, 5, 17), CONST(-2.0f, -0.5f, 1, 1, 1, 17), 41000u, TOL);
    check_binary(VKI_OP_DIV, VKI_ACT_NONE, CONST(-4.0f, 4.0f, 1, 1, 1, 3), ACT_IN(-2.0f, -0.5f, 1, 3, 9, 3),
                 41001u, TOL);
    check_binary(VKI_OP_DIV, VKI_ACT_NONE, SCALAR(1.0f, 1.5f), ACT_IN(0.5f, 2.0f, 1, 1, 1, 5), 41002u, TOL);
}

Test(binary, same_tensor_twice) {
    /* x * x and x - x bind one buffer to both operands. */
    static const vki_op_code codes[] = {VKI_OP_MUL, VKI_OP_SUB, VKI_OP_MAXIMUM};
    for (int k = 0; k < 3; k++) {
        vki_model *m = vki_model_new("square");
        int x = harness_tensor(m, 7, 5, 5);
        int out = binary_op(m, codes[k], x, x, harness_tensor(m, 7, 5, 5));
        vki_model_set_io(m, 1, &x, 1, &out);
        harness_check(m, 42000u + (uint32_t)k, TOL);
    }
}

Test(binary, lower_ranks) {
    for (int k = 0; k < N_BINARY; k++) {
        vki_op_code code = binary_codes[k];
        uint32_t sd = 43000u + 10u * (uint32_t)k;
        check_binary(code, VKI_ACT_NONE, ACT(1, 13), rhs(code, CONST(-1.0f, 1.0f, 13)), sd, TOL);
        check_binary(code, VKI_ACT_NONE, ACT(1, 9, 6), rhs(code, CONST(-1.0f, 1.0f, 9, 6)), sd + 1u, TOL);
        check_binary(code, VKI_ACT_NONE, CONST(-1.0f, 1.0f, 1, 6), rhs(code, ACT(1, 9, 6)), sd + 2u, TOL);
        check_binary(code, VKI_ACT_NONE, ACT(5), rhs(code, SCALAR(-1.0f, 1.0f)), sd + 3u, TOL);
    }
}

/* ---- PRELU ------------------------------------------------------------------------------ */

Test(prelu, alpha_shapes) {
    for (int s = 0; s < N_SPATIAL; s++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int h = spatial[s][0], w = spatial[s][1], c = channels[i];
            uint32_t sd = 50000u + 100u * (uint32_t)s + 10u * (uint32_t)i;
            operand x = ACT_IN(-4.0f, 4.0f, 1, h, w, c);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, CONST(-0.5f, 0.5f, 1, 1, c), sd, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, CONST(0.0f, 0.3f, c), sd + 1u, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, CONST(0.0f, 0.3f, 1, 1, 1, c), sd + 2u, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, CONST(0.0f, 2.0f, h, w, c), sd + 3u, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, SCALAR(0.1f, 0.2f), sd + 4u, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, ACT(1, h, w, c), sd + 5u, TOL);
            check_binary(VKI_OP_PRELU, VKI_ACT_NONE, x, ACT(1, h, w, 1), sd + 6u, TOL);
        }
}

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

Test(reference, unary_values) {
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

Test(reference, binary_values) {
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
        int ta = harness_tensor(m, 1, 2, 3), tb = tensor(m, 1, (int[]){3});
        int out = binary_op(m, cases[k].code, ta, tb, harness_tensor(m, 1, 2, 3));
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

static void expect_invalid(vki_model *m, vki_status want, const char *needle) {
    vki_status s = vki_model_validate(m);
    cr_assert_eq(s, want, "status %s, want %s (%s)", vki_status_name(s), vki_status_name(want),
                 s ? vki_last_error() : "validated");
    cr_assert(strstr(vki_last_error(), needle), "message '%s' lacks '%s'", vki_last_error(), needle);
    vki_model_destroy(m);
}

static vki_model *binary_model(vki_op_code code, operand a, operand b, int out_rank, const int *out_dims) {
    vki_model *m = vki_model_new("bad");
    graph_inputs gi = {0};
    int ta = add_operand(m, a, 1, &gi), tb = add_operand(m, b, 2, &gi);
    int out = binary_op(m, code, ta, tb, tensor(m, out_rank, out_dims));
    vki_model_set_io(m, gi.n, gi.t, 1, &out);
    return m;
}

Test(validate, binary_shapes) {
    expect_invalid(binary_model(VKI_OP_MUL, ACT(1, 3, 5, 4), ACT(1, 3, 5, 3), 4, (int[]){1, 3, 5, 4}),
                   VKI_ERROR_MODEL_FORMAT, "do not broadcast");
    expect_invalid(binary_model(VKI_OP_SUB, ACT(1, 3, 5, 4), CONST(-1, 1, 5, 5, 4), 4, (int[]){1, 3, 5, 4}),
                   VKI_ERROR_MODEL_FORMAT, "do not broadcast");
    /* Output larger than the broadcast of the inputs. */
    expect_invalid(binary_model(VKI_OP_ADD, ACT(1, 1, 1, 4), CONST(-1, 1, 4), 4, (int[]){1, 3, 5, 4}),
                   VKI_ERROR_MODEL_FORMAT, "the inputs broadcast to [1,1,1,4]");
    expect_invalid(binary_model(VKI_OP_PRELU, ACT(1, 3, 5, 4), CONST(-1, 1, 1, 1, 4), 4, (int[]){1, 3, 5, 3}),
                   VKI_ERROR_MODEL_FORMAT, "is [1,3,5,3]");
    expect_invalid(binary_model(VKI_OP_MAXIMUM, ACT(1, 3, 5, 4), CONST(-1, 1, 2, 1, 1, 4), 4, (int[]){1, 3, 5, 4}),
                   VKI_ERROR_UNSUPPORTED_MODEL, "has batch 2");
}

Test(validate, binary_constants_and_activation) {
    vki_model *m = vki_model_new("bad");
    int a = harness_const(m, 1, (int[]){4}, 1, -1, 1), b = harness_const(m, 1, (int[]){4}, 2, -1, 1);
    int x = harness_tensor(m, 1, 1, 4);
    int out = binary_op(m, VKI_OP_DIV, a, b, harness_tensor(m, 1, 1, 4));
    int out2 = binary_op(m, VKI_OP_ADD, out, x, harness_tensor(m, 1, 1, 4));
    vki_model_set_io(m, 1, &x, 1, &out2);
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "both inputs");

    m = binary_model(VKI_OP_MUL, ACT(1, 3, 5, 4), ACT(1, 3, 5, 4), 4, (int[]){1, 3, 5, 4});
    m->ops[m->n_ops - 1].opt.eltwise.activation = (vki_activation)7;
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation 7");
}

Test(validate, unary) {
    vki_model *m = vki_model_new("bad");
    int x = harness_tensor(m, 3, 5, 4);
    int out = harness_tensor(m, 3, 5, 3);
    vki_model_add_op(m, VKI_OP_TANH, 1, &x, 1, &out);
    vki_model_set_io(m, 1, &x, 1, &out);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "expected [3,5,4]");

    m = vki_model_new("bad");
    x = harness_tensor(m, 3, 5, 4);
    out = harness_tensor(m, 3, 5, 4);
    vki_model_add_op(m, VKI_OP_LEAKY_RELU, 1, &x, 1, &out)->opt.leaky_relu.alpha = NAN;
    vki_model_set_io(m, 1, &x, 1, &out);
    expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "not finite");

    m = vki_model_new("bad");
    x = harness_tensor(m, 3, 5, 4);
    int k = harness_const(m, 4, (int[]){1, 3, 5, 4}, 3, -1, 1);
    out = harness_tensor(m, 3, 5, 4);
    int mid = harness_tensor(m, 3, 5, 4);
    vki_model_add_op(m, VKI_OP_LOGISTIC, 1, &k, 1, &mid);
    binary_op(m, VKI_OP_ADD, mid, x, out);
    vki_model_set_io(m, 1, &x, 1, &out);
    expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "is a constant");
}
