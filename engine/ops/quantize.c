/* quantize.c: QUANTIZE and DEQUANTIZE as TFLite's GPU delegate runs int8 models: every
 * tensor holds float real values, and QUANTIZE rounds them onto its output's int8 (or
 * uint8) grid, q = clamp(round(x / scale) + zero, min, max), x' = scale * (q - zero), with
 * round half away from zero as TFLite's AffineQuantize. The loader adds a QUANTIZE after
 * every op that writes a quantized activation (tflite_loader.c); the file's own QUANTIZE
 * ops are the same step. DEQUANTIZE of an activation is then a copy (the output shares
 * the input's storage); of a constant it folded at load. */
#include "ops.h"

#include <math.h>

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_io(m, o, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') is a "
                           "constant the loader did not fold", op->inputs[0], in->name);
    if (op->code == VKI_OP_QUANTIZE && !vki_tensor_quantized(out))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "output (tensor %d '%s') has no "
                           "int8 or uint8 quantization to round to", op->outputs[0], out->name);
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

/* How far from a half a q-domain value may be and still be taken as that half: a quarter
 * of the spacing 1 / tie_count of the exact means. */
static float tie_eps(int tie_count) { return 0.25f / (float)tie_count; }

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *out_t = vki_op_out(m, op, 0);
    if (op->code == VKI_OP_DEQUANTIZE) return vki_build_alias(b, op->outputs[0], op->inputs[0]);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_unary, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, "OP_QUANTIZE", 1);
    vki_define_float(&d, "SCALE", out_t->quant_scale);
    vki_define_int(&d, "ZERO", out_t->quant_zero);
    vki_define_int(&d, "QMIN", out_t->quant_min);
    vki_define_int(&d, "QMAX", out_t->quant_max);
    if (op->opt.quantize.tie_count > 0)
        vki_define_float(&d, "TIE_EPS", tie_eps(op->opt.quantize.tie_count));
    return vki_unary_emit(b, m, op, &d);
}

/* TFLite's reference AffineQuantize, then Dequantize. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_tensor *t = vki_op_out(m, op, 0);
    size_t n = vki_tensor_elements(t);
    for (size_t i = 0; i < n; i++) {
        if (op->code == VKI_OP_DEQUANTIZE) {
            out[0][i] = in[0][i];
            continue;
        }
        float q;
        if (op->opt.quantize.tie_count > 0) {   /* in the q domain, near-halves as halves */
            float f = in[0][i] / t->quant_scale + (float)t->quant_zero, a = fabsf(f), r = floorf(a);
            r += a - r >= 0.5f - tie_eps(op->opt.quantize.tie_count) ? 1.0f : 0.0f;
            q = copysignf(r, f);
        } else {
            q = roundf(in[0][i] / t->quant_scale) + (float)t->quant_zero;
        }
        q = q < (float)t->quant_min ? (float)t->quant_min : q > (float)t->quant_max ? (float)t->quant_max : q;
        out[0][i] = t->quant_scale * (q - (float)t->quant_zero);
    }
}

#define QUANT_ {.validate = validate, .build = build, .reference = reference, .general = true}
const vki_op_def vki_op_quantize = QUANT_;
const vki_op_def vki_op_dequantize = QUANT_;
