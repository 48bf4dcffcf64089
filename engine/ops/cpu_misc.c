/* cpu_misc.c: small ops on the CPU, as LiteRT's tflite/kernels/<op>.cc compute them:
 * SHAPE, RANK, ZEROS_LIKE, FILL, RANGE, BROADCAST_ARGS, ATAN2 and FAKE_QUANT. Index
 * tensors (int32, int64, bool) are float values here, exact below 2^24.
 *
 * SHAPE (shape.cc): [rank] extents of its input, of ShapeOptions.out_type (field 0), which
 *   must be INT32 (2) or INT64 (4) and the output's type. TFLite fails the op on any other
 *   out_type, the absent field included (it reads as 0, FLOAT32); so does vkinfer. A scalar
 *   input would make an empty output, which vkinfer's tensors cannot be.
 * RANK (rank.cc): an int32 scalar, its input's rank.
 * ZEROS_LIKE (zeros_like.cc): zeros of its input's shape and type (float32, int32, int64;
 *   TFLite takes no other).
 * FILL (fill.cc): dims (a rank-1 int32 or int64 constant here, as it sets the output's
 *   shape; each extent >= 1) and value (a scalar, constant or computed, of the output's
 *   type: float32, int32, int64 or bool); every output element is value.
 * RANGE (range.cc): start, limit, delta, scalars of one type (float32, int32 or int64),
 *   constants here: the output's size depends on their values, which would make its shape
 *   dynamic. delta != 0 and (start <= limit, delta > 0) or (start >= limit, delta < 0), as
 *   TFLite checks; size = (|limit - start| + |delta| - 1) / |delta| for integers,
 *   ceil(|(limit - start) / delta|) in float for float32; element i is start plus delta
 *   added i times (one float addition after another for float32, as TFLite accumulates).
 *   start == limit (an empty output) is refused.
 * BROADCAST_ARGS (broadcast_args.cc): two rank-1 shapes (int32 or int64, constants or
 *   computed) give their broadcast shape, [max(len1, len2)], aligned at the right; a missing
 *   extent is 1, an extent 1 takes the other's, unequal extents of which neither is 1 are an
 *   error (TFLite aborts on a TFLITE_CHECK): at validate for constants, at run for computed
 *   shapes (VKI_ERROR_INVALID_ARGUMENT; the reference writes the first shape's extent).
 * ATAN2 (atan2.cc): atan2f(y, x) elementwise on float32. TFLite checks only that y and x
 *   have the same rank and reads y's element count from both; vkinfer requires one shape.
 * FAKE_QUANT (fake_quant.cc, reference_ops::FakeQuant, quantization_util.cc's
 *   NudgeQuantizationRange and FakeQuantizeArray): FakeQuantOptions min (field 0), max (1),
 *   num_bits (2), narrow_range (3). narrow_range is refused (TFLite fails the op on it);
 *   num_bits must be 2 .. 16 (TensorFlow's range; the nudged zero point is a uint16) and
 *   min < max. In float: scale = (max - min) / (2^num_bits - 1), zero point from min =
 *   -min / scale, clamped to 0 .. 2^num_bits - 1 or else rounded half away from zero;
 *   nudged min and max = (0 or 2^bits - 1 - zero point) * scale; each x is clamped to them,
 *   then round((x - nudged min) * (1 / scale)) * scale + nudged min.
 *
 * Each op is one pass over its output: the references are as fast as the ops get, and only
 * BROADCAST_ARGS can fail at run time, so it alone has a run (its reference's loop with the
 * status).
 */
#include "ops.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


static vki_status expect_rank(const vki_model *m, int o, int slot, const char *role, int rank) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->rank == rank) return VKI_OK;
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') has rank %d, "
                       "need %d", role, slot, op->inputs[slot], t->name, t->rank, rank);
}

/* ---- SHAPE ------------------------------------------------------------------------------ */

