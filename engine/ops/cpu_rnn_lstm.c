/* cpu_rnn_lstm.c: LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM on the
 * CPU, float32, as TFLite's kernels compute them (LiteRT's tflite/kernels/lstm.cc,
 * unidirectional_sequence_lstm.cc, bidirectional_sequence_lstm.cc, and lstm_eval.cc's
 * EvalFloat / LstmStepFloat / CalculateLstmGateFloat / UpdateLstmCellFloat /
 * CalculateLstmOutputFloat).
 *
 * Inputs of one direction (LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM: 20 or 24 inputs, the
 * slots below; BIDIRECTIONAL_SEQUENCE_LSTM: 48, forward 1-17, backward 18-34 the same
 * way, states 35-38, aux input 39-47):
 *   0      input: LSTM [B, I]; the sequence ops [T, B, I] (time_major) or [B, T, I]
 *   1-4    input-to-gate weights [C, I] for the input, forget, cell and output gates
 *          (input gate's -1: CIFG, the input gate is 1 - forget gate)
 *   5-8    recurrent weights [C, O] (UNIDIRECTIONAL_SEQUENCE_LSTM also takes a diagonal
 *          [C]: gate += w * h elementwise, O = C)
 *   9-11   peephole weights [C] to the input, forget and output gates (all or none)
 *   12-15  gate biases [C] (the input gate's only without CIFG)
 *   16-17  projection weights [O, C] and bias [O] (optional; without them O = C)
 *   18-19  output state h [B, O] and cell state c [B, C]: variable tensors, updated in
 *          place (the partition keeps them across runs)
 *   20-23  layer norm coefficients [C] (24 inputs; used where the forget gate's is given)
 * Output [.., O] (the input's shape with O last); the bidirectional op gives [.., O_fw] and
 * [.., O_bw], or one [.., O_fw + O_bw] with merge_outputs.
 *
 * A step for one batch row, h and c its state:
 *   gate_g = W_g x + R_g h + P_g (.) c + b_g          (P: peephole; for o it sees the new c)
 *   layer norm: gate_g = LN_g (.) normalize(W_g x + R_g h + P_g (.) c) + b_g, normalize
 *               subtracting the mean and dividing by sqrt(variance + 1e-8) over the C cells
 *   i, f, o = sigmoid(gate); g = act(gate_c)          (act: the options' fused activation)
 *   c = clip(f (.) c + i (.) g, cell_clip)            (CIFG: i = 1 - f; clip where > 0)
 *   h = clip(P_w (o (.) act(c)) + P_b, proj_clip)     (projection where given; else
 *                                                       h = o (.) act(c))
 * and the output row is h. The backward pass of the bidirectional op walks the steps from
 * the last; each direction has its own state.
 *
 * Activation NONE, as TFLite's float kernel does it (no converter writes it, but a file
 * may): the kernel computes each gate through two buffers that it swaps after each
 * product it accumulates, and writes the activation from the one holding the sum into the
 * gate's own buffer. NONE writes nothing, so the cell gate's buffer keeps what it held:
 * the whole sum when an odd number of swaps happened (the input product, skipped where
 * the step's input is all zeros, and a diagonal recurrent product each swap), else its
 * starting value, the bias (0 with layer norm). And the last step's act(c) is written over
 * the cell gate's buffer, so with NONE the hidden value is o (.) g, not o (.) c.
 * "All zeros" is TFLite's check: the whole [B, I] step where time-major (and for LSTM),
 * each row alone where batch-major.
 *
 * Not taken, with a message: the BASIC kernel type of LSTM, hybrid models (int8 weights
 * with float activations: TFLite quantizes the activations as it goes) and integer ones,
 * and the bidirectional op's aux input. TFLite's batch-major bidirectional kernel with
 * merged outputs offsets each batch row's state by the merged width (O_fw + O_bw, past the
 * state's end for rows after the first); here each row has its own state, as everywhere.
 *
 * The reference runs each (step, row) with plain loops. run computes the input products of
 * a block of steps at once (a blocked matrix product: they do not depend on the state),
 * then each step's recurrent products and projection for all batch rows together, each
 * weight row against every batch row while it is in cache.
 */
#include "ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G_I, G_F, G_C, G_O };
static const char *const gate_name[4] = {"input", "forget", "cell", "output"};

/* One direction's input slots: -1 where the op has none. */
typedef struct lstm_slots {
    int wx[4], wr[4], peep[4], bias[4], ln[4];
    int proj_w, proj_b, h, c;
} lstm_slots;

