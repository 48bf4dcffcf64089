/* unary.c: elementwise ops of one tensor (RELU, RELU6, LOGISTIC, TANH, HARD_SWISH,
 * LEAKY_RELU). They share one validator, one kernel (glsl/unary.comp, the op picked by a
 * #define) and one C reference. */
#include "ops.h"

#include <math.h>

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "input (tensor %d '%s') is a constant", op->inputs[0], in->name);
    /* The alpha becomes a GLSL literal: inf or nan would not even compile. */
    if (op->code == VKI_OP_LEAKY_RELU && !isfinite(op->opt.leaky_relu.alpha))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "alpha %g is not finite",
                           (double)op->opt.leaky_relu.alpha);
    return vki_op_check_shape(m, o, op->outputs[0], vki_tensor_shape4(in));
}

static const char *op_define(vki_op_code code) {
    switch (code) {
    case VKI_OP_RELU6: return "OP_RELU6";
    case VKI_OP_LOGISTIC: return "OP_LOGISTIC";
    case VKI_OP_TANH: return "OP_TANH";
    case VKI_OP_HARD_SWISH: return "OP_HARD_SWISH";
    case VKI_OP_LEAKY_RELU: return "OP_LEAKY_RELU";
    default: return "OP_RELU";
    }
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_unary, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, op_define(op->code), 1);
    if (op->code == VKI_OP_LEAKY_RELU) vki_define_float(&d, "ALPHA", op->opt.leaky_relu.alpha);
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_define_shape(&d, "OUT", out);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

/* TFLite's float kernels, written out plainly. */
static float apply(const vki_op *op, float x) {
    switch (op->code) {
    case VKI_OP_RELU6: return vki_apply_activation(VKI_ACT_RELU6, x);
    case VKI_OP_LOGISTIC: return vki_apply_activation(VKI_ACT_SIGMOID, x);
    case VKI_OP_TANH: return vki_apply_activation(VKI_ACT_TANH, x);
    case VKI_OP_HARD_SWISH: return vki_apply_activation(VKI_ACT_HARD_SWISH, x);
    case VKI_OP_LEAKY_RELU: return x > 0.0f ? x : x * op->opt.leaky_relu.alpha;
    default: return vki_apply_activation(VKI_ACT_RELU, x);
    }
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t i = 0; i < n; i++) out[0][i] = apply(op, in[0][i]);
}

/* LeakyReluOptions: alpha at field 0. The other ops have no options. */
static vki_status read_leaky_relu(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_f32(r, 0, 0.0f, &op->opt.leaky_relu.alpha)) return vki_opt_malformed(r);
    return VKI_OK;
}

#define PLAIN_ {.validate = validate, .build = build, .reference = reference}
const vki_op_def vki_op_relu = PLAIN_;
const vki_op_def vki_op_relu6 = PLAIN_;
const vki_op_def vki_op_logistic = PLAIN_;
const vki_op_def vki_op_tanh = PLAIN_;
const vki_op_def vki_op_hard_swish = PLAIN_;
const vki_op_def vki_op_leaky_relu = {
    .validate = validate, .build = build, .reference = reference, .options = read_leaky_relu};
