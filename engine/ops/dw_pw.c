/* dw_pw.c: a DEPTHWISE_CONV_2D and the 1x1 CONV_2D that reads it, in one dispatch
 * (glsl/dw_pw.comp): the pass that picks the pairs and the pair's build.
 *
 * int8 / uint8 pairs whose two ops both have integer forms (int8.h) run the kernel's
 * integer form (INT8): the depthwise op's weights, int32 bias and requantization onto its
 * output's grid (and a table op fused after it), then the 1x1 op's with its integer
 * epilogue as conv2d.c builds it (a fused integer ADD and table op included), so the pair
 * computes exactly what the two integer dispatches do.
 *
 * The kernel's work group is a fixed tile of output pixels (tuner/workgroup.c, class
 * VKI_WG_DW_PW, never fitted to the grid nor tuned), so the plan below reads it from
 * vki_wg_pick, and both the pass (does it fit, does it pay) and the build use the plan.
 */
#include "conv_common.h"
#include "int8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Vulkan minimum for maxComputeSharedMemorySize, for a device that did not say. */
#define VKI_DWPW_MIN_SHARED 16384u
/* Shared memory a GPU work group takes at most: depthwise slices beyond it are taken in
 * chunks. A third of an NVIDIA or AMD compute unit's 64-228 KB, so that several groups
 * stay resident to hide the loads. Not measured: no GPU here. */
#define VKI_DWPW_GPU_SHARED 16384u
/* Bytes of one depthwise value in shared memory: an FLT4, which is a vec4 where the
 * graph computes fp32 (the plan does not know the precision and assumes it), or the
 * integer form's ivec4. */
#define VKI_DWPW_VALUE_BYTES 16u

typedef struct dwpw_plan {
    uint32_t wg[3];        /* TILE_W, TILE_H, WG_Z */
    int tile_x;            /* adjacent columns per thread (TILE_X) */
    int pw_tile_s;         /* output slices per register tile (PW_TILE_S) */
    int groups;            /* register tiles over all output slices (N_GROUPS) */
    int block_g;           /* groups per work group along z (BLOCK_G) */
    int blocks;            /* work groups along z */
    int chunk_s;           /* depthwise slices in shared memory at once (CHUNK_S) */
    int whole;             /* a GPU's whole-tile plan (plan_gpu_whole) */
    int ksplit;            /* whole tiles: parts each 1x1 sum is split over (KSPLIT), 1 none */
} dwpw_plan;

/* VKI_DWPW: MODE[:K]. MODE "0" fuses no pair, "1" every legal one (where the tile fits the
 * device's shared memory), "2" every legal one with the GPU tiling, "3" every legal one
 * with the GPU tiling in chunks of one depthwise slice (2 and 3 run those paths on a CPU
 * device, for tests), none the default rule (pays()); K (1, 2, 4 or 8) splits the whole
 * tiles' 1x1 sums over K parts where they fit, instead of ksplit_pick's 4. Anything
 * else: the defaults. */
static int dwpw_override(const char *env) {
    if (env && env[0] >= '0' && env[0] <= '3' && (!env[1] || env[1] == ':')) return env[0] - '0';
    return -1;
}

static int dwpw_ksplit_override(const char *env) {
    const char *colon = env ? strchr(env, ':') : NULL;
    if (!colon || (colon != env && dwpw_override(env) < 0) || !colon[1] || colon[2]) return 0;
    const int k = colon[1] - '0';
    return k == 1 || k == 2 || k == 4 || k == 8 ? k : 0;
}

/* The plan's gpu_test argument for a VKI_DWPW value: 2 or 3, else 0. */
static int dwpw_mode_test(const char *env) {
    const int mode = dwpw_override(env);
    return mode >= 2 ? mode : 0;
}

/* Threads a work group of the GPU's whole-tile plan aims at, and its output slices a
 * thread (PW_TILE_S). Measured on an H200 (bench --with-io, median of 200 runs, two rounds,
 * every legal pair of seven MediaPipe models fused): 256 threads and 1 slice were fastest
 * or within 2% of it on each model; 64 threads 3-24% slower, 2 slices a thread 5-35%
 * slower (twice the weights a thread, half the threads). */
