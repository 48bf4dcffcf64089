/* cases_general.c: the ops of general shapes (rank 0 to 5, batch > 1, index tensors) on
 * odd shapes: the unary math functions, CAST and LOGICAL_NOT; the binary ops broadcasting
 * over 5 dims, the comparisons, the logical ops and SELECT_V2; the reductions, ARG_MAX /
 * ARG_MIN (with ties) and CUMSUM; LOG_SOFTMAX, L2_NORMALIZATION,
 * LOCAL_RESPONSE_NORMALIZATION and SOFTMAX on any rank; the layout ops of remap.c; RESHAPE,
 * SQUEEZE, EXPAND_DIMS across ranks; BATCH_MATMUL and FULLY_CONNECTED over rows.
 *
 * A case is one op between graph inputs and outputs that are float32, as the engine's
 * graph I/O is: an index operand comes from a float input through CAST (integers) or
 * GREATER (bool), and an index output leaves through CAST to float32, so the device's
 * index tensors are checked exactly as the C references compute them. */
#include "op_cases.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

#define TOL 1e-6
#define TOL_TRANSCENDENTAL 1e-5
/* Sums over up to a few hundred elements, in another order than the reference. */
#define TOL_SUM 1e-5
/* The fp16 runs of cases with integer or boolean results take inputs on this grid
 * (harness_spec.fp16_step): multiples of 1/64 in [-1, 1), and the range mapping's products
 * (x * 2, 4, 5, 8 plus 0 or 2) stay exact in float16, so the op sees in fp16 exactly what
 * the reference does and its integer results must match exactly (fp16_tol 0). */
#define FP16_GRID (1.0f / 64.0f)

/* The case's fp16 runs on the grid `step`, held to exact results. */
static op_case *fp16_exact(op_case *c, float step) {
    c->fp16_step = step;
    c->fp16_tol = 0.0;
    return c;
}

/* ---- the case description ------------------------------------------------------------- */

typedef enum gen_kind {
    GEN_ACT,        /* a float graph input spanning [lo, hi) */
    GEN_CONST,      /* a float constant spanning [lo, hi) */
    GEN_INTS,       /* an int32 constant: v[0..n) */
    GEN_INDEX,      /* an int32 activation: a float input in [lo, hi) through CAST */
    GEN_BOOL,       /* a bool activation: a float input through GREATER than 0 */
    GEN_QUANT,      /* a float input in [lo, hi) rounded onto the case's int8 grid */
} gen_kind;

typedef struct gen_tensor {
    uint8_t kind;
    int8_t rank;
    int16_t dims[5];
    float lo, hi;
    int16_t n;
    int32_t v[12];
} gen_tensor;

typedef struct gen_out {
    int8_t rank;
    uint8_t dtype;              /* vki_dtype of the op's output */
    int16_t dims[5];
} gen_out;

typedef struct gen_params {
    int n_in, n_out;
    gen_tensor in[4];
    gen_out out[4];
    int iopt[4];
    float fopt[4];
} gen_params;

typedef struct shape {
    int rank;
    int d[5];
} shape;
#define S(...) ((shape){(int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), {__VA_ARGS__}})
#define S0 ((shape){0, {0}})

static gen_tensor tensor_of(gen_kind kind, shape s, float lo, float hi) {
    gen_tensor t = {.kind = (uint8_t)kind, .rank = (int8_t)s.rank, .lo = lo, .hi = hi};
    for (int i = 0; i < s.rank; i++) t.dims[i] = (int16_t)s.d[i];
    return t;
}
static gen_tensor act(shape s, float lo, float hi) { return tensor_of(GEN_ACT, s, lo, hi); }
static gen_tensor cnst(shape s, float lo, float hi) { return tensor_of(GEN_CONST, s, lo, hi); }
static gen_tensor index_act(shape s, int hi) { return tensor_of(GEN_INDEX, s, 0.0f, (float)hi); }
static gen_tensor bool_act(shape s) { return tensor_of(GEN_BOOL, s, -1.0f, 1.0f); }
/* An int32 constant: a vector of n values (or a scalar, n = -1). */
static gen_tensor ints(int n, const int32_t *v) {
    gen_tensor t = {.kind = GEN_INTS, .rank = (int8_t)(n < 0 ? 0 : 1)};
    t.dims[0] = (int16_t)(n < 0 ? 1 : n);
    t.n = (int16_t)(n < 0 ? 1 : n);
    for (int i = 0; i < t.n; i++) t.v[i] = v[i];
    return t;
}
#define INTS(...) ints((int)(sizeof((int32_t[]){__VA_ARGS__}) / sizeof(int32_t)), (int32_t[]){__VA_ARGS__})
#define SCALAR_INT(x) ints(-1, (int32_t[]){x})
/* A [rank, 2] int32 constant of paddings or crops. */
static gen_tensor pairs(int rank, const int32_t *v) {
    gen_tensor t = ints(2 * rank, v);
    t.rank = 2;
    t.dims[0] = (int16_t)rank;
    t.dims[1] = 2;
    return t;
}

static gen_out out_of(shape s, vki_dtype dtype) {
    gen_out o = {.rank = (int8_t)s.rank, .dtype = (uint8_t)dtype};
    for (int i = 0; i < s.rank; i++) o.dims[i] = (int16_t)s.d[i];
    return o;
}

static void set_options(vki_op *op, const gen_params *p) {
    switch (op->code) {
    case VKI_OP_GELU: op->opt.gelu.approximate = p->iopt[0]; break;
    case VKI_OP_MIRROR_PAD: op->opt.mirror_pad.symmetric = p->iopt[0]; break;
    case VKI_OP_GATHER: op->opt.gather.axis = p->iopt[0]; break;
    case VKI_OP_PACK: case VKI_OP_UNPACK: op->opt.pack.axis = p->iopt[0]; break;
    case VKI_OP_BATCH_MATMUL:
        op->opt.batch_matmul.adj_x = p->iopt[0];
        op->opt.batch_matmul.adj_y = p->iopt[1];
        break;
    case VKI_OP_CUMSUM:
        op->opt.cumsum.exclusive = p->iopt[0];
        op->opt.cumsum.reverse = p->iopt[1];
        break;
    case VKI_OP_LOCAL_RESPONSE_NORMALIZATION:
        op->opt.lrn.radius = p->iopt[0];
        op->opt.lrn.bias = p->fopt[0];
        op->opt.lrn.alpha = p->fopt[1];
        op->opt.lrn.beta = p->fopt[2];
        break;
    case VKI_OP_SOFTMAX: op->opt.softmax.beta = p->fopt[0]; break;
    case VKI_OP_MEAN: case VKI_OP_SUM: case VKI_OP_REDUCE_MAX: case VKI_OP_REDUCE_MIN:
    case VKI_OP_REDUCE_PROD: case VKI_OP_REDUCE_ANY:
        op->opt.reduce.keep_dims = p->iopt[0];
        break;
    case VKI_OP_FULLY_CONNECTED: op->opt.fully_connected.keep_num_dims = p->iopt[0]; break;
    case VKI_OP_CONCATENATION: op->opt.concat.axis = p->iopt[0]; break;
    case VKI_OP_STRIDED_SLICE:
        op->opt.strided_slice.begin_mask = p->iopt[0];
        op->opt.strided_slice.end_mask = p->iopt[1];
        op->opt.strided_slice.shrink_axis_mask = p->iopt[2];
        break;
    case VKI_OP_ADD: case VKI_OP_SUB: case VKI_OP_MUL: case VKI_OP_DIV:
        op->opt.eltwise.activation = (vki_activation)p->iopt[0];
        break;
    default: break;
    }
}

