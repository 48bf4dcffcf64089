/* precision.c: the per-op and per-tensor float16 decisions of a graph (mixed precision). */
#include "precision.h"

#include <stdio.h>
#include <string.h>

void vki_precision_ops(const vki_model *m, const vki_graph_config *c, unsigned char *op_half) {
    memset(op_half, c->fp16 ? 1 : 0, (size_t)m->n_ops);
    if (!c->fp16) return;
    /* The steps between float and int8 tensors stay fp32: a QUANTIZE reads its float input
     * (a graph input, say) unrounded and a DEQUANTIZE writes LiteRT's float values exactly,
     * so an int8 model gives the same answer in every precision. */
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op *op = &m->ops[o];
        if ((op->code == VKI_OP_QUANTIZE || op->code == VKI_OP_DEQUANTIZE) && op->n_inputs >= 1 &&
            op->inputs[0] >= 0 &&
            (vki_tensor_quantized(&m->tensors[op->inputs[0]]) ||
             vki_tensor_quantized(&m->tensors[op->outputs[0]])))
            op_half[o] = 0;
    }
    if (!c->n_fp32_ops) return;
    /* fp32_ops are file op numbers: each op of the list carrying one stays fp32, the
     * rounding step the loader adds after an int8 op included. A folded op has none. */
    for (int o = 0; o < m->n_ops; o++)
        for (int i = 0; i < c->n_fp32_ops && op_half[o]; i++)
            if (m->ops[o].file_index == c->fp32_ops[i]) op_half[o] = 0;
    /* The rounding step of a quantized graph input has no number of its own: like a graph
     * input (vki_precision_tensors), it stays fp32 where an op reading it does. */
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op *step = &m->ops[o];
        if (step->file_index >= 0 || step->n_outputs < 1) continue;
        for (int r = 0; r < m->n_ops; r++)
            for (int k = 0; k < m->ops[r].n_inputs && !op_half[r]; k++)
                if (m->ops[r].inputs[k] == step->outputs[0]) op_half[o] = 0;
    }
}

void vki_precision_fused(const vki_model *view, const unsigned char *skip, unsigned char *op_half) {
    /* A squeeze dispatch computes its two convolutions too, a block its expansion: fp32
     * if any is kept so. */
    for (int o = 0; o < view->n_ops; o++) {
        const vki_fused *fu = &view->ops[o].fused;
        if (!skip[o] && fu->excite && (!op_half[fu->squeeze - 1] || !op_half[fu->excite - 1]))
            op_half[o] = 0;
        if (!skip[o] && fu->expand && !op_half[fu->expand - 1]) op_half[o] = 0;
    }
    for (int s = 0; s < view->n_ops; s++) {
        if (!skip[s] || op_half[s] || view->ops[s].n_outputs < 1) continue;
        int t = view->ops[s].outputs[0];
        for (int p = 0; p < view->n_ops; p++)
            if (!skip[p])
                for (int i = 0; i < view->ops[p].n_outputs; i++)
                    if (view->ops[p].outputs[i] == t) op_half[p] = 0;
    }
}

/* int8 and uint8 activations are stored as bytes, whatever the graph's precision: every
 * op that reads or writes one does so in the q domain through common.glsl's LOAD / STORE.
 * Then aliases (a RESHAPE that keeps C, a whole SLICE) take their root's storage. */
static void store_quantized_as_bytes(const vki_model *view, const int *root_of,
                                     unsigned char *tensor_half) {
    for (int t = 0; t < view->n_tensors; t++) {
        const vki_tensor *x = &view->tensors[t];
        if (!x->data && vki_tensor_quantized(x)) tensor_half[t] = VKI_STORE_Q8;
    }
    for (int t = 0; t < view->n_tensors; t++) tensor_half[t] = tensor_half[root_of[t]];
}

void vki_precision_tensors(const vki_model *view, const unsigned char *skip,
                           const unsigned char *op_half, const int *root_of,
                           unsigned char *tensor_half) {
    int any_half = 0;
    for (int o = 0; o < view->n_ops; o++) any_half |= op_half[o];
    memset(tensor_half, 0, (size_t)view->n_tensors);
    if (!any_half) {
        store_quantized_as_bytes(view, root_of, tensor_half);
        return;
    }
    for (int o = 0; o < view->n_ops; o++) {
        if (skip[o]) continue;
        const vki_op *op = &view->ops[o];
        for (int i = 0; i < op->n_outputs; i++)
            if (op->outputs[i] >= 0) tensor_half[op->outputs[i]] = op_half[o];
    }
    /* Rounding a graph input feeds every reader the rounding error; an fp32 reader is kept
     * fp32 because its error matters, so it gets the exact input. */
    for (int i = 0; i < view->n_inputs; i++) {
        int t = view->inputs[i], half = 1;
        for (int o = 0; o < view->n_ops; o++) {
            if (skip[o]) continue;
            for (int k = 0; k < view->ops[o].n_inputs; k++)
                if (view->ops[o].inputs[k] == t && !op_half[o]) half = 0;
        }
        tensor_half[t] = (unsigned char)half;
    }
    /* Index tensors (int32 indices, bool masks) stay float32: float16 holds integers
     * exactly only up to 2048. */
    for (int t = 0; t < view->n_tensors; t++)
        if (vki_dtype_is_index(view->tensors[t].dtype)) tensor_half[t] = 0;
    store_quantized_as_bytes(view, root_of, tensor_half);
}

void vki_precision_defines(int fp16_storage, int fp16_arith, int n_bindings,
                           const unsigned char *half, const int *q8_offset, char *out,
                           size_t cap) {
    int n = 0;
    out[0] = 0;
    if (fp16_storage) n += snprintf(out + n, cap - (size_t)n, "#define VKI_FP16_STORAGE 1\n");
    if (fp16_arith) n += snprintf(out + n, cap - (size_t)n, "#define VKI_FP16_ARITH 1\n");
    for (int i = 0; i < n_bindings && n < (int)cap; i++) {
        if (half[i] == VKI_STORE_Q8) {
            int off = q8_offset ? q8_offset[i] : 128;
            n += snprintf(out + n, cap - (size_t)n,
                          "#define STORE4_%d uint\n#define DECODE_%d(x) DECODE_Q8(x, %d)\n"
                          "#define ENCODE_%d(v) ENCODE_Q8(v, %d)\n#define WORD_%d(x) (x)\n"
                          "#define DECODEI_%d(x) DECODEI_Q8(x, %d)\n", i, i, off, i, off, i, i, off);
            continue;
        }
        /* An int32 binding's values load as they are (DECODEI), a float one's convert. */
        const int i32 = half[i] == VKI_STORE_I32;
        const char *type = i32 ? "ivec4" : half[i] ? "f16vec4" : "vec4";
        n += snprintf(out + n, cap - (size_t)n,
                      "#define STORE4_%d %s\n#define DECODE_%d(x) (x)\n#define ENCODE_%d(v) %s(v)\n"
                      "#define WORD_%d(x) ENCODE_Q8(vec4(x), 128)\n#define DECODEI_%d(x) %s\n",
                      i, type, i, i, type, i, i, i32 ? "(x)" : "ivec4(vec4(x))");
    }
}
