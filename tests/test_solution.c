/* test_solution.c: the solution steps of vkinfer_decode.h (engine/decode/solution.c): the
 * region of interest from a detection and from landmarks by MediaPipe's rules, each
 * checked against numbers worked out by hand from MediaPipe's formulas (written out
 * beside each case), on square-ish and non-square photos; the landmarks of a crop mapped
 * back onto the photo, by hand and by a round trip from points placed on the photo; the
 * settings, presence and handedness decisions; and bad arguments.
 *
 * Tolerances. The calls compute in double and round to float at the end, so a result in
 * pixels of magnitude up to about 1000 carries at most a few float ulps (6e-5 at 512,
 * 1.2e-4 at 1024): 1e-3 px is well above that and far below any mistake a rule could make
 * (the smallest difference between the rules tested is pixels). Angles come through atan2
 * and a float rounding: 1e-6 rad is four float ulps at pi. */
#include "vkinfer_decode.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define PX_TOL 1e-3f
#define ANGLE_TOL 1e-6f
#define PI_F 3.14159265358979323846

static void expect_error(const char *needle) {
    cr_expect(strstr(vki_last_error(), needle) != NULL, "message '%s' lacks '%s'",
              vki_last_error(), needle);
}

/* The difference of two angles brought into [-pi, pi], so that -pi and pi agree. */
static double angle_diff(double a, double b) {
    double d = fmod(a - b, 2.0 * PI_F);
    if (d > PI_F) d -= 2.0 * PI_F;
    if (d < -PI_F) d += 2.0 * PI_F;
    return d;
}

static void expect_rect(const vki_rect *r, double xc, double yc, double w, double h,
                        double rotation, const char *what) {
    cr_expect(fabs(r->x_center - xc) <= PX_TOL, "%s: x_center %.6f, want %.6f", what,
              (double)r->x_center, xc);
    cr_expect(fabs(r->y_center - yc) <= PX_TOL, "%s: y_center %.6f, want %.6f", what,
              (double)r->y_center, yc);
    cr_expect(fabs(r->width - w) <= PX_TOL, "%s: width %.6f, want %.6f", what,
              (double)r->width, w);
    cr_expect(fabs(r->height - h) <= PX_TOL, "%s: height %.6f, want %.6f", what,
              (double)r->height, h);
    cr_expect(fabs(angle_diff(r->rotation, rotation)) <= ANGLE_TOL,
              "%s: rotation %.9f, want %.9f", what, (double)r->rotation, rotation);
    cr_expect(r->rotation >= -PI_F - ANGLE_TOL && r->rotation < PI_F + ANGLE_TOL,
              "%s: rotation %.9f outside [-pi, pi)", what, (double)r->rotation);
}

/* A detection with box (x0, y0)-(x1, y1) and k keypoints from pts (x, y pairs), photo
 * pixels. */
/* A detection of k keypoints, the first `given` of them from pts (the rest 0). */
static vki_detection detection(float x0, float y0, float x1, float y1, int k,
                               const float (*pts)[2], int given) {
    vki_detection d;
    memset(&d, 0, sizeof d);
    d.score = 0.9f;
    d.box[0] = x0;
    d.box[1] = y0;
    d.box[2] = x1;
    d.box[3] = y1;
    d.num_keypoints = k;
    for (int i = 0; i < k && i < given; i++) {
        d.keypoints[i][0] = pts[i][0];
        d.keypoints[i][1] = pts[i][1];
    }
    return d;
}
#define DETECTION(x0, y0, x1, y1, k, pts) \
    detection(x0, y0, x1, y1, k, pts, (int)(sizeof(pts) / sizeof((pts)[0])))

/* ---- names and settings ------------------------------------------------------------- */

Test(solution, names) {
    cr_expect_str_eq(vki_solution_name(VKI_SOLUTION_FACE_MESH), "face_mesh");
    cr_expect_str_eq(vki_solution_name(VKI_SOLUTION_HANDS), "hands");
    cr_expect_str_eq(vki_solution_name(VKI_SOLUTION_POSE), "pose");
    cr_expect_str_eq(vki_solution_name(VKI_SOLUTION_NONE), "none");
    cr_expect_str_eq(vki_solution_name(VKI_SOLUTION_COUNT), "none");
    cr_expect_str_eq(vki_solution_name((vki_solution)-1), "none");
    for (int s = 0; s < VKI_SOLUTION_COUNT; s++)
        cr_expect_eq(vki_solution_from_name(vki_solution_name((vki_solution)s)), s, "%d", s);
    cr_expect_eq(vki_solution_from_name("Hands"), VKI_SOLUTION_NONE);
    cr_expect_eq(vki_solution_from_name(NULL), VKI_SOLUTION_NONE);
}

/* The constants, as the .pbtxt files cited in vkinfer_decode.h and solution.c give them.
 * They are exact binary fractions or the float nearest a decimal, compared for equality
 * with that same float; angles with ANGLE_TOL. */