#define VKI_DWPW_GPU_THREADS 256u
#define VKI_DWPW_GPU_TILE_S 1
/* Which pairs a GPU fuses (each thread owning one register tile). Measured on an H200,
 * kernel time of every pair of face_detection_short_range, hand_landmark_lite and
 * pose_landmark_full fused against its two dispatches (run --profile, 50 runs), with
 * unsplit 1x1 sums: with up to 24 depthwise slices (96 channels) each of 32 pairs was
 * faster fused, 9.7 -> 5.7 us at 64x64 pixels, 9.5 -> 8.3 at 8x8 (0.3-5.1 us saved).
 * Measured again with the sums split (KSPLIT 4; every legal pair of
 * face_detection_full_range, hand_landmark_full, hand_landmark_lite and pose_landmark_full
 * fused, VKI_DWPW=2, against the rule's profile): past 24 slices, every pair whose
 * depthwise plane has at least 144 pixels and at most 900 slice-taps (slices x window
 * cells) was faster fused (16 pairs, 0.5-5.5 us: 12x12 with 48 slices of 3x3, 28x28 with 36
 * of 5x5, 16x16 with 96 of 3x3), and from 256 pixels so was every pair of up to 132 slices
 * but one (5 pairs 0.7-6.3 us faster: 16x16 with 132 slices of 5x5 21.7 -> 15.4 us;
 * 28x28 with 60 of 5x5 1.1 us slower); every pair under 144 pixels or past 900 slice-taps
 * below 256 pixels was slower, by up to 30 us (4x4 with 72 slices, 64 output slices: 9.5 ->
 * 27.5 us): a small plane leaves few work groups, each summing every slice. */
#define VKI_DWPW_GPU_MAX_SLICES 24
#define VKI_DWPW_GPU_MID_PIXELS 144
#define VKI_DWPW_GPU_MID_SLICE_TAPS 900
#define VKI_DWPW_GPU_WIDE_PIXELS 256
#define VKI_DWPW_GPU_WIDE_SLICES 132

/* Parts a whole tile's 1x1 sums are split over (KSPLIT) on GPUs, where they fit the work
 * group and shared memory. Each part sums a range of the depthwise slices and part 0 adds
 * the others' sums in a fixed order, so a run gives the same result every time. Measured on
 * an H100 (run --profile, 50 runs, every pair of face_detection_short_range and
 * hand_landmark_lite, unsplit against 2, 4 and 8 parts): 4 parts never slower, 8 no faster
 * than 4; the 8x8 pairs (24 slices) 8.3 -> 6.6 us, 16x16 with 22 slices 9.0 -> 6.1,
 * hand_landmark_lite's 56x56 and 32x28 pairs 11.3 -> 8.3 and 13.4 -> 10.4, the 64x64 ones
 * unchanged; the 16 pairs of face_detection_short_range 0.118 -> 0.100 ms, its GPU total
 * 0.166 -> 0.149. A thread's 1x1 sum runs serially over the depthwise slices, and a small
 * plane leaves the GPU too few threads to hide that chain's loads. */
#define VKI_DWPW_KSPLIT 4
static int ksplit_pick(int forced) { return forced ? forced : VKI_DWPW_KSPLIT; }

/* The GPU plan that computes each depthwise value once: one work group holds every output
 * slice of a tile of TILE_W x TILE_H pixels (BLOCK_G == N_GROUPS, one block along z), its
 * WG_Z threads per pixel first split the depthwise slices of the pixel into shared memory,
 * then the register tiles of PW_TILE_S output slices. 0 where the whole tile's depthwise
 * slices do not fit even at one pixel. */
