/* cases_conv.c: CONV_2D and DEPTHWISE_CONV_2D on odd shapes and channel counts (padded
 * slices), every kernel size, stride, dilation, padding and fused activation, every conv
 * kernel and tile variant (VKI_CONV_TILE, VKI_CONV_KERNEL: direct, 1x1, tiled, split-K)
 * and depthwise column tile (VKI_DW_KERNEL), and a chain of them. */
#include "op_cases_conv.h"

#include <criterion/criterion.h>
#include <stdio.h>

static const int channels[] = OP_CASE_CHANNELS;
#define N_CHANNELS (int)(sizeof channels / sizeof channels[0])

/* fp32 sums in another order than the double reference. */
#define TOL 1e-5

static int or1(int v) { return v ? v : 1; }

vki_model *conv_model(vki_op_code code, const conv_case *c, uint32_t seed) {
    int depthwise = code == VKI_OP_DEPTHWISE_CONV_2D;
    vki_model *m = vki_model_new(depthwise ? "depthwise" : "conv");
    cr_assert(m);
    int sh = or1(c->sh), sw = or1(c->sw), dh = or1(c->dh), dw = or1(c->dw);
    int oc = depthwise ? c->ci * c->co : c->co;
    int oh = vki_conv_out_size(c->pad, c->h, c->kh, sh, dh);
    int ow = vki_conv_out_size(c->pad, c->w, c->kw, sw, dw);
    cr_assert(oh > 0 && ow > 0);
    int in = harness_tensor(m, c->h, c->w, c->ci);
    int fshape[4] = {depthwise ? 1 : oc, c->kh, c->kw, depthwise ? oc : c->ci};
    int filter = harness_const(m, 4, fshape, seed * 3u + 1u, -1.0f, 1.0f);
    int bias = -1;
    if (!c->no_bias) bias = harness_const(m, 1, &oc, seed * 5u + 2u, -2.0f, 2.0f);
    int out = harness_tensor(m, oh, ow, oc);
    int ins[3] = {in, filter, bias};
    vki_op *op = harness_op(m, code, 3, ins, out);
    op->opt.conv.padding = c->pad;
    op->opt.conv.stride_h = sh;
    op->opt.conv.stride_w = sw;
    op->opt.conv.dilation_h = c->dh;
    op->opt.conv.dilation_w = c->dw;
    op->opt.conv.activation = c->act;
    op->opt.conv.depth_multiplier = c->dm_option;
    cr_assert(vki_model_set_io(m, 1, &in, 1, &out));
    return m;
}

static vki_model *build_conv(const op_case *oc) {
    return conv_model(oc->op, OP_CASE_PARAMS(oc, const conv_case), oc->seed);
}

static uint32_t case_seed(const conv_case *c) {
    return (uint32_t)(c->h * 131 + c->w * 71 + c->ci * 37 + c->co * 17 + c->kh * 7 + c->kw * 3 +
                      (int)c->act * 1009 + c->sh * 11 + c->dh * 13);
}

/* "CONV_2D k5 s2 SAME C=3->17 9x7 relu6 no-bias tile 4,2"; depthwise "C=5 x2" (the
 * multiplier). variant: the forced kernel or tile, " tile 4,2", " kernel 1x1:3,5" or
 * " dw cols:3" (NULL: none, or " tile auto" for CONV_2D). */
static void label(op_case *oc, const conv_case *c, const char *variant) {
    char k[16], s[16] = "", d[16] = "", mult[48], act[24] = "", t[24] = "";
    op_case_pair(k, sizeof k, " k", c->kh, c->kw);
    if (or1(c->sh) != 1 || or1(c->sw) != 1) op_case_pair(s, sizeof s, " s", or1(c->sh), or1(c->sw));
    if (or1(c->dh) != 1 || or1(c->dw) != 1) op_case_pair(d, sizeof d, " d", or1(c->dh), or1(c->dw));
    if (oc->op == VKI_OP_DEPTHWISE_CONV_2D)
        snprintf(mult, sizeof mult, "C=%d x%d%s", c->ci, c->co,
                 c->co > 1 && !c->dm_option ? " (option 0)" : "");
    else
        snprintf(mult, sizeof mult, "C=%d->%d", c->ci, c->co);
    if (c->act) snprintf(act, sizeof act, " %s", op_case_activation(c->act));
    if (variant) snprintf(t, sizeof t, "%s", variant);
    else if (oc->op == VKI_OP_CONV_2D) snprintf(t, sizeof t, " tile auto");
    op_case_label(oc, "%s%s%s%s %s %s %dx%d%s%s%s", vki_op_name((int)oc->op), k, s, d,
                  c->pad == VKI_PAD_SAME ? "SAME" : "VALID", mult, c->h, c->w, act,
                  c->no_bias ? " no-bias" : "", t);
}

