/* slice.c: STRIDED_SLICE and SLICE over H, W and C (glsl/slice.comp), and over any axis
 * of rank <= 5 tensors of any batch through the general description (remap.comp).
 *
 * Both reduce to one plan: per input dimension a start, a step and a count (TFLite's
 * StridedSliceStartForAxis / StridedSliceEndForAxis for STRIDED_SLICE, begin and size
 * for SLICE), and whether the dimension is shrunk away. Shrinking can move a dimension to another place of the NHWC view (a
 * rank-4 slice that drops C leaves [1,H,W], seen as N=1, W=H, C=W), so the kernel gets
 * the input coordinate as a start plus one step vector per output axis rather than
 * assuming the axes line up. Negative strides need nothing more. Ellipsis and new-axis
 * masks are refused. */
#include "remap.h"

#include <stdio.h>

enum { ROLE_N, ROLE_H, ROLE_W, ROLE_C };

/* The NHWC role of dimension i of a rank-r tensor, as vki_tensor_shape4 maps it. */
static int role_of(int rank, int i) {
    static const int map[5][4] = {{ROLE_C}, {ROLE_C}, {ROLE_N, ROLE_C}, {ROLE_N, ROLE_W, ROLE_C},
                                  {ROLE_N, ROLE_H, ROLE_W, ROLE_C}};
    return map[rank][i];
}

typedef struct slice_axis {
    int start, step, count;
    bool shrink;
} slice_axis;

typedef struct slice_plan {
    int rank;
    slice_axis axis[5];
} slice_plan;

static bool is_strided(const vki_op *op) { return op->code == VKI_OP_STRIDED_SLICE; }

/* Input `slot` must be a constant int32 vector with one value per input dimension. */
static vki_status int_vector(const vki_model *m, int o, int slot, const char *what, int rank,
                             const int32_t **values) {
    int t = m->ops[o].inputs[slot];
    if (t < 0 || t >= m->n_tensors)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s: tensor index %d out of range", what,
                           t);
    const vki_tensor *v = &m->tensors[t];
    if (v->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s tensor %d '%s' is %s, only int32 is supported", what, t, v->name,
                           v->dtype == VKI_DTYPE_INT64 ? "int64" : "not int32");
    if (!v->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s tensor %d '%s' must be a constant", what, t, v->name);
    if (v->rank != 1 || v->shape[0] != rank) {
        char got[96];
        vki_format_dims(got, sizeof got, v->rank, v->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "%s tensor %d '%s' has shape %s, need [%d] for the rank-%d input",
                           what, t, v->name, got, rank, rank);
    }
    if (v->data_bytes < (size_t)rank * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "%s tensor %d '%s' holds %zu bytes, need %zu", what, t, v->name,
                           v->data_bytes, (size_t)rank * sizeof(int32_t));
    *values = (const int32_t *)v->data;
    return VKI_OK;
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* TFLite's StridedSliceStartForAxis. */
static int start_for_axis(int begin, int stride, bool begin_masked, int size) {
    int start = begin;
    if (start < 0) start += size;
    start = stride > 0 ? clamp(start, 0, size) : clamp(start, -1, size - 1);
    if (begin_masked) start = stride > 0 ? 0 : size - 1;
    return start;
}

/* TFLite's StridedSliceEndForAxis for a dimension that is not shrunk. */
static int end_for_axis(int end, int start, int stride, bool end_masked, bool offset, int size) {
    /* 64-bit: an offset end of INT_MAX plus the start must not overflow. */
    long long e = end;
    if (offset) e += start;
    if (e < 0) e += size;
    if (stride > 0) e = e < 0 ? 0 : e > size ? size : e;
    else e = e < -1 ? -1 : e > size - 1 ? size - 1 : e;
    if (end_masked) e = stride > 0 ? size : -1;
    return (int)e;
}

/* Iterations of TFLite's loop `for (i = start; stride > 0 ? i < end : i > end; i += stride)`. */
static int iterations(int start, int end, int stride) {
    long long span = stride > 0 ? (long long)end - start : (long long)start - end;
    long long step = stride > 0 ? stride : -(long long)stride;
    return span > 0 ? (int)((span + step - 1) / step) : 0;
}

static vki_status strided_plan(const vki_model *m, int o, const vki_tensor *in, slice_plan *p) {
    const vki_op *op = &m->ops[o];
    const int32_t *begin, *end, *strides;
    vki_status s = int_vector(m, o, 1, "begin", in->rank, &begin);
    if (!s) s = int_vector(m, o, 2, "end", in->rank, &end);
    if (!s) s = int_vector(m, o, 3, "strides", in->rank, &strides);
    if (s) return s;
    int begin_mask = op->opt.strided_slice.begin_mask, end_mask = op->opt.strided_slice.end_mask;
    int shrink_mask = op->opt.strided_slice.shrink_axis_mask;
    bool offset = op->opt.strided_slice.offset;
    if (op->opt.strided_slice.ellipsis_mask || op->opt.strided_slice.new_axis_mask)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "ellipsis_mask %d and new_axis_mask %d are not supported (need 0)",
                           op->opt.strided_slice.ellipsis_mask,
                           op->opt.strided_slice.new_axis_mask);
    for (int i = 0; i < in->rank; i++) {
        int size = in->shape[i], stride = strides[i];
        if (stride == 0)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "stride of dimension %d is 0", i);
        slice_axis *a = &p->axis[i];
        a->shrink = shrink_mask & (1 << i);
        a->start = start_for_axis(begin[i], stride, begin_mask & (1 << i), size);
        if (a->shrink) {
            /* TF takes the single element at begin, whatever the stride says; an index
             * outside the dimension is an error there, not something to clamp. */
            long long index = begin_mask & (1 << i) ? a->start
                              : begin[i] < 0       ? (long long)begin[i] + size
                                                   : begin[i];
            if (index < 0 || index >= size)
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                   "shrink_axis_mask keeps index %d of dimension %d, which has "
                                   "size %d",
                                   (int)begin[i], i, size);
            a->step = 1;
            a->count = 1;
            continue;
        }
        int e = end_for_axis(end[i], a->start, stride, end_mask & (1 << i), offset, size);
        a->step = stride;
        a->count = iterations(a->start, e, stride);
    }
    return VKI_OK;
}

