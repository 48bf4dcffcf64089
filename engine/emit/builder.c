/* builder.c: the emit stage: the passes, the builder API that op files call, the I/O
 * conversions, and the precision of every op, tensor and blob. No Vulkan calls. */
#include "builder.h"

#include "passes.h"
#include "precision.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const vki_wg_device *vki_build_device(const vki_build *b) { return &b->device; }
int vki_build_int_dot(const vki_build *b) { return b->cfg->int_dot; }
const char *vki_build_env(const vki_build *b, vki_env_id id) {
    return (unsigned)id < VKI_ENV_COUNT ? b->cfg->env[id] : NULL;
}

/* ---- the API op files call ---------------------------------------------------------- */

static int add_blob(vki_build *b, const void *data, size_t count, int store) {
    size_t start = (b->weights_count + 3) / 4 * 4;
    size_t need = start + (count ? count : 4);
    if (need > b->weights_cap) {
        size_t cap = b->weights_cap ? b->weights_cap : 1024;
        while (cap < need) cap *= 2;
        float *w = vki_realloc(b->weights, cap * sizeof(float));
        if (!w) return -1;
        b->weights = w;
        b->weights_cap = cap;
    }
    if (!vki_grow((void **)&b->blobs, &b->cap_blobs, b->n_blobs + 1, sizeof *b->blobs)) return -1;
    memset(b->weights + b->weights_count, 0, (need - b->weights_count) * sizeof(float));
    if (count) memcpy(b->weights + start, data, count * sizeof(float));
    b->weights_count = need;
    b->blobs[b->n_blobs] = (vki_blob){start, count ? count : 4, store};
    return b->n_blobs++;
}

int vki_build_weights(vki_build *b, const float *data, size_t count) {
    int half = b->current_op >= 0 && b->op_half[b->current_op];
    return add_blob(b, data, count, half ? VKI_STORE_F16 : VKI_STORE_F32);
}

int vki_build_weights_i32(vki_build *b, const int32_t *data, size_t count) {
    return add_blob(b, data, count, VKI_STORE_I32);
}

int vki_build_weights_q8(vki_build *b, const float *values, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (values[i] < -128.0f || values[i] > 127.0f || values[i] != (float)(int)values[i])
            return vki_build_weights(b, values, count);
    size_t words = (count + 3) / 4;
    uint32_t *packed = vki_calloc(words ? words : 1, sizeof *packed);
    if (!packed) return -1;
    for (size_t i = 0; i < count; i++)
        packed[i / 4] |= (uint32_t)((int)values[i] + VKI_WEIGHTS_Q8_OFFSET) << (8 * (i % 4));
    int blob = add_blob(b, packed, words, VKI_STORE_Q8);
    free(packed);
    return blob;
}

int vki_build_weights_phwc4(vki_build *b, const float *nhwc, vki_shape4 s) {
    size_t count = (size_t)((s.c + 3) / 4) * (size_t)s.h * (size_t)s.w * 4;
    float *packed = vki_malloc(count * sizeof(float));
    if (!packed) return -1;
    vki_pack_phwc4(nhwc, s, packed);
    int blob = vki_build_weights(b, packed, count);
    free(packed);
    return blob;
}

int vki_build_bias(vki_build *b, const vki_tensor *bias, int channels, size_t count) {
    float *padded = vki_calloc(count ? count : 1, sizeof(float));
    if (!padded) return -1;
    if (bias) memcpy(padded, bias->data, (size_t)channels * sizeof(float));
    int blob = vki_build_weights(b, padded, count);
    free(padded);
    return blob;
}

