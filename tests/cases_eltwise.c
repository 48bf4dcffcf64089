/* cases_eltwise.c: the elementwise ops (unary.c, binary.c) on odd shapes: RELU, RELU6,
 * RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH, LEAKY_RELU; ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM
 * with every broadcast form, constants on either side and fused activations; PRELU. The
 * ops the activation pass folds (RELU6, RELU_N1_TO_1, LOGISTIC, TANH, HARD_SWISH) run both
 * as their own kernel and folded into the producer's epilogue (unary_path). */
#include "op_cases.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

static const int spatial[][2] = {{7, 5}, {1, 1}, {3, 9}};
#define N_SPATIAL (int)(sizeof spatial / sizeof spatial[0])

/* Arithmetic is correctly rounded on both sides; exp/tanh are not. */
#define TOL 1e-6
#define TOL_TRANSCENDENTAL 1e-5

/* ---- operands --------------------------------------------------------------------------- */

typedef harness_operand operand;
#define ACT OPERAND_ACT
#define ACT_IN OPERAND_ACT_IN
#define CONST OPERAND_CONST
#define SCALAR OPERAND_SCALAR

typedef struct graph_inputs {
    int n;
    int t[4];
} graph_inputs;

static int add_operand(vki_model *m, operand o, uint32_t seed, graph_inputs *gi) {
    return harness_operand_add(m, o, seed, gi->t, &gi->n);
}

/* "[1,7,5,17]", "const[17] in [-6,6)": the range only where it is not [-1, 1). */
static void describe(char *buf, size_t size, operand o) {
    size_t len = (size_t)snprintf(buf, size, "%s", o.is_const ? "const" : "");
    op_case_shape(buf, size, &len, o.rank, o.dims);
    if (o.lo != -1.0f || o.hi != 1.0f)
        snprintf(buf + len, size - len, " in [%g,%g)", (double)o.lo, (double)o.hi);
}

typedef struct eltwise_params {
    vki_activation act;         /* binary ops: the fused activation */
    float alpha;                /* unary ops: written to opt.leaky_relu.alpha */
    operand a, b;               /* unary ops: a only */
} eltwise_params;

/* ---- unary ops -------------------------------------------------------------------------- */

static vki_model *build_unary(const op_case *c) {
    const eltwise_params *p = OP_CASE_PARAMS(c, const eltwise_params);
    vki_model *m = vki_model_new(vki_op_name((int)c->op));
    graph_inputs gi = {0};
    int x = add_operand(m, p->a, c->seed, &gi);
    int out = harness_tensor_nd(m, p->a.rank, p->a.dims);
    harness_op(m, c->op, 1, &x, out)->opt.leaky_relu.alpha = p->alpha;
    vki_model_set_io(m, gi.n, gi.t, 1, &out);
    return m;
}

/* The ops the activation pass folds into their producer's epilogue. */
static bool foldable(vki_op_code code) {
    return code == VKI_OP_RELU || code == VKI_OP_RELU6 || code == VKI_OP_RELU_N1_TO_1 ||
           code == VKI_OP_TANH || code == VKI_OP_LOGISTIC || code == VKI_OP_HARD_SWISH;
}

/* How a foldable op runs. An input range other than [-1, 1) puts a MUL and an ADD ahead of
 * the op (harness_operand_add), and the activation pass folds the op into that ADD's
 * epilogue: STANDALONE turns the pass off for the case, so the op's own kernel runs, and
 * FUSED keeps it, so the epilogue does. Both pin the dispatch count (the op's dispatch is
 * there or not), so a case cannot drift to the other path unnoticed. */
typedef enum unary_path { STANDALONE, FUSED } unary_path;

/* Dispatches of a case with the MUL and ADD ahead: the input's conversion, MUL, ADD, then
 * either nothing (fused: the ADD's epilogue applies the activation and writes the dense
 * output) or the op and the output's conversion (the op's own kernel has no epilogue). */
static int unary_dispatches(unary_path path) { return path == FUSED ? 3 : 5; }

