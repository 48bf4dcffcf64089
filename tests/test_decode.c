/* test_decode.c: the result decoders of vkinfer_decode.h (engine/decode/decode.c, decode_ssd.c).
 * Each is checked against values worked out by hand: anchors of the three MediaPipe
 * detectors (counts, first and last ones, layer boundaries) and of a small configuration
 * with every option; boxes and keypoints planted at known anchors; weighted NMS on boxes
 * whose averages are known; letterboxes (and their agreement with engine/runtime/image.c's);
 * landmarks, masks, top-k and task names. Then against other implementations: the task
 * guessed for the real models, the real TFLite interpreter (LiteRT) on a real photo
 * decoding to the face that is there, and vkinfer's own graph decoding to the same. */
#include "harness.h"
#include "image.h"
#include "vkinfer_decode.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-5f

static void expect_error(const char *needle) {
    cr_expect(strstr(vki_last_error(), needle) != NULL, "message '%s' lacks '%s'",
              vki_last_error(), needle);
}

/* ---- tasks -------------------------------------------------------------------------- */

Test(decode, task_names) {
    cr_expect_str_eq(vki_task_name(VKI_TASK_FACE_DETECTION), "face_detection");
    cr_expect_str_eq(vki_task_name(VKI_TASK_CLASSIFICATION), "classification");
    cr_expect_str_eq(vki_task_name(VKI_TASK_NONE), "none");
    cr_expect_str_eq(vki_task_name(VKI_TASK_COUNT), "none");
    cr_expect_str_eq(vki_task_name((vki_task)-3), "none");
    for (int t = 0; t < VKI_TASK_COUNT; t++)
        cr_expect_eq(vki_task_from_name(vki_task_name((vki_task)t)), t, "%d", t);
    cr_expect_eq(vki_task_from_name("hand_landmarks"), VKI_TASK_HAND_LANDMARKS);
    cr_expect_eq(vki_task_from_name("face"), VKI_TASK_NONE);
    cr_expect_eq(vki_task_from_name(""), VKI_TASK_NONE);
    cr_expect_eq(vki_task_from_name(NULL), VKI_TASK_NONE);
    cr_expect_eq(vki_task_landmark_count(VKI_TASK_POSE_LANDMARKS), 33);
    cr_expect_eq(vki_task_landmark_count(VKI_TASK_HAND_LANDMARKS), 21);
    cr_expect_eq(vki_task_landmark_count(VKI_TASK_FACE_MESH), 468);
    cr_expect_eq(vki_task_landmark_count(VKI_TASK_FACE_DETECTION), 0);
    cr_expect_eq(vki_task_landmark_count((vki_task)99), 0);
}

/* A model with one input [1,8,8,3] and outputs of the given shapes (each a MUL of a
 * graph input of its own shape), for vki_task_guess. */
static vki_model *shaped_model(int n, const int ranks[], const int shapes[][4]) {
    vki_model *m = vki_model_new("shapes");
    int ins[9], outs[8];
    ins[0] = harness_tensor(m, 8, 8, 3);
    int sink = harness_tensor(m, 8, 8, 3);
    harness_binary(m, VKI_OP_MUL, ins[0], harness_scalar(m, 1.0f), sink);
    for (int i = 0; i < n; i++) {
        ins[i + 1] = harness_tensor_nd(m, ranks[i], shapes[i]);
        outs[i] = harness_tensor_nd(m, ranks[i], shapes[i]);
        harness_binary(m, VKI_OP_MUL, ins[i + 1], harness_scalar(m, 1.0f), outs[i]);
    }
    cr_assert(vki_model_set_io(m, n + 1, ins, n, outs));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    return m;
}

Test(decode, task_guess_shapes) {
    struct {
        int n, ranks[4], shapes[4][4];
        vki_task want;
    } cases[] = {
        {1, {2}, {{1, 1000}}, VKI_TASK_CLASSIFICATION},
        {1, {4}, {{1, 1, 1, 5}}, VKI_TASK_CLASSIFICATION},
        {1, {2}, {{1, 1}}, VKI_TASK_NONE},
        {2, {2, 2}, {{1, 10}, {1, 10}}, VKI_TASK_NONE},
        {2, {4, 4}, {{1, 1, 1, 1404}, {1, 1, 1, 1}}, VKI_TASK_FACE_MESH},
        {2, {2, 2}, {{1, 63}, {1, 1}}, VKI_TASK_HAND_LANDMARKS},
        {1, {2}, {{1, 63}}, VKI_TASK_CLASSIFICATION},
        {3, {2, 2, 4}, {{1, 195}, {1, 1}, {1, 16, 16, 1}}, VKI_TASK_POSE_LANDMARKS},
        {1, {4}, {{1, 16, 16, 1}}, VKI_TASK_SEGMENTATION},
        {2, {4, 2}, {{1, 16, 16, 1}, {1, 1}}, VKI_TASK_NONE},
        /* detection shapes on an 8x8 input are not detection */
        {2, {3, 3}, {{1, 896, 16}, {1, 896, 1}}, VKI_TASK_NONE},
        {2, {3, 3}, {{1, 2254, 12}, {1, 2254, 1}}, VKI_TASK_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vki_model *m = shaped_model(cases[i].n, cases[i].ranks, cases[i].shapes);
        cr_expect_eq(vki_task_guess(m), cases[i].want, "case %zu: %s, want %s", i,
                     vki_task_name(vki_task_guess(m)), vki_task_name(cases[i].want));
        vki_model_destroy(m);
    }
    cr_expect_eq(vki_task_guess(NULL), VKI_TASK_NONE);
    expect_error("vki_task_guess: model is NULL");
}

Test(decode, task_guess_real_models) {
    static const struct {
        const char *file;
        vki_task want;
    } models[] = {
        {"face_detection_short_range.tflite", VKI_TASK_FACE_DETECTION},
        {"face_detection_full_range.tflite", VKI_TASK_FACE_DETECTION},
        {"face_detection_full_range_sparse.tflite", VKI_TASK_FACE_DETECTION},
        {"selfie_segmentation.tflite", VKI_TASK_SEGMENTATION},
        {"selfie_segmentation_landscape.tflite", VKI_TASK_SEGMENTATION},
        {"hand_landmark_lite.tflite", VKI_TASK_HAND_LANDMARKS},
        {"hand_landmark_full.tflite", VKI_TASK_HAND_LANDMARKS},
        {"pose_landmark_lite.tflite", VKI_TASK_POSE_LANDMARKS},
        {"pose_landmark_full.tflite", VKI_TASK_POSE_LANDMARKS},
        {"pose_landmark_heavy.tflite", VKI_TASK_POSE_LANDMARKS},
        {"palm_detection_lite.tflite", VKI_TASK_PALM_DETECTION},
        {"palm_detection_full.tflite", VKI_TASK_PALM_DETECTION},
        {"face_landmark.tflite", VKI_TASK_FACE_MESH},
        {"pose_detection.tflite", VKI_TASK_POSE_DETECTION},
    };
    int found = 0;
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        size_t size;
        uint8_t *bytes = harness_read_model(models[i].file, &size);
        if (!bytes) {
            cr_log_info("%s not in $VKI_MODEL_DIR; skipped", models[i].file);
            continue;
        }
        vki_model *m;
        cr_assert_eq(vki_model_load_memory(bytes, size, models[i].file, &m), VKI_OK, "%s",
                     vki_last_error());
        free(bytes);
        vki_task got = vki_task_guess(m);
        cr_expect_eq(got, models[i].want, "%s: %s, want %s", models[i].file, vki_task_name(got),
                     vki_task_name(models[i].want));
        vki_model_destroy(m);
        found++;
    }
    if (!found) cr_skip_test("no models in $VKI_MODEL_DIR");
}

