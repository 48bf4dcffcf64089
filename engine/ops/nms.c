/* nms.c: NON_MAX_SUPPRESSION_V4 and NON_MAX_SUPPRESSION_V5 on the CPU, as LiteRT's
 * tflite/kernels/non_max_suppression.cc and kernels/internal/reference/non_max_suppression.h
 * compute them (TensorFlow's tensorflow/lite copy of the header has the same float path).
 *
 * Inputs: boxes [N,4] (y1, x1, y2, x2: the corners of each axis in either order), scores
 * [N], max_output_size (an int32 scalar; a constant here, since it sets the outputs'
 * shape), iou_threshold and score_threshold (float scalars, constants or computed) and,
 * with a sixth input, soft_nms_sigma (float scalar). As in TFLite the input count decides,
 * whatever the op code: 5 inputs, hard NMS with outputs selected_indices [max_output_size]
 * int32 and valid_outputs (int32 scalar); 6 inputs, soft-NMS with outputs
 * selected_indices, selected_scores [max_output_size] and valid_outputs.
 *
 * The algorithm, TFLite's step for step:
 *   - candidates are the boxes with score > score_threshold, pushed in index order onto a
 *     max-priority queue (std::priority_queue ordered by score alone);
 *   - num_outputs = min(candidates, max_output_size); while fewer are selected and the
 *     queue is not empty: pop the top; compare it with the boxes selected since it was
 *     last compared (newest first): IoU >= iou_threshold suppresses it for good; else with
 *     sigma > 0 its score *= exp(scale * iou * iou), scale = -0.5 / sigma (float
 *     arithmetic, in that order; scale divided in double), and the comparing stops once
 *     score <= score_threshold.
 *     Not suppressed: it is selected if its score did not change; then, selected or not,
 *     it goes back on the queue if its score is still > score_threshold. (So a selected box
 *     comes back and meets itself: IoU 1 suppresses it where iou_threshold <= 1; with a
 *     threshold above 1, or for a box of zero area, whose IoU with everything, itself
 *     included, is 0, it is selected again and again until the outputs are full.)
 *   - IoU: each box's min/max corners per axis; either area <= 0 gives 0; else the
 *     intersection (clamped at 0 per axis) over area1 + area2 - intersection.
 *   - slots past valid_outputs are 0 (indices and scores).
 * Ties: equal scores leave the queue in the order of the heap algorithm of the C++
 * library TFLite is built with, which the standard leaves open. This file reproduces
 * libc++'s (push_heap's sift-up; pop_heap's Floyd sift-down to a leaf, the last element
 * moved into the hole and sifted up): the library of LiteRT's wasm (LiteRT.js) and
 * Android builds, checked against LiteRT.js on scores with many ties. libstdc++ builds can
 * order ties differently.
 * A negative soft_nms_sigma is an error, as in TFLite (validate where it is a constant,
 * run where computed). max_output_size 0 would make empty outputs, which vkinfer's tensors
 * cannot be.
 *
 * The algorithm is already O(N log N + pops * max_output_size), so the reference and run
 * share it: run adds the statuses (host memory, a negative sigma computed at run time);
 * the reference gives all-zero outputs where run fails.
 */
#include "ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool soft_nms(const vki_op *op) { return op->n_inputs == 6; }

static vki_status expect_scalar(const vki_model *m, int o, int slot, const char *role,
                                vki_dtype dtype) {
    const vki_op *op = &m->ops[o];
    const vki_tensor *t = vki_op_in(m, op, slot);
    if (t->dtype != dtype || t->rank != 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (input %d, tensor %d '%s') is a "
                           "rank-%d %s tensor, need a %s scalar", role, slot, op->inputs[slot],
                           t->name, t->rank, vki_dtype_name(t->dtype), vki_dtype_name(dtype));
    if (t->data && t->data_bytes < 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s tensor %d '%s' is truncated", role,
                           op->inputs[slot], t->name);
    return VKI_OK;
}

