/* model.h: the in-memory graph IR that the loader produces and the engine consumes.
 *
 * A model is a flat list of tensors and a list of ops in execution order. Constant
 * tensors own float32 data (fp16 and DEQUANTIZE are folded at load). Shapes are static.
 * Tests build models by hand with the helpers at the bottom, so every op can be run
 * alone against its C reference without a .tflite file.
 */
#ifndef VKI_MODEL_H
#define VKI_MODEL_H

#include "../ops/op_list.h"
#include "vkinfer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VKI_MAX_RANK 8
/* An op's inputs, as its outputs below: a fixed array in vki_op. The loader chains a
 * CONCATENATION, PACK or ADD_N wider than its kernel binds (vki_op_max_inputs). */
#define VKI_MAX_OP_INPUTS 64
/* An op's outputs are a fixed array in vki_op. SPLIT, SPLIT_V and UNPACK run one dispatch
 * an output, so 64 holds a 12-way UNPACK of a model's heads and more (TFLite sets no
 * limit; the loader names an op beyond it). */
#define VKI_MAX_OP_OUTPUTS 64

/* TFLite BuiltinOperator codes (schema.fbs values) of the ops vkinfer knows, from the
 * op list (ops/op_list.h). */
#define VKI_OP_ENUM_(name, code, ...) VKI_OP_##name = code,
typedef enum vki_op_code {
    VKI_OP_LIST(VKI_OP_ENUM_)
    VKI_CPU_OP_LIST(VKI_OP_ENUM_)
    VKI_FOLDED_OP_LIST(VKI_OP_ENUM_)
} vki_op_code;
#undef VKI_OP_ENUM_

/* Fused activations: X(NAME, VALUE). The first five are TFLite's ActivationFunctionType
 * values, read from files; the others only come from graph passes (engine/emit/passes.c) that
 * fold a LOGISTIC or HARD_SWISH op into its producer. Kernels see ACT_<NAME>. */
#define VKI_ACTIVATION_LIST(X) \
    X(NONE, 0)                 \
    X(RELU, 1)                 \
    X(RELU_N1_TO_1, 2)         \
    X(RELU6, 3)                \
    X(TANH, 4)                 \
    X(SIGMOID, 16)             \
    X(HARD_SWISH, 17)

#define VKI_ACT_ENUM_(name, value) VKI_ACT_##name = value,
typedef enum vki_activation { VKI_ACTIVATION_LIST(VKI_ACT_ENUM_) } vki_activation;
#undef VKI_ACT_ENUM_

typedef enum vki_padding { VKI_PAD_SAME = 0, VKI_PAD_VALID = 1 } vki_padding;

typedef enum vki_dtype {
    VKI_DTYPE_FLOAT32 = 0,
    VKI_DTYPE_FLOAT16 = 1,
    VKI_DTYPE_INT32 = 2,
    VKI_DTYPE_UINT8 = 3,
    VKI_DTYPE_INT64 = 4,
    VKI_DTYPE_BOOL = 6,
    VKI_DTYPE_COMPLEX64 = 8,    /* CPU ops only: real and imaginary parts, interleaved */
    VKI_DTYPE_INT8 = 9,
    VKI_DTYPE_RESOURCE = 13,    /* a resource variable's handle (VAR_HANDLE), held as its id */
    VKI_DTYPE_OTHER = 255,
} vki_dtype;

