/* solution.c: one of MediaPipe's solutions (face mesh, hands, pose) on a photo, as an app
 * would write it against the library alone: the detector on the letterboxed photo, a
 * rotated region of interest from each detection, the landmark model on that region cut
 * out and turned upright on the device, its points mapped back onto the photo.
 *
 *   solution DETECTOR_MODEL LANDMARK_MODEL PHOTO.ppm
 *
 * PHOTO is a binary PPM (P6, 8 bits a channel): any image tool writes one, and reading it
 * takes a dozen lines. Prints what was found:
 *
 *   face_mesh: 1 found
 *   object 0: presence 1.000
 *   x y
 *   ...                                  (one line per landmark, photo pixels)
 *
 * hands adds the hand's side ("the person's left hand" on an unmirrored photo). Exits 0
 * when it ran (found or not), 1 on a failure (what failed and why on stderr), 2 on bad
 * arguments. `vkinfer run LANDMARK_MODEL --detector DETECTOR_MODEL --image PHOTO` runs the
 * same steps with tracking over frames and drawing on top.
 *
 * Build: cc solution.c $(pkg-config --cflags --libs vkinfer) */
#include <vkinfer.h>
#include <vkinfer_decode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUTS 8
#define MAX_OBJECTS 4                   /* at least every solution's max_objects */
#define MAX_POINTS 478

typedef struct stage {
    vki_model *model;
    vki_graph *graph;
    vki_task task;
    int width, height;                  /* the model's image input */
    int n_out;
    float *out[MAX_OUTPUTS];
    vki_tensor_info info[MAX_OUTPUTS];  /* each output's shape and element count */
} stage;

static int fail(const char *what, vki_status s) {
    fprintf(stderr, "solution: %s: %s: %s\n", what, vki_status_name(s), vki_last_error());
    return 0;
}

/* A P6 PPM with maxval 255 into RGB8 pixels (malloc'd); NULL with a message otherwise. */
static unsigned char *read_ppm(const char *path, int *w, int *h) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "solution: cannot open %s\n", path);
        return NULL;
    }
    int maxval = 0;
    unsigned char *rgb = NULL;
    if (fscanf(f, "P6 %d %d %d", w, h, &maxval) == 3 && maxval == 255 && *w > 0 && *h > 0 &&
        *w <= 16384 && *h <= 16384 && fgetc(f) != EOF) {
        size_t n = (size_t)*w * (size_t)*h * 3;
        rgb = malloc(n);
        if (rgb && fread(rgb, 1, n, f) != n) {
            free(rgb);
            rgb = NULL;
        }
    }
    fclose(f);
    if (!rgb) fprintf(stderr, "solution: %s is not a P6 PPM of 8-bit channels\n", path);
    return rgb;
}

static int stage_open(vki_context *ctx, const char *path, stage *st) {
    vki_status s = vki_model_load_file(path, &st->model);
    if (s) return fail(path, s);
    st->task = vki_task_guess(st->model);
    vki_tensor_info in;
    if ((s = vki_model_input_info(st->model, 0, &in)) != VKI_OK) return fail(path, s);
    st->width = in.shape[2];
    st->height = in.shape[1];
    st->n_out = vki_model_output_count(st->model);
    if (st->n_out > MAX_OUTPUTS) st->n_out = MAX_OUTPUTS;
    for (int i = 0; i < st->n_out; i++) {
        if ((s = vki_model_output_info(st->model, i, &st->info[i])) != VKI_OK) return fail(path, s);
        if (!(st->out[i] = malloc(st->info[i].element_count * sizeof(float))))
            return fail(path, VKI_ERROR_OUT_OF_MEMORY);
    }
    if ((s = vki_graph_create(ctx, st->model, NULL, &st->graph)) != VKI_OK) return fail(path, s);
    return 1;
}

/* The photo through transform into the model, run, every output read back. */
static int stage_run(stage *st, const vki_image *photo, const vki_image_transform *t) {
    vki_status s = vki_graph_set_input_image(st->graph, 0, photo, t);
    if (!s) s = vki_graph_run(st->graph);
    for (int i = 0; !s && i < st->n_out; i++)
        s = vki_graph_get_output(st->graph, i, st->out[i], st->info[i].element_count * sizeof(float));
    return s ? fail(vki_task_name(st->task), s) : 1;
}

/* The output holding n values (the k-th such), or -1. */
static int output_of(const stage *st, size_t n, int k) {
    for (int i = 0; i < st->n_out; i++)
        if (st->info[i].element_count == n && k-- == 0) return i;
    return -1;
}

