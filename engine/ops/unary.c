/* unary.c: elementwise ops of one tensor, of any rank: RELU, RELU6, RELU_0_TO_1,
 * RELU_N1_TO_1, LOGISTIC,
 * TANH, HARD_SWISH, LEAKY_RELU, ELU, GELU (exact and tanh form), EXP, LOG, SQRT, RSQRT,
 * ABS, NEG, SQUARE, FLOOR, CEIL, ROUND, SIGN, SIN, COS, LOGICAL_NOT and CAST. They share
 * one validator, one kernel (glsl/unary.comp, the function picked by OP_<NAME>, the op's
 * own name) and one C reference. */
#include "int8.h"
#include "ops.h"

#include <math.h>
#include <stdio.h>

/* CAST converts between float32 and the index types, all held as float values: to an
 * integer it truncates, to bool it tests for nonzero, anything else is a copy. */
static const char *cast_define(const vki_tensor *in, const vki_tensor *out) {
    if (out->dtype == VKI_DTYPE_BOOL) return "OP_CAST_BOOL";
    if (in->dtype == VKI_DTYPE_FLOAT32 && vki_dtype_is_index(out->dtype)) return "OP_CAST_TRUNC";
    return "OP_IDENTITY";
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "input (tensor %d '%s') is a constant", op->inputs[0], in->name);
    /* The alpha becomes a GLSL literal: inf or nan would not even compile. */
    if (op->code == VKI_OP_LEAKY_RELU && !isfinite(op->opt.leaky_relu.alpha))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "alpha %g is not finite",
                           (double)op->opt.leaky_relu.alpha);
    /* Only CAST and LOGICAL_NOT take or make index tensors. */
    if (op->code != VKI_OP_CAST && op->code != VKI_OP_LOGICAL_NOT &&
        (in->dtype != VKI_DTYPE_FLOAT32 || out->dtype != VKI_DTYPE_FLOAT32))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "takes float32, input is %s and "
                           "output %s", vki_dtype_name(in->dtype), vki_dtype_name(out->dtype));
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

vki_status vki_unary_emit(vki_build *b, const vki_model *m, const vki_op *op, vki_dispatch *d) {
    vki_shape4 out = vki_tensor_rows(vki_op_out(m, op, 0));
    vki_define_shape(d, "OUT", out);
    vki_dispatch_bind_tensor(d, op->inputs[0]);
    vki_dispatch_bind_tensor(d, op->outputs[0]);
    d->same_index_reads = 1u << 0;   /* unary.comp: dst[i] = f(src[i]) */
    d->out_binding = 1;
    vki_dispatch_grid_phwc4(d, out);
    return vki_build_dispatch(b, d);
}

/* The integer form (int8.h): RELU, RELU6, RELU_N1_TO_1, LOGISTIC, TANH, ELU, LEAKY_RELU
 * and HARD_SWISH of an int8 / uint8 activation, by a table of every q. */
static bool integer(const vki_model *m, const vki_op *op) { return vki_int8_table_ok(m, op); }

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (runs_integer(m, op)) return vki_int8_build_table(b, m, op);
    const vki_tensor *in = vki_op_in(m, op, 0), *out_t = vki_op_out(m, op, 0);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_unary, VKI_WG_ELEMENTWISE);
    char define[64];
    if (op->code == VKI_OP_CAST) snprintf(define, sizeof define, "%s", cast_define(in, out_t));
    else if (op->code == VKI_OP_GELU && op->opt.gelu.approximate) snprintf(define, sizeof define, "OP_GELU_TANH");
    else snprintf(define, sizeof define, "OP_%s", vki_op_name(op->code));
    vki_define_int(&d, define, 1);
    if (op->code == VKI_OP_LEAKY_RELU) vki_define_float(&d, "ALPHA", op->opt.leaky_relu.alpha);
    return vki_unary_emit(b, m, op, &d);
}

