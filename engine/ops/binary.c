/* binary.c: elementwise ops of two tensors (three for SELECT) with TFLite (numpy)
 * broadcasting over up to 5 dims: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, PRELU (input,
 * alpha), SQUARED_DIFFERENCE, POW, FLOOR_DIV, FLOOR_MOD, the comparisons GREATER,
 * GREATER_EQUAL, LESS, LESS_EQUAL, EQUAL, NOT_EQUAL and LOGICAL_AND, LOGICAL_OR (bool
 * outputs, 0 or 1), and SELECT / SELECT_V2 (condition, x, y). They share one validator, one
 * kernel (glsl/binary.comp, the op picked by OP_<NAME>) and one C reference. Any operand
 * but one may be a constant; it is packed to PHWC4 at build. */
#include "int8.h"
#include "ops.h"
#include "remap.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>

#define MAX_OPERANDS 3

static int n_operands(const vki_op *op) {
    return op->code == VKI_OP_SELECT || op->code == VKI_OP_SELECT_V2 ? 3 : 2;
}

static bool is_comparison(vki_op_code code) {
    switch (code) {
    case VKI_OP_GREATER: case VKI_OP_GREATER_EQUAL: case VKI_OP_LESS: case VKI_OP_LESS_EQUAL:
    case VKI_OP_EQUAL: case VKI_OP_NOT_EQUAL: case VKI_OP_LOGICAL_AND: case VKI_OP_LOGICAL_OR:
        return true;
    default:
        return false;
    }
}

static vki_activation activation_of(const vki_op *op) {
    switch (op->code) {
    case VKI_OP_ADD: case VKI_OP_SUB: case VKI_OP_MUL: case VKI_OP_DIV:
        return op->opt.eltwise.activation;
    default:
        return VKI_ACT_NONE;
    }
}

/* The operands' and the output's extents right-aligned to 5 dims. */
static void operand_dims(const vki_model *m, const vki_op *op, int d[MAX_OPERANDS][5]) {
    for (int i = 0; i < n_operands(op); i++) vki_dims5(vki_op_in(m, op, i), d[i]);
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const int n = n_operands(op);
    vki_status s = vki_op_check_arity(m, o, n, n, 1);
    if (s) return s;
    int constants = 0;
    for (int i = 0; i < n; i++) constants += vki_op_in(m, op, i)->data != NULL;
    if (constants == n)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "every input is a constant");
    const vki_tensor *to = vki_op_out(m, op, 0);
    /* Index tensors: comparisons and logical ops write bool; SELECT's condition is bool;
     * arithmetic on int32 is exact in float only without division. */
    bool bool_out = is_comparison(op->code);
    if (bool_out != (to->dtype == VKI_DTYPE_BOOL))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "output is %s, the op makes %s",
                           vki_dtype_name(to->dtype), bool_out ? "bool" : "its inputs' type");
    if ((op->code == VKI_OP_DIV || op->code == VKI_OP_POW) && to->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s on %s is not supported",
                           vki_op_name(op->code), vki_dtype_name(to->dtype));
    /* SELECT (v1) picks whole rows by a rank-1 condition, which broadcasting would not
     * mean: vkinfer takes it only where its condition matches the inputs. */
    const vki_tensor *cond = vki_op_in(m, op, 0), *x = vki_op_in(m, op, 1);
    if (op->code == VKI_OP_SELECT && vki_tensor_elements(cond) != 1 &&
        (cond->rank != x->rank || vki_tensor_elements(cond) != vki_tensor_elements(x)))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "SELECT with a condition shaped "
                           "unlike its inputs (row selection) is not supported; SELECT_V2 "
                           "broadcasts");
    int d[MAX_OPERANDS][5], want[5];
    operand_dims(m, op, d);
    int rank = 0;
    for (int i = 0; i < n; i++)
        if (vki_op_in(m, op, i)->rank > rank) rank = vki_op_in(m, op, i)->rank;
    for (int j = 0; j < 5; j++) {
        want[j] = 1;
        for (int i = 0; i < n; i++) {
            if (d[i][j] == want[j] || d[i][j] == 1) continue;
            if (want[j] != 1) {
                char sa[96], sb[96];
                const vki_tensor *ta = vki_op_in(m, op, 0), *tb = vki_op_in(m, op, i);
                vki_format_dims(sa, sizeof sa, ta->rank, ta->shape);
                vki_format_dims(sb, sizeof sb, tb->rank, tb->shape);
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "inputs %s (tensor %d '%s') and "
                                   "%s (tensor %d '%s') do not broadcast", sa, op->inputs[0],
                                   ta->name, sb, op->inputs[i], tb->name);
            }
            want[j] = d[i][j];
        }
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], rank, want + 5 - rank);
    if (s) return s;
    vki_activation act = activation_of(op);
    if (act != VKI_ACT_NONE && act != VKI_ACT_RELU && act != VKI_ACT_RELU6 &&
        act != VKI_ACT_RELU_N1_TO_1 && act != VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation %d unknown",
                           (int)act);
    return VKI_OK;
}

