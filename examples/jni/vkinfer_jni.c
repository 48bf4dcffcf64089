/* vkinfer_jni.c: a minimal JNI library for an Android app, on vkinfer: a detector that
 * takes camera frames in RGBA. The Java side (docs/android.md, "JNI"):
 *
 *   package com.example.vkinfer;
 *   final class VkInfer {
 *       static { System.loadLibrary("vkinfer_jni"); }
 *       // model: the .tflite bytes (e.g. read from assets); cacheDir may be null.
 *       static native long nativeCreate(byte[] model, String cacheDir);
 *       // A direct ByteBuffer of RGBA_8888 pixels (CameraX ImageAnalysis with
 *       // OUTPUT_IMAGE_FORMAT_RGBA_8888: plane 0's buffer and row stride).
 *       static native int nativeRun(long handle, ByteBuffer rgba, int width, int height,
 *                                   int rowStride, int rotationDegrees, boolean mirror,
 *                                   float[] out);
 *       // The same from int[] pixels as Bitmap.getPixels gives them (0xAARRGGBB).
 *       static native int nativeRunPixels(long handle, int[] argb, int width, int height,
 *                                         int rotationDegrees, boolean mirror, float[] out);
 *       static native void nativeDestroy(long handle);
 *   }
 *
 * For a face or palm detector, nativeRun writes 5 floats a detection into out (score,
 * then the box x0, y0, x1, y1 in pixels of the rotated frame) and returns how many fit;
 * for any other model it copies output 0 into out and returns the number of values. On
 * a failure it throws java.lang.RuntimeException with vki_last_error()'s message (and
 * returns -1). A handle is used by one thread at a time (a single-thread Executor);
 * several handles may run on several threads at once.
 *
 * The app links this against libvkinfer.so (or libvkinfer.a: one .so to ship). CI
 * compiles it against examples/jni/stub/jni.h; an app builds it with the NDK's jni.h. */
#include <jni.h>
#include <vkinfer.h>
#include <vkinfer_decode.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DETECTIONS 16

typedef struct detector {
    vki_context *ctx;
    vki_graph *graph;
    vki_task task;
    int input_width, input_height;
    vki_detector_options options;       /* face or palm detection */
    vki_anchor *anchors;
    float *outputs[2];                  /* output 0 and, for detection, 1 */
    size_t output_count[2];
    uint8_t *rgba;                      /* nativeRunPixels' frame, converted to RGBA */
    size_t rgba_size;
} detector;

/* Throws RuntimeException("what: message") unless an exception is already pending. */
static void throw_status(JNIEnv *env, const char *what, vki_status s) {
    if ((*env)->ExceptionCheck(env)) return;
    char message[600];
    snprintf(message, sizeof message, "%s: %s: %s", what, vki_status_name(s), vki_last_error());
    jclass cls = (*env)->FindClass(env, "java/lang/RuntimeException");
    if (cls) (*env)->ThrowNew(env, cls, message);   /* else FindClass threw already */
}

static void destroy(detector *d) {
    if (!d) return;
    vki_graph_destroy(d->graph);
    vki_context_destroy(d->ctx);
    free(d->anchors);
    free(d->outputs[0]);
    free(d->outputs[1]);
    free(d->rgba);
    free(d);
}

/* Builds the detector from model bytes; NULL after a failure, with what failed. */
static detector *create(const void *bytes, size_t size, const char *cache_dir,
                        const char **what, vki_status *status) {
    detector *d = calloc(1, sizeof *d);
    vki_model *model = NULL;
    vki_status s = VKI_ERROR_OUT_OF_MEMORY;
    *what = "calloc";
    if (!d) goto fail;
    vki_context_options co = {.cache_dir = cache_dir};   /* NULL: nothing on disk */
    *what = "vki_context_create";
    if ((s = vki_context_create(&co, &d->ctx)) != VKI_OK) goto fail;
    *what = "vki_model_load_memory";          /* the bytes may be freed once it returns */
    if ((s = vki_model_load_memory(bytes, size, "model.tflite", &model)) != VKI_OK) goto fail;
    vki_tensor_info in;
    *what = "input 0";
    if ((s = vki_model_input_info(model, 0, &in)) != VKI_OK) goto fail;
    if (in.rank != 4 || (in.shape[3] != 3 && in.shape[3] != 1)) {
        s = VKI_ERROR_UNSUPPORTED_MODEL;
        *what = "input 0 is not [1,H,W,3] or [1,H,W,1]";
        goto fail;
    }
    d->input_height = in.shape[1], d->input_width = in.shape[2];
    d->task = vki_task_guess(model);
    int detection = d->task == VKI_TASK_FACE_DETECTION || d->task == VKI_TASK_PALM_DETECTION;
    for (int i = 0; i < (detection ? 2 : 1); i++) {
        vki_tensor_info out;
        *what = "output info";
        if ((s = vki_model_output_info(model, i, &out)) != VKI_OK) goto fail;
        d->output_count[i] = out.element_count;
        s = VKI_ERROR_OUT_OF_MEMORY;
        *what = "malloc";
        if (!(d->outputs[i] = malloc(out.element_count * sizeof(float)))) goto fail;
    }
    if (detection) {
        *what = "vki_detector_options_for";
        s = vki_detector_options_for(d->task, d->input_width, d->input_height,
                                     (int)d->output_count[1], &d->options);
        if (s != VKI_OK) goto fail;
        s = VKI_ERROR_OUT_OF_MEMORY;
        *what = "anchors";
        d->anchors = malloc((size_t)d->options.num_boxes * sizeof *d->anchors);
        if (!d->anchors ||
            vki_ssd_anchors(&d->options.anchors, d->anchors, d->options.num_boxes) !=
                d->options.num_boxes)
            goto fail;
    }
    *what = "vki_graph_create";   /* compiles kernels: seconds on a phone, once per cache */
    if ((s = vki_graph_create(d->ctx, model, NULL, &d->graph)) != VKI_OK) goto fail;
    vki_model_destroy(model);      /* the graph keeps what it needs */
    return d;
fail:
    vki_model_destroy(model);
    destroy(d);
    *status = s;
    return NULL;
}

