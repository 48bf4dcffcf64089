/* passes.c: build-time rewrites of the op list (activation fusion). */
#include "passes.h"
#include "ops/conv_common.h"
#include "status.h"

#include <stdlib.h>

static int activation_of_op(vki_op_code code, vki_activation *act) {
    switch (code) {
    case VKI_OP_RELU: *act = VKI_ACT_RELU; return 1;
    case VKI_OP_RELU6: *act = VKI_ACT_RELU6; return 1;
    case VKI_OP_TANH: *act = VKI_ACT_TANH; return 1;
    case VKI_OP_RELU_N1_TO_1: *act = VKI_ACT_RELU_N1_TO_1; return 1;
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

static int is_graph_output(const vki_model *m, int t) {
    for (int i = 0; i < m->n_outputs; i++)
        if (m->outputs[i] == t) return 1;
    return 0;
}

int vki_fuse_activations(const vki_model *m, vki_op *ops, unsigned char *skip) {
    int *producer = vki_malloc(sizeof(int) * (size_t)(m->n_tensors ? m->n_tensors : 1));
    int *readers = vki_calloc((size_t)(m->n_tensors ? m->n_tensors : 1), sizeof(int));
    if (!producer || !readers) { free(producer); free(readers); return 0; }
    for (int t = 0; t < m->n_tensors; t++) producer[t] = -1;
    for (int o = 0; o < m->n_ops; o++) {
        for (int i = 0; i < ops[o].n_inputs; i++)
            if (ops[o].inputs[i] >= 0) readers[ops[o].inputs[i]]++;
        if (ops[o].n_outputs == 1) producer[ops[o].outputs[0]] = o;
    }
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_activation act;
        if (!activation_of_op(ops[o].code, &act) || ops[o].n_inputs != 1) continue;
        int t = ops[o].inputs[0];
        int p = t >= 0 ? producer[t] : -1;
        if (p < 0 || skip[p] || readers[t] != 1 || is_graph_output(m, t)) continue;
        vki_activation *slot = activation_slot(&ops[p]);
        if (!slot || *slot != VKI_ACT_NONE) continue;
        *slot = act;
        ops[p].outputs[0] = ops[o].outputs[0];
        producer[ops[o].outputs[0]] = p;
        skip[o] = 1;
        fused++;
    }
    free(producer);
    free(readers);
    return fused;
}

int vki_passes_run(vki_model *view, unsigned char *skip, const vki_wg_device *dev,
                   unsigned passes) {
    int folded = 0;
    if (passes & VKI_PASS_ACTIVATION) folded += vki_fuse_activations(view, view->ops, skip);
    if (passes & VKI_PASS_DW_PW) folded += vki_fuse_dw_pw(view, view->ops, skip, dev);
    return folded;
}