vki_status vki_build_bind_operand(vki_build *b, vki_dispatch *d, int t, vki_shape4 s) {
    const vki_tensor *tensor = &b->m->tensors[t];
    if (!tensor->data) {
        vki_dispatch_bind_tensor(d, t);
        return VKI_OK;
    }
    int blob;
    if (vki_dtype_is_index(tensor->dtype)) {
        /* Index constants (int32 data) go to the device as float values, like index
         * activations. */
        size_t n = vki_tensor_elements(tensor);
        float *f = vki_malloc((n ? n : 1) * sizeof *f);
        if (!f) return vki_fail_oom("graph build: weights");
        for (size_t i = 0; i < n; i++) f[i] = (float)((const int32_t *)tensor->data)[i];
        blob = vki_build_weights_phwc4(b, f, s);
        free(f);
    } else {
        blob = vki_build_weights_phwc4(b, tensor->data, s);
    }
    if (blob < 0) return vki_fail_oom("graph build: weights");
    vki_dispatch_bind_weights(d, blob);
    return VKI_OK;
}

vki_status vki_build_dispatch(vki_build *b, const vki_dispatch *d) {
    const int op = b->current_op >= 0 ? b->m->ops[b->current_op].file_index : -1;
    if (d->overflow)
        return vki_fail(VKI_ERROR_INTERNAL, "%s: op %d: kernel %s has more defines or bindings "
                        "than a dispatch holds", b->m->name, op, d->kernel);
    /* Tuning would move a work group the kernel's tiling was planned for. */
    if (d->fixed_wg[0] && vki_wg_tunable(d->wg_class))
        return vki_fail(VKI_ERROR_INTERNAL, "%s: op %d: kernel %s has a fixed work group in the "
                        "tunable class %s", b->m->name, op, d->kernel,
                        vki_wg_class_name(d->wg_class));
    if (!vki_grow((void **)&b->dispatches, &b->cap_dispatches, b->n_dispatches + 1, sizeof *d))
        return vki_fail_oom("graph build: dispatches");
    b->dispatches[b->n_dispatches] = *d;
    b->dispatches[b->n_dispatches++].op_index = b->current_op;
    return VKI_OK;
}

vki_status vki_build_bind_output(vki_build *b, vki_dispatch *d, const vki_op *op) {
    const vki_fused *fu = &op->fused;
    if (fu->dense_out) {
        vki_define_int(d, "DENSE_OUT", 1);
        vki_define_int(d, "DENSE_BASE", fu->dense_base);
        if (fu->dense_scale != 0.0f) vki_define_float(d, "DENSE_SCALE", fu->dense_scale);
        if (d->n_bindings < VKI_MAX_BINDINGS)
            d->bindings[d->n_bindings++] = (vki_binding){VKI_BIND_OUTPUT_STAGING, fu->dense_output};
        else
            d->overflow = 1;
    } else {
        d->out_binding = d->n_bindings;
        vki_dispatch_bind_tensor(d, op->outputs[0]);
    }
    if (fu->has_residual) {
        /* STORE_OUTPUT reads the residual at the index it stores, in the same invocation
         * (common.glsl), in its storage view (rows: every axis before the last two folds
         * into H, as its producer stored it). With the output's H and W, its slices (fewer
         * where a channel PAD was folded in) sit at the output's indices, so it may share
         * their storage. */
        const vki_tensor *res = &b->m->tensors[fu->residual], *out = &b->m->tensors[op->outputs[0]];
        vki_shape4 rs = vki_tensor_shape4(res), os = vki_tensor_shape4(out);
        vki_shape4 rr = vki_tensor_rows(res), orr = vki_tensor_rows(out);
        if (!fu->dense_out && !fu->res_pool && rs.n == os.n && rs.h == os.h && rs.w == os.w && rs.c <= os.c &&
            !memcmp(&rr, &rs, sizeof rr) && !memcmp(&orr, &os, sizeof orr))
            d->same_index_reads |= 1u << d->n_bindings;
        vki_define_int(d, "RESIDUAL", 1);
        vki_define_int(d, "RES_BINDING", d->n_bindings);
        if (fu->pre_activation != VKI_ACT_NONE) vki_define_int(d, "RES_PRE_ACT", fu->pre_activation);
        vki_define_shape(d, "RES", rr);
        if (fu->res_pool) {   /* rr is the pool's input (a batch-1 4-D tensor, the pass says) */
            const vki_pool_options *p = &b->m->ops[fu->res_pool - 1].opt.pool;
            vki_define_int(d, "RES_POOL", 1);
            vki_define_int(d, "RES_POOL_KH", p->filter_h);
            vki_define_int(d, "RES_POOL_KW", p->filter_w);
            vki_define_int(d, "RES_POOL_SH", p->stride_h);
            vki_define_int(d, "RES_POOL_SW", p->stride_w);
            vki_define_int(d, "RES_POOL_PT", vki_conv_pad_before(p->padding, rr.h, p->filter_h, p->stride_h, 1));
            vki_define_int(d, "RES_POOL_PL", vki_conv_pad_before(p->padding, rr.w, p->filter_w, p->stride_w, 1));
        }
        vki_dispatch_bind_tensor(d, fu->residual);
    }
    return VKI_OK;
}