static int plan_gpu_whole(const vki_wg_device *dev, uint32_t shared, int mid_s, int out_s,
                          int ksplit_forced, dwpw_plan *p) {
    const uint32_t max_inv = dev->max_invocations ? dev->max_invocations : 128;
    const uint32_t max_z = dev->max_size[2] ? dev->max_size[2] : 64;
    const uint32_t target = VKI_DWPW_GPU_THREADS < max_inv ? VKI_DWPW_GPU_THREADS : max_inv;
    p->tile_x = 1;
    p->pw_tile_s = out_s >= VKI_DWPW_GPU_TILE_S ? VKI_DWPW_GPU_TILE_S : 1;
    p->groups = (out_s + p->pw_tile_s - 1) / p->pw_tile_s;
    uint32_t z = (uint32_t)p->groups;
    if (z > max_z) z = max_z;
    if (z > max_inv) z = max_inv;
    uint32_t pix = 1;
    while (pix * 2 * z <= target) pix *= 2;
    while (pix > 1 && (long)pix * mid_s * VKI_DWPW_VALUE_BYTES > (long)shared) pix /= 2;
    if ((long)pix * mid_s * VKI_DWPW_VALUE_BYTES > (long)shared) return 0;
    uint32_t tw = 1;
    while (tw * tw < pix) tw *= 2;   /* square, or twice as wide as high */
    p->wg[0] = tw;
    p->wg[1] = pix / tw;
    p->wg[2] = z;
    p->block_g = p->groups;
    p->blocks = 1;
    p->chunk_s = mid_s;
    p->whole = 1;
    /* The parts of a split sum are rows of work-group y (z is at most 64 on NVIDIA), and
     * the parts past the first keep their sums in shared memory for part 0. */
    const uint32_t max_y = dev->max_size[1] ? dev->max_size[1] : 64;
    int k = ksplit_pick(ksplit_forced);
    for (;; k /= 2) {
        const long threads = (long)pix * z * k;
        const long bytes = (long)pix * (mid_s + (long)(k - 1) * z * p->pw_tile_s) * VKI_DWPW_VALUE_BYTES;
        if (k == 1 || (threads <= (long)max_inv && p->wg[1] * (uint32_t)k <= max_y && bytes <= (long)shared))
            break;
    }
    p->ksplit = k;
    p->wg[1] *= (uint32_t)k;
    return 1;
}

/* The tiling for mid_s depthwise slices and an output of shape out on dev; 0 when the
 * device's shared memory cannot hold even one slice of the smallest tile. gpu_test: 2
 * runs the GPU plans on any device, 3 the GPU's chunked plan in one-slice chunks.
 *  - CPU devices (lavapipe) run a work group as one SIMD loop on one core: threads are
 *    cheap to lose and the depthwise work must not be repeated, so one block along z
 *    holds every output slice, and the whole tile's depthwise slices sit in shared
 *    memory. The 8x2 threads take 4 adjacent columns each (a 32x2-pixel tile), 2 output
 *    slices at a time; where the slices do not fit (lavapipe: 32 KB, 128 channels), 2
 *    columns (256 channels), else 1. Measured on lavapipe against the same pairs
 *    unfused (face_detection_short_range, median kernel time of 30 interleaved runs;
 *    threads x columns x slices): 8x2 x 4 x 2 27-48% faster per pair, as 8x4 x 4 x 2
 *    (which fits half the channels); 4x4 x 4 x 2 19% over all pairs, 8x4 x 2 x 4 8%,
 *    2x4 x 8 x 2 2%. 8x2 x 4 x 4 and 8x2 x 4 x 8 (4 and 8 output slices at a time, fewer
 *    weight loads per product) were 1.02-1.10x and 1.14x slower than 8x2 x 4 x 2 there
 *    (dw_pw kernel time, medians of 3-7 interleaved rounds).
 *  - GPUs need threads, and the depthwise work must not be repeated either: the whole-tile
 *    plan (plan_gpu_whole) where the tile's slices fit VKI_DWPW_GPU_SHARED; else every
 *    thread owns one register tile of 2 output slices, a work group covers WG_Z * 2 of
 *    them and repeats the depthwise work per block, the depthwise slices coming in chunks
 *    so that any channel count fits. */
