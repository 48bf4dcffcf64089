/* harness.h: builds small models by hand, runs them on the device and on the C
 * references, and compares every element. Used by every op suite (and by the op case
 * tables of op_cases.h). */
#ifndef VKI_TEST_HARNESS_H
#define VKI_TEST_HARNESS_H

#include "model.h"
#include "ops/ops.h"
#include "vkinfer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deterministic values in [lo, hi): vki_fill_uniform (tuner/stats.h) from the state
 * `seed`, where a zero seed stands for 0x9e3779b9. */
void harness_fill(float *v, size_t n, uint32_t seed, float lo, float hi);

/* ---- building models ------------------------------------------------------------------ */

/* A float activation of NHWC shape {1,h,w,c}, or of any rank. */
int harness_tensor(vki_model *m, int h, int w, int c);
int harness_tensor_nd(vki_model *m, int rank, const int *shape);
/* A float constant filled with harness_fill(seed, lo, hi); rank 0 is a scalar. */
int harness_const(vki_model *m, int rank, const int *shape, uint32_t seed, float lo, float hi);
/* A rank-0 float constant holding v. */
int harness_scalar(vki_model *m, float v);
/* An int32 constant of the given shape, and the rank-1 one of `count` values. */
int harness_int_const(vki_model *m, const char *name, int rank, const int *shape,
                      const int32_t *data);
int harness_int_vector(vki_model *m, const char *name, int count, const int32_t *data);
/* One operand of an op under test: an activation (a graph input; where [lo, hi) is not
 * [-1, 1), a MUL and an ADD ahead of the op move the harness' inputs onto it) or a constant
 * filled in [lo, hi). */
typedef struct harness_operand {
    int rank;
    int dims[5];
    bool is_const;
    float lo, hi;
} harness_operand;

#define HARNESS_SHAPE_(...) \
    .rank = (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), .dims = {__VA_ARGS__}
#define OPERAND_ACT(...) ((harness_operand){HARNESS_SHAPE_(__VA_ARGS__), .lo = -1.0f, .hi = 1.0f})
#define OPERAND_ACT_IN(lo_, hi_, ...) \
    ((harness_operand){HARNESS_SHAPE_(__VA_ARGS__), .lo = (lo_), .hi = (hi_)})
#define OPERAND_CONST(lo_, hi_, ...) \
    ((harness_operand){HARNESS_SHAPE_(__VA_ARGS__), .is_const = true, .lo = (lo_), .hi = (hi_)})
#define OPERAND_SCALAR(lo_, hi_) \
    ((harness_operand){.rank = 0, .is_const = true, .lo = (lo_), .hi = (hi_)})

/* Adds the operand (a constant from `seed`); an activation's graph input is appended to
 * inputs[*n_inputs++]. Returns the tensor the op reads. */
int harness_operand_add(vki_model *m, harness_operand o, uint32_t seed, int *inputs,
                        int *n_inputs);

/* Appends an op with one output; asserts it was added. */
vki_op *harness_op(vki_model *m, vki_op_code code, int n_inputs, const int *inputs, int output);
/* out = code(a, b); returns out. */
int harness_binary(vki_model *m, vki_op_code code, int a, int b, int out);

/* ---- validation ----------------------------------------------------------------------- */

/* Validation must fail with status `want` and a message containing every needle.
 * Consumes m. */
void harness_expect_invalid_list(vki_model *m, vki_status want, const char *const *needles);
#define harness_expect_invalid(m, want, ...) \
    harness_expect_invalid_list((m), (want), (const char *const[]){__VA_ARGS__, NULL})

/* ---- device against reference ------------------------------------------------------- */

/* The graph precisions a check runs. fp16 ones run only where the device has fp16
 * storage (with fp16 arithmetic, VKI_PRECISION_FP16 also computes in fp16), and only
 * those VKI_TEST_PRECISIONS lists where it is set ("fp32,fp16,fp16-storage"). */
enum {
    HARNESS_FP32 = 1u << 0,
    HARNESS_FP16 = 1u << 1,
    HARNESS_FP16_STORAGE = 1u << 2,
    HARNESS_ALL_PRECISIONS = HARNESS_FP32 | HARNESS_FP16 | HARNESS_FP16_STORAGE,
};
#define HARNESS_N_PRECISIONS 3
/* The HARNESS_* precisions VKI_TEST_PRECISIONS allows ("fp32,fp16,fp16-storage"; unset:
 * all). */
