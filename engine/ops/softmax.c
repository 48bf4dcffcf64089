/* softmax.c: the normalisations over the last axis (C in the storage view of every rank,
 * so one thread per (x, y) walks all slices; glsl/softmax.comp): SOFTMAX with beta,
 * LOG_SOFTMAX, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION. The max is subtracted
 * first, as TFLite does, so large beta * x never overflows exp. */
#include "ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input is a scalar, need rank >= 1");
    if (in->dtype != VKI_DTYPE_FLOAT32 || vki_op_out(m, op, 0)->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "takes and makes float32");
    s = vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
    if (s) return s;
    if (op->code == VKI_OP_SOFTMAX && !isfinite(op->opt.softmax.beta))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "beta %g is not finite",
                           (double)op->opt.softmax.beta);
    if (op->code == VKI_OP_LOCAL_RESPONSE_NORMALIZATION) {
        if (op->opt.lrn.radius < 0 || op->opt.lrn.radius > 1 << 16 || !isfinite(op->opt.lrn.bias) ||
            !isfinite(op->opt.lrn.alpha) || !isfinite(op->opt.lrn.beta))
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "radius %d, bias %g, alpha %g, beta "
                               "%g: need a radius of 0 to 65536 and finite values",
                               op->opt.lrn.radius, (double)op->opt.lrn.bias,
                               (double)op->opt.lrn.alpha, (double)op->opt.lrn.beta);
    }
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_shape4 s = vki_tensor_rows(vki_op_in(m, op, 0));
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_softmax, VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "IN", s);
    vki_define_shape(&d, "OUT", s);
    switch (op->code) {
    case VKI_OP_LOG_SOFTMAX: vki_define_int(&d, "LOG_SOFTMAX", 1); break;
    case VKI_OP_L2_NORMALIZATION:
        vki_define_int(&d, "L2_NORM", 1);
        vki_define_activation(&d, op->opt.l2norm.activation);
        break;
    case VKI_OP_LOCAL_RESPONSE_NORMALIZATION:
        vki_define_int(&d, "LRN", 1);
        vki_define_int(&d, "RADIUS", op->opt.lrn.radius);
        vki_define_float(&d, "BIAS", op->opt.lrn.bias);
        vki_define_float(&d, "ALPHA", op->opt.lrn.alpha);
        vki_define_float(&d, "BETA_LRN", op->opt.lrn.beta);
        break;
    default: vki_define_float(&d, "BETA", op->opt.softmax.beta); break;
    }
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    d.grid[0] = (uint32_t)s.w;
    d.grid[1] = (uint32_t)s.h;
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference_ops::Softmax, LogSoftmax, L2Normalization (epsilon 1e-6) and
 * LocalResponseNormalization, float, on one row of C values. */
static void normalise(const vki_op *op, const float *x, float *y, int n) {
    if (op->code == VKI_OP_L2_NORMALIZATION) {
        float sq = 0.0f;
        for (int c = 0; c < n; c++) sq += x[c] * x[c];
        float norm = fmaxf(sqrtf(sq), 1e-6f);
        for (int c = 0; c < n; c++) y[c] = vki_apply_activation(op->opt.l2norm.activation, x[c] / norm);
        return;
    }
    if (op->code == VKI_OP_LOCAL_RESPONSE_NORMALIZATION) {
        int r = op->opt.lrn.radius;
        for (int c = 0; c < n; c++) {
            float acc = 0.0f;
            for (int k = c - r < 0 ? 0 : c - r; k <= c + r && k < n; k++) acc += x[k] * x[k];
            y[c] = x[c] * powf(op->opt.lrn.bias + op->opt.lrn.alpha * acc, -op->opt.lrn.beta);
        }
        return;
    }
    bool log_form = op->code == VKI_OP_LOG_SOFTMAX;
    float beta = log_form ? 1.0f : op->opt.softmax.beta;
    float max = -FLT_MAX;
    for (int c = 0; c < n; c++) max = x[c] > max ? x[c] : max;
    float sum = 0.0f;
    for (int c = 0; c < n; c++) sum += expf((x[c] - max) * beta);
    for (int c = 0; c < n; c++)
        y[c] = log_form ? x[c] - max - logf(sum) : expf((x[c] - max) * beta) / sum;
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    vki_shape4 s = vki_tensor_rows(vki_op_in(m, op, 0));
    size_t rows = (size_t)s.h * (size_t)s.w;
    for (size_t r = 0; r < rows; r++)
        normalise(op, in[0] + r * (size_t)s.c, out[0] + r * (size_t)s.c, s.c);
}

/* SoftmaxOptions: beta. */
static vki_status read_softmax(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_f32(r, 0, 0.0f, &op->opt.softmax.beta)) return vki_opt_malformed(r);
    return VKI_OK;
}

/* L2NormOptions: the fused activation at field 0. */
static vki_status read_l2norm(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act;
    if (!vki_opt_i8(r, 0, 0, &act)) return vki_opt_malformed(r);
    return vki_opt_activation(r, act, &op->opt.l2norm.activation);
}

/* LocalResponseNormalizationOptions: radius, bias, alpha, beta (schema defaults 0). */
static vki_status read_lrn(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t radius;
    if (!vki_opt_i32(r, 0, 0, &radius) || !vki_opt_f32(r, 1, 0.0f, &op->opt.lrn.bias) ||
        !vki_opt_f32(r, 2, 0.0f, &op->opt.lrn.alpha) || !vki_opt_f32(r, 3, 0.0f, &op->opt.lrn.beta))
        return vki_opt_malformed(r);
    op->opt.lrn.radius = radius;
    return VKI_OK;
}

#define NORM_(fn) {.validate = validate, .build = build, .reference = reference, .options = fn, \
                   .general = true}
const vki_op_def vki_op_softmax = NORM_(read_softmax);
const vki_op_def vki_op_log_softmax = NORM_(NULL);
const vki_op_def vki_op_l2_normalization = NORM_(read_l2norm);
const vki_op_def vki_op_local_response_normalization = NORM_(read_lrn);
