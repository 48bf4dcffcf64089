/* pool.c: MAX_POOL_2D and AVERAGE_POOL_2D. Average pooling divides by the number of window
 * cells inside the input, as TFLite does, so padded cells never dilute edge outputs.
 * A pool with a 1x1 output (global pooling, as in squeeze-and-excitation blocks) runs
 * glsl/reduce.comp, a work group per channel slice; every other pool runs glsl/pool.comp,
 * a thread per output vec4, which would leave a 1x1 output's window to one thread. */
#include "int8.h"
#include "ops.h"
#include "reduce.h"

#include <float.h>

static const char *pool_kind(const vki_op *op) {
    return op->code == VKI_OP_MAX_POOL_2D ? "max" : "average";
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (in->rank != 4 || out->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input and output must have rank 4, got %d and %d", in->rank, out->rank);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    const vki_pool_options *p = &op->opt.pool;
    if (p->padding != VKI_PAD_SAME && p->padding != VKI_PAD_VALID)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "unknown padding %d", (int)p->padding);
    if (p->filter_w < 1 || p->filter_h < 1 || p->stride_w < 1 || p->stride_h < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "filter %dx%d and stride %dx%d (HxW) must be positive", p->filter_h,
                           p->filter_w, p->stride_h, p->stride_w);
    if ((unsigned)p->activation > VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "unknown fused activation %d",
                           (int)p->activation);
    vki_shape4 si = vki_tensor_shape4(in);
    vki_shape4 want = {1, vki_conv_out_size(p->padding, si.h, p->filter_h, p->stride_h, 1),
                       vki_conv_out_size(p->padding, si.w, p->filter_w, p->stride_w, 1), si.c};
    if (want.h < 1 || want.w < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "%dx%d VALID %s pool window does not fit the %dx%d input", p->filter_h,
                           p->filter_w, pool_kind(op), si.h, si.w);
    return vki_op_check_shape(m, o, op->outputs[0], want);
}

/* The only window of a 1x1 output starts at or before the input's origin (VALID: at it;
 * SAME: padding only before), so clipped to the input it is the top-left corner: the
 * cells TFLite reads, and for average pooling the count it divides by. It always keeps
 * a cell (VALID fits the window inside; SAME pads less than the filter), so that count
 * is never zero. */
void vki_pool_global_window(const vki_pool_options *p, vki_shape4 in, int *w, int *h) {
    *h = p->filter_h - vki_conv_pad_before(p->padding, in.h, p->filter_h, p->stride_h, 1);
    *w = p->filter_w - vki_conv_pad_before(p->padding, in.w, p->filter_w, p->stride_w, 1);
    if (*h > in.h) *h = in.h;
    if (*w > in.w) *w = in.w;
}

static vki_status build_global(vki_build *b, const vki_op *op, vki_shape4 in, vki_shape4 out) {
    const vki_pool_options *p = &op->opt.pool;
    int w, h;
    vki_pool_global_window(p, in, &w, &h);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_reduce, VKI_WG_REDUCE);
    vki_define_int(&d, op->code == VKI_OP_MAX_POOL_2D ? "REDUCE_MAX" : "REDUCE_MEAN", 1);
    vki_define_activation(&d, p->activation);
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    vki_define_int(&d, "WIN_W", w);
    vki_define_int(&d, "WIN_H", h);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_status bound = vki_build_bind_output(b, &d, op);
    if (bound) return bound;
    vki_reduce_lanes(b, (long)w * h, &d);
    d.grid[2] = (uint32_t)((out.c + 3) / 4);
    return vki_build_dispatch(b, &d);
}

/* The integer form (int8.h): input and output on one int8 / uint8 grid. */
static bool integer(const vki_model *m, const vki_op *op) { return vki_int8_pool_ok(m, op); }

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

/* The clamp of an integer pool in q - zero point: XNNPACK's max pool quantizes the
 * activation's bounds ties to even, TFLite's average pool half away from zero. */
