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

/* ---- solutions: regions of interest between detector and landmark model ----------- */

/* MediaPipe's two-stage solutions: a detector finds the object on the whole photo, a
 * region of interest (ROI, a vki_rect: centre, size and clockwise rotation in photo
 * pixels) is made from the detection, the landmark model runs on that region cut out of
 * the photo and turned upright (vki_image_transform.roi), its landmarks are mapped back
 * onto the photo, and the next frame's region comes from those landmarks (tracking)
 * until the landmark model reports the object gone. The rules below are the ones of
 * MediaPipe's graphs, with their constants, each cited by the .pbtxt it comes from
 * (paths in the google-ai-edge/mediapipe repository).
 *
 * MediaPipe computes on normalised image coordinates (0 .. 1 across the image) with the
 * image size at hand: rotations from keypoints multiplied by the image's width and height
 * (DetectionsToRectsCalculator::ComputeRotation), shifts and the squaring of a rectangle
 * by its width times the image width and height times the image height
 * (RectTransformationCalculator::TransformNormalizedRect). Every such step is the same
 * arithmetic on photo pixels, which is how these calls do it: a square ROI is square in
 * photo pixels, and so twice as tall as wide in normalised units on a 2:1 photo. */

/* Every solution and its name; the enum, vki_solution_name and vki_solution_from_name
 * come from it. NONE is no solution (the calls below refuse it). */
#define VKI_SOLUTION_LIST(X)                                                               \
    X(NONE, "none")                                                                        \
    X(FACE_MESH, "face_mesh")                                                              \
    X(HANDS, "hands")                                                                      \
    X(POSE, "pose")

#define VKI_SOLUTION_ENUM_(name, text) VKI_SOLUTION_##name,
typedef enum vki_solution { VKI_SOLUTION_LIST(VKI_SOLUTION_ENUM_) VKI_SOLUTION_COUNT } vki_solution;
#undef VKI_SOLUTION_ENUM_

/* The solution's name, "hands"; "none" for VKI_SOLUTION_NONE and for a value out of
 * range. A static string. Never fails. */
VKI_API const char *vki_solution_name(vki_solution s);
/* The solution a name (as vki_solution_name gives it, case-sensitive) stands for;
 * VKI_SOLUTION_NONE for NULL or an unknown name. Never fails. */
VKI_API vki_solution vki_solution_from_name(const char *name);

/* How a rule makes the axis-aligned rectangle it then rotates and transforms. */
typedef enum vki_roi_kind {
    /* The box: the detection's box, or the box of all the landmarks (MediaPipe's
     * DetectionsToRectsCalculator, after LandmarksToDetectionCalculator for landmarks). */
    VKI_ROI_BOX,
    /* The square centred on point start whose side is twice the distance from start to
     * end (AlignmentPointsRectsCalculator). */
    VKI_ROI_ALIGNMENT,
    /* MediaPipe's HandLandmarksToRectCalculator: see vki_roi_from_landmarks. */
    VKI_ROI_HAND_LANDMARKS
} vki_roi_kind;

/* One rule from points to a ROI, as MediaPipe's graphs chain a calculator making a
 * rectangle (kind) and RectTransformationCalculator:
 *   1. the axis-aligned rectangle, by kind;
 *   2. rotation = target_angle - atan2(-(y_end - y_start), x_end - x_start), brought into
 *      [-pi, pi) (MediaPipe's NormalizeRadians), points in photo pixels: 0 when the
 *      vector from start to end points along target_angle (0: rightwards, pi/2: up);
 *   3. the centre moves by shift_x * width along the rectangle's rotated x axis (cos r,
 *      sin r) and shift_y * height along its rotated y axis (-sin r, cos r); with
 *      square_long both sides become the longer one; then width *= scale_x, height *=
 *      scale_y. */
typedef struct vki_roi_rule {
    vki_roi_kind kind;
    int start, end;                    /* the rotation vector's keypoints (landmarks) */
    float target_angle;                /* radians, counter-clockwise from rightwards */
    float shift_x, shift_y;            /* fractions of width and height, rotated axes */
    float scale_x, scale_y;
    int square_long;
} vki_roi_rule;

