/* cpu_reduce.c: reductions on the CPU, as LiteRT's tflite/kernels/<op>.cc and reference_ops
 * compute them: SEGMENT_SUM, UNSORTED_SEGMENT_SUM / PROD / MAX / MIN, REDUCE_ALL and
 * L2_POOL_2D. Index tensors (int32, int64, bool) are float values here, exact below 2^24
 * (so integer sums and products agree with TFLite's wrapping int32 arithmetic only while
 * they stay below that).
 *
 * SEGMENT_SUM (segment_sum.cc, reference_ops::SegmentSum): data (float32 or int32, rank
 *   >= 1) and segment_ids (rank 1 int32, one per row of data; a constant here, as the last
 *   id sets the output's first extent). TFLite requires the ids to start at 0 and grow by 0
 *   or 1 from one to the next; output [last id + 1, data.shape[1:]], each row the sum of
 *   its segment's rows, added in row order.
 * UNSORTED_SEGMENT_* (unsorted_segment.cc, reference_ops::UnsortedSegmentRef): data
 *   (float32 or int32), segment_ids (int32, constant or computed, its shape a prefix of
 *   data's) and num_segments (an int32 constant of one element, rank 0 or [1], >= 1: it
 *   sets the output's first extent). Output [num_segments, data.shape[rank(ids):]], each
 *   element starting at the op's identity (SUM 0, PROD 1, MAX the lowest value: -FLT_MAX or
 *   INT32_MIN, MIN the highest: FLT_MAX or INT32_MAX, the latter held as 2^31) and combined
 *   with the data slices of its id in order: MAX as std::max (acc < v ? v : acc), MIN as
 *   std::min (v < acc ? v : acc). A negative id is skipped; an id >= num_segments is an
 *   error (TFLite fails the op): at validate for constant ids, at run for computed ones
 *   (VKI_ERROR_INVALID_ARGUMENT naming the id; the reference skips it).
 * REDUCE_ALL (reduce.cc): logical AND of a bool input over the axes of an int32 constant
 *   (rank 0 or 1; each in -rank .. rank - 1, negative ones counted from the end, repeats
 *   allowed); ReducerOptions keep_dims (field 0) keeps the reduced axes as 1. An empty axis
 *   list reduces nothing; a scalar input gives a scalar.
 * L2_POOL_2D (pooling.cc, optimized_ops::L2Pool): Pool2DOptions as AVERAGE_POOL_2D
 *   (padding, strides, filter, fused activation); input [B, H, W, C] float32; each output is
 *   sqrt(sum of the window's squares * (1 / count)), count the window's cells inside the
 *   input, the squares added in row-major order, then the activation's clamp.
 *
 * The references are single passes, as fast as the ops get; only UNSORTED_SEGMENT_* can fail
 * at run time, so they alone have a run (the reference's loop with the status).
 */
#include "ops.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

static size_t product(const int *dims, int from, int to) {
    size_t n = 1;
    for (int i = from; i < to; i++) n *= (size_t)dims[i];
    return n;
}

/* Input `slot` is float32 or int32, as TFLite's segment kernels take; the output too. */
static vki_status segment_data(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *data = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (data->dtype != VKI_DTYPE_FLOAT32 && data->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "data (tensor %d '%s') is %s; "
                           "TFLite takes float32 and int32", op->inputs[0], data->name,
                           vki_dtype_name(data->dtype));
    if ((out->dtype == VKI_DTYPE_FLOAT32) != (data->dtype == VKI_DTYPE_FLOAT32) ||
        out->dtype == VKI_DTYPE_BOOL)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d '%s') is %s, data "
                           "%s", op->outputs[0], out->name, vki_dtype_name(out->dtype),
                           vki_dtype_name(data->dtype));
    if (data->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "data (tensor %d '%s') is a scalar",
                           op->inputs[0], data->name);
    return VKI_OK;
}

