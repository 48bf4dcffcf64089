/* partition.c: owns the split of a graph with CPU ops into segments, and their runs.
 *
 * An op of the CPU lists (ops/op_list.h) has no kernel. Such a model runs as GPU segments,
 * each built as a graph of its own (vki_graph_create on a model of the segment's ops: one
 * recorded command buffer, planned and fused as a whole graph is), and CPU segments of
 * CPU ops between them. Segments are grown greedily from the op order: a segment takes
 * every op of its side whose inputs are ready, so GPU ops that do not depend on a CPU op
 * join the GPU segment before it.
 *
 * Tensors cross between segments as dense float32 values in host-visible memory, where a
 * segment's graph keeps its inputs and outputs (its staging buffers):
 *   - a GPU segment's output is read where that graph wrote it: no copy;
 *   - a CPU op writes its output straight into the staging input of the first GPU segment
 *     that reads it (the graph's inputs do the same), so a GPU -> CPU -> GPU chain copies
 *     nothing on the host; a later GPU segment that reads the same tensor gets a copy;
 *   - on the device, a segment's graph converts its inputs from dense to PHWC4 and its
 *     outputs back in one dispatch each, as every graph does. On a unified-memory GPU the
 *     staging buffers are the memory the CPU ops read and write.
 * An int8 tensor (q - zero point on the device) crosses as its real values: the segment's
 * model gets a float twin with a QUANTIZE after the input or a DEQUANTIZE before the
 * output, the conversions the loader gives a whole graph's inputs and outputs.
 */
#include "partition.h"

#include "image_input.h"
#include "../ops/ops.h"
#include "status.h"
#include "../../tuner/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct segment {
    int on_cpu;
    int n_ops;
    int *ops;                   /* op indices into the partition's model, in run order */
    vki_graph *graph;           /* a GPU segment's graph */
    int n_in, n_out;
    int *in, *out;              /* the model's tensor behind each of the graph's inputs/outputs */
    double ms;                  /* host wall time of its part of the last run; -1: none yet */
    double *op_ms;              /* a CPU segment: each op's time in the last run */
} segment;

/* A graph's state across runs, shared with the graphs of its subgraphs: resource variables
 * and the CALL_ONCE epoch. The graph the app made owns it; its subgraphs' graphs borrow it. */
typedef struct variable {
    char name[sizeof(((vki_op *)0)->opt.var.name)];
    float *data;
    size_t n;
    int rank, assigned;
    int shape[VKI_MAX_RANK];
} variable;

struct vki_runtime {
    variable *vars;
    int n_vars;
    unsigned epoch;             /* vki_graph_reset_variables counts up: CALL_ONCE runs again */
    int depth;                  /* subgraph graphs being built inside each other */
};

/* A WHILE that has run this many times fails rather than hang the caller. */
#define VKI_MAX_LOOP_ITERATIONS 1000000L
/* Subgraphs built inside each other (a WHILE in a WHILE's body, ...) at most this deep. */
#define VKI_MAX_SUBGRAPH_DEPTH 16

struct vki_partition {
    /* What the CPU ops read: the model's ops and tensors (shapes, options), constant data
     * only where a CPU op reads it. Owned. */
    vki_model *m;
    int n_segments;
    segment *seg;
    char *constant;             /* per tensor: a constant of the file (the GPU side holds
                                   its data unless a CPU op reads it) */
    float **at;                 /* per tensor: where its dense values are, or NULL */
    char *owned;                /* per tensor: at[t] was malloc'd here */
    vki_runtime *rt;
    int owns_rt;
    vki_graph **sub;            /* per op: the graphs of the subgraphs it names (2 an op) */
    unsigned *once;             /* per CALL_ONCE op: 1 + the epoch it last ran in */
    int next;                   /* the segment a run goes on with; -1: none in flight */
    int waiting;                /* segment `next` is a submitted GPU segment */
};

static int op_on_cpu(const vki_op *op) { return vki_op_def_cpu(vki_op_find(op)); }

int vki_partition_first_cpu_op(const vki_model *m) {
    for (int o = 0; o < m->n_ops; o++)
        if (op_on_cpu(&m->ops[o])) return m->ops[o].file_index;
    return -1;
}

/* Ops whose order among themselves is the file's: they read or write the variables. */
static int has_effects(const vki_op *op) {
    return op->code == VKI_OP_READ_VARIABLE || op->code == VKI_OP_ASSIGN_VARIABLE ||
           op->code == VKI_OP_CALL_ONCE || op->code == VKI_OP_IF || op->code == VKI_OP_WHILE;
}

/* ---- segments ----------------------------------------------------------------------- */

/* Grows segments from the op order: each takes every op of its side whose inputs are
 * ready. The first op not yet placed is always ready (its producers come before it). */
