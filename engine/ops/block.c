/* block.c: an inverted residual block (a 1x1 expansion, a depthwise convolution, a 1x1
 * projection, the residual ADD the residual pass fused into the projection) in one
 * dispatch (glsl/block.comp): the pass that picks the blocks, the kernel's plan, which the
 * pass asks whether it fits and pays, and the build.
 *
 * A work group owns a tile of output pixels and computes everything it needs from the
 * block's input: the expansion over the tile's input window (again where windows of
 * neighbouring tiles overlap), the depthwise outputs, the projection, each through shared
 * memory. On a GPU the block's three dispatches cost their launches and the intermediates'
 * round trips, not arithmetic: MobileNetV2's blocks in the hand and pose models run a few
 * MFLOP each. Float forms, batch 1. */
#include "conv_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Threads of the work group (capped by the device): the expansion's (pixel, slice) items
 * and the projection's (pixel, output slice, part) slots are spread over them. */
#define VKI_BLOCK_LANES 256u
/* Shared memory a work group takes at most: middle slices beyond it come in chunks. */
#define VKI_BLOCK_SHARED 32768u
/* The Vulkan minimum for maxComputeSharedMemorySize, for a device that did not say. */
#define VKI_BLOCK_MIN_SHARED 16384u
/* Bytes of one value in shared memory: an FLT4 (the plan assumes fp32) or a partial sum. */
#define VKI_BLOCK_VEC4 16u
/* Parts a projection sum is split over at most, where the tile leaves threads idle. */
#define VKI_BLOCK_MAX_KSPLIT 8

typedef struct block_plan {
    int tile_w, tile_h;  /* output pixels of a work group (TILE_W, TILE_H) */
    uint32_t lanes;      /* threads (LANES) */
    int chunk_s;         /* middle slices in shared memory at once (CHUNK_S) */
    int ksplit;          /* parts a projection sum is split over (KSPLIT) */
    int ex_px;           /* window pixels of one expansion item (EX_PX) */
    int pw_px;           /* tile pixels of one projection slot (PW_PX) */
} block_plan;

/* VKI_BLOCK: MODE[:T]. MODE "0" fuses no block, "1" every legal one that fits (on any
 * device, for tests); T (1, 2, 4, 8 or 16) forces square tiles of T x T output pixels.
 * Anything else, or unset: the defaults. */
static int block_mode(const char *env) {
    if (env && (env[0] == '0' || env[0] == '1') && (!env[1] || env[1] == ':')) return env[0] - '0';
    return -1;
}

static int block_tile_override(const char *env) {
    const char *colon = env ? strchr(env, ':') : NULL;
    return colon ? vki_env_pow2(colon + 1, 1, 16) : 0;
}

/* Which blocks a GPU fuses, and with which tile. Measured on an H200 (run --profile, 50
 * runs; every block of hand_landmark_full, hand_landmark_lite, pose_landmark_full,
 * pose_landmark_lite and selfie_segmentation, 58 in all, fused at tiles of 1, 2, 4 and 8
 * pixels a side against its two or three dispatches unfused): a work group's time follows
 * its multiply-adds (the expansion over its window, the depthwise taps and the projection
 * of its tile), and past about one work group per SM (132) the grid's total. With
 * cost(T) = multiply-adds a work group x max(1, work groups / 132), the tile of least cost,
 * fused where that cost is at most 200k: 15 blocks, 14 of them 2.6-6.3 us faster (MobileNetV2
 * blocks of up to 240 middle channels over 16x16 to 64x64 planes, 11.7 -> 6.4 us at best),
 * one 1.0 us slower; 57.9 of the 75.9 us that the best tile of each block could save. The
 * blocks of 384 to 1152 middle channels over 7x7 to 16x16 planes were 1.2-6.5x slower fused
 * at any tile: the expansion again over every window outweighs the dispatches saved. */
/* The same kernel without an expansion, on the depthwise + 1x1 pairs dw_pw leaves on a GPU
 * (face_detection_full_range's 6x6 pairs, the pose and hand models' deep ones), was
 * measured too (run --profile, 50 runs, 65 pairs of eight models at tiles of 1, 2 and 4):
 * 2.7 us faster on the two 12x12 stride-2 pairs, within 1 us either way on the 6x6 ones, and
 * up to 2.3x slower from 4x4 to 14x14 with 192 to 1152 channels (one work group a pixel
 * sums every slice). It is not built: those pairs stay two dispatches. */
#define VKI_BLOCK_GPU_UNITS 132L
#define VKI_BLOCK_GPU_MAX_COST 200000L
#define VKI_BLOCK_MAX_TILE 8

