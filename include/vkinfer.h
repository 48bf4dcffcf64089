/* vkinfer.h: the public API of vkinfer, a Vulkan compute engine for TensorFlow Lite models.
 *
 * Three opaque handles, each made from the one before:
 *   vki_context  a Vulkan instance and one compute device
 *   vki_model    a parsed, validated .tflite model (no device work)
 *   vki_graph    a model built for a context: pipelines, memory, one recorded command buffer
 *
 * Every call that can fail returns a vki_status; each call below lists the ones it returns
 * besides VKI_OK. A failure also leaves a message for the calling thread, read with
 * vki_last_error(), that says what went wrong and where, e.g. "op 37 CONV_2D: weights
 * tensor 12 has 3 dims, need 4". A failing Vulkan call ("Vulkan failures" below) becomes
 * VKI_ERROR_OUT_OF_MEMORY (memory, pool or object limits), VKI_ERROR_DEVICE_FEATURE (a
 * feature, extension or layer missing), VKI_ERROR_NO_DEVICE (initialisation failed, an
 * incompatible driver), VKI_ERROR_TIMEOUT, or else VKI_ERROR_DEVICE_LOST.
 *
 * Handles and lifetimes:
 *   - Calls that create a handle set *out to NULL when they fail (out itself non-NULL).
 *   - Every *_destroy accepts NULL and then does nothing.
 *   - A graph keeps its context alive: vki_context_destroy gives up the app's handle, and
 *     the context is freed when its last graph is destroyed (or at once, with none left).
 *     Its graphs stay fully usable meanwhile; the handle itself must not be used again.
 *     This holds across threads: the count is atomic. A model may be destroyed as soon as
 *     vki_graph_create has returned: graphs keep no reference to it.
 *   - Returned strings: vki_status_name, vki_version_string, kernel names in
 *     vki_dispatch_profile and strategy names in vki_memory_report/vki_memory_plan_info
 *     are static; vki_model_op_name and vki_tensor_info.name live as long as the model;
 *     vki_last_error is the calling thread's and lasts until its next failing call.
 *
 * Options structs are zero-initialised to mean "default"; pass NULL for all defaults.
 *
 * Threads. A context may be used from any number of threads at once: graphs of one context
 * may be created, run and destroyed on different threads concurrently (the context
 * serialises its queue submits and its kernel cache internally), and two contexts share
 * nothing, so each may live on its own thread. The library keeps no global mutable state:
 * each context loads its own Vulkan entry points. A model may be read by several threads
 * at once (vki_graph_create only reads it). A graph is used by one thread at a time: a
 * call on a graph while another thread is inside a call on the same graph returns
 * VKI_ERROR_INVALID_ARGUMENT ("... is in a call on another thread") and changes nothing;
 * it never races. Calls on different threads one after another, properly ordered by the
 * app (a mutex, a queue hand-off), are fine. vki_graph_destroy must not overlap another
 * call on the same graph; if it finds one it logs an error and leaves the graph alone.
 *
 * Faults. A lost device (VK_ERROR_DEVICE_LOST) marks the context lost: from then on every
 * run, input and output call of each of its graphs, and vki_graph_create, return
 * VKI_ERROR_DEVICE_LOST; destroy the graphs and the context and make a new one. Other
 * failures (out of host or device memory, a pipeline that fails to build) return their
 * status and leave the context usable. No wait is unbounded: a run that does not finish
 * within 60 s (vki_graph_options.run_timeout_ms) returns VKI_ERROR_TIMEOUT.
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

/* ---- version ------------------------------------------------------------------------
 * The version of this header. meson.build's project version is the same (configuring fails
 * when they differ); the SONAME carries the major version: libvkinfer.so.0. */
#define VKI_VERSION_MAJOR 0
#define VKI_VERSION_MINOR 1
#define VKI_VERSION_PATCH 0

/* A version packed in 32 bits as Vulkan packs its own: major in bits 22-31, minor in
 * 12-21, patch in 0-11, so that packed versions compare in order. */
#define VKI_MAKE_VERSION(major, minor, patch) \
    (((uint32_t)(major) << 22) | ((uint32_t)(minor) << 12) | (uint32_t)(patch))
#define VKI_VERSION_GET_MAJOR(version) ((uint32_t)(version) >> 22)
#define VKI_VERSION_GET_MINOR(version) (((uint32_t)(version) >> 12) & 0x3ffu)
#define VKI_VERSION_GET_PATCH(version) ((uint32_t)(version) & 0xfffu)
/* The version this header describes. */
#define VKI_VERSION VKI_MAKE_VERSION(VKI_VERSION_MAJOR, VKI_VERSION_MINOR, VKI_VERSION_PATCH)

/* The version of the library linked at run time, packed as VKI_VERSION: compare the two to
 * catch a header and a library from different releases. Never fails. */
VKI_API uint32_t vki_version(void);
/* The same as text, "0.1.0": a static string. Never fails. */
VKI_API const char *vki_version_string(void);

/* Every status, its value and what it means: the enum and vki_status_name come from this
 * one list. */
#define VKI_STATUS_LIST(X)                                                                 \
    X(OK, 0, "success")                                                                  \
    X(ERROR_INVALID_ARGUMENT, 1, "a NULL handle, an index out of range, a wrong size")   \
    X(ERROR_IO, 2, "a file could not be read or written")                                \
    X(ERROR_MODEL_FORMAT, 3, "the bytes are not a well-formed .tflite model")            \
    X(ERROR_UNSUPPORTED_OP, 4, "the model uses an op or an option vkinfer lacks")        \
    X(ERROR_UNSUPPORTED_MODEL, 5, "well-formed, but e.g. a dynamic shape or rank > 5")   \
    X(ERROR_NO_DEVICE, 6, "no Vulkan loader, or no device with compute")                 \
    X(ERROR_DEVICE_FEATURE, 7, "the device lacks a feature the options ask for")         \
    X(ERROR_OUT_OF_MEMORY, 8, "host or device memory ran out")                           \
    X(ERROR_SHADER, 9, "a kernel failed to compile or a pipeline to build")              \
    X(ERROR_DEVICE_LOST, 10, "the device was lost or a submit/wait failed")              \
    X(ERROR_TIMEOUT, 11, "a run did not finish within the wait limit")                   \
    X(ERROR_INTERNAL, 12, "vkinfer broke its own rules (a bug): an invalid plan, a "     \
                          "kernel that wrote outside its tensor")                        \
    X(NOT_READY, 13, "not an error: vki_graph_wait(graph, 0) polled a run still in "     \
                     "flight; vki_last_error is left as it was")

#define VKI_STATUS_ENUM_(name, value, what) VKI_##name = value,
typedef enum vki_status { VKI_STATUS_LIST(VKI_STATUS_ENUM_) } vki_status;
#undef VKI_STATUS_ENUM_

typedef struct vki_context vki_context;
typedef struct vki_model vki_model;
typedef struct vki_graph vki_graph;

