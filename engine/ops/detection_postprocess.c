/* detection_postprocess.c: the custom op TFLite_Detection_PostProcess on the CPU (SSD box
 * decoding and non-max suppression), as LiteRT's tflite/kernels/detection_postprocess.cc
 * computes it in float (single-threaded).
 *
 * Inputs: box_encodings [1,N,E] (E >= 4: ty, tx, th, tw, then anything, say keypoints),
 * class_predictions [1,N,C] with C = num_classes + label_offset, label_offset 0 or 1 (1:
 * column 0 is the background and is skipped), anchors [N,4] (ycenter, xcenter, h, w).
 * Options: custom_options, a FlexBuffer map (flexbuffer.h) read as TFLite reads it:
 * max_detections, max_classes_per_detection, detections_per_class (absent: 100),
 * use_regular_nms (absent: false), nms_score_threshold, nms_iou_threshold, num_classes,
 * y_scale, x_scale, h_scale, w_scale; other absent keys read as 0. An int outside int32's
 * range is refused (TFLite would wrap it). Checked at validate, as TFLite checks them when it
 * prepares or runs the op: num_classes > 0, max_detections, detections_per_class >= 0,
 * max_classes_per_detection > 0 (fast NMS; regular NMS only needs the outputs non-empty),
 * min(detections_per_class, max_detections) > 0 (regular NMS), 0 < nms_iou_threshold <= 1.
 * Outputs (float32): detection_boxes [1,M,4] (ymin, xmin, ymax, xmax), detection_classes
 * [1,M] (the class without the background offset), detection_scores [1,M], num_detections
 * [1], M = max_detections * max_classes_per_detection.
 *
 * Decoding, in double as TFLite, rounded to float once per value:
 *   ycenter = (float)(ty / y_scale * ah + ay), xcenter likewise with tx, x_scale, aw, ax,
 *   half_h = (float)(0.5 * exp(th / h_scale) * ah), half_w likewise,
 *   ymin = ycenter - half_h, xmin = xcenter - half_w, ymax = ycenter + half_h, xmax likewise
 *   (float). A decoded box with ymin > ymax or xmin > xmax fails the op (TFLite's
 *   ValidateBoxes; a negative anchor size does it).
 * Single-class NMS (TFLite's NonMaxSuppressionSingleClassHelper): keep scores >=
 * nms_score_threshold, stable-sort them by score, highest first (ties: lower anchor first);
 * walk them, selecting each box not suppressed until `limit` are selected; a selected box
 * suppresses every later one whose IoU with it is > nms_iou_threshold. IoU: either area
 * (ymax - ymin) * (xmax - xmin) <= 0 gives 0, else intersection / (area1 + area2 -
 * intersection).
 * Fast NMS (use_regular_nms false): each anchor's k = min(max_classes_per_detection,
 * num_classes) best classes (k == 1: the first maximum; k > 1: std::partial_sort with
 * libc++'s algorithm, whose order of equal scores is its own, reproduced here and checked
 * against LiteRT.js on tied scores) and NMS on
 * each anchor's best score with limit max_detections; detection i fills rows
 * i * max_classes_per_detection + 0 .. k-1 with the anchor's box, its j-th class and score.
 * num_detections = the selected count.
 * Regular NMS: NMS per class (limit min(detections_per_class, max_detections)), each class's
 * selection merged (std::inplace_merge: stable, earlier classes first among equal scores)
 * into a list kept to the max_detections best; row i is the list's i-th (anchor box, class,
 * score). num_detections = the list's length.
 * Rows past the detections are 0 here. TFLite writes zeros in regular NMS's first
 * max_detections rows only; the rows it does not write (fast NMS's rows past the detections
 * or past the k classes of one, regular NMS's rows past max_detections) keep whatever its
 * arena held, which LiteRT.js shows as zeros or stale values.
 *
 * The reference runs TFLite's loops as written (insertion sort, every candidate against
 * every later one: O(N^2) a class); run sorts the candidates once with a merge sort and
 * tests each against the boxes selected so far (O(N log N + N * limit) a class), and
 * returns the statuses (host memory, an invalid decoded box).
 */
