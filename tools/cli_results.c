/* cli_results.c: what `vkinfer run` found, for the model families people run: decoding
 * the raw outputs with the library's decoders (vkinfer_decode.h), printing them as text
 * or JSON, and drawing them on the photo (boxes and keypoints, the mask blended,
 * skeletons with joints joined, points). Which output is which is found by shape, as
 * vki_task_guess finds the task. */
#include "cli.h"
#include "picture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char GREEN[3] = {40, 220, 60}, RED[3] = {240, 40, 40},
                           BLUE[3] = {40, 120, 255}, YELLOW[3] = {250, 220, 40};

int cli_output_of_count(const vki_model *m, size_t count, int skip) {
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        if (t.element_count == count && skip-- == 0) return i;
    }
    return -1;
}

static int is_detection(vki_task t) {
    return t == VKI_TASK_FACE_DETECTION || t == VKI_TASK_PALM_DETECTION ||
           t == VKI_TASK_POSE_DETECTION;
}

static int decode_detections(const cli *c, const vki_model *m, float **outs, cli_results *r) {
    int boxes = -1, scores = -1, n = 0;
    for (int i = 0; i < vki_model_output_count(m); i++) {
        vki_tensor_info t;
        vki_model_output_info(m, i, &t);
        if (t.rank != 3) continue;
        if (t.shape[2] == 1) scores = i, n = t.shape[1];
        else if (t.shape[2] >= 4) boxes = i;
    }
    vki_tensor_info in, bt;
    vki_model_input_info(m, 0, &in);
    if (boxes < 0 || scores < 0 || in.rank != 4) {
        fprintf(stderr, "vkinfer: %s: the model has no [1,N,coords] and [1,N,1] outputs to "
                        "decode as detections\n", vki_task_name(r->task));
        return 0;
    }
    vki_model_output_info(m, boxes, &bt);
    vki_detector_options o;
    vki_status s = vki_detector_options_for(r->task, in.shape[2], in.shape[1], n, &o);
    if (s) return !cli_fail("decoding detections", s);
    if (bt.shape[1] != n || bt.shape[2] != o.num_coords) {
        fprintf(stderr, "vkinfer: %s: boxes output is [1,%d,%d], the decoder expects [1,%d,%d]\n",
                vki_task_name(r->task), bt.shape[1], bt.shape[2], n, o.num_coords);
        return 0;
    }
    if (c->threshold > 0) o.min_score_thresh = c->threshold;
    r->threshold = o.min_score_thresh;
    vki_anchor *anchors = malloc(sizeof *anchors * (size_t)n);
    if (!anchors) return !cli_fail("decoding detections", VKI_ERROR_OUT_OF_MEMORY);
    int made = vki_ssd_anchors(&o.anchors, anchors, n);
    if (made != n) {
        free(anchors);
        fprintf(stderr, "vkinfer: %s: %d anchors for %d boxes\n", vki_task_name(r->task), made, n);
        return 0;
    }
    s = vki_decode_detections(outs[boxes], outs[scores], anchors, &o, r->detections,
                              CLI_MAX_DETECTIONS, &r->n_detections);
    free(anchors);
    if (s) return !cli_fail("decoding detections", s);
    vki_detections_to_photo(&r->letterbox, r->detections, r->n_detections);
    return 1;
}