static void unary_case_on(op_case_list *l, vki_op_code code, float alpha, operand in,
                          uint32_t seed, double tol, unary_path path) {
    op_case *c = op_case_add(l, code, build_unary, seed, tol);
    OP_CASE_SET_PARAMS(c, eltwise_params, ((eltwise_params){.alpha = alpha, .a = in}));
    char a[64];
    describe(a, sizeof a, in);
    const char *how = "";
    if (foldable(code) && (in.lo != -1.0f || in.hi != 1.0f)) {
        c->dispatches = unary_dispatches(path);
        if (path == STANDALONE) {
            c->env_name = "VKI_DISABLE_PASSES";
            c->env_value = "activation";
        }
        how = path == STANDALONE ? " (own kernel)" : " (fused into ADD)";
    }
    if (code == VKI_OP_LEAKY_RELU)
        op_case_label(c, "%s alpha %g %s", vki_op_name((int)code), (double)alpha, a);
    else
        op_case_label(c, "%s %s%s", vki_op_name((int)code), a, how);
}

static void unary_case(op_case_list *l, vki_op_code code, float alpha, operand in, uint32_t seed,
                       double tol) {
    unary_case_on(l, code, alpha, in, seed, tol, STANDALONE);
}

/* Every channel count on every odd spatial shape, inputs spanning [lo, hi), through the
 * op's own kernel; then the first shape's channel counts again folded into the ADD ahead. */
static void sweep_unary(op_case_list *l, vki_op_code code, float alpha, float lo, float hi,
                        double tol) {
    for (int s = 0; s < N_SPATIAL; s++)
        for (int i = 0; i < N_CHANNELS; i++)
            unary_case(l, code, alpha, ACT_IN(lo, hi, 1, spatial[s][0], spatial[s][1], channels[i]),
                       (uint32_t)(100 * s + i + 1), tol);
    if (!foldable(code) || (lo == -1.0f && hi == 1.0f)) return;
    for (int i = 0; i < N_CHANNELS; i++)
        unary_case_on(l, code, alpha, ACT_IN(lo, hi, 1, spatial[0][0], spatial[0][1], channels[i]),
                      (uint32_t)(900 + i), tol, FUSED);
}

void op_cases_relu__odd_shapes(op_case_list *l) {
    sweep_unary(l, VKI_OP_RELU, 0.0f, -1.0f, 1.0f, TOL);
}

void op_cases_relu6__odd_shapes_across_both_clips(op_case_list *l) {
    sweep_unary(l, VKI_OP_RELU6, 0.0f, -8.0f, 8.0f, TOL);
}

void op_cases_logistic__odd_shapes(op_case_list *l) {
    sweep_unary(l, VKI_OP_LOGISTIC, 0.0f, -8.0f, 8.0f, TOL_TRANSCENDENTAL);
}

void op_cases_logistic__saturates_where_exp_overflows(op_case_list *l) {
    /* exp(100) overflows float: the output must be 0 and 1, not NaN. */
    unary_case(l, VKI_OP_LOGISTIC, 0.0f, ACT_IN(-120.0f, 120.0f, 1, 7, 5, 17), 5, TOL_TRANSCENDENTAL);
    unary_case_on(l, VKI_OP_LOGISTIC, 0.0f, ACT_IN(-120.0f, 120.0f, 1, 7, 5, 17), 15,
                  TOL_TRANSCENDENTAL, FUSED);
}

void op_cases_tanh__odd_shapes(op_case_list *l) {
    sweep_unary(l, VKI_OP_TANH, 0.0f, -8.0f, 8.0f, TOL_TRANSCENDENTAL);
}

void op_cases_tanh__saturates_for_large_inputs(op_case_list *l) {
    unary_case(l, VKI_OP_TANH, 0.0f, ACT_IN(-25.0f, 25.0f, 1, 7, 5, 17), 6, TOL_TRANSCENDENTAL);
    unary_case(l, VKI_OP_TANH, 0.0f, ACT_IN(-1000.0f, 1000.0f, 1, 3, 9, 5), 7, TOL_TRANSCENDENTAL);
    unary_case_on(l, VKI_OP_TANH, 0.0f, ACT_IN(-1000.0f, 1000.0f, 1, 3, 9, 5), 17,
                  TOL_TRANSCENDENTAL, FUSED);
}