static void set_grid(vki_tensor *t, const gen_params *p) {
    t->quant_scale = p->fopt[0];
    t->quant_zero = p->iopt[0];
    t->quant_min = p->iopt[1];
    t->quant_max = p->iopt[2];
}

static int add_typed(vki_model *m, int rank, const int16_t *d16, vki_dtype dtype) {
    int d[5];
    for (int i = 0; i < rank; i++) d[i] = d16[i];
    int t = harness_tensor_nd(m, rank, d);
    m->tensors[t].dtype = dtype;
    return t;
}

static vki_model *build_gen(const op_case *c) {
    const gen_params *p = OP_CASE_PARAMS(c, const gen_params);
    vki_model *m = vki_model_new(vki_op_name((int)c->op));
    int graph_in[8], n_graph_in = 0, ins[4], outs[4];
    for (int i = 0; i < p->n_in; i++) {
        const gen_tensor *t = &p->in[i];
        int d[5];
        for (int k = 0; k < t->rank; k++) d[k] = t->dims[k];
        uint32_t seed = c->seed + 31u * (uint32_t)i;
        switch (t->kind) {
        case GEN_ACT: case GEN_CONST: {
            harness_operand o = {.rank = t->rank, .is_const = t->kind == GEN_CONST,
                                 .lo = t->lo, .hi = t->hi};
            for (int k = 0; k < t->rank; k++) o.dims[k] = d[k];
            ins[i] = harness_operand_add(m, o, seed, graph_in, &n_graph_in);
            break;
        }
        case GEN_INTS: ins[i] = harness_int_const(m, "ints", t->rank, d, t->v); break;
        case GEN_QUANT: {
            harness_operand o = {.rank = t->rank, .lo = t->lo, .hi = t->hi};
            for (int k = 0; k < t->rank; k++) o.dims[k] = d[k];
            int x = harness_operand_add(m, o, seed, graph_in, &n_graph_in);
            ins[i] = add_typed(m, t->rank, t->dims, VKI_DTYPE_FLOAT32);
            set_grid(&m->tensors[ins[i]], p);
            harness_op(m, VKI_OP_QUANTIZE, 1, &x, ins[i]);
            break;
        }
        case GEN_INDEX: case GEN_BOOL: {
            harness_operand o = {.rank = t->rank, .lo = t->lo, .hi = t->hi};
            for (int k = 0; k < t->rank; k++) o.dims[k] = d[k];
            int x = harness_operand_add(m, o, seed, graph_in, &n_graph_in);
            ins[i] = add_typed(m, t->rank, t->dims,
                               t->kind == GEN_BOOL ? VKI_DTYPE_BOOL : VKI_DTYPE_INT32);
            if (t->kind == GEN_BOOL) {
                int zero = harness_scalar(m, 0.0f);
                vki_model_add_op(m, VKI_OP_GREATER, 2, (int[]){x, zero}, 1, &ins[i]);
            } else {
                harness_op(m, VKI_OP_CAST, 1, &x, ins[i]);
            }
            break;
        }
        }
    }
    for (int k = 0; k < p->n_out; k++)
        outs[k] = add_typed(m, p->out[k].rank, p->out[k].dims, (vki_dtype)p->out[k].dtype);
    vki_op *op = vki_model_add_op(m, c->op, p->n_in, ins, p->n_out, outs);
    cr_assert(op);
    set_options(op, p);
    /* Index outputs leave as float32. */
    for (int k = 0; k < p->n_out; k++) {
        if (p->out[k].dtype == VKI_DTYPE_FLOAT32) continue;
        int f = add_typed(m, p->out[k].rank, p->out[k].dims, VKI_DTYPE_FLOAT32);
        harness_op(m, VKI_OP_CAST, 1, &outs[k], f);
        outs[k] = f;
    }
    /* QUANTIZE's output, and GEN_QUANT inputs, on the grid iopt[0..2] (zero, min, max)
     * and fopt[0] (scale). */
    if (c->op == VKI_OP_QUANTIZE) set_grid(&m->tensors[op->outputs[0]], p);
    vki_model_set_io(m, n_graph_in, graph_in, p->n_out, outs);
    return m;
}

static void describe_tensor(char *buf, size_t size, size_t *len, const gen_tensor *t) {
    static const char *const kinds[] = {"", "const", "ints", "int", "bool", "int8"};
    *len += (size_t)snprintf(buf + *len, size - *len, " %s", kinds[t->kind]);
    if (t->kind == GEN_INTS) {
        *len += (size_t)snprintf(buf + *len, size - *len, "{");
        for (int i = 0; i < t->n && *len < size; i++)
            *len += (size_t)snprintf(buf + *len, size - *len, "%s%d", i ? "," : "", (int)t->v[i]);
        if (*len < size) *len += (size_t)snprintf(buf + *len, size - *len, "}");
        return;
    }
    int d[5];
    for (int i = 0; i < t->rank; i++) d[i] = t->dims[i];
    op_case_shape(buf, size, len, t->rank, d);
}

