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
 * VKI_CPU_OP_LIST(X): builtin ops that run on the CPU, between the graph's GPU segments
 * (engine/runtime/partition.c), with the columns of VKI_OP_LIST but ACTIVATION:
 *   X(NAME, CODE, DEF, OPTIONS)
 * Their op files give validate, options, reference and run (vki_op_def), and no build.
 *
 * VKI_CPU_CUSTOM_OP_LIST(X): custom ops that run on the CPU: X(IDENT, CUSTOM_CODE, DEF)
 *
 * VKI_CPU_FALLBACK_LIST(X): kernels' limits that a CPU def takes (below).
 *
 * VKI_FOLDED_OP_LIST(X): builtin codes the IR knows without a kernel of their own:
 *   X(NAME, CODE): folded at load (DENSIFY) or the custom marker. (DEQUANTIZE of a constant folds at load too; of an activation it is
 *   an op of the list.)
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
    X(HARD_SWISH, 117, hard_swish, NO_OPTS, NO_ACT)                                       \
    /* unary.c: one kernel, the function by name (OP_<NAME>) */                          \
    X(FLOOR, 8, floor, NO_OPTS, NO_ACT)                                                    \
    X(RELU_N1_TO_1, 20, relu_n1_to_1, NO_OPTS, NO_ACT)                                     \
    X(EXP, 47, exp, NO_OPTS, NO_ACT)                                                       \
    X(CAST, 53, cast, NO_OPTS, NO_ACT)                                                     \
    X(NEG, 59, neg, NO_OPTS, NO_ACT)                                                       \
    X(SIN, 66, sin, NO_OPTS, NO_ACT)                                                       \
    X(LOG, 73, log, NO_OPTS, NO_ACT)                                                       \
    X(SQRT, 75, sqrt, NO_OPTS, NO_ACT)                                                     \
    X(RSQRT, 76, rsqrt, NO_OPTS, NO_ACT)                                                   \
    X(LOGICAL_NOT, 87, logical_not, NO_OPTS, NO_ACT)                                       \
    X(SQUARE, 92, square, NO_OPTS, NO_ACT)                                                 \
    X(ABS, 101, abs, NO_OPTS, NO_ACT)                                                      \
    X(CEIL, 104, ceil, NO_OPTS, NO_ACT)                                                    \
    X(COS, 108, cos, NO_OPTS, NO_ACT)                                                      \
    X(ELU, 111, elu, NO_OPTS, NO_ACT)                                                      \
    X(ROUND, 116, round, NO_OPTS, NO_ACT)                                                  \
    X(GELU, 150, gelu, OPTS(116, GeluOptions), NO_ACT)                                     \
    X(RELU_0_TO_1, 152, relu_0_to_1, NO_OPTS, NO_ACT)                                      \
    X(SIGN, 158, sign, NO_OPTS, NO_ACT)                                                    \
    X(BATCH_MATMUL, 126, batch_matmul, OPTS(101, BatchMatMulOptions), NO_ACT)             \
    /* quantize.c: int8 models as float with rounding steps */                           \
    X(DEQUANTIZE, 6, dequantize, NO_OPTS, NO_ACT)                                          \
    X(QUANTIZE, 114, quantize, NO_OPTS, NO_ACT)                                            \
    /* softmax.c: normalisations over the last axis */                                   \
    X(L2_NORMALIZATION, 11, l2_normalization, OPTS(12, L2NormOptions), NO_ACT)             \
    X(LOCAL_RESPONSE_NORMALIZATION, 13, local_response_normalization,                      \
      OPTS(13, LocalResponseNormalizationOptions), NO_ACT)                                \
    X(LOG_SOFTMAX, 50, log_softmax, NO_OPTS, NO_ACT)                                       \
    X(ADD_N, 106, add_n, NO_OPTS, NO_ACT)                                                  \
    /* reduce.c: one kernel over any axes */                                             \
    X(ARG_MAX, 56, arg_max, NO_OPTS, NO_ACT)                                               \
    X(SUM, 74, sum, OPTS(27, ReducerOptions), NO_ACT)                                      \
    X(ARG_MIN, 79, arg_min, NO_OPTS, NO_ACT)                                               \
    X(REDUCE_PROD, 81, reduce_prod, OPTS(27, ReducerOptions), NO_ACT)                      \
    X(REDUCE_MAX, 82, reduce_max, OPTS(27, ReducerOptions), NO_ACT)                        \
    X(REDUCE_MIN, 89, reduce_min, OPTS(27, ReducerOptions), NO_ACT)                        \
    X(REDUCE_ANY, 91, reduce_any, OPTS(27, ReducerOptions), NO_ACT)                        \
    X(CUMSUM, 128, cumsum, OPTS(102, CumsumOptions), NO_ACT)                               \
    /* binary.c: one kernel with broadcasting, the op by name (OP_<NAME>) */              \
    X(LESS, 58, less, NO_OPTS, NO_ACT)                                                     \
    X(GREATER, 61, greater, NO_OPTS, NO_ACT)                                               \
    X(GREATER_EQUAL, 62, greater_equal, NO_OPTS, NO_ACT)                                   \
    X(LESS_EQUAL, 63, less_equal, NO_OPTS, NO_ACT)                                         \
    X(SELECT, 64, select, NO_OPTS, NO_ACT)                                                 \
    X(EQUAL, 71, equal, NO_OPTS, NO_ACT)                                                   \
    X(NOT_EQUAL, 72, not_equal, NO_OPTS, NO_ACT)                                           \
    X(POW, 78, pow, NO_OPTS, NO_ACT)                                                       \
    X(LOGICAL_OR, 84, logical_or, NO_OPTS, NO_ACT)                                         \
    X(LOGICAL_AND, 86, logical_and, NO_OPTS, NO_ACT)                                       \
    X(FLOOR_DIV, 90, floor_div, NO_OPTS, NO_ACT)                                           \
    X(FLOOR_MOD, 95, floor_mod, NO_OPTS, NO_ACT)                                           \
    X(SQUARED_DIFFERENCE, 99, squared_difference, NO_OPTS, NO_ACT)                         \
    X(SELECT_V2, 123, select_v2, NO_OPTS, NO_ACT)                                          \
    /* remap.c descriptions: one kernel moving elements */                               \
    X(GATHER, 36, gather, OPTS(23, GatherOptions), NO_ACT)                                 \
    X(BATCH_TO_SPACE_ND, 37, batch_to_space_nd, NO_OPTS, NO_ACT)                           \
    X(SPACE_TO_BATCH_ND, 38, space_to_batch_nd, NO_OPTS, NO_ACT)                           \
    X(TRANSPOSE, 39, transpose, NO_OPTS, NO_ACT)                                           \
    X(SPLIT, 49, split, NO_OPTS, NO_ACT)                                                   \
    X(PADV2, 60, padv2, NO_OPTS, NO_ACT)                                                   \
    X(TILE, 69, tile, NO_OPTS, NO_ACT)                                                     \
    X(PACK, 83, pack, OPTS(59, PackOptions), NO_ACT)                                       \
    X(UNPACK, 88, unpack, OPTS(64, UnpackOptions), NO_ACT)                                 \
    X(MIRROR_PAD, 100, mirror_pad, OPTS(77, MirrorPadOptions), NO_ACT)                     \
    X(SPLIT_V, 102, split_v, NO_OPTS, NO_ACT)                                              \
    X(REVERSE_V2, 105, reverse_v2, NO_OPTS, NO_ACT)                                        \
    X(BROADCAST_TO, 130, broadcast_to, NO_OPTS, NO_ACT)                                    \
    /* reshape.c: views of the same elements */                                          \
    X(SQUEEZE, 43, squeeze, NO_OPTS, NO_ACT)                                               \
    X(EXPAND_DIMS, 70, expand_dims, NO_OPTS, NO_ACT)