static int plan_tiles(const vki_wg_device *dev, const char *env, int mid_s, vki_shape4 out,
                      dwpw_plan *p) {
    const int gpu_test = dwpw_mode_test(env);
    const int out_s = (out.c + 3) / 4;
    const uint32_t any_grid[3] = {1, 1, 1};   /* the DW_PW class ignores the grid */
    vki_wg_pick(dev, VKI_WG_DW_PW, any_grid, p->wg);
    p->whole = 0;
    p->ksplit = 1;
    uint32_t shared = dev->max_shared_bytes ? dev->max_shared_bytes : VKI_DWPW_MIN_SHARED;
    const long slice_bytes = (long)p->wg[0] * p->wg[1] * VKI_DWPW_VALUE_BYTES;
    if (dev->is_cpu && !gpu_test) {
        /* Four columns a thread where the tile's depthwise slices fit, else two or one. */
        p->tile_x = 4;
        while (p->tile_x > 1 && (long)mid_s * slice_bytes * p->tile_x > (long)shared) p->tile_x /= 2;
        p->pw_tile_s = out_s >= 2 ? 2 : out_s;
        p->groups = (out_s + p->pw_tile_s - 1) / p->pw_tile_s;
        p->block_g = p->groups;
        p->blocks = 1;
        p->chunk_s = mid_s;
        return (long)mid_s * slice_bytes * p->tile_x <= (long)shared;
    }
    if (shared > VKI_DWPW_GPU_SHARED) shared = VKI_DWPW_GPU_SHARED;
    if (gpu_test != 3 && plan_gpu_whole(dev, shared, mid_s, out_s, dwpw_ksplit_override(env), p))
        return 1;
    p->tile_x = 1;
    p->pw_tile_s = out_s >= 2 ? 2 : 1;
    p->groups = (out_s + p->pw_tile_s - 1) / p->pw_tile_s;
    p->block_g = (int)p->wg[2];
    p->blocks = (p->groups + p->block_g - 1) / p->block_g;
    long fit = (long)shared / slice_bytes;
    p->chunk_s = gpu_test == 3 ? 1 : fit < mid_s ? (int)fit : mid_s;
    return fit >= 1;
}

/* ---- the pass ------------------------------------------------------------------------ */

/* Whether one dispatch beats two for this pair on this device (the VKI_DWPW override
 * aside).
 *
 * CPU devices: where the plan has at least two columns a thread. Measured on lavapipe
 * (2 cores; kernel time of the fused dispatch against the pair's two, median of 30
 * interleaved runs): with four columns (up to 128 depthwise channels) every pair of
 * face_detection_short_range, hand_landmark_lite and pose_landmark_lite ran 18-49%
 * faster (8x8 to 256x256 outputs); with two (up to 256) 8-31% faster from 14x14 up and
 * within 3% at 4x4 and 2x2; with one (hand_landmark_lite's 288-384, pose_landmark_lite's
 * 336 channels) 12-32% slower. Whole models with this rule against the pass disabled
 * (median latency of 60 interleaved runs each, 2 loaded cores): face_detection_short_range
 * 20.0 -> 14.8 ms (16 pairs), selfie_segmentation 65.1 -> 59.6 ms (2 pairs),
 * hand_landmark_lite 104.1 -> 92.0 ms (6), pose_landmark_lite 180.0 -> 155.5 ms (25).
 *
 * GPUs: with the whole-tile plan (plan_gpu_whole: each depthwise value computed once, one
 * thread per pixel and output slice), one block of output slices, and a plane and
 * depthwise slices the measurements above VKI_DWPW_GPU_MAX_SLICES found faster fused. The earlier GPU plan, which repeats the depthwise taps for every
 * block of 1x1 output slices, lost everywhere on an H100 (fusing every pair: hand_landmark_lite
 * 1.605 against 0.653 ms, pose_landmark_lite 2.200 against 1.060); it remains the fallback
 * for tiles whose slices do not fit shared memory, run only by VKI_DWPW=1 and 3. */
static int pays(const vki_wg_device *dev, const dwpw_plan *p, vki_shape4 out, int taps) {
    if (dev->is_cpu) return p->tile_x >= 2;
    if (!p->whole || p->wg[2] != (uint32_t)p->groups) return 0;
    const long pixels = (long)out.h * out.w, slices = p->chunk_s;
    return slices <= VKI_DWPW_GPU_MAX_SLICES ||
           (pixels >= VKI_DWPW_GPU_MID_PIXELS && slices * taps <= VKI_DWPW_GPU_MID_SLICE_TAPS) ||
           (pixels >= VKI_DWPW_GPU_WIDE_PIXELS && slices <= VKI_DWPW_GPU_WIDE_SLICES);
}

