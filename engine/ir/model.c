/* model.c: the graph IR's containers, builders, and the public model accessors. */
#include "model.h"
#include "status.h"
#include "tflite_ops.h"

#include <stdlib.h>
#include <string.h>


const char *vki_tflite_builtin_name(int code) {
#define NAME_(name, value, ...) \
    case value: return #name;
    switch (code) { VKI_TFLITE_BUILTIN_LIST(NAME_) }
    return NULL;
}

/* The ops vkinfer knows by their own list's names; any other builtin by TFLite's. */
const char *vki_op_name(int code) {
    switch (code) {
        VKI_OP_LIST(NAME_)
        VKI_CPU_OP_LIST(NAME_)
        VKI_FOLDED_OP_LIST(NAME_)
    }
    const char *name = vki_tflite_builtin_name(code);
    return name ? name : "UNKNOWN";
}

const char *vki_activation_name(vki_activation act) {
    switch (act) { VKI_ACTIVATION_LIST(NAME_) }
    return "UNKNOWN";
}
#undef NAME_

int vki_model_file_op_count(const vki_model *m) {
    return m->file_op_codes ? m->n_file_ops : m->n_ops;
}

int vki_model_file_op_code(const vki_model *m, int index) {
    if (index < 0 || index >= vki_model_file_op_count(m)) return -1;
    return m->file_op_codes ? m->file_op_codes[index] : (int)m->ops[index].code;
}

bool vki_model_file_op_runs(const vki_model *m, int index) {
    for (int o = 0; o < m->n_ops; o++)
        if (m->ops[o].file_index == index) return true;
    return false;
}

int vki_model_is_output(const vki_model *m, int t) {
    for (int i = 0; i < m->n_outputs; i++)
        if (m->outputs[i] == t) return 1;
    return 0;
}

int vki_model_is_input(const vki_model *m, int t) {
    for (int i = 0; i < m->n_inputs; i++)
        if (m->inputs[i] == t) return 1;
    return 0;
}

size_t vki_tensor_elements(const vki_tensor *t) {
    size_t n = 1;
    for (int i = 0; i < t->rank; i++) n *= (size_t)(t->shape[i] > 0 ? t->shape[i] : 0);
    return n;
}

size_t vki_tensor_values(const vki_tensor *t) {
    return vki_tensor_elements(t) * (t->dtype == VKI_DTYPE_COMPLEX64 ? 2 : 1);
}

vki_shape4 vki_tensor_shape4(const vki_tensor *t) {
    const int *s = t->shape;
    switch (t->rank) {
    case 0: return (vki_shape4){1, 1, 1, 1};
    case 1: return (vki_shape4){1, 1, 1, s[0]};
    case 2: return (vki_shape4){s[0], 1, 1, s[1]};
    case 3: return (vki_shape4){s[0], 1, s[1], s[2]};
    default: return (vki_shape4){s[0], s[1], s[2], s[3]};
    }
}

vki_shape4 vki_tensor_rows(const vki_tensor *t) {
    vki_shape4 s = {1, 1, 1, 1};
    if (t->rank >= 1) s.c = t->shape[t->rank - 1];
    if (t->rank >= 2) s.w = t->shape[t->rank - 2];
    for (int i = 0; i < t->rank - 2; i++) s.h *= t->shape[i];
    return s;
}

bool vki_dtype_is_index(vki_dtype d) {
    return d == VKI_DTYPE_INT32 || d == VKI_DTYPE_INT64 || d == VKI_DTYPE_BOOL;
}

const char *vki_dtype_name(vki_dtype d) {
    switch (d) {
    case VKI_DTYPE_FLOAT32: return "float32";
    case VKI_DTYPE_FLOAT16: return "float16";
    case VKI_DTYPE_INT32: return "int32";
    case VKI_DTYPE_UINT8: return "uint8";
    case VKI_DTYPE_INT64: return "int64";
    case VKI_DTYPE_BOOL: return "bool";
    case VKI_DTYPE_INT8: return "int8";
    case VKI_DTYPE_RESOURCE: return "resource";
    case VKI_DTYPE_COMPLEX64: return "complex64";
    default: return "a type vkinfer does not read";
    }
}

vki_model *vki_model_new(const char *name) {
    vki_model *m = vki_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->name = vki_strdup(name);
    if (!m->name) { free(m); return NULL; }
    return m;
}

int vki_model_add_tensor(vki_model *m, const char *name, vki_dtype dtype, int rank,
                         const int *shape, const void *data, size_t data_bytes) {
    if (rank < 0 || rank > VKI_MAX_RANK) return -1;
    vki_tensor *grown = vki_realloc(m->tensors, (size_t)(m->n_tensors + 1) * sizeof *grown);
    if (!grown) return -1;
    m->tensors = grown;
    vki_tensor *t = &m->tensors[m->n_tensors];
    memset(t, 0, sizeof *t);
    t->name = vki_strdup(name);
    if (!t->name) return -1;
    t->dtype = dtype;
    t->rank = rank;
    for (int i = 0; i < rank; i++) t->shape[i] = shape[i];
    if (data) {
        t->data = vki_malloc(data_bytes ? data_bytes : 1);
        if (!t->data) { free(t->name); return -1; }
        memcpy(t->data, data, data_bytes);
        t->data_bytes = data_bytes;
    }
    return m->n_tensors++;
}