#include "flexbuffer.h"
#include "ops.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ------------------------------------------------------------------------- */

/* The options, as vki_op.opt.detection holds them (opts_of copies them out). */
typedef struct det_opts {
    int max_detections, max_classes_per_detection, detections_per_class;
    bool use_regular_nms;
    float score_threshold, iou_threshold, y_scale, x_scale, h_scale, w_scale;
    int num_classes;
} det_opts;

static det_opts opts_of(const vki_op *op) {
    det_opts d;
    d.max_detections = op->opt.detection.max_detections;
    d.max_classes_per_detection = op->opt.detection.max_classes_per_detection;
    d.detections_per_class = op->opt.detection.detections_per_class;
    d.use_regular_nms = op->opt.detection.use_regular_nms;
    d.score_threshold = op->opt.detection.score_threshold;
    d.iou_threshold = op->opt.detection.iou_threshold;
    d.y_scale = op->opt.detection.y_scale;
    d.x_scale = op->opt.detection.x_scale;
    d.h_scale = op->opt.detection.h_scale;
    d.w_scale = op->opt.detection.w_scale;
    d.num_classes = op->opt.detection.num_classes;
    return d;
}


static vki_status read_detection(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    vki_flex root;
    vki_status s = vki_flex_opt_root(r, "its parameters are a FlexBuffer map there", &root);
    if (s) return s;
    det_opts d;
    vki_flex v;
    if ((s = vki_flex_opt_i32(r, &root, "max_detections", 0, &d.max_detections)) ||
        (s = vki_flex_opt_i32(r, &root, "max_classes_per_detection", 0, &d.max_classes_per_detection)) ||
        (s = vki_flex_opt_i32(r, &root, "detections_per_class", 100, &d.detections_per_class)) ||
        (s = vki_flex_opt_i32(r, &root, "num_classes", 0, &d.num_classes)) ||
        (s = vki_flex_opt_f32(r, &root, "nms_score_threshold", &d.score_threshold)) ||
        (s = vki_flex_opt_f32(r, &root, "nms_iou_threshold", &d.iou_threshold)) ||
        (s = vki_flex_opt_f32(r, &root, "y_scale", &d.y_scale)) ||
        (s = vki_flex_opt_f32(r, &root, "x_scale", &d.x_scale)) ||
        (s = vki_flex_opt_f32(r, &root, "h_scale", &d.h_scale)) ||
        (s = vki_flex_opt_f32(r, &root, "w_scale", &d.w_scale)))
        return s;
    d.use_regular_nms = false;
    const char *err = vki_flex_map_get(&root, "use_regular_nms", &v);
    if (!err && v.type != VKI_FLEX_NULL) err = vki_flex_bool(&v, &d.use_regular_nms);
    if (err) return vki_flex_opt_fail(r, "use_regular_nms", err);
    op->opt.detection.max_detections = d.max_detections;
    op->opt.detection.max_classes_per_detection = d.max_classes_per_detection;
    op->opt.detection.detections_per_class = d.detections_per_class;
    op->opt.detection.use_regular_nms = d.use_regular_nms;
    op->opt.detection.score_threshold = d.score_threshold;
    op->opt.detection.iou_threshold = d.iou_threshold;
    op->opt.detection.y_scale = d.y_scale;
    op->opt.detection.x_scale = d.x_scale;
    op->opt.detection.h_scale = d.h_scale;
    op->opt.detection.w_scale = d.w_scale;
    op->opt.detection.num_classes = d.num_classes;
    return VKI_OK;
}

/* ---- validation ---------------------------------------------------------------------- */

static vki_status expect_float(const vki_model *m, int o, int t, const char *role) {
    const vki_tensor *x = &m->tensors[t];
    if (x->dtype == VKI_DTYPE_FLOAT32) return VKI_OK;
    return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d '%s') is %s, need float32",
                       role, t, x->name, vki_dtype_name(x->dtype));
}