int vki_build_storage_root(const vki_build *b, int t) {
    while (b->storage_of[t] != t) t = b->storage_of[t];
    return t;
}

vki_status vki_build_alias(vki_build *b, int alias, int of) {
    b->storage_of[alias] = vki_build_storage_root(b, of);
    return VKI_OK;
}

/* ---- emitting ------------------------------------------------------------------------ */

/* The DEQUANTIZE that writes graph output io and nothing else reads, whose input is an
 * int8 / uint8 activation: the output's conversion dequantizes in its place. -1: none. */
static int output_dequantize(const vki_build *b, int io) {
    const vki_model *m = b->m;
    int t = m->outputs[io], found = -1;
    for (int o = 0; o < m->n_ops; o++) {
        if (b->skip[o] && !(m->ops[o].code == VKI_OP_DEQUANTIZE && m->ops[o].outputs[0] == t)) continue;
        const vki_op *op = &m->ops[o];
        for (int k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] == t) return -1;
        if (op->code == VKI_OP_DEQUANTIZE && op->outputs[0] == t && op->inputs[0] >= 0 &&
            vki_tensor_quantized(&m->tensors[op->inputs[0]]) && !m->tensors[op->inputs[0]].data)
            found = o;
    }
    return vki_model_is_input(m, t) ? -1 : found;
}

/* The QUANTIZE that alone reads graph input io, a float tensor that is no graph output,
 * onto an int8 / uint8 activation: the input's conversion quantizes in its place (one
 * dispatch, and no float copy of the input on the device). -1: none. */
static int input_quantize(const vki_build *b, int io) {
    const vki_model *m = b->m;
    int t = m->inputs[io], found = -1;
    if (vki_tensor_quantized(&m->tensors[t]) || vki_model_is_output(m, t)) return -1;
    for (int i = 0; i < m->n_inputs; i++)
        if (i != io && m->inputs[i] == t) return -1;
    for (int o = 0; o < m->n_ops; o++) {
        if (b->skip[o]) continue;
        const vki_op *op = &m->ops[o];
        const int reads = vki_op_reads(op, t);
        if (!reads) continue;
        if (found >= 0 || reads != 1 || op->code != VKI_OP_QUANTIZE || op->inputs[0] != t ||
            op->n_outputs != 1 || !vki_tensor_quantized(&m->tensors[op->outputs[0]]))
            return -1;
        found = o;
    }
    return found;
}

int vki_build_input_target(const vki_build *b, int io) {
    int q = b->input_quantize ? b->input_quantize[io] : -1;
    return q >= 0 ? b->m->ops[q].outputs[0] : b->m->inputs[io];
}

