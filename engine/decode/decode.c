/* decode.c: the result decoders of vkinfer_decode.h other than SSD detection (which is
 * decode_ssd.c), without the device: task names and guessing a model's task from its
 * shapes, the letterbox between a photo and the model input (the same content rectangle
 * as image.c's), landmarks, their connections, masks onto the photo, top-k scores. */
#include "names.h"
#include "status.h"
#include "vkinfer_decode.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- tasks -------------------------------------------------------------------------- */

#define TASK_NAME_(name, text) text,
static const char *const task_names[] = {VKI_TASK_LIST(TASK_NAME_)};
#undef TASK_NAME_

const char *vki_task_name(vki_task task) { return vki_name_at(task_names, VKI_TASK_COUNT, task); }

vki_task vki_task_from_name(const char *name) {
    return (vki_task)vki_name_index(task_names, VKI_TASK_COUNT, name);
}

int vki_task_landmark_count(vki_task task) {
    switch (task) {
    case VKI_TASK_POSE_LANDMARKS: return 33;
    case VKI_TASK_HAND_LANDMARKS: return 21;
    case VKI_TASK_FACE_MESH: return 468;
    default: return 0;
    }
}

/* Whether t has exactly this shape. */
static int shape_is(const vki_tensor_info *t, int rank, const int *shape) {
    if (t->rank != rank) return 0;
    for (int i = 0; i < rank; i++)
        if (shape[i] >= 0 && t->shape[i] != shape[i]) return 0;
    return 1;
}
#define SHAPE_IS(t, ...) \
    shape_is((t), (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__})

#define GUESS_MAX_OUTPUTS 16

vki_task vki_task_guess(const vki_model *model) {
    if (!model) {
        vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_task_guess: model is NULL");
        return VKI_TASK_NONE;
    }
    int n = vki_model_output_count(model);
    if (n <= 0 || n > GUESS_MAX_OUTPUTS) return VKI_TASK_NONE;
    vki_tensor_info outs[GUESS_MAX_OUTPUTS], in = {0};
    for (int i = 0; i < n; i++)
        if (vki_model_output_info(model, i, &outs[i]) != VKI_OK) return VKI_TASK_NONE;
    const int have_input = vki_model_input_count(model) >= 1 &&
                           vki_model_input_info(model, 0, &in) == VKI_OK;

    /* Detection: [1,N,16|18] boxes and [1,N,1] scores, in either order, on a square input
     * of 128 or 192; [1,N,12] on 224 for pose. */
    if (n == 2 && have_input && in.rank == 4 && in.shape[1] == in.shape[2] &&
        (in.shape[1] == 128 || in.shape[1] == 192 || in.shape[1] == 224)) {
        for (int b = 0; b < 2; b++) {
            const vki_tensor_info *boxes = &outs[b], *scores = &outs[1 - b];
            if (boxes->rank != 3 || !SHAPE_IS(scores, 1, boxes->shape[1], 1)) continue;
            if (in.shape[1] == 224) {
                if (SHAPE_IS(boxes, 1, -1, 12)) return VKI_TASK_POSE_DETECTION;
                continue;
            }
            if (SHAPE_IS(boxes, 1, -1, 16)) return VKI_TASK_FACE_DETECTION;
            if (SHAPE_IS(boxes, 1, -1, 18)) return VKI_TASK_PALM_DETECTION;
        }
    }
    int has_pose = 0, has_hand = 0, has_flag = 0, has_mesh = 0;
    for (int i = 0; i < n; i++) {
        has_pose |= SHAPE_IS(&outs[i], 1, 195);
        has_hand |= SHAPE_IS(&outs[i], 1, 63);
        has_flag |= SHAPE_IS(&outs[i], 1, 1);
        has_mesh |= SHAPE_IS(&outs[i], 1, 1, 1, 1404);
    }
    if (has_pose) return VKI_TASK_POSE_LANDMARKS;
    if (has_hand && has_flag) return VKI_TASK_HAND_LANDMARKS;
    if (has_mesh) return VKI_TASK_FACE_MESH;
    if (n == 1 && SHAPE_IS(&outs[0], 1, -1, -1, 1) && outs[0].shape[1] > 1 &&
        outs[0].shape[2] > 1)
        return VKI_TASK_SEGMENTATION;
    if (n == 1 && ((SHAPE_IS(&outs[0], 1, -1) && outs[0].shape[1] >= 2) ||
                   (SHAPE_IS(&outs[0], 1, 1, 1, -1) && outs[0].shape[3] >= 2)))
        return VKI_TASK_CLASSIFICATION;
    return VKI_TASK_NONE;
}

/* ---- letterbox ---------------------------------------------------------------------- */

#define LETTERBOX_MAX_SIDE 16384

