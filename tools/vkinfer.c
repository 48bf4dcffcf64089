/* vkinfer.c: the command-line tool's front: the verbs and options as tables, parsing and
 * resolving the command line once into a `cli` (every default named in cli.h, every value
 * checked and every flag matched to its verb before anything is loaded), the help texts,
 * and the verbs that build no graph (info, plan, version). The graph verbs are in
 * cli_graph.c, decoding and drawing results in cli_results.c.
 *
 * Conventions, as benchmark_model, benchncnn and git have them: `vkinfer --help`, `-h` and
 * `help` print to stdout and exit 0; `vkinfer VERB --help` prints the verb's own help;
 * mistakes on the command line exit 2 with one line naming the flag; failures while
 * working exit 1; --json makes stdout one JSON document on every verb. */
#include "cli.h"

#include "../tuner/stats.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The tool's version is the header's it was built with; the library's may differ when
 * libvkinfer.so is newer. */
#define VKI_CLI_STR_(x) #x
#define VKI_CLI_STR(x) VKI_CLI_STR_(x)
#define VKI_CLI_VERSION \
    VKI_CLI_STR(VKI_VERSION_MAJOR) "." VKI_CLI_STR(VKI_VERSION_MINOR) "." VKI_CLI_STR(VKI_VERSION_PATCH)

#define V(verb) (1u << CLI_##verb)
#define V_GRAPH (V(RUN) | V(BENCH) | V(TUNE) | V(CALIBRATE))
#define V_DEVICE (V_GRAPH | V(INFO) | V(PLAN) | V(PACK))
#define V_ALL (V_DEVICE | V(HELP) | V(VERSION))