int vki_pointwise_reads(const vki_model *m, const vki_op *op, int t) {
    if (op->code != VKI_OP_CONV_2D || op->n_inputs < 2 || op->inputs[0] != t || op->n_outputs != 1)
        return 0;
    const vki_tensor *f = vki_op_in(m, op, 1);
    const vki_conv_options *c = &op->opt.conv;
    const vki_fused *fu = &op->fused;
    /* The fused kernels scale no input channels: a gated conv runs alone. */
    return f->shape[1] == 1 && f->shape[2] == 1 && c->stride_h == 1 && c->stride_w == 1 &&
           vki_conv_dilation(c->dilation_h) == 1 && vki_conv_dilation(c->dilation_w) == 1 &&
           !fu->pad_top && !fu->pad_bottom && !fu->pad_left && !fu->pad_right && !fu->gate;
}

/* Whether the pair runs one form: both ops float, or both quantized with an integer form
 * (int8.h; weights per channel along the output channels' axis, 3 for a depthwise filter,
 * 0 for a CONV_2D's). A depthwise op may carry a table op the passes fused after it
 * (dw_pw.comp's DW_TABLE), not an integer ADD. */
static int same_form(const vki_model *m, const vki_op *dw, const vki_op *pw) {
    const int qdw = vki_tensor_quantized(vki_op_out(m, dw, 0));
    const int qpw = vki_tensor_quantized(vki_op_out(m, pw, 0)) ||
                    vki_tensor_quantized(vki_op_in(m, pw, 0));
    if (!qdw && !qpw) return 1;
    return qdw && qpw && !dw->fused.int8_add && vki_int8_conv_ok(m, dw, 3) &&
           vki_int8_conv_ok(m, pw, 0);
}

int vki_fuse_dw_pw(const vki_model *m, vki_op *ops, unsigned char *skip,
                   const vki_wg_device *dev, const char *dwpw_env) {
    const int mode = dwpw_override(dwpw_env);
    if (mode == 0 || m->n_ops < 2) return 0;
    vki_op_index g;
    if (!vki_op_index_build(m, ops, skip, &g)) return 0;
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_op *dw = &ops[o];
        if (skip[o] || dw->code != VKI_OP_DEPTHWISE_CONV_2D || dw->n_outputs != 1 ||
            dw->fused.pointwise || dw->fused.has_residual || dw->fused.dense_out)
            continue;
        const vki_tensor *dwf = vki_op_in(m, dw, 1);
        if (dwf->shape[3] != vki_tensor_shape4(vki_op_in(m, dw, 0)).c) continue;   /* multiplier 1 */
        int t = dw->outputs[0];
        if (g.readers[t] != 1 || vki_model_is_output(m, t)) continue;
        int q = g.reader[t];
        vki_op *pw = &ops[q];
        if (!vki_pointwise_reads(m, pw, t) || !same_form(m, dw, pw)) continue;
        const vki_fused *pf = &pw->fused;
        /* The pair runs where the depthwise op does, unless a residual fused into the
         * 1x1 conv is written in between: then where the conv does, if no input of the
         * depthwise op is written again by then (only a variable's can be). */
        const bool late = pf->has_residual && vki_written_between(m, ops, skip, pf->residual, o, m->n_ops);
        int rewritten = 0;
        for (int i = 0; late && i < dw->n_inputs; i++)
            rewritten |= dw->inputs[i] >= 0 && vki_written_between(m, ops, skip, dw->inputs[i], o + 1, m->n_ops);
        if (rewritten) continue;
        const vki_shape4 out = vki_tensor_shape4(vki_op_out(m, pw, 0));
        dwpw_plan plan;
        if (!plan_tiles(dev, dwpw_env, (dwf->shape[3] + 3) / 4, out, &plan)) continue;
        if (mode < 0 && !pays(dev, &plan, out, dwf->shape[1] * dwf->shape[2])) continue;
        dw->fused.pointwise = q + 1;
        dw->fused.pointwise_late = late;
        /* The pair's dispatch writes the CONV_2D's output: the depthwise op, which runs,
         * takes it over (as activation fusion does), so the precision and memory stages
         * see who writes it. Its own output tensor is no longer written nor read. */
        dw->outputs[0] = pw->outputs[0];
        skip[q] = 1;
        fused++;
    }
    vki_op_index_free(&g);
    return fused;
}

/* ---- the build ----------------------------------------------------------------------- */

