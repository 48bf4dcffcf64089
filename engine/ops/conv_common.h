/* conv_common.h: what CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV share: validation
 * and the window every convolution kernel reads. */
#ifndef VKI_CONV_COMMON_H
#define VKI_CONV_COMMON_H

#include "ops.h"

/* Dilation as used: TFLite files may leave it at 0 to mean 1. */
int vki_conv_dilation(int d);
/* Arity (2 or 3 inputs), a non-constant rank-4 input and output, constant rank-4 weights. */
vki_status vki_conv_check_operands(const vki_model *m, int op_index);
/* Given oc output channels: the optional bias, padding, strides, dilations, activation,
 * window and stride limits, and the output shape [1, oh, ow, oc]. */
vki_status vki_conv_check_window(const vki_model *m, int op_index, int oc);

/* Conv2DOptions / DepthwiseConv2DOptions into op->opt.conv (vki_op_def.options). */
vki_status vki_conv_read_options(vki_options_reader *r, const vki_model *m, vki_op *op);

/* The window a convolution kernel reads: shapes, kernel size, strides, dilations and the
 * padding before the first row and column. */
typedef struct vki_conv_window {
    vki_shape4 in, out;
    int kh, kw, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
} vki_conv_window;

/* The window of a CONV_2D or DEPTHWISE_CONV_2D op (weights are input 1), a folded PAD
 * (op->fused) included. */
vki_conv_window vki_conv_window_of(const vki_model *m, const vki_op *op);

/* The window's kernel size, strides, dilations and padding as #defines (KH, KW, STRIDE_*,
 * DIL_*, PAD_*), for kernels whose IN and OUT are not the window's own (the fused ones). */
void vki_conv_define_window(vki_dispatch *d, const vki_conv_window *w);

/* A float 1x1 CONV_2D's filter packed a slice a group (vki_conv_pack_1x1) and its bias padded
 * to whole slices, as weight blobs; 0 when out of memory. */
int vki_conv_1x1_blobs(vki_build *b, const vki_model *m, const vki_op *op, int *wblob, int *bblob);

/* Starts a convolution dispatch of `kernel` (a VKI_KERNEL_* name): the window's #defines
 * (IN_*, OUT_*, KH, KW, STRIDE_*, DIL_*, PAD_*), the activation, and the bindings src,
 * weights, bias, dst in that order (dst < 0: the caller binds its output, e.g. with
 * vki_build_bind_output). The caller adds its own defines and the grid. */
void vki_conv_dispatch(vki_dispatch *d, const char *kernel, vki_wg_class wg_class,
                       const vki_conv_window *w, vki_activation act, int src, int weights,
                       int bias, int dst);

/* A 1x1 filter [O,1,1,I] (ic, oc channels) packed for the fused kernels: for group g of
 * tile_s output slices (groups of them), input slice s, output slice j of the group and
 * input lane i, a vec4 of the 4 output channels' weights; padded channels and lanes zero.
 * *count floats; NULL when out of memory. */
float *vki_conv_pack_1x1(const float *f, int ic, int oc, int tile_s, int groups, size_t *count);

/* ---- depthwise + pointwise in one dispatch (dw_pw.c) ---------------------------------- */

/* The pass: marks each DEPTHWISE_CONV_2D whose output only a 1x1 CONV_2D reads, where one
 * fused dispatch pays on this device (ops[dw].fused.pointwise, skip[pw]). Runs after the
 * other passes, so the CONV_2D may carry a residual or a dense output. Returns the number
 * of pairs fused. dwpw_env: VKI_DWPW as the graph read it (dw_pw.c), NULL where unset. */
int vki_fuse_dw_pw(const vki_model *m, vki_op *ops, unsigned char *skip,
                   const vki_wg_device *dev, const char *dwpw_env);
/* Emits the one dispatch of a fused pair. */
vki_status vki_build_dw_pw(vki_build *b, const vki_model *m, int dw_op, int pw_op);

/* What the fusions of convolutions share (dw_pw.c). vki_pointwise_reads: whether op is a
 * 1x1 stride-1 CONV_2D reading t as input 0 with nothing folded into that read (no
 * padding, no gate). vki_conv_pack_depthwise: depthwise weights [1, KH, KW, c] as one vec4
 * per (slice, tap), padded lanes zero; *count floats, NULL when out of memory. */
int vki_pointwise_reads(const vki_model *m, const vki_op *op, int t);
float *vki_conv_pack_depthwise(const float *f, int c, int taps, size_t *count);

/* ---- an inverted residual block in one dispatch (block.c) ------------------------------ */

/* The pass: marks each float DEPTHWISE_CONV_2D (multiplier 1, batch 1) between a 1x1
 * CONV_2D that alone feeds it (the expansion) and a 1x1 CONV_2D that alone reads it (the
 * projection), where one dispatch pays on this device: ops[dw].fused.expand and .pointwise,
 * input 0 the expansion's input, output the projection's, skip[] set for both convs. Runs
 * after dw_pw, whose pairs it extends (so that a chain of pairs, BlazeFace's, keeps them:
 * a pair's 1x1 conv is not taken for the next pair's expansion), and after the passes that
 * fuse into the projection (residual, output layout).
 * block_env: VKI_BLOCK as the graph read it, NULL where unset. Returns the ops folded. */
int vki_fuse_blocks(const vki_model *m, vki_op *ops, unsigned char *skip,
                    const vki_wg_device *dev, const char *block_env);
/* Emits the one dispatch of a fused block (the depthwise op's build calls it). */
vki_status vki_build_block(vki_build *b, const vki_model *m, int dw_op);

#endif
