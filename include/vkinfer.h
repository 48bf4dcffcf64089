/* vkinfer.h: the public API of vkinfer, a Vulkan compute engine for TensorFlow Lite models.
 *
 * Three opaque handles, each made from the one before:
 *   vki_context  a Vulkan instance and one compute device
 *   vki_model    a parsed, validated .tflite model (no device work)
 *   vki_graph    a model built for a context: pipelines, memory, one recorded command buffer
 *
 * Every call that can fail returns a vki_status. The message for the last failure on a
 * handle (or, for calls that create one, the thread's last failure) says what went wrong
 * and where, e.g. "op 37 CONV_2D: weights tensor 12 has 3 dims, need 4".
 *
 * Options structs are zero-initialised to mean "default"; pass NULL for all defaults.
 */
#ifndef VKINFER_H
#define VKINFER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(VKI_SHARED_BUILD)
#define VKI_API __declspec(dllexport)
#elif defined(__GNUC__)
#define VKI_API __attribute__((visibility("default")))
#else
#define VKI_API
#endif

#define VKI_VERSION_MAJOR 0
#define VKI_VERSION_MINOR 1
#define VKI_VERSION_PATCH 0

/* Every status, its value and what it means: the enum and vki_status_name come from this
 * one list. */
#define VKI_STATUS_LIST(X)                                                                 \
    X(OK, 0, "success")                                                                  \
    X(ERROR_INVALID_ARGUMENT, 1, "a NULL handle, an index out of range, a wrong size")   \
    X(ERROR_IO, 2, "a file could not be read or written")                                \
    X(ERROR_MODEL_FORMAT, 3, "the bytes are not a well-formed .tflite model")            \
    X(ERROR_UNSUPPORTED_OP, 4, "the model uses an op or an option vkinfer lacks")        \
    X(ERROR_UNSUPPORTED_MODEL, 5, "well-formed, but e.g. batch > 1 or a dynamic shape")  \
    X(ERROR_NO_DEVICE, 6, "no Vulkan loader, or no device with compute")                 \
    X(ERROR_DEVICE_FEATURE, 7, "the device lacks a feature the options ask for")         \
    X(ERROR_OUT_OF_MEMORY, 8, "host or device memory ran out")                           \
    X(ERROR_SHADER, 9, "a kernel failed to compile or a pipeline to build")              \
    X(ERROR_DEVICE_LOST, 10, "the device was lost or a submit/wait failed")              \
    X(ERROR_TIMEOUT, 11, "a run did not finish within the wait limit")                   \
    X(ERROR_INTERNAL, 12, "vkinfer broke its own rules (a bug): an invalid plan, a "     \
                          "kernel that wrote outside its tensor")

#define VKI_STATUS_ENUM_(name, value, what) VKI_##name = value,
typedef enum vki_status { VKI_STATUS_LIST(VKI_STATUS_ENUM_) } vki_status;
#undef VKI_STATUS_ENUM_

typedef struct vki_context vki_context;
typedef struct vki_model vki_model;
typedef struct vki_graph vki_graph;

/* A short fixed name for a status code ("VKI_ERROR_MODEL_FORMAT"); "VKI_ERROR_UNKNOWN"
 * for a value outside the list. */
VKI_API const char *vki_status_name(vki_status status);

/* The message of the last failure on this thread (creation calls report here too). */
VKI_API const char *vki_last_error(void);

/* ---- context ------------------------------------------------------------------------ */

typedef struct vki_context_options {
    /* Device choice: an index counted from 0, as vki_enumerate_devices lists them ("1"), or
     * a case-insensitive part of a device name ("llvmpipe"). NULL picks the best: discrete
     * > integrated > virtual > CPU. The environment variable VKI_DEVICE, in the same
     * syntax, overrides it. */
    const char *device;
    /* Enable the Khronos validation layer and report its messages on stderr. Also set by
     * VKI_VALIDATION=1 in the environment. */
    int enable_validation;
    /* VKI_FEATURE_* bits: treat the device as lacking them, to see what a model does on
     * devices that do (fp16 graphs refused, or computing in fp32). */
    unsigned disable_features;
    /* A directory for compiled kernels (SPIR-V) and the driver's pipeline cache, so that
     * later runs skip compiling. Created if missing; NULL means none, unless the
     * environment variable VKI_CACHE_DIR names one. A damaged or foreign entry is
     * ignored and rewritten. */
    const char *cache_dir;
} vki_context_options;

