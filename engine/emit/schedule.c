/* schedule.c: the schedule stage, between emit and memory: the order the dispatches run in
 * (planner/order.c picks, among the orders that keep every storage's reads and writes in
 * their stored order, one with a lower peak of live bytes) and in-place storage (a dispatch
 * whose kernel reads an input only at the index it writes, before writing it, takes that
 * input's storage for its output where it reads the input last). Neither changes what a
 * kernel computes: each dispatch reads the same values and writes the same ones. */
#include "builder.h"

#include "../../planner/order.h"
#include "../../planner/planner.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* Whether dispatch d may write tensor t: every binding that is not one of its op's inputs
 * (or a tensor read through what was fused into it, vki_fused_reads) counts as a write.
 * Calling a read a write only takes freedom from the order; the other way round would be
 * wrong, so unknown means write. */
static int may_write(const vki_build *b, const vki_dispatch *d, int t) {
    if (d->op_index < 0) return strcmp(d->kernel, VKI_KERNEL_from_phwc4) != 0;
    const vki_op *ops[2] = {&b->m->ops[d->op_index], NULL};
    if (ops[0]->fused.pointwise) ops[1] = &b->m->ops[ops[0]->fused.pointwise - 1];
    for (int j = 0; j < 2 && ops[j]; j++) {
        const vki_op *op = ops[j];
        for (int i = 0; i < op->n_outputs; i++)
            if (op->outputs[i] == t) return 1;
        for (int i = 0; i < op->n_inputs; i++)
            if (op->inputs[i] == t && (j == 0 || op->inputs[i] != ops[0]->outputs[0])) return 0;
        int extra[2];
        for (int i = vki_fused_reads(&op->fused, extra); i-- > 0;)
            if (extra[i] == t) return 0;
    }
    return 1;
}

/* How many tensor bindings of d use storage r. */
static int uses(const vki_build *b, const vki_dispatch *d, int r) {
    int n = 0;
    for (int i = 0; i < d->n_bindings; i++)
        n += d->bindings[i].kind == VKI_BIND_TENSOR && vki_build_storage_root(b, d->bindings[i].index) == r;
    return n;
}

typedef struct sched {
    uint64_t *size;              /* per storage root: bytes, 0 for graph I/O */
    vki_order_access *access;
    int n_access;
    vki_order_reuse *reuse;      /* same size: priced by the order search */
    int n_reuse;
    vki_order_reuse *grow;       /* a residual smaller than the output (fewer channels):
                                  * its storage would grow to the output's size */
    int n_grow;
} sched;

static void sched_free(sched *S) {
    free(S->size);
    free(S->access);
    free(S->reuse);
    free(S->grow);
}

