/* transpose_conv.c: TRANSPOSE_CONV (TFLite builtin) and MediaPipe's
 * Convolution2DTransposeBias custom op: validation, padding rules, weight packing for
 * glsl/transpose_conv.comp, and the C references.
 *
 * Both compute out[y][x][o] = act(bias[o] + sum of in[iy][ix][i] * w[o][ky][kx][i] over
 * y = iy*stride_h + ky - pad_top, x = ix*stride_w + kx - pad_left). They differ in operand
 * order and in where the output size and padding come from:
 *   - TRANSPOSE_CONV: inputs [output_shape, weights, input, bias?]; the output size is
 *     the output_shape constant, and the padding is TFLite's ComputePaddingHeightWidth
 *     applied to the *output* size (transpose_conv.cc does this), so a file whose
 *     output_shape disagrees with its input size still gets TFLite's numbers;
 *   - Convolution2DTransposeBias: inputs [input, weights, bias]; MediaPipe's Prepare
 *     derives the output size from the input (transpose_conv_bias.cc), so the output
 *     tensor must have exactly that size, and the padding is that computation's.
 */
#include "conv_common.h"
#include "ops.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

/* Keeps every size the shader and the helpers below compute in int far from overflow. */
#define VKI_TCONV_MAX_EXTENT (1 << 24)

typedef struct tconv_geometry {
    vki_shape4 in, out;
    int kh, kw, stride_h, stride_w, pad_h, pad_w;
    int input, weights, bias;   /* op input slots; bias -1 when absent */
    vki_activation act;
} tconv_geometry;

static bool is_builtin(const vki_op *op) { return op->code == VKI_OP_TRANSPOSE_CONV; }

/* TFLite: ComputePaddingHeightWidth(stride, 1, out, K, padding) -> the size a forward
 * conv over the output would give, then ComputePaddingWithOffset's leading half. The
 * divisions truncate like TFLite's int arithmetic (VALID can go negative when the
 * output is smaller than the window). */
static int tflite_pad(vki_padding padding, int out, int k, int stride) {
    long long fwd = padding == VKI_PAD_SAME ? ((long long)out + stride - 1) / stride
                                            : ((long long)out + stride - k) / stride;
    long long total = (fwd - 1) * stride + k - out;
    return total > 0 ? (int)(total / 2) : 0;
}

/* MediaPipe: total padding max(0, K - (in-1) % stride - 1) for SAME, 0 for VALID. */
static int mediapipe_total_pad(vki_padding padding, int in, int k, int stride) {
    if (padding != VKI_PAD_SAME) return 0;
    int total = k - (in - 1) % stride - 1;
    return total > 0 ? total : 0;
}

/* Output size MediaPipe's Prepare resizes the output to, in 64 bits (file values). */
static long long mediapipe_out_size(vki_padding padding, int in, int k, int stride) {
    return (long long)stride * (in - 1) + k - mediapipe_total_pad(padding, in, k, stride);
}

static tconv_geometry geometry(const vki_model *m, const vki_op *op) {
    tconv_geometry g;
    if (is_builtin(op)) {
        g.weights = 1;
        g.input = 2;
        g.bias = op->n_inputs > 3 && op->inputs[3] >= 0 ? 3 : -1;
    } else {
        g.input = 0;
        g.weights = 1;
        g.bias = 2;
    }
    const vki_tensor *f = vki_op_in(m, op, g.weights);
    const vki_padding padding = op->opt.transpose_conv.padding;
    g.in = vki_tensor_shape4(vki_op_in(m, op, g.input));
    g.out = vki_tensor_shape4(vki_op_out(m, op, 0));
    g.kh = f->shape[1];
    g.kw = f->shape[2];
    g.stride_h = op->opt.transpose_conv.stride_h;
    g.stride_w = op->opt.transpose_conv.stride_w;
    g.act = op->opt.transpose_conv.activation;
    if (is_builtin(op)) {
        g.pad_h = tflite_pad(padding, g.out.h, g.kh, g.stride_h);
        g.pad_w = tflite_pad(padding, g.out.w, g.kw, g.stride_w);
    } else {
        g.pad_h = mediapipe_total_pad(padding, g.in.h, g.kh, g.stride_h) / 2;
        g.pad_w = mediapipe_total_pad(padding, g.in.w, g.kw, g.stride_w) / 2;
    }
    return g;
}