unsigned harness_allowed_precisions(void);
/* "fp32", "fp16", "fp16-storage" for precision index 0, 1, 2. */
const char *harness_precision_name(int index);

/* The default bound for the fp16 precisions: max(tol, HARNESS_FP16_TOLERANCE). */
#define HARNESS_FP16_TOLERANCE 1e-2
double harness_fp16_tolerance(double tol);

typedef struct harness_spec {
    uint32_t seed;              /* graph input i is filled from seed + 77 * i in [-1, 1) */
    double tol;                 /* fp32: max|gpu - ref| <= tol * max(max|ref|, 1) */
    double fp16_tol;            /* the same bound for the fp16 precisions */
    unsigned precisions;        /* HARNESS_* bits; 0 means all */
    int dispatches;             /* > 0: the graph with default options must have this many */
    const char *env_name;       /* set to env_value (NULL: unset) while graphs build */
    const char *env_value;
    /* > 0: the fp16 graphs (and a reference run of their own) take the inputs rounded down
     * to multiples of fp16_step, a power of two that keeps them and the range mapping's
     * products exact in float16, so that an op with integer or boolean results (FLOOR,
     * comparisons, ARG_MAX) must match exactly there too: fp16's rounding of the input no
     * longer moves the result. */
    float fp16_step;
} harness_spec;

typedef struct harness_result {
    /* Worst relative error per precision index (fp32, fp16, fp16-storage); negative
     * where that graph did not run. */
    double error[HARNESS_N_PRECISIONS];
    char message[1024];         /* why the check failed, every precision that did; empty
                                 * when it passed */
} harness_result;

/* Validates m, runs the reference and every requested graph on the same inputs (graphs
 * are built with debug_guards set) and compares. Returns 1 when every bound holds, else
 * 0 with r->message saying which failed and where. Asserts nothing and does not consume
 * m. */
int harness_compare(const vki_model *m, const harness_spec *spec, harness_result *r);

/* harness_compare in fp32, fp16 and fp16 storage (fp16 bound harness_fp16_tolerance(tol)),
 * asserting that it passed. Returns the worst fp32 relative error. Consumes the model. */
double harness_check(vki_model *m, uint32_t seed, double tol);
/* fp32 and fp16 only, with the fp16 bound given; a negative fp16_tol skips the fp16
 * graph. test_conformance checks whole models with it. */
double harness_check_precisions(vki_model *m, uint32_t seed, double tol, double fp16_tol);

/* The raw little-endian float32 file at path, which must hold exactly count floats
 * (asserted); malloc'd. */
float *harness_read_f32(const char *path, size_t count);
/* The test data directory: VKI_TEST_DATA, or tests/data. */
const char *harness_data_dir(void);

/* The bytes of VKI_MODEL_DIR/file (models/cache by default), malloc'd, or NULL if the
 * file is not there. */
uint8_t *harness_read_model(const char *file, size_t *size);

/* A model of VKI_MODEL_DIR loaded from memory (as an app loads one), with its inputs' and
 * outputs' element counts; asserts that it loaded and has at most 8 of each. */
typedef struct harness_io_model {
    vki_model *model;
    int n_in, n_out;
    size_t in_elems[8], out_elems[8];
    size_t out_total;            /* all outputs' elements */
} harness_io_model;
harness_io_model harness_load_io_model(const char *file);

/* tests/data/<dir>/<name>.tflite loaded from its file (asserts that it loads), and
 * tests/data/<dir>/<name>.<suffix>.f32 read as count floats. */
vki_model *harness_load_data_model(const char *dir, const char *name);
float *harness_read_data_f32(const char *dir, const char *name, const char *suffix, size_t count);
/* Sets (or, for a NULL value, unsets) environment variable name; returns its old value
 * (malloc'd; NULL where it was unset) for harness_restore_env, which puts it back and
 * frees it. */
char *harness_set_env(const char *name, const char *value);
void harness_restore_env(const char *name, char *saved);
/* Largest |got - want| over all n elements, relative to max(1, max |want|). */
double harness_scaled_error(const float *got, const float *want, size_t n);

/* The shared context (created on first use, VKI_DEVICE respected). */
vki_context *harness_context(void);

#endif
