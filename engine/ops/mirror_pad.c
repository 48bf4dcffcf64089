/* mirror_pad.c: MIRROR_PAD (REFLECT and SYMMETRIC) and PADV2 (padding with a constant), on
 * any axis of up to 5, as remap descriptions (remap.h). PAD has its own kernel (pad.c) and
 * takes this description for what that kernel does not cover.
 *
 * An int8 / uint8 PADV2 moves q - zero point as it is and fills with the constant's q less
 * the zero point, as TFLite's pad.cc does (it takes the constant's quantized value, and
 * refuses one on another grid than the output's). */
#include "int8.h"
#include "remap.h"

#include <limits.h>
#include <math.h>

vki_status vki_pad_extent(const vki_model *m, int o, int axis, int extent, int before,
                          int after, int limit, int *padded) {
    long long sum = (long long)extent + before + after;
    if (before < 0 || after < 0 || before > limit || after > limit || sum > INT_MAX)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "padding [%d,%d] of axis %d is out "
                           "of range for extent %d", before, after, axis, extent);
    *padded = (int)sum;
    return VKI_OK;
}

vki_status vki_pad_describe(const vki_model *m, int o, vki_remap *r, vki_edge rule,
                                  float fill) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int32_t *pads;
    int n;
    vki_status s = vki_op_int_values(m, o, 1, "paddings", 2 * in->rank, 2 * in->rank, &pads, &n);
    if (s) return s;
    int dims[VKI_REMAP_RANK];
    for (int i = 0; i < in->rank; i++) {
        int before = pads[2 * i], after = pads[2 * i + 1];
        /* REFLECT mirrors around the edge element, so it can add at most extent - 1;
         * SYMMETRIC repeats it, at most extent. */
        int limit = rule == VKI_EDGE_REFLECT ? in->shape[i] - 1
                    : rule == VKI_EDGE_SYMMETRIC ? in->shape[i] : VKI_PAD_FILL_MAX;
        s = vki_pad_extent(m, o, i, in->shape[i], before, after, limit, &dims[i]);
        if (s) return s;
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], in->rank, dims);
    if (s) return s;
    vki_remap_init(r, vki_op_out(m, op, 0));
    vki_remap_add_input(r, m, op, 0);
    r->fill = fill;
    for (int i = 0; i < in->rank; i++) {
        int j = vki_axis5(i, in->rank);
        r->axis[j].offset = -pads[2 * i];
        r->axis[j].edge = pads[2 * i] || pads[2 * i + 1] ? rule : VKI_EDGE_INSIDE;
    }
    return VKI_OK;
}

static vki_status describe_mirror_pad(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    return vki_pad_describe(m, o, r,
                           m->ops[o].opt.mirror_pad.symmetric ? VKI_EDGE_SYMMETRIC : VKI_EDGE_REFLECT,
                           0.0f);
}

static bool padv2_integer(const vki_model *m, const vki_op *op);

/* PADV2(input, paddings, constant_values): a scalar fill. */
static vki_status describe_padv2(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 3);
    if (s) return s;
    float fill = 0.0f;
    if (op->n_inputs == 3 && op->inputs[2] >= 0 && padv2_integer(m, op)) {
        /* The integer form: the constant's q on the output's grid (padv2_integer). */
        fill = (float)vki_tensor_qvalue(vki_op_in(m, op, 2), 0, 1);
    } else if (op->n_inputs == 3 && op->inputs[2] >= 0) {
        const vki_tensor *c = vki_op_in(m, op, 2);
        if (!c->data || c->dtype != VKI_DTYPE_FLOAT32 || vki_tensor_elements(c) != 1 ||
            c->data_bytes < sizeof(float))
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "constant_values (tensor %d) "
                               "must be one float32 constant", op->inputs[2]);
        fill = *(const float *)c->data;
        if (!isfinite(fill))
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "constant value %g is not "
                               "finite", (double)fill);
    }
    return vki_pad_describe(m, o, r, VKI_EDGE_FILL, fill);
}

/* MirrorPadOptions: mode at field 0 (REFLECT 0, SYMMETRIC 1). */
static vki_status read_mirror_pad(vki_options_reader *rd, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t mode;
    if (!vki_opt_i8(rd, 0, 0, &mode)) return vki_opt_malformed(rd);
    if (mode != 0 && mode != 1)
        return vki_opt_fail(rd, VKI_ERROR_MODEL_FORMAT, "MirrorPadOptions: mode %d is neither "
                            "REFLECT (0) nor SYMMETRIC (1)", mode);
    op->opt.mirror_pad.symmetric = mode == 1;
    return VKI_OK;
}

VKI_REMAP_OP(mirror_pad, describe_mirror_pad, read_mirror_pad);
/* The integer form (int8.h): input and output on one int8 / uint8 grid, the constant (if
 * any) quantized per tensor on that grid too. */
static bool padv2_integer(const vki_model *m, const vki_op *op) {
    if (op->n_inputs < 2 || op->n_outputs != 1) return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data || out->data || !vki_tensor_quantized(in) || !vki_tensor_quantized(out) ||
        in->quant_scale != out->quant_scale || in->quant_zero != out->quant_zero ||
        in->quant_min != out->quant_min || in->quant_max != out->quant_max)
        return false;
    if (op->n_inputs < 3 || op->inputs[2] < 0) return true;
    const vki_tensor *c = vki_op_in(m, op, 2);
    return c->qdata && c->n_qscale == 1 && vki_tensor_elements(c) == 1 &&
           c->qscale[0] == out->quant_scale && c->qzero[0] == out->quant_zero;
}

static vki_status padv2_validate(const vki_model *m, int o) { return vki_remap_validate(m, o, describe_padv2); }
static vki_status padv2_build(vki_build *b, const vki_model *m, int o) {
    return vki_remap_build(b, m, o, describe_padv2);
}
static void padv2_reference(const vki_model *m, const vki_op *op, const float *const *in,
                            float *const *out) {
    vki_remap_reference(m, op, in, out, describe_padv2);
}
const vki_op_def vki_op_padv2 = {.validate = padv2_validate, .build = padv2_build,
                                 .reference = padv2_reference, .general = true,
                                 .integer = padv2_integer};