Test(solution, defaults) {
    vki_solution_defaults d;
    /* face_landmark/face_detection_front_detection_to_roi.pbtxt,
     * face_landmark/face_landmark_landmarks_to_roi.pbtxt, face_landmark/face_landmark_cpu.pbtxt */
    cr_assert_eq(vki_solution_defaults_for(VKI_SOLUTION_FACE_MESH, &d), VKI_OK);
    cr_expect_eq(d.detector, VKI_TASK_FACE_DETECTION);
    cr_expect_eq(d.landmarks, VKI_TASK_FACE_MESH);
    cr_expect_eq(d.from_detection.kind, VKI_ROI_BOX);
    cr_expect_eq(d.from_detection.start, 0);
    cr_expect_eq(d.from_detection.end, 1);
    cr_expect(fabsf(d.from_detection.target_angle) <= ANGLE_TOL);
    cr_expect_eq(d.from_detection.scale_x, 1.5f);
    cr_expect_eq(d.from_detection.scale_y, 1.5f);
    cr_expect_eq(d.from_detection.shift_y, 0.0f);
    cr_expect_eq(d.from_detection.square_long, 1);
    cr_expect_eq(d.from_landmarks.kind, VKI_ROI_BOX);
    cr_expect_eq(d.from_landmarks.start, 33);
    cr_expect_eq(d.from_landmarks.end, 263);
    cr_expect_eq(d.from_landmarks.scale_x, 1.5f);
    cr_expect_eq(d.from_landmarks.square_long, 1);
    cr_expect_eq(d.num_points, 468);
    cr_expect_eq(d.min_points, 264);
    cr_expect_eq(d.presence_threshold, 0.5f);
    cr_expect_eq(d.presence_is_logit, 1);
    cr_expect_eq(d.handedness_threshold, 0.0f);
    cr_expect_eq(d.max_objects, 1);

    /* hand_landmark/palm_detection_detection_to_roi.pbtxt,
     * hand_landmark/hand_landmark_landmarks_to_roi.pbtxt, hand_landmark/hand_landmark_cpu.pbtxt */
    cr_assert_eq(vki_solution_defaults_for(VKI_SOLUTION_HANDS, &d), VKI_OK);
    cr_expect_eq(d.detector, VKI_TASK_PALM_DETECTION);
    cr_expect_eq(d.landmarks, VKI_TASK_HAND_LANDMARKS);
    cr_expect_eq(d.from_detection.kind, VKI_ROI_BOX);
    cr_expect_eq(d.from_detection.start, 0);
    cr_expect_eq(d.from_detection.end, 2);
    cr_expect(fabs(d.from_detection.target_angle - PI_F / 2) <= ANGLE_TOL);
    cr_expect_eq(d.from_detection.shift_x, 0.0f);
    cr_expect_eq(d.from_detection.shift_y, -0.5f);
    cr_expect_eq(d.from_detection.scale_x, 2.6f);
    cr_expect_eq(d.from_detection.scale_y, 2.6f);
    cr_expect_eq(d.from_detection.square_long, 1);
    cr_expect_eq(d.from_landmarks.kind, VKI_ROI_HAND_LANDMARKS);
    cr_expect_eq(d.from_landmarks.start, 0);
    cr_expect_eq(d.from_landmarks.end, 9);
    cr_expect(fabs(d.from_landmarks.target_angle - PI_F / 2) <= ANGLE_TOL);
    cr_expect_eq(d.from_landmarks.shift_y, -0.1f);
    cr_expect_eq(d.from_landmarks.scale_x, 2.0f);
    cr_expect_eq(d.from_landmarks.scale_y, 2.0f);
    cr_expect_eq(d.from_landmarks.square_long, 1);
    cr_expect_eq(d.num_points, 21);
    cr_expect_eq(d.min_points, 21);
    cr_expect_eq(d.presence_threshold, 0.5f);
    cr_expect_eq(d.presence_is_logit, 0);
    cr_expect_eq(d.handedness_threshold, 0.5f);
    cr_expect_eq(d.max_objects, 2);

    /* pose_landmark/pose_detection_to_roi.pbtxt, pose_landmark/pose_landmarks_to_roi.pbtxt,
     * pose_landmark/tensors_to_pose_landmarks_and_segmentation.pbtxt */
    cr_assert_eq(vki_solution_defaults_for(VKI_SOLUTION_POSE, &d), VKI_OK);
    cr_expect_eq(d.detector, VKI_TASK_POSE_DETECTION);
    cr_expect_eq(d.landmarks, VKI_TASK_POSE_LANDMARKS);
    cr_expect_eq(d.from_detection.kind, VKI_ROI_ALIGNMENT);
    cr_expect_eq(d.from_detection.start, 0);
    cr_expect_eq(d.from_detection.end, 1);
    cr_expect(fabs(d.from_detection.target_angle - PI_F / 2) <= ANGLE_TOL);
    cr_expect_eq(d.from_detection.scale_x, 1.25f);
    cr_expect_eq(d.from_detection.scale_y, 1.25f);
    cr_expect_eq(d.from_detection.square_long, 1);
    cr_expect_eq(d.from_landmarks.kind, VKI_ROI_ALIGNMENT);
    cr_expect_eq(d.from_landmarks.start, 33);
    cr_expect_eq(d.from_landmarks.end, 34);
    cr_expect_eq(d.from_landmarks.scale_x, 1.25f);
    cr_expect_eq(d.num_points, 39);
    cr_expect_eq(d.min_points, 35);
    cr_expect_eq(d.presence_threshold, 0.5f);
    cr_expect_eq(d.presence_is_logit, 0);
    cr_expect_eq(d.max_objects, 1);
    cr_expect_eq(d.heatmap_kernel, 7);
    cr_expect_eq(d.heatmap_min_confidence, 0.5f);

    /* Only pose refines on a heatmap; every solution's detector keeps scores >= 0.5. */
    for (int s = 1; s < VKI_SOLUTION_COUNT; s++) {
        cr_assert_eq(vki_solution_defaults_for((vki_solution)s, &d), VKI_OK);
        cr_expect_eq(d.heatmap_kernel, s == VKI_SOLUTION_POSE ? 7 : 0, "%d", s);
        cr_expect_eq(d.detection_min_score, 0.5f, "%d", s);
        cr_expect_eq(d.crop_border, VKI_BORDER_REPLICATE, "%d", s);
    }

    /* The landmark counts agree with the tasks' (pose: 33 landmarks + auxiliary points). */
    for (int s = 1; s < VKI_SOLUTION_COUNT; s++) {
        cr_assert_eq(vki_solution_defaults_for((vki_solution)s, &d), VKI_OK);
        cr_expect_geq(d.num_points, vki_task_landmark_count(d.landmarks), "%d", s);
        cr_expect_geq(d.num_points, d.min_points, "%d", s);
    }
}

/* ThresholdingCalculator accepts a probability strictly above 0.5; the face flag is a
 * logit (sigmoid(0) = 0.5 exactly, so logit 0 is not a face). */
Test(solution, presence) {
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_FACE_MESH, 0.0f), 0);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_FACE_MESH, 0.01f), 1);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_FACE_MESH, -3.0f), 0);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_FACE_MESH, 0.3f), 1);   /* a logit */
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_HANDS, 0.5f), 0);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_HANDS, 0.51f), 1);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_HANDS, 0.3f), 0);     /* a probability */
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_POSE, 0.5f), 0);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_POSE, 0.9f), 1);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_POSE, NAN), 0);
    cr_expect_eq(vki_solution_present(VKI_SOLUTION_NONE, 0.9f), -1);
    expect_error("vki_solution_present");
}