/* TRANSPOSE_CONV's output_shape: a constant int32 [4] equal to the output tensor's shape
 * (the engine has static shapes, so it cannot resize the output the way TFLite does). */
static vki_status check_output_shape(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    int t = op->inputs[0];
    const vki_tensor *s;
    vki_status st = vki_op_int_const(m, o, 0, "output_shape", &s);
    if (st) return st;
    if (s->rank != 1 || s->shape[0] != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "output_shape tensor %d '%s' must have shape [4]", t, s->name);
    if (s->data_bytes < 4 * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "output_shape tensor %d '%s' holds %zu bytes, need 16", t, s->name,
                           s->data_bytes);
    const int32_t *v = (const int32_t *)s->data;
    const vki_tensor *out = vki_op_out(m, op, 0);
    for (int i = 0; i < 4; i++)
        if (v[i] != out->shape[i])
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "output_shape tensor %d is [%d,%d,%d,%d] but output tensor %d '%s' "
                               "is [%d,%d,%d,%d]", t, (int)v[0], (int)v[1], (int)v[2], (int)v[3],
                               op->outputs[0], out->name, out->shape[0], out->shape[1],
                               out->shape[2], out->shape[3]);
    return VKI_OK;
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const bool builtin = is_builtin(op);
    /* MediaPipe's Prepare requires all three inputs, the bias included. */
    if (builtin ? op->n_inputs < 3 || op->n_inputs > 4 : op->n_inputs != 3)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %s", op->n_inputs,
                           builtin ? "3 or 4" : "3");
    if (op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need 1", op->n_outputs);
    /* Weights first: activation weights would otherwise fail the batch-1 check below with
     * a message that hides the real limitation. */
    int wt = op->inputs[1];
    if (wt >= 0 && wt < m->n_tensors && !m->tensors[wt].data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "weights tensor %d '%s' (input 1) must be a constant", wt,
                           m->tensors[wt].name);
    /* TRANSPOSE_CONV's input 0 is the int32 output_shape, checked further down. */
    for (int i = builtin ? 1 : 0; i < op->n_inputs; i++) {
        if (builtin && i == 3 && op->inputs[i] < 0) continue;   /* omitted bias */
        vki_status s = vki_op_check_float_tensor(m, o, op->inputs[i], "input", i);
        if (s) return s;
    }
    vki_status s = vki_op_check_float_tensor(m, o, op->outputs[0], "output", 0);
    if (s) return s;
    if (vki_op_out(m, op, 0)->data)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output 0 (tensor %d) is a constant",
                           op->outputs[0]);
    const int in_slot = builtin ? 2 : 0;
    const int bias_slot = builtin ? (op->n_inputs > 3 && op->inputs[3] >= 0 ? 3 : -1) : 2;
    const vki_tensor *in = vki_op_in(m, op, in_slot);
    const vki_tensor *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input %d (tensor %d '%s') is a constant",
                           in_slot, op->inputs[in_slot], in->name);
    if (in->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input %d (tensor %d '%s') has %d dims, need 4",
                           in_slot, op->inputs[in_slot], in->name, in->rank);
    if (out->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output 0 (tensor %d '%s') has %d dims, need 4",
                           op->outputs[0], out->name, out->rank);
    s = vki_op_check_const(m, o, 1, "weights", 4);
    if (s) return s;
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_shape4 is = vki_tensor_shape4(in), os = vki_tensor_shape4(out);
    const int oc = f->shape[0], kh = f->shape[1], kw = f->shape[2];
    if (f->shape[3] != is.c)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' has %d input channels, input tensor %d has %d",
                           op->inputs[1], f->name, f->shape[3], op->inputs[in_slot], is.c);
    if (bias_slot >= 0) {
        const vki_tensor *bias = vki_op_in(m, op, bias_slot);
        s = vki_op_check_const(m, o, bias_slot, "bias", 1);
        if (s) return s;
        if (bias->shape[0] != oc)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "bias tensor %d '%s' has %d elements, need %d (weights tensor %d)",
                               op->inputs[bias_slot], bias->name, bias->shape[0], oc,
                               op->inputs[1]);
    }
    const vki_padding padding = op->opt.transpose_conv.padding;
    const int sh = op->opt.transpose_conv.stride_h, sw = op->opt.transpose_conv.stride_w;
    if (padding != VKI_PAD_SAME && padding != VKI_PAD_VALID)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "unknown padding %d", (int)padding);
    if (sh < 1 || sw < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "stride %dx%d (h x w), need >= 1", sh, sw);
    if ((unsigned)op->opt.transpose_conv.activation > VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation %d is not supported",
                           (int)op->opt.transpose_conv.activation);
    if (kh > VKI_TCONV_MAX_EXTENT || kw > VKI_TCONV_MAX_EXTENT || sh > VKI_TCONV_MAX_EXTENT ||
        sw > VKI_TCONV_MAX_EXTENT)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "window %dx%d or stride %dx%d (h x w) exceeds %d", kh, kw, sh, sw,
                           VKI_TCONV_MAX_EXTENT);

    if (builtin) {
        s = check_output_shape(m, o);
        if (s) return s;
        /* Only the channel count ties the output to the weights; TFLite accepts any size. */
        if (os.c != oc)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                               "output tensor %d '%s' has %d channels, weights tensor %d has %d "
                               "output channels", op->outputs[0], out->name, os.c, op->inputs[1],
                               oc);
        return VKI_OK;
    }
    long long oh = mediapipe_out_size(padding, is.h, kh, sh);
    long long ow = mediapipe_out_size(padding, is.w, kw, sw);
    if (oh > INT_MAX || ow > INT_MAX)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "output size %lldx%lld (h x w) is too large", oh, ow);
    return vki_op_check_shape(m, o, op->outputs[0], (vki_shape4){1, (int)oh, (int)ow, oc});
}

