/* variable.c: resource variables, state a graph keeps across its runs (streaming models):
 * VAR_HANDLE gives the handle of the variable named by its options (container and
 * shared_name: one variable for every handle of the same name, in every subgraph of the
 * model), ASSIGN_VARIABLE stores a value (its shape with it), READ_VARIABLE reads it (zeros
 * before any assignment, as LiteRT reads one without an initialiser).
 * Validation and options here; the store is the partition's (engine/runtime/partition.c), kept by
 * the graph until vki_graph_reset_variables. They have no reference. */
#include "ops.h"

#include <stdio.h>

/* VarHandleOptions: container 0, shared_name 1. */
static vki_status options_handle(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    const char *container, *shared;
    if (!vki_opt_string(r, 0, &container) || !vki_opt_string(r, 1, &shared))
        return vki_opt_malformed(r);
    if ((size_t)snprintf(op->opt.var.name, sizeof op->opt.var.name, "%s/%s", container, shared) >=
        sizeof op->opt.var.name)
        return vki_opt_fail(r, VKI_ERROR_UNSUPPORTED_MODEL, "variable name '%s/%s' is longer than "
                            "%zu bytes", container, shared, sizeof op->opt.var.name - 1);
    return VKI_OK;
}

static vki_status check_resource(const vki_model *m, int o, int t, const char *role) {
    if (t < 0 || t >= m->n_tensors || m->tensors[t].dtype != VKI_DTYPE_RESOURCE)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d) is not a resource", role, t);
    return VKI_OK;
}

static vki_status check_value(const vki_model *m, int o, int t, const char *role) {
    if (t < 0 || t >= m->n_tensors)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s: tensor index %d out of range", role, t);
    const vki_tensor *x = &m->tensors[t];
    if (x->dtype != VKI_DTYPE_FLOAT32 && !vki_dtype_is_index(x->dtype))
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s (tensor %d '%s') is %s; variables "
                           "hold float32, int32, int64 or bool", role, t, x->name,
                           vki_dtype_name(x->dtype));
    return VKI_OK;
}

static vki_status validate_handle(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs != 0 || op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need 0 and 1",
                           op->n_inputs, op->n_outputs);
    return check_resource(m, o, op->outputs[0], "output");
}

static vki_status validate_read(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs != 1 || op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need 1 and 1",
                           op->n_inputs, op->n_outputs);
    vki_status s = check_resource(m, o, op->inputs[0], "input 0");
    return s ? s : check_value(m, o, op->outputs[0], "output");
}

static vki_status validate_assign(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs != 2 || op->n_outputs != 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need 2 and 0",
                           op->n_inputs, op->n_outputs);
    vki_status s = check_resource(m, o, op->inputs[0], "input 0");
    return s ? s : check_value(m, o, op->inputs[1], "value");
}

const vki_op_def vki_op_var_handle = {.validate = validate_handle, .options = options_handle, .general = true};
const vki_op_def vki_op_read_variable = {.validate = validate_read, .general = true};
const vki_op_def vki_op_assign_variable = {.validate = validate_assign, .general = true};