/* The options: id, flag, value (NULL: a switch), the verbs it applies to, help. */
#define CLI_FLAG_LIST(X)                                                                        \
    X(IMAGE, "--image", "PHOTO", V(RUN) | V(BENCH),                                             \
      "PNG or JPEG for the model's image input: letterboxed (aspect kept), resized and "        \
      "normalised on the device")                                                               \
    X(RANGE, "--range", "0,1|-1,1", V(RUN) | V(BENCH),                                          \
      "--image values: [0,1] or [-1,1]; default: what the model's task expects (face "          \
      "and pose detection -1,1, others 0,1)")                                                   \
    X(MEAN, "--mean", "R,G,B", V(RUN) | V(BENCH),                                               \
      "--image normalisation (pixel - mean) / std on 0..255 values, with --std")                \
    X(STD, "--std", "R,G,B", V(RUN) | V(BENCH), "see --mean")                                   \
    X(TASK, "--task", "NAME", V(RUN),                                                           \
      "how to decode the outputs: face_detection, palm_detection, pose_detection, "             \
      "segmentation, pose_landmarks, hand_landmarks, face_mesh, classification, none; "         \
      "default: guessed from the model's inputs and outputs")                                   \
    X(THRESHOLD, "--threshold", "SCORE", V(RUN),                                                \
      "detections' minimum score, or a landmark model's minimum presence, 0..1; default: "      \
      "MediaPipe's graphs' (presence 0.5)")                                                     \
    X(OUT, "--out", "PICTURE.png", V(RUN),                                                      \
      "draw the results on the photo and write a PNG (with --frames: a folder for the "         \
      "drawn frames)")                                                                          \
    X(DETECTOR, "--detector", "MODEL", V(RUN),                                                  \
      "run MediaPipe's solution: the detector (face, palm or pose detection) finds the "        \
      "object on --image or each of --frames, the landmark model (the operand) runs on the "    \
      "rotated crop around it, and its landmarks are mapped back onto the photo")               \
    X(ROI, "--roi", "CX,CY,W,H,DEG", V(RUN),                                                    \
      "a landmark model on this region of --image instead of a detector's: centre, width and "  \
      "height in photo pixels, rotation in degrees clockwise")                                  \
    X(NUM, "--num", "N", V(RUN),                                                                \
      "with --detector: at most N objects a frame, 1 to 4 (MediaPipe's num_faces, num_hands; "  \
      "default: 1 face, 2 hands, 1 person); the detector runs while fewer are tracked")        \
    X(FRAMES, "--frames", "DIR", V(RUN),                                                        \
      "with --detector: the PNG and JPEG files of DIR in name order as a video, tracking the "  \
      "object from frame to frame (the detector runs only when tracking is lost)")              \
    X(INPUT, "--input", "FILE", V(RUN) | V(CALIBRATE),                                          \
      "raw little-endian float32 NHWC, one per model input in order (repeat the flag); "        \
      "default: the reference generator (xorshift32, seed 0x12345678, values in [-1,1))")       \
    X(SIGNATURE, "--signature", "NAME", V(INFO) | V(RUN) | V(BENCH) | V(PLAN),                   \
      "run the model's signature NAME (its subgraph, inputs and outputs); info lists them")     \
    X(INPUT_SHAPE, "--input-shape", "INDEX:DIMS", V(RUN) | V(BENCH),                             \
      "run at another input shape, e.g. 0:1,224,160,3 (repeat the flag for several inputs)")   \
    X(SAVE, "--save", "DIR", V(RUN), "write DIR/output_<i>.f32 for every output")               \
    X(CHECK, "--check", "DIR", V(RUN),                                                          \
      "compare outputs with DIR/output_<i>.f32: error max|a-b| / max(max|b|,1); exit 1 above "   \
      "--tolerance")                                                                            \
    X(TOLERANCE, "--tolerance", "T", V(RUN) | V(CALIBRATE),                                     \
      "default 1e-4 (calibrate: 1e-2 against fp32)")                                            \
    X(RUNS, "--runs", "N", V(RUN) | V(BENCH) | V(TUNE) | V(CALIBRATE),                           \
      "timed runs, at least 1; default: run 1, bench 100, tune and calibrate 30")               \
    X(WARMUP, "--warmup", "N", V(RUN) | V(BENCH) | V(TUNE) | V(CALIBRATE),                       \
      "untimed runs first, at least; default: run 0, bench 10, tune and calibrate 5")          \
    X(WARMUP_MS, "--warmup-ms", "MS", V(RUN) | V(BENCH) | V(TUNE),                              \
      "warm up for at least MS ms, then until the latency is steady (the medians of the "      \
      "last two 50 ms windows within 5%), at most 5 x MS; 0: --warmup runs alone; default "    \
      "1000 where more than one run is timed, else 0")                                          \
    X(WITH_IO, "--with-io", NULL, V(RUN) | V(BENCH),                                            \
      "time the input copy too (by default only submit and wait are timed)")                   \
    X(CSV, "--csv", NULL, V(BENCH), "one CSV line per model on stdout")                         \
    X(JSON, "--json", NULL, V_DEVICE | V(VERSION), "stdout is one JSON document")                               \
    X(PROFILE, "--profile", NULL, V(RUN), "GPU time per dispatch and per kernel")               \
    X(FP16, "--fp16", NULL, V_GRAPH | V(PLAN),                                                  \
      "float16 storage, and float16 arithmetic where the device has it (sums stay float32)")    \
    X(FP16_STORAGE, "--fp16-storage", NULL, V_GRAPH | V(PLAN),                                  \
      "float16 storage, float32 arithmetic")                                                    \
    X(FP32_OPS, "--fp32-ops", "LIST", V(RUN) | V(BENCH) | V(TUNE),                              \
      "with --fp16: ops kept float32, numbered as info lists them, e.g. 2-79,85 (calibrate "   \
      "prints one)")                                                                            \
    X(MEMORY, "--memory", "STRATEGY", V(RUN) | V(BENCH),                                        \
      "best (default), naive, greedy_by_size, greedy_by_breadth, min_cost_flow, arena, "       \
      "optimal")                                                                                \
    X(TUNE, "--tune", NULL, V(RUN) | V(BENCH),                                                  \
      "tune work-group sizes while building (as the tune verb does, without before/after)")     \
    X(TUNING_FILE, "--tuning-file", "FILE", V(RUN) | V(BENCH) | V(TUNE),                        \
      "work-group sizes to use, and where tuning saves them; default: tuning.txt in the "      \
      "cache directory")                                                                        \
    X(EXPORT_TABLE, "--export-table", "FILE", V(TUNE),                                          \
      "after tuning, time each shape bucket's candidate sizes on all its dispatches and write "  \
      "work-group table rows for the device's family to FILE (format: tuner/wg_table.txt)")     \
    X(WORKGROUP_TABLE, "--workgroup-table", "FILE", V_GRAPH | V(PLAN),                                    \
      "work-group table rows looked up before the built-in table's (default: "                  \
      "VKI_WORKGROUP_TABLE)")                                                                   \
    X(OUTPUT, "--output", "FILE.vkpack", V(PACK), "where the pack goes (also -o); required")      \
    X(PRECISION, "--precision", "LIST", V(PACK),                                                \
      "the graphs' precisions, comma-separated: fp32, fp16, fp16-storage (as --fp16 and "      \
      "--fp16-storage); default fp32")                                                          \
    X(KERNEL_PACK, "--kernel-pack", "FILE", V_GRAPH,                                            \
      "take kernels from this pack (vkinfer pack) before compiling any; a library without "     \
      "the shader compiler needs one (default: VKI_KERNEL_PACK)")                               \
    X(CACHE_DIR, "--cache-dir", "DIR", V_GRAPH | V(PLAN) | V(PACK),                                       \
      "compiled kernels, pipeline cache and tuning results; default: VKI_CACHE_DIR, else "      \
      "$XDG_CACHE_HOME/vkinfer, else ~/.cache/vkinfer")                                         \
    X(NO_CACHE, "--no-cache", NULL, V_GRAPH | V(PLAN) | V(PACK), "use and write no cache directory")      \
    X(SPIN, "--spin", NULL, V_GRAPH, "poll for completion (default on GPUs: up to 2 ms)")       \
    X(BLOCK, "--block", NULL, V_GRAPH, "sleep until completion (default on CPU devices)")       \
    X(GPU_ONLY, "--gpu-only", NULL, V_GRAPH,                                                    \
      "refuse a model with ops that have no GPU kernel (by default they run on the CPU)")      \
    X(NO_WARM_UP, "--no-warm-up", NULL, V_GRAPH,                                                \
      "build without the warm-up run: the first run then pays what the driver compiles at "    \
      "first dispatch")                                                                         \
    X(DEVICE, "--device", "INDEX|NAME", V_DEVICE,                                               \
      "a device's index in `vkinfer info`, or part of its name; wins over VKI_DEVICE")          \
    X(VALIDATION, "--validation", NULL, V_DEVICE, "enable the Khronos validation layer")        \
    X(HELP, "--help", NULL, V_ALL, "this help (also -h)")                                       \
    X(VERSION, "--version", NULL, V_ALL, "the version")

#define CLI_FLAG_ENUM_(id, flag, value, verbs, help) F_##id,
typedef enum cli_flag { CLI_FLAG_LIST(CLI_FLAG_ENUM_) F_COUNT } cli_flag;
#undef CLI_FLAG_ENUM_

typedef struct flag_desc {
    const char *flag, *value, *help;
    unsigned verbs;
} flag_desc;

#define CLI_FLAG_DESC_(id, flag, value, verbs, help) {flag, value, help, verbs},
static const flag_desc flags[F_COUNT] = {CLI_FLAG_LIST(CLI_FLAG_DESC_)};
#undef CLI_FLAG_DESC_

typedef struct verb_desc {
    const char *name, *operands, *help;
} verb_desc;

#define CLI_VERB_DESC_(id, name, operands, help) {name, operands, help},
static const verb_desc verbs[CLI_VERB_COUNT] = {CLI_VERB_LIST(CLI_VERB_DESC_)};
#undef CLI_VERB_DESC_

static const char *const strategy_names[VKI_MEMORY_STRATEGY_COUNT] = {
    "best", "naive", "greedy_by_size", "greedy_by_breadth", "min_cost_flow", "arena", "optimal"};

/* ---- help ------------------------------------------------------------------------------ */