/* Appends the case: op over inputs in[0..n_in) making outputs out[0..n_out). */
static op_case *gen_case(op_case_list *l, vki_op_code code, const char *note, int n_in,
                         const gen_tensor *in, int n_out, const gen_out *out, double tol) {
    static uint32_t seed = 7000;
    op_case *c = op_case_add(l, code, build_gen, seed++, tol);
    gen_params p = {.n_in = n_in, .n_out = n_out};
    for (int i = 0; i < n_in; i++) p.in[i] = in[i];
    for (int i = 0; i < n_out; i++) p.out[i] = out[i];
    OP_CASE_SET_PARAMS(c, gen_params, p);
    char label[128];
    size_t len = (size_t)snprintf(label, sizeof label, "%s%s%s", vki_op_name((int)code),
                                  note ? " " : "", note ? note : "");
    for (int i = 0; i < n_in && len < sizeof label; i++) describe_tensor(label, sizeof label, &len, &in[i]);
    op_case_label(c, "%s", label);
    return c;
}

static void set_iopt(op_case *c, int a, int b) {
    OP_CASE_PARAMS(c, gen_params)->iopt[0] = a;
    OP_CASE_PARAMS(c, gen_params)->iopt[1] = b;
}

/* One input, one float output of the same shape. */
static op_case *unary(op_case_list *l, vki_op_code code, const char *note, gen_tensor in,
                      double tol) {
    shape s = {in.rank, {0}};
    for (int i = 0; i < in.rank; i++) s.d[i] = in.dims[i];
    gen_out o = out_of(s, VKI_DTYPE_FLOAT32);
    return gen_case(l, code, note, 1, &in, 1, &o, tol);
}

static op_case *two(op_case_list *l, vki_op_code code, const char *note, gen_tensor a,
                    gen_tensor b, shape out, vki_dtype dtype, double tol) {
    gen_tensor in[2] = {a, b};
    gen_out o = out_of(out, dtype);
    return gen_case(l, code, note, 2, in, 1, &o, tol);
}

/* ---- unary ---------------------------------------------------------------------------- */

/* Shapes every unary op runs on: odd H and W, every channel count, batch 2, rank 5, 3, 1. */
static shape unary_shape(int k) {
    switch (k % 4) {
    case 0: return S(1, 7, 5, channels[(k / 4) % N_CHANNELS]);
    case 1: return S(2, 3, 5, channels[(k / 4 + 2) % N_CHANNELS]);
    case 2: return S(2, 3, 3, 1, 5);
    default: return S(3, 17);
    }
}

void op_cases_general_unary__math_functions(op_case_list *l) {
    static const struct { vki_op_code code; float lo, hi; double tol; int gelu_tanh; } f[] = {
        {VKI_OP_ELU, -4, 4, TOL_TRANSCENDENTAL, 0},   {VKI_OP_GELU, -4, 4, TOL_TRANSCENDENTAL, 0},
        {VKI_OP_GELU, -4, 4, TOL_TRANSCENDENTAL, 1},  {VKI_OP_EXP, -4, 4, TOL_TRANSCENDENTAL, 0},
        {VKI_OP_LOG, 0.05f, 8, TOL_TRANSCENDENTAL, 0}, {VKI_OP_SQRT, 0, 8, TOL_TRANSCENDENTAL, 0},
        {VKI_OP_RSQRT, 0.05f, 8, TOL_TRANSCENDENTAL, 0}, {VKI_OP_ABS, -4, 4, TOL, 0},
        {VKI_OP_NEG, -4, 4, TOL, 0},                   {VKI_OP_SQUARE, -4, 4, TOL, 0},
        {VKI_OP_FLOOR, -4, 4, TOL, 0},                 {VKI_OP_CEIL, -4, 4, TOL, 0},
        {VKI_OP_ROUND, -4, 4, TOL, 0},                 {VKI_OP_SIGN, -4, 4, TOL, 0},
        {VKI_OP_SIN, -4, 4, TOL_TRANSCENDENTAL, 0},    {VKI_OP_COS, -4, 4, TOL_TRANSCENDENTAL, 0},
        {VKI_OP_RELU_0_TO_1, -2, 2, TOL, 0},     {VKI_OP_RELU_N1_TO_1, -2, 2, TOL, 0},
    };
    int k = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (int j = 0; j < 4; j++, k++) {
            op_case *c = unary(l, f[i].code, f[i].gelu_tanh ? "tanh" : NULL,
                               act(unary_shape(k), f[i].lo, f[i].hi), f[i].tol);
            set_iopt(c, f[i].gelu_tanh, 0);
            /* The activation pass would fold it into the range mapping's ADD: its own
             * kernel runs here (cases_eltwise.c runs both). */
            if (f[i].code == VKI_OP_RELU_N1_TO_1) {
                c->env_name = "VKI_DISABLE_PASSES";
                c->env_value = "activation";
            }
            /* Inputs near 0 come from the harness's range mapping (x * k + off), which
             * cancels in fp16 to about 1e-3 absolute: LOG, SQRT and RSQRT amplify it. */
            if (f[i].lo > -1.0f && f[i].lo < 1.0f) c->fp16_tol = 3e-2;
            /* FLOOR, CEIL and ROUND jump at integers, where fp16's rounding of an
             * arbitrary input would move the result by 1: on the fp16 grid (x * 4: multiples
             * of 1/16, halves included, so ROUND's ties to even are checked too) they are
             * exact. */
            if (f[i].code == VKI_OP_FLOOR || f[i].code == VKI_OP_CEIL ||
                f[i].code == VKI_OP_ROUND || f[i].code == VKI_OP_SIGN)
                fp16_exact(c, FP16_GRID);
        }
}

void op_cases_general_unary__cast_and_logical(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        shape s = S(1, 3, 5, channels[i]);
        /* float -> int32 truncates toward zero; int32 -> float (the output CAST) is exact. */
        gen_tensor x = act(s, -5, 5);
        gen_out o = out_of(s, VKI_DTYPE_INT32);
        /* x * 5: multiples of 5/64, exact in fp16, truncated alike. */
        fp16_exact(gen_case(l, VKI_OP_CAST, "to int32", 1, &x, 1, &o, 0.0), FP16_GRID);
        o = out_of(s, VKI_DTYPE_BOOL);
        gen_case(l, VKI_OP_CAST, "to bool", 1, &x, 1, &o, 0.0);
        gen_tensor b = bool_act(s);
        gen_case(l, VKI_OP_LOGICAL_NOT, NULL, 1, &b, 1, &o, 0.0);
    }
}

/* ---- binary ----------------------------------------------------------------------------- */

