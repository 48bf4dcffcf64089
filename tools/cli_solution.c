/* cli_solution.c: `vkinfer run LANDMARK_MODEL --detector DETECTOR_MODEL --image PHOTO` (or
 * --frames DIR), MediaPipe's two-stage solutions as its graphs run them: the detector on
 * the letterboxed photo, a rotated region of interest from each detection
 * (vki_roi_from_detection), the landmark model on that region cut out of the photo and
 * turned upright on the device (vki_image_transform.roi), its landmarks mapped back onto
 * the photo (vki_landmarks_from_roi), and, over frames, the next frame's region from
 * those landmarks (vki_roi_from_landmarks), so that the detector runs only when tracking
 * is lost. Draws and prints what was found. */
#include "cli.h"
#include "picture.h"

#include "../tuner/stats.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SOLUTION_MAX_POINTS 478
#define SOLUTION_MAX_FRAMES 100000

static const unsigned char GREEN[3] = {40, 220, 60}, RED[3] = {240, 40, 40},
                           BLUE[3] = {40, 120, 255}, YELLOW[3] = {250, 220, 40};

/* One model, its graph and its outputs. */
typedef struct stage {
    const char *path;
    vki_model *model;
    vki_task task;
    vki_graph *graph;
    int in_w, in_h;
    int n_out;
    float *outs[CLI_MAX_FILES];
} stage;

static int stage_open(const char *path, stage *st) {
    memset(st, 0, sizeof *st);
    st->path = path;
    vki_status s = vki_model_load_file(path, &st->model);
    if (s) return !cli_fail("loading the model", s);
    st->task = vki_task_guess(st->model);
    st->n_out = vki_model_output_count(st->model);
    vki_tensor_info in;
    vki_model_input_info(st->model, 0, &in);
    if (vki_model_input_count(st->model) != 1 || in.rank != 4 || in.shape[3] != 3 ||
        st->n_out > CLI_MAX_FILES) {
        fprintf(stderr, "vkinfer: %s: a solution's models take one [1,H,W,3] image input\n", path);
        return 0;
    }
    st->in_w = in.shape[2];
    st->in_h = in.shape[1];
    for (int i = 0; i < st->n_out; i++) {
        vki_tensor_info t;
        vki_model_output_info(st->model, i, &t);
        st->outs[i] = malloc(t.element_count * sizeof(float) + 1);
        if (!st->outs[i]) return !cli_fail("reading outputs", VKI_ERROR_OUT_OF_MEMORY);
    }
    return 1;
}

static void stage_free(stage *st) {
    for (int i = 0; i < CLI_MAX_FILES; i++) free(st->outs[i]);
    vki_graph_destroy(st->graph);
    vki_model_destroy(st->model);
    memset(st, 0, sizeof *st);
}

/* Feeds the frame through transform, runs, reads every output. */
static vki_status stage_run(stage *st, const vki_image *image, const vki_image_transform *t) {
    vki_status s = vki_graph_set_input_image(st->graph, 0, image, t);
    if (!s) s = vki_graph_run(st->graph);
    for (int i = 0; !s && i < st->n_out; i++) {
        vki_tensor_info info;
        vki_model_output_info(st->model, i, &info);
        s = vki_graph_get_output(st->graph, i, st->outs[i], info.element_count * sizeof(float));
    }
    return s;
}

/* One object found in a frame. */
typedef struct object {
    vki_rect roi;                    /* where the landmark model looked */
    float presence;                  /* the model's flag as a probability */
    int right;                       /* hands: the person's right hand */
    float handedness;                /* hands: the raw score (of "Left", MediaPipe's label) */
    int n_points;                    /* landmarks below, all the model's (pose 39) */
    vki_landmark points[SOLUTION_MAX_POINTS];
} object;

