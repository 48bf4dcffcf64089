/* cpu_mediapipe.c: MediaPipe's own custom ops on the CPU, as its TFLite kernels compute them
 * (mediapipe/util/tflite/operations/<op>.cc, the versions mediapipe/util/tflite/
 * cpu_op_resolver.cc registers: MaxPoolingWithArgmax2D and MaxUnpooling2D of the hair
 * segmentation model; TransformTensorBilinear, Landmarks2TransformMatrix and
 * TransformLandmarks, all version 2, of face_landmark_with_attention). LiteRT has none of
 * them, so their semantics are MediaPipe's sources, followed step by step, float and double
 * where those compute in float and double. All tensors are float32.
 *
 * MaxPoolingWithArgmax2D (max_pool_argmax.cc): input [B,H,W,C] -> values and indices, both
 * [B,OH,OW,C]. custom_options: a raw TfLitePoolParams, little-endian int32 {padding
 * (TfLitePadding: 1 SAME, 2 VALID), stride_width, stride_height, filter_width,
 * filter_height, activation (TfLiteFusedActivation)}, then its 16-byte `computed` padding,
 * which MediaPipe ignores (at least the first 24 bytes are needed). OH = SAME ? ceil(H /
 * stride) : (H - filter + stride) / stride, leading padding max(0, ((OH - 1) * stride +
 * filter - H) / 2), likewise W. Each window, clamped to the input, is scanned row by row
 * from a maximum of -FLT_MAX; a value strictly greater takes over (the first of equal
 * maxima wins, NaN never does, an all -inf or NaN window gives -FLT_MAX at window offset
 * 0). values = the maximum clamped to the activation's range (RELU, RELU_N1_TO_1, RELU6;
 * TFLite's CalculateActivationRange leaves TANH, SIGN_BIT and SIGMOID unclamped, so they
 * read as NONE); indices = (float)(y * filter_width + x) + 0.1f, the offset (x, y) of the
 * maximum in the unclamped window: the 0.1 keeps a later float-to-int truncation exact.
 * opt.pool holds the options.
 *
 * MaxUnpooling2D (max_unpooling.cc): values and indices [B,H,W,C] -> [B, H * filter_height,
 * W * filter_width, C] (the filter, not the stride, sets the size). Same custom_options
 * (padding and activation are read but unused, as MediaPipe). Leading padding
 * max(0, ((H - 1) * stride + filter - OH) / 2). The output is zeroed, then each input
 * element, in order (b, y, x, c), goes to (y * stride_h - pad_h + idx / filter_width,
 * x * stride_w - pad_w + idx % filter_width), idx = (int)index truncated toward zero (C's /
 * and %, so a negative idx lands left of or above the window); a destination outside the
 * output is skipped (MediaPipe's bounds check), so is a non-finite index or one beyond
 * int's range (undefined in MediaPipe); later writes to one place win. opt.pool.
 *
 * TransformTensorBilinear v2 (transform_tensor_bilinear.cc; the options are read by
 * tflite/delegates/gpu/common/mediapipe: ParseTransformTensorBilinearV2Attributes): data
 * [1,H,W,C] and a 4x4 matrix (16 floats, any shape: [4,4], [1,4,4], [1,1,4,4]; rows 0 and 1
 * are read) -> [1,OH,OW,C]. custom_options: a FlexBuffer map with output_height and
 * output_width (both needed, positive). The matrix is corrected for align corners: row r's
 * m[r][3] += m[r][0] * 0.5 + m[r][1] * 0.5 - 0.5 (in double, stored as float); output pixel
 * (x, y) samples at tx = m00 x + m01 y + m02 * 0 + m03, ty likewise with row 1 (float);
 * outside [0, W-1] x [0, H-1] gives 0, else bilinear from the four neighbours of
 * (floor(tx), floor(ty)), a neighbour outside the input reading 0 (with weight 0), mixed
 * as MediaPipe mixes them (the weights 1 - f in double). A NaN coordinate gives NaN
 * (undefined in MediaPipe). opt.mp.i[0] = output_height, i[1] = output_width.
 *
 * Landmarks2TransformMatrix v2 (landmarks_to_transform_matrix.cc; options as
 * ParseLandmarksToTransformMatrixV2Attributes): landmarks (rank 3, float32; landmark k is
 * the flat elements 3k, 3k+1, 3k+2, as MediaPipe reads them whatever the last axis) ->
 * [1,4,4]. custom_options: a FlexBuffer map: subset_idxs (a typed vector of ints),
 * left_rotation_idx, right_rotation_idx, target_rotation_radians, output_height,
 * output_width, scale_x, scale_y; an absent key reads as 0 (flexbuffers' null), as
 * MediaPipe. Checked as MediaPipe checks them (indices >= 0, output sizes > 0, scales > 0),
 * and further: every index names a landmark of the input, the subset is not empty (it reads
 * landmark 0 of an empty list). rotation = target - atan2(ry - ly, rx - lx) from the two
 * rotation landmarks' x, y; the subset's landmarks (in pairs; an odd last one twice),
 * as (x, y, 1), are rotated by R(rotation) and their x, y box taken (maxima and minima by
 * strict comparison from the first); its centre rotated back by R(-rotation) is (cx, cy);
 * the result, a row-major 4x4, is T(cx, cy) * R(-rotation) * S(scale_x * box_w / OW,
 * scale_y * box_h / OH) * T(-OW / 2, -OH / 2), each product in float from 0 as MediaPipe's
 * Mat3 and Mat4 (R(r) = [cos r, -sin r; sin r, cos r]). opt.mp, 16-bit fields (a wider
 * value is refused at load): i[0] = left_rotation_idx | right_rotation_idx << 16, i[1] =
 * output_height | output_width << 16, i[2..7] = up to 12 subset indices, two to an int
 * (index 2j in the low half), 0xFFFF ending a shorter list; f[0] = target_rotation_radians,
 * f[1] = scale_x, f[2] = scale_y. The subset's pairing changes nothing (a landmark seen
 * twice changes no box), so the indices are kept as listed.
 *
 * TransformLandmarks v2 (transform_landmarks.cc): landmarks [1,N,D], D 2 or 3 (rank 3, as
 * version 2 takes them), and a 4x4 matrix (16 floats) -> [1,N,D]: x' = m00 x + m01 y +
 * m02 * 0 + m03, y' likewise with row 1 (float, in that order), z copied. It has no options
 * (version 2 ignores custom_options).
 *
 * Each op's reference is the whole computation, as fast as the op allows, and none can fail
 * once validated, so none has a run of its own (the graph runs the reference). */