/* handedness.txt: "Left" takes the score, on a mirrored image; unmirrored, the same hand
 * is the person's right. */
Test(solution, handedness) {
    cr_expect_eq(vki_hand_is_right(0.9f, 0), 1);
    cr_expect_eq(vki_hand_is_right(0.1f, 0), 0);
    cr_expect_eq(vki_hand_is_right(0.9f, 1), 0);
    cr_expect_eq(vki_hand_is_right(0.1f, 1), 1);
    cr_expect_eq(vki_hand_is_right(0.5f, 0), 0);
    cr_expect_eq(vki_hand_is_right(0.5f, 1), 0);
}

/* ---- ROI from a detection ----------------------------------------------------------- */

Test(solution, face_from_detection) {
    vki_rect r;
    /* 640x480 photo, eyes level at (280, 200) and (360, 200), box (240,160)-(400,320):
     * rotation = 0 - atan2(-(200 - 200), 360 - 280) = 0; centre (320, 240); 160x160
     * squared 160, times 1.5: 240. */
    const float level[2][2] = {{280, 200}, {360, 200}};
    vki_detection d = DETECTION(240, 160, 400, 320, 6, level);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_FACE_MESH, &d, 640, 480, &r), VKI_OK,
                 "%s", vki_last_error());
    expect_rect(&r, 320, 240, 240, 240, 0, "level face");

    /* Eyes (300, 200) -> (340, 240), the line falling to the right on screen: rotation =
     * 0 - atan2(-40, 40) = +pi/4 (clockwise). Box (240,160)-(400,300): centre (320, 230),
     * 160x140, long side 160, times 1.5: 240. */
    const float tilted[2][2] = {{300, 200}, {340, 240}};
    d = DETECTION(240, 160, 400, 300, 2, tilted);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_FACE_MESH, &d, 640, 480, &r), VKI_OK);
    expect_rect(&r, 320, 230, 240, 240, PI_F / 4, "tilted face");
}

/* A 1280x480 photo, where normalised units differ by 8/3 between x and y. Eyes at
 * normalised (0.4, 0.5) and (0.5, 0.6) = pixels (512, 240) and (640, 288): MediaPipe
 * multiplies by the image size before atan2, so rotation = -atan2(-48, 128) =
 * atan(0.375) = 0.358770670 (pi/4 on the normalised numbers would be wrong). The box
 * (590,140)-(690,340) is 100x200 pixels: square_long takes max(w_n * 1280, h_n * 480) =
 * 200 px, both sides 200 px (0.15625 and 0.41667 normalised), times 1.5: 300x300 px. */
Test(solution, face_non_square_photo) {
    const float eyes[2][2] = {{512, 240}, {640, 288}};
    vki_detection d = DETECTION(590, 140, 690, 340, 6, eyes);
    vki_rect r;
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_FACE_MESH, &d, 1280, 480, &r), VKI_OK);
    expect_rect(&r, 640, 240, 300, 300, atan(0.375), "face on 1280x480");
}

/* Palm boxes (250,190)-(350,310): 100 wide, 120 tall, centre (300, 250); the ROI is 120
 * squared times 2.6 = 312 a side, its centre moved by shift_y -0.5 of the height (60 px)
 * along the rectangle's rotated y axis (-sin r, cos r), i.e. 60 px towards the fingers. */
Test(solution, palm_from_detection) {
    vki_rect r;
    /* Fingers up: wrist (300, 300), middle finger base (300, 200): rotation = pi/2 -
     * atan2(100, 0) = 0; centre (300, 250 - 60). */
    const float up[3][2] = {{300, 300}, {280, 210}, {300, 200}};
    vki_detection d = DETECTION(250, 190, 350, 310, 3, up);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 640, 480, &r), VKI_OK,
                 "%s", vki_last_error());
    expect_rect(&r, 300, 190, 312, 312, 0, "palm up");

    /* Fingers pointing right: base (400, 250): rotation = pi/2 - atan2(0, 100) = +pi/2
     * (an upright hand turned a quarter clockwise); x_shift = -120 * -0.5 * sin(pi/2) =
     * +60: centre (360, 250). */
    const float right[3][2] = {{300, 250}, {0, 0}, {400, 250}};
    d = DETECTION(250, 190, 350, 310, 7, right);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 640, 480, &r), VKI_OK);
    expect_rect(&r, 360, 250, 312, 312, PI_F / 2, "palm right");

    /* Fingers pointing left: base (200, 250): rotation = pi/2 - atan2(0, -100) = -pi/2;
     * centre (240, 250). */
    const float left[3][2] = {{300, 250}, {0, 0}, {200, 250}};
    d = DETECTION(250, 190, 350, 310, 3, left);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 640, 480, &r), VKI_OK);
    expect_rect(&r, 240, 250, 312, 312, -PI_F / 2, "palm left");

    /* Fingers down: base (300, 350): rotation = pi/2 - atan2(-100, 0) = pi, normalised to
     * -pi; centre (300, 250 + 60). */
    const float down[3][2] = {{300, 250}, {0, 0}, {300, 350}};
    d = DETECTION(250, 190, 350, 310, 3, down);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 640, 480, &r), VKI_OK);
    expect_rect(&r, 300, 310, 312, 312, -PI_F, "palm down");

    /* On a 1280x480 photo the same right-pointing palm: MediaPipe's x_shift =
     * -(480 * h_n * -0.5 * 1) / 1280 normalised = 60 px still; 312 px a side. */
    d = DETECTION(250, 190, 350, 310, 3, right);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 1280, 480, &r), VKI_OK);
    expect_rect(&r, 360, 250, 312, 312, PI_F / 2, "palm right, 1280x480");
}