static void print_wrapped(FILE *f, const char *text, int indent, int width) {
    int col = indent;
    const char *p = text;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ') w++;
        int len = (int)(w - p);
        if (col > indent && col + 1 + len > width) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, p);
        col += len;
        p = *w ? w + 1 : w;
    }
    fputc('\n', f);
}

static void print_flag(FILE *f, int i) {
    char head[64];
    snprintf(head, sizeof head, "  %s%s%s", flags[i].flag, flags[i].value ? " " : "",
             flags[i].value ? flags[i].value : "");
    fprintf(f, "%-28s", head);
    if (strlen(head) >= 28) fprintf(f, "\n%28s", "");
    print_wrapped(f, flags[i].help, 28, 96);
}

static int help_all(FILE *f) {
    fprintf(f, "vkinfer %s: run TensorFlow Lite models on a Vulkan device\n\n"
               "usage: vkinfer VERB [OPTIONS] OPERANDS\n\n", vki_version_string());
    for (int v = 0; v < CLI_VERB_COUNT; v++) {
        char head[64];
        snprintf(head, sizeof head, "  %s %s", verbs[v].name, verbs[v].operands);
        fprintf(f, "%-28s", head);
        print_wrapped(f, verbs[v].help, 28, 96);
    }
    fprintf(f, "\n`vkinfer VERB --help` lists a verb's options. Example:\n"
               "  vkinfer run face_detection_short_range.tflite --image photo.jpg --out faces.png\n");
    return 0;
}

static int help_verb(FILE *f, cli_verb v) {
    fprintf(f, "usage: vkinfer %s [OPTIONS] %s\n\n", verbs[v].name, verbs[v].operands);
    print_wrapped(f, verbs[v].help, 0, 96);
    fprintf(f, "\noptions:\n");
    for (int i = 0; i < F_COUNT; i++)
        if (flags[i].verbs & (1u << v)) print_flag(f, i);
    return 0;
}

static int version(int json) {
    if (json) {
        printf("{\"version\": ");
        cli_json_string(stdout, VKI_CLI_VERSION);
        printf(", \"library\": ");
        cli_json_string(stdout, vki_version_string());
        printf("}\n");
    } else {
        printf("vkinfer %s (library %s)\n", VKI_CLI_VERSION, vki_version_string());
    }
    return 0;
}

/* ---- parsing ----------------------------------------------------------------------------- */

/* A command-line mistake: one line naming it, exit status 2. */
static int usage_error(const cli *c, const char *fmt, ...) {
    fprintf(stderr, "vkinfer%s%s: ", c && c->verb < CLI_VERB_COUNT ? " " : "",
            c && c->verb < CLI_VERB_COUNT ? verbs[c->verb].name : "");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'vkinfer %s%s--help')\n",
            c && c->verb < CLI_HELP ? verbs[c->verb].name : "", c && c->verb < CLI_HELP ? " " : "");
    return 0;
}

/* "INDEX:D0,D1,..." for --input-shape. */
static int parse_input_shape(cli *c, const char *text, vki_input_shape *out) {
    memset(out, 0, sizeof *out);
    char *end;
    long index = strtol(text, &end, 10);
    if (end == text || *end != ':' || index < 0 || index >= CLI_MAX_FILES)
        return usage_error(c, "--input-shape takes INDEX:DIMS like 0:1,224,224,3, got '%s'", text);
    out->index = (int)index;
    const char *p = end + 1;
    while (*p) {
        long d = strtol(p, &end, 10);
        if (end == p || d < 1 || d > INT32_MAX || out->rank == 8 || (*end && *end != ','))
            return usage_error(c, "--input-shape takes INDEX:DIMS with 1 to 8 positive dims "
                               "like 0:1,224,224,3, got '%s'", text);
        out->dims[out->rank++] = (int)d;
        p = *end ? end + 1 : end;
    }
    if (!out->rank)
        return usage_error(c, "--input-shape takes INDEX:DIMS like 0:1,224,224,3, got '%s'", text);
    return 1;
}

static int parse_count(const cli *c, const char *flag, const char *text, int min, int *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < min || v > 1000000) {
        return usage_error(c, "%s takes a whole number from %d to 1000000, got '%s'", flag, min,
                           text);
    }
    *out = (int)v;
    return 1;
}

/* "0-79,85" -> op indices; whether they exist is checked against the model later. */
static int parse_ops(cli *c, const char *text) {
    const char *p = text;
    c->n_fp32_ops = 0;
    while (*p) {
        char *end;
        if (!isdigit((unsigned char)*p)) break;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1])) break;
            b = strtol(p + 1, &end, 10);
            if (b < a) break;
            p = end;
        }
        if (b - a + 1 > CLI_MAX_FP32_OPS - c->n_fp32_ops) {
            return usage_error(c, "--fp32-ops: more than %d op indices in '%s'", CLI_MAX_FP32_OPS, text);
        }
        for (long i = a; i <= b; i++) c->fp32_ops[c->n_fp32_ops++] = (int)i;
        if (*p == ',') p++;
        else if (*p) break;
    }
    if (*p || !*text)
        return usage_error(c, "--fp32-ops takes op indices and ranges like 0-79,85, got '%s'",
                           text);
    return 1;
}

/* "a,b,c" or one value for all three. */
static int parse_triple(const cli *c, const char *flag, const char *text, float out[3]) {
    const char *p = text;
    int n = 0;
    while (n < 3) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v)) break;
        out[n++] = (float)v;
        p = end;
        if (*p != ',') break;
        p++;
    }
    if (*p || n == 2 || n == 0) return usage_error(c, "%s takes one number or three (R,G,B), got '%s'", flag, text);
    if (n == 1) out[1] = out[2] = out[0];
    return 1;
}

static int parse_number(const cli *c, const char *flag, const char *text, double lo, double hi,
                        double *out) {
    char *end;
    double v = strtod(text, &end);
    if (!*text || *end || !(v >= lo && v <= hi)) {
        return usage_error(c, "%s takes a number from %g to %g, got '%s'", flag, lo, hi, text);
    }
    *out = v;
    return 1;
}