static void int8_range(const vki_model *m, const vki_op *op, int *lo, int *hi) {
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (op->code == VKI_OP_MAX_POOL_2D) vki_int8_activation_range(out, op->opt.pool.activation, lo, hi);
    else vki_int8_tflite_activation_range(out, op->opt.pool.activation, lo, hi);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_pool_options *p = &op->opt.pool;
    vki_shape4 in = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    const bool int8 = runs_integer(m, op);
    if (op->fused.excite) return vki_build_squeeze(b, m, o);   /* squeeze.c: the block's squeeze */
    if (out.h == 1 && out.w == 1 && !int8) return build_global(b, op, in, out);
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_pool, VKI_WG_POOL);
    vki_define_int(&d, op->code == VKI_OP_MAX_POOL_2D ? "POOL_MAX" : "POOL_AVERAGE", 1);
    if (int8) {
        int lo, hi;
        int8_range(m, op, &lo, &hi);
        vki_define_int(&d, "INT8", 1);
        vki_define_int(&d, "OUT_QMIN", lo);
        vki_define_int(&d, "OUT_QMAX", hi);
        vki_define_int(&d, "POOL_MAX_INIT", op->code == VKI_OP_MAX_POOL_2D ? -100000 : 0);
        if (op->code == VKI_OP_AVERAGE_POOL_2D)
            vki_define_int(&d, "IN_ZERO", vki_op_in(m, op, 0)->quant_zero);
    } else {
        vki_define_activation(&d, p->activation);
    }
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    vki_define_int(&d, "FILTER_W", p->filter_w);
    vki_define_int(&d, "FILTER_H", p->filter_h);
    vki_define_int(&d, "STRIDE_W", p->stride_w);
    vki_define_int(&d, "STRIDE_H", p->stride_h);
    vki_define_int(&d, "PAD_W", vki_conv_pad_before(p->padding, in.w, p->filter_w, p->stride_w, 1));
    vki_define_int(&d, "PAD_H", vki_conv_pad_before(p->padding, in.h, p->filter_h, p->stride_h, 1));
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_status bound = vki_build_bind_output(b, &d, op);
    if (bound) return bound;
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

/* Straight from TFLite's reference_ops::MaxPool / AveragePool (float). */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_pool_options *p = &op->opt.pool;
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    int pad_h = vki_conv_pad_before(p->padding, si.h, p->filter_h, p->stride_h, 1);
    int pad_w = vki_conv_pad_before(p->padding, si.w, p->filter_w, p->stride_w, 1);
    int is_max = op->code == VKI_OP_MAX_POOL_2D;
    const bool int8 = runs_integer(m, op);
    const int zero = vki_op_in(m, op, 0)->quant_zero;
    int lo = 0, hi = 0;
    if (int8) int8_range(m, op, &lo, &hi);
    for (int y = 0; y < so.h; y++)
        for (int x = 0; x < so.w; x++)
            for (int c = 0; c < so.c; c++) {
                int y0 = y * p->stride_h - pad_h, x0 = x * p->stride_w - pad_w;
                float acc = is_max ? -FLT_MAX : 0.0f;
                int count = 0;
                for (int ky = 0; ky < p->filter_h; ky++)
                    for (int kx = 0; kx < p->filter_w; kx++) {
                        int iy = y0 + ky, ix = x0 + kx;
                        if (iy < 0 || iy >= si.h || ix < 0 || ix >= si.w) continue;
                        float v = in[0][((size_t)iy * si.w + ix) * si.c + c];
                        if (is_max) acc = v > acc ? v : acc;
                        else acc += v;
                        count++;
                    }
                float *dst = &out[0][((size_t)y * so.w + x) * so.c + c];
                if (int8) {   /* TFLite's int8 average: the raw sum's mean, half away from zero */
                    if (!is_max) {
                        int32_t raw = (int32_t)acc + count * zero, half = count / 2;
                        acc = (float)((raw > 0 ? raw + half : raw - half) / (count ? count : 1) - zero);
                    }
                    *dst = acc < (float)lo ? (float)lo : acc > (float)hi ? (float)hi : acc;
                    continue;
                }
                if (!is_max) acc = count ? acc / (float)count : 0.0f;
                *dst = vki_apply_activation(p->activation, acc);
            }
}

/* Pool2DOptions: padding, strides, filter size, fused activation. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
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

const vki_op_def vki_op_max_pool2d = {
    .validate = validate, .build = build, .reference = reference, .options = read_options,
    .integer = integer};
const vki_op_def vki_op_average_pool2d = {
    .validate = validate, .build = build, .reference = reference, .options = read_options,
    .integer = integer};