typedef struct vki_tensor {
    char *name;                 /* owned, never NULL */
    int rank;
    int shape[VKI_MAX_RANK];
    vki_dtype dtype;
    /* Constant data, owned, or NULL for activations. Float constants are float32;
     * index constants (shapes, paddings, axes; INT32, INT64 and BOOL in the file) hold
     * int32 values, INT64 ones converted to INT32 at load. */
    void *data;
    size_t data_bytes;
    /* An int8 or uint8 activation of the file, held as float real values: the grid its
     * producer's output is rounded onto (q in [quant_min, quant_max], real = quant_scale *
     * (q - quant_zero)) by a QUANTIZE step the loader adds, as TFLite's GPU delegate does.
     * quant_max > quant_min marks one. Quantized constants are float32 at load. */
    float quant_scale;
    int quant_zero, quant_min, quant_max;
    /* A constant the file quantized (int8, uint8 or int32), as the file holds it beside
     * the float32 `data` dequantized from it: q of every element, and scale and zero point
     * per index along qaxis (n_qscale of them; 1: per tensor). Integer kernels read these.
     * NULL for every other tensor. Owned. */
    int32_t *qdata;
    float *qscale;
    int32_t *qzero;
    int qaxis, n_qscale;
    /* Bit i: dimension i is -1 in the file's shape_signature (any size; `shape` holds the
     * size the file was written at). */
    unsigned dynamic_dims;
    /* TFLite's variable tensor: state an op (LSTM, SVDF, ...) reads and updates in place,
     * kept across a graph's runs from zeros (or its data) until vki_graph_reset_variables. */
    bool is_variable;
} vki_tensor;

static inline bool vki_tensor_quantized(const vki_tensor *t) { return t->quant_max > t->quant_min; }
/* Frees what tensor t owns (its name, data and quantized data). */
void vki_tensor_release(vki_tensor *t);
/* q - zero of element e of a quantized constant (t->qdata non-NULL); inner is the product
 * of the extents after qaxis. */
static inline int32_t vki_tensor_qvalue(const vki_tensor *t, size_t e, size_t inner) {
    size_t c = t->n_qscale > 1 ? (e / inner) % (size_t)t->n_qscale : 0;
    return t->qdata[e] - t->qzero[c];
}

typedef struct vki_conv_options {
    vki_padding padding;
    int stride_w, stride_h;
    int dilation_w, dilation_h;
    int depth_multiplier;       /* depthwise only */
    vki_activation activation;
} vki_conv_options;

typedef struct vki_pool_options {
    vki_padding padding;
    int stride_w, stride_h;
    int filter_w, filter_h;
    vki_activation activation;
} vki_pool_options;

/* What graph passes (engine/emit/passes.c) folded into an op, on the builder's private copy of
 * the op list; all zero in a model as loaded. */
typedef struct vki_fused {
    /* A spatial PAD (zeros) folded into a convolution's window: the op's input 0 is the
     * PAD's input, which the window sees with these rows and columns of zeros around it. */
    int pad_top, pad_bottom, pad_left, pad_right;
    /* An ADD folded into the op's epilogue: `residual` is added to the op's output before
     * its activation (which is the ADD's). Its channels may be fewer than the output's:
     * a channel PAD that zero-extended it was folded in too. Where the op had an
     * activation of its own it moves to pre_activation. */
    bool has_residual;
    int residual;
    vki_activation pre_activation;   /* the op's own activation, applied before the ADD */
    /* 1 + the index of a MAX_POOL_2D folded into the residual read (the pool_residual
     * pass): `residual` is then the pool's input, and the epilogue takes the maximum of the
     * pool's window over it. 0: none. */
    int res_pool;
    /* The op writes graph output `dense_output` in its dense NHWC layout, at float offset
     * `dense_base`, in place of the RESHAPE / CONCATENATION ops that led there. */
    bool dense_out;
    int dense_output;
    long dense_base;
    /* With dense_out on an integer form: the graph output is a DEQUANTIZE of the op's
     * result, folded in: the op writes its q - zero point times this scale (the grid's),
     * which is TFLite's dequantization exactly. 0: the op's output is float. */
    float dense_scale;
    /* An integer form's epilogue (engine/ops/int8.c): 1 + the tensor whose grid the op's
     * own sum is requantized onto (its output before a fused ADD or table op took it over),
     * 1 + the index of a fused integer ADD (the op's output is one of its operands, the
     * other is `residual`), 1 + the index of a fused table op (RELU, HARD_SWISH, ..., a
     * requantization) applied last. 0: none. */
    int int8_own, int8_add, int8_table;
    /* On a DEPTHWISE_CONV_2D: 1 + the index of the 1x1 CONV_2D that reads its output and
     * runs in the same dispatch (engine/ops/dw_pw.c); 0: none. The CONV_2D is skipped and
     * keeps what was fused into it (residual, activation, dense output). */
    int pointwise;
    /* With pointwise: 1 + the index of the 1x1 CONV_2D whose output the depthwise op read,
     * which runs in the same dispatch too (an inverted residual block's expansion,
     * engine/ops/block.c); input 0 is then that conv's input. 0: none. */
    int expand;
    /* With pointwise: the pair's dispatch is emitted where the CONV_2D stood, not where the
     * depthwise op does, because a tensor the CONV_2D reads (its residual) is written in
     * between: BlazeFace's downsampling blocks, whose shortcut is a MAX_POOL_2D. */
    bool pointwise_late;
    /* On a float CONV_2D: 1 + the tensor of C values ([1, 1, 1, C]) by which its input 0's
     * channels are multiplied as they are loaded: a MUL by a per-channel gate (MobileNetV3's
     * squeeze-excite) folded in; input 0 is the MUL's other operand. 0: none. */
    int gate;
    /* On a global pool (an AVERAGE_POOL_2D with a 1x1 output, or a MEAN over H and W): 1 +
     * the indices of the two 1x1 CONV_2Ds of a squeeze-excite block that read its output in
     * turn and run in its dispatch (the squeeze pass, engine/ops/squeeze.c); 0: none. The
     * pool takes over the second one's output. */
    int squeeze, excite;
} vki_fused;