/* The cache directory: --cache-dir, VKI_CACHE_DIR, $XDG_CACHE_HOME/vkinfer or
 * ~/.cache/vkinfer, created with its parents; NULL with --no-cache, or after a warning
 * when none can be made. */
static const char *resolve_cache_dir(const cli *c, char *buf, size_t size) {
    if (c->no_cache) return NULL;
    const char *dir = c->ctx_opts.cache_dir;
    const char *env = getenv("VKI_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (!dir && env && *env) dir = env;
    if (!dir && xdg && xdg[0] == '/') snprintf(buf, size, "%s/vkinfer", xdg), dir = buf;
    if (!dir && home && *home) snprintf(buf, size, "%s/.cache/vkinfer", home), dir = buf;
    if (!dir) return NULL;
    if (dir != buf) snprintf(buf, size, "%s", dir);
    /* mkdir -p */
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p) continue;
        char keep = *p;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "vkinfer: warning: cache directory %s: %s; going on without a "
                            "cache (--no-cache silences this)\n", buf, strerror(errno));
            return NULL;
        }
        *p = keep;
        if (!keep) break;
    }
    return buf;
}

/* pack --precision: "fp32,fp16,fp16-storage", each at most once. */
static int parse_precisions(cli *c, const char *text) {
    static const char *const names[] = {"fp32", "fp16", "fp16-storage"};
    static const vki_precision values[] = {VKI_PRECISION_FP32, VKI_PRECISION_FP16,
                                           VKI_PRECISION_FP16_STORAGE};
    const char *p = text;
    c->n_pack_precisions = 0;
    while (1) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < 3 && (strlen(names[k]) != len || strncmp(p, names[k], len))) k++;
        if (k == 3)
            return usage_error(c, "--precision takes fp32, fp16 and fp16-storage, comma-separated, "
                               "got '%s'", text);
        for (int i = 0; i < c->n_pack_precisions; i++)
            if (c->pack_precisions[i] == values[k])
                return usage_error(c, "--precision names %s twice", names[k]);
        c->pack_precisions[c->n_pack_precisions++] = values[k];
        if (!p[len]) return 1;
        p += len + 1;
    }
}

