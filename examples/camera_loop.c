/* camera_loop.c: a camera-frame loop on vkinfer, as an app would write it.
 *
 *   camera_loop MODEL [FRAMES [THREADS [WIDTH HEIGHT]]]
 *
 * One context and one model; THREADS threads (4 by default), each with its own graph of
 * that model, feed FRAMES synthetic camera frames (8 by default, WIDTH x HEIGHT, 640x480 by
 * default) through the image input: RGBA8888 and NV21 in turn, as a back camera (rotated
 * 90 degrees) on even threads and a front camera (270 degrees, mirrored) on odd ones,
 * letterboxed into the model's input and normalised to [-1, 1]. Each frame is submitted
 * with vki_graph_submit; while the GPU runs it the thread draws the next frame, then
 * vki_graph_wait waits for the run and the outputs are decoded with vkinfer_decode.h
 * (face or palm detection: boxes in frame pixels; any other model: its output sizes).
 * Every call's status is checked; on a failure the thread stops, says what failed and
 * why (vki_last_error), and everything is still destroyed. Exits 0 when every frame of
 * every thread ran, 1 otherwise, 2 on bad arguments.
 *
 * Build: cc camera_loop.c $(pkg-config --cflags --libs vkinfer) -lpthread */
#define _POSIX_C_SOURCE 200809L
#include <vkinfer.h>
#include <vkinfer_decode.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define MAX_DETECTIONS 16
#define WAIT_NS 10000000000ull          /* 10 s a wait; a timeout leaves the run in flight */
#define WAIT_TRIES 6                    /* so a run may take a minute before we give up */

/* What every thread shares: read-only once the threads start. */
typedef struct shared {
    vki_context *ctx;
    const vki_model *model;
    vki_task task;                      /* what the outputs are decoded as */
    vki_detector_options detector;      /* for VKI_TASK_FACE/PALM_DETECTION */
    const vki_anchor *anchors;
    int input_width, input_height;      /* the model's input, pixels */
    int frames, width, height;          /* camera frames: how many, their size */
} shared;

typedef struct worker {
    const shared *sh;
    int id;
    pthread_t thread;
    int frames_done, detections;
    vki_status status;                  /* VKI_OK, or the first failure */
    char error[512];                    /* what failed, with vki_last_error() */
} worker;

/* Records the first failure of a worker: the call, its status and the thread's message. */
static vki_status fail(worker *w, const char *what, vki_status s) {
    if (w->status == VKI_OK) {
        w->status = s;
        snprintf(w->error, sizeof w->error, "%s: %s: %s", what, vki_status_name(s),
                 vki_last_error());
    }
    return s;
}

/* A synthetic camera frame: a gradient with a bright disc moving across it, in RGBA8888
 * (4 bytes a pixel) or NV21 (Y plane, then interleaved V U at half size). */
static void draw_frame(uint8_t *buf, vki_pixel_format format, int width, int height, int t) {
    int cx = (t * 37) % width, cy = height / 2, r = height / 6;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            int inside = (x - cx) * (x - cx) + (y - cy) * (y - cy) < r * r;
            uint8_t luma = inside ? 220 : (uint8_t)((x * 255 / width + y * 64 / height) & 0xff);
            if (format == VKI_PIXEL_RGBA8888) {
                uint8_t *p = buf + ((size_t)y * width + x) * 4;
                p[0] = luma, p[1] = (uint8_t)(luma * 3 / 4), p[2] = (uint8_t)(255 - luma), p[3] = 255;
            } else {
                buf[(size_t)y * width + x] = luma;
            }
        }
    if (format == VKI_PIXEL_NV21) {
        uint8_t *vu = buf + (size_t)width * height;
        int cw = (width + 1) / 2, ch = (height + 1) / 2;
        for (int y = 0; y < ch; y++)
            for (int x = 0; x < cw; x++) {
                vu[((size_t)y * cw + x) * 2] = (uint8_t)(128 + (x * 40 / cw) - 20);      /* V */
                vu[((size_t)y * cw + x) * 2 + 1] = (uint8_t)(128 - (y * 40 / ch) + 20);  /* U */
            }
    }
}

/* Reads output `index` of a finished run into a new buffer (NULL after a failure). */
static float *read_output(worker *w, vki_graph *graph, int index, size_t *count) {
    vki_tensor_info info;
    vki_status s = vki_model_output_info(w->sh->model, index, &info);
    if (s != VKI_OK) return fail(w, "vki_model_output_info", s), NULL;
    float *data = malloc(info.element_count * sizeof *data);
    if (!data) return fail(w, "malloc", VKI_ERROR_OUT_OF_MEMORY), NULL;
    s = vki_graph_get_output(graph, index, data, info.element_count * sizeof *data);
    if (s != VKI_OK) return free(data), fail(w, "vki_graph_get_output", s), NULL;
    *count = info.element_count;
    return data;
}