static vki_status collect(const vki_build *b, sched *S) {
    const vki_model *m = b->m;
    size_t nt = (size_t)(m->n_tensors ? m->n_tensors : 1), nb = 1;
    for (int k = 0; k < b->n_dispatches; k++) nb += (size_t)b->dispatches[k].n_bindings;
    S->size = vki_calloc(nt, sizeof *S->size);
    S->access = vki_malloc(sizeof *S->access * nb);
    S->reuse = vki_malloc(sizeof *S->reuse * nb);
    S->grow = vki_malloc(sizeof *S->grow * nb);
    if (!S->size || !S->access || !S->reuse || !S->grow) return vki_fail_oom("graph build: schedule");
    for (int k = 0; k < b->n_dispatches; k++) {
        const vki_dispatch *d = &b->dispatches[k];
        for (int i = 0; i < d->n_bindings; i++) {
            if (d->bindings[i].kind != VKI_BIND_TENSOR) continue;
            int t = d->bindings[i].index, r = vki_build_storage_root(b, t);
            uint64_t bytes = vki_build_tensor_bytes(b, t);
            if (bytes > S->size[r]) S->size[r] = bytes;
            S->access[S->n_access++] = (vki_order_access){k, r, may_write(b, d, t)};
        }
    }
    for (int i = 0; i < m->n_inputs; i++) S->size[vki_build_storage_root(b, m->inputs[i])] = 0;
    for (int i = 0; i < m->n_outputs; i++) S->size[vki_build_storage_root(b, m->outputs[i])] = 0;
    for (int k = 0; k < b->n_dispatches; k++) {
        const vki_dispatch *d = &b->dispatches[k];
        if (d->out_binding < 0 || d->bindings[d->out_binding].kind != VKI_BIND_TENSOR) continue;
        int out_t = d->bindings[d->out_binding].index, out = vki_build_storage_root(b, out_t);
        if (!S->size[out] || uses(b, d, out) != 1) continue;
        for (int i = 0; i < d->n_bindings; i++) {
            if (!(d->same_index_reads >> i & 1u) || d->bindings[i].kind != VKI_BIND_TENSOR) continue;
            int in_t = d->bindings[i].index, in = vki_build_storage_root(b, in_t);
            if (in == out || !S->size[in] || S->size[in] > S->size[out] || uses(b, d, in) != 1 ||
                b->tensor_half[in] != b->tensor_half[out])
                continue;
            if (S->size[in] == S->size[out]) S->reuse[S->n_reuse++] = (vki_order_reuse){k, in, out};
            else S->grow[S->n_grow++] = (vki_order_reuse){k, in, out};
        }
    }
    return VKI_OK;
}

static vki_status reorder(vki_build *b, const sched *S) {
    vki_order_problem p = {b->n_dispatches, b->m->n_tensors, S->size, S->access, S->n_access,
                           S->reuse, S->n_reuse};
    int *order = vki_malloc(sizeof *order * (size_t)(b->n_dispatches ? b->n_dispatches : 1));
    vki_dispatch *moved = vki_malloc(sizeof *moved * (size_t)(b->n_dispatches ? b->n_dispatches : 1));
    vki_order_result res;
    vki_status s = VKI_OK;
    if (!order || !moved || vki_order_make(&p, NULL, order, &res)) {
        s = vki_fail_oom("graph build: dispatch order");
    } else {
        b->schedule.stored_peak = res.stored_peak;
        b->schedule.peak = res.peak;
        b->schedule.exact = res.exact;
        b->schedule.reordered = res.changed;
        for (int k = 0; k < b->n_dispatches; k++) moved[k] = b->dispatches[order[k]];
        memcpy(b->dispatches, moved, sizeof *moved * (size_t)b->n_dispatches);
    }
    free(order);
    free(moved);
    return s;
}

/* The lower bound of the storages as they stand (roots with a life and a size). */
static uint64_t bound_now(const vki_build *b, const int *first, const int *last,
                          const uint64_t *size, vki_plan_tensor *scratch) {
    int n = 0;
    for (int t = 0; t < b->m->n_tensors; t++)
        if (first[t] >= 0 && size[t] && b->storage_of[t] == t)
            scratch[n++] = (vki_plan_tensor){size[t], first[t], last[t]};
    return vki_plan_lower_bound(scratch, n);
}

static int listed(const vki_build *b, const vki_order_reuse *list, int n, int in, int out) {
    for (int j = 0; j < n; j++)
        if (vki_build_storage_root(b, list[j].in) == in && list[j].out == out) return 1;
    return 0;
}

/* Along the final order: a candidate pair takes effect where the dispatch is the last to
 * touch its input's storage and the first to touch its output's. A residual smaller than
 * the output (a channel PAD folded into the epilogue) reads the output's first slices at
 * the output's indices, so it may take the output too, but its storage then grows to the
 * output's size for its whole life: that is done only where the bound does not go up
 * (face_detection_short_range on an H200: 1.245 MB to 0.852). */