static vki_status validate_shape(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const int type = op->opt.misc.i[0];
    if (type != VKI_DTYPE_INT32 && type != VKI_DTYPE_INT64)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "ShapeOptions.out_type is %d (%s): "
                           "TFLite's SHAPE makes int32 (2) or int64 (4) and fails on any other "
                           "(an absent out_type or options table reads as 0)", type,
                           type == 0 ? "float32" : "not an integer type");
    if (out->dtype != (vki_dtype)type)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d '%s') is %s, "
                           "ShapeOptions.out_type says %s", op->outputs[0], out->name,
                           vki_dtype_name(out->dtype), vki_dtype_name((vki_dtype)type));
    if (in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') is a "
                           "scalar: its shape would be an empty tensor", op->inputs[0], in->name);
    const int dims[1] = {in->rank};
    return vki_op_expect_dims(m, o, op->outputs[0], 1, dims);
}

static void reference_shape(const vki_model *m, const vki_op *op, const float *const *inputs,
                            float *const *outputs) {
    (void)inputs;
    const vki_tensor *in = vki_op_in(m, op, 0);
    for (int i = 0; i < in->rank; i++) outputs[0][i] = (float)in->shape[i];
}

/* ShapeOptions: out_type (a TensorType byte) at field 0, schema default 0. */
static vki_status read_shape(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t type;
    if (!vki_opt_i8(r, 0, 0, &type)) return vki_opt_malformed(r);
    op->opt.misc.i[0] = type;
    return VKI_OK;
}

const vki_op_def vki_op_shape = {
    .validate = validate_shape,
    .reference = reference_shape,
    .options = read_shape,
    .general = true,
};

/* ---- RANK ------------------------------------------------------------------------------- */

static vki_status validate_rank(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (out->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d '%s') is %s, need "
                           "int32", op->outputs[0], out->name, vki_dtype_name(out->dtype));
    const int none[1] = {0};
    return vki_op_expect_dims(m, o, op->outputs[0], 0, none);
}

static void reference_rank(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    (void)inputs;
    outputs[0][0] = (float)vki_op_in(m, op, 0)->rank;
}

const vki_op_def vki_op_rank = {
    .validate = validate_rank,
    .reference = reference_rank,
    .general = true,
};

/* ---- ZEROS_LIKE ------------------------------------------------------------------------- */

static vki_status validate_zeros_like(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (vki_value_kind_of(in->dtype) != VKI_KIND_FLOAT && vki_value_kind_of(in->dtype) != VKI_KIND_INT)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') is %s; "
                           "TFLite's ZEROS_LIKE takes float32, int32 and int64", op->inputs[0],
                           in->name, vki_dtype_name(in->dtype));
    s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(in->dtype));
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

static void reference_zeros_like(const vki_model *m, const vki_op *op,
                                 const float *const *inputs, float *const *outputs) {
    (void)inputs;
    memset(outputs[0], 0, sizeof(float) * vki_tensor_elements(vki_op_out(m, op, 0)));
}

const vki_op_def vki_op_zeros_like = {
    .validate = validate_zeros_like,
    .reference = reference_zeros_like,
    .general = true,
};

/* ---- FILL ------------------------------------------------------------------------------- */

static vki_status validate_fill(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = expect_rank(m, o, 0, "dims", 1);
    if (!s) s = expect_rank(m, o, 1, "value", 0);
    if (s) return s;
    const int32_t *dims;
    int rank;
    s = vki_op_int_values(m, o, 0, "dims", 0, VKI_MAX_RANK, &dims, &rank);
    if (s) return s;
    for (int i = 0; i < rank; i++)
        if (dims[i] < 1)
            return vki_op_fail(m, o, dims[i] < 0 ? VKI_ERROR_MODEL_FORMAT
                                                 : VKI_ERROR_UNSUPPORTED_MODEL,
                               "dims[%d] = %d (tensor '%s'): %s", i, dims[i],
                               vki_op_in(m, op, 0)->name, dims[i] < 0
                                   ? "TFLite fails the op on a negative extent"
                                   : "the output would be empty");
    const vki_tensor *value = vki_op_in(m, op, 1);
    if (vki_value_kind_of(value->dtype) < 0)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "value (tensor %d '%s') is %s",
                           op->inputs[1], value->name, vki_dtype_name(value->dtype));
    if (value->data && value->data_bytes < 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "value tensor %d '%s' is truncated",
                           op->inputs[1], value->name);
    s = vki_op_expect_kind(m, o, op->outputs[0], "output", vki_value_kind_of(value->dtype));
    return s ? s : vki_op_expect_dims(m, o, op->outputs[0], rank, dims);
}