static void stage_close(stage *st) {
    for (int i = 0; i < MAX_OUTPUTS; i++) free(st->out[i]);
    vki_graph_destroy(st->graph);
    vki_model_destroy(st->model);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: solution DETECTOR_MODEL LANDMARK_MODEL PHOTO.ppm\n");
        return 2;
    }
    int ok = 0, w = 0, h = 0;
    stage det = {0}, lm = {0};
    vki_context *ctx = NULL;
    vki_anchor *anchors = NULL;
    unsigned char *rgb = read_ppm(argv[3], &w, &h);
    vki_status s = rgb ? vki_context_create(NULL, &ctx) : VKI_OK;
    if (!rgb || (s && !fail("vki_context_create", s)) || !stage_open(ctx, argv[1], &det) ||
        !stage_open(ctx, argv[2], &lm))
        goto done;

    /* Which solution the landmark model belongs to, and its settings. */
    vki_solution sol = VKI_SOLUTION_NONE;
    vki_solution_defaults d;
    for (int k = VKI_SOLUTION_NONE + 1; k < VKI_SOLUTION_COUNT && !sol; k++)
        if (vki_solution_defaults_for((vki_solution)k, &d) == VKI_OK && d.landmarks == lm.task)
            sol = (vki_solution)k;
    if (!sol || det.task != d.detector) {
        fprintf(stderr, "solution: %s (%s) and %s (%s) are not one of MediaPipe's solutions\n",
                argv[1], vki_task_name(det.task), argv[2], vki_task_name(lm.task));
        goto done;
    }
    const vki_image photo = {.format = VKI_PIXEL_RGB888, .width = w, .height = h, .data = rgb};

    /* 1. The detector on the letterboxed photo: face and pose detection take [-1, 1],
     *    palm detection [0, 1] (their graphs' ImageToTensorCalculator). */
    float c = det.task == VKI_TASK_PALM_DETECTION ? 0.0f : 127.5f;
    float k = det.task == VKI_TASK_PALM_DETECTION ? 255.0f : 127.5f;
    vki_image_transform letterbox = {.letterbox = 1, .mean = {c, c, c}, .std = {k, k, k}};
    if (!stage_run(&det, &photo, &letterbox)) goto done;
    vki_detector_options o;
    int num_boxes = (int)det.info[1].element_count;   /* boxes output 0, scores output 1 */
    if ((s = vki_detector_options_for(det.task, det.width, det.height, num_boxes, &o)) != VKI_OK) {
        fail("vki_detector_options_for", s);
        goto done;
    }
    o.min_score_thresh = d.detection_min_score;      /* the solution's, as MediaPipe's */
    anchors = malloc((size_t)num_boxes * sizeof *anchors);
    if (!anchors || vki_ssd_anchors(&o.anchors, anchors, num_boxes) != num_boxes) {
        fprintf(stderr, "solution: anchors: %s\n", anchors ? vki_last_error() : "no memory");
        goto done;
    }
    vki_detection found[MAX_OBJECTS];
    int n_found = 0;
    if ((s = vki_decode_detections(det.out[0], det.out[1], anchors, &o, found, d.max_objects,
                                   &n_found)) != VKI_OK) {
        fail("vki_decode_detections", s);
        goto done;
    }
    vki_letterbox lb = vki_letterbox_fit(w, h, det.width, det.height, 1);
    vki_detections_to_photo(&lb, found, n_found);

    /* 2. Per detection: its region, the landmark model on the region's crop. */
    int n_points = sol == VKI_SOLUTION_POSE ? 39 : vki_task_landmark_count(lm.task);
    int per_point = sol == VKI_SOLUTION_POSE ? 5 : 3;
    int points = output_of(&lm, (size_t)n_points * (size_t)per_point, 0);
    int flag = output_of(&lm, 1, 0), side = output_of(&lm, 1, 1);
    int heatmap = -1;
    for (int i = 0; i < lm.n_out && d.heatmap_kernel > 0; i++)
        if (lm.info[i].rank == 4 && lm.info[i].shape[3] == n_points)
            heatmap = i;                                 /* pose: [1, 64, 64, 39] */
    if (points < 0 || flag < 0 || n_points > MAX_POINTS) {
        fprintf(stderr, "solution: %s: outputs are not MediaPipe's\n", argv[2]);
        goto done;
    }
    printf("%s: ", vki_solution_name(sol));
    static vki_landmark pts[MAX_OBJECTS][MAX_POINTS];
    float presence[MAX_OBJECTS], hand_score[MAX_OBJECTS];
    int n = 0;
    for (int i = 0; i < n_found; i++) {
        vki_rect roi;
        if ((s = vki_roi_from_detection(sol, &found[i], w, h, &roi)) != VKI_OK) {
            fail("vki_roi_from_detection", s);
            goto done;
        }
        vki_image_transform crop = {.roi = roi, .border = d.crop_border};   /* values 0 .. 1 */
        if (!stage_run(&lm, &photo, &crop)) goto done;
        float p = lm.out[flag][0];
        if (!vki_solution_present(sol, p)) continue;
        presence[n] = d.presence_is_logit ? vki_sigmoid(p) : p;
        hand_score[n] = side >= 0 ? lm.out[side][0] : 0;
        if (heatmap >= 0) {
            const vki_tensor_info *t = &lm.info[heatmap];
            s = vki_landmarks_refine_from_heatmap(lm.out[points], n_points, per_point, lm.width,
                                                  lm.height, lm.out[heatmap], t->shape[2],
                                                  t->shape[1], d.heatmap_kernel,
                                                  d.heatmap_min_confidence);
            if (s) {
                fail("vki_landmarks_refine_from_heatmap", s);
                goto done;
            }
        }
        if ((s = vki_landmarks_from_roi(lm.out[points], n_points, per_point, &roi, lm.width,
                                        lm.height, pts[n])) != VKI_OK) {
            fail("vki_landmarks_from_roi", s);
            goto done;
        }
        n++;
    }

    /* 3. What was found: pose's 33 landmarks (not its auxiliary points), hands' 21, the
     *    face's 468. */
    printf("%d found\n", n);
    for (int i = 0; i < n; i++) {
        printf("object %d: presence %.3f", i, (double)presence[i]);
        if (sol == VKI_SOLUTION_HANDS)
            printf(", the person's %s hand (score of \"Left\" %.3f)",
                   vki_hand_is_right(hand_score[i], 0) ? "right" : "left", (double)hand_score[i]);
        printf("\n");
        for (int j = 0; j < vki_task_landmark_count(lm.task); j++)
            printf("%.3f %.3f\n", (double)pts[i][j].x, (double)pts[i][j].y);
    }
    ok = 1;
done:
    free(anchors);
    stage_close(&lm);
    stage_close(&det);
    vki_context_destroy(ctx);
    free(rgb);
    return ok ? 0 : 1;
}