static int parse_args(int argc, char **argv, cli *c, int *help, int *show_version) {
    const char *value[F_COUNT] = {0};
    int seen[F_COUNT] = {0};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h")) a = "--help";
        if (!strcmp(a, "-o")) a = "--output";
        if (a[0] != '-' || !a[1]) {
            if (c->n_models == CLI_MAX_MODELS) return usage_error(c, "more than %d models", CLI_MAX_MODELS);
            c->models[c->n_models++] = a;
            continue;
        }
        int f = 0;
        while (f < F_COUNT && strcmp(a, flags[f].flag)) f++;
        if (f == F_COUNT) return usage_error(c, "unknown option '%s'", a);
        if (!(flags[f].verbs & (1u << c->verb))) {
            char verbs_list[160] = "";
            for (int v = 0; v < CLI_HELP; v++)
                if (flags[f].verbs & (1u << v))
                    snprintf(verbs_list + strlen(verbs_list), sizeof verbs_list - strlen(verbs_list),
                             "%s%s", verbs_list[0] ? ", " : "", verbs[v].name);
            return usage_error(c, "%s does not apply to this verb (it is for: %s)", a, verbs_list);
        }
        if (flags[f].value) {
            if (i + 1 >= argc) return usage_error(c, "%s needs a value (%s)", a, flags[f].value);
            const char *v = argv[++i];
            if (f == F_INPUT) {
                if (c->n_inputs == CLI_MAX_FILES) return usage_error(c, "more than %d --input", CLI_MAX_FILES);
                c->inputs[c->n_inputs++] = v;
            } else if (f == F_INPUT_SHAPE) {
                if (c->n_input_shapes == CLI_MAX_FILES)
                    return usage_error(c, "more than %d --input-shape", CLI_MAX_FILES);
                if (!parse_input_shape(c, v, &c->input_shapes[c->n_input_shapes++])) return 0;
            } else if (seen[f]) {
                return usage_error(c, "%s given twice", a);
            }
            value[f] = v;
        }
        seen[f] = 1;
    }
    *help = seen[F_HELP];
    *show_version = seen[F_VERSION];
    if (*help || *show_version) return 1;

    /* Resolve once: values to types, defaults where nothing was given. */
    c->json = seen[F_JSON];
    c->csv = seen[F_CSV];
    if (c->json && c->csv) return usage_error(c, "--json and --csv together");
    c->profile = seen[F_PROFILE];
    c->with_io = seen[F_WITH_IO];
    c->tune = seen[F_TUNE];
    c->gpu_only = seen[F_GPU_ONLY];
    c->no_warm_up = seen[F_NO_WARM_UP];
    c->signature = value[F_SIGNATURE];
    c->no_cache = seen[F_NO_CACHE];
    if (c->no_cache && seen[F_CACHE_DIR]) return usage_error(c, "--no-cache and --cache-dir together");
    c->ctx_opts.enable_validation = seen[F_VALIDATION];
    if (seen[F_FP16] && seen[F_FP16_STORAGE]) return usage_error(c, "--fp16 and --fp16-storage together");
    c->precision = seen[F_FP16] ? VKI_PRECISION_FP16
                 : seen[F_FP16_STORAGE] ? VKI_PRECISION_FP16_STORAGE : VKI_PRECISION_FP32;
    if (seen[F_SPIN] && seen[F_BLOCK]) return usage_error(c, "--spin and --block together");
    c->wait = seen[F_SPIN] ? VKI_WAIT_SPIN : seen[F_BLOCK] ? VKI_WAIT_BLOCK : VKI_WAIT_AUTO;

    int bench = c->verb == CLI_BENCH, tuning = c->verb == CLI_TUNE || c->verb == CLI_CALIBRATE;
    c->runs = bench ? CLI_DEFAULT_BENCH_RUNS : tuning ? CLI_DEFAULT_TUNE_RUNS : CLI_DEFAULT_RUNS;
    c->warmup = bench ? CLI_DEFAULT_BENCH_WARMUP : tuning ? CLI_DEFAULT_TUNE_WARMUP : 0;
    if (value[F_RUNS] && !parse_count(c, "--runs", value[F_RUNS], 1, &c->runs)) return 0;
    if (value[F_WARMUP] && !parse_count(c, "--warmup", value[F_WARMUP], 0, &c->warmup)) return 0;
    c->warmup_ms = c->runs > 1 && c->verb != CLI_CALIBRATE ? CLI_DEFAULT_WARMUP_MS : 0;
    if (value[F_WARMUP_MS] &&
        !parse_number(c, "--warmup-ms", value[F_WARMUP_MS], 0, 600000, &c->warmup_ms))
        return 0;
    c->tolerance = c->verb == CLI_CALIBRATE ? CLI_DEFAULT_CALIBRATE_TOLERANCE : CLI_DEFAULT_TOLERANCE;
    if (value[F_TOLERANCE]) {
        if (!parse_number(c, "--tolerance", value[F_TOLERANCE], 0, 1e30, &c->tolerance)) return 0;
        c->tolerance_given = 1;
    }
    if (value[F_THRESHOLD]) {
        double t;
        if (!parse_number(c, "--threshold", value[F_THRESHOLD], 0, 1, &t)) return 0;
        c->threshold = (float)t;
    }
    if (value[F_FP32_OPS]) {
        if (c->precision == VKI_PRECISION_FP32)
            return usage_error(c, "--fp32-ops needs --fp16 or --fp16-storage");
        if (!parse_ops(c, value[F_FP32_OPS])) return 0;
    }
    if (value[F_MEMORY]) {
        int s = 0;
        while (s < VKI_MEMORY_STRATEGY_COUNT && strcmp(value[F_MEMORY], strategy_names[s])) s++;
        if (s == VKI_MEMORY_STRATEGY_COUNT)
            return usage_error(c, "--memory: unknown strategy '%s'", value[F_MEMORY]);
        c->memory = (vki_memory_strategy)s;
    }
    if (value[F_TASK]) {
        c->task = vki_task_from_name(value[F_TASK]);
        if (c->task == VKI_TASK_NONE && strcmp(value[F_TASK], "none"))
            return usage_error(c, "--task: unknown task '%s'", value[F_TASK]);
        c->task_given = 1;
    }
    if (value[F_FRAMES] && !value[F_DETECTOR]) return usage_error(c, "--frames needs --detector");
    if (value[F_NUM] && !value[F_DETECTOR]) return usage_error(c, "--num needs --detector");
    if (value[F_ROI]) {
        if (value[F_DETECTOR]) return usage_error(c, "--roi and --detector together");
        if (!value[F_IMAGE]) return usage_error(c, "--roi needs --image");
        float v[5];
        const char *p = value[F_ROI];
        int n = 0;
        while (n < 5) {
            char *end;
            double x = strtod(p, &end);
            if (end == p || !isfinite(x)) break;
            v[n++] = (float)x;
            p = end;
            if (*p != ',') break;
            p++;
        }
        if (*p || n != 5 || !(v[2] > 0) || !(v[3] > 0))
            return usage_error(c, "--roi takes CX,CY,W,H,DEG (five numbers, W and H above 0), "
                               "got '%s'", value[F_ROI]);
        c->roi = (vki_rect){v[0], v[1], v[2], v[3], v[4] * 0.017453292519943295f};
        c->roi_given = 1;
    }
    if (value[F_FRAMES] && value[F_IMAGE]) return usage_error(c, "--frames and --image together");
    if (value[F_DETECTOR] || value[F_ROI]) {
        if (!value[F_IMAGE] && !value[F_FRAMES])
            return usage_error(c, "--detector needs --image or --frames");
        static const int alone[] = {F_INPUT, F_SAVE, F_CHECK, F_TASK, F_INPUT_SHAPE, F_SIGNATURE,
                                    F_PROFILE, F_RANGE, F_MEAN, F_STD};
        for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++)
            if (value[alone[i]])
                return usage_error(c, "%s and %s together", flags[alone[i]].flag,
                                   value[F_ROI] ? "--roi" : "--detector");
        if (value[F_NUM]) {
            if (!parse_count(c, "--num", value[F_NUM], 1, &c->num_objects)) return 0;
            if (c->num_objects > CLI_MAX_OBJECTS)
                return usage_error(c, "--num takes 1 to %d, got %d", CLI_MAX_OBJECTS,
                                   c->num_objects);
        }
        c->detector = value[F_DETECTOR];
        c->frames = value[F_FRAMES];
    }
    if ((value[F_RANGE] || value[F_MEAN] || value[F_STD] || value[F_OUT]) && !value[F_IMAGE] &&
        !value[F_FRAMES]) {
        const char *which = value[F_RANGE] ? "--range" : value[F_MEAN] ? "--mean"
                          : value[F_STD] ? "--std" : "--out";
        return usage_error(c, "%s needs --image", which);
    }
    if (value[F_RANGE]) {
        if (value[F_MEAN] || value[F_STD])
            return usage_error(c, "--range and --mean/--std together");
        float lo;
        if (!strcmp(value[F_RANGE], "0,1")) lo = 0;
        else if (!strcmp(value[F_RANGE], "-1,1")) lo = -1;
        else return usage_error(c, "--range takes 0,1 or -1,1, got '%s'", value[F_RANGE]);
        for (int k = 0; k < 3; k++) {
            c->mean[k] = lo < 0 ? 127.5f : 0.0f;
            c->std[k] = lo < 0 ? 127.5f : 255.0f;
        }
        c->norm_given = 1;
    }
    if (!!value[F_MEAN] != !!value[F_STD]) return usage_error(c, "--mean and --std go together");
    if (value[F_MEAN]) {
        if (!parse_triple(c, "--mean", value[F_MEAN], c->mean) ||
            !parse_triple(c, "--std", value[F_STD], c->std))
            return 0;
        for (int k = 0; k < 3; k++)
            if (c->std[k] == 0) return usage_error(c, "--std: %s is 0", value[F_STD]);
        c->norm_given = 1;
    }
    if (value[F_DEVICE]) {
        const char *d = value[F_DEVICE];
        if (!*d) return usage_error(c, "--device is empty: give an index or part of a name");
        if (d[0] == '-' || d[0] == '+')
            return usage_error(c, "--device '%s': an index counts from 0", d);
        c->ctx_opts.device = d;
    }
    if (c->n_inputs && value[F_IMAGE]) return usage_error(c, "--input and --image together");
    c->image = value[F_IMAGE];
    c->out = value[F_OUT];
    c->save_dir = value[F_SAVE];
    c->check_dir = value[F_CHECK];
    c->tuning_file = value[F_TUNING_FILE];
    c->export_table = value[F_EXPORT_TABLE];
    c->ctx_opts.cache_dir = value[F_CACHE_DIR];
    c->ctx_opts.workgroup_table = value[F_WORKGROUP_TABLE];
    c->ctx_opts.kernel_pack = value[F_KERNEL_PACK];
    if (c->verb == CLI_PACK) {
        if (!value[F_OUTPUT]) return usage_error(c, "no output: give -o FILE.vkpack");
        c->pack_out = value[F_OUTPUT];
        if (!parse_precisions(c, value[F_PRECISION] ? value[F_PRECISION] : "fp32")) return 0;
    }

    /* Operands. */
    int many = c->verb == CLI_BENCH || c->verb == CLI_TUNE || c->verb == CLI_PACK;
    int optional = c->verb == CLI_INFO || c->verb == CLI_VERSION;
    if (c->verb == CLI_VERSION && c->n_models)
        return usage_error(c, "takes no operands, got '%s'", c->models[0]);
    if (c->n_models == 0 && !optional) return usage_error(c, "no model given");
    if (c->n_models > 1 && !many) return usage_error(c, "one model at a time, got '%s' and '%s'",
                                                     c->models[0], c->models[1]);
    for (int i = 0; i < c->n_models; i++) {
        struct stat st;
        if (stat(c->models[i], &st) != 0 || !S_ISREG(st.st_mode) || access(c->models[i], R_OK)) {
            fprintf(stderr, "vkinfer: %s: %s\n", c->models[i],
                    errno ? strerror(errno) : "not a readable file");
            return -1;
        }
    }
    return 1;
}