#include "flexbuffer.h"
#include "ops.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- shared --------------------------------------------------------------------------- */

/* TfLitePadding and TfLiteFusedActivation, as the raw TfLitePoolParams holds them. */
enum { TFL_PADDING_SAME = 1, TFL_PADDING_VALID = 2 };
enum { TFL_ACT_NONE, TFL_ACT_RELU, TFL_ACT_RELU_N1_TO_1, TFL_ACT_RELU6, TFL_ACT_TANH,
       TFL_ACT_SIGN_BIT, TFL_ACT_SIGMOID };

static int32_t read_le32(const uint8_t *p) {
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* Checks tensor t is float32 (the op is `general`, which would let index tensors by). */
static vki_status expect_float(const vki_model *m, int o, int t, const char *role) {
    const vki_tensor *x = &m->tensors[t];
    if (x->dtype == VKI_DTYPE_FLOAT32) return VKI_OK;
    return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (tensor %d '%s') is %s, MediaPipe's "
                       "kernel takes float32", role, t, x->name, vki_dtype_name(x->dtype));
}

/* Checks the op's inputs and outputs (counts, float32) with roles for the messages. */
static vki_status check_io(const vki_model *m, int o, int n_in, const char *const *in_roles,
                           int n_out, const char *const *out_roles) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, n_in, n_in, n_out);
    for (int i = 0; i < n_in && !s; i++) s = expect_float(m, o, op->inputs[i], in_roles[i]);
    for (int i = 0; i < n_out && !s; i++) s = expect_float(m, o, op->outputs[i], out_roles[i]);
    return s;
}

/* Checks tensor t has rank `rank`. */
static vki_status expect_rank(const vki_model *m, int o, int t, const char *role, int rank,
                              const char *form) {
    const vki_tensor *x = &m->tensors[t];
    if (x->rank == rank) return VKI_OK;
    char dims[96];
    vki_format_dims(dims, sizeof dims, x->rank, x->shape);
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d '%s') is %s, need %s", role,
                       t, x->name, dims, form);
}

/* Checks the transformation matrix (input `slot`) holds a 4x4 matrix. */
static vki_status expect_matrix(const vki_model *m, int o, int slot) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *x = vki_op_in(m, op, slot);
    if (vki_tensor_elements(x) == 16 && (!x->data || x->data_bytes >= 16 * sizeof(float)))
        return VKI_OK;
    char dims[96];
    vki_format_dims(dims, sizeof dims, x->rank, x->shape);
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "matrix (input %d, tensor %d '%s') is %s, "
                       "need the 16 values of a 4x4 matrix ([4,4], [1,4,4] or [1,1,4,4])", slot,
                       op->inputs[slot], x->name, dims);
}

/* ---- FlexBuffer options --------------------------------------------------------------- */

/* FlexBuffers' typed vectors of numbers (VECTOR_INT, _UINT, _FLOAT, _BOOL) and their
 * elements' type. */
static int typed_vector_element(int type) {
    switch (type) {
    case 11: return VKI_FLEX_INT;
    case 12: return VKI_FLEX_UINT;
    case 13: return VKI_FLEX_FLOAT;
    case 36: return VKI_FLEX_BOOL;
    default: return -1;
    }
}

