/* install_check.c: an application of the installed library, built by install_check.sh
 * against libvkinfer.a and against libvkinfer.so with nothing but pkg-config's flags. It
 * uses only the installed headers; it prints the library's version string on success. */
#include <vkinfer.h>
#include <vkinfer_decode.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "install_check: %s\n", what);
        failures++;
    }
}

int main(void) {
    expect(vki_version() == VKI_VERSION, "vki_version() is not the header's VKI_VERSION");
    char text[32];
    snprintf(text, sizeof text, "%u.%u.%u", (unsigned)VKI_VERSION_GET_MAJOR(vki_version()),
             (unsigned)VKI_VERSION_GET_MINOR(vki_version()),
             (unsigned)VKI_VERSION_GET_PATCH(vki_version()));
    expect(!strcmp(text, vki_version_string()), "vki_version_string() does not match vki_version()");
    expect(!strcmp(vki_status_name(VKI_ERROR_MODEL_FORMAT), "VKI_ERROR_MODEL_FORMAT"),
           "vki_status_name(VKI_ERROR_MODEL_FORMAT)");
    expect(!strcmp(vki_status_name((vki_status)-1), "VKI_ERROR_UNKNOWN"), "vki_status_name(-1)");

    static const unsigned char garbage[64] = "this is not a TensorFlow Lite model, not even close";
    vki_model *model = (vki_model *)&failures;
    vki_status s = vki_model_load_memory(garbage, sizeof garbage, "garbage", &model);
    expect(s == VKI_ERROR_MODEL_FORMAT, "loading garbage did not fail with VKI_ERROR_MODEL_FORMAT");
    expect(model == NULL, "a failed load left *out set");
    expect(strstr(vki_last_error(), "garbage") != NULL, "vki_last_error() does not name the model");
    vki_model_destroy(model);
    vki_graph_destroy(NULL);
    vki_context_destroy(NULL);

    /* The decoders: plain C, no device. */
    expect(vki_task_from_name(vki_task_name(VKI_TASK_FACE_DETECTION)) == VKI_TASK_FACE_DETECTION,
           "vki_task_name / vki_task_from_name");
    vki_detector_options options;
    expect(vki_detector_options_for(VKI_TASK_FACE_DETECTION, 128, 128, 896, &options) == VKI_OK &&
               vki_ssd_anchors(&options.anchors, NULL, 0) == 896,
           "vki_ssd_anchors for face_detection_short_range");

    /* Vulkan is loaded at run time, never linked: this works with or without a loader. */
    int count = -1;
    s = vki_enumerate_devices(NULL, 0, &count);
    expect(s == VKI_OK || s == VKI_ERROR_NO_DEVICE, "vki_enumerate_devices");
    fprintf(stderr, "install_check: vki_enumerate_devices: %s, %d devices%s%s\n", vki_status_name(s),
            count, s ? ": " : "", s ? vki_last_error() : "");

    if (failures) return 1;
    printf("%s\n", vki_version_string());
    return 0;
}
