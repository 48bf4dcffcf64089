/* fully_connected.c: FULLY_CONNECTED with constant weights [N,K], an optional constant
 * bias [N] and a fused activation (glsl/fully_connected.comp).
 *
 * TFLite views the input as rows of K: rows = elements / K. Two cases run here:
 *  - one row: the whole input (any shape, e.g. [1,K], [1,1,1,K] or [1,H,W,C] with
 *    K = H*W*C) is flattened in dense NHWC order. PHWC4 orders the same elements
 *    differently, so the weights are permuted at build time into PHWC4 order and the
 *    kernel walks the input's vec4s linearly; no index math per element at run time.
 *  - one row per pixel (last dimension K): a 1x1 convolution over the storage view,
 *    output [.., N] with the input's rank (keep_num_dims) or [rows, N]: either way the
 *    output's pixels are the input's in the same linear order.
 *
 * The weight blob holds, for output slice s and input vec4 j, the four vec4s of output
 * channels 4s..4s+3 over that input vec4's lanes, zero where either side is padding; a
 * thread reads its weights contiguously. */
#include "int8.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>

static bool has_bias(const vki_op *op) { return op->n_inputs == 3 && op->inputs[2] >= 0; }

/* True when every input row is one pixel (rows > 1), false when the input is one row. */
static bool per_pixel(const vki_model *m, const vki_op *op) {
    size_t k = (size_t)vki_op_in(m, op, 1)->shape[1];
    return vki_tensor_elements(vki_op_in(m, op, 0)) / k > 1;
}

/* Weights and bias: constant float32 of the given rank. Constness is checked first: a
 * computed [N,K] tensor would otherwise be reported for its batch N. */
static vki_status check_constant(const vki_model *m, int o, int slot, int rank) {
    int t = m->ops[o].inputs[slot];
    if (t >= 0 && t < m->n_tensors && !m->tensors[t].data)
        return vki_op_check_const(m, o, slot, slot == 1 ? "weights" : "bias", rank);
    vki_status s = vki_op_check_float_tensor(m, o, t, "input", slot);
    return s ? s : vki_op_check_const(m, o, slot, slot == 1 ? "weights" : "bias", rank);
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs < 2 || op->n_inputs > 3)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need 2 to 3",
                           op->n_inputs);
    if (op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need 1", op->n_outputs);
    vki_status s = vki_op_check_float_tensor(m, o, op->inputs[0], "input", 0);
    if (!s) s = check_constant(m, o, 1, 2);
    if (!s && has_bias(op)) s = check_constant(m, o, 2, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *w = vki_op_in(m, op, 1);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if ((unsigned)op->opt.fully_connected.activation > VKI_ACT_TANH)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "unknown fused activation %d",
                           (int)op->opt.fully_connected.activation);
    int n = w->shape[0], k = w->shape[1];
    if (w->data_bytes < vki_tensor_elements(w) * sizeof(float))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "weights hold %zu bytes, need %zu",
                           w->data_bytes, vki_tensor_elements(w) * sizeof(float));
    if (has_bias(op) && vki_op_in(m, op, 2)->shape[0] != n)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "bias has %d elements but weights have %d rows",
                           vki_op_in(m, op, 2)->shape[0], n);
    if (has_bias(op) && vki_op_in(m, op, 2)->data_bytes < (size_t)n * sizeof(float))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "bias holds %zu bytes, need %zu",
                           vki_op_in(m, op, 2)->data_bytes, (size_t)n * sizeof(float));
    char gi[96];
    vki_format_dims(gi, sizeof gi, in->rank, in->shape);
    size_t elements = vki_tensor_elements(in);
    if (elements % (size_t)k)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "input %s has %zu elements, not a multiple of K = %d (weights [%d,%d])",
                           gi, elements, k, n, k);
    size_t rows = elements / (size_t)k;
    int last = in->rank ? in->shape[in->rank - 1] : 1;
    bool keep = op->opt.fully_connected.keep_num_dims;
    if (keep && in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "keep_num_dims needs an input of rank >= 1");
    if ((keep || rows > 1) && last != k)
        return vki_op_fail(m, o, rows > 1 ? VKI_ERROR_UNSUPPORTED_MODEL : VKI_ERROR_MODEL_FORMAT,
                           "input %s: %s the last dimension to be K = %d", gi,
                           keep ? "keep_num_dims needs" : "several rows of K need", k);
    /* keep_num_dims: the input's extents with N last; otherwise [rows, N]. */
    int want[VKI_MAX_RANK] = {(int)rows, n};
    int want_rank = 2;
    if (keep) {
        want_rank = in->rank;
        for (int i = 0; i < in->rank; i++) want[i] = in->shape[i];
        want[in->rank - 1] = n;
    }
    s = vki_op_expect_dims(m, o, op->outputs[0], want_rank, want);
    if (s) return s;
    s = vki_op_check_float_tensor(m, o, op->outputs[0], "output", 0);
    if (s) return s;
    if (m->tensors[op->outputs[0]].data)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output 0 (tensor %d) is a constant",
                           op->outputs[0]);
    return VKI_OK;
}

