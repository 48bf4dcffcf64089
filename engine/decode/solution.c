/* solution.c: the solution steps of vkinfer_decode.h between MediaPipe's detectors and its
 * landmark models, without the device: solution names and settings (the constants of
 * MediaPipe's graphs), the region of interest from a detection and from the previous
 * frame's landmarks, pose's refinement of the landmarks on its heatmap, the landmarks of a
 * crop back onto the photo, and the presence and handedness decisions.
 *
 * MediaPipe computes these steps on normalised image coordinates, multiplying by the
 * image's width and height wherever a length or an angle must be right on the image
 * (mediapipe/calculators/util/detections_to_rects_calculator.cc ComputeRotation,
 * rect_transformation_calculator.cc TransformNormalizedRect,
 * alignment_points_to_rects_calculator.cc, and
 * mediapipe/modules/hand_landmark/calculators/hand_landmarks_to_rect_calculator.cc).
 * Every one of those products is a length in pixels, so the same steps are done here on
 * photo pixels directly, in double, rounded to float at the end. */
#include "names.h"
#include "status.h"
#include "vkinfer_decode.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define SOLUTION_MAX_SIDE 16384
#define PI 3.14159265358979323846

/* ---- names -------------------------------------------------------------------------- */

#define SOLUTION_NAME_(name, text) text,
static const char *const solution_names[] = {VKI_SOLUTION_LIST(SOLUTION_NAME_)};
#undef SOLUTION_NAME_

const char *vki_solution_name(vki_solution s) {
    return vki_name_at(solution_names, VKI_SOLUTION_COUNT, s);
}

vki_solution vki_solution_from_name(const char *name) {
    return (vki_solution)vki_name_index(solution_names, VKI_SOLUTION_COUNT, name);
}

/* ---- settings ----------------------------------------------------------------------- */

#define DEG(d) ((float)((d) * PI / 180.0))