/* A short fixed name for a status code ("VKI_ERROR_MODEL_FORMAT"); "VKI_ERROR_UNKNOWN"
 * for a value outside the list. A static string, never NULL. Never fails. */
VKI_API const char *vki_status_name(vki_status status);

/* The message of the last failure on the calling thread, every call's failures included;
 * "" before any. Never NULL. The text is thread-local and stays until the next call that
 * fails on the same thread (calls that succeed leave it as it is): copy it to keep it. */
VKI_API const char *vki_last_error(void);

/* ---- context ------------------------------------------------------------------------ */

typedef enum vki_log_level {
    VKI_LOG_ERROR = 0,
    VKI_LOG_WARNING,
    VKI_LOG_INFO,
} vki_log_level;

/* Receives every message the library would otherwise print: validation layer messages,
 * warnings such as a requested layer that is not installed. Called from any thread that
 * uses the context, and from driver threads; message lives only for the call. */
typedef void (*vki_log_fn)(void *user, vki_log_level level, const char *message);

typedef struct vki_context_options {
    /* Device choice: an index counted from 0, as vki_enumerate_devices lists them ("1"), or
     * a case-insensitive part of a device name ("llvmpipe"). NULL: the environment variable
     * VKI_DEVICE, in the same syntax, where set; else the best: discrete > integrated >
     * virtual > CPU. Read during vki_context_create only (not kept). */
    const char *device;
    /* 1: enable the Khronos validation layer and report its messages through `log`; 2: also
     * call abort() on the first validation error (for test suites, never in an app). 0:
     * VKI_VALIDATION in the environment decides ("1", "fatal"), else off. A layer that is
     * not installed is a warning, not a failure. */
    int enable_validation;
    /* VKI_FEATURE_* bits: treat the device as lacking them, to see what a model does on
     * devices that do (fp16 graphs refused, or computing in fp32). */
    unsigned disable_features;
    /* A directory for compiled kernels (SPIR-V) and the driver's pipeline cache, so that
     * later runs skip compiling. Created if missing (not its parents); NULL means none,
     * unless the environment variable VKI_CACHE_DIR names one. A damaged or foreign entry
     * is ignored and rewritten. One that exists but is not writable is used for reading,
     * with a warning through `log`; so is the first entry that cannot be saved. The
     * string is copied. */
    const char *cache_dir;
    /* A work-group table file (the format of tuner/wg_table.txt, as `vkinfer tune
     * --export-table` writes it) whose families and rows are looked up before the built-in
     * table's. NULL means none, unless the environment variable VKI_WORKGROUP_TABLE names
     * one. A file that cannot be read or parsed fails vki_context_create, naming the line.
     * Read during vki_context_create only (not kept). */
    const char *workgroup_table;
    /* Where messages go; NULL prints them to stderr as "vkinfer: <message>". Both pointers
     * are kept: log is called with log_user for the context's whole life. */
    vki_log_fn log;
    void *log_user;
    /* Nonzero: the context and its graphs read no VKI_* environment variable at all, for
     * apps that embed the library and must not be steered by the environment they run in.
     * Otherwise the environment only fills what the options leave zero (docs/environment.md
     * lists every variable): an option the app set always wins. */
    int ignore_environment;
    /* A kernel pack file (`vkinfer pack` writes them): the SPIR-V of the kernels some
     * models need, used instead of compiling. A library built without the shader compiler
     * (meson -Dcompiler=disabled) builds graphs only from packs. Read and copied at
     * creation; NULL means none, unless the environment variable VKI_KERNEL_PACK names one.
     * A file that cannot be read or is not a valid pack fails vki_context_create
     * (VKI_ERROR_IO). More packs: vki_context_add_kernel_pack. */
    const char *kernel_pack;
} vki_context_options;

typedef struct vki_kernel_stats {
    int compiled;                /* kernels compiled by shaderc in this context */
    int from_disk;               /* kernels loaded from cache_dir instead */
    int from_pack;               /* kernels taken from a kernel pack (checked first) */
} vki_kernel_stats;

enum {
    VKI_FEATURE_FP16_STORAGE = 1u << 0,      /* storageBuffer16BitAccess */
    VKI_FEATURE_FP16_ARITHMETIC = 1u << 1,   /* shaderFloat16 */
    VKI_FEATURE_INT_DOT_PRODUCT = 1u << 2,   /* shaderIntegerDotProduct: int8 sums by plain
                                                integer math instead (the same results) */
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
    int int_dot_product;         /* shaderIntegerDotProduct (VK_KHR_shader_integer_dot_product):
                                    int8 convolutions sum 4 products per instruction */
} vki_device_info;

/* Loads the Vulkan loader (at run time), picks a device and creates the context.
 * VKI_ERROR_INVALID_ARGUMENT: out is NULL, or a device index (options->device or
 * VKI_DEVICE) is out of range. VKI_ERROR_NO_DEVICE: no Vulkan loader, one older than 1.1,
 * or no device with Vulkan 1.1 and a compute queue (or none that options->device names).
 * VKI_ERROR_IO: cache_dir cannot be created or is not a directory, or kernel_pack cannot
 * be read or is no valid pack. VKI_ERROR_SHADER: the shader compiler did not start. VKI_ERROR_OUT_OF_MEMORY, and Vulkan failures. */
VKI_API vki_status vki_context_create(const vki_context_options *options, vki_context **out);
/* Gives up the app's handle: after this call the app must not pass ctx to any call
 * again. The context is freed (the driver's pipeline cache written to cache_dir first,
 * if any) when its last graph is destroyed, or now if it has none: graphs still alive go
 * on running, reading outputs and being destroyed, from any thread, as before. NULL is
 * allowed and does nothing. */
VKI_API void vki_context_destroy(vki_context *ctx);
/* The context's device; fp16_storage and fp16_arithmetic say what this context enabled
 * (disable_features may have turned them off). VKI_ERROR_INVALID_ARGUMENT: a NULL
 * argument. */
VKI_API vki_status vki_context_device_info(const vki_context *ctx, vki_device_info *out);
/* Kernels compiled, loaded from cache_dir or taken from kernel packs so far.
 * VKI_ERROR_INVALID_ARGUMENT: a NULL argument. */
VKI_API vki_status vki_context_kernel_stats(const vki_context *ctx, vki_kernel_stats *out);

/* Kernel packs. A pack holds the SPIR-V of kernel variants, keyed by kernel, the hash of
 * its source, precision and #defines, as `vkinfer pack MODEL... -o app.vkpack` writes it
 * for the graphs of those models. A context looks a kernel up in its packs first; a
 * library with the shader compiler compiles what no pack holds, one without it
 * (-Dcompiler=disabled) fails vki_graph_create with VKI_ERROR_SHADER, naming the op and
 * the kernel missing. Entries written by a library with other kernel sources never match.
 * A pack also carries the driver's pipeline cache of the device `vkinfer pack` ran on; a
 * context on the same device and driver merges it into its own, so that device does not
 * translate the SPIR-V again (others ignore it). add_kernel_pack copies the bytes (the caller may free them after the call); a later
 * pack's entry wins over an earlier one's for the same kernel. Safe while other threads
 * build graphs of the context. VKI_ERROR_INVALID_ARGUMENT: a NULL argument. VKI_ERROR_IO:
 * the bytes are not a kernel pack, a newer version, truncated or damaged (checksum), or
 * (load_kernel_pack) the file cannot be read. VKI_ERROR_OUT_OF_MEMORY. */