static vki_status split(vki_partition *p) {
    const vki_model *m = p->m;
    char *ready = vki_calloc((size_t)m->n_tensors + 1, 1);
    char *placed = vki_calloc((size_t)m->n_ops + 1, 1);
    p->seg = vki_calloc((size_t)m->n_ops + 1, sizeof *p->seg);
    vki_status s = ready && placed && p->seg ? VKI_OK : vki_fail_oom("graph partition");
    for (int t = 0; !s && t < m->n_tensors; t++) ready[t] = p->constant[t] || m->tensors[t].is_variable;
    for (int i = 0; !s && i < m->n_inputs; i++) ready[m->inputs[i]] = 1;
    for (int first = 0; !s && first < m->n_ops;) {
        segment *sg = &p->seg[p->n_segments++];
        sg->on_cpu = op_on_cpu(&m->ops[first]);
        sg->ms = -1;
        sg->ops = vki_malloc(sizeof(int) * (size_t)m->n_ops);
        if (!sg->ops) { s = vki_fail_oom("graph partition"); break; }
        int effects_wait = 0;   /* an op with effects is left for later: so are those after it */
        for (int o = first; o < m->n_ops; o++) {
            const vki_op *op = &m->ops[o];
            const int effect = has_effects(op);
            if (placed[o]) continue;
            if (op_on_cpu(op) != sg->on_cpu) {
                effects_wait |= effect;
                continue;
            }
            int go = !(effect && effects_wait);
            for (int k = 0; k < op->n_inputs && go; k++) go = op->inputs[k] < 0 || ready[op->inputs[k]];
            if (!go) {
                effects_wait |= effect;
                continue;
            }
            placed[o] = 1;
            sg->ops[sg->n_ops++] = o;
            for (int k = 0; k < op->n_outputs; k++) ready[op->outputs[k]] = 1;
        }
        while (first < m->n_ops && placed[first]) first++;
    }
    free(ready);
    free(placed);
    return s;
}

/* The segment whose op writes tensor t; -1 for a graph input or a constant. */
static int producer(const vki_partition *p, int t) {
    for (int s = 0; s < p->n_segments; s++)
        for (int i = 0; i < p->seg[s].n_ops; i++) {
            const vki_op *op = &p->m->ops[p->seg[s].ops[i]];
            for (int k = 0; k < op->n_outputs; k++)
                if (op->outputs[k] == t) return s;
        }
    return -1;
}

static int reads(const vki_op *op, int t) {
    for (int k = 0; k < op->n_inputs; k++)
        if (op->inputs[k] == t) return 1;
    return 0;
}

static int segment_reads(const vki_partition *p, int s, int t) {
    for (int i = 0; i < p->seg[s].n_ops; i++)
        if (reads(&p->m->ops[p->seg[s].ops[i]], t)) return 1;
    return 0;
}

/* A GPU segment's inputs (activations its ops read that it does not write) and outputs
 * (what it writes that another segment reads or the graph outputs), in first-use order. */
static vki_status segment_io(vki_partition *p, int s) {
    const vki_model *m = p->m;
    segment *sg = &p->seg[s];
    sg->in = vki_malloc(sizeof(int) * (size_t)(m->n_tensors + 1));
    sg->out = vki_malloc(sizeof(int) * (size_t)(m->n_tensors + 1));
    char *seen = vki_calloc((size_t)m->n_tensors + 1, 1);
    if (!sg->in || !sg->out || !seen) {
        free(seen);
        return vki_fail_oom("graph partition");
    }
    for (int i = 0; i < sg->n_ops; i++) {
        const vki_op *op = &m->ops[sg->ops[i]];
        for (int k = 0; k < op->n_inputs; k++) {
            int t = op->inputs[k];
            if (t < 0 || seen[t] || p->constant[t] || producer(p, t) == s) continue;
            seen[t] = 1;
            sg->in[sg->n_in++] = t;
        }
    }
    for (int i = 0; i < sg->n_ops; i++) {
        const vki_op *op = &m->ops[sg->ops[i]];
        for (int k = 0; k < op->n_outputs; k++) {
            int t = op->outputs[k], wanted = vki_model_is_output(m, t);
            for (int u = 0; u < p->n_segments && !wanted; u++) wanted = u != s && segment_reads(p, u, t);
            if (wanted && !seen[t]) {
                seen[t] = 1;
                sg->out[sg->n_out++] = t;
            }
        }
    }
    free(seen);
    return VKI_OK;
}

/* ---- a GPU segment's model ----------------------------------------------------------- */

/* The segment's ops over the tensors they use, which it borrows from m (names, data,
 * quantized constants): free it with free_borrowed, never vki_model_destroy. */
typedef struct borrowed { vki_model m; int *map; } borrowed;

static void free_borrowed(borrowed *b) {
    free(b->m.tensors);
    free(b->m.ops);
    free(b->m.inputs);
    free(b->m.outputs);
    free(b->map);
}