/* Runs one frame and writes the results into out (see the top of the file): how many
 * values or detections, or -1 with what failed. */
static int run(detector *d, const vki_image *image, int rotation, int mirror, float *out,
               int out_len, const char **what, vki_status *status) {
    vki_image_transform t = {.rotation = rotation, .mirror = mirror, .letterbox = 1,
                             .mean = {127.5f, 127.5f, 127.5f},    /* to [-1, 1], as */
                             .std = {127.5f, 127.5f, 127.5f}};    /* MediaPipe's models */
    vki_status s;
    *what = "vki_graph_set_input_image";
    if ((s = vki_graph_set_input_image(d->graph, 0, image, &t)) != VKI_OK) goto fail;
    *what = "vki_graph_submit";
    if ((s = vki_graph_submit(d->graph)) != VKI_OK) goto fail;
    /* The frame was copied: the caller may hand its buffer back to the camera here. */
    *what = "vki_graph_wait";
    if ((s = vki_graph_wait(d->graph, 2000000000ull)) != VKI_OK) goto fail;  /* 2 s */
    for (int i = 0; i < 2 && d->outputs[i]; i++) {
        *what = "vki_graph_get_output";
        s = vki_graph_get_output(d->graph, i, d->outputs[i], d->output_count[i] * sizeof(float));
        if (s != VKI_OK) goto fail;
    }
    if (!d->anchors) {   /* not a detector: output 0 as it is */
        int n = (int)d->output_count[0] < out_len ? (int)d->output_count[0] : out_len;
        memcpy(out, d->outputs[0], (size_t)n * sizeof *out);
        return n;
    }
    vki_detection found[MAX_DETECTIONS];
    int count = 0;
    *what = "vki_decode_detections";
    s = vki_decode_detections(d->outputs[0], d->outputs[1], d->anchors, &d->options, found,
                              MAX_DETECTIONS, &count);
    if (s != VKI_OK) goto fail;
    /* Normalised input coordinates to pixels of the frame as the model saw it: rotated. */
    int turned = rotation == 90 || rotation == 270;
    vki_letterbox lb = vki_letterbox_fit(turned ? image->height : image->width,
                                         turned ? image->width : image->height,
                                         d->input_width, d->input_height, 1);
    vki_detections_to_photo(&lb, found, count);
    int n = 0;
    for (; n < count && (n + 1) * 5 <= out_len; n++) {
        out[n * 5] = found[n].score;
        memcpy(out + n * 5 + 1, found[n].box, 4 * sizeof(float));
    }
    return n;
fail:
    *status = s;
    return -1;
}

/* run() for a Java caller: results into the float[] out, a failure thrown. */
static jint run_into(JNIEnv *env, detector *d, const vki_image *image, jint rotation,
                     jboolean mirror, jfloatArray out) {
    float results[MAX_DETECTIONS * 5];
    jsize len = (*env)->GetArrayLength(env, out);
    float *dst = d->anchors ? results : malloc((size_t)(len > 0 ? len : 1) * sizeof *dst);
    int max = d->anchors ? (len < MAX_DETECTIONS * 5 ? len : MAX_DETECTIONS * 5) : len;
    const char *what = "malloc";
    vki_status s = VKI_ERROR_OUT_OF_MEMORY;
    int n = dst ? run(d, image, rotation, mirror, dst, max, &what, &s) : -1;
    if (n > 0) (*env)->SetFloatArrayRegion(env, out, 0, d->anchors ? n * 5 : n, dst);
    if (dst != results) free(dst);
    if (n < 0) throw_status(env, what, s);
    return n;
}

