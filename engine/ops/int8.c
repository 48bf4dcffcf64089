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

const vki_tensor *vki_int8_own(const vki_model *m, const vki_op *op) {
    return op->fused.int8_own ? &m->tensors[op->fused.int8_own - 1] : vki_op_out(m, op, 0);
}

float vki_int8_conv_scale(const vki_model *m, const vki_op *op, int c) {
    const vki_tensor *in = vki_op_in(m, op, 0), *w = vki_op_in(m, op, 1), *out = vki_int8_own(m, op);
    volatile float product = in->quant_scale * w->qscale[w->n_qscale > 1 ? c : 0];
    volatile float scale = product / out->quant_scale;
    return scale;
}

int32_t vki_int8_bias(const vki_model *m, const vki_op *op, int c) {
    const vki_tensor *bias = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    return bias ? vki_tensor_qvalue(bias, (size_t)c, 1) : 0;
}

int vki_int8_bias_blob(vki_build *b, const vki_model *m, const vki_op *op, size_t count) {
    return vki_int8_bias_blob_adjusted(b, m, op, count, NULL);
}

int vki_int8_bias_blob_adjusted(vki_build *b, const vki_model *m, const vki_op *op, size_t count,
                                const int32_t *adjust) {
    const int oc = vki_op_out(m, op, 0)->shape[vki_op_out(m, op, 0)->rank - 1];
    int32_t *v = vki_calloc(2 * count, sizeof *v);
    if (!v) return -1;
    for (int c = 0; c < oc && (size_t)c < count; c++) {
        v[c] = vki_int8_bias(m, op, c) + (adjust ? adjust[c] : 0);
        float s = vki_int8_conv_scale(m, op, c);
        memcpy(&v[count + (size_t)c], &s, 4);
    }
    int blob = vki_build_weights_i32(b, v, 2 * count);
    free(v);
    return blob;
}

void vki_int8_define_packed_src(vki_dispatch *d, const vki_tensor *in) {
    vki_define_int(d, "INT8_PACKED", 1);
    if (in->quant_min < 0) vki_define_int(d, "SRC_SIGNED", 1);
    vki_define_int(d, "SRC_ZERO", in->quant_zero);
}

void vki_int8_define_packed(vki_build *b, vki_dispatch *d, const vki_tensor *in) {
    vki_int8_define_packed_src(d, in);
    if (vki_build_int_dot(b)) vki_define_int(d, "INT8_DOT", 1);
}