static int borrow_tensor(borrowed *b, const vki_model *m, int t) {
    if (t < 0) return -1;
    if (b->map[t] < 0) {
        b->map[t] = b->m.n_tensors;
        b->m.tensors[b->m.n_tensors++] = m->tensors[t];
    }
    return b->map[t];
}

/* A float tensor of t's shape and name for an int8 tensor that crosses as real values. */
static int float_twin(borrowed *b, const vki_model *m, int t) {
    vki_tensor twin = m->tensors[t];
    twin.dtype = VKI_DTYPE_FLOAT32;
    twin.quant_scale = 0;
    twin.quant_zero = twin.quant_min = twin.quant_max = 0;
    b->m.tensors[b->m.n_tensors] = twin;
    return b->m.n_tensors++;
}

static vki_op conversion(vki_op_code code, int from, int to) {
    return (vki_op){.code = code, .file_index = -1, .n_inputs = 1, .n_outputs = 1,
                    .inputs = {from}, .outputs = {to}};
}

static vki_status segment_model(const vki_partition *p, const segment *sg, borrowed *b) {
    const vki_model *m = p->m;
    memset(b, 0, sizeof *b);
    size_t nt = (size_t)m->n_tensors + (size_t)sg->n_in + (size_t)sg->n_out + 1;
    size_t no = (size_t)sg->n_ops + (size_t)sg->n_in + (size_t)sg->n_out + 1;
    b->map = vki_malloc(sizeof(int) * (size_t)(m->n_tensors + 1));
    b->m.tensors = vki_calloc(nt, sizeof *b->m.tensors);
    b->m.ops = vki_calloc(no, sizeof *b->m.ops);
    b->m.inputs = vki_malloc(sizeof(int) * (size_t)(sg->n_in + 1));
    b->m.outputs = vki_malloc(sizeof(int) * (size_t)(sg->n_out + 1));
    if (!b->map || !b->m.tensors || !b->m.ops || !b->m.inputs || !b->m.outputs) {
        free_borrowed(b);
        return vki_fail_oom("graph partition");
    }
    for (int t = 0; t < m->n_tensors; t++) b->map[t] = -1;
    b->m.name = m->name;
    b->m.n_file_ops = m->n_file_ops;
    b->m.file_op_codes = m->file_op_codes;
    for (int j = 0; j < sg->n_in; j++) {
        int t = sg->in[j], u = borrow_tensor(b, m, t);
        if (vki_tensor_quantized(&m->tensors[t])) {
            int f = float_twin(b, m, t);
            b->m.ops[b->m.n_ops++] = conversion(VKI_OP_QUANTIZE, f, u);
            u = f;
        }
        b->m.inputs[b->m.n_inputs++] = u;
    }
    for (int i = 0; i < sg->n_ops; i++) {
        vki_op op = m->ops[sg->ops[i]];
        for (int k = 0; k < op.n_inputs; k++) op.inputs[k] = borrow_tensor(b, m, op.inputs[k]);
        for (int k = 0; k < op.n_outputs; k++) op.outputs[k] = borrow_tensor(b, m, op.outputs[k]);
        b->m.ops[b->m.n_ops++] = op;
    }
    for (int j = 0; j < sg->n_out; j++) {
        int t = sg->out[j], u = b->map[t];
        if (vki_tensor_quantized(&m->tensors[t])) {
            int f = float_twin(b, m, t);
            b->m.ops[b->m.n_ops++] = conversion(VKI_OP_DEQUANTIZE, u, f);
            u = f;
        }
        b->m.outputs[b->m.n_outputs++] = u;
    }
    return VKI_OK;
}

/* ---- the CPU side's copy of the model ------------------------------------------------- */

static int cpu_reads(const vki_model *m, int t) {
    for (int o = 0; o < m->n_ops; o++)
        if (op_on_cpu(&m->ops[o]) && reads(&m->ops[o], t)) return 1;
    return 0;
}

/* Every op and tensor of m, with constant data only where a CPU op reads it. */
static vki_status copy_model(const vki_model *m, vki_model **out) {
    vki_model *c = vki_model_new(m->name);
    vki_status s = c ? VKI_OK : vki_fail_oom("graph partition");
    for (int t = 0; !s && t < m->n_tensors; t++) {
        const vki_tensor *x = &m->tensors[t];
        const int keep = x->data && (cpu_reads(m, t) || x->is_variable);
        if (vki_model_add_tensor(c, x->name, x->dtype, x->rank, x->shape, keep ? x->data : NULL,
                                 keep ? x->data_bytes : 0) < 0) {
            s = vki_fail_oom("graph partition");
            break;
        }
        vki_tensor *y = &c->tensors[t];
        y->quant_scale = x->quant_scale;
        y->quant_zero = x->quant_zero;
        y->quant_min = x->quant_min;
        y->quant_max = x->quant_max;
        y->is_variable = x->is_variable;
    }
    if (!s) {
        c->ops = vki_malloc(sizeof *c->ops * (size_t)(m->n_ops + 1));
        c->file_op_codes = vki_malloc(sizeof(int) * (size_t)(m->n_file_ops + 1));
        if (!c->ops || !c->file_op_codes) s = vki_fail_oom("graph partition");
    }
    if (!s) {
        memcpy(c->ops, m->ops, sizeof *c->ops * (size_t)m->n_ops);
        c->n_ops = m->n_ops;
        if (m->file_op_codes) memcpy(c->file_op_codes, m->file_op_codes, sizeof(int) * (size_t)m->n_file_ops);
        c->n_file_ops = m->n_file_ops;
        if (!m->file_op_codes) {
            free(c->file_op_codes);
            c->file_op_codes = NULL;
        }
        if (!vki_model_set_io(c, m->n_inputs, m->inputs, m->n_outputs, m->outputs))
            s = vki_fail_oom("graph partition");
    }
    if (s) vki_model_destroy(c);
    else *out = c;
    return s;
}