/* What MediaPipe's graphs use for a solution.
 *   from_detection: face mesh face_landmark/face_detection_front_detection_to_roi.pbtxt
 *     (box; eyes, keypoints 0 -> 1; target 0; scale 1.5; square long); hands
 *     hand_landmark/palm_detection_detection_to_roi.pbtxt (box; wrist 0 -> middle finger
 *     base 2; target 90 degrees; shift_y -0.5; scale 2.6; square long); pose
 *     pose_landmark/pose_detection_to_roi.pbtxt (alignment 0 -> 1, target 90 degrees,
 *     scale 1.25, square long).
 *   from_landmarks: face mesh face_landmark/face_landmark_landmarks_to_roi.pbtxt (box of
 *     all landmarks; eye corners 33 -> 263; target 0; scale 1.5; square long); hands
 *     hand_landmark/hand_landmark_landmarks_to_roi.pbtxt (HandLandmarksToRectCalculator,
 *     kind VKI_ROI_HAND_LANDMARKS; wrist 0 -> middle finger base 9, blended with the
 *     index and ring finger bases; target 90 degrees; shift_y -0.1; scale 2.0; square
 *     long); pose pose_landmark/pose_landmarks_to_roi.pbtxt (alignment on the auxiliary
 *     landmarks 33 -> 34, target 90 degrees, scale 1.25, square long).
 *   num_points: the landmark model's points, what vki_roi_from_landmarks wants as n:
 *     face mesh 468 (478 with the attention model's irises, also taken), hands 21, pose
 *     39 (33 landmarks, then auxiliary points). min_points: the fewest it takes (264,
 *     21, 35).
 *   presence_threshold: the object is there when its presence probability is above it
 *     (MediaPipe's ThresholdingCalculator: strictly greater), 0.5 for all three: face
 *     mesh face_landmark/face_landmark_cpu.pbtxt (on sigmoid of the face flag: the model
 *     gives a logit, presence_is_logit 1), hands hand_landmark/hand_landmark_cpu.pbtxt
 *     and pose pose_landmark/tensors_to_pose_landmarks_and_segmentation.pbtxt (which
 *     pose_landmark/pose_landmark_by_roi_cpu.pbtxt runs; both flags are probabilities
 *     already, presence_is_logit 0).
 *   handedness_threshold: hands only (0 for the others): see vki_hand_is_right.
 *   max_objects: at most this many objects a frame, the graphs' defaults: num_faces 1
 *     (face_landmark/face_landmark_front_cpu.pbtxt), num_hands 2
 *     (hand_landmark/hand_landmark_tracking_cpu.pbtxt), one person for pose
 *     (pose_landmark/pose_landmark_cpu.pbtxt). The detector runs on a frame while fewer
 *     objects than this are tracked.
 *   heatmap_kernel, heatmap_min_confidence: pose only (0 for the others): the landmarks
 *     are refined on the model's heatmap output before they are projected
 *     (vki_landmarks_refine_from_heatmap), kernel 7
 *     (pose_landmark/tensors_to_pose_landmarks_and_segmentation.pbtxt), minimum
 *     confidence 0.5 (RefineLandmarksFromHeatmapCalculatorOptions' default).
 *   detection_min_score: the detector's minimum score in the solution, 0.5 for all three:
 *     MediaPipe's solution APIs (and its tasks) set the detector's min_score_thresh to
 *     their min_detection_confidence, 0.5 by default, which for pose replaces the 0.2 of
 *     pose_detection/pose_detection_cpu.pbtxt (vki_detector_options_for's, for the detector run
 *     alone). It matters beyond the count: weighted non-maximum suppression averages the
 *     boxes and keypoints of every detection above it, so the region moves with it (on
 *     astronaut.png pose's points move 1-2 px, and up to 20 px where the heatmap
 *     refinement then picks another cell).
 *   crop_border: what the landmark model's crop reads outside the photo (pass it as
 *     vki_image_transform.border with the roi): REPLICATE for all three, as the
 *     ImageToTensorCalculator of face_landmark_cpu.pbtxt, hand_landmark_cpu.pbtxt and
 *     pose_landmark_by_roi_cpu.pbtxt sets no border_mode and its default is REPLICATE.
 *     Hands' and pose's regions often reach past the photo: with ZERO borders instead,
 *     hand.jpg's points move up to 11 px. */