/* ---- info and plan --------------------------------------------------------------------- */

static const char *type_name(int type) {
    static const char *const names[] = {"other", "integrated", "discrete", "virtual", "cpu"};
    return type >= 0 && type <= 4 ? names[type] : "other";
}

static void print_shape(FILE *f, const vki_tensor_info *t) {
    fprintf(f, "[");
    for (int d = 0; d < t->rank; d++) fprintf(f, d ? ",%d" : "%d", t->shape[d]);
    fprintf(f, "]");
}

/* The device a context with these options picks, as an index into the list; -1 if none. */
static int chosen_device(const cli *c, const vki_device_info *infos, int n) {
    vki_context_options o = c->ctx_opts;
    o.cache_dir = NULL;
    vki_context *ctx;
    if (vki_context_create(&o, &ctx)) return -1;
    vki_device_info d;
    vki_context_device_info(ctx, &d);
    vki_context_destroy(ctx);
    for (int i = 0; i < n; i++)
        if (infos[i].vendor_id == d.vendor_id && infos[i].device_id == d.device_id &&
            !strcmp(infos[i].name, d.name))
            return i;
    return -1;
}

static int cmd_info(const cli *c) {
    vki_device_info infos[16];
    int n = 0;
    vki_status s = vki_enumerate_devices(infos, 16, &n);
    if (s) return cli_fail("listing devices", s);
    if (n > 16) n = 16;
    int chosen = chosen_device(c, infos, n);
    vki_model *m = NULL;
    vki_op_entry *ops = NULL;
    int n_ops = 0, unsupported = 0;
    const char *model = c->n_models ? c->models[0] : NULL;
    if (model) {
        s = vki_model_list_ops_file(model, NULL, 0, &n_ops);
        if (s) return cli_fail("reading the model", s);
        ops = calloc((size_t)(n_ops ? n_ops : 1), sizeof *ops);
        if (!ops) return cli_fail("reading the model", VKI_ERROR_OUT_OF_MEMORY);
        vki_model_list_ops_file(model, ops, n_ops, &n_ops);
        for (int i = 0; i < n_ops; i++) unsupported += !ops[i].supported;
        /* A model with ops vkinfer lacks does not load; its listing still says which. */
        if (!unsupported && (s = vki_model_load_signature_file(model, c->signature, &m))) {
            free(ops);
            return cli_fail("loading the model", s);
        }
    }
    FILE *f = stdout;
    if (c->json) fprintf(f, "{\"devices\": [");
    for (int i = 0; i < n; i++) {
        const vki_device_info *d = &infos[i];
        if (c->json) {
            cli_json_sep(f, i);
            fprintf(f, "\n  {\"index\": %d, \"name\": ", i);
            cli_json_string(f, d->name);
            fprintf(f, ", \"type\": \"%s\", \"vendor_id\": %u, \"device_id\": %u, "
                       "\"vulkan\": \"%u.%u.%u\", \"subgroup_size\": %u, \"fp16_storage\": %s, "
                       "\"fp16_arithmetic\": %s, \"int8_dot_product\": %s, \"chosen\": %s}",
                    type_name(d->type), d->vendor_id, d->device_id, d->api_version >> 22,
                    (d->api_version >> 12) & 0x3ff, d->api_version & 0xfff, d->subgroup_size,
                    d->fp16_storage ? "true" : "false", d->fp16_arithmetic ? "true" : "false",
                    d->int_dot_product ? "true" : "false", i == chosen ? "true" : "false");
        } else {
            fprintf(f, "%c device %d: %s (%s, vendor 0x%04x, device 0x%04x, Vulkan %u.%u.%u, "
                       "subgroup %u, fp16 storage %s, fp16 arithmetic %s, int8 dot product %s)\n",
                    i == chosen ? '*' : ' ', i, d->name, type_name(d->type), d->vendor_id,
                    d->device_id, d->api_version >> 22, (d->api_version >> 12) & 0x3ff,
                    d->api_version & 0xfff, d->subgroup_size, d->fp16_storage ? "yes" : "no",
                    d->fp16_arithmetic ? "yes" : "no", d->int_dot_product ? "yes" : "no");
        }
    }
    if (c->json) fprintf(f, "]");
    else if (chosen < 0) fprintf(f, "no device would be chosen\n");
    if (model) {
        vki_task task = m ? vki_task_guess(m) : VKI_TASK_NONE;
        if (c->json) {
            fprintf(f, ",\n \"model\": ");
            cli_json_string(f, model);
            fprintf(f, ", \"task\": \"%s\", \"loads\": %s", vki_task_name(task),
                    m ? "true" : "false");
        } else {
            fprintf(f, "\nmodel %s: task %s\n", model, vki_task_name(task));
        }
        /* Signatures: the one loaded marked; --signature NAME runs another. */
        int n_sig = vki_model_signature_count(m);
        if (c->json && m) fprintf(f, ", \"signatures\": [");
        else if (n_sig) fprintf(f, "signatures:");
        for (int i = 0; i < n_sig; i++) {
            const char *name = vki_model_signature_name(m, i), *loaded = vki_model_loaded_signature(m);
            int is_loaded = loaded && !strcmp(loaded, name);
            if (c->json) {
                cli_json_sep(f, i);
                cli_json_string(f, name);
            } else {
                fprintf(f, " %s%s", name, is_loaded ? " (loaded)" : "");
            }
        }
        if (c->json && m) fprintf(f, "]");
        else if (n_sig) fprintf(f, "\n");
        for (int io = 0; m && io < 2; io++) {
            int count = io ? vki_model_output_count(m) : vki_model_input_count(m);
            if (c->json) fprintf(f, ", \"%s\": [", io ? "outputs" : "inputs");
            for (int i = 0; i < count; i++) {
                vki_tensor_info t;
                if (io) vki_model_output_info(m, i, &t);
                else vki_model_input_info(m, i, &t);
                if (c->json) {
                    cli_json_sep(f, i);
                    fprintf(f, "{\"name\": ");
                    cli_json_string(f, t.name);
                    fprintf(f, ", \"shape\": ");
                    print_shape(f, &t);
                    fprintf(f, "}");
                } else {
                    fprintf(f, "%s %d '%s' ", io ? "output" : "input", i, t.name);
                    print_shape(f, &t);
                    fprintf(f, "\n");
                }
            }
            if (c->json) fprintf(f, "]");
        }
        /* The file's numbering, which every message, --profile and --fp32-ops use; with the
         * model loaded, the ops folded at load are marked (they run as nothing). */
        int folded = 0, on_cpu = 0;
        for (int i = 0; m && i < n_ops; i++) folded += vki_model_op_folded(m, ops[i].index) == 1;
        for (int i = 0; i < n_ops; i++) on_cpu += ops[i].on_cpu != 0;
        if (c->json) fprintf(f, ", \"ops\": [");
        else if (m) fprintf(f, "%d ops, %d on the CPU, %d not supported, %d folded at load:\n",
                            n_ops, on_cpu, unsupported, folded);
        else fprintf(f, "%d ops, %d not supported:\n", n_ops, unsupported);
        for (int i = 0; i < n_ops; i++) {
            int is_folded = m && vki_model_op_folded(m, ops[i].index) == 1;
            if (c->json) {
                cli_json_sep(f, i);
                fprintf(f, "\n  {\"index\": %d, \"name\": ", ops[i].index);
                cli_json_string(f, ops[i].name);
                fprintf(f, ", \"custom\": %s, \"supported\": %s, \"on_cpu\": %s",
                        ops[i].custom ? "true" : "false", ops[i].supported ? "true" : "false",
                        ops[i].on_cpu ? "true" : "false");
                if (m) fprintf(f, ", \"folded\": %s", is_folded ? "true" : "false");
                fprintf(f, "}");
            } else {
                fprintf(f, "%5d %s%s%s%s%s\n", ops[i].index, ops[i].custom ? "CUSTOM " : "",
                        ops[i].name, ops[i].supported ? "" : "   <- not supported",
                        ops[i].on_cpu ? "   (CPU)" : "", is_folded ? "   (folded at load)" : "");
            }
        }
        if (c->json) {
            fprintf(f, "], \"unsupported_ops\": %d, \"cpu_ops\": %d", unsupported, on_cpu);
            if (m) fprintf(f, ", \"folded_ops\": %d", folded);
        }
    }
    if (c->json) fprintf(f, "}\n");
    free(ops);
    vki_model_destroy(m);
    return unsupported ? 1 : 0;
}

