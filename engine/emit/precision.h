/* precision.h: which ops and tensors of a graph are float16 (internal).
 *
 * An fp16 graph stores an op's outputs and weights as float16 unless the op is one of
 * the options' fp32_ops; a kept op also computes in fp32. A tensor takes the precision of
 * the op that writes it, and a graph input is fp16 only if every op reading it is. */
#ifndef VKI_PRECISION_H
#define VKI_PRECISION_H

#include "model.h"
#include "options.h"
#include "status.h"
#include "vkinfer.h"

#include <stddef.h>

/* op_half[o] = 1 for ops stored fp16. The config's fp32_ops are file op numbers
 * (vki_op.file_index), checked already. */
void vki_precision_ops(const vki_model *m, const vki_graph_config *c, unsigned char *op_half);

/* After activation fusion: an op absorbed into its producer (skip[o]) that was kept fp32
 * keeps the producer fp32 too, since the producer now writes its output; so does a squeeze
 * dispatch whose convolutions either was kept fp32. */
void vki_precision_fused(const vki_model *view, const unsigned char *skip, unsigned char *op_half);

/* tensor_half[t] for every tensor of `view` (the model with the passes' op list; skipped
 * ops write nothing); root_of[t] is the tensor whose storage t shares. */
void vki_precision_tensors(const vki_model *view, const unsigned char *skip,
                           const unsigned char *op_half, const int *root_of,
                           unsigned char *tensor_half);

/* How a binding's elements are stored: float32, float16, int32 (an integer form's biases
 * and requantization scales, engine/ops/int8.c), or bytes (an int8 / uint8 tensor: a
 * PHWC4 slice in one 32-bit word, each value q - zero point plus the tensor's offset,
 * zero point - type minimum, which makes it 0..255). */
enum { VKI_STORE_F32 = 0, VKI_STORE_F16 = 1, VKI_STORE_I32 = 2, VKI_STORE_Q8 = 3 };

/* The precision #defines prepended to a kernel: VKI_FP16_STORAGE when the graph stores
 * fp16, VKI_FP16_ARITH when the dispatch computes in fp16, and each binding's storage type
 * (common.glsl's STORE4_<i>) from half[i], a VKI_STORE_*: vec4, f16vec4, ivec4 or uint, with
 * DECODE_<i> and ENCODE_<i> (and DECODEI_<i>, WORD_<i> for integer forms: an element as
 * ivec4, as a word of 4 bytes); a VKI_STORE_Q8 binding's offset is q8_offset[i] (q8_offset
 * may be NULL where no binding is one). */
void vki_precision_defines(int fp16_storage, int fp16_arith, int n_bindings,
                           const unsigned char *half, const int *q8_offset, char *out,
                           size_t cap);

#endif