static const vki_solution_defaults defaults[VKI_SOLUTION_COUNT] = {
    [VKI_SOLUTION_FACE_MESH] = {
        .detector = VKI_TASK_FACE_DETECTION,
        .landmarks = VKI_TASK_FACE_MESH,
        /* mediapipe/modules/face_landmark/face_detection_front_detection_to_roi.pbtxt:
         * DetectionsToRectsCalculator with rotation_vector_start_keypoint_index 0,
         * rotation_vector_end_keypoint_index 1 (the eyes),
         * rotation_vector_target_angle_degrees 0 (the default conversion: the box);
         * RectTransformationCalculator scale_x 1.5, scale_y 1.5, square_long. */
        .from_detection = {VKI_ROI_BOX, 0, 1, DEG(0), 0.0f, 0.0f, 1.5f, 1.5f, 1},
        /* mediapipe/modules/face_landmark/face_landmark_landmarks_to_roi.pbtxt:
         * LandmarksToDetectionCalculator (the box of all landmarks), then
         * DetectionsToRectsCalculator with start 33 (left side of the left eye), end 263
         * (right side of the right eye), target 0 degrees; RectTransformationCalculator
         * scale_x 1.5, scale_y 1.5, square_long. */
        .from_landmarks = {VKI_ROI_BOX, 33, 263, DEG(0), 0.0f, 0.0f, 1.5f, 1.5f, 1},
        .num_points = 468,
        .min_points = 264,
        /* mediapipe/modules/face_landmark/face_landmark_cpu.pbtxt: TensorsToFloatsCalculator
         * with activation SIGMOID on the face flag, ThresholdingCalculator threshold 0.5. */
        .presence_threshold = 0.5f,
        .presence_is_logit = 1,
        /* face_landmark_front_cpu.pbtxt: num_faces, 1 when not given. */
        .max_objects = 1,
        /* face_detection_short_range.pbtxt's min_score_thresh, also the solution's
         * min_detection_confidence default. */
        .detection_min_score = 0.5f,
        /* The landmark graph's ImageToTensorCalculator sets no border_mode: REPLICATE. */
        .crop_border = VKI_BORDER_REPLICATE,
    },
    [VKI_SOLUTION_HANDS] = {
        .detector = VKI_TASK_PALM_DETECTION,
        .landmarks = VKI_TASK_HAND_LANDMARKS,
        /* mediapipe/modules/hand_landmark/palm_detection_detection_to_roi.pbtxt:
         * DetectionsToRectsCalculator with start 0 (centre of the wrist), end 2 (MCP of the
         * middle finger), target 90 degrees; RectTransformationCalculator scale_x 2.6,
         * scale_y 2.6, shift_y -0.5, square_long. */
        .from_detection = {VKI_ROI_BOX, 0, 2, DEG(90), 0.0f, -0.5f, 2.6f, 2.6f, 1},
        /* mediapipe/modules/hand_landmark/hand_landmark_landmarks_to_roi.pbtxt:
         * HandLandmarksToRectCalculator (its kTargetAngle is M_PI * 0.5), then
         * RectTransformationCalculator scale_x 2.0, scale_y 2.0, shift_y -0.1,
         * square_long. */
        .from_landmarks = {VKI_ROI_HAND_LANDMARKS, 0, 9, DEG(90), 0.0f, -0.1f, 2.0f, 2.0f, 1},
        .num_points = 21,
        .min_points = 21,
        /* mediapipe/modules/hand_landmark/hand_landmark_cpu.pbtxt: TensorsToFloatsCalculator
         * (no activation) on the hand flag, ThresholdingCalculator threshold 0.5; the
         * handedness through TensorsToClassificationCalculator, binary_classification,
         * label map mediapipe/modules/hand_landmark/handedness.txt ("Left", "Right"). */
        .presence_threshold = 0.5f,
        .presence_is_logit = 0,
        .handedness_threshold = 0.5f,
        /* hand_landmark_tracking_cpu.pbtxt: num_hands, 2 when not given. */
        .max_objects = 2,
        /* palm_detection_cpu.pbtxt's min_score_thresh, also the solution's
         * min_detection_confidence default. */
        .detection_min_score = 0.5f,
        /* The landmark graph's ImageToTensorCalculator sets no border_mode: REPLICATE. */
        .crop_border = VKI_BORDER_REPLICATE,
    },
    [VKI_SOLUTION_POSE] = {
        .detector = VKI_TASK_POSE_DETECTION,
        .landmarks = VKI_TASK_POSE_LANDMARKS,
        /* mediapipe/modules/pose_landmark/pose_detection_to_roi.pbtxt:
         * AlignmentPointsRectsCalculator with start 0, end 1, target 90 degrees;
         * RectTransformationCalculator scale_x 1.25, scale_y 1.25, square_long. */
        .from_detection = {VKI_ROI_ALIGNMENT, 0, 1, DEG(90), 0.0f, 0.0f, 1.25f, 1.25f, 1},
        /* mediapipe/modules/pose_landmark/pose_landmarks_to_roi.pbtxt on the auxiliary
         * landmarks, which pose_landmark/tensors_to_pose_landmarks_and_segmentation.pbtxt
         * splits off as points 33 .. 34 of the model's 39: AlignmentPointsRectsCalculator
         * with start 0, end 1 of those (33 and 34 here), target 90 degrees;
         * RectTransformationCalculator scale_x 1.25, scale_y 1.25, square_long. */
        .from_landmarks = {VKI_ROI_ALIGNMENT, 33, 34, DEG(90), 0.0f, 0.0f, 1.25f, 1.25f, 1},
        .num_points = 39,
        .min_points = 35,
        /* mediapipe/modules/pose_landmark/tensors_to_pose_landmarks_and_segmentation.pbtxt
         * (run by pose_landmark/pose_landmark_by_roi_cpu.pbtxt): TensorsToFloatsCalculator
         * (no activation) on the pose flag, ThresholdingCalculator threshold 0.5. */
        .presence_threshold = 0.5f,
        .presence_is_logit = 0,
        /* pose_landmark_cpu.pbtxt tracks one person: it keeps the first pose detection
         * (SplitDetectionVectorCalculator, range 0 to 1). */
        .max_objects = 1,
        /* tensors_to_pose_landmarks_and_segmentation.pbtxt: RefineLandmarksFromHeatmap-
         * Calculator kernel_size 7; min_confidence_to_refine its default, 0.5. */
        .heatmap_kernel = 7,
        .heatmap_min_confidence = 0.5f,
        /* The solution's min_detection_confidence default, which replaces
         * pose_detection_cpu.pbtxt's min_score_thresh 0.2 (see vkinfer_decode.h). */
        .detection_min_score = 0.5f,
        /* The landmark graph's ImageToTensorCalculator sets no border_mode: REPLICATE. */
        .crop_border = VKI_BORDER_REPLICATE,
    },
};