typedef struct vki_kernel_stats {
    int compiled;                /* kernels compiled by shaderc in this context */
    int from_disk;               /* kernels loaded from cache_dir instead */
} vki_kernel_stats;

enum {
    VKI_FEATURE_FP16_STORAGE = 1u << 0,      /* storageBuffer16BitAccess */
    VKI_FEATURE_FP16_ARITHMETIC = 1u << 1,   /* shaderFloat16 */
};

typedef struct vki_device_info {
    char name[256];
    uint32_t vendor_id;
    uint32_t device_id;
    uint32_t api_version;
    uint32_t driver_version;
    int is_cpu;                  /* lavapipe / llvmpipe or another CPU implementation */
    int type;                    /* VkPhysicalDeviceType */
    uint32_t subgroup_size;
    uint32_t max_workgroup_invocations;
    uint64_t min_storage_buffer_offset_alignment;
    uint64_t max_storage_buffer_range;
    int fp16_storage;            /* storageBuffer16BitAccess: VKI_PRECISION_FP16 works */
    int fp16_arithmetic;         /* shaderFloat16 */
} vki_device_info;

VKI_API vki_status vki_context_create(const vki_context_options *options, vki_context **out);
VKI_API void vki_context_destroy(vki_context *ctx);
VKI_API vki_status vki_context_device_info(const vki_context *ctx, vki_device_info *out);
VKI_API vki_status vki_context_kernel_stats(const vki_context *ctx, vki_kernel_stats *out);

/* Lists the devices the loader sees without creating a context. Writes up to max entries
 * and the total count to *count. */
VKI_API vki_status vki_enumerate_devices(vki_device_info *infos, int max, int *count);

/* ---- model -------------------------------------------------------------------------- */

/* Parses and validates a model. The bytes are copied where needed; the caller may free
 * them after the call returns. */
VKI_API vki_status vki_model_load_file(const char *path, vki_model **out);
VKI_API vki_status vki_model_load_memory(const void *data, size_t size, const char *name,
                                         vki_model **out);
VKI_API void vki_model_destroy(vki_model *model);

typedef struct vki_tensor_info {
    const char *name;
    int rank;
    int shape[8];
    size_t element_count;        /* product of shape */
} vki_tensor_info;

VKI_API int vki_model_input_count(const vki_model *model);
VKI_API int vki_model_output_count(const vki_model *model);
VKI_API vki_status vki_model_input_info(const vki_model *model, int index, vki_tensor_info *out);
VKI_API vki_status vki_model_output_info(const vki_model *model, int index, vki_tensor_info *out);
VKI_API int vki_model_op_count(const vki_model *model);
/* The TFLite builtin name of op i after load-time folding ("CONV_2D"), or NULL. */
VKI_API const char *vki_model_op_name(const vki_model *model, int index);

/* ---- graph -------------------------------------------------------------------------- */

typedef enum vki_precision {
    VKI_PRECISION_FP32 = 0,      /* float32 activations, weights and arithmetic */
    /* float16 storage of activations and weights (VK_KHR_16bit_storage), and float16
     * arithmetic where the device has shaderFloat16; convolution, pooling and reduction
     * sums stay fp32. */
    VKI_PRECISION_FP16,
    VKI_PRECISION_FP16_STORAGE,  /* float16 storage, float32 arithmetic */
} vki_precision;

typedef enum vki_wait_mode {
    VKI_WAIT_AUTO = 0,           /* GPUs: poll up to 2 ms, then sleep; CPU devices: sleep */
    VKI_WAIT_BLOCK,              /* sleep in vkWaitForFences: no CPU burnt */
    VKI_WAIT_SPIN,               /* poll the fence: lowest latency, one core busy */
} vki_wait_mode;

