/* int8.c: the integer forms' shared arithmetic (int8.h): weights, biases, requantization
 * scales and activation ranges of int8 / uint8 convolutions, as LiteRT computes them.
 *
 * LiteRT runs int8 convolutions on XNNPACK (qs8 / qc8w operators): an int32 sum of
 * (q - zero) products plus the int32 bias, then the fp32 requantization: float(sum) times
 * in_scale * w_scale / out_scale (one float32 value per output channel), rounded half to
 * even, plus the output's zero point, clamped. Measured with LiteRT on a 1x1 convolution
 * whose scale is 0.5 (tests/test_int8.c): sums -5, -1, 1, 3, 5 give -2, 0, 0, 2, 2, ties to
 * even, where TFLite's reference kernels (fixed-point multiplier, ties away from zero)
 * give -3, -1, 1, 2, 3. */
#include "int8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool quantized_activation(const vki_tensor *t) {
    return t && !t->data && vki_tensor_quantized(t);
}

bool vki_int8_conv_ok(const vki_model *m, const vki_op *op, int w_axis) {
    if (op->n_inputs < 2 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *w = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    if (!quantized_activation(in) || !quantized_activation(out) || !w || !w->qdata) return false;
    if (w->n_qscale > 1 && w->qaxis != w_axis) return false;
    const vki_tensor *bias = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    if (bias && (!bias->qdata || bias->n_qscale < 1)) return false;
    return true;
}

/* Elements after qaxis (per-channel quantization). */
static size_t inner_of(const vki_tensor *t) {
    size_t inner = 1;
    for (int i = t->qaxis + 1; t->n_qscale > 1 && i < t->rank; i++) inner *= (size_t)t->shape[i];
    return inner;
}

float *vki_int8_weight_values(const vki_tensor *w) {
    size_t n = vki_tensor_elements(w), inner = inner_of(w);
    float *v = vki_malloc((n ? n : 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t e = 0; e < n; e++) v[e] = (float)vki_tensor_qvalue(w, e, inner);
    return v;
}

float vki_int8_conv_scale(const vki_model *m, const vki_op *op, int c) {
    const vki_tensor *in = vki_op_in(m, op, 0), *w = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    volatile float product = in->quant_scale * w->qscale[w->n_qscale > 1 ? c : 0];
    volatile float scale = product / out->quant_scale;
    return scale;
}

int32_t vki_int8_bias(const vki_model *m, const vki_op *op, int c) {
    const vki_tensor *bias = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    return bias ? vki_tensor_qvalue(bias, (size_t)c, 1) : 0;
}

int vki_int8_bias_blob(vki_build *b, const vki_model *m, const vki_op *op, size_t count) {
    const int oc = vki_op_out(m, op, 0)->shape[vki_op_out(m, op, 0)->rank - 1];
    int32_t *v = vki_calloc(2 * count, sizeof *v);
    if (!v) return -1;
    for (int c = 0; c < oc && (size_t)c < count; c++) {
        v[c] = vki_int8_bias(m, op, c);
        float s = vki_int8_conv_scale(m, op, c);
        memcpy(&v[count + (size_t)c], &s, 4);
    }
    int blob = vki_build_weights_i32(b, v, 2 * count);
    free(v);
    return blob;
}

/* XNNPACK's xnn_qs8_quantize of an activation bound: val / scale + zero in float32,
 * clamped to the type's range, rounded half to even. */
static int quantize_bound(const vki_tensor *t, float val) {
    volatile float scaled = val / t->quant_scale;
    float q = scaled + (float)t->quant_zero;
    if (q < (float)t->quant_min) q = (float)t->quant_min;
    if (q > (float)t->quant_max) q = (float)t->quant_max;
    return (int)nearbyintf(q);
}

void vki_int8_activation_range(const vki_tensor *t, vki_activation act, int *lo, int *hi) {
    int qlo = t->quant_min, qhi = t->quant_max;
    switch (act) {
    case VKI_ACT_RELU: qlo = quantize_bound(t, 0.0f); break;
    case VKI_ACT_RELU6: qlo = quantize_bound(t, 0.0f); qhi = quantize_bound(t, 6.0f); break;
    case VKI_ACT_RELU_N1_TO_1: qlo = quantize_bound(t, -1.0f); qhi = quantize_bound(t, 1.0f); break;
    default: break;
    }
    *lo = qlo - t->quant_zero;
    *hi = qhi - t->quant_zero;
}

void vki_int8_define_epilogue(vki_dispatch *d, const vki_tensor *out, vki_activation act,
                              size_t bias_count) {
    int lo, hi;
    vki_int8_activation_range(out, act, &lo, &hi);
    vki_define_int(d, "INT8", 1);
    vki_define_int(d, "RQ_BASE", (long long)(bias_count / 4));
    vki_define_int(d, "OUT_QMIN", lo);
    vki_define_int(d, "OUT_QMAX", hi);
}

float vki_int8_requantize(int32_t acc, float scale, int lo, int hi) {
    volatile float f = (float)acc * scale;
    float r = nearbyintf(f);
    return r < (float)lo ? (float)lo : r > (float)hi ? (float)hi : r;
}

/* ---- ADD, SUB, MUL -------------------------------------------------------------------- */

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The multipliers and shift as xnn_init_qs8_add_minmax_scalar_params derives them: each
 * input's scale over the output's in float32 (SUB negates b's), a shift of 20 less the
 * larger one's binary exponent, each multiplier its scale times 2^shift rounded half to
 * even. False where the shift leaves 1..30 (scales too far apart): the float form runs. */
static bool add_params(const vki_model *m, const vki_op *op, vki_int8_binary *p) {
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    volatile float a_os = a->quant_scale / out->quant_scale;
    volatile float b_os = b->quant_scale / out->quant_scale;
    float big = a_os > b_os ? a_os : b_os;
    int exponent = (int)((float_bits(big) >> 23) & 0xff) - 127;
    p->shift = 20 - exponent;
    if (p->shift < 1 || p->shift > 30) return false;
    p->a_mult = (int32_t)nearbyintf(ldexpf(a_os, p->shift));
    p->b_mult = (int32_t)nearbyintf(ldexpf(b_os, p->shift));
    if (op->code == VKI_OP_SUB) p->b_mult = -p->b_mult;
    return true;
}

bool vki_int8_binary_ok(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_ADD && op->code != VKI_OP_SUB && op->code != VKI_OP_MUL) return false;
    if (op->n_inputs != 2 || op->n_outputs != 1) return false;
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    if (!quantized_activation(a) || !quantized_activation(b) || !quantized_activation(out))
        return false;
    if (a->quant_min != out->quant_min || b->quant_min != out->quant_min) return false;
    vki_int8_binary p;
    return op->code == VKI_OP_MUL || add_params(m, op, &p);
}

vki_int8_binary vki_int8_binary_params(const vki_model *m, const vki_op *op) {
    vki_int8_binary p = {0};
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    if (op->code == VKI_OP_MUL) {
        volatile float product = a->quant_scale * b->quant_scale;
        volatile float scale = product / out->quant_scale;
        p.scale = scale;
    } else {
        add_params(m, op, &p);
    }
    vki_int8_activation_range(out, op->opt.eltwise.activation, &p.lo, &p.hi);
    return p;
}

float vki_int8_binary_apply(vki_op_code code, const vki_int8_binary *p, int32_t ca, int32_t cb) {
    float r;
    if (code == VKI_OP_MUL) {
        volatile float f = (float)(ca * cb) * p->scale;
        r = nearbyintf(f);
    } else {
        int32_t acc = (int32_t)(1u << (p->shift - 1)) + ca * p->a_mult + cb * p->b_mult;
        r = (float)(acc >> p->shift);   /* arithmetic shift: floor */
    }
    return r < (float)p->lo ? (float)p->lo : r > (float)p->hi ? (float)p->hi : r;
}