static void define_dw_activation(vki_dispatch *d, vki_activation act) {
    if (act == VKI_ACT_NONE) return;
    char name[48];
    snprintf(name, sizeof name, "DW_ACT_%s", vki_activation_name(act));
    vki_define_int(d, name, 1);
}

float *vki_conv_pack_depthwise(const float *f, int c, int taps, size_t *count) {
    const int mid_s = (c + 3) / 4;
    *count = (size_t)mid_s * taps * 4;
    float *out = vki_calloc(*count, sizeof(float));
    if (!out) return NULL;
    for (int s = 0; s < mid_s; s++)
        for (int k = 0; k < taps; k++)
            for (int i = 0; i < 4 && s * 4 + i < c; i++)
                out[((size_t)s * taps + k) * 4 + i] = f[(size_t)k * c + s * 4 + i];
    return out;
}

/* The depthwise op as it was before the pass gave its output to the pair: its output is
 * the tensor the 1x1 conv reads (or, with a table op fused after it, that op's output, its
 * own grid being fused.int8_own), and nothing runs after it. int8.c reads its channels,
 * scales and activation range from this. */
static vki_op depthwise_alone(const vki_op *dw, const vki_op *pw) {
    vki_op op = *dw;
    op.outputs[0] = pw->inputs[0];
    op.fused.pointwise = 0;
    return op;
}

/* The integer form's defines and bindings for the depthwise op, after the 1x1 op's
 * epilogue: its requantization (DW_RQ_BASE: the scales' vec4 in its bias blob of
 * `count` values; DW_QMIN..DW_QMAX, its activation's range) and a fused table op's 256
 * results (DW_TABLE), bound next, as int8.c's vki_int8_define_table binds the 1x1's. */
static vki_status define_dw_int8(vki_build *b, vki_dispatch *d, const vki_model *m,
                                 const vki_op *dw, size_t count) {
    int lo, hi;
    vki_int8_activation_range(vki_int8_own(m, dw), dw->opt.conv.activation, &lo, &hi);
    vki_define_int(d, "DW_RQ_BASE", (long long)(count / 4));
    vki_define_int(d, "DW_QMIN", lo);
    vki_define_int(d, "DW_QMAX", hi);
    if (!dw->fused.int8_table) return VKI_OK;
    const vki_op *t = &m->ops[dw->fused.int8_table - 1];
    const vki_tensor *in = vki_op_in(m, t, 0);
    int blob = vki_int8_table_blob(b, m, t);
    if (blob < 0) return vki_fail_oom("graph build");
    vki_define_int(d, "DW_TABLE", 1);
    vki_define_int(d, "DW_TABLE_BINDING", d->n_bindings);
    vki_define_int(d, "DW_TABLE_OFFSET", in->quant_zero - in->quant_min);
    vki_dispatch_bind_weights(d, blob);
    return VKI_OK;
}