VKI_API vki_status vki_context_add_kernel_pack(vki_context *ctx, const void *data, size_t size);
VKI_API vki_status vki_context_load_kernel_pack(vki_context *ctx, const char *path);

/* Lists the devices the loader sees without creating a context. Writes up to max entries
 * (infos may be NULL when max is 0) and the total count, at most 16, to *count; no device
 * at all is VKI_OK with a count of 0. VKI_ERROR_INVALID_ARGUMENT: count is NULL.
 * VKI_ERROR_NO_DEVICE: no Vulkan loader, or one older than 1.1. VKI_ERROR_OUT_OF_MEMORY,
 * and Vulkan failures. */
VKI_API vki_status vki_enumerate_devices(vki_device_info *infos, int max, int *count);

/* ---- model -------------------------------------------------------------------------- */

/* Parses and validates a model. The bytes are copied where needed; the caller may free
 * them after the call returns. name (load_memory; load_file uses the file's base name)
 * is copied and prefixes the model's messages. VKI_ERROR_INVALID_ARGUMENT: a NULL
 * argument. VKI_ERROR_IO (load_file): the file cannot be opened or read.
 * VKI_ERROR_MODEL_FORMAT: not a well-formed .tflite model (truncated, out-of-range
 * offsets or indices, a wrong file identifier). VKI_ERROR_UNSUPPORTED_OP: an op or an op
 * option vkinfer lacks. VKI_ERROR_UNSUPPORTED_MODEL: well-formed but beyond vkinfer (e.g.
 * rank > 8, int16 tensors; docs/ops.md, "Limits that remain").
 * VKI_ERROR_OUT_OF_MEMORY. Tensors of rank 0 to 8 and any batch load; int8 and uint8 models
 * load with their weights dequantized and their activations held as float real values
 * (docs/ops.md). */
VKI_API vki_status vki_model_load_file(const char *path, vki_model **out);
VKI_API vki_status vki_model_load_memory(const void *data, size_t size, const char *name,
                                         vki_model **out);
/* Frees the model; allowed as soon as vki_graph_create has returned (graphs keep no
 * reference to it), after which its op names and tensor info names are gone. NULL is
 * allowed and does nothing. */
/* A signature of the file (its signature_defs) by name: the model runs that signature's
 * subgraph, with its inputs and outputs in the signature's order and named by it
 * (vki_model_input_info, vki_model_input_index). NULL loads subgraph 0 as it is, as
 * vki_model_load_file does. VKI_ERROR_INVALID_ARGUMENT names the signatures a missing one
 * is not among. */
VKI_API vki_status vki_model_load_signature_file(const char *path, const char *signature,
                                                 vki_model **out);
VKI_API vki_status vki_model_load_signature_memory(const void *data, size_t size, const char *name,
                                                   const char *signature, vki_model **out);
/* The file's signatures: how many, and the key of signature `index` (NULL out of range);
 * and the one loaded (NULL: none). */
VKI_API int vki_model_signature_count(const vki_model *model);
VKI_API const char *vki_model_signature_name(const vki_model *model, int index);
VKI_API const char *vki_model_loaded_signature(const vki_model *model);
/* The index of the input or output called `name` (the signature's name where a signature
 * was loaded, else the tensor's), or -1. */
VKI_API int vki_model_input_index(const vki_model *model, const char *name);
VKI_API int vki_model_output_index(const vki_model *model, const char *name);
VKI_API void vki_model_destroy(vki_model *model);

typedef struct vki_tensor_info {
    const char *name;
    int rank;
    int shape[8];
    size_t element_count;        /* product of shape */
    unsigned dynamic_dims;       /* bit i: dimension i is -1 in the file's shape_signature
                                    (any size; shape holds the size it was written at) */
} vki_tensor_info;

/* A new shape for graph input `index` (vki_graph_options.input_shapes,
 * vki_model_resize_inputs). */
typedef struct vki_input_shape {
    int index;
    int rank;
    int dims[8];
} vki_input_shape;

/* Counts of the graph inputs and outputs; 0 for a NULL model. Never fail. */
VKI_API int vki_model_input_count(const vki_model *model);
VKI_API int vki_model_output_count(const vki_model *model);
/* Name, shape and size of graph input or output index; out->name lives as long as the
 * model. VKI_ERROR_INVALID_ARGUMENT: a NULL argument or an index out of range. */
VKI_API vki_status vki_model_input_info(const vki_model *model, int index, vki_tensor_info *out);
VKI_API vki_status vki_model_output_info(const vki_model *model, int index, vki_tensor_info *out);
/* Op numbers. Every op number the library gives or takes is the op's index in the
 * .tflite file's operator list (subgraph 0's operators vector), as vki_model_list_ops_*
 * and `vkinfer info` list them: error messages ("op 37 CONV_2D: ..."),
 * vki_dispatch_profile.op_index, vki_dispatch_info.op_index,
 * vki_graph_options.fp32_ops and what vki_calibrate_fp32_ops returns. Ops folded at load
 * (a DEQUANTIZE or DENSIFY of a constant, the BATCH_TO_SPACE_ND closing an atrous
 * convolution) keep their numbers and run as nothing of their own; ops that graph passes
 * fuse into another's dispatch (a RELU, a residual ADD) keep theirs too. */

/* The operators of the file, folded ones included (face_detection_short_range: 164, of
 * which 74 float16 DEQUANTIZEs fold at load); 0 for a NULL model. Never fails. */
VKI_API int vki_model_op_count(const vki_model *model);
/* The TFLite builtin name of file op `index` ("CONV_2D", "DEQUANTIZE"; "CUSTOM" for a
 * custom op), living as long as the model; NULL for a NULL model or an index out of range
 * (no error message is set). */
VKI_API const char *vki_model_op_name(const vki_model *model, int index);
/* 1 when file op `index` was folded at load and runs as nothing of its own, 0 when it runs
 * (possibly fused with others into one dispatch), -1 for a NULL model or an index out of
 * range. Never sets an error. */
