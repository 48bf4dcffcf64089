/* op_cases.h: the op test cases as tables.
 *
 * A case is one small model built by hand and checked on the device against the ops' C
 * references (vki_model_reference_run) in fp32, fp16 and fp16 storage: the op it tests
 * (and its custom_code for custom ops), a printed label, a builder and its parameters,
 * the input seed and the tolerances. Cases come in tables, one per test: a generator
 * appends a table's cases to a list, usually by looping over shapes, channel counts and
 * options.
 *
 * The tables of an op family are listed once below, X(SUITE, NAME): cases_<family>.c
 * defines each generator op_cases_SUITE__NAME, test_ops_<family>.c turns every entry into
 * the Criterion test SUITE::NAME that runs the table, and op_cases.c collects all of them
 * so that test_ops_coverage can check that every op of engine/ops/op_list.h has cases.
 *
 * Environment: VKI_OP_CASES=TEXT runs only the cases whose label contains TEXT;
 * VKI_OP_CASES_EVERY=N only cases 0, N, 2N, ... of each table, and N:K cases K, K+N, ...
 * (tables cycle through channel counts 1, 3, 4, 5, 17, so an N prime to 5 keeps all of
 * them);
 * VKI_TEST_PRECISIONS=fp32 (a comma-separated list) only those precisions (harness.h); with
 * --verbose every case logs its label and errors. test_ops_coverage --list-cases prints
 * every table and label without running anything. Unless VKI_CACHE_DIR is set, a run's
 * test processes share a kernel cache in a temporary directory (op_cases.c).
 */
#ifndef VKI_TEST_OP_CASES_H
#define VKI_TEST_OP_CASES_H

#include "harness.h"

#include <stddef.h>

#define OP_TABLES_ELTWISE(X)                                                            \
    X(relu, odd_shapes)                                                                 \
    X(relu6, odd_shapes_across_both_clips)                                              \
    X(logistic, odd_shapes)                                                             \
    X(logistic, saturates_where_exp_overflows)                                          \
    X(tanh, odd_shapes)                                                                 \
    X(tanh, saturates_for_large_inputs)                                                 \
    X(hard_swish, odd_shapes)                                                           \
    X(relu_n1_to_1, odd_shapes_across_both_clips)                                       \
    X(leaky_relu, odd_shapes_and_alphas)                                                \
    X(unary, lower_ranks)                                                               \
    X(binary, same_shape_odd_channels)                                                  \
    X(binary, broadcast_forms_both_sides)                                               \
    X(binary, broadcast_odd_channels)                                                   \
    X(binary, both_operands_broadcast)                                                  \
    X(binary, fused_activations)                                                        \
    X(div, negative_and_mixed_sign_denominators)                                        \
    X(binary, same_tensor_twice)                                                        \
    X(binary, lower_ranks)                                                              \
    X(prelu, alpha_shapes)

#define OP_TABLES_CONV(X)                                                               \
    X(conv2d, pointwise_channel_cross)                                                  \
    X(conv2d, k3x3_channel_cross)                                                       \
    X(conv2d, k3x3_valid)                                                               \
    X(conv2d, tiny_and_odd_spatial)                                                     \
    X(conv2d, kernel_sizes)                                                             \
    X(conv2d, strides)                                                                  \
    X(conv2d, dilation)                                                                 \
    X(conv2d, without_bias)                                                             \
    X(conv2d, fused_activations)                                                        \
    X(conv2d, heuristic_tiles_on_larger_shapes)                                         \
    X(depthwise, multiplier_1_channels)                                                 \
    X(depthwise, multiplier_2_and_more)                                                 \
    X(depthwise, kernels_strides_dilations)                                             \
    X(depthwise, bias_and_activations)                                                  \
    X(conv_chain, conv_depthwise_pointwise)

