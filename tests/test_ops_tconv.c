/* test_ops_tconv.c: TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias. Their
 * cases on the device are the tables of cases_tconv.c (OP_TABLES_TCONV); here, the
 * references against an independent scatter implementation, the selfie segmentation
 * model's op with its real weights, and validation errors. */
#include "loader.h"
#include "op_cases_tconv.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

#define CUSTOM_NAME TCONV_CUSTOM_NAME

OP_TABLES_TCONV(OP_TABLE_TEST)

/* ---- references against an independent scatter ---------------------------------------- */

/* TFLite's reference loop order: every input pixel adds its window into the output,
 * with the padding given in terms of the input (valid for consistent shapes). */
static void scatter(const tc_case *c, int oh, int ow, int pad_h, int pad_w, const float *in,
                    const float *w, const float *bias, double *acc) {
    for (int i = 0; i < oh * ow * c->co; i++) acc[i] = bias ? bias[i % c->co] : 0.0;
    for (int iy = 0; iy < c->h; iy++)
        for (int ix = 0; ix < c->w; ix++)
            for (int ky = 0; ky < c->kh; ky++)
                for (int kx = 0; kx < c->kw; kx++) {
                    int y = iy * c->sh + ky - pad_h, x = ix * c->sw + kx - pad_w;
                    if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
                    for (int o = 0; o < c->co; o++)
                        for (int i = 0; i < c->ci; i++)
                            acc[(y * ow + x) * c->co + o] +=
                                (double)in[(iy * c->w + ix) * c->ci + i] *
                                w[((o * c->kh + ky) * c->kw + kx) * c->ci + i];
                }
}

static void compare_reference(vki_model *m, const tc_case *c, int oh, int ow, int pad_h,
                              int pad_w, int w_slot, int b_slot) {
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    size_t n_in = (size_t)c->h * c->w * c->ci, n_out = (size_t)oh * ow * c->co;
    float *in = malloc(n_in * sizeof(float)), *out = malloc(n_out * sizeof(float));
    double *want = malloc(n_out * sizeof(double));
    cr_assert(in && out && want);
    harness_fill(in, n_in, tconv_case_seed(c), -1.0f, 1.0f);
    const vki_op *op = &m->ops[0];
    const float *w = m->tensors[op->inputs[w_slot]].data;
    const float *bias = b_slot >= 0 && op->n_inputs > b_slot && op->inputs[b_slot] >= 0
                            ? m->tensors[op->inputs[b_slot]].data : NULL;
    scatter(c, oh, ow, pad_h, pad_w, in, w, bias, want);
    const float *ins[1] = {in};
    float *outs[1] = {out};
    cr_assert_eq(vki_model_reference_run(m, ins, outs), VKI_OK, "%s", vki_last_error());
    for (size_t i = 0; i < n_out; i++) {
        float e = vki_apply_activation(c->act, (float)want[i]);
        cr_assert(fabsf(out[i] - e) <= 1e-6f * fmaxf(1.0f, fabsf(e)),
                  "element %zu: reference %g, scatter %g (h %d w %d k %dx%d s %dx%d pad %d)", i,
                  out[i], e, c->h, c->w, c->kh, c->kw, c->sh, c->sw, (int)c->pad);
    }
    free(in);
    free(out);
    free(want);
    vki_model_destroy(m);
}

/* The padding rule as usually stated: total = max(0, (in-1)*stride + K - out), half of
 * it before. TFLite's output-size-based rule agrees whenever the sizes are consistent. */
static int pad_from_input(int in, int k, int stride, int out) {
    int total = (in - 1) * stride + k - out;
    return total > 0 ? total / 2 : 0;
}