static vki_status segment_ids_type(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *ids = vki_op_in(m, op, 1);
    if (ids->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "segment_ids (tensor %d '%s') are %s, "
                           "need int32", op->inputs[1], ids->name, vki_dtype_name(ids->dtype));
    return VKI_OK;
}

/* ---- SEGMENT_SUM ------------------------------------------------------------------------ */

static vki_status validate_segment_sum(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (!s) s = segment_data(m, o);
    if (!s) s = segment_ids_type(m, o);
    if (s) return s;
    const vki_tensor *data = vki_op_in(m, op, 0), *ids_t = vki_op_in(m, op, 1);
    if (ids_t->rank != 1 || ids_t->shape[0] != data->shape[0])
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "segment_ids (tensor %d '%s') must be "
                           "rank 1 with one id a row of data (%d)", op->inputs[1], ids_t->name,
                           data->shape[0]);
    const int32_t *ids;
    int n;
    s = vki_op_int_values(m, o, 1, "segment_ids", 1, INT_MAX, &ids, &n);
    if (s) return s;
    for (int i = 0; i < n; i++) {
        const long long step = i ? (long long)ids[i] - ids[i - 1] : ids[0];
        if (step != 0 && (i == 0 || step != 1))
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "segment_ids[%d] = %d (tensor '%s'): "
                               "TFLite needs ids from 0 that grow by 0 or 1 from one to the "
                               "next", i, ids[i], ids_t->name);
    }
    int dims[VKI_MAX_RANK];
    memcpy(dims, data->shape, sizeof(int) * (size_t)data->rank);
    dims[0] = ids[n - 1] + 1;
    return vki_op_expect_dims(m, o, op->outputs[0], data->rank, dims);
}

static void reference_segment_sum(const vki_model *m, const vki_op *op,
                                  const float *const *inputs, float *const *outputs) {
    const vki_tensor *data = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const size_t row = product(data->shape, 1, data->rank);
    memset(outputs[0], 0, sizeof(float) * vki_tensor_elements(out));
    for (int i = 0; i < data->shape[0]; i++) {
        const float id = inputs[1][i];
        if (!(id >= 0.0f && id < (float)out->shape[0])) continue;   /* validated: never */
        float *dst = outputs[0] + (size_t)id * row;
        const float *src = inputs[0] + (size_t)i * row;
        for (size_t j = 0; j < row; j++) dst[j] += src[j];
    }
}

const vki_op_def vki_op_segment_sum = {
    .validate = validate_segment_sum,
    .reference = reference_segment_sum,
    .general = true,
};

/* ---- UNSORTED_SEGMENT_SUM / PROD / MAX / MIN -------------------------------------------- */

static vki_status validate_unsorted_segment(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 3, 3, 1);
    if (!s) s = segment_data(m, o);
    if (!s) s = segment_ids_type(m, o);
    if (s) return s;
    const vki_tensor *data = vki_op_in(m, op, 0), *ids = vki_op_in(m, op, 1);
    const vki_tensor *num_t = vki_op_in(m, op, 2);
    bool prefix = ids->rank <= data->rank;
    for (int i = 0; prefix && i < ids->rank; i++) prefix = ids->shape[i] == data->shape[i];
    if (!prefix) {
        char a[96], b[96];
        vki_format_dims(a, sizeof a, ids->rank, ids->shape);
        vki_format_dims(b, sizeof b, data->rank, data->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "segment_ids (tensor '%s') are %s, not a "
                           "prefix of data's shape %s", ids->name, a, b);
    }
    if (num_t->rank > 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "num_segments (tensor %d '%s') has rank "
                           "%d, need a scalar or [1]", op->inputs[2], num_t->name, num_t->rank);
    const int32_t *num;
    int count;
    s = vki_op_int_values(m, o, 2, "num_segments", 1, 1, &num, &count);
    if (s) return s;
    if (num[0] < 1)
        return vki_op_fail(m, o, num[0] < 0 ? VKI_ERROR_MODEL_FORMAT : VKI_ERROR_UNSUPPORTED_MODEL,
                           "num_segments = %d: %s", num[0],
                           num[0] < 0 ? "TFLite fails the op" : "the output would be empty");
    int dims[VKI_MAX_RANK], r = 0;
    dims[r++] = num[0];
    for (int i = ids->rank; i < data->rank; i++) dims[r++] = data->shape[i];
    s = vki_op_expect_dims(m, o, op->outputs[0], r, dims);
    if (s || !ids->data) return s;
    const size_t n = vki_tensor_elements(ids);
    if (ids->data_bytes < n * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "segment_ids tensor %d '%s' is truncated",
                           op->inputs[1], ids->name);
    const int32_t *v = ids->data;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= num[0])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "constant segment_ids[%zu] = %d "
                               "(tensor '%s') is not below num_segments %d (TFLite fails the "
                               "op)", i, v[i], ids->name, num[0]);
    return VKI_OK;
}