/* TFLite's float kernels, written out plainly (libm for the transcendental ones). */
static float apply(const vki_model *m, const vki_op *op, float x) {
    switch (op->code) {
    case VKI_OP_RELU: return vki_apply_activation(VKI_ACT_RELU, x);
    case VKI_OP_RELU6: return vki_apply_activation(VKI_ACT_RELU6, x);
    case VKI_OP_RELU_0_TO_1: return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
    case VKI_OP_RELU_N1_TO_1: return vki_apply_activation(VKI_ACT_RELU_N1_TO_1, x);
    case VKI_OP_LOGISTIC: return vki_apply_activation(VKI_ACT_SIGMOID, x);
    case VKI_OP_TANH: return vki_apply_activation(VKI_ACT_TANH, x);
    case VKI_OP_HARD_SWISH: return vki_apply_activation(VKI_ACT_HARD_SWISH, x);
    case VKI_OP_LEAKY_RELU: return x > 0.0f ? x : x * op->opt.leaky_relu.alpha;
    case VKI_OP_ELU: return x > 0.0f ? x : expm1f(x);
    case VKI_OP_GELU:
        if (op->opt.gelu.approximate)
            return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
        return 0.5f * x * (1.0f + erff(x * 0.70710678f));
    case VKI_OP_EXP: return expf(x);
    case VKI_OP_LOG: return logf(x);
    case VKI_OP_SQRT: return sqrtf(x);
    case VKI_OP_RSQRT: return 1.0f / sqrtf(x);
    case VKI_OP_ABS: return fabsf(x);
    case VKI_OP_NEG: return -x;
    case VKI_OP_SQUARE: return x * x;
    case VKI_OP_FLOOR: return floorf(x);
    case VKI_OP_CEIL: return ceilf(x);
    case VKI_OP_ROUND: return nearbyintf(x);   /* the default rounding: half to even */
    case VKI_OP_SIGN: return (float)((x > 0.0f) - (x < 0.0f));
    case VKI_OP_SIN: return sinf(x);
    case VKI_OP_COS: return cosf(x);
    case VKI_OP_LOGICAL_NOT: return x == 0.0f ? 1.0f : 0.0f;
    case VKI_OP_CAST: {
        const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
        if (out->dtype == VKI_DTYPE_BOOL) return x != 0.0f ? 1.0f : 0.0f;
        if (in->dtype == VKI_DTYPE_FLOAT32 && vki_dtype_is_index(out->dtype)) return truncf(x);
        return x;
    }
    default: return x;
    }
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    if (runs_integer(m, op)) {
        vki_int8_table_reference(m, op, in[0], out[0]);
        return;
    }
    size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t i = 0; i < n; i++) out[0][i] = apply(m, op, in[0][i]);
}

/* LeakyReluOptions: alpha at field 0. */
static vki_status read_leaky_relu(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_f32(r, 0, 0.0f, &op->opt.leaky_relu.alpha)) return vki_opt_malformed(r);
    return VKI_OK;
}

/* GeluOptions: approximate at field 0 (false: the exact erf form). */
static vki_status read_gelu(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_bool(r, 0, false, &op->opt.gelu.approximate)) return vki_opt_malformed(r);
    return VKI_OK;
}

#define UNARY_ {.validate = validate, .build = build, .reference = reference, .general = true}
#define TABLE_ {.validate = validate, .build = build, .reference = reference, .general = true, \
                .integer = integer}
const vki_op_def vki_op_relu = TABLE_;
const vki_op_def vki_op_relu6 = TABLE_;
const vki_op_def vki_op_relu_0_to_1 = UNARY_;
const vki_op_def vki_op_relu_n1_to_1 = TABLE_;
const vki_op_def vki_op_logistic = TABLE_;
const vki_op_def vki_op_tanh = TABLE_;
const vki_op_def vki_op_hard_swish = TABLE_;
const vki_op_def vki_op_elu = TABLE_;
const vki_op_def vki_op_exp = UNARY_;
const vki_op_def vki_op_log = UNARY_;
const vki_op_def vki_op_sqrt = UNARY_;
const vki_op_def vki_op_rsqrt = UNARY_;
const vki_op_def vki_op_abs = UNARY_;
const vki_op_def vki_op_neg = UNARY_;
const vki_op_def vki_op_square = UNARY_;
const vki_op_def vki_op_floor = UNARY_;
const vki_op_def vki_op_ceil = UNARY_;
const vki_op_def vki_op_round = UNARY_;
const vki_op_def vki_op_sign = UNARY_;
const vki_op_def vki_op_sin = UNARY_;
const vki_op_def vki_op_cos = UNARY_;
const vki_op_def vki_op_logical_not = UNARY_;
const vki_op_def vki_op_cast = UNARY_;
const vki_op_def vki_op_leaky_relu = {.validate = validate, .build = build,
                                      .reference = reference, .options = read_leaky_relu,
                                      .general = true, .integer = integer};
const vki_op_def vki_op_gelu = {.validate = validate, .build = build, .reference = reference,
                                .options = read_gelu, .general = true};