VKI_API int vki_model_op_folded(const vki_model *model, int index);
/* Gives graph inputs new shapes and propagates them through every op to every tensor, as
 * TFLite's ResizeInputTensor and AllocateTensors do; a graph created from the model then
 * runs at those shapes (kernels already compiled for the same shapes come from the
 * context's cache). Any dimension may change, not only those the file marks -1
 * (dynamic_dims). RESHAPE takes its constant shape (one -1 stands for the rest), SQUEEZE and
 * EXPAND_DIMS keep the 1s they removed or added; every op is validated again at the new
 * shapes. On failure the model is unchanged: VKI_ERROR_INVALID_ARGUMENT (an index, rank or
 * dimension out of range), VKI_ERROR_MODEL_FORMAT / VKI_ERROR_UNSUPPORTED_MODEL (an op
 * cannot take the new shapes: a constant RESHAPE of the old size, a kernel's limit; the
 * message names the op), VKI_ERROR_OUT_OF_MEMORY. */
VKI_API vki_status vki_model_resize_inputs(vki_model *model, const vki_input_shape *shapes, int n);

/* 1 when file op `index` runs on the CPU (it has no GPU kernel: the graph runs GPU
 * segments around it), 0 when it runs on the GPU or was folded, -1 for a NULL model or an
 * index out of range. */
VKI_API int vki_model_op_on_cpu(const vki_model *model, int index);

/* One op of a .tflite file as vki_model_list_ops_* lists it. */
typedef struct vki_op_entry {
    int index;                   /* the op's index in the file's operator list */
    char name[64];               /* builtin name ("CONV_2D", "GELU"), or the custom op's own
                                  * name; "builtin code N" for a code newer than vkinfer */
    int custom;                  /* nonzero for a CUSTOM op */
    int supported;               /* vkinfer runs it (or folds it at load, as DEQUANTIZE) */
    int on_cpu;                  /* it runs on the CPU, between the graph's GPU segments */
} vki_op_entry;

/* Every op of a model in the file's order, without loading or building anything, so that a
 * model vkinfer cannot load still shows what it needs. Writes up to max entries to out (which
 * may be NULL with max 0) and the number of ops to *count. VKI_ERROR_INVALID_ARGUMENT: a NULL
 * path, data or count, or max < 0 or out NULL with max > 0. VKI_ERROR_IO: the file cannot be
 * read. VKI_ERROR_MODEL_FORMAT: not a TFLite flatbuffer, or its operator list is malformed
 * (every offset is bounds-checked). VKI_ERROR_OUT_OF_MEMORY. */
VKI_API vki_status vki_model_list_ops_file(const char *path, vki_op_entry *out, int max,
                                           int *count);
VKI_API vki_status vki_model_list_ops_memory(const void *data, size_t size, vki_op_entry *out,
                                             int max, int *count);

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

/* Graph passes: X(NAME, BIT, "name"), a pass's bit its place in the list. All but in_place
 * and order fold ops into others (engine/emit/passes.c, which runs them in this order but
 * gate, pool_residual and squeeze before dw_pw) so that fewer dispatches run; in_place and
 * order (engine/emit/schedule.c) change only where intermediates live and when dispatches
 * run, to lower the memory they need. None changes what a graph computes: a fused kernel
 * does the same arithmetic, or (dw_pw's split sums on GPUs, squeeze, block) the same sums
 * in another order, within rounding. Turning one off is for comparing and debugging. */
#define VKI_PASS_LIST(X)                                                                    \
    X(ACTIVATION, 0, "activation")       /* RELU, RELU6, TANH, LOGISTIC, HARD_SWISH into   \
                                            their producer's activation */                  \
    X(SPATIAL_PAD, 1, "spatial_pad")     /* a zero PAD of H, W into the convolution after */ \
    X(RESIDUAL, 2, "residual")           /* an ADD (and a channel PAD feeding it) into the  \
                                            epilogue of the op making an operand last */     \
    X(CHANNEL_PAD, 3, "channel_pad")     /* a channel PAD into the ADD reading it */         \
    X(OUTPUT_LAYOUT, 4, "output_layout") /* RESHAPE / CONCATENATION heads: producers write \
                                            the graph output's dense layout */              \
    X(DW_PW, 5, "dw_pw")                 /* depthwise + 1x1 conv in one dispatch (where it \
                                            pays: dw_pw.c's rule per device) */             \
    X(IN_PLACE, 6, "in_place")           /* an elementwise dispatch (or a residual epilogue) \
                                            writes over the input it reads last */          \
    X(ORDER, 7, "order")                 /* dispatches in an order with a lower peak of     \
                                            live bytes */                                   \
    X(GATE, 8, "gate")                   /* a MUL by a per-channel gate (squeeze-excite)    \
                                            into the input of the convolution reading it */ \
    X(POOL_RESIDUAL, 9, "pool_residual") /* a MAX_POOL_2D shortcut into the residual read  \
                                            of the op that took its ADD */                  \
    X(SQUEEZE, 10, "squeeze")            /* a global pool and the two 1x1 convs after it    \
                                            (squeeze-excite) in one work group */           \
    X(BLOCK, 11, "block")                /* an inverted residual block (1x1 expansion,      \
                                            depthwise, 1x1 projection, residual) in one     \
                                            dispatch (where it pays: block.c's rule) */

#define VKI_PASS_ENUM_(name, bit, text) VKI_PASS_##name = 1u << bit,
enum { VKI_PASS_LIST(VKI_PASS_ENUM_) };
#undef VKI_PASS_ENUM_

/* Progress of long work (tuning, calibration): called on the calling thread with a short
 * static stage name ("tune", "tune check", "calibrate") after each step, done counting
 * 1..total for the stage (total fixed for it). Must not call back into the library with
 * the graph or context it reports on. */
typedef void (*vki_progress_fn)(void *user, const char *stage, int done, int total);

/* Whether vki_graph_create runs the graph once (on zero inputs) before it returns. Some
 * drivers compile a kernel only at its first dispatch: lavapipe (Mesa's llvmpipe) spends
 * seconds of a model's first run compiling, so without a warm-up "built in" hides most of
 * the cost and the first vki_graph_run is many times slower than the rest. A warm-up run
 * costs one run more in vki_graph_create; it leaves no state behind (resource variables
 * start empty, outputs are overwritten by the first run). */
typedef enum vki_warm_up {
    VKI_WARM_UP_AUTO = 0,        /* the default: warm up (every device, measured in
                                    bench/results/first_run.md) */
    VKI_WARM_UP_ON,
    VKI_WARM_UP_OFF,             /* the first vki_graph_run pays what remains to compile */
} vki_warm_up;

/* Every pointer in these options is read during vki_graph_create only; none is kept, so
 * the app may free or reuse what they point to once vki_graph_create returns. */
