/* binary.c: elementwise ops of two tensors with broadcasting (ADD; the kernel also has
 * SUB, MUL, DIV, MAXIMUM, MINIMUM). A constant operand is packed to PHWC4 at build. */
#include "ops.h"

#include <stdlib.h>

/* An operand broadcasts along an axis only if its extent there is 1. */
static int broadcastable(vki_shape4 in, vki_shape4 out) {
    return (in.h == out.h || in.h == 1) && (in.w == out.w || in.w == 1) &&
           (in.c == out.c || in.c == 1);
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    for (int i = 0; i < 2; i++) {
        const vki_tensor *t = vki_op_in(m, op, i);
        vki_shape4 in = vki_tensor_shape4(t);
        if (in.n != 1 || !broadcastable(in, out))
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                               "input %d (tensor %d '%s') [%d,%d,%d] does not broadcast to [%d,%d,%d]",
                               i, op->inputs[i], t->name, in.h, in.w, in.c, out.h, out.w, out.c);
    }
    if (vki_op_in(m, op, 0)->data && vki_op_in(m, op, 1)->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "both inputs are constants");
    return VKI_OK;
}

static const char *op_define(vki_op_code code) {
    switch (code) {
    case VKI_OP_SUB: return "OP_SUB";
    case VKI_OP_MUL: return "OP_MUL";
    case VKI_OP_DIV: return "OP_DIV";
    case VKI_OP_MAXIMUM: return "OP_MAXIMUM";
    case VKI_OP_MINIMUM: return "OP_MINIMUM";
    default: return "OP_ADD";
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

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_dispatch d;
    vki_dispatch_init(&d, "binary", VKI_WG_ELEMENTWISE);
    vki_define_int(&d, op_define(op->code), 1);
    vki_define_activation(&d, activation_of(op));
    static const char *const prefix[2] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        const vki_tensor *t = vki_op_in(m, op, i);
        vki_shape4 s = vki_tensor_shape4(t);
        vki_define_shape(&d, prefix[i], s);
        if (!t->data) {
            vki_dispatch_bind_tensor(&d, op->inputs[i]);
            continue;
        }
        int blob = vki_build_weights_phwc4(b, t->data, s);
        if (blob < 0) return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
        vki_dispatch_bind_weights(&d, blob);
    }
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_define_shape(&d, "OUT", out);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

static float apply(vki_op_code code, float a, float b) {
    switch (code) {
    case VKI_OP_SUB: return a - b;
    case VKI_OP_MUL: return a * b;
    case VKI_OP_DIV: return a / b;
    case VKI_OP_MAXIMUM: return a > b ? a : b;
    case VKI_OP_MINIMUM: return a < b ? a : b;
    default: return a + b;
    }
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    vki_shape4 sa = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 sb = vki_tensor_shape4(vki_op_in(m, op, 1));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_activation act = activation_of(op);
    for (int y = 0; y < so.h; y++)
        for (int x = 0; x < so.w; x++)
            for (int c = 0; c < so.c; c++) {
                float a = in[0][((sa.h == 1 ? 0 : y) * sa.w + (sa.w == 1 ? 0 : x)) * sa.c + (sa.c == 1 ? 0 : c)];
                float v = in[1][((sb.h == 1 ? 0 : y) * sb.w + (sb.w == 1 ? 0 : x)) * sb.c + (sb.c == 1 ? 0 : c)];
                out[0][(y * so.w + x) * so.c + c] = vki_apply_activation(act, apply(op->code, a, v));
            }
}

const vki_op_def vki_op_add = {VKI_OP_ADD, validate, build, reference};