/* ---- where values are --------------------------------------------------------------- */

static float *staging(const segment *sg, int is_input, int j) {
    const vki_memory *mem = &sg->graph->mem;
    return mem->staging[is_input ? j : mem->n_inputs + j].mapped;
}

/* The first GPU segment from `from` on that reads t, and its input slot. */
static int first_gpu_reader(const vki_partition *p, int from, int t, int *slot) {
    for (int s = from; s < p->n_segments; s++) {
        const segment *sg = &p->seg[s];
        for (int j = 0; !sg->on_cpu && j < sg->n_in; j++)
            if (sg->in[j] == t) {
                *slot = j;
                return s;
            }
    }
    return -1;
}

static vki_status place_values(vki_partition *p) {
    const vki_model *m = p->m;
    p->at = vki_calloc((size_t)m->n_tensors + 1, sizeof *p->at);
    p->owned = vki_calloc((size_t)m->n_tensors + 1, 1);
    if (!p->at || !p->owned) return vki_fail_oom("graph partition");
    for (int s = 0; s < p->n_segments; s++) {
        const segment *sg = &p->seg[s];
        for (int j = 0; !sg->on_cpu && j < sg->n_out; j++) p->at[sg->out[j]] = staging(sg, 0, j);
        /* Values live in the segments' input staging (below, and start_gpu reads it): a
         * frame must not give it back. */
        for (int j = 0; !sg->on_cpu && j < sg->n_in; j++) vki_image_inputs_keep_floats(sg->graph, j);
    }
    for (int t = 0; t < m->n_tensors; t++) {
        const vki_tensor *x = &m->tensors[t];
        if (p->at[t]) continue;
        const int prod = producer(p, t), is_input = vki_model_is_input(m, t);
        const int needed = is_input || vki_model_is_output(m, t) || cpu_reads(m, t) ||
                           (prod >= 0 && p->seg[prod].on_cpu) || x->is_variable;
        if (!needed) continue;
        if (p->constant[t] && !x->data) continue;   /* read on the GPU only */
        /* A variable tensor is state of its own, kept from run to run (reset_state). */
        int slot, s = x->data || x->is_variable ? -1 : first_gpu_reader(p, prod < 0 ? 0 : prod + 1, t, &slot);
        if (s >= 0) {
            p->at[t] = staging(&p->seg[s], 1, slot);
            continue;
        }
        size_t n = vki_tensor_values(x);
        p->at[t] = vki_malloc((n ? n : 1) * sizeof(float));
        if (!p->at[t]) return vki_fail_oom("graph partition");
        p->owned[t] = 1;
        if (x->data && (x->dtype == VKI_DTYPE_FLOAT32 || x->dtype == VKI_DTYPE_COMPLEX64))
            memcpy(p->at[t], x->data, n * sizeof(float));
        else if (x->data)
            for (size_t i = 0; i < n; i++) p->at[t][i] = (float)((const int32_t *)x->data)[i];
        else
            memset(p->at[t], 0, n * sizeof(float));
    }
    return VKI_OK;
}

/* Variable tensors (LSTM and SVDF state) back to their first values: the file's, or zeros. */
static void reset_state(vki_partition *p) {
    for (int t = 0; t < p->m->n_tensors; t++) {
        const vki_tensor *x = &p->m->tensors[t];
        if (!x->is_variable || !p->at[t]) continue;
        size_t n = vki_tensor_elements(x);
        if (x->data && x->dtype == VKI_DTYPE_FLOAT32) memcpy(p->at[t], x->data, n * sizeof(float));
        else if (x->data)
            for (size_t i = 0; i < n; i++) p->at[t][i] = (float)((const int32_t *)x->data)[i];
        else memset(p->at[t], 0, n * sizeof(float));
    }
}

/* ---- building ------------------------------------------------------------------------ */