vki_status vki_build_dw_pw(vki_build *b, const vki_model *m, int dw_op, int pw_op) {
    const vki_op *pw = &m->ops[pw_op];
    const vki_op dw_alone = depthwise_alone(&m->ops[dw_op], pw), *dw = &dw_alone;
    vki_conv_window w = vki_conv_window_of(m, dw);
    w.out.c = w.in.c;   /* the depthwise output (multiplier 1) */
    const vki_shape4 out = vki_tensor_shape4(vki_op_out(m, pw, 0));
    const int mid_s = (w.in.c + 3) / 4;
    /* The pass fused only pairs of one form: both integer or both float. */
    const bool int8 = vki_tensor_quantized(vki_op_out(m, pw, 0));
    dwpw_plan p;
    if (!plan_tiles(vki_build_device(b), vki_build_env(b, VKI_ENV_DWPW), mid_s, out, &p))
        return vki_op_fail(m, dw_op, VKI_ERROR_INTERNAL,
                           "depthwise + pointwise tile does not fit shared memory");

    /* The integer form packs the weights' q - zero point the same way, as int8 bytes. */
    float *dvals = int8 ? vki_int8_weight_values(vki_op_in(m, dw, 1)) : NULL;
    float *pvals = int8 ? vki_int8_weight_values(vki_op_in(m, pw, 1)) : NULL;
    size_t dcount = 0, pcount = 0;
    float *dwts = NULL, *pwts = NULL;
    if (!int8 || (dvals && pvals)) {
        dwts = vki_conv_pack_depthwise(int8 ? dvals : vki_op_in(m, dw, 1)->data, w.in.c, w.kh * w.kw,
                                       &dcount);
        pwts = vki_conv_pack_1x1(int8 ? pvals : vki_op_in(m, pw, 1)->data, w.in.c, out.c,
                              p.pw_tile_s, p.groups, &pcount);
    }
    free(dvals);
    free(pvals);
    int dblob = !dwts ? -1 : int8 ? vki_build_weights_q8(b, dwts, dcount)
                                  : vki_build_weights(b, dwts, dcount);
    int pblob = !pwts ? -1 : int8 ? vki_build_weights_q8(b, pwts, pcount)
                                  : vki_build_weights(b, pwts, pcount);
    free(dwts);
    free(pwts);
    const size_t dbias_count = (size_t)mid_s * 4, pbias_count = (size_t)p.groups * p.pw_tile_s * 4;
    const vki_tensor *dbt = dw->n_inputs > 2 ? vki_op_in(m, dw, 2) : NULL;
    const vki_tensor *pbt = pw->n_inputs > 2 ? vki_op_in(m, pw, 2) : NULL;
    /* Integer biases as int32, then the requantization scales (int8.h). */
    int dbias = int8 ? vki_int8_bias_blob(b, m, dw, dbias_count)
                     : vki_build_bias(b, dbt, w.in.c, dbias_count);
    int pbias = int8 ? vki_int8_bias_blob(b, m, pw, pbias_count)
                     : vki_build_bias(b, pbt, out.c, pbias_count);
    if (dblob < 0 || pblob < 0 || dbias < 0 || pbias < 0) return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_dw_pw, VKI_WG_DW_PW);
    vki_define_shape(&d, "IN", w.in);
    vki_define_shape(&d, "OUT", out);
    vki_conv_define_window(&d, &w);
    /* The integer form's activations are ranges of its epilogues (below). */
    if (!int8) {
        define_dw_activation(&d, dw->opt.conv.activation);
        vki_define_activation(&d, pw->opt.conv.activation);
    }
    vki_define_int(&d, "TILE_W", p.wg[0]);
    vki_define_int(&d, "TILE_H", p.wg[1] / (uint32_t)p.ksplit);
    if (p.ksplit > 1) vki_define_int(&d, "KSPLIT", p.ksplit);
    vki_define_int(&d, "TILE_X", p.tile_x);
    vki_define_int(&d, "WG_Z", p.wg[2]);
    vki_define_int(&d, "PW_TILE_S", p.pw_tile_s);
    vki_define_int(&d, "BLOCK_G", p.block_g);
    vki_define_int(&d, "CHUNK_S", p.chunk_s);
    vki_dispatch_bind_tensor(&d, dw->inputs[0]);
    vki_dispatch_bind_weights(&d, dblob);
    vki_dispatch_bind_weights(&d, dbias);
    vki_dispatch_bind_weights(&d, pblob);
    vki_dispatch_bind_weights(&d, pbias);
    vki_status st = vki_build_bind_output(b, &d, pw);
    if (st) return st;
    /* The 1x1 op's epilogue as conv2d.c defines it (its table op bound next), then the
     * depthwise op's requantization and table. */
    if (int8 && ((st = vki_int8_define_epilogue(b, &d, m, pw, pw->opt.conv.activation,
                                                pbias_count)) ||
                 (st = define_dw_int8(b, &d, m, dw, dbias_count))))
        return st;
    /* Whole tiles: the work group is the tile, so the grid is a multiple of it. */
    const uint32_t tile_w = p.wg[0] * (uint32_t)p.tile_x;
    d.grid[0] = ((uint32_t)out.w + tile_w - 1) / tile_w * p.wg[0];
    const uint32_t tile_h = p.wg[1] / (uint32_t)p.ksplit;
    d.grid[1] = ((uint32_t)out.h + tile_h - 1) / tile_h * p.wg[1];
    d.grid[2] = (uint32_t)p.blocks * p.wg[2];
    memcpy(d.fixed_wg, p.wg, sizeof d.fixed_wg);
    return vki_build_dispatch(b, &d);
}