static int solution_ok(vki_solution s) {
    return (unsigned)s < (unsigned)VKI_SOLUTION_COUNT && s != VKI_SOLUTION_NONE;
}

static vki_status bad_solution(const char *call, vki_solution s) {
    return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: solution %d is not face_mesh, hands or pose",
                    call, (int)s);
}

vki_status vki_solution_defaults_for(vki_solution s, vki_solution_defaults *out) {
    static const char call[] = "vki_solution_defaults_for";
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if (!solution_ok(s)) return bad_solution(call, s);
    *out = defaults[s];
    return VKI_OK;
}

int vki_solution_present(vki_solution s, float flag) {
    if (!solution_ok(s)) return bad_solution("vki_solution_present", s), -1;
    const vki_solution_defaults *d = &defaults[s];
    const float p = d->presence_is_logit ? vki_sigmoid(flag) : flag;
    /* ThresholdingCalculator accepts score > threshold; NaN compares false. */
    return p > d->presence_threshold;
}

int vki_hand_is_right(float handedness, int mirrored) {
    /* MediaPipe's "Left" (handedness.txt line 0) scores handedness itself, on a mirrored
     * image; the hand MediaPipe calls left on a mirrored image is the person's right. */
    const float t = defaults[VKI_SOLUTION_HANDS].handedness_threshold;
    return mirrored ? handedness < t : handedness > t;
}

/* ---- regions of interest ------------------------------------------------------------ */

/* MediaPipe's NormalizeRadians: angle - 2 pi floor((angle + pi) / (2 pi)), in [-pi, pi). */
static double normalize_radians(double a) { return a - 2.0 * PI * floor((a + PI) / (2.0 * PI)); }

/* DetectionsToRectsCalculator::ComputeRotation on points in pixels (its normalised
 * coordinates times the image size). */
static double rotation_of(double target, double x0, double y0, double x1, double y1) {
    return normalize_radians(target - atan2(-(y1 - y0), x1 - x0));
}

/* RectTransformationCalculator::TransformNormalizedRect, its products with the image size
 * being these pixel lengths: the shift along the rotated axes, square_long, the scale. */
static void transform(const vki_roi_rule *r, double xc, double yc, double w, double h,
                      double rotation, vki_rect *roi) {
    const double c = cos(rotation), s = sin(rotation);
    xc += w * r->shift_x * c - h * r->shift_y * s;
    yc += w * r->shift_x * s + h * r->shift_y * c;
    if (r->square_long) w = h = w > h ? w : h;
    roi->x_center = (float)xc;
    roi->y_center = (float)yc;
    roi->width = (float)(w * r->scale_x);
    roi->height = (float)(h * r->scale_y);
    roi->rotation = (float)rotation;
}

/* AlignmentPointsRectsCalculator: centred on (x0, y0), a square of side twice the
 * distance to (x1, y1). */
static void alignment(const vki_roi_rule *r, double x0, double y0, double x1, double y1,
                      vki_rect *roi) {
    const double side = 2.0 * sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0));
    transform(r, x0, y0, side, side, rotation_of(r->target_angle, x0, y0, x1, y1), roi);
}

static vki_status check_photo(const char *call, int photo_width, int photo_height) {
    if (photo_width < 1 || photo_width > SOLUTION_MAX_SIDE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: photo_width %d is not 1 .. %d", call,
                        photo_width, SOLUTION_MAX_SIDE);
    if (photo_height < 1 || photo_height > SOLUTION_MAX_SIDE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: photo_height %d is not 1 .. %d", call,
                        photo_height, SOLUTION_MAX_SIDE);
    return VKI_OK;
}

