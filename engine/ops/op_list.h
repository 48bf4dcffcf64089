/* op_list.h: the one place an op is registered.
 *
 * Every other list of ops is generated from these X-macros: the vki_op_code enum and
 * vki_op_name (model.h, model.c), the op table (ops.c), the loader's options dispatch
 * (tflite_loader.c), which ops take a fused activation (passes.c) and the test suite's
 * coverage check. Adding an op is its engine/ops/<file>.c defining vki_op_<def>, its
 * glsl/<kernel>.comp, and one line here.
 *
 * VKI_OP_LIST(X): builtin ops with a kernel:
 *   X(NAME, CODE, DEF, OPTIONS, ACTIVATION)
 *     NAME        TFLite BuiltinOperator name: enum VKI_OP_<NAME>, messages say "<NAME>"
 *     CODE        its value in TFLite's schema.fbs
 *     DEF         the op file's definition, const vki_op_def vki_op_<DEF>
 *     OPTIONS     OPTS(<BuiltinOptions type id>, <table name>) for the options table the
 *                 op's def reads (def->options), or NO_OPTS
 *     ACTIVATION  ACT(<vki_op.opt member>) when the op has a fused activation slot at
 *                 opt.<member>.activation that passes may fill, or NO_ACT
 *
 * VKI_CUSTOM_OP_LIST(X): custom ops with a kernel (code 32, told apart by custom_code):
 *   X(IDENT, CUSTOM_CODE, DEF)
 *
 * VKI_FOLDED_OP_LIST(X): builtin codes the IR knows without a kernel of their own:
 *   X(NAME, CODE): folded at load (DEQUANTIZE, DENSIFY), fused into a producer
 *   (RELU_N1_TO_1), or the custom marker.
 */
#ifndef VKI_OP_LIST_H
#define VKI_OP_LIST_H

#define VKI_OP_LIST(X)                                                                    \
    X(ADD, 0, add, OPTS(11, AddOptions), ACT(eltwise))                                    \
    X(AVERAGE_POOL_2D, 1, average_pool2d, OPTS(5, Pool2DOptions), ACT(pool))               \
    X(CONCATENATION, 2, concatenation, OPTS(10, ConcatenationOptions), ACT(concat))        \
    X(CONV_2D, 3, conv2d, OPTS(1, Conv2DOptions), ACT(conv))                               \
    X(DEPTHWISE_CONV_2D, 4, depthwise_conv2d, OPTS(2, DepthwiseConv2DOptions), ACT(conv))  \
    X(DEPTH_TO_SPACE, 5, depth_to_space, OPTS(94, DepthToSpaceOptions), NO_ACT)            \
    X(FULLY_CONNECTED, 9, fully_connected, OPTS(8, FullyConnectedOptions),                 \
      ACT(fully_connected))                                                               \
    X(LOGISTIC, 14, logistic, NO_OPTS, NO_ACT)                                             \
    X(MAX_POOL_2D, 17, max_pool2d, OPTS(5, Pool2DOptions), ACT(pool))                      \
    X(MUL, 18, mul, OPTS(21, MulOptions), ACT(eltwise))                                    \
    X(RELU, 19, relu, NO_OPTS, NO_ACT)                                                     \
    X(RELU6, 21, relu6, NO_OPTS, NO_ACT)                                                   \
    X(RESHAPE, 22, reshape, NO_OPTS, NO_ACT)                                               \
    X(RESIZE_BILINEAR, 23, resize_bilinear, OPTS(15, ResizeBilinearOptions), NO_ACT)       \
    X(SOFTMAX, 25, softmax, OPTS(9, SoftmaxOptions), NO_ACT)                               \
    X(SPACE_TO_DEPTH, 26, space_to_depth, OPTS(19, SpaceToDepthOptions), NO_ACT)           \
    X(TANH, 28, tanh, NO_OPTS, NO_ACT)                                                     \
    X(PAD, 34, pad, NO_OPTS, NO_ACT)                                                       \
    X(MEAN, 40, mean, OPTS(27, ReducerOptions), NO_ACT)                                    \
    X(SUB, 41, sub, OPTS(28, SubOptions), ACT(eltwise))                                    \
    X(DIV, 42, div, OPTS(29, DivOptions), ACT(eltwise))                                    \
    X(STRIDED_SLICE, 45, strided_slice, OPTS(32, StridedSliceOptions), NO_ACT)             \
    X(PRELU, 54, prelu, NO_OPTS, NO_ACT)                                                   \
    X(MAXIMUM, 55, maximum, NO_OPTS, NO_ACT)                                               \
    X(MINIMUM, 57, minimum, NO_OPTS, NO_ACT)                                               \
    X(SLICE, 65, slice, NO_OPTS, NO_ACT)                                                   \
    X(TRANSPOSE_CONV, 67, transpose_conv, OPTS(49, TransposeConvOptions), NO_ACT)          \
    X(RESIZE_NEAREST_NEIGHBOR, 97, resize_nearest, OPTS(74, ResizeNearestNeighborOptions), \
      NO_ACT)                                                                             \
    X(LEAKY_RELU, 98, leaky_relu, OPTS(75, LeakyReluOptions), NO_ACT)                      \
    X(HARD_SWISH, 117, hard_swish, NO_OPTS, NO_ACT)

#define VKI_CUSTOM_OP_LIST(X) \
    X(CONVOLUTION_2D_TRANSPOSE_BIAS, "Convolution2DTransposeBias", conv2d_transpose_bias)

#define VKI_FOLDED_OP_LIST(X) \
    X(DEQUANTIZE, 6)          \
    X(RELU_N1_TO_1, 20)       \
    X(CUSTOM, 32)             \
    X(DENSIFY, 124)

#endif /* VKI_OP_LIST_H */
