/* decode_ssd.c: the SSD detection decoders of vkinfer_decode.h, without the device: anchors
 * as MediaPipe's SsdAnchorsCalculator makes them, MediaPipe's detector settings per model,
 * box and keypoint decoding as its TensorsToDetectionsCalculator does it, and its weighted
 * non-maximum suppression; mapping detections onto the photo. */
#include "status.h"
#include "vkinfer_decode.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- anchors ------------------------------------------------------------------------ */

/* Layer i's scale: spread linearly from min_scale to max_scale over the layers, in
 * double as MediaPipe computes it. */
static float layer_scale(const vki_ssd_options *o, int i) {
    if (o->num_layers == 1) return (o->min_scale + o->max_scale) * 0.5f;
    return (float)((double)o->min_scale +
                   (double)(o->max_scale - o->min_scale) * i / (o->num_layers - 1.0));
}

static int bad_anchor_options(const vki_ssd_options *o) {
    if (o->num_layers < 1 || o->num_layers > VKI_SSD_MAX_LAYERS)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: num_layers %d is not 1 .. %d",
                        o->num_layers, VKI_SSD_MAX_LAYERS), 1;
    if (o->input_width <= 0 || o->input_height <= 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: input size %dx%d is not "
                        "positive", o->input_width, o->input_height), 1;
    for (int i = 0; i < o->num_layers; i++)
        if (o->strides[i] <= 0)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: strides[%d] is %d, "
                            "need > 0", i, o->strides[i]), 1;
    if (o->num_aspect_ratios < 0 || o->num_aspect_ratios > 4)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: num_aspect_ratios %d is not "
                        "0 .. 4", o->num_aspect_ratios), 1;
    for (int i = 0; i < o->num_aspect_ratios; i++)
        if (!(o->aspect_ratios[i] > 0.0f) || !isfinite(o->aspect_ratios[i]))
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: aspect_ratios[%d] %g "
                            "is not a positive number", i, (double)o->aspect_ratios[i]), 1;
    if (!isfinite(o->min_scale) || !isfinite(o->max_scale) ||
        !isfinite(o->interpolated_scale_aspect_ratio) || !isfinite(o->anchor_offset_x) ||
        !isfinite(o->anchor_offset_y))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: a scale, offset or "
                        "interpolated ratio is not finite"), 1;
    return 0;
}

int vki_ssd_anchors(const vki_ssd_options *o, vki_anchor *out, int max) {
    if (!o) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: options is NULL"), -1;
    if (out && max < 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: max is %d", max), -1;
    if (bad_anchor_options(o)) return -1;
    if (!out) max = 0;
    int64_t total = 0;
    int layer = 0;
    while (layer < o->num_layers) {
        /* Consecutive layers of one stride share a grid: their anchors, in layer order,
         * at each cell. At most 4 ratios + 1 interpolated per layer. */
        float widths[VKI_SSD_MAX_LAYERS * 5], heights[VKI_SSD_MAX_LAYERS * 5];
        int per_cell = 0, last = layer;
        for (; last < o->num_layers && o->strides[last] == o->strides[layer]; last++) {
            const float scale = layer_scale(o, last);
            if (last == 0 && o->reduce_boxes_in_lowest_layer) {
                const float ratios[3] = {1.0f, 2.0f, 0.5f}, scales[3] = {0.1f, scale, scale};
                for (int k = 0; k < 3; k++, per_cell++) {
                    widths[per_cell] = scales[k] * sqrtf(ratios[k]);
                    heights[per_cell] = scales[k] / sqrtf(ratios[k]);
                }
                continue;
            }
            for (int k = 0; k < o->num_aspect_ratios; k++, per_cell++) {
                widths[per_cell] = scale * sqrtf(o->aspect_ratios[k]);
                heights[per_cell] = scale / sqrtf(o->aspect_ratios[k]);
            }
            if (o->interpolated_scale_aspect_ratio > 0.0f) {
                const float next = last == o->num_layers - 1 ? 1.0f : layer_scale(o, last + 1);
                const float s = sqrtf(scale * next), r = sqrtf(o->interpolated_scale_aspect_ratio);
                widths[per_cell] = s * r;
                heights[per_cell] = s / r;
                per_cell++;
            }
        }
        const int stride = o->strides[layer];
        const int64_t cols = ((int64_t)o->input_width + stride - 1) / stride;
        const int64_t rows = ((int64_t)o->input_height + stride - 1) / stride;
        const int64_t grid = cols * rows * per_cell;    /* < 2^31 * 2^31 * 40 < 2^63 */
        if (total + grid > INT32_MAX)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_ssd_anchors: the options make more "
                            "than 2^31 anchors"), -1;
        /* Write only what fits: the anchors of cell (x, y) start at total + (y * cols + x)
         * * per_cell. */
        for (int64_t i = 0; i < grid && total + i < max; i++) {
            const int64_t cell = i / per_cell, k = i % per_cell;
            const int64_t x = cell % cols, y = cell / cols;
            vki_anchor *a = &out[total + i];
            a->x_center = ((float)x + o->anchor_offset_x) / (float)cols;
            a->y_center = ((float)y + o->anchor_offset_y) / (float)rows;
            a->width = o->fixed_anchor_size ? 1.0f : widths[k];
            a->height = o->fixed_anchor_size ? 1.0f : heights[k];
        }
        total += grid;
        layer = last;
    }
    return (int)total;
}

