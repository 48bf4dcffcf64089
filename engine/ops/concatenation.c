/* concatenation.c: CONCATENATION of 1 to 15 tensors along H, W or C, with a fused
 * activation, in one dispatch (glsl/concat.comp). The axis is relative to the tensors'
 * rank and is mapped onto the NHWC view the same way vki_tensor_shape4 maps shapes. Channel
 * counts need not be multiples of 4. Constant inputs are packed into the weights.
 *
 * uint8 inputs on grids other than the output's take TFLite's ConcatenationWithScaling
 * (the XNNPACK delegate declines them): each such input goes through a 256-entry table of
 * its requantization (int8.c), the rest are copied. TFLite refuses int8 inputs on other
 * grids (its Prepare), so those run in float between the loader's conversions. */
#include "int8.h"
#include "remap.h"

#include <stdio.h>
#include <stdlib.h>

/* 16 bindings: up to 15 inputs and the output. */
#define MAX_INPUTS (VKI_MAX_BINDINGS - 1)

enum { AXIS_N, AXIS_H, AXIS_W, AXIS_C };

/* The NHWC axis that dimension `axis` of a rank-`rank` tensor is. */
static int nhwc_axis(int rank, int axis) {
    static const int map[5][4] = {{AXIS_C}, {AXIS_C}, {AXIS_N, AXIS_C}, {AXIS_N, AXIS_W, AXIS_C},
                                  {AXIS_N, AXIS_H, AXIS_W, AXIS_C}};
    return map[rank][axis];
}

static int extent(vki_shape4 s, int axis) {
    switch (axis) {
    case AXIS_H: return s.h;
    case AXIS_W: return s.w;
    case AXIS_C: return s.c;
    default: return s.n;
    }
}

/* concat.comp's form: rank <= 4, batch 1, along H, W or C. Anything else (the batch axis,
 * rank 5, batch > 1) gathers through remap.comp. */
static bool fast_path(const vki_model *m, const vki_op *op) {
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (out->rank > 4 || vki_tensor_shape4(out).n != 1 ||
        nhwc_axis(out->rank, op->opt.concat.axis) == AXIS_N)
        return false;
    for (int i = 0; i < op->n_inputs; i++)
        if (vki_op_in(m, op, i)->rank > 4 || vki_tensor_shape4(vki_op_in(m, op, i)).n != 1)
            return false;
    return true;
}

/* concat.comp binds up to 15 inputs (14 for the uint8 form, which binds its tables too),
 * remap.comp up to VKI_REMAP_MAX_INPUTS. */
int vki_concat_max_inputs(const vki_model *m, const vki_op *op) {
    return fast_path(m, op) ? MAX_INPUTS - 1 : VKI_REMAP_MAX_INPUTS;
}

/* An input the integer form maps through a table: on another grid than the output's. */
static bool rescaled(const vki_tensor *in, const vki_tensor *out) {
    return in->quant_scale != out->quant_scale || in->quant_zero != out->quant_zero;
}

/* The integer form (int8.h): uint8 activations in and out, some input on another grid,
 * concat.comp's form with a binding left for the tables. */
static bool integer(const vki_model *m, const vki_op *op) {
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (op->n_outputs != 1 || out->data || !vki_tensor_quantized(out) || out->quant_min != 0 ||
        out->quant_max != 255 || op->n_inputs >= MAX_INPUTS || !fast_path(m, op))
        return false;
    int tables = 0;
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *in = vki_op_in(m, op, i);
        if (in->data || !vki_tensor_quantized(in) || in->quant_min != 0 || in->quant_max != 255)
            return false;
        tables += rescaled(in, out);
    }
    return tables > 0;
}

/* The tables of the rescaled inputs, one after another (q - zero point of the output for
 * every input q), bound as the dispatch's next binding; LUT<k> is input k's table's first
 * entry (-1: copied), LUTZ<k> its zero point less its quant_min. */
static vki_status define_tables(vki_build *b, vki_dispatch *d, const vki_model *m, const vki_op *op) {
    const vki_tensor *out = vki_op_out(m, op, 0);
    float *table = vki_calloc((size_t)op->n_inputs * 256, sizeof *table);
    if (!table) return vki_fail_oom("graph build");
    int n = 0;
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *in = vki_op_in(m, op, i);
        char name[16];
        snprintf(name, sizeof name, "LUT%d", i);
        vki_define_int(d, name, rescaled(in, out) ? n * 256 : -1);
        snprintf(name, sizeof name, "LUTZ%d", i);
        vki_define_int(d, name, in->quant_zero - in->quant_min);
        if (!rescaled(in, out)) continue;
        for (int q = in->quant_min; q <= in->quant_max; q++)
            table[n * 256 + q - in->quant_min] = (float)(vki_int8_concat_entry(in, out, q) - out->quant_zero);
        n++;
    }
    int blob = vki_build_weights(b, table, (size_t)n * 256);
    free(table);
    if (blob < 0) return vki_fail_oom("graph build");
    vki_define_int(d, "INT8_LUT", 1);
    vki_define_int(d, "TABLE_BINDING", d->n_bindings);
    vki_dispatch_bind_weights(d, blob);
    return VKI_OK;
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, MAX_INPUTS, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *out = vki_op_out(m, op, 0);
    int axis = op->opt.concat.axis;
    if (out->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output is a scalar");
    if (axis < 0 || axis >= out->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for rank %d",
                           axis, out->rank);
    if ((unsigned)op->opt.concat.activation > VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "unknown fused activation %d",
                           (int)op->opt.concat.activation);
    /* The output is input 0's shape with the inputs' extents along the axis added up. */
    const vki_tensor *first = vki_op_in(m, op, 0);
    int want[VKI_MAX_RANK];
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *in = vki_op_in(m, op, i);
        char gi[96], g0[96];
        vki_format_dims(gi, sizeof gi, in->rank, in->shape);
        vki_format_dims(g0, sizeof g0, first->rank, first->shape);
        if (in->rank != out->rank)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "input %d (tensor %d '%s') %s has rank %d, the output has rank %d",
                               i, op->inputs[i], in->name, gi, in->rank, out->rank);
        for (int d = 0; d < out->rank; d++) {
            if (d != axis && in->shape[d] != first->shape[d])
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                   "input %d (tensor %d '%s') %s does not match input 0 %s outside "
                                   "axis %d", i, op->inputs[i], in->name, gi, g0, axis);
            want[d] = d == axis ? (i ? want[d] : 0) + in->shape[d] : in->shape[d];
        }
    }
    vki_status s0 = vki_op_expect_dims(m, o, op->outputs[0], out->rank, want);
    if (s0) return s0;
    if (!fast_path(m, op) && op->n_inputs > VKI_REMAP_MAX_INPUTS)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "along the batch, or on rank 5 or batch > 1 tensors, takes at most "
                           "%d inputs", VKI_REMAP_MAX_INPUTS);
    return VKI_OK;
}