/* tile: a VKI_CONV_TILE value ("S,X") or NULL for the heuristic's choice. */
static void conv(op_case_list *l, conv_case c, const char *tile) {
    op_case *oc = op_case_add(l, VKI_OP_CONV_2D, build_conv, case_seed(&c), TOL);
    OP_CASE_SET_PARAMS(oc, conv_case, c);
    oc->env_name = "VKI_CONV_TILE";
    oc->env_value = tile;
    char what[32];
    snprintf(what, sizeof what, " tile %s", tile ? tile : "auto");
    label(oc, &c, what);
}

/* kernel: a VKI_CONV_KERNEL value ("1x1", "tiled:3,5"). */
static void conv_kernel(op_case_list *l, conv_case c, const char *kernel) {
    op_case *oc = op_case_add(l, VKI_OP_CONV_2D, build_conv, case_seed(&c), TOL);
    OP_CASE_SET_PARAMS(oc, conv_case, c);
    oc->env_name = "VKI_CONV_KERNEL";
    oc->env_value = kernel;
    char what[40];
    snprintf(what, sizeof what, " kernel %s", kernel);
    label(oc, &c, what);
}

/* The pointwise kernels (1x1 windows, stride 1, no padding), default and forced tiles:
 * one slice and pixel a thread, ragged 3x5 tiles, and the largest; the tiled kernel's sum
 * unsplit, split 2 ways a slice at a time over ragged tiles, 4 ways (the GPU's) and 16 ways
 * (parts with no slices on short sums). */
static const char *const pointwise_kernels[] = {
    "1x1",       "1x1:1,1",       "1x1:3,5",     "1x1:8,16",    "tiled",
    "tiled:1,1", "tiled:3,5,2,1", "tiled:2,4,1", "tiled:1,4,4", "tiled:2,4,16,1"};
#define N_POINTWISE (int)(sizeof pointwise_kernels / sizeof pointwise_kernels[0])

static int is_pointwise(const conv_case *c) {
    return c->kh == 1 && c->kw == 1 && or1(c->sh) == 1 && or1(c->sw) == 1;
}

/* Every tile shape the kernel has: plain, slices only, columns only, both, and odd ones
 * that leave ragged groups. */
static const char *const all_tiles[] = {NULL, "1,1", "2,1", "4,1", "1,2", "4,2", "2,4", "3,3"};
#define N_TILES (int)(sizeof all_tiles / sizeof all_tiles[0])

/* The split-K kernel (any window): its default split and the smallest and largest, past
 * the sum's length on short sums (threads with no step) and ragged on long ones. */
static const char *const splitk_kernels[] = {"splitk", "splitk:1,4", "splitk:1,32"};
#define N_SPLITK (int)(sizeof splitk_kernels / sizeof splitk_kernels[0])

/* Every tile of the direct kernel, every split of the split-K kernel, and on pointwise
 * windows every pointwise kernel. */
static void conv_all_tiles(op_case_list *l, conv_case c) {
    for (int t = 0; t < N_TILES; t++) conv(l, c, all_tiles[t]);
    for (int k = 0; k < N_SPLITK; k++) conv_kernel(l, c, splitk_kernels[k]);
    if (is_pointwise(&c))
        for (int k = 0; k < N_POINTWISE; k++) conv_kernel(l, c, pointwise_kernels[k]);
}

/* The direct kernel's tiles and the pointwise kernels' ragged tiles, for tables that
 * cross many shapes (the suite has a time limit). */
