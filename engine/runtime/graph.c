/* graph.c: the public graph calls, composing the stages:
 *
 *   options (options.c) -> passes + emit (builder.c) -> plan + memory (memory.c)
 *     -> kernels (kernels.c) -> work groups + tuning (tune.c) -> record + run (recorder.c)
 *
 * vki_graph_create runs them once; vki_graph_run submits the one recorded command buffer
 * and waits (vki_graph_submit and vki_graph_wait split it). Inputs and outputs pass through
 * host-visible staging buffers that the first and last dispatches convert from and to
 * dense NHWC. Each call takes the graph (vki_graph_enter): one thread at a time.
 */
#include "graph.h"

#include "builder.h"
#include "image_input.h"
#include "kernels.h"
#include "partition.h"
#include "status.h"
#include "../../tuner/stats.h"
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


double vki_graph_dispatch_flops(const vki_graph *g, int index) {
    if (!g) return 0.0;
    vki_graph *sub;
    int local;
    if (g->part)
        return vki_partition_locate(g->part, index, &sub, &local) ? vki_graph_dispatch_flops(sub, local)
                                                                  : 0.0;
    if (index < 0 || index >= g->rec.n_steps) return 0.0;
    return g->kernels[index].flops;
}

static vki_status not_in_flight(const vki_graph *g, const char *call);

/* The graph keeps only what it needs of the model: its I/O tensors' names and shapes. */
static vki_model *copy_io(const vki_model *m) {
    vki_model *c = vki_model_new(m->name);
    int *in = vki_malloc(sizeof(int) * (size_t)(m->n_inputs ? m->n_inputs : 1));
    int *out = vki_malloc(sizeof(int) * (size_t)(m->n_outputs ? m->n_outputs : 1));
    int ok = c && in && out;
    for (int i = 0; ok && i < m->n_inputs + m->n_outputs; i++) {
        int is_input = i < m->n_inputs;
        const vki_tensor *t = &m->tensors[is_input ? m->inputs[i] : m->outputs[i - m->n_inputs]];
        char **names = is_input ? m->input_names : m->output_names;
        const char *name = names ? names[is_input ? i : i - m->n_inputs] : t->name;
        int idx = vki_model_add_tensor(c, name, t->dtype, t->rank, t->shape, NULL, 0);
        ok = idx >= 0;
        if (ok) c->tensors[idx].dynamic_dims = t->dynamic_dims;
        if (is_input) in[i] = idx;
        else out[i - m->n_inputs] = idx;
    }
    ok = ok && vki_model_set_io(c, m->n_inputs, in, m->n_outputs, out);
    free(in);
    free(out);
    if (!ok) {
        vki_model_destroy(c);
        return NULL;
    }
    return c;
}

static vki_status keep_kernel(vki_step_kernel *sk, const vki_kernel_variant *v, vki_wg_class cls) {
    size_t p = strlen(v->precision);
    sk->text = vki_malloc(v->defines_len + p + 1);
    if (!sk->text) return vki_fail_oom("graph build");
    memcpy(sk->text, v->defines, v->defines_len);
    memcpy(sk->text + v->defines_len, v->precision, p + 1);
    sk->v = *v;
    sk->v.defines = sk->text;
    sk->v.precision = sk->text + v->defines_len;
    sk->cls = cls;
    return VKI_OK;
}

static void free_kernels(vki_graph *g) {
    for (int k = 0; g->kernels && k < g->rec.n_steps; k++) free(g->kernels[k].text);
    free(g->kernels);
    g->kernels = NULL;
}

vki_status vki_graph_pipeline_of(void *user, int k, const uint32_t wg[3], VkPipeline *out) {
    const vki_graph *g = user;
    return vki_kernels_pipeline(g->ctx, &g->kernels[k].v, wg, out);
}

/* One step per dispatch: its work group, pipeline and descriptor set. */
/* The file's index of the op a dispatch belongs to (-1 for graph I/O conversions). */
static int file_op(const vki_model *m, const vki_dispatch *d) {
    return d->op_index >= 0 && d->op_index < m->n_ops ? m->ops[d->op_index].file_index : -1;
}

