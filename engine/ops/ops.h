/* ops.h: the contract between the engine and each op.
 *
 * One file per op under engine/ops/ fills a vki_op_def: it validates the op and infers
 * nothing at run time (shapes are static in the model), emits the dispatches it needs
 * through the builder (kernel name, #defines, bound tensors/weights, grid), and carries
 * a plain C reference used by tests. Adding an op touches its file, one GLSL file and
 * one line of op_list.h.
 */
#ifndef VKI_OPS_H
#define VKI_OPS_H

#include "../../tuner/workgroup.h"
#include "../ir/env.h"
#include "../ir/model.h"
#include "../ir/status.h"
#include "glsl_kernels.h"   /* generated: VKI_KERNEL_<name> for each glsl/<name>.comp */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VKI_MAX_BINDINGS 16
#define VKI_DEFINES_MAX 4096

typedef enum vki_binding_kind {
    VKI_BIND_TENSOR = 0,        /* a PHWC4 activation or graph I/O tensor */
    VKI_BIND_WEIGHTS,           /* a blob returned by vki_build_weights */
    VKI_BIND_INPUT_STAGING,     /* graph input i's dense float staging (engine only) */
    VKI_BIND_OUTPUT_STAGING,    /* graph output i's dense float staging (engine only) */
} vki_binding_kind;

typedef struct vki_binding {
    vki_binding_kind kind;
    int index;                  /* tensor index or weights blob id */
} vki_binding;

/* One compute dispatch. Bindings are set 0, binding 0..n_bindings-1 in order; the
 * kernel declares them with the TENSOR_*()/WEIGHTS() macros of glsl/common.glsl. */
typedef struct vki_dispatch {
    const char *kernel;         /* glsl/<kernel>.comp, named by VKI_KERNEL_<kernel> */
    char defines[VKI_DEFINES_MAX];
    size_t defines_len;
    int n_bindings;
    vki_binding bindings[VKI_MAX_BINDINGS];
    uint32_t grid[3];           /* threads in x, y, z before rounding to the work group */
    vki_wg_class wg_class;
    /* Nonzero: the work group the kernel's tiling was planned for (dw_pw.c), taken instead
     * of the table's; the class must then be one that is never tuned (vki_build_dispatch
     * refuses it otherwise). */
    uint32_t fixed_wg[3];
    int op_index;               /* set by the builder: the op list's index (not the file's
                                   number, vki_op.file_index, which messages give) */
    int overflow;               /* defines or bindings did not fit: a bug in the op file */
    /* Which form of the kernel the op chose, for the profile ("1x1 4sx8p", "dw3x3s2 4c");
     * empty where the kernel has one form. */
    char variant[32];
    /* In place: bit i set when the kernel reads binding i only at the PHWC4 index it writes
     * binding out_binding at, in the same invocation and before writing it (elementwise
     * kernels, a residual read in the epilogue). The schedule stage may then give the output
     * the storage of that input where this dispatch is its last reader. out_binding: the
     * tensor binding the kernel writes, -1 where none may be shared. */
    unsigned same_index_reads;
    int out_binding;
} vki_dispatch;

typedef struct vki_build vki_build;   /* owned by the graph builder */

/* Appends "#define NAME VALUE\n" to d->defines. */
void vki_define_int(vki_dispatch *d, const char *name, long long value);
void vki_define_float(vki_dispatch *d, const char *name, float value);
/* "#define NAME TEXT\n": a GLSL expression the op file wrote (remap.c's coordinates). */
void vki_define_text(vki_dispatch *d, const char *name, const char *text);
/* Defines <P>_W, <P>_H, <P>_C, <P>_S (slices of 4) for a tensor's NHWC shape. */
void vki_define_shape(vki_dispatch *d, const char *prefix, vki_shape4 s);
/* Defines ACT_RELU / ACT_RELU6 / ACT_RELU_N1_TO_1 / ACT_TANH for a fused activation. */
void vki_define_activation(vki_dispatch *d, vki_activation act);

/* Who writes each tensor and who reads it, among the ops that still run (skip[o] == 0) of
 * `ops` (a model's op list or a builder's copy of it), for the graph passes: producer[t]
 * the op that writes t (-1 for graph inputs and constants), readers[t] how many times those
 * ops read it (as inputs and through what was fused into them), reader[t] the last op that
 * does. Arrays of m->n_tensors; vki_op_index_build returns 0 when out of memory. */