static vki_status validate_detection(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 3, 3, 4);
    if (s) return s;
    static const char *const in_roles[3] = {"box_encodings", "class_predictions", "anchors"};
    static const char *const out_roles[4] = {"detection_boxes", "detection_classes",
                                             "detection_scores", "num_detections"};
    for (int i = 0; i < 3 && !s; i++) s = expect_float(m, o, op->inputs[i], in_roles[i]);
    for (int i = 0; i < 4 && !s; i++) s = expect_float(m, o, op->outputs[i], out_roles[i]);
    if (s) return s;
    const det_opts opts = opts_of(op), *d = &opts;
    const vki_tensor *enc = vki_op_in(m, op, 0), *cls = vki_op_in(m, op, 1);
    const vki_tensor *anc = vki_op_in(m, op, 2);
    if (enc->rank != 3 || enc->shape[0] != 1 || enc->shape[2] < 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "box_encodings (tensor %d '%s') must be "
                           "[1,N,4 or more]", op->inputs[0], enc->name);
    const int n = enc->shape[1];
    if (d->num_classes <= 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "num_classes = %d, must be positive",
                           d->num_classes);
    if (cls->rank != 3 || cls->shape[0] != 1 || cls->shape[1] != n ||
        cls->shape[2] < d->num_classes || cls->shape[2] > (long long)d->num_classes + 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "class_predictions (tensor %d '%s') must "
                           "be [1,%d,%d] or [1,%d,%lld] (num_classes %d, with a background column "
                           "or not)", op->inputs[1], cls->name, n, d->num_classes, n,
                           (long long)d->num_classes + 1, d->num_classes);
    if (anc->rank != 2 || anc->shape[0] != n || anc->shape[1] != 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "anchors (tensor %d '%s') must be [%d,4] "
                           "(ycenter, xcenter, h, w of each of the %d boxes)", op->inputs[2],
                           anc->name, n, n);
    if (anc->data && anc->data_bytes < (size_t)n * 4 * sizeof(float))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "anchors tensor %d '%s' is truncated",
                           op->inputs[2], anc->name);
    if (d->max_detections < 0 || d->max_classes_per_detection < 0 || d->detections_per_class < 0)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "max_detections %d, "
                           "max_classes_per_detection %d, detections_per_class %d: none may be "
                           "negative", d->max_detections, d->max_classes_per_detection,
                           d->detections_per_class);
    const long long rows = (long long)d->max_detections * d->max_classes_per_detection;
    if (rows > INT32_MAX / 4)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "max_detections %d * "
                           "max_classes_per_detection %d is too many rows", d->max_detections,
                           d->max_classes_per_detection);
    if (rows == 0)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "max_detections %d * "
                           "max_classes_per_detection %d: the outputs would be empty",
                           d->max_detections, d->max_classes_per_detection);
    if (d->use_regular_nms) {
        const int per_class = d->detections_per_class < d->max_detections
                                  ? d->detections_per_class : d->max_detections;
        if (per_class <= 0)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "regular NMS with "
                               "detections_per_class %d: need 1 or more",
                               d->detections_per_class);
    }
    if (!(d->iou_threshold > 0.0f && d->iou_threshold <= 1.0f))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "nms_iou_threshold = %g, need more than "
                           "0 and at most 1", d->iou_threshold);
    const int r = (int)rows;
    const int box_dims[3] = {1, r, 4}, row_dims[2] = {1, r}, one[1] = {1};
    s = vki_op_expect_dims(m, o, op->outputs[0], 3, box_dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[1], 2, row_dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[2], 2, row_dims);
    if (!s) s = vki_op_expect_dims(m, o, op->outputs[3], 1, one);
    return s;
}

/* ---- the parts both forms share ------------------------------------------------------ */

typedef struct det_shape {
    int n, stride, classes, with_background, offset;   /* offset: the label offset, 0 or 1 */
} det_shape;

static det_shape shape_of(const vki_model *m, const vki_op *op) {
    det_shape s;
    s.n = vki_op_in(m, op, 0)->shape[1];
    s.stride = vki_op_in(m, op, 0)->shape[2];
    s.classes = op->opt.detection.num_classes;
    s.with_background = vki_op_in(m, op, 1)->shape[2];
    s.offset = s.with_background - s.classes;
    return s;
}