void op_cases_general_binary__broadcast_over_five_dims(op_case_list *l) {
    static const struct { shape a, b, out; } f[] = {
        {S(2, 3, 1, 5, 3), S(1, 1, 4, 1, 3), S(2, 3, 4, 5, 3)},
        {S(3, 1, 5), S(1, 4, 1), S(3, 4, 5)},
        {S(2, 7, 5, 17), S(1, 1, 1, 17), S(2, 7, 5, 17)},
        {S(5), S(3, 1), S(3, 5)},
        {S(2, 1, 5, 3), S(3, 1, 1), S(2, 3, 5, 3)},
        {S(1, 1, 1, 1, 1), S(2, 3, 1, 3, 5), S(2, 3, 1, 3, 5)},
    };
    static const vki_op_code ops[] = {VKI_OP_ADD, VKI_OP_MUL, VKI_OP_SUB, VKI_OP_MAXIMUM,
                                      VKI_OP_SQUARED_DIFFERENCE, VKI_OP_DIV};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        vki_op_code code = ops[i % 6];
        float lo = code == VKI_OP_DIV ? 0.5f : -2.0f;
        two(l, code, NULL, act(f[i].a, -2, 2), act(f[i].b, lo, 2), f[i].out, VKI_DTYPE_FLOAT32, TOL);
        /* The other operand a constant. */
        two(l, code, NULL, cnst(f[i].a, -2, 2), act(f[i].b, lo, 2), f[i].out, VKI_DTYPE_FLOAT32, TOL);
    }
}

void op_cases_general_binary__new_ops(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        shape s = S(1, 7, 5, channels[i]), b = S(1, 1, 5, channels[i]);
        two(l, VKI_OP_SQUARED_DIFFERENCE, NULL, act(s, -2, 2), act(b, -2, 2), s, VKI_DTYPE_FLOAT32, TOL);
        /* Bases near 0.1 come from the harness's range mapping, which cancels in fp16
         * (about 1e-3 absolute); x^b amplifies it by |b| (unary cases say more). */
        two(l, VKI_OP_POW, NULL, act(s, 0.1f, 3), act(b, -2, 2), s, VKI_DTYPE_FLOAT32, TOL_TRANSCENDENTAL)
            ->fp16_tol = 3e-2;
        /* Negative bases with whole exponents: the sign follows the exponent's parity. */
        two(l, VKI_OP_POW, "integer exponents", act(s, -3, 3), cnst(S(1), 3, 3), s, VKI_DTYPE_FLOAT32,
            TOL_TRANSCENDENTAL);
        /* On a grid of 1/8 the numerators are the integers -8..7 and the denominators
         * multiples of 1/8 in [1, 3) (and (-3, -1] for FLOOR_MOD): a quotient that is not
         * an integer is at least 1/24 from one, over ten fp16 ulps at |q| <= 8, so fp16's
         * rounding of the quotient cannot cross an integer, and FLOOR_MOD's a - b * q is
         * exact: both must match exactly in fp16 too. */
        op_case *c = two(l, VKI_OP_FLOOR_DIV, NULL, act(s, -8, 8), act(b, 1, 3), s,
                         VKI_DTYPE_FLOAT32, TOL);
        fp16_exact(c, 1.0f / 8.0f);
        c = two(l, VKI_OP_FLOOR_MOD, NULL, act(s, -8, 8), act(b, -3, -1), s, VKI_DTYPE_FLOAT32, TOL);
        fp16_exact(c, 1.0f / 8.0f);
    }
}

void op_cases_general_binary__add_n(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        shape s = i & 1 ? S(2, 3, 5, channels[i]) : S(1, 7, 5, channels[i]);
        int n = 2 + 3 * i % 7;   /* 2, 5, 8, 4, 7 inputs */
        gen_tensor in[4];
        for (int k = 0; k < 4; k++) in[k] = k == 2 ? cnst(s, -1, 1) : act(s, -1, 1);
        gen_out o = out_of(s, VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_ADD_N, NULL, n < 4 ? n : 4, in, 1, &o, TOL);
    }
}

void op_cases_general_binary__comparisons_and_select(op_case_list *l) {
    static const vki_op_code cmp[] = {VKI_OP_GREATER, VKI_OP_GREATER_EQUAL, VKI_OP_LESS,
                                      VKI_OP_LESS_EQUAL, VKI_OP_EQUAL, VKI_OP_NOT_EQUAL};
    for (int i = 0; i < 6; i++) {
        shape s = S(2, 3, 5, channels[i % N_CHANNELS]), b = S(1, 1, 5, 1);
        /* Small integers, so that equal values are common; in fp16 both forms take inputs
         * on the grid, exact there, so every boolean must match. */
        fp16_exact(two(l, cmp[i], NULL, index_act(s, 4), index_act(b, 4), s, VKI_DTYPE_BOOL, 0.0),
                   FP16_GRID);
        fp16_exact(two(l, cmp[i], NULL, act(s, -1, 1), act(b, -1, 1), s, VKI_DTYPE_BOOL, 0.0),
                   FP16_GRID);
    }
    shape s = S(1, 7, 5, 17);
    two(l, VKI_OP_LOGICAL_AND, NULL, bool_act(s), bool_act(S(5, 1)), s, VKI_DTYPE_BOOL, 0.0);
    two(l, VKI_OP_LOGICAL_OR, NULL, bool_act(s), bool_act(S(1, 5, 17)), s, VKI_DTYPE_BOOL, 0.0);
    for (int i = 0; i < N_CHANNELS; i++) {
        shape x = S(2, 3, 5, channels[i]);
        gen_tensor in[3] = {bool_act(S(1, 3, 1, channels[i])), act(x, -2, 2), cnst(S(channels[i]), -2, 2)};
        gen_out o = out_of(x, VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_SELECT_V2, NULL, 3, in, 1, &o, 0.0);
        gen_tensor same[3] = {bool_act(x), act(x, -2, 2), act(x, -2, 2)};
        gen_case(l, VKI_OP_SELECT, NULL, 3, same, 1, &o, 0.0);
    }
}

/* ---- reductions ------------------------------------------------------------------------- */

/* The output of reducing `in` over `axes` (normalised, any order). */
static shape reduced(shape in, int n, const int32_t *axes, int keep) {
    shape o = {0, {0}};
    for (int i = 0; i < in.rank; i++) {
        int cut = 0;
        for (int k = 0; k < n; k++) cut |= (axes[k] < 0 ? axes[k] + in.rank : axes[k]) == i;
        if (!cut) o.d[o.rank++] = in.d[i];
        else if (keep) o.d[o.rank++] = 1;
    }
    return o;
}

