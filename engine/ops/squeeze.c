/* squeeze.c: a squeeze-excite block's squeeze in one dispatch (glsl/squeeze.comp): the
 * global mean (an AVERAGE_POOL_2D with a 1x1 output, or a MEAN over H and W) and the two
 * 1x1 CONV_2Ds on its one cell that the squeeze pass (engine/emit/passes.c) folded into
 * the mean's op: the kernel's plan, which the pass asks whether it fits, and the build.
 *
 * One work group does it all, since the convolutions need every channel's mean: its lanes
 * first sum the input's slices (a row of lanes a slice), then split each convolution's
 * output slices' sums over rows of lanes, reading the mean and the middle layer from shared
 * memory. The unfused block is three dispatches of a few threads each: what it costs is
 * dispatches, not arithmetic. */
#include "conv_common.h"
#include "reduce.h"

#include <stdio.h>

/* Lanes of the work group on a GPU (capped by the device): the mean's rows of lanes keep
 * loads in flight, as reduce.comp's do. On a CPU device (lavapipe runs a work group as SIMD
 * loops on one core) a few vectors' worth. */
#define VKI_SQUEEZE_GPU_LANES 1024u
#define VKI_SQUEEZE_CPU_LANES 64u
/* A GPU fuses a block whose mean reads at most this many vec4s (window cells x input
 * slices): one work group streams them all. Measured on an H200 (run --profile, 50 runs,
 * selfie_segmentation with the pass and without, 1024 lanes): the blocks over 16x16 with 24
 * and 32 slices 12.4-13.1 -> 8.4-9.2 us, 32x32 with 6 slices 10.4 -> 6.9, 64x64 with 4
 * (16384 vec4s) 10.5-11.3 -> 7.6-8.6; 128x128 with 4 (65536) 10.8 -> 14.1 us. A CPU device
 * runs every work group on one core anyway: lavapipe's 128x128 block 0.34 -> 0.29 ms. */
#define VKI_SQUEEZE_GPU_MAX_VEC4 16384L
/* Below this the kernel is not worth a dispatch of its own: the pass leaves the block. */
#define VKI_SQUEEZE_MIN_LANES 32u
/* Bytes of one vec4 in shared memory: the lanes' partial sums, the mean's and the middle
 * layer's slices, all fp32. */
#define VKI_SQUEEZE_VEC4 16u
/* The Vulkan minimum for maxComputeSharedMemorySize, for a device that did not say. */
#define VKI_SQUEEZE_MIN_SHARED 16384u

typedef struct squeeze_plan {
    uint32_t lanes;     /* the work group (x) */
    int red_lanes;      /* lanes that sum one input slice (RED_LANES) */
    int mid_parts;      /* lanes that share one middle slice's sum (MID_PARTS) */
    int out_parts;      /* lanes that share one output slice's sum (OUT_PARTS) */
    int preload;        /* each sum one round, each lane one term: weights first (PRELOAD) */
} squeeze_plan;

static int floor_pow2(long x) {
    int p = 1;
    while ((long)p * 2 <= x) p *= 2;
    return p;
}

static int ceil_pow2(long x) {
    int p = 1;
    while (p < x) p *= 2;
    return p;
}

/* Lanes, a power of two, for in_s + mid_s slices in shared memory; 0 if even the fewest
 * do not fit. forced: VKI_SQUEEZE's lanes (0: the default), still within the limits. */
static uint32_t plan_lanes(const vki_wg_device *dev, int in_s, int mid_s, uint32_t forced) {
    const uint32_t shared = dev->max_shared_bytes ? dev->max_shared_bytes : VKI_SQUEEZE_MIN_SHARED;
    const uint32_t cap = vki_wg_lanes(
        dev, forced ? forced : dev->is_cpu ? VKI_SQUEEZE_CPU_LANES : VKI_SQUEEZE_GPU_LANES);
    uint32_t lanes = (uint32_t)floor_pow2(cap);
    const long fixed = (long)(in_s + mid_s) * VKI_SQUEEZE_VEC4;
    while (lanes >= VKI_SQUEEZE_MIN_LANES && fixed + (long)lanes * VKI_SQUEEZE_VEC4 > (long)shared)
        lanes /= 2;
    return lanes >= VKI_SQUEEZE_MIN_LANES ? lanes : 0;
}

/* Rows of lanes: each of n slices' sums of `terms` terms gets the most lanes that leave
 * every slice a row at once, and no more than it has terms. */
static int row_lanes(uint32_t lanes, int n, long terms) {
    int r = floor_pow2((long)lanes / n > 0 ? (long)lanes / n : 1);
    int most = ceil_pow2(terms);
    return r < most ? r : most;
}

