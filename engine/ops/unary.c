/* unary.c: elementwise ops of one tensor (RELU, RELU6). */
#include "ops.h"

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    if (vki_op_in(m, op, 0)->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    return vki_op_check_shape(m, o, op->outputs[0], vki_tensor_shape4(vki_op_in(m, op, 0)));
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_dispatch d;
    vki_dispatch_init(&d, "unary", VKI_WG_ELEMENTWISE);
    vki_define_int(&d, op->code == VKI_OP_RELU6 ? "OP_RELU6" : "OP_RELU", 1);
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_define_shape(&d, "OUT", out);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    vki_activation act = op->code == VKI_OP_RELU6 ? VKI_ACT_RELU6 : VKI_ACT_RELU;
    for (size_t i = 0; i < n; i++) out[0][i] = vki_apply_activation(act, in[0][i]);
}

const vki_op_def vki_op_relu = {VKI_OP_RELU, validate, build, reference};
