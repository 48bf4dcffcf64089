/* cpu_rnn.c: RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN and SVDF on the CPU,
 * float32, as TFLite's kernels compute them (LiteRT's tflite/kernels/basic_rnn.cc,
 * unidirectional_sequence_rnn.cc, bidirectional_sequence_rnn.cc with
 * internal/kernel_utils.cc's RnnBatchStep, and svdf.cc with internal/reference/svdf.h's
 * EvalFloatSVDF).
 *
 * RNN: inputs x [B, I], weights W [U, I], recurrent weights R [U, U], bias [U] and the
 * hidden state h [B, U], a variable tensor; output [B, U]. Per batch row:
 *   y = act(bias + W x + R h); h = y
 * (act: RNNOptions' fused activation, applied in place, so NONE is the identity).
 * UNIDIRECTIONAL_SEQUENCE_RNN: the same inputs with x [T, B, I] (time_major) or [B, T, I],
 * one step per t, output [.., U] in the input's layout. BIDIRECTIONAL_SEQUENCE_RNN: x, then
 * forward W, R, bias, h (1-4), backward W, R, bias, h (5-8) and the aux input with its two
 * weights (9-11, optional; not supported here); the backward pass walks t from the last;
 * outputs [.., U_fw] and [.., U_bw], or one [.., U_fw + U_bw] with merge_outputs.
 *
 * SVDF: inputs x [B, I], weights_feature [F, I], weights_time [F, M], bias [U] (optional)
 * and the state [B, M * F], a variable tensor: F filters of M remembered activations each;
 * SVDFOptions.rank R with U = F / R units. A call, per batch row (svdf.h's order):
 *   shift every filter's memory left by one (the oldest drops out);
 *   memory[f][M-1] = weights_feature[f] . x;
 *   s[f] = weights_time[f] . memory[f];
 *   y[u] = act(sum over r < R of s[u R + r], then + bias[u])
 * The state holds the memory after the call, newest last, as LiteRT's kernel leaves it
 * (TensorFlow's older kernel shifted after the call instead, leaving a zero there: the
 * outputs are the same).
 *
 * Hybrid models (int8 weights, float activations: TFLite quantizes the activations as it
 * goes) and integer ones are refused with a message, as is the bidirectional op's aux
 * input. The reference runs each row with plain loops; run computes the input products of
 * every step at once (a blocked matrix product) and then each step's recurrent product for
 * all batch rows together, blocks of weight rows against every row.
 */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has(const vki_op *op, int slot) {
    return slot >= 0 && slot < op->n_inputs && op->inputs[slot] >= 0;
}

/* Input `slot` is float32 (not a hybrid model's int8 constant) of rank `rank` with extents
 * d0 (and d1 for rank 2). */
static vki_status check_input(const vki_model *m, int o, int slot, const char *what, int rank,
                              int d0, int d1) {
    const vki_op *op = &m->ops[o];
    if (!has(op, slot))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d) is missing", what, slot);
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "%s: vkinfer runs the float32 kernel only, not TFLite's integer one",
                           what, slot, op->inputs[slot], t->name, vki_dtype_name(t->dtype));
    if (t->qdata)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "quantized: hybrid models (int8 weights, float activations, which "
                           "TFLite quantizes as it goes) are not supported", what, slot,
                           op->inputs[slot], t->name);
    if (t->rank != rank || t->shape[0] != d0 || (rank == 2 && t->shape[1] != d1)) {
        char got[96], want[96];
        vki_format_dims(got, sizeof got, t->rank, t->shape);
        vki_format_dims(want, sizeof want, rank, (int[]){d0, d1});
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') is %s, "
                           "need %s", what, slot, op->inputs[slot], t->name, got, want);
    }
    if (t->data && t->data_bytes < vki_tensor_elements(t) * sizeof(float))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is truncated", what,
                           op->inputs[slot], t->name);
    return VKI_OK;
}