/* Pose: centred on keypoint 0 (hips), side twice the distance to keypoint 1, times 1.25. */
Test(solution, pose_from_detection) {
    vki_rect r;
    /* Upright: hips (320, 300), keypoint 1 (320, 100): side 400, 500 after scaling;
     * rotation = pi/2 - atan2(200, 0) = 0. The box plays no part. */
    const float upright[4][2] = {{320, 300}, {320, 100}, {320, 200}, {320, 50}};
    vki_detection d = DETECTION(0, 0, 1, 1, 4, upright);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_POSE, &d, 640, 480, &r), VKI_OK,
                 "%s", vki_last_error());
    expect_rect(&r, 320, 300, 500, 500, 0, "pose upright");

    /* Lying, head to the right on 800x480: (400, 240) -> (500, 240): side 200, 250;
     * rotation = pi/2 - atan2(0, 100) = pi/2. */
    const float lying[2][2] = {{400, 240}, {500, 240}};
    d = DETECTION(0, 0, 1, 1, 2, lying);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_POSE, &d, 800, 480, &r), VKI_OK);
    expect_rect(&r, 400, 240, 250, 250, PI_F / 2, "pose lying");

    /* 3-4-5: (100, 100) -> (130, 60): distance 50, side 100, 125; rotation = pi/2 -
     * atan2(40, 30). */
    const float slant[2][2] = {{100, 100}, {130, 60}};
    d = DETECTION(0, 0, 1, 1, 2, slant);
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_POSE, &d, 1000, 300, &r), VKI_OK);
    expect_rect(&r, 100, 100, 125, 125, PI_F / 2 - atan2(40.0, 30.0), "pose slanted");
}

/* ---- ROI from landmarks ------------------------------------------------------------- */

/* Face: the box of all points, rotation from point 33 to point 263. All 468 points at
 * (320, 240) but 10 (320, 140), 152 (320, 340), 234 (260, 240), 454 (380, 240): the box
 * (260,140)-(380,340), centre (320, 240), 120x200, square 200, times 1.5: 300. */
Test(solution, face_from_landmarks) {
    vki_landmark lm[478];
    for (int i = 0; i < 478; i++) lm[i] = (vki_landmark){320, 240, 0, 1, 1};
    lm[10].y = 140;
    lm[152].y = 340;
    lm[234].x = 260;
    lm[454].x = 380;
    lm[33].x = 280;
    lm[263].x = 360;
    vki_rect r;
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_FACE_MESH, lm, 468, 640, 480, &r),
                 VKI_OK, "%s", vki_last_error());
    expect_rect(&r, 320, 240, 300, 300, 0, "level face");

    /* Eye corners (280, 200) -> (360, 280): rotation = -atan2(-80, 80) = pi/4; the box
     * is unchanged (both inside it). */
    lm[33].y = 200;
    lm[263].y = 280;
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_FACE_MESH, lm, 468, 640, 480, &r), VKI_OK);
    expect_rect(&r, 320, 240, 300, 300, PI_F / 4, "tilted face");

    /* The attention model's 478 points count too: point 470 at (320, 440) stretches the
     * box to (260,140)-(380,440), centre y 290, long side 300, times 1.5: 450. */
    lm[470].y = 440;
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_FACE_MESH, lm, 478, 640, 480, &r), VKI_OK);
    expect_rect(&r, 320, 290, 450, 450, PI_F / 4, "478 points");
}

/* An upright hand. Of the 12 points HandLandmarksToRectCalculator keeps: wrist 0 (300,
 * 400); thumb 1 (330, 380), 2 (350, 350), 3 (360, 330); bases and first joints 5 (270,
 * 300), 6 (270, 260), 9 (300, 300), 10 (300, 250), 13 (330, 300), 14 (330, 260), 17
 * (360, 310), 18 (360, 280). The other 9 (tips and last joints) far away, which must not
 * count. The end point ((270 + 330) / 2 + 300) / 2 = 300, (300 + 300) / 2 ... = 300:
 * rotation = pi/2 - atan2(100, 0) = 0. The box of the 12: x 270 .. 360, y 250 .. 400,
 * centre (315, 325), 90x150. shift_y -0.1 * 150 = -15: centre (315, 310); square 150,
 * times 2: 300. */
static void upright_hand(vki_landmark lm[21]) {
    static const float pts[21][2] = {
        {300, 400}, {330, 380}, {350, 350}, {360, 330}, {-900, -900},
        {270, 300}, {270, 260}, {-900, 900}, {900, -900},
        {300, 300}, {300, 250}, {900, 900}, {-500, 0},
        {330, 300}, {330, 260}, {0, -500}, {500, 0},
        {360, 310}, {360, 280}, {0, 500}, {-700, -700},
    };
    for (int i = 0; i < 21; i++) lm[i] = (vki_landmark){pts[i][0], pts[i][1], 0, 1, 1};
}

/* Turns the points by angle clockwise on screen about (px, py). */
static void turn(vki_landmark *lm, int n, double angle, double px, double py) {
    const double c = cos(angle), s = sin(angle);
    for (int i = 0; i < n; i++) {
        const double dx = lm[i].x - px, dy = lm[i].y - py;
        lm[i].x = (float)(px + dx * c - dy * s);
        lm[i].y = (float)(py + dx * s + dy * c);
    }
}