/* A mask output of [1,H,W,1] onto the photo; `logits` applies the sigmoid first. */
static int decode_mask(const vki_model *m, float **outs, int index, int logits, cli_results *r) {
    vki_tensor_info t;
    vki_model_output_info(m, index, &t);
    const vki_letterbox *lb = &r->letterbox;
    size_t px = (size_t)lb->photo_width * (size_t)lb->photo_height;
    r->mask = malloc(px * sizeof(float));
    float *probs = logits ? malloc(t.element_count * sizeof(float)) : NULL;
    if (!r->mask || (logits && !probs)) {
        free(probs);
        return !cli_fail("decoding the mask", VKI_ERROR_OUT_OF_MEMORY);
    }
    const float *src = outs[index];
    if (probs) {
        for (size_t i = 0; i < t.element_count; i++) probs[i] = vki_sigmoid(src[i]);
        src = probs;
    }
    vki_status s = vki_mask_to_photo(src, t.shape[2], t.shape[1], lb, r->mask);
    free(probs);
    if (s) return !cli_fail("decoding the mask", s);
    double sum = 0;
    for (size_t i = 0; i < px; i++) sum += r->mask[i];
    r->mask_fraction = px ? sum / (double)px : 0;
    return 1;
}

void cli_task_range(vki_task task, float mean[3], float std[3]) {
    int symmetric = task == VKI_TASK_FACE_DETECTION || task == VKI_TASK_POSE_DETECTION;
    for (int k = 0; k < 3; k++) {
        mean[k] = symmetric ? 127.5f : 0.0f;
        std[k] = symmetric ? 127.5f : 255.0f;
    }
}

vki_solution cli_solution_of(vki_task task) {
    for (int s = VKI_SOLUTION_NONE + 1; s < VKI_SOLUTION_COUNT; s++) {
        vki_solution_defaults d;
        if (vki_solution_defaults_for((vki_solution)s, &d) == VKI_OK && d.landmarks == task)
            return (vki_solution)s;
    }
    return VKI_SOLUTION_NONE;
}

const char *cli_thing_of(vki_task task) {
    return task == VKI_TASK_FACE_MESH ? "face" : task == VKI_TASK_HAND_LANDMARKS ? "hand" : "person";
}

static int decode_landmarks(const cli *c, const vki_model *m, float **outs, cli_results *r) {
    int points = vki_task_landmark_count(r->task);
    int per = r->task == VKI_TASK_POSE_LANDMARKS ? 5 : 3;
    /* Pose outputs 39 points (33 and 6 auxiliary ones); hand 21, face mesh 468. */
    size_t raw_points = r->task == VKI_TASK_POSE_LANDMARKS ? 39 : (size_t)points;
    int index = cli_output_of_count(m, raw_points * (size_t)per, 0);
    if (index < 0 || points > CLI_MAX_LANDMARKS) {
        fprintf(stderr, "vkinfer: %s: no output of %zu values (%zu points x %d)\n",
                vki_task_name(r->task), raw_points * (size_t)per, raw_points, per);
        return 0;
    }
    vki_status s = vki_decode_landmarks(outs[index], points, per, &r->letterbox, r->landmarks);
    if (s) return !cli_fail("decoding landmarks", s);
    r->n_landmarks = points;
    /* The presence score: the first one-value output. The face mesh model gives a logit;
     * the pose and hand models apply their sigmoid themselves. */
    int flag = cli_output_of_count(m, 1, 0);
    r->presence = flag < 0 ? 1.0f
                : r->task == VKI_TASK_FACE_MESH ? vki_sigmoid(outs[flag][0]) : outs[flag][0];
    /* Below it nothing was found: MediaPipe's 0.5 for all three models
     * (vki_solution_defaults), or --threshold. */
    vki_solution_defaults d;
    vki_solution_defaults_for(cli_solution_of(r->task), &d);
    r->presence_min = c->threshold > 0 ? c->threshold : d.presence_threshold;
    if (r->presence < r->presence_min) {
        r->n_landmarks = 0;          /* nothing there: no points, no mask */
        return 1;
    }
    if (r->task == VKI_TASK_POSE_LANDMARKS) {
        /* The segmentation output [1,H,W,1], logits. */
        for (int i = 0; i < vki_model_output_count(m); i++) {
            vki_tensor_info t;
            vki_model_output_info(m, i, &t);
            if (t.rank == 4 && t.shape[3] == 1 && t.shape[1] > 1)
                return decode_mask(m, outs, i, 1, r);
        }
    }
    return 1;
}