/* Value v as flexbuffers' AsTypedVector of numbers read with AsInt32: *count of them into
 * out (room for max; more fail with *count set to the vector's length). A null value (an
 * absent key) is the empty vector. */
static const char *flex_int_vector(const vki_flex *v, int64_t *out, int max, int *count) {
    *count = 0;
    if (v->type == VKI_FLEX_NULL) return NULL;
    const int elem = typed_vector_element(v->type);
    if (elem < 0) return "not a typed vector of numbers";
    /* The slot holds an unsigned offset back to the elements; the count sits one element
     * width before them. */
    uint64_t off = 0, n = 0;
    const unsigned sw = v->slot_width, w = v->width;
    if (v->at > v->size || v->size - v->at < sw) return "a value's slot lies outside the buffer";
    for (unsigned i = 0; i < sw; i++) off |= (uint64_t)v->buf[v->at + i] << (8 * i);
    if (off > v->at) return "an offset points before the start of the buffer";
    const size_t data = v->at - (size_t)off;
    if (data < w) return "a vector's size lies outside the buffer";
    for (unsigned i = 0; i < w; i++) n |= (uint64_t)v->buf[data - w + i] << (8 * i);
    if (n > (v->size - data) / w) return "a vector's size runs past the end of the buffer";
    if (n > (uint64_t)max) {
        *count = n > INT32_MAX ? INT32_MAX : (int)n;
        return "too long";
    }
    for (uint64_t i = 0; i < n; i++) {
        vki_flex e = {.buf = v->buf, .size = v->size, .at = data + (size_t)i * w,
                      .slot_width = (uint8_t)w, .width = (uint8_t)w, .type = (uint8_t)elem};
        const char *err = vki_flex_int(&e, &out[i]);
        if (err) return err;
    }
    *count = (int)n;
    return NULL;
}

/* ---- MaxPoolingWithArgmax2D, MaxUnpooling2D: options ----------------------------------- */

/* The raw TfLitePoolParams into opt.pool. `pooling`: MaxPoolingWithArgmax2D, which uses the
 * padding and the activation (MaxUnpooling2D reads neither). */
static vki_status read_pool_params(vki_options_reader *r, vki_op *op, bool pooling) {
    const uint8_t *p;
    size_t size;
    vki_status s = vki_opt_custom(r, &p, &size);
    if (s) return s;
    if (size < 24)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options hold %zu bytes, need 24 "
                            "or more (TfLitePoolParams: int32 padding, stride_width, "
                            "stride_height, filter_width, filter_height, activation)", size);
    const int32_t pad = read_le32(p), act = read_le32(p + 20);
    vki_pool_options *po = &op->opt.pool;
    po->padding = pad == TFL_PADDING_VALID ? VKI_PAD_VALID : VKI_PAD_SAME;
    po->stride_w = read_le32(p + 4);
    po->stride_h = read_le32(p + 8);
    po->filter_w = read_le32(p + 12);
    po->filter_h = read_le32(p + 16);
    po->activation = VKI_ACT_NONE;
    if (!pooling) return VKI_OK;
    if (pad != TFL_PADDING_SAME && pad != TFL_PADDING_VALID)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "unknown padding %d in custom_options "
                            "(TfLitePadding: 1 SAME, 2 VALID)", pad);
    switch (act) {
    case TFL_ACT_RELU: po->activation = VKI_ACT_RELU; break;
    case TFL_ACT_RELU_N1_TO_1: po->activation = VKI_ACT_RELU_N1_TO_1; break;
    case TFL_ACT_RELU6: po->activation = VKI_ACT_RELU6; break;
    case TFL_ACT_NONE: case TFL_ACT_TANH: case TFL_ACT_SIGN_BIT: case TFL_ACT_SIGMOID:
        break;   /* CalculateActivationRange clamps none of these */
    default:
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "unknown activation %d in custom_options "
                            "(TfLiteFusedActivation: 0 to 6)", act);
    }
    return VKI_OK;
}

static vki_status read_max_pool_argmax(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    return read_pool_params(r, op, true);
}

static vki_status read_max_unpooling(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    return read_pool_params(r, op, false);
}

/* Checks the strides and filter sizes, which MediaPipe divides by. */
static vki_status check_window(const vki_model *m, int o) {
    const vki_pool_options *po = &m->ops[o].opt.pool;
    if (po->stride_w < 1 || po->stride_h < 1 || po->filter_w < 1 || po->filter_h < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "stride %dx%d, filter %dx%d (w x h): all "
                           "must be positive", po->stride_w, po->stride_h, po->filter_w,
                           po->filter_h);
    return VKI_OK;
}