#define OP_TABLES_LAYOUT(X)                                                             \
    X(max_pool, windows_on_odd_inputs)                                                  \
    X(max_pool, fused_activations_and_even_input)                                       \
    X(average_pool, windows_on_odd_inputs)                                              \
    X(average_pool, global)                                                             \
    X(max_pool, global)                                                                 \
    X(pool, global_window_not_the_input)                                                \
    X(pad, spatial_asymmetric)                                                          \
    X(pad, channels)                                                                    \
    X(pad, spatial_and_channel_together_and_lower_ranks)                                \
    X(reshape, face_detector_head)                                                      \
    X(reshape, chain_through_ranks)                                                     \
    X(reshape, same_channels_alias)                                                     \
    X(reshape, channel_changes)                                                         \
    X(reshape, shape_input_and_constant_input)                                          \
    X(concatenation, channels_not_multiple_of_4)                                        \
    X(concatenation, rank3_axis1_anchors)                                               \
    X(concatenation, height_and_width)                                                  \
    X(concatenation, constant_inputs_and_many_inputs)

#define OP_TABLES_SPATIAL(X)                                                            \
    X(mean, spatial_keep_dims_both)                                                     \
    X(mean, axis_spellings_and_large_window)                                            \
    X(mean, reduction_edges)                                                            \
    X(fully_connected, k_by_n_rank2)                                                    \
    X(fully_connected, rank4_single_pixel_keep_both)                                    \
    X(fully_connected, flatten_nhwc_order)                                              \
    X(fully_connected, per_pixel_keep_num_dims)                                         \
    X(fully_connected, activations_and_large)                                           \
    X(fully_connected, split_lanes)                                                     \
    X(softmax, ranks_and_channels)                                                      \
    X(softmax, large_beta_is_stable)                                                    \
    X(resize_bilinear, sizes_flags_channels)                                            \
    X(resize_nearest, sizes_flags_channels)                                             \
    X(depth_to_space, blocks_and_channels)                                              \
    X(space_to_depth, blocks_and_channels)                                              \
    X(strided_slice, cases_on_odd_input)                                                \
    X(strided_slice, channel_slicing)                                                   \
    X(strided_slice, lower_ranks)                                                       \
    X(strided_slice, whole_input_aliases)                                               \
    X(slice, sizes_and_to_the_end)                                                      \
    X(spatial_chain, classifier_head)                                                   \
    X(spatial_chain, resample_path)

#define OP_TABLES_TCONV(X)                                                              \
    X(transpose_conv, strides_kernels_paddings)                                         \
    X(transpose_conv, channel_counts)                                                   \
    X(transpose_conv, odd_and_tiny_shapes)                                              \
    X(transpose_conv, bias_present_absent_omitted)                                      \
    X(transpose_conv, fused_activations)                                                \
    X(transpose_conv, other_output_sizes)                                               \
    X(conv2d_transpose_bias, mediapipe_shapes)

#define OP_TABLES_GENERAL(X)                                                            \
    X(general_unary, math_functions)                                                    \
    X(general_unary, cast_and_logical)                                                  \
    X(general_binary, broadcast_over_five_dims)                                         \
    X(general_binary, new_ops)                                                          \
    X(general_binary, add_n)                                                            \
    X(general_binary, comparisons_and_select)                                           \
    X(general_reduce, axes)                                                             \
    X(general_reduce, arg_max_min_with_ties)                                            \
    X(general_reduce, cumsum)                                                           \
    X(general_norm, last_axis_any_rank)                                                 \
    X(general_layout, transpose_and_reverse)                                            \
    X(general_layout, tile_and_broadcast_to)                                            \
    X(general_layout, mirror_pad_and_padv2)                                             \
    X(general_layout, split_unpack_pack)                                                \
    X(general_layout, gather)                                                           \
    X(general_layout, space_batch)                                                      \
    X(general_layout, concat_and_pad_general)                                           \
    X(general_layout, slices_any_axis)                                                  \
    X(general_layout, reshape_across_ranks)                                             \
    X(general_matmul, batch_matmul)                                                     \
    X(general_matmul, fully_connected_rows)                                             \
    X(general_quant, int8_grid)

/* Every family: X(family, TABLES). */
#define OP_CASE_FAMILIES(X)                                                             \
    X(eltwise, OP_TABLES_ELTWISE)                                                       \
    X(conv, OP_TABLES_CONV)                                                             \
    X(layout, OP_TABLES_LAYOUT)                                                         \
    X(spatial, OP_TABLES_SPATIAL)                                                       \
    X(tconv, OP_TABLES_TCONV)                                                           \
    X(general, OP_TABLES_GENERAL)