vki_op *vki_model_add_op(vki_model *m, vki_op_code code, int n_inputs, const int *inputs,
                         int n_outputs, const int *outputs) {
    if (n_inputs < 0 || n_inputs > VKI_MAX_OP_INPUTS) return NULL;
    if (n_outputs < 0 || n_outputs > VKI_MAX_OP_OUTPUTS) return NULL;
    vki_op *grown = vki_realloc(m->ops, (size_t)(m->n_ops + 1) * sizeof *grown);
    if (!grown) return NULL;
    m->ops = grown;
    vki_op *op = &m->ops[m->n_ops++];
    memset(op, 0, sizeof *op);
    op->code = code;
    op->file_index = m->n_ops - 1;
    op->n_inputs = n_inputs;
    op->n_outputs = n_outputs;
    for (int i = 0; i < n_inputs; i++) op->inputs[i] = inputs[i];
    for (int i = 0; i < n_outputs; i++) op->outputs[i] = outputs[i];
    return op;
}

bool vki_model_set_io(vki_model *m, int n_inputs, const int *inputs, int n_outputs,
                      const int *outputs) {
    int *in = vki_malloc(sizeof(int) * (size_t)(n_inputs ? n_inputs : 1));
    int *out = vki_malloc(sizeof(int) * (size_t)(n_outputs ? n_outputs : 1));
    if (!in || !out) { free(in); free(out); return false; }
    memcpy(in, inputs, sizeof(int) * (size_t)n_inputs);
    memcpy(out, outputs, sizeof(int) * (size_t)n_outputs);
    free(m->inputs);
    free(m->outputs);
    m->inputs = in;
    m->outputs = out;
    m->n_inputs = n_inputs;
    m->n_outputs = n_outputs;
    return true;
}

void vki_tensor_release(vki_tensor *t) {
    free(t->name);
    free(t->data);
    free(t->qdata);
    free(t->qscale);
    free(t->qzero);
}

void vki_model_destroy(vki_model *m) {
    if (!m) return;
    for (int i = 0; i < m->n_tensors; i++) vki_tensor_release(&m->tensors[i]);
    free(m->tensors);
    free(m->ops);
    free(m->inputs);
    free(m->outputs);
    free(m->file_op_codes);
    for (int i = 0; m->signature_names && i < m->n_signatures; i++) free(m->signature_names[i]);
    free(m->signature_names);
    free(m->signature);
    for (int i = 0; m->input_names && i < m->n_inputs; i++) free(m->input_names[i]);
    for (int i = 0; m->output_names && i < m->n_outputs; i++) free(m->output_names[i]);
    free(m->input_names);
    free(m->output_names);
    if (!m->is_child) {
        for (int i = 0; m->subgraphs && i < m->n_file_subgraphs; i++) vki_model_destroy(m->subgraphs[i]);
        free(m->subgraphs);
    }
    free(m->name);
    free(m);
}

/* ---- public accessors ---------------------------------------------------------------- */

int vki_model_input_count(const vki_model *m) { return m ? m->n_inputs : 0; }
int vki_model_output_count(const vki_model *m) { return m ? m->n_outputs : 0; }
int vki_model_op_count(const vki_model *m) { return m ? vki_model_file_op_count(m) : 0; }

const char *vki_model_op_name(const vki_model *m, int index) {
    int code = m ? vki_model_file_op_code(m, index) : -1;
    return code < 0 ? NULL : vki_op_name(code);
}

int vki_model_op_folded(const vki_model *m, int index) {
    if (!m || index < 0 || index >= vki_model_file_op_count(m)) return -1;
    return !vki_model_file_op_runs(m, index);
}

static vki_status tensor_info(const vki_model *m, int tensor, vki_tensor_info *out) {
    const vki_tensor *t = &m->tensors[tensor];
    out->name = t->name;
    out->rank = t->rank;
    for (int i = 0; i < VKI_MAX_RANK; i++) out->shape[i] = i < t->rank ? t->shape[i] : 0;
    out->element_count = vki_tensor_elements(t);
    out->dynamic_dims = t->dynamic_dims;
    return VKI_OK;
}

vki_status vki_model_io_info(const vki_model *m, int index, int is_input, const char *call,
                             vki_tensor_info *out) {
    if (!m || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: NULL argument", call);
    int n = is_input ? m->n_inputs : m->n_outputs;
    if (index < 0 || index >= n)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s: index %d out of range (%d %s)", call,
                        m->name, index, n, is_input ? "inputs" : "outputs");
    vki_status s = tensor_info(m, is_input ? m->inputs[index] : m->outputs[index], out);
    char **names = is_input ? m->input_names : m->output_names;
    if (names) out->name = names[index];
    return s;
}

static int io_index(const vki_model *m, const char *name, int is_input) {
    if (!m || !name) return -1;
    const int n = is_input ? m->n_inputs : m->n_outputs;
    char **names = is_input ? m->input_names : m->output_names;
    for (int i = 0; i < n; i++) {
        int t = is_input ? m->inputs[i] : m->outputs[i];
        if (!strcmp(names ? names[i] : m->tensors[t].name, name)) return i;
    }
    return -1;
}

int vki_model_input_index(const vki_model *m, const char *name) { return io_index(m, name, 1); }
int vki_model_output_index(const vki_model *m, const char *name) { return io_index(m, name, 0); }
int vki_model_signature_count(const vki_model *m) { return m ? m->n_signatures : 0; }

const char *vki_model_signature_name(const vki_model *m, int index) {
    return m && index >= 0 && index < m->n_signatures ? m->signature_names[index] : NULL;
}

const char *vki_model_loaded_signature(const vki_model *m) { return m ? m->signature : NULL; }

vki_status vki_model_input_info(const vki_model *m, int index, vki_tensor_info *out) {
    return vki_model_io_info(m, index, 1, "vki_model_input_info", out);
}

vki_status vki_model_output_info(const vki_model *m, int index, vki_tensor_info *out) {
    return vki_model_io_info(m, index, 0, "vki_model_output_info", out);
}