/* TFLite's ComputePadding (dilation 1): max(0, ((out - 1) * stride + filter - in) / 2). */
static long long pad_before(long long in, int filter, int stride, long long out) {
    const long long total = (out - 1) * stride + filter - in;
    return total / 2 > 0 ? total / 2 : 0;
}

/* ---- MaxPoolingWithArgmax2D ----------------------------------------------------------- */

/* MediaPipe's output size along one axis (TensorFlow's GetWindowedOutputSize). */
static long long pooled_size(vki_padding pad, int in, int filter, int stride) {
    return pad == VKI_PAD_SAME ? ((long long)in + stride - 1) / stride
                               : ((long long)in - filter + stride) / stride;
}

static vki_status validate_max_pool_argmax(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    static const char *const in_roles[] = {"input"}, *const out_roles[] = {"values", "indices"};
    vki_status s = check_io(m, o, 1, in_roles, 2, out_roles);
    if (!s) s = expect_rank(m, o, op->inputs[0], "input", 4, "[B,H,W,C]");
    if (!s) s = check_window(m, o);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_pool_options *po = &op->opt.pool;
    const long long oh = pooled_size(po->padding, in->shape[1], po->filter_h, po->stride_h);
    const long long ow = pooled_size(po->padding, in->shape[2], po->filter_w, po->stride_w);
    if (oh < 1 || ow < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "a %dx%d filter (w x h) with VALID "
                           "padding does not fit input %dx%d (tensor %d '%s')", po->filter_w,
                           po->filter_h, in->shape[2], in->shape[1], op->inputs[0], in->name);
    const int dims[4] = {in->shape[0], (int)oh, (int)ow, in->shape[3]};
    s = vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[1], 4, dims);
    return s;
}

/* min(max(x, lo), hi) as TFLite's ActivationFunctionWithMinMax, with the activation's range
 * as CalculateActivationRange gives it. */
static float pool_activation(vki_activation act, float x) {
    float lo = -FLT_MAX, hi = FLT_MAX;
    if (act == VKI_ACT_RELU) lo = 0.0f;
    else if (act == VKI_ACT_RELU6) lo = 0.0f, hi = 6.0f;
    else if (act == VKI_ACT_RELU_N1_TO_1) lo = -1.0f, hi = 1.0f;
    const float y = x < lo ? lo : x;   /* std::max(x, lo): x unless x < lo */
    return hi < y ? hi : y;            /* std::min(y, hi): y unless hi < y */
}

static void reference_max_pool_argmax(const vki_model *m, const vki_op *op,
                                      const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const vki_pool_options *po = &op->opt.pool;
    const int B = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
    const int OH = out->shape[1], OW = out->shape[2];
    const long long ph = pad_before(H, po->filter_h, po->stride_h, OH);
    const long long pw = pad_before(W, po->filter_w, po->stride_w, OW);
    const float *x = inputs[0];
    float *values = outputs[0], *indices = outputs[1];
    size_t at = 0;
    for (int b = 0; b < B; b++)
        for (int oy = 0; oy < OH; oy++) {
            const long long y0 = (long long)oy * po->stride_h - ph;
            const long long fy0 = y0 < 0 ? -y0 : 0;
            const long long fy1 = po->filter_h < H - y0 ? po->filter_h : H - y0;
            for (int ox = 0; ox < OW; ox++) {
                const long long x0 = (long long)ox * po->stride_w - pw;
                const long long fx0 = x0 < 0 ? -x0 : 0;
                const long long fx1 = po->filter_w < W - x0 ? po->filter_w : W - x0;
                for (int c = 0; c < C; c++, at++) {
                    float best = -FLT_MAX;
                    long long by = 0, bx = 0;
                    for (long long fy = fy0; fy < fy1; fy++)
                        for (long long fx = fx0; fx < fx1; fx++) {
                            const float v = x[(((size_t)b * H + (size_t)(y0 + fy)) * W +
                                               (size_t)(x0 + fx)) * C + (size_t)c];
                            if (v > best) {
                                best = v;
                                by = fy;
                                bx = fx;
                            }
                        }
                    values[at] = pool_activation(po->activation, best);
                    indices[at] = (float)(by * po->filter_w + bx) + 0.1f;
                }
            }
        }
}

/* ---- MaxUnpooling2D ------------------------------------------------------------------- */