/* How intermediate tensors share device memory (planner/). All give identical outputs. */
typedef enum vki_memory_strategy {
    VKI_MEMORY_BEST = 0,         /* the smallest of the fast strategies below */
    VKI_MEMORY_NAIVE,            /* every tensor its own memory (the baseline) */
    VKI_MEMORY_GREEDY_BY_SIZE,   /* shared objects, TFLite GPU's greedy by size */
    VKI_MEMORY_GREEDY_BY_BREADTH,/* shared objects, greedy by breadth */
    VKI_MEMORY_MIN_COST_FLOW,    /* shared objects, min-cost flow */
    VKI_MEMORY_ARENA,            /* offsets in one arena, TFLite's arena planner */
    VKI_MEMORY_OPTIMAL,          /* offsets, exact search within a budget */
    VKI_MEMORY_STRATEGY_COUNT
} vki_memory_strategy;

typedef struct vki_graph_options {
    vki_precision precision;
    vki_memory_strategy memory;
    vki_wait_mode wait;
    /* Nonzero: write a GPU timestamp after every dispatch, read by vki_graph_profile. */
    int profile;
    /* With an fp16 precision: model op indices that stay fp32 (their outputs, weights and
     * arithmetic). For models whose outputs fp16 rounding moves too far; see
     * vki_calibrate_fp32_ops. */
    const int *fp32_ops;
    int n_fp32_ops;
    /* Work-group tuning. Sizes found in tuning_file (written by an earlier tuned build on
     * the same device and driver) replace the family table's. With tune nonzero, every
     * dispatch the file lacks is tuned by local search on the device during
     * vki_graph_create (neighbours by doubling or halving one axis, each timed with GPU
     * timestamps, median of 5; a move must be 5% faster), and tuning_file, if given, is
     * rewritten with the results. */
    const char *tuning_file;
    int tune;
    /* Debugging kernels: nonzero leaves guard bytes, filled with a pattern, after every
     * tensor in device memory and checks them after every run; a kernel that wrote past
     * its tensor makes vki_graph_run fail with VKI_ERROR_INTERNAL naming the tensor and
     * the op that wrote it. Also set by VKI_DEBUG_GUARDS=1 in the environment. */
    int debug_guards;
} vki_graph_options;

typedef struct vki_tuning_report {
    int dispatches;              /* dispatches whose work group may be tuned */
    int from_file;               /* of those, sizes taken from the tuning file */
    int searched;                /* tuned by local search in this build */
    int moved;                   /* of those, where a size beat the table's */
    double table_ms, tuned_ms;   /* summed GPU time of the searched ones, before and after */
    /* When sizes moved, the whole graph is timed both ways (median wall time of 15 runs)
     * and the tuned sizes are kept only if faster: a dispatch timed alone can mislead,
     * as on CPU devices, where it runs with hot caches and every core to itself. */
    double graph_table_ms, graph_tuned_ms;
    int kept;
} vki_tuning_report;

typedef struct vki_precision_report {
    int ops;                     /* ops that run (after fusion) */
    int fp16_ops;                /* of those, stored as float16 */
    int fp16_arithmetic;         /* nonzero: fp16 ops compute in float16 */
} vki_precision_report;

typedef struct vki_dispatch_profile {
    const char *kernel;          /* glsl kernel name, e.g. "conv2d" */
    int op_index;                /* model op it belongs to; -1 for input/output conversion */
    double ms;                   /* GPU time of the dispatch in the last run */
    uint32_t grid[3];            /* threads */
    uint32_t workgroup[3];
} vki_dispatch_profile;

typedef struct vki_memory_report {
    uint64_t weights_bytes;      /* device memory of packed weights */
    uint64_t intermediate_bytes; /* the planned arena of intermediate tensors */
    uint64_t io_bytes;           /* device copies (PHWC4) of graph inputs and outputs */
    uint64_t staging_bytes;      /* host-visible input/output buffers */
    uint64_t lower_bound_bytes;  /* no plan of these intermediates can be smaller */
    const char *strategy;        /* the strategy that made the plan ("arena", ...) */
} vki_memory_report;