static vki_status emit_io_conversion(vki_build *b, int io, int is_input) {
    const vki_model *m = b->m;
    int t = is_input ? m->inputs[io] : m->outputs[io];
    vki_dispatch d;
    vki_dispatch_init(&d, is_input ? VKI_KERNEL_to_phwc4 : VKI_KERNEL_from_phwc4, VKI_WG_ELEMENTWISE);
    vki_shape4 s = vki_tensor_rows(&m->tensors[t]);
    vki_define_shape(&d, is_input ? "OUT" : "IN", s);
    const int dq = is_input ? -1 : output_dequantize(b, io);
    if (dq >= 0) {   /* read the int8 tensor and dequantize: (q - zero) * scale */
        t = m->ops[dq].inputs[0];
        vki_define_float(&d, "DEQUANT_SCALE", m->tensors[t].quant_scale);
        b->current_op = dq;
    }
    const int q = is_input ? b->input_quantize[io] : -1;
    if (q >= 0) {   /* write the QUANTIZE's int8 tensor */
        t = m->ops[q].outputs[0];
        vki_quantize_define(&d, &m->tensors[t]);
        b->current_op = q;
    }
    if (is_input) {
        d.bindings[d.n_bindings++] = (vki_binding){VKI_BIND_INPUT_STAGING, io};
        vki_dispatch_bind_tensor(&d, t);
    } else {
        vki_dispatch_bind_tensor(&d, t);
        d.bindings[d.n_bindings++] = (vki_binding){VKI_BIND_OUTPUT_STAGING, io};
    }
    if (is_input) {
        vki_dispatch_grid_phwc4(&d, s);
    } else {   /* from_phwc4.comp: a thread per dense float, rows along x */
        d.grid[0] = (uint32_t)s.w * (uint32_t)s.c;
        d.grid[1] = (uint32_t)s.h;
    }
    vki_status st = vki_build_dispatch(b, &d);
    b->current_op = -1;
    return st;
}

static vki_status emit_all(vki_build *b) {
    const vki_model *m = b->m;
    vki_status s = VKI_OK;
    b->current_op = -1;
    /* An int8 model's closing DEQUANTIZE runs in its output's conversion (where its
     * producer does not already store dequantized), its first QUANTIZE in the input's. */
    for (int i = 0; i < m->n_outputs; i++) {
        int dq = output_dequantize(b, i);
        if (dq >= 0) b->skip[dq] = 1;
    }
    for (int i = 0; i < m->n_inputs; i++) b->input_quantize[i] = input_quantize(b, i);
    for (int i = 0; i < m->n_inputs; i++)
        if (b->input_quantize[i] >= 0) b->skip[b->input_quantize[i]] = 1;
    for (int i = 0; i < m->n_inputs && !s; i++) s = emit_io_conversion(b, i, 1);
    int late = 0;
    for (int o = 0; o < m->n_ops; o++) late += !b->skip[o] && m->ops[o].fused.pointwise_late;
    for (int at = 0; at < m->n_ops && !s; at++) {
        /* Op `at`, or the depthwise op whose late pair (dw_pw.c) takes the place of the
         * skipped 1x1 CONV_2D `at`. */
        int o = at;
        if (b->skip[at]) {
            o = -1;
            for (int k = 0; late && k < at && o < 0; k++)
                if (!b->skip[k] && m->ops[k].fused.pointwise_late &&
                    m->ops[k].fused.pointwise == at + 1)
                    o = k;
            if (o < 0) continue;
        } else if (m->ops[at].fused.pointwise_late) {
            continue;
        }
        const vki_op_def *def = vki_op_find(&m->ops[o]);
        if (!def) return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "op is not supported");
        b->current_op = o;
        s = def->build(b, m, o);
    }
    b->current_op = -1;
    for (int i = 0; i < m->n_outputs && !s; i++)
        if (!vki_output_is_dense(m, b->skip, i)) s = emit_io_conversion(b, i, 0);
    return s;
}

