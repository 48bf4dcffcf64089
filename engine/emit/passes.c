/* passes.c: build-time rewrites of the op list, run in VKI_PASS_LIST's order on the
 * builder's private copy. Each folds an op into another so that it needs no dispatch of
 * its own: the folded op is marked in skip[] and the op that absorbs it records what it
 * took over in op->fused (model.h), which its kernel's epilogue or window then applies.
 *
 * Why these: in face_detection_short_range's 76 dispatches, 16 were ADDs and 11 channel
 * PADs feeding them, 6 the heads' RESHAPE / CONCATENATION and 2 the output conversions;
 * pose_landmark_lite has 25 ADDs and 5 spatial PADs ahead of stride-2 depthwise convs,
 * and selfie_segmentation 11 HARD_SWISH and 11 LOGISTIC ops after convolutions. A
 * dispatch costs 2.4 us on an H100 and 28.7 us on lavapipe before it does any work
 * (../shared/probe), more than most of these ops' arithmetic.
 */
#include "passes.h"

#include "../ops/int8.h"

#include "../ops/conv_common.h"
#include "../ops/ops.h"
#include "../ops/reduce.h"
#include "status.h"

#include <stdlib.h>

/* ---- the graph as the passes see it ---------------------------------------------------- */

/* A tensor only `reader` consumes: one reader, not a graph output, written by an op. */
static int private_to_reader(const vki_model *m, const vki_op_index *g, int t) {
    return t >= 0 && g->readers[t] == 1 && !vki_model_is_output(m, t) && g->producer[t] >= 0;
}

/* The producer of t if it is a dispatched op with this code, else -1. */
static int producer_of(const vki_model *m, const vki_op_index *g, int t, vki_op_code code) {
    int p = t >= 0 ? g->producer[t] : -1;
    return p >= 0 && m->ops[p].code == code ? p : -1;
}

static int is_convolution(const vki_op *op) {
    return op->code == VKI_OP_CONV_2D || op->code == VKI_OP_DEPTHWISE_CONV_2D;
}

/* Ops whose kernel stores through common.glsl's STORE_OUTPUT epilogue (and binds its
 * output with vki_build_bind_output): they can take a residual, any activation, and write
 * a graph output's dense layout. */
static int has_epilogue(const vki_op *op) {
    switch (op->code) {
    case VKI_OP_CONV_2D: case VKI_OP_DEPTHWISE_CONV_2D: case VKI_OP_FULLY_CONNECTED:
    case VKI_OP_MAX_POOL_2D: case VKI_OP_AVERAGE_POOL_2D:
    case VKI_OP_RESIZE_BILINEAR: case VKI_OP_RESIZE_NEAREST_NEIGHBOR:
    case VKI_OP_ADD: case VKI_OP_SUB: case VKI_OP_MUL: case VKI_OP_DIV:
    case VKI_OP_MAXIMUM: case VKI_OP_MINIMUM: case VKI_OP_PRELU:
        return 1;
    default:
        return 0;
    }
}

/* An op on int8 / uint8 tensors: its integer form requantizes in its epilogue and takes
 * nothing fused (an ADD or an activation there has a requantization of its own). */
static int quantized(const vki_model *m, const vki_op *op) {
    return op->n_outputs >= 1 && vki_tensor_quantized(&m->tensors[op->outputs[0]]);
}

static int same_shape(vki_shape4 a, vki_shape4 b) {
    return a.n == b.n && a.h == b.h && a.w == b.w && a.c == b.c;
}

/* A PAD whose paddings are all zero but for `keep`: 'c' trailing channels only, or 's'
 * rows and columns only. Fills before / after. */
static int pad_only(const vki_model *m, const vki_op *op, char keep, vki_shape4 *before,
                    vki_shape4 *after) {
    if (op->code != VKI_OP_PAD || op->n_inputs != 2) return 0;
    vki_pad_amounts(m, op, before, after);
    if (before->n || after->n) return 0;
    if (keep == 'c') return !before->h && !after->h && !before->w && !after->w && !before->c;
    return !before->c && !after->c;
}

/* ---- activation ----------------------------------------------------------------------- */