typedef struct solution_run {
    vki_solution solution;
    vki_solution_defaults d;
    int max_objects;                 /* --num, else d.max_objects */
    stage det, lm;
    float presence_min;
    int values_per_point, raw_points;
    int points_out, flag_out, hand_out, mask_out, heatmap_out;
    int heatmap_w, heatmap_h;
    vki_rect tracked[CLI_MAX_OBJECTS];
    int n_tracked;
    object found[CLI_MAX_OBJECTS];
    int n_found;
    float *mask;                     /* pose: photo-sized person probability, or NULL */
    int mask_w, mask_h;
    int detector_runs;
} solution_run;

/* Axis-aligned bounds of a rotated rectangle, for telling tracked and new regions apart. */
static void rect_bounds(const vki_rect *r, float b[4]) {
    float c = fabsf(cosf(r->rotation)), s = fabsf(sinf(r->rotation));
    float hw = 0.5f * (r->width * c + r->height * s), hh = 0.5f * (r->width * s + r->height * c);
    b[0] = r->x_center - hw, b[1] = r->y_center - hh, b[2] = r->x_center + hw,
    b[3] = r->y_center + hh;
}

static float rect_iou(const vki_rect *a, const vki_rect *b) {
    float p[4], q[4];
    rect_bounds(a, p);
    rect_bounds(b, q);
    float w = fminf(p[2], q[2]) - fmaxf(p[0], q[0]), h = fminf(p[3], q[3]) - fmaxf(p[1], q[1]);
    if (w <= 0 || h <= 0) return 0;
    float inter = w * h, uni = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter;
    return uni > 0 ? inter / uni : 0;
}

/* The detector on the whole frame: new regions for the objects not tracked already
 * (MediaPipe's AssociationNormRectCalculator drops a new region overlapping a tracked
 * one by more than 0.5 IoU). */
static int detect(const cli *c, solution_run *r, const vki_image *image, vki_rect *rois, int *n) {
    vki_image_transform t = {.letterbox = 1};
    cli_task_range(r->det.task, t.mean, t.std);
    vki_status s = stage_run(&r->det, image, &t);
    if (s) return !cli_fail("running the detector", s);
    r->detector_runs++;
    cli det_cli = *c;
    det_cli.threshold = r->d.detection_min_score;  /* --threshold is the presence's */
    static cli_results res;          /* large; one solution runs at a time */
    memset(&res, 0, sizeof res);
    res.task = r->det.task;
    res.letterbox = vki_letterbox_fit(image->width, image->height, r->det.in_w, r->det.in_h, 1);
    if (!cli_results_decode(&det_cli, r->det.model, r->det.outs, &res)) return 0;
    *n = 0;
    for (int i = 0; i < res.n_detections && *n + r->n_tracked < r->max_objects; i++) {
        vki_rect roi;
        s = vki_roi_from_detection(r->solution, &res.detections[i], image->width, image->height,
                                   &roi);
        if (s) return !cli_fail("making the region of interest", s);
        int taken = 0;
        for (int k = 0; k < r->n_tracked && !taken; k++) taken = rect_iou(&roi, &r->tracked[k]) > 0.5f;
        for (int k = 0; k < *n && !taken; k++) taken = rect_iou(&roi, &rois[k]) > 0.5f;
        if (!taken) rois[(*n)++] = roi;
    }
    return 1;
}

/* The segmentation logits of a pose crop onto the photo, keeping the larger value. */
static void mask_from_crop(solution_run *r, const float *logits, int mw, int mh, const vki_rect *roi) {
    float c = cosf(roi->rotation), s = sinf(roi->rotation);
    for (int y = 0; y < r->mask_h; y++)
        for (int x = 0; x < r->mask_w; x++) {
            float dx = (float)x + 0.5f - roi->x_center, dy = (float)y + 0.5f - roi->y_center;
            float u = (dx * c + dy * s) / roi->width + 0.5f, v = (-dx * s + dy * c) / roi->height + 0.5f;
            if (u < 0 || v < 0 || u >= 1 || v >= 1) continue;
            float fx = u * (float)mw - 0.5f, fy = v * (float)mh - 0.5f;
            int x0 = (int)floorf(fx), y0 = (int)floorf(fy);
            float ax = fx - (float)x0, ay = fy - (float)y0;
            int x1 = x0 + 1 < mw ? x0 + 1 : mw - 1, y1 = y0 + 1 < mh ? y0 + 1 : mh - 1;
            x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
            float top = logits[y0 * mw + x0] * (1 - ax) + logits[y0 * mw + x1] * ax;
            float bottom = logits[y1 * mw + x0] * (1 - ax) + logits[y1 * mw + x1] * ax;
            float p = vki_sigmoid(top * (1 - ay) + bottom * ay);
            float *m = &r->mask[(size_t)y * (size_t)r->mask_w + (size_t)x];
            if (p > *m) *m = p;
        }
}

