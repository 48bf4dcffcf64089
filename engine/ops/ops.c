/* ops.c: the op table, the helpers op files share, model validation and the CPU
 * reference run used by tests. */
#include "ops.h"
#include "remap.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXTERN_(name, code, def, ...) extern const vki_op_def vki_op_##def;
#define EXTERN_CUSTOM_(ident, custom, def) extern const vki_op_def vki_op_##def;
VKI_OP_LIST(EXTERN_)
VKI_CPU_OP_LIST(EXTERN_)
VKI_CUSTOM_OP_LIST(EXTERN_CUSTOM_)
VKI_CPU_CUSTOM_OP_LIST(EXTERN_CUSTOM_)
#undef EXTERN_
#undef EXTERN_CUSTOM_

#define EXTERN_FALLBACK_(name, def) extern const vki_op_def vki_op_##def;
VKI_CPU_FALLBACK_LIST(EXTERN_FALLBACK_)
#undef EXTERN_FALLBACK_

/* The CPU def that takes what op's kernel cannot, or NULL. */
static const vki_op_def *fallback_of(const vki_op *op) {
#define FALLBACK_(name, def) \
    case VKI_OP_##name: return &vki_op_##def;
    switch (op->code) {
        VKI_CPU_FALLBACK_LIST(FALLBACK_)
    default: return NULL;
    }
#undef FALLBACK_
}

const vki_op_def *vki_op_find(const vki_op *op) {
    if (op->on_cpu) return fallback_of(op);
#define BUILTIN_(name, code, def, ...) \
    case VKI_OP_##name: return &vki_op_##def;
#define CUSTOM_(ident, custom, def) \
    if (!strcmp(op->custom_name, custom)) return &vki_op_##def;
    switch (op->code) {
        VKI_OP_LIST(BUILTIN_)
        VKI_CPU_OP_LIST(BUILTIN_)
    case VKI_OP_CUSTOM:
        VKI_CUSTOM_OP_LIST(CUSTOM_)
        VKI_CPU_CUSTOM_OP_LIST(CUSTOM_)
        return NULL;
    default: return NULL;
    }
#undef BUILTIN_
#undef CUSTOM_
}

/* ---- arithmetic of an op, for profiles ------------------------------------------------ */

static double elements(const vki_tensor *t) { return (double)vki_tensor_elements(t); }

double vki_op_flops(const vki_model *m, const vki_op *op) {
    switch (op->code) {
    case VKI_OP_CONV_2D: {
        const vki_tensor *f = vki_op_in(m, op, 1);   /* [O, KH, KW, I] */
        return 2.0 * elements(vki_op_out(m, op, 0)) * f->shape[1] * f->shape[2] * f->shape[3];
    }
    case VKI_OP_DEPTHWISE_CONV_2D: {
        const vki_tensor *f = vki_op_in(m, op, 1);   /* [1, KH, KW, C] */
        /* A fused 1x1 conv took over the output: the depthwise output is its input. */
        const vki_op *pw = op->fused.pointwise ? &m->ops[op->fused.pointwise - 1] : NULL;
        const vki_tensor *mid = pw ? vki_op_in(m, pw, 0) : vki_op_out(m, op, 0);
        /* A fused expansion (the block pass) counted once, as its op computes it. */
        const vki_op *ex = op->fused.expand ? &m->ops[op->fused.expand - 1] : NULL;
        return 2.0 * elements(mid) * f->shape[1] * f->shape[2] + (pw ? vki_op_flops(m, pw) : 0.0) +
               (ex ? vki_op_flops(m, ex) : 0.0);
    }
    case VKI_OP_FULLY_CONNECTED: {
        const vki_tensor *f = vki_op_in(m, op, 1);   /* [units, in] */
        return f->rank == 2 ? 2.0 * elements(vki_op_out(m, op, 0)) * f->shape[1] : 0.0;
    }
    case VKI_OP_TRANSPOSE_CONV:
    case VKI_OP_CUSTOM: {
        /* TRANSPOSE_CONV: [output_shape, weights, input]; MediaPipe's
         * Convolution2DTransposeBias: [input, weights, bias]. Weights [O, KH, KW, I]. */
        const int custom = op->code == VKI_OP_CUSTOM;
        if (custom && strcmp(op->custom_name, "Convolution2DTransposeBias")) return 0.0;
        const vki_tensor *f = vki_op_in(m, op, 1);
        return 2.0 * elements(vki_op_in(m, op, custom ? 0 : 2)) * f->shape[0] * f->shape[1] *
               f->shape[2];
    }
    case VKI_OP_AVERAGE_POOL_2D:
    case VKI_OP_MEAN:   /* with a squeeze-excite block's convolutions in its dispatch */
        return op->fused.excite ? vki_op_flops(m, &m->ops[op->fused.squeeze - 1]) +
                                      vki_op_flops(m, &m->ops[op->fused.excite - 1])
                                : 0.0;
    case VKI_OP_BATCH_MATMUL: {
        const vki_tensor *x = vki_op_in(m, op, 0);
        if (x->rank < 2) return 0.0;
        const int k = x->shape[x->rank - (op->opt.batch_matmul.adj_x ? 2 : 1)];
        return 2.0 * elements(vki_op_out(m, op, 0)) * k;
    }
    default: return 0.0;
    }
}

