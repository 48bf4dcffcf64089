/* softmax.c: the normalisations over the last axis (C in the storage view of every rank,
 * so one thread per (x, y) walks all slices; glsl/softmax.comp): SOFTMAX with beta,
 * LOG_SOFTMAX, L2_NORMALIZATION and LOCAL_RESPONSE_NORMALIZATION. The max is subtracted
 * first, as TFLite does, so large beta * x never overflows exp.
 *
 * SOFTMAX of an int8 / uint8 tensor has an integer form (vki_op_def.integer): what LiteRT
 * runs for it, TFLite's own optimized_ops::Softmax for 8-bit input and output (the XNNPACK
 * delegate takes float SOFTMAX only; the uint16 table kernel, SoftmaxInt8LUT, is built for
 * aarch64 with clang alone, not for LiteRT.js's wasm). Its Prepare fills a float32 table of
 * exp(-in_scale * beta * d) for each distance d = max - q of 0..255 (expf); each row then
 *   sum  = the table entries of its q, added in float32 in channel order
 *   inv  = 1 / (sum * out_scale)                    (float32, correctly rounded)
 *   p    = entry * inv                              (float32)
 *   q    = int8: round(p) half away from zero - 128; uint8: (int)(p + 0.5f), truncated
 * clamped to the type. The table is built here on the host and bound as int32 bits, so
 * every precision reads the same floats; the kernel adds in the same order, and takes
 * the reciprocal by integer long division (a GLSL division may be off by 2.5 ulp). */
#include "ops.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* ---- the integer form --------------------------------------------------------------- */

static bool quantized_activation(const vki_tensor *t) {
    return t && !t->data && vki_tensor_quantized(t);
}

/* SOFTMAX from an int8 / uint8 activation onto the same type, on the output grid TFLite's
 * Prepare requires (zero point -128 for int8, 0 for uint8; its uint8 rounding ignores the
 * zero point), with beta > 0 (so the table's largest entry is exp(0) = 1 and every sum a
 * normal float). Any other runs in float between a DEQUANTIZE and a QUANTIZE. */
static bool integer(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_SOFTMAX || op->n_inputs != 1 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (!quantized_activation(in) || !quantized_activation(out)) return false;
    const float beta = op->opt.softmax.beta;
    return in->quant_min == out->quant_min && in->quant_max - in->quant_min == 255 &&
           out->quant_max - out->quant_min == 255 && out->quant_zero == out->quant_min &&
           isfinite(beta) && beta > 0.0f && isnormal(out->quant_scale) && out->quant_scale > 0.0f;
}

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

/* TFLite's PopulateSoftmaxLookupTable: entry 255 - d is expf(-in_scale * beta * d), the
 * scale and each product rounded to float32. expf is the C library's; LiteRT.js's
 * (emscripten's musl) and glibc's are the same algorithm. */
static void int8_table(const vki_model *m, const vki_op *op, float table[256]) {
    volatile float scale = -vki_op_in(m, op, 0)->quant_scale * op->opt.softmax.beta;
    for (int d = 0; d < 256; d++) {
        volatile float x = scale * (float)d;
        table[255 - d] = expf(x);
    }
}

/* One row of n values q - zero point, as optimized_ops::Softmax computes it. */
static void int8_row(const vki_tensor *out, const float *table, const float *x, float *y, int n) {
    int mx = INT_MIN;
    for (int c = 0; c < n; c++) mx = (int)x[c] > mx ? (int)x[c] : mx;
    volatile float sum = 0.0f;
    for (int c = 0; c < n; c++) sum = sum + table[255 - mx + (int)x[c]];
    volatile float denom = sum * out->quant_scale;
    volatile float inv = 1.0f / denom;
    const bool u8 = out->quant_min == 0;
    for (int c = 0; c < n; c++) {
        volatile float p = table[255 - mx + (int)x[c]] * inv;
        int r;
        if (u8) {   /* QuantizeSoftmaxOutput<uint8_t> off aarch64: a truncation */
            volatile float t = p + 0.5f;
            r = (int)t;
        } else {    /* std::round, p >= 0 */
            float f = floorf(p);
            r = (int)f + (p - f >= 0.5f);
        }
        r += out->quant_zero;
        r = r < out->quant_min ? out->quant_min : r > out->quant_max ? out->quant_max : r;
        y[c] = (float)(r - out->quant_zero);
    }
}

static vki_status build_int8(vki_build *b, const vki_model *m, const vki_op *op) {
    const vki_tensor *out = vki_op_out(m, op, 0);
    vki_shape4 s = vki_tensor_rows(vki_op_in(m, op, 0));
    float table[256];
    int32_t bits[256];
    int8_table(m, op, table);
    memcpy(bits, table, sizeof bits);
    int blob = vki_build_weights_i32(b, bits, 256);
    if (blob < 0) return vki_fail_oom("graph build");
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_softmax, VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "IN", s);
    vki_define_shape(&d, "OUT", s);
    vki_define_int(&d, "INT8_SOFTMAX", 1);
    vki_define_int(&d, "OUT_UINT8", out->quant_min == 0);
    vki_define_float(&d, "OUT_SCALE", out->quant_scale);
    vki_define_int(&d, "OUT_QMAX", out->quant_max - out->quant_zero);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_bind_weights(&d, blob);
    d.grid[0] = (uint32_t)s.w;
    d.grid[1] = (uint32_t)s.h;
    return vki_build_dispatch(b, &d);
}

/* ---- build and reference ------------------------------------------------------------- */

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (runs_integer(m, op)) return build_int8(b, m, op);
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
    if (runs_integer(m, op)) {
        float table[256];
        int8_table(m, op, table);
        for (size_t r = 0; r < rows; r++)
            int8_row(vki_op_out(m, op, 0), table, in[0] + r * (size_t)s.c,
                     out[0] + r * (size_t)s.c, s.c);
        return;
    }
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
const vki_op_def vki_op_softmax = {.validate = validate, .build = build, .reference = reference,
                                   .options = read_softmax, .general = true, .integer = integer};
const vki_op_def vki_op_log_softmax = NORM_(NULL);
const vki_op_def vki_op_l2_normalization = NORM_(read_l2norm);
const vki_op_def vki_op_local_response_normalization = NORM_(read_lrn);
