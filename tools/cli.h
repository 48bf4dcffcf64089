/* cli.h: what the command-line tool's files share: the resolved command line, the
 * verbs, and the small output helpers (JSON text, progress, failures). Written against the
 * public API (vkinfer.h, vkinfer_decode.h) plus tuner/stats.h, the pure C clock and
 * timing summaries the library and the tests share. */
#ifndef VKI_CLI_H
#define VKI_CLI_H

#include "vkinfer.h"
#include "vkinfer_decode.h"

#include <stdio.h>

#define CLI_MAX_MODELS 64
#define CLI_MAX_FILES 64
#define CLI_MAX_FP32_OPS 4096
#define CLI_MAX_OBJECTS 4             /* --num */

/* The verbs: id, name, operands, one line of help. */
#define CLI_VERB_LIST(X)                                                                        \
    X(RUN, "run", "MODEL", "run a model on a photo (--image) or raw inputs; print, draw or "     \
      "save what it found")                                                                    \
    X(BENCH, "bench", "MODEL...", "time each model: graph build cold and cached, first run, "    \
      "then mean, std, median, p10, p90, min")                                                 \
    X(TUNE, "tune", "MODEL...", "tune every dispatch's work-group size on the device, save the " \
      "sizes, print latency before and after")                                                 \
    X(CALIBRATE, "calibrate", "MODEL", "find the ops an fp16 graph keeps fp32 to stay within a "  \
      "tolerance of fp32")                                                                     \
    X(PACK, "pack", "MODEL...", "write the SPIR-V of every kernel the models' graphs need, in "  \
      "each --precision, to a kernel pack, for libraries built without the shader compiler")   \
    X(INFO, "info", "[MODEL]", "list the Vulkan devices (* = the one chosen); with MODEL its "   \
      "inputs, outputs, task and every op")                                                    \
    X(PLAN, "plan", "MODEL", "every memory strategy's plan: stored order, in place, chosen order") \
    X(HELP, "help", "[VERB]", "this help, or a verb's")                                         \
    X(VERSION, "version", "", "the tool's and the library's version")

#define CLI_VERB_ENUM_(id, name, operands, help) CLI_##id,
typedef enum cli_verb { CLI_VERB_LIST(CLI_VERB_ENUM_) CLI_VERB_COUNT } cli_verb;
#undef CLI_VERB_ENUM_

/* Named defaults: what zero (an option not given) resolves to. */
enum {
    CLI_DEFAULT_RUNS = 1,            /* run: one inference */
    CLI_DEFAULT_BENCH_RUNS = 100,    /* bench: as TFLite's benchmark_model's minimum */
    CLI_DEFAULT_BENCH_WARMUP = 10,
    CLI_DEFAULT_TUNE_RUNS = 30,      /* tune and calibrate: latency before and after */
    CLI_DEFAULT_TUNE_WARMUP = 5,
};
/* Warm-up by time where more than one run is timed (tuner/stats.h vki_warmup): at least
 * this long, then until the last two 50 ms windows' medians agree within 5%, at most five
 * times as long. On an H100 the clock climbs from 345 to 1980 MHz over the first few
 * hundred ms of work after an idle spell (a compile, a tuning sweep). */
#define CLI_DEFAULT_WARMUP_MS 1000.0
#define CLI_WARMUP_MAX_FACTOR 5.0
#define CLI_WARMUP_TOLERANCE 0.05
#define CLI_DEFAULT_TOLERANCE 1e-4
#define CLI_DEFAULT_CALIBRATE_TOLERANCE 1e-2

typedef struct cli {
    cli_verb verb;
    const char *models[CLI_MAX_MODELS];
    int n_models;
    const char *inputs[CLI_MAX_FILES];
    int n_inputs;
    vki_input_shape input_shapes[CLI_MAX_FILES];
    int n_input_shapes;
    const char *image;               /* --image PHOTO */
    const char *out;                 /* --out PICTURE.png (a folder with --frames) */
    const char *detector;            /* --detector MODEL: run the solution (cli_solution.c) */
    const char *frames;              /* --frames DIR */
    vki_rect roi;                    /* --roi: the landmark model's region, no detector */
    int roi_given;
    int num_objects;                 /* --num: objects a frame; 0 = the solution's default */
    const char *save_dir, *check_dir;
    vki_task task;                   /* --task, or VKI_TASK_NONE: guessed from the model */
    int task_given;
    /* Normalisation of --image: given by --range or --mean/--std, else by the task. */
    int norm_given;
    float mean[3], std[3];
    float threshold;                 /* --threshold: detections' minimum score; 0 = model's */
    double tolerance;
    int tolerance_given;
    int fp32_ops[CLI_MAX_FP32_OPS];
    int n_fp32_ops;
    const char *tuning_file;
    const char *export_table;        /* tune --export-table FILE */
    const char *cache_dir;           /* resolved: --cache-dir, VKI_CACHE_DIR or the XDG one */
    int no_cache;
    int tune;
    int gpu_only;
    int no_warm_up;
    const char *signature;       /* --signature; NULL: subgraph 0 */
    int runs, warmup;                /* warmup: the fewest warm-up runs */
    double warmup_ms;                /* --warmup-ms, resolved (0: by count alone) */
    int with_io;
    int profile, json, csv;
    vki_memory_strategy memory;
    vki_precision precision;
    vki_wait_mode wait;
    vki_context_options ctx_opts;
    const char *pack_out;            /* pack -o FILE */
    vki_precision pack_precisions[3];
    int n_pack_precisions;
} cli;

