/* options.h: the public options, resolved once at the entry point into private configs with
 * every default filled in, the way sokol_gfx resolves its descriptors (_sg_desc_defaults).
 * Code past vki_context_create / vki_graph_create reads these and never tests an options
 * pointer or a zero field. Internal. */
#ifndef VKI_OPTIONS_H
#define VKI_OPTIONS_H

#include "env.h"
#include "vkinfer.h"

#include <stdint.h>

/* How long a run may poll its fence on a GPU before sleeping on it. Sleeping alone costs a
 * scheduler wake-up that can exceed the work: on the H100 a 0.8 ms graph took 2.5 ms at the
 * median when only sleeping. CPU devices never poll: their driver threads need the cores. */
#define VKI_DEFAULT_SPIN_NS 2000000ull
/* Every fence wait gives up after this and reports VKI_ERROR_TIMEOUT: a hung device must
 * not hang the caller. */
#define VKI_FENCE_TIMEOUT_NS 60000000000ull
/* A warm-up run inside vki_graph_create includes what the driver compiles at first dispatch
 * (lavapipe: 5-28 s for a MediaPipe model, cold, more under emulation or load), so it waits
 * longer than a run does. */
#define VKI_WARM_UP_TIMEOUT_NS 600000000000ull
/* Tuning: a candidate work group is timed SAMPLES times (median kept), each sample the
 * dispatch REPEATS times between two timestamps. */
#define VKI_TUNE_SAMPLES 5
#define VKI_TUNE_REPEATS 3
/* Tuning: the whole graph is timed with the tuned and with the table's sizes, median of
 * RUNS wall-clock runs each, in ROUNDS alternating rounds, after a warm-up of at least
 * WARMUP runs and WARMUP_MS, then until steady (tuner/stats.h vki_warmup, 5%, at most
 * WARMUP_MAX_MS): the search before leaves a GPU's clock low, and timed one after the other
 * the second would get the faster clock. On lavapipe a tuned graph ran 78-87 ms against the
 * table's 47-50 although every dispatch timed alone was faster. */
#define VKI_TUNE_GRAPH_RUNS 15
#define VKI_TUNE_GRAPH_ROUNDS 3
#define VKI_TUNE_GRAPH_WARMUP 3
#define VKI_TUNE_GRAPH_WARMUP_MS 200.0
#define VKI_TUNE_GRAPH_WARMUP_MAX_MS 1000.0
/* Calibration: an output may move this far from the fp32 graph's. */
#define VKI_DEFAULT_CALIBRATION_TOLERANCE 1e-2

typedef struct vki_context_config {
    int device_index;            /* counted from 0; -1: by name, or the best */
    const char *device_name;     /* a part of the name; NULL: by index, or the best */
    int validation;              /* 0 off, 1 report, 2 report and abort on an error */
    unsigned disable_features;
    const char *cache_dir;       /* NULL: no disk cache */
    const char *workgroup_table; /* a table file read before the built-in table; NULL: none */
    const char *kernel_pack;     /* a kernel pack file loaded at creation; NULL: none */
    vki_log_fn log;              /* never NULL: stderr by default */
    void *log_user;
    int ignore_environment;
} vki_context_config;

/* The options into a config; the environment (env.h's "context" variables) fills only
 * what the options leave zero, and nothing with ignore_environment. */
vki_status vki_context_config_resolve(const vki_context_options *o, vki_context_config *out);

typedef struct vki_graph_config {
    vki_precision precision;
    int fp16;                    /* an fp16 precision: fp16 storage for the ops not kept fp32 */
    int fp16_arith;              /* and fp16 arithmetic (the device has shaderFloat16) */
    int int_dot;                 /* int8 sums by packed dot products (shaderIntegerDotProduct) */
    vki_memory_strategy memory;
    uint64_t spin_ns;            /* poll the fence this long before sleeping; UINT64_MAX: spin */
    uint64_t fence_timeout_ns;
    int profile;
    const int *fp32_ops;         /* file op numbers, checked against the file's op count */
    int n_fp32_ops;
    const char *tuning_file;     /* NULL: none */
    int tune;
    int debug_guards;
    unsigned passes;             /* VKI_PASS_* bits of the passes that run */
    vki_progress_fn progress;    /* NULL: none */
    void *progress_user;
    int gpu_only;                /* refuse CPU ops rather than run them between GPU segments */
    int warm_up;                 /* run the graph once inside vki_graph_create */
    /* env.h's "kernel" variables as read at vki_graph_create (NULL: unset, or the context
     * ignores the environment); the op files read them through vki_build_env. */
    const char *env[VKI_ENV_COUNT];
} vki_graph_config;

/* Checks the options against the context's device and the model, and fills the config. */
vki_status vki_graph_config_resolve(const vki_context *ctx, const vki_model *m,
                                    const vki_graph_options *o, vki_graph_config *out);

#endif