static vki_status describe_steps(vki_graph *g, const vki_build *b, vki_tuning *tu) {
    vki_context *ctx = g->ctx;
    const VkPhysicalDeviceLimits *lim = &ctx->props.limits;
    for (int k = 0; k < b->n_dispatches; k++) {
        const vki_dispatch *d = &b->dispatches[k];
        vki_step *step = &g->rec.steps[k];
        char precision[4096];
        vki_kernel_variant v;
        vki_build_variant(b, k, precision, sizeof precision, &v);
        vki_status s = keep_kernel(&g->kernels[k], &v, d->wg_class);
        if (s) return s;
        /* An op's arithmetic counts once, on its last dispatch. */
        const int last = k + 1 == b->n_dispatches || b->dispatches[k + 1].op_index != d->op_index;
        g->kernels[k].flops = d->op_index >= 0 && last ? vki_op_flops(b->m, &b->m->ops[d->op_index]) : 0.0;
        if (d->fixed_wg[0])
            memcpy(g->kernels[k].table_wg, d->fixed_wg, sizeof d->fixed_wg);
        else
            vki_wg_pick(&tu->device, d->wg_class, d->grid, g->kernels[k].table_wg);
        VkDescriptorSetLayout set_layout;
        s = vki_kernels_layout(ctx, d->n_bindings, &set_layout, &step->layout);
        if (s) return s;
        vki_tuning_pick(tu, k, &v, d->wg_class, d->grid, g->kernels[k].table_wg, step->wg);
        s = vki_kernels_pipeline(ctx, &v, step->wg, &step->pipeline);
        if (s == VKI_ERROR_SHADER) {
            /* Which op needed the kernel: a pack made for another model lacks it. */
            char why[1024];
            snprintf(why, sizeof why, "%s", vki_last_error());
            int op = file_op(b->m, d);
            if (op < 0) return vki_fail(s, "%s: the input/output layout conversion: %s", b->m->name, why);
            return vki_fail(s, "%s: op %d %s: %s", b->m->name, op,
                            vki_op_name(b->m->ops[d->op_index].code), why);
        }
        if (s) return s;
        for (int a = 0; a < 3; a++) {
            step->groups[a] = (d->grid[a] + step->wg[a] - 1) / step->wg[a];
            step->grid[a] = d->grid[a];
            if (step->groups[a] > lim->maxComputeWorkGroupCount[a])
                return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                                "%s: op %d (kernel %s) needs %u work groups along axis %d, the "
                                "device allows %u", b->m->name, file_op(b->m, d), d->kernel,
                                step->groups[a], a, lim->maxComputeWorkGroupCount[a]);
        }
        step->kernel = d->kernel;
        memcpy(step->variant, d->variant, sizeof step->variant);
        step->variant[sizeof step->variant - 1] = '\0';
        step->op_index = file_op(b->m, d);   /* what the profile reports: the file's number */
        VkDescriptorBufferInfo infos[VKI_MAX_BINDINGS];
        for (int i = 0; i < d->n_bindings; i++) {
            infos[i] = vki_memory_binding(&g->mem, b, &d->bindings[i]);
            /* A descriptor past maxStorageBufferRange is invalid (VUID-...-00333). */
            if (infos[i].range > lim->maxStorageBufferRange)
                return vki_fail(VKI_ERROR_UNSUPPORTED_MODEL,
                                "%s: op %d (kernel %s) binds %llu bytes at binding %d, more than "
                                "the device's maxStorageBufferRange %u", b->m->name, file_op(b->m, d),
                                d->kernel, (unsigned long long)infos[i].range, i,
                                lim->maxStorageBufferRange);
        }
        s = vki_recording_bind(&g->rec, k, set_layout, d->n_bindings, infos);
        if (s) return s;
    }
    return VKI_OK;
}

/* One run on zero inputs, so that what a driver compiles at a kernel's first dispatch
 * (lavapipe compiles every kernel there) is done inside vki_graph_create. Measured in
 * bench/results/first_run.md. */
vki_status vki_graph_warm_up(vki_graph *g, int clear_inputs) {
    if (clear_inputs) vki_memory_clear_inputs(g->ctx, &g->mem);
    vki_status s = vki_recording_start(&g->rec);
    if (s) return s;
    s = vki_recording_finish(&g->rec, VKI_WARM_UP_TIMEOUT_NS);
    if (s == VKI_ERROR_TIMEOUT) vki_submitter_drain(&g->rec.sub);
    return s ? s : vki_memory_check_guards(g->ctx, &g->mem, g->model_io->name);
}