int cli_results_decode(const cli *c, const vki_model *m, float **outs, cli_results *r) {
    switch (r->task) {
    case VKI_TASK_FACE_DETECTION:
    case VKI_TASK_PALM_DETECTION:
    case VKI_TASK_POSE_DETECTION: return decode_detections(c, m, outs, r);
    case VKI_TASK_POSE_LANDMARKS:
    case VKI_TASK_HAND_LANDMARKS:
    case VKI_TASK_FACE_MESH: return decode_landmarks(c, m, outs, r);
    case VKI_TASK_SEGMENTATION:
        for (int i = 0; i < vki_model_output_count(m); i++) {
            vki_tensor_info t;
            vki_model_output_info(m, i, &t);
            if (t.rank == 4 && t.shape[3] == 1) return decode_mask(m, outs, i, 0, r);
        }
        fprintf(stderr, "vkinfer: segmentation: the model has no [1,H,W,1] output\n");
        return 0;
    case VKI_TASK_CLASSIFICATION: {
        vki_tensor_info t;
        vki_model_output_info(m, 0, &t);
        r->n_classes = vki_top_k(outs[0], (int)t.element_count, CLI_TOP_K, r->classes, r->scores);
        return r->n_classes > 0;
    }
    default: return 1;
    }
}

void cli_results_print(const cli_results *r) {
    const char *task = vki_task_name(r->task);
    if (is_detection(r->task)) {
        printf("%s: %d found (score >= %.2f)\n", task, r->n_detections, r->threshold);
        for (int i = 0; i < r->n_detections; i++) {
            const vki_detection *d = &r->detections[i];
            printf("  %d: score %.3f box [%.1f, %.1f, %.1f, %.1f] keypoints", i, d->score,
                   d->box[0], d->box[1], d->box[2], d->box[3]);
            for (int k = 0; k < d->num_keypoints; k++)
                printf(" (%.0f,%.0f)", d->keypoints[k][0], d->keypoints[k][1]);
            printf("\n");
        }
    }
    if (vki_task_landmark_count(r->task) && !r->n_landmarks)
        printf("%s: no %s found (presence %.3f < %.2f)\n", task, cli_thing_of(r->task), r->presence,
               r->presence_min);
    if (r->n_landmarks) {
        int shown = r->n_landmarks < 6 ? r->n_landmarks : 6;
        printf("%s: presence %.3f, %d points:", task, r->presence, r->n_landmarks);
        for (int i = 0; i < shown; i++)
            printf(" (%.1f,%.1f)", r->landmarks[i].x, r->landmarks[i].y);
        printf(r->n_landmarks > shown ? " ... (--json lists all)\n" : "\n");
    }
    if (r->mask)
        printf("%s: mask %dx%d (the photo's size), mean %.3f\n",
               r->task == VKI_TASK_SEGMENTATION ? task : "segmentation",
               r->letterbox.photo_width, r->letterbox.photo_height, r->mask_fraction);
    if (r->n_classes) {
        printf("%s: top-%d", task, r->n_classes);
        for (int i = 0; i < r->n_classes; i++) printf(" %d (%.4f)", r->classes[i], r->scores[i]);
        printf("\n");
    }
}