/* One strategy's plan for a model's intermediates, as vki_graph_create would make it. */
typedef struct vki_memory_plan_info {
    vki_memory_strategy strategy;
    const char *name;            /* "greedy_by_size", ...; for BEST the name of the winner */
    uint64_t total_bytes;
    int objects;                 /* shared objects, or 0 for offset strategies */
    uint64_t lower_bound_bytes;
    double plan_ms;
    int proven_optimal;          /* VKI_MEMORY_OPTIMAL: the search finished */
    int tensors;                 /* intermediates planned */
} vki_memory_plan_info;

/* Builds the model for the context: compiles kernels, uploads weights, records the
 * command buffer. The model may be destroyed afterwards. */
VKI_API vki_status vki_graph_create(vki_context *ctx, const vki_model *model,
                                    const vki_graph_options *options, vki_graph **out);
VKI_API void vki_graph_destroy(vki_graph *graph);

/* Copies float32 NHWC data in; size is in bytes and must equal element_count * 4. */
VKI_API vki_status vki_graph_set_input(vki_graph *graph, int index, const float *data,
                                       size_t size);
/* Submits the recorded command buffer and waits for it. */
VKI_API vki_status vki_graph_run(vki_graph *graph);
/* Copies float32 NHWC data out; size is in bytes and must equal element_count * 4. */
VKI_API vki_status vki_graph_get_output(vki_graph *graph, int index, float *data, size_t size);
VKI_API vki_status vki_graph_memory(const vki_graph *graph, vki_memory_report *out);
/* What work-group tuning did for this graph. */
VKI_API vki_status vki_graph_tuning(const vki_graph *graph, vki_tuning_report *out);
/* How many ops are float16 and whether they compute in float16. */
VKI_API vki_status vki_graph_precision(const vki_graph *graph, vki_precision_report *out);
/* Plans the model's intermediates with every strategy (as built for ctx with options,
 * whose memory field is ignored) without allocating anything: out[i] for strategy i,
 * up to max entries (VKI_MEMORY_STRATEGY_COUNT for all). */
VKI_API vki_status vki_memory_plans(vki_context *ctx, const vki_model *model,
                                    const vki_graph_options *options, vki_memory_plan_info *out,
                                    int max);
typedef struct vki_calibration_options {
    vki_precision precision;     /* the fp16 precision to calibrate; 0 means VKI_PRECISION_FP16 */
    /* Largest error allowed in any output against the fp32 graph on the same inputs,
     * max|a-b| / max(max|b|, 1); 0 means 1e-2. */
    double tolerance;
} vki_calibration_options;

/* Mixed precision: finds the ops an fp16 graph keeps fp32 so that, on the given inputs
 * (graph inputs in order, float32 NHWC), every output is within the tolerance of the fp32
 * graph's. It keeps the shortest prefix of the op list that does, found by bisection:
 * rounding error made early passes through the most layers, so early ops matter most.
 * Writes the op indices (for vki_graph_options.fp32_ops) to ops, at most max, and their
 * count to *n_ops (0 when all-fp16 already meets the tolerance). Builds and runs about
 * log2(op count) + 2 graphs. Calibrate on inputs like the real ones: the answer holds for
 * inputs like them, not for every input. */
VKI_API vki_status vki_calibrate_fp32_ops(vki_context *ctx, const vki_model *model,
                                          const float *const *inputs,
                                          const vki_calibration_options *options, int *ops,
                                          int max, int *n_ops);
/* Per-dispatch GPU times of the last run of a graph built with options.profile; writes up
 * to max entries and returns the number of dispatches (or -1 without profiling). */
VKI_API int vki_graph_profile(const vki_graph *graph, vki_dispatch_profile *out, int max);
/* Number of compute dispatches recorded in the graph's command buffer. */
VKI_API int vki_graph_dispatch_count(const vki_graph *graph);

/* ---- camera frames and zero-copy I/O ------------------------------------------------ */

typedef enum vki_pixel_format {
    VKI_PIXEL_RGBA8888 = 0,      /* 4 bytes a pixel, R G B A; alpha is ignored */
    VKI_PIXEL_RGB888,            /* 3 bytes a pixel, R G B */
    VKI_PIXEL_NV21,              /* Y plane, then interleaved V U at half width and height */
    VKI_PIXEL_NV12,              /* Y plane, then interleaved U V at half width and height */
} vki_pixel_format;

