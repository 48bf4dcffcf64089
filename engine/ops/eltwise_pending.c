/* eltwise_pending.c: placeholder until the op lands. */
#include "ops.h"
static vki_status validate(const vki_model *m, int o) {
    return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "not implemented yet");
}
static vki_status build(vki_build *b, const vki_model *m, int o) { (void)b; return validate(m, o); }
static void reference(const vki_model *m, const vki_op *op, const float *const *in, float *const *out) {
    (void)m; (void)op; (void)in; (void)out;
}
const vki_op_def vki_op_relu6 = {VKI_OP_RELU6, validate, build, reference, NULL};
const vki_op_def vki_op_logistic = {VKI_OP_LOGISTIC, validate, build, reference, NULL};
const vki_op_def vki_op_tanh = {VKI_OP_TANH, validate, build, reference, NULL};
const vki_op_def vki_op_hard_swish = {VKI_OP_HARD_SWISH, validate, build, reference, NULL};
const vki_op_def vki_op_leaky_relu = {VKI_OP_LEAKY_RELU, validate, build, reference, NULL};
const vki_op_def vki_op_prelu = {VKI_OP_PRELU, validate, build, reference, NULL};
const vki_op_def vki_op_sub = {VKI_OP_SUB, validate, build, reference, NULL};
const vki_op_def vki_op_mul = {VKI_OP_MUL, validate, build, reference, NULL};
const vki_op_def vki_op_div = {VKI_OP_DIV, validate, build, reference, NULL};
const vki_op_def vki_op_maximum = {VKI_OP_MAXIMUM, validate, build, reference, NULL};
const vki_op_def vki_op_minimum = {VKI_OP_MINIMUM, validate, build, reference, NULL};