/* A state input: a float32 variable tensor [B, n]. */
static vki_status check_state(const vki_model *m, int o, int slot, const char *what, int B,
                              int n) {
    const vki_op *op = &m->ops[o];
    if (!has(op, slot))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d) is missing", what, slot);
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "%s: vkinfer runs the float32 kernel only, not TFLite's integer one",
                           what, slot, op->inputs[slot], t->name, vki_dtype_name(t->dtype));
    if (!t->is_variable)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') is not a "
                           "variable tensor: the op keeps its state there", what, slot,
                           op->inputs[slot], t->name);
    return vki_op_expect_dims(m, o, op->inputs[slot], 2, (int[]){B, n});
}

/* Input 0: float32 of rank `rank` with positive extents. */
static vki_status check_x(const vki_model *m, int o, int rank) {
    const vki_op *op = &m->ops[o];
    if (!has(op, 0)) return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input 0 is missing");
    const vki_tensor *x = vki_op_in(m, op, 0);
    if (x->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') is %s: "
                           "vkinfer runs the float32 kernel only", op->inputs[0], x->name,
                           vki_dtype_name(x->dtype));
    if (x->rank != rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') has rank %d, need "
                           "%d (%s)", op->inputs[0], x->name, x->rank, rank, rank == 2 ?
                           "[batch, input]" : "[time, batch, input] or [batch, time, input]");
    for (int i = 0; i < x->rank; i++)
        if (x->shape[i] <= 0)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') has "
                               "dimension %d = %d", op->inputs[0], x->name, i, x->shape[i]);
    return VKI_OK;
}

static vki_status check_outputs_float(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    for (int i = 0; i < op->n_outputs; i++) {
        const vki_tensor *y = vki_op_out(m, op, i);
        if (y->dtype != VKI_DTYPE_FLOAT32 || y->data)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output %d (tensor %d '%s') must be a "
                               "float32 activation", i, op->outputs[i], y->name);
    }
    return VKI_OK;
}

/* y[v][r] (+)= sum_j W[r][j] * x[v][j] for rows r < rows of W (rows x k, row-major) and
 * vectors v < n_vec (x rows x_stride apart, y rows y_stride apart): each weight row against
 * every vector while it is in cache, eight partial sums a dot product (a loop compilers
 * vectorize without reordering a reduction of their own). */
static void matmul_acc(const float *W, int rows, int k, const float *x, int n_vec,
                       size_t x_stride, float *y, size_t y_stride, bool accumulate) {
    for (int r = 0; r < rows; r++) {
        const float *w = W + (size_t)r * (size_t)k;
        for (int v = 0; v < n_vec; v++) {
            const float *xv = x + (size_t)v * x_stride;
            float a[8] = {0};
            int j = 0;
            for (; j + 8 <= k; j += 8)
                for (int l = 0; l < 8; l++) a[l] += w[j + l] * xv[j + l];
            float s = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
            for (; j < k; j++) s += w[j] * xv[j];
            float *yv = y + (size_t)v * y_stride + r;
            *yv = accumulate ? *yv + s : s;
        }
    }
}

/* ---- RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN -------------------- */

static bool rnn_bidi(const vki_op *op) { return op->code == VKI_OP_BIDIRECTIONAL_SEQUENCE_RNN; }

typedef struct rnn_dims {
    int T, B, I, dirs;
    bool time_major;
    int U[2];
} rnn_dims;

/* Slots of direction dir's W, R, bias and h. */
static int rnn_slot(const vki_op *op, int dir, int what) {
    return rnn_bidi(op) ? 1 + 4 * dir + what : 1 + what;
}

static rnn_dims rnn_dims_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *x = vki_op_in(m, op, 0);
    rnn_dims d = {0};
    if (op->code == VKI_OP_RNN) {
        d.T = 1;
        d.B = x->shape[0];
        d.time_major = true;
    } else {
        d.time_major = op->opt.rnn.time_major != 0;
        d.T = x->shape[d.time_major ? 0 : 1];
        d.B = x->shape[d.time_major ? 1 : 0];
    }
    d.I = x->shape[x->rank - 1];
    d.dirs = rnn_bidi(op) ? 2 : 1;
    for (int dir = 0; dir < d.dirs; dir++)
        d.U[dir] = vki_op_in(m, op, rnn_slot(op, dir, 0))->shape[0];
    return d;
}