/* OP_<NAME>; SELECT and SELECT_V2 are one kernel. */
static void op_define(const vki_op *op, char *buf, size_t size) {
    if (n_operands(op) == 3) snprintf(buf, size, "OP_SELECT");
    else snprintf(buf, size, "OP_%s", vki_op_name(op->code));
}

/* <P>_W, _H, _C, _S of an operand's storage view and <P>_R0..2, the extents of its rows. */
static void define_operand(vki_dispatch *d, const char *p, const int e[5], const int out[5]) {
    char name[16];
    vki_define_shape(d, p, (vki_shape4){1, e[0] * e[1] * e[2], e[3], e[4]});
    for (int j = 0; j < 3; j++) {
        snprintf(name, sizeof name, "%s_R%d", p, j);
        vki_define_int(d, name, e[j]);
    }
    if (out && e[0] == out[0] && e[1] == out[1] && e[2] == out[2]) {
        snprintf(name, sizeof name, "%s_ROWS", p);
        vki_define_int(d, name, 1);
    }
}

/* The integer form (int8.h): ADD, SUB, MUL of two int8 / uint8 activations; PRELU by a
 * quantized constant alpha (TFLite's fixed-point kernel). */
static bool integer(const vki_model *m, const vki_op *op) {
    return op->code == VKI_OP_PRELU ? vki_int8_prelu_ok(m, op) : vki_int8_binary_ok(m, op);
}

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const int n = n_operands(op);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_binary, VKI_WG_ELEMENTWISE);
    char define[48];
    op_define(op, define, sizeof define);
    vki_define_int(&d, define, 1);
    if (n == 3) vki_define_int(&d, "N_OPERANDS", 3);
    const bool int8 = runs_integer(m, op);
    if (int8 && op->code == VKI_OP_PRELU) {
        vki_int8_prelu p = vki_int8_prelu_params(m, op);
        vki_define_int(&d, "INT8", 1);
        vki_define_int(&d, "OUT_QMIN", p.lo);
        vki_define_int(&d, "OUT_QMAX", p.hi);
        vki_define_int(&d, "PRELU_MULT1", p.mult[0]);
        vki_define_int(&d, "PRELU_SHIFT1", p.shift[0]);
        vki_define_int(&d, "PRELU_MULT2", p.mult[1]);
        vki_define_int(&d, "PRELU_SHIFT2", p.shift[1]);
    } else if (int8) {
        vki_int8_binary p = vki_int8_binary_params(m, op);
        vki_define_int(&d, "INT8", 1);
        vki_define_int(&d, "OUT_QMIN", p.lo);
        vki_define_int(&d, "OUT_QMAX", p.hi);
        if (op->code == VKI_OP_MUL) {
            vki_define_float(&d, "Q_SCALE", p.scale);
        } else {
            vki_define_int(&d, "A_MULT", p.a_mult);
            vki_define_int(&d, "B_MULT", p.b_mult);
            vki_define_int(&d, "Q_SHIFT", p.shift);
        }
    } else {
        vki_define_activation(&d, activation_of(op));
    }
    int e[MAX_OPERANDS][5], out[5];
    operand_dims(m, op, e);
    vki_dims5(vki_op_out(m, op, 0), out);
    static const char *const prefix[MAX_OPERANDS] = {"A", "B", "C"};
    for (int i = 0; i < n; i++) {
        define_operand(&d, prefix[i], e[i], out);
        vki_shape4 s = {1, e[i][0] * e[i][1] * e[i][2], e[i][3], e[i][4]};
        /* An operand of the output's own extents is read at the index written. */
        int whole = 1;
        for (int j = 0; j < 5; j++) whole &= e[i][j] == out[j];
        if (whole) d.same_index_reads |= 1u << d.n_bindings;
        const vki_tensor *t = vki_op_in(m, op, i);
        if (int8 && t->data) {   /* a quantized constant: its q - zero point */
            float *values = vki_int8_weight_values(t);
            int blob = values ? vki_build_weights_phwc4(b, values, s) : -1;
            free(values);
            if (blob < 0) return vki_fail_oom("graph build: weights");
            vki_dispatch_bind_weights(&d, blob);
            continue;
        }
        vki_status st = vki_build_bind_operand(b, &d, op->inputs[i], s);
        if (st) return st;
    }
    define_operand(&d, "OUT", out, NULL);
    vki_shape4 so = {1, out[0] * out[1] * out[2], out[3], out[4]};
    vki_status bound = vki_build_bind_output(b, &d, op);
    if (!bound && int8) bound = vki_int8_define_table(b, &d, m, op);
    if (bound) return bound;
    vki_dispatch_grid_phwc4(&d, so);
    return vki_build_dispatch(b, &d);
}