static void decode_boxes(const vki_op *op, const det_shape *sh, const float *enc,
                         const float *anchors, float *boxes) {
    const double ys = op->opt.detection.y_scale, xs = op->opt.detection.x_scale;
    const double hs = op->opt.detection.h_scale, ws = op->opt.detection.w_scale;
    for (int i = 0; i < sh->n; i++) {
        const float *e = enc + (size_t)i * (size_t)sh->stride, *a = anchors + 4 * (size_t)i;
        const float ycenter = (float)((double)e[0] / ys * (double)a[2] + (double)a[0]);
        const float xcenter = (float)((double)e[1] / xs * (double)a[3] + (double)a[1]);
        const float half_h = (float)(0.5 * exp((double)e[2] / hs) * (double)a[2]);
        const float half_w = (float)(0.5 * exp((double)e[3] / ws) * (double)a[3]);
        float *b = boxes + 4 * (size_t)i;
        b[0] = ycenter - half_h;
        b[1] = xcenter - half_w;
        b[2] = ycenter + half_h;
        b[3] = xcenter + half_w;
    }
}

/* The first decoded box with ymin > ymax or xmin > xmax, or -1. */
static int invalid_box(const float *boxes, int n) {
    for (int i = 0; i < n; i++) {
        const float *b = boxes + 4 * (size_t)i;
        if (b[0] > b[2] || b[1] > b[3]) return i;
    }
    return -1;
}

static float fmin_(float a, float b) { return b < a ? b : a; }   /* std::min */
static float fmax_(float a, float b) { return a < b ? b : a; }   /* std::max */

static float det_iou(const float *boxes, int i, int j) {
    const float *a = boxes + 4 * (size_t)i, *b = boxes + 4 * (size_t)j;
    const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
    const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if (area_a <= 0 || area_b <= 0) return 0.0f;
    const float ymin = fmax_(a[0], b[0]), xmin = fmax_(a[1], b[1]);
    const float ymax = fmin_(a[2], b[2]), xmax = fmin_(a[3], b[3]);
    const float inter = fmax_(ymax - ymin, 0.0f) * fmax_(xmax - xmin, 0.0f);
    return inter / (area_a + area_b - inter);
}

/* libc++'s std::partial_sort of idx[0..n) (0 .. n-1 on entry) so that idx[0..k) are the k
 * best by comp(a, b) = v[a] > v[b], best first: make_heap on the first k, each later one
 * that beats the heap's top replaces it (sift-down), then sort_heap (pop_heap with Floyd's
 * sift-down). Only its order of equal scores needs this; any sort gives the rest. */
static bool beats(const float *v, int a, int b) { return v[a] > v[b]; }

static void sift_down(const float *v, int *h, int len, int start) {
    if (len < 2 || (len - 2) / 2 < start) return;
    int child = 2 * start + 1;
    if (child + 1 < len && beats(v, h[child], h[child + 1])) child++;
    if (beats(v, h[child], h[start])) return;
    const int top = h[start];
    do {
        h[start] = h[child];
        start = child;
        if ((len - 2) / 2 < child) break;
        child = 2 * child + 1;
        if (child + 1 < len && beats(v, h[child], h[child + 1])) child++;
    } while (!beats(v, h[child], top));
    h[start] = top;
}

static void pop_heap(const float *v, int *h, int len) {
    if (len < 2) return;
    const int top = h[0], last = len - 1;
    int hole = 0;
    do {
        int child = 2 * hole + 1;
        if (child + 1 < len && beats(v, h[child], h[child + 1])) child++;
        h[hole] = h[child];
        hole = child;
    } while (hole + 1 <= len / 2);
    if (hole == last) {
        h[hole] = top;
        return;
    }
    const int moved = h[last];
    h[hole] = moved;
    h[last] = top;
    if (hole == 0) return;
    int parent = (hole - 1) / 2;
    if (!beats(v, h[parent], moved)) return;
    do {
        h[hole] = h[parent];
        hole = parent;
        if (parent == 0) break;
        parent = (parent - 1) / 2;
    } while (beats(v, h[parent], moved));
    h[hole] = moved;
}