vki_status vki_roi_from_detection(vki_solution s, const vki_detection *det, int photo_width,
                                  int photo_height, vki_rect *roi) {
    static const char call[] = "vki_roi_from_detection";
    if (!solution_ok(s)) return bad_solution(call, s);
    if (!det) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: det is NULL", call);
    if (!roi) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: roi is NULL", call);
    vki_status st = check_photo(call, photo_width, photo_height);
    if (st != VKI_OK) return st;
    const vki_roi_rule *r = &defaults[s].from_detection;
    const int need = (r->start > r->end ? r->start : r->end) + 1;
    if (det->num_keypoints < need || det->num_keypoints > VKI_MAX_KEYPOINTS)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT,
                        "%s: det has %d keypoints, %s needs %d .. %d", call,
                        det->num_keypoints, vki_solution_name(s), need, VKI_MAX_KEYPOINTS);
    const double x0 = det->keypoints[r->start][0], y0 = det->keypoints[r->start][1];
    const double x1 = det->keypoints[r->end][0], y1 = det->keypoints[r->end][1];
    if (r->kind == VKI_ROI_ALIGNMENT) {
        alignment(r, x0, y0, x1, y1, roi);
    } else {
        /* DetectionsToRectsCalculator's RectFromBox: centre xmin + width / 2. */
        const double w = (double)det->box[2] - det->box[0], h = (double)det->box[3] - det->box[1];
        transform(r, det->box[0] + w / 2.0, det->box[1] + h / 2.0, w, h,
                  rotation_of(r->target_angle, x0, y0, x1, y1), roi);
    }
    return VKI_OK;
}

/* HandLandmarksToRectCalculator (mediapipe/modules/hand_landmark/calculators/
 * hand_landmarks_to_rect_calculator.cc) on the 21 hand landmarks, then the transform. */
static void hand_rect(const vki_roi_rule *r, const vki_landmark *lm, vki_rect *roi) {
    /* Its kPartialLandmarkIndices: the wrist, the thumb's first three points, and the
     * first two points (base and first joint) of each finger. */
    static const int keep[] = {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18};
    const int n = (int)(sizeof keep / sizeof keep[0]);
    /* Its kIndexFingerPIPJoint 4, kMiddleFingerPIPJoint 6, kRingFingerPIPJoint 8 index
     * the partial list: the bases (MCP) 5, 9, 13 of the index, middle and ring fingers.
     * The end point: the middle finger's base averaged with the mean of the other two. */
    const double x0 = lm[0].x, y0 = lm[0].y;
    const double x1 = (((double)lm[5].x + lm[13].x) / 2.0 + lm[9].x) / 2.0;
    const double y1 = (((double)lm[5].y + lm[13].y) / 2.0 + lm[9].y) / 2.0;
    const double rotation = rotation_of(r->target_angle, x0, y0, x1, y1);
    const double reverse = normalize_radians(-rotation);

    /* The centre of the points' axis-aligned box. (MediaPipe starts its maxima at
     * numeric_limits<float>::min(), the smallest positive float, so a hand wholly left of
     * or above the image would get a maximum of about 0 there; here the maxima start at
     * -infinity. Every point on the photo or right of / below its corner agrees.) */
    double min_x = INFINITY, min_y = INFINITY, max_x = -INFINITY, max_y = -INFINITY;
    for (int i = 0; i < n; i++) {
        const vki_landmark *p = &lm[keep[i]];
        min_x = fmin(min_x, p->x);
        max_x = fmax(max_x, p->x);
        min_y = fmin(min_y, p->y);
        max_y = fmax(max_y, p->y);
    }
    const double ax = (min_x + max_x) / 2.0, ay = (min_y + max_y) / 2.0;

    /* The box of the points turned by -rotation about that centre: the rectangle in its
     * own upright axes. */
    const double cr = cos(reverse), sr = sin(reverse);
    min_x = min_y = INFINITY;
    max_x = max_y = -INFINITY;
    for (int i = 0; i < n; i++) {
        const double ox = lm[keep[i]].x - ax, oy = lm[keep[i]].y - ay;
        const double px = ox * cr - oy * sr, py = ox * sr + oy * cr;
        min_x = fmin(min_x, px);
        max_x = fmax(max_x, px);
        min_y = fmin(min_y, py);
        max_y = fmax(max_y, py);
    }
    /* Its centre turned back by rotation onto the photo. */
    const double pcx = (min_x + max_x) / 2.0, pcy = (min_y + max_y) / 2.0;
    const double c = cos(rotation), s = sin(rotation);
    transform(r, pcx * c - pcy * s + ax, pcx * s + pcy * c + ay, max_x - min_x, max_y - min_y,
              rotation, roi);
}