Test(solution, hand_from_landmarks) {
    vki_landmark lm[21];
    vki_rect r;
    upright_hand(lm);
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, 480, &r), VKI_OK,
                 "%s", vki_last_error());
    expect_rect(&r, 315, 310, 300, 300, 0, "upright hand");

    /* The end point is the blend, not point 9 alone: with 5 at (250, 300) and 13 at
     * (390, 300) it becomes ((250 + 390) / 2 + 300) / 2 = 310, y 300, while 9 stays at
     * (300, 300): rotation = pi/2 - atan2(100, 10) (about 0.0997 rad), where point 9
     * alone would give 0. Only the angle is checked here. */
    lm[5].x = 250;
    lm[13].x = 390;
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, 480, &r), VKI_OK);
    cr_expect(fabs(angle_diff(r.rotation, PI_F / 2 - atan2(100.0, 10.0))) <= ANGLE_TOL,
              "blend: rotation %.9f", (double)r.rotation);

    /* The same hand turned about any point: the box in the hand's own axes is the same,
     * so the ROI is the upright one's turned likewise. A quarter turn about (300, 300):
     * the centre (315, 310) goes to (300 - 10, 300 + 15) = (290, 315), rotation pi/2.
     * 0.6 rad about (320, 240) and -2.5 rad about (100, 50): the centre turned by the
     * same formula (in double, rounded once). */
    const double angles[3] = {PI_F / 2, 0.6, -2.5};
    const double pivots[3][2] = {{300, 300}, {320, 240}, {100, 50}};
    for (int k = 0; k < 3; k++) {
        upright_hand(lm);
        turn(lm, 21, angles[k], pivots[k][0], pivots[k][1]);
        cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, 480, &r), VKI_OK);
        const double c = cos(angles[k]), s = sin(angles[k]);
        const double dx = 315 - pivots[k][0], dy = 310 - pivots[k][1];
        char what[32];
        snprintf(what, sizeof what, "hand turned %.2f", angles[k]);
        expect_rect(&r, pivots[k][0] + dx * c - dy * s, pivots[k][1] + dx * s + dy * c, 300,
                    300, angles[k], what);
    }
    /* The quarter turn, by hand. */
    upright_hand(lm);
    turn(lm, 21, PI_F / 2, 300, 300);
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, 480, &r), VKI_OK);
    expect_rect(&r, 290, 315, 300, 300, PI_F / 2, "hand quarter turn");
}

/* Pose: the auxiliary points 33 (centre) and 34; the rest ignored. 33 (320, 300), 34
 * (320, 150): side 300, times 1.25: 375; rotation 0. */
Test(solution, pose_from_landmarks) {
    vki_landmark lm[39];
    for (int i = 0; i < 39; i++) lm[i] = (vki_landmark){1e5f, -1e5f, 0, 1, 1};
    lm[33] = (vki_landmark){320, 300, 0, 1, 1};
    lm[34] = (vki_landmark){320, 150, 0, 1, 1};
    vki_rect r;
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_POSE, lm, 39, 640, 480, &r), VKI_OK,
                 "%s", vki_last_error());
    expect_rect(&r, 320, 300, 375, 375, 0, "pose");
    /* Only 35 points given: the same. */
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_POSE, lm, 35, 640, 480, &r), VKI_OK);
    expect_rect(&r, 320, 300, 375, 375, 0, "pose, 35 points");
}

/* ---- landmarks of a crop onto the photo --------------------------------------------- */

/* By hand: a 256x256 input cut at centre (400, 300), 200x200, a quarter turn clockwise.
 * The crop's top centre (128, 0): dx 0, dy -100: photo (400 + 100, 300) = (500, 300) (a
 * crop turned clockwise has its top on the right). Its centre (128, 128) -> (400, 300).
 * Its left centre (0, 128): dx -100, dy 0 -> (400, 300 - 100). z 12.8 * 200 / 256 = 10.
 * visibility and presence: sigmoid(0) = 0.5, sigmoid(2) = 0.880797. */
Test(solution, landmarks_from_roi_by_hand) {
    const vki_rect roi = {400, 300, 200, 200, (float)(PI_F / 2)};
    const float raw[3][5] = {{128, 0, 12.8f, 0, 2}, {128, 128, 0, 0, 0}, {0, 128, -25.6f, 0, 0}};
    vki_landmark out[3];
    cr_assert_eq(vki_landmarks_from_roi(&raw[0][0], 3, 5, &roi, 256, 256, out), VKI_OK, "%s",
                 vki_last_error());
    const float want[3][3] = {{500, 300, 10}, {400, 300, 0}, {400, 200, -20}};
    for (int i = 0; i < 3; i++) {
        cr_expect(fabsf(out[i].x - want[i][0]) <= PX_TOL, "%d: x %f", i, (double)out[i].x);
        cr_expect(fabsf(out[i].y - want[i][1]) <= PX_TOL, "%d: y %f", i, (double)out[i].y);
        cr_expect(fabsf(out[i].z - want[i][2]) <= PX_TOL, "%d: z %f", i, (double)out[i].z);
    }
    /* Sigmoids: 1e-6 is a few float ulps at 0.5 .. 1. */
    cr_expect(fabsf(out[0].visibility - 0.5f) <= 1e-6f);
    cr_expect(fabsf(out[0].presence - 0.880797f) <= 1e-6f);
    /* values_per_point 3: visibility and presence 1, as vki_decode_landmarks. */
    cr_assert_eq(vki_landmarks_from_roi(&raw[0][0], 1, 3, &roi, 256, 256, out), VKI_OK);
    cr_expect_eq(out[0].visibility, 1.0f);
    cr_expect_eq(out[0].presence, 1.0f);
    /* vki_roi_to_photo: the same crop's bottom-right corner (1, 1): dx 100, dy 100 ->
     * (400 - 100, 300 + 100). */
    float px, py;
    vki_roi_to_photo(&roi, 1.0f, 1.0f, &px, &py);
    cr_expect(fabsf(px - 300) <= PX_TOL && fabsf(py - 400) <= PX_TOL, "(%f, %f)", (double)px,
              (double)py);
    vki_roi_to_photo(&roi, 0.5f, 0.5f, NULL, &py);
    cr_expect(fabsf(py - 300) <= PX_TOL);
}

/* Round trip: points placed on the photo, turned into crop input pixels by the inverse
 * of the crop (offset from the centre turned back by -rotation, divided by the ROI's size,
 * times the input's), must come back where they were; on a non-square ROI and input too. */