Test(tconv_reference, transpose_conv_matches_scatter) {
    static const int strides[] = {1, 2, 3}, kernels[] = {1, 2, 3, 4};
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU6,
                                          VKI_ACT_RELU_N1_TO_1, VKI_ACT_TANH};
    int n = 0;
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 4; ki++)
            for (int p = 0; p < 2; p++)
                for (int hw = 0; hw < 3; hw++, n++) {
                    static const int hs[] = {1, 5, 4}, ws[] = {1, 7, 6};
                    tc_case c = {.h = hs[hw], .w = ws[hw], .ci = channels[n % N_CHANNELS],
                                 .co = channels[(n / 2) % N_CHANNELS], .kh = kernels[ki],
                                 .kw = kernels[(ki + hw) % 4], .sh = strides[si],
                                 .sw = strides[(si + hw) % 3],
                                 .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME,
                                 .bias = n % 3 == 0 ? BIAS_NONE : BIAS_PRESENT,
                                 .act = acts[n % 5]};
                    int oh = tconv_usual_out(c.pad, c.h, c.kh, c.sh);
                    int ow = tconv_usual_out(c.pad, c.w, c.kw, c.sw);
                    vki_model *m = tconv_builtin_model(&c, tconv_case_seed(&c));
                    compare_reference(m, &c, oh, ow, pad_from_input(c.h, c.kh, c.sh, oh),
                                      pad_from_input(c.w, c.kw, c.sw, ow), 1, 3);
                }
}