static void reduce_case(op_case_list *l, vki_op_code code, shape in, int n, const int32_t *axes,
                        int keep, float lo, float hi, double tol) {
    shape o = reduced(in, n, axes, keep);
    op_case *c = two(l, code, keep ? "keep" : NULL, act(in, lo, hi), ints(n, axes), o,
                     VKI_DTYPE_FLOAT32, tol);
    set_iopt(c, keep, 0);
}

void op_cases_general_reduce__axes(op_case_list *l) {
    static const struct { shape in; int n; int32_t axes[3]; } f[] = {
        {S(2, 5, 7, 3), 1, {3}}, {S(2, 5, 7, 17), 2, {1, 2}}, {S(2, 5, 7, 5), 1, {0}},
        {S(5, 7, 17), 1, {-1}}, {S(5, 7, 1), 1, {1}}, {S(2, 3, 1, 5, 3), 2, {1, 4}},
        {S(3, 9, 5), 3, {0, 1, 2}}, {S(1, 7, 5, 3), 1, {2}},
    };
    static const vki_op_code ops[] = {VKI_OP_SUM, VKI_OP_MEAN, VKI_OP_REDUCE_MAX,
                                      VKI_OP_REDUCE_MIN, VKI_OP_REDUCE_PROD};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (int k = 0; k < 5; k++) {
            /* Products stay near 1 with inputs near 1. */
            float lo = ops[k] == VKI_OP_REDUCE_PROD ? 0.9f : -1, hi = ops[k] == VKI_OP_REDUCE_PROD ? 1.1f : 1;
            reduce_case(l, ops[k], f[i].in, f[i].n, f[i].axes, (int)(i + k) % 2, lo, hi, TOL_SUM);
        }
    int32_t axis = 1;
    shape s = S(2, 5, 3);
    gen_tensor in[2] = {bool_act(s), ints(1, &axis)};
    shape o = reduced(s, 1, &axis, 0);
    gen_out out = out_of(o, VKI_DTYPE_BOOL);
    gen_case(l, VKI_OP_REDUCE_ANY, NULL, 2, in, 1, &out, 0.0);
}