static vki_status validate_rnn(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const bool bidi = rnn_bidi(op);
    const int n_inputs = bidi ? 12 : 5;
    if (op->n_inputs != n_inputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %d", op->n_inputs,
                           n_inputs);
    const int n_outputs = bidi && !op->opt.rnn.merge_outputs ? 2 : 1;
    if (op->n_outputs != n_outputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need %d", op->n_outputs,
                           n_outputs);
    for (int i = 9; bidi && i < 12; i++)
        if (has(op, i))
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input %d: the aux input and its "
                               "weights (inputs 9-11) are not supported", i);
    const int rank = op->code == VKI_OP_RNN ? 2 : 3;
    vki_status s = check_x(m, o, rank);
    if (s) return s;
    const vki_tensor *x = vki_op_in(m, op, 0);
    const bool time_major = op->code == VKI_OP_RNN || op->opt.rnn.time_major;
    const int I = x->shape[rank - 1], B = rank == 2 ? x->shape[0] : x->shape[time_major ? 1 : 0];
    int U[2] = {0, 0};
    for (int dir = 0; dir < (bidi ? 2 : 1); dir++) {
        const char *side = !bidi ? "" : dir ? "backward " : "forward ";
        char what[64];
        const int w = rnn_slot(op, dir, 0);
        if (!has(op, w) || vki_op_in(m, op, w)->rank != 2)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%sweights (input %d) must be given, "
                               "[units, input]", side, w);
        U[dir] = vki_op_in(m, op, w)->shape[0];
        snprintf(what, sizeof what, "%sweights", side);
        s = check_input(m, o, w, what, 2, U[dir], I);
        snprintf(what, sizeof what, "%srecurrent weights", side);
        if (!s) s = check_input(m, o, w + 1, what, 2, U[dir], U[dir]);
        snprintf(what, sizeof what, "%sbias", side);
        if (!s) s = check_input(m, o, w + 2, what, 1, U[dir], 0);
        snprintf(what, sizeof what, "%shidden state", side);
        if (!s) s = check_state(m, o, w + 3, what, B, U[dir]);
        if (s) return s;
    }
    if ((s = check_outputs_float(m, o))) return s;
    for (int i = 0; i < op->n_outputs; i++) {
        int dims[3];
        memcpy(dims, x->shape, sizeof(int) * (size_t)rank);
        dims[rank - 1] = bidi && op->opt.rnn.merge_outputs ? U[0] + U[1] : U[i];
        if ((s = vki_op_expect_dims(m, o, op->outputs[i], rank, dims))) return s;
    }
    return VKI_OK;
}

/* The options' fused activation as the recurrent kernels apply it (ApplyActivationToVector):
 * TANH is tanh here, not the clamp-only reading vki_opt_activation gives ops whose kernels
 * clamp to an activation range. */
static vki_status read_activation(vki_options_reader *r, int8_t act, vki_activation *out) {
    if (act == (int8_t)VKI_ACT_TANH) {
        *out = VKI_ACT_TANH;
        return VKI_OK;
    }
    return vki_opt_activation(r, act, out);
}

/* RNNOptions: fused_activation_function (0), asymmetric_quantize_inputs (1).
 * SequenceRNNOptions: time_major (0), fused_activation_function (1), asymmetric (2).
 * BidirectionalSequenceRNNOptions: time_major (0), fused_activation_function (1),
 * merge_outputs (2), asymmetric_quantize_inputs (3). */