static bool bidirectional(const vki_op *op) { return op->code == VKI_OP_BIDIRECTIONAL_SEQUENCE_LSTM; }
static bool has(const vki_op *op, int slot) {
    return slot >= 0 && slot < op->n_inputs && op->inputs[slot] >= 0;
}

static lstm_slots slots_of(const vki_op *op, int dir) {
    lstm_slots s;
    const int base = dir ? 18 : 1;
    for (int g = 0; g < 4; g++) {
        s.wx[g] = base + g;
        s.wr[g] = base + 4 + g;
        s.bias[g] = base + 11 + g;
        s.ln[g] = -1;
    }
    s.peep[G_I] = base + 8;
    s.peep[G_F] = base + 9;
    s.peep[G_O] = base + 10;
    s.peep[G_C] = -1;
    s.proj_w = base + 15;
    s.proj_b = base + 16;
    if (bidirectional(op)) {
        s.h = dir ? 37 : 35;
        s.c = dir ? 38 : 36;
    } else {
        s.h = 18;
        s.c = 19;
        /* Layer norm where the forget gate's coefficients are given (TFLite's test). */
        if (op->n_inputs == 24 && has(op, 21))
            for (int g = 0; g < 4; g++) s.ln[g] = 20 + g;
    }
    return s;
}

/* The sizes of a validated op. */
typedef struct lstm_dims {
    int T, B, I;                /* steps, batch rows, input size */
    bool time_major;
    int dirs;
    int C[2], O[2];             /* cells and outputs of each direction */
} lstm_dims;

static lstm_dims dims_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *x = vki_op_in(m, op, 0);
    lstm_dims d = {0};
    if (op->code == VKI_OP_LSTM) {
        d.T = 1;
        d.B = x->shape[0];
        d.time_major = true;
    } else {
        d.time_major = op->opt.rnn.time_major != 0;
        d.T = x->shape[d.time_major ? 0 : 1];
        d.B = x->shape[d.time_major ? 1 : 0];
    }
    d.I = x->shape[x->rank - 1];
    d.dirs = bidirectional(op) ? 2 : 1;
    for (int dir = 0; dir < d.dirs; dir++) {
        const lstm_slots s = slots_of(op, dir);
        const vki_tensor *wo = vki_op_in(m, op, s.wx[G_O]), *ro = vki_op_in(m, op, s.wr[G_O]);
        d.C[dir] = wo->shape[0];
        d.O[dir] = ro->rank == 1 ? ro->shape[0] : ro->shape[1];
    }
    return d;
}

/* ---- validation ---------------------------------------------------------------------- */

/* Input `slot` is float32 (not a hybrid model's int8 constant) of rank `rank` with extents
 * d0 (and d1 for rank 2). */
static vki_status check_input(const vki_model *m, int o, int slot, const char *what, int rank,
                              int d0, int d1) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "%s: vkinfer runs float32 LSTMs only, not TFLite's integer LSTM", what,
                           slot, op->inputs[slot], t->name, vki_dtype_name(t->dtype));
    if (t->qdata)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "quantized: hybrid LSTMs (int8 weights, float activations, which TFLite "
                           "quantizes as it goes) are not supported", what, slot, op->inputs[slot],
                           t->name);
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

/* A state input: a float32 variable tensor of `count` elements, [B, n] where rank 2. */
static vki_status check_state(const vki_model *m, int o, int slot, const char *what, int B,
                              int n) {
    const vki_op *op = &m->ops[o];
    if (!has(op, slot))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d) is missing", what, slot);
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (input %d, tensor %d '%s') is "
                           "%s: vkinfer runs float32 LSTMs only, not TFLite's integer LSTM", what,
                           slot, op->inputs[slot], t->name, vki_dtype_name(t->dtype));
    if (!t->is_variable)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') is not a "
                           "variable tensor: the op keeps its state there", what, slot,
                           op->inputs[slot], t->name);
    if (t->rank == 2) return vki_op_expect_dims(m, o, op->inputs[slot], 2, (int[]){B, n});
    if (t->rank == 1) return vki_op_expect_dims(m, o, op->inputs[slot], 1, (int[]){B * n});
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') has rank %d, "
                       "need [%d,%d]", what, slot, op->inputs[slot], t->name, t->rank, B, n);
}

/* One direction's weights against its sizes: C cells from the output gate's input weights,
 * O outputs from its recurrent weights. */
