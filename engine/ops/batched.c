/* batched.c: the CPU side of kernels that take one image: convolutions, pools, resizes and
 * the depth/space moves index [1,H,W,C]. Given a batch of N images (input 0 and output 0
 * of shape [N,..], every other input a constant), the op runs on the CPU image by image
 * (VKI_CPU_FALLBACK_LIST), through its own validate and C reference on a one-image view of
 * the model: the op's semantics stay in its file, and the fallback adds only the batch loop.
 * The reference serves as run (each image's sums as the op file writes them). */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* One image of op o: its tensors copied (data borrowed) with batch 1, the op alone. The
 * activation is the op's one input that is no constant (TRANSPOSE_CONV's is input 2, after
 * its output_shape, which the view gives batch 1 too). */
typedef struct image_view {
    vki_model m;
    vki_op op;
    vki_tensor t[VKI_MAX_OP_INPUTS + VKI_MAX_OP_OUTPUTS];
    int batch;                  /* N of the batch; 0 where the op is not of this form */
    int act;                    /* the activation's input slot */
    int32_t out_shape[4];       /* TRANSPOSE_CONV's output_shape with batch 1 */
} image_view;

/* The op's own def (its kernel's): what the view validates and runs. */
static const vki_op_def *kernel_def(const vki_op *op) {
    vki_op k = *op;
    k.on_cpu = false;
    return vki_op_find(&k);
}

static int image_view_of(const vki_model *m, int o, image_view *v) {
    const vki_op *op = &m->ops[o];
    memset(v, 0, sizeof *v);
    v->act = -1;
    if (op->n_outputs != 1) return 0;
    for (int i = 0; i < op->n_inputs; i++) {
        if (op->inputs[i] < 0 || m->tensors[op->inputs[i]].data) continue;
        if (v->act >= 0) return 0;                  /* one activation */
        v->act = i;
    }
    if (v->act < 0) return 0;
    const vki_tensor *in = &m->tensors[op->inputs[v->act]], *out = &m->tensors[op->outputs[0]];
    /* While shapes propagate the output's batch is the old one, about to be written. */
    if (in->rank != 4 || out->rank != 4 || in->shape[0] < 2 ||
        (out->shape[0] != in->shape[0] && !m->infer_shapes))
        return 0;
    v->m = *m;
    v->m.tensors = v->t;
    v->m.ops = &v->op;
    v->m.n_ops = 1;
    v->m.n_tensors = 0;
    v->op = *op;
    v->op.on_cpu = false;
    for (int i = 0; i < op->n_inputs + op->n_outputs; i++) {
        int *slot = i < op->n_inputs ? &v->op.inputs[i] : &v->op.outputs[i - op->n_inputs];
        if (*slot < 0) continue;
        v->t[v->m.n_tensors] = m->tensors[*slot];
        *slot = v->m.n_tensors++;
    }
    v->batch = in->shape[0];
    v->t[v->op.inputs[v->act]].shape[0] = 1;
    v->t[v->op.outputs[0]].shape[0] = 1;
    if (op->code == VKI_OP_TRANSPOSE_CONV && v->act == 2) {
        vki_tensor *shape = &v->t[v->op.inputs[0]];
        if (shape->dtype != VKI_DTYPE_INT32 || vki_tensor_elements(shape) != 4 ||
            shape->data_bytes < sizeof v->out_shape)
            return 0;
        memcpy(v->out_shape, shape->data, sizeof v->out_shape);
        if (v->out_shape[0] != v->batch) return 0;
        v->out_shape[0] = 1;
        shape->data = v->out_shape;
    }
    /* Graph I/O lists as the view's: the op's activation and output. */
    v->m.inputs = &v->op.inputs[v->act];
    v->m.n_inputs = 1;
    v->m.outputs = &v->op.outputs[0];
    v->m.n_outputs = 1;
    v->m.input_names = v->m.output_names = NULL;
    return 1;
}

static vki_status validate_batched(const vki_model *m, int o) {
    image_view *v = malloc(sizeof *v);
    if (!v) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    vki_status s;
    if (!image_view_of(m, o, v)) {
        s = vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "not a batch of images with constant "
                        "operands");
    } else {
        /* Shape propagation writes the view's output shape (m's infer_shapes came with the
         * view); it goes back with the batch. */
        s = kernel_def(&m->ops[o])->validate(&v->m, 0);
        if (!s && m->infer_shapes) {
            vki_tensor *out = (vki_tensor *)&m->tensors[m->ops[o].outputs[0]];
            const vki_tensor *vo = &v->t[v->op.outputs[0]];
            memcpy(out->shape, vo->shape, sizeof out->shape);
            out->shape[0] = v->batch;
        }
    }
    free(v);
    return s;
}

static void reference_batched(const vki_model *m, const vki_op *op, const float *const *inputs,
                              float *const *outputs) {
    image_view *v = malloc(sizeof *v);
    if (!v || !image_view_of(m, (int)(op - m->ops), v)) {
        free(v);
        return;
    }
    const size_t in_n = vki_tensor_elements(&v->t[v->op.inputs[v->act]]);
    const size_t out_n = vki_tensor_elements(&v->t[v->op.outputs[0]]);
    const float *ins[VKI_MAX_OP_INPUTS];
    float *outs[1];
    memcpy(ins, inputs, sizeof(float *) * (size_t)op->n_inputs);
    const vki_op_def *def = kernel_def(op);
    for (int b = 0; b < v->batch; b++) {
        ins[v->act] = inputs[v->act] + (size_t)b * in_n;
        outs[0] = outputs[0] + (size_t)b * out_n;
        def->reference(&v->m, &v->op, ins, outs);
    }
    free(v);
}

const vki_op_def vki_op_batched = {
    .validate = validate_batched,
    .reference = reference_batched,
    .general = true,
};