static vki_status build(vki_graph *g, const vki_model *model, const vki_graph_config *cfg,
                        vki_build *b) {
    vki_context *ctx = g->ctx;
    vki_status s = vki_build_open(b, ctx, model, cfg);
    if (s) return s;
    g->precision = b->precision;
    g->passes_fired = b->passes_fired;
    s = vki_memory_create(ctx, b, cfg, &g->mem);
    if (!s) s = vki_image_inputs_open(g, b);
    if (s) return s;
    uint32_t n_bindings = 0;
    for (int k = 0; k < b->n_dispatches; k++) n_bindings += (uint32_t)b->dispatches[k].n_bindings;
    s = vki_recording_open(ctx, b->n_dispatches, n_bindings, cfg->profile, cfg->spin_ns,
                           cfg->fence_timeout_ns, &g->rec);
    if (s) return s;
    if (g->mem.n_guards) {
        g->rec.epilogue = vki_memory_record_guard_copy;
        g->rec.hook_user = &g->mem;
    }
    g->kernels = vki_calloc((size_t)(b->n_dispatches ? b->n_dispatches : 1), sizeof *g->kernels);
    if (!g->kernels) return vki_fail_oom("graph build");
    vki_tuning tu;
    s = vki_tuning_open(&tu, ctx, cfg, b->n_dispatches);
    if (!s) s = describe_steps(g, b, &tu);
    if (!s && cfg->tune) vki_memory_clear_inputs(ctx, &g->mem);
    if (!s) s = vki_tuning_finish(&tu, &g->rec, vki_graph_pipeline_of, g);
    g->tuning = tu.report;
    vki_tuning_close(&tu);
    g->warm_up = cfg->warm_up;
    if (!s && cfg->warm_up) s = vki_graph_warm_up(g, 1);
    return s;
}

vki_status vki_graph_create(vki_context *ctx, const vki_model *model,
                            const vki_graph_options *options, vki_graph **out) {
    return vki_graph_create_in(ctx, model, options, NULL, out);
}

vki_status vki_graph_reset_variables(vki_graph *g) {
    vki_status s = vki_graph_enter(g, "vki_graph_reset_variables");
    if (s) return s;
    s = not_in_flight(g, "vki_graph_reset_variables");
    if (!s && g->part) vki_partition_reset(g->part);
    vki_graph_leave(g);
    return s;
}

vki_status vki_graph_create_in(vki_context *ctx, const vki_model *model,
                               const vki_graph_options *options, vki_runtime *rt, vki_graph **out) {
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: out is NULL");
    *out = NULL;
    if (!ctx || !model) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: NULL context or model");
    if (atomic_load(&ctx->lost))
        return vki_fail(VKI_ERROR_DEVICE_LOST, "vki_graph_create: %s: the device was lost; make "
                        "a new context", model->name);
    vki_graph *g = vki_calloc(1, sizeof *g);
    if (!g) return vki_fail_oom("vki_graph_create");
    vki_graph_config cfg;
    vki_status s = vki_graph_config_resolve(ctx, model, options, &cfg);
    if (s) {
        free(g);
        return s;
    }
    /* The graph keeps its context alive: the app may destroy the context first. */
    g->ctx = ctx;
    vki_context_retain(ctx);
    g->model_io = copy_io(model);
    if (!g->model_io) s = vki_fail_oom("vki_graph_create");
    vki_build b = {0};
    vki_model *view = NULL;
    if (!s && options && options->n_input_shapes > 0) {
        s = vki_model_resized_view(model, options->input_shapes, options->n_input_shapes, &view);
        if (!s) model = view;
        vki_model_destroy(g->model_io);
        g->model_io = s ? NULL : copy_io(model);
        if (!s && !g->model_io) s = vki_fail_oom("vki_graph_create");
    }
    if (!s && vki_partition_first_cpu_op(model) >= 0) s = vki_partition_create(g, model, options, &cfg, rt);
    else if (!s) s = build(g, model, &cfg, &b);
    vki_build_close(&b);
    vki_model_view_free(view);
    if (s) {
        vki_graph_destroy(g);
        return s;
    }
    *out = g;
    return VKI_OK;
}