/* Decodes one finished run's detections into frame pixels and counts them. */
static vki_status decode(worker *w, vki_graph *graph, int frame, const vki_letterbox *lb) {
    const shared *sh = w->sh;
    if (sh->task != VKI_TASK_FACE_DETECTION && sh->task != VKI_TASK_PALM_DETECTION) {
        size_t n = 0;
        float *out = read_output(w, graph, 0, &n);
        if (!out) return w->status;
        if (frame == 0) printf("thread %d: output 0 has %zu values, first %g\n", w->id, n, out[0]);
        free(out);
        return VKI_OK;
    }
    size_t n_boxes = 0, n_scores = 0;
    float *boxes = read_output(w, graph, 0, &n_boxes);
    float *scores = boxes ? read_output(w, graph, 1, &n_scores) : NULL;
    vki_status s = w->status;
    if (scores) {
        vki_detection found[MAX_DETECTIONS];
        int count = 0;
        s = vki_decode_detections(boxes, scores, sh->anchors, &sh->detector, found,
                                  MAX_DETECTIONS, &count);
        if (s != VKI_OK) {
            fail(w, "vki_decode_detections", s);
        } else {
            vki_detections_to_photo(lb, found, count);   /* input coordinates -> frame */
            w->detections += count;
            for (int i = 0; i < count && frame == 0; i++)
                printf("thread %d: %s %.2f at [%.0f %.0f %.0f %.0f]\n", w->id,
                       vki_task_name(sh->task), found[i].score, found[i].box[0],
                       found[i].box[1], found[i].box[2], found[i].box[3]);
        }
    }
    free(boxes);
    free(scores);
    return s;
}