void op_cases_hard_swish__odd_shapes(op_case_list *l) {
    sweep_unary(l, VKI_OP_HARD_SWISH, 0.0f, -8.0f, 8.0f, TOL);
    /* Dense around the kinks at -3 and 3. */
    unary_case(l, VKI_OP_HARD_SWISH, 0.0f, ACT_IN(-4.0f, 4.0f, 1, 7, 5, 17), 8, TOL);
    unary_case_on(l, VKI_OP_HARD_SWISH, 0.0f, ACT_IN(-4.0f, 4.0f, 1, 7, 5, 17), 18, TOL, FUSED);
}

void op_cases_relu_n1_to_1__odd_shapes_across_both_clips(op_case_list *l) {
    sweep_unary(l, VKI_OP_RELU_N1_TO_1, 0.0f, -2.0f, 2.0f, TOL);
}

void op_cases_leaky_relu__odd_shapes_and_alphas(op_case_list *l) {
    sweep_unary(l, VKI_OP_LEAKY_RELU, 0.2f, -8.0f, 8.0f, TOL);
    unary_case(l, VKI_OP_LEAKY_RELU, 0.01f, ACT(1, 7, 5, 3), 9, TOL);
    unary_case(l, VKI_OP_LEAKY_RELU, 1.5f, ACT(1, 3, 9, 5), 10, TOL);
    unary_case(l, VKI_OP_LEAKY_RELU, -0.5f, ACT(1, 1, 1, 17), 11, TOL);
}

void op_cases_unary__lower_ranks(op_case_list *l) {
    static const vki_op_code codes[] = {VKI_OP_RELU6, VKI_OP_LOGISTIC, VKI_OP_TANH,
                                        VKI_OP_HARD_SWISH, VKI_OP_LEAKY_RELU};
    for (int i = 0; i < 5; i++) {
        double tol = TOL_TRANSCENDENTAL;
        unary_case(l, codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 1, 5, 17), (uint32_t)(20 + i), tol);
        unary_case(l, codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 1, 13), (uint32_t)(30 + i), tol);
        unary_case(l, codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 5), (uint32_t)(40 + i), tol);
    }
    /* Folded into the ADD ahead (LEAKY_RELU has no fused form). */
    for (int i = 0; i < 4; i++)
        unary_case_on(l, codes[i], 0.3f, ACT_IN(-8.0f, 8.0f, 1, 5, 17), (uint32_t)(50 + i),
                      TOL_TRANSCENDENTAL, FUSED);
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

static vki_model *build_binary(const op_case *c) {
    const eltwise_params *p = OP_CASE_PARAMS(c, const eltwise_params);
    vki_model *m = vki_model_new(vki_op_name((int)c->op));
    graph_inputs gi = {0};
    int ta = add_operand(m, p->a, c->seed, &gi);
    int tb = add_operand(m, p->b, c->seed + 1000u, &gi);
    int dims[4];
    int rank = broadcast_shape(p->a, p->b, dims);
    int out = harness_binary(m, c->op, ta, tb, harness_tensor_nd(m, rank, dims));
    m->ops[m->n_ops - 1].opt.eltwise.activation = p->act;
    vki_model_set_io(m, gi.n, gi.t, 1, &out);
    return m;
}

static const char *symbol(vki_op_code code) {
    switch (code) {
    case VKI_OP_ADD: return "+";
    case VKI_OP_SUB: return "-";
    case VKI_OP_MUL: return "*";
    case VKI_OP_DIV: return "/";
    case VKI_OP_MAXIMUM: return "max";
    case VKI_OP_MINIMUM: return "min";
    case VKI_OP_PRELU: return "alpha";
    default: return "?";
    }
}

/* kind: what the case is about ("broadcast", "fused"), printed after the op's name; may be
 * empty. */