/* The integer form (int8.h): weights [N, K] per tensor or per output channel (axis 0). */
static bool integer(const vki_model *m, const vki_op *op) { return vki_int8_conv_ok(m, op, 0); }

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

/* The one-row form's lanes per output slice on GPUs (SPLIT): the most, up to
 * VKI_FC_SPLIT_LANES, that leave each lane VKI_FC_SPLIT_TERMS input vec4s or more. One
 * thread per output slice left a landmark model's heads nearly serial. Measured on an
 * H200 (run --profile, 50 runs; hand_landmark_full's and hand_landmark_lite's four
 * FULLY_CONNECTED layers over 1152 inputs, 1 to 63 outputs): a thread a slice 18-35 us
 * each; 16 lanes 4.1-5.4 us, 64 lanes 3.7-4.8, 256 lanes 3.5-4.4; GPU totals 0.502 ->
 * 0.386 ms and 0.357 -> 0.291 ms with 256. CPU devices run a work group as SIMD loops on
 * one core and keep a thread per slice. VKI_FC_SPLIT=N forces N lanes (a power of two up
 * to 256; 1: none) for tests and sweeps. */
#define VKI_FC_SPLIT_LANES 256
#define VKI_FC_SPLIT_TERMS 1
static int split_pick(const vki_build *b, size_t k_vec4) {
    const vki_wg_device *dev = vki_build_device(b);
    const int cap = (int)vki_wg_lanes(dev, VKI_FC_SPLIT_LANES);
    const int forced = vki_env_pow2(vki_build_env(b, VKI_ENV_FC_SPLIT), 1, VKI_FC_SPLIT_LANES);
    if (forced) return forced <= cap ? forced : 1;
    if (dev->is_cpu) return 1;
    int split = 1;
    while (split * 2 <= cap && (size_t)split * 2 * VKI_FC_SPLIT_TERMS <= k_vec4) split *= 2;
    return split;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *wt = vki_op_in(m, op, 1);
    const bool int8 = runs_integer(m, op);
    float *values = int8 ? vki_int8_weight_values(wt) : NULL;
    if (int8 && !values) return vki_fail_oom("graph build");
    const float *w = int8 ? values : (const float *)wt->data;
    int n = wt->shape[0], k = wt->shape[1];
    vki_shape4 in = vki_tensor_rows(vki_op_in(m, op, 0));
    vki_shape4 out = vki_tensor_rows(vki_op_out(m, op, 0));
    bool pixels = per_pixel(m, op);
    /* The part of the input one row spans, as (h, w, c): the whole tensor or one pixel. */
    vki_shape4 row = pixels ? (vki_shape4){1, 1, 1, in.c} : in;
    int row_slices = (row.c + 3) / 4;
    size_t k_vec4 = (size_t)row_slices * (size_t)row.h * (size_t)row.w;
    int out_slices = (n + 3) / 4;
    size_t count = (size_t)out_slices * k_vec4 * 16;
    float *packed = vki_calloc(count, sizeof(float));
    if (!packed) {
        free(values);
        return vki_fail_oom("graph build");
    }
    for (int s = 0; s < out_slices; s++)
        for (int sl = 0; sl < row_slices; sl++)
            for (int y = 0; y < row.h; y++)
                for (int x = 0; x < row.w; x++) {
                    size_t j = ((size_t)sl * row.h + y) * row.w + x;   /* PHWC4 vec4 index */
                    float *dst = packed + ((size_t)s * k_vec4 + j) * 16;
                    for (int lane_o = 0; lane_o < 4; lane_o++)
                        for (int lane_i = 0; lane_i < 4; lane_i++) {
                            int on = s * 4 + lane_o, c = sl * 4 + lane_i;
                            if (on >= n || c >= row.c) continue;
                            size_t kk = ((size_t)y * row.w + x) * row.c + c;   /* dense NHWC */
                            dst[lane_o * 4 + lane_i] = w[(size_t)on * k + kk];
                        }
                }
    /* The integer form sums packed bytes (INT8_PACKED; a word already holds one output
     * channel's 4 input lanes) where the weights fit signed bytes. */
    int32_t *adjust = int8 ? vki_calloc((size_t)n, sizeof *adjust) : NULL;
    const bool q8 = adjust && vki_int8_packed_adjust(packed, count, values, n, (size_t)k,
                                                      vki_op_in(m, op, 0)->quant_zero, adjust);
    int w_blob = int8 ? vki_build_weights_q8(b, packed, count) : vki_build_weights(b, packed, count);
    int b_blob = int8 ? vki_int8_bias_blob_adjusted(b, m, op, (size_t)out_slices * 4, q8 ? adjust : NULL)
                      : vki_build_bias(b, has_bias(op) ? vki_op_in(m, op, 2) : NULL, n,
                                       (size_t)out_slices * 4);
    free(packed);
    free(values);
    free(adjust);
    if (w_blob < 0 || b_blob < 0 || (int8 && !adjust)) return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_fully_connected, pixels ? VKI_WG_CONV : VKI_WG_REDUCE);
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    vki_define_int(&d, "K_VEC4", (long long)k_vec4);
    vki_define_int(&d, pixels ? "FC_PER_PIXEL" : "FC_ONE_ROW", 1);
    if (!int8) vki_define_activation(&d, op->opt.fully_connected.activation);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_weights(&d, w_blob);
    vki_dispatch_bind_weights(&d, b_blob);
    vki_status st = vki_build_bind_output(b, &d, op);
    if (st) return st;
    if (int8 && (st = vki_int8_define_epilogue(b, &d, m, op, op->opt.fully_connected.activation,
                                               (size_t)out_slices * 4)))
        return st;
    /* The variant: the lanes a slice, then how a packed integer form sums. */
    const int split = pixels ? 1 : split_pick(b, k_vec4);
    char lanes[24] = "";
    if (split > 1) snprintf(lanes, sizeof lanes, "split%d%s", split, q8 ? " " : "");
    if (q8) vki_int8_define_packed(b, &d, vki_op_in(m, op, 0));
    snprintf(d.variant, sizeof d.variant, "%s%s", lanes,
             !q8 ? "" : vki_build_int_dot(b) ? "q8dot" : "q8");
    if (pixels) {
        vki_dispatch_grid_phwc4(&d, out);
    } else if (split > 1) {
        /* A work group of `split` lanes per output slice, the slices along y. */
        vki_define_int(&d, "SPLIT", split);
        d.fixed_wg[0] = d.grid[0] = (uint32_t)split;
        d.fixed_wg[1] = d.fixed_wg[2] = 1;
        d.grid[1] = (uint32_t)out_slices;
    } else {
        /* One row: the output slices go along x so a reduce work group packs them. */
        d.grid[0] = (uint32_t)out_slices;
    }
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference_ops::FullyConnected (float): per row, a float dot product over K,
 * plus the bias, then the activation. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_tensor *wt = vki_op_in(m, op, 1);
    int n = wt->shape[0], k = wt->shape[1];
    size_t rows = vki_tensor_elements(vki_op_in(m, op, 0)) / (size_t)k;
    const float *bias = has_bias(op) ? in[2] : NULL;
    if (runs_integer(m, op)) {   /* int32 sums of q - zero point, requantized (int8.h) */
        int lo, hi;
        vki_int8_activation_range(vki_op_out(m, op, 0), op->opt.fully_connected.activation, &lo, &hi);
        for (size_t r = 0; r < rows; r++)
            for (int i = 0; i < n; i++) {
                int32_t sum = vki_int8_bias(m, op, i);
                for (int d = 0; d < k; d++)
                    sum += (int32_t)in[0][r * k + d] * vki_tensor_qvalue(wt, (size_t)i * k + d, (size_t)k);
                out[0][r * n + i] = vki_int8_requantize(sum, vki_int8_conv_scale(m, op, i), lo, hi);
            }
        return;
    }
    for (size_t r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
            float total = 0.0f;
            for (int d = 0; d < k; d++) total += in[0][r * k + d] * in[1][(size_t)i * k + d];
            float bias_value = bias ? bias[i] : 0.0f;
            out[0][r * n + i] =
                vki_apply_activation(op->opt.fully_connected.activation, total + bias_value);
        }
}