static vki_status validate_max_unpooling(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    static const char *const in_roles[] = {"values", "indices"}, *const out_roles[] = {"output"};
    vki_status s = check_io(m, o, 2, in_roles, 1, out_roles);
    if (!s) s = expect_rank(m, o, op->inputs[0], "values", 4, "[B,H,W,C]");
    if (!s) s = check_window(m, o);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *idx = vki_op_in(m, op, 1);
    bool same = idx->rank == 4;
    for (int i = 0; same && i < 4; i++) same = idx->shape[i] == in->shape[i];
    if (!same) {
        char a[96], b[96];
        vki_format_dims(a, sizeof a, idx->rank, idx->shape);
        vki_format_dims(b, sizeof b, in->rank, in->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices (tensor %d '%s') are %s, need "
                           "the values' shape %s", op->inputs[1], idx->name, a, b);
    }
    const vki_pool_options *po = &op->opt.pool;
    const long long oh = (long long)in->shape[1] * po->filter_h;
    const long long ow = (long long)in->shape[2] * po->filter_w;
    if (oh > INT32_MAX || ow > INT32_MAX ||
        (double)oh * (double)ow * in->shape[0] * in->shape[3] > (double)SIZE_MAX / 8)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "the output (input %dx%d times "
                           "filter %dx%d) is too large", in->shape[2], in->shape[1], po->filter_w,
                           po->filter_h);
    const int dims[4] = {in->shape[0], (int)oh, (int)ow, in->shape[3]};
    return vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
}

static void reference_max_unpooling(const vki_model *m, const vki_op *op,
                                    const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const vki_pool_options *po = &op->opt.pool;
    const int B = in->shape[0], H = in->shape[1], W = in->shape[2], C = in->shape[3];
    const int OH = out->shape[1], OW = out->shape[2];
    const long long ph = pad_before(OH, po->filter_h, po->stride_h, H);
    const long long pw = pad_before(OW, po->filter_w, po->stride_w, W);
    const float *values = inputs[0], *indices = inputs[1];
    float *y = outputs[0];
    memset(y, 0, sizeof(float) * vki_tensor_elements(out));
    size_t at = 0;
    for (int b = 0; b < B; b++)
        for (int iy = 0; iy < H; iy++)
            for (int ix = 0; ix < W; ix++)
                for (int c = 0; c < C; c++, at++) {
                    const float f = indices[at];
                    if (!(f >= -2147483648.0f && f < 2147483648.0f)) continue;
                    const int idx = (int)f;
                    const long long oy = (long long)iy * po->stride_h - ph + idx / po->filter_w;
                    const long long ox = (long long)ix * po->stride_w - pw + idx % po->filter_w;
                    if (oy < 0 || oy >= OH || ox < 0 || ox >= OW) continue;
                    y[(((size_t)b * OH + (size_t)oy) * OW + (size_t)ox) * C + (size_t)c] =
                        values[at];
                }
}

/* ---- TransformTensorBilinear ---------------------------------------------------------- */

static vki_status read_transform_tensor(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    vki_flex root;
    int32_t h = 0, w = 0;
    vki_status s = vki_flex_opt_root(r, "MediaPipe keeps this op's parameters there, as a FlexBuffer map", &root);
    if (!s) s = vki_flex_opt_i32(r, &root, "output_height", 0, &h);
    if (!s) s = vki_flex_opt_i32(r, &root, "output_width", 0, &w);
    if (s) return s;
    memset(&op->opt.mp, 0, sizeof op->opt.mp);
    op->opt.mp.i[0] = h;
    op->opt.mp.i[1] = w;
    return VKI_OK;
}

static vki_status validate_transform_tensor(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    static const char *const in_roles[] = {"data", "matrix"}, *const out_roles[] = {"output"};
    vki_status s = check_io(m, o, 2, in_roles, 1, out_roles);
    if (!s) s = expect_rank(m, o, op->inputs[0], "data", 4, "[1,H,W,C]");
    if (!s) s = expect_matrix(m, o, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->shape[0] != 1)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "data (tensor %d '%s') has batch "
                           "%d; MediaPipe's kernel samples batch 0 only", op->inputs[0], in->name,
                           in->shape[0]);
    const int oh = op->opt.mp.i[0], ow = op->opt.mp.i[1];
    if (oh < 1 || ow < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output_height %d, output_width %d: both "
                           "must be positive (custom_options)", oh, ow);
    const int dims[4] = {1, oh, ow, in->shape[3]};
    return vki_op_expect_dims(m, o, op->outputs[0], 4, dims);
}

/* One sample as MediaPipe mixes the four neighbours: the 1 - f weights in double, the f
 * products in float. */
static float bilinear(const float *x, int H, int W, int C, int c, float tx, float ty) {
    const float fx = floorf(tx), fy = floorf(ty);
    const int x0 = (int)fx, y0 = (int)fy, x1 = (int)(fx + 1.0f), y1 = (int)(fy + 1.0f);
#define READ_(yy, xx) \
    ((yy) < 0 || (xx) < 0 || (yy) >= H || (xx) >= W ? 0.0f \
                                                    : x[((size_t)(yy) * W + (size_t)(xx)) * C + (size_t)c])
    const float q11 = READ_(y0, x0), q21 = READ_(y0, x1), q12 = READ_(y1, x0), q22 = READ_(y1, x1);
#undef READ_
    const float right = tx - fx, lower_w = ty - fy;
    const float upper = (float)((1.0 - right) * q11 + (double)(right * q21));
    const float lower = (float)((1.0 - right) * q12 + (double)(right * q22));
    return (float)((double)(lower_w * lower) + (1.0 - lower_w) * upper);
}