/* ---- dispatch description helpers ----------------------------------------------------- */

static void append(vki_dispatch *d, const char *text) {
    size_t n = strlen(text);
    if (d->defines_len + n + 1 > sizeof d->defines) {
        /* Op files use a handful of short defines; overflowing is a programming error,
         * which vki_build_dispatch reports as VKI_ERROR_INTERNAL. */
        d->overflow = 1;
        return;
    }
    memcpy(d->defines + d->defines_len, text, n + 1);
    d->defines_len += n;
}

void vki_define_int(vki_dispatch *d, const char *name, long long value) {
    char line[160];
    snprintf(line, sizeof line, "#define %s %lld\n", name, value);
    append(d, line);
}

void vki_define_float(vki_dispatch *d, const char *name, float value) {
    char line[160];
    /* %.9g round-trips a float exactly; the suffix-free literal is a GLSL float. */
    snprintf(line, sizeof line, "#define %s float(%.9g)\n", name, (double)value);
    append(d, line);
}

void vki_define_text(vki_dispatch *d, const char *name, const char *text) {
    char line[640];
    if ((size_t)snprintf(line, sizeof line, "#define %s %s\n", name, text) >= sizeof line) {
        d->overflow = 1;
        return;
    }
    append(d, line);
}

void vki_define_shape(vki_dispatch *d, const char *prefix, vki_shape4 s) {
    char name[64];
    snprintf(name, sizeof name, "%s_W", prefix);
    vki_define_int(d, name, s.w);
    snprintf(name, sizeof name, "%s_H", prefix);
    vki_define_int(d, name, s.h);
    snprintf(name, sizeof name, "%s_C", prefix);
    vki_define_int(d, name, s.c);
    snprintf(name, sizeof name, "%s_S", prefix);
    vki_define_int(d, name, (s.c + 3) / 4);
}

void vki_define_activation(vki_dispatch *d, vki_activation act) {
#define ACT_DEFINE_(name, value) \
    case VKI_ACT_##name: append(d, "#define ACT_" #name " 1\n"); break;
    if (act == VKI_ACT_NONE) return;
    switch (act) { VKI_ACTIVATION_LIST(ACT_DEFINE_) }
#undef ACT_DEFINE_
}