typedef struct vki_op_index {
    int *producer, *readers, *reader;
} vki_op_index;
int vki_op_index_build(const vki_model *m, const vki_op *ops, const unsigned char *skip,
                       vki_op_index *g);
void vki_op_index_free(vki_op_index *g);
/* Whether an op that still runs at an index in [from, to) of `ops` writes tensor t. */
int vki_written_between(const vki_model *m, const vki_op *ops, const unsigned char *skip, int t,
                        int from, int to);

/* want, or fewer: the lanes a work group of (x, 1, 1) may have on dev, within its
 * invocation and x-size limits where the device gave them. */
uint32_t vki_wg_lanes(const vki_wg_device *dev, uint32_t want);
/* The power of two `text` names (a VKI_* override), within lo..hi; 0 for anything else:
 * NULL, empty, not a whole number, out of range. */
int vki_env_pow2(const char *text, int lo, int hi);

/* kernel: VKI_KERNEL_<name> (glsl_kernels.h), never a string literal, so that a kernel
 * that does not exist fails the build. */
void vki_dispatch_init(vki_dispatch *d, const char *kernel, vki_wg_class wg_class);
void vki_dispatch_bind_tensor(vki_dispatch *d, int tensor);
void vki_dispatch_bind_weights(vki_dispatch *d, int blob);
/* The usual grid: one thread per output vec4, (W, H, slices). */
void vki_dispatch_grid_phwc4(vki_dispatch *d, vki_shape4 out);

/* The device the graph is built for, for ops whose best kernel shape depends on it
 * (a CPU implementation wants more work per invocation than a GPU). */
const vki_wg_device *vki_build_device(const vki_build *b);
/* Nonzero where the device sums packed int8 products in one instruction
 * (shaderIntegerDotProduct, enabled on the context): kernels define INT8_DOT. */
int vki_build_int_dot(const vki_build *b);
/* An env.h "kernel" variable as the graph read it (VKI_CONV_KERNEL, ...): NULL where it is
 * unset, empty, or the context ignores the environment. Ops never call getenv. */
const char *vki_build_env(const vki_build *b, vki_env_id id);

/* Copies count floats into the graph's weight memory; returns a blob id, or -1 on OOM
 * (the builder then reports VKI_ERROR_OUT_OF_MEMORY). */
int vki_build_weights(vki_build *b, const float *data, size_t count);
/* Copies count int32 values into the graph's weight memory, stored as int32 whatever the
 * graph's precision (kernels declare the binding ivec4); a blob id, or -1 on OOM. */
int vki_build_weights_i32(vki_build *b, const int32_t *data, size_t count);
/* Integer weights (q - zero point, whole numbers) as bytes, four to a 32-bit word, each
 * plus VKI_WEIGHTS_Q8_OFFSET, when they all fit -128..127 (else as vki_build_weights): a
 * quarter of the bytes. count is a multiple of 4 (the values of whole vec4s). */
#define VKI_WEIGHTS_Q8_OFFSET 128
int vki_build_weights_q8(vki_build *b, const float *values, size_t count);
/* Packs a dense NHWC constant of shape s into PHWC4 (zero-padded slices) and stores it
 * like vki_build_weights. */
int vki_build_weights_phwc4(vki_build *b, const float *nhwc, vki_shape4 s);
vki_status vki_build_dispatch(vki_build *b, const vki_dispatch *d);
/* Stores a bias of `channels` floats (NULL: none) zero-padded to `count` floats, so padded
 * output lanes stay zero and kernels add it without a bound check. Returns a blob or -1. */
int vki_build_bias(vki_build *b, const vki_tensor *bias, int channels, size_t count);
/* Binds tensor t as the dispatch's next operand: an activation's storage, or, for a
 * constant the loader did not fold, its data packed to PHWC4 (as shape s) in the weights. */
vki_status vki_build_bind_operand(vki_build *b, vki_dispatch *d, int t, vki_shape4 s);
/* Binds the output of a kernel that stores through common.glsl's OUTPUT() /
 * STORE_OUTPUT(): the op's output tensor, or the graph output's dense staging where a pass
 * set op->fused.dense_out; then the residual of a fused ADD as one more binding. Adds the
 * epilogue's #defines (DENSE_OUT, DENSE_BASE, RESIDUAL, RES_BINDING, RES_*). Call it where
 * the kernel's OUTPUT binding goes, last. */