static void reference_fill(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    const size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    const float v = inputs[1][0];
    for (size_t i = 0; i < n; i++) outputs[0][i] = v;
}

const vki_op_def vki_op_fill = {
    .validate = validate_fill,
    .reference = reference_fill,
    .general = true,
};

/* ---- RANGE ------------------------------------------------------------------------------ */

/* Input `slot`, a constant scalar of the given kind; *v its value. */
static vki_status range_scalar(const vki_model *m, int o, int slot, const char *role, int kind,
                               double *v) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    vki_status s = expect_rank(m, o, slot, role, 0);
    if (!s) s = vki_op_expect_kind(m, o, op->inputs[slot], role, kind);
    if (s) return s;
    if (!t->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') must "
                           "be a constant: the output's size depends on it", role, slot,
                           op->inputs[slot], t->name);
    if (t->data_bytes < 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is truncated", role,
                           op->inputs[slot], t->name);
    *v = kind == VKI_KIND_FLOAT ? (double)*(const float *)t->data : (double)*(const int32_t *)t->data;
    return VKI_OK;
}

static vki_status validate_range(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 3, 3, 1);
    if (s) return s;
    const int kind = vki_value_kind_of(vki_op_in(m, op, 0)->dtype);
    if (kind != VKI_KIND_FLOAT && kind != VKI_KIND_INT)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "start (tensor %d '%s') is %s, need "
                           "float32, int32 or int64", op->inputs[0], vki_op_in(m, op, 0)->name,
                           vki_dtype_name(vki_op_in(m, op, 0)->dtype));
    double start, limit, delta;
    s = range_scalar(m, o, 0, "start", kind, &start);
    if (!s) s = range_scalar(m, o, 1, "limit", kind, &limit);
    if (!s) s = range_scalar(m, o, 2, "delta", kind, &delta);
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", kind);
    if (s) return s;
    if (delta == 0.0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "delta is 0 (TFLite fails the op)");
    if (!((start >= limit && delta < 0) || (start <= limit && delta > 0)))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "start %g, limit %g and delta %g: delta "
                           "leads away from limit (TFLite fails the op)", start, limit, delta);
    double size;
    if (kind == VKI_KIND_INT) {
        const long long span = llabs((long long)limit - (long long)start);
        const long long step = llabs((long long)delta);
        size = (double)((span + step - 1) / step);
    } else {   /* float arithmetic, as TFLite's GetSize<float> */
        const float fs = (float)start, fl = (float)limit, fd = (float)delta;
        size = (double)ceilf(fabsf((fl - fs) / fd));
    }
    if (!(size >= 1.0))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "start %g equals limit: the output "
                           "would be empty", start);
    if (size > (double)INT_MAX)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "start %g, limit %g and delta %g make "
                           "%g elements, more than TFLite's int size holds", start, limit, delta,
                           size);
    const int dims[1] = {(int)size};
    return vki_op_expect_dims(m, o, op->outputs[0], 1, dims);
}

static void reference_range(const vki_model *m, const vki_op *op, const float *const *inputs,
                            float *const *outputs) {
    const size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    if (vki_value_kind_of(vki_op_in(m, op, 0)->dtype) == VKI_KIND_FLOAT) {
        const float delta = inputs[2][0];
        float v = inputs[0][0];
        for (size_t i = 0; i < n; i++) {
            outputs[0][i] = v;
            v += delta;
        }
        return;
    }
    const long long delta = (long long)inputs[2][0];
    long long v = (long long)inputs[0][0];
    for (size_t i = 0; i < n; i++, v += delta) outputs[0][i] = (float)v;
}