int vki_op_index_build(const vki_model *m, const vki_op *ops, const unsigned char *skip,
                       vki_op_index *g) {
    const size_t nt = (size_t)(m->n_tensors ? m->n_tensors : 1);
    g->producer = vki_malloc(sizeof(int) * nt);
    g->readers = vki_calloc(nt, sizeof(int));
    g->reader = vki_malloc(sizeof(int) * nt);
    if (!g->producer || !g->readers || !g->reader) {
        vki_op_index_free(g);
        return 0;
    }
    for (int t = 0; t < m->n_tensors; t++) g->producer[t] = g->reader[t] = -1;
    for (int o = 0; o < m->n_ops; o++) {
        if (skip[o]) continue;
        const vki_op *op = &ops[o];
        for (int i = 0; i < op->n_inputs; i++)
            if (op->inputs[i] >= 0) g->readers[op->inputs[i]]++, g->reader[op->inputs[i]] = o;
        int extra[2];
        for (int i = vki_fused_reads(&op->fused, extra); i-- > 0;)
            g->readers[extra[i]]++, g->reader[extra[i]] = o;
        for (int i = 0; i < op->n_outputs; i++)
            if (op->outputs[i] >= 0) g->producer[op->outputs[i]] = o;
    }
    return 1;
}

void vki_op_index_free(vki_op_index *g) {
    free(g->producer);
    free(g->readers);
    free(g->reader);
    g->producer = g->readers = g->reader = NULL;
}

int vki_written_between(const vki_model *m, const vki_op *ops, const unsigned char *skip, int t,
                        int from, int to) {
    for (int o = from; o < to && o < m->n_ops; o++)
        for (int i = 0; !skip[o] && i < ops[o].n_outputs; i++)
            if (ops[o].outputs[i] == t) return 1;
    return 0;
}

uint32_t vki_wg_lanes(const vki_wg_device *dev, uint32_t want) {
    if (dev->max_invocations && dev->max_invocations < want) want = dev->max_invocations;
    if (dev->max_size[0] && dev->max_size[0] < want) want = dev->max_size[0];
    return want;
}

int vki_env_pow2(const char *text, int lo, int hi) {
    if (!text || !*text) return 0;
    char *end;
    long v = strtol(text, &end, 10);
    return !*end && v >= lo && v <= hi && !(v & (v - 1)) ? (int)v : 0;
}

void vki_dispatch_init(vki_dispatch *d, const char *kernel, vki_wg_class wg_class) {
    memset(d, 0, sizeof *d);
    d->kernel = kernel;
    d->wg_class = wg_class;
    d->grid[0] = d->grid[1] = d->grid[2] = 1;
    d->out_binding = -1;
}

static void bind(vki_dispatch *d, vki_binding_kind kind, int index) {
    if (d->n_bindings >= VKI_MAX_BINDINGS) {
        d->overflow = 1;
        return;
    }
    d->bindings[d->n_bindings++] = (vki_binding){kind, index};
}

void vki_dispatch_bind_tensor(vki_dispatch *d, int tensor) { bind(d, VKI_BIND_TENSOR, tensor); }
void vki_dispatch_bind_weights(vki_dispatch *d, int blob) { bind(d, VKI_BIND_WEIGHTS, blob); }

void vki_dispatch_grid_phwc4(vki_dispatch *d, vki_shape4 out) {
    d->grid[0] = (uint32_t)out.w;
    d->grid[1] = (uint32_t)out.h;
    d->grid[2] = (uint32_t)((out.c + 3) / 4);
}

void vki_pack_phwc4(const float *nhwc, vki_shape4 s, float *out) {
    const int slices = (s.c + 3) / 4;
    for (int sl = 0; sl < slices; sl++)
        for (int y = 0; y < s.h; y++)
            for (int x = 0; x < s.w; x++)
                for (int i = 0; i < 4; i++) {
                    int c = sl * 4 + i;
                    size_t at = (((size_t)sl * s.h + y) * s.w + x) * 4 + i;
                    out[at] = c < s.c ? nhwc[((size_t)y * s.w + x) * s.c + c] : 0.0f;
                }
}

void vki_format_dims(char *buf, size_t size, int rank, const int *dims) {
    size_t n = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%d", i ? "," : "", dims[i]);
    if (n < size) snprintf(buf + n, size - n, "]");
}