/* ---- anchors ------------------------------------------------------------------------ */

static vki_anchor *anchors_for(const vki_detector_options *o, int *n) {
    *n = vki_ssd_anchors(&o->anchors, NULL, 0);
    cr_assert_gt(*n, 0, "%s", vki_last_error());
    vki_anchor *a = malloc(sizeof *a * (size_t)*n);
    cr_assert(a);
    cr_assert_eq(vki_ssd_anchors(&o->anchors, a, *n), *n);
    return a;
}

static void expect_anchor(const vki_anchor *a, int i, float x, float y, float w, float h) {
    cr_expect(fabsf(a[i].x_center - x) < EPS && fabsf(a[i].y_center - y) < EPS &&
                  fabsf(a[i].width - w) < EPS && fabsf(a[i].height - h) < EPS,
              "anchor %d is (%g, %g, %g, %g), want (%g, %g, %g, %g)", i, (double)a[i].x_center,
              (double)a[i].y_center, (double)a[i].width, (double)a[i].height, (double)x,
              (double)y, (double)w, (double)h);
}

Test(decode, anchors_face_short_range) {
    vki_detector_options o;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 896, &o), VKI_OK);
    int n;
    vki_anchor *a = anchors_for(&o, &n);
    cr_expect_eq(n, 896);
    cr_expect_eq(o.num_boxes, 896);
    /* Stride 8: 16x16 cells, 2 anchors each (ratio 1 and the interpolated one). */
    expect_anchor(a, 0, 0.5f / 16, 0.5f / 16, 1, 1);
    expect_anchor(a, 1, 0.5f / 16, 0.5f / 16, 1, 1);
    expect_anchor(a, 2, 1.5f / 16, 0.5f / 16, 1, 1);
    expect_anchor(a, 32, 0.5f / 16, 1.5f / 16, 1, 1);
    expect_anchor(a, 511, 15.5f / 16, 15.5f / 16, 1, 1);
    /* Strides 16, 16, 16 merged: 8x8 cells, 6 anchors each, from 512. */
    expect_anchor(a, 512, 0.5f / 8, 0.5f / 8, 1, 1);
    expect_anchor(a, 517, 0.5f / 8, 0.5f / 8, 1, 1);
    expect_anchor(a, 518, 1.5f / 8, 0.5f / 8, 1, 1);
    expect_anchor(a, 512 + 6 * 8, 0.5f / 8, 1.5f / 8, 1, 1);
    expect_anchor(a, 895, 7.5f / 8, 7.5f / 8, 1, 1);
    free(a);
}

Test(decode, anchors_face_full_range) {
    vki_detector_options o;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 192, 192, 2304, &o), VKI_OK);
    int n;
    vki_anchor *a = anchors_for(&o, &n);
    cr_expect_eq(n, 2304);
    /* One layer of stride 4: 48x48 cells, one anchor each (no interpolated anchor). */
    expect_anchor(a, 0, 0.5f / 48, 0.5f / 48, 1, 1);
    expect_anchor(a, 1, 1.5f / 48, 0.5f / 48, 1, 1);
    expect_anchor(a, 47, 47.5f / 48, 0.5f / 48, 1, 1);
    expect_anchor(a, 48, 0.5f / 48, 1.5f / 48, 1, 1);
    expect_anchor(a, 2303, 47.5f / 48, 47.5f / 48, 1, 1);
    free(a);
}

Test(decode, anchors_palm) {
    vki_detector_options o;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_PALM_DETECTION, 192, 192, 2016, &o), VKI_OK);
    int n;
    vki_anchor *a = anchors_for(&o, &n);
    cr_expect_eq(n, 2016);
    cr_expect_eq(o.num_coords, 18);
    cr_expect_eq(o.num_keypoints, 7);
    /* Stride 8: 24x24 cells x 2 = 1152; then 12x12 cells x 6 = 864. */
    expect_anchor(a, 0, 0.5f / 24, 0.5f / 24, 1, 1);
    expect_anchor(a, 1151, 23.5f / 24, 23.5f / 24, 1, 1);
    expect_anchor(a, 1152, 0.5f / 12, 0.5f / 12, 1, 1);
    expect_anchor(a, 1152 + 6, 1.5f / 12, 0.5f / 12, 1, 1);
    expect_anchor(a, 2015, 11.5f / 12, 11.5f / 12, 1, 1);
    free(a);
}

/* Every option but fixed_anchor_size, on a non-square input: scales 0.2 and 0.8. */
Test(decode, anchors_sizes_and_ratios) {
    vki_ssd_options o = {
        .num_layers = 2, .min_scale = 0.2f, .max_scale = 0.8f, .input_width = 64,
        .input_height = 32, .anchor_offset_x = 0.5f, .anchor_offset_y = 0.5f,
        .strides = {16, 32}, .num_aspect_ratios = 2, .aspect_ratios = {1.0f, 2.0f},
        .interpolated_scale_aspect_ratio = 1.0f,
    };
    vki_anchor a[40];
    /* Layer 0: 4x2 cells x 3; layer 1: 2x1 cells x 3. */
    cr_assert_eq(vki_ssd_anchors(&o, a, 40), 30, "%s", vki_last_error());
    const float r2 = sqrtf(2.0f);
    expect_anchor(a, 0, 0.125f, 0.25f, 0.2f, 0.2f);
    expect_anchor(a, 1, 0.125f, 0.25f, 0.2f * r2, 0.2f / r2);
    expect_anchor(a, 2, 0.125f, 0.25f, 0.4f, 0.4f);          /* sqrt(0.2 * 0.8) */
    expect_anchor(a, 3, 0.375f, 0.25f, 0.2f, 0.2f);
    expect_anchor(a, 12, 0.125f, 0.75f, 0.2f, 0.2f);
    expect_anchor(a, 24, 0.25f, 0.5f, 0.8f, 0.8f);
    expect_anchor(a, 25, 0.25f, 0.5f, 0.8f * r2, 0.8f / r2);
    expect_anchor(a, 26, 0.25f, 0.5f, sqrtf(0.8f), sqrtf(0.8f));   /* last layer: next 1 */
    expect_anchor(a, 29, 0.75f, 0.5f, sqrtf(0.8f), sqrtf(0.8f));

    /* The lowest layer reduced to 3 fixed anchors: 1 (scale 0.1), 2 and 0.5 (scale 0.2). */
    o.reduce_boxes_in_lowest_layer = 1;
    cr_assert_eq(vki_ssd_anchors(&o, a, 40), 4 * 2 * 3 + 2 * 3);
    expect_anchor(a, 0, 0.125f, 0.25f, 0.1f, 0.1f);
    expect_anchor(a, 1, 0.125f, 0.25f, 0.2f * r2, 0.2f / r2);
    expect_anchor(a, 2, 0.125f, 0.25f, 0.2f / r2, 0.2f * r2);
    expect_anchor(a, 24, 0.25f, 0.5f, 0.8f, 0.8f);

    /* Cells round up: 100 / 16 is 7 cells; one layer's scale is the mean. */
    vki_ssd_options one = {.num_layers = 1, .min_scale = 0.2f, .max_scale = 0.6f,
                           .input_width = 100, .input_height = 100, .strides = {16},
                           .num_aspect_ratios = 1, .aspect_ratios = {1.0f},
                           .anchor_offset_x = 0.5f, .anchor_offset_y = 0.5f};
    cr_assert_eq(vki_ssd_anchors(&one, a, 40), 49);
    expect_anchor(a, 6, 6.5f / 7, 0.5f / 7, 0.4f, 0.4f);
    /* Fewer slots than anchors: the count is still all of them. */
    vki_anchor few[3] = {{0}};
    cr_expect_eq(vki_ssd_anchors(&one, few, 3), 49);
    expect_anchor(few, 2, 2.5f / 7, 0.5f / 7, 0.4f, 0.4f);
    cr_expect_eq(vki_ssd_anchors(&one, a, 0), 49);
}