vki_status vki_memory_plans(vki_context *ctx, const vki_model *model,
                            const vki_graph_options *options, vki_memory_plan_info *out, int max) {
    if (!ctx || !model || (!out && max > 0))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_memory_plans: NULL argument");
    vki_graph_config cfg;
    vki_build b = {0};
    vki_lifetimes l = {0};
    vki_status s = vki_graph_config_resolve(ctx, model, options, &cfg);
    if (!s) s = vki_build_open(&b, ctx, model, &cfg);
    if (!s) s = vki_lifetimes_collect(&b, 0, &l);
    vki_plan_options opts = {.alignment = vki_arena_alignment(ctx)};
    for (int i = 0; !s && i < max && i < VKI_MEMORY_STRATEGY_COUNT; i++) {
        vki_plan plan;
        if (vki_plan_make(l.records, l.n, vki_plan_strategy_of((vki_memory_strategy)i), &opts, &plan)) {
            s = vki_fail(VKI_ERROR_OUT_OF_MEMORY, "%s: the %s memory plan failed: out of host "
                         "memory or a plan larger than 2^64 bytes", model->name,
                         vki_plan_strategy_name(vki_plan_strategy_of((vki_memory_strategy)i)));
            break;
        }
        out[i] = (vki_memory_plan_info){
            .strategy = (vki_memory_strategy)i,
            .name = vki_plan_strategy_name(plan.strategy),
            .total_bytes = plan.total,
            .objects = plan.object_of ? plan.n_objects : 0,
            .lower_bound_bytes = plan.lower_bound,
            .plan_ms = plan.plan_ms,
            .proven_optimal = plan.proven_optimal,
            .tensors = l.n,
        };
        vki_plan_free(&plan);
    }
    vki_lifetimes_free(&l);
    vki_build_close(&b);
    return s;
}

vki_status vki_graph_enter(vki_graph *g, const char *call) {
    if (!g) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: graph is NULL", call);
    int idle = 0;
    if (!atomic_compare_exchange_strong(&g->busy, &idle, 1))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: graph %s is in a call on another "
                        "thread; a graph is used by one thread at a time", call, g->model_io->name);
    if (atomic_load(&g->ctx->lost)) {
        vki_graph_leave(g);
        return vki_fail(VKI_ERROR_DEVICE_LOST, "%s: graph %s: the device was lost; make a new "
                        "context", call, g->model_io->name);
    }
    return VKI_OK;
}

void vki_graph_leave(vki_graph *g) { atomic_store(&g->busy, 0); }

void vki_graph_destroy(vki_graph *g) {
    if (!g) return;
    int idle = 0;
    if (!atomic_compare_exchange_strong(&g->busy, &idle, 1)) {
        /* Freeing it under the other thread would crash there: leak it instead, and say so. */
        vki_log(g->ctx, VKI_LOG_ERROR, "vki_graph_destroy: graph %s is in a call on another "
                "thread; not destroyed", g->model_io ? g->model_io->name : "?");
        return;
    }
    vki_partition_destroy(g->part);
    free_kernels(g);                /* before the recording forgets its step count */
    vki_recording_close(&g->rec);   /* waits for a run still in flight */
    vki_image_inputs_close(g);
    vki_memory_destroy(g->ctx, &g->mem);
    vki_model_destroy(g->model_io);
    vki_context *ctx = g->ctx;
    free(g);
    vki_context_release(ctx);       /* last: frees the context if the app destroyed it */
}

/* A run in flight reads the staging buffers and the recorded command buffer: nothing that
 * writes or re-records them may run meanwhile. */
static vki_status not_in_flight(const vki_graph *g, const char *call) {
    if (!(g->part ? vki_partition_pending(g->part) : g->pending)) return VKI_OK;
    return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: graph %s has a run in flight; call "
                    "vki_graph_wait first", call, g->model_io->name);
}

static int io_count(const vki_graph *g, int is_input) {
    return is_input ? g->model_io->n_inputs : g->model_io->n_outputs;
}

static size_t io_elements(const vki_graph *g, int is_input, int index) {
    if (g->part) return vki_partition_io_elements(g->part, is_input, index);
    return g->mem.elements[is_input ? index : g->mem.n_inputs + index];
}

/* Where input or output `index`'s dense floats are: its staging buffer, mapped. */
static float *io_values(vki_graph *g, int is_input, int index) {
    if (g->part) return vki_partition_io(g->part, is_input, index);
    return g->mem.staging[is_input ? index : g->mem.n_inputs + index].mapped;
}