typedef struct vki_graph_options {
    vki_precision precision;
    vki_memory_strategy memory;
    vki_wait_mode wait;
    /* Nonzero: write a GPU timestamp after every dispatch, read by vki_graph_profile. */
    int profile;
    /* With an fp16 precision: file op indices (see "Op numbers" above) that stay fp32
     * (their outputs, weights and arithmetic), each in 0 .. vki_model_op_count - 1; an op
     * folded at load may be named and changes nothing. For models whose outputs fp16
     * rounding moves too far; see vki_calibrate_fp32_ops. */
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
     * the op that wrote it. 0: VKI_DEBUG_GUARDS=1 in the environment turns it on. */
    int debug_guards;
    /* VKI_PASS_* bits of passes to leave out. 0: VKI_DISABLE_PASSES in the environment
     * (pass names separated by commas, or "all") where set, else every pass runs. */
    unsigned disable_passes;
    /* With tune: called after each dispatch searched ("tune", total = the dispatches to
     * search) and after each round of the whole-graph check, the tuned and the table's
     * sizes timed in turn after a warm-up until steady ("tune check", total 3).
     * NULL: none. */
    vki_progress_fn progress;
    void *progress_user;
    /* How long vki_graph_run waits for the device before it returns VKI_ERROR_TIMEOUT (the
     * run stays in flight; vki_graph_wait may wait longer). 0: 60 s. A first run on a CPU
     * device compiles every kernel and can take longer under emulation or heavy load. */
    uint32_t run_timeout_ms;
    /* New shapes for some graph inputs: the graph is built as if vki_model_resize_inputs had
     * given the model these shapes (the model itself is not changed). NULL / 0: the
     * model's shapes. */
    const vki_input_shape *input_shapes;
    int n_input_shapes;
    /* Nonzero: refuse a model with an op that has no GPU kernel (VKI_ERROR_UNSUPPORTED_OP
     * naming it) rather than run that op on the CPU between GPU segments. */
    int gpu_only;
    vki_warm_up warm_up;
} vki_graph_options;

typedef struct vki_tuning_report {
    int dispatches;              /* dispatches whose work group may be tuned */
    int from_file;               /* of those, sizes taken from the tuning file */
    int searched;                /* tuned by local search in this build */
    int moved;                   /* of those, where a size beat the table's */
    double table_ms, tuned_ms;   /* summed GPU time of the searched ones, before and after */
    /* When sizes moved, the whole graph is timed both ways (median wall time of 15 runs
     * each, in 3 alternating rounds after a warm-up until steady) and the tuned sizes are
     * kept only if faster: a dispatch timed alone can mislead,
     * as on CPU devices, where it runs with hot caches and every core to itself. */
    double graph_table_ms, graph_tuned_ms;
    int kept;
} vki_tuning_report;

typedef struct vki_precision_report {
    int ops;                     /* ops that run after load-time folding and fusion (a
                                    rounding step the loader adds to an int8 model counts) */
    int fp16_ops;                /* of those, stored as float16 */
    int fp16_arithmetic;         /* nonzero: fp16 ops compute in float16 */
} vki_precision_report;

typedef struct vki_dispatch_profile {
    const char *kernel;          /* glsl kernel name, e.g. "conv2d" */
    int op_index;                /* file op whose kernel it runs (ops fused into it, such
                                    as a RELU or an ADD, have no dispatch of their own);
                                    -1 for input/output conversion */
    double ms;                   /* GPU time of the dispatch in the last run */
    uint32_t grid[3];            /* threads */
    uint32_t workgroup[3];
    const char *variant;         /* the kernel's form the op chose ("1x1 4sx8p"), or ""; owned
                                    by the graph and valid while it lives */
} vki_dispatch_profile;