Test(decode, anchors_bad_options) {
    vki_ssd_options good = {.num_layers = 1, .input_width = 8, .input_height = 8,
                            .strides = {4}, .num_aspect_ratios = 1, .aspect_ratios = {1}};
    cr_expect_eq(vki_ssd_anchors(&good, NULL, 0), 4);
    cr_expect_eq(vki_ssd_anchors(NULL, NULL, 0), -1);
    expect_error("vki_ssd_anchors: options is NULL");
    vki_ssd_options o = good;
    o.num_layers = 0;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("num_layers 0");
    o.num_layers = VKI_SSD_MAX_LAYERS + 1;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    o = good;
    o.strides[0] = 0;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("strides[0]");
    o = good;
    o.input_height = -1;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("input size");
    o = good;
    o.num_aspect_ratios = 5;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("num_aspect_ratios 5");
    o = good;
    o.aspect_ratios[0] = -2.0f;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("aspect_ratios[0]");
    o = good;
    o.input_width = o.input_height = 1 << 30;
    o.strides[0] = 1;
    cr_expect_eq(vki_ssd_anchors(&o, NULL, 0), -1);
    expect_error("more than 2^31 anchors");
    vki_anchor a[4];
    cr_expect_eq(vki_ssd_anchors(&good, a, -1), -1);
    expect_error("max is -1");
}

Test(decode, detector_options) {
    vki_detector_options o;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 896, &o), VKI_OK);
    cr_expect_eq(o.num_coords, 16);
    cr_expect_eq(o.num_keypoints, 6);
    cr_expect_eq(o.keypoint_coord_offset, 4);
    cr_expect(o.reverse_output_order);
    cr_expect_float_eq(o.x_scale, 128.0f, 0);
    cr_expect_float_eq(o.min_score_thresh, 0.5f, 0);
    cr_expect_float_eq(o.score_clipping_thresh, 100.0f, 0);
    cr_expect_float_eq(o.min_suppression_threshold, 0.3f, 0);
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 192, 192, 2304, &o), VKI_OK);
    cr_expect_float_eq(o.min_score_thresh, 0.6f, 0);
    cr_expect_float_eq(o.h_scale, 192.0f, 0);
    /* pose_detection_cpu.pbtxt: 12 coords, 4 keypoints, min score 0.2; its anchors come to
     * the model's 2254 boxes: 28x28 cells x 2 + 14x14 x 2 + 7x7 x 2 x 3 layers. */
    cr_assert_eq(vki_detector_options_for(VKI_TASK_POSE_DETECTION, 224, 224, 2254, &o), VKI_OK);
    cr_expect_eq(o.num_coords, 12);
    cr_expect_eq(o.num_keypoints, 4);
    cr_expect_float_eq(o.x_scale, 224.0f, 0);
    cr_expect_float_eq(o.min_score_thresh, 0.2f, 0);
    cr_expect_eq(vki_ssd_anchors(&o.anchors, NULL, 0), 28 * 28 * 2 + 14 * 14 * 2 + 7 * 7 * 2 * 3);

    cr_expect_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 2304, &o),
                 VKI_ERROR_UNSUPPORTED);
    expect_error("face_detection");
    expect_error("128x128");
    expect_error("2304 boxes");
    cr_expect_eq(vki_detector_options_for(VKI_TASK_PALM_DETECTION, 128, 128, 896, &o),
                 VKI_ERROR_UNSUPPORTED);
    expect_error("palm_detection with a 128x128 input and 896 boxes");
    cr_expect_eq(vki_detector_options_for(VKI_TASK_SEGMENTATION, 192, 192, 2016, &o),
                 VKI_ERROR_UNSUPPORTED_MODEL);
    expect_error("segmentation");
    cr_expect_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 96, 896, &o),
                 VKI_ERROR_UNSUPPORTED);
    expect_error("128x96");
    cr_expect_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 896, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_detector_options_for: out is NULL");
}

/* ---- decoding ----------------------------------------------------------------------- */

typedef struct raw_set {
    vki_detector_options o;
    vki_anchor *anchors;
    int n;
    float *boxes, *scores;
} raw_set;

/* Face short range with every score at logit -20 and every raw box 0. */
static raw_set face_raw(void) {
    raw_set r;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 896, &r.o), VKI_OK);
    r.anchors = anchors_for(&r.o, &r.n);
    r.boxes = calloc((size_t)r.n * 16, sizeof(float));
    r.scores = malloc(sizeof(float) * (size_t)r.n);
    cr_assert(r.boxes && r.scores);
    for (int i = 0; i < r.n; i++) r.scores[i] = -20.0f;
    return r;
}

static void free_raw(raw_set *r) {
    free(r->anchors);
    free(r->boxes);
    free(r->scores);
}

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

Test(decode, planted_box) {
    raw_set r = face_raw();
    /* Anchor 600: in the 8x8 grid from 512, cell 88 / 6 = 14: x 6, y 1, centre (6.5/8,
     * 1.5/8) = (0.8125, 0.1875), size 1. Raw values are in 128ths of the anchor. */
    float *b = r.boxes + 600 * 16;
    b[0] = 12.8f;    /* x centre + 0.1 */
    b[1] = -6.4f;    /* y centre - 0.05 */
    b[2] = 25.6f;    /* width 0.2 */
    b[3] = 38.4f;    /* height 0.3 */
    for (int k = 0; k < 6; k++) {
        b[4 + 2 * k] = 1.28f * (float)k;
        b[5 + 2 * k] = -1.28f * (float)k;
    }
    r.scores[600] = 2.0f;
    vki_detection d[4];
    int count = -1;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK,
                 "%s", vki_last_error());
    cr_assert_eq(count, 1);
    cr_expect_float_eq(d[0].score, sigmoidf(2.0f), 1e-6f);
    const float want[4] = {0.8125f, -0.0125f, 1.0125f, 0.2875f};
    for (int c = 0; c < 4; c++)
        cr_expect_float_eq(d[0].box[c], want[c], EPS, "box[%d] %g want %g", c,
                           (double)d[0].box[c], (double)want[c]);
    cr_expect_eq(d[0].num_keypoints, 6);
    for (int k = 0; k < 6; k++) {
        cr_expect_float_eq(d[0].keypoints[k][0], 0.8125f + 0.01f * (float)k, EPS, "kp %d x", k);
        cr_expect_float_eq(d[0].keypoints[k][1], 0.1875f - 0.01f * (float)k, EPS, "kp %d y", k);
    }

    /* The same box written y, x, h, w (and keypoints y, x) without reverse_output_order. */
    float t[4] = {b[0], b[1], b[2], b[3]};
    b[0] = t[1], b[1] = t[0], b[2] = t[3], b[3] = t[2];
    for (int k = 0; k < 6; k++) {
        float x = b[4 + 2 * k];
        b[4 + 2 * k] = b[5 + 2 * k];
        b[5 + 2 * k] = x;
    }
    r.o.reverse_output_order = 0;
    vki_detection e[4];
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, e, 4, &count), VKI_OK);
    cr_assert_eq(count, 1);
    for (int c = 0; c < 4; c++) cr_expect_float_eq(e[0].box[c], want[c], EPS);
    for (int k = 0; k < 6; k++) {
        cr_expect_float_eq(e[0].keypoints[k][0], d[0].keypoints[k][0], EPS);
        cr_expect_float_eq(e[0].keypoints[k][1], d[0].keypoints[k][1], EPS);
    }
    free_raw(&r);
}