void op_cases_general_reduce__arg_max_min_with_ties(op_case_list *l) {
    static const struct { shape in; int32_t axis; } f[] = {
        {S(1, 7, 5, 17), 3}, {S(1, 7, 5, 3), 1}, {S(2, 7, 5, 5), 2}, {S(3, 10), 1},
        {S(3, 10), 0}, {S(2, 3, 1, 5, 3), 1}, {S(9), 0},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (int k = 0; k < 2; k++) {
            vki_op_code code = k ? VKI_OP_ARG_MIN : VKI_OP_ARG_MAX;
            shape o = reduced(f[i].in, 1, &f[i].axis, 0);
            /* Integers 0..3: most maxima are ties, which keep the first index. In fp16 the
             * inputs are on the grid, exact there (and with ties of their own), so every
             * index must match in every precision. */
            fp16_exact(two(l, code, "ties", index_act(f[i].in, 4), SCALAR_INT(f[i].axis), o,
                           VKI_DTYPE_INT32, 0.0), FP16_GRID);
            fp16_exact(two(l, code, NULL, act(f[i].in, -1, 1), SCALAR_INT(f[i].axis), o,
                           VKI_DTYPE_INT32, 0.0), FP16_GRID);
        }
}

void op_cases_general_reduce__cumsum(op_case_list *l) {
    static const struct { shape in; int32_t axis; } f[] = {
        {S(1, 7, 5, 17), 3}, {S(1, 7, 5, 3), 1}, {S(2, 3, 5, 5), 2}, {S(3, 10), 0}, {S(2, 3, 1, 5, 3), 4},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (int k = 0; k < 4; k++) {
            op_case *c = two(l, VKI_OP_CUMSUM, k & 1 ? (k & 2 ? "exclusive reverse" : "exclusive")
                                                     : (k & 2 ? "reverse" : NULL),
                             act(f[i].in, -1, 1), SCALAR_INT(f[i].axis), f[i].in, VKI_DTYPE_FLOAT32,
                             TOL_SUM);
            set_iopt(c, k & 1, (k >> 1) & 1);
        }
}

void op_cases_general_norm__last_axis_any_rank(op_case_list *l) {
    static const shape shapes[] = {S(1, 7, 5, 1), S(1, 7, 5, 3), S(2, 3, 5, 5), S(3, 17),
                                   S(2, 3, 1, 3, 17), S(7)};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        unary(l, VKI_OP_LOG_SOFTMAX, NULL, act(shapes[i], -4, 4), TOL_TRANSCENDENTAL);
        unary(l, VKI_OP_L2_NORMALIZATION, NULL, act(shapes[i], -2, 2), TOL_TRANSCENDENTAL);
        op_case *c = unary(l, VKI_OP_SOFTMAX, "beta 0.7", act(shapes[i], -4, 4), TOL_TRANSCENDENTAL);
        OP_CASE_PARAMS(c, gen_params)->fopt[0] = 0.7f;
        c = unary(l, VKI_OP_LOCAL_RESPONSE_NORMALIZATION, "r2", act(shapes[i], -2, 2),
                  TOL_TRANSCENDENTAL);
        OP_CASE_PARAMS(c, gen_params)->iopt[0] = 2;
        OP_CASE_PARAMS(c, gen_params)->fopt[0] = 1.0f;
        OP_CASE_PARAMS(c, gen_params)->fopt[1] = 0.5f;
        OP_CASE_PARAMS(c, gen_params)->fopt[2] = 0.75f;
    }
}

/* ---- layout ------------------------------------------------------------------------------ */

static shape permuted(shape in, const int32_t *perm) {
    shape o = {in.rank, {0}};
    for (int i = 0; i < in.rank; i++) o.d[i] = in.d[perm[i]];
    return o;
}

void op_cases_general_layout__transpose_and_reverse(op_case_list *l) {
    static const struct { shape in; int32_t perm[5]; } f[] = {
        {S(1, 7, 5, 3), {0, 3, 1, 2}}, {S(1, 7, 5, 17), {0, 2, 1, 3}}, {S(2, 3, 5, 5), {3, 2, 0, 1}},
        {S(7, 5, 3), {2, 0, 1}}, {S(3, 17), {1, 0}}, {S(1, 3, 2, 5, 2), {0, 3, 1, 4, 2}},
        {S(2, 3, 2, 5, 3), {4, 0, 2, 1, 3}},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        two(l, VKI_OP_TRANSPOSE, NULL, act(f[i].in, -1, 1), ints(f[i].in.rank, f[i].perm),
            permuted(f[i].in, f[i].perm), VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_REVERSE_V2, NULL, act(S(1, 7, 5, 5), -1, 1), INTS(1, 3), S(1, 7, 5, 5),
        VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_REVERSE_V2, NULL, act(S(3, 17), -1, 1), INTS(-1), S(3, 17), VKI_DTYPE_FLOAT32, 0.0);
}

void op_cases_general_layout__tile_and_broadcast_to(op_case_list *l) {
    two(l, VKI_OP_TILE, NULL, act(S(1, 3, 5, 3), -1, 1), INTS(1, 2, 1, 3), S(1, 6, 5, 9),
        VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_TILE, NULL, act(S(3, 5), -1, 1), INTS(2, 3), S(6, 15), VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_TILE, NULL, act(S(2, 1, 3, 1, 5), -1, 1), INTS(1, 3, 1, 2, 1), S(2, 3, 3, 2, 5),
        VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_BROADCAST_TO, NULL, act(S(1, 1, 5, 1), -1, 1), INTS(2, 3, 5, 17), S(2, 3, 5, 17),
        VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_BROADCAST_TO, NULL, act(S(3), -1, 1), INTS(2, 1, 7, 5, 3), S(2, 1, 7, 5, 3),
        VKI_DTYPE_FLOAT32, 0.0);
}

void op_cases_general_layout__mirror_pad_and_padv2(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        for (int sym = 0; sym < 2; sym++) {
            op_case *k = two(l, VKI_OP_MIRROR_PAD, sym ? "SYMMETRIC" : "REFLECT", act(S(1, 7, 5, c), -1, 1),
                             pairs(4, (int32_t[]){0, 0, 2, 3, 1, 4 - sym, 0, 0}),
                             S(1, 12, 10 - sym, c), VKI_DTYPE_FLOAT32, 0.0);
            set_iopt(k, sym, 0);
        }
        gen_tensor in[3] = {act(S(1, 7, 5, c), -1, 1), pairs(4, (int32_t[]){0, 0, 1, 2, 3, 0, 0, 2}),
                            cnst(S0, 0.5f, 0.6f)};
        gen_out o = out_of(S(1, 10, 8, c + 2), VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_PADV2, NULL, 3, in, 1, &o, 0.0);
    }
    op_case *k = two(l, VKI_OP_MIRROR_PAD, "REFLECT rank 3 channels", act(S(3, 5, 4), -1, 1),
                     pairs(3, (int32_t[]){1, 1, 0, 0, 3, 2}), S(5, 5, 9), VKI_DTYPE_FLOAT32, 0.0);
    set_iopt(k, 0, 0);
}

void op_cases_general_layout__split_unpack_pack(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        /* SPLIT(axis, input) in three along H. */
        gen_tensor in[3] = {SCALAR_INT(1), act(S(1, 9, 5, c), -1, 1)};
        gen_out o[3];
        for (int k = 0; k < 3; k++) o[k] = out_of(S(1, 3, 5, c), VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_SPLIT, NULL, 2, in, 3, o, 0.0);
    }
    {
        gen_tensor in[2] = {SCALAR_INT(-1), act(S(2, 5, 18), -1, 1)};
        gen_out o[2] = {out_of(S(2, 5, 9), VKI_DTYPE_FLOAT32), out_of(S(2, 5, 9), VKI_DTYPE_FLOAT32)};
        gen_case(l, VKI_OP_SPLIT, "channels", 2, in, 2, o, 0.0);
    }
    {
        /* SPLIT_V(input, sizes, axis): channels 17 as 5, 3, the rest. */
        gen_tensor in[3] = {act(S(1, 3, 5, 17), -1, 1), INTS(5, 3, -1), SCALAR_INT(3)};
        gen_out o[3] = {out_of(S(1, 3, 5, 5), VKI_DTYPE_FLOAT32), out_of(S(1, 3, 5, 3), VKI_DTYPE_FLOAT32),
                        out_of(S(1, 3, 5, 9), VKI_DTYPE_FLOAT32)};
        gen_case(l, VKI_OP_SPLIT_V, NULL, 3, in, 3, o, 0.0);
        gen_tensor rows[3] = {act(S(2, 7, 3), -1, 1), INTS(2, 5), SCALAR_INT(1)};
        gen_out r[2] = {out_of(S(2, 2, 3), VKI_DTYPE_FLOAT32), out_of(S(2, 5, 3), VKI_DTYPE_FLOAT32)};
        gen_case(l, VKI_OP_SPLIT_V, "rows", 3, rows, 2, r, 0.0);
    }
    {
        gen_tensor in = act(S(2, 3, 5), -1, 1);
        gen_out o[3] = {out_of(S(2, 5), VKI_DTYPE_FLOAT32), out_of(S(2, 5), VKI_DTYPE_FLOAT32),
                        out_of(S(2, 5), VKI_DTYPE_FLOAT32)};
        set_iopt(gen_case(l, VKI_OP_UNPACK, "axis 1", 1, &in, 3, o, 0.0), 1, 0);
        gen_out c[2] = {out_of(S(3, 5), VKI_DTYPE_FLOAT32), out_of(S(3, 5), VKI_DTYPE_FLOAT32)};
        set_iopt(gen_case(l, VKI_OP_UNPACK, "axis 0", 1, &in, 2, c, 0.0), 0, 0);
        gen_tensor last = act(S(3, 5, 4), -1, 1);
        gen_out d[4];
        for (int k = 0; k < 4; k++) d[k] = out_of(S(3, 5), VKI_DTYPE_FLOAT32);
        set_iopt(gen_case(l, VKI_OP_UNPACK, "axis -1", 1, &last, 4, d, 0.0), -1, 0);
    }
    for (int axis = 0; axis < 4; axis++) {
        gen_tensor in[3] = {act(S(3, 5, 7), -1, 1), act(S(3, 5, 7), -1, 1), cnst(S(3, 5, 7), -1, 1)};
        shape s = S(3, 5, 7);
        shape o = {4, {0}};
        for (int i = 0, k = 0; i < 4; i++) o.d[i] = i == axis ? 3 : s.d[k++];
        gen_out out = out_of(o, VKI_DTYPE_FLOAT32);
        static const char *const notes[] = {"axis 0", "axis 1", "axis 2", "axis 3"};
        set_iopt(gen_case(l, VKI_OP_PACK, notes[axis], 3, in, 1, &out, 0.0), axis, 0);
    }
}

