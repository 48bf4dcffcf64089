/* quantize.c: QUANTIZE and DEQUANTIZE between float tensors (real values) and int8 /
 * uint8 tensors, which hold q - zero point (tflite_loader.c's lower_quantized). QUANTIZE
 * of a float tensor rounds as XNNPACK's f32-qs8-vcvt, which LiteRT runs: x times the
 * reciprocal scale, ties to even, clamped to the type's range. DEQUANTIZE gives
 * (q - zero) * scale; of a float tensor it is a copy, of a constant it folded at load.
 * QUANTIZE between two grids of one type (a requantization) is XNNPACK's qs8 vcvt, by a
 * table (int8.c); between int8 and uint8 (which the delegate does not take) it is TFLite's
 * own Requantize (quantize.cc: a fixed-point multiplier), by a table too. */
#include "int8.h"
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

/* The reciprocal XNNPACK's f32-qs8-vcvt multiplies by, in float32. */
static float inverse_scale(const vki_tensor *t) { return 1.0f / t->quant_scale; }

static bool quantized_input(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    return vki_tensor_quantized(in);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out_t = vki_op_out(m, op, 0);
    if (op->code == VKI_OP_QUANTIZE && vki_int8_requantize_types_ok(m, op))
        return vki_int8_build_lut(b, m, op, vki_int8_requantize_types_entry);
    if (op->code == VKI_OP_QUANTIZE && quantized_input(m, op)) return vki_int8_build_table(b, m, op);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_quant, VKI_WG_ELEMENTWISE);
    if (op->code == VKI_OP_DEQUANTIZE) {
        if (!quantized_input(m, op)) return vki_build_alias(b, op->outputs[0], op->inputs[0]);
        vki_define_int(&d, "OP_DEQUANTIZE", 1);
        vki_define_float(&d, "SCALE", in->quant_scale);
    } else {
        vki_define_int(&d, "OP_QUANTIZE", 1);
        vki_quantize_define(&d, out_t);
    }
    return vki_unary_emit(b, m, op, &d);
}

void vki_quantize_define(vki_dispatch *d, const vki_tensor *t) {
    vki_define_float(d, "INV_SCALE", inverse_scale(t));
    vki_define_int(d, "ZERO", t->quant_zero);
    vki_define_int(d, "QMIN", t->quant_min);
    vki_define_int(d, "QMAX", t->quant_max);
}

/* q - zero point of real value x on t's grid, as XNNPACK's f32-qs8-vcvt: x times the
 * reciprocal of the scale in float32, rounded half to even, clamped. */
float vki_quantize_value(const vki_tensor *t, float x) {
    volatile float scaled = x * inverse_scale(t);   /* one float32 rounding, no contraction */
    float q = nearbyintf(scaled) + (float)t->quant_zero;
    q = q < (float)t->quant_min ? (float)t->quant_min : q > (float)t->quant_max ? (float)t->quant_max : q;
    return q - (float)t->quant_zero;
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_tensor *src = vki_op_in(m, op, 0), *t = vki_op_out(m, op, 0);
    if (op->code == VKI_OP_QUANTIZE && vki_int8_requantize_types_ok(m, op)) {
        for (size_t i = 0, n = vki_tensor_elements(t); i < n; i++)
            out[0][i] = (float)(vki_int8_requantize_types_entry(src, t, (int)in[0][i] + src->quant_zero) -
                                t->quant_zero);
        return;
    }
    if (op->code == VKI_OP_QUANTIZE && vki_tensor_quantized(src)) {
        vki_int8_table_reference(m, op, in[0], out[0]);
        return;
    }
    size_t n = vki_tensor_elements(t);
    for (size_t i = 0; i < n; i++) {
        if (op->code == VKI_OP_DEQUANTIZE) {
            out[0][i] = vki_tensor_quantized(src) ? in[0][i] * src->quant_scale : in[0][i];
            continue;
        }
        out[0][i] = vki_quantize_value(t, in[0][i]);
    }
}

#define QUANT_ {.validate = validate, .build = build, .reference = reference, .general = true}
const vki_op_def vki_op_quantize = QUANT_;
const vki_op_def vki_op_dequantize = QUANT_;