static void binary_case(op_case_list *l, const char *kind, vki_op_code code, vki_activation act,
                        operand a, operand b, uint32_t seed, double tol) {
    op_case *c = op_case_add(l, code, build_binary, seed, tol);
    OP_CASE_SET_PARAMS(c, eltwise_params, ((eltwise_params){.act = act, .a = a, .b = b}));
    char sa[48], sb[48];
    describe(sa, sizeof sa, a);
    describe(sb, sizeof sb, b);
    op_case_label(c, "%s%s%s %s %s %s%s%s", vki_op_name((int)code), *kind ? " " : "", kind, sa,
                  symbol(code), sb, act ? " " : "", op_case_activation(act));
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

void op_cases_binary__same_shape_odd_channels(op_case_list *l) {
    for (int k = 0; k < N_BINARY; k++)
        for (int s = 0; s < N_SPATIAL; s++)
            for (int i = 0; i < N_CHANNELS; i++) {
                int h = spatial[s][0], w = spatial[s][1], c = channels[i];
                binary_case(l, "same shape", binary_codes[k], VKI_ACT_NONE, ACT(1, h, w, c),
                            rhs(binary_codes[k], ACT(1, h, w, c)),
                            (uint32_t)(1000 * k + 100 * s + i), TOL);
            }
}

/* Each broadcast form, with the broadcast (or constant) operand on either side. */
static void broadcast_forms(op_case_list *l, vki_op_code code, vki_activation act, int h, int w,
                            int c, uint32_t seed) {
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
    double tol = act == VKI_ACT_TANH ? TOL_TRANSCENDENTAL : TOL;
    for (int f = 0; f < (int)(sizeof forms / sizeof forms[0]); f++) {
        uint32_t sd = seed + 10u * (uint32_t)f;
        binary_case(l, "broadcast", code, act, full, rhs(code, forms[f]), sd, tol);
        /* Swapped: the broadcast operand first (scalar - x, [C] / x, ...). */
        operand den = code == VKI_OP_DIV ? ACT_IN(0.5f, 2.0f, 1, h, w, c) : full;
        binary_case(l, "broadcast", code, act, forms[f], den, sd + 1u, tol);
    }
}

void op_cases_binary__broadcast_forms_both_sides(op_case_list *l) {
    for (int k = 0; k < N_BINARY; k++) {
        broadcast_forms(l, binary_codes[k], VKI_ACT_NONE, 7, 5, 17, 5000u + 300u * (uint32_t)k);
        broadcast_forms(l, binary_codes[k], VKI_ACT_NONE, 3, 9, 5, 9000u + 300u * (uint32_t)k);
    }
}

void op_cases_binary__broadcast_odd_channels(op_case_list *l) {
    for (int k = 0; k < N_BINARY; k++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int c = channels[i];
            vki_op_code code = binary_codes[k];
            uint32_t sd = 20000u + 100u * (uint32_t)k + 10u * (uint32_t)i;
            binary_case(l, "broadcast", code, VKI_ACT_NONE, ACT(1, 3, 9, c),
                        rhs(code, CONST(-1.0f, 1.0f, 1, 1, 1, c)), sd, TOL);
            binary_case(l, "broadcast", code, VKI_ACT_NONE, ACT(1, 7, 5, c),
                        rhs(code, ACT(1, 7, 5, 1)), sd + 1u, TOL);
            binary_case(l, "broadcast", code, VKI_ACT_NONE, ACT(1, 1, 1, c),
                        rhs(code, SCALAR(-1.0f, 1.0f)), sd + 2u, TOL);
        }
}

void op_cases_binary__both_operands_broadcast(op_case_list *l) {
    /* [1,H,1,C] op [1,1,W,1] -> [1,H,W,C]: neither operand has the output's shape. */
    for (int k = 0; k < N_BINARY; k++)
        binary_case(l, "both broadcast", binary_codes[k], VKI_ACT_NONE, ACT(1, 3, 1, 5),
                    rhs(binary_codes[k], ACT(1, 1, 9, 1)), 30000u + (uint32_t)k, TOL);
}

void op_cases_binary__fused_activations(op_case_list *l) {
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
            binary_case(l, "fused", fused[k], acts[a], x, y, sd, tol);
            binary_case(l, "fused", fused[k], acts[a], SCALAR(-8.0f, 8.0f),
                        fused[k] == VKI_OP_DIV ? ACT_IN(0.5f, 2.0f, 1, 3, 9, 17) : ACT(1, 3, 9, 17),
                        sd + 1u, tol);
        }
    /* The tanh activation saturating well past where exp overflows. */
    binary_case(l, "fused", VKI_OP_MUL, VKI_ACT_TANH, ACT(1, 7, 5, 17), CONST(50.0f, 100.0f, 17),
                40900u, TOL_TRANSCENDENTAL);
}