static void add_memory(vki_memory_report *r, const vki_memory_report *a) {
    r->weights_bytes += a->weights_bytes;
    r->intermediate_bytes += a->intermediate_bytes;
    r->io_bytes += a->io_bytes;
    r->staging_bytes += a->staging_bytes;
    r->frame_bytes += a->frame_bytes;
    r->lower_bound_bytes += a->lower_bound_bytes;
    if (!r->strategy) r->strategy = a->strategy;
}

void vki_partition_memory(const vki_partition *p, const vki_memory_report *built,
                          vki_memory_report *out) {
    *out = (vki_memory_report){.strategy = built->strategy};
    for (int s = 0; s < p->n_segments; s++)
        if (!p->seg[s].on_cpu) add_memory(out, &p->seg[s].graph->mem.report);
}

static void add_reports(vki_graph *g, const vki_graph *sub) {
    add_memory(&g->mem.report, &sub->mem.report);
    vki_tuning_report *u = &g->tuning;
    const vki_tuning_report *b = &sub->tuning;
    u->dispatches += b->dispatches;
    u->from_file += b->from_file;
    u->searched += b->searched;
    u->moved += b->moved;
    u->table_ms += b->table_ms;
    u->tuned_ms += b->tuned_ms;
    u->graph_table_ms += b->graph_table_ms;
    u->graph_tuned_ms += b->graph_tuned_ms;
    u->kept += b->kept;
    g->precision.ops += sub->precision.ops;
    g->precision.fp16_ops += sub->precision.fp16_ops;
    g->precision.fp16_arithmetic |= sub->precision.fp16_arithmetic;
    g->passes_fired |= sub->passes_fired;
}

/* The graphs of the subgraphs op o names, built with the graph's options and its runtime. */
static vki_status build_subgraphs(vki_partition *p, vki_context *ctx, const vki_model *model, int o,
                                  const vki_graph_options *so) {
    const vki_op *op = &model->ops[o];
    for (int j = 0; j < vki_op_subgraph_count(op); j++) {
        const vki_model *child = model->subgraphs ? model->subgraphs[op->opt.control.subgraph[j]] : NULL;
        if (!child)
            return vki_op_fail(model, o, VKI_ERROR_INVALID_ARGUMENT, "subgraph %d is not loaded "
                               "(a model built by hand names none)", op->opt.control.subgraph[j]);
        if (p->rt->depth >= VKI_MAX_SUBGRAPH_DEPTH)
            return vki_op_fail(model, o, VKI_ERROR_UNSUPPORTED_MODEL, "subgraphs nest more than %d "
                               "deep (a subgraph that runs itself?)", VKI_MAX_SUBGRAPH_DEPTH);
        p->rt->depth++;
        vki_status s = vki_graph_create_in(ctx, child, so, p->rt, &p->sub[2 * o + j]);
        p->rt->depth--;
        if (s) return s;
    }
    return VKI_OK;
}

vki_status vki_partition_create(vki_graph *g, const vki_model *model, const vki_graph_options *options,
                                const vki_graph_config *cfg, vki_runtime *rt) {
    if (cfg->gpu_only) {
        for (int o = 0; o < model->n_ops; o++)
            if (op_on_cpu(&model->ops[o]))
                return vki_op_fail(model, o, VKI_ERROR_UNSUPPORTED_OP, "has no GPU kernel and runs "
                                   "on the CPU, but gpu_only is set");
    }
    vki_partition *p = vki_calloc(1, sizeof *p);
    if (!p) return vki_fail_oom("graph partition");
    g->part = p;
    p->next = -1;
    p->rt = rt;
    if (!p->rt) {
        p->rt = vki_calloc(1, sizeof *p->rt);
        p->owns_rt = 1;
    }
    p->sub = vki_calloc(2 * (size_t)model->n_ops + 1, sizeof *p->sub);
    p->once = vki_calloc((size_t)model->n_ops + 1, sizeof *p->once);
    if (!p->rt || !p->sub || !p->once) return vki_fail_oom("graph partition");
    vki_graph_options so = options ? *options : (vki_graph_options){0};
    so.input_shapes = NULL;
    so.n_input_shapes = 0;
    vki_status s = VKI_OK;
    for (int o = 0; o < model->n_ops && !s; o++) s = build_subgraphs(p, g->ctx, model, o, &so);
    if (!s) s = copy_model(model, &p->m);
    p->constant = vki_calloc((size_t)model->n_tensors + 1, 1);
    if (!s && !p->constant) s = vki_fail_oom("graph partition");
    for (int t = 0; !s && t < model->n_tensors; t++) p->constant[t] = model->tensors[t].data != NULL;
    if (!s) s = split(p);
    for (int i = 0; !s && i < p->n_segments; i++) {
        segment *sg = &p->seg[i];
        if (sg->on_cpu) {
            sg->op_ms = vki_calloc((size_t)sg->n_ops, sizeof *sg->op_ms);
            if (!sg->op_ms) s = vki_fail_oom("graph partition");
            continue;
        }
        s = segment_io(p, i);
        borrowed b;
        if (!s) s = segment_model(p, sg, &b);
        if (s) break;
        /* The segment's own model, with every tensor's data: `model`'s, not the copy's. */
        for (int t = 0; t < model->n_tensors; t++)
            if (b.map[t] >= 0) b.m.tensors[b.map[t]] = model->tensors[t];
        /* The segment's model has its own inputs, already at their shapes. */
        s = vki_graph_create_in(g->ctx, &b.m, &so, p->rt, &sg->graph);
        free_borrowed(&b);
        if (!s) add_reports(g, sg->graph);
    }
    if (!s) s = place_values(p);
    if (!g->mem.report.strategy) g->mem.report.strategy = "none";   /* no GPU segment */
    return s;
}