/* ---- validation helpers --------------------------------------------------------------- */

vki_status vki_op_fail(const vki_model *m, int op_index, vki_status status, const char *fmt,
                       ...) {
    char detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const vki_op *op = &m->ops[op_index];
    const char *name = op->code == VKI_OP_CUSTOM ? op->custom_name : vki_op_name(op->code);
    if (op->file_index < 0)   /* the loader's rounding step of a quantized graph input */
        return vki_fail(status, "%s: %s of a graph input: %s", m->name, name, detail);
    return vki_fail(status, "%s: op %d %s: %s", m->name, op->file_index, name, detail);
}

vki_status vki_op_check_float_tensor(const vki_model *m, int op_index, int t, const char *role,
                                     int slot) {
    if (t < 0 || t >= m->n_tensors)
        return vki_op_fail(m, op_index, VKI_ERROR_MODEL_FORMAT, "%s %d: tensor index %d out of range",
                           role, slot, t);
    const vki_op_def *def = vki_op_find(&m->ops[op_index]);
    const bool general = def && def->general;
    const vki_tensor *tensor = &m->tensors[t];
    if (tensor->dtype != VKI_DTYPE_FLOAT32 && !(general && vki_dtype_is_index(tensor->dtype)))
        return vki_op_fail(m, op_index, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s %d (tensor %d '%s') is %s, the op takes float32%s", role, slot, t,
                           tensor->name, vki_dtype_name(tensor->dtype),
                           general ? ", int32, int64 or bool" : "");
    const int max_rank = vki_op_def_cpu(def) ? VKI_MAX_RANK : general ? 5 : 4;
    if (tensor->rank > max_rank)
        return vki_op_fail(m, op_index, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s %d (tensor %d '%s') has rank %d, at most %d supported", role, slot,
                           t, tensor->name, tensor->rank, max_rank);
    for (int i = 0; i < tensor->rank; i++)
        if (tensor->shape[i] <= 0)
            return vki_op_fail(m, op_index, VKI_ERROR_UNSUPPORTED_MODEL,
                               "%s %d (tensor %d '%s') has dimension %d = %d", role, slot, t,
                               tensor->name, i, tensor->shape[i]);
    if (!general && !tensor->data && vki_tensor_shape4(tensor).n != 1)
        return vki_op_fail(m, op_index, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s %d (tensor %d '%s') has batch %d, this op takes batch 1", role,
                           slot, t, tensor->name, vki_tensor_shape4(tensor).n);
    return VKI_OK;
}

int vki_value_kind_of(vki_dtype d) {
    return d == VKI_DTYPE_FLOAT32 ? VKI_KIND_FLOAT : vki_dtype_is_int(d) ? VKI_KIND_INT
                                                 : d == VKI_DTYPE_BOOL ? VKI_KIND_BOOL : -1;
}

vki_status vki_op_expect_kind(const vki_model *m, int o, int t, const char *role, vki_value_kind want) {
    const vki_tensor *x = &m->tensors[t];
    if (vki_value_kind_of(x->dtype) == (int)want) return VKI_OK;
    static const char *const names[] = {"float32", "int32 or int64", "bool"};
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d '%s') is %s, need %s", role,
                       t, x->name, vki_dtype_name(x->dtype), names[want]);
}

int vki_op_max_inputs(const vki_model *m, const vki_op *op) {
    switch (op->code) {
    case VKI_OP_CONCATENATION: return vki_concat_max_inputs(m, op);
    case VKI_OP_PACK: return VKI_REMAP_MAX_INPUTS;
    case VKI_OP_ADD_N: return VKI_ADD_N_MAX_INPUTS;
    default: return INT_MAX;
    }
}