JNIEXPORT jlong JNICALL Java_com_example_vkinfer_VkInfer_nativeCreate(JNIEnv *env, jclass cls,
                                                                       jbyteArray model,
                                                                       jstring cache_dir) {
    (void)cls;
    const char *what = "model bytes";
    vki_status s = VKI_ERROR_INVALID_ARGUMENT;
    jbyte *bytes = model ? (*env)->GetByteArrayElements(env, model, NULL) : NULL;
    const char *dir = cache_dir ? (*env)->GetStringUTFChars(env, cache_dir, NULL) : NULL;
    detector *d = NULL;
    if (bytes && (!cache_dir || dir))
        d = create(bytes, (size_t)(*env)->GetArrayLength(env, model), dir, &what, &s);
    if (dir) (*env)->ReleaseStringUTFChars(env, cache_dir, dir);   /* the context copied it */
    if (bytes) (*env)->ReleaseByteArrayElements(env, model, bytes, JNI_ABORT);
    if (!d) throw_status(env, what, s);
    return (jlong)(intptr_t)d;
}

JNIEXPORT jint JNICALL Java_com_example_vkinfer_VkInfer_nativeRun(
    JNIEnv *env, jclass cls, jlong handle, jobject rgba, jint width, jint height,
    jint row_stride, jint rotation, jboolean mirror, jfloatArray out) {
    (void)cls;
    detector *d = (detector *)(intptr_t)handle;
    const void *pixels = rgba ? (*env)->GetDirectBufferAddress(env, rgba) : NULL;
    jlong capacity = rgba ? (*env)->GetDirectBufferCapacity(env, rgba) : 0;
    jint stride = row_stride ? row_stride : width * 4;
    if (!d || !pixels || !out || width < 1 || height < 1 || stride < width * 4 ||
        capacity < (jlong)stride * (height - 1) + (jlong)width * 4) {
        throw_status(env, "nativeRun: a null handle or out, or not a direct buffer of "
                          "width x height RGBA pixels", VKI_ERROR_INVALID_ARGUMENT);
        return -1;
    }
    vki_image image = {.format = VKI_PIXEL_RGBA8888, .width = width, .height = height,
                       .row_stride = stride, .data = pixels};
    return run_into(env, d, &image, rotation, mirror, out);
}

JNIEXPORT jint JNICALL Java_com_example_vkinfer_VkInfer_nativeRunPixels(
    JNIEnv *env, jclass cls, jlong handle, jintArray argb, jint width, jint height,
    jint rotation, jboolean mirror, jfloatArray out) {
    (void)cls;
    detector *d = (detector *)(intptr_t)handle;
    if (!d || !argb || !out || width < 1 || height < 1 ||
        (*env)->GetArrayLength(env, argb) < (jlong)width * height) {
        throw_status(env, "nativeRunPixels: a null handle, array or out, or fewer than width x "
                          "height pixels", VKI_ERROR_INVALID_ARGUMENT);
        return -1;
    }
    /* Bitmap's ints are 0xAARRGGBB; vkinfer takes bytes R, G, B, A. */
    size_t size = (size_t)width * height * 4;
    if (size > d->rgba_size) {
        uint8_t *grown = realloc(d->rgba, size);
        if (!grown) {
            throw_status(env, "nativeRunPixels: no memory for the frame", VKI_ERROR_OUT_OF_MEMORY);
            return -1;
        }
        d->rgba = grown, d->rgba_size = size;
    }
    jint *px = (*env)->GetIntArrayElements(env, argb, NULL);
    if (!px) return -1;   /* OutOfMemoryError is pending */
    for (size_t i = 0; i < (size_t)width * height; i++) {
        uint32_t v = (uint32_t)px[i];
        d->rgba[i * 4] = (uint8_t)(v >> 16), d->rgba[i * 4 + 1] = (uint8_t)(v >> 8);
        d->rgba[i * 4 + 2] = (uint8_t)v, d->rgba[i * 4 + 3] = (uint8_t)(v >> 24);
    }
    (*env)->ReleaseIntArrayElements(env, argb, px, JNI_ABORT);
    vki_image image = {.format = VKI_PIXEL_RGBA8888, .width = width, .height = height,
                       .data = d->rgba};
    return run_into(env, d, &image, rotation, mirror, out);
}

JNIEXPORT void JNICALL Java_com_example_vkinfer_VkInfer_nativeDestroy(JNIEnv *env, jclass cls,
                                                                      jlong handle) {
    (void)env, (void)cls;
    destroy((detector *)(intptr_t)handle);   /* 0 is allowed */
}