/* The landmark model on one region; adds an object when it is there. */
static int landmarks_at(solution_run *r, const vki_image *image, const vki_rect *roi) {
    vki_image_transform t = {.roi = *roi, .border = r->d.crop_border};   /* values 0 .. 1 */
    vki_status s = stage_run(&r->lm, image, &t);
    if (s) return !cli_fail("running the landmark model", s);
    float flag = r->flag_out < 0 ? 1.0f : r->lm.outs[r->flag_out][0];
    float presence = r->d.presence_is_logit ? vki_sigmoid(flag) : flag;
    if (!(presence > r->presence_min)) return 1;
    object *o = &r->found[r->n_found];
    o->roi = *roi;
    o->presence = presence;
    o->n_points = r->raw_points;
    if (r->heatmap_out >= 0) {
        s = vki_landmarks_refine_from_heatmap(r->lm.outs[r->points_out], r->raw_points,
                                              r->values_per_point, r->lm.in_w, r->lm.in_h,
                                              r->lm.outs[r->heatmap_out], r->heatmap_w,
                                              r->heatmap_h, r->d.heatmap_kernel,
                                              r->d.heatmap_min_confidence);
        if (s) return !cli_fail("refining the landmarks on the heatmap", s);
    }
    s = vki_landmarks_from_roi(r->lm.outs[r->points_out], r->raw_points, r->values_per_point, roi,
                               r->lm.in_w, r->lm.in_h, o->points);
    if (s) return !cli_fail("decoding landmarks", s);
    if (r->hand_out >= 0) {
        o->handedness = r->lm.outs[r->hand_out][0];
        o->right = vki_hand_is_right(o->handedness, 0);
    }
    if (r->mask && r->mask_out >= 0) {
        vki_tensor_info mt;
        vki_model_output_info(r->lm.model, r->mask_out, &mt);
        mask_from_crop(r, r->lm.outs[r->mask_out], mt.shape[2], mt.shape[1], roi);
    }
    r->n_found++;
    return 1;
}

/* One frame: the tracked regions, the detector where fewer objects are tracked than the
 * solution takes, the landmark model on each region; then the next frame's regions. */
static int solve_frame(const cli *c, solution_run *r, const vki_image *image, int track) {
    vki_rect rois[CLI_MAX_OBJECTS];
    int n = 0;
    if (!track) r->n_tracked = 0;
    for (int k = 0; k < r->n_tracked; k++) rois[n++] = r->tracked[k];
    if (c->roi_given) {
        rois[0] = c->roi;            /* --roi: the given region, no detector, no tracking */
        n = 1;
    } else if (n < r->max_objects) {
        int added = 0;
        if (!detect(c, r, image, rois + n, &added)) return 0;
        n += added;
    }
    r->n_found = 0;
    if (r->mask) memset(r->mask, 0, sizeof(float) * (size_t)r->mask_w * (size_t)r->mask_h);
    for (int k = 0; k < n; k++)
        if (!landmarks_at(r, image, &rois[k])) return 0;
    r->n_tracked = 0;
    for (int k = 0; k < r->n_found; k++) {
        vki_status s = vki_roi_from_landmarks(r->solution, r->found[k].points, r->found[k].n_points,
                                              image->width, image->height,
                                              &r->tracked[r->n_tracked]);
        if (s) return !cli_fail("tracking", s);
        r->n_tracked++;
    }
    return 1;
}