bool vki_int8_packed_adjust(const float *packed, size_t count, const float *values, int n_out,
                            size_t n_in, int zero, int32_t *adjust) {
    for (size_t i = 0; i < count; i++)
        if (packed[i] < -128.0f || packed[i] > 127.0f) return false;
    for (int o = 0; o < n_out; o++) {
        int64_t sum = 0;
        for (size_t k = 0; k < n_in; k++) sum += (int64_t)values[(size_t)o * n_in + k];
        adjust[o] = (int32_t)(-(int64_t)zero * sum);
    }
    return true;
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

vki_status vki_int8_define_epilogue(vki_build *b, vki_dispatch *d, const vki_model *m,
                                    const vki_op *op, vki_activation act, size_t bias_count) {
    int lo, hi;
    vki_int8_activation_range(vki_int8_own(m, op), act, &lo, &hi);
    vki_define_int(d, "INT8", 1);
    vki_define_int(d, "RQ_BASE", (long long)(bias_count / 4));
    vki_define_int(d, "OUT_QMIN", lo);
    vki_define_int(d, "OUT_QMAX", hi);
    if (op->fused.int8_add) {   /* the ADD's multipliers, the op's own output first */
        const vki_op *add = &m->ops[op->fused.int8_add - 1];
        vki_int8_binary p = vki_int8_binary_params(m, add);
        const bool own_first = add->inputs[0] == op->fused.int8_own - 1;
        vki_define_int(d, "INT8_ADD", 1);
        vki_define_int(d, "OWN_MULT", own_first ? p.a_mult : p.b_mult);
        vki_define_int(d, "RES_MULT", own_first ? p.b_mult : p.a_mult);
        vki_define_int(d, "Q_SHIFT", p.shift);
        vki_define_int(d, "ADD_QMIN", p.lo);
        vki_define_int(d, "ADD_QMAX", p.hi);
    }
    return vki_int8_define_table(b, d, m, op);
}

int vki_int8_table_blob(vki_build *b, const vki_model *m, const vki_op *t) {
    const vki_tensor *in = vki_op_in(m, t, 0), *out = vki_op_out(m, t, 0);
    float table[256] = {0};
    for (int q = in->quant_min; q <= in->quant_max; q++)
        table[q - in->quant_min] = (float)(vki_int8_table_entry(m, t, q) - out->quant_zero);
    return vki_build_weights(b, table, 256);
}

vki_status vki_int8_define_table(vki_build *b, vki_dispatch *d, const vki_model *m, const vki_op *op) {
    if (!op->fused.int8_table) return VKI_OK;
    /* The table op's 256 results, bound last. */
    const vki_op *t = &m->ops[op->fused.int8_table - 1];
    const vki_tensor *in = vki_op_in(m, t, 0);
    int blob = vki_int8_table_blob(b, m, t);
    if (blob < 0) return vki_fail_oom("graph build");
    vki_define_int(d, "INT8_TABLE", 1);
    vki_define_int(d, "TABLE_BINDING", d->n_bindings);
    vki_define_int(d, "TABLE_OFFSET", in->quant_zero - in->quant_min);
    vki_dispatch_bind_weights(d, blob);
    return VKI_OK;
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
/* An operand's scale: an activation's grid, or a quantized constant's (per tensor). */
static float operand_scale(const vki_tensor *t) { return t->data ? t->qscale[0] : t->quant_scale; }

/* An operand of an integer ADD / SUB / MUL: a quantized activation of the output's type,
 * or a constant the file quantized per tensor (XNNPACK's vaddc / vmulc). */
static bool binary_operand(const vki_tensor *t, const vki_tensor *out) {
    if (t->data) return t->qdata && t->n_qscale == 1;
    return quantized_activation(t) && t->quant_min == out->quant_min;
}

static bool add_params(const vki_model *m, const vki_op *op, vki_int8_binary *p) {
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_int8_own(m, op);
    volatile float a_os = operand_scale(a) / out->quant_scale;
    volatile float b_os = operand_scale(b) / out->quant_scale;
    /* The XNNPACK delegate takes a quantized ADD / SUB only with each input's scale within
     * [1/1024, 256] of the output's (xnnpack_delegate.cc); TFLite's own kernel runs the
     * rest, and so does the float form here. */
    if (!(a_os >= 1.0f / 1024 && a_os <= 256.0f && b_os >= 1.0f / 1024 && b_os <= 256.0f))
        return false;
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
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_int8_own(m, op);
    if (!quantized_activation(out) || !binary_operand(a, out) || !binary_operand(b, out) ||
        (a->data && b->data))
        return false;
    vki_int8_binary p;
    if (op->code != VKI_OP_MUL) return add_params(m, op, &p);
    /* The delegate's range for a quantized MUL: a scale in [2^-16, 256). */
    p = vki_int8_binary_params(m, op);
    return p.scale >= 1.0f / 65536 && p.scale < 256.0f;
}

vki_int8_binary vki_int8_binary_params(const vki_model *m, const vki_op *op) {
    vki_int8_binary p = {0};
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1), *out = vki_int8_own(m, op);
    if (op->code == VKI_OP_MUL) {
        volatile float product = operand_scale(a) * operand_scale(b);
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

/* ---- one-input ops as 256-entry tables ---------------------------------------------- */

/* TFLite's fixed-point helpers (kernels/internal/common.h, gemmlowp's fixedpoint.h), in
 * their double-rounding form, for the ops LiteRT runs on TFLite's own integer kernels. */
static int32_t round_half_away(double x) { return (int32_t)(x < 0 ? -floor(-x + 0.5) : floor(x + 0.5)); }

/* QuantizeMultiplier: a Q31 multiplier and a power-of-two exponent for a double. */
static void quantize_multiplier(double d, int32_t *m, int *shift) {
    if (d == 0.0) {
        *m = 0;
        *shift = 0;
        return;
    }
    int e;
    double q = frexp(d, &e);
    int64_t fixed = (int64_t)round_half_away(q * 2147483648.0);
    if (q * 2147483648.0 >= 2147483647.5) fixed = (int64_t)1 << 31;
    if (fixed == ((int64_t)1 << 31)) {
        fixed /= 2;
        e++;
    }
    if (e < -31) {
        e = 0;
        fixed = 0;
    }
    if (e > 30) {
        e = 30;
        fixed = INT32_MAX;
    }
    *m = (int32_t)fixed;
    *shift = e;
}

static int64_t div_trunc(int64_t a, int64_t b) { return a / b; }   /* C99: toward zero */

/* SaturatingRoundingDoublingHighMul for 32 and 16 bits. */
static int32_t srdhm32(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * b, nudge = ab >= 0 ? (1 << 30) : 1 - (1 << 30);
    return (int32_t)div_trunc(ab + nudge, (int64_t)1 << 31);
}
static int32_t srdhm16(int32_t a, int32_t b) {
    if (a == -32768 && b == -32768) return 32767;
    int32_t ab = a * b, nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
    return (int32_t)div_trunc(ab + nudge, 1 << 15);
}
/* RoundingDivideByPOT: x / 2^e, ties away from zero. */
static int32_t rdbpot(int32_t x, int e) {
    if (e <= 0) return x;
    int32_t mask = (int32_t)((1u << e) - 1), rem = x & mask, threshold = (mask >> 1) + (x < 0);
    return (x >> e) + (rem > threshold);
}
static int32_t wrap32(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }
/* MultiplyByQuantizedMultiplier. */
static int32_t mbqm(int32_t x, int32_t m, int shift) {
    int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return rdbpot(srdhm32(wrap32((int64_t)x * ((int64_t)1 << left)), m), right);
}
static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }
static int16_t i16(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }

/* XNNPACK's table of a float function (unary-elementwise-nc.c): x = (q - zero) * scale in
 * float32, y = f(x), out = roundEven(y * (1 / out_scale) + out_zero), clamped. */
static int32_t float_table_entry(const vki_tensor *in, const vki_tensor *out, int q, float y_of_x(float, float),
                                 float param) {
    volatile float x = (float)q - (float)in->quant_zero;
    x = x * in->quant_scale;
    float y = y_of_x(x, param);
    volatile float inv = 1.0f / out->quant_scale;
    volatile float scaled = y * inv;
    volatile float shifted = scaled + (float)out->quant_zero;
    return clamp32((int32_t)nearbyintf(shifted), out->quant_min, out->quant_max);
}
static float sigmoid_of(float x, float unused) {
    (void)unused;
    if (x > 100.0f) return 1.0f;
    if (x < -100.0f) return 0.0f;
    double e = exp((double)x);
    return (float)(e / (1.0 + e));
}
static float tanh_of(float x, float unused) {
    (void)unused;
    return (float)tanh((double)x);
}
static float elu_of(float x, float alpha) {
    if (x >= 0.0f) return x;
    volatile float e = (float)expm1((double)x);
    return alpha * e;
}

/* TFLite's ReluX (activations.cc): requantize with a fixed-point multiplier, clamp to the
 * activation's bounds rounded half away from zero. */
static int32_t relu_entry(const vki_tensor *in, const vki_tensor *out, int q, float act_min,
                          float act_max) {
    volatile float ratio = in->quant_scale / out->quant_scale;
    int32_t m;
    int shift;
    quantize_multiplier((double)ratio, &m, &shift);
    volatile float lo_f = act_min / out->quant_scale, hi_f = act_max / out->quant_scale;
    int32_t lo = out->quant_min, hi = out->quant_max;
    int32_t qlo = out->quant_zero + round_half_away((double)lo_f);
    if (qlo > lo) lo = qlo;
    if (isfinite(act_max)) {
        int32_t qhi = out->quant_zero + round_half_away((double)hi_f);
        if (qhi < hi) hi = qhi;
    }
    return clamp32(out->quant_zero + mbqm(q - in->quant_zero, m, shift), lo, hi);
}

/* XNNPACK's qs8 vlrelu / vcvt (q15 multiplies): x (q - zero) times a multiplier of 8
 * fraction bits, ties up, saturated to int16, plus the output's zero point. */
static int32_t q8_scaled(int32_t centered, int32_t mult, const vki_tensor *out) {
    int32_t r = (int32_t)(((int64_t)(-centered) * 128 * (-mult) + 0x4000) >> 15);
    r = clamp32(r, -32768, 32767);
    return clamp32(r + out->quant_zero, out->quant_min, out->quant_max);
}

/* LEAKY_RELU: XNNPACK's vlrelu where the delegate takes it (both multipliers in range),
 * else TFLite's QuantizeLeakyRelu. */
static int32_t leaky_relu_entry(const vki_tensor *in, const vki_tensor *out, int q, float alpha) {
    volatile float ps = in->quant_scale / out->quant_scale;
    volatile float ns = ps * alpha;
    const float absn = fabsf(ns);
    if (ps >= 1.0f / 256 && ps <= 128.0f && ns >= -127.99609375f && ns <= 128.0f &&
        absn >= 1.0f / 256 && alpha != 0.0f && isnormal(alpha)) {
        volatile float mp_f = 256.0f * ps, mn_f = 256.0f * ns;
        int32_t mp = (int32_t)nearbyintf(mp_f), mn = (int32_t)nearbyintf(mn_f);
        return q8_scaled(q - in->quant_zero, q > in->quant_zero ? mp : mn, out);
    }
    volatile float as = in->quant_scale * alpha;
    volatile float ar = as / out->quant_scale;
    int32_t ma, mi;
    int sa, si;
    quantize_multiplier((double)ar, &ma, &sa);
    quantize_multiplier((double)ps, &mi, &si);
    int32_t v = q - in->quant_zero;
    return clamp32(out->quant_zero + (v >= 0 ? mbqm(v, mi, si) : mbqm(v, ma, sa)), out->quant_min,
                   out->quant_max);
}

/* TFLite's reference_ops::HardSwish on int16 fixed point (activations.cc HardSwishPrepare). */
static int32_t downscale16(int32_t m32) {
    if (m32 >= INT32_MAX - (1 << 15)) return 32767;
    return (m32 + (1 << 15)) >> 16;
}
static int32_t saturating_left_shift16(int32_t v, int a) { return clamp32(v * (1 << a), -32768, 32767); }
static int32_t hard_swish_entry(const vki_tensor *in, const vki_tensor *out, int q) {
    volatile float hires = (1.0f / 128.0f) * in->quant_scale;
    volatile float om = hires / out->quant_scale;
    volatile float rm = hires / (3.0f / 32768.0f);
    int32_t om32, rm32;
    int oe, re;
    quantize_multiplier((double)om, &om32, &oe);
    quantize_multiplier((double)rm, &rm32, &re);
    int32_t om16 = downscale16(om32), rm16 = downscale16(rm32);
    int32_t iv = i16(q - in->quant_zero), hr = i16(iv * 128);
    int32_t pre = srdhm16(hr, om16), r = hr;
    if (re > 0) r = saturating_left_shift16(r, re - 1);
    r = srdhm16(r, rm16);
    if (re > 0) r = saturating_left_shift16(r, 1);
    if (re < 0) r = rdbpot(r, -re);
    r = (r + (1 << 15)) >> 1;
    int32_t ov = r == -32768 && pre == -32768 ? 32767 : i16((int32_t)div_trunc((int64_t)r * pre, 1 << 15));
    ov = rdbpot(ov, -oe);
    ov = i16(ov + out->quant_zero);
    return clamp32(ov, out->quant_min, out->quant_max);
}

bool vki_int8_table_ok(const vki_model *m, const vki_op *op) {
    if (op->n_inputs < 1 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (!quantized_activation(in) || !quantized_activation(out) || in->quant_min != out->quant_min)
        return false;
    switch (op->code) {
    case VKI_OP_RELU: case VKI_OP_RELU6: case VKI_OP_RELU_N1_TO_1: case VKI_OP_LOGISTIC:
    case VKI_OP_TANH: case VKI_OP_ELU: case VKI_OP_LEAKY_RELU: case VKI_OP_HARD_SWISH:
        return true;
    case VKI_OP_QUANTIZE: {
        /* XNNPACK takes a requantization with the scales' ratio in [1/256, 128]. */
        volatile float ratio = in->quant_scale / out->quant_scale;
        return ratio >= 1.0f / 256 && ratio <= 128.0f;
    }
    default:
        return false;
    }
}

int32_t vki_int8_table_entry(const vki_model *m, const vki_op *op, int q) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    switch (op->code) {
    case VKI_OP_RELU: return relu_entry(in, out, q, 0.0f, INFINITY);
    case VKI_OP_RELU6: return relu_entry(in, out, q, 0.0f, 6.0f);
    case VKI_OP_RELU_N1_TO_1: return relu_entry(in, out, q, -1.0f, 1.0f);
    case VKI_OP_LOGISTIC: return float_table_entry(in, out, q, sigmoid_of, 0.0f);
    case VKI_OP_TANH: return float_table_entry(in, out, q, tanh_of, 0.0f);
    case VKI_OP_ELU: return float_table_entry(in, out, q, elu_of, 1.0f);
    case VKI_OP_LEAKY_RELU: return leaky_relu_entry(in, out, q, op->opt.leaky_relu.alpha);
    case VKI_OP_HARD_SWISH: return hard_swish_entry(in, out, q);
    case VKI_OP_QUANTIZE: {   /* a requantization: XNNPACK's qs8 vcvt */
        volatile float ratio = in->quant_scale / out->quant_scale;
        volatile float m256 = 256.0f * ratio;
        return q8_scaled(q - in->quant_zero, (int32_t)nearbyintf(m256), out);
    }
    default: return q;
    }
}

/* quant.comp's OP_LUT dispatch of op through table blob `blob`. */
static vki_status emit_lut(vki_build *b, const vki_model *m, const vki_op *op, int blob) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (blob < 0) return vki_fail_oom("graph build");
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_quant, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, "OP_LUT", 1);
    vki_define_int(&d, "ZERO", in->quant_zero);
    vki_define_int(&d, "QMIN", in->quant_min);
    vki_shape4 s = vki_tensor_rows(out);
    vki_define_shape(&d, "OUT", s);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_bind_weights(&d, blob);
    d.same_index_reads = 1u << 0;
    d.out_binding = 1;
    vki_dispatch_grid_phwc4(&d, s);
    return vki_build_dispatch(b, &d);
}