vki_status vki_op_check_arity(const vki_model *m, int op_index, int min_inputs,
                              int max_inputs, int n_outputs) {
    const vki_op *op = &m->ops[op_index];
    if (op->n_inputs < min_inputs || op->n_inputs > max_inputs)
        return vki_op_fail(m, op_index, VKI_ERROR_MODEL_FORMAT,
                           "has %d inputs, need %d to %d", op->n_inputs, min_inputs, max_inputs);
    if (op->n_outputs != n_outputs)
        return vki_op_fail(m, op_index, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need %d",
                           op->n_outputs, n_outputs);
    for (int i = 0; i < op->n_inputs; i++) {
        if (op->inputs[i] < 0 && i >= min_inputs) continue;   /* omitted optional input */
        vki_status s = vki_op_check_float_tensor(m, op_index, op->inputs[i], "input", i);
        if (s) return s;
    }
    for (int i = 0; i < op->n_outputs; i++) {
        /* While shapes propagate an output still has its old shape, which the op is about
         * to replace: it is checked when the model is validated at its new shapes. */
        vki_status s = m->infer_shapes && op->outputs[i] >= 0 && op->outputs[i] < m->n_tensors
                           ? VKI_OK
                           : vki_op_check_float_tensor(m, op_index, op->outputs[i], "output", i);
        if (s) return s;
        if (m->tensors[op->outputs[i]].data)
            return vki_op_fail(m, op_index, VKI_ERROR_MODEL_FORMAT,
                               "output %d (tensor %d) is a constant", i, op->outputs[i]);
    }
    return VKI_OK;
}

vki_status vki_op_check_io(const vki_model *m, int o, int min_inputs, int max_inputs) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs < min_inputs || op->n_inputs > max_inputs)
        return min_inputs == max_inputs
                   ? vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %d",
                                 op->n_inputs, min_inputs)
                   : vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs, need %d to %d",
                                 op->n_inputs, min_inputs, max_inputs);
    if (op->n_outputs != 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d outputs, need 1", op->n_outputs);
    vki_status s = vki_op_check_float_tensor(m, o, op->inputs[0], "input", 0);
    if (!s && !m->infer_shapes) s = vki_op_check_float_tensor(m, o, op->outputs[0], "output", 0);
    if (!s && (op->outputs[0] < 0 || op->outputs[0] >= m->n_tensors))
        s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output 0: tensor index %d out of range",
                        op->outputs[0]);
    if (!s && m->tensors[op->outputs[0]].data)
        s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output 0 (tensor %d) is a constant",
                        op->outputs[0]);
    return s;
}

vki_status vki_op_int_const(const vki_model *m, int o, int input, const char *role,
                            const vki_tensor **out) {
    int t = m->ops[o].inputs[input];
    if (t < 0 || t >= m->n_tensors)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s: tensor index %d out of range", role, t);
    const vki_tensor *x = &m->tensors[t];
    if (x->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s tensor %d '%s' is not int32",
                           role, t, x->name);
    if (!x->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "%s tensor %d '%s' must be a constant",
                           role, t, x->name);
    *out = x;
    return VKI_OK;
}

vki_status vki_op_check_const(const vki_model *m, int o, int input, const char *role, int rank) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, input);
    if (!t->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "%s tensor %d '%s' (input %d) must be a constant", role,
                           op->inputs[input], t->name, input);
    if (t->rank != rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' has %d dims, need %d",
                           role, op->inputs[input], t->name, t->rank, rank);
    /* Packing may expand a constant up to 16-fold (PHWC4 padding of 1-channel slices),
     * so sizes are bounded well below SIZE_MAX. */
    size_t n = 1;
    for (int i = 0; i < t->rank; i++) {
        if ((size_t)t->shape[i] > SIZE_MAX / 16 / sizeof(float) / n)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is too large",
                               role, op->inputs[input], t->name);
        n *= (size_t)t->shape[i];
    }
    if (t->data_bytes < n * sizeof(float))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "%s tensor %d '%s' holds %zu bytes, its shape needs %zu", role,
                           op->inputs[input], t->name, t->data_bytes, n * sizeof(float));
    return VKI_OK;
}