void vki_partition_destroy(vki_partition *p) {
    if (!p) return;
    for (int o = 0; p->sub && p->m && o < 2 * p->m->n_ops; o++) vki_graph_destroy(p->sub[o]);
    free(p->sub);
    free(p->once);
    if (p->owns_rt && p->rt) {
        for (int v = 0; v < p->rt->n_vars; v++) free(p->rt->vars[v].data);
        free(p->rt->vars);
        free(p->rt);
    }
    for (int i = 0; i < p->n_segments; i++) {
        vki_graph_destroy(p->seg[i].graph);
        free(p->seg[i].ops);
        free(p->seg[i].in);
        free(p->seg[i].out);
        free(p->seg[i].op_ms);
    }
    for (int t = 0; p->m && p->at && t < p->m->n_tensors; t++)
        if (p->owned[t]) free(p->at[t]);
    free(p->at);
    free(p->owned);
    free(p->constant);
    free(p->seg);
    vki_model_destroy(p->m);
    free(p);
}

/* ---- I/O ---------------------------------------------------------------------------- */

float *vki_partition_io(vki_partition *p, int is_input, int index) {
    return p->at[is_input ? p->m->inputs[index] : p->m->outputs[index]];
}

size_t vki_partition_io_elements(const vki_partition *p, int is_input, int index) {
    int t = is_input ? p->m->inputs[index] : p->m->outputs[index];
    return vki_tensor_elements(&p->m->tensors[t]);
}

/* ---- runs --------------------------------------------------------------------------- */

/* ---- control flow and variables ------------------------------------------------------ */

/* Runs graph g on inputs in[0..n_in) into out[0..n_out) (dense floats of its shapes). */
static vki_status run_graph(vki_graph *g, const float *const *in, int n_in, float *const *out, int n_out) {
    for (int i = 0; i < n_in; i++) {
        float *dst;
        size_t size;
        vki_status s = vki_graph_input_pointer(g, i, &dst, &size);
        if (s) return s;
        if (dst != in[i]) memmove(dst, in[i], size);
    }
    vki_status s = vki_graph_run(g);
    for (int i = 0; !s && i < n_out; i++) {
        const float *src;
        size_t size;
        s = vki_graph_output_pointer(g, i, &src, &size);
        if (!s && src != out[i]) memmove(out[i], src, size);
    }
    return s;
}

static vki_status run_control(vki_partition *p, int o, const float *const *in, float *const *out) {
    const vki_model *m = p->m;
    const vki_op *op = &m->ops[o];
    vki_graph **g = &p->sub[2 * o];
    switch (op->code) {
    case VKI_OP_IF:
        return run_graph(in[0][0] != 0.0f ? g[0] : g[1], in + 1, op->n_inputs - 1, out, op->n_outputs);
    case VKI_OP_CALL_ONCE:
        if (p->once[o] == p->rt->epoch + 1) return VKI_OK;
        p->once[o] = p->rt->epoch + 1;
        return run_graph(g[0], NULL, 0, NULL, 0);
    default: break;
    }
    /* WHILE: the outputs hold the loop variables. */
    for (int i = 0; i < op->n_inputs; i++)
        memcpy(out[i], in[i], vki_tensor_elements(&m->tensors[op->inputs[i]]) * sizeof(float));
    const float *const *vars = (const float *const *)out;
    for (long it = 0;; it++) {
        if (it == VKI_MAX_LOOP_ITERATIONS)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "ran %ld iterations and was "
                               "stopped (a loop longer than that is refused rather than hang)", it);
        float cond = 0;
        float *cond_out[1] = {&cond};
        vki_status s = run_graph(g[0], vars, op->n_inputs, cond_out, 1);
        if (!s && cond == 0.0f) return VKI_OK;
        if (!s) s = run_graph(g[1], vars, op->n_inputs, out, op->n_outputs);
        if (s) return s;
    }
}

/* The variable named `name`, added unassigned if new; -1 on OOM. */
static int variable_of(vki_runtime *rt, const char *name) {
    for (int v = 0; v < rt->n_vars; v++)
        if (!strcmp(rt->vars[v].name, name)) return v;
    variable *grown = vki_realloc(rt->vars, sizeof *grown * (size_t)(rt->n_vars + 1));
    if (!grown) return -1;
    rt->vars = grown;
    variable *x = &rt->vars[rt->n_vars];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    return rt->n_vars++;
}