static void conv_cross_tiles(op_case_list *l, conv_case c) {
    for (int t = 0; t < N_TILES; t++) conv(l, c, all_tiles[t]);
    conv_kernel(l, c, "1x1:3,5");
    conv_kernel(l, c, "tiled:3,5,4,1");
    conv_kernel(l, c, "splitk:1,4");
}

/* The device's choice (4 columns on CPUs), then with a multiplier of 1 the column tiles:
 * one column (the direct form), 2, a ragged 3, 4 and 8. Tables that cross many shapes take
 * the first `forms` of them (the suite has a time limit). */
static const char *const dw_kernels[] = {NULL, "direct", "cols:3", "cols:8", "cols:2", "cols:4"};
#define N_DW (int)(sizeof dw_kernels / sizeof dw_kernels[0])

static void depthwise_forms(op_case_list *l, conv_case c, int forms) {
    /* A multiplier other than 1 has one form. */
    int n = c.co == 1 ? forms : 1;
    for (int k = 0; k < n; k++) {
        op_case *oc = op_case_add(l, VKI_OP_DEPTHWISE_CONV_2D, build_conv, case_seed(&c), TOL);
        OP_CASE_SET_PARAMS(oc, conv_case, c);
        oc->env_name = "VKI_DW_KERNEL";
        oc->env_value = dw_kernels[k];
        char what[32];
        snprintf(what, sizeof what, " dw %s", dw_kernels[k] ? dw_kernels[k] : "auto");
        label(oc, &c, what);
    }
}

static void depthwise(op_case_list *l, conv_case c) { depthwise_forms(l, c, 4); }

/* ---- CONV_2D -------------------------------------------------------------------------- */

void op_cases_conv2d__pointwise_channel_cross(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++)
            conv_cross_tiles(l, (conv_case){.h = 7, .w = 9, .ci = channels[i],
                                            .co = channels[o], .kh = 1, .kw = 1,
                                            .pad = VKI_PAD_SAME});
}

void op_cases_conv2d__k3x3_channel_cross(op_case_list *l) {
    static const char *const tiles[] = {NULL, "1,1", "4,2", "2,3"};
    for (int i = 0; i < N_CHANNELS; i++)
        for (int o = 0; o < N_CHANNELS; o++) {
            conv_case c = {.h = 7, .w = 9, .ci = channels[i], .co = channels[o], .kh = 3,
                           .kw = 3, .pad = VKI_PAD_SAME};
            for (int t = 0; t < 4; t++) conv(l, c, tiles[t]);
            conv_kernel(l, c, "splitk:1,16");
        }
}

void op_cases_conv2d__k3x3_valid(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++)
        conv_all_tiles(l, (conv_case){.h = 7, .w = 9, .ci = channels[i],
                                      .co = channels[N_CHANNELS - 1 - i], .kh = 3, .kw = 3,
                                      .pad = VKI_PAD_VALID});
}

void op_cases_conv2d__tiny_and_odd_spatial(op_case_list *l) {
    /* 1x1 input under a 3x3 SAME window: only the centre tap lands. */
    conv_all_tiles(l, (conv_case){.h = 1, .w = 1, .ci = 5, .co = 3, .kh = 3, .kw = 3,
                                  .pad = VKI_PAD_SAME});
    conv_all_tiles(l, (conv_case){.h = 1, .w = 1, .ci = 17, .co = 17, .kh = 1, .kw = 1,
                                  .pad = VKI_PAD_VALID});
    conv_all_tiles(l, (conv_case){.h = 5, .w = 3, .ci = 4, .co = 5, .kh = 3, .kw = 3,
                                  .pad = VKI_PAD_SAME});
    /* The window covers the whole input: a 1x1 output. */
    conv_all_tiles(l, (conv_case){.h = 5, .w = 3, .ci = 3, .co = 17, .kh = 5, .kw = 3,
                                  .pad = VKI_PAD_VALID});
}

void op_cases_conv2d__kernel_sizes(op_case_list *l) {
    static const int k[][2] = {{5, 5}, {2, 2}, {1, 3}, {3, 1}, {4, 2}, {7, 7}};
    for (int i = 0; i < 6; i++)
        for (int p = 0; p < 2; p++)
            conv_all_tiles(l, (conv_case){.h = 9, .w = 7, .ci = 5, .co = 6, .kh = k[i][0],
                                          .kw = k[i][1], .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME});
}