#define VKI_CUSTOM_OP_LIST(X) \
    X(CONVOLUTION_2D_TRANSPOSE_BIAS, "Convolution2DTransposeBias", conv2d_transpose_bias)

#define VKI_CPU_OP_LIST(X)                                                                \
    X(TOPK_V2, 48, topk_v2, NO_OPTS)                                                      \
    X(ONE_HOT, 85, one_hot, OPTS(61, OneHotOptions))                                      \
    X(GATHER_ND, 107, gather_nd, NO_OPTS)                                                 \
    X(NON_MAX_SUPPRESSION_V4, 120, non_max_suppression_v4, NO_OPTS)                       \
    X(NON_MAX_SUPPRESSION_V5, 121, non_max_suppression_v5, NO_OPTS)                       \
    X(SCATTER_ND, 122, scatter_nd, NO_OPTS)                                               \
    /* control.c: subgraphs the partition runs */                                        \
    X(IF, 118, if_, OPTS(92, IfOptions))                                                  \
    X(WHILE, 119, while_, OPTS(93, WhileOptions))                                         \
    X(CALL_ONCE, 129, call_once, OPTS(103, CallOnceOptions))                              \
    /* variable.c: state the partition keeps across runs */                              \
    X(VAR_HANDLE, 142, var_handle, OPTS(111, VarHandleOptions))                           \
    X(READ_VARIABLE, 143, read_variable, NO_OPTS)                                         \
    X(ASSIGN_VARIABLE, 144, assign_variable, NO_OPTS)                                     \
    /* fft.c: an audio front end's spectrum (complex64 on the CPU only) */                \
    X(RFFT2D, 131, rfft2d, NO_OPTS)                                                       \
    X(IMAG, 133, imag, NO_OPTS)                                                           \
    X(REAL, 134, real, NO_OPTS)                                                           \
    X(COMPLEX_ABS, 135, complex_abs, NO_OPTS)                                               \
    /* conv3d.c: video and volume models */                                              \
    X(CONV_3D, 132, conv3d, OPTS(106, Conv3DOptions))                                     \
    X(CONV_3D_TRANSPOSE, 141, conv3d_transpose, OPTS(106, Conv3DOptions))                 \
    X(BUCKETIZE, 147, bucketize, OPTS(115, BucketizeOptions))                             \
    /* cpu_rnn_lstm.c, cpu_rnn.c: recurrent ops, their state in variable tensors */       \
    X(LSTM, 16, lstm, OPTS(14, LSTMOptions))                                              \
    X(UNIDIRECTIONAL_SEQUENCE_LSTM, 44, unidirectional_sequence_lstm,                     \
      OPTS(71, UnidirectionalSequenceLSTMOptions))                                        \
    X(BIDIRECTIONAL_SEQUENCE_LSTM, 52, bidirectional_sequence_lstm,                       \
      OPTS(69, BidirectionalSequenceLSTMOptions))                                         \
    X(SVDF, 27, svdf, OPTS(6, SVDFOptions))                                               \
    X(RNN, 24, rnn, OPTS(7, RNNOptions))                                                  \
    X(UNIDIRECTIONAL_SEQUENCE_RNN, 35, unidirectional_sequence_rnn,                       \
      OPTS(31, SequenceRNNOptions))                                                       \
    X(BIDIRECTIONAL_SEQUENCE_RNN, 46, bidirectional_sequence_rnn,                         \
      OPTS(70, BidirectionalSequenceRNNOptions))                                          \
    /* cpu_misc.c, cpu_index.c, cpu_reduce.c: small builtins on the CPU */                \
    X(EMBEDDING_LOOKUP, 7, embedding_lookup, NO_OPTS)                                     \
    X(L2_POOL_2D, 12, l2_pool2d, OPTS(5, Pool2DOptions))                                  \
    X(SPARSE_TO_DENSE, 68, sparse_to_dense, OPTS(50, SparseToDenseOptions))               \
    X(SHAPE, 77, shape, OPTS(55, ShapeOptions))                                           \
    X(FAKE_QUANT, 80, fake_quant, OPTS(58, FakeQuantOptions))                             \
    X(ZEROS_LIKE, 93, zeros_like, NO_OPTS)                                                \
    X(FILL, 94, fill, NO_OPTS)                                                            \
    X(RANGE, 96, range, NO_OPTS)                                                          \
    X(RANK, 110, rank, NO_OPTS)                                                           \
    X(REVERSE_SEQUENCE, 112, reverse_sequence, OPTS(87, ReverseSequenceOptions))          \
    X(MATRIX_DIAG, 113, matrix_diag, NO_OPTS)                                             \
    X(MATRIX_SET_DIAG, 115, matrix_set_diag, NO_OPTS)                                     \
    X(SEGMENT_SUM, 125, segment_sum, NO_OPTS)                                             \
    X(REDUCE_ALL, 140, reduce_all, OPTS(27, ReducerOptions))                              \
    X(BROADCAST_ARGS, 145, broadcast_args, NO_OPTS)                                       \
    X(DYNAMIC_UPDATE_SLICE, 151, dynamic_update_slice, NO_OPTS)                           \
    X(UNSORTED_SEGMENT_PROD, 153, unsorted_segment_prod, NO_OPTS)                         \
    X(UNSORTED_SEGMENT_MAX, 154, unsorted_segment_max, NO_OPTS)                           \
    X(UNSORTED_SEGMENT_SUM, 155, unsorted_segment_sum, NO_OPTS)                           \
    X(ATAN2, 156, atan2, NO_OPTS)                                                         \
    X(UNSORTED_SEGMENT_MIN, 157, unsorted_segment_min, NO_OPTS)