static void partial_sort_desc(const float *v, int n, int k, int *idx) {
    for (int i = 0; i < n; i++) idx[i] = i;
    for (int start = k / 2 - 1; start >= 0 && k > 1; start--) sift_down(v, idx, k, start);
    for (int i = k; i < n; i++)
        if (beats(v, idx[i], idx[0])) {
            const int t = idx[i];
            idx[i] = idx[0];
            idx[0] = t;
            sift_down(v, idx, k, 0);
        }
    for (int len = k; len > 1; len--) pop_heap(v, idx, len);
}

/* TFLite's DecreasingPartialArgSort: the k best classes of one anchor into idx (n slots). */
static void best_classes(const float *v, int n, int k, int *idx) {
    if (k == 1) {
        int best = 0;
        for (int i = 1; i < n; i++)
            if (v[i] > v[best]) best = i;
        idx[0] = best;
        return;
    }
    partial_sort_desc(v, n, k, idx);
}

/* One entry of regular NMS's running list. */
typedef struct det_entry {
    float score;
    int index;                  /* anchor * with_background + class column */
} det_entry;

/* Merges b[0..nb) into a[0..na) (a has room for na + nb) as std::inplace_merge by score,
 * highest first: an entry of b goes first only where its score is higher. tmp: na slots. */
static void merge_entries(det_entry *a, int na, const det_entry *b, int nb, det_entry *tmp) {
    memcpy(tmp, a, sizeof *tmp * (size_t)na);
    int i = 0, j = 0, k = 0;
    while (i < na && j < nb) a[k++] = b[j].score > tmp[i].score ? b[j++] : tmp[i++];
    while (i < na) a[k++] = tmp[i++];
    while (j < nb) a[k++] = b[j++];
}

/* Scratch for both forms, sized for n anchors. */
typedef struct det_work {
    float *boxes;               /* n * 4 decoded */
    float *scores;              /* n: one class's scores, or the anchors' best */
    int *keep;                  /* n: anchors kept above the threshold */
    float *keep_scores;         /* n */
    int *order, *order_tmp;     /* n each: positions in keep, sorted */
    unsigned char *active;      /* n */
    int *selected;              /* n */
    int *classes;               /* n * k (fast) */
    int *class_tmp;             /* num_classes */
    det_entry *list, *list_tmp, *fresh;   /* 2 * max_detections, max_detections, n */
} det_work;

static void work_free(det_work *w) {
    free(w->boxes);
    free(w->scores);
    free(w->keep);
    free(w->keep_scores);
    free(w->order);
    free(w->order_tmp);
    free(w->active);
    free(w->selected);
    free(w->classes);
    free(w->class_tmp);
    free(w->list);
    free(w->list_tmp);
    free(w->fresh);
}

static bool work_alloc(det_work *w, const vki_op *op, const det_shape *sh) {
    memset(w, 0, sizeof *w);
    const size_t n = (size_t)sh->n;
    const size_t k = (size_t)(op->opt.detection.max_classes_per_detection < sh->classes
                                  ? op->opt.detection.max_classes_per_detection : sh->classes);
    const size_t max_det = (size_t)op->opt.detection.max_detections;
    w->boxes = malloc(sizeof(float) * 4 * n);
    w->scores = malloc(sizeof(float) * n);
    w->keep = malloc(sizeof(int) * n);
    w->keep_scores = malloc(sizeof(float) * n);
    w->order = malloc(sizeof(int) * n);
    w->order_tmp = malloc(sizeof(int) * n);
    w->active = malloc(n);
    w->selected = malloc(sizeof(int) * n);
    w->classes = malloc(sizeof(int) * (n * k > 0 ? n * k : 1));
    w->class_tmp = malloc(sizeof(int) * (size_t)sh->classes);
    w->list = malloc(sizeof(det_entry) * (2 * max_det + 1));
    w->list_tmp = malloc(sizeof(det_entry) * (max_det + 1));
    w->fresh = malloc(sizeof(det_entry) * n);
    if (w->boxes && w->scores && w->keep && w->keep_scores && w->order && w->order_tmp &&
        w->active && w->selected && w->classes && w->class_tmp && w->list && w->list_tmp &&
        w->fresh)
        return true;
    work_free(w);
    return false;
}