/* A frame in host memory. NV21/NV12 chroma is subsampled 2x2, rounding up: the chroma
 * plane has ceil(height/2) rows of ceil(width/2) pairs, and pixel (x, y) takes the pair
 * (x/2, y/2). Only the rows and columns of the transform's crop are read. */
typedef struct vki_image {
    vki_pixel_format format;
    int width, height;           /* 1 .. 16384 each */
    int row_stride;              /* bytes per row of the first plane; 0 = tightly packed */
    const void *data;            /* RGBA/RGB pixels, or the Y plane */
    const void *uv;              /* NV12/NV21 interleaved chroma plane; NULL = right after
                                  * the Y plane (data + row_stride * height) */
    /* Bytes per chroma row; 0 = row_stride, or 2*ceil(width/2) where that is more (a
     * tightly packed frame of odd width). Both ignored for RGBA and RGB. */
    int uv_row_stride;
} vki_image;

/* What happens to a frame on its way into the model's input, in this order: crop, rotate,
 * mirror, resize to the input's H x W (bilinear), normalise. Zero means the default;
 * NULL means all defaults (the whole frame, upright, values in [0, 1]). */
typedef struct vki_image_transform {
    /* In frame pixels; a width or height of 0 reaches the frame's right or bottom edge. */
    int crop_x, crop_y, crop_width, crop_height;
    int rotation;                /* clockwise, 0, 90, 180 or 270 degrees */
    int mirror;                  /* nonzero: flip horizontally (after rotation) */
    /* out = (pixel - mean) / std for pixel values in 0..255, per channel R, G, B (a
     * one-channel input uses [0]). All std 0 (with all mean 0) gives pixel / 255. */
    float mean[3], std[3];
    /* Nonzero: keep the aspect ratio, fitting the rotated crop inside H x W, centred; the
     * pixels around it take the value `fill` (0..255, normalised like a pixel). */
    int letterbox;
    float fill;
} vki_image_transform;

/* Feeds input `index` from a camera frame instead of float NHWC: the frame's bytes are
 * copied once into a host-visible buffer of the graph, and one dispatch of the graph's
 * command buffer crops, resizes, rotates, mirrors, converts YUV to RGB and normalises,
 * writing the input tensor directly. The input must be [1,H,W,3] (RGB) or [1,H,W,1]
 * (luma). Resizing is bilinear with half-pixel centres, as OpenCV's cv::resize
 * (INTER_LINEAR) and TFLite's RESIZE_BILINEAR with half_pixel_centers: the source
 * coordinate of output pixel x is (x + 0.5) * scale - 0.5, clamped to the crop, so edges
 * repeat. YUV is BT.601 full range (JPEG/JFIF, as Android camera frames):
 * R = Y + 1.402 (V-128), G = Y - 0.344136 (U-128) - 0.714136 (V-128), B = Y + 1.772 (U-128),
 * each clamped to 0..255; luma from RGB is 0.299 R + 0.587 G + 0.114 B. The input stays
 * fed from frames until vki_graph_set_input or vki_graph_input_pointer is called for it.
 * Changing the frame or the transform costs no re-recording; switching an input between
 * frames and floats, or a frame larger than any before, re-records the command buffer. */
VKI_API vki_status vki_graph_set_input_image(vki_graph *graph, int index, const vki_image *image,
                                             const vki_image_transform *transform);

/* Zero-copy: the mapped host-visible memory that input or output `index` passes through,
 * as dense float32 NHWC, valid until the graph is destroyed; *size is in bytes. Write an
 * input before vki_graph_run (asking for an input's pointer puts it back on floats, as
 * vki_graph_set_input does); read an output after a run, until the next run. */
VKI_API vki_status vki_graph_input_pointer(vki_graph *graph, int index, float **data,
                                           size_t *size);
VKI_API vki_status vki_graph_output_pointer(vki_graph *graph, int index, const float **data,
                                            size_t *size);

#ifdef __cplusplus
}
#endif
#endif /* VKINFER_H */
