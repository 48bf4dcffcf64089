/* softmax.c: SOFTMAX over the last axis with beta (glsl/softmax.comp). The last axis is
 * C in the NHWC view of every rank, so one thread per (x, y) walks all slices. The max
 * is subtracted first, as TFLite does, so large beta * x never overflows exp. */
#include "ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input is a scalar, need rank >= 1");
    bool same = in->rank == out->rank;
    for (int i = 0; same && i < in->rank; i++) same = in->shape[i] == out->shape[i];
    if (!same) {
        char gi[96], go[96];
        vki_format_dims(gi, sizeof gi, in->rank, in->shape);
        vki_format_dims(go, sizeof go, out->rank, out->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input is %s but output tensor %d is %s",
                           gi, op->outputs[0], go);
    }
    float beta = op->opt.softmax.beta;
    if (!isfinite(beta))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "beta %g is not finite", (double)beta);
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_shape4 s = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_softmax, VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "IN", s);
    vki_define_shape(&d, "OUT", s);
    vki_define_float(&d, "BETA", op->opt.softmax.beta);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    d.grid[0] = (uint32_t)s.w;
    d.grid[1] = (uint32_t)s.h;
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference_ops::Softmax (float). */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    vki_shape4 s = vki_tensor_shape4(vki_op_in(m, op, 0));
    float beta = op->opt.softmax.beta;
    size_t rows = (size_t)s.h * (size_t)s.w;
    for (size_t r = 0; r < rows; r++) {
        const float *x = in[0] + r * (size_t)s.c;
        float *y = out[0] + r * (size_t)s.c;
        float max = -FLT_MAX;
        for (int c = 0; c < s.c; c++) max = x[c] > max ? x[c] : max;
        float sum = 0.0f;
        for (int c = 0; c < s.c; c++) {
            float e = expf((x[c] - max) * beta);
            y[c] = e;
            sum += e;
        }
        for (int c = 0; c < s.c; c++) y[c] = y[c] / sum;
    }
}

/* SoftmaxOptions: beta. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_f32(r, 0, 0.0f, &op->opt.softmax.beta)) return vki_opt_malformed(r);
    return VKI_OK;
}

const vki_op_def vki_op_softmax = {
    .validate = validate, .build = build, .reference = reference, .options = read_options};