static vki_status share_storage(vki_build *b, const sched *S) {
    const vki_model *m = b->m;
    size_t nt = (size_t)(m->n_tensors ? m->n_tensors : 1);
    int *first = vki_malloc(sizeof *first * nt), *last = vki_malloc(sizeof *last * nt);
    uint64_t *size = vki_malloc(sizeof *size * nt);
    vki_plan_tensor *scratch = vki_malloc(sizeof *scratch * nt);
    if (!first || !last || !size || !scratch) {
        free(first);
        free(last);
        free(size);
        free(scratch);
        return vki_fail_oom("graph build: in-place storage");
    }
    memcpy(size, S->size, sizeof *size * (size_t)m->n_tensors);
    for (int t = 0; t < m->n_tensors; t++) first[t] = last[t] = -1;
    for (int k = 0; k < b->n_dispatches; k++) {
        const vki_dispatch *d = &b->dispatches[k];
        for (int i = 0; i < d->n_bindings; i++) {
            if (d->bindings[i].kind != VKI_BIND_TENSOR) continue;
            int r = vki_build_storage_root(b, d->bindings[i].index);
            if (first[r] < 0) first[r] = k;
            last[r] = k;
        }
    }
    vki_status s = VKI_OK;
    for (int k = 0; k < b->n_dispatches && !s; k++) {
        vki_dispatch *d = &b->dispatches[k];
        if (d->out_binding < 0 || d->bindings[d->out_binding].kind != VKI_BIND_TENSOR) continue;
        int out = vki_build_storage_root(b, d->bindings[d->out_binding].index);
        for (int i = 0; i < d->n_bindings; i++) {
            if (!(d->same_index_reads >> i & 1u) || d->bindings[i].kind != VKI_BIND_TENSOR) continue;
            /* The pairs were found on the roots as emitted; earlier merges may have renamed
             * in to the storage it now shares. */
            int in = vki_build_storage_root(b, d->bindings[i].index);
            if (last[in] != k || first[out] != k) continue;
            int grows = !listed(b, S->reuse, S->n_reuse, in, out);
            if (grows && !listed(b, S->grow, S->n_grow, in, out)) continue;
            uint64_t before = grows ? bound_now(b, first, last, size, scratch) : 0;
            b->storage_of[out] = in;   /* every tensor on out now reaches in */
            int in_last = last[in], out_first = first[out];
            uint64_t in_size = size[in];
            last[in] = last[out];
            size[in] = size[out];
            first[out] = last[out] = -1;
            if (grows && bound_now(b, first, last, size, scratch) > before) {
                b->storage_of[out] = out;   /* the bound would go up: undo */
                first[out] = out_first;
                last[out] = last[in];
                last[in] = in_last;
                size[in] = in_size;
                continue;
            }
            vki_define_int(d, "IN_PLACE", 1);
            if (d->overflow)
                s = vki_fail(VKI_ERROR_INTERNAL, "%s: op %d: kernel %s has more defines than a "
                             "dispatch holds", m->name,
                             d->op_index >= 0 ? m->ops[d->op_index].file_index : -1, d->kernel);
            b->schedule.in_place++;
            break;
        }
    }
    /* Keep storage_of pointing straight at roots, as the memory stage expects. */
    for (int t = 0; t < m->n_tensors; t++) b->storage_of[t] = vki_build_storage_root(b, t);
    free(first);
    free(last);
    free(size);
    free(scratch);
    return s;
}

vki_status vki_build_schedule(vki_build *b) {
    unsigned passes = b->cfg->passes;
    if (!(passes & (VKI_PASS_ORDER | VKI_PASS_IN_PLACE))) return VKI_OK;
    sched S = {0};
    vki_status s = collect(b, &S);
    if (!s && !(passes & VKI_PASS_IN_PLACE)) S.n_reuse = 0;
    if (!s && (passes & VKI_PASS_ORDER)) s = reorder(b, &S);
    if (!s && (passes & VKI_PASS_IN_PLACE)) s = share_storage(b, &S);
    sched_free(&S);
    return s;
}