Test(solution, landmarks_from_roi_round_trip) {
    const vki_rect rois[3] = {
        {400, 300, 200, 200, 0.5f},
        {123.5f, 456.25f, 300, 150, -0.3f},
        {640, 360, 500, 500, (float)(-PI_F)},
    };
    const int inputs[3][2] = {{256, 256}, {256, 128}, {224, 224}};
    const float photo[6][2] = {{400, 300}, {350, 260}, {455.5f, 310}, {120, 400},
                               {200, 480}, {600, 330}};
    for (int k = 0; k < 3; k++) {
        const vki_rect *r = &rois[k];
        const int iw = inputs[k][0], ih = inputs[k][1];
        const double c = cos(r->rotation), s = sin(r->rotation);
        float raw[6][3];
        for (int i = 0; i < 6; i++) {
            const double dx = photo[i][0] - r->x_center, dy = photo[i][1] - r->y_center;
            const double u = dx * c + dy * s, v = -dx * s + dy * c;
            raw[i][0] = (float)((u / r->width + 0.5) * iw);
            raw[i][1] = (float)((v / r->height + 0.5) * ih);
            raw[i][2] = (float)i;
        }
        vki_landmark out[6];
        cr_assert_eq(vki_landmarks_from_roi(&raw[0][0], 6, 3, r, iw, ih, out), VKI_OK, "%s",
                     vki_last_error());
        for (int i = 0; i < 6; i++) {
            /* The raw values were rounded to float in input pixels (ulp 1.5e-5 at 256),
             * magnified by at most 500 / 224: still far below PX_TOL. */
            cr_expect(fabsf(out[i].x - photo[i][0]) <= PX_TOL, "roi %d point %d: x %f, want %f",
                      k, i, (double)out[i].x, (double)photo[i][0]);
            cr_expect(fabsf(out[i].y - photo[i][1]) <= PX_TOL, "roi %d point %d: y %f, want %f",
                      k, i, (double)out[i].y, (double)photo[i][1]);
            cr_expect(fabsf(out[i].z - (float)i * r->width / (float)iw) <= 1e-5f,
                      "roi %d point %d: z %f", k, i, (double)out[i].z);
        }
    }
}

/* The whole loop: a palm ROI, a hand placed upright in that crop, its landmarks back on
 * the photo, and the tracking ROI from them. The hand of upright_hand scaled into a
 * 224x224 input covering the ROI comes back turned like the ROI: the tracking ROI has the
 * ROI's rotation. */
Test(solution, detection_to_landmarks_to_roi) {
    const float right[3][2] = {{300, 250}, {0, 0}, {400, 250}};
    vki_detection d = DETECTION(250, 190, 350, 310, 3, right);
    vki_rect roi, next;
    cr_assert_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &d, 640, 480, &roi), VKI_OK);
    vki_landmark hand[21];
    upright_hand(hand);
    float raw[21][3];
    for (int i = 0; i < 21; i++) {
        /* upright_hand spans about 200 px around (315, 325); put it in the input's middle. */
        raw[i][0] = (hand[i].x - 315.0f) * 0.5f + 112.0f;
        raw[i][1] = (hand[i].y - 325.0f) * 0.5f + 112.0f;
        raw[i][2] = 0.0f;
    }
    vki_landmark lm[21];
    cr_assert_eq(vki_landmarks_from_roi(&raw[0][0], 21, 3, &roi, 224, 224, lm), VKI_OK);
    cr_assert_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, 480, &next), VKI_OK);
    cr_expect(fabs(angle_diff(next.rotation, roi.rotation)) <= ANGLE_TOL, "rotation %f, %f",
              (double)next.rotation, (double)roi.rotation);
    /* Size: the 150 px tall upright box became 75 input px of 224, times 312 / 224 photo
     * px per input px = 104.4643 px, times 2 = 208.9286. */
    cr_expect(fabsf(next.width - 75.0f * 312.0f / 224.0f * 2.0f) <= PX_TOL, "width %f",
              (double)next.width);
}

/* ---- against MediaPipe's normalised arithmetic --------------------------------------- */

/* MediaPipe's own path, written out here from its calculators in double: keypoints and
 * box normalised by the image size; ComputeRotation on normalised x times width and y
 * times height; TransformNormalizedRect (shift (W w_n sx cos - H h_n sy sin) / W and
 * (W w_n sx sin + H h_n sy cos) / H, square_long on max(w_n W, h_n H)); for pose
 * AlignmentPointsRectsCalculator (box_size / W and / H); then LandmarkProjectionCalculator
 * for a crop point (normalised offsets turned, times the rect's normalised width and
 * height). Back in pixels it must agree with the calls, which work on pixels, on photos
 * far from square. Both sides are double until the calls round to float: PX_TOL. */
static unsigned lcg_state = 12345u;
static double uniform(double lo, double hi) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lo + (hi - lo) * (double)(lcg_state >> 8) / 16777216.0;
}

static double mp_normalize(double a) { return a - 2.0 * PI_F * floor((a + PI_F) / (2.0 * PI_F)); }