/* Shape propagation: what the op expects becomes the activation's shape. The model is the
 * propagation's own (vki_model_resize_inputs), which it may write. */
static bool infer_dims(const vki_model *m, int t, int rank, const int *dims) {
    if (!m->infer_shapes || m->tensors[t].data) return false;
    vki_tensor *x = (vki_tensor *)&m->tensors[t];
    x->rank = rank;
    for (int i = 0; i < rank; i++) x->shape[i] = dims[i];
    return true;
}

vki_status vki_op_check_shape(const vki_model *m, int op_index, int tensor, vki_shape4 want) {
    const vki_tensor *x = &m->tensors[tensor];
    if (x->rank == 4 && infer_dims(m, tensor, 4, (int[]){want.n, want.h, want.w, want.c}))
        return VKI_OK;
    vki_shape4 got = vki_tensor_shape4(&m->tensors[tensor]);
    if (got.h != want.h || got.w != want.w || got.c != want.c)
        return vki_op_fail(m, op_index, VKI_ERROR_MODEL_FORMAT,
                           "tensor %d '%s' is [%d,%d,%d], expected [%d,%d,%d]", tensor,
                           m->tensors[tensor].name, got.h, got.w, got.c, want.h, want.w, want.c);
    return VKI_OK;
}

vki_status vki_op_expect_dims(const vki_model *m, int o, int t, int rank, const int *dims) {
    if (infer_dims(m, t, rank, dims)) return VKI_OK;
    const vki_tensor *x = &m->tensors[t];
    int same = x->rank == rank;
    for (int i = 0; same && i < rank; i++) same = x->shape[i] == dims[i];
    if (same) return VKI_OK;
    char want[96], got[96];
    vki_format_dims(want, sizeof want, rank, dims);
    vki_format_dims(got, sizeof got, x->rank, x->shape);
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "tensor %d '%s' is %s, the op makes %s", t,
                       x->name, got, want);
}

vki_status vki_op_int_values(const vki_model *m, int o, int slot, const char *role,
                             int min_count, int max_count, const int32_t **values, int *count) {
    const vki_op *op = &m->ops[o];
    if (slot >= op->n_inputs || op->inputs[slot] < 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d) is missing", role, slot);
    const vki_tensor *t = NULL;
    vki_status s = vki_op_int_const(m, o, slot, role, &t);
    if (s) return s;
    size_t n = vki_tensor_elements(t);
    if (n < (size_t)min_count || n > (size_t)max_count || t->data_bytes < n * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' has %zu values, "
                           "need %d to %d", role, op->inputs[slot], t->name, n, min_count,
                           max_count);
    *values = (const int32_t *)t->data;
    *count = (int)n;
    return VKI_OK;
}

int vki_conv_out_size(vki_padding pad, int in, int filter, int stride, int dilation) {
    int effective = (filter - 1) * dilation + 1;
    if (pad == VKI_PAD_SAME) return (in + stride - 1) / stride;
    return (in - effective + stride) / stride;
}

int vki_conv_pad_before(vki_padding pad, int in, int filter, int stride, int dilation) {
    if (pad == VKI_PAD_VALID) return 0;
    int effective = (filter - 1) * dilation + 1;
    int out = (in + stride - 1) / stride;
    int total = (out - 1) * stride + effective - in;
    return total > 0 ? total / 2 : 0;
}

float vki_apply_activation(vki_activation act, float x) {
    switch (act) {
    case VKI_ACT_NONE: return x;
    case VKI_ACT_RELU: return x > 0.0f ? x : 0.0f;
    case VKI_ACT_RELU6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case VKI_ACT_RELU_N1_TO_1: return x < -1.0f ? -1.0f : (x > 1.0f ? 1.0f : x);
    case VKI_ACT_TANH: return tanhf(x);
    case VKI_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case VKI_ACT_HARD_SWISH: {
        float r6 = x + 3.0f < 0.0f ? 0.0f : (x + 3.0f > 6.0f ? 6.0f : x + 3.0f);
        return x * r6 / 6.0f;
    }
    }
    return x;
}