static vki_status check_direction(const vki_model *m, int o, int dir, int I, int B, int *C_out,
                                  int *O_out) {
    const vki_op *op = &m->ops[o];
    const lstm_slots s = slots_of(op, dir);
    const char *side = !bidirectional(op) ? "" : dir ? "backward " : "forward ";
    char what[96];
    for (int g = 0; g < 4; g++)
        if (g != G_I && (!has(op, s.wx[g]) || !has(op, s.wr[g]) || !has(op, s.bias[g])))
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s%s gate's weights or bias "
                               "(inputs %d, %d, %d) are missing", side, gate_name[g], s.wx[g],
                               s.wr[g], s.bias[g]);
    const vki_tensor *wo = vki_op_in(m, op, s.wx[G_O]), *ro = vki_op_in(m, op, s.wr[G_O]);
    if (wo->rank != 2 || (ro->rank != 1 && ro->rank != 2))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%soutput gate's weights (tensors %d "
                           "and %d) have ranks %d and %d, need 2 and 2", side, op->inputs[s.wx[G_O]],
                           op->inputs[s.wr[G_O]], wo->rank, ro->rank);
    const int C = wo->shape[0], O = ro->rank == 1 ? ro->shape[0] : ro->shape[1];
    const bool diag_ok = op->code == VKI_OP_UNIDIRECTIONAL_SEQUENCE_LSTM;
    const bool cifg = !has(op, s.wx[G_I]);
    if (cifg != !has(op, s.wr[G_I]))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%sinput gate: input weights (input %d) "
                           "and recurrent weights (input %d) must both be given or both omitted "
                           "(CIFG)", side, s.wx[G_I], s.wr[G_I]);
    if (cifg == has(op, s.bias[G_I]))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%sinput gate bias (input %d) must be "
                           "given exactly when the input gate's weights are", side, s.bias[G_I]);
    bool diag = false;
    vki_status st = VKI_OK;
    for (int g = 0; g < 4 && !st; g++) {
        if (g == G_I && cifg) continue;
        snprintf(what, sizeof what, "%s%s gate's input weights", side, gate_name[g]);
        st = check_input(m, o, s.wx[g], what, 2, C, I);
        if (st) break;
        snprintf(what, sizeof what, "%s%s gate's recurrent weights", side, gate_name[g]);
        const vki_tensor *r = vki_op_in(m, op, s.wr[g]);
        if (r->rank == 1 && diag_ok) {
            diag = true;
            st = check_input(m, o, s.wr[g], what, 1, C, 0);
        } else {
            st = check_input(m, o, s.wr[g], what, 2, C, O);
        }
        if (st) break;
        snprintf(what, sizeof what, "%s%s gate bias", side, gate_name[g]);
        st = check_input(m, o, s.bias[g], what, 1, C, 0);
    }
    if (st) return st;
    if (diag && O != C)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%sdiagonal recurrent weights need as "
                           "many outputs as cells (%d outputs, %d cells)", side, O, C);
    const int n_peep = has(op, s.peep[G_I]) + has(op, s.peep[G_F]) + has(op, s.peep[G_O]);
    const bool peephole = has(op, s.peep[G_F]);
    if (n_peep && n_peep != (cifg && !has(op, s.peep[G_I]) ? 2 : 3))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%speephole weights (inputs %d-%d) must "
                           "be all given or all omitted", side, s.peep[G_I], s.peep[G_O]);
    for (int g = 0; peephole && g < 4 && !st; g++) {
        if (g == G_C || (g == G_I && cifg)) continue;
        snprintf(what, sizeof what, "%s%s gate's peephole weights", side, gate_name[g]);
        st = check_input(m, o, s.peep[g], what, 1, C, 0);
    }
    if (s.ln[G_F] >= 0)
        for (int g = 0; g < 4 && !st; g++) {
            if (g == G_I && cifg) {
                if (has(op, s.ln[g]))
                    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input gate layer norm "
                                       "coefficients (input %d) given with CIFG", s.ln[g]);
                continue;
            }
            if (!has(op, s.ln[g]))
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s gate layer norm coefficients "
                                   "(input %d) are missing", gate_name[g], s.ln[g]);
            snprintf(what, sizeof what, "%s gate layer norm coefficients", gate_name[g]);
            st = check_input(m, o, s.ln[g], what, 1, C, 0);
        }
    if (st) return st;
    if (has(op, s.proj_w)) {
        snprintf(what, sizeof what, "%sprojection weights", side);
        st = check_input(m, o, s.proj_w, what, 2, O, C);
        if (!st && has(op, s.proj_b)) {
            snprintf(what, sizeof what, "%sprojection bias", side);
            st = check_input(m, o, s.proj_b, what, 1, O, 0);
        }
        if (st) return st;
    } else if (has(op, s.proj_b)) {
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%sprojection bias (input %d) without "
                           "projection weights", side, s.proj_b);
    } else if (O != C) {
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s%d outputs and %d cells without a "
                           "projection: need as many outputs as cells", side, O, C);
    }
    snprintf(what, sizeof what, "%soutput state", side);
    st = check_state(m, o, s.h, what, B, O);
    snprintf(what, sizeof what, "%scell state", side);
    if (!st) st = check_state(m, o, s.c, what, B, C);
    *C_out = C;
    *O_out = O;
    return st;
}