vki_status vki_roi_from_landmarks(vki_solution s, const vki_landmark *lm, int n,
                                  int photo_width, int photo_height, vki_rect *roi) {
    static const char call[] = "vki_roi_from_landmarks";
    if (!solution_ok(s)) return bad_solution(call, s);
    if (!lm) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: lm is NULL", call);
    if (!roi) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: roi is NULL", call);
    const vki_solution_defaults *d = &defaults[s];
    if (n < d->min_points)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: n is %d, %s needs at least %d points",
                        call, n, vki_solution_name(s), d->min_points);
    vki_status st = check_photo(call, photo_width, photo_height);
    if (st != VKI_OK) return st;
    const vki_roi_rule *r = &d->from_landmarks;
    const double x0 = lm[r->start].x, y0 = lm[r->start].y;
    const double x1 = lm[r->end].x, y1 = lm[r->end].y;
    switch (r->kind) {
    case VKI_ROI_ALIGNMENT: alignment(r, x0, y0, x1, y1, roi); break;
    case VKI_ROI_HAND_LANDMARKS: hand_rect(r, lm, roi); break;
    case VKI_ROI_BOX: {
        /* LandmarksToDetectionCalculator: the box of all the landmarks (its maxima start
         * at the smallest positive float, here at -infinity, as in hand_rect). */
        double min_x = INFINITY, min_y = INFINITY, max_x = -INFINITY, max_y = -INFINITY;
        for (int i = 0; i < n; i++) {
            min_x = fmin(min_x, lm[i].x);
            max_x = fmax(max_x, lm[i].x);
            min_y = fmin(min_y, lm[i].y);
            max_y = fmax(max_y, lm[i].y);
        }
        const double w = max_x - min_x, h = max_y - min_y;
        transform(r, min_x + w / 2.0, min_y + h / 2.0, w, h,
                  rotation_of(r->target_angle, x0, y0, x1, y1), roi);
        break;
    }
    }
    return VKI_OK;
}

/* ---- landmarks of a crop ------------------------------------------------------------ */

static void roi_point(const vki_rect *roi, double nx, double ny, float *px, float *py) {
    const double dx = (nx - 0.5) * roi->width, dy = (ny - 0.5) * roi->height;
    const double c = cos(roi->rotation), s = sin(roi->rotation);
    if (px) *px = (float)(roi->x_center + dx * c - dy * s);
    if (py) *py = (float)(roi->y_center + dx * s + dy * c);
}

void vki_roi_to_photo(const vki_rect *roi, float nx, float ny, float *px, float *py) {
    if (!roi) {
        vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_roi_to_photo: roi is NULL");
        if (px) *px = 0.0f;
        if (py) *py = 0.0f;
        return;
    }
    roi_point(roi, nx, ny, px, py);
}