typedef struct vki_memory_report {
    uint64_t weights_bytes;      /* device memory of packed weights */
    uint64_t intermediate_bytes; /* the planned arena of intermediate tensors */
    uint64_t io_bytes;           /* device copies (PHWC4) of graph inputs and outputs */
    uint64_t staging_bytes;      /* host-visible dense float buffers of the inputs and
                                    outputs: every output's; an input's while it is fed
                                    floats (one fed by frames gives its back and makes it
                                    again at its next vki_graph_set_input, unless its
                                    vki_graph_input_pointer was taken) */
    uint64_t lower_bound_bytes;  /* no plan of these intermediates can be smaller */
    const char *strategy;        /* the strategy that made the plan ("arena", ...) */
    uint64_t frame_bytes;        /* host-visible buffers of the inputs fed by
                                    vki_graph_set_input_image: the frame buffer, as large
                                    as the largest part of a frame a transform read since
                                    the input last took floats (rounded up to 4 KiB), and
                                    the image kernel's 144-byte parameters once made */
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
 * command buffer. The model may be destroyed afterwards. The graph holds a reference to
 * ctx: the context lives until the app has called vki_context_destroy and every graph of
 * it is destroyed, in either order. VKI_ERROR_INVALID_ARGUMENT: a NULL argument, an option out of its enum, fp32_ops
 * NULL or naming an op the model lacks. VKI_ERROR_DEVICE_FEATURE: an fp16 precision on a
 * device without 16-bit storage, profile or tune on a queue without timestamps.
 * VKI_ERROR_UNSUPPORTED_OP, VKI_ERROR_UNSUPPORTED_MODEL: an op vkinfer cannot build, or
 * one beyond the device's limits (work-group counts, maxStorageBufferRange).
 * VKI_ERROR_SHADER: a kernel did not compile or its pipeline did not build. VKI_ERROR_IO:
 * tuning_file cannot be written. VKI_ERROR_INTERNAL: a memory plan failed its check.
 * VKI_ERROR_OUT_OF_MEMORY (host or device), and Vulkan failures (weights are uploaded and
 * tuning runs on the device). */
VKI_API vki_status vki_graph_create(vki_context *ctx, const vki_model *model,
                                    const vki_graph_options *options, vki_graph **out);
/* Frees the graph and its device memory, after waiting (bounded) for a run in flight, and
 * releases its context: the last graph of a context the app has destroyed frees the
 * context too. NULL is allowed and does nothing. */
VKI_API void vki_graph_destroy(vki_graph *graph);

/* Copies float32 NHWC data in (dense, row-major over the input's dims; an int8 or uint8
 * input of the file takes its real values, scale * (q - zero point), which the graph
 * rounds onto the input's grid); size is in bytes and must equal element_count * 4.
 * VKI_ERROR_INVALID_ARGUMENT: a NULL argument, an index out of range, a wrong size, a run
 * in flight, the graph in a call on another thread. VKI_ERROR_DEVICE_LOST: the device was
 * lost. */
VKI_API vki_status vki_graph_set_input(vki_graph *graph, int index, const float *data,
                                       size_t size);
/* Submits the recorded command buffer and waits for it. VKI_ERROR_INVALID_ARGUMENT: graph
 * is NULL, in a call on another thread, or with a run in flight. VKI_ERROR_TIMEOUT: the
 * run did not finish within run_timeout_ms, 60 s by default (it stays in flight: vki_graph_wait may wait longer).
 * VKI_ERROR_DEVICE_LOST: the submit or the wait failed, or the device was lost earlier.
 * VKI_ERROR_INTERNAL: with debug_guards, a kernel wrote past a tensor (the message names
 * both). VKI_ERROR_OUT_OF_MEMORY, and Vulkan failures. */
VKI_API vki_status vki_graph_run(vki_graph *graph);
/* Forgets the values of the graph's resource variables (ASSIGN_VARIABLE, READ_VARIABLE:
 * state a streaming model keeps from one run to the next) and runs its CALL_ONCE
 * initialisers again at the next run, as a freshly created graph would. */
VKI_API vki_status vki_graph_reset_variables(vki_graph *graph);
/* Asynchronous runs, for pipelining camera frames: vki_graph_submit starts a run and
 * returns at once; the app prepares the next frame meanwhile, then vki_graph_wait waits up
 * to timeout_ns for it. timeout_ns 0 polls: VKI_NOT_READY while the run is in flight (not
 * an error: vki_last_error is left alone; a model with CPU ops also moves on to its next
 * segment when the one before has finished), VKI_OK once it is done. VKI_ERROR_TIMEOUT
 * from a wait with a timeout leaves the run in flight; call it again. While a run is in
 * flight, set_input, get_output, run and submit on the graph return
 * VKI_ERROR_INVALID_ARGUMENT; vki_graph_wait without a run in flight does too. Runs of
 * different graphs may be in flight at once. Otherwise the statuses of vki_graph_run. */
VKI_API vki_status vki_graph_submit(vki_graph *graph);
VKI_API vki_status vki_graph_wait(vki_graph *graph, uint64_t timeout_ns);
/* The graph's inputs and outputs as it was built (after input_shapes), the same as
 * vki_model_input_info / _output_info give for the model: the graph keeps its own copy, so
 * these work after the model is destroyed. Names and dims in out stay valid while the graph
 * lives. The counts are 0 for a NULL graph. VKI_ERROR_INVALID_ARGUMENT: a NULL argument, an
 * index out of range. vki_graph_input_index / _output_index: the index of the input or
 * output with that tensor (or signature) name, -1 where there is none. */
VKI_API int vki_graph_input_count(const vki_graph *graph);
VKI_API int vki_graph_output_count(const vki_graph *graph);
VKI_API vki_status vki_graph_input_info(const vki_graph *graph, int index, vki_tensor_info *out);
VKI_API vki_status vki_graph_output_info(const vki_graph *graph, int index, vki_tensor_info *out);
VKI_API int vki_graph_input_index(const vki_graph *graph, const char *name);
VKI_API int vki_graph_output_index(const vki_graph *graph, const char *name);
/* Copies float32 NHWC data out, from the last run (an int8 or uint8 output of the file
 * gives its real values, scale * (q - zero point)); size is in bytes and must equal
 * element_count * 4. VKI_ERROR_INVALID_ARGUMENT: a NULL argument, an index out of range,
 * a wrong size, a run in flight, the graph in a call on another thread.
 * VKI_ERROR_DEVICE_LOST: the device was lost. */
VKI_API vki_status vki_graph_get_output(vki_graph *graph, int index, float *data, size_t size);
/* The graph's device memory; out->strategy is a static string. VKI_ERROR_INVALID_ARGUMENT:
 * a NULL argument. */
VKI_API vki_status vki_graph_memory(const vki_graph *graph, vki_memory_report *out);
/* What work-group tuning did for this graph. VKI_ERROR_INVALID_ARGUMENT: a NULL argument. */
VKI_API vki_status vki_graph_tuning(const vki_graph *graph, vki_tuning_report *out);
/* How many ops are float16 and whether they compute in float16.
 * VKI_ERROR_INVALID_ARGUMENT: a NULL argument. */
VKI_API vki_status vki_graph_precision(const vki_graph *graph, vki_precision_report *out);
/* Plans the model's intermediates with every strategy (as built for ctx with options,
 * whose memory field is ignored) without allocating anything: out[i] for strategy i,
 * up to max entries (VKI_MEMORY_STRATEGY_COUNT for all); names are static strings.
 * VKI_ERROR_INVALID_ARGUMENT: ctx or model NULL, out NULL with max > 0, options as for
 * vki_graph_create. VKI_ERROR_DEVICE_FEATURE: an fp16 precision without 16-bit storage.
 * VKI_ERROR_UNSUPPORTED_OP, VKI_ERROR_UNSUPPORTED_MODEL: as for vki_graph_create.
 * VKI_ERROR_OUT_OF_MEMORY: host memory, or a plan larger than 2^64 bytes. */
VKI_API vki_status vki_memory_plans(vki_context *ctx, const vki_model *model,
                                    const vki_graph_options *options, vki_memory_plan_info *out,
                                    int max);
typedef struct vki_calibration_options {
    vki_precision precision;     /* the fp16 precision to calibrate; 0 means VKI_PRECISION_FP16 */
    /* Largest error allowed in any output against the fp32 graph on the same inputs,
     * max|a-b| / max(max|b|, 1); 0 means 1e-2. */
    double tolerance;
    /* Called after each graph built and run ("calibrate"; total: the fp32 reference, the
     * all-fp16 graph and the bisection's steps, ceil(log2(ops + 1)), as an upper bound that
     * done reaches at the end). NULL: none. */
    vki_progress_fn progress;
    void *progress_user;
} vki_calibration_options;

/* Mixed precision: finds the ops an fp16 graph keeps fp32 so that, on the given inputs
 * (graph inputs in order, float32 NHWC), every output is within the tolerance of the fp32
 * graph's. It keeps the shortest prefix of the ops that run (in the file's order, those not
 * folded at load) that does, found by bisection: rounding error made early passes through
 * the most layers, so early ops matter most. Writes their file op indices, ascending (for
 * vki_graph_options.fp32_ops), to ops, at most max, and their count to *n_ops (0 when
 * all-fp16 already meets the tolerance). Builds and runs about log2(ops that run) + 2
 * graphs. Calibrate on inputs like the real ones: the answer holds for
 * inputs like them, not for every input. *n_ops is 0 after a failure.
 * VKI_ERROR_INVALID_ARGUMENT: ctx, model, inputs or n_ops NULL, ops NULL with max > 0,
 * a precision other than the fp16 ones, or more ops must stay fp32 than max.
 * VKI_ERROR_UNSUPPORTED_MODEL: more than 64 outputs. And every status of vki_graph_create
 * and vki_graph_run, for the graphs it builds and runs. */
VKI_API vki_status vki_calibrate_fp32_ops(vki_context *ctx, const vki_model *model,
                                          const float *const *inputs,
                                          const vki_calibration_options *options, int *ops,
                                          int max, int *n_ops);
/* Per-dispatch GPU times of the last run of a graph built with options.profile; writes up
 * to max entries (out may be NULL) and returns the number of dispatches, or -1 for a NULL
 * graph or one built without profiling (no error message is set). Kernel names are static
 * strings; variant labels belong to the graph. */
VKI_API int vki_graph_profile(const vki_graph *graph, vki_dispatch_profile *out, int max);
/* Number of compute dispatches recorded in the graph's command buffer; 0 for NULL. */
VKI_API int vki_graph_dispatch_count(const vki_graph *graph);

/* A graph whose model has CPU ops runs as segments: GPU segments (each one recorded command
 * buffer) and the CPU ops between them, in order. A graph of GPU ops alone is one segment.
 * Dispatch indices (vki_graph_dispatch_info, the profile) run through the GPU segments in
 * order; the profile adds one entry per CPU op, kernel "cpu", timed on the host. */
typedef struct vki_segment_info {
    int on_cpu;                  /* 1: CPU ops; 0: a GPU segment */
    int ops;                     /* ops it runs (the loader's own steps included) */
    int first_op;                /* the file index of its first op (-1: a loader step) */
    int dispatches;              /* a GPU segment's dispatches */
    int inputs, outputs;         /* a GPU segment's tensors in from other segments or the
                                    app, and out to them */
    double last_ms;              /* host wall time of its part of the last run; -1: none */
} vki_segment_info;
VKI_API int vki_graph_segment_count(const vki_graph *graph);
VKI_API vki_status vki_graph_segment_info(const vki_graph *graph, int index, vki_segment_info *out);

/* ---- work-group tuning runs ------------------------------------------------------------ */

/* One dispatch as the work-group table and the tuner see it. */
typedef struct vki_dispatch_info {
    const char *kernel;          /* glsl kernel name, a static string */
    int op_index;                /* file op it belongs to, as in vki_dispatch_profile */
    const char *variant;         /* the kernel's form ("1x1 4sx8p") or ""; owned by the graph */
    const char *wg_class;        /* the table's op class ("conv_1x1"), a static string */
    int tunable;                 /* local search may change its work group */
    uint32_t grid[3];            /* threads */
    uint32_t workgroup[3];       /* what the graph runs: the table's, the tuning file's or
                                    the search's */
    uint32_t table_workgroup[3]; /* the table's, fitted to the grid and the device */
} vki_dispatch_info;

/* Dispatch `index` (0 .. vki_graph_dispatch_count - 1) of a graph.
 * VKI_ERROR_INVALID_ARGUMENT: NULL, an index out of range, or a graph in a call on
 * another thread. */
VKI_API vki_status vki_graph_dispatch_info(const vki_graph *graph, int index, vki_dispatch_info *out);
/* The floating-point operations of dispatch `index` (2 per multiply-add of its op, the ops
 * fused into it included), so that a profile's GPU time gives a FLOP rate. Counted for the
 * convolutions, FULLY_CONNECTED, TRANSPOSE_CONV (and Convolution2DTransposeBias) and
 * BATCH_MATMUL, on an op's last dispatch; 0 for every other dispatch (data movement,
 * elementwise work), a NULL graph or an index out of range. */
VKI_API double vki_graph_dispatch_flops(const vki_graph *graph, int index);
/* GPU time in ms of dispatch `index` run alone with the given work group (exactly that
 * size: not fitted), as tuning times a candidate: that one dispatch repeated between two
 * timestamps, the median of 5 submits. The graph keeps its own sizes. *ms is -1 when the
 * device cannot run that size (past its limits, or the pipeline fails). Compiles a
 * pipeline per new size; reads whatever the graph's tensors hold. For sweeps and tables.
 * VKI_ERROR_INVALID_ARGUMENT: NULL, index out of range, a zero axis, a graph in flight or
 * in a call on another thread. VKI_ERROR_DEVICE_FEATURE: no timestamps on the queue. */
VKI_API vki_status vki_graph_time_dispatch(vki_graph *graph, int index, const uint32_t workgroup[3],
                                           double *ms);

typedef struct vki_table_export_options {
    /* The family the rows are for; NULL: the most specific family of the device in the
     * table in use (tuner/wg_table.txt, after the context's workgroup_table). */
    const char *family;
    /* Its criteria as a family line writes them; NULL: "vendor=0x...." of the device. */
    const char *match;
    /* The rows' source id and what its line says; NULL: "<family>-tuned" and the device,
     * driver version and models. */
    const char *source;
    const char *source_text;
    /* Sizes timed per bucket: the ones tuning chose there, most frequent first, and the
     * table's; 0 means 8. */
    int max_candidates;
    /* Called after each dispatch timed ("export", total = tunable dispatches). */
    vki_progress_fn progress;
    void *progress_user;
} vki_table_export_options;

/* Writes work-group table rows for the device's family to path (the format of
 * tuner/wg_table.txt): the tunable dispatches of the graphs (built on one context,
 * usually with options.tune) are grouped by op class and shape bucket; every candidate
 * size of a bucket is timed on every dispatch in it (fitted to each, as the table's rows
 * are); each bucket's row is the size with the least total time. Replaces path.
 * VKI_ERROR_INVALID_ARGUMENT: NULL graphs or path, n < 1, graphs of different contexts,
 * a graph in a call on another thread. VKI_ERROR_IO: path cannot be written. And the
 * statuses of vki_graph_time_dispatch. */
VKI_API vki_status vki_export_workgroup_table(vki_graph *const *graphs, int n,
                                              const vki_table_export_options *options,
                                              const char *path);

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

/* A rotated rectangle in frame (photo) pixels: MediaPipe's Rect, and its NormalizedRect
 * scaled by the frame's size. The centre, the size before rotation, and the rotation in
 * radians, clockwise on the screen (y grows downwards), as MediaPipe's rect.proto has it. */
typedef struct vki_rect {
    float x_center, y_center;
    float width, height;
    float rotation;
} vki_rect;

/* What samples outside the frame take, for a roi or matrix transform (a crop reads inside
 * the crop only and repeats its own edges). Each of a bilinear sample's four taps that
 * falls outside the frame reads black (ZERO) or the nearest edge pixel (REPLICATE), as
 * OpenCV's warps with BORDER_CONSTANT (value 0) or BORDER_REPLICATE and GL's
 * CLAMP_TO_BORDER (colour 0) or CLAMP_TO_EDGE, which MediaPipe's ImageToTensorCalculator
 * uses (image_to_tensor_converter_opencv.cc, _gl_texture.cc). A black tap is 0 before
 * normalisation, so a zero border normalises like a black pixel: MediaPipe converts the
 * value range after sampling (convertTo after warpPerspective; alpha * color + beta in
 * the GL shader). MediaPipe's own default, BORDER_UNSPECIFIED, is REPLICATE
 * (GetBorderMode in image_to_tensor_utils.cc); vkinfer's default is ZERO. */
typedef enum vki_border {
    VKI_BORDER_ZERO = 0,
    VKI_BORDER_REPLICATE = 1,
} vki_border;

/* What happens to a frame on its way into the model's input, in this order: crop, rotate,
 * mirror, resize to the input's H x W (bilinear), normalise. Zero means the default;
 * NULL means all defaults (the whole frame, upright, values in [0, 1]).
 *
 * Coordinates: "input pixels" run from 0 to the input's W or H, "frame pixels" from 0 to
 * the frame's width or height; pixel (i, j) covers [i, i+1) x [j, j+1), its centre at
 * (i + 0.5, j + 0.5) (as vkinfer_decode.h has them). Every transform is one affine map
 * from input pixels to frame pixels: input pixel (x, y) takes the frame's bilinear sample
 * at the image of its centre, the frame's pixel centres being its samples.
 *
 * Three kinds, at most one of which may be given:
 * - crop (crop_*, rotation): an axis-aligned crop, quarter turns; resizing has half-pixel
 *   centres, so the crop's edges map onto the input's edges; samples stay inside the crop,
 *   repeating its edge pixels; border is not used.
 * - roi (any of its fields nonzero; width and height must be > 0): MediaPipe's rotated
 *   crop. The rectangle's edges map onto the input's edges, the rectangle turned upright:
 *   its top edge (before rotation) becomes the input's top row, so the picture turns by
 *   -roi.rotation (a roi of the whole frame with rotation -pi/2 and width and height
 *   swapped gives rotation 90). Samples read the whole frame, outside it the border. The map is MediaPipe's
 *   GetRotatedSubRectToRectTransformMatrix (image_to_tensor_utils.cc), which its GL
 *   converter (image_to_tensor_converter_gl_texture.cc) applies to texture coordinates
 *   at fragment centres and samples with GL_LINEAR: half-pixel centres on both sides, as
 *   here. Its OpenCV converter (image_to_tensor_converter_opencv.cc) instead sends the
 *   rectangle's corners to input coordinates 0 and W, H in OpenCV's convention (pixel
 *   centres at integers), so its samples sit (0.5, 0.5) - J (0.5, 0.5) frame pixels from
 *   these, J the map's linear part: none at scale 1 unrotated, a quarter pixel on each
 *   axis where an input pixel covers half a frame pixel.
 * - matrix (any element nonzero): frame = (m[0] x + m[1] y + m[2], m[3] x + m[4] y + m[5])
 *   for (x, y) in input pixels; samples and border as for roi.
 * mirror combines with every kind: it flips the input horizontally, x -> W - x, after the
 * rest (for a roi as MediaPipe's flip_horizontally). letterbox combines with crop and
 * roi: for a crop the picture is fitted inside H x W and the margins take fill; for a roi,
 * as MediaPipe's keep_aspect_ratio (PadRoi in image_to_tensor_utils.cc), the rectangle is
 * first enlarged about its centre to the input's aspect ratio (H / W), so that the margins
 * show the frame around the rectangle (or the border), and fill is not used. A matrix with
 * letterbox, or roi or matrix with a nonzero crop_* or rotation, is an error. */
typedef struct vki_image_transform {
    /* In frame pixels; a width or height of 0 reaches the frame's right or bottom edge. */
    int crop_x, crop_y, crop_width, crop_height;
    int rotation;                /* clockwise, 0, 90, 180 or 270 degrees */
    int mirror;                  /* nonzero: flip horizontally (after rotation) */
    /* out = (pixel - mean) / std for pixel values in 0..255, per channel R, G, B (a
     * one-channel input uses [0]). All std 0 (with all mean 0) gives pixel / 255. */
    float mean[3], std[3];
    /* Nonzero: keep the aspect ratio, fitting the rotated crop inside H x W, centred; the
     * pixels around it take the value `fill` (0..255, normalised like a pixel). With a
     * roi: enlarge the roi to H / W instead (above). */
    int letterbox;
    float fill;
    /* A rotated region of interest in frame pixels; all zero: none. Finite; width and
     * height > 0; centre and size at most 1e6 in magnitude. */
    vki_rect roi;
    /* A 2x3 affine from input pixels to frame pixels; all zero: none. Finite, each
     * element at most 1e6 in magnitude. */
    float matrix[6];
    vki_border border;           /* for roi and matrix; ZERO (0) or REPLICATE */
} vki_image_transform;

/* Feeds input `index` from a camera frame instead of float NHWC: the frame's bytes are
 * copied once into a host-visible buffer of the graph, and one dispatch of the graph's
 * command buffer crops, resizes, rotates, mirrors, converts YUV to RGB and normalises,
 * writing the input tensor directly (a roi or matrix transform too: the same dispatch
 * samples through any affine map). The input must be [1,H,W,3] (RGB) or [1,H,W,1]
 * (luma). Resizing is bilinear with half-pixel centres, as OpenCV's cv::resize
 * (INTER_LINEAR) and TFLite's RESIZE_BILINEAR with half_pixel_centers: the source
 * coordinate of output pixel x is (x + 0.5) * scale - 0.5, clamped to the crop, so edges
 * repeat; for a roi or matrix, input pixel (x, y) takes the frame's bilinear sample at
 * the image of its centre (x + 0.5, y + 0.5), the border outside the frame. YUV is
 * BT.601 full range (JPEG/JFIF, as Android camera frames):
 * R = Y + 1.402 (V-128), G = Y - 0.344136 (U-128) - 0.714136 (V-128), B = Y + 1.772 (U-128),
 * each clamped to 0..255; luma from RGB is 0.299 R + 0.587 G + 0.114 B. The input stays
 * fed from frames until vki_graph_set_input or vki_graph_input_pointer is called for it.
 * Changing the frame or the transform costs no re-recording; switching an input between
 * frames and floats, or a frame larger than any before, re-records the command buffer.
 * The image kernel is made at an input's first frame; with warm_up (the default) that
 * call also runs the graph once, as vki_graph_create does, so that the next run does not
 * pay the kernel's first-dispatch compile. */
VKI_API vki_status vki_graph_set_input_image(vki_graph *graph, int index, const vki_image *image,
                                             const vki_image_transform *transform);

/* Where a point of the model's input lies in the frame, and the reverse, for mapping a
 * model's results (boxes, landmarks in input pixels) back onto the frame and frame points
 * into the input: the same affine map vki_graph_set_input_image samples through, for a
 * frame_width x frame_height frame and an input_width x input_height input (W x H), in
 * the pixel coordinates above (input pixel centres at +0.5, frame pixel centres at +0.5).
 * transform NULL means the defaults, as for vki_graph_set_input_image. Points off the
 * input (and, with a crop's letterbox, in its margins) are mapped by the same affine, not
 * clamped. to_frame writes *frame_x, *frame_y; from_frame writes *input_x, *input_y.
 * VKI_ERROR_INVALID_ARGUMENT: a NULL output, a frame or input side outside 1 .. 16384, a
 * point that is not finite, a crop, rotation, roi, matrix, letterbox, fill or border that
 * vki_graph_set_input_image rejects (mean and std are not looked at), or (from_frame) a
 * matrix that maps the input onto a line or a point. The outputs are 0 after a failure. */
VKI_API vki_status vki_image_transform_to_frame(const vki_image_transform *transform,
                                                int frame_width, int frame_height,
                                                int input_width, int input_height, float input_x,
                                                float input_y, float *frame_x, float *frame_y);
VKI_API vki_status vki_image_transform_from_frame(const vki_image_transform *transform,
                                                  int frame_width, int frame_height,
                                                  int input_width, int input_height,
                                                  float frame_x, float frame_y, float *input_x,
                                                  float *input_y);

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