static vki_status read_rnn(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act;
    bool time_major = false, merge = false, asym = false, ok;
    if (op->code == VKI_OP_RNN) {
        ok = vki_opt_i8(r, 0, 0, &act) && vki_opt_bool(r, 1, false, &asym);
        time_major = true;
    } else {
        ok = vki_opt_bool(r, 0, false, &time_major) && vki_opt_i8(r, 1, 0, &act);
        if (ok && op->code == VKI_OP_BIDIRECTIONAL_SEQUENCE_RNN)
            ok = vki_opt_bool(r, 2, false, &merge) && vki_opt_bool(r, 3, false, &asym);
        else if (ok)
            ok = vki_opt_bool(r, 2, false, &asym);
    }
    if (!ok) return vki_opt_malformed(r);
    vki_activation a;
    vki_status s = read_activation(r, act, &a);
    if (s) return s;
    memset(&op->opt.rnn, 0, sizeof op->opt.rnn);
    op->opt.rnn.activation = (int)a;
    op->opt.rnn.time_major = time_major;
    op->opt.rnn.merge_outputs = merge;
    op->opt.rnn.asymmetric = asym;
    return VKI_OK;
}

typedef struct rnn_dir {
    const float *w, *rw, *bias;
    float *h;                   /* [B, U], updated in place */
    int U;
    bool reverse;
    float *out;
    int out_ld, out_off;
} rnn_dir;

static rnn_dir rnn_bind(const vki_op *op, const rnn_dims *d, int dir, const float *const *inputs,
                        float *const *outputs) {
    const int w = rnn_slot(op, dir, 0);
    const bool merged = d->dirs == 2 && op->n_outputs == 1;
    rnn_dir r = {inputs[w], inputs[w + 1], inputs[w + 2], (float *)inputs[w + 3], d->U[dir],
                 dir == 1, outputs[merged ? 0 : dir], merged ? d->U[0] + d->U[1] : d->U[dir],
                 merged && dir == 1 ? d->U[0] : 0};
    return r;
}

static size_t rnn_row(const rnn_dims *d, int t, int b) {
    return d->time_major ? (size_t)t * (size_t)d->B + (size_t)b : (size_t)b * (size_t)d->T + (size_t)t;
}

static void reference_rnn(const vki_model *m, const vki_op *op, const float *const *inputs,
                          float *const *outputs) {
    const rnn_dims d = rnn_dims_of(m, op);
    const vki_activation act = (vki_activation)op->opt.rnn.activation;
    for (int dir = 0; dir < d.dirs; dir++) {
        const rnn_dir r = rnn_bind(op, &d, dir, inputs, outputs);
        const int U = r.U, I = d.I;
        for (int step = 0; step < d.T; step++) {
            const int t = r.reverse ? d.T - 1 - step : step;
            for (int b = 0; b < d.B; b++) {
                const size_t row = rnn_row(&d, t, b);
                const float *x = inputs[0] + row * (size_t)I;
                float *h = r.h + (size_t)b * (size_t)U;
                float *y = r.out + row * (size_t)r.out_ld + (size_t)r.out_off;
                for (int u = 0; u < U; u++) {
                    float s = r.bias[u];
                    for (int j = 0; j < I; j++) s += r.w[(size_t)u * (size_t)I + (size_t)j] * x[j];
                    for (int j = 0; j < U; j++) s += r.rw[(size_t)u * (size_t)U + (size_t)j] * h[j];
                    y[u] = vki_apply_activation(act, s);
                }
                memcpy(h, y, sizeof(float) * (size_t)U);
            }
        }
    }
}

static vki_status run_rnn(const vki_model *m, int o, const float *const *inputs,
                          float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const rnn_dims d = rnn_dims_of(m, op);
    const vki_activation act = (vki_activation)op->opt.rnn.activation;
    const int Umax = d.dirs == 2 && d.U[1] > d.U[0] ? d.U[1] : d.U[0];
    /* pre: every step's input product and bias, in input row order; acc: one step's sums. */
    const size_t rows = (size_t)d.T * (size_t)d.B;
    float *pre = malloc(sizeof(float) * (rows + (size_t)d.B) * (size_t)Umax);
    if (!pre) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    float *acc = pre + rows * (size_t)Umax;
    for (int dir = 0; dir < d.dirs; dir++) {
        const rnn_dir r = rnn_bind(op, &d, dir, inputs, outputs);
        const int U = r.U;
        matmul_acc(r.w, U, d.I, inputs[0], (int)rows, (size_t)d.I, pre, (size_t)U, false);
        for (int step = 0; step < d.T; step++) {
            const int t = r.reverse ? d.T - 1 - step : step;
            for (int b = 0; b < d.B; b++) {
                const float *p = pre + rnn_row(&d, t, b) * (size_t)U;
                float *a = acc + (size_t)b * (size_t)U;
                for (int u = 0; u < U; u++) a[u] = r.bias[u] + p[u];
            }
            matmul_acc(r.rw, U, U, r.h, d.B, (size_t)U, acc, (size_t)U, true);
            for (int b = 0; b < d.B; b++) {
                const float *a = acc + (size_t)b * (size_t)U;
                float *h = r.h + (size_t)b * (size_t)U;
                float *y = r.out + rnn_row(&d, t, b) * (size_t)r.out_ld + (size_t)r.out_off;
                for (int u = 0; u < U; u++) y[u] = h[u] = vki_apply_activation(act, a[u]);
            }
        }
    }
    free(pre);
    return VKI_OK;
}