/* For output slice os, tap (ky,kx) and input slice is: 4 consecutive vec4, vec4 i holding
 * the 4 output channels' weights for input channel is*4+i (conv2d's layout with one slice
 * per group). Padded output channels and input lanes are zero, so padded output lanes
 * come out as act(0) = 0. */
static float *pack_weights(const float *f, const tconv_geometry *g, size_t *count) {
    const int in_s = (g->in.c + 3) / 4, out_s = (g->out.c + 3) / 4;
    const int ic = g->in.c, oc = g->out.c;
    *count = (size_t)out_s * g->kh * g->kw * in_s * 16;
    float *w = vki_calloc(*count, sizeof(float));
    if (!w) return NULL;
    size_t at = 0;
    for (int os = 0; os < out_s; os++)
        for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++)
                for (int is = 0; is < in_s; is++)
                    for (int i = 0; i < 4; i++)
                        for (int lane = 0; lane < 4; lane++, at++) {
                            int co = os * 4 + lane, ci = is * 4 + i;
                            if (co < oc && ci < ic)
                                w[at] = f[(((size_t)co * g->kh + ky) * g->kw + kx) * ic + ci];
                        }
    return w;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    tconv_geometry g = geometry(m, op);
    const int out_s = (g.out.c + 3) / 4;

    size_t count;
    float *w = pack_weights(vki_op_in(m, op, g.weights)->data, &g, &count);
    if (!w) return vki_fail_oom("graph build");
    int wblob = vki_build_weights(b, w, count);
    free(w);
    /* Bias padded to whole slices (zero when absent) so the kernel always adds one. */
    const vki_tensor *bt = g.bias >= 0 ? vki_op_in(m, op, g.bias) : NULL;
    int bblob = vki_build_bias(b, bt, g.out.c, (size_t)out_s * 4);
    if (wblob < 0 || bblob < 0) return vki_fail_oom("graph build");

    /* Dilation is 1: TFLite's transposed convolutions have none. */
    vki_conv_window win = {g.in, g.out, g.kh, g.kw, g.stride_h, g.stride_w, 1, 1, g.pad_h, g.pad_w};
    vki_dispatch d;
    vki_conv_dispatch(&d, VKI_KERNEL_transpose_conv, VKI_WG_CONV, &win, g.act, op->inputs[g.input],
                      wblob, bblob, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, g.out);
    return vki_build_dispatch(b, &d);
}