static void reference_transform_tensor(const vki_model *m, const vki_op *op,
                                       const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    const int H = in->shape[1], W = in->shape[2], C = in->shape[3];
    const int OH = out->shape[1], OW = out->shape[2];
    const float *mat = inputs[1];
    float row[2][4];
    for (int r = 0; r < 2; r++) {
        memcpy(row[r], mat + 4 * r, sizeof row[r]);
        /* Align corners: T -> S * T * A, with A shifting by +0.5 and S by -0.5. */
        row[r][3] = (float)((double)row[r][3] +
                            ((double)row[r][0] * 0.5 + (double)row[r][1] * 0.5 - 0.5));
    }
    float *y = outputs[0];
    for (int oy = 0; oy < OH; oy++)
        for (int ox = 0; ox < OW; ox++) {
            const float cx = (float)ox, cy = (float)oy;
            const float tx = row[0][0] * cx + row[0][1] * cy + row[0][2] * 0.0f + row[0][3] * 1.0f;
            const float ty = row[1][0] * cx + row[1][1] * cy + row[1][2] * 0.0f + row[1][3] * 1.0f;
            const bool outside = tx < 0.0f || tx > (float)(W - 1) || ty < 0.0f || ty > (float)(H - 1);
            float *px = y + ((size_t)oy * OW + (size_t)ox) * C;
            for (int c = 0; c < C; c++)
                px[c] = outside ? 0.0f
                        : isnan(tx) || isnan(ty) ? NAN
                        : bilinear(inputs[0], H, W, C, c, tx, ty);
        }
}

/* ---- Landmarks2TransformMatrix -------------------------------------------------------- */

#define MP_SUBSET_MAX 12
#define MP_SUBSET_END 0xFFFF

/* The opt.mp fields of Landmarks2TransformMatrix (see the top of the file). */
typedef struct l2m_opts {
    int left, right, out_h, out_w, n_subset;
    int subset[MP_SUBSET_MAX];
    float target, scale_x, scale_y;
} l2m_opts;

static l2m_opts l2m_of(const vki_op *op) {
    l2m_opts d;
    const int *i = op->opt.mp.i;
    d.left = i[0] & 0xFFFF;
    d.right = (int)((unsigned)i[0] >> 16);
    d.out_h = i[1] & 0xFFFF;
    d.out_w = (int)((unsigned)i[1] >> 16);
    d.n_subset = 0;
    for (int k = 0; k < MP_SUBSET_MAX; k++) {
        const int v = (int)(((unsigned)i[2 + k / 2] >> (16 * (k % 2))) & 0xFFFF);
        if (v == MP_SUBSET_END) break;
        d.subset[d.n_subset++] = v;
    }
    d.target = op->opt.mp.f[0];
    d.scale_x = op->opt.mp.f[1];
    d.scale_y = op->opt.mp.f[2];
    return d;
}

static vki_status fits_16(vki_options_reader *r, const char *key, int64_t v, int64_t max) {
    if (v < 0)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "custom_options key '%s' = %lld is "
                            "negative (MediaPipe refuses it)", key, (long long)v);
    if (v > max)
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_MODEL, "custom_options key '%s' = %lld: "
                            "vkinfer takes at most %lld", key, (long long)v, (long long)max);
    return VKI_OK;
}