/* Keeps the anchors whose score is >= the threshold, in anchor order; returns how many. */
static int keep_above(const float *scores, int n, float threshold, det_work *w) {
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (scores[i] >= threshold) {
            w->keep[kept] = i;
            w->keep_scores[kept] = scores[i];
            kept++;
        }
    return kept;
}

/* Single-class NMS as TFLite writes it: insertion sort (stable), then every selected box
 * deactivates the later ones it overlaps. */
static int nms_single_reference(const float *scores, int n, float threshold, float iou_threshold,
                                int limit, det_work *w) {
    const int kept = keep_above(scores, n, threshold, w);
    for (int i = 0; i < kept; i++) {
        int j = i;
        while (j > 0 && w->keep_scores[i] > w->keep_scores[w->order[j - 1]]) {
            w->order[j] = w->order[j - 1];
            j--;
        }
        w->order[j] = i;
    }
    const int output_size = kept < limit ? kept : limit;
    int active = kept, count = 0;
    memset(w->active, 1, (size_t)kept);
    for (int i = 0; i < kept; i++) {
        if (active == 0 || count >= output_size) break;
        if (!w->active[i]) continue;
        const int box = w->keep[w->order[i]];
        w->selected[count++] = box;
        w->active[i] = 0;
        active--;
        for (int j = i + 1; j < kept; j++)
            if (w->active[j] && det_iou(w->boxes, box, w->keep[w->order[j]]) > iou_threshold) {
                w->active[j] = 0;
                active--;
            }
    }
    return count;
}

/* The same selection: a stable merge sort of the kept, then each candidate against the
 * boxes selected so far (a candidate TFLite deactivates is one a selected box overlaps). */
static int nms_single_fast(const float *scores, int n, float threshold, float iou_threshold,
                           int limit, det_work *w) {
    const int kept = keep_above(scores, n, threshold, w);
    int *a = w->order, *b = w->order_tmp;
    for (int i = 0; i < kept; i++) a[i] = i;
    for (int width = 1; width < kept; width *= 2) {
        for (int lo = 0; lo < kept; lo += 2 * width) {
            const int mid = lo + width < kept ? lo + width : kept;
            const int hi = lo + 2 * width < kept ? lo + 2 * width : kept;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                b[k++] = w->keep_scores[a[j]] > w->keep_scores[a[i]] ? a[j++] : a[i++];
            while (i < mid) b[k++] = a[i++];
            while (j < hi) b[k++] = a[j++];
        }
        int *t = a;
        a = b;
        b = t;
    }
    const int output_size = kept < limit ? kept : limit;
    int count = 0;
    for (int i = 0; i < kept && count < output_size; i++) {
        const int box = w->keep[a[i]];
        bool suppressed = false;
        for (int s = 0; s < count && !suppressed; s++)
            suppressed = det_iou(w->boxes, w->selected[s], box) > iou_threshold;
        if (!suppressed) w->selected[count++] = box;
    }
    return count;
}

typedef int (*nms_fn)(const float *, int, float, float, int, det_work *);