/* Returns the first id >= num_segments (skipped), or -1. */
static long unsorted_segment(const vki_model *m, const vki_op *op, const float *const *inputs,
                             float *const *outputs) {
    const vki_tensor *data = vki_op_in(m, op, 0), *ids = vki_op_in(m, op, 1);
    const vki_tensor *out = vki_op_out(m, op, 0);
    const bool is_float = data->dtype == VKI_DTYPE_FLOAT32;
    float init = 0.0f;
    switch (op->code) {
    case VKI_OP_UNSORTED_SEGMENT_PROD: init = 1.0f; break;
    case VKI_OP_UNSORTED_SEGMENT_MAX: init = is_float ? -FLT_MAX : (float)INT32_MIN; break;
    case VKI_OP_UNSORTED_SEGMENT_MIN: init = is_float ? FLT_MAX : (float)INT32_MAX; break;
    default: break;
    }
    const size_t total = vki_tensor_elements(out), n = vki_tensor_elements(ids);
    const size_t slice = product(data->shape, ids->rank, data->rank);
    for (size_t e = 0; e < total; e++) outputs[0][e] = init;
    long bad = -1;
    for (size_t i = 0; i < n; i++) {
        const float id = inputs[1][i];
        if (id < 0.0f) continue;
        if (!(id < (float)out->shape[0])) {
            if (bad < 0) bad = (long)i;
            continue;
        }
        float *acc = outputs[0] + (size_t)id * slice;
        const float *v = inputs[0] + i * slice;
        switch (op->code) {
        case VKI_OP_UNSORTED_SEGMENT_PROD:
            for (size_t j = 0; j < slice; j++) acc[j] *= v[j];
            break;
        case VKI_OP_UNSORTED_SEGMENT_MAX:
            for (size_t j = 0; j < slice; j++) acc[j] = acc[j] < v[j] ? v[j] : acc[j];
            break;
        case VKI_OP_UNSORTED_SEGMENT_MIN:
            for (size_t j = 0; j < slice; j++) acc[j] = v[j] < acc[j] ? v[j] : acc[j];
            break;
        default:
            for (size_t j = 0; j < slice; j++) acc[j] += v[j];
            break;
        }
    }
    return bad;
}

static void reference_unsorted_segment(const vki_model *m, const vki_op *op,
                                       const float *const *inputs, float *const *outputs) {
    (void)unsorted_segment(m, op, inputs, outputs);
}

static vki_status run_unsorted_segment(const vki_model *m, int o, const float *const *inputs,
                                       float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const long bad = unsorted_segment(m, op, inputs, outputs);
    if (bad < 0) return VKI_OK;
    return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "segment_ids[%ld] = %.0f is not below "
                       "num_segments %d", bad, inputs[1][bad], vki_op_out(m, op, 0)->shape[0]);
}