/* The tensors an op reads besides its inputs, through what passes folded into it: a fused
 * ADD's residual and a fused MUL's gate. Fills t (2 at most) and returns the count. */
static inline int vki_fused_reads(const vki_fused *fu, int t[2]) {
    int n = 0;
    if (fu->has_residual) t[n++] = fu->residual;
    if (fu->gate) t[n++] = fu->gate - 1;
    return n;
}

typedef struct vki_op {
    vki_op_code code;
    /* The op's index in the file's own operator list, which messages give: the IR's index
     * differs once load-time folding has dropped ops (DEQUANTIZE, DENSIFY). Ops built by
     * hand (vki_model_add_op) take their position in the list. */
    int file_index;
    char custom_name[64];       /* for VKI_OP_CUSTOM */
    int n_inputs, n_outputs;
    int inputs[VKI_MAX_OP_INPUTS];  /* tensor indices; -1 for an omitted optional input */
    int outputs[VKI_MAX_OP_OUTPUTS];
    union {
        vki_conv_options conv;
        vki_pool_options pool;
        struct { vki_activation activation; } eltwise;   /* ADD, MUL, SUB, DIV */
        struct { int axis; vki_activation activation; } concat;
        struct { float alpha; } leaky_relu;
        struct { float beta; } softmax;
        struct { bool align_corners, half_pixel_centers; } resize;
        struct { vki_activation activation; bool keep_num_dims; } fully_connected;
        struct { bool keep_dims; } reduce;                       /* MEAN */
        struct { int block_size; } space_depth;                  /* DEPTH_TO_SPACE, SPACE_TO_DEPTH */
        struct {
            int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
            bool offset;
        } strided_slice;
        struct { bool symmetric; } mirror_pad;                   /* MIRROR_PAD mode */
        struct { bool approximate; } gelu;                       /* tanh form */
        struct { int axis, batch_dims; } gather;
        struct { int axis; } pack;                               /* PACK, UNPACK */
        struct { bool adj_x, adj_y; } batch_matmul;
        struct { bool exclusive, reverse; } cumsum;
        struct { int radius; float bias, alpha, beta; } lrn;     /* LOCAL_RESPONSE_NORMALIZATION */
        struct { vki_activation activation; } l2norm;            /* L2_NORMALIZATION */
        /* TFLite_Detection_PostProcess's custom options (a FlexBuffer map). */
        struct {
            int max_detections, max_classes_per_detection, detections_per_class;
            bool use_regular_nms;
            float score_threshold, iou_threshold, y_scale, x_scale, h_scale, w_scale;
            int num_classes;
        } detection;
        struct { int axis; } one_hot;                            /* ONE_HOT */
        /* IF (then, else), WHILE (cond, body), CALL_ONCE (init, -1): file subgraph indices. */
        struct { int subgraph[2]; } control;
        struct { char name[64]; } var;          /* VAR_HANDLE: "<container>/<shared_name>" */
        /* CONV_3D and CONV_3D_TRANSPOSE (Conv3DOptions): strides and dilations by D, H, W. */
        struct {
            vki_padding padding;
            int stride[3], dilation[3];
            vki_activation activation;
        } conv3d;
        /* TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias custom op. */
        struct { vki_padding padding; int stride_w, stride_h; vki_activation activation; } transpose_conv;
        struct { int activation; float cell_clip, proj_clip; int time_major, merge_outputs, rank, asymmetric; } rnn;
        struct { int i[8]; float f[4]; } mp;
        /* CPU ops of engine/ops/cpu_*.c: SHAPE (i[0] out_type), FAKE_QUANT (f[0] min, f[1]
         * max, i[0] num_bits, i[1] narrow_range), REVERSE_SEQUENCE (i[0] seq_dim, i[1]
         * batch_dim). */
        struct { int i[4]; float f[4]; } misc;
    } opt;
    vki_fused fused;
    /* Validation placed the op on the CPU: its kernel cannot take these shapes, its
     * VKI_CPU_FALLBACK_LIST def can (vki_model_validate sets and clears it). */
    bool on_cpu;
} vki_op;