/* A tile of side x side output pixels, clipped to the output: *tw x *th. Returns the pixels
 * of its input window (the expansion's work, every tap of every pixel of the tile). */
static long tile_window(const vki_conv_window *w, vki_shape4 out, int side, int *tw, int *th) {
    *tw = side < out.w ? side : out.w;
    *th = side < out.h ? side : out.h;
    return (long)((*tw - 1) * w->stride_w + (w->kw - 1) * w->dil_w + 1) *
           ((*th - 1) * w->stride_h + (w->kh - 1) * w->dil_h + 1);
}

/* Multiply-adds of a work group of side x side output pixels, times the grid's waves. */
static long tile_cost(const vki_conv_window *w, int in_c, vki_shape4 out, int side) {
    int tw, th;
    const long halo = tile_window(w, out, side, &tw, &th);
    const long groups = (long)((out.w + tw - 1) / tw) * ((out.h + th - 1) / th);
    const long macs = halo * in_c * w->in.c + (long)tw * th * w->in.c * (w->kh * w->kw + out.c);
    return groups > VKI_BLOCK_GPU_UNITS ? macs * groups / VKI_BLOCK_GPU_UNITS : macs;
}

/* The tile side of least cost (*cost set), a power of two up to VKI_BLOCK_MAX_TILE. */
static int tile_side(const vki_conv_window *w, int in_c, vki_shape4 out, long *cost) {
    int best = 1;
    *cost = tile_cost(w, in_c, out, 1);
    for (int side = 2; side <= VKI_BLOCK_MAX_TILE; side *= 2) {
        const long c = tile_cost(w, in_c, out, side);
        if (c < *cost) *cost = c, best = side;
    }
    return best;
}

/* The plan for window w (its input the middle layer of mid_s slices) onto out with tiles of
 * side x side pixels; 0 when even one middle slice of the tile does not fit shared memory. */
static int plan(const vki_wg_device *dev, const vki_conv_window *w, int mid_s, vki_shape4 out,
                int side, block_plan *p) {
    const long halo = tile_window(w, out, side, &p->tile_w, &p->tile_h);
    p->lanes = vki_wg_lanes(dev, VKI_BLOCK_LANES);
    const long tile_pix = (long)p->tile_w * p->tile_h, out_s = (out.c + 3) / 4;
    /* Every thread one projection slot: PW_PX pixels of an output slice, fewest that fit. */
    p->pw_px = 1;
    while (p->pw_px < tile_pix && out_s * ((tile_pix + p->pw_px - 1) / p->pw_px) > (long)p->lanes)
        p->pw_px *= 2;
    const long items = out_s * ((tile_pix + p->pw_px - 1) / p->pw_px);
    if (items > (long)p->lanes) return 0;
    p->ksplit = 1;
    while (p->ksplit < VKI_BLOCK_MAX_KSPLIT && items * p->ksplit * 2 <= (long)p->lanes &&
           p->ksplit * 2 <= mid_s)
        p->ksplit *= 2;
    uint32_t shared = dev->max_shared_bytes ? dev->max_shared_bytes : VKI_BLOCK_MIN_SHARED;
    if (shared > VKI_BLOCK_SHARED) shared = VKI_BLOCK_SHARED;
    const long left = (long)shared - (long)(p->ksplit - 1) * items * p->pw_px * VKI_BLOCK_VEC4;
    const long fit = left > 0 ? left / ((halo + tile_pix) * VKI_BLOCK_VEC4) : 0;
    p->chunk_s = fit < mid_s ? (int)fit : mid_s;
    /* Window pixels an expansion item: more where the items outnumber the threads, so
     * that a thread's weights serve several pixels. */
    const long ex_items = halo * p->chunk_s;
    p->ex_px = ex_items >= 4L * p->lanes ? 4 : ex_items >= 2L * p->lanes ? 2 : 1;
    return p->chunk_s >= 1;
}

/* Whether one dispatch beats the block's two or three on this device, at the cost of its
 * tile (VKI_BLOCK_GPU_MAX_COST). CPU devices (lavapipe) are bound by arithmetic: the
 * expansion computed again over overlapping windows costs more than the dispatches saved,
 * so they fuse only where VKI_BLOCK forces it. */
static int pays(const vki_wg_device *dev, long cost) {
    return !dev->is_cpu && cost <= VKI_BLOCK_GPU_MAX_COST;
}

/* A float 1x1 stride-1 CONV_2D whose output only the depthwise op reads: batch 1, nothing
 * fused into it but its activation. */