vki_status vki_int8_build_table(vki_build *b, const vki_model *m, const vki_op *op) {
    return emit_lut(b, m, op, vki_int8_table_blob(b, m, op));
}

void vki_int8_table_reference(const vki_model *m, const vki_op *op, const float *in, float *out) {
    const vki_tensor *ti = vki_op_in(m, op, 0), *to = vki_op_out(m, op, 0);
    size_t n = vki_tensor_elements(to);
    for (size_t i = 0; i < n; i++)
        out[i] = (float)(vki_int8_table_entry(m, op, (int)in[i] + ti->quant_zero) - to->quant_zero);
}

/* ---- pools ---------------------------------------------------------------------------- */

bool vki_int8_pool_ok(const vki_model *m, const vki_op *op) {
    if (op->n_inputs != 1 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    return quantized_activation(in) && quantized_activation(out) &&
           in->quant_scale == out->quant_scale && in->quant_zero == out->quant_zero &&
           in->quant_min == out->quant_min;
}

void vki_int8_tflite_activation_range(const vki_tensor *t, vki_activation act, int *lo, int *hi) {
    int qlo = t->quant_min, qhi = t->quant_max;
    float bound_lo = act == VKI_ACT_RELU_N1_TO_1 ? -1.0f : 0.0f;
    float bound_hi = act == VKI_ACT_RELU6 ? 6.0f : 1.0f;
    if (act == VKI_ACT_RELU || act == VKI_ACT_RELU6 || act == VKI_ACT_RELU_N1_TO_1) {
        volatile float f = bound_lo / t->quant_scale;
        int q = t->quant_zero + round_half_away((double)f);
        if (q > qlo) qlo = q;
    }
    if (act == VKI_ACT_RELU6 || act == VKI_ACT_RELU_N1_TO_1) {
        volatile float f = bound_hi / t->quant_scale;
        int q = t->quant_zero + round_half_away((double)f);
        if (q < qhi) qhi = q;
    }
    *lo = qlo - t->quant_zero;
    *hi = qhi - t->quant_zero;
}

/* ---- MEAN ----------------------------------------------------------------------------- */

bool vki_int8_mean_ok(const vki_model *m, const vki_op *op, bool spatial) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (!spatial || !quantized_activation(in) || !quantized_activation(out) ||
        in->quant_min != out->quant_min)
        return false;
    vki_shape4 s = vki_tensor_shape4(in);
    return (long)s.h * s.w <= 65536;
}

