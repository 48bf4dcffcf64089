/* int8.h: what the integer forms of the ops share (int8.c): which int8 / uint8 ops have
 * one, the weights and biases they read, the requantization of an int32 sum and the
 * fused activation's range, all as LiteRT computes them (XNNPACK's integer kernels). A
 * quantized tensor holds q - zero point (tflite_loader.c's lower_quantized). */
#ifndef VKI_INT8_H
#define VKI_INT8_H

#include "ops.h"

/* A convolution-like op (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) has an integer form:
 * quantized input and output, weights the file quantized (per tensor, or per channel along
 * w_axis, the output channels' axis), an int32 quantized bias or none. */
bool vki_int8_conv_ok(const vki_model *m, const vki_op *op, int w_axis);

/* The weights' q - zero point as floats (whole numbers), in the layout of their float
 * data, for the float packing routines; NULL on OOM. */
float *vki_int8_weight_values(const vki_tensor *w);

/* The requantization scale of output channel c in float32, as XNNPACK computes it:
 * in_scale * w_scale[c] / out_scale, left to right. */
float vki_int8_conv_scale(const vki_model *m, const vki_op *op, int c);

/* The bias blob of an integer convolution: `count` int32 biases (zero past the output's
 * channels), then `count` requantization scales (their float bits), so common.glsl's
 * epilogue finds channel c's scale at vec4 count / 4 + c / 4 (RQ_BASE). Returns the blob,
 * or -1 on OOM. */
int vki_int8_bias_blob(vki_build *b, const vki_model *m, const vki_op *op, size_t count);
/* The same with adjust[c] added to output channel c's bias (NULL: nothing): a kernel that
 * sums q products (INT8_PACKED) takes the input's zero point times the weights' sum off
 * there once. */
int vki_int8_bias_blob_adjusted(vki_build *b, const vki_model *m, const vki_op *op, size_t count,
                                const int32_t *adjust);
/* For a packed integer form (INT8_PACKED; common.glsl): false where one of the count
 * packed weights does not fit a signed byte (the plain form runs); else adjust[o] = -zero
 * (the input's zero point) times the sum of output channel o's n_in weights, values being
 * [n_out][n_in] q - zero point. */
bool vki_int8_packed_adjust(const float *packed, size_t count, const float *values, int n_out,
                            size_t n_in, int zero, int32_t *adjust);
/* The packed form's defines for input `in`: INT8_PACKED, SRC_SIGNED for int8 bytes,
 * SRC_ZERO (its zero point), and INT8_DOT where the device has integer dot products
 * (common.glsl); _src without INT8_DOT, for a kernel that unpacks the words itself. */
void vki_int8_define_packed(vki_build *b, vki_dispatch *d, const vki_tensor *in);
void vki_int8_define_packed_src(vki_dispatch *d, const vki_tensor *in);

/* The tensor whose grid the op's own int32 sum is requantized onto: its output, or the
 * output it had before the passes fused an ADD or a table op after it (op->fused). */
const vki_tensor *vki_int8_own(const vki_model *m, const vki_op *op);

/* The integer epilogue's defines: INT8, RQ_BASE, OUT_QMIN / OUT_QMAX (the fused
 * activation's range in q - zero point); for a fused integer ADD its multipliers and range
 * (INT8_ADD: the residual binding is vki_build_bind_output's); for a fused table op its
 * table, bound as the dispatch's next binding (INT8_TABLE). Call after binding the output. */
vki_status vki_int8_define_epilogue(vki_build *b, vki_dispatch *d, const vki_model *m,
                                    const vki_op *op, vki_activation act, size_t bias_count);
/* A fused table op's table (op->fused.int8_table), bound as the dispatch's next binding,
 * and its defines INT8_TABLE, TABLE_BINDING, TABLE_OFFSET (common.glsl's INT8_APPLY_TABLE);
 * nothing without one. For the integer ADD / SUB / MUL too (binary.c). */
vki_status vki_int8_define_table(vki_build *b, vki_dispatch *d, const vki_model *m, const vki_op *op);
/* Table op t's 256 results (q - zero point of its output for each q of its input, from its
 * input's quant_min on) as a weights blob; -1 on OOM. */
int vki_int8_table_blob(vki_build *b, const vki_model *m, const vki_op *t);

/* The range of q - zero point that a fused activation leaves on tensor t's grid. */
void vki_int8_activation_range(const vki_tensor *t, vki_activation act, int *lo, int *hi);

/* An int32 sum onto the output's grid: float(acc) * scale rounded half to even, clamped to
 * lo..hi (q - zero point), as the GPU epilogue computes it. */
float vki_int8_requantize(int32_t acc, float scale, int lo, int hi);

/* The bias of output channel c as the file's int32 (0 without a bias). */
int32_t vki_int8_bias(const vki_model *m, const vki_op *op, int c);

/* ADD, SUB and MUL of two int8 / uint8 activations (quantized output, same type). */
bool vki_int8_binary_ok(const vki_model *m, const vki_op *op);

/* The integer arithmetic of an ADD / SUB (XNNPACK's qs8 / qu8 vadd, its multipliers from
 * xnn_init_qs8_add_minmax_scalar_params) or MUL (qs8 vmul, fp32 requantization):
 *   ADD / SUB: c = (2^(shift-1) + ca * a_mult + cb * b_mult) >> shift (SUB: b_mult < 0)
 *   MUL:       c = roundEven(float(ca * cb) * scale)
 * then clamped to lo..hi, the type's range narrowed by the fused activation, all in
 * q - zero point. */