Test(tconv_reference, conv2d_transpose_bias_matches_scatter) {
    static const int strides[] = {1, 2, 3}, kernels[] = {1, 2, 3, 4}, sizes[] = {1, 4, 5, 7};
    int n = 0;
    for (int si = 0; si < 3; si++)
        for (int ki = 0; ki < 4; ki++)
            for (int p = 0; p < 2; p++)
                for (int zi = 0; zi < 4; zi++, n++) {
                    tc_case c = {.h = sizes[zi], .w = sizes[(zi + 1) % 4],
                                 .ci = channels[n % N_CHANNELS],
                                 .co = channels[(n / 3) % N_CHANNELS], .kh = kernels[ki],
                                 .kw = kernels[(ki + zi) % 4], .sh = strides[si],
                                 .sw = strides[(si + zi) % 3],
                                 .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
                    /* MediaPipe's Eval: half the total padding before. */
                    int oh = tconv_mediapipe_out(c.pad, c.h, c.kh, c.sh);
                    int ow = tconv_mediapipe_out(c.pad, c.w, c.kw, c.sw);
                    vki_model *m = tconv_custom_model(&c, tconv_case_seed(&c));
                    compare_reference(m, &c, oh, ow, tconv_mediapipe_total(c.pad, c.h, c.kh, c.sh) / 2,
                                      tconv_mediapipe_total(c.pad, c.w, c.kw, c.sw) / 2, 1, 2);
                }
}

/* A hand-worked case: 2x2 input, 3x3 window of ones, stride 2, SAME to 4x4. Total
 * padding (2-1)*2 + 3 - 4 = 1, so none before: output row/column 2 gets both input
 * rows/columns (taps 2 and 0), row/column 3 only the second (tap 1). */
Test(tconv_reference, hand_worked) {
    vki_model *m = vki_model_new("hand");
    int in = harness_tensor(m, 2, 2, 1);
    float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int fshape[4] = {1, 3, 3, 1};
    int weights = vki_model_add_tensor(m, "w", VKI_DTYPE_FLOAT32, 4, fshape, ones, sizeof ones);
    int32_t shape[4] = {1, 4, 4, 1};
    int shape_t = harness_int_vector(m, "output_shape", 4, shape);
    int out = harness_tensor(m, 4, 4, 1);
    int ins[3] = {shape_t, weights, in};
    vki_op *op = vki_model_add_op(m, VKI_OP_TRANSPOSE_CONV, 3, ins, 1, &out);
    cr_assert(op);
    op->opt.transpose_conv.padding = VKI_PAD_SAME;
    op->opt.transpose_conv.stride_h = 2;
    op->opt.transpose_conv.stride_w = 2;
    op->opt.transpose_conv.activation = VKI_ACT_NONE;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    const float x[4] = {1, 10, 100, 1000};   /* a b / c d */
    float got[16];
    const float *ins_f[1] = {x};
    float *outs[1] = {got};
    cr_assert_eq(vki_model_reference_run(m, ins_f, outs), VKI_OK, "%s", vki_last_error());
    /* Rows: 0,1 <- a-row; 2 <- both; 3 <- c-row. Same for columns. */
    const float want[16] = {
        1, 1, 11, 10,
        1, 1, 11, 10,
        101, 101, 1111, 1010,
        100, 100, 1100, 1000,
    };
    for (int i = 0; i < 16; i++)
        cr_assert_eq(got[i], want[i], "element %d: %g, want %g", i, got[i], want[i]);
    harness_check(m, 3u, TOL);
}

/* ---- the selfie segmentation model's op ------------------------------------------------ */


static int copy_tensor(vki_model *dst, const vki_tensor *t) {
    int i = vki_model_add_tensor(dst, t->name, t->dtype, t->rank, t->shape, t->data,
                                 t->data_bytes);
    cr_assert(i >= 0);
    return i;
}

/* The file's op validates as loaded, then runs alone with its own weights. */
static void check_model_op(const char *file) {
    size_t size;
    uint8_t *bytes = harness_read_model(file, &size);
    if (!bytes) cr_skip_test("%s not found in $VKI_MODEL_DIR", file);
    vki_model *m = NULL;
    cr_assert_eq(vki_tflite_parse(bytes, size, file, &m), VKI_OK, "%s", vki_last_error());
    free(bytes);
    int found = 0;
    for (int o = 0; o < m->n_ops; o++) {
        const vki_op *op = &m->ops[o];
        if (op->code != VKI_OP_CUSTOM || strcmp(op->custom_name, CUSTOM_NAME)) continue;
        found++;
        const vki_op_def *def = vki_op_find(op);
        cr_assert(def);
        cr_assert_eq(def->validate(m, o), VKI_OK, "%s", vki_last_error());

        vki_model *one = vki_model_new(file);
        int ins[3];
        for (int i = 0; i < 3; i++) ins[i] = copy_tensor(one, &m->tensors[op->inputs[i]]);
        int out = copy_tensor(one, &m->tensors[op->outputs[0]]);
        vki_op *c = vki_model_add_op(one, VKI_OP_CUSTOM, 3, ins, 1, &out);
        cr_assert(c);
        strcpy(c->custom_name, op->custom_name);
        c->opt = op->opt;
        cr_assert(vki_model_set_io(one, 1, &ins[0], 1, &out));
        harness_check(one, 11u + (uint32_t)o, TOL);
    }
    vki_model_destroy(m);
    cr_assert(found, "%s has no %s op", file, CUSTOM_NAME);
}

Test(conv2d_transpose_bias, selfie_segmentation) { check_model_op("selfie_segmentation.tflite"); }
Test(conv2d_transpose_bias, selfie_segmentation_landscape) {
    check_model_op("selfie_segmentation_landscape.tflite");
}

/* ---- validation ------------------------------------------------------------------------ */

/* 5x7x5 -> 10x14x3, 3x3 stride 2 SAME. Builtin tensors: 0 input, 1 weights, 2 bias,
 * 3 output_shape, 4 output; custom: 0 input, 1 weights, 2 bias, 3 output. */
static const tc_case valid_case = {.h = 5, .w = 7, .ci = 5, .co = 3, .kh = 3, .kw = 3,
                                   .sh = 2, .sw = 2, .pad = VKI_PAD_SAME,
                                   .bias = BIAS_PRESENT};

static vki_model *valid_builtin(void) { return tconv_builtin_model(&valid_case, 1u); }
static vki_model *valid_custom(void) { return tconv_custom_model(&valid_case, 1u); }

Test(tconv_validation, ok_models_pass) {
    vki_model *m = valid_builtin();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
    m = valid_custom();
    cr_assert_eq(vki_model_validate(m), VKI_OK, "%s", vki_last_error());
    vki_model_destroy(m);
}

Test(tconv_validation, output_shape_mismatch) {
    vki_model *m = valid_builtin();
    ((int32_t *)m->tensors[3].data)[2] = 15;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "TRANSPOSE_CONV",
                           "output_shape tensor 3 is [1,10,15,3]", "[1,10,14,3]");
    /* Both agree but disagree with the weights' output channels. */
    m = valid_builtin();
    ((int32_t *)m->tensors[3].data)[3] = 4;
    m->tensors[4].shape[3] = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "4 channels", "3 output");
}

Test(tconv_validation, output_shape_tensor) {
    vki_model *m = valid_builtin();
    m->tensors[3].dtype = VKI_DTYPE_INT64;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "output_shape", "int32");
    m = valid_builtin();
    free(m->tensors[3].data);
    m->tensors[3].data = NULL;
    m->tensors[3].data_bytes = 0;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "output_shape", "must be a constant");
    m = valid_builtin();
    m->tensors[3].shape[0] = 3;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "output_shape", "[4]");
    m = valid_builtin();
    m->tensors[3].data_bytes = 8;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "output_shape", "8 bytes");
    m = valid_builtin();
    m->ops[0].inputs[0] = 99;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "index 99");
}