void vki_int8_mean_params(const vki_model *m, const vki_op *op, int n, float *inv, float *zpf) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    volatile float ratio = in->quant_scale / out->quant_scale;
    volatile float reciprocal = 1.0f / (float)n;
    volatile float i = ratio * reciprocal;
    volatile float offset = (float)(n * in->quant_zero) * i;
    volatile float z = (float)out->quant_zero - offset;
    *inv = i;
    *zpf = z;
}

/* ---- requantization between int8 and uint8, concatenation of other grids -------------- */

bool vki_int8_requantize_types_ok(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_QUANTIZE || op->n_inputs != 1 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    return quantized_activation(in) && quantized_activation(out) &&
           in->quant_max - in->quant_min == 255 && out->quant_max - out->quant_min == 255 &&
           in->quant_min != out->quant_min;
}

/* TFLite's quantize.cc: QuantizeMultiplier of in_scale / out_scale in double, then
 * reference_ops::Requantize: MultiplyByQuantizedMultiplier(q - in_zero) + out_zero,
 * clamped to the output type (its int8 <-> uint8 fast path, an offset of 128 when the
 * scales are equal, gives the same). */
int32_t vki_int8_requantize_types_entry(const vki_tensor *in, const vki_tensor *out, int q) {
    int32_t mult;
    int shift;
    quantize_multiplier((double)in->quant_scale / (double)out->quant_scale, &mult, &shift);
    return clamp32(mbqm(q - in->quant_zero, mult, shift) + out->quant_zero, out->quant_min,
                   out->quant_max);
}