static vki_status read_landmarks_to_matrix(vki_options_reader *r, const vki_model *m,
                                           vki_op *op) {
    (void)m;
    vki_flex root, v;
    int32_t left = 0, right = 0, oh = 0, ow = 0;
    float target = 0.0f, sx = 0.0f, sy = 0.0f;
    vki_status s = vki_flex_opt_root(r, "MediaPipe keeps this op's parameters there, as a FlexBuffer map", &root);
    if (!s) s = vki_flex_opt_i32(r, &root, "left_rotation_idx", 0, &left);
    if (!s) s = vki_flex_opt_i32(r, &root, "right_rotation_idx", 0, &right);
    if (!s) s = vki_flex_opt_i32(r, &root, "output_height", 0, &oh);
    if (!s) s = vki_flex_opt_i32(r, &root, "output_width", 0, &ow);
    if (!s) s = vki_flex_opt_f32(r, &root, "target_rotation_radians", &target);
    if (!s) s = vki_flex_opt_f32(r, &root, "scale_x", &sx);
    if (!s) s = vki_flex_opt_f32(r, &root, "scale_y", &sy);
    if (!s) s = fits_16(r, "left_rotation_idx", left, MP_SUBSET_END - 1);
    if (!s) s = fits_16(r, "right_rotation_idx", right, MP_SUBSET_END - 1);
    if (s) return s;
    /* Sizes: 0 (absent) is kept for validate to refuse, as MediaPipe's Eval does. */
    if (oh < 0 || ow < 0 || oh > 0xFFFF || ow > 0xFFFF)
        return vki_opt_fail(r, oh < 0 || ow < 0 ? VKI_ERROR_MODEL_FORMAT
                                                : VKI_ERROR_UNSUPPORTED_MODEL,
                            "custom_options output_height %d, output_width %d: vkinfer takes 1 "
                            "to 65535", oh, ow);
    int64_t subset[MP_SUBSET_MAX];
    int n;
    const char *err = vki_flex_map_get(&root, "subset_idxs", &v);
    if (!err) err = flex_int_vector(&v, subset, MP_SUBSET_MAX, &n);
    if (err && !strcmp(err, "too long"))
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_MODEL, "custom_options key 'subset_idxs' "
                            "lists %d landmarks; vkinfer keeps at most %d", n, MP_SUBSET_MAX);
    if (err) return vki_flex_opt_fail(r, "subset_idxs", err);
    for (int k = 0; k < n; k++)
        if ((s = fits_16(r, "subset_idxs", subset[k], MP_SUBSET_END - 1))) return s;
    memset(&op->opt.mp, 0, sizeof op->opt.mp);
    int *i = op->opt.mp.i;
    i[0] = (int)((unsigned)left | (unsigned)right << 16);
    i[1] = (int)((unsigned)oh | (unsigned)ow << 16);
    for (int k = 0; k < MP_SUBSET_MAX; k++) {
        const unsigned val = k < n ? (unsigned)subset[k] : MP_SUBSET_END;
        i[2 + k / 2] = (int)((unsigned)i[2 + k / 2] | val << (16 * (k % 2)));
    }
    op->opt.mp.f[0] = target;
    op->opt.mp.f[1] = sx;
    op->opt.mp.f[2] = sy;
    return VKI_OK;
}

static vki_status validate_landmarks_to_matrix(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    static const char *const in_roles[] = {"landmarks"}, *const out_roles[] = {"matrix"};
    vki_status s = check_io(m, o, 1, in_roles, 1, out_roles);
    if (!s) s = expect_rank(m, o, op->inputs[0], "landmarks", 3, "rank 3 ([1,N,3])");
    if (s) return s;
    const l2m_opts d = l2m_of(op);
    if (d.out_h < 1 || d.out_w < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output_height %d, output_width %d: both "
                           "must be positive (custom_options)", d.out_h, d.out_w);
    if (!(d.scale_x > 0.0f) || !(d.scale_y > 0.0f))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "scale_x %g, scale_y %g: both must be "
                           "positive (custom_options)", (double)d.scale_x, (double)d.scale_y);
    if (!d.n_subset)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "subset_idxs is empty (custom_options): "
                           "the box needs at least one landmark");
    const vki_tensor *in = vki_op_in(m, op, 0);
    const size_t n = vki_tensor_elements(in) / 3;
    int worst = d.left > d.right ? d.left : d.right;
    for (int k = 0; k < d.n_subset; k++)
        if (d.subset[k] > worst) worst = d.subset[k];
    if ((size_t)worst >= n)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "landmark %d (custom_options) is beyond "
                           "the %zu landmarks (x, y, z) of input tensor %d '%s'", worst, n,
                           op->inputs[0], in->name);
    return vki_op_expect_dims(m, o, op->outputs[0], 3, (const int[]){1, 4, 4});
}

/* MediaPipe's Mat3 * float3 and Mat4 *= Mat4: sums in float from 0, k ascending. */
static void mat3_vec(const float a[9], const float v[3], float out[3]) {
    for (int r = 0; r < 3; r++) {
        float sum = 0.0f;
        for (int k = 0; k < 3; k++) sum += a[r * 3 + k] * v[k];
        out[r] = sum;
    }
}

static void mat4_mul(float t[16], const float b[16]) {
    float res[16];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++) sum += t[r * 4 + k] * b[k * 4 + c];
            res[r * 4 + c] = sum;
        }
    memcpy(t, res, sizeof res);
}