void op_cases_general_layout__gather(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        set_iopt(two(l, VKI_OP_GATHER, "axis 1", act(S(1, 7, 5, c), -1, 1), INTS(6, 0, 3, 3),
                     S(1, 4, 5, c), VKI_DTYPE_FLOAT32, 0.0), 1, 0);
    }
    set_iopt(two(l, VKI_OP_GATHER, "axis -1", act(S(1, 3, 5, 17), -1, 1), INTS(16, 2, 9),
                 S(1, 3, 5, 3), VKI_DTYPE_FLOAT32, 0.0), -1, 0);
    set_iopt(two(l, VKI_OP_GATHER, "axis 0", act(S(10, 7), -1, 1), INTS(9, 0, 4, 4, 1),
                 S(5, 7), VKI_DTYPE_FLOAT32, 0.0), 0, 0);
    /* A scalar index drops the axis; a [2,2] index table adds two. */
    set_iopt(two(l, VKI_OP_GATHER, "scalar", act(S(1, 7, 5), -1, 1), SCALAR_INT(6), S(1, 5),
                 VKI_DTYPE_FLOAT32, 0.0), 1, 0);
    gen_tensor table = INTS(1, 0, 4, 2);
    table.rank = 2;
    table.dims[0] = table.dims[1] = 2;
    set_iopt(two(l, VKI_OP_GATHER, "indices [2,2]", act(S(5, 3), -1, 1), table, S(2, 2, 3),
                 VKI_DTYPE_FLOAT32, 0.0), 0, 0);
    /* Indices computed by the graph. */
    set_iopt(two(l, VKI_OP_GATHER, "computed", act(S(6, 17), -1, 1), index_act(S(4), 6), S(4, 17),
                 VKI_DTYPE_FLOAT32, 0.0), 0, 0);
}

void op_cases_general_layout__space_batch(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        int c = channels[i];
        gen_tensor s2b[3] = {act(S(1, 7, 5, c), -1, 1), INTS(2, 3), pairs(2, (int32_t[]){1, 0, 2, 2})};
        gen_out o = out_of(S(6, 4, 3, c), VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_SPACE_TO_BATCH_ND, NULL, 3, s2b, 1, &o, 0.0);
        gen_tensor b2s[3] = {act(S(6, 4, 3, c), -1, 1), INTS(2, 3), pairs(2, (int32_t[]){1, 0, 2, 2})};
        o = out_of(S(1, 7, 5, c), VKI_DTYPE_FLOAT32);
        gen_case(l, VKI_OP_BATCH_TO_SPACE_ND, NULL, 3, b2s, 1, &o, 0.0);
    }
    gen_tensor s2b[3] = {act(S(2, 4, 6, 3), -1, 1), INTS(2, 2), pairs(2, (int32_t[]){0, 0, 0, 0})};
    gen_out o = out_of(S(8, 2, 3, 3), VKI_DTYPE_FLOAT32);
    gen_case(l, VKI_OP_SPACE_TO_BATCH_ND, "batch 2", 3, s2b, 1, &o, 0.0);
    gen_tensor b2s[3] = {act(S(8, 2, 3, 3), -1, 1), INTS(2, 2), pairs(2, (int32_t[]){0, 1, 1, 0})};
    o = out_of(S(2, 3, 5, 3), VKI_DTYPE_FLOAT32);
    gen_case(l, VKI_OP_BATCH_TO_SPACE_ND, "batch 2", 3, b2s, 1, &o, 0.0);
}

/* CONCATENATION and PAD beyond concat.comp's and pad.comp's forms: the batch axis, rank 5,
 * batch > 1 (remap.comp). */
void op_cases_general_layout__concat_and_pad_general(op_case_list *l) {
    gen_tensor cat[3] = {act(S(2, 3, 5, 3), -1, 1), act(S(1, 3, 5, 3), -1, 1), cnst(S(2, 3, 5, 3), -1, 1)};
    gen_out o = out_of(S(5, 3, 5, 3), VKI_DTYPE_FLOAT32);
    gen_case(l, VKI_OP_CONCATENATION, "axis 0", 3, cat, 1, &o, 0.0);
    gen_tensor five[2] = {act(S(2, 1, 3, 5, 3), -1, 1), act(S(2, 2, 3, 5, 3), -1, 1)};
    o = out_of(S(2, 3, 3, 5, 3), VKI_DTYPE_FLOAT32);
    set_iopt(gen_case(l, VKI_OP_CONCATENATION, "axis 1 rank 5", 2, five, 1, &o, 0.0), 1, 0);
    gen_tensor ch[2] = {act(S(2, 3, 5, 3), -1, 1), act(S(2, 3, 5, 17), -1, 1)};
    o = out_of(S(2, 3, 5, 20), VKI_DTYPE_FLOAT32);
    set_iopt(gen_case(l, VKI_OP_CONCATENATION, "axis 3 batch 2", 2, ch, 1, &o, 0.0), 3, 0);
    two(l, VKI_OP_PAD, NULL, act(S(2, 3, 5, 3), -1, 1), pairs(4, (int32_t[]){1, 0, 0, 2, 1, 1, 0, 2}),
        S(3, 5, 7, 5), VKI_DTYPE_FLOAT32, 0.0);
    two(l, VKI_OP_PAD, NULL, act(S(2, 1, 3, 5, 3), -1, 1),
        pairs(5, (int32_t[]){0, 0, 1, 1, 0, 0, 2, 0, 0, 1}), S(2, 3, 3, 7, 4), VKI_DTYPE_FLOAT32, 0.0);
}

/* SLICE and STRIDED_SLICE of the batch, of rank 5 and of batch > 1 tensors. */
void op_cases_general_layout__slices_any_axis(op_case_list *l) {
    gen_tensor a[3] = {act(S(3, 5, 7, 3), -1, 1), INTS(1, 1, 0, 0), INTS(2, 3, -1, 3)};
    gen_out o = out_of(S(2, 3, 7, 3), VKI_DTYPE_FLOAT32);
    gen_case(l, VKI_OP_SLICE, "batch", 3, a, 1, &o, 0.0);
    gen_tensor b[4] = {act(S(2, 3, 5, 7, 3), -1, 1), INTS(0, 2, 1, 6, 0), INTS(2, 0, 5, 0, 3),
                       INTS(1, -1, 2, -2, 1)};
    o = out_of(S(2, 3, 2, 4, 3), VKI_DTYPE_FLOAT32);
    op_case *c = gen_case(l, VKI_OP_STRIDED_SLICE, "rank 5 negative strides", 4, b, 1, &o, 0.0);
    OP_CASE_PARAMS(c, gen_params)->iopt[1] = 2 | 8;   /* end_mask: run to the start */
    gen_tensor d[4] = {act(S(4, 9, 17), -1, 1), INTS(1, 0, 3), INTS(4, 9, 4), INTS(2, 2, 1)};
    o = out_of(S(2, 5), VKI_DTYPE_FLOAT32);
    c = gen_case(l, VKI_OP_STRIDED_SLICE, "shrink channels", 4, d, 1, &o, 0.0);
    OP_CASE_PARAMS(c, gen_params)->iopt[2] = 4;       /* shrink axis 2: one channel */
}