/* TFLite's reference_ops::ConcatenationWithScaling (uint8): scale = in_scale * (1 / out_scale)
 * and bias = -in_zero * scale in float32, then round(q * scale + bias), half away from
 * zero, plus out_zero, clamped. An input on the output's grid is copied. */
int32_t vki_int8_concat_entry(const vki_tensor *in, const vki_tensor *out, int q) {
    if (in->quant_scale == out->quant_scale && in->quant_zero == out->quant_zero) return q;
    volatile float inv = 1.0f / out->quant_scale;
    volatile float scale = in->quant_scale * inv;
    volatile float bias = (float)(-in->quant_zero) * scale;
    volatile float product = (float)q * scale;
    volatile float sum = product + bias;
    return clamp32(round_half_away((double)sum) + out->quant_zero, out->quant_min, out->quant_max);
}

vki_status vki_int8_build_lut(vki_build *b, const vki_model *m, const vki_op *op,
                              int32_t (*entry)(const vki_tensor *in, const vki_tensor *out, int q)) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    float table[256] = {0};
    for (int q = in->quant_min; q <= in->quant_max; q++)
        table[q - in->quant_min] = (float)(entry(in, out, q) - out->quant_zero);
    return emit_lut(b, m, op, vki_build_weights(b, table, 256));
}