vki_status vki_build_open(vki_build *b, const vki_context *ctx, const vki_model *model,
                          const vki_graph_config *cfg) {
    memset(b, 0, sizeof *b);
    b->view = *model;
    b->m = &b->view;
    b->cfg = cfg;
    b->device = vki_context_wg_device(ctx);
    const size_t nt = (size_t)(model->n_tensors ? model->n_tensors : 1);
    const size_t no = (size_t)(model->n_ops ? model->n_ops : 1);
    b->storage_of = vki_malloc(sizeof(int) * nt);
    b->view.ops = vki_malloc(sizeof(vki_op) * no);
    b->skip = vki_calloc(no, 1);
    b->input_quantize = vki_calloc((size_t)(model->n_inputs ? model->n_inputs : 1), sizeof(int));
    b->op_half = vki_calloc(no, 1);
    b->tensor_half = vki_calloc(nt, 1);
    if (!b->storage_of || !b->view.ops || !b->skip || !b->input_quantize || !b->op_half ||
        !b->tensor_half)
        return vki_fail_oom("graph build");
    vki_precision_ops(model, cfg, b->op_half);
    memcpy(b->view.ops, model->ops, sizeof(vki_op) * (size_t)model->n_ops);
    vki_passes_run(&b->view, b->skip, &b->device, cfg->passes, cfg->env, &b->passes_fired);
    vki_precision_fused(&b->view, b->skip, b->op_half);
    for (int t = 0; t < model->n_tensors; t++) b->storage_of[t] = t;
    vki_status s = emit_all(b);
    if (s) return s;
    for (int t = 0; t < model->n_tensors; t++) b->storage_of[t] = vki_build_storage_root(b, t);
    vki_precision_tensors(&b->view, b->skip, b->op_half, b->storage_of, b->tensor_half);
    s = vki_build_schedule(b);
    if (s) return s;
    if (b->schedule.reordered) b->passes_fired |= VKI_PASS_ORDER;
    if (b->schedule.in_place) b->passes_fired |= VKI_PASS_IN_PLACE;
    for (int o = 0; o < model->n_ops; o++)
        if (!b->skip[o]) b->precision.fp16_ops += b->op_half[o], b->precision.ops++;
    b->precision.fp16_arithmetic = cfg->fp16_arith;
    return VKI_OK;
}

void vki_build_close(vki_build *b) {
    free(b->dispatches);
    free(b->weights);
    free(b->blobs);
    free(b->storage_of);
    free(b->view.ops);
    free(b->skip);
    free(b->input_quantize);
    free(b->op_half);
    free(b->tensor_half);
    memset(b, 0, sizeof *b);
}

uint64_t vki_build_tensor_bytes(const vki_build *b, int t) {
    vki_shape4 s = vki_tensor_rows(&b->m->tensors[t]);
    uint64_t elem = b->tensor_half[t] == VKI_STORE_Q8 ? 1 : b->tensor_half[t] ? 2 : 4;
    return (uint64_t)s.h * (uint64_t)s.w * (uint64_t)((s.c + 3) / 4) * 4u * elem;
}

uint64_t vki_build_blob_bytes(const vki_build *b, int i) {
    return b->blobs[i].count * (b->blobs[i].half == VKI_STORE_F16 ? 2u : 4u);
}

void vki_build_variant(const vki_build *b, int k, char *out, size_t cap, vki_kernel_variant *v) {
    const vki_dispatch *d = &b->dispatches[k];
    unsigned char half[VKI_MAX_BINDINGS];
    int q8_offset[VKI_MAX_BINDINGS] = {0};
    for (int i = 0; i < d->n_bindings; i++) {
        const vki_binding *bd = &d->bindings[i];
        half[i] = bd->kind == VKI_BIND_TENSOR    ? b->tensor_half[bd->index]
                  : bd->kind == VKI_BIND_WEIGHTS ? (unsigned char)b->blobs[bd->index].half
                                                 : 0;
        if (half[i] == VKI_STORE_Q8 && bd->kind == VKI_BIND_WEIGHTS) q8_offset[i] = VKI_WEIGHTS_Q8_OFFSET;
        if (half[i] == VKI_STORE_Q8 && bd->kind == VKI_BIND_TENSOR) {
            /* The bytes hold q - quant_min of the tensor bound, which may write over another
             * one's storage in place (engine/emit/schedule.c) on a grid of its own. */
            const vki_tensor *t = &b->m->tensors[bd->index];
            q8_offset[i] = t->quant_zero - t->quant_min;
        }
    }
    int arith = b->cfg->fp16_arith && d->op_index >= 0 && b->op_half[d->op_index];
    vki_precision_defines(b->cfg->fp16, arith, d->n_bindings, half, q8_offset, out, cap);
    *v = (vki_kernel_variant){d->kernel, d->defines, d->defines_len, out, d->n_bindings};
}