/* The three schedules `plan` compares: the stored order with every storage its own, then
 * in-place outputs, then also the memory-aware order (the default). */
enum { SCHED_STORED, SCHED_IN_PLACE, SCHED_CHOSEN, SCHED_COUNT };
static const char *const sched_keys[SCHED_CHOSEN] = {"stored_order", "in_place"};
static const unsigned sched_off[SCHED_COUNT] = {VKI_PASS_IN_PLACE | VKI_PASS_ORDER, VKI_PASS_ORDER, 0};

static void plan_json(const vki_memory_plan_info *p) {
    double lb = (double)p[0].lower_bound_bytes;
    printf("\"tensors\": %d, \"lower_bound_bytes\": %llu, \"plans\": [", p[0].tensors,
           (unsigned long long)p[0].lower_bound_bytes);
    for (int i = 0; i < VKI_MEMORY_STRATEGY_COUNT; i++) {
        cli_json_sep(stdout, i);
        printf("\n  {\"strategy\": \"%s\", \"chosen\": ", strategy_names[i]);
        cli_json_string(stdout, p[i].name);
        printf(", \"total_bytes\": %llu, \"objects\": %d, \"ratio_to_lower_bound\": %.4f, "
               "\"plan_ms\": %.3f", (unsigned long long)p[i].total_bytes, p[i].objects,
               lb > 0 ? (double)p[i].total_bytes / lb : 1.0, p[i].plan_ms);
        if (i == VKI_MEMORY_OPTIMAL)
            printf(", \"proven_optimal\": %s", p[i].proven_optimal ? "true" : "false");
        printf("}");
    }
    printf("\n]");
}