static int activation_of_op(vki_op_code code, vki_activation *act) {
    switch (code) {
    case VKI_OP_RELU: *act = VKI_ACT_RELU; return 1;
    case VKI_OP_RELU6: *act = VKI_ACT_RELU6; return 1;
    case VKI_OP_TANH: *act = VKI_ACT_TANH; return 1;
    case VKI_OP_RELU_N1_TO_1: *act = VKI_ACT_RELU_N1_TO_1; return 1;
    case VKI_OP_LOGISTIC: *act = VKI_ACT_SIGMOID; return 1;
    case VKI_OP_HARD_SWISH: *act = VKI_ACT_HARD_SWISH; return 1;
    default: return 0;
    }
}

/* The producer's fused-activation slot, or NULL if its kernel has none: the op list's
 * ACT(member) column, opt.<member>.activation. */
static vki_activation *activation_slot(vki_op *op) {
#define ACT(member) return &op->opt.member.activation;
#define NO_ACT return NULL;
#define SLOT_(name, code, def, options, activation) \
    case VKI_OP_##name: activation
    switch (op->code) {
        VKI_OP_LIST(SLOT_)
    default: return NULL;
    }
#undef SLOT_
#undef ACT
#undef NO_ACT
}


/* An integer convolution (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) whose epilogue can
 * take more: it has an integer form, and no table op yet. */
static int int8_epilogue(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_CONV_2D && op->code != VKI_OP_DEPTHWISE_CONV_2D &&
        op->code != VKI_OP_FULLY_CONNECTED)
        return 0;
    const vki_op_def *def = vki_op_find(op);
    return def && def->integer && quantized(m, op) && def->integer(m, op) && !op->fused.int8_table &&
           op->n_outputs == 1 && !op->fused.dense_out;
}

/* An integer ADD, SUB or MUL (binary.comp) that may take a table op after it: its own
 * dispatch, nothing fused into it yet. */
static int int8_binary_epilogue(const vki_model *m, const vki_op *op) {
    if (op->code != VKI_OP_ADD && op->code != VKI_OP_SUB && op->code != VKI_OP_MUL) return 0;
    const vki_op_def *def = vki_op_find(op);
    return def && def->integer && quantized(m, op) && def->integer(m, op) && !op->fused.int8_table &&
           op->n_outputs == 1 && !op->fused.dense_out && !op->fused.has_residual;
}

/* A table op (int8.h) reading integer convolution p's private output t joins p's epilogue:
 * p requantizes onto t's grid, then maps through the table. binary: p may be an integer
 * ADD / SUB / MUL too. */
static int fuse_int8_table(const vki_model *m, vki_op *ops, int p, int o, int t, int binary) {
    if (!(int8_epilogue(m, &ops[p]) || (binary && int8_binary_epilogue(m, &ops[p]))) ||
        !vki_int8_table_ok(m, &ops[o]) || ops[p].outputs[0] != t)
        return 0;
    if (!ops[p].fused.int8_own) ops[p].fused.int8_own = t + 1;
    ops[p].fused.int8_table = o + 1;
    ops[p].outputs[0] = ops[o].outputs[0];
    return 1;
}