/* A directory that must be writable (made first with create); a file whose directory must
 * be. 1, or 0 after printing "vkinfer: FLAG PATH: cause". */
int cli_check_writable_dir(const char *dir, const char *flag, int create);
int cli_check_writable_file(const char *path, const char *flag);

/* Prints "vkinfer: <what> failed: <library message> (<status>)" and returns 1. */
int cli_fail(const char *what, vki_status s);
/* A progress callback for vki_progress_fn: a bar on a terminal, one line per step
 * otherwise; on stderr, so that stdout stays the result. */
void cli_progress(void *user, const char *stage, int done, int total);

/* JSON text: a string with every character that needs it escaped, and a number (null
 * for NaN and infinities, which JSON lacks). */
void cli_json_string(FILE *f, const char *s);
void cli_json_number(FILE *f, double v);
/* The warm-up c asks for (tuner/stats.h vki_warmup): at least --warmup runs and
 * --warmup-ms, then until steady, at most CLI_WARMUP_MAX_FACTOR times as long. */
struct vki_warmup;
void cli_warmup_init(const cli *c, struct vki_warmup *w);
/* "a warm-up of 812 runs in 1.02 s, steady" (by time), or "10 warm-up" (by count). */
const char *cli_warmup_text(const cli *c, int runs, double ms, int steady, char *buf, size_t n);
/* `text` as it is, then the number: cli_json_member(f, ", \"y\": ", y). */
void cli_json_member(FILE *f, const char *text, double v);
/* ", " between items: prints nothing before item 0. */
void cli_json_sep(FILE *f, int index);

/* What a run found, decoded for its task (cli_results.c). Coordinates are photo pixels
 * (input pixels when there is no photo). */
#define CLI_MAX_DETECTIONS 100
#define CLI_MAX_LANDMARKS 468
#define CLI_TOP_K 5
typedef struct cli_results {
    vki_task task;
    vki_letterbox letterbox;
    vki_detection detections[CLI_MAX_DETECTIONS];
    int n_detections;
    float threshold;                 /* the detections' minimum score */
    vki_landmark landmarks[CLI_MAX_LANDMARKS];
    int n_landmarks;
    float presence;                  /* landmark models: the score that the thing is there */
    float presence_min;              /* below it nothing was found: n_landmarks is 0 */
    float *mask;                     /* segmentation: photo-sized, 0..1; NULL otherwise */
    double mask_fraction;            /* its mean */
    int classes[CLI_TOP_K];
    float scores[CLI_TOP_K];
    int n_classes;
} cli_results;

/* The index of the model's output with exactly `count` elements, after skipping `skip`
 * such outputs; -1 if none. */
int cli_output_of_count(const vki_model *m, size_t count, int skip);
/* What MediaPipe's graphs feed a model of the task as --image values: the face and pose
 * detectors [-1, 1], the other models [0, 1] (mean and std on 0..255). */
void cli_task_range(vki_task task, float mean[3], float std[3]);
/* The solution whose landmark model has the task; VKI_SOLUTION_NONE for other tasks. */
vki_solution cli_solution_of(vki_task task);
/* What a landmark model's task finds: "face", "hand" or "person". */
const char *cli_thing_of(vki_task task);
/* Decodes the graph's outputs for r->task (set by the caller, with r->letterbox); 1, or 0
 * after printing why. */
int cli_results_decode(const cli *c, const vki_model *m, float **outs, cli_results *r);
void cli_results_print(const cli_results *r);
/* The results as JSON members (no braces), each preceded by ", ". */
void cli_results_json(const cli_results *r);
/* Draws them on the photo and writes PNG to path; 1, or 0 after printing why. */
int cli_results_draw(const cli_results *r, const char *photo, const char *path);
void cli_results_free(cli_results *r);

/* The verbs (cli_graph.c). */
int cli_run(const cli *c);
/* run --detector: MediaPipe's solutions (cli_solution.c). */
int cli_solution(const cli *c);
int cli_bench(const cli *c);
int cli_tune(const cli *c);
int cli_calibrate(const cli *c);
int cli_pack(const cli *c);       /* cli_pack.c */
/* Builds the context a verb's options ask for; a cache directory that cannot be used is
 * a warning, and the context is made without it. */
vki_status cli_context(const cli *c, vki_context **out);

#endif /* VKI_CLI_H */