/* ---- MediaPipe's detector settings -------------------------------------------------- */

/* What MediaPipe's face graphs share (face_detection.pbtxt): SsdAnchorsCalculator with
 * min_scale 0.1484375, max_scale 0.75, offsets 0.5, aspect_ratios [1.0] and fixed-size
 * anchors; TensorsToDetectionsCalculator with num_coords 16 (a box and 6 keypoints of 2
 * values from offset 4), sigmoid scores clipped at 100, reverse_output_order (x,y,w,h);
 * NonMaxSuppressionCalculator WEIGHTED, IoU, min_suppression_threshold 0.3.
 * palm_detection_cpu.pbtxt has the same but 18 coords (7 keypoints), pose_detection_cpu.pbtxt
 * 12 (4 keypoints). */
static void mediapipe_common(vki_detector_options *o, int size, int keypoints) {
    o->anchors.min_scale = 0.1484375f;
    o->anchors.max_scale = 0.75f;
    o->anchors.input_width = size;
    o->anchors.input_height = size;
    o->anchors.anchor_offset_x = 0.5f;
    o->anchors.anchor_offset_y = 0.5f;
    o->anchors.num_aspect_ratios = 1;
    o->anchors.aspect_ratios[0] = 1.0f;
    o->anchors.fixed_anchor_size = 1;
    o->anchors.reduce_boxes_in_lowest_layer = 0;
    o->num_coords = 4 + 2 * keypoints;
    o->box_coord_offset = 0;
    o->keypoint_coord_offset = 4;
    o->num_keypoints = keypoints;
    o->num_values_per_keypoint = 2;
    o->reverse_output_order = 1;
    o->x_scale = o->y_scale = o->w_scale = o->h_scale = (float)size;
    o->score_clipping_thresh = 100.0f;
    o->min_suppression_threshold = 0.3f;
}

/* The 8-16-16-16 grids of face_detection_short_range.pbtxt and palm_detection_cpu.pbtxt:
 * 4 layers, the last 3 merged, with the interpolated anchor (ratio 1.0, the default). */
static void four_layers(vki_detector_options *o) {
    o->anchors.num_layers = 4;
    o->anchors.strides[0] = 8;
    o->anchors.strides[1] = o->anchors.strides[2] = o->anchors.strides[3] = 16;
    o->anchors.interpolated_scale_aspect_ratio = 1.0f;
}