static int plan(const vki_wg_device *dev, int in_c, int mid_c, int out_c, long cells,
                uint32_t forced, squeeze_plan *p) {
    const int in_s = (in_c + 3) / 4, mid_s = (mid_c + 3) / 4, out_s = (out_c + 3) / 4;
    p->lanes = plan_lanes(dev, in_s, mid_s, forced);
    if (!p->lanes) return 0;
    p->red_lanes = row_lanes(p->lanes, in_s, cells);
    p->mid_parts = row_lanes(p->lanes, mid_s, in_s);
    p->out_parts = row_lanes(p->lanes, out_s, mid_s);
    p->preload = (long)mid_s * p->mid_parts <= (long)p->lanes && p->mid_parts >= in_s &&
                 (long)out_s * p->out_parts <= (long)p->lanes && p->out_parts >= mid_s;
    return 1;
}

/* The cells the mean reads of each input slice: its input's top-left win_w x win_h. */
static void mean_window(const vki_model *m, const vki_op *mean, int *win_w, int *win_h) {
    const vki_shape4 in = vki_tensor_shape4(vki_op_in(m, mean, 0));
    *win_w = in.w;
    *win_h = in.h;
    if (mean->code == VKI_OP_AVERAGE_POOL_2D) vki_pool_global_window(&mean->opt.pool, in, win_w, win_h);
}

bool vki_squeeze_fits(const vki_wg_device *dev, const vki_model *m, const vki_op *mean,
                      int mid_c, int out_c) {
    const int in_c = vki_tensor_shape4(vki_op_in(m, mean, 0)).c;
    int win_w, win_h;
    mean_window(m, mean, &win_w, &win_h);
    const long cells = (long)win_w * win_h;
    if (!dev->is_cpu && cells * ((in_c + 3) / 4) > VKI_SQUEEZE_GPU_MAX_VEC4) return false;
    squeeze_plan p;
    return in_c > 0 && mid_c > 0 && out_c > 0 && plan(dev, in_c, mid_c, out_c, cells, 0, &p);
}

vki_status vki_build_squeeze(vki_build *b, const vki_model *m, int o) {
    const vki_op *mean = &m->ops[o];
    const vki_op *sq = &m->ops[mean->fused.squeeze - 1], *ex = &m->ops[mean->fused.excite - 1];
    const vki_shape4 in = vki_tensor_shape4(vki_op_in(m, mean, 0));
    const int mid_c = vki_op_in(m, ex, 1)->shape[3];
    const vki_shape4 out = vki_tensor_shape4(vki_op_out(m, ex, 0));
    int win_w, win_h;
    mean_window(m, mean, &win_w, &win_h);
    squeeze_plan p;
    /* VKI_SQUEEZE: the lanes, a power of two from VKI_SQUEEZE_MIN_LANES on. */
    const uint32_t forced =
        (uint32_t)vki_env_pow2(vki_build_env(b, VKI_ENV_SQUEEZE), VKI_SQUEEZE_MIN_LANES, 65536);
    if (!plan(vki_build_device(b), in.c, mid_c, out.c, (long)win_w * win_h, forced, &p))
        return vki_op_fail(m, o, VKI_ERROR_INTERNAL, "squeeze-excite block does not fit shared memory");
    int w1, b1, w2, b2;
    if (!vki_conv_1x1_blobs(b, m, sq, &w1, &b1) || !vki_conv_1x1_blobs(b, m, ex, &w2, &b2))
        return vki_fail_oom("graph build");

    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_squeeze, VKI_WG_REDUCE);
    vki_define_shape(&d, "IN", in);
    vki_define_int(&d, "WIN_W", win_w);
    vki_define_int(&d, "WIN_H", win_h);
    vki_define_int(&d, "MID_C", mid_c);
    vki_define_int(&d, "MID_S", (mid_c + 3) / 4);
    vki_define_shape(&d, "OUT", out);
    vki_define_int(&d, "MID_ACT", sq->opt.conv.activation);
    vki_define_activation(&d, ex->opt.conv.activation);
    vki_define_int(&d, "RED_LANES", p.red_lanes);
    vki_define_int(&d, "MID_PARTS", p.mid_parts);
    vki_define_int(&d, "OUT_PARTS", p.out_parts);
    if (p.preload) vki_define_int(&d, "PRELOAD", 1);
    vki_dispatch_bind_tensor(&d, mean->inputs[0]);
    vki_dispatch_bind_weights(&d, w1);
    vki_dispatch_bind_weights(&d, b1);
    vki_dispatch_bind_weights(&d, w2);
    vki_dispatch_bind_weights(&d, b2);
    vki_status st = vki_build_bind_output(b, &d, ex);
    if (st) return st;
    snprintf(d.variant, sizeof d.variant, "%ul%s", p.lanes, p.preload ? " preload" : "");
    d.fixed_wg[0] = p.lanes;
    d.fixed_wg[1] = d.fixed_wg[2] = 1;
    d.grid[0] = p.lanes;
    d.grid[1] = d.grid[2] = 1;
    return vki_build_dispatch(b, &d);
}