#define UNSORTED_SEGMENT_                                                              \
    {.validate = validate_unsorted_segment, .reference = reference_unsorted_segment, \
     .run = run_unsorted_segment, .general = true}
const vki_op_def vki_op_unsorted_segment_prod = UNSORTED_SEGMENT_;
const vki_op_def vki_op_unsorted_segment_max = UNSORTED_SEGMENT_;
const vki_op_def vki_op_unsorted_segment_sum = UNSORTED_SEGMENT_;
const vki_op_def vki_op_unsorted_segment_min = UNSORTED_SEGMENT_;

/* ---- REDUCE_ALL ------------------------------------------------------------------------- */

/* The reduced axes of a validated op, as a mask. */
static unsigned reduced_axes(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0), *axes = vki_op_in(m, op, 1);
    const int32_t *v = axes->data;
    unsigned mask = 0;
    for (size_t i = 0; i < vki_tensor_elements(axes); i++)
        mask |= 1u << (v[i] < 0 ? v[i] + in->rank : v[i]);
    return mask;
}

static vki_status validate_reduce_all(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const vki_tensor *axes_t = vki_op_in(m, op, 1);
    if (in->dtype != VKI_DTYPE_BOOL || out->dtype != VKI_DTYPE_BOOL)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d) is %s and output "
                           "(tensor %d) %s; REDUCE_ALL takes and makes bool", op->inputs[0],
                           vki_dtype_name(in->dtype), op->outputs[0], vki_dtype_name(out->dtype));
    if (axes_t->rank > 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis (tensor %d '%s') has rank %d, "
                           "need 0 or 1", op->inputs[1], axes_t->name, axes_t->rank);
    const int32_t *axes;
    int n;
    s = vki_op_int_values(m, o, 1, "axis", 0, INT_MAX, &axes, &n);
    if (s) return s;
    for (int i = 0; i < n; i++)
        if (axes[i] < -in->rank || axes[i] >= in->rank)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for input "
                               "tensor '%s' of rank %d", axes[i], in->name, in->rank);
    const unsigned mask = reduced_axes(m, op);
    int dims[VKI_MAX_RANK], r = 0;
    for (int i = 0; i < in->rank; i++) {
        if (!(mask >> i & 1u)) dims[r++] = in->shape[i];
        else if (op->opt.reduce.keep_dims) dims[r++] = 1;
    }
    return vki_op_expect_dims(m, o, op->outputs[0], r, dims);
}

static void reference_reduce_all(const vki_model *m, const vki_op *op,
                                 const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const unsigned mask = reduced_axes(m, op);
    /* The output's stride for each input axis: 0 for a reduced one. */
    size_t stride[VKI_MAX_RANK], at = 1;
    for (int i = in->rank - 1; i >= 0; i--) {
        stride[i] = mask >> i & 1u ? 0 : at;
        if (!(mask >> i & 1u)) at *= (size_t)in->shape[i];
    }
    const size_t total = vki_tensor_elements(out), n = vki_tensor_elements(in);
    for (size_t e = 0; e < total; e++) outputs[0][e] = 1.0f;
    int c[VKI_MAX_RANK] = {0};
    size_t to = 0;
    for (size_t e = 0; e < n; e++) {
        if (inputs[0][e] == 0.0f) outputs[0][to] = 0.0f;
        for (int i = in->rank - 1; i >= 0; i--) {   /* next coordinate, odometer */
            to += stride[i];
            if (++c[i] < in->shape[i]) break;
            to -= stride[i] * (size_t)c[i];
            c[i] = 0;
        }
    }
}

/* ReducerOptions: keep_dims at field 0. */
static vki_status read_reduce_all(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_bool(r, 0, false, &op->opt.reduce.keep_dims)) return vki_opt_malformed(r);
    return VKI_OK;
}

const vki_op_def vki_op_reduce_all = {
    .validate = validate_reduce_all,
    .reference = reference_reduce_all,
    .options = read_reduce_all,
    .general = true,
};