typedef struct vki_int8_binary {
    int32_t a_mult, b_mult, shift;
    float scale;
    int lo, hi;
} vki_int8_binary;
vki_int8_binary vki_int8_binary_params(const vki_model *m, const vki_op *op);
float vki_int8_binary_apply(vki_op_code code, const vki_int8_binary *p, int32_t ca, int32_t cb);

/* One-input ops of an int8 / uint8 activation onto the same type, as a table of every q:
 * RELU, RELU6, RELU_N1_TO_1 (TFLite's ReluX, fixed point), LOGISTIC, TANH, ELU (XNNPACK's
 * float tables), LEAKY_RELU (XNNPACK's vlrelu, or TFLite's where the delegate declines),
 * HARD_SWISH (TFLite's int16 fixed point) and a QUANTIZE between grids (XNNPACK's vcvt). */
bool vki_int8_table_ok(const vki_model *m, const vki_op *op);
/* The output q for input q. */
int32_t vki_int8_table_entry(const vki_model *m, const vki_op *op, int q);
/* The op as one glsl/quant.comp OP_LUT dispatch over its table. */
vki_status vki_int8_build_table(vki_build *b, const vki_model *m, const vki_op *op);
/* The op on q - zero point values through the same entries. */
void vki_int8_table_reference(const vki_model *m, const vki_op *op, const float *in, float *out);

/* MAX_POOL_2D and AVERAGE_POOL_2D with input and output on one grid. */
bool vki_int8_pool_ok(const vki_model *m, const vki_op *op);
/* The range of q - zero point TFLite's own integer kernels clamp a fused activation to
 * (CalculateActivationRangeQuantized: bounds rounded half away from zero). */
void vki_int8_tflite_activation_range(const vki_tensor *t, vki_activation act, int *lo, int *hi);

/* MEAN over H and W (at most 65,536 cells, so float sums stay exact). */
bool vki_int8_mean_ok(const vki_model *m, const vki_op *op, bool spatial);
/* XNNPACK's static mean: out = roundEven(float(raw sum) * inv + zpf) clamped, with inv
 * and zpf in float32 as xnn's rsum + convert derive them for n cells. */
void vki_int8_mean_params(const vki_model *m, const vki_op *op, int n, float *inv, float *zpf);

/* QUANTIZE between int8 and uint8 activations (TFLite's quantize.cc Requantize: the
 * delegate takes no conversion across types), as a table of every q. */
bool vki_int8_requantize_types_ok(const vki_model *m, const vki_op *op);
/* Its output q for input q. */
int32_t vki_int8_requantize_types_entry(const vki_tensor *in, const vki_tensor *out, int q);
/* The output q of input q of a uint8 CONCATENATION whose input `in` is on another grid
 * than `out` (TFLite's ConcatenationWithScaling; q itself on the output's grid). */
int32_t vki_int8_concat_entry(const vki_tensor *in, const vki_tensor *out, int q);
/* A one-input op as one glsl/quant.comp OP_LUT dispatch over the table of entry(in, out, q)
 * (vki_int8_build_table with entries of its own). */
vki_status vki_int8_build_lut(vki_build *b, const vki_model *m, const vki_op *op,
                              int32_t (*entry)(const vki_tensor *in, const vki_tensor *out, int q));

/* PRELU of an int8 / uint8 activation by a constant alpha the file quantized per tensor,
 * onto the input's type: TFLite's own kernel (activations.cc PreluEval, reference_ops::
 * BroadcastPrelu4DSlow; the XNNPACK delegate takes float PRELU only). With x = q - zero and
 * a = alpha q - alpha zero, MultiplyByQuantizedMultiplier (double rounding):
 *   x >= 0: x times in_scale / out_scale;  x < 0: x * a times in_scale * alpha_scale / out_scale
 * (each ratio in float32, QuantizeMultiplier'd), clamped to the type's range. */
bool vki_int8_prelu_ok(const vki_model *m, const vki_op *op);
typedef struct vki_int8_prelu {
    int32_t mult[2];            /* [0]: x >= 0, [1]: x < 0 */
    int shift[2];
    int lo, hi;                 /* the type's range in q - zero point */
} vki_int8_prelu;
vki_int8_prelu vki_int8_prelu_params(const vki_model *m, const vki_op *op);
/* Output q - zero point of input x = q - zero and alpha a = q - zero. */
float vki_int8_prelu_apply(const vki_int8_prelu *p, int32_t x, int32_t a);

/* RESIZE_BILINEAR of an int8 / uint8 activation onto the same grid: XNNPACK's s8 / u8
 * ibilinear (the delegate takes it; TFLite's kernel is not run). Per output row and column
 * a source index pair and a weight of 11 fraction bits, from float32 coordinates
 * (xnn_indirection_init_resize_bilinear2d_hwc_q11); then
 *   top = tl * 2^11 + (tr - tl) * wx, bottom likewise, out = (top * 2^11 + (bottom - top)
 *   * wy + 2^21) >> 22 (floor), on q - zero point as on q (the sum shifts by zero * 2^22). */
bool vki_int8_resize_bilinear_ok(const vki_model *m, const vki_op *op);
/* Along one axis: output index i of out_size from in_size: the two source indices and
 * the weight of the second (0..2048). */
void vki_int8_resize_axis(int i, int in_size, int out_size, bool align_corners,
                          bool half_pixel_centers, int *lo, int *hi, int *weight);
/* XNNPACK's float32 scale and half-pixel offset along an axis (what the kernel gets). */
void vki_int8_resize_scale(int in_size, int out_size, bool align_corners, float *scale,
                           float *offset);
/* The interpolation of four q - zero point values with weights wx, wy. */
int32_t vki_int8_resize_lerp(int32_t tl, int32_t tr, int32_t bl, int32_t br, int wx, int wy);

#endif