static vki_status validate_lstm(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const bool bidi = bidirectional(op);
    if (bidi ? op->n_inputs != 48 : op->n_inputs != 20 && op->n_inputs != 24)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %s", op->n_inputs,
                           bidi ? "48" : "20 or 24");
    const int n_outputs = bidi && !op->opt.rnn.merge_outputs ? 2 : 1;
    if (op->n_outputs != n_outputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need %d%s",
                           op->n_outputs, n_outputs, bidi ? (n_outputs == 1 ? " (merge_outputs)" :
                           " (merge_outputs off)") : "");
    if (!has(op, 0))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input 0 is missing");
    for (int i = 39; bidi && i < 48; i++)
        if (has(op, i))
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input %d: the aux input and its "
                               "weights (inputs 39-47) are not supported", i);
    if (!(op->opt.rnn.cell_clip >= 0.0f) || !(op->opt.rnn.proj_clip >= 0.0f))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "cell_clip %g and proj_clip %g: need 0 "
                           "(no clipping) or more", op->opt.rnn.cell_clip, op->opt.rnn.proj_clip);
    const vki_tensor *x = vki_op_in(m, op, 0);
    const int want_rank = op->code == VKI_OP_LSTM ? 2 : 3;
    if (x->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') is %s: "
                           "vkinfer runs float32 LSTMs only", op->inputs[0], x->name,
                           vki_dtype_name(x->dtype));
    if (x->rank != want_rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') has rank %d, "
                           "need %d (%s)", op->inputs[0], x->name, x->rank, want_rank,
                           want_rank == 2 ? "[batch, input]" : "[time, batch, input] or "
                           "[batch, time, input]");
    for (int i = 0; i < x->rank; i++)
        if (x->shape[i] <= 0)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input (tensor %d '%s') has "
                               "dimension %d = %d", op->inputs[0], x->name, i, x->shape[i]);
    const bool time_major = op->code == VKI_OP_LSTM || op->opt.rnn.time_major;
    const int I = x->shape[x->rank - 1];
    const int B = op->code == VKI_OP_LSTM ? x->shape[0] : x->shape[time_major ? 1 : 0];
    int C[2], O[2];
    for (int dir = 0; dir < (bidi ? 2 : 1); dir++) {
        vki_status s = check_direction(m, o, dir, I, B, &C[dir], &O[dir]);
        if (s) return s;
    }
    /* TFLite checks each direction's tensors against both directions' sizes. */
    if (bidi && (C[1] != C[0] || O[1] != O[0]))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "the backward direction has %d cells and "
                           "%d outputs, the forward %d and %d: they must match", C[1], O[1], C[0],
                           O[0]);
    for (int i = 0; i < op->n_outputs; i++) {
        const vki_tensor *y = vki_op_out(m, op, i);
        if (y->dtype != VKI_DTYPE_FLOAT32 || y->data)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output %d (tensor %d '%s') must be a "
                               "float32 activation", i, op->outputs[i], y->name);
        int dims[3];
        memcpy(dims, x->shape, sizeof(int) * (size_t)x->rank);
        dims[x->rank - 1] = bidi && op->opt.rnn.merge_outputs ? O[0] + O[1] : O[i];
        vki_status s = vki_op_expect_dims(m, o, op->outputs[i], x->rank, dims);
        if (s) return s;
    }
    return VKI_OK;
}

/* ---- options ------------------------------------------------------------------------- */

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

/* The tables share their first fields: fused_activation_function (0), cell_clip (1),
 * proj_clip (2); then LSTMOptions kernel_type (3, FULL = 0), asymmetric_quantize_inputs (4);
 * UnidirectionalSequenceLSTMOptions time_major (3), asymmetric_quantize_inputs (4),
 * diagonal_recurrent_tensors (5: the recurrent weights' rank says it);
 * BidirectionalSequenceLSTMOptions merge_outputs (3), time_major (4, default true),
 * asymmetric_quantize_inputs (5). */