const vki_op_def vki_op_range = {
    .validate = validate_range,
    .reference = reference_range,
    .general = true,
};

/* ---- BROADCAST_ARGS --------------------------------------------------------------------- */

static vki_status validate_broadcast_args(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = expect_rank(m, o, 0, "shape1", 1);
    if (!s) s = expect_rank(m, o, 1, "shape2", 1);
    if (!s) s = vki_op_expect_kind(m, o, op->inputs[0], "shape1", VKI_KIND_INT);
    if (!s) s = vki_op_expect_kind(m, o, op->inputs[1], "shape2", VKI_KIND_INT);
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", VKI_KIND_INT);
    if (s) return s;
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1);
    const int n = a->shape[0] > b->shape[0] ? a->shape[0] : b->shape[0];
    if (a->data && b->data) {
        const int32_t *x, *y;
        int nx, ny;
        s = vki_op_int_values(m, o, 0, "shape1", 1, INT_MAX, &x, &nx);
        if (!s) s = vki_op_int_values(m, o, 1, "shape2", 1, INT_MAX, &y, &ny);
        if (s) return s;
        for (int i = 0; i < n; i++) {
            const int32_t u = i < nx ? x[nx - 1 - i] : 1, v = i < ny ? y[ny - 1 - i] : 1;
            if (u != 1 && v != 1 && u != v)
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "shapes '%s' and '%s' do not "
                                   "broadcast: %d against %d, %d from the right (TFLite aborts)",
                                   a->name, b->name, u, v, i + 1);
        }
    }
    const int dims[1] = {n};
    return vki_op_expect_dims(m, o, op->outputs[0], 1, dims);
}

/* Returns -1, or the position from the right where the shapes do not broadcast. */
static int broadcast_args(const vki_model *m, const vki_op *op, const float *const *inputs,
                          float *const *outputs) {
    const int na = vki_op_in(m, op, 0)->shape[0], nb = vki_op_in(m, op, 1)->shape[0];
    const int n = vki_op_out(m, op, 0)->shape[0];
    int bad = -1;
    for (int i = 0; i < n; i++) {
        const float u = i < na ? inputs[0][na - 1 - i] : 1.0f;
        const float v = i < nb ? inputs[1][nb - 1 - i] : 1.0f;
        outputs[0][n - 1 - i] = u == 1.0f ? v : u;
        if (u != 1.0f && v != 1.0f && u != v && bad < 0) bad = i;
    }
    return bad;
}

static void reference_broadcast_args(const vki_model *m, const vki_op *op,
                                     const float *const *inputs, float *const *outputs) {
    (void)broadcast_args(m, op, inputs, outputs);
}

static vki_status run_broadcast_args(const vki_model *m, int o, const float *const *inputs,
                                     float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const int bad = broadcast_args(m, op, inputs, outputs);
    if (bad < 0) return VKI_OK;
    const int na = vki_op_in(m, op, 0)->shape[0], nb = vki_op_in(m, op, 1)->shape[0];
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "the shapes do not broadcast: %.0f "
                       "against %.0f, %d from the right", inputs[0][na - 1 - bad],
                       inputs[1][nb - 1 - bad], bad + 1);
}

const vki_op_def vki_op_broadcast_args = {
    .validate = validate_broadcast_args,
    .reference = reference_broadcast_args,
    .run = run_broadcast_args,
    .general = true,
};

/* ---- ATAN2 ------------------------------------------------------------------------------ */