static vki_status run_variable(vki_partition *p, int o, const float *const *in, float *const *out) {
    const vki_model *m = p->m;
    const vki_op *op = &m->ops[o];
    vki_runtime *rt = p->rt;
    if (op->code == VKI_OP_VAR_HANDLE) {
        int v = variable_of(rt, op->opt.var.name);
        if (v < 0) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
        out[0][0] = (float)v;
        return VKI_OK;
    }
    const float id = in[0][0];
    if (!(id >= 0 && id < (float)rt->n_vars))
        return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "resource %g is no variable's handle", id);
    variable *x = &rt->vars[(int)id];
    if (op->code == VKI_OP_ASSIGN_VARIABLE) {
        const vki_tensor *t = &m->tensors[op->inputs[1]];
        size_t n = vki_tensor_elements(t);
        if (n != x->n) {
            float *d = vki_realloc(x->data, (n ? n : 1) * sizeof(float));
            if (!d) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
            x->data = d;
            x->n = n;
        }
        memcpy(x->data, in[1], n * sizeof(float));
        x->rank = t->rank;
        memcpy(x->shape, t->shape, sizeof x->shape);
        x->assigned = 1;
        return VKI_OK;
    }
    const vki_tensor *t = &m->tensors[op->outputs[0]];
    if (!x->assigned) {   /* zeros, as TFLite reads a variable nothing assigned */
        memset(out[0], 0, vki_tensor_elements(t) * sizeof(float));
        return VKI_OK;
    }
    if (x->n != vki_tensor_elements(t))
        return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "variable '%s' holds %zu values, the "
                           "output (tensor %d '%s') takes %zu", x->name, x->n, op->outputs[0],
                           t->name, vki_tensor_elements(t));
    memcpy(out[0], x->data, x->n * sizeof(float));
    return VKI_OK;
}

void vki_partition_reset(vki_partition *p) {
    reset_state(p);
    for (int o = 0; o < 2 * p->m->n_ops; o++)
        if (p->sub[o] && p->sub[o]->part) vki_partition_reset(p->sub[o]->part);
    for (int i = 0; i < p->n_segments; i++)
        if (!p->seg[i].on_cpu && p->seg[i].graph->part) vki_partition_reset(p->seg[i].graph->part);
    if (!p->owns_rt) return;
    for (int v = 0; v < p->rt->n_vars; v++) p->rt->vars[v].assigned = 0;
    p->rt->epoch++;
}

static vki_status run_cpu(vki_partition *p, segment *sg) {
    const vki_model *m = p->m;
    for (int i = 0; i < sg->n_ops; i++) {
        const double t0 = vki_now_ms();
        const int o = sg->ops[i];
        const vki_op *op = &m->ops[o];
        const vki_op_def *def = vki_op_find(op);
        const float *in[VKI_MAX_OP_INPUTS];
        float *out[VKI_MAX_OP_OUTPUTS];
        for (int k = 0; k < op->n_inputs; k++) in[k] = op->inputs[k] >= 0 ? p->at[op->inputs[k]] : NULL;
        for (int k = 0; k < op->n_outputs; k++) out[k] = p->at[op->outputs[k]];
        vki_status s = VKI_OK;
        if (vki_op_subgraph_count(op)) s = run_control(p, o, in, out);
        else if (op->code == VKI_OP_VAR_HANDLE || op->code == VKI_OP_READ_VARIABLE ||
                 op->code == VKI_OP_ASSIGN_VARIABLE)
            s = run_variable(p, o, in, out);
        else if (def->run) s = def->run(m, o, in, out);
        else def->reference(m, op, in, out);
        if (s) return s;
        sg->op_ms[i] = vki_now_ms() - t0;
    }
    return VKI_OK;
}

/* Copies into a GPU segment's inputs what is not there already, and submits it. */
static vki_status start_gpu(vki_partition *p, segment *sg) {
    for (int j = 0; j < sg->n_in; j++) {
        float *dst = staging(sg, 1, j);
        int t = sg->in[j];
        if (p->at[t] != dst)
            memcpy(dst, p->at[t], vki_tensor_elements(&p->m->tensors[t]) * sizeof(float));
    }
    return vki_graph_submit(sg->graph);
}

/* Runs segments from p->next until one is a submitted GPU segment (return) or the end. */
static vki_status advance(vki_partition *p) {
    while (p->next < p->n_segments) {
        segment *sg = &p->seg[p->next];
        const double t0 = vki_now_ms();
        vki_status s = sg->on_cpu ? run_cpu(p, sg) : start_gpu(p, sg);
        if (s) {
            p->next = -1;
            return s;
        }
        if (!sg->on_cpu) {
            sg->ms = t0;        /* finished in vki_partition_wait */
            p->waiting = 1;
            return VKI_OK;
        }
        sg->ms = vki_now_ms() - t0;
        p->next++;
    }
    p->next = -1;
    return VKI_OK;
}