static vki_status read_lstm(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int8_t act, kernel_type = 0;
    float cell_clip, proj_clip;
    bool time_major = false, merge = false, asym = false;
    if (!vki_opt_i8(r, 0, 0, &act) || !vki_opt_f32(r, 1, 0.0f, &cell_clip) ||
        !vki_opt_f32(r, 2, 0.0f, &proj_clip))
        return vki_opt_malformed(r);
    bool ok = true;
    switch (op->code) {
    case VKI_OP_LSTM:
        ok = vki_opt_i8(r, 3, 0, &kernel_type) && vki_opt_bool(r, 4, false, &asym);
        time_major = true;
        break;
    case VKI_OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
        ok = vki_opt_bool(r, 3, false, &time_major) && vki_opt_bool(r, 4, false, &asym);
        break;
    default:
        ok = vki_opt_bool(r, 3, false, &merge) && vki_opt_bool(r, 4, true, &time_major) &&
             vki_opt_bool(r, 5, false, &asym);
        break;
    }
    if (!ok) return vki_opt_malformed(r);
    if (kernel_type != 0)
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_MODEL, "kernel_type %d (BASIC): only the "
                            "FULL LSTM kernel is supported", kernel_type);
    vki_activation a;
    vki_status s = read_activation(r, act, &a);
    if (s) return s;
    op->opt.rnn.activation = (int)a;
    op->opt.rnn.cell_clip = cell_clip;
    op->opt.rnn.proj_clip = proj_clip;
    op->opt.rnn.time_major = time_major;
    op->opt.rnn.merge_outputs = merge;
    op->opt.rnn.rank = 0;
    op->opt.rnn.asymmetric = asym;
    return VKI_OK;
}

/* ---- one direction's values ------------------------------------------------------------ */

typedef struct lstm_dir {
    const float *wx[4], *wr[4], *peep[4], *bias[4], *ln[4], *proj_w, *proj_b;
    bool diag[4];
    float *h, *c;               /* the state: [B, O] and [B, C], updated in place */
    int C, O;
    bool reverse;               /* the bidirectional op's backward pass */
    float *out;                 /* the output, rows of out_ld floats, this direction's at */
    int out_ld, out_off;        /* out_off in each */
} lstm_dir;

static const float *in_or_null(const vki_op *op, const float *const *inputs, int slot) {
    return has(op, slot) ? inputs[slot] : NULL;
}

static lstm_dir bind(const vki_model *m, const vki_op *op, const lstm_dims *d, int dir,
                     const float *const *inputs, float *const *outputs) {
    const lstm_slots s = slots_of(op, dir);
    lstm_dir r;
    memset(&r, 0, sizeof r);
    for (int g = 0; g < 4; g++) {
        r.wx[g] = in_or_null(op, inputs, s.wx[g]);
        r.wr[g] = in_or_null(op, inputs, s.wr[g]);
        r.peep[g] = in_or_null(op, inputs, s.peep[g]);
        r.bias[g] = in_or_null(op, inputs, s.bias[g]);
        r.ln[g] = in_or_null(op, inputs, s.ln[g]);
        r.diag[g] = has(op, s.wr[g]) && vki_op_in(m, op, s.wr[g])->rank == 1;
    }
    r.proj_w = in_or_null(op, inputs, s.proj_w);
    r.proj_b = r.proj_w ? in_or_null(op, inputs, s.proj_b) : NULL;
    /* The state is the variable tensors' own storage, which the op updates. */
    r.h = (float *)inputs[s.h];
    r.c = (float *)inputs[s.c];
    r.C = d->C[dir];
    r.O = d->O[dir];
    r.reverse = dir == 1;
    const bool merged = d->dirs == 2 && op->n_outputs == 1;
    r.out = outputs[merged ? 0 : dir];
    r.out_ld = merged ? d->O[0] + d->O[1] : r.O;
    r.out_off = merged && dir == 1 ? d->O[0] : 0;
    return r;
}

/* Row index of step t, batch row b in the input and output. */
static size_t row_of(const lstm_dims *d, int t, int b) {
    return d->time_major ? (size_t)t * (size_t)d->B + (size_t)b : (size_t)b * (size_t)d->T + (size_t)t;
}

static float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

static float clip(float x, float c) {
    if (c > 0.0f) return x > c ? c : x < -c ? -c : x;
    return x;
}