static vki_status validate_atan2(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    for (int i = 0; !s && i < 2; i++)
        s = vki_op_expect_kind(m, o, op->inputs[i], i ? "x" : "y", VKI_KIND_FLOAT);
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", VKI_KIND_FLOAT);
    if (s) return s;
    const vki_tensor *y = vki_op_in(m, op, 0), *x = vki_op_in(m, op, 1);
    bool same = x->rank == y->rank;
    for (int i = 0; same && i < y->rank; i++) same = x->shape[i] == y->shape[i];
    if (!same) {
        char a[96], b[96];
        vki_format_dims(a, sizeof a, y->rank, y->shape);
        vki_format_dims(b, sizeof b, x->rank, x->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "y (tensor '%s') is %s and x (tensor "
                           "'%s') %s: ATAN2 does not broadcast", y->name, a, x->name, b);
    }
    return vki_op_expect_dims(m, o, op->outputs[0], y->rank, y->shape);
}

static void reference_atan2(const vki_model *m, const vki_op *op, const float *const *inputs,
                            float *const *outputs) {
    const size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t i = 0; i < n; i++) outputs[0][i] = atan2f(inputs[0][i], inputs[1][i]);
}

const vki_op_def vki_op_atan2 = {
    .validate = validate_atan2,
    .reference = reference_atan2,
    .general = true,
};

/* ---- FAKE_QUANT ------------------------------------------------------------------------- */

static vki_status validate_fake_quant(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (!s) s = vki_op_expect_kind(m, o, op->inputs[0], "input", VKI_KIND_FLOAT);
    if (!s) s = vki_op_expect_kind(m, o, op->outputs[0], "output", VKI_KIND_FLOAT);
    if (s) return s;
    const float min = op->opt.misc.f[0], max = op->opt.misc.f[1];
    const int bits = op->opt.misc.i[0];
    if (op->opt.misc.i[1])
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "narrow_range is set: TFLite's "
                           "FAKE_QUANT fails the op on it");
    if (bits < 2 || bits > 16)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "num_bits = %d, need 2 to 16", bits);
    if (!(min < max) || !isfinite(min) || !isfinite(max))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "min %g and max %g: need finite min < "
                           "max", (double)min, (double)max);
    const vki_tensor *in = vki_op_in(m, op, 0);
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

/* TFLite's TfLiteRound: half away from zero. */
static float round_away(float x) { return roundf(x); }

static void reference_fake_quant(const vki_model *m, const vki_op *op,
                                 const float *const *inputs, float *const *outputs) {
    const float min = op->opt.misc.f[0], max = op->opt.misc.f[1];
    const float qmin = 0.0f, qmax = (float)((1 << op->opt.misc.i[0]) - 1);
    /* NudgeQuantizationRange */
    const float scale = (max - min) / (qmax - qmin);
    const float zero_from_min = qmin - min / scale;
    const float zero = zero_from_min < qmin ? qmin
                       : zero_from_min > qmax ? qmax
                                              : (float)(uint16_t)round_away(zero_from_min);
    const float nudged_min = (qmin - zero) * scale, nudged_max = (qmax - zero) * scale;
    /* FakeQuantizeArray */
    const float inv_scale = 1.0f / scale;
    const size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    for (size_t i = 0; i < n; i++) {
        const float x = inputs[0][i];
        const float lo = nudged_min < x ? x : nudged_min;   /* std::max, std::min */
        const float clamped = lo < nudged_max ? lo : nudged_max;
        const float shifted = clamped - nudged_min;
        const float q = round_away(shifted * inv_scale);
        outputs[0][i] = q * scale + nudged_min;
    }
}

/* FakeQuantOptions: min (0), max (1), num_bits (2), narrow_range (3); schema defaults 0. */
static vki_status read_fake_quant(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    bool narrow;
    int32_t bits;
    if (!vki_opt_f32(r, 0, 0.0f, &op->opt.misc.f[0]) || !vki_opt_f32(r, 1, 0.0f, &op->opt.misc.f[1]) ||
        !vki_opt_i32(r, 2, 0, &bits) || !vki_opt_bool(r, 3, false, &narrow))
        return vki_opt_malformed(r);
    op->opt.misc.i[0] = bits;
    op->opt.misc.i[1] = narrow;
    return VKI_OK;
}

const vki_op_def vki_op_fake_quant = {
    .validate = validate_fake_quant,
    .reference = reference_fake_quant,
    .options = read_fake_quant,
    .general = true,
};