/* The definition taken literally: every output element sums the (input pixel, tap)
 * pairs that land on it, found by trying them all rather than by inverting the index
 * map as the kernel does. Accumulates in double. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const tconv_geometry g = geometry(m, op);
    const float *src = in[g.input], *f = in[g.weights];
    const float *bias = g.bias >= 0 ? in[g.bias] : NULL;
    const int ic = g.in.c;
    for (int y = 0; y < g.out.h; y++)
        for (int x = 0; x < g.out.w; x++)
            for (int co = 0; co < g.out.c; co++) {
                double sum = 0.0;
                for (int iy = 0; iy < g.in.h; iy++)
                    for (int ky = 0; ky < g.kh; ky++) {
                        if ((long long)iy * g.stride_h + ky - g.pad_h != y) continue;
                        for (int ix = 0; ix < g.in.w; ix++)
                            for (int kx = 0; kx < g.kw; kx++) {
                                if ((long long)ix * g.stride_w + kx - g.pad_w != x) continue;
                                const float *p = src + ((size_t)iy * g.in.w + ix) * ic;
                                const float *q = f + (((size_t)co * g.kh + ky) * g.kw + kx) * ic;
                                for (int ci = 0; ci < ic; ci++) sum += (double)p[ci] * q[ci];
                            }
                    }
                if (bias) sum += bias[co];
                out[0][((size_t)y * g.out.w + x) * g.out.c + co] =
                    vki_apply_activation(g.act, (float)sum);
            }
}

/* ---- options ------------------------------------------------------------------------- */

/* TransposeConvOptions: padding, strides, fused activation. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t pad, act;
    int32_t sw, sh;
    if (!vki_opt_i8(r, 0, 0, &pad) || !vki_opt_i32(r, 1, 0, &sw) || !vki_opt_i32(r, 2, 0, &sh) ||
        !vki_opt_i8(r, 3, 0, &act))
        return vki_opt_malformed(r);
    op->opt.transpose_conv.stride_w = sw;
    op->opt.transpose_conv.stride_h = sh;
    vki_status st = vki_opt_padding(r, pad, &op->opt.transpose_conv.padding);
    return st != VKI_OK ? st : vki_opt_activation(r, act, &op->opt.transpose_conv.activation);
}

/* TfLitePadding, as MediaPipe's Convolution2DTransposeBias stores it in custom_options. */
enum { TFL_PADDING_UNKNOWN = 0, TFL_PADDING_SAME = 1, TFL_PADDING_VALID = 2 };

static int32_t read_le32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* Convolution2DTransposeBias keeps its parameters as a raw TfLiteTransposeConvParams, not
 * FlexBuffers: three little-endian int32 {padding (TfLitePadding: 1 SAME, 2 VALID),
 * stride_width, stride_height}. It has no fused activation. */
static vki_status read_bias_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    const uint8_t *p;
    size_t size;
    vki_status st = vki_opt_custom(r, &p, &size);
    if (st != VKI_OK) return st;
    if (size != 12)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options hold %zu bytes, expected 12 "
                            "(int32 padding, stride_width, stride_height)", size);
    int32_t pad = read_le32(p);
    if (pad == TFL_PADDING_SAME) op->opt.transpose_conv.padding = VKI_PAD_SAME;
    else if (pad == TFL_PADDING_VALID) op->opt.transpose_conv.padding = VKI_PAD_VALID;
    else
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "unknown padding %d in custom_options "
                            "(1 SAME, 2 VALID)", pad);
    op->opt.transpose_conv.stride_w = read_le32(p + 4);
    op->opt.transpose_conv.stride_h = read_le32(p + 8);
    op->opt.transpose_conv.activation = VKI_ACT_NONE;
    return VKI_OK;
}

const vki_op_def vki_op_transpose_conv = {
    .validate = validate, .build = build, .reference = reference, .options = read_options};
const vki_op_def vki_op_conv2d_transpose_bias = {
    .validate = validate, .build = build, .reference = reference, .options = read_bias_options};