vki_status vki_detector_options_for(vki_task task, int input_width, int input_height,
                                    int num_boxes, vki_detector_options *out) {
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_detector_options_for: out is NULL");
    memset(out, 0, sizeof *out);
    const int square = input_width == input_height;
    if (task == VKI_TASK_FACE_DETECTION && square && input_width == 128 && num_boxes == 896) {
        /* face_detection_short_range.pbtxt: 128x128, strides 8,16,16,16, 896 boxes,
         * min_score_thresh 0.5. */
        mediapipe_common(out, 128, 6);
        four_layers(out);
        out->num_boxes = 896;
        out->min_score_thresh = 0.5f;
        return VKI_OK;
    }
    if (task == VKI_TASK_FACE_DETECTION && square && input_width == 192 && num_boxes == 2304) {
        /* face_detection_full_range.pbtxt: 192x192, one layer of stride 4 (48x48 cells), no
         * interpolated anchor, 2304 boxes, min_score_thresh 0.6. */
        mediapipe_common(out, 192, 6);
        out->anchors.num_layers = 1;
        out->anchors.strides[0] = 4;
        out->anchors.interpolated_scale_aspect_ratio = 0.0f;
        out->num_boxes = 2304;
        out->min_score_thresh = 0.6f;
        return VKI_OK;
    }
    if (task == VKI_TASK_PALM_DETECTION && square && input_width == 192 && num_boxes == 2016) {
        /* palm_detection_cpu.pbtxt: 192x192, strides 8,16,16,16, 2016 boxes, 7 keypoints,
         * min_score_thresh 0.5. */
        mediapipe_common(out, 192, 7);
        four_layers(out);
        out->num_boxes = 2016;
        out->min_score_thresh = 0.5f;
        return VKI_OK;
    }
    if (task == VKI_TASK_POSE_DETECTION && square && input_width == 224 && num_boxes == 2254) {
        /* mediapipe/modules/pose_detection/pose_detection_cpu.pbtxt: 224x224, strides
         * 8,16,32,32,32 (the last three merged), the interpolated anchor, 2254 boxes, 12
         * coords (a box and 4 keypoints: hip centre, full-body size and rotation point,
         * shoulder centre, upper-body point), min_score_thresh 0.2. */
        mediapipe_common(out, 224, 4);
        out->anchors.num_layers = 5;
        out->anchors.strides[0] = 8;
        out->anchors.strides[1] = 16;
        out->anchors.strides[2] = out->anchors.strides[3] = out->anchors.strides[4] = 32;
        out->anchors.interpolated_scale_aspect_ratio = 1.0f;
        out->num_boxes = 2254;
        out->min_score_thresh = 0.2f;
        return VKI_OK;
    }
    return vki_fail(VKI_ERROR_UNSUPPORTED, "vki_detector_options_for: no detector settings for "
                    "%s with a %dx%d input and %d boxes (known: face_detection 128x128 with 896 "
                    "boxes or 192x192 with 2304, palm_detection 192x192 with 2016, "
                    "pose_detection 224x224 with 2254)",
                    vki_task_name(task), input_width, input_height, num_boxes);
}

/* ---- decoding ----------------------------------------------------------------------- */

static vki_status check_detector(const char *call, const vki_detector_options *o) {
    const char *why = NULL;
    if (o->num_boxes <= 0) why = "num_boxes is not positive";
    else if (o->num_coords < 4) why = "num_coords is below 4";
    else if (o->box_coord_offset < 0 || o->box_coord_offset > o->num_coords - 4)
        why = "box_coord_offset leaves no 4 box values inside num_coords";
    else if (o->num_keypoints < 0 || o->num_keypoints > VKI_MAX_KEYPOINTS)
        why = "num_keypoints is not 0 .. VKI_MAX_KEYPOINTS";
    else if (o->num_keypoints > 0 && o->num_values_per_keypoint < 2)
        why = "num_values_per_keypoint is below 2";
    else if (o->num_keypoints > 0 &&
             (o->keypoint_coord_offset < 0 ||
              (int64_t)o->keypoint_coord_offset +
                      (int64_t)o->num_keypoints * o->num_values_per_keypoint > o->num_coords))
        why = "the keypoints reach beyond num_coords";
    else if (o->num_boxes > INT32_MAX / o->num_coords) why = "num_boxes * num_coords overflows";
    else if (o->x_scale == 0.0f || o->y_scale == 0.0f || o->w_scale == 0.0f ||
             o->h_scale == 0.0f || !isfinite(o->x_scale) || !isfinite(o->y_scale) ||
             !isfinite(o->w_scale) || !isfinite(o->h_scale))
        why = "a scale is 0 or not finite";
    else if (!(o->score_clipping_thresh >= 0.0f)) why = "score_clipping_thresh is negative";
    if (!why) return VKI_OK;
    return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: options: %s (num_boxes %d, num_coords %d, "
                    "box_coord_offset %d, keypoint_coord_offset %d, num_keypoints %d, "
                    "num_values_per_keypoint %d)", call, why, o->num_boxes, o->num_coords,
                    o->box_coord_offset, o->keypoint_coord_offset, o->num_keypoints,
                    o->num_values_per_keypoint);
}