static void reference_landmarks_to_matrix(const vki_model *m, const vki_op *op,
                                          const float *const *inputs, float *const *outputs) {
    (void)m;
    const l2m_opts d = l2m_of(op);
    const float *lm = inputs[0];
    /* EstimateRotationRadians */
    const float lx = lm[d.left * 3], ly = lm[d.left * 3 + 1];
    const float rx = lm[d.right * 3], ry = lm[d.right * 3 + 1];
    const float rotation = d.target - atan2f(ry - ly, rx - lx);
    /* EstimateCenterAndSize: the subset rotated by R(rotation), its box, the box's centre
     * rotated back. */
    const float r = rotation;
    const float rot[9] = {cosf(r), -sinf(r), 0.0f, sinf(r), cosf(r), 0.0f, 0.0f, 0.0f, 1.0f};
    const float inv[9] = {cosf(-r), -sinf(-r), 0.0f, sinf(-r), cosf(-r), 0.0f, 0.0f, 0.0f, 1.0f};
    float hi[3] = {0}, lo[3] = {0};
    for (int k = 0; k < d.n_subset; k++) {
        const float p[3] = {lm[d.subset[k] * 3], lm[d.subset[k] * 3 + 1], 1.0f};
        float q[3];
        mat3_vec(rot, p, q);
        if (k == 0) {
            memcpy(hi, q, sizeof q);
            memcpy(lo, q, sizeof q);
            continue;
        }
        if (hi[0] < q[0]) hi[0] = q[0];
        if (hi[1] < q[1]) hi[1] = q[1];
        if (lo[0] > q[0]) lo[0] = q[0];
        if (lo[1] > q[1]) lo[1] = q[1];
    }
    const float crop_w = hi[0] - lo[0], crop_h = hi[1] - lo[1];
    float centre[3] = {lo[0], lo[1], lo[2]}, c[3];
    centre[0] += hi[0];
    centre[1] += hi[1];
    centre[0] /= 2;
    centre[1] /= 2;
    mat3_vec(inv, centre, c);
    /* T(cx, cy) * R(-rotation) * S * T(-OW / 2, -OH / 2), from the identity. */
    float t[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float shift[16] = {1, 0, 0, c[0], 0, 1, 0, c[1], 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_mul(t, shift);
    const float nr = -rotation;
    const float rot4[16] = {cosf(nr), -sinf(nr), 0, 0, sinf(nr), cosf(nr), 0, 0,
                            0, 0, 1, 0, 0, 0, 0, 1};
    mat4_mul(t, rot4);
    const float sx = d.scale_x * crop_w / (float)d.out_w;
    const float sy = d.scale_y * crop_h / (float)d.out_h;
    const float scale[16] = {sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_mul(t, scale);
    const float shift_x = (float)(-1.0 * (d.out_w / 2.0));
    const float shift_y = (float)(-1.0 * (d.out_h / 2.0));
    const float shift2[16] = {1, 0, 0, shift_x, 0, 1, 0, shift_y, 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_mul(t, shift2);
    memcpy(outputs[0], t, sizeof t);
}

/* ---- TransformLandmarks --------------------------------------------------------------- */

static vki_status validate_transform_landmarks(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    static const char *const in_roles[] = {"landmarks", "matrix"}, *const out_roles[] = {"output"};
    vki_status s = check_io(m, o, 2, in_roles, 1, out_roles);
    if (!s) s = expect_rank(m, o, op->inputs[0], "landmarks", 3, "[1,N,2] or [1,N,3] (version 2)");
    if (!s) s = expect_matrix(m, o, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->shape[0] != 1 || (in->shape[2] != 2 && in->shape[2] != 3)) {
        char dims[96];
        vki_format_dims(dims, sizeof dims, in->rank, in->shape);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "landmarks (tensor %d '%s') are %s, need "
                           "[1,N,2] or [1,N,3]", op->inputs[0], in->name, dims);
    }
    return vki_op_expect_dims(m, o, op->outputs[0], 3, in->shape);
}

static void reference_transform_landmarks(const vki_model *m, const vki_op *op,
                                          const float *const *inputs, float *const *outputs) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int n = in->shape[1], dims = in->shape[2];
    const float *a = inputs[1], *x = inputs[0];
    float *y = outputs[0];
    for (int k = 0; k < n; k++) {
        const float *p = x + (size_t)k * dims;
        float *q = y + (size_t)k * dims;
        const float px = p[0], py = p[1];
        q[0] = a[0] * px + a[1] * py + a[2] * 0.0f + a[3] * 1.0f;
        q[1] = a[4] * px + a[5] * py + a[6] * 0.0f + a[7] * 1.0f;
        if (dims == 3) q[2] = p[2];
    }
}

const vki_op_def vki_op_mp_max_pool_argmax = {
    .validate = validate_max_pool_argmax,
    .reference = reference_max_pool_argmax,
    .options = read_max_pool_argmax,
    .general = true,
};
const vki_op_def vki_op_mp_max_unpooling = {
    .validate = validate_max_unpooling,
    .reference = reference_max_unpooling,
    .options = read_max_unpooling,
    .general = true,
};
const vki_op_def vki_op_mp_transform_tensor_bilinear = {
    .validate = validate_transform_tensor,
    .reference = reference_transform_tensor,
    .options = read_transform_tensor,
    .general = true,
};
const vki_op_def vki_op_mp_landmarks_to_matrix = {
    .validate = validate_landmarks_to_matrix,
    .reference = reference_landmarks_to_matrix,
    .options = read_landmarks_to_matrix,
    .general = true,
};
const vki_op_def vki_op_mp_transform_landmarks = {
    .validate = validate_transform_landmarks,
    .reference = reference_transform_landmarks,
    .general = true,
};
