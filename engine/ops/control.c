/* control.c: IF, WHILE and CALL_ONCE, which run other subgraphs of the file (loaded beside
 * the model, vki_model.subgraphs): validation and options here; the runs are the
 * partition's (engine/runtime/partition.c), which builds each subgraph as a graph of its own, its
 * ops on the GPU where they can be, and drives the loop or the branch from the host.
 *   IF: input 0 is the condition (a one-element tensor, true when nonzero); the then or the
 *       else subgraph takes inputs 1.. and gives the outputs.
 *   WHILE: the loop variables (inputs, and outputs of the same shapes); the cond subgraph
 *       takes them and gives one bool, the body takes them and gives their next values.
 *   CALL_ONCE: the init subgraph (no inputs, no outputs) runs at the first run, and again
 *       after vki_graph_reset_variables: it assigns resource variables' first values.
 * They have no reference: vki_model_reference_run refuses a model with them. */
#include "ops.h"

#include <stdio.h>
#include <string.h>

int vki_op_subgraph_count(const vki_op *op) {
    switch (op->code) {
    case VKI_OP_IF: case VKI_OP_WHILE: return 2;
    case VKI_OP_CALL_ONCE: return 1;
    default: return 0;
    }
}

static vki_status read_two(vki_options_reader *r, vki_op *op) {
    int32_t a, b;
    if (!vki_opt_i32(r, 0, 0, &a) || !vki_opt_i32(r, 1, 0, &b)) return vki_opt_malformed(r);
    op->opt.control.subgraph[0] = a;
    op->opt.control.subgraph[1] = b;
    return VKI_OK;
}

/* IfOptions: then_subgraph_index 0, else_subgraph_index 1; WhileOptions: cond 0, body 1. */
static vki_status options_two(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    return read_two(r, op);
}

/* CallOnceOptions: init_subgraph_index 0. */
static vki_status options_once(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    int32_t a;
    if (!vki_opt_i32(r, 0, 0, &a)) return vki_opt_malformed(r);
    op->opt.control.subgraph[0] = a;
    op->opt.control.subgraph[1] = -1;
    return VKI_OK;
}

static vki_status check_activations(const vki_model *m, int o, int first) {
    const vki_op *op = &m->ops[o];
    for (int i = first; i < op->n_inputs; i++)
        if (op->inputs[i] < 0 || op->inputs[i] >= m->n_tensors)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input %d: tensor index %d out of "
                               "range", i, op->inputs[i]);
    for (int i = 0; i < op->n_outputs; i++)
        if (op->outputs[i] < 0 || op->outputs[i] >= m->n_tensors)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output %d: tensor index %d out of "
                               "range", i, op->outputs[i]);
    return VKI_OK;
}

static vki_status validate_if(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has no condition input");
    vki_status s = check_activations(m, o, 0);
    if (s) return s;
    const vki_tensor *c = vki_op_in(m, op, 0);
    if (vki_tensor_elements(c) != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "condition (tensor %d '%s') has %zu "
                           "elements, need 1", op->inputs[0], c->name, vki_tensor_elements(c));
    return VKI_OK;
}

static vki_status validate_while(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = check_activations(m, o, 0);
    if (s) return s;
    if (op->n_inputs != op->n_outputs || op->n_inputs < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs; the loop "
                           "variables are both", op->n_inputs, op->n_outputs);
    for (int i = 0; i < op->n_inputs; i++) {
        const vki_tensor *in = vki_op_in(m, op, i);
        s = vki_op_expect_dims(m, o, op->outputs[i], in->rank, in->shape);
        if (s) return s;
    }
    return VKI_OK;
}

static vki_status validate_once(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs || op->n_outputs)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need "
                           "none", op->n_inputs, op->n_outputs);
    return VKI_OK;
}

/* Tensor t of m against tensor u of subgraph g, for a message naming both. */
static vki_status same_shape(const vki_model *m, int o, int t, const vki_model *g, int u,
                             const char *what) {
    const vki_tensor *a = &m->tensors[t], *b = &g->tensors[u];
    int same = a->rank == b->rank;
    for (int i = 0; same && i < a->rank; i++) same = a->shape[i] == b->shape[i];
    if (same) return VKI_OK;
    char sa[96], sb[96];
    vki_format_dims(sa, sizeof sa, a->rank, a->shape);
    vki_format_dims(sb, sizeof sb, b->rank, b->shape);
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "tensor %d '%s' %s does not match %s of %s "
                       "(tensor '%s' %s)", t, a->name, sa, what, g->name, b->name, sb);
}

/* Subgraph g takes the tensors ins[0..n_in) and gives outs[0..n_out) (NULL: any shapes). */
static vki_status check_io(const vki_model *m, int o, const vki_model *g, int n_in, const int *ins,
                           int n_out, const int *outs) {
    if (g->n_inputs != n_in || (outs && g->n_outputs != n_out) || (!outs && g->n_outputs != n_out))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s has %d inputs and %d outputs, the op "
                           "needs %d and %d", g->name, g->n_inputs, g->n_outputs, n_in, n_out);
    for (int i = 0; i < n_in; i++) {
        char what[32];
        snprintf(what, sizeof what, "input %d", i);
        vki_status s = same_shape(m, o, ins[i], g, g->inputs[i], what);
        if (s) return s;
    }
    for (int i = 0; outs && i < n_out; i++) {
        char what[32];
        snprintf(what, sizeof what, "output %d", i);
        vki_status s = same_shape(m, o, outs[i], g, g->outputs[i], what);
        if (s) return s;
    }
    return VKI_OK;
}

vki_status vki_op_check_subgraphs(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const vki_model *a = m->subgraphs[op->opt.control.subgraph[0]];
    const vki_model *b = op->opt.control.subgraph[1] >= 0 ? m->subgraphs[op->opt.control.subgraph[1]] : NULL;
    switch (op->code) {
    case VKI_OP_IF: {
        vki_status s = check_io(m, o, a, op->n_inputs - 1, op->inputs + 1, op->n_outputs, op->outputs);
        return s ? s : check_io(m, o, b, op->n_inputs - 1, op->inputs + 1, op->n_outputs, op->outputs);
    }
    case VKI_OP_WHILE: {
        vki_status s = check_io(m, o, a, op->n_inputs, op->inputs, 1, NULL);
        if (!s && vki_tensor_elements(&a->tensors[a->outputs[0]]) != 1)
            s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s's output has %zu elements, need 1 "
                            "(the loop's condition)", a->name,
                            vki_tensor_elements(&a->tensors[a->outputs[0]]));
        return s ? s : check_io(m, o, b, op->n_inputs, op->inputs, op->n_outputs, op->outputs);
    }
    case VKI_OP_CALL_ONCE: return check_io(m, o, a, 0, NULL, 0, NULL);
    default: return VKI_OK;
    }
}

const vki_op_def vki_op_if_ = {.validate = validate_if, .options = options_two, .general = true};
const vki_op_def vki_op_while_ = {.validate = validate_while, .options = options_two, .general = true};
const vki_op_def vki_op_call_once = {.validate = validate_once, .options = options_once, .general = true};