vki_letterbox vki_letterbox_fit(int photo_width, int photo_height, int input_width,
                                int input_height, int keep_aspect) {
    vki_letterbox lb;
    memset(&lb, 0, sizeof lb);
    const int sides[4] = {photo_width, photo_height, input_width, input_height};
    static const char *const names[4] = {"photo_width", "photo_height", "input_width",
                                         "input_height"};
    for (int i = 0; i < 4; i++) {
        if (sides[i] < 1 || sides[i] > LETTERBOX_MAX_SIDE) {
            vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_letterbox_fit: %s %d is not 1 .. %d",
                     names[i], sides[i], LETTERBOX_MAX_SIDE);
            return lb;
        }
    }
    lb.photo_width = photo_width;
    lb.photo_height = photo_height;
    lb.input_width = input_width;
    lb.input_height = input_height;
    /* As image.c's content(): integer rounding, the photo centred. */
    const long long pw = photo_width, ph = photo_height, w = input_width, h = input_height;
    long long cw = w, ch = h;
    if (keep_aspect && pw * h >= ph * w) {
        ch = (2 * ph * w + pw) / (2 * pw);
        ch = ch < 1 ? 1 : ch > h ? h : ch;
    } else if (keep_aspect) {
        cw = (2 * pw * h + ph) / (2 * ph);
        cw = cw < 1 ? 1 : cw > w ? w : cw;
    }
    lb.content_x = (int)((w - cw) / 2);
    lb.content_y = (int)((h - ch) / 2);
    lb.content_width = (int)cw;
    lb.content_height = (int)ch;
    return lb;
}

static int letterbox_ok(const vki_letterbox *lb) {
    return lb && lb->content_width > 0 && lb->content_height > 0 && lb->photo_width > 0 &&
           lb->photo_height > 0 && lb->input_width > 0 && lb->input_height > 0;
}

void vki_letterbox_to_photo(const vki_letterbox *lb, float nx, float ny, float *px, float *py) {
    if (!letterbox_ok(lb)) {
        vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_letterbox_to_photo: lb is %s",
                 lb ? "empty" : "NULL");
        if (px) *px = 0.0f;
        if (py) *py = 0.0f;
        return;
    }
    const float sx = (float)lb->photo_width / (float)lb->content_width;
    const float sy = (float)lb->photo_height / (float)lb->content_height;
    if (px) *px = (nx * (float)lb->input_width - (float)lb->content_x) * sx;
    if (py) *py = (ny * (float)lb->input_height - (float)lb->content_y) * sy;
}

/* ---- landmarks ---------------------------------------------------------------------- */

float vki_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

vki_status vki_decode_landmarks(const float *raw, int num_points, int values_per_point,
                                const vki_letterbox *lb, vki_landmark *out) {
    static const char call[] = "vki_decode_landmarks";
    if (!raw) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: raw is NULL", call);
    if (!lb) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: lb is NULL", call);
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if (num_points <= 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: num_points is %d", call, num_points);
    if (values_per_point < 3 || values_per_point > 5)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: values_per_point is %d, need 3 .. 5",
                        call, values_per_point);
    if (!letterbox_ok(lb))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: lb is empty (content %dx%d, photo %dx%d)",
                        call, lb->content_width, lb->content_height, lb->photo_width,
                        lb->photo_height);
    const float sx = (float)lb->photo_width / (float)lb->content_width;
    const float sy = (float)lb->photo_height / (float)lb->content_height;
    for (int i = 0; i < num_points; i++) {
        const float *r = raw + (size_t)i * (size_t)values_per_point;
        vki_landmark *l = &out[i];
        l->x = (r[0] - (float)lb->content_x) * sx;
        l->y = (r[1] - (float)lb->content_y) * sy;
        l->z = r[2] * sx;
        l->visibility = values_per_point > 3 ? vki_sigmoid(r[3]) : 1.0f;
        l->presence = values_per_point > 4 ? vki_sigmoid(r[4]) : 1.0f;
    }
    return VKI_OK;
}

/* MediaPipe's POSE_CONNECTIONS: face, arms and hands, torso, legs and feet. */
static const int pose_pairs[][2] = {
    {0, 1}, {1, 2}, {2, 3}, {3, 7}, {0, 4}, {4, 5}, {5, 6}, {6, 8}, {9, 10},
    {11, 12}, {11, 13}, {13, 15}, {15, 17}, {15, 19}, {15, 21}, {17, 19},
    {12, 14}, {14, 16}, {16, 18}, {16, 20}, {16, 22}, {18, 20},
    {11, 23}, {12, 24}, {23, 24},
    {23, 25}, {24, 26}, {25, 27}, {26, 28}, {27, 29}, {28, 30}, {29, 31}, {30, 32}, {27, 31},
    {28, 32},
};