vki_status vki_build_bind_output(vki_build *b, vki_dispatch *d, const vki_op *op);
/* Marks output tensor `alias` as sharing storage with `of` (same PHWC4 bytes), so the
 * op needs no dispatch. Only valid when the PHWC4 layouts are identical. */
vki_status vki_build_alias(vki_build *b, int alias, int of);

/* ---- reading options --------------------------------------------------------------------
 * An op reads its options from the model file when it is loaded (vki_op_def.options),
 * through this reader, which the loader implements. A builtin op reads the options table
 * its op_list.h line names with OPTS(id, Name): the loader has checked the table's type,
 * and where the file has none every field reads as its schema default. A custom op reads
 * its custom_options bytes. Only values that cannot be represented (unknown enums) are
 * rejected here; ranges (strides, block sizes, flag combinations) are for validate. */
typedef struct vki_options_reader vki_options_reader;

/* Field `id` (its declaration order in schema.fbs) of the options table, or `def` (its
 * schema default) where absent. False where the file is malformed: then return
 * vki_opt_malformed(r). Bools are a byte, any nonzero byte true. */
bool vki_opt_i8(vki_options_reader *r, unsigned id, int8_t def, int8_t *v);
bool vki_opt_i32(vki_options_reader *r, unsigned id, int32_t def, int32_t *v);
bool vki_opt_f32(vki_options_reader *r, unsigned id, float def, float *v);
bool vki_opt_bool(vki_options_reader *r, unsigned id, bool def, bool *v);
/* A string field; "" where absent. */
bool vki_opt_string(vki_options_reader *r, unsigned id, const char **v);
/* A [float] field (BUCKETIZE's boundaries): appended to the op's inputs as a float32
 * constant of its length, which validate, reference and run then read like any input; an
 * empty or absent vector appends nothing. */
vki_status vki_opt_f32_vector_input(vki_options_reader *r, unsigned id, vki_op *op);
/* "<model>: op <i> <NAME>: <Table>: <what is wrong>" for the read that failed. */
vki_status vki_opt_malformed(vki_options_reader *r);
/* A TFLite ActivationFunctionType or Padding value as the IR's; an unknown value (or
 * SIGN_BIT) fails with a message naming the op. */
vki_status vki_opt_activation(vki_options_reader *r, int8_t value, vki_activation *out);
vki_status vki_opt_padding(vki_options_reader *r, int8_t value, vki_padding *out);
/* The op's custom_options bytes, inline or in the large-model form; *size is 0 when it
 * has none. */
vki_status vki_opt_custom(vki_options_reader *r, const uint8_t **data, size_t *size);
/* "<model>: op <i> <NAME>: <message>", for options the op cannot take. */
vki_status vki_opt_fail(vki_options_reader *r, vki_status status, const char *fmt, ...)
    VKI_PRINTF(3, 4);

/* What an op file provides. */
typedef struct vki_op_def {
    /* Checks inputs, outputs, options and shapes; on failure returns a status with a
     * message of the form "op 12 CONV_2D: ..." (use vki_op_fail). */
    vki_status (*validate)(const vki_model *m, int op_index);
    /* Emits dispatches / weights / aliases for an already validated op; NULL for a CPU op. */
    vki_status (*build)(vki_build *b, const vki_model *m, int op_index);
    /* Reference: inputs[i] / outputs[i] are dense NHWC float arrays for the op's inputs
     * and outputs (constant inputs included, NULL for omitted ones). */
    void (*reference)(const vki_model *m, const vki_op *op, const float *const *inputs,
                      float *const *outputs);
    /* Reads the op's options into op->opt at load time (m holds the tensors and op its
     * inputs and outputs); NULL for an op with none (NO_OPTS in op_list.h). */
    vki_status (*options)(vki_options_reader *r, const vki_model *m, vki_op *op);
    /* The op takes tensors of rank 0..5 with any batch, which it reads through their
     * storage view (vki_tensor_rows), and index activations (INT32, INT64, BOOL, held as
     * float values) where its validate allows; otherwise the checks below keep it to
     * float32, rank <= 4 and batch 1. */
    bool general;
    /* The op has an integer form for this op's int8 / uint8 tensors (their grids, its
     * constants and options), computing what TFLite's integer kernels compute on q - zero
     * point: the loader then leaves its quantized tensors in the q domain, and build and
     * reference take that form. NULL or false: the loader gives the op float twins
     * (DEQUANTIZE before, QUANTIZE after) and it runs in float. */
    bool (*integer)(const vki_model *m, const vki_op *op);
    /* A CPU op (VKI_CPU_OP_LIST; build is NULL): what the graph runs between its GPU
     * segments, with the reference's arguments: dense row-major float arrays of each
     * tensor's own shape (any rank and batch; index tensors as float values, exact below
     * 2^24). A failure (out of host memory, an index a computed tensor holds out of
     * range) returns a status with a message naming the op (vki_op_fail). NULL where the
     * reference is already as fast as the op allows and cannot fail (the file says so). */
    vki_status (*run)(const vki_model *m, int op_index, const float *const *inputs,
                      float *const *outputs);
} vki_op_def;