static vki_status check_io(const vki_graph *g, int index, int is_input, size_t size, const void *data) {
    const char *call = is_input ? "vki_graph_set_input" : "vki_graph_get_output";
    if (!data) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: data is NULL", call);
    vki_status s = not_in_flight(g, call);
    if (s) return s;
    int n = io_count(g, is_input);
    if (index < 0 || index >= n)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: index %d out of range (%d %s)", call,
                        index, n, is_input ? "inputs" : "outputs");
    size_t elements = io_elements(g, is_input, index);
    if (size != elements * sizeof(float))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s %d takes %zu bytes (%zu floats), got %zu",
                        call, is_input ? "input" : "output", index, elements * sizeof(float),
                        elements, size);
    return VKI_OK;
}

vki_status vki_graph_set_input(vki_graph *g, int index, const float *data, size_t size) {
    vki_status s = vki_graph_enter(g, "vki_graph_set_input");
    if (s) return s;
    s = check_io(g, index, 1, size, data);
    if (!s && g->part) s = vki_partition_input_floats(g->part, index);
    if (!s && !g->part) s = vki_image_inputs_floats(g, index);
    if (!s) memcpy(io_values(g, 1, index), data, size);
    if (!s && !g->part) vki_buffer_flush(g->ctx, &g->mem.staging[index]);
    vki_graph_leave(g);
    return s;
}

static vki_status submit(vki_graph *g, const char *call) {
    vki_status s = not_in_flight(g, call);
    if (s) return s;
    if (g->part) return vki_partition_submit(g->part);
    /* Inputs written through vki_graph_input_pointer reach non-coherent memory here. */
    for (int i = 0; i < g->mem.n_inputs; i++) vki_buffer_flush(g->ctx, &g->mem.staging[i]);
    g->submitted_ms = vki_now_ms();
    s = vki_recording_start(&g->rec);
    if (!s) g->pending = 1;
    return s;
}

/* Waits for the run in flight; then the outputs are readable. A timeout leaves it pending. */
static vki_status finish(vki_graph *g, uint64_t timeout_ns, const char *call) {
    if (g->part && vki_partition_pending(g->part))
        return vki_partition_wait(g->part, timeout_ns, 0);
    if (!g->pending)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: graph %s has no run in flight",
                        call, g->model_io->name);
    vki_status s = vki_recording_finish(&g->rec, timeout_ns);
    if (s == VKI_ERROR_TIMEOUT || s == VKI_NOT_READY) return s;
    g->pending = 0;
    if (s) return s;
    g->last_ms = vki_now_ms() - g->submitted_ms;
    for (int i = 0; i < g->mem.n_outputs; i++)
        vki_buffer_invalidate(g->ctx, &g->mem.staging[g->mem.n_inputs + i]);
    return vki_memory_check_guards(g->ctx, &g->mem, g->model_io->name);
}

vki_status vki_graph_run(vki_graph *g) {
    vki_status s = vki_graph_enter(g, "vki_graph_run");
    if (s) return s;
    s = submit(g, "vki_graph_run");
    /* A partitioned graph waits for each GPU segment with that segment's run timeout. */
    if (!s && g->part) s = vki_partition_wait(g->part, 0, 1);
    else if (!s) s = finish(g, g->rec.sub.timeout_ns, "vki_graph_run");
    vki_graph_leave(g);
    return s;
}

vki_status vki_graph_submit(vki_graph *g) {
    vki_status s = vki_graph_enter(g, "vki_graph_submit");
    if (s) return s;
    s = submit(g, "vki_graph_submit");
    vki_graph_leave(g);
    return s;
}

vki_status vki_graph_wait(vki_graph *g, uint64_t timeout_ns) {
    vki_status s = vki_graph_enter(g, "vki_graph_wait");
    if (s) return s;
    s = finish(g, timeout_ns, "vki_graph_wait");
    vki_graph_leave(g);
    return s;
}

int vki_graph_input_count(const vki_graph *g) { return g ? g->model_io->n_inputs : 0; }
int vki_graph_output_count(const vki_graph *g) { return g ? g->model_io->n_outputs : 0; }

vki_status vki_graph_input_info(const vki_graph *g, int index, vki_tensor_info *out) {
    if (!g) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_input_info: graph is NULL");
    return vki_model_io_info(g->model_io, index, 1, "vki_graph_input_info", out);
}

