/* volk_app.c: an application with its own volk (volk.c compiled and linked into it, so
 * it defines every vk* function pointer and volk* function as a global of its own) that
 * also uses vkinfer, which carries another volk inside. volk_app_check.sh links it against
 * libvkinfer.a (a clash of the two volks would fail that link) and against libvkinfer.so
 * (where exported volk symbols would bind the library's calls to the app's pointers), and
 * runs both:
 *
 *   volk_app MODEL INPUT.f32 EXPECTED.f32
 *
 * The app initialises its volk and calls vkEnumerateInstanceVersion through it; runs the
 * model with vkinfer and compares the output with EXPECTED; checks that vkinfer loading
 * its instance functions left the app's volk alone; then makes an instance of its own
 * through its volk (volkLoadInstance rewrites the app's pointers) and runs the graph again.
 * Prints "ok" and exits 0 on success; "skipped: ..." and exits 0 where there is no Vulkan
 * loader or device; a message and 1 on a failure. */
#include <volk.h>

#include <vkinfer.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

static void expect(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "volk_app: %s\n", what);
        failures++;
    }
}

static float *read_floats(const char *path, size_t *count) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    float *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long bytes = ftell(f);
        if (bytes > 0 && bytes % 4 == 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (data = malloc((size_t)bytes)) != NULL) {
            *count = (size_t)bytes / 4;
            if (fread(data, 4, *count, f) != *count) {
                free(data);
                data = NULL;
            }
        }
    }
    fclose(f);
    return data;
}

/* Runs the graph on the input and compares its output 0 with the expected values. */
static void run_and_compare(vki_graph *graph, const float *input, size_t n_in, const float *expected,
                            size_t n_out, const char *when) {
    float *out = calloc(n_out, sizeof *out);
    if (!out) {
        expect(0, "out of memory");
        return;
    }
    vki_status s = vki_graph_set_input(graph, 0, input, n_in * sizeof *input);
    if (!s) s = vki_graph_run(graph);
    if (!s) s = vki_graph_get_output(graph, 0, out, n_out * sizeof *out);
    if (s) {
        fprintf(stderr, "volk_app: %s: %s: %s\n", when, vki_status_name(s), vki_last_error());
        failures++;
    } else {
        double worst = 0;
        for (size_t i = 0; i < n_out; i++) {
            double e = fabs((double)out[i] - expected[i]) / (1.0 + fabs((double)expected[i]));
            if (!(e <= worst)) worst = e;   /* NaN too */
        }
        if (!(worst <= 1e-5)) {
            fprintf(stderr, "volk_app: %s: output differs from the expected by %g\n", when, worst);
            failures++;
        }
    }
    free(out);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: volk_app MODEL INPUT.f32 EXPECTED.f32\n");
        return 2;
    }
    if (volkInitialize() != VK_SUCCESS) {
        printf("skipped: no Vulkan loader\n");
        return 0;
    }
    uint32_t version = 0;
    expect(vkEnumerateInstanceVersion != NULL, "the app's volk has no vkEnumerateInstanceVersion");
    if (vkEnumerateInstanceVersion)
        expect(vkEnumerateInstanceVersion(&version) == VK_SUCCESS && version >= VK_API_VERSION_1_0,
               "vkEnumerateInstanceVersion through the app's volk");
    fprintf(stderr, "volk_app: the app's volk: loader %u.%u.%u\n", VK_API_VERSION_MAJOR(version),
            VK_API_VERSION_MINOR(version), VK_API_VERSION_PATCH(version));

    size_t n_in = 0, n_out = 0;
    float *input = read_floats(argv[2], &n_in), *expected = read_floats(argv[3], &n_out);
    vki_model *model = NULL;
    vki_status s = vki_model_load_file(argv[1], &model);
    if (s || !input || !expected) {
        fprintf(stderr, "volk_app: cannot read %s, %s or %s: %s\n", argv[1], argv[2], argv[3],
                s ? vki_last_error() : "bad float32 file");
        return 1;
    }

    vki_context *ctx = NULL;
    s = vki_context_create(NULL, &ctx);
    if (s == VKI_ERROR_NO_DEVICE) {
        printf("skipped: %s\n", vki_last_error());
        vki_model_destroy(model);
        free(input);
        free(expected);
        return failures ? 1 : 0;
    }
    expect(s == VKI_OK, "vki_context_create");
    /* vkinfer has an instance and a device now, its volk loaded for them; the app's volk
     * has loaded nothing but the loader's global functions. */
    expect(vkCreateDevice == NULL && vkEnumeratePhysicalDevices == NULL && vkQueueSubmit == NULL,
           "vkinfer's volk wrote the app's volk pointers");
    vki_graph *graph = NULL;
    if (!s) {
        s = vki_graph_create(ctx, model, NULL, &graph);
        if (s) fprintf(stderr, "volk_app: vki_graph_create: %s\n", vki_last_error());
        expect(s == VKI_OK, "vki_graph_create");
    }
    if (graph) run_and_compare(graph, input, n_in, expected, n_out, "first run");

    /* The app's own instance, through its own volk, beside vkinfer's. */
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "volk_app", .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                 .pApplicationInfo = &app};
    VkInstance instance = VK_NULL_HANDLE;
    expect(vkCreateInstance(&info, NULL, &instance) == VK_SUCCESS, "the app's vkCreateInstance");
    if (instance) {
        volkLoadInstance(instance);
        uint32_t n = 0;
        expect(vkEnumeratePhysicalDevices && vkEnumeratePhysicalDevices(instance, &n, NULL) == VK_SUCCESS && n > 0,
               "vkEnumeratePhysicalDevices through the app's volk");
        /* vkinfer keeps working after the app's volk loaded another instance. */
        if (graph) run_and_compare(graph, input, n_in, expected, n_out, "run beside the app's instance");
        vkDestroyInstance(instance, NULL);
    }
    if (graph) run_and_compare(graph, input, n_in, expected, n_out, "run after the app's instance");

    vki_graph_destroy(graph);
    vki_context_destroy(ctx);
    vki_model_destroy(model);
    free(input);
    free(expected);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