static void draw_rect(vki_picture *p, const vki_rect *r, const unsigned char rgb[3], int thick) {
    float x[4], y[4];
    static const float nx[4] = {0, 1, 1, 0}, ny[4] = {0, 0, 1, 1};
    for (int k = 0; k < 4; k++) vki_roi_to_photo(r, nx[k], ny[k], &x[k], &y[k]);
    for (int k = 0; k < 4; k++) vki_picture_line(p, x[k], y[k], x[(k + 1) % 4], y[(k + 1) % 4], rgb, thick);
}

static int draw(const solution_run *r, const vki_picture *photo, const char *path) {
    vki_picture p = {.width = photo->width, .height = photo->height};
    size_t bytes = (size_t)p.width * (size_t)p.height * 3;
    p.rgb = malloc(bytes);
    if (!p.rgb) return !cli_fail("drawing", VKI_ERROR_OUT_OF_MEMORY);
    memcpy(p.rgb, photo->rgb, bytes);
    int side = p.width > p.height ? p.width : p.height;
    int thick = side / 256 > 1 ? side / 256 : 1;
    float dot = (float)thick * 1.5f + 1.0f;
    if (r->mask && r->n_found) vki_picture_blend_mask(&p, r->mask, BLUE, 0.5f);
    const int(*pairs)[2] = NULL;
    int n_pairs = vki_landmark_connections(r->d.landmarks, &pairs);
    int shown = vki_task_landmark_count(r->d.landmarks);
    for (int i = 0; i < r->n_found; i++) {
        const object *o = &r->found[i];
        draw_rect(&p, &o->roi, GREEN, thick);
        for (int k = 0; k < n_pairs; k++)
            vki_picture_line(&p, o->points[pairs[k][0]].x, o->points[pairs[k][0]].y,
                             o->points[pairs[k][1]].x, o->points[pairs[k][1]].y, YELLOW, thick);
        /* Hands: the person's right hand in red, the left in blue. */
        const unsigned char *colour = r->solution == VKI_SOLUTION_HANDS && !o->right ? BLUE : RED;
        for (int k = 0; k < shown; k++)
            vki_picture_dot(&p, o->points[k].x, o->points[k].y, shown > 100 ? (float)thick : dot, colour);
    }
    char err[512];
    int ok = vki_picture_save_png(path, &p, err, sizeof err);
    if (!ok) fprintf(stderr, "vkinfer: --out: %s\n", err);
    vki_picture_free(&p);
    return ok;
}

static int has_picture_suffix(const char *name) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    static const char *const ok[] = {".png", ".PNG", ".jpg", ".JPG", ".jpeg", ".JPEG"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(dot, ok[i])) return 1;
    return 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The picture files of dir in name order; NULL (and *n 0) after printing why. */
static char **list_frames(const char *dir, int *n) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return NULL;
    }
    char **names = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) && *n < SOLUTION_MAX_FRAMES) {
        if (e->d_name[0] == '.' || !has_picture_suffix(e->d_name)) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **more = realloc(names, sizeof *names * (size_t)cap);
            if (!more) break;
            names = more;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[*n] = malloc(len))) break;
        snprintf(names[*n], len, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
    if (!*n) {
        fprintf(stderr, "vkinfer: --frames %s: no .png or .jpg file\n", dir);
        free(names);
        return NULL;
    }
    qsort(names, (size_t)*n, sizeof *names, by_name);
    return names;
}