/* ---- L2_POOL_2D ------------------------------------------------------------------------- */

static vki_status validate_l2_pool(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->dtype != VKI_DTYPE_FLOAT32 || out->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input and output are %s and %s; "
                           "TFLite's L2_POOL_2D takes float32 only", vki_dtype_name(in->dtype),
                           vki_dtype_name(out->dtype));
    if (in->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') has rank %d, "
                           "need 4", op->inputs[0], in->name, in->rank);
    const vki_pool_options *p = &op->opt.pool;
    if (p->filter_w < 1 || p->filter_h < 1 || p->stride_w < 1 || p->stride_h < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "filter %dx%d and stride %dx%d (HxW) "
                           "must be positive", p->filter_h, p->filter_w, p->stride_h, p->stride_w);
    const int dims[4] = {in->shape[0],
                         vki_conv_out_size(p->padding, in->shape[1], p->filter_h, p->stride_h, 1),
                         vki_conv_out_size(p->padding, in->shape[2], p->filter_w, p->stride_w, 1),
                         in->shape[3]};
    if (dims[1] < 1 || dims[2] < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%dx%d VALID window does not fit the "
                           "%dx%d input", p->filter_h, p->filter_w, in->shape[1], in->shape[2]);
    return vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
}

static void reference_l2_pool(const vki_model *m, const vki_op *op, const float *const *inputs,
                              float *const *outputs) {
    const vki_pool_options *p = &op->opt.pool;
    const int *si = vki_op_in(m, op, 0)->shape, *so = vki_op_out(m, op, 0)->shape;
    const int pad_h = vki_conv_pad_before(p->padding, si[1], p->filter_h, p->stride_h, 1);
    const int pad_w = vki_conv_pad_before(p->padding, si[2], p->filter_w, p->stride_w, 1);
    const int ch = si[3];
    float *y = outputs[0];
    for (int b = 0; b < so[0]; b++)
        for (int oy = 0; oy < so[1]; oy++)
            for (int ox = 0; ox < so[2]; ox++)
                for (int c = 0; c < ch; c++) {
                    const int y0 = oy * p->stride_h - pad_h, x0 = ox * p->stride_w - pad_w;
                    float sum = 0.0f;
                    int count = 0;
                    for (int iy = y0 < 0 ? 0 : y0; iy < y0 + p->filter_h && iy < si[1]; iy++)
                        for (int ix = x0 < 0 ? 0 : x0; ix < x0 + p->filter_w && ix < si[2]; ix++) {
                            const float v = inputs[0][(((size_t)b * si[1] + iy) * si[2] + ix) * ch + c];
                            sum += v * v;
                            count++;
                        }
                    const float inv = 1.0f / (float)(count ? count : 1);
                    *y++ = vki_apply_activation(p->activation, sqrtf(sum * inv));
                }
}

/* Pool2DOptions: padding (0), stride_w (1), stride_h (2), filter_width (3), filter_height (4),
 * fused activation (5). */
static vki_status read_l2_pool(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    vki_pool_options *p = &op->opt.pool;
    int8_t pad, act;
    if (!vki_opt_i8(r, 0, 0, &pad) || !vki_opt_i32(r, 1, 0, &p->stride_w) ||
        !vki_opt_i32(r, 2, 0, &p->stride_h) || !vki_opt_i32(r, 3, 0, &p->filter_w) ||
        !vki_opt_i32(r, 4, 0, &p->filter_h) || !vki_opt_i8(r, 5, 0, &act))
        return vki_opt_malformed(r);
    vki_status st = vki_opt_padding(r, pad, &p->padding);
    return st != VKI_OK ? st : vki_opt_activation(r, act, &p->activation);
}

const vki_op_def vki_op_l2_pool2d = {
    .validate = validate_l2_pool,
    .reference = reference_l2_pool,
    .options = read_l2_pool,
    .general = true,
};