Test(solution, normalised_arithmetic) {
    const int sizes[4][2] = {{1280, 480}, {480, 1280}, {333, 777}, {640, 640}};
    const vki_solution sols[3] = {VKI_SOLUTION_FACE_MESH, VKI_SOLUTION_HANDS, VKI_SOLUTION_POSE};
    for (int k = 0; k < 4; k++) {
        const double W = sizes[k][0], H = sizes[k][1];
        for (int t = 0; t < 3; t++) {
            vki_solution_defaults d;
            cr_assert_eq(vki_solution_defaults_for(sols[t], &d), VKI_OK);
            const vki_roi_rule *rule = &d.from_detection;
            for (int rep = 0; rep < 20; rep++) {
                /* A detection anywhere on the photo, keypoints anywhere in it. */
                float pts[VKI_MAX_KEYPOINTS][2];
                for (int i = 0; i < 4; i++) {
                    pts[i][0] = (float)uniform(0, W);
                    pts[i][1] = (float)uniform(0, H);
                }
                const float x0 = (float)uniform(0, W / 2), y0 = (float)uniform(0, H / 2);
                vki_detection det = DETECTION(x0, y0, x0 + (float)uniform(1, W / 2),
                                              y0 + (float)uniform(1, H / 2), 4, pts);
                vki_rect r;
                cr_assert_eq(vki_roi_from_detection(sols[t], &det, (int)W, (int)H, &r), VKI_OK);

                /* MediaPipe, normalised. */
                const double ks_x = det.keypoints[rule->start][0] / W;
                const double ks_y = det.keypoints[rule->start][1] / H;
                const double ke_x = det.keypoints[rule->end][0] / W;
                const double ke_y = det.keypoints[rule->end][1] / H;
                double xc, yc, wn, hn;
                if (rule->kind == VKI_ROI_ALIGNMENT) {
                    const double box = 2.0 * hypot(ke_x * W - ks_x * W, ke_y * H - ks_y * H);
                    xc = ks_x;
                    yc = ks_y;
                    wn = box / W;
                    hn = box / H;
                } else {
                    const double bx = det.box[0] / W, by = det.box[1] / H;
                    wn = (det.box[2] - det.box[0]) / W;
                    hn = (det.box[3] - det.box[1]) / H;
                    xc = bx + wn / 2;
                    yc = by + hn / 2;
                }
                const double rot = mp_normalize(
                    rule->target_angle - atan2(-(ke_y * H - ks_y * H), ke_x * W - ks_x * W));
                xc += (W * wn * rule->shift_x * cos(rot) - H * hn * rule->shift_y * sin(rot)) / W;
                yc += (W * wn * rule->shift_x * sin(rot) + H * hn * rule->shift_y * cos(rot)) / H;
                if (rule->square_long) {
                    const double l = fmax(wn * W, hn * H);
                    wn = l / W;
                    hn = l / H;
                }
                wn *= rule->scale_x;
                hn *= rule->scale_y;
                char what[64];
                snprintf(what, sizeof what, "%s %dx%d #%d", vki_solution_name(sols[t]),
                         sizes[k][0], sizes[k][1], rep);
                expect_rect(&r, xc * W, yc * H, wn * W, hn * H, rot, what);

                /* LandmarkProjectionCalculator's NORM_RECT path, for a square ROI. */
                const double nx = uniform(0, 1), ny = uniform(0, 1);
                const double ox = nx - 0.5, oy = ny - 0.5;
                const double px = (cos(rot) * ox - sin(rot) * oy) * wn + xc;
                const double py = (sin(rot) * ox + cos(rot) * oy) * hn + yc;
                float qx, qy;
                vki_roi_to_photo(&r, (float)nx, (float)ny, &qx, &qy);
                /* nx, ny rounded to float (ulp 6e-8) times a side of up to ~4000 px:
                 * 2.4e-4, inside PX_TOL. */
                cr_expect(fabs(qx - px * W) <= PX_TOL && fabs(qy - py * H) <= PX_TOL,
                          "%s: crop point (%f, %f) -> (%f, %f), MediaPipe (%f, %f)", what, nx,
                          ny, (double)qx, (double)qy, px * W, py * H);
            }
        }
    }
}

/* ---- bad arguments ------------------------------------------------------------------ */

/* A heatmap of logits: every cell LOW (sigmoid 0 in float) but those set. */
#define HM_LOW -1e4f
static float sigmoid_logit(float p) { return logf(p / (1.0f - p)); }

Test(solution, refine_from_heatmap_by_hand) {
    /* Input 32x32, heatmap 8 wide, 8 tall, 2 points of 3 values, kernel 3. */
    enum { W = 8, H = 8, N = 2 };
    float hm[H][W][N];
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) hm[r][c][0] = hm[r][c][1] = HM_LOW;
    /* Point 0 at (10, 10): cell (10 / 32 * 8 = 2.5 -> col 2, row 2); in its window,
     * cells (row 2, col 2) at 0.5 and (row 2, col 3) at 0.75, the weighted mean col
     * (2 * 0.5 + 3 * 0.75) / 1.25 = 2.6, row 2: x = 2.6 / 8 * 32 = 10.4, y = 2 / 8 * 32 = 8.
     * A cell outside the window, (row 2, col 4) at 0.99, is not read. */
    hm[2][2][0] = 0.0f;
    hm[2][3][0] = sigmoid_logit(0.75f);
    hm[2][4][0] = sigmoid_logit(0.99f);
    /* Point 1 at the same place: its largest weight, 0.45, is below 0.5: left alone. */
    hm[2][2][1] = sigmoid_logit(0.45f);
    float raw[N][3] = {{10, 10, 7}, {10, 10, 7}};
    cr_assert_eq(vki_landmarks_refine_from_heatmap(&raw[0][0], N, 3, 32, 32, &hm[0][0][0], W, H,
                                                   3, 0.5f), VKI_OK, "%s", vki_last_error());
    cr_expect(fabsf(raw[0][0] - 10.4f) <= 1e-5f, "x %.6f", (double)raw[0][0]);
    cr_expect(fabsf(raw[0][1] - 8.0f) <= 1e-5f, "y %.6f", (double)raw[0][1]);
    cr_expect_eq(raw[0][2], 7.0f);                       /* z untouched */
    cr_expect(raw[1][0] == 10.0f && raw[1][1] == 10.0f);
    /* Point 1's heatmap alone at minimum confidence 0.45: refined onto its one cell,
     * 2 / 8 * 32 = 8. */
    float one[1][3] = {{10, 10, 0}};
    float hm1[H][W];
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) hm1[r][c] = hm[r][c][1];
    cr_assert_eq(vki_landmarks_refine_from_heatmap(&one[0][0], 1, 3, 32, 32, &hm1[0][0], W, H, 3,
                                                   0.45f), VKI_OK);
    cr_expect(one[0][0] == 8.0f && one[0][1] == 8.0f, "(%g, %g)", (double)one[0][0],
              (double)one[0][1]);
}