void op_cases_general_layout__reshape_across_ranks(op_case_list *l) {
    static const struct { vki_op_code code; shape in, out; } f[] = {
        {VKI_OP_RESHAPE, S(1, 6, 5, 4), S(1, 6, 5, 2, 2)},   {VKI_OP_RESHAPE, S(1, 6, 5, 4), S(3, 2, 20)},
        {VKI_OP_RESHAPE, S(2, 3, 17), S(6, 17)},             {VKI_OP_RESHAPE, S(2, 3, 5, 3), S(2, 45)},
        {VKI_OP_SQUEEZE, S(1, 7, 1, 5), S(7, 5)},            {VKI_OP_SQUEEZE, S(2, 1, 3, 1, 5), S(2, 3, 5)},
        {VKI_OP_EXPAND_DIMS, S(3, 5), S(3, 1, 5)},           {VKI_OP_EXPAND_DIMS, S(2, 7, 5), S(2, 7, 5, 1)},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (f[i].code == VKI_OP_EXPAND_DIMS)
            two(l, f[i].code, NULL, act(f[i].in, -1, 1), SCALAR_INT(f[i].in.rank == 2 ? 1 : 3),
                f[i].out, VKI_DTYPE_FLOAT32, 0.0);
        else
            gen_case(l, f[i].code, NULL, 1, (gen_tensor[]){act(f[i].in, -1, 1)}, 1,
                     (gen_out[]){out_of(f[i].out, VKI_DTYPE_FLOAT32)}, 0.0);
    }
}

/* ---- matrix products -------------------------------------------------------------------- */

void op_cases_general_matmul__batch_matmul(op_case_list *l) {
    static const struct { shape a, b, out; int adj_x, adj_y; int const_b; } f[] = {
        {S(2, 5, 7), S(2, 7, 3), S(2, 5, 3), 0, 0, 0},  {S(2, 7, 5), S(2, 7, 3), S(2, 5, 3), 1, 0, 0},
        {S(2, 5, 7), S(2, 3, 7), S(2, 5, 3), 0, 1, 0},  {S(2, 7, 5), S(2, 3, 7), S(2, 5, 3), 1, 1, 0},
        {S(1, 5, 17), S(3, 17, 5), S(3, 5, 5), 0, 0, 0}, {S(9, 17), S(17, 5), S(9, 5), 0, 0, 1},
        {S(1, 2, 3, 5, 4), S(4, 1), S(1, 2, 3, 5, 1), 0, 0, 1},
        {S(1, 2, 9, 8), S(1, 2, 8, 9), S(1, 2, 9, 9), 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        op_case *c = two(l, VKI_OP_BATCH_MATMUL, f[i].adj_x ? (f[i].adj_y ? "adj_x adj_y" : "adj_x")
                                                            : (f[i].adj_y ? "adj_y" : NULL),
                         act(f[i].a, -1, 1), f[i].const_b ? cnst(f[i].b, -1, 1) : act(f[i].b, -1, 1),
                         f[i].out, VKI_DTYPE_FLOAT32, TOL_SUM);
        set_iopt(c, f[i].adj_x, f[i].adj_y);
    }
}

void op_cases_general_matmul__fully_connected_rows(op_case_list *l) {
    static const struct { shape in, out; int keep; } f[] = {
        {S(3, 17), S(3, 5), 0}, {S(2, 5, 17), S(2, 5, 5), 1}, {S(2, 5, 17), S(10, 5), 0},
        {S(1, 7, 17), S(1, 7, 5), 1}, {S(2, 3, 3, 17), S(18, 5), 0},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        gen_tensor in[3] = {act(f[i].in, -1, 1), cnst(S(5, 17), -1, 1), cnst(S(5), -1, 1)};
        gen_out o = out_of(f[i].out, VKI_DTYPE_FLOAT32);
        set_iopt(gen_case(l, VKI_OP_FULLY_CONNECTED, f[i].keep ? "keep_num_dims" : NULL, 3, in, 1,
                          &o, TOL_SUM), f[i].keep, 0);
    }
}

/* ---- int8 rounding steps ----------------------------------------------------------------- */

void op_cases_general_quant__int8_grid(op_case_list *l) {
    static const struct { float scale; int zero, lo, hi; } grids[] = {
        {0.0235f, -3, -128, 127}, {0.5f, 0, -128, 127}, {1.0f / 256, -128, -128, 127},
        {0.03f, 128, 0, 255},
    };
    for (int i = 0; i < N_CHANNELS; i++)
        for (int g = 0; g < 4; g++) {
            /* Inputs reach past both ends of the grid, so clamping is exercised. */
            float span = grids[g].scale * 300.0f;
            shape s = g & 1 ? S(2, 3, 5, channels[i]) : S(1, 7, 5, channels[i]);
            /* GPU division may differ from C's by an ulp, which moves a value that sits on
             * a rounding tie by one step: one step of the grid, relative to the output. */
            double step = grids[g].scale / (grids[g].scale * 128 > 1 ? grids[g].scale * 128 : 1);
            gen_tensor x = act(s, -span, span);
            gen_out o = out_of(s, VKI_DTYPE_FLOAT32);
            op_case *c = gen_case(l, VKI_OP_QUANTIZE, NULL, 1, &x, 1, &o, step * 1.01);
            gen_params *p = OP_CASE_PARAMS(c, gen_params);
            p->fopt[0] = grids[g].scale;
            p->iopt[0] = grids[g].zero;
            p->iopt[1] = grids[g].lo;
            p->iopt[2] = grids[g].hi;
            c->fp16_tol = 2e-2;
            if (i == 0) {
                gen_params grid = *p;   /* p moves when the list grows */
                gen_tensor q = tensor_of(GEN_QUANT, s, -span, span);
                c = gen_case(l, VKI_OP_DEQUANTIZE, NULL, 1, &q, 1, &o, step * 1.01);
                grid.in[0] = q;
                *OP_CASE_PARAMS(c, gen_params) = grid;
                c->fp16_tol = 2e-2;
            }
        }
}
