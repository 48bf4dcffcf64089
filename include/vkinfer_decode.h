/* vkinfer_decode.h: turning a model's raw outputs into results, for the model families
 * people run: face and palm detection (SSD anchors, box and keypoint decoding, weighted
 * non-maximum suppression, as MediaPipe's detector graphs do them), landmarks (pose, hand,
 * face mesh), segmentation masks and class scores, and mapping all of them from the
 * model's input back onto the photo that was fitted into it.
 *
 * Plain C on host memory: no Vulkan, no device, no handle; every call may run on any
 * thread at once (they share nothing). Feed them what vki_graph_get_output or
 * vki_graph_output_pointer gives.
 *
 * Coordinates. "Normalised input coordinates" run from 0 to 1 across the model's input
 * (x left to right, y top to bottom), as MediaPipe's detections are. "Input pixels" run
 * from 0 to the input's width or height, the left edge of the first pixel at 0. "Photo
 * pixels" likewise across the photo: pixel (i, j) covers [i, i+1) x [j, j+1), its centre
 * at (i + 0.5, j + 0.5).
 *
 * Failures are as in vkinfer.h: a vki_status, and a message for vki_last_error() naming
 * the call and the argument at fault ("vki_decode_detections: raw_scores is NULL").
 * Calls returning an int return -1 (or 0 where so stated) and leave a message.
 */
#ifndef VKINFER_DECODE_H
#define VKINFER_DECODE_H

#include "vkinfer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The decoders report an unsupported task, size or box count with this status. */
#define VKI_ERROR_UNSUPPORTED VKI_ERROR_UNSUPPORTED_MODEL

/* ---- tasks -------------------------------------------------------------------------- */

/* Every task and its name; the enum, vki_task_name and vki_task_from_name come from it. */
#define VKI_TASK_LIST(X)                                                                   \
    X(NONE, "none")                                                                        \
    X(FACE_DETECTION, "face_detection")                                                    \
    X(PALM_DETECTION, "palm_detection")                                                    \
    X(SEGMENTATION, "segmentation")                                                        \
    X(POSE_LANDMARKS, "pose_landmarks")                                                    \
    X(HAND_LANDMARKS, "hand_landmarks")                                                    \
    X(FACE_MESH, "face_mesh")                                                              \
    X(CLASSIFICATION, "classification")                                                    \
    X(POSE_DETECTION, "pose_detection")

#define VKI_TASK_ENUM_(name, text) VKI_TASK_##name,
typedef enum vki_task { VKI_TASK_LIST(VKI_TASK_ENUM_) VKI_TASK_COUNT } vki_task;
#undef VKI_TASK_ENUM_

/* The task's name, "face_detection"; "none" for VKI_TASK_NONE and for a value out of
 * range. A static string. Never fails. */
VKI_API const char *vki_task_name(vki_task task);
/* The task a name (as vki_task_name gives it, case-sensitive) stands for; VKI_TASK_NONE
 * for NULL or an unknown name. Never fails. */
VKI_API vki_task vki_task_from_name(const char *name);

/* The task of a model, from the shapes of its input and outputs alone, tried in this order:
 *   FACE_DETECTION / PALM_DETECTION  two outputs, [1,N,16] (face: a box and 6 keypoints) or
 *                     [1,N,18] (palm: 7 keypoints), and [1,N,1], with an input of 128x128
 *                     or 192x192;
 *   POSE_DETECTION    two outputs, [1,N,12] (a box and 4 keypoints) and [1,N,1], with an
 *                     input of 224x224;
 *   POSE_LANDMARKS    an output [1,195] (39 points x 5 values) among others;
 *   HAND_LANDMARKS    an output [1,63] (21 x 3) with an output [1,1];
 *   FACE_MESH         an output [1,1,1,1404] (468 x 3);
 *   SEGMENTATION      a single output [1,H,W,1];
 *   CLASSIFICATION    a single output [1,N] or [1,1,1,N], N >= 2;
 * else VKI_TASK_NONE (also for a NULL model, leaving a message). */
VKI_API vki_task vki_task_guess(const vki_model *model);

/* How many landmarks a task has: pose 33 (the model outputs 39: the last 6 are auxiliary
 * points for the next frame's region), hand 21, face mesh 468; 0 for other tasks. */