/* ---- model-level checks --------------------------------------------------------------- */

static vki_status validate_io(vki_model *m) {
    /* A subgraph control flow runs may have none (CALL_ONCE's initialiser). */
    if (!m->is_child && (m->n_inputs < 1 || m->n_outputs < 1))
        return vki_fail(VKI_ERROR_MODEL_FORMAT, "%s: graph has %d inputs and %d outputs",
                        m->name, m->n_inputs, m->n_outputs);
    for (int i = 0; i < m->n_inputs + m->n_outputs; i++) {
        int is_input = i < m->n_inputs;
        int t = is_input ? m->inputs[i] : m->outputs[i - m->n_inputs];
        int slot = is_input ? i : i - m->n_inputs;
        const char *role = is_input ? "input" : "output";
        if (t < 0 || t >= m->n_tensors)
            return vki_fail(VKI_ERROR_MODEL_FORMAT, "%s: graph %s %d: tensor index %d out of range",
                            m->name, role, slot, t);
        const vki_tensor *tensor = &m->tensors[t];
        /* Index tensors (int32, int64, bool) pass as their float values, as they are held. */
        if (tensor->dtype != VKI_DTYPE_FLOAT32 && !vki_dtype_is_index(tensor->dtype))
            return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                            "%s: graph %s %d (tensor %d '%s') is %s, graph inputs and outputs "
                            "are float32, int32, int64 or bool", m->name, role, slot, t,
                            tensor->name, vki_dtype_name(tensor->dtype));
        /* Ranks above 5 reach no kernel: only CPU ops read or write such a tensor. */
        if (tensor->rank > VKI_MAX_RANK)
            return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                            "%s: graph %s %d (tensor %d '%s') has rank %d, at most %d supported",
                            m->name, role, slot, t, tensor->name, tensor->rank, VKI_MAX_RANK);
        if (is_input && tensor->data)
            return vki_fail(VKI_ERROR_MODEL_FORMAT, "%s: graph input %d (tensor %d) is a constant",
                            m->name, slot, t);
    }
    return VKI_OK;
}

/* Every activation an op reads must be produced earlier (or be a graph input), and every
 * graph output must be produced: the engine relies on the list being in execution order. */
static vki_status validate_order(vki_model *m) {
    unsigned char *ready = vki_calloc((size_t)m->n_tensors + 1, 1);
    if (!ready) return vki_fail_oom(m->name);
    vki_status s = VKI_OK;
    for (int i = 0; i < m->n_inputs; i++) ready[m->inputs[i]] = 1;
    for (int t = 0; t < m->n_tensors; t++)
        if (m->tensors[t].data || m->tensors[t].is_variable) ready[t] = 1;
    for (int o = 0; o < m->n_ops && !s; o++) {
        const vki_op *op = &m->ops[o];
        for (int i = 0; i < op->n_inputs && !s; i++)
            if (op->inputs[i] >= 0 && !ready[op->inputs[i]])
                s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                "input %d (tensor %d '%s') is read before it is written", i,
                                op->inputs[i], m->tensors[op->inputs[i]].name);
        for (int i = 0; i < op->n_outputs && !s; i++) {
            if (ready[op->outputs[i]])
                s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                                "output %d (tensor %d '%s') is written twice", i, op->outputs[i],
                                m->tensors[op->outputs[i]].name);
            ready[op->outputs[i]] = 1;
        }
    }
    for (int i = 0; i < m->n_outputs && !s; i++)
        if (!ready[m->outputs[i]])
            s = vki_fail(VKI_ERROR_MODEL_FORMAT, "%s: graph output %d (tensor %d) is never written",
                         m->name, i, m->outputs[i]);
    free(ready);
    return s;
}