/* Whether TFLite's kernel sees step t's input (for batch row b) as all zeros: only the NONE
 * activation's buffer quirk depends on it. */
static bool step_input_zero(const lstm_dims *d, const float *x, int t, int b) {
    size_t from = row_of(d, t, d->time_major ? 0 : b) * (size_t)d->I;
    size_t n = (size_t)d->I * (size_t)(d->time_major ? d->B : 1);
    for (size_t i = 0; i < n; i++)
        if (x[from + i] != 0.0f) return false;
    return true;
}

/* Layer norm of a gate's C sums (TFLite's MeanStddevNormalization, then coefficients and
 * bias). */
static void layer_norm(float *v, int C, const float *coeff, const float *bias) {
    float sum = 0.0f;
    for (int k = 0; k < C; k++) sum += v[k];
    const float mean = sum / (float)C;
    float sq = 0.0f;
    for (int k = 0; k < C; k++) sq += (v[k] - mean) * (v[k] - mean);
    const float inv = 1.0f / sqrtf(sq / (float)C + 1e-8f);
    for (int k = 0; k < C; k++) v[k] = (v[k] - mean) * inv * coeff[k] + bias[k];
}

/* The gate's activation over its C sums, from `sums` into `gate` (they may be the same);
 * NONE keeps the cell gate's buffer as TFLite's leaves it (top of file). */
static void activate_gate(const lstm_dir *d, int g, vki_activation act, bool x_zero,
                          const float *sums, float *gate) {
    if (g != G_C) {
        for (int k = 0; k < d->C; k++) gate[k] = sigmoid(sums[k]);
    } else if (act != VKI_ACT_NONE) {
        for (int k = 0; k < d->C; k++) gate[k] = vki_apply_activation(act, sums[k]);
    } else if (!x_zero != d->diag[G_C]) {
        memmove(gate, sums, sizeof(float) * (size_t)d->C);
    } else {
        for (int k = 0; k < d->C; k++) gate[k] = d->ln[G_C] ? 0.0f : d->bias[G_C][k];
    }
}

/* The rest of a step for one row once the gates i, f and g are activated and gate[G_O]
 * holds the output gate's sums: the new cell state c, the output gate (its peephole sees
 * the new c), and the hidden value o (.) act(c), written over the cell gate's buffer as
 * TFLite writes it (so with NONE it is o (.) g: top of file); returns that buffer. */
static float *cell_row(const lstm_dir *d, vki_activation act, float cell_clip, float *gate[4],
                       float *c) {
    const int C = d->C;
    const bool cifg = !d->wx[G_I];
    for (int k = 0; k < C; k++) {
        const float f = gate[G_F][k];
        c[k] = clip(f * c[k] + (cifg ? 1.0f - f : gate[G_I][k]) * gate[G_C][k], cell_clip);
    }
    if (d->peep[G_O])
        for (int k = 0; k < C; k++) gate[G_O][k] += d->peep[G_O][k] * c[k];
    if (d->ln[G_O]) layer_norm(gate[G_O], C, d->ln[G_O], d->bias[G_O]);
    activate_gate(d, G_O, act, false, gate[G_O], gate[G_O]);
    float *hid = gate[G_C];
    for (int k = 0; k < C; k++)
        hid[k] = gate[G_O][k] * (act == VKI_ACT_NONE ? hid[k] : vki_apply_activation(act, c[k]));
    return hid;
}

/* The new output state of a row, hnew (O floats: the projection's sums where there is one,
 * else the hidden values), finished (projection bias, clip) into the state h and output y. */
static void output_row(const lstm_dir *d, float proj_clip, const float *hnew, float *h, float *y) {
    for (int r = 0; r < d->O; r++) {
        float v = hnew[r];
        if (d->proj_w) v = clip(v + (d->proj_b ? d->proj_b[r] : 0.0f), proj_clip);
        h[r] = y[r] = v;
    }
}

/* ---- reference ----------------------------------------------------------------------- */

/* One step of one batch row, plain loops (TFLite's LstmStepFloat for one row). tmp: 4 C + O
 * floats. */