const vki_op_def vki_op_rnn = {
    .validate = validate_rnn,
    .reference = reference_rnn,
    .options = read_rnn,
    .run = run_rnn,
    .general = true,
};
const vki_op_def vki_op_unidirectional_sequence_rnn = {
    .validate = validate_rnn,
    .reference = reference_rnn,
    .options = read_rnn,
    .run = run_rnn,
    .general = true,
};
const vki_op_def vki_op_bidirectional_sequence_rnn = {
    .validate = validate_rnn,
    .reference = reference_rnn,
    .options = read_rnn,
    .run = run_rnn,
    .general = true,
};

/* ---- SVDF ---------------------------------------------------------------------------- */

typedef struct svdf_dims { int B, I, F, M, R, U; } svdf_dims;

static svdf_dims svdf_dims_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *x = vki_op_in(m, op, 0), *wt = vki_op_in(m, op, 2);
    svdf_dims d = {x->shape[0], x->shape[1], wt->shape[0], wt->shape[1], op->opt.rnn.rank, 0};
    d.U = d.F / d.R;
    return d;
}

static vki_status validate_svdf(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs != 5 || op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need 5 "
                           "and 1", op->n_inputs, op->n_outputs);
    vki_status s = check_x(m, o, 2);
    if (s) return s;
    const vki_tensor *x = vki_op_in(m, op, 0);
    const int B = x->shape[0], I = x->shape[1], rank = op->opt.rnn.rank;
    if (!has(op, 1) || vki_op_in(m, op, 1)->rank != 2 || !has(op, 2) ||
        vki_op_in(m, op, 2)->rank != 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "weights_feature and weights_time "
                           "(inputs 1 and 2) must be given, [filters, input] and [filters, "
                           "memory]");
    const int F = vki_op_in(m, op, 1)->shape[0], M = vki_op_in(m, op, 2)->shape[1];
    if (rank < 1 || F % rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "rank %d: need 1 or more, dividing the "
                           "%d filters", rank, F);
    const int U = F / rank;
    s = check_input(m, o, 1, "weights_feature", 2, F, I);
    if (!s) s = check_input(m, o, 2, "weights_time", 2, F, M);
    if (!s && has(op, 3)) s = check_input(m, o, 3, "bias", 1, U, 0);
    if (!s) s = check_state(m, o, 4, "state", B, M * F);
    if (!s) s = check_outputs_float(m, o);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[0], 2, (int[]){B, U});
    return s;
}

/* SVDFOptions: rank (0), fused_activation_function (1), asymmetric_quantize_inputs (2). */
static vki_status read_svdf(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t rank;
    int8_t act;
    bool asym;
    if (!vki_opt_i32(r, 0, 0, &rank) || !vki_opt_i8(r, 1, 0, &act) ||
        !vki_opt_bool(r, 2, false, &asym))
        return vki_opt_malformed(r);
    vki_activation a;
    vki_status s = read_activation(r, act, &a);
    if (s) return s;
    memset(&op->opt.rnn, 0, sizeof op->opt.rnn);
    op->opt.rnn.activation = (int)a;
    op->opt.rnn.rank = rank;
    op->opt.rnn.asymmetric = asym;
    return VKI_OK;
}