void op_cases_conv2d__strides(op_case_list *l) {
    static const int k[] = {1, 2, 3, 5};
    for (int i = 0; i < 4; i++)
        for (int p = 0; p < 2; p++) {
            conv_case c = {.h = 9, .w = 7, .ci = 3, .co = 17, .kh = k[i], .kw = k[i], .sh = 2,
                           .sw = 2, .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
            conv_all_tiles(l, c);
            c.sh = 1;           /* different strides per axis */
            c.sw = 3;
            conv_all_tiles(l, c);
        }
}

void op_cases_conv2d__dilation(op_case_list *l) {
    for (int p = 0; p < 2; p++) {
        conv_case c = {.h = 9, .w = 7, .ci = 4, .co = 5, .kh = 3, .kw = 3, .dh = 2, .dw = 2,
                       .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME};
        conv_all_tiles(l, c);
        c.dh = 3;
        c.dw = 1;
        conv_all_tiles(l, c);
        c.sh = c.sw = 2;    /* dilation with stride */
        c.dh = c.dw = 2;
        conv_all_tiles(l, c);
    }
}

void op_cases_conv2d__without_bias(op_case_list *l) {
    conv_all_tiles(l, (conv_case){.h = 7, .w = 9, .ci = 5, .co = 17, .kh = 3, .kw = 3,
                                  .pad = VKI_PAD_SAME, .no_bias = 1});
    conv_all_tiles(l, (conv_case){.h = 7, .w = 9, .ci = 17, .co = 3, .kh = 1, .kw = 1,
                                  .pad = VKI_PAD_VALID, .no_bias = 1});
}

void op_cases_conv2d__fused_activations(op_case_list *l) {
    /* 17 channels x 9 taps gives sums well past 1 and 6, so every clamp is exercised. */
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_RELU6, VKI_ACT_TANH};
    for (int a = 0; a < 5; a++) {
        conv_all_tiles(l, (conv_case){.h = 7, .w = 9, .ci = 17, .co = 5, .kh = 3, .kw = 3,
                                      .pad = VKI_PAD_SAME, .act = acts[a]});
        conv_all_tiles(l, (conv_case){.h = 5, .w = 3, .ci = 17, .co = 17, .kh = 1, .kw = 1,
                                      .pad = VKI_PAD_SAME, .act = acts[a]});
    }
}

/* Shapes large enough that the heuristic picks wide tiles on its own (it widens while
 * 64k threads remain): 1x2, 2x2 and a ragged 4x2 (slices x columns), and a small 1x1;
 * then the pointwise kernels over many work groups, with a plane (33x31) and channels
 * (24->42) that no tile divides. */