static vki_status slice_plan_of(const vki_model *m, int o, const vki_tensor *in, slice_plan *p) {
    const int32_t *begin, *size;
    vki_status s = int_vector(m, o, 1, "begin", in->rank, &begin);
    if (!s) s = int_vector(m, o, 2, "size", in->rank, &size);
    if (s) return s;
    for (int i = 0; i < in->rank; i++) {
        int dim = in->shape[i];
        if (begin[i] < 0 || begin[i] > dim)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "begin %d of dimension %d is outside [0,%d]", (int)begin[i], i, dim);
        if (size[i] < -1 || (size[i] >= 0 && size[i] > dim - begin[i]))
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "size %d of dimension %d does not fit: begin %d, dimension %d",
                               (int)size[i], i, (int)begin[i], dim);
        p->axis[i] = (slice_axis){begin[i], 1, size[i] == -1 ? dim - begin[i] : size[i], false};
    }
    return VKI_OK;
}

/* Validates the op and computes its plan. */
static vki_status make_plan(const vki_model *m, int o, slice_plan *p) {
    const vki_op *op = &m->ops[o];
    int n_inputs = is_strided(op) ? 4 : 3;
    vki_status s = vki_op_check_io(m, o, n_inputs, n_inputs);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input is a scalar");
    p->rank = in->rank;
    s = is_strided(op) ? strided_plan(m, o, in, p) : slice_plan_of(m, o, in, p);
    if (s) return s;
    int want[5], want_rank = 0;
    for (int i = 0; i < in->rank; i++) {
        const slice_axis *a = &p->axis[i];
        if (a->count < 1)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                               "selects no elements along dimension %d; empty tensors are not "
                               "supported",
                               i);
        if (!a->shrink) want[want_rank++] = a->count;
    }
    (void)out;
    return vki_op_expect_dims(m, o, op->outputs[0], want_rank, want);
}

static vki_status validate(const vki_model *m, int o) {
    slice_plan p;
    return make_plan(m, o, &p);
}

/* slice.comp's form: rank <= 4, batch 1 in and out, the batch taken whole. */
static bool fast_path(const vki_model *m, const vki_op *op, const slice_plan *p) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->rank > 4 || vki_tensor_shape4(in).n != 1 || vki_tensor_shape4(out).n != 1)
        return false;
    for (int i = 0; i < p->rank; i++)
        if (role_of(p->rank, i) == ROLE_N && (p->axis[i].start != 0 || p->axis[i].count != in->shape[i]))
            return false;
    return true;
}

/* The general form (remap.h): input axis i reads start + step * its output axis, or the
 * start alone where shrunk. */