static vki_status validate_nms(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    const bool soft = op->n_inputs == 6;
    vki_status s = vki_op_check_arity(m, o, 5, 6, soft ? 3 : 2);
    if (s) return s;
    if (soft && op->inputs[5] < 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "soft_nms_sigma (input 5) is omitted");
    const vki_tensor *boxes = vki_op_in(m, op, 0), *scores = vki_op_in(m, op, 1);
    if (boxes->dtype != VKI_DTYPE_FLOAT32 || boxes->rank != 2 || boxes->shape[1] != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "boxes (tensor %d '%s') must be float32 "
                           "[N,4]", op->inputs[0], boxes->name);
    const int n = boxes->shape[0];
    if (scores->dtype != VKI_DTYPE_FLOAT32 || scores->rank != 1 || scores->shape[0] != n)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "scores (tensor %d '%s') must be float32 "
                           "[%d], as many as the boxes", op->inputs[1], scores->name, n);
    s = expect_scalar(m, o, 2, "max_output_size", VKI_DTYPE_INT32);
    if (s) return s;
    const int32_t *max_out;
    int count;
    s = vki_op_int_values(m, o, 2, "max_output_size", 1, 1, &max_out, &count);
    if (s) return s;
    if (max_out[0] < 1)
        return vki_op_fail(m, o, max_out[0] < 0 ? VKI_ERROR_MODEL_FORMAT
                                                : VKI_ERROR_UNSUPPORTED_MODEL,
                           "max_output_size = %d: %s", max_out[0], max_out[0] < 0 ? "must not be "
                           "negative" : "the outputs would be empty (need 1 or more)");
    s = expect_scalar(m, o, 3, "iou_threshold", VKI_DTYPE_FLOAT32);
    if (!s) s = expect_scalar(m, o, 4, "score_threshold", VKI_DTYPE_FLOAT32);
    if (!s && soft) s = expect_scalar(m, o, 5, "soft_nms_sigma", VKI_DTYPE_FLOAT32);
    if (s) return s;
    if (soft && vki_op_in(m, op, 5)->data) {
        const float sigma = *(const float *)vki_op_in(m, op, 5)->data;
        if (sigma < 0.0f)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "soft_nms_sigma = %g, must not be "
                               "negative", sigma);
    }
    const int dims[1] = {max_out[0]};
    s = vki_op_expect_dims(m, o, op->outputs[0], 1, dims);
    if (!s && soft) s = vki_op_expect_dims(m, o, op->outputs[1], 1, dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[op->n_outputs - 1], 0, dims);
    if (s) return s;
    const int int_outs[2] = {0, op->n_outputs - 1};
    for (int i = 0; i < 2; i++) {
        const vki_tensor *t = vki_op_out(m, op, int_outs[i]);
        if (t->dtype != VKI_DTYPE_INT32)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output %d (tensor %d '%s') is %s, "
                               "need int32", int_outs[i], op->outputs[int_outs[i]], t->name,
                               vki_dtype_name(t->dtype));
    }
    if (soft && vki_op_out(m, op, 1)->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "selected_scores (tensor %d) is %s, need "
                           "float32", op->outputs[1], vki_dtype_name(vki_op_out(m, op, 1)->dtype));
    return VKI_OK;
}

/* ---- the priority queue: libc++'s heap algorithms on a max-heap by score ------------- */

typedef struct candidate {
    int index;
    float score;
    int suppress_begin;         /* selections before this one were compared already */
} candidate;

/* The queue's order (Candidate::operator<): by score alone. */
static bool lower(const candidate *a, const candidate *b) { return a->score < b->score; }

/* push_heap: the new last element sifts up past parents that rank lower. */
static void heap_push(candidate *h, int *size, candidate c) {
    int bottom = (*size)++;
    h[bottom] = c;
    if (bottom == 0) return;
    int parent = (bottom - 1) / 2;
    if (!lower(&h[parent], &c)) return;
    do {
        h[bottom] = h[parent];
        bottom = parent;
        if (parent == 0) break;
        parent = (parent - 1) / 2;
    } while (lower(&h[parent], &c));
    h[bottom] = c;
}

/* pop_heap + pop_back: Floyd's sift-down moves the hole at the top down to a leaf along
 * the larger children (the left one where they tie), the last element fills the hole and
 * sifts up. */
static candidate heap_pop(candidate *h, int *size) {
    const candidate top = h[0];
    const int len = *size, last = len - 1;
    *size = last;
    if (len == 1) return top;
    int hole = 0;
    do {
        int child = 2 * hole + 1;
        if (child + 1 < len && lower(&h[child], &h[child + 1])) child++;
        h[hole] = h[child];
        hole = child;
    } while (hole + 1 <= len / 2);
    if (hole != last) {
        const candidate moved = h[last];
        h[hole] = moved;
        int bottom = hole;
        if (bottom > 0) {
            int parent = (bottom - 1) / 2;
            if (lower(&h[parent], &moved)) {
                do {
                    h[bottom] = h[parent];
                    bottom = parent;
                    if (parent == 0) break;
                    parent = (parent - 1) / 2;
                } while (lower(&h[parent], &moved));
                h[bottom] = moved;
            }
        }
    }
    return top;
}

static float min_f(float a, float b) { return b < a ? b : a; }   /* std::min */
static float max_f(float a, float b) { return a < b ? b : a; }   /* std::max */