/* Fills the outputs (zeroed by the caller) from the decoded boxes in w. */
static void detect(const vki_op *op, const det_shape *sh, const float *class_scores, nms_fn nms,
                   det_work *w, float *const *outputs) {
    const det_opts opts = opts_of(op), *d = &opts;
    float *out_boxes = outputs[0], *out_classes = outputs[1], *out_scores = outputs[2];
    const size_t row_len = (size_t)sh->with_background;
    if (!d->use_regular_nms) {
        const int max_cls = d->max_classes_per_detection;
        const int k = max_cls < sh->classes ? max_cls : sh->classes;
        for (int i = 0; i < sh->n; i++) {
            const float *row = class_scores + (size_t)i * row_len + (size_t)sh->offset;
            best_classes(row, sh->classes, k, w->class_tmp);
            memcpy(w->classes + (size_t)i * (size_t)k, w->class_tmp, sizeof(int) * (size_t)k);
            w->scores[i] = row[w->class_tmp[0]];
        }
        const int count = nms(w->scores, sh->n, d->score_threshold, d->iou_threshold,
                              d->max_detections, w);
        for (int s = 0; s < count; s++) {
            const int anchor = w->selected[s];
            const float *row = class_scores + (size_t)anchor * row_len + (size_t)sh->offset;
            for (int c = 0; c < k; c++) {
                const size_t at = (size_t)max_cls * (size_t)s + (size_t)c;
                const int cls = w->classes[(size_t)anchor * (size_t)k + (size_t)c];
                memcpy(out_boxes + 4 * at, w->boxes + 4 * (size_t)anchor, 4 * sizeof(float));
                out_classes[at] = (float)cls;
                out_scores[at] = row[cls];
            }
        }
        outputs[3][0] = (float)count;
        return;
    }
    const int max_det = d->max_detections;
    const int per_class = d->detections_per_class < max_det ? d->detections_per_class : max_det;
    int size = 0;
    for (int c = 0; c < sh->classes; c++) {
        const size_t col = (size_t)c + (size_t)sh->offset;
        for (int i = 0; i < sh->n; i++) w->scores[i] = class_scores[(size_t)i * row_len + col];
        const int count = nms(w->scores, sh->n, d->score_threshold, d->iou_threshold, per_class, w);
        for (int s = 0; s < count; s++)
            w->fresh[s] = (det_entry){w->scores[w->selected[s]],
                                      w->selected[s] * sh->with_background + (int)col};
        merge_entries(w->list, size, w->fresh, count, w->list_tmp);
        size = size + count < max_det ? size + count : max_det;
    }
    for (int i = 0; i < size; i++) {
        const int anchor = w->list[i].index / sh->with_background;
        memcpy(out_boxes + 4 * (size_t)i, w->boxes + 4 * (size_t)anchor, 4 * sizeof(float));
        out_classes[i] = (float)(w->list[i].index - anchor * sh->with_background - sh->offset);
        out_scores[i] = w->list[i].score;
    }
    outputs[3][0] = (float)size;
}

static void zero_outputs(const vki_model *m, const vki_op *op, float *const *outputs) {
    for (int i = 0; i < 4; i++)
        memset(outputs[i], 0, sizeof(float) * vki_tensor_elements(vki_op_out(m, op, i)));
}

static void reference_detection(const vki_model *m, const vki_op *op, const float *const *inputs,
                                float *const *outputs) {
    const det_shape sh = shape_of(m, op);
    det_work w;
    zero_outputs(m, op, outputs);
    if (!work_alloc(&w, op, &sh)) return;
    decode_boxes(op, &sh, inputs[0], inputs[2], w.boxes);
    if (invalid_box(w.boxes, sh.n) < 0)
        detect(op, &sh, inputs[1], nms_single_reference, &w, outputs);
    work_free(&w);
}

static vki_status run_detection(const vki_model *m, int o, const float *const *inputs,
                                float *const *outputs) {
    const vki_op *op = &m->ops[o];
    const det_shape sh = shape_of(m, op);
    det_work w;
    zero_outputs(m, op, outputs);
    if (!work_alloc(&w, op, &sh))
        return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory for %d anchors",
                           sh.n);
    decode_boxes(op, &sh, inputs[0], inputs[2], w.boxes);
    const int bad = invalid_box(w.boxes, sh.n);
    if (bad >= 0) {
        const float *b = w.boxes + 4 * (size_t)bad;
        work_free(&w);
        return vki_op_fail(m, o, VKI_ERROR_INVALID_ARGUMENT, "anchor %d decodes to box (ymin %g, "
                           "xmin %g, ymax %g, xmax %g), whose min passes its max (TFLite fails "
                           "the op: a negative anchor size?)", bad, b[0], b[1], b[2], b[3]);
    }
    detect(op, &sh, inputs[1], nms_single_fast, &w, outputs);
    work_free(&w);
    return VKI_OK;
}

const vki_op_def vki_op_detection_postprocess = {
    .validate = validate_detection,
    .reference = reference_detection,
    .options = read_detection,
    .run = run_detection,
    .general = true,
};