/* ---- PRELU ---------------------------------------------------------------------------- */

bool vki_int8_prelu_ok(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_PRELU || op->n_inputs != 2 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *alpha = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    return quantized_activation(in) && quantized_activation(out) && in->quant_min == out->quant_min &&
           alpha && alpha->data && alpha->qdata && alpha->n_qscale == 1;
}

/* PreluPrepare: real_multiplier_1 = in_scale / out_scale and real_multiplier_2 = in_scale *
 * alpha_scale / out_scale, each in float32 (the scales are floats), QuantizeMultiplier'd. */
vki_int8_prelu vki_int8_prelu_params(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0), *alpha = vki_op_in(m, op, 1), *out = vki_op_out(m, op, 0);
    vki_int8_prelu p = {{0}, {0}, 0, 0};
    volatile float r1 = in->quant_scale / out->quant_scale;
    volatile float product = in->quant_scale * alpha->qscale[0];
    volatile float r2 = product / out->quant_scale;
    quantize_multiplier((double)r1, &p.mult[0], &p.shift[0]);
    quantize_multiplier((double)r2, &p.mult[1], &p.shift[1]);
    p.lo = out->quant_min - out->quant_zero;
    p.hi = out->quant_max - out->quant_zero;
    return p;
}

float vki_int8_prelu_apply(const vki_int8_prelu *p, int32_t x, int32_t a) {
    int32_t v = x >= 0 ? mbqm(x, p->mult[0], p->shift[0]) : mbqm(x * a, p->mult[1], p->shift[1]);
    return (float)clamp32(v, p->lo, p->hi);
}