void cli_results_json(const cli_results *r) {
    FILE *f = stdout;
    if (is_detection(r->task)) {
        cli_json_member(f, ", \"min_score\": ", r->threshold);
        fprintf(f, ", \"detections\": [");
        for (int i = 0; i < r->n_detections; i++) {
            const vki_detection *d = &r->detections[i];
            cli_json_sep(f, i);
            cli_json_member(f, "\n  {\"score\": ", d->score);
            fprintf(f, ", \"box\": [");
            for (int k = 0; k < 4; k++) {
                cli_json_sep(f, k);
                cli_json_number(f, d->box[k]);
            }
            fprintf(f, "], \"keypoints\": [");
            for (int k = 0; k < d->num_keypoints; k++) {
                cli_json_sep(f, k);
                fprintf(f, "[");
                cli_json_number(f, d->keypoints[k][0]);
                fprintf(f, ", ");
                cli_json_number(f, d->keypoints[k][1]);
                fprintf(f, "]");
            }
            fprintf(f, "]}");
        }
        fprintf(f, "]");
    }
    if (vki_task_landmark_count(r->task)) {
        cli_json_member(f, ", \"presence\": ", r->presence);
        cli_json_member(f, ", \"presence_min\": ", r->presence_min);
        fprintf(f, ", \"found\": %s, \"landmarks\": [", r->n_landmarks ? "true" : "false");
        for (int i = 0; i < r->n_landmarks; i++) {
            const vki_landmark *l = &r->landmarks[i];
            cli_json_sep(f, i);
            cli_json_member(f, i % 4 ? "{\"x\": " : "\n  {\"x\": ", l->x);
            cli_json_member(f, ", \"y\": ", l->y);
            cli_json_member(f, ", \"z\": ", l->z);
            cli_json_member(f, ", \"visibility\": ", l->visibility);
            fprintf(f, "}");
        }
        fprintf(f, "]");
    }
    if (r->mask) {
        fprintf(f, ", \"mask\": {\"width\": %d, \"height\": %d, \"mean\": ",
                r->letterbox.photo_width, r->letterbox.photo_height);
        cli_json_number(f, r->mask_fraction);
        fprintf(f, "}");
    }
    if (r->n_classes) {
        fprintf(f, ", \"classes\": [");
        for (int i = 0; i < r->n_classes; i++) {
            cli_json_sep(f, i);
            fprintf(f, "{\"class\": %d, \"score\": ", r->classes[i]);
            cli_json_number(f, r->scores[i]);
            fprintf(f, "}");
        }
        fprintf(f, "]");
    }
}

int cli_results_draw(const cli_results *r, const char *photo, const char *path) {
    vki_picture p;
    char err[512];
    if (!vki_picture_load(photo, &p, err, sizeof err)) {
        fprintf(stderr, "vkinfer: --out: %s\n", err);
        return 0;
    }
    /* Line widths and dots grow with the photo: 2 px at 512 px. */
    int side = p.width > p.height ? p.width : p.height;
    int thick = side / 256 > 1 ? side / 256 : 1;
    float dot = (float)thick * 1.5f + 1.0f;
    if (r->mask) vki_picture_blend_mask(&p, r->mask, BLUE, 0.5f);
    for (int i = 0; i < r->n_detections; i++) {
        const vki_detection *d = &r->detections[i];
        vki_picture_rect(&p, d->box[0], d->box[1], d->box[2], d->box[3], GREEN, thick);
        for (int k = 0; k < d->num_keypoints; k++)
            vki_picture_dot(&p, d->keypoints[k][0], d->keypoints[k][1], dot, RED);
    }
    const int(*pairs)[2] = NULL;
    int n_pairs = r->n_landmarks ? vki_landmark_connections(r->task, &pairs) : 0;
    for (int i = 0; i < n_pairs; i++) {
        int a = pairs[i][0], b = pairs[i][1];
        if (a < r->n_landmarks && b < r->n_landmarks)
            vki_picture_line(&p, r->landmarks[a].x, r->landmarks[a].y, r->landmarks[b].x,
                             r->landmarks[b].y, YELLOW, thick);
    }
    float point = r->n_landmarks > 100 ? (float)thick : dot;
    for (int i = 0; i < r->n_landmarks; i++)
        vki_picture_dot(&p, r->landmarks[i].x, r->landmarks[i].y, point, RED);
    int ok = vki_picture_save_png(path, &p, err, sizeof err);
    if (!ok) fprintf(stderr, "vkinfer: --out: %s\n", err);
    vki_picture_free(&p);
    return ok;
}

void cli_results_free(cli_results *r) {
    free(r->mask);
    r->mask = NULL;
}