vki_status vki_decode_detections(const float *raw_boxes, const float *raw_scores,
                                 const vki_anchor *anchors, const vki_detector_options *o,
                                 vki_detection *out, int max, int *count) {
    static const char call[] = "vki_decode_detections";
    if (count) *count = 0;
    if (!count) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: count is NULL", call);
    if (!raw_boxes) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: raw_boxes is NULL", call);
    if (!raw_scores) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: raw_scores is NULL", call);
    if (!anchors) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: anchors is NULL", call);
    if (!o) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: options is NULL", call);
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if (max < 0) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: max is %d", call, max);
    vki_status s = check_detector(call, o);
    if (s) return s;

    const float clip = o->score_clipping_thresh;
    int kept = 0;
    vki_detection *all = NULL;
    for (int pass = 0; pass < 2; pass++) {
        /* Pass 0 counts the boxes above the threshold, pass 1 decodes them. */
        int k = 0;
        for (int i = 0; i < o->num_boxes; i++) {
            float logit = raw_scores[i];
            if (clip > 0.0f) logit = logit < -clip ? -clip : logit > clip ? clip : logit;
            const float score = 1.0f / (1.0f + expf(-logit));
            if (!(score >= o->min_score_thresh)) continue;
            const float *r = raw_boxes + (size_t)i * (size_t)o->num_coords;
            const float *b = r + o->box_coord_offset;
            const vki_anchor *a = &anchors[i];
            float xc, yc, w, h;
            if (o->reverse_output_order) xc = b[0], yc = b[1], w = b[2], h = b[3];
            else yc = b[0], xc = b[1], h = b[2], w = b[3];
            xc = xc / o->x_scale * a->width + a->x_center;
            yc = yc / o->y_scale * a->height + a->y_center;
            w = w / o->w_scale * a->width;
            h = h / o->h_scale * a->height;
            /* MediaPipe drops boxes of negative or NaN width or height. */
            if (!(w >= 0.0f) || !(h >= 0.0f)) continue;
            if (pass == 0) {
                k++;
                continue;
            }
            vki_detection *d = &all[k++];
            d->score = score;
            d->box[0] = xc - w / 2.0f;
            d->box[1] = yc - h / 2.0f;
            d->box[2] = xc + w / 2.0f;
            d->box[3] = yc + h / 2.0f;
            d->num_keypoints = o->num_keypoints;
            for (int p = 0; p < o->num_keypoints; p++) {
                const float *kp = r + o->keypoint_coord_offset + p * o->num_values_per_keypoint;
                float kx = o->reverse_output_order ? kp[0] : kp[1];
                float ky = o->reverse_output_order ? kp[1] : kp[0];
                d->keypoints[p][0] = kx / o->x_scale * a->width + a->x_center;
                d->keypoints[p][1] = ky / o->y_scale * a->height + a->y_center;
            }
        }
        if (pass == 0) {
            kept = k;
            if (kept == 0) return VKI_OK;
            all = calloc((size_t)kept, sizeof *all);
            if (!all) return vki_fail_oom(call);
        }
    }
    int n = vki_weighted_nms(all, kept, o->min_suppression_threshold, out, max);
    free(all);
    if (n < 0) return vki_fail_oom(call);
    *count = n;
    return VKI_OK;
}

/* ---- weighted non-maximum suppression ------------------------------------------------ */

static float box_area(const float *b) {
    float w = b[2] - b[0], h = b[3] - b[1];
    return w > 0.0f && h > 0.0f ? w * h : 0.0f;
}

/* Intersection over union; 0 for boxes that do not overlap or have no area. */
static float iou(const float *a, const float *b) {
    float x0 = fmaxf(a[0], b[0]), y0 = fmaxf(a[1], b[1]);
    float x1 = fminf(a[2], b[2]), y1 = fminf(a[3], b[3]);
    if (!(x1 > x0) || !(y1 > y0)) return 0.0f;
    float inter = (x1 - x0) * (y1 - y0);
    float uni = box_area(a) + box_area(b) - inter;
    return uni > 0.0f ? inter / uni : 0.0f;
}