#define VKI_CPU_CUSTOM_OP_LIST(X)                                                          \
    X(DETECTION_POSTPROCESS, "TFLite_Detection_PostProcess", detection_postprocess)        \
    /* cpu_mediapipe.c: MediaPipe's custom ops (mediapipe/util/tflite/operations) */       \
    X(MAX_POOLING_WITH_ARGMAX_2D, "MaxPoolingWithArgmax2D", mp_max_pool_argmax)            \
    X(MAX_UNPOOLING_2D, "MaxUnpooling2D", mp_max_unpooling)                                \
    X(TRANSFORM_TENSOR_BILINEAR, "TransformTensorBilinear", mp_transform_tensor_bilinear)  \
    X(LANDMARKS_TO_TRANSFORM_MATRIX, "Landmarks2TransformMatrix", mp_landmarks_to_matrix)  \
    X(TRANSFORM_LANDMARKS, "TransformLandmarks", mp_transform_landmarks)

/* VKI_CPU_FALLBACK_LIST(X): ops of VKI_OP_LIST whose kernels have limits, with a CPU def
 * that takes the rest: X(NAME, DEF). vki_model_validate places an op on the CPU (vki_op.on_cpu)
 * where its kernel's validate refuses the shapes (VKI_ERROR_UNSUPPORTED_MODEL) and the CPU
 * def accepts them. */
#define VKI_CPU_FALLBACK_LIST(X)          \
    X(GATHER, gather_cpu)                 \
    /* batched.c: a batch of images */   \
    X(CONV_2D, batched)                   \
    X(DEPTHWISE_CONV_2D, batched)         \
    X(TRANSPOSE_CONV, batched)            \
    X(AVERAGE_POOL_2D, batched)           \
    X(MAX_POOL_2D, batched)               \
    X(RESIZE_BILINEAR, batched)           \
    X(RESIZE_NEAREST_NEIGHBOR, batched)   \
    X(SPACE_TO_DEPTH, batched)            \
    X(DEPTH_TO_SPACE, batched)

#define VKI_FOLDED_OP_LIST(X) \
    X(CUSTOM, 32)             \
    X(DENSIFY, 124)

#endif /* VKI_OP_LIST_H */