/* MediaPipe's HAND_CONNECTIONS: the palm, then thumb, index, middle, ring, little finger. */
static const int hand_pairs[][2] = {
    {0, 1}, {0, 5}, {9, 13}, {13, 17}, {5, 9}, {0, 17},
    {1, 2}, {2, 3}, {3, 4},
    {5, 6}, {6, 7}, {7, 8},
    {9, 10}, {10, 11}, {11, 12},
    {13, 14}, {14, 15}, {15, 16},
    {17, 18}, {18, 19}, {19, 20},
};

int vki_landmark_connections(vki_task task, const int (**pairs)[2]) {
    const int(*p)[2] = NULL;
    int n = 0;
    if (task == VKI_TASK_POSE_LANDMARKS) {
        p = pose_pairs;
        n = (int)(sizeof pose_pairs / sizeof pose_pairs[0]);
    } else if (task == VKI_TASK_HAND_LANDMARKS) {
        p = hand_pairs;
        n = (int)(sizeof hand_pairs / sizeof hand_pairs[0]);
    }
    if (pairs) *pairs = p;
    return n;
}

/* ---- masks -------------------------------------------------------------------------- */

/* Bilinear sample of mask (w x h) at pixel-centre coordinates (x, y), edges repeated. */
static float sample(const float *mask, int w, int h, float x, float y) {
    x = x < 0.0f ? 0.0f : x > (float)(w - 1) ? (float)(w - 1) : x;
    y = y < 0.0f ? 0.0f : y > (float)(h - 1) ? (float)(h - 1) : y;
    int x0 = (int)x, y0 = (int)y;
    int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
    float fx = x - (float)x0, fy = y - (float)y0;
    const float *r0 = mask + (size_t)y0 * (size_t)w, *r1 = mask + (size_t)y1 * (size_t)w;
    float top = r0[x0] + (r0[x1] - r0[x0]) * fx;
    float bottom = r1[x0] + (r1[x1] - r1[x0]) * fx;
    return top + (bottom - top) * fy;
}

vki_status vki_mask_to_photo(const float *mask, int mask_width, int mask_height,
                             const vki_letterbox *lb, float *out) {
    static const char call[] = "vki_mask_to_photo";
    if (!mask) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: mask is NULL", call);
    if (!lb) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: lb is NULL", call);
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if (mask_width <= 0 || mask_height <= 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: mask size %dx%d is not positive", call,
                        mask_width, mask_height);
    if (!letterbox_ok(lb))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: lb is empty (content %dx%d, photo %dx%d)",
                        call, lb->content_width, lb->content_height, lb->photo_width,
                        lb->photo_height);
    /* Photo pixel centre -> input pixels -> mask pixel-centre coordinates. */
    const double to_in_x = (double)lb->content_width / lb->photo_width;
    const double to_in_y = (double)lb->content_height / lb->photo_height;
    const double to_mask_x = (double)mask_width / lb->input_width;
    const double to_mask_y = (double)mask_height / lb->input_height;
    for (int j = 0; j < lb->photo_height; j++) {
        const float my = (float)((lb->content_y + (j + 0.5) * to_in_y) * to_mask_y - 0.5);
        float *row = out + (size_t)j * (size_t)lb->photo_width;
        for (int i = 0; i < lb->photo_width; i++) {
            const float mx = (float)((lb->content_x + (i + 0.5) * to_in_x) * to_mask_x - 0.5);
            float v = sample(mask, mask_width, mask_height, mx, my);
            row[i] = v > 0.0f ? (v < 1.0f ? v : 1.0f) : 0.0f;   /* NaN becomes 0 */
        }
    }
    return VKI_OK;
}

/* ---- classification ----------------------------------------------------------------- */

/* Whether score a (index ia) ranks before score b (index ib): larger first, NaN last,
 * ties by index. */
static int ranks_before(float a, int ia, float b, int ib) {
    if (isnan(a) || isnan(b)) return isnan(b) && (!isnan(a) || ia < ib);
    return a > b || (a == b && ia < ib);
}

int vki_top_k(const float *scores, int n, int k, int *classes, float *values) {
    if (n <= 0 || k <= 0) return 0;
    if (!scores) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_top_k: scores is NULL"), -1;
    if (k > n) k = n;
    /* Insertion into the k best so far, kept in classes (or a buffer of our own). */
    int *idx = classes ? classes : malloc(sizeof *idx * (size_t)k);
    if (!idx) return vki_fail_oom("vki_top_k"), -1;
    int have = 0;
    for (int i = 0; i < n; i++) {
        if (have == k && !ranks_before(scores[i], i, scores[idx[k - 1]], idx[k - 1])) continue;
        int pos = have < k ? have++ : k - 1;
        while (pos > 0 && ranks_before(scores[i], i, scores[idx[pos - 1]], idx[pos - 1])) {
            idx[pos] = idx[pos - 1];
            pos--;
        }
        idx[pos] = i;
    }
    if (values)
        for (int i = 0; i < have; i++) values[i] = scores[idx[i]];
    if (!classes) free(idx);
    return have;
}