/* IF, WHILE, CALL_ONCE (control.c): how many subgraphs the op names (opt.control), 0 for
 * any other op; and the check of an op against the subgraphs it names, once they are
 * loaded (m->subgraphs). */
int vki_op_subgraph_count(const vki_op *op);
vki_status vki_op_check_subgraphs(const vki_model *m, int op_index);

/* Whether the op runs on the CPU: an op of VKI_CPU_OP_LIST / VKI_CPU_CUSTOM_OP_LIST. */
static inline bool vki_op_def_cpu(const vki_op_def *def) { return def && !def->build; }

/* The def of an op's code (and custom_code), from the op list; NULL if vkinfer has no
 * kernel for it. */
const vki_op_def *vki_op_find(const vki_op *op);

/* Floating-point operations of op (2 per multiply-add) for a profile's FLOP rate: the
 * convolutions (a depthwise op with its fused 1x1 conv counting both), FULLY_CONNECTED,
 * TRANSPOSE_CONV (and MediaPipe's Convolution2DTransposeBias) and BATCH_MATMUL; 0 for every
 * other op (data movement and elementwise). */
double vki_op_flops(const vki_model *m, const vki_op *op);

/* Validates op o with its kernel's def, and where the kernel's limits refuse it
 * (VKI_ERROR_UNSUPPORTED_MODEL) with its VKI_CPU_FALLBACK_LIST def, which then places it on
 * the CPU (vki_op.on_cpu). */
vki_status vki_op_validate(vki_model *m, int o);
/* Validates every op of a model (called by the loaders after parsing). */
vki_status vki_model_validate(vki_model *m);

/* Runs the model on the CPU with the reference implementations: inputs are the graph
 * inputs (NHWC float), outputs receive the graph outputs. For tests and the diff tool. */
vki_status vki_model_reference_run(const vki_model *m, const float *const *inputs,
                                   float *const *outputs);

/* ---- helpers shared by op files ---------------------------------------------------- */

/* Finishes a glsl/unary.comp dispatch whose OP_* defines d holds: the output's storage view,
 * input 0 and output 0 bound, one thread per output vec4 (unary.c; QUANTIZE uses it too). */
vki_status vki_unary_emit(vki_build *b, const vki_model *m, const vki_op *op, vki_dispatch *d);

/* q - zero point of real value x on quantized tensor t's grid, as LiteRT's QUANTIZE
 * rounds it (quantize.c): for references and tables of integer forms. */
float vki_quantize_value(const vki_tensor *t, float x);
/* The defines quant.comp's OP_QUANTIZE and the input conversions (to_phwc4.comp,
 * image.comp) round with, common.glsl's quantize_q: INV_SCALE, ZERO, QMIN, QMAX of t. */
void vki_quantize_define(vki_dispatch *d, const vki_tensor *t);

/* A validated PAD's leading and trailing zeros per NHWC axis (pad.c; for graph passes). */
void vki_pad_amounts(const vki_model *m, const vki_op *op, vki_shape4 *before, vki_shape4 *after);

/* vki_fail with an "<model>: op <i> <NAME>: " prefix. */
vki_status vki_op_fail(const vki_model *m, int op_index, vki_status status, const char *fmt,
                       ...) VKI_PRINTF(4, 5);