int vki_partition_pending(const vki_partition *p) { return p->next >= 0; }

vki_status vki_partition_submit(vki_partition *p) {
    p->next = 0;
    p->waiting = 0;
    return advance(p);
}

vki_status vki_partition_wait(vki_partition *p, uint64_t timeout_ns, int own_timeouts) {
    int first = !own_timeouts;
    while (p->next >= 0) {
        if (p->waiting) {
            segment *sg = &p->seg[p->next];
            /* A poll (timeout 0) polls every GPU segment it reaches. */
            uint64_t t = first || (!own_timeouts && timeout_ns == 0) ? timeout_ns
                                                                    : sg->graph->rec.sub.timeout_ns;
            vki_status s = vki_graph_wait(sg->graph, t);
            if (s == VKI_ERROR_TIMEOUT || s == VKI_NOT_READY) return s;
            if (s) {
                p->next = -1;
                return s;
            }
            sg->ms = vki_now_ms() - sg->ms;
            p->waiting = 0;
            p->next++;
        }
        first = 0;
        vki_status s = advance(p);
        if (s) return s;
    }
    return VKI_OK;
}

/* ---- what the partition shows ---------------------------------------------------------- */

int vki_partition_dispatch_count(const vki_partition *p) {
    int n = 0;
    for (int s = 0; s < p->n_segments; s++)
        if (!p->seg[s].on_cpu) n += p->seg[s].graph->rec.n_steps;
    return n;
}

int vki_partition_locate(const vki_partition *p, int index, vki_graph **sub, int *local) {
    for (int s = 0; s < p->n_segments && index >= 0; s++) {
        if (p->seg[s].on_cpu) continue;
        int n = p->seg[s].graph->rec.n_steps;
        if (index < n) {
            *sub = p->seg[s].graph;
            *local = index;
            return 1;
        }
        index -= n;
    }
    return 0;
}

int vki_partition_profile(const vki_partition *p, vki_dispatch_profile *out, int max) {
    int n = 0;
    for (int s = 0; s < p->n_segments; s++) {
        const segment *sg = &p->seg[s];
        if (sg->on_cpu) {
            for (int i = 0; i < sg->n_ops; i++, n++)
                if (out && n < max)
                    out[n] = (vki_dispatch_profile){"cpu", p->m->ops[sg->ops[i]].file_index,
                                                    sg->op_ms[i], {0, 0, 0}, {0, 0, 0}, ""};
            continue;
        }
        int k = vki_graph_profile(sg->graph, out && n < max ? out + n : NULL, max - n);
        if (k < 0) return -1;
        n += k;
    }
    return n;
}

int vki_partition_segment_count(const vki_partition *p) { return p->n_segments; }

vki_status vki_partition_segment_info(const vki_partition *p, int index, vki_segment_info *out) {
    if (index < 0 || index >= p->n_segments)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_segment_info: %s: segment %d out "
                        "of range (the graph has %d)", p->m->name, index, p->n_segments);
    const segment *sg = &p->seg[index];
    *out = (vki_segment_info){
        .on_cpu = sg->on_cpu,
        .ops = sg->n_ops,
        .first_op = p->m->ops[sg->ops[0]].file_index,
        .dispatches = sg->on_cpu ? 0 : sg->graph->rec.n_steps,
        .inputs = sg->on_cpu ? 0 : sg->n_in,
        .outputs = sg->on_cpu ? 0 : sg->n_out,
        .last_ms = sg->ms,
    };
    return VKI_OK;
}

int vki_partition_graphs(const vki_partition *p, vki_graph **out, int max) {
    int n = 0;
    for (int s = 0; s < p->n_segments; s++)
        if (!p->seg[s].on_cpu) {
            if (out && n < max) out[n] = p->seg[s].graph;
            n++;
        }
    return n;
}

vki_status vki_partition_input_floats(vki_partition *p, int index) {
    int slot = -1, s = first_gpu_reader(p, 0, p->m->inputs[index], &slot);
    return s < 0 ? VKI_OK : vki_image_inputs_floats(p->seg[s].graph, slot);
}

vki_status vki_partition_set_input_image(vki_partition *p, int index, const vki_image *image,
                                         const vki_image_transform *transform) {
    const int t = p->m->inputs[index];
    int slot = -1, s = first_gpu_reader(p, 0, t, &slot), other;
    if (s < 0 || cpu_reads(p->m, t) || first_gpu_reader(p, s + 1, t, &other) >= 0 ||
        vki_model_is_output(p->m, t))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_set_input_image: %s: input %d "
                        "('%s') is read on the CPU or by several GPU segments; pass its floats "
                        "(vki_graph_set_input)", p->m->name, index, p->m->tensors[t].name);
    return vki_graph_set_input_image(p->seg[s].graph, slot, image, transform);
}
