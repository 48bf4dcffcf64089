/* binary.c: elementwise ops of two tensors with TFLite (numpy) broadcasting: ADD, SUB,
 * MUL, DIV, MAXIMUM, MINIMUM and PRELU (input, alpha). They share one validator, one
 * kernel (glsl/binary.comp, the op picked by a #define) and one C reference. Either
 * operand may be a constant; it is packed to PHWC4 at build. */
#include "ops.h"

/* Operand shape with its dims right-aligned to [N,H,W,C], as broadcasting aligns them.
 * For the batch-1 activations the engine stores this equals vki_tensor_shape4, so it is
 * also their PHWC4 layout; for a constant it also reads [H,W,C] as H, W, C (where
 * vki_tensor_shape4 would read a leading H as the batch). */
static vki_shape4 operand_shape(const vki_tensor *t) {
    int d[4] = {1, 1, 1, 1};
    for (int i = 0; i < t->rank && i < 4; i++) d[4 - t->rank + i] = t->shape[i];
    return (vki_shape4){d[0], d[1], d[2], d[3]};
}

/* The broadcast extent of one axis, or -1 if the extents are incompatible. */
static int broadcast_dim(int a, int b) {
    if (a == b || b == 1) return a;
    return a == 1 ? b : -1;
}

static vki_activation activation_of(const vki_op *op) {
    switch (op->code) {
    case VKI_OP_ADD: case VKI_OP_SUB: case VKI_OP_MUL: case VKI_OP_DIV:
        return op->opt.eltwise.activation;
    default:
        return VKI_ACT_NONE;
    }
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *ta = vki_op_in(m, op, 0), *tb = vki_op_in(m, op, 1);
    if (ta->data && tb->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "both inputs (tensors %d, %d) are constants", op->inputs[0],
                           op->inputs[1]);
    vki_shape4 sa = operand_shape(ta), sb = operand_shape(tb);
    for (int i = 0; i < 2; i++) {
        const vki_tensor *t = i ? tb : ta;
        vki_shape4 in = i ? sb : sa;
        /* Activations are checked by the arity check; a constant may still carry a batch. */
        if (in.n != 1)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                               "input %d (tensor %d '%s') has batch %d, only 1 supported", i,
                               op->inputs[i], t->name, in.n);
    }
    vki_shape4 want = {1, broadcast_dim(sa.h, sb.h), broadcast_dim(sa.w, sb.w),
                       broadcast_dim(sa.c, sb.c)};
    if (want.h < 0 || want.w < 0 || want.c < 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "inputs [1,%d,%d,%d] (tensor %d '%s') and [1,%d,%d,%d] (tensor %d "
                           "'%s') do not broadcast",
                           sa.h, sa.w, sa.c, op->inputs[0], ta->name, sb.h, sb.w, sb.c,
                           op->inputs[1], tb->name);
    const vki_tensor *to = vki_op_out(m, op, 0);
    vki_shape4 so = vki_tensor_shape4(to);
    if (so.h != want.h || so.w != want.w || so.c != want.c)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "output (tensor %d '%s') is [1,%d,%d,%d], the inputs broadcast to "
                           "[1,%d,%d,%d]",
                           op->outputs[0], to->name, so.h, so.w, so.c, want.h, want.w, want.c);
    vki_activation act = activation_of(op);
    if (act != VKI_ACT_NONE && act != VKI_ACT_RELU && act != VKI_ACT_RELU6 &&
        act != VKI_ACT_RELU_N1_TO_1 && act != VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation %d unknown",
                           (int)act);
    return VKI_OK;
}

static const char *op_define(vki_op_code code) {
    switch (code) {
    case VKI_OP_SUB: return "OP_SUB";
    case VKI_OP_MUL: return "OP_MUL";
    case VKI_OP_DIV: return "OP_DIV";
    case VKI_OP_MAXIMUM: return "OP_MAXIMUM";
    case VKI_OP_MINIMUM: return "OP_MINIMUM";
    case VKI_OP_PRELU: return "OP_PRELU";
    default: return "OP_ADD";
    }
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_binary, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, op_define(op->code), 1);
    vki_define_activation(&d, activation_of(op));
    static const char *const prefix[2] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        const vki_tensor *t = vki_op_in(m, op, i);
        vki_shape4 s = operand_shape(t);
        vki_define_shape(&d, prefix[i], s);
        vki_status st = vki_build_bind_operand(b, &d, op->inputs[i], s);
        if (st) return st;
    }
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_define_shape(&d, "OUT", out);
    vki_status bound = vki_build_bind_output(b, &d, op);
    if (bound) return bound;
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

/* TFLite's float kernels, written out plainly. */
static float apply(vki_op_code code, float a, float b) {
    switch (code) {
    case VKI_OP_SUB: return a - b;
    case VKI_OP_MUL: return a * b;
    case VKI_OP_DIV: return a / b;
    case VKI_OP_MAXIMUM: return a > b ? a : b;
    case VKI_OP_MINIMUM: return a < b ? a : b;
    case VKI_OP_PRELU: return a >= 0.0f ? a : a * b;
    default: return a + b;
    }
}

static size_t at(vki_shape4 s, int y, int x, int c) {
    return ((size_t)(s.h == 1 ? 0 : y) * (size_t)s.w + (size_t)(s.w == 1 ? 0 : x)) * (size_t)s.c +
           (size_t)(s.c == 1 ? 0 : c);
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    vki_shape4 sa = operand_shape(vki_op_in(m, op, 0));
    vki_shape4 sb = operand_shape(vki_op_in(m, op, 1));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_activation act = activation_of(op);
    for (int y = 0; y < so.h; y++)
        for (int x = 0; x < so.w; x++)
            for (int c = 0; c < so.c; c++)
                out[0][at(so, y, x, c)] = vki_apply_activation(
                    act, apply(op->code, in[0][at(sa, y, x, c)], in[1][at(sb, y, x, c)]));
}

/* AddOptions, SubOptions, MulOptions and DivOptions: the fused activation at field 0.
 * MAXIMUM, MINIMUM and PRELU have no options. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act;
    if (!vki_opt_i8(r, 0, 0, &act)) return vki_opt_malformed(r);
    return vki_opt_activation(r, act, &op->opt.eltwise.activation);
}

#define ELTWISE_ {.validate = validate, .build = build, .reference = reference, \
                  .options = read_options}
#define PLAIN_ {.validate = validate, .build = build, .reference = reference}
const vki_op_def vki_op_add = ELTWISE_;
const vki_op_def vki_op_sub = ELTWISE_;
const vki_op_def vki_op_mul = ELTWISE_;
const vki_op_def vki_op_div = ELTWISE_;
const vki_op_def vki_op_maximum = PLAIN_;
const vki_op_def vki_op_minimum = PLAIN_;
const vki_op_def vki_op_prelu = PLAIN_;