/* Sized anchors scale the offsets: anchor width 0.5 halves them. */
Test(decode, planted_box_sized_anchor) {
    vki_detector_options o = {
        .anchors = {.num_layers = 1, .min_scale = 0.5f, .max_scale = 0.5f, .input_width = 4,
                    .input_height = 4, .anchor_offset_x = 0.5f, .anchor_offset_y = 0.5f,
                    .strides = {2}, .num_aspect_ratios = 1, .aspect_ratios = {1.0f}},
        .num_boxes = 4, .num_coords = 6, .box_coord_offset = 2, .keypoint_coord_offset = 0,
        .num_keypoints = 1, .num_values_per_keypoint = 2, .reverse_output_order = 1,
        .x_scale = 10, .y_scale = 10, .w_scale = 5, .h_scale = 5, .min_score_thresh = 0.5f,
        .min_suppression_threshold = 0.3f,
    };
    vki_anchor a[4];
    cr_assert_eq(vki_ssd_anchors(&o.anchors, a, 4), 4);
    expect_anchor(a, 3, 0.75f, 0.75f, 0.5f, 0.5f);
    float boxes[4 * 6] = {0}, scores[4] = {-9, -9, -9, 1};
    /* box 3: keypoint first (offset 0), box from offset 2 */
    float *b = boxes + 3 * 6;
    b[0] = -2.0f, b[1] = 4.0f;                       /* keypoint (0.75 - 0.1, 0.75 + 0.2) */
    b[2] = 1.0f, b[3] = 0.0f, b[4] = 2.0f, b[5] = 1.0f;   /* centre +0.05, w 0.2, h 0.1 */
    vki_detection d[2];
    int count;
    cr_assert_eq(vki_decode_detections(boxes, scores, a, &o, d, 2, &count), VKI_OK, "%s",
                 vki_last_error());
    cr_assert_eq(count, 1);
    const float want[4] = {0.7f, 0.7f, 0.9f, 0.8f};
    for (int c = 0; c < 4; c++) cr_expect_float_eq(d[0].box[c], want[c], EPS, "box[%d]", c);
    cr_expect_float_eq(d[0].keypoints[0][0], 0.65f, EPS);
    cr_expect_float_eq(d[0].keypoints[0][1], 0.95f, EPS);
}

Test(decode, score_threshold_and_clipping) {
    raw_set r = face_raw();
    /* Boxes 10 and 300 far apart (no merging): a logit of 0 is exactly 0.5, kept; -0.01
     * is dropped. */
    r.boxes[10 * 16 + 2] = r.boxes[10 * 16 + 3] = 1.28f;   /* 0.01 wide and high */
    r.boxes[300 * 16 + 2] = r.boxes[300 * 16 + 3] = 1.28f;
    r.scores[10] = 0.0f;
    r.scores[300] = -0.01f;
    vki_detection d[4];
    int count;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 1);
    cr_expect_float_eq(d[0].score, 0.5f, 0);
    r.o.min_score_thresh = 0.4f;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 2);
    cr_expect(d[0].score > d[1].score);

    /* Clipping at 1: logits 5 and 50 both become sigmoid(1), below a threshold of 0.75. */
    r.scores[10] = 5.0f;
    r.scores[300] = 50.0f;
    r.o.score_clipping_thresh = 1.0f;
    r.o.min_score_thresh = 0.7f;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 2);
    cr_expect_float_eq(d[0].score, sigmoidf(1.0f), 1e-6f);
    cr_expect_float_eq(d[1].score, sigmoidf(1.0f), 1e-6f);
    /* equal scores: lower box index first (box 10 lies at the top left) */
    cr_expect(d[0].box[0] < d[1].box[0]);
    r.o.min_score_thresh = 0.75f;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 0);
    /* Unclipped, a huge negative logit is 0 and a huge positive one 1, never NaN. */
    r.o.score_clipping_thresh = 0.0f;
    r.o.min_score_thresh = 0.5f;
    r.scores[10] = 1e30f;
    r.scores[300] = -1e30f;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 1);
    cr_expect_float_eq(d[0].score, 1.0f, 0);

    /* A negative width is dropped, as MediaPipe drops it. */
    r.boxes[10 * 16 + 2] = -1.0f;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 4, &count), VKI_OK);
    cr_expect_eq(count, 0);
    free_raw(&r);
}

Test(decode, max_detections) {
    raw_set r = face_raw();
    /* Three separate boxes; only 2 slots. */
    const int idx[3] = {0, 200, 700};
    for (int i = 0; i < 3; i++) {
        r.boxes[idx[i] * 16 + 2] = r.boxes[idx[i] * 16 + 3] = 2.56f;
        r.scores[idx[i]] = (float)(i + 1);
    }
    vki_detection d[3];
    int count;
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 2, &count), VKI_OK);
    cr_expect_eq(count, 2);
    cr_expect_float_eq(d[0].score, sigmoidf(3.0f), 1e-6f);
    cr_expect_float_eq(d[1].score, sigmoidf(2.0f), 1e-6f);
    cr_assert_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 0, &count), VKI_OK);
    cr_expect_eq(count, 0);
    free_raw(&r);
}