static vki_status describe_general(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    slice_plan p;
    vki_status s = make_plan(m, o, &p);
    if (s) return s;
    const vki_tensor *out = vki_op_out(m, op, 0);
    vki_remap_init(r, out);
    vki_remap_add_input(r, m, op, 0);
    for (int j = 0; j < VKI_REMAP_RANK - p.rank; j++) vki_remap_fixed(r, j, 0);
    for (int i = 0, d = 0; i < p.rank; i++) {
        int j = vki_axis5(i, p.rank);
        if (p.axis[i].shrink) {
            vki_remap_fixed(r, j, p.axis[i].start);
            continue;
        }
        vki_remap_from(r, j, vki_axis5(d++, out->rank), p.axis[i].step);
        r->axis[j].offset = p.axis[i].start;
    }
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    slice_plan p;
    vki_status s = make_plan(m, o, &p);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    /* A slice that takes everything in order (converters emit them) is the input itself. */
    bool whole = true;
    for (int i = 0; i < p.rank; i++)
        whole = whole && !p.axis[i].shrink && p.axis[i].start == 0 && p.axis[i].step == 1 &&
                p.axis[i].count == in->shape[i];
    if (whole) return vki_build_alias(b, op->outputs[0], op->inputs[0]);
    if (!fast_path(m, op, &p)) return vki_remap_build(b, m, o, describe_general);
    /* start[in role] and step[out role][in role]: input coordinate per output position. */
    int start[4] = {0, 0, 0, 0}, step[4][4] = {{0}};
    int d = 0;
    for (int i = 0; i < p.rank; i++) {
        const slice_axis *a = &p.axis[i];
        int in_role = role_of(p.rank, i);
        start[in_role] = a->start;
        if (a->shrink) continue;
        step[role_of(out->rank, d++)][in_role] = a->step;
    }
    vki_dispatch dd;
    vki_dispatch_init(&dd, VKI_KERNEL_slice, VKI_WG_ELEMENTWISE);
    vki_define_shape(&dd, "IN", vki_tensor_shape4(in));
    vki_define_shape(&dd, "OUT", vki_tensor_shape4(out));
    vki_define_int(&dd, "START_X", start[ROLE_W]);
    vki_define_int(&dd, "START_Y", start[ROLE_H]);
    vki_define_int(&dd, "START_C", start[ROLE_C]);
    static const char *const names[3][3] = {{"DX_X", "DX_Y", "DX_C"}, {"DY_X", "DY_Y", "DY_C"},
                                            {"DC_X", "DC_Y", "DC_C"}};
    /* Rows: output x, y, c; columns: input x, y, c. */
    static const int roles[3] = {ROLE_W, ROLE_H, ROLE_C};
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) vki_define_int(&dd, names[a][c], step[roles[a]][roles[c]]);
    vki_dispatch_bind_tensor(&dd, op->inputs[0]);
    vki_dispatch_bind_tensor(&dd, op->outputs[0]);
    vki_dispatch_grid_phwc4(&dd, vki_tensor_shape4(out));
    return vki_build_dispatch(b, &dd);
}

/* TFLite's reference_ops::StridedSlice / Slice: the input padded to 5-D at the front,
 * nested loops over each dimension's start, step and count, output written in order. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    int o = (int)(op - m->ops);
    slice_plan p;
    if (make_plan(m, o, &p)) return;
    const vki_tensor *t = vki_op_in(m, op, 0);
    int pad = 5 - p.rank;
    slice_axis ax[5];
    size_t stride[5];
    int dims[5];
    for (int i = 0; i < 5; i++) {
        dims[i] = i < pad ? 1 : t->shape[i - pad];
        ax[i] = i < pad ? (slice_axis){0, 1, 1, false} : p.axis[i - pad];
    }
    stride[4] = 1;
    for (int i = 3; i >= 0; i--) stride[i] = stride[i + 1] * (size_t)dims[i + 1];
    float *dst = out[0];
    int k[5];
    for (k[0] = 0; k[0] < ax[0].count; k[0]++)
        for (k[1] = 0; k[1] < ax[1].count; k[1]++)
            for (k[2] = 0; k[2] < ax[2].count; k[2]++)
                for (k[3] = 0; k[3] < ax[3].count; k[3]++)
                    for (k[4] = 0; k[4] < ax[4].count; k[4]++) {
                        size_t at = 0;
                        for (int i = 0; i < 5; i++)
                            at += (size_t)(ax[i].start + k[i] * ax[i].step) * stride[i];
                        *dst++ = in[0][at];
                    }
}

/* StridedSliceOptions: the five masks, then offset. SLICE has no options. */
static vki_status read_strided_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t mask[5];
    for (unsigned k = 0; k < 5; k++)
        if (!vki_opt_i32(r, k, 0, &mask[k])) return vki_opt_malformed(r);
    if (!vki_opt_bool(r, 5, false, &op->opt.strided_slice.offset)) return vki_opt_malformed(r);
    op->opt.strided_slice.begin_mask = mask[0];
    op->opt.strided_slice.end_mask = mask[1];
    op->opt.strided_slice.ellipsis_mask = mask[2];
    op->opt.strided_slice.new_axis_mask = mask[3];
    op->opt.strided_slice.shrink_axis_mask = mask[4];
    return VKI_OK;
}

const vki_op_def vki_op_strided_slice = {
    .validate = validate, .build = build, .reference = reference,
    .options = read_strided_options, .general = true};
const vki_op_def vki_op_slice = {.validate = validate, .build = build, .reference = reference,
                                 .general = true};