static void print_found(const solution_run *r, FILE *f, int json) {
    const char *name = vki_solution_name(r->solution);
    if (!json) {
        if (!r->n_found) printf("%s: no %s found\n", name, cli_thing_of(r->d.landmarks));
        for (int i = 0; i < r->n_found; i++) {
            const object *o = &r->found[i];
            printf("%s: %s %d%s: presence %.3f, region centre (%.1f, %.1f), %.1f x %.1f, "
                   "rotation %.1f degrees; points", name, cli_thing_of(r->d.landmarks), i,
                   r->solution == VKI_SOLUTION_HANDS ? (o->right ? " (right)" : " (left)") : "",
                   o->presence, o->roi.x_center, o->roi.y_center, o->roi.width, o->roi.height,
                   o->roi.rotation * 57.29577951308232);
            for (int k = 0; k < 3; k++) printf(" (%.1f,%.1f)", o->points[k].x, o->points[k].y);
            printf(" ... (--json lists all)\n");
        }
        return;
    }
    fprintf(f, ", \"found\": [");
    for (int i = 0; i < r->n_found; i++) {
        const object *o = &r->found[i];
        cli_json_sep(f, i);
        cli_json_member(f, "\n  {\"presence\": ", o->presence);
        cli_json_member(f, ", \"roi\": {\"x_center\": ", o->roi.x_center);
        cli_json_member(f, ", \"y_center\": ", o->roi.y_center);
        cli_json_member(f, ", \"width\": ", o->roi.width);
        cli_json_member(f, ", \"height\": ", o->roi.height);
        cli_json_member(f, ", \"rotation\": ", o->roi.rotation);
        fprintf(f, "}");
        if (r->solution == VKI_SOLUTION_HANDS) {
            fprintf(f, ", \"handedness\": \"%s\"", o->right ? "right" : "left");
            cli_json_member(f, ", \"handedness_score\": ", o->handedness);
        }
        fprintf(f, ", \"landmarks\": [");
        int shown = vki_task_landmark_count(r->d.landmarks);
        for (int k = 0; k < shown; k++) {
            cli_json_sep(f, k);
            cli_json_member(f, k % 4 ? "{\"x\": " : "\n   {\"x\": ", o->points[k].x);
            cli_json_member(f, ", \"y\": ", o->points[k].y);
            cli_json_member(f, ", \"z\": ", o->points[k].z);
            cli_json_member(f, ", \"visibility\": ", o->points[k].visibility);
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "]");
}

/* Which outputs are which, by shape, as vki_task_guess tells the tasks. */
static int find_outputs(solution_run *r) {
    vki_task t = r->d.landmarks;
    r->values_per_point = t == VKI_TASK_POSE_LANDMARKS ? 5 : 3;
    r->raw_points = t == VKI_TASK_POSE_LANDMARKS ? 39 : vki_task_landmark_count(t);
    r->points_out = cli_output_of_count(r->lm.model, (size_t)r->raw_points * (size_t)r->values_per_point, 0);
    /* The one-value outputs: the presence flag first; the hand model's handedness next. */
    r->flag_out = cli_output_of_count(r->lm.model, 1, 0);
    r->hand_out = t == VKI_TASK_HAND_LANDMARKS ? cli_output_of_count(r->lm.model, 1, 1) : -1;
    r->mask_out = r->heatmap_out = -1;
    for (int i = 0; t == VKI_TASK_POSE_LANDMARKS && i < r->lm.n_out; i++) {
        vki_tensor_info mt;
        vki_model_output_info(r->lm.model, i, &mt);
        if (mt.rank == 4 && mt.shape[3] == 1 && mt.shape[1] > 1) r->mask_out = i;
        if (mt.rank == 4 && mt.shape[3] == r->raw_points && r->d.heatmap_kernel > 0) {
            r->heatmap_out = i;                  /* [1, 64, 64, 39]: refines the points */
            r->heatmap_w = mt.shape[2];
            r->heatmap_h = mt.shape[1];
        }
    }
    if (r->points_out < 0 || r->raw_points > SOLUTION_MAX_POINTS ||
        (t == VKI_TASK_HAND_LANDMARKS && r->hand_out < 0)) {
        fprintf(stderr, "vkinfer: %s: the %s model's outputs are not as MediaPipe's (%d points "
                "of %d values%s)\n", r->lm.path, vki_task_name(t), r->raw_points,
                r->values_per_point, t == VKI_TASK_HAND_LANDMARKS ? ", a flag and handedness" : "");
        return 0;
    }
    return 1;
}

int cli_solution(const cli *c) {
    int rc = 1, n_frames = 0;
    char **frames = NULL;
    double *ms = NULL;
    vki_warmup *warm = NULL;
    vki_context *ctx = NULL;
    vki_picture photo = {0};
    static solution_run r;           /* large; one solution runs at a time */
    memset(&r, 0, sizeof r);
    if (!stage_open(c->models[0], &r.lm) || (c->detector && !stage_open(c->detector, &r.det)))
        goto done;
    r.solution = cli_solution_of(r.lm.task);
    if (r.solution == VKI_SOLUTION_NONE) {
        fprintf(stderr, "vkinfer: %s is a %s model; --detector runs a face mesh, hand or pose "
                "landmark model\n", r.lm.path, vki_task_name(r.lm.task));
        goto done;
    }
    vki_solution_defaults_for(r.solution, &r.d);
    if (c->detector && r.det.task != r.d.detector) {
        fprintf(stderr, "vkinfer: --detector %s is a %s model; %s takes %s\n", r.det.path,
                vki_task_name(r.det.task), vki_solution_name(r.solution),
                vki_task_name(r.d.detector));
        goto done;
    }
    if (!find_outputs(&r)) goto done;
    r.presence_min = c->threshold > 0 ? c->threshold : r.d.presence_threshold;
    r.max_objects = c->num_objects > 0 ? c->num_objects : r.d.max_objects;
    if (c->frames) {
        if (!(frames = list_frames(c->frames, &n_frames))) goto done;
        if (c->out && !cli_check_writable_dir(c->out, "--out", 1)) goto done;
    } else {
        n_frames = 1;
        if (c->out && !cli_check_writable_file(c->out, "--out")) goto done;
    }

    vki_status s = cli_context(c, &ctx);
    if (s) { cli_fail("opening the device", s); goto done; }
    vki_graph_options go = {.precision = c->precision, .memory = c->memory, .wait = c->wait,
                            .gpu_only = c->gpu_only,
                            .warm_up = c->no_warm_up ? VKI_WARM_UP_OFF : VKI_WARM_UP_AUTO};
    double t0 = vki_now_ms();
    if ((c->detector && (s = vki_graph_create(ctx, r.det.model, &go, &r.det.graph))) ||
        (s = vki_graph_create(ctx, r.lm.model, &go, &r.lm.graph))) {
        cli_fail("building the graphs", s);
        goto done;
    }
    double build_ms = vki_now_ms() - t0;

    /* One photo: the whole chain warms up (at least --warmup runs and --warmup-ms, then
     * until steady: vki_warmup), then runs `runs` times, each from the detector (no
     * tracking), each timed. Frames: each frame once, tracking, each timed. */
    int timed = c->frames ? n_frames : c->runs, done_runs = 0, f = 0;
    ms = malloc(sizeof(double) * (size_t)(timed > 0 ? timed : 1));
    warm = malloc(sizeof *warm);
    if (!ms || !warm) { cli_fail("timing", VKI_ERROR_OUT_OF_MEMORY); goto done; }
    cli_warmup_init(c, warm);
    int warming = !c->frames && (c->warmup > 0 || c->warmup_ms > 0);
    int found_frames = 0;
    for (f = 0; c->frames ? f < n_frames : done_runs < c->runs; f++) {
        const char *path = c->frames ? frames[f] : c->image;
        if (c->frames || f == 0) {
            char err[512];
            vki_picture_free(&photo);
            if (!vki_picture_load(path, &photo, err, sizeof err)) {
                fprintf(stderr, "vkinfer: %s %s\n", c->frames ? "--frames" : "--image", err);
                goto done;
            }
            if (!r.mask || photo.width != r.mask_w || photo.height != r.mask_h) {
                free(r.mask);
                r.mask = NULL;
                r.mask_w = photo.width, r.mask_h = photo.height;
                /* Pose's mask onto the photo, on the host, only for drawing: 4-5 ms of a
                 * 512x512 photo's 8.6 ms a frame on an H100 host. */
                if (r.solution == VKI_SOLUTION_POSE && c->out &&
                    !(r.mask = calloc((size_t)photo.width * (size_t)photo.height, sizeof(float)))) {
                    cli_fail("the mask", VKI_ERROR_OUT_OF_MEMORY);
                    goto done;
                }
            }
        }
        vki_image image = {.format = VKI_PIXEL_RGB888, .width = photo.width,
                           .height = photo.height, .data = photo.rgb};
        double start = vki_now_ms();
        if (!solve_frame(c, &r, &image, c->frames != NULL)) goto done;
        double took = vki_now_ms() - start;
        if (c->frames) ms[f] = took;
        else if (warming) warming = !vki_warmup_add(warm, took);
        else ms[done_runs++] = took;
        found_frames += r.n_found > 0;
        if (c->out && c->frames) {
            const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
            char out[4096];
            snprintf(out, sizeof out, "%s/%.*s.png", c->out, (int)(strrchr(base, '.') - base), base);
            if (!draw(&r, &photo, out)) goto done;
        }
    }
    if (c->out && !c->frames && !draw(&r, &photo, c->out)) goto done;
    vki_sample_stats st = vki_sample_stats_of(ms, timed);
    vki_device_info dev;
    vki_context_device_info(ctx, &dev);
    int frames_run = f;
    if (c->json) {
        printf("{\"model\": ");
        cli_json_string(stdout, r.lm.path);
        printf(", \"detector\": ");
        if (r.det.path) cli_json_string(stdout, r.det.path);
        else printf("null");                     /* --roi */
        printf(", \"device\": ");
        cli_json_string(stdout, dev.name);
        printf(", \"solution\": \"%s\", \"frames\": %d, \"detector_runs\": %d, "
               "\"frames_with_%s\": %d, \"presence_min\": ", vki_solution_name(r.solution),
               frames_run, r.detector_runs, cli_thing_of(r.d.landmarks), found_frames);
        cli_json_number(stdout, r.presence_min);
        print_found(&r, stdout, 1);
        printf(", \"timings_ms\": {\"build\": ");
        cli_json_number(stdout, build_ms);
        printf(", \"per_frame\": {");
        const char *names[] = {"median", "min", "p10", "p90", "max", "mean", "std"};
        const double values[] = {st.median, st.min, st.p10, st.p90, st.max, st.mean, st.std};
        for (int i = 0; i < 7; i++) {
            printf("%s\"%s\": ", i ? ", " : "", names[i]);
            cli_json_number(stdout, values[i]);
        }
        printf("}, \"timed\": %d, \"warmup_runs\": %d, \"warmup_ms\": ", timed, warm->runs);
        cli_json_number(stdout, warm->elapsed_ms);
        printf(", \"steady\": %s}}\n", warm->steady ? "true" : "false");
    } else {
        printf("%s on %s: %s, then %s; graphs built in %.1f ms\n", vki_solution_name(r.solution),
               dev.name, r.det.path ? r.det.path : "the region --roi gives", r.lm.path, build_ms);
        if (c->frames)
            printf("frames: %d, the detector ran on %d (%.0f%%), a %s found in %d\n", n_frames,
                   r.detector_runs, 100.0 * r.detector_runs / n_frames, cli_thing_of(r.d.landmarks),
                   found_frames);
        printf("last frame:\n");
        print_found(&r, stdout, 0);
        if (c->out) printf("wrote %s\n", c->out);
        char wt[96];
        int warmed = !c->frames && (c->warmup > 0 || c->warmup_ms > 0);
        printf("latency per frame (detector + crop + landmarks, read back and decoded): median "
               "%.3f ms, min %.3f, p10 %.3f, p90 %.3f, max %.3f (%d timed%s%s%s)\n", st.median,
               st.min, st.p10, st.p90, st.max, timed,
               c->frames ? ", tracking" : c->roi_given ? "" : ", the detector each time",
               warmed ? "; after " : "",
               warmed ? cli_warmup_text(c, warm->runs, warm->elapsed_ms, warm->steady, wt,
                                        sizeof wt) : "");
    }
    rc = 0;
done:
    for (int i = 0; i < n_frames && frames; i++) free(frames[i]);
    free(frames);
    free(ms);
    free(warm);
    free(r.mask);
    vki_picture_free(&photo);
    stage_free(&r.det);
    stage_free(&r.lm);
    vki_context_destroy(ctx);
    return rc;
}