Test(solution, refine_from_heatmap_edges) {
    /* Heatmap 8 wide, 4 tall, one point, input 64x32 (cells 8 px wide, 8 tall), kernel 3. */
    enum { W = 8, H = 4 };
    float hm[H][W];
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) hm[r][c] = HM_LOW;
    hm[0][0] = 0.0f;                                     /* 0.5 at the corner */
    hm[3][1] = 0.0f;                                     /* 0.5 on the last row */
    struct { float x, y, want_x, want_y; const char *why; } cases[] = {
        /* Col 0, row 0: the window clipped to cols 0-1, rows 0-1; only (0, 0) weighs. */
        {3, 3, 0, 0, "the corner's window is clipped"},
        /* x -4 is col -0.5, which MediaPipe's int conversion makes 0: refined. */
        {-4, 3, 0, 0, "col -0.5 truncates to 0"},
        /* x -9 is col -1.125 -> -1: left alone. */
        {-9, 3, -9, 3, "col -1 is off the heatmap"},
        /* y 36 is row 4.5 -> 4, below the 4 rows: MediaPipe does not check it, and the
         * window's row 3 holds (row 3, col 1): x = 1 / 8 * 64 = 8, y = 3 / 4 * 32 = 24. */
        {12, 36, 8, 24, "a row just below the heatmap still refines"},
        /* Row 6: its window, rows 5-7, misses the heatmap: nothing weighs, left alone. */
        {12, 52, 12, 52, "a row far below is left alone"},
        /* Col 4 is inside the 8 columns but not below the height, 4: MediaPipe skips it. */
        {36, 3, 36, 3, "a column at the height is skipped, as MediaPipe does"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float raw[4] = {cases[i].x, cases[i].y, 0, 1};
        cr_assert_eq(vki_landmarks_refine_from_heatmap(raw, 1, 4, 64, 32, &hm[0][0], W, H, 3,
                                                       0.5f), VKI_OK);
        cr_expect(fabsf(raw[0] - cases[i].want_x) <= 1e-5f &&
                  fabsf(raw[1] - cases[i].want_y) <= 1e-5f, "%s: (%g, %g), want (%g, %g)",
                  cases[i].why, (double)raw[0], (double)raw[1], (double)cases[i].want_x,
                  (double)cases[i].want_y);
        cr_expect_eq(raw[3], 1.0f);
    }
    /* NaN stays NaN; bad arguments are refused with a message. */
    float nan_pt[3] = {NAN, 3, 0};
    cr_expect_eq(vki_landmarks_refine_from_heatmap(nan_pt, 1, 3, 64, 32, &hm[0][0], W, H, 3, 0.5f),
                 VKI_OK);
    cr_expect(isnan(nan_pt[0]));
    float p[3] = {1, 1, 0};
    cr_expect_eq(vki_landmarks_refine_from_heatmap(NULL, 1, 3, 64, 32, &hm[0][0], W, H, 3, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("raw is NULL");
    cr_expect_eq(vki_landmarks_refine_from_heatmap(p, 1, 3, 64, 32, NULL, W, H, 3, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("heatmap is NULL");
    cr_expect_eq(vki_landmarks_refine_from_heatmap(p, 1, 3, 64, 32, &hm[0][0], W, H, 4, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("kernel_size 4");
    cr_expect_eq(vki_landmarks_refine_from_heatmap(p, 1, 6, 64, 32, &hm[0][0], W, H, 3, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("values_per_point is 6");
    cr_expect_eq(vki_landmarks_refine_from_heatmap(p, 1, 3, 64, 32, &hm[0][0], 0, H, 3, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("heatmap 0x4");
    cr_expect_eq(vki_landmarks_refine_from_heatmap(p, 0, 3, 64, 32, &hm[0][0], W, H, 3, 0.5f),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("num_points is 0");
}

Test(solution, bad_arguments) {
    vki_rect r;
    vki_solution_defaults d;
    const float kps[3][2] = {{0, 0}, {1, 0}, {2, 0}};
    vki_detection det = DETECTION(0, 0, 10, 10, 3, kps);
    vki_landmark lm[39];
    memset(lm, 0, sizeof lm);

    cr_expect_eq(vki_solution_defaults_for(VKI_SOLUTION_HANDS, NULL), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_solution_defaults_for: out is NULL");
    cr_expect_eq(vki_solution_defaults_for(VKI_SOLUTION_NONE, &d), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_solution_defaults_for: solution 0");
    cr_expect_eq(vki_solution_defaults_for((vki_solution)17, &d), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_solution_defaults_for: solution 17");

    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, NULL, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: det is NULL");
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &det, 640, 480, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: roi is NULL");
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_NONE, &det, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: solution");
    cr_expect_eq(vki_roi_from_detection((vki_solution)-2, &det, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: solution -2");
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &det, 0, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: photo_width 0");
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &det, 640, 16385, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: photo_height 16385");
    det.num_keypoints = 2;   /* a palm needs keypoint 2 */
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_HANDS, &det, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: det has 2 keypoints, hands needs 3");
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_FACE_MESH, &det, 640, 480, &r), VKI_OK);
    det.num_keypoints = VKI_MAX_KEYPOINTS + 1;
    cr_expect_eq(vki_roi_from_detection(VKI_SOLUTION_POSE, &det, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_detection: det has 9 keypoints");

    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_POSE, NULL, 39, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: lm is NULL");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_POSE, lm, 39, 640, 480, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: roi is NULL");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_COUNT, lm, 39, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: solution");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_POSE, lm, 33, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: n is 33, pose needs at least 35");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 20, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: n is 20, hands needs at least 21");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_FACE_MESH, lm, 39, 640, 480, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("face_mesh needs at least 264");
    cr_expect_eq(vki_roi_from_landmarks(VKI_SOLUTION_HANDS, lm, 21, 640, -1, &r),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_roi_from_landmarks: photo_height -1");

    const float raw[5] = {1, 2, 3, 0, 0};
    const vki_rect roi = {100, 100, 50, 50, 0};
    vki_landmark out[1];
    cr_expect_eq(vki_landmarks_from_roi(NULL, 1, 3, &roi, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: raw is NULL");
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 3, NULL, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: roi is NULL");
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 3, &roi, 256, 256, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: out is NULL");
    cr_expect_eq(vki_landmarks_from_roi(raw, 0, 3, &roi, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: num_points is 0");
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 2, &roi, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: values_per_point is 2");
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 3, &roi, 0, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: input size 0x256");
    const vki_rect flat = {100, 100, 50, 0, 0};
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 3, &flat, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_landmarks_from_roi: roi");
    const vki_rect nan_roi = {NAN, 100, 50, 50, 0};
    cr_expect_eq(vki_landmarks_from_roi(raw, 1, 3, &nan_roi, 256, 256, out),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("not a positive, finite rectangle");

    float px = 7, py = 7;
    vki_roi_to_photo(NULL, 0.5f, 0.5f, &px, &py);
    cr_expect(px == 0.0f && py == 0.0f);
    expect_error("vki_roi_to_photo: roi is NULL");
}