int vki_fuse_activations(const vki_model *m, vki_op *ops, unsigned char *skip) {
    vki_op_index g;
    vki_model view = *m;
    view.ops = ops;
    if (!vki_op_index_build(&view, view.ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_activation act;
        if (skip[o] || !activation_of_op(ops[o].code, &act) || ops[o].n_inputs != 1) continue;
        int t = ops[o].inputs[0];
        if (!private_to_reader(m, &g, t)) continue;
        int p = g.producer[t];
        if (quantized(m, &ops[p]) || quantized(m, &ops[o])) {
            if (fuse_int8_table(m, ops, p, o, t, 0)) {
                g.producer[ops[o].outputs[0]] = p;
                skip[o] = 1;
                fused++;
            }
            continue;
        }
        vki_activation *slot = activation_slot(&ops[p]);
        if (!slot || *slot != VKI_ACT_NONE || ops[p].n_outputs != 1) continue;
        /* Sigmoid maps 0 to 0.5: only kernels whose epilogue zeroes the padded lanes after
         * the activation may take it. */
        if (act == VKI_ACT_SIGMOID && !has_epilogue(&ops[p])) continue;
        *slot = act;
        ops[p].outputs[0] = ops[o].outputs[0];
        g.producer[ops[o].outputs[0]] = p;
        skip[o] = 1;
        fused++;
    }
    vki_op_index_free(&g);
    return fused;
}

/* The table ops that read an integer convolution's output after its ADD was fused, or an
 * integer ADD, SUB or MUL's that no convolution took (after the residual pass, so that a
 * convolution, its ADD and the table after it stay one dispatch). */
static int fuse_int8_tables(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        if (skip[o] || m->ops[o].n_inputs != 1 || !quantized(m, &m->ops[o])) continue;
        int t = m->ops[o].inputs[0];
        if (t < 0 || !private_to_reader(m, &g, t)) continue;
        int p = g.producer[t];
        if (!fuse_int8_table(m, m->ops, p, o, t, 1)) continue;
        g.producer[m->ops[o].outputs[0]] = p;
        skip[o] = 1;
        fused++;
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- spatial PAD into the convolution after it ----------------------------------------- */

static int fuse_spatial_pads(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int c = 0; c < m->n_ops; c++) {
        vki_op *conv = &m->ops[c];
        if (skip[c] || !is_convolution(conv) || conv->fused.pad_top || conv->fused.pad_left ||
            conv->fused.pad_bottom || conv->fused.pad_right)
            continue;
        int t = conv->inputs[0];
        int p = producer_of(m, &g, t, VKI_OP_PAD);
        vki_shape4 before, after;
        if (p < 0 || !private_to_reader(m, &g, t) || !pad_only(m, &m->ops[p], 's', &before, &after))
            continue;
        conv->inputs[0] = m->ops[p].inputs[0];
        conv->fused.pad_top = before.h;
        conv->fused.pad_bottom = after.h;
        conv->fused.pad_left = before.w;
        conv->fused.pad_right = after.w;
        skip[p] = 1;
        fused++;
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- residual ADD into the epilogue of the op making an operand ------------------------ */

/* Operand `other` of an ADD whose output has storage view `out` (vki_tensor_rows: the
 * epilogue indexes the residual by the output's row, column and slice), as the epilogue
 * would read it: the tensor itself when its view is the output's, or the input of a
 * channel PAD that only zero-extends it (*pad = that PAD). -1 if neither. Comparing the
 * 4-D shapes instead let [4,8,8] (N = 4) pass for rows of [1,4,8,8]. */
static int residual_source(const vki_model *m, const vki_op_index *g, int other, vki_shape4 out,
                           int *pad) {
    *pad = -1;
    if (m->tensors[other].data) return -1;
    int p = producer_of(m, g, other, VKI_OP_PAD);
    vki_shape4 before, after;
    if (p >= 0 && private_to_reader(m, g, other) && pad_only(m, &m->ops[p], 'c', &before, &after)) {
        int src = m->ops[p].inputs[0];
        vki_shape4 s = vki_tensor_rows(&m->tensors[src]);
        if (s.h == out.h && s.w == out.w && s.c <= out.c && !m->tensors[src].data) {
            *pad = p;
            return src;
        }
    }
    return same_shape(vki_tensor_rows(&m->tensors[other]), out) ? other : -1;
}

static int fuse_residuals(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int a = 0; a < m->n_ops; a++) {
        vki_op *add = &m->ops[a];
        if (skip[a] || add->code != VKI_OP_ADD || add->n_inputs != 2) continue;
        /* An integer ADD joins an integer convolution's epilogue (its own requantization
         * there), of two activations only. */
        const int int8 = quantized(m, add);
        if (int8 && (!vki_int8_binary_ok(m, add) || m->tensors[add->inputs[0]].data ||
                     m->tensors[add->inputs[1]].data))
            continue;
        vki_shape4 out = vki_tensor_rows(&m->tensors[add->outputs[0]]);
        /* Try the operand made last first: the other one is then more likely ready. */
        int p0 = add->inputs[0] >= 0 ? g.producer[add->inputs[0]] : -1;
        int p1 = add->inputs[1] >= 0 ? g.producer[add->inputs[1]] : -1;
        int first = p1 > p0;
        for (int k = 0; k < 2; k++) {
            int i = k ? 1 - first : first;
            int t = add->inputs[i];
            int p = t >= 0 ? g.producer[t] : -1;
            if (p < 0 || !private_to_reader(m, &g, t)) continue;
            vki_op *conv = &m->ops[p];
            /* The producer's own activation runs before the ADD (RES_PRE_ACT), the ADD's
             * after; a producer without an activation slot takes only a plain ADD. */
            vki_activation *slot = activation_slot(conv);
            if (int8 && (!int8_epilogue(m, conv) || conv->fused.int8_own)) continue;
            if (!int8 && quantized(m, conv)) continue;
            if (!has_epilogue(conv) || conv->fused.has_residual || conv->fused.dense_out ||
                conv->n_outputs != 1 || !same_shape(vki_tensor_rows(&m->tensors[t]), out) ||
                (!slot && add->opt.eltwise.activation != VKI_ACT_NONE))
                continue;
            int pad;
            int r = residual_source(m, &g, add->inputs[1 - i], out, &pad);
            /* The residual must exist when the convolution runs. */
            if (r < 0 || r == t || g.producer[r] >= p || (g.producer[r] < 0 && !vki_model_is_input(m, r)))
                continue;
            conv->fused.has_residual = true;
            conv->fused.residual = r;
            if (int8) {   /* the ADD's activation is in its own range (int8.c) */
                conv->fused.int8_own = t + 1;
                conv->fused.int8_add = a + 1;
            } else if (slot) {
                conv->fused.pre_activation = *slot;
                *slot = add->opt.eltwise.activation;
            }
            conv->outputs[0] = add->outputs[0];
            g.producer[add->outputs[0]] = p;
            g.readers[r]++;
            skip[a] = 1;
            fused++;
            if (pad >= 0) {
                skip[pad] = 1;
                fused++;
            }
            break;
        }
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- a MUL by a per-channel gate into the convolution reading it ----------------------- */

/* The dispatched op that reads t, where exactly one does (as an input or through what was
 * fused into it); -1 otherwise. */
static int only_reader(const vki_model *m, const unsigned char *skip, int t) {
    int found = -1;
    for (int o = 0; o < m->n_ops; o++) {
        if (skip[o] || !vki_op_reads(&m->ops[o], t)) continue;
        if (found >= 0) return -1;
        found = o;
    }
    return found;
}

/* MobileNetV3's squeeze-excite block ends in a MUL of the block's activations by a gate
 * of one value per channel, whose only reader is the 1x1 convolution after it: 6 of
 * selfie_segmentation's 82 dispatches (its other 7 MULs took an ADD or feed a RESIZE).
 * The convolution can multiply each input vec4 by
 * the gate's as it loads it (GATED in common.glsl): the MUL's product, which the unfused
 * convolution would have loaded, in the same arithmetic, so fp32 stays bit-identical.
 * Float tensors only; the convolution may have any window (a padded tap reads zero, and
 * zero times the gate is zero) but not the integer form. */
static int fuse_gates(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int a = 0; a < m->n_ops; a++) {
        vki_op *mul = &m->ops[a];
        if (skip[a] || mul->code != VKI_OP_MUL || mul->n_inputs != 2 || mul->n_outputs != 1 ||
            mul->opt.eltwise.activation != VKI_ACT_NONE || mul->fused.has_residual ||
            mul->fused.dense_out)
            continue;
        const int t = mul->outputs[0];
        if (!private_to_reader(m, &g, t) || m->tensors[t].dtype != VKI_DTYPE_FLOAT32 ||
            vki_tensor_quantized(&m->tensors[t]))
            continue;
        const int r = only_reader(m, skip, t);
        vki_op *conv = r >= 0 ? &m->ops[r] : NULL;
        if (!conv || conv->code != VKI_OP_CONV_2D || conv->inputs[0] != t || conv->fused.gate ||
            quantized(m, conv))
            continue;
        const vki_shape4 out = vki_tensor_rows(&m->tensors[t]);
        const vki_shape4 one = {1, 1, 1, out.c};
        for (int i = 0; i < 2; i++) {
            const int x = mul->inputs[i], gate = mul->inputs[1 - i];
            const vki_tensor *xt = &m->tensors[x], *gt = &m->tensors[gate];
            /* x: the MUL's shape and storage; the gate: C values, stored as one row. */
            if (xt->data || gt->data || xt->dtype != VKI_DTYPE_FLOAT32 ||
                gt->dtype != VKI_DTYPE_FLOAT32 || vki_tensor_quantized(xt) ||
                vki_tensor_quantized(gt) || !same_shape(vki_tensor_rows(xt), out) ||
                !same_shape(vki_tensor_shape4(xt), vki_tensor_shape4(&m->tensors[t])) ||
                !same_shape(vki_tensor_rows(gt), one) || x == gate)
                continue;
            conv->inputs[0] = x;
            conv->fused.gate = gate + 1;
            g.readers[t]--;
            g.readers[x]++;
            g.readers[gate]++;
            skip[a] = 1;
            fused++;
            break;
        }
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- a MAX_POOL_2D shortcut into the residual read ------------------------------------- */

/* BlazeFace's downsampling blocks add a MAX_POOL_2D of the block's input (zero-padded in
 * channels) to the block's last convolution: where the residual pass folded that ADD into
 * the convolution and nothing else reads the pool's output, the epilogue takes the pool's
 * window over the pool's input itself (RES_POOL in common.glsl): the maximum of the same
 * values from the same start, so the result is the pool's to the bit, one dispatch fewer
 * (3 of face_detection_short_range's, 4 of face_detection_full_range's). Float tensors,
 * a pool without an activation or anything fused, its input a batch-1 tensor stored in
 * its NHWC view. */
static int fuse_pooled_residuals(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_op *op = &m->ops[o];
        const vki_fused *fu = &op->fused;
        if (skip[o] || !fu->has_residual || fu->res_pool || fu->int8_add || quantized(m, op))
            continue;
        const int r = fu->residual, p = g.producer[r];
        if (p < 0 || skip[p]) continue;
        const vki_op *pool = &m->ops[p];
        if (pool->code != VKI_OP_MAX_POOL_2D || pool->n_inputs != 1 || pool->n_outputs != 1 ||
            pool->opt.pool.activation != VKI_ACT_NONE || pool->fused.has_residual ||
            pool->fused.dense_out || quantized(m, pool) || vki_model_is_output(m, r) ||
            only_reader(m, skip, r) != o)
            continue;
        const int in = pool->inputs[0];
        const vki_tensor *it = in >= 0 ? &m->tensors[in] : NULL;
        if (!it || it->dtype != VKI_DTYPE_FLOAT32 || vki_tensor_quantized(it) ||
            vki_tensor_shape4(it).n != 1 || vki_tensor_shape4(&m->tensors[r]).n != 1 ||
            !same_shape(vki_tensor_rows(it), vki_tensor_shape4(it)))
            continue;
        op->fused.residual = in;
        op->fused.res_pool = p + 1;
        skip[p] = 1;
        fused++;
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- a squeeze-excite block's squeeze in one dispatch ----------------------------------- */

/* A float global mean of a batch-1 activation stored in its NHWC view: an AVERAGE_POOL_2D
 * with a 1x1 output and no activation, or a MEAN over exactly H and W keeping the dims. */
static int global_mean(const vki_model *m, const vki_op *op) {
    if (op->n_outputs != 1 || op->on_cpu || quantized(m, op) || op->inputs[0] < 0) return 0;
    const vki_tensor *in = &m->tensors[op->inputs[0]], *out = vki_op_out(m, op, 0);
    if (in->data || in->rank != 4 || out->rank != 4 || in->dtype != VKI_DTYPE_FLOAT32 ||
        vki_tensor_quantized(in) || vki_tensor_shape4(in).n != 1)
        return 0;
    if (op->code == VKI_OP_MEAN) return vki_mean_spatial(m, op) && op->opt.reduce.keep_dims;
    const vki_shape4 os = vki_tensor_shape4(out);
    return op->code == VKI_OP_AVERAGE_POOL_2D && op->n_inputs == 1 && os.h == 1 && os.w == 1 &&
           op->opt.pool.activation == VKI_ACT_NONE;
}

/* A float CONV_2D with a 1x1 filter reading t ([1, 1, 1, C]) as input 0 and writing
 * [1, 1, 1, C'] (any stride or padding gives that one cell), nothing fused into it. */
static int pointwise_on_cell(const vki_model *m, const vki_op *op, int t) {
    if (op->code != VKI_OP_CONV_2D || op->n_inputs < 2 || op->n_outputs != 1 ||
        op->inputs[0] != t || op->on_cpu || quantized(m, op))
        return 0;
    const vki_fused *fu = &op->fused;
    if (fu->pad_top || fu->pad_bottom || fu->pad_left || fu->pad_right || fu->has_residual ||
        fu->dense_out || fu->gate || fu->int8_own || fu->int8_add || fu->int8_table)
        return 0;
    const vki_tensor *f = vki_op_in(m, op, 1), *in = &m->tensors[t], *out = vki_op_out(m, op, 0);
    const vki_shape4 is = vki_tensor_shape4(in), os = vki_tensor_shape4(out);
    return f->data && f->dtype == VKI_DTYPE_FLOAT32 && f->rank == 4 && f->shape[1] == 1 &&
           f->shape[2] == 1 && f->shape[3] == is.c && f->shape[0] == os.c && in->rank == 4 &&
           out->rank == 4 && is.n == 1 && is.h == 1 && is.w == 1 && os.n == 1 && os.h == 1 &&
           os.w == 1 && !vki_tensor_quantized(in) && out->dtype == VKI_DTYPE_FLOAT32;
}

/* MobileNetV3's squeeze-excite block computes its gate from a global mean, a 1x1
 * convolution (RELU) and a second one (a sigmoid or hard sigmoid), each on one cell: three
 * dispatches of a few threads' work, 27 of selfie_segmentation's 76 on an H100 at 3-5 us
 * each. One work group runs all three (glsl/squeeze.comp): the mean, then each convolution
 * from shared memory. Where the kernel fits the device and pays there (vki_squeeze_fits). */
static int fuse_squeezes(vki_model *m, unsigned char *skip, const vki_wg_device *dev) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_op *pool = &m->ops[o];
        const vki_fused *pf = &pool->fused;
        if (skip[o] || !global_mean(m, pool) || pf->has_residual || pf->dense_out || pf->excite)
            continue;
        const int p = pool->outputs[0];
        const int c1 = private_to_reader(m, &g, p) ? only_reader(m, skip, p) : -1;
        if (c1 < 0 || !pointwise_on_cell(m, &m->ops[c1], p)) continue;
        const int h = m->ops[c1].outputs[0];
        const int c2 = private_to_reader(m, &g, h) ? only_reader(m, skip, h) : -1;
        if (c2 < 0 || !pointwise_on_cell(m, &m->ops[c2], h)) continue;
        const int e = m->ops[c2].outputs[0];
        if (!vki_squeeze_fits(dev, m, pool, m->tensors[h].shape[3], m->tensors[e].shape[3]))
            continue;
        pool->fused.squeeze = c1 + 1;
        pool->fused.excite = c2 + 1;
        pool->outputs[0] = e;
        g.producer[e] = o;
        skip[c1] = skip[c2] = 1;
        fused += 2;
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- channel PAD into the elementwise op reading it ------------------------------------ */

/* binary.comp reads an operand with fewer slices than the output as zero past its last
 * slice: exactly what a PAD of trailing channels with zeros gives. A 1-channel operand
 * would be broadcast instead, so those stay. */
static int fuse_channel_pads(vki_model *m, unsigned char *skip) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_op *op = &m->ops[o];
        if (skip[o] || op->n_inputs != 2 ||
            (op->code != VKI_OP_ADD && op->code != VKI_OP_SUB && op->code != VKI_OP_MUL))
            continue;
        vki_shape4 out = vki_tensor_shape4(&m->tensors[op->outputs[0]]);
        for (int i = 0; i < 2; i++) {
            int t = op->inputs[i];
            int p = producer_of(m, &g, t, VKI_OP_PAD);
            vki_shape4 before, after;
            if (p < 0 || !private_to_reader(m, &g, t) ||
                !pad_only(m, &m->ops[p], 'c', &before, &after))
                continue;
            int src = m->ops[p].inputs[0];
            vki_shape4 s = vki_tensor_shape4(&m->tensors[src]);
            if (s.c < 2 || s.h != out.h || s.w != out.w || m->tensors[src].data) continue;
            op->inputs[i] = src;
            skip[p] = 1;
            fused++;
        }
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- the heads' RESHAPE / CONCATENATION: producers write the output's dense layout ---- */

#define MAX_DENSE_PRODUCERS 64

typedef struct dense_plan {
    int producers[MAX_DENSE_PRODUCERS];
    long bases[MAX_DENSE_PRODUCERS];
    float scales[MAX_DENSE_PRODUCERS];   /* dense_scale of each producer */
    int n;
    int folded[MAX_DENSE_PRODUCERS];   /* RESHAPE / CONCATENATION ops made redundant */
    int n_folded;
} dense_plan;

/* Plans tensor t to be written densely at float offset `base` of its graph output: walks
 * back through RESHAPEs (dense order is unchanged), CONCATENATIONs whose inputs are
 * contiguous chunks (every axis before the concatenation axis has extent 1) and a
 * DEQUANTIZE of an int8 / uint8 activation, down to convolutions, whose epilogue then
 * writes there. Below a DEQUANTIZE (`grid`: its input) every tensor must be on that grid
 * and the producers run their integer forms, which then dequantize as they store. Fails
 * (0) on anything else. */
static int plan_dense(const vki_model *m, const vki_op_index *g, int t, long base, int top,
                      const vki_tensor *grid, dense_plan *plan) {
    if (!top && !private_to_reader(m, g, t)) return 0;
    int p = g->producer[t];
    if (p < 0) return 0;
    const vki_op *op = &m->ops[p];
    const vki_tensor *tt = &m->tensors[t];
    if (grid && (!vki_tensor_quantized(tt) || tt->quant_scale != grid->quant_scale ||
                 tt->quant_zero != grid->quant_zero))
        return 0;
    if (!grid && vki_tensor_quantized(tt)) return 0;
    if (has_epilogue(op)) {
        if (op->fused.dense_out || op->n_outputs != 1 || plan->n == MAX_DENSE_PRODUCERS) return 0;
        if (grid) {
            const vki_op_def *def = vki_op_find(op);
            if (!def || !def->integer || !def->integer(m, op)) return 0;
        }
        plan->producers[plan->n] = p;
        plan->scales[plan->n] = grid ? grid->quant_scale : 0.0f;
        plan->bases[plan->n++] = base;
        return 1;
    }
    if (plan->n_folded == MAX_DENSE_PRODUCERS) return 0;
    if (op->code == VKI_OP_DEQUANTIZE) {
        int u = op->inputs[0];
        if (grid || u < 0 || m->tensors[u].data || !vki_tensor_quantized(&m->tensors[u]) ||
            m->tensors[u].n_qscale > 1)
            return 0;
        plan->folded[plan->n_folded++] = p;
        return plan_dense(m, g, u, base, 0, &m->tensors[u], plan);
    }
    if (op->code == VKI_OP_RESHAPE) {
        int u = op->inputs[0];
        if (u < 0 || m->tensors[u].data ||
            vki_tensor_elements(&m->tensors[u]) != vki_tensor_elements(&m->tensors[t]))
            return 0;
        plan->folded[plan->n_folded++] = p;
        return plan_dense(m, g, u, base, 0, grid, plan);
    }
    if (op->code == VKI_OP_CONCATENATION) {
        const vki_tensor *to = &m->tensors[t];
        int axis = op->opt.concat.axis;
        if (op->opt.concat.activation != VKI_ACT_NONE || axis < 0 || axis >= to->rank) return 0;
        for (int d = 0; d < axis; d++)
            if (to->shape[d] != 1) return 0;
        plan->folded[plan->n_folded++] = p;
        long at = base;
        for (int i = 0; i < op->n_inputs; i++) {
            int u = op->inputs[i];
            if (u < 0 || m->tensors[u].data || !plan_dense(m, g, u, at, 0, grid, plan)) return 0;
            at += (long)vki_tensor_elements(&m->tensors[u]);
        }
        return 1;
    }
    return 0;
}

/* Whether a discrete GPU should keep output t's conversion: where a producer of the plan
 * has more than 4 channels and at least VKI_DENSE_BUS_MIN elements, its epilogue's stores
 * into the dense host staging are C floats apart from thread to thread, each a separate
 * write across the bus; from_phwc4.comp writes whole rows. Measured on an H200 (run
 * --profile): pose_landmark_full's 64x64x39 heatmap took 200 us from its 1x1 conv's
 * epilogue against 9 us for the conv and 14 us for the conversion;
 * face_detection_full_range's 48x48x16 regressors 31 us against 4 + 4. Smaller outputs
 * stay folded: face_detection_short_range's heads (16x16x32 and 8x8x96, 3 us more than an
 * unstrided head each) cost 8 dispatches more unfolded (their RESHAPEs and CONCATENATIONs
 * run), 0.190 -> 0.217 ms on an H100. */
#define VKI_DENSE_BUS_MIN 16384L
static int strided_on_bus(const vki_model *m, const vki_wg_device *dev, const dense_plan *plan) {
    if (!dev || !dev->is_discrete) return 0;
    for (int k = 0; k < plan->n; k++) {
        const vki_tensor *t = vki_op_out(m, &m->ops[plan->producers[k]], 0);
        if (vki_tensor_shape4(t).c > 4 && (long)vki_tensor_elements(t) >= VKI_DENSE_BUS_MIN)
            return 1;
    }
    return 0;
}

static int fuse_output_layouts(vki_model *m, unsigned char *skip, const vki_wg_device *dev) {
    vki_op_index g;
    if (!vki_op_index_build(m, m->ops, skip, &g)) return 0;
    int fused = 0;
    for (int io = 0; io < m->n_outputs; io++) {
        int t = m->outputs[io];
        int twice = 0;
        for (int j = 0; j < m->n_outputs; j++) twice += m->outputs[j] == t;
        /* The graph output's own readers still need its PHWC4 tensor. */
        if (twice != 1 || g.readers[t] || vki_model_is_input(m, t)) continue;
        dense_plan plan = {.n = 0};
        if (!plan_dense(m, &g, t, 0, 1, NULL, &plan) || strided_on_bus(m, dev, &plan)) continue;
        for (int k = 0; k < plan.n; k++) {
            vki_op *op = &m->ops[plan.producers[k]];
            op->fused.dense_out = true;
            op->fused.dense_output = io;
            op->fused.dense_base = plan.bases[k];
            op->fused.dense_scale = plan.scales[k];
        }
        for (int k = 0; k < plan.n_folded; k++) skip[plan.folded[k]] = 1;
        fused += plan.n_folded + 1;   /* and the output's conversion */
    }
    vki_op_index_free(&g);
    return fused;
}

int vki_output_is_dense(const vki_model *view, const unsigned char *skip, int io) {
    for (int o = 0; o < view->n_ops; o++) {
        if (skip[o]) continue;
        /* A depthwise op that runs its 1x1 conv writes what that conv would have. */
        const vki_op *op = view->ops[o].fused.pointwise ? &view->ops[view->ops[o].fused.pointwise - 1]
                                                        : &view->ops[o];
        if (op->fused.dense_out && op->fused.dense_output == io) return 1;
    }
    return 0;
}

/* ---- all of them ------------------------------------------------------------------------ */

int vki_passes_run(vki_model *view, unsigned char *skip, const vki_wg_device *dev,
                   unsigned passes, const char *const *env, unsigned *fired) {
    int folded = 0, n;
    *fired = 0;
#define RUN_(bit, call) \
    if ((passes & (bit)) && (n = (call)) > 0) folded += n, *fired |= (bit);
    RUN_(VKI_PASS_ACTIVATION, vki_fuse_activations(view, view->ops, skip))
    RUN_(VKI_PASS_SPATIAL_PAD, fuse_spatial_pads(view, skip))
    RUN_(VKI_PASS_RESIDUAL, fuse_residuals(view, skip))
    /* Integer convolutions that took an ADD may take the table op after it too. */
    RUN_(VKI_PASS_ACTIVATION, fuse_int8_tables(view, skip))
    RUN_(VKI_PASS_CHANNEL_PAD, fuse_channel_pads(view, skip))
    RUN_(VKI_PASS_OUTPUT_LAYOUT, fuse_output_layouts(view, skip, dev))
    RUN_(VKI_PASS_GATE, fuse_gates(view, skip))
    RUN_(VKI_PASS_POOL_RESIDUAL, fuse_pooled_residuals(view, skip))
    RUN_(VKI_PASS_SQUEEZE, fuse_squeezes(view, skip, dev))
    RUN_(VKI_PASS_DW_PW, vki_fuse_dw_pw(view, view->ops, skip, dev, env[VKI_ENV_DWPW]))
    RUN_(VKI_PASS_BLOCK, vki_fuse_blocks(view, view->ops, skip, dev, env[VKI_ENV_BLOCK]))
#undef RUN_
    return folded;
}