/* The channel counts every family sweeps: 1, 3 and 5 leave a vec4 slice partly padded, 4
 * fills one, 17 spans five. */
#define OP_CASE_CHANNELS {1, 3, 4, 5, 17}

/* ---- a case --------------------------------------------------------------------------- */

typedef struct op_case op_case;
typedef vki_model *(*op_case_builder)(const op_case *c);

/* Room for any family's builder parameters (cases_<family>.c casts with OP_CASE_PARAMS). */
#define OP_CASE_PARAM_BYTES 640

struct op_case {
    vki_op_code op;             /* the op under test */
    const char *custom;         /* its custom_code when op is VKI_OP_CUSTOM, else NULL */
    char label[128];            /* "CONV_2D k5 s2 SAME C=3->17 13x11" */
    op_case_builder build;      /* builds the model from params */
    uint32_t seed;              /* graph inputs from seed + 77 * i; builders seed constants */
    double tol;                 /* fp32 bound on the conformance metric */
    double fp16_tol;            /* fp16 and fp16-storage bound */
    int dispatches;             /* > 0: the default graph (fp32) must have this many */
    const char *env_name;       /* set to env_value (NULL: unset) while the graphs build */
    const char *env_value;
    float fp16_step;            /* harness_spec.fp16_step: > 0 puts the fp16 inputs on a grid */
    union {
        max_align_t align;
        unsigned char bytes[OP_CASE_PARAM_BYTES];
    } params;
};

#define OP_CASE_PARAMS(c, type) ((type *)(c)->params.bytes)
#define OP_CASE_SET_PARAMS(c, type, value)                                      \
    do {                                                                        \
        _Static_assert(sizeof(type) <= OP_CASE_PARAM_BYTES, #type " too large"); \
        *OP_CASE_PARAMS(c, type) = (value);                                     \
    } while (0)

typedef struct op_case_list {
    op_case *cases;
    int n, cap;
} op_case_list;

/* Appends a zeroed case with fp16_tol = harness_fp16_tolerance(tol); the caller fills in
 * the params and the label. */
op_case *op_case_add(op_case_list *l, vki_op_code op, op_case_builder build, uint32_t seed,
                     double tol);
/* printf into c->label. */
void op_case_label(op_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void op_case_list_free(op_case_list *l);

/* Appends "[1,7,5,17]" (a rank-0 shape is "[]") to buf at *len. */
void op_case_shape(char *buf, size_t size, size_t *len, int rank, const int *dims);
/* " k3" for prefix " k" and 3, 3; " k4x2" for 4, 2. */
const char *op_case_pair(char *buf, size_t size, const char *prefix, int y, int x);
/* "relu", "relu6", "relu_n1_to_1", "tanh"; "" for none. */
const char *op_case_activation(vki_activation act);

/* ---- the tables ----------------------------------------------------------------------- */

typedef void (*op_table_generator)(op_case_list *out);

typedef struct op_table {
    const char *family;         /* "conv" */
    const char *suite, *name;   /* the Criterion test that runs it */
    op_table_generator generate;
} op_table;

#define OP_TABLE_DECLARE_(suite, name) void op_cases_##suite##__##name(op_case_list *out);
#define OP_FAMILY_DECLARE_(family, tables) tables(OP_TABLE_DECLARE_)
OP_CASE_FAMILIES(OP_FAMILY_DECLARE_)
#undef OP_FAMILY_DECLARE_

/* Every table of every family, and their number. */
extern const op_table op_tables[];
extern const int op_table_count;

/* Runs every case of a table (those VKI_OP_CASES selects) in every precision, logging
 * each failing case's label and error; asserts that none failed, that the table has cases
 * and, without VKI_OP_CASES, that every case of the VKI_OP_CASES_EVERY split ran. A table
 * that runs none (a filter or split that selects none of it) is reported as skipped. */
void op_table_run(op_table_generator generate, const char *suite, const char *name);

/* In test_ops_<family>.c: OP_TABLES_<FAMILY>(OP_TABLE_TEST) defines one test per table. */
#define OP_TABLE_TEST(suite, name) \
    Test(suite, name) { op_table_run(op_cases_##suite##__##name, #suite, #name); }

#endif