/* FullyConnectedOptionsWeightsFormat. */
enum { FC_WEIGHTS_DEFAULT = 0, FC_WEIGHTS_SHUFFLED4x16INT8 = 1 };

/* FullyConnectedOptions: activation, weights_format, keep_num_dims and
 * asymmetric_quantize_inputs, which only matters for hybrid int8 weights; it is read so
 * that a bad slot is still reported. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act, format;
    bool asymmetric;
    if (!vki_opt_i8(r, 0, 0, &act) || !vki_opt_i8(r, 1, FC_WEIGHTS_DEFAULT, &format) ||
        !vki_opt_bool(r, 2, false, &op->opt.fully_connected.keep_num_dims) ||
        !vki_opt_bool(r, 3, false, &asymmetric))
        return vki_opt_malformed(r);
    (void)asymmetric;
    if (format == FC_WEIGHTS_SHUFFLED4x16INT8)
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_OP,
                            "weights_format SHUFFLED4x16INT8 is not supported");
    if (format != FC_WEIGHTS_DEFAULT)
        return vki_opt_fail(r, VKI_ERROR_MODEL_FORMAT, "unknown weights_format %d", format);
    return vki_opt_activation(r, act, &op->opt.fully_connected.activation);
}

const vki_op_def vki_op_fully_connected = {.validate = validate, .build = build,
                                           .reference = reference, .options = read_options,
                                           .general = true, .integer = integer};