static float box_iou(const float *boxes, int i, int j) {
    const float *a = boxes + 4 * (size_t)i, *b = boxes + 4 * (size_t)j;
    const float a_ymin = min_f(a[0], a[2]), a_ymax = max_f(a[0], a[2]);
    const float a_xmin = min_f(a[1], a[3]), a_xmax = max_f(a[1], a[3]);
    const float b_ymin = min_f(b[0], b[2]), b_ymax = max_f(b[0], b[2]);
    const float b_xmin = min_f(b[1], b[3]), b_xmax = max_f(b[1], b[3]);
    const float area_a = (a_ymax - a_ymin) * (a_xmax - a_xmin);
    const float area_b = (b_ymax - b_ymin) * (b_xmax - b_xmin);
    if (area_a <= 0.0f || area_b <= 0.0f) return 0.0f;
    const float iy = max_f(min_f(a_ymax, b_ymax) - max_f(a_ymin, b_ymin), 0.0f);
    const float ix = max_f(min_f(a_xmax, b_xmax) - max_f(a_xmin, b_xmin), 0.0f);
    const float intersection = iy * ix;
    return intersection / (area_a + area_b - intersection);
}

typedef struct nms_args {
    const float *boxes, *scores;
    int n, max_out;
    float iou_threshold, score_threshold, sigma;
} nms_args;

static nms_args args_of(const vki_model *m, const vki_op *op, const float *const *inputs) {
    nms_args a;
    a.boxes = inputs[0];
    a.scores = inputs[1];
    a.n = vki_op_in(m, op, 0)->shape[0];
    a.max_out = vki_op_out(m, op, 0)->shape[0];
    a.iou_threshold = inputs[3][0];
    a.score_threshold = inputs[4][0];
    a.sigma = soft_nms(op) ? inputs[5][0] : 0.0f;
    return a;
}

/* TFLite's NonMaxSuppression: fills selected[] (and scores[] where not NULL) and returns
 * how many; heap holds n candidates. */
static int nms_select(const nms_args *a, candidate *heap, int *selected, float *sel_scores) {
    int size = 0;
    for (int i = 0; i < a->n; i++)
        if (a->scores[i] > a->score_threshold)
            heap_push(heap, &size, (candidate){i, a->scores[i], 0});
    const int num_outputs = size < a->max_out ? size : a->max_out;
    const float scale = a->sigma > 0.0f ? (float)(-0.5 / (double)a->sigma) : 0.0f;
    int count = 0;
    while (count < num_outputs && size > 0) {
        candidate c = heap_pop(heap, &size);
        const float original = c.score;
        bool hard = false;
        for (int j = count - 1; j >= c.suppress_begin; j--) {
            const float iou = box_iou(a->boxes, c.index, selected[j]);
            if (iou >= a->iou_threshold) {
                hard = true;
                break;
            }
            if (a->sigma > 0.0f) c.score = c.score * expf(scale * iou * iou);
            if (c.score <= a->score_threshold) break;
        }
        c.suppress_begin = count;
        if (hard) continue;
        if (c.score == original) {
            selected[count] = c.index;
            if (sel_scores) sel_scores[count] = c.score;
            count++;
        }
        if (c.score > a->score_threshold) heap_push(heap, &size, c);
    }
    return count;
}

/* Runs the selection into the outputs (as float values); false where it could not. */
static bool nms_outputs(const vki_op *op, const nms_args *a, float *const *outputs) {
    const bool soft = soft_nms(op);
    float *out_idx = outputs[0], *out_scores = soft ? outputs[1] : NULL;
    float *out_count = outputs[op->n_outputs - 1];
    memset(out_idx, 0, sizeof(float) * (size_t)a->max_out);
    if (out_scores) memset(out_scores, 0, sizeof(float) * (size_t)a->max_out);
    out_count[0] = 0.0f;
    if (a->sigma < 0.0f) return false;
    candidate *heap = malloc(sizeof *heap * (size_t)a->n);
    int *selected = malloc(sizeof *selected * (size_t)a->max_out);
    if (!heap || !selected) {
        free(heap);
        free(selected);
        return false;
    }
    const int count = nms_select(a, heap, selected, out_scores);
    for (int i = 0; i < count; i++) out_idx[i] = (float)selected[i];
    out_count[0] = (float)count;
    free(heap);
    free(selected);
    return true;
}

static void reference_nms(const vki_model *m, const vki_op *op, const float *const *inputs,
                          float *const *outputs) {
    const nms_args a = args_of(m, op, inputs);
    (void)nms_outputs(op, &a, outputs);
}

static vki_status run_nms(const vki_model *m, int o, const float *const *inputs,
                          float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const nms_args a = args_of(m, op, inputs);
    if (a.sigma < 0.0f)
        return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "soft_nms_sigma (tensor %d) is %g at "
                           "run time, must not be negative", op->inputs[5], a.sigma);
    if (!nms_outputs(op, &a, outputs))
        return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory for %d candidates",
                           a.n);
    return VKI_OK;
}

const vki_op_def vki_op_non_max_suppression_v4 = {
    .validate = validate_nms,
    .reference = reference_nms,
    .run = run_nms,
    .general = true,
};

const vki_op_def vki_op_non_max_suppression_v5 = {
    .validate = validate_nms,
    .reference = reference_nms,
    .run = run_nms,
    .general = true,
};