static void reference_row(const lstm_dir *d, const lstm_dims *dm, const float *x, bool x_zero,
                          vki_activation act, float cell_clip, float proj_clip, float *h, float *c,
                          float *y, float *tmp) {
    const int C = d->C, O = d->O, I = dm->I;
    float *gate[4] = {tmp, tmp + C, tmp + 2 * C, tmp + 3 * C};
    for (int g = 0; g < 4; g++) {
        if (!d->wx[g]) continue;   /* CIFG: no input gate */
        for (int k = 0; k < C; k++) {
            float s = d->ln[g] ? 0.0f : d->bias[g][k];
            for (int j = 0; j < I; j++) s += d->wx[g][(size_t)k * (size_t)I + (size_t)j] * x[j];
            if (d->diag[g]) s += d->wr[g][k] * h[k];
            else
                for (int j = 0; j < O; j++) s += d->wr[g][(size_t)k * (size_t)O + (size_t)j] * h[j];
            /* Peepholes of the input and forget gates see the old cell state. */
            if (d->peep[g] && g != G_O) s += d->peep[g][k] * c[k];
            gate[g][k] = s;
        }
        if (g == G_O) continue;   /* finished after the cell update */
        if (d->ln[g]) layer_norm(gate[g], C, d->ln[g], d->bias[g]);
        activate_gate(d, g, act, x_zero, gate[g], gate[g]);
    }
    const float *hid = cell_row(d, act, cell_clip, gate, c);
    float *hnew = tmp + 4 * C;
    for (int r = 0; r < O; r++) {
        float s = 0.0f;
        if (d->proj_w)
            for (int k = 0; k < C; k++) s += d->proj_w[(size_t)r * (size_t)C + (size_t)k] * hid[k];
        hnew[r] = d->proj_w ? s : hid[r];
    }
    output_row(d, proj_clip, hnew, h, y);
}

static void reference_lstm(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    const lstm_dims d = dims_of(m, op);
    const vki_activation act = (vki_activation)op->opt.rnn.activation;
    for (int dir = 0; dir < d.dirs; dir++) {
        const lstm_dir r = bind(m, op, &d, dir, inputs, outputs);
        float *tmp = malloc(sizeof(float) * (size_t)(4 * r.C + r.O));
        if (!tmp) return;
        for (int step = 0; step < d.T; step++) {
            const int t = r.reverse ? d.T - 1 - step : step;
            for (int b = 0; b < d.B; b++) {
                const size_t row = row_of(&d, t, b);
                const bool zero = act == VKI_ACT_NONE && step_input_zero(&d, inputs[0], t, b);
                reference_row(&r, &d, inputs[0] + row * (size_t)d.I, zero, act,
                              op->opt.rnn.cell_clip, op->opt.rnn.proj_clip,
                              r.h + (size_t)b * (size_t)r.O, r.c + (size_t)b * (size_t)r.C,
                              r.out + row * (size_t)r.out_ld + (size_t)r.out_off, tmp);
            }
        }
        free(tmp);
    }
}

/* ---- run ------------------------------------------------------------------------------ */

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

/* Steps whose input products run computes at once. */
#define LSTM_STEP_BLOCK 32