vki_status vki_graph_output_info(const vki_graph *g, int index, vki_tensor_info *out) {
    if (!g) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_output_info: graph is NULL");
    return vki_model_io_info(g->model_io, index, 0, "vki_graph_output_info", out);
}

int vki_graph_input_index(const vki_graph *g, const char *name) {
    return g ? vki_model_input_index(g->model_io, name) : -1;
}

int vki_graph_output_index(const vki_graph *g, const char *name) {
    return g ? vki_model_output_index(g->model_io, name) : -1;
}

vki_status vki_graph_get_output(vki_graph *g, int index, float *data, size_t size) {
    vki_status s = vki_graph_enter(g, "vki_graph_get_output");
    if (s) return s;
    s = check_io(g, index, 0, size, data);
    if (!s) memcpy(data, io_values(g, 0, index), size);
    vki_graph_leave(g);
    return s;
}

vki_status vki_graph_memory(const vki_graph *g, vki_memory_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_memory: NULL argument");
    /* A partition's segments change theirs as frames come: sum them now. */
    if (g->part) vki_partition_memory(g->part, &g->mem.report, out);
    else *out = g->mem.report;
    return VKI_OK;
}

vki_status vki_graph_tuning(const vki_graph *g, vki_tuning_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_tuning: NULL argument");
    *out = g->tuning;
    return VKI_OK;
}

vki_status vki_graph_precision(const vki_graph *g, vki_precision_report *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_precision: NULL argument");
    *out = g->precision;
    return VKI_OK;
}

int vki_graph_dispatch_count(const vki_graph *g) {
    return !g ? 0 : g->part ? vki_partition_dispatch_count(g->part) : g->rec.n_steps;
}

int vki_graph_segment_count(const vki_graph *g) {
    return !g ? 0 : g->part ? vki_partition_segment_count(g->part) : 1;
}

vki_status vki_graph_segment_info(const vki_graph *g, int index, vki_segment_info *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_segment_info: NULL argument");
    if (g->part) return vki_partition_segment_info(g->part, index, out);
    if (index != 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_segment_info: %s: segment %d out "
                        "of range (the graph has 1)", g->model_io->name, index);
    *out = (vki_segment_info){.ops = g->precision.ops, .first_op = 0,
                              .dispatches = g->rec.n_steps, .inputs = g->model_io->n_inputs,
                              .outputs = g->model_io->n_outputs, .last_ms = g->last_ms};
    return VKI_OK;
}

vki_status vki_graph_dispatch_info(const vki_graph *g, int index, vki_dispatch_info *out) {
    if (!g || !out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_dispatch_info: NULL argument");
    vki_graph *sub;
    int local;
    if (g->part && vki_partition_locate(g->part, index, &sub, &local))
        return vki_graph_dispatch_info(sub, local, out);
    if (g->part) index = -1;
    if (index < 0 || index >= g->rec.n_steps)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_dispatch_info: %s: dispatch %d "
                        "out of range (the graph has %d)", g->model_io->name, index, g->rec.n_steps);
    vki_status s = vki_graph_enter((vki_graph *)g, "vki_graph_dispatch_info");
    if (s) return s;
    const vki_step *st = &g->rec.steps[index];
    const vki_step_kernel *k = &g->kernels[index];
    *out = (vki_dispatch_info){
        .kernel = st->kernel, .op_index = st->op_index, .variant = st->variant,
        .wg_class = vki_wg_class_name(k->cls), .tunable = vki_wg_tunable(k->cls),
        .grid = {st->grid[0], st->grid[1], st->grid[2]},
        .workgroup = {st->wg[0], st->wg[1], st->wg[2]},
        .table_workgroup = {k->table_wg[0], k->table_wg[1], k->table_wg[2]},
    };
    vki_graph_leave((vki_graph *)g);
    return VKI_OK;
}

static vki_status not_in_flight(const vki_graph *g, const char *call);