static void plan_table(const char *model, vki_memory_plan_info p[][VKI_MEMORY_STRATEGY_COUNT]) {
    const vki_memory_plan_info *chosen = p[SCHED_CHOSEN];
    printf("%s: lower bound %.3f MB in the stored order (%d intermediates), %.3f MB with "
           "in-place outputs (%d), %.3f MB in the chosen order (%d)\n", model,
           p[SCHED_STORED][0].lower_bound_bytes / 1e6, p[SCHED_STORED][0].tensors,
           p[SCHED_IN_PLACE][0].lower_bound_bytes / 1e6, p[SCHED_IN_PLACE][0].tensors,
           chosen[0].lower_bound_bytes / 1e6, chosen[0].tensors);
    printf("%-18s %18s %18s %18s %8s %9s\n", "", "stored order", "in place", "chosen order", "", "");
    printf("%-18s %10s %7s %10s %7s %10s %7s %8s %9s\n", "strategy", "MB", "x bound", "MB",
           "x bound", "MB", "x bound", "objects", "plan ms");
    for (int i = 0; i < VKI_MEMORY_STRATEGY_COUNT; i++) {
        char name[64];
        if (i == VKI_MEMORY_BEST) snprintf(name, sizeof name, "best (%s)", chosen[i].name);
        else if (i == VKI_MEMORY_OPTIMAL)
            snprintf(name, sizeof name, "optimal%s", chosen[i].proven_optimal ? " (proven)" : " (budget)");
        else snprintf(name, sizeof name, "%s", strategy_names[i]);
        printf("%-18s", name);
        for (int k = 0; k < SCHED_COUNT; k++) {
            double lb = (double)p[k][i].lower_bound_bytes;
            printf(" %10.3f %7.3f", p[k][i].total_bytes / 1e6, lb > 0 ? p[k][i].total_bytes / lb : 1.0);
        }
        char objects[16] = "-";
        if (chosen[i].objects) snprintf(objects, sizeof objects, "%d", chosen[i].objects);
        printf(" %8s %9.3f\n", objects, chosen[i].plan_ms);
    }
}

/* One row per strategy and a column group per schedule: bytes and ratio to that schedule's
 * lower bound; objects and planning time of the chosen schedule. */
static int cmd_plan(const cli *c) {
    vki_model *m = NULL;
    vki_context *ctx = NULL;
    const char *model = c->models[0];
    vki_status s = vki_model_load_signature_file(model, c->signature, &m);
    if (s) return cli_fail("loading the model", s);
    if ((s = cli_context(c, &ctx))) { vki_model_destroy(m); return cli_fail("opening the device", s); }
    vki_memory_plan_info p[SCHED_COUNT][VKI_MEMORY_STRATEGY_COUNT];
    for (int k = 0; k < SCHED_COUNT && !s; k++) {
        vki_graph_options opts = {.precision = c->precision, .disable_passes = sched_off[k]};
        s = vki_memory_plans(ctx, m, &opts, p[k], VKI_MEMORY_STRATEGY_COUNT);
    }
    if (s) { vki_context_destroy(ctx); vki_model_destroy(m); return cli_fail("planning", s); }
    const vki_memory_plan_info *chosen = p[SCHED_CHOSEN];
    if (c->json) {
        /* The top level is the schedule graphs get; the other two follow by name. */
        printf("{\"model\": ");
        cli_json_string(stdout, model);
        printf(", ");
        plan_json(chosen);
        for (int k = 0; k < SCHED_CHOSEN; k++) {
            printf(",\n \"%s\": {", sched_keys[k]);
            plan_json(p[k]);
            printf("}");
        }
        printf("}\n");
    } else {
        plan_table(model, p);
    }
    vki_context_destroy(ctx);
    vki_model_destroy(m);
    return 0;
}

int main(int argc, char **argv) {
    cli c = {.verb = CLI_VERB_COUNT};
    if (argc < 2) {
        help_all(stderr);
        return 2;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) return help_all(stdout);
    if (!strcmp(verb, "--version")) return version(argc > 2 && !strcmp(argv[2], "--json"));
    int v = 0;
    while (v < CLI_VERB_COUNT && strcmp(verb, verbs[v].name)) v++;
    if (v == CLI_VERB_COUNT) {
        usage_error(NULL, "unknown verb '%s'", verb);
        return 2;
    }
    c.verb = (cli_verb)v;
    if (c.verb == CLI_HELP) {
        if (argc == 2) return help_all(stdout);
        if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) return help_verb(stdout, CLI_HELP);
        for (int w = 0; w < CLI_VERB_COUNT; w++)
            if (!strcmp(argv[2], verbs[w].name)) return help_verb(stdout, (cli_verb)w);
        usage_error(&c, "unknown verb '%s'", argv[2]);
        return 2;
    }
    int help = 0, show_version = 0;
    int ok = parse_args(argc, argv, &c, &help, &show_version);
    if (ok < 0) return 1;             /* a model path that cannot be read */
    if (!ok) return 2;
    if (help) return help_verb(stdout, c.verb);
    if (show_version || c.verb == CLI_VERSION) return version(c.json);
    /* An explicit --device wins over the environment's VKI_DEVICE. */
    if (c.ctx_opts.device) unsetenv("VKI_DEVICE");
    char cache[4096];
    if (c.verb != CLI_INFO) {
        c.cache_dir = resolve_cache_dir(&c, cache, sizeof cache);
        if (c.no_cache) unsetenv("VKI_CACHE_DIR");
    }
    switch (c.verb) {
    case CLI_RUN: return cli_run(&c);
    case CLI_BENCH: return cli_bench(&c);
    case CLI_TUNE: return cli_tune(&c);
    case CLI_CALIBRATE: return cli_calibrate(&c);
    case CLI_PACK: return cli_pack(&c);
    case CLI_INFO: return cmd_info(&c);
    case CLI_PLAN: return cmd_plan(&c);
    default: return help_all(stdout);
    }
}