static vki_status run_lstm(const vki_model *m, int o, const float *const *inputs,
                           float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const lstm_dims d = dims_of(m, op);
    const vki_activation act = (vki_activation)op->opt.rnn.activation;
    const float *x = inputs[0];
    int Cmax = d.C[0], Omax = d.O[0];
    if (d.dirs == 2) {
        if (d.C[1] > Cmax) Cmax = d.C[1];
        if (d.O[1] > Omax) Omax = d.O[1];
    }
    const int block = d.T < LSTM_STEP_BLOCK ? d.T : LSTM_STEP_BLOCK;
    /* pre: the input products of a block of steps, [step][b][gate][C]; xs: those steps'
     * inputs gathered in (step, b) order; gates: one step's sums, [b][gate][C]; hnew: the
     * projected output state of every row. */
    const size_t n_pre = (size_t)block * (size_t)d.B * 4 * (size_t)Cmax;
    const size_t n_xs = (size_t)block * (size_t)d.B * (size_t)d.I;
    const size_t n_gates = (size_t)d.B * 4 * (size_t)Cmax;
    float *buf = malloc(sizeof(float) * (n_pre + n_xs + n_gates + (size_t)d.B * (size_t)Omax));
    char *zero = malloc((size_t)d.B);
    if (!buf || !zero) {
        free(buf);
        free(zero);
        return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    float *pre = buf, *xs = pre + n_pre, *gates = xs + n_xs, *hnew = gates + n_gates;
    for (int dir = 0; dir < d.dirs; dir++) {
        const lstm_dir r = bind(m, op, &d, dir, inputs, outputs);
        const int C = r.C, O = r.O;
        const size_t gate_stride = 4 * (size_t)C;   /* one row's four gates */
        for (int s0 = 0; s0 < d.T; s0 += block) {
            const int n_steps = d.T - s0 < block ? d.T - s0 : block;
            for (int i = 0; i < n_steps; i++) {
                const int t = r.reverse ? d.T - 1 - (s0 + i) : s0 + i;
                for (int b = 0; b < d.B; b++)
                    memcpy(xs + ((size_t)i * (size_t)d.B + (size_t)b) * (size_t)d.I,
                           x + row_of(&d, t, b) * (size_t)d.I, sizeof(float) * (size_t)d.I);
            }
            const int n_rows = n_steps * d.B;
            for (int g = 0; g < 4; g++)
                if (r.wx[g])
                    matmul_acc(r.wx[g], C, d.I, xs, n_rows, (size_t)d.I, pre + (size_t)g * (size_t)C,
                               gate_stride, false);
            for (int i = 0; i < n_steps; i++) {
                const int t = r.reverse ? d.T - 1 - (s0 + i) : s0 + i;
                float *p = pre + (size_t)i * (size_t)d.B * gate_stride;
                for (int b = 0; b < d.B; b++)
                    zero[b] = act == VKI_ACT_NONE && step_input_zero(&d, x, t, b);
                /* gates = bias (not with layer norm) + input product + recurrent product. */
                for (int b = 0; b < d.B; b++)
                    for (int g = 0; g < 4; g++) {
                        if (!r.wx[g]) continue;
                        float *dst = gates + (size_t)b * gate_stride + (size_t)g * (size_t)C;
                        const float *src = p + (size_t)b * gate_stride + (size_t)g * (size_t)C;
                        for (int k = 0; k < C; k++)
                            dst[k] = (r.ln[g] ? 0.0f : r.bias[g][k]) + src[k];
                    }
                for (int g = 0; g < 4; g++) {
                    if (!r.wx[g]) continue;
                    if (r.diag[g]) {
                        for (int b = 0; b < d.B; b++) {
                            float *dst = gates + (size_t)b * gate_stride + (size_t)g * (size_t)C;
                            const float *hb = r.h + (size_t)b * (size_t)O;
                            for (int k = 0; k < C; k++) dst[k] += r.wr[g][k] * hb[k];
                        }
                    } else {
                        matmul_acc(r.wr[g], C, O, r.h, d.B, (size_t)O,
                                   gates + (size_t)g * (size_t)C, gate_stride, true);
                    }
                }
                for (int b = 0; b < d.B; b++) {
                    float *gb = gates + (size_t)b * gate_stride;
                    float *gate[4] = {gb, gb + C, gb + 2 * C, gb + 3 * C};
                    float *c = r.c + (size_t)b * (size_t)C;
                    for (int g = 0; g < 3; g++) {
                        if (!r.wx[g]) continue;
                        if (r.peep[g])
                            for (int k = 0; k < C; k++) gate[g][k] += r.peep[g][k] * c[k];
                        if (r.ln[g]) layer_norm(gate[g], C, r.ln[g], r.bias[g]);
                        activate_gate(&r, g, act, zero[b], gate[g], gate[g]);
                    }
                    cell_row(&r, act, op->opt.rnn.cell_clip, gate, c);
                }
                /* The hidden values (each row's cell gate buffer), projected for all rows. */
                if (r.proj_w)
                    matmul_acc(r.proj_w, O, C, gates + 2 * (size_t)C, d.B, gate_stride, hnew,
                               (size_t)O, false);
                for (int b = 0; b < d.B; b++) {
                    const float *hb = r.proj_w ? hnew + (size_t)b * (size_t)O
                                               : gates + (size_t)b * gate_stride + 2 * (size_t)C;
                    output_row(&r, op->opt.rnn.proj_clip, hb, r.h + (size_t)b * (size_t)O,
                               r.out + row_of(&d, t, b) * (size_t)r.out_ld + (size_t)r.out_off);
                }
            }
        }
    }
    free(buf);
    free(zero);
    return VKI_OK;
}

const vki_op_def vki_op_lstm = {
    .validate = validate_lstm,
    .reference = reference_lstm,
    .options = read_lstm,
    .run = run_lstm,
    .general = true,
};
const vki_op_def vki_op_unidirectional_sequence_lstm = {
    .validate = validate_lstm,
    .reference = reference_lstm,
    .options = read_lstm,
    .run = run_lstm,
    .general = true,
};
const vki_op_def vki_op_bidirectional_sequence_lstm = {
    .validate = validate_lstm,
    .reference = reference_lstm,
    .options = read_lstm,
    .run = run_lstm,
    .general = true,
};