VKI_API int vki_task_landmark_count(vki_task task);

/* ---- photo and model input ---------------------------------------------------------- */

/* How a photo was fitted into the model's input, exactly as vki_graph_set_input_image
 * fits it (the same integer content rectangle). With keep_aspect (the transform's
 * letterbox) the photo keeps its aspect ratio, centred: if photo_width * input_height >=
 * photo_height * input_width, content_width = input_width and content_height =
 * round(photo_height * input_width / photo_width) (at least 1, at most input_height),
 * else content_height = input_height and content_width = round(photo_width *
 * input_height / photo_height); content_x = (input_width - content_width) / 2 and
 * content_y = (input_height - content_height) / 2, integer division. Without keep_aspect
 * the photo is stretched over the whole input. For a crop or a rotation, pass the size of
 * the rotated crop as the photo and add the crop's offset to the results yourself. */
typedef struct vki_letterbox {
    int photo_width, photo_height;     /* photo pixels */
    int input_width, input_height;     /* model input pixels */
    /* where the photo lies in the input, input pixels */
    int content_x, content_y, content_width, content_height;
} vki_letterbox;

/* The letterbox of a photo in an input. Every size must be 1 .. 16384 (as frames are);
 * otherwise the result is all zero and a message is left. */
VKI_API vki_letterbox vki_letterbox_fit(int photo_width, int photo_height, int input_width,
                                        int input_height, int keep_aspect);
/* A point in normalised input coordinates to photo pixels: px = (nx * input_width -
 * content_x) * photo_width / content_width, and likewise py. Points in the letterbox
 * margins land outside the photo (negative or beyond its size); they are not clamped. A
 * NULL or empty lb writes 0 and leaves a message; px or py may be NULL. */
VKI_API void vki_letterbox_to_photo(const vki_letterbox *lb, float nx, float ny, float *px,
                                    float *py);

/* ---- SSD detection ------------------------------------------------------------------ */

/* SSD anchors as MediaPipe's SsdAnchorsCalculator makes them from its options (fields
 * named as there). Layers with equal strides in a row share one grid; layer i's scale is
 * min_scale + (max_scale - min_scale) * i / (num_layers - 1) (their mean for one layer).
 * A grid of ceil(input / stride) cells gets, per cell and in this order, one anchor per
 * aspect ratio of each merged layer plus, where interpolated_scale_aspect_ratio > 0, one
 * of that ratio and scale sqrt(scale_i * scale_i+1) (1 after the last layer);
 * reduce_boxes_in_lowest_layer gives the first layer 3 fixed anchors (ratios 1, 2, 0.5,
 * scales 0.1, s, s) instead. Centres (cell + anchor_offset) / cells; width scale *
 * sqrt(ratio), height scale / sqrt(ratio), or both 1 with fixed_anchor_size. All in
 * normalised input coordinates. */
#define VKI_SSD_MAX_LAYERS 8
typedef struct vki_ssd_options {
    int num_layers;                    /* 1 .. VKI_SSD_MAX_LAYERS */
    float min_scale, max_scale;
    int input_width, input_height;     /* model input pixels */
    float anchor_offset_x, anchor_offset_y;  /* in cells; MediaPipe uses 0.5 */
    int strides[VKI_SSD_MAX_LAYERS];   /* input pixels per cell, one per layer */
    int num_aspect_ratios;             /* 0 .. 4 */
    float aspect_ratios[4];            /* width / height */
    int fixed_anchor_size;
    float interpolated_scale_aspect_ratio;   /* 0: no interpolated anchor */
    int reduce_boxes_in_lowest_layer;
} vki_ssd_options;

typedef struct vki_anchor {
    float x_center, y_center, width, height;
} vki_anchor;

/* Writes up to max anchors to out (out may be NULL to size: max is then ignored) and
 * returns how many the options make, which may exceed max. -1 with a message for NULL
 * options, max < 0, or bad options (num_layers out of range, a size or stride <= 0, a
 * ratio <= 0 or not finite, num_aspect_ratios out of range, more than 2^31 anchors). */
VKI_API int vki_ssd_anchors(const vki_ssd_options *options, vki_anchor *out, int max);

#define VKI_MAX_KEYPOINTS 8