void op_cases_conv2d__heuristic_tiles_on_larger_shapes(op_case_list *l) {
    static const char *const kernels[] = {"1x1",       "1x1:3,5",     "tiled",
                                          "tiled:3,5", "tiled:4,8,2", "tiled:2,4,8"};
    for (int k = 0; k < 6; k++)
        conv_kernel(l, (conv_case){.h = 33, .w = 31, .ci = 24, .co = 42, .kh = 1, .kw = 1,
                                   .pad = VKI_PAD_VALID, .act = VKI_ACT_RELU6}, kernels[k]);
    conv(l, (conv_case){.h = 128, .w = 128, .ci = 8, .co = 32, .kh = 1, .kw = 1,
                        .pad = VKI_PAD_SAME, .act = VKI_ACT_RELU6}, NULL);
    conv(l, (conv_case){.h = 256, .w = 256, .ci = 3, .co = 16, .kh = 3, .kw = 3,
                        .pad = VKI_PAD_SAME}, NULL);
    conv(l, (conv_case){.h = 260, .w = 257, .ci = 5, .co = 17, .kh = 1, .kw = 1,
                        .pad = VKI_PAD_VALID}, NULL);
    conv(l, (conv_case){.h = 33, .w = 31, .ci = 24, .co = 40, .kh = 3, .kw = 3, .sh = 2,
                        .sw = 2, .pad = VKI_PAD_SAME}, NULL);
    /* A long pointwise sum (81 input slices) over a small plane, the tiled kernel's sum
     * split 2 ways, as tiled_fit fits it, 4 ways (the GPU's) and 16 ways, the last round ragged. */
    static const char *const long_sums[] = {"tiled:2,4,2", "tiled", "tiled:1,4,4",
                                            "tiled:1,2,16,2"};
    for (int k = 0; k < 4; k++)
        conv_kernel(l, (conv_case){.h = 5, .w = 7, .ci = 323, .co = 37, .kh = 1, .kw = 1,
                                   .pad = VKI_PAD_VALID, .act = VKI_ACT_RELU6}, long_sums[k]);
    /* Long sums (3x3 taps over 34 input slices: 306 steps) split 4, 8 and 32 ways, the
     * last ragged; and a 2x2 head over a 2x2 input, one output pixel (pose's). */
    for (int k = 0; k < N_SPLITK; k++) {
        conv_kernel(l, (conv_case){.h = 5, .w = 7, .ci = 133, .co = 9, .kh = 3, .kw = 3,
                                   .pad = VKI_PAD_SAME, .act = VKI_ACT_RELU}, splitk_kernels[k]);
        conv_kernel(l, (conv_case){.h = 2, .w = 2, .ci = 133, .co = 17, .kh = 2, .kw = 2,
                                   .pad = VKI_PAD_VALID}, splitk_kernels[k]);
    }
}

/* ---- DEPTHWISE_CONV_2D ---------------------------------------------------------------- */

void op_cases_depthwise__multiplier_1_channels(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++)
        for (int p = 0; p < 2; p++)
            depthwise_forms(l, (conv_case){.h = 7, .w = 9, .ci = channels[i], .co = 1, .kh = 3,
                                           .kw = 3, .pad = p ? VKI_PAD_VALID : VKI_PAD_SAME},
                            N_DW);
}

void op_cases_depthwise__multiplier_2_and_more(op_case_list *l) {
    for (int i = 0; i < N_CHANNELS; i++) {
        depthwise(l, (conv_case){.h = 7, .w = 9, .ci = channels[i], .co = 2, .kh = 3,
                                 .kw = 3, .pad = VKI_PAD_SAME, .dm_option = 2});
        /* The option may be 0 in files: the multiplier comes from the shapes. */
        depthwise(l, (conv_case){.h = 5, .w = 3, .ci = channels[i], .co = 2, .kh = 3,
                                 .kw = 3, .pad = VKI_PAD_VALID});
    }
    depthwise(l, (conv_case){.h = 7, .w = 5, .ci = 3, .co = 3, .kh = 3, .kw = 3,
                             .pad = VKI_PAD_SAME, .dm_option = 3});
    depthwise(l, (conv_case){.h = 7, .w = 5, .ci = 1, .co = 5, .kh = 3, .kw = 3,
                             .pad = VKI_PAD_SAME, .dm_option = 5});
    depthwise(l, (conv_case){.h = 6, .w = 5, .ci = 4, .co = 4, .kh = 2, .kw = 2,
                             .pad = VKI_PAD_SAME, .sh = 2, .sw = 2});
}

void op_cases_depthwise__kernels_strides_dilations(op_case_list *l) {
    static const int k[][2] = {{1, 1}, {3, 3}, {5, 5}, {2, 2}, {3, 1}};
    for (int i = 0; i < 5; i++)
        for (int p = 0; p < 2; p++) {
            vki_padding pad = p ? VKI_PAD_VALID : VKI_PAD_SAME;
            depthwise(l, (conv_case){.h = 9, .w = 7, .ci = 17, .co = 1, .kh = k[i][0],
                                     .kw = k[i][1], .pad = pad});
            depthwise(l, (conv_case){.h = 9, .w = 7, .ci = 5, .co = 1, .kh = k[i][0],
                                     .kw = k[i][1], .sh = 2, .sw = 2, .pad = pad});
            depthwise(l, (conv_case){.h = 9, .w = 7, .ci = 3, .co = 2, .kh = k[i][0],
                                     .kw = k[i][1], .sh = 1, .sw = 2, .pad = pad});
            depthwise(l, (conv_case){.h = 9, .w = 9, .ci = 4, .co = 1, .kh = k[i][0],
                                     .kw = k[i][1], .dh = 2, .dw = 2, .pad = pad});
        }
    depthwise(l, (conv_case){.h = 1, .w = 1, .ci = 5, .co = 1, .kh = 3, .kw = 3,
                             .pad = VKI_PAD_SAME});
    depthwise(l, (conv_case){.h = 5, .w = 3, .ci = 3, .co = 2, .kh = 5, .kw = 3,
                             .pad = VKI_PAD_VALID});
}