/* Checks the op has between min and max inputs and exactly n_outputs outputs, that each
 * non-optional tensor exists, is FLOAT32 and has rank <= 4 with batch 1 (for a general
 * op: FLOAT32 or an index type, rank <= 5, any batch). */
/* The most inputs op's kernel binds in one dispatch (INT_MAX: no limit of its own). The
 * loader cuts a CONCATENATION, PACK or ADD_N with more into a chain of ops that each bind
 * few enough (tflite_loader.c, split_wide_ops). */
int vki_op_max_inputs(const vki_model *m, const vki_op *op);
int vki_concat_max_inputs(const vki_model *m, const vki_op *op);   /* concatenation.c */
#define VKI_ADD_N_MAX_INPUTS 8
vki_status vki_op_check_arity(const vki_model *m, int op_index, int min_inputs,
                              int max_inputs, int n_outputs);
/* Checks tensor t exists, is FLOAT32, has rank <= 4, positive dims and (if not a
 * constant) batch 1; for a general op (vki_op_def.general) FLOAT32 or an index type,
 * rank <= 5 and any batch. role/slot name it in the message ("input", 2). */
vki_status vki_op_check_float_tensor(const vki_model *m, int op_index, int t, const char *role,
                                     int slot);
/* For ops with one activation (input 0) and int32 constant operands they check
 * themselves: the input count, one output, input 0 and the output float32 tensors, and
 * the output not a constant. */
vki_status vki_op_check_io(const vki_model *m, int op_index, int min_inputs, int max_inputs);
/* Checks input `input` is an int32 constant (shapes, axes, paddings); on success *out is
 * the tensor. `role` names it in messages ("axes"). */
vki_status vki_op_int_const(const vki_model *m, int op_index, int input, const char *role,
                            const vki_tensor **out);
/* Checks input `input` is a constant of the given rank whose data covers its shape
 * (build and the reference read all of it); `role` names it ("weights", "bias"). */
vki_status vki_op_check_const(const vki_model *m, int op_index, int input, const char *role,
                              int rank);
vki_status vki_op_check_shape(const vki_model *m, int op_index, int tensor, vki_shape4 want);
/* Checks tensor t has exactly these extents; the message names both shapes. */
vki_status vki_op_expect_dims(const vki_model *m, int o, int t, int rank, const int *dims);
/* The int32 values of constant input `slot` (role names it), which must hold between
 * min_count and max_count elements. */
vki_status vki_op_int_values(const vki_model *m, int o, int slot, const char *role,
                             int min_count, int max_count, const int32_t **values, int *count);


/* Writes "[d0,d1,...]" for messages; truncates to size. */
void vki_format_dims(char *buf, size_t size, int rank, const int *dims);

/* What a tensor's values are, for CPU ops that take several types: float32, integer (int32
 * or int64; an int64 constant is int32 once loaded) or bool. vki_value_kind_of gives -1 for
 * any other type; vki_op_expect_kind fails naming the op, the role and both types. */
typedef enum vki_value_kind { VKI_KIND_FLOAT, VKI_KIND_INT, VKI_KIND_BOOL } vki_value_kind;
static inline bool vki_dtype_is_int(vki_dtype d) { return d == VKI_DTYPE_INT32 || d == VKI_DTYPE_INT64; }
int vki_value_kind_of(vki_dtype d);
vki_status vki_op_expect_kind(const vki_model *m, int o, int t, const char *role, vki_value_kind want);

/* Dense NHWC (batch 1) -> PHWC4 floats; out holds ceil(C/4)*H*W*4 floats. */
void vki_pack_phwc4(const float *nhwc, vki_shape4 s, float *out);

/* Output size of a conv/pool window along one axis, TFLite's rule. */
int vki_conv_out_size(vki_padding pad, int in, int filter, int stride, int dilation);
/* Leading padding along one axis (SAME: half the total, rounded down; VALID: 0). */
int vki_conv_pad_before(vki_padding pad, int in, int filter, int stride, int dilation);
float vki_apply_activation(vki_activation act, float x);

static inline const vki_tensor *vki_op_in(const vki_model *m, const vki_op *op, int i) {
    return op->inputs[i] >= 0 ? &m->tensors[op->inputs[i]] : NULL;
}
static inline const vki_tensor *vki_op_out(const vki_model *m, const vki_op *op, int i) {
    return &m->tensors[op->outputs[i]];
}

#endif /* VKI_OPS_H */