/* What TensorsToDetectionsCalculator and NonMaxSuppressionCalculator take, for a model
 * whose outputs are raw boxes [1,num_boxes,num_coords] and scores [1,num_boxes,1]. */
typedef struct vki_detector_options {
    vki_ssd_options anchors;
    int num_boxes;                     /* anchors, = vki_ssd_anchors(&anchors, NULL, 0) */
    int num_coords;                    /* values per box: 4 + keypoints * values per one */
    int box_coord_offset;              /* where the box's 4 values start */
    int keypoint_coord_offset;         /* where the first keypoint starts */
    int num_keypoints;                 /* 0 .. VKI_MAX_KEYPOINTS */
    int num_values_per_keypoint;       /* >= 2: x and y come first */
    int reverse_output_order;          /* boxes as x,y,w,h (MediaPipe's face/palm graphs);
                                          0: y,x,h,w and keypoints y,x */
    /* Raw values are offsets in units of anchor size / scale: x_center = raw_x / x_scale *
     * anchor width + anchor x_center; width = raw_w / w_scale * anchor width. */
    float x_scale, y_scale, w_scale, h_scale;
    /* Raw scores are logits: clipped to +-score_clipping_thresh (0: not clipped), then
     * score = sigmoid(logit); boxes with score < min_score_thresh are dropped. */
    float score_clipping_thresh, min_score_thresh;
    /* Weighted NMS: boxes whose IoU with a kept one exceeds this are merged into it. */
    float min_suppression_threshold;
} vki_detector_options;

/* MediaPipe's settings for a task, picked by the model's input size and box count:
 *   FACE_DETECTION 128x128, 896 boxes: face_detection_short_range (its graph
 *     face_detection_short_range.pbtxt on the common face_detection.pbtxt);
 *   FACE_DETECTION 192x192, 2304 boxes: face_detection_full_range (the same way);
 *   PALM_DETECTION 192x192, 2016 boxes: palm_detection_lite and _full
 *     (palm_detection_cpu.pbtxt);
 *   POSE_DETECTION 224x224, 2254 boxes: pose_detection (pose_detection_cpu.pbtxt; its
 *     keypoints are the hip centre, a point giving the full body's size and rotation, the
 *     shoulder centre and the upper body's point; its input is in [-1, 1]).
 * VKI_ERROR_INVALID_ARGUMENT: out is NULL. VKI_ERROR_UNSUPPORTED (= _UNSUPPORTED_MODEL):
 * no setting for the task, size and box count; the message names all three. */
VKI_API vki_status vki_detector_options_for(vki_task task, int input_width, int input_height,
                                            int num_boxes, vki_detector_options *out);

typedef struct vki_detection {
    float score;                       /* 0 .. 1 */
    float box[4];                      /* x0, y0, x1, y1 (x0 <= x1, y0 <= y1) */
    int num_keypoints;
    float keypoints[VKI_MAX_KEYPOINTS][2];   /* x, y */
} vki_detection;

/* Decodes raw_boxes [num_boxes * num_coords] and raw_scores [num_boxes] against the
 * anchors (vki_ssd_anchors(&options->anchors), num_boxes of them) as
 * TensorsToDetectionsCalculator does, keeps scores >= min_score_thresh and boxes of
 * non-negative width and height, then merges them with vki_weighted_nms at
 * min_suppression_threshold. Writes at most max detections to out, in normalised input
 * coordinates, best score first, and their number to *count (0 after a failure). For a
 * face the keypoints are right eye, left eye, nose tip, mouth, right ear, left ear (the
 * person's right: on the left of an unmirrored photo), MediaPipe's order; a palm's 7
 * start with the wrist.
 * VKI_ERROR_INVALID_ARGUMENT: a NULL pointer, max < 0, options out of range (num_boxes or
 * num_coords <= 0, offsets or keypoints beyond num_coords, a scale of 0, num_keypoints
 * above VKI_MAX_KEYPOINTS). VKI_ERROR_OUT_OF_MEMORY. */
VKI_API vki_status vki_decode_detections(const float *raw_boxes, const float *raw_scores,
                                         const vki_anchor *anchors,
                                         const vki_detector_options *options,
                                         vki_detection *out, int max, int *count);