static int expansion(const vki_model *m, const vki_op *op, int t) {
    if (op->n_inputs < 2 || op->inputs[0] < 0 || !vki_pointwise_reads(m, op, op->inputs[0]) ||
        op->on_cpu || op->outputs[0] != t)
        return 0;
    const vki_fused *fu = &op->fused;
    if (fu->has_residual || fu->dense_out || fu->pointwise || fu->int8_own || fu->int8_add ||
        fu->int8_table)
        return 0;
    const vki_tensor *in = vki_op_in(m, op, 0), *f = vki_op_in(m, op, 1);
    return !in->data && in->rank == 4 && in->dtype == VKI_DTYPE_FLOAT32 &&
           !vki_tensor_quantized(in) && vki_tensor_shape4(in).n == 1 && f->data &&
           f->dtype == VKI_DTYPE_FLOAT32;
}

/* The depthwise op dw alone, between expansion ex and projection pw: the window the kernel
 * takes. */
static vki_op depthwise_alone(const vki_op *dw, const vki_op *ex, const vki_op *pw) {
    vki_op op = *dw;
    op.inputs[0] = ex->outputs[0];
    op.outputs[0] = pw->inputs[0];
    op.fused.expand = op.fused.pointwise = 0;
    return op;
}

int vki_fuse_blocks(const vki_model *m, vki_op *ops, unsigned char *skip,
                    const vki_wg_device *dev, const char *block_env) {
    const int mode = block_mode(block_env);
    if (mode == 0 || m->n_ops < 3 || (mode < 0 && dev->is_cpu)) return 0;
    vki_op_index g;
    if (!vki_op_index_build(m, ops, skip, &g)) return 0;
    const int forced_tile = block_tile_override(block_env);
    int fused = 0;
    for (int o = 0; o < m->n_ops; o++) {
        vki_op *dw = &ops[o];
        /* A pair dw_pw fused takes the expansion in as well. */
        const int paired = dw->fused.pointwise;
        if (skip[o] || dw->code != VKI_OP_DEPTHWISE_CONV_2D || dw->n_outputs != 1 || dw->on_cpu ||
            dw->fused.expand || dw->fused.pointwise_late || dw->fused.has_residual ||
            dw->fused.dense_out || dw->fused.int8_table || dw->inputs[0] < 0)
            continue;
        const int e = dw->inputs[0], t = paired ? ops[paired - 1].inputs[0] : dw->outputs[0];
        const vki_tensor *mid = &m->tensors[e], *dwf = vki_op_in(m, dw, 1);
        if (mid->rank != 4 || vki_tensor_quantized(mid) || vki_tensor_quantized(&m->tensors[t]) ||
            mid->dtype != VKI_DTYPE_FLOAT32 || !dwf->data || dwf->dtype != VKI_DTYPE_FLOAT32 ||
            dwf->shape[3] != vki_tensor_shape4(mid).c || vki_tensor_shape4(mid).n != 1)
            continue;
        const int x = g.producer[e];
        if (x < 0 || x >= o || g.readers[e] != 1 || vki_model_is_output(m, e) ||
            !expansion(m, &ops[x], e))
            continue;
        if (!paired && (g.readers[t] != 1 || vki_model_is_output(m, t))) continue;
        const int q = paired ? paired - 1 : g.reader[t];
        vki_op *pw = &ops[q];
        const vki_tensor *out = vki_op_out(m, pw, 0);
        if (!vki_pointwise_reads(m, pw, t) || pw->on_cpu || vki_tensor_quantized(out) ||
            out->dtype != VKI_DTYPE_FLOAT32 || pw->fused.int8_own || pw->fused.int8_add ||
            pw->fused.int8_table)
            continue;
        /* The block runs where the depthwise op does: the expansion's input must still hold
         * what the expansion read (only a variable's is written again), and a residual of
         * the projection must be written by then. */
        const int in = ops[x].inputs[0];
        if (vki_written_between(m, ops, skip, in, x + 1, o)) continue;
        if (pw->fused.has_residual &&
            vki_written_between(m, ops, skip, pw->fused.residual, o, m->n_ops))
            continue;
        const vki_op alone = depthwise_alone(dw, &ops[x], pw);
        const vki_conv_window w = vki_conv_window_of(m, &alone);
        const vki_shape4 os = vki_tensor_shape4(out);
        long cost;
        const int side = tile_side(&w, vki_tensor_shape4(&m->tensors[in]).c, os, &cost);
        if (mode < 0 && !pays(dev, cost)) continue;
        block_plan p;
        if (!plan(dev, &w, (w.in.c + 3) / 4, os, forced_tile ? forced_tile : side, &p)) continue;
        dw->fused.expand = x + 1;
        dw->fused.pointwise = q + 1;
        dw->inputs[0] = in;
        dw->outputs[0] = pw->outputs[0];
        g.producer[pw->outputs[0]] = o;
        skip[x] = skip[q] = 1;
        fused += paired ? 1 : 2;
    }
    vki_op_index_free(&g);
    return fused;
}