/* The general form (remap.h): input k covers the output along the axis from its offset. */
static vki_status describe_general(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    const vki_op *op = &m->ops[o];
    const vki_tensor *out = vki_op_out(m, op, 0);
    int axis = vki_axis5(op->opt.concat.axis, out->rank), at = 0;
    vki_remap_init(r, out);
    for (int i = 0; i < op->n_inputs; i++) {
        int k = vki_remap_add_input(r, m, op, i);
        r->start[k] = at;
        at += r->in[k][axis];
    }
    r->sel_axis = r->sel_coord = axis;
    r->activation = op->opt.concat.activation;
    return VKI_OK;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (!fast_path(m, op)) return vki_remap_build(b, m, o, describe_general);
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    int along = nhwc_axis(vki_op_out(m, op, 0)->rank, op->opt.concat.axis);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_concat, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, along == AXIS_H ? "AXIS_H" : along == AXIS_W ? "AXIS_W" : "AXIS_C", 1);
    vki_define_int(&d, "N_INPUTS", op->n_inputs);
    vki_define_activation(&d, op->opt.concat.activation);
    int offset = 0;
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *t = vki_op_in(m, op, i);
        vki_shape4 s = vki_tensor_shape4(t);
        char name[16];
        snprintf(name, sizeof name, "IN%d", i);
        vki_define_shape(&d, name, s);
        snprintf(name, sizeof name, "OFF%d", i);
        vki_define_int(&d, name, offset);
        offset += extent(s, along);
        vki_status st = vki_build_bind_operand(b, &d, op->inputs[i], s);
        if (st) return st;
    }
    vki_define_shape(&d, "OUT", so);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    if (integer(m, op)) {
        vki_status st = define_tables(b, &d, m, op);
        if (st) return st;
    }
    vki_dispatch_grid_phwc4(&d, so);
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference: the output is `outer` blocks, each the inputs' axis-and-inner
 * blocks one after another. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_tensor *to = vki_op_out(m, op, 0);
    int axis = op->opt.concat.axis;
    size_t outer = 1, inner = 1;
    for (int d = 0; d < axis; d++) outer *= (size_t)to->shape[d];
    for (int d = axis + 1; d < to->rank; d++) inner *= (size_t)to->shape[d];
    const bool int8 = integer(m, op);
    float *dst = out[0];
    for (size_t k = 0; k < outer; k++)
        for (int i = 0; i < op->n_inputs; i++) {
            const vki_tensor *ti = vki_op_in(m, op, i);
            size_t block = (size_t)ti->shape[axis] * inner;
            const float *src = in[i] + k * block;
            for (size_t e = 0; e < block; e++) {
                if (int8) {   /* q - zero point onto the output's grid */
                    int q = (int)src[e] + ti->quant_zero;
                    *dst++ = (float)(vki_int8_concat_entry(ti, to, q) - to->quant_zero);
                    continue;
                }
                *dst++ = vki_apply_activation(op->opt.concat.activation, src[e]);
            }
        }
}

/* ConcatenationOptions: the axis (negative counts from the end, normalized here against
 * the output's rank) and the fused activation. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    int32_t axis;
    int8_t act;
    if (!vki_opt_i32(r, 0, 0, &axis) || !vki_opt_i8(r, 1, 0, &act)) return vki_opt_malformed(r);
    if (op->n_outputs < 1) return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "has no output");
    int rank = m->tensors[op->outputs[0]].rank;
    int64_t a = axis < 0 ? (int64_t)axis + rank : axis;
    if (a < 0 || a >= rank)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "axis %d out of range for rank %d", axis,
                            rank);
    op->opt.concat.axis = (int)a;
    /* The file's fused activation is checked, then dropped: TFLite's CONCATENATION kernels
     * never apply it (LiteRT gives -2 for a RELU_N1_TO_1 concatenation of -2; the graph
     * tester's seed 65). The activation pass may still fold a RELU op of its own in. */
    vki_status s = vki_opt_activation(r, act, &op->opt.concat.activation);
    op->opt.concat.activation = VKI_ACT_NONE;
    return s;
}

const vki_op_def vki_op_concatenation = {.validate = validate, .build = build,
                                          .reference = reference, .options = read_options,
                                          .general = true, .integer = integer};
