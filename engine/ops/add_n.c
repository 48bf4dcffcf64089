/* add_n.c: ADD_N, the sum of 2 to 8 tensors of one shape, any rank (glsl/add_n.comp); the
 * loader chains wider ones (vki_op_max_inputs).
 * Constant inputs are packed into the weights. */
#include "ops.h"

#include <stdio.h>

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 2, VKI_ADD_N_MAX_INPUTS, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *out = vki_op_out(m, op, 0);
    int constants = 0;
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *t = vki_op_in(m, op, i);
        constants += t->data != NULL;
        s = vki_op_expect_dims(m, o, op->inputs[i], out->rank, out->shape);
        if (s) return s;
    }
    if (constants == op->n_inputs)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "every input is a constant");
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_shape4 s = vki_tensor_rows(vki_op_out(m, op, 0));
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_add_n, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, "N_IN", op->n_inputs);
    vki_define_int(&d, "OUT_BINDING", op->n_inputs);
    vki_define_shape(&d, "OUT", s);
    for (int i = 0; i < op->n_inputs; i++) {
        vki_status st = vki_build_bind_operand(b, &d, op->inputs[i], s);
        if (st) return st;
    }
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, s);
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference AddN: input 0 plus each further input in order. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t e = 0; e < n; e++) {
        float v = in[0][e];
        for (int i = 1; i < op->n_inputs; i++) v += in[i][e];
        out[0][e] = v;
    }
}

const vki_op_def vki_op_add_n = {.validate = validate, .build = build, .reference = reference,
                                 .general = true};