void op_cases_depthwise__bias_and_activations(op_case_list *l) {
    static const vki_activation acts[] = {VKI_ACT_NONE, VKI_ACT_RELU, VKI_ACT_RELU_N1_TO_1,
                                          VKI_ACT_RELU6, VKI_ACT_TANH};
    for (int a = 0; a < 5; a++)
        for (int nb = 0; nb < 2; nb++) {
            /* 49 taps plus a bias in [-2, 2] spread sums (sd ~2.6) past -1, 1 and 6, so
             * every clamp bites. */
            depthwise_forms(l, (conv_case){.h = 7, .w = 9, .ci = 5, .co = 1, .kh = 7, .kw = 7,
                                           .pad = VKI_PAD_SAME, .no_bias = nb,
                                           .act = acts[a]},
                            2);
            depthwise_forms(l, (conv_case){.h = 5, .w = 3, .ci = 3, .co = 2, .kh = 3, .kw = 3,
                                           .pad = VKI_PAD_SAME, .no_bias = nb,
                                           .act = acts[a]},
                            2);
        }
}

/* ---- chained ops: intermediate PHWC4 tensors with padded slices ------------------------ */

static vki_model *build_chain(const op_case *oc) {
    (void)oc;
    vki_model *m = vki_model_new("chain");
    int in = harness_tensor(m, 9, 7, 3);
    int f1shape[4] = {5, 3, 3, 3}, f2shape[4] = {1, 3, 3, 10}, f3shape[4] = {17, 1, 1, 10};
    int f1 = harness_const(m, 4, f1shape, 11u, -1.0f, 1.0f);
    int b1 = harness_const(m, 1, &f1shape[0], 12u, -1.0f, 1.0f);
    int f2 = harness_const(m, 4, f2shape, 13u, -1.0f, 1.0f);
    int f3 = harness_const(m, 4, f3shape, 14u, -1.0f, 1.0f);
    int b3 = harness_const(m, 1, &f3shape[0], 15u, -1.0f, 1.0f);
    int t1 = harness_tensor(m, 9, 7, 5), t2 = harness_tensor(m, 5, 4, 10);
    int out = harness_tensor(m, 5, 4, 17);
    int i1[3] = {in, f1, b1}, i2[3] = {t1, f2, -1}, i3[3] = {t2, f3, b3};
    harness_op(m, VKI_OP_CONV_2D, 3, i1, t1)->opt.conv = (vki_conv_options){
        .padding = VKI_PAD_SAME, .stride_w = 1, .stride_h = 1, .activation = VKI_ACT_TANH};
    harness_op(m, VKI_OP_DEPTHWISE_CONV_2D, 3, i2, t2)->opt.conv = (vki_conv_options){
        .padding = VKI_PAD_SAME, .stride_w = 2, .stride_h = 2, .depth_multiplier = 2,
        .activation = VKI_ACT_RELU};
    harness_op(m, VKI_OP_CONV_2D, 3, i3, out)->opt.conv = (vki_conv_options){
        .padding = VKI_PAD_VALID, .stride_w = 1, .stride_h = 1, .activation = VKI_ACT_RELU6};
    vki_model_set_io(m, 1, &in, 1, &out);
    return m;
}

void op_cases_conv_chain__conv_depthwise_pointwise(op_case_list *l) {
    op_case *c = op_case_add(l, VKI_OP_CONV_2D, build_chain, 21u, TOL);
    op_case_label(c, "chain CONV_2D k3 tanh -> DEPTHWISE_CONV_2D k3 s2 x2 relu -> CONV_2D k1 "
                     "relu6 9x7x3->5x4x17");
}