/* How many times op reads tensor t: as an input, and through what was fused into it. */
static inline int vki_op_reads(const vki_op *op, int t) {
    int extra[2], n = 0;
    for (int k = vki_fused_reads(&op->fused, extra); k-- > 0;) n += extra[k] == t;
    for (int k = 0; k < op->n_inputs; k++) n += op->inputs[k] == t;
    return n;
}

/* The shapes a model's tensors had before shape propagation (engine/ir/shapes.c). */
typedef struct vki_loaded_shapes {
    int *rank;
    int (*shape)[VKI_MAX_RANK];
} vki_loaded_shapes;

struct vki_model {
    char *name;                 /* file name without directories, owned */
    int n_tensors, n_ops, n_inputs, n_outputs;
    vki_tensor *tensors;
    vki_op *ops;
    int *inputs;                /* graph input tensor indices */
    int *outputs;               /* graph output tensor indices */
    /* The file's operator list as it was, folded ops included: the builtin code of each,
     * owned. Ops are numbered by it everywhere (vki_op.file_index). NULL for a model built
     * by hand, whose op list is its own file list (read it with vki_model_file_op_*). */
    int n_file_ops;
    int *file_op_codes;
    /* Set only while shapes propagate from new input shapes (vki_model_resize_inputs):
     * the shapes as they were. Meanwhile an op's validate writes the output shapes it
     * expects (vki_op_expect_dims, vki_op_check_shape) instead of checking them. */
    const vki_loaded_shapes *infer_shapes;
    /* Signatures (the file's signature_defs): every key, owned. `signature` is the one
     * loaded (NULL: subgraph 0 as it is); then input_names and output_names hold its names
     * for the inputs and outputs, in its order, owned (NULL otherwise). */
    int n_signatures;
    char **signature_names;
    char *signature;
    char **input_names, **output_names;
    /* Subgraphs: `subgraph` is the file's index of the one this model is. Control flow (IF,
     * WHILE, CALL_ONCE) runs others: subgraphs[i] is file subgraph i, loaded where an op
     * names it (else NULL). The table is the loaded model's (is_child false), which owns
     * it and every model in it; the models in it share it. */
    int subgraph, n_file_subgraphs;
    bool is_child;
    struct vki_model **subgraphs;
};