/* Sorts the indices order[0..n) by score, best first, NaN last, equal scores in index
 * order: a stable bottom-up merge sort through tmp[n]. */
static void sort_indices(const vki_detection *d, int *order, int *tmp, int n) {
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                int a = order[i], b = order[j];
                float sa = d[a].score, sb = d[b].score;
                /* b first only when strictly better (NaN is worst): keeps index order */
                int b_first = (isnan(sa) && !isnan(sb)) || (!isnan(sb) && sb > sa);
                tmp[k++] = b_first ? order[j++] : order[i++];
            }
            while (i < mid) tmp[k++] = order[i++];
            while (j < hi) tmp[k++] = order[j++];
        }
        memcpy(order, tmp, sizeof *order * (size_t)n);
    }
}

int vki_weighted_nms(const vki_detection *in, int n, float iou_threshold, vki_detection *out,
                     int max) {
    static const char call[] = "vki_weighted_nms";
    if (!in && n > 0) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: in is NULL", call), -1;
    if (!out && max > 0) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call), -1;
    if (n < 0) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: n is %d", call, n), -1;
    if (max < 0) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: max is %d", call, max), -1;
    if (n == 0 || max == 0) return 0;
    int *order = malloc(sizeof *order * (size_t)n * 2);
    if (!order) return vki_fail_oom(call), -1;
    int *tmp = order + n;
    for (int i = 0; i < n; i++) order[i] = i;
    sort_indices(in, order, tmp, n);

    /* order[0..left) holds the detections not yet merged, best first. */
    int left = n, written = 0;
    while (left > 0 && written < max) {
        const vki_detection *top = &in[order[0]];
        float total = 0.0f, box[4] = {0}, kp[VKI_MAX_KEYPOINTS][2] = {{0}};
        int nk = top->num_keypoints < 0 ? 0
               : top->num_keypoints > VKI_MAX_KEYPOINTS ? VKI_MAX_KEYPOINTS : top->num_keypoints;
        int rest = 0;
        for (int i = 0; i < left; i++) {
            const vki_detection *d = &in[order[i]];
            /* The top one always merges into itself, even without area. */
            if (i > 0 && !(iou(d->box, top->box) > iou_threshold)) {
                order[rest++] = order[i];
                continue;
            }
            const float w = d->score;
            total += w;
            for (int c = 0; c < 4; c++) box[c] += d->box[c] * w;
            for (int p = 0; p < nk; p++) {
                kp[p][0] += d->keypoints[p][0] * w;
                kp[p][1] += d->keypoints[p][1] * w;
            }
        }
        vki_detection merged = *top;
        merged.num_keypoints = nk;
        if (total > 0.0f) {
            for (int c = 0; c < 4; c++) merged.box[c] = box[c] / total;
            for (int p = 0; p < nk; p++) {
                merged.keypoints[p][0] = kp[p][0] / total;
                merged.keypoints[p][1] = kp[p][1] / total;
            }
        }
        out[written++] = merged;
        left = rest;
    }
    free(order);
    return written;
}

/* ---- onto the photo ------------------------------------------------------------------ */

void vki_detections_to_photo(const vki_letterbox *lb, vki_detection *dets, int n) {
    if (n <= 0) return;
    if (!lb || !dets || lb->content_width <= 0 || lb->content_height <= 0) {
        vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_detections_to_photo: %s",
                 !lb ? "lb is NULL" : !dets ? "dets is NULL" : "lb is empty");
        return;
    }
    for (int i = 0; i < n; i++) {
        vki_detection *d = &dets[i];
        vki_letterbox_to_photo(lb, d->box[0], d->box[1], &d->box[0], &d->box[1]);
        vki_letterbox_to_photo(lb, d->box[2], d->box[3], &d->box[2], &d->box[3]);
        int nk = d->num_keypoints > VKI_MAX_KEYPOINTS ? VKI_MAX_KEYPOINTS : d->num_keypoints;
        for (int p = 0; p < nk; p++)
            vki_letterbox_to_photo(lb, d->keypoints[p][0], d->keypoints[p][1], &d->keypoints[p][0],
                                   &d->keypoints[p][1]);
    }
}
