/* topk.c: TOPK_V2 on the CPU: the k largest values along the last axis, largest first,
 * and their indices; among equal values the lower index comes first (TFLite's order,
 * pinned by the op models cpu_topk_*). k is a constant: it sets the outputs' shape.
 *
 * run keeps a min-heap of the k best seen, O(n log k) a row; the reference selects the
 * best remaining value k times, O(n k). */
#include "ops.h"

#include <stdlib.h>
#include <string.h>

static vki_status validate_topk(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 2, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->rank < 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') is a scalar; "
                           "TOPK_V2 needs rank 1 or more", op->inputs[0], in->name);
    const int32_t *k;
    int count;
    s = vki_op_int_values(m, o, 1, "k", 1, 1, &k, &count);
    if (s) return s;
    const int n = in->shape[in->rank - 1];
    if (k[0] < 1 || k[0] > n)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "k = %d, need 1 to %d (the last axis "
                           "of input tensor %d '%s')", k[0], n, op->inputs[0], in->name);
    int dims[VKI_MAX_RANK];
    memcpy(dims, in->shape, sizeof(int) * (size_t)in->rank);
    dims[in->rank - 1] = k[0];
    s = vki_op_expect_dims(m, o, op->outputs[0], in->rank, dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[1], in->rank, dims);
    if (!s && vki_op_out(m, op, 1)->dtype != VKI_DTYPE_INT32 &&
        vki_op_out(m, op, 1)->dtype != VKI_DTYPE_INT64)
        s = vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "indices output (tensor %d) is %s, need "
                        "int32", op->outputs[1], vki_dtype_name(vki_op_out(m, op, 1)->dtype));
    return s;
}

/* Whether value a at index ia ranks before b at ib. */
static int before(float a, int ia, float b, int ib) { return a > b || (a == b && ia < ib); }

typedef struct topk_shape { size_t rows; int n, k; } topk_shape;

static topk_shape shape_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    topk_shape t = {1, in->shape[in->rank - 1], vki_op_out(m, op, 0)->shape[in->rank - 1]};
    for (int i = 0; i + 1 < in->rank; i++) t.rows *= (size_t)in->shape[i];
    return t;
}

static void reference_topk(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    const topk_shape t = shape_of(m, op);
    char *taken = malloc((size_t)t.n);
    if (!taken) return;
    for (size_t r = 0; r < t.rows; r++) {
        const float *x = inputs[0] + r * (size_t)t.n;
        memset(taken, 0, (size_t)t.n);
        for (int j = 0; j < t.k; j++) {
            int best = -1;
            for (int i = 0; i < t.n; i++)
                if (!taken[i] && (best < 0 || before(x[i], i, x[best], best))) best = i;
            taken[best] = 1;
            outputs[0][r * (size_t)t.k + (size_t)j] = x[best];
            outputs[1][r * (size_t)t.k + (size_t)j] = (float)best;
        }
    }
    free(taken);
}

/* heap[0] is the worst of the kept: the one every other ranks before. */
static void sift_down(const float *x, int *heap, int size, int at) {
    for (;;) {
        int worst = at, l = 2 * at + 1, r = l + 1;
        if (l < size && before(x[heap[worst]], heap[worst], x[heap[l]], heap[l])) worst = l;
        if (r < size && before(x[heap[worst]], heap[worst], x[heap[r]], heap[r])) worst = r;
        if (worst == at) return;
        int tmp = heap[at];
        heap[at] = heap[worst];
        heap[worst] = tmp;
        at = worst;
    }
}

static vki_status run_topk(const vki_model *m, int o, const float *const *inputs,
                           float *const *outputs) {
    const topk_shape t = shape_of(m, &m->ops[o]);
    int *heap = malloc(sizeof(int) * (size_t)t.k);
    if (!heap) return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (size_t r = 0; r < t.rows; r++) {
        const float *x = inputs[0] + r * (size_t)t.n;
        for (int i = 0; i < t.k; i++) heap[i] = i;
        for (int i = t.k / 2 - 1; i >= 0; i--) sift_down(x, heap, t.k, i);
        for (int i = t.k; i < t.n; i++)
            if (before(x[i], i, x[heap[0]], heap[0])) {
                heap[0] = i;
                sift_down(x, heap, t.k, 0);
            }
        /* Popping the worst fills the outputs from the back. */
        for (int size = t.k; size > 0; size--) {
            int i = heap[0];
            outputs[0][r * (size_t)t.k + (size_t)(size - 1)] = x[i];
            outputs[1][r * (size_t)t.k + (size_t)(size - 1)] = (float)i;
            heap[0] = heap[size - 1];
            sift_down(x, heap, size - 1, 0);
        }
    }
    free(heap);
    return VKI_OK;
}

const vki_op_def vki_op_topk_v2 = {
    .validate = validate_topk,
    .reference = reference_topk,
    .run = run_topk,
    .general = true,
};