/* Name of a builtin code ("CONV_2D", or TFLite's name for one vkinfer lacks: "GELU"), or
 * "UNKNOWN" for a code newer than the list in tflite_ops.h. */
const char *vki_op_name(int code);
/* "RELU", "HARD_SWISH", ...: the activation's name in VKI_ACTIVATION_LIST. */
const char *vki_activation_name(vki_activation act);

/* The file's operators, which vki_op.file_index, messages, the profile, fp32_ops and
 * calibration number: their count and the builtin code of operator `index` (-1 out of
 * range). A hand-built model's file is its op list. */
int vki_model_file_op_count(const vki_model *m);
int vki_model_file_op_code(const vki_model *m, int index);
/* Whether file operator `index` runs, i.e. some op of the list carries it (0: folded at
 * load, as a DEQUANTIZE of a constant). */
bool vki_model_file_op_runs(const vki_model *m, int index);

size_t vki_tensor_elements(const vki_tensor *t);
/* Floats a tensor's host values take: its elements, twice for complex64. */
size_t vki_tensor_values(const vki_tensor *t);
/* Whether tensor t is one of the model's graph outputs / inputs. */
int vki_model_is_output(const vki_model *m, int t);
/* vki_model_input_info / _output_info (is_input picks), failing in the name of call. */
vki_status vki_model_io_info(const vki_model *m, int index, int is_input, const char *call,
                             vki_tensor_info *out);
int vki_model_is_input(const vki_model *m, int t);

/* NHWC view of a tensor of rank <= 4: rank 4 [N,H,W,C]; rank 3 [N,W,C] -> H = 1;
 * rank 2 [N,C] -> H = W = 1; rank 1 [C]; rank 0 a scalar. */
typedef struct vki_shape4 { int n, h, w, c; } vki_shape4;
vki_shape4 vki_tensor_shape4(const vki_tensor *t);

/* The storage view of a tensor of any rank <= 5 and any batch: the last axis is C, the one
 * before it W, and every axis before those is folded into the rows (n = 1, h = the product
 * of the leading extents). PHWC4 storage is this view's [rows, W, ceil(C/4) x 4]: rank 4
 * [B,H,W,C] is B*H rows of [W,C]; rank 3 [A,W,C] is A rows; rank 2 [A,C] is one row of A
 * pixels. For the batch-1 tensors of rank <= 4 it equals vki_tensor_shape4. */
vki_shape4 vki_tensor_rows(const vki_tensor *t);

/* Non-float activations (INT32, INT64 indices, BOOL masks) are held on the device as float
 * values (exact below 2^24) in float32 storage; true for those dtypes. */
bool vki_dtype_is_index(vki_dtype d);
/* "float32", "int8", "bool", ... for messages. */
const char *vki_dtype_name(vki_dtype d);

/* ---- building models by hand (tests, folding passes) -------------------------------- */

vki_model *vki_model_new(const char *name);
/* Appends a tensor; data (may be NULL) is copied. Returns its index or -1 on OOM. */
int vki_model_add_tensor(vki_model *m, const char *name, vki_dtype dtype, int rank,
                         const int *shape, const void *data, size_t data_bytes);
/* Appends an op; returns a pointer to it (valid until the next add) or NULL on OOM. */
vki_op *vki_model_add_op(vki_model *m, vki_op_code code, int n_inputs, const int *inputs,
                         int n_outputs, const int *outputs);
bool vki_model_set_io(vki_model *m, int n_inputs, const int *inputs, int n_outputs,
                      const int *outputs);

/* A view of m with new input shapes (shapes.c): its own tensor and op arrays, so its own
 * shapes, and m's names, data and I/O lists, borrowed. Free it with vki_model_view_free
 * (never vki_model_destroy) before m. */
vki_status vki_model_resized_view(const vki_model *m, const vki_input_shape *shapes, int n,
                                  vki_model **out);
void vki_model_view_free(vki_model *view);

#endif /* VKI_MODEL_H */
