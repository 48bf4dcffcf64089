/* space_depth.c: DEPTH_TO_SPACE and SPACE_TO_DEPTH of [1,H,W,C] tensors with TFLite's
 * channel order: output channel (for SPACE_TO_DEPTH; input channel for DEPTH_TO_SPACE)
 * ((y % b) * b + x % b) * depth + c. One kernel, glsl/space_depth.comp, gathers each
 * output lane. */
#include "ops.h"

#include <limits.h>

static bool is_d2s(const vki_op *op) { return op->code == VKI_OP_DEPTH_TO_SPACE; }

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 1, 1, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank != 4 || out->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input and output must have rank 4, got %d and %d", in->rank, out->rank);
    int bs = op->opt.space_depth.block_size;
    if (bs < 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "block_size %d must be at least 2", bs);
    vki_shape4 si = vki_tensor_shape4(in);
    /* 64-bit: a hostile block size must not overflow the shape arithmetic. */
    long long area = (long long)bs * bs, h, w, c;
    if (is_d2s(op)) {
        if (si.c % area)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "input depth %d is not a multiple of block_size^2 = %lld", si.c,
                               area);
        h = (long long)si.h * bs, w = (long long)si.w * bs, c = si.c / area;
    } else {
        if (si.h % bs || si.w % bs)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "input %dx%d (HxW) is not a multiple of block_size %d", si.h,
                               si.w, bs);
        h = si.h / bs, w = si.w / bs, c = si.c * area;
    }
    if (h > INT_MAX || w > INT_MAX || c > INT_MAX)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "block_size %d makes the output too large",
                           bs);
    return vki_op_check_shape(m, o, op->outputs[0], (vki_shape4){1, (int)h, (int)w, (int)c});
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_shape4 in = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_space_depth, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, is_d2s(op) ? "DEPTH_TO_SPACE" : "SPACE_TO_DEPTH", 1);
    vki_define_int(&d, "BLOCK", op->opt.space_depth.block_size);
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, out);
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference_ops::DepthToSpace / SpaceToDepth: walk one side densely and place
 * each element by the block rule. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    int bs = op->opt.space_depth.block_size;
    if (is_d2s(op)) {
        for (int oy = 0; oy < so.h; oy++)
            for (int ox = 0; ox < so.w; ox++)
                for (int oc = 0; oc < so.c; oc++) {
                    int ic = oc + ((oy % bs) * bs + ox % bs) * so.c;
                    int ix = ox / bs, iy = oy / bs;
                    out[0][((size_t)oy * so.w + ox) * so.c + oc] =
                        in[0][((size_t)iy * si.w + ix) * si.c + ic];
                }
    } else {
        for (int iy = 0; iy < si.h; iy++)
            for (int ix = 0; ix < si.w; ix++)
                for (int ic = 0; ic < si.c; ic++) {
                    int oc = ic + ((iy % bs) * bs + ix % bs) * si.c;
                    int ox = ix / bs, oy = iy / bs;
                    out[0][((size_t)oy * so.w + ox) * so.c + oc] =
                        in[0][((size_t)iy * si.w + ix) * si.c + ic];
                }
    }
}

/* DepthToSpaceOptions and SpaceToDepthOptions: block_size. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t block;
    if (!vki_opt_i32(r, 0, 0, &block)) return vki_opt_malformed(r);
    op->opt.space_depth.block_size = block;
    return VKI_OK;
}

const vki_op_def vki_op_depth_to_space = {
    .validate = validate, .build = build, .reference = reference, .options = read_options};
const vki_op_def vki_op_space_to_depth = {
    .validate = validate, .build = build, .reference = reference, .options = read_options};