vki_status vki_build_block(vki_build *b, const vki_model *m, int o) {
    const vki_op *dw = &m->ops[o];
    const vki_op *ex = &m->ops[dw->fused.expand - 1], *pw = &m->ops[dw->fused.pointwise - 1];
    const vki_op alone = depthwise_alone(dw, ex, pw);
    const vki_conv_window w = vki_conv_window_of(m, &alone);
    const vki_shape4 in = vki_tensor_shape4(vki_op_in(m, ex, 0));
    const vki_shape4 out = vki_tensor_shape4(vki_op_out(m, pw, 0));
    const int mid_s = (w.in.c + 3) / 4;
    block_plan p;
    const char *env = vki_build_env(b, VKI_ENV_BLOCK);
    const int forced = block_tile_override(env);
    long cost;
    const int side = forced ? forced : tile_side(&w, in.c, out, &cost);
    if (!plan(vki_build_device(b), &w, mid_s, out, side, &p))
        return vki_op_fail(m, o, VKI_ERROR_INTERNAL, "inverted residual block does not fit shared memory");
    int ew, eb, pwb, pbb;
    if (!vki_conv_1x1_blobs(b, m, ex, &ew, &eb) || !vki_conv_1x1_blobs(b, m, pw, &pwb, &pbb))
        return vki_fail_oom("graph build");
    size_t dcount;
    float *dwts = vki_conv_pack_depthwise(vki_op_in(m, dw, 1)->data, w.in.c, w.kh * w.kw, &dcount);
    const int dblob = dwts ? vki_build_weights(b, dwts, dcount) : -1;
    free(dwts);
    const vki_tensor *dbt = dw->n_inputs > 2 && dw->inputs[2] >= 0 ? vki_op_in(m, dw, 2) : NULL;
    const int dbias = vki_build_bias(b, dbt, w.in.c, (size_t)mid_s * 4);
    if (dblob < 0 || dbias < 0) return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_block, VKI_WG_REDUCE);
    vki_define_shape(&d, "IN", in);
    vki_define_int(&d, "MID_C", w.in.c);
    vki_define_int(&d, "MID_S", mid_s);
    vki_define_shape(&d, "OUT", out);
    vki_conv_define_window(&d, &w);
    vki_define_int(&d, "EXP_ACT", ex->opt.conv.activation);
    vki_define_int(&d, "DW_ACT", dw->opt.conv.activation);
    vki_define_activation(&d, pw->opt.conv.activation);
    vki_define_int(&d, "LANES", p.lanes);
    vki_define_int(&d, "TILE_W", p.tile_w);
    vki_define_int(&d, "TILE_H", p.tile_h);
    vki_define_int(&d, "CHUNK_S", p.chunk_s);
    vki_define_int(&d, "KSPLIT", p.ksplit);
    vki_define_int(&d, "EX_PX", p.ex_px);
    vki_define_int(&d, "PW_PX", p.pw_px);
    vki_dispatch_bind_tensor(&d, ex->inputs[0]);
    vki_dispatch_bind_weights(&d, ew);
    vki_dispatch_bind_weights(&d, eb);
    vki_dispatch_bind_weights(&d, dblob);
    vki_dispatch_bind_weights(&d, dbias);
    vki_dispatch_bind_weights(&d, pwb);
    vki_dispatch_bind_weights(&d, pbb);
    vki_status st = vki_build_bind_output(b, &d, pw);
    if (st) return st;
    snprintf(d.variant, sizeof d.variant, "%dx%d k%d c%d e%d p%d", p.tile_w, p.tile_h, p.ksplit,
             p.chunk_s, p.ex_px, p.pw_px);
    d.fixed_wg[0] = p.lanes;
    d.fixed_wg[1] = d.fixed_wg[2] = 1;
    d.grid[0] = (uint32_t)((out.w + p.tile_w - 1) / p.tile_w) * p.lanes;
    d.grid[1] = (uint32_t)((out.h + p.tile_h - 1) / p.tile_h);
    d.grid[2] = 1;
    return vki_build_dispatch(b, &d);
}