/* MediaPipe's weighted non-maximum suppression (NonMaxSuppressionCalculator, algorithm
 * WEIGHTED, overlap INTERSECTION_OVER_UNION) on n detections, sorted or not: the best
 * remaining one takes every remaining one whose IoU with it exceeds iou_threshold
 * (itself included) and becomes their average, each weighted by its score (box corners
 * and keypoints; it keeps its own score and keypoint count), until none remain. Equal
 * scores go in input order. Writes at most max to out (not overlapping in), best first,
 * and returns how many; -1 with a message for in or out NULL, n < 0, max < 0, or no host
 * memory. */
VKI_API int vki_weighted_nms(const vki_detection *in, int n, float iou_threshold,
                             vki_detection *out, int max);

/* Maps the boxes and keypoints of n detections from normalised input coordinates to
 * photo pixels in place (vki_letterbox_to_photo). A NULL lb or dets (with n > 0) changes
 * nothing and leaves a message. */
VKI_API void vki_detections_to_photo(const vki_letterbox *lb, vki_detection *dets, int n);

/* ---- landmarks ---------------------------------------------------------------------- */

/* One landmark in photo pixels. z is depth relative to the model's reference point
 * (the hips for pose, the wrist for a hand, the face's centre), scaled like x, smaller
 * nearer the camera. visibility and presence are probabilities; 1 where the model has none. */
typedef struct vki_landmark {
    float x, y, z, visibility, presence;
} vki_landmark;

/* Decodes num_points landmarks of values_per_point floats each from raw (a landmark
 * model's points output, in input pixels: x, y, z, then for pose the visibility and
 * presence logits): x and y to photo pixels through lb, z scaled like x (photo_width /
 * content_width), visibility = sigmoid(raw[3]) and presence = sigmoid(raw[4]) where
 * values_per_point has them, else 1. values_per_point is 3 (hand, face mesh), 4 or 5
 * (pose). Pass num_points = vki_task_landmark_count to leave out pose's 6 auxiliary points.
 * The models' one-value outputs are not points: the pose model's [1,1] pose flag and the
 * hand model's [1,1] flag and handedness are probabilities already, the face mesh
 * model's [1,1,1,1] face flag is a logit (vki_sigmoid).
 * VKI_ERROR_INVALID_ARGUMENT: raw, lb or out NULL, num_points <= 0, values_per_point not
 * 3 .. 5, lb empty. */
VKI_API vki_status vki_decode_landmarks(const float *raw, int num_points, int values_per_point,
                                        const vki_letterbox *lb, vki_landmark *out);

/* Pairs of landmark indices to join when drawing: MediaPipe's POSE_CONNECTIONS (35
 * pairs of the 33 pose landmarks) and HAND_CONNECTIONS (21 pairs). Sets *pairs to a
 * static array and returns its length; 0 and NULL for other tasks. pairs may be NULL. */
VKI_API int vki_landmark_connections(vki_task task, const int (**pairs)[2]);

/* ---- segmentation, classification --------------------------------------------------- */

/* Samples a mask [mask_height][mask_width] (covering the whole model input, as a
 * segmentation model's [1,H,W,1] output does) at the centre of each photo pixel through
 * the letterbox, bilinearly with half-pixel centres and edges repeated, into
 * out[photo_height * photo_width] (row-major), each value clamped to 0..1. Give it
 * probabilities: selfie_segmentation's output already is one (its last layer is a
 * sigmoid; the person's probability per pixel), pose's segmentation output is logits
 * (apply vki_sigmoid first). VKI_ERROR_INVALID_ARGUMENT: mask, lb or out NULL, a mask
 * side <= 0, lb empty. */
VKI_API vki_status vki_mask_to_photo(const float *mask, int mask_width, int mask_height,
                                     const vki_letterbox *lb, float *out);

/* The k best of n scores, best first, ties in index order (lower first); NaN counts as
 * lower than any number. Writes their indices to classes and values to values (either
 * may be NULL) and returns how many, min(k, n); 0 for n or k <= 0; -1 with a message for
 * scores NULL with n > 0 (or no host memory, with classes NULL). */
VKI_API int vki_top_k(const float *scores, int n, int k, int *classes, float *values);

/* 1 / (1 + exp(-x)), for the outputs above that are logits. Never fails. */
VKI_API float vki_sigmoid(float x);

#ifdef __cplusplus
}
#endif
#endif /* VKINFER_DECODE_H */