vki_status vki_landmarks_from_roi(const float *raw, int num_points, int values_per_point,
                                  const vki_rect *roi, int input_width, int input_height,
                                  vki_landmark *out) {
    static const char call[] = "vki_landmarks_from_roi";
    if (!raw) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: raw is NULL", call);
    if (!roi) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: roi is NULL", call);
    if (!out) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: out is NULL", call);
    if (num_points <= 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: num_points is %d", call, num_points);
    if (values_per_point < 3 || values_per_point > 5)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: values_per_point is %d, need 3 .. 5",
                        call, values_per_point);
    if (input_width < 1 || input_width > SOLUTION_MAX_SIDE || input_height < 1 ||
        input_height > SOLUTION_MAX_SIDE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: input size %dx%d is not 1 .. %d a side",
                        call, input_width, input_height, SOLUTION_MAX_SIDE);
    if (!(roi->width > 0.0f) || !(roi->height > 0.0f) || !isfinite(roi->width) ||
        !isfinite(roi->height) || !isfinite(roi->x_center) || !isfinite(roi->y_center) ||
        !isfinite(roi->rotation))
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT,
                        "%s: roi (centre %g,%g, size %gx%g, rotation %g) is not a positive, "
                        "finite rectangle",
                        call, (double)roi->x_center, (double)roi->y_center, (double)roi->width,
                        (double)roi->height, (double)roi->rotation);
    /* vki_decode_landmarks through the identity letterbox (the crop fills the input)
     * gives input pixels, z as it is, visibility and presence; then onto the photo. */
    const vki_letterbox whole = vki_letterbox_fit(input_width, input_height, input_width,
                                                  input_height, 0);
    vki_status st = vki_decode_landmarks(raw, num_points, values_per_point, &whole, out);
    if (st != VKI_OK) return st;
    const double z_scale = (double)roi->width / input_width;
    for (int i = 0; i < num_points; i++) {
        vki_landmark *l = &out[i];
        roi_point(roi, (double)l->x / input_width, (double)l->y / input_height, &l->x, &l->y);
        l->z = (float)(l->z * z_scale);
    }
    return VKI_OK;
}

vki_status vki_landmarks_refine_from_heatmap(float *raw, int num_points, int values_per_point,
                                             int input_width, int input_height,
                                             const float *heatmap, int heatmap_width,
                                             int heatmap_height, int kernel_size,
                                             float min_confidence) {
    static const char call[] = "vki_landmarks_refine_from_heatmap";
    if (!raw) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: raw is NULL", call);
    if (!heatmap) return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: heatmap is NULL", call);
    if (num_points <= 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: num_points is %d", call, num_points);
    if (values_per_point < 3 || values_per_point > 5)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: values_per_point is %d, need 3 .. 5",
                        call, values_per_point);
    const int sides[4] = {input_width, input_height, heatmap_width, heatmap_height};
    for (int i = 0; i < 4; i++)
        if (sides[i] < 1 || sides[i] > SOLUTION_MAX_SIDE)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT,
                            "%s: input %dx%d, heatmap %dx%d: a side is not 1 .. %d", call,
                            input_width, input_height, heatmap_width, heatmap_height,
                            SOLUTION_MAX_SIDE);
    if (kernel_size < 1 || kernel_size % 2 == 0)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: kernel_size %d is not odd and positive",
                        call, kernel_size);
    const int half = (kernel_size - 1) / 2, row_size = heatmap_width * num_points;
    for (int p = 0; p < num_points; p++) {
        float *x = &raw[(size_t)p * (size_t)values_per_point], *y = x + 1;
        float fx = *x / (float)input_width * (float)heatmap_width;
        float fy = *y / (float)input_height * (float)heatmap_height;
        /* The int conversion's range first (NaN and huge values stay as they are). */
        if (!(fx > -1.0f && fx < (float)heatmap_width && fy > -1.0f && fy < 2.0f * SOLUTION_MAX_SIDE))
            continue;
        const int col = (int)fx, row = (int)fy;
        /* MediaPipe's test, `col >= height` included (see vkinfer_decode.h). */
        if (col < 0 || col >= heatmap_width || row < 0 || col >= heatmap_height) continue;
        const int c0 = col - half > 0 ? col - half : 0;
        const int c1 = col + half + 1 < heatmap_width ? col + half + 1 : heatmap_width;
        const int r0 = row - half > 0 ? row - half : 0;
        const int r1 = row + half + 1 < heatmap_height ? row + half + 1 : heatmap_height;
        float sum = 0, wc = 0, wr = 0, top = 0;
        for (int r = r0; r < r1; r++)
            for (int c = c0; c < c1; c++) {
                const float w = vki_sigmoid(heatmap[(size_t)r * (size_t)row_size +
                                                    (size_t)c * (size_t)num_points + (size_t)p]);
                sum += w;
                top = w > top ? w : top;
                wc += (float)c * w;
                wr += (float)r * w;
            }
        if (top >= min_confidence && sum > 0) {
            *x = wc / (float)heatmap_width / sum * (float)input_width;
            *y = wr / (float)heatmap_height / sum * (float)input_height;
        }
    }
    return VKI_OK;
}