/* Shifts every filter's memory left by one: the whole state moves down one float (LiteRT's
 * std::copy); each filter's last slot, which then holds the next one's oldest, is written
 * next. */
static void svdf_shift(float *state, size_t n) {
    if (n > 1) memmove(state, state + 1, sizeof(float) * (n - 1));
}

/* The outputs from the filters' time products s [B, F]: the rank sums, the bias, act. */
static void svdf_outputs(const svdf_dims *d, const float *s, const float *bias,
                         vki_activation act, float *y) {
    for (int b = 0; b < d->B; b++)
        for (int u = 0; u < d->U; u++) {
            float sum = 0.0f;
            for (int r = 0; r < d->R; r++) sum += s[(size_t)b * (size_t)d->F + (size_t)(u * d->R + r)];
            if (bias) sum += bias[u];
            y[(size_t)b * (size_t)d->U + (size_t)u] = vki_apply_activation(act, sum);
        }
}

static void reference_svdf(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    const svdf_dims d = svdf_dims_of(m, op);
    float *state = (float *)inputs[4];
    float *s = malloc(sizeof(float) * (size_t)d.B * (size_t)d.F);
    if (!s) return;
    svdf_shift(state, (size_t)d.B * (size_t)d.F * (size_t)d.M);
    for (int b = 0; b < d.B; b++)
        for (int f = 0; f < d.F; f++) {
            float *mem = state + ((size_t)b * (size_t)d.F + (size_t)f) * (size_t)d.M;
            float a = 0.0f;
            for (int j = 0; j < d.I; j++)
                a += inputs[1][(size_t)f * (size_t)d.I + (size_t)j] * inputs[0][(size_t)b * (size_t)d.I + (size_t)j];
            mem[d.M - 1] = a;
            float t = 0.0f;
            for (int k = 0; k < d.M; k++) t += inputs[2][(size_t)f * (size_t)d.M + (size_t)k] * mem[k];
            s[(size_t)b * (size_t)d.F + (size_t)f] = t;
        }
    svdf_outputs(&d, s, inputs[3], (vki_activation)op->opt.rnn.activation, outputs[0]);
    free(s);
}

static vki_status run_svdf(const vki_model *m, int o, const float *const *inputs,
                           float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const svdf_dims d = svdf_dims_of(m, op);
    float *state = (float *)inputs[4];
    const size_t bf = (size_t)d.B * (size_t)d.F;
    float *s = malloc(sizeof(float) * bf);
    if (!s) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    svdf_shift(state, bf * (size_t)d.M);
    /* The feature products of every filter and row, then into each memory's last slot. */
    matmul_acc(inputs[1], d.F, d.I, inputs[0], d.B, (size_t)d.I, s, (size_t)d.F, false);
    for (size_t i = 0; i < bf; i++) state[i * (size_t)d.M + (size_t)d.M - 1] = s[i];
    /* The time products: row f of weights_time against memory f (each memory a batch row's
     * filter, M floats). */
    for (int b = 0; b < d.B; b++)
        for (int f = 0; f < d.F; f++) {
            const float *w = inputs[2] + (size_t)f * (size_t)d.M;
            const float *mem = state + ((size_t)b * (size_t)d.F + (size_t)f) * (size_t)d.M;
            float a[8] = {0};
            int k = 0;
            for (; k + 8 <= d.M; k += 8)
                for (int l = 0; l < 8; l++) a[l] += w[k + l] * mem[k + l];
            float t = 0.0f;
            for (int l = 0; l < 8; l++) t += a[l];
            for (; k < d.M; k++) t += w[k] * mem[k];
            s[(size_t)b * (size_t)d.F + (size_t)f] = t;
        }
    svdf_outputs(&d, s, inputs[3], (vki_activation)op->opt.rnn.activation, outputs[0]);
    free(s);
    return VKI_OK;
}

const vki_op_def vki_op_svdf = {
    .validate = validate_svdf,
    .reference = reference_svdf,
    .options = read_svdf,
    .run = run_svdf,
    .general = true,
};