void op_cases_div__negative_and_mixed_sign_denominators(op_case_list *l) {
    binary_case(l, "negative", VKI_OP_DIV, VKI_ACT_NONE, ACT(1, 7, 5, 17),
                CONST(-2.0f, -0.5f, 1, 1, 1, 17), 41000u, TOL);
    binary_case(l, "negative", VKI_OP_DIV, VKI_ACT_NONE, CONST(-4.0f, 4.0f, 1, 1, 1, 3),
                ACT_IN(-2.0f, -0.5f, 1, 3, 9, 3), 41001u, TOL);
    binary_case(l, "positive", VKI_OP_DIV, VKI_ACT_NONE, SCALAR(1.0f, 1.5f),
                ACT_IN(0.5f, 2.0f, 1, 1, 1, 5), 41002u, TOL);
}

/* x op x: one buffer bound to both operands. */
static vki_model *build_same_tensor(const op_case *c) {
    vki_model *m = vki_model_new("square");
    int x = harness_tensor(m, 7, 5, 5);
    int out = harness_binary(m, c->op, x, x, harness_tensor(m, 7, 5, 5));
    vki_model_set_io(m, 1, &x, 1, &out);
    return m;
}

void op_cases_binary__same_tensor_twice(op_case_list *l) {
    static const vki_op_code codes[] = {VKI_OP_MUL, VKI_OP_SUB, VKI_OP_MAXIMUM};
    for (int k = 0; k < 3; k++) {
        op_case *c = op_case_add(l, codes[k], build_same_tensor, 42000u + (uint32_t)k, TOL);
        op_case_label(c, "%s same tensor [1,7,5,5] %s itself", vki_op_name((int)codes[k]),
                      symbol(codes[k]));
    }
}

void op_cases_binary__lower_ranks(op_case_list *l) {
    for (int k = 0; k < N_BINARY; k++) {
        vki_op_code code = binary_codes[k];
        uint32_t sd = 43000u + 10u * (uint32_t)k;
        const char *kind = "lower rank";
        binary_case(l, kind, code, VKI_ACT_NONE, ACT(1, 13), rhs(code, CONST(-1.0f, 1.0f, 13)),
                    sd, TOL);
        binary_case(l, kind, code, VKI_ACT_NONE, ACT(1, 9, 6), rhs(code, CONST(-1.0f, 1.0f, 9, 6)),
                    sd + 1u, TOL);
        binary_case(l, kind, code, VKI_ACT_NONE, CONST(-1.0f, 1.0f, 1, 6), rhs(code, ACT(1, 9, 6)),
                    sd + 2u, TOL);
        binary_case(l, kind, code, VKI_ACT_NONE, ACT(5), rhs(code, SCALAR(-1.0f, 1.0f)),
                    sd + 3u, TOL);
    }
}

/* ---- PRELU ------------------------------------------------------------------------------ */

void op_cases_prelu__alpha_shapes(op_case_list *l) {
    for (int s = 0; s < N_SPATIAL; s++)
        for (int i = 0; i < N_CHANNELS; i++) {
            int h = spatial[s][0], w = spatial[s][1], c = channels[i];
            uint32_t sd = 50000u + 100u * (uint32_t)s + 10u * (uint32_t)i;
            operand x = ACT_IN(-4.0f, 4.0f, 1, h, w, c);
            const operand alphas[] = {
                CONST(-0.5f, 0.5f, 1, 1, c), CONST(0.0f, 0.3f, c), CONST(0.0f, 0.3f, 1, 1, 1, c),
                CONST(0.0f, 2.0f, h, w, c),  SCALAR(0.1f, 0.2f),   ACT(1, h, w, c),
                ACT(1, h, w, 1),
            };
            for (int a = 0; a < 7; a++)
                binary_case(l, "", VKI_OP_PRELU, VKI_ACT_NONE, x, alphas[a],
                            sd + (uint32_t)a, TOL);
        }
}