Test(decode, decode_bad_arguments) {
    raw_set r = face_raw();
    vki_detection d[2];
    int count = 7;
    cr_expect_eq(vki_decode_detections(NULL, r.scores, r.anchors, &r.o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_decode_detections: raw_boxes is NULL");
    cr_expect_eq(count, 0);
    cr_expect_eq(vki_decode_detections(r.boxes, NULL, r.anchors, &r.o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("raw_scores is NULL");
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, NULL, &r.o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("anchors is NULL");
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, NULL, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("options is NULL");
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, NULL, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("out is NULL");
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, 2, NULL),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("count is NULL");
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &r.o, d, -1, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("max is -1");
    vki_detector_options o = r.o;
    o.num_keypoints = VKI_MAX_KEYPOINTS + 1;
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("num_keypoints");
    o = r.o;
    o.num_keypoints = 7;    /* 4 + 14 > 16 */
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("beyond num_coords");
    o = r.o;
    o.num_boxes = 0;
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("num_boxes");
    o = r.o;
    o.box_coord_offset = 13;
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("box_coord_offset");
    o = r.o;
    o.w_scale = 0.0f;
    cr_expect_eq(vki_decode_detections(r.boxes, r.scores, r.anchors, &o, d, 2, &count),
                 VKI_ERROR_INVALID_ARGUMENT);
    expect_error("scale");
    free_raw(&r);
}

/* ---- weighted NMS ------------------------------------------------------------------- */

static vki_detection det(float score, float x0, float y0, float x1, float y1, float kx, float ky) {
    vki_detection d = {.score = score, .box = {x0, y0, x1, y1}, .num_keypoints = 1};
    d.keypoints[0][0] = kx;
    d.keypoints[0][1] = ky;
    return d;
}

Test(decode, weighted_nms_by_hand) {
    /* A and B overlap (IoU 0.9 / 1.1 = 0.818): B merges into A, weights 0.9 and 0.6.
     * C lies apart and stays. Given out of order. */
    const vki_detection in[3] = {
        det(0.6f, 0.1f, 0.0f, 1.1f, 1.0f, 1.0f, 1.0f),   /* B */
        det(0.7f, 2.0f, 2.0f, 3.0f, 3.0f, 2.5f, 2.5f),   /* C */
        det(0.9f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f),   /* A */
    };
    vki_detection out[3];
    cr_assert_eq(vki_weighted_nms(in, 3, 0.3f, out, 3), 2, "%s", vki_last_error());
    cr_expect_float_eq(out[0].score, 0.9f, 0);
    cr_expect_float_eq(out[0].box[0], 0.04f, EPS);      /* (0 * 0.9 + 0.1 * 0.6) / 1.5 */
    cr_expect_float_eq(out[0].box[1], 0.0f, EPS);
    cr_expect_float_eq(out[0].box[2], 1.04f, EPS);      /* (1 * 0.9 + 1.1 * 0.6) / 1.5 */
    cr_expect_float_eq(out[0].box[3], 1.0f, EPS);
    cr_expect_float_eq(out[0].keypoints[0][0], 0.4f, EPS);   /* (0 * 0.9 + 1 * 0.6) / 1.5 */
    cr_expect_float_eq(out[0].keypoints[0][1], 0.4f, EPS);
    cr_expect_eq(out[0].num_keypoints, 1);
    cr_expect_float_eq(out[1].score, 0.7f, 0);
    cr_expect_float_eq(out[1].box[0], 2.0f, 0);
    cr_expect_float_eq(out[1].box[3], 3.0f, 0);
    cr_expect_float_eq(out[1].keypoints[0][0], 2.5f, 0);

    /* The threshold is strict: D overlaps A by IoU 0.5 / 1.5 = 1/3. */
    const vki_detection pair[2] = {
        det(0.9f, 0.0f, 0.0f, 1.0f, 1.0f, 0, 0),
        det(0.8f, 0.5f, 0.0f, 1.5f, 1.0f, 0, 0),
    };
    cr_expect_eq(vki_weighted_nms(pair, 2, 0.3f, out, 3), 1);
    cr_expect_eq(vki_weighted_nms(pair, 2, 0.34f, out, 3), 2);
    /* Only the best is written when max is 1; none for max 0. */
    cr_expect_eq(vki_weighted_nms(in, 3, 0.3f, out, 1), 1);
    cr_expect_float_eq(out[0].score, 0.9f, 0);
    cr_expect_eq(vki_weighted_nms(in, 3, 0.3f, out, 0), 0);
    cr_expect_eq(vki_weighted_nms(in, 0, 0.3f, out, 3), 0);
    /* Equal scores, apart: input order. */
    const vki_detection tie[2] = {det(0.5f, 5, 5, 6, 6, 0, 0), det(0.5f, 0, 0, 1, 1, 0, 0)};
    cr_assert_eq(vki_weighted_nms(tie, 2, 0.3f, out, 2), 2);
    cr_expect_float_eq(out[0].box[0], 5.0f, 0);
    /* A box without area still comes out (MediaPipe would stop there). */
    const vki_detection flat[2] = {det(0.9f, 1, 1, 1, 1, 0, 0), det(0.5f, 0, 0, 1, 1, 0, 0)};
    cr_expect_eq(vki_weighted_nms(flat, 2, 0.3f, out, 2), 2);

    cr_expect_eq(vki_weighted_nms(NULL, 2, 0.3f, out, 2), -1);
    expect_error("vki_weighted_nms: in is NULL");
    cr_expect_eq(vki_weighted_nms(in, 3, 0.3f, NULL, 2), -1);
    expect_error("out is NULL");
    cr_expect_eq(vki_weighted_nms(in, -1, 0.3f, out, 2), -1);
    expect_error("n is -1");
}

/* ---- letterbox ---------------------------------------------------------------------- */

static void expect_content(vki_letterbox lb, int x, int y, int w, int h) {
    cr_expect(lb.content_x == x && lb.content_y == y && lb.content_width == w &&
                  lb.content_height == h,
              "photo %dx%d in %dx%d: content %d,%d %dx%d, want %d,%d %dx%d", lb.photo_width,
              lb.photo_height, lb.input_width, lb.input_height, lb.content_x, lb.content_y,
              lb.content_width, lb.content_height, x, y, w, h);
}

Test(decode, letterbox_fit) {
    expect_content(vki_letterbox_fit(640, 480, 128, 128, 1), 0, 16, 128, 96);     /* wide */
    expect_content(vki_letterbox_fit(480, 640, 128, 128, 1), 16, 0, 96, 128);     /* tall */
    expect_content(vki_letterbox_fit(512, 512, 128, 128, 1), 0, 0, 128, 128);     /* square */
    expect_content(vki_letterbox_fit(640, 480, 128, 128, 0), 0, 0, 128, 128);     /* stretch */
    expect_content(vki_letterbox_fit(1000, 3, 128, 128, 1), 0, 63, 128, 1);      /* at least 1 */
    /* 100 x 30 into 64: 30 * 64 / 100 = 19.2 -> 19, y (64 - 19) / 2 = 22 */
    expect_content(vki_letterbox_fit(100, 30, 64, 64, 1), 0, 22, 64, 19);
    /* 100 x 33 into 64: 21.12 -> 21; 1 x 3 into 4: 1.33 -> 1 */
    expect_content(vki_letterbox_fit(100, 33, 64, 64, 1), 0, 21, 64, 21);
    expect_content(vki_letterbox_fit(1, 3, 4, 4, 1), 1, 0, 1, 4);
    /* 5 x 2 into 4: 1.6 rounds to 2 */
    expect_content(vki_letterbox_fit(5, 2, 4, 4, 1), 0, 1, 4, 2);
    /* wide input, wide photo: 640x480 into 256x144 -> width 192 */
    expect_content(vki_letterbox_fit(640, 480, 256, 144, 1), 32, 0, 192, 144);

    vki_letterbox bad = vki_letterbox_fit(0, 480, 128, 128, 1);
    expect_content(bad, 0, 0, 0, 0);
    expect_error("vki_letterbox_fit: photo_width 0");
    bad = vki_letterbox_fit(640, 480, 128, 20000, 1);
    expect_error("input_height 20000");
}

Test(decode, letterbox_to_photo) {
    vki_letterbox lb = vki_letterbox_fit(640, 480, 128, 128, 1);   /* content y 16, 128x96 */
    float x, y;
    vki_letterbox_to_photo(&lb, 0.5f, 0.5f, &x, &y);
    cr_expect_float_eq(x, 320.0f, 1e-3f);
    cr_expect_float_eq(y, 240.0f, 1e-3f);
    vki_letterbox_to_photo(&lb, 0.0f, 16.0f / 128.0f, &x, &y);     /* content's top left */
    cr_expect_float_eq(x, 0.0f, 1e-3f);
    cr_expect_float_eq(y, 0.0f, 1e-3f);
    vki_letterbox_to_photo(&lb, 1.0f, 112.0f / 128.0f, &x, &y);    /* bottom right */
    cr_expect_float_eq(x, 640.0f, 1e-3f);
    cr_expect_float_eq(y, 480.0f, 1e-3f);
    vki_letterbox_to_photo(&lb, 0.25f, 0.0f, &x, NULL);            /* the margin: outside */
    cr_expect_float_eq(x, 160.0f, 1e-3f);
    vki_letterbox_to_photo(&lb, 0.25f, 0.0f, NULL, &y);
    cr_expect_float_eq(y, -80.0f, 1e-3f);
    lb = vki_letterbox_fit(300, 200, 100, 50, 0);                  /* stretch */
    vki_letterbox_to_photo(&lb, 0.1f, 0.9f, &x, &y);
    cr_expect_float_eq(x, 30.0f, 1e-3f);
    cr_expect_float_eq(y, 180.0f, 1e-3f);

    vki_letterbox_to_photo(NULL, 0.5f, 0.5f, &x, &y);
    cr_expect(x == 0.0f && y == 0.0f);
    expect_error("vki_letterbox_to_photo: lb is NULL");

    vki_detection d = det(0.9f, 0.25f, 0.25f, 0.75f, 0.75f, 0.5f, 0.5f);
    lb = vki_letterbox_fit(640, 480, 128, 128, 1);
    vki_detections_to_photo(&lb, &d, 1);
    cr_expect_float_eq(d.box[0], 160.0f, 1e-3f);
    cr_expect_float_eq(d.box[1], (32.0f - 16.0f) * 5.0f, 1e-3f);
    cr_expect_float_eq(d.box[2], 480.0f, 1e-3f);
    cr_expect_float_eq(d.box[3], (96.0f - 16.0f) * 5.0f, 1e-3f);
    cr_expect_float_eq(d.keypoints[0][0], 320.0f, 1e-3f);
    cr_expect_float_eq(d.keypoints[0][1], 240.0f, 1e-3f);
    cr_expect_float_eq(d.score, 0.9f, 0);
    vki_detections_to_photo(NULL, &d, 1);
    expect_error("vki_detections_to_photo: lb is NULL");
}

/* The content rectangle is the one the image input (engine/runtime/image.c) fills. */
Test(decode, letterbox_matches_image_input) {
    static const uint8_t pixels[4] = {0};
    const int inputs[][2] = {{128, 128}, {192, 192}, {256, 144}, {144, 256}, {7, 5}, {1, 9}};
    uint32_t state = 0x2468ace1u;
    int checked = 0;
    for (size_t s = 0; s < sizeof inputs / sizeof inputs[0]; s++) {
        for (int trial = 0; trial < 300; trial++) {
            state ^= state << 13, state ^= state >> 17, state ^= state << 5;
            int pw = 1 + (int)(state % 4000u), ph = 1 + (int)((state >> 12) % 3000u);
            if (trial < 4) pw = trial < 2 ? 1 : 16384, ph = trial % 2 ? 1 : 16384;
            const int keep = trial % 3 != 0;
            vki_image img = {.format = VKI_PIXEL_RGB888, .width = pw, .height = ph,
                             .data = pixels};
            vki_image_transform t = {.letterbox = keep};
            const int shape[4] = {1, inputs[s][1], inputs[s][0], 3};
            vki_image_job job;
            cr_assert_eq(vki_image_job_make("test", "input 0", &img, &t, 4, shape, &job), VKI_OK,
                         "%s", vki_last_error());
            vki_letterbox lb = vki_letterbox_fit(pw, ph, inputs[s][0], inputs[s][1], keep);
            cr_expect(lb.content_x == job.params.content_x &&
                          lb.content_y == job.params.content_y &&
                          lb.content_width == job.params.content_w &&
                          lb.content_height == job.params.content_h,
                      "%dx%d into %dx%d (keep %d): %d,%d %dx%d, image.c %d,%d %dx%d", pw, ph,
                      inputs[s][0], inputs[s][1], keep, lb.content_x, lb.content_y,
                      lb.content_width, lb.content_height, job.params.content_x,
                      job.params.content_y, job.params.content_w, job.params.content_h);
            checked++;
        }
    }
    cr_log_info("letterbox: %d fits agree with engine/runtime/image.c", checked);
}

/* ---- landmarks ---------------------------------------------------------------------- */

Test(decode, landmarks) {
    /* 640x480 into 256x256: content y 32, 256x192, 2.5 photo pixels per input pixel. */
    vki_letterbox lb = vki_letterbox_fit(640, 480, 256, 256, 1);
    expect_content(lb, 0, 32, 256, 192);
    const float pose[2 * 5] = {128, 128, 10, 0, 2,   0, 32, -4, -30, 30};
    vki_landmark l[2];
    cr_assert_eq(vki_decode_landmarks(pose, 2, 5, &lb, l), VKI_OK, "%s", vki_last_error());
    cr_expect_float_eq(l[0].x, 320.0f, 1e-3f);
    cr_expect_float_eq(l[0].y, 240.0f, 1e-3f);
    cr_expect_float_eq(l[0].z, 25.0f, 1e-3f);
    cr_expect_float_eq(l[0].visibility, 0.5f, 1e-6f);
    cr_expect_float_eq(l[0].presence, sigmoidf(2.0f), 1e-6f);
    cr_expect_float_eq(l[1].x, 0.0f, 1e-3f);
    cr_expect_float_eq(l[1].y, 0.0f, 1e-3f);
    cr_expect_float_eq(l[1].z, -10.0f, 1e-3f);
    cr_expect(l[1].visibility < 1e-12f && l[1].presence > 0.999999f);

    const float hand[2 * 3] = {256, 224, 1, 64, 128, 0};
    cr_assert_eq(vki_decode_landmarks(hand, 2, 3, &lb, l), VKI_OK);
    cr_expect_float_eq(l[0].x, 640.0f, 1e-3f);
    cr_expect_float_eq(l[0].y, 480.0f, 1e-3f);
    cr_expect_float_eq(l[0].z, 2.5f, 1e-4f);
    cr_expect_float_eq(l[1].x, 160.0f, 1e-3f);
    cr_expect_float_eq(l[1].y, 240.0f, 1e-3f);
    cr_expect(l[0].visibility == 1.0f && l[0].presence == 1.0f);
    cr_assert_eq(vki_decode_landmarks(pose, 2, 4, &lb, l), VKI_OK);   /* 4: visibility only */
    cr_expect_float_eq(l[0].visibility, 0.5f, 1e-6f);
    cr_expect(l[0].presence == 1.0f);
    cr_expect_float_eq(l[1].x, 5.0f, 1e-3f);   /* 4 values a point: point 1 is 2, 0, 32, -4 */

    cr_expect_eq(vki_decode_landmarks(hand, 2, 6, &lb, l), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("values_per_point is 6");
    cr_expect_eq(vki_decode_landmarks(hand, 2, 2, &lb, l), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_decode_landmarks(hand, 0, 3, &lb, l), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("num_points is 0");
    cr_expect_eq(vki_decode_landmarks(NULL, 2, 3, &lb, l), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_decode_landmarks: raw is NULL");
    cr_expect_eq(vki_decode_landmarks(hand, 2, 3, NULL, l), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("lb is NULL");
    cr_expect_eq(vki_decode_landmarks(hand, 2, 3, &lb, NULL), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("out is NULL");
    vki_letterbox empty = {0};
    cr_expect_eq(vki_decode_landmarks(hand, 2, 3, &empty, l), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("lb is empty");
}

Test(decode, landmark_connections) {
    const int(*pairs)[2] = NULL;
    int n = vki_landmark_connections(VKI_TASK_POSE_LANDMARKS, &pairs);
    cr_assert_eq(n, 35);
    cr_assert(pairs);
    int seen[33] = {0};
    for (int i = 0; i < n; i++) {
        cr_expect(pairs[i][0] >= 0 && pairs[i][0] < 33 && pairs[i][1] >= 0 && pairs[i][1] < 33);
        seen[pairs[i][0]] = seen[pairs[i][1]] = 1;
    }
    for (int i = 0; i < 33; i++) cr_expect(seen[i], "pose point %d is in no pair", i);
    n = vki_landmark_connections(VKI_TASK_HAND_LANDMARKS, &pairs);
    cr_assert_eq(n, 21);
    int degree[21] = {0};
    for (int i = 0; i < n; i++) {
        cr_expect(pairs[i][0] >= 0 && pairs[i][0] < 21 && pairs[i][1] >= 0 && pairs[i][1] < 21);
        degree[pairs[i][0]]++, degree[pairs[i][1]]++;
    }
    /* The wrist joins the thumb, the index and the little finger; fingertips end chains. */
    cr_expect_eq(degree[0], 3);
    const int tips[5] = {4, 8, 12, 16, 20};
    for (int i = 0; i < 5; i++) cr_expect_eq(degree[tips[i]], 1, "tip %d", tips[i]);
    pairs = (const int(*)[2])1;
    cr_expect_eq(vki_landmark_connections(VKI_TASK_FACE_MESH, &pairs), 0);
    cr_expect_null(pairs);
    cr_expect_eq(vki_landmark_connections(VKI_TASK_NONE, NULL), 0);
    cr_expect_eq(vki_landmark_connections(VKI_TASK_HAND_LANDMARKS, NULL), 21);
}

/* ---- masks -------------------------------------------------------------------------- */

Test(decode, mask_gradient) {
    /* A horizontal ramp x / 3 over a 4x4 mask covering a 4x4 input; an 8x8 photo stretched:
     * photo pixel i's centre is at mask x (i + 0.5) / 2 - 0.5, clamped to 0 .. 3. */
    float mask[16];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) mask[y * 4 + x] = (float)x / 3.0f;
    vki_letterbox lb = vki_letterbox_fit(8, 8, 4, 4, 0);
    float out[64];
    cr_assert_eq(vki_mask_to_photo(mask, 4, 4, &lb, out), VKI_OK, "%s", vki_last_error());
    for (int j = 0; j < 8; j++) {
        for (int i = 0; i < 8; i++) {
            float mx = fminf(fmaxf((i + 0.5f) / 2.0f - 0.5f, 0.0f), 3.0f);
            cr_expect_float_eq(out[j * 8 + i], mx / 3.0f, 1e-6f, "pixel %d,%d", i, j);
        }
    }
    /* An 8x4 photo letterboxed into the 4x4 input (content y 1, 4x2) over a vertical ramp
     * y / 3: photo row j at input y 1 + (j + 0.5) / 2, mask y that - 0.5. */
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) mask[y * 4 + x] = (float)y / 3.0f;
    lb = vki_letterbox_fit(8, 4, 4, 4, 1);
    expect_content(lb, 0, 1, 4, 2);
    cr_assert_eq(vki_mask_to_photo(mask, 4, 4, &lb, out), VKI_OK);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 8; i++)
            cr_expect_float_eq(out[j * 8 + i], (0.75f + 0.5f * (float)j) / 3.0f, 1e-6f,
                               "pixel %d,%d", i, j);
    /* A mask at a different resolution than the input: 2x2 over the 4x4 input. */
    const float small[4] = {0.0f, 1.0f, 0.0f, 1.0f};
    lb = vki_letterbox_fit(4, 4, 4, 4, 0);
    cr_assert_eq(vki_mask_to_photo(small, 2, 2, &lb, out), VKI_OK);
    const float row[4] = {0.0f, 0.25f, 0.75f, 1.0f};
    for (int i = 0; i < 4; i++) cr_expect_float_eq(out[i], row[i], 1e-6f, "pixel %d", i);
    /* Values outside 0..1 are clamped. */
    const float wild[4] = {-3.0f, 7.0f, NAN, 0.5f};
    lb = vki_letterbox_fit(2, 2, 2, 2, 0);
    cr_assert_eq(vki_mask_to_photo(wild, 2, 2, &lb, out), VKI_OK);
    cr_expect(out[0] == 0.0f && out[1] == 1.0f && out[2] == 0.0f && out[3] == 0.5f);

    cr_expect_eq(vki_mask_to_photo(NULL, 2, 2, &lb, out), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("vki_mask_to_photo: mask is NULL");
    cr_expect_eq(vki_mask_to_photo(wild, 0, 2, &lb, out), VKI_ERROR_INVALID_ARGUMENT);
    expect_error("mask size 0x2");
    cr_expect_eq(vki_mask_to_photo(wild, 2, 2, NULL, out), VKI_ERROR_INVALID_ARGUMENT);
    cr_expect_eq(vki_mask_to_photo(wild, 2, 2, &lb, NULL), VKI_ERROR_INVALID_ARGUMENT);
}

/* ---- classification ----------------------------------------------------------------- */

Test(decode, top_k) {
    const float s[7] = {0.1f, 0.5f, 0.5f, 0.9f, NAN, 0.5f, -1.0f};
    int classes[7];
    float values[7];
    cr_assert_eq(vki_top_k(s, 7, 4, classes, values), 4);
    const int want[4] = {3, 1, 2, 5};
    for (int i = 0; i < 4; i++) cr_expect_eq(classes[i], want[i], "rank %d: %d", i, classes[i]);
    cr_expect_float_eq(values[0], 0.9f, 0);
    cr_expect_float_eq(values[3], 0.5f, 0);
    cr_assert_eq(vki_top_k(s, 7, 10, classes, values), 7);
    const int all[7] = {3, 1, 2, 5, 0, 6, 4};   /* NaN last */
    for (int i = 0; i < 7; i++) cr_expect_eq(classes[i], all[i], "rank %d: %d", i, classes[i]);
    cr_assert_eq(vki_top_k(s, 7, 2, NULL, values), 2);
    cr_expect_float_eq(values[1], 0.5f, 0);
    cr_expect_eq(vki_top_k(s, 7, 3, NULL, NULL), 3);
    cr_expect_eq(vki_top_k(s, 0, 3, classes, values), 0);
    cr_expect_eq(vki_top_k(s, 7, 0, classes, values), 0);
    cr_expect_eq(vki_top_k(NULL, 7, 3, classes, values), -1);
    expect_error("vki_top_k: scores is NULL");
    /* A long list, checked against a plain count: the element ranked r has exactly r
     * elements before it. */
    enum { N = 1000 };
    static float many[N];
    uint32_t state = 99;
    for (int i = 0; i < N; i++) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        many[i] = (float)(state % 50u);
    }
    int top[20];
    cr_assert_eq(vki_top_k(many, N, 20, top, NULL), 20);
    for (int r = 0; r < 20; r++) {
        int before = 0;
        for (int i = 0; i < N; i++)
            before += many[i] > many[top[r]] || (many[i] == many[top[r]] && i < top[r]);
        cr_expect_eq(before, r, "rank %d", r);
    }
    cr_expect_float_eq(vki_sigmoid(0.0f), 0.5f, 0);
    cr_expect_float_eq(vki_sigmoid(2.0f), 0.880797f, 1e-6f);
}

/* ---- against LiteRT and against vkinfer's graph -------------------------------------- */

static float *read_data(const char *name, size_t count) {
    char path[1024];
    snprintf(path, sizeof path, "%s/decode/%s", harness_data_dir(), name);
    return harness_read_f32(path, count);
}

static float box_iou(const float *a, const float *b) {
    float iw = fminf(a[2], b[2]) - fmaxf(a[0], b[0]), ih = fminf(a[3], b[3]) - fmaxf(a[1], b[1]);
    if (iw <= 0 || ih <= 0) return 0;
    float i = iw * ih;
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i);
}

/* The astronaut (512x512) fitted into face_detection_short_range's 128x128 input; the
 * face is at x 179..273, y 81..176 in the photo. */
#define FACE_BOXES 896
static const float true_face[4] = {179, 81, 273, 176};

static int decode_face(const float *boxes, const float *scores, vki_detection *d, int max) {
    vki_detector_options o;
    cr_assert_eq(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, FACE_BOXES, &o),
                 VKI_OK);
    vki_anchor anchors[FACE_BOXES];
    cr_assert_eq(vki_ssd_anchors(&o.anchors, anchors, FACE_BOXES), FACE_BOXES);
    int count;
    cr_assert_eq(vki_decode_detections(boxes, scores, anchors, &o, d, max, &count), VKI_OK, "%s",
                 vki_last_error());
    vki_letterbox lb = vki_letterbox_fit(512, 512, 128, 128, 1);
    vki_detections_to_photo(&lb, d, count);
    return count;
}

Test(decode, litert_face) {
    float *boxes = read_data("litert_face_short_boxes.f32", FACE_BOXES * 16);
    float *scores = read_data("litert_face_short_scores.f32", FACE_BOXES);
    vki_detection d[8];
    int n = decode_face(boxes, scores, d, 8);
    cr_assert_eq(n, 1, "LiteRT's outputs decode to %d faces, want 1", n);
    float iou = box_iou(d[0].box, true_face);
    cr_log_info("LiteRT: face score %.4f box x %.1f..%.1f y %.1f..%.1f (true 179..273, "
                "81..176): IoU %.3f", (double)d[0].score, (double)d[0].box[0],
                (double)d[0].box[2], (double)d[0].box[1], (double)d[0].box[3], (double)iou);
    printf("decode: LiteRT face: score %.4f box [%.1f, %.1f, %.1f, %.1f] IoU %.3f with "
           "[179, 81, 273, 176]\n", (double)d[0].score, (double)d[0].box[0], (double)d[0].box[1],
           (double)d[0].box[2], (double)d[0].box[3], (double)iou);
    cr_expect_geq(iou, 0.5f, "IoU %g", (double)iou);
    /* The eyes lie inside the box, in its upper half, the right eye (keypoint 0) on the
     * photo's left. */
    cr_expect(d[0].keypoints[0][0] < d[0].keypoints[1][0]);
    for (int k = 0; k < 2; k++) {
        cr_expect(d[0].keypoints[k][0] > d[0].box[0] && d[0].keypoints[k][0] < d[0].box[2]);
        cr_expect(d[0].keypoints[k][1] > d[0].box[1] &&
                  d[0].keypoints[k][1] < (d[0].box[1] + d[0].box[3]) / 2);
    }
    free(boxes);
    free(scores);
}

Test(decode, vkinfer_face_matches_litert) {
    size_t size;
    uint8_t *bytes = harness_read_model("face_detection_short_range.tflite", &size);
    if (!bytes) cr_skip_test("face_detection_short_range.tflite is not in $VKI_MODEL_DIR");
    vki_model *m;
    cr_assert_eq(vki_model_load_memory(bytes, size, "face_detection_short_range", &m), VKI_OK,
                 "%s", vki_last_error());
    free(bytes);
    vki_graph *g;
    vki_graph_options go = {.precision = VKI_PRECISION_FP32};
    cr_assert_eq(vki_graph_create(harness_context(), m, &go, &g), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
    float *input = read_data("astronaut_128.f32", 128 * 128 * 3);
    cr_assert_eq(vki_graph_set_input(g, 0, input, 128 * 128 * 3 * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_run(g), VKI_OK, "%s", vki_last_error());
    float *boxes = malloc(FACE_BOXES * 16 * sizeof(float));
    float *scores = malloc(FACE_BOXES * sizeof(float));
    cr_assert(boxes && scores);
    cr_assert_eq(vki_graph_get_output(g, 0, boxes, FACE_BOXES * 16 * sizeof(float)), VKI_OK);
    cr_assert_eq(vki_graph_get_output(g, 1, scores, FACE_BOXES * sizeof(float)), VKI_OK);
    vki_graph_destroy(g);

    float *ref_boxes = read_data("litert_face_short_boxes.f32", FACE_BOXES * 16);
    float *ref_scores = read_data("litert_face_short_scores.f32", FACE_BOXES);
    vki_detection mine[8], ref[8];
    int n = decode_face(boxes, scores, mine, 8), n_ref = decode_face(ref_boxes, ref_scores, ref, 8);
    cr_assert_eq(n, n_ref, "vkinfer decodes %d faces, LiteRT %d", n, n_ref);
    for (int i = 0; i < n; i++) {
        float worst = 0;
        for (int c = 0; c < 4; c++) worst = fmaxf(worst, fabsf(mine[i].box[c] - ref[i].box[c]));
        for (int k = 0; k < mine[i].num_keypoints; k++)
            for (int c = 0; c < 2; c++)
                worst = fmaxf(worst, fabsf(mine[i].keypoints[k][c] - ref[i].keypoints[k][c]));
        printf("decode: vkinfer face %d: score %.4f (LiteRT %.4f) box [%.1f, %.1f, %.1f, %.1f], "
               "%.3f photo pixels from LiteRT's at most\n", i, (double)mine[i].score,
               (double)ref[i].score, (double)mine[i].box[0], (double)mine[i].box[1],
               (double)mine[i].box[2], (double)mine[i].box[3], (double)worst);
        cr_expect_leq(worst, 0.5f, "face %d: %g photo pixels apart", i, (double)worst);
        cr_expect_leq(fabsf(mine[i].score - ref[i].score), 1e-3f, "face %d: scores %g and %g", i,
                      (double)mine[i].score, (double)ref[i].score);
    }
    free(input);
    free(boxes);
    free(scores);
    free(ref_boxes);
    free(ref_scores);
}