vki_status vki_graph_time_dispatch(vki_graph *g, int index, const uint32_t wg[3], double *ms) {
    if (!g || !wg || !ms) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_time_dispatch: NULL argument");
    *ms = -1;
    vki_graph *sub;
    int local;
    if (g->part && vki_partition_locate(g->part, index, &sub, &local))
        return vki_graph_time_dispatch(sub, local, wg, ms);
    if (g->part) index = -1;
    if (index < 0 || index >= g->rec.n_steps)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_time_dispatch: %s: dispatch %d "
                        "out of range (the graph has %d)", g->model_io->name, index, g->rec.n_steps);
    if (!wg[0] || !wg[1] || !wg[2])
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_time_dispatch: work group %ux%ux%u "
                        "has a zero axis", wg[0], wg[1], wg[2]);
    vki_status s = vki_graph_enter(g, "vki_graph_time_dispatch");
    if (s) return s;
    s = not_in_flight(g, "vki_graph_time_dispatch");
    if (!s) s = vki_tune_time(&g->rec, index, wg, vki_graph_pipeline_of, g, ms);
    vki_graph_leave(g);
    return s;
}

int vki_graph_profile(const vki_graph *g, vki_dispatch_profile *out, int max) {
    if (g && g->part) {
        if (vki_graph_enter((vki_graph *)g, "vki_graph_profile")) return -1;
        int n = vki_partition_profile(g->part, out, max);
        vki_graph_leave((vki_graph *)g);
        return n;
    }
    if (!g || !g->rec.timestamps) return -1;
    /* The times are the last run's: read them only while no other call runs. */
    if (vki_graph_enter((vki_graph *)g, "vki_graph_profile")) return -1;
    for (int k = 0; k < g->rec.n_steps && k < max && out; k++) {
        const vki_step *s = &g->rec.steps[k];
        out[k] = (vki_dispatch_profile){s->kernel, s->op_index, g->rec.step_ms[k],
                                        {s->grid[0], s->grid[1], s->grid[2]},
                                        {s->wg[0], s->wg[1], s->wg[2]}, s->variant};
    }
    vki_graph_leave((vki_graph *)g);
    return g->rec.n_steps;
}

/* ---- camera frames and zero-copy I/O ------------------------------------------------- */


vki_status vki_graph_set_input_image(vki_graph *g, int index, const vki_image *image,
                                     const vki_image_transform *transform) {
    vki_status s = vki_graph_enter(g, "vki_graph_set_input_image");
    if (s) return s;
    s = not_in_flight(g, "vki_graph_set_input_image");
    if (!s && g->part && (index < 0 || index >= g->model_io->n_inputs))
        s = vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_set_input_image: %s: input %d out of "
                     "range (%d inputs)", g->model_io->name, index, g->model_io->n_inputs);
    if (!s && g->part) s = vki_partition_set_input_image(g->part, index, image, transform);
    else if (!s) s = vki_image_inputs_set(g, index, image, transform);
    vki_graph_leave(g);
    return s;
}

/* The mapped staging memory of input or output `index`; an input goes back to floats. */
static vki_status io_pointer(vki_graph *g, int index, int is_input, float **data, size_t *size) {
    const char *call = is_input ? "vki_graph_input_pointer" : "vki_graph_output_pointer";
    if (data) *data = NULL;
    if (size) *size = 0;
    vki_status s = vki_graph_enter(g, call);
    if (s) return s;
    int n = io_count(g, is_input);
    if (!data || !size) s = vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: NULL argument", call);
    if (!s) s = not_in_flight(g, call);
    if (!s && (index < 0 || index >= n))
        s = vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: %s: index %d out of range (%d %s)", call,
                     g->model_io->name, index, n, is_input ? "inputs" : "outputs");
    if (!s && is_input && g->part) s = vki_partition_input_floats(g->part, index);
    if (!s && is_input && !g->part) s = vki_image_inputs_floats(g, index);
    /* The pointer is valid until the graph is destroyed: frames must not free what it
     * points to. */
    if (!s && is_input && !g->part) vki_image_inputs_keep_floats(g, index);
    if (!s) {
        *data = io_values(g, is_input, index);
        *size = io_elements(g, is_input, index) * sizeof(float);
    }
    vki_graph_leave(g);
    return s;
}

vki_status vki_graph_input_pointer(vki_graph *g, int index, float **data, size_t *size) {
    return io_pointer(g, index, 1, data, size);
}

vki_status vki_graph_output_pointer(vki_graph *g, int index, const float **data, size_t *size) {
    float *p = NULL;
    vki_status s = io_pointer(g, index, 0, data ? &p : NULL, size);
    if (data) *data = p;
    return s;
}

unsigned vki_graph_passes_fired(const vki_graph *g) { return g ? g->passes_fired : 0; }