vki_status vki_op_validate(vki_model *m, int o) {
    const vki_op_def *def = vki_op_find(&m->ops[o]);
    if (!def) return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "op is not supported by vkinfer");
    if (m->ops[o].on_cpu) {   /* the kernel is tried again: shapes may have changed */
        m->ops[o].on_cpu = false;
        def = vki_op_find(&m->ops[o]);
    }
    vki_status s = def->validate(m, o);
    if (s != VKI_ERROR_UNSUPPORTED_MODEL || !fallback_of(&m->ops[o])) return s;
    /* The kernel's limit: the CPU def takes the op if it can, else the kernel's message
     * stands. */
    char why[1024];
    snprintf(why, sizeof why, "%s", vki_last_error());
    m->ops[o].on_cpu = true;
    if (fallback_of(&m->ops[o])->validate(m, o) == VKI_OK) return VKI_OK;
    m->ops[o].on_cpu = false;
    return vki_fail(s, "%s", why);
}

vki_status vki_model_validate(vki_model *m) {
    if (!m) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "model is NULL");
    vki_status s = validate_io(m);
    if (s) return s;
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op_def *def = vki_op_find(&m->ops[o]);
        if (!def)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "op is not supported by vkinfer");
        s = vki_op_validate(m, o);
        if (s) return s;
    }
    return validate_order(m);
}

/* ---- CPU reference run ----------------------------------------------------------------- */

vki_status vki_model_reference_run(const vki_model *m, const float *const *inputs,
                                   float *const *outputs) {
    float **values = vki_calloc((size_t)m->n_tensors, sizeof *values);
    if (!values) return vki_fail_oom("graph build");
    vki_status s = VKI_OK;
    for (int t = 0; t < m->n_tensors && !s; t++) {
        size_t n = vki_tensor_values(&m->tensors[t]);
        values[t] = vki_malloc((n ? n : 1) * sizeof(float));
        if (!values[t]) s = vki_fail_oom("graph build");
        else if (m->tensors[t].data && (m->tensors[t].dtype == VKI_DTYPE_FLOAT32 ||
                                        m->tensors[t].dtype == VKI_DTYPE_COMPLEX64))
            memcpy(values[t], m->tensors[t].data, n * sizeof(float));
        else if (m->tensors[t].data && vki_dtype_is_index(m->tensors[t].dtype))
            for (size_t i = 0; i < n; i++) values[t][i] = (float)((int32_t *)m->tensors[t].data)[i];
    }
    for (int i = 0; i < m->n_inputs && !s; i++)
        memcpy(values[m->inputs[i]], inputs[i],
               vki_tensor_elements(&m->tensors[m->inputs[i]]) * sizeof(float));
    for (int o = 0; o < m->n_ops && !s; o++) {
        const vki_op *op = &m->ops[o];
        const vki_op_def *def = vki_op_find(op);
        if (!def) { s = vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "not supported"); break; }
        if (!def->reference) {   /* control flow and variables run only in a graph */
            s = vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "has no reference run");
            break;
        }
        const float *in[VKI_MAX_OP_INPUTS];
        float *out[VKI_MAX_OP_OUTPUTS];
        for (int i = 0; i < op->n_inputs; i++) in[i] = op->inputs[i] >= 0 ? values[op->inputs[i]] : NULL;
        for (int i = 0; i < op->n_outputs; i++) out[i] = values[op->outputs[i]];
        def->reference(m, op, in, out);
    }
    for (int i = 0; i < m->n_outputs && !s; i++)
        memcpy(outputs[i], values[m->outputs[i]],
               vki_tensor_elements(&m->tensors[m->outputs[i]]) * sizeof(float));
    for (int t = 0; t < m->n_tensors; t++) free(values[t]);
    free(values);
    return s;
}

int vki_model_op_on_cpu(const vki_model *m, int index) {
    if (!m || index < 0 || index >= vki_model_file_op_count(m)) return -1;
    for (int o = 0; o < m->n_ops; o++)
        if (m->ops[o].file_index == index && vki_op_def_cpu(vki_op_find(&m->ops[o]))) return 1;
    return 0;
}