Test(tconv_validation, stride_zero) {
    for (int custom = 0; custom < 2; custom++) {
        for (int axis = 0; axis < 2; axis++) {
            vki_model *m = custom ? valid_custom() : valid_builtin();
            if (axis) m->ops[0].opt.transpose_conv.stride_w = 0;
            else m->ops[0].opt.transpose_conv.stride_h = 0;
            harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, axis ? "stride 2x0" : "stride 0x2");
        }
        vki_model *m = custom ? valid_custom() : valid_builtin();
        m->ops[0].opt.transpose_conv.stride_h = -3;
        harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "stride -3x2");
        m = custom ? valid_custom() : valid_builtin();
        m->ops[0].opt.transpose_conv.stride_w = 1 << 30;
        harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "exceeds");
    }
}

Test(tconv_validation, non_constant_weights) {
    for (int custom = 0; custom < 2; custom++) {
        vki_model *m = custom ? valid_custom() : valid_builtin();
        free(m->tensors[1].data);
        m->tensors[1].data = NULL;
        m->tensors[1].data_bytes = 0;
        harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "weights tensor 1", "must be a constant");
    }
}

Test(tconv_validation, operands) {
    /* Weights' input channels differ from the input's. */
    vki_model *m = valid_builtin();
    m->tensors[1].shape[3] = 4;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "4 input channels", "has 5");
    /* Weights data shorter than the shape. */
    m = valid_builtin();
    m->tensors[1].data_bytes = 12;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "weights tensor 1", "12 bytes");
    /* Bias of the wrong size, and a non-constant bias. */
    m = valid_builtin();
    m->tensors[2].shape[0] = 2;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "bias tensor 2", "2 elements");
    m = valid_custom();
    free(m->tensors[2].data);
    m->tensors[2].data = NULL;
    m->tensors[2].data_bytes = 0;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "bias tensor 2", "constant");
    /* A constant input activation (another tensor stands in as the graph input). */
    m = valid_builtin();
    float v[5 * 7 * 5] = {0};
    m->tensors[0].data = malloc(sizeof v);
    cr_assert(m->tensors[0].data);
    memcpy(m->tensors[0].data, v, sizeof v);
    m->tensors[0].data_bytes = sizeof v;
    m->inputs[0] = harness_tensor(m, 1, 1, 1);
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "input 2", "is a constant");
    /* An input of rank 3. */
    m = valid_builtin();
    m->tensors[0].rank = 3;   /* [1,7,5]: the graph accepts it as NWC */
    m->tensors[0].shape[0] = 1;
    m->tensors[0].shape[1] = 7;
    m->tensors[0].shape[2] = 5;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input 2", "3 dims");
}

Test(tconv_validation, arity_and_options) {
    vki_model *m = valid_builtin();
    m->ops[0].n_inputs = 2;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "2 inputs", "3 or 4");
    m = valid_custom();
    m->ops[0].n_inputs = 2;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, CUSTOM_NAME, "2 inputs", "need 3");
    m = valid_custom();
    m->ops[0].inputs[2] = -1;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "input 2", "-1");
    m = valid_builtin();
    m->ops[0].opt.transpose_conv.padding = (vki_padding)5;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, "unknown padding 5");
    m = valid_builtin();
    m->ops[0].opt.transpose_conv.activation = (vki_activation)9;
    harness_expect_invalid(m, VKI_ERROR_UNSUPPORTED_MODEL, "fused activation 9");
}

/* MediaPipe resizes the output itself; a file declaring another size would disagree
 * with it, so the op refuses it. */
Test(tconv_validation, custom_output_size) {
    vki_model *m = valid_custom();   /* MediaPipe: 5x7 SAME 3x3 s2 -> 9x13 */
    cr_assert_eq(m->tensors[3].shape[1], 9);
    cr_assert_eq(m->tensors[3].shape[2], 13);
    m->tensors[3].shape[1] = 10;
    m->tensors[3].shape[2] = 14;
    harness_expect_invalid(m, VKI_ERROR_MODEL_FORMAT, CUSTOM_NAME, "[10,14,3]", "expected [9,13,3]");
}