/* TFLite's float kernels, written out plainly. */
static float apply(vki_op_code code, float a, float b, float c) {
    switch (code) {
    case VKI_OP_SUB: return a - b;
    case VKI_OP_MUL: return a * b;
    case VKI_OP_DIV: return a / b;
    case VKI_OP_MAXIMUM: return a > b ? a : b;
    case VKI_OP_MINIMUM: return a < b ? a : b;
    case VKI_OP_PRELU: return a >= 0.0f ? a : a * b;
    case VKI_OP_SQUARED_DIFFERENCE: return (a - b) * (a - b);
    case VKI_OP_POW: return powf(a, b);
    case VKI_OP_FLOOR_DIV: return floorf(a / b);
    case VKI_OP_FLOOR_MOD: {
        float t = fmodf(a, b);
        return t != 0.0f && ((b < 0.0f) != (t < 0.0f)) ? t + b : t;
    }
    case VKI_OP_GREATER: return a > b;
    case VKI_OP_GREATER_EQUAL: return a >= b;
    case VKI_OP_LESS: return a < b;
    case VKI_OP_LESS_EQUAL: return a <= b;
    case VKI_OP_EQUAL: return a == b;
    case VKI_OP_NOT_EQUAL: return a != b;
    case VKI_OP_LOGICAL_AND: return a != 0.0f && b != 0.0f;
    case VKI_OP_LOGICAL_OR: return a != 0.0f || b != 0.0f;
    case VKI_OP_SELECT: case VKI_OP_SELECT_V2: return a != 0.0f ? b : c;
    default: return a + b;
    }
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const int n = n_operands(op);
    int e[MAX_OPERANDS][5], d[5];
    operand_dims(m, op, e);
    vki_dims5(vki_op_out(m, op, 0), d);
    vki_activation act = activation_of(op);
    const bool int8 = runs_integer(m, op);
    const bool prelu8 = int8 && op->code == VKI_OP_PRELU;
    vki_int8_binary q = int8 && !prelu8 ? vki_int8_binary_params(m, op) : (vki_int8_binary){0};
    vki_int8_prelu pq = prelu8 ? vki_int8_prelu_params(m, op) : (vki_int8_prelu){{0}, {0}, 0, 0};
    int x[5];
    size_t k = 0;
    for (x[0] = 0; x[0] < d[0]; x[0]++)
        for (x[1] = 0; x[1] < d[1]; x[1]++)
            for (x[2] = 0; x[2] < d[2]; x[2]++)
                for (x[3] = 0; x[3] < d[3]; x[3]++)
                    for (x[4] = 0; x[4] < d[4]; x[4]++, k++) {
                        float v[MAX_OPERANDS] = {0};
                        for (int i = 0; i < n; i++) {
                            size_t at = 0;
                            for (int j = 0; j < 5; j++)
                                at = at * (size_t)e[i][j] + (size_t)(e[i][j] == 1 ? 0 : x[j]);
                            const vki_tensor *t = vki_op_in(m, op, i);
                            v[i] = int8 && t->data ? (float)vki_tensor_qvalue(t, at, 1) : in[i][at];
                        }
                        if (prelu8)
                            out[0][k] = vki_int8_prelu_apply(&pq, (int32_t)v[0], (int32_t)v[1]);
                        else
                            out[0][k] = int8 ? vki_int8_binary_apply(op->code, &q, (int32_t)v[0], (int32_t)v[1])
                                             : vki_apply_activation(act, apply(op->code, v[0], v[1], v[2]));
                    }
}

/* AddOptions, SubOptions, MulOptions and DivOptions: the fused activation at field 0.
 * The other ops have no options vkinfer reads. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act;
    if (!vki_opt_i8(r, 0, 0, &act)) return vki_opt_malformed(r);
    return vki_opt_activation(r, act, &op->opt.eltwise.activation);
}

#define ELTWISE_ {.validate = validate, .build = build, .reference = reference, \
                  .options = read_options, .general = true, .integer = integer}
#define PLAIN_ {.validate = validate, .build = build, .reference = reference, .general = true}
const vki_op_def vki_op_add = ELTWISE_;
const vki_op_def vki_op_sub = ELTWISE_;
const vki_op_def vki_op_mul = ELTWISE_;
const vki_op_def vki_op_div = ELTWISE_;
const vki_op_def vki_op_maximum = PLAIN_;
const vki_op_def vki_op_minimum = PLAIN_;
const vki_op_def vki_op_prelu = {.validate = validate, .build = build, .reference = reference,
                                  .general = true, .integer = integer};
const vki_op_def vki_op_squared_difference = PLAIN_;
const vki_op_def vki_op_pow = PLAIN_;
const vki_op_def vki_op_floor_div = PLAIN_;
const vki_op_def vki_op_floor_mod = PLAIN_;
const vki_op_def vki_op_greater = PLAIN_;
const vki_op_def vki_op_greater_equal = PLAIN_;
const vki_op_def vki_op_less = PLAIN_;
const vki_op_def vki_op_less_equal = PLAIN_;
const vki_op_def vki_op_equal = PLAIN_;
const vki_op_def vki_op_not_equal = PLAIN_;
const vki_op_def vki_op_logical_and = PLAIN_;
const vki_op_def vki_op_logical_or = PLAIN_;
const vki_op_def vki_op_select = PLAIN_;
const vki_op_def vki_op_select_v2 = PLAIN_;