typedef struct vki_solution_defaults {
    vki_task detector;                 /* FACE_DETECTION, PALM_DETECTION, POSE_DETECTION */
    vki_task landmarks;                /* FACE_MESH, HAND_LANDMARKS, POSE_LANDMARKS */
    vki_roi_rule from_detection, from_landmarks;
    int num_points, min_points;
    float presence_threshold;
    int presence_is_logit;
    float handedness_threshold;
    int max_objects;
    int heatmap_kernel;
    float heatmap_min_confidence;
    float detection_min_score;
    vki_border crop_border;
} vki_solution_defaults;

/* Fills *out with the solution's settings above. VKI_ERROR_INVALID_ARGUMENT: out NULL, s
 * NONE or unknown. */
VKI_API vki_status vki_solution_defaults_for(vki_solution s, vki_solution_defaults *out);

/* Whether the landmark model's presence flag (its raw one-value output: a logit for face
 * mesh, a probability for hands and pose) says the object is there: 1 when the
 * probability is above the solution's presence_threshold, else 0 (NaN included); -1 with
 * a message for s NONE or unknown. */
VKI_API int vki_solution_present(vki_solution s, float flag);

/* Whether the hand model's handedness output (its raw [1,1] value, a probability) means
 * the person's right hand. MediaPipe gives the hand the label of handedness.txt's first
 * line, "Left", with this score, and "Right" with 1 - score, and keeps the higher
 * (TensorsToClassificationCalculator with binary_classification, in
 * hand_landmark/hand_landmark_cpu.pbtxt), assuming a mirrored image, as a front (selfie)
 * camera shows it (hand_landmark/hand_landmark_tracking_cpu.pbtxt says so). So on a
 * photo as the camera took it (mirrored 0) the hand is the person's right one when
 * handedness > 0.5, and on a mirrored picture (mirrored nonzero: MediaPipe's case) when
 * handedness < 0.5; exactly 0.5 counts as the left hand either way. Never fails. */
VKI_API int vki_hand_is_right(float handedness, int mirrored);

/* The ROI for the landmark model from a detection: det in photo pixels (as
 * vki_detections_to_photo leaves it: box corners and keypoints), the photo
 * photo_width x photo_height pixels (1 .. 16384 each). The rule is the solution's
 * from_detection (vki_solution_defaults): face mesh takes a face detection (keypoints 0
 * and 1 the eyes, as vki_decode_detections gives them), hands a palm detection
 * (keypoints 0 wrist, 2 middle finger base), pose a pose detection (MediaPipe's
 * pose_detection: keypoint 0 the middle of the hips, 1 a point whose distance from it
 * is half the body's size and direction the body's). *roi gets the centre and size in
 * photo pixels and the rotation in radians, clockwise on the photo, in [-pi, pi).
 * VKI_ERROR_INVALID_ARGUMENT: det or roi NULL, s NONE or unknown, a photo side out of
 * range, det with fewer keypoints than the rule needs (2, 3, 2) or more than
 * VKI_MAX_KEYPOINTS. */
VKI_API vki_status vki_roi_from_detection(vki_solution s, const vki_detection *det,
                                          int photo_width, int photo_height, vki_rect *roi);

/* The next frame's ROI from this frame's landmarks (MediaPipe's tracking): lm the n
 * landmarks in photo pixels that vki_landmarks_from_roi (or vki_decode_landmarks) made,
 * all the model's points, n as the model gives them: face mesh 468 or 478, hands 21, pose
 * 39 (the auxiliary points 33 and 34 are the ones used, so pass them). Only x and y are
 * read. By the solution's from_landmarks rule:
 *   face mesh: the axis-aligned box of all n points, rotated by the eye corners 33 ->
 *     263;
 *   hands: MediaPipe's HandLandmarksToRectCalculator on 12 of the 21 points (wrist 0,
 *     thumb 1, 2, 3 and the bases and first joints of the fingers 5, 6, 9, 10, 13, 14,
 *     17, 18): rotation from the wrist towards ((5 + 13) / 2 + 9) / 2, a blend of the
 *     index, middle and ring finger bases, target 90 degrees; then the box of the 12
 *     points in the rectangle's own rotated axes (about the centre of their axis-aligned
 *     box), its centre turned back onto the photo; then the transformation;
 *   pose: alignment on points 33 (centre) and 34 (size and direction).
 * MediaPipe smooths the landmarks first (pose_landmark/pose_landmark_cpu.pbtxt filters
 * them); these calls take the landmarks as they are given.
 * VKI_ERROR_INVALID_ARGUMENT: lm or roi NULL, s NONE or unknown, n below the solution's
 * min_points, a photo side out of 1 .. 16384. */