static void *camera_thread(void *arg) {
    worker *w = arg;
    const shared *sh = w->sh;
    vki_graph *graph = NULL;
    size_t y_size = (size_t)sh->width * sh->height;
    size_t nv21_size = y_size + (size_t)((sh->width + 1) / 2) * ((sh->height + 1) / 2) * 2;
    size_t frame_size = y_size * 4 > nv21_size ? y_size * 4 : nv21_size;
    /* Two frame buffers: the camera fills one while the other is fed to the GPU. */
    uint8_t *buffers[2] = {malloc(frame_size), malloc(frame_size)};
    if (!buffers[0] || !buffers[1]) {
        fail(w, "malloc", VKI_ERROR_OUT_OF_MEMORY);
        goto done;
    }
    vki_status s = vki_graph_create(sh->ctx, sh->model, NULL, &graph);
    if (s != VKI_OK) {
        fail(w, "vki_graph_create", s);
        goto done;
    }
    /* A back camera's sensor is mounted 90 degrees off; a front camera's 270, mirrored. */
    int front = w->id % 2;
    vki_image_transform transform = {
        .rotation = front ? 270 : 90, .mirror = front, .letterbox = 1, .fill = 0.0f,
        .mean = {127.5f, 127.5f, 127.5f}, .std = {127.5f, 127.5f, 127.5f}};  /* [-1, 1] */
    /* Where the rotated frame lies in the input: maps results back to frame pixels. */
    vki_letterbox lb = vki_letterbox_fit(sh->height, sh->width, sh->input_width,
                                         sh->input_height, 1);
    draw_frame(buffers[0], VKI_PIXEL_RGBA8888, sh->width, sh->height, w->id);
    for (int f = 0; f < sh->frames; f++) {
        vki_pixel_format format = f % 2 ? VKI_PIXEL_NV21 : VKI_PIXEL_RGBA8888;
        vki_image image = {.format = format, .width = sh->width, .height = sh->height,
                           .data = buffers[f % 2]};
        /* The frame's bytes are copied here: its buffer is free again once this returns. */
        s = vki_graph_set_input_image(graph, 0, &image, &transform);
        if (s != VKI_OK) {
            fail(w, "vki_graph_set_input_image", s);
            break;
        }
        s = vki_graph_submit(graph);
        if (s != VKI_OK) {
            fail(w, "vki_graph_submit", s);
            break;
        }
        /* The GPU runs frame f; the CPU draws frame f + 1 meanwhile. */
        if (f + 1 < sh->frames)
            draw_frame(buffers[(f + 1) % 2], (f + 1) % 2 ? VKI_PIXEL_NV21 : VKI_PIXEL_RGBA8888,
                       sh->width, sh->height, w->id + f + 1);
        s = VKI_ERROR_TIMEOUT;
        for (int tries = 0; tries < WAIT_TRIES && s == VKI_ERROR_TIMEOUT; tries++)
            s = vki_graph_wait(graph, WAIT_NS);
        if (s != VKI_OK) {
            fail(w, "vki_graph_wait", s);   /* vki_graph_destroy waits for a run left in flight */
            break;
        }
        if (decode(w, graph, f, &lb) != VKI_OK) break;
        w->frames_done++;
    }
done:
    vki_graph_destroy(graph);             /* NULL is allowed */
    free(buffers[0]);
    free(buffers[1]);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc == 5 || argc > 6) {
        fprintf(stderr, "usage: %s MODEL [FRAMES [THREADS [WIDTH HEIGHT]]]\n", argv[0]);
        return 2;
    }
    shared sh = {.frames = argc > 2 ? atoi(argv[2]) : 8, .width = argc > 5 ? atoi(argv[4]) : 640,
                 .height = argc > 5 ? atoi(argv[5]) : 480};
    int threads = argc > 3 ? atoi(argv[3]) : 4;
    if (sh.frames < 1 || threads < 1 || threads > MAX_THREADS || sh.width < 2 || sh.height < 2 ||
        sh.width > 16384 || sh.height > 16384) {
        fprintf(stderr, "camera_loop: FRAMES >= 1, THREADS 1..%d, frames 2..16384 pixels a side\n",
                MAX_THREADS);
        return 2;
    }

    int rc = 1, started = 0;
    vki_model *model = NULL;
    vki_anchor *anchors = NULL;
    worker workers[MAX_THREADS];
    memset(workers, 0, sizeof workers);

    vki_status s = vki_context_create(NULL, &sh.ctx);
    if (s != VKI_OK) {
        fprintf(stderr, "camera_loop: vki_context_create: %s: %s\n", vki_status_name(s),
                vki_last_error());
        goto out;
    }
    vki_device_info device;
    if (vki_context_device_info(sh.ctx, &device) == VKI_OK) printf("device: %s\n", device.name);
    s = vki_model_load_file(argv[1], &model);
    if (s != VKI_OK) {
        fprintf(stderr, "camera_loop: vki_model_load_file: %s: %s\n", vki_status_name(s),
                vki_last_error());
        goto out;
    }
    sh.model = model;
    vki_tensor_info input;
    s = vki_model_input_info(model, 0, &input);
    if (s != VKI_OK || input.rank != 4 || input.shape[0] != 1 ||
        (input.shape[3] != 3 && input.shape[3] != 1)) {
        fprintf(stderr, "camera_loop: %s: input 0 is not an image [1,H,W,3] or [1,H,W,1]\n",
                argv[1]);
        goto out;
    }
    sh.input_height = input.shape[1], sh.input_width = input.shape[2];
    sh.task = vki_task_guess(model);
    if (sh.task == VKI_TASK_FACE_DETECTION || sh.task == VKI_TASK_PALM_DETECTION) {
        vki_tensor_info scores;
        s = vki_model_output_info(model, 1, &scores);
        if (s == VKI_OK)
            s = vki_detector_options_for(sh.task, sh.input_width, sh.input_height,
                                         (int)scores.element_count, &sh.detector);
        if (s != VKI_OK) {
            fprintf(stderr, "camera_loop: %s: %s\n", vki_status_name(s), vki_last_error());
            goto out;
        }
        anchors = malloc((size_t)sh.detector.num_boxes * sizeof *anchors);
        if (!anchors ||
            vki_ssd_anchors(&sh.detector.anchors, anchors, sh.detector.num_boxes) !=
                sh.detector.num_boxes) {
            fprintf(stderr, "camera_loop: no anchors: %s\n", anchors ? vki_last_error() : "no memory");
            goto out;
        }
        sh.anchors = anchors;
    }
    printf("model: %s (%s), input %dx%d; %d threads x %d frames of %dx%d\n", argv[1],
           vki_task_name(sh.task), sh.input_width, sh.input_height, threads, sh.frames,
           sh.width, sh.height);

    for (; started < threads; started++) {
        workers[started] = (worker){.sh = &sh, .id = started};
        int e = pthread_create(&workers[started].thread, NULL, camera_thread, &workers[started]);
        if (e) {
            fprintf(stderr, "camera_loop: pthread_create: %s\n", strerror(e));
            break;
        }
    }
    int ok = started == threads;
    for (int i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        if (workers[i].status != VKI_OK) {
            fprintf(stderr, "camera_loop: thread %d: %s\n", i, workers[i].error);
            ok = 0;
        }
        printf("thread %d: %d of %d frames, %d detections\n", i, workers[i].frames_done,
               sh.frames, workers[i].detections);
    }
    if (ok) {
        printf("camera_loop: ok: %d threads x %d frames\n", threads, sh.frames);
        rc = 0;
    }
out:
    free(anchors);
    vki_model_destroy(model);      /* the graphs no longer need it; NULL is allowed */
    vki_context_destroy(sh.ctx);   /* NULL is allowed */
    return rc;
}
