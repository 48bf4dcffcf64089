/* shapes.c: owns shape propagation: new graph input shapes carried to every tensor.
 *
 * No op keeps a shape rule apart from its validation: each op's validate computes the
 * output shape it expects from its inputs and options and compares it through
 * vki_op_expect_dims or vki_op_check_shape. While the model's infer_shapes is set those
 * write the expected shape instead, so validating the ops in order propagates the new input
 * shapes; then the whole model is validated again at its new shapes, kernels' limits
 * included. On failure every tensor gets its shape back.
 */
#include "model.h"

#include "../ops/ops.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static void restore(vki_model *m, const vki_loaded_shapes *old) {
    for (int t = 0; t < m->n_tensors; t++) {
        m->tensors[t].rank = old->rank[t];
        memcpy(m->tensors[t].shape, old->shape[t], sizeof old->shape[t]);
    }
}

static vki_status check_shape(const vki_model *m, const vki_input_shape *s) {
    if (s->index < 0 || s->index >= m->n_inputs)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: input %d out of range (%d inputs)",
                        m->name, s->index, m->n_inputs);
    const vki_tensor *t = &m->tensors[m->inputs[s->index]];
    if (s->rank != t->rank)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: input %d ('%s') has rank %d, the new "
                        "shape has rank %d", m->name, s->index, t->name, t->rank, s->rank);
    size_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] < 1 || (n *= (size_t)s->dims[i]) > (size_t)1 << 31)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: input %d ('%s'): dimension %d = %d "
                            "(each at least 1, 2^31 elements in all)", m->name, s->index,
                            t->name, i, s->dims[i]);
    }
    return VKI_OK;
}

vki_status vki_model_resize_inputs(vki_model *m, const vki_input_shape *shapes, int n) {
    if (!m || (!shapes && n > 0) || n < 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_model_resize_inputs: NULL model or "
                        "shapes, or a negative count");
    for (int i = 0; i < n; i++) {
        vki_status s = check_shape(m, &shapes[i]);
        if (s) return s;
    }
    vki_loaded_shapes old = {vki_malloc(sizeof(int) * (size_t)(m->n_tensors + 1)),
                             vki_malloc(sizeof *old.shape * (size_t)(m->n_tensors + 1))};
    if (!old.rank || !old.shape) {
        free(old.rank);
        free(old.shape);
        return vki_fail_oom("vki_model_resize_inputs");
    }
    for (int t = 0; t < m->n_tensors; t++) {
        old.rank[t] = m->tensors[t].rank;
        memcpy(old.shape[t], m->tensors[t].shape, sizeof old.shape[t]);
    }
    for (int i = 0; i < n; i++) {
        vki_tensor *t = &m->tensors[m->inputs[shapes[i].index]];
        memcpy(t->shape, shapes[i].dims, sizeof(int) * (size_t)t->rank);
    }
    vki_status s = VKI_OK;
    m->infer_shapes = &old;
    for (int o = 0; o < m->n_ops && !s; o++)
        if (vki_op_find(&m->ops[o])) s = vki_op_validate(m, o);
    m->infer_shapes = NULL;
    if (!s) s = vki_model_validate(m);
    if (s) restore(m, &old);
    free(old.rank);
    free(old.shape);
    return s;
}

/* ---- a resized view of a model --------------------------------------------------------- */

vki_status vki_model_resized_view(const vki_model *m, const vki_input_shape *shapes, int n,
                                  vki_model **out) {
    *out = NULL;
    vki_model *c = vki_calloc(1, sizeof *c);
    if (!c) return vki_fail_oom("graph input shapes");
    *c = *m;
    c->tensors = vki_malloc(sizeof *c->tensors * (size_t)(m->n_tensors + 1));
    c->ops = vki_malloc(sizeof *c->ops * (size_t)(m->n_ops + 1));
    if (!c->tensors || !c->ops) {
        vki_model_view_free(c);
        return vki_fail_oom("graph input shapes");
    }
    memcpy(c->tensors, m->tensors, sizeof *c->tensors * (size_t)m->n_tensors);
    memcpy(c->ops, m->ops, sizeof *c->ops * (size_t)m->n_ops);
    vki_status s = vki_model_resize_inputs(c, shapes, n);
    if (s) {
        vki_model_view_free(c);
        return s;
    }
    *out = c;
    return VKI_OK;
}

void vki_model_view_free(vki_model *view) {
    if (!view) return;
    free(view->tensors);
    free(view->ops);
    free(view);
}