VKI_API vki_status vki_roi_from_landmarks(vki_solution s, const vki_landmark *lm, int n,
                                          int photo_width, int photo_height, vki_rect *roi);

/* A point of a crop taken at roi, in normalised crop coordinates (0 .. 1 across the
 * upright crop, x rightwards, y down), to photo pixels: dx = (nx - 0.5) * roi->width, dy
 * = (ny - 0.5) * roi->height, then px = x_center + dx cos r - dy sin r, py = y_center +
 * dx sin r + dy cos r, r = roi->rotation. The inverse of the crop vki_image_transform.roi
 * takes. MediaPipe's LandmarkProjectionCalculator, without the image's size, turns the
 * normalised offsets before scaling them by the rect's normalised width and height:
 * the same for a ROI square in pixels (as all three solutions' are), not for others. A
 * NULL roi writes 0 and leaves a message; px or py may be NULL. */
VKI_API void vki_roi_to_photo(const vki_rect *roi, float nx, float ny, float *px, float *py);

/* Decodes num_points landmarks of values_per_point floats each from raw, the landmark
 * model's points output in input pixels of an input_width x input_height input that a
 * crop at roi filled whole (no letterbox), to photo pixels: x and y through
 * vki_roi_to_photo at (x / input_width, y / input_height); z scaled like x, by
 * roi->width / input_width; visibility and presence as vki_decode_landmarks gives them
 * (sigmoid of raw[3] and raw[4] where values_per_point has them, else 1). Pass the
 * model's whole point count (pose 39) to have the auxiliary points for
 * vki_roi_from_landmarks.
 * VKI_ERROR_INVALID_ARGUMENT: raw, roi or out NULL, num_points <= 0, values_per_point not
 * 3 .. 5, an input side out of 1 .. 16384, roi's size not positive and finite. */
VKI_API vki_status vki_landmarks_from_roi(const float *raw, int num_points,
                                          int values_per_point, const vki_rect *roi,
                                          int input_width, int input_height,
                                          vki_landmark *out);

/* MediaPipe's RefineLandmarksFromHeatmapCalculator, in place on a landmark model's raw
 * output (num_points points of values_per_point floats, x and y in input pixels, as
 * vki_landmarks_from_roi takes it): heatmap is the model's heatmap output, logits laid
 * out [heatmap_height][heatmap_width][num_points]. For each point, the cell (col, row) =
 * (int)(x / input_width * heatmap_width), (int)(y / input_height * heatmap_height)
 * (truncated towards zero, as MediaPipe's int conversion); the kernel_size x
 * kernel_size window around it, clipped to the heatmap; weights sigmoid(logit). When the
 * largest weight is at least min_confidence, x and y become the weighted mean of the
 * window's cell indices over the heatmap's size, times the input's size (the cells'
 * corners, not their centres, as MediaPipe). A point whose column or row is negative or
 * whose column is past the width is left alone. MediaPipe never compares the row with
 * the height; it compares the column with it instead (`center_col >= hm_height`): a point
 * up to (kernel_size - 1) / 2 cells below the heatmap still takes the window's rows that
 * lie on it, and on a heatmap wider than tall a column at or past the height is left
 * alone. Both kept, to give MediaPipe's numbers (pose's heatmap is square). Pose passes
 * its 39 points (with the auxiliary ones) and the solution's heatmap_kernel and
 * heatmap_min_confidence.
 * VKI_ERROR_INVALID_ARGUMENT: raw or heatmap NULL, num_points <= 0, values_per_point not
 * 3 .. 5, a side out of 1 .. 16384, kernel_size not odd and positive. */
VKI_API vki_status vki_landmarks_refine_from_heatmap(float *raw, int num_points,
                                                     int values_per_point, int input_width,
                                                     int input_height, const float *heatmap,
                                                     int heatmap_width, int heatmap_height,
                                                     int kernel_size, float min_confidence);

#ifdef __cplusplus
}
#endif
#endif /* VKINFER_DECODE_H */