/* ---- RESIZE_BILINEAR ------------------------------------------------------------------ */

bool vki_int8_resize_bilinear_ok(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_RESIZE_BILINEAR || op->n_inputs != 2 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    /* XNNPACK's subgraph requires the input's grid on the output. */
    return quantized_activation(in) && quantized_activation(out) &&
           in->quant_scale == out->quant_scale && in->quant_zero == out->quant_zero &&
           in->quant_min == out->quant_min;
}

void vki_int8_resize_scale(int in_size, int out_size, bool align_corners, float *scale,
                           float *offset) {
    const int adjust = align_corners && out_size != 1;
    volatile float s = (float)(in_size - adjust) / (float)(out_size - adjust);
    volatile float half = 0.5f * s;
    *scale = s;
    *offset = half - 0.5f;
}

/* xnn_indirection_init_resize_bilinear2d_hwc_q11: the coordinate i * scale (+ offset with
 * half-pixel centers, then clamped at 0) in float32, clamped to in_size - 1; its integer
 * part and the next index (clamped); the fraction times 2^11 rounded half to even. */
void vki_int8_resize_axis(int i, int in_size, int out_size, bool align_corners,
                          bool half_pixel_centers, int *lo, int *hi, int *weight) {
    float scale, offset;
    vki_int8_resize_scale(in_size, out_size, align_corners, &scale, &offset);
    volatile float v = (float)i * scale;
    if (half_pixel_centers && !align_corners) {
        v = v + offset;
        if (v < 0.0f) v = 0.0f;
    }
    const float top = (float)(in_size - 1);
    float c = v < top ? v : top;
    int l = (int)c;
    volatile float fraction = c - (float)l;
    *lo = l;
    *hi = l + 1 < in_size - 1 ? l + 1 : in_size - 1;
    *weight = (int)nearbyintf(fraction * 2048.0f);
}

int32_t vki_int8_resize_lerp(int32_t tl, int32_t tr, int32_t bl, int32_t br, int wx, int wy) {
    int32_t top = tl * 2048 + (tr - tl) * wx, bottom = bl * 2048 + (br - bl) * wx;
    int32_t acc = top * 2048 + (bottom - top) * wy;
    return (acc + (1 << 21)) >> 22;   /* arithmetic shift: floor */
}
