/* conv2d.c: CONV_2D (NHWC input, [O,KH,KW,I] constant filter, optional bias, SAME/VALID
 * padding, strides, dilations, fused activation): validation, the choice of kernel and
 * tile, weight packing for the three kernels, and the C reference.
 *
 * Kernels (pick_plan chooses by shape and device):
 *  - direct (glsl/conv2d.comp): any window; a thread computes TILE_S output slices x
 *    TILE_X adjacent columns, so each input vec4 it loads serves TILE_S slices and each
 *    weight vec4 TILE_X columns;
 *  - 1x1 (glsl/conv2d_1x1.comp): pointwise windows (1x1, stride 1, no padding) as a
 *    matrix product over the flattened H*W plane, TILE_S slices x TILE_X pixels a thread;
 *  - tiled (glsl/conv2d_1x1_tiled.comp): pointwise windows as a matrix product through
 *    shared-memory tiles, each tile's sum split over KSPLIT parts of its work group (GPU);
 *  - split-K (glsl/conv2d_splitk.comp): any window, each output's sum split over SPLIT_K
 *    threads, for GPU layers with long sums and few outputs (splitk_pick).
 * The environment forces a kernel and tile for tests and device sweeps:
 * VKI_CONV_KERNEL="direct|1x1|splitk[:S,X]|tiled[:S,X[,K[,C]]]" (the pointwise kernels only
 * where the window is pointwise) and VKI_CONV_TILE="S,X" (the direct kernel with that tile,
 * unless VKI_CONV_KERNEL names another). The choice shows in the
 * profile as the dispatch's variant: "1x1 4sx8p" (slices x pixels a thread), "k3x3s2 4sx2c"
 * (window, stride, slices x columns), "tiled 2sx4p k4" (KSPLIT parts), "k1x1s1 split8".
 */
#include "conv_common.h"
#include "int8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_conv_check_operands(m, o);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *in = vki_op_in(m, op, 0);
    const vki_tensor *f = vki_op_in(m, op, 1);
    vki_shape4 is = vki_tensor_shape4(in);
    int oc = f->shape[0], fi = f->shape[3];
    if (fi != is.c) {
        /* TFLite expresses grouped convolution as a filter with fewer input channels. */
        if (is.c % fi == 0)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                               "grouped convolution is not supported: weights tensor %d '%s' has "
                               "%d input channels, input tensor %d has %d",
                               op->inputs[1], f->name, fi, op->inputs[0], is.c);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "weights tensor %d '%s' has %d input channels, input tensor %d has %d",
                           op->inputs[1], f->name, fi, op->inputs[0], is.c);
    }
    return vki_conv_check_window(m, o, oc);
}

/* Threads a tiling leaves. */
static long tile_threads(const vki_conv_window *g, int tile_s, int tile_x) {
    const int out_s = (g->out.c + 3) / 4;
    return (long)((g->out.w + tile_x - 1) / tile_x) * g->out.h * ((out_s + tile_s - 1) / tile_s);
}

/* The kernels a CONV_2D can run on. */
typedef enum vki_conv_kernel {
    VKI_CONV_DIRECT = 0,        /* conv2d.comp: any window */
    VKI_CONV_1X1,               /* conv2d_1x1.comp: pointwise, register tiles (CPU) */
    VKI_CONV_1X1_TILED,         /* conv2d_1x1_tiled.comp: pointwise, shared-memory tiles */
    VKI_CONV_SPLITK,            /* conv2d_splitk.comp: any window, each sum split (GPU) */
    VKI_CONV_KERNEL_COUNT
} vki_conv_kernel;

static const char *const kernel_names[] = {"direct", "1x1", "tiled", "splitk"};

/* The tiled kernel's work group: KSPLIT parts of SUB_P x SUB_S threads, each thread TILE_X
 * pixels by TILE_S slices, a part summing KC input slices of each round (see
 * glsl/conv2d_1x1_tiled.comp). */
#define VKI_TILED_SUB_P 16
#define VKI_TILED_SUB_S 4
#define VKI_TILED_KC 4
#define VKI_TILED_MAX_KSPLIT 16

typedef struct vki_conv_plan {
    vki_conv_kernel kernel;
    int tile_s, tile_x;         /* output slices and columns (direct) or pixels per thread;
                                   split-K: 1 and the threads sharing a sum (SPLIT_K) */
    int ksplit, kc;             /* tiled: the parts a tile's sum is split over, and the
                                   input slices each sums a round */
} vki_conv_plan;

/* The split-K kernel's work group: SPLIT_K threads a sum times VKI_SPLITK_THREADS / SPLIT_K
 * outputs; its groups run along y, at most the least maxComputeWorkGroupCount[1]. */
#define VKI_SPLITK_THREADS 128
#define VKI_SPLITK_MAX_GROUPS 65535L

/* The split-K kernel's outputs: one a pixel and output slice. */
static long splitk_outputs(const vki_conv_window *g) {
    return (long)g->out.w * g->out.h * ((g->out.c + 3) / 4);
}

/* Work groups the split-K kernel needs for a window split `split` ways. */
static long splitk_groups(const vki_conv_window *g, int split) {
    const long outs = VKI_SPLITK_THREADS / split;
    return (splitk_outputs(g) + outs - 1) / outs;
}

/* The split a GPU takes by default: the sum's steps (taps x input slices) split over the
 * largest power of two up to VKI_SPLITK_MAX threads that leaves each at least
 * VKI_SPLITK_MIN_STEPS steps and the layer at most VKI_SPLITK_MAX_THREADS threads; 0 (the
 * direct kernel) where that is under 4, or the sum is shorter than VKI_SPLITK_MIN_SUM.
 * Measured on an H200 (run --profile, 30 runs, every CONV_2D of ten MediaPipe models, 387
 * layers, with the direct kernel and with splits of 4, 8, 16 and 32): this rule's layers
 * take 2930 us in all against the direct kernel's 3703 and 2864 with each layer's best
 * split. Long sums over few outputs gain most: pose_landmark_full's 1x1 from 216 input
 * slices at 8x8x12 25.4 -> 7.7 us (split 32), its 2x2 head over 72 slices 31.1 -> 6.5;
 * short sums or many outputs lose (a 1x1 over 16 slices at 56x56x4: 5.9 direct, 9.8 at
 * split 32, more threads than the GPU holds at once). The thresholds were the best of a
 * grid (minimum steps 1-8, threads 16k-128k, minimum sum 8-48) within 0.2%. On an H100
 * the rule's layers of pose_landmark_heavy took 1489 us against 1372 with each layer's best
 * of splits 4, 8 and 32. A thread taking 2 or 4 output slices (each input load feeding
 * them all, as the direct kernel's TILE_S) was slower on every layer there: 3089-3730 us
 * in all, 2x on the long sums: fewer threads, and each sum's steps no shorter. Loading 2, 4
 * or 8 steps before their multiply-adds (more loads in flight a thread) gained at most 2.4%
 * there (1011 -> 987 us over its split-K layers) and nothing on five other models (H100). */
#define VKI_SPLITK_MAX 32
#define VKI_SPLITK_MIN_STEPS 2
#define VKI_SPLITK_MAX_THREADS 65536L
#define VKI_SPLITK_MIN_SUM 16
static int splitk_pick(const vki_wg_device *dev, const vki_conv_window *g) {
    if (dev->is_cpu) return 0;
    const long steps = (long)g->kh * g->kw * ((g->in.c + 3) / 4);
    const long n = splitk_outputs(g);
    if (steps < VKI_SPLITK_MIN_SUM) return 0;
    int k = VKI_SPLITK_MAX;
    while (k >= 4 && (steps / k < VKI_SPLITK_MIN_STEPS || n * k > VKI_SPLITK_MAX_THREADS)) k /= 2;
    return k >= 4 ? k : 0;
}

/* Shared memory the tiled kernel declares (glsl/conv2d_1x1_tiled.comp), at 16 bytes a
 * vec4: a round's input and weights, and the parts' sums where there are several. */
static uint32_t tiled_shared(const vki_conv_plan *p) {
    const uint32_t round = (uint32_t)(p->kc * p->ksplit);
    const uint32_t wg_p = (uint32_t)p->tile_x * VKI_TILED_SUB_P;
    const uint32_t wg_s = (uint32_t)p->tile_s * VKI_TILED_SUB_S;
    const uint32_t parts =
        p->ksplit > 1 ? (uint32_t)p->ksplit * VKI_TILED_SUB_P * VKI_TILED_SUB_S : 0;
    return 16u * (round * wg_p + round * wg_s * 4 + parts);
}

/* Tiles of the tiled kernel's plane: its work groups along x. */
static long tiled_plane_tiles(const vki_conv_window *g, const vki_conv_plan *p) {
    const long wg_p = (long)p->tile_x * VKI_TILED_SUB_P;
    return ((long)g->out.w * g->out.h + wg_p - 1) / wg_p;
}

/* Threads the tiled kernel runs for a plan. */
static long tiled_threads(const vki_conv_window *g, const vki_conv_plan *p) {
    const int out_s = (g->out.c + 3) / 4, wg_s = p->tile_s * VKI_TILED_SUB_S;
    return tiled_plane_tiles(g, p) * ((out_s + wg_s - 1) / wg_s) * VKI_TILED_SUB_P *
           VKI_TILED_SUB_S * p->ksplit;
}

/* Fits the tiled kernel's split to the layer and the device, p's tile given: KSPLIT
 * `ksplit`, or where that is 0 the largest power of two up to VKI_TILED_MAX_KSPLIT that
 * leaves each part at least VKI_TILED_MIN_ROUNDS rounds and the layer at most
 * VKI_TILED_MAX_THREADS threads; KC `kc`, or VKI_TILED_KC where 0. Then KC and KSPLIT are
 * halved (KC first, down to 2) until the work group and its shared memory fit the device.
 * False where the plane has more tiles than one dispatch's x holds or nothing fits. */
#define VKI_TILED_MIN_ROUNDS 2
#define VKI_TILED_MAX_THREADS 131072L
static bool tiled_fit(const vki_wg_device *dev, const vki_conv_window *g, vki_conv_plan *p,
                      int ksplit, int kc) {
    const int in_s = (g->in.c + 3) / 4;
    p->kc = kc ? kc : VKI_TILED_KC;
    p->ksplit = ksplit ? ksplit : VKI_TILED_MAX_KSPLIT;
    if (!ksplit)
        while (p->ksplit > 1 && (in_s < VKI_TILED_MIN_ROUNDS * p->kc * p->ksplit ||
                                 tiled_threads(g, p) > VKI_TILED_MAX_THREADS))
            p->ksplit /= 2;
    const uint32_t max_shared = dev->max_shared_bytes ? dev->max_shared_bytes : 16384;
    const uint32_t max_threads = dev->max_invocations ? dev->max_invocations : 128;
    for (;;) {
        const uint32_t threads = (uint32_t)(VKI_TILED_SUB_P * VKI_TILED_SUB_S * p->ksplit);
        const bool fits = tiled_shared(p) <= max_shared && threads <= max_threads &&
                          (!dev->max_size[1] || (uint32_t)p->ksplit <= dev->max_size[1]);
        if (fits) break;
        if (p->kc > 2) p->kc /= 2;
        else if (p->ksplit > 1) p->ksplit /= 2;
        else if (p->kc > 1) p->kc = 1;
        else return false;
    }
    return tiled_plane_tiles(g, p) <= 65535;
}

/* Whether a GPU runs a pointwise window on the tiled kernel (1 slice x 4 pixels a thread,
 * the sum split VKI_TILED_GPU_KSPLIT ways) rather than the direct kernel's one output a
 * thread: where the direct kernel keeps a 1x1 tile (too few threads to widen it), each
 * output sums at least VKI_TILED_MIN_SLICES input slices and the layer has at least
 * VKI_TILED_MIN_MACS multiply-adds. Measured on an H100 (run --profile, 20 runs, every 1x1
 * CONV_2D of six MediaPipe models under each kernel): the layers the rule takes, all in
 * pose_landmark_heavy, went 20.3 -> 13.5 us (8x8 pixels, 68 -> 408 slices), 13.7 -> 11.0
 * (16x16, 40 -> 240), 10.5 -> 7.3 (32x32, 14 -> 84) and 10.0 -> 8.5 (16x16, 28 -> 168);
 * shorter sums or smaller layers lost 1-3 us each to the tiled kernel's two barriers a
 * round (pose_landmark_full's 16x16 from 22 to 132 slices, 12 MMAC: 6.8 -> 7.2-7.8), and
 * so did wide direct tiles (1x2, 2x2). Tiles of 2x2 and 2x4 or 4x4 a thread were no better
 * than 1x4 or far worse (2x4: 2x the time), and against split-K's long sums the tiled
 * kernel won 35.8 -> 29.9 us at 240 slices but lost 37 -> 50 at 408, so those keep
 * split-K. */
#define VKI_TILED_GPU_KSPLIT 4
#define VKI_TILED_MIN_SLICES 12
#define VKI_TILED_MIN_MACS 15000000
static bool tiled_pays(const vki_wg_device *dev, const vki_conv_window *g, int tile_s,
                       int tile_x) {
    const int in_s = (g->in.c + 3) / 4;
    const int64_t macs = (int64_t)g->out.w * g->out.h * g->out.c * g->in.c;
    return !dev->is_cpu && tile_s == 1 && tile_x == 1 && in_s >= VKI_TILED_MIN_SLICES &&
           macs >= VKI_TILED_MIN_MACS;
}

/* A 1x1 window with stride 1 and no padding reads input pixel p for output pixel p. */
static bool is_pointwise(const vki_conv_window *g) {
    return g->kh == 1 && g->kw == 1 && g->stride_h == 1 && g->stride_w == 1 && g->pad_h == 0 &&
           g->pad_w == 0 && g->in.h == g->out.h && g->in.w == g->out.w;
}

/* Output slices (TILE_S) and columns (TILE_X) per thread of the direct kernel. Wider tiles
 * reuse loads but leave fewer threads. Measured on MobileNet-sized layers (kernel time):
 * on an H200 the 1,1 tile is best or tied, and wider ones lose 1.4-3x once fewer than ~64k
 * threads remain, the GPU running out of warps to hide latency. So GPUs widen only while
 * at least VKI_CONV_MIN_THREADS threads remain, columns first.
 * CPU devices get 2 slices x 4 columns. On lavapipe (2 cores, `run --profile`, the best of
 * two runs of 8) every windowed layer of five MediaPipe models was faster at 2x4 than at
 * the earlier 4x2, and at 2x4 than at 4x4 in 4 of 7: the first layers (3x3 or 5x5, stride 2,
 * 3 input channels) 1.90 / 1.99 / 2.52 / 3.31 / 1.66 ms at 4x2 against 1.47 / 1.11 / 1.48 /
 * 1.86 / 1.31 at 2x4 (face_detection_full_range, face_detection_short_range,
 * hand_landmark_lite, pose_landmark_lite, selfie_segmentation), pose_landmark_lite's 3x3
 * stride-1 layer 14.98 against 5.11 (4x4: 7.74). A 4-slice tile streams 4 slices' weights
 * per input vec4, and every load is a loop over the lanes on a CPU device; 2x4 halves those
 * weight loads per output against 4x2 and keeps 8 accumulators. Where the input is one
 * slice (3 or 4 channels: the first layers) each tap's weights are all a thread loads
 * besides one input vec4, and 8 columns share them: 2x8 against 2x4 on the same five first
 * layers (best of two runs of 8) 1.45 / 1.14 / 1.49 / 1.86 / 1.24 -> 1.20 / 0.85 / 1.19 /
 * 1.37 / 1.05 ms; on pose_landmark_lite's layers of more input slices 8 columns lost
 * (its 3x3 stride-1 layer 3.06 -> 3.48 ms). */
#define VKI_CONV_MIN_THREADS 65536L
static void direct_tile(const vki_wg_device *dev, const vki_conv_window *g, int *tile_s,
                        int *tile_x) {
    const int out_s = (g->out.c + 3) / 4;
    *tile_s = 1;
    *tile_x = 1;
    if (dev->is_cpu) {
        /* A CPU device runs a work group as one SIMD loop on one core: threads are cheap
         * to lose and reuse in registers is everything. */
        *tile_s = out_s >= 2 ? 2 : 1;
        *tile_x = g->in.c <= 4 && g->out.w >= 8 ? 8 : g->out.w >= 4 ? 4 : g->out.w;
    } else {
        if (g->out.w >= 4 && tile_threads(g, 1, 2) >= VKI_CONV_MIN_THREADS) *tile_x = 2;
        if (out_s >= 2 && tile_threads(g, 2, *tile_x) >= VKI_CONV_MIN_THREADS) *tile_s = 2;
        if (out_s >= 4 && tile_threads(g, 4, *tile_x) >= VKI_CONV_MIN_THREADS) *tile_s = 4;
    }
}

/* Reads up to max comma-separated positive integers ("2,4,8") into v: their count, or -1
 * where the text is anything else. */
static int parse_ints(const char *text, int *v, int max) {
    int n = 0;
    for (;;) {
        char *end;
        long x = strtol(text, &end, 10);
        if (end == text || x < 1 || x > 1024 || n == max) return -1;
        v[n++] = (int)x;
        if (!*end) return n;
        if (*end != ',') return -1;
        text = end + 1;
    }
}

static bool is_pow2(int x) { return x > 0 && !(x & (x - 1)); }

/* The kernel and tile for a window on a device.
 *
 * CPU devices (lavapipe: a work group is one 8-lane SIMD loop, and every storage-buffer
 * load, uniform or not, is a loop over the lanes) run pointwise windows on the 1x1 kernel
 * with 4 slices x 8 pixels a thread: 12 vec4 loads per 32 outputs and input slice,
 * against 18 per 8 for the direct kernel's 4x2. Measured on lavapipe (2 cores, CPU time
 * per inference of hand_landmark_lite, whose 1x1 convolutions are 116 of its 160 MMAC,
 * medians of 2): direct 4x2 80 ms; 1x1 4x2 77, 4x4 60, 8x4 61, 2x8 56, 4x8 52, 8x8 53;
 * in a second round 4x8 49, 4x12 47, 8x16 48, 4x16 50. Tiles past 4x8 gain little and
 * leave fewer threads for small layers, so 4x8. (Tile loops are [[unroll]]ed: without it
 * tiles of 32 outputs and up fell off a cliff, the 1x1 convolutions of that model taking
 * 81 GPU ms at 4x8 against 42 at 4x4, the accumulators going to memory.)
 * The direct kernel takes other windows on CPUs, with direct_tile's 2x4.
 * GPUs keep the direct kernel and its thread-count rule (direct_tile), split-K for long
 * sums over few outputs (splitk_pick) and the tiled kernel for long pointwise sums over
 * more (tiled_pays). An integer (int8) pointwise window
 * takes the 1x1 kernel everywhere, GPUs with the direct kernel's tile: its packed form
 * sums 4 byte products per instruction (INT8_PACKED), the direct kernel's integer form
 * unpacks every byte. */
static vki_conv_plan pick_plan(const vki_build *b, const vki_conv_window *g, bool int8) {
    const vki_wg_device *dev = vki_build_device(b);
    vki_conv_plan p = {.kernel = VKI_CONV_DIRECT, .tile_s = 1, .tile_x = 1};
    const bool pointwise = is_pointwise(g);
    const int out_s = (g->out.c + 3) / 4;
    direct_tile(dev, g, &p.tile_s, &p.tile_x);
    if (dev->is_cpu && pointwise) {
        p.kernel = VKI_CONV_1X1;
        p.tile_s = out_s >= 4 ? 4 : out_s >= 2 ? 2 : 1;
        p.tile_x = 8;
    }
    if (int8 && pointwise) p.kernel = VKI_CONV_1X1;
    const int split = dev->is_cpu || int8 ? 0 : splitk_pick(dev, g);
    if (split) p = (vki_conv_plan){.kernel = VKI_CONV_SPLITK, .tile_s = 1, .tile_x = split};
    vki_conv_plan tiled = {.kernel = VKI_CONV_1X1_TILED, .tile_s = 1, .tile_x = 4};
    if (!split && !int8 && pointwise && tiled_pays(dev, g, p.tile_s, p.tile_x) &&
        tiled_fit(dev, g, &tiled, VKI_TILED_GPU_KSPLIT, 0))
        p = tiled;

    /* VKI_CONV_KERNEL="direct|1x1|splitk|tiled[:S,X]" forces a kernel (the pointwise ones
     * only where the window is pointwise) and optionally its tile: split-K with S 1 and X
     * threads a sum, a power of two up to 64, default 8; the tiled kernel's "S,X,K,C" its
     * sum split K ways (a power of two up to VKI_TILED_MAX_KSPLIT) and C input slices a part
     * and round (KC), both by default as tiled_fit fits them. VKI_CONV_TILE="S,X" forces
     * the direct kernel's tile. For tests and device sweeps. */
    const char *env = vki_build_env(b, VKI_ENV_CONV_KERNEL);
    if (env) {
        for (int k = 0; k < VKI_CONV_KERNEL_COUNT; k++) {
            size_t n = strlen(kernel_names[k]);
            if (strncmp(env, kernel_names[k], n) || (env[n] && env[n] != ':')) continue;
            if (k != VKI_CONV_DIRECT && k != VKI_CONV_SPLITK && !pointwise) break;
            const bool split_k = k == VKI_CONV_SPLITK, tiled = k == VKI_CONV_1X1_TILED;
            vki_conv_plan f = {.kernel = (vki_conv_kernel)k, .tile_s = 2, .tile_x = 4};
            if (k == VKI_CONV_DIRECT) direct_tile(dev, g, &f.tile_s, &f.tile_x);
            if (k == VKI_CONV_1X1)
                f = p.kernel == VKI_CONV_1X1
                        ? p
                        : (vki_conv_plan){.kernel = VKI_CONV_1X1, .tile_s = 4, .tile_x = 8};
            if (split_k) f = (vki_conv_plan){.kernel = VKI_CONV_SPLITK, .tile_s = 1, .tile_x = 8};
            if (tiled && p.kernel == VKI_CONV_1X1_TILED) f = p;
            int v[4] = {0}, nv = env[n] ? parse_ints(env + n + 1, v, tiled ? 4 : 2) : 0;
            if (nv < 0 || nv == 1 || v[0] > (split_k ? 1 : 8) || v[1] > (split_k ? 64 : 16))
                break;
            if (nv) {
                f.tile_s = v[0];
                f.tile_x = v[1];
            }
            if (split_k && !is_pow2(f.tile_x)) break;
            if (k == VKI_CONV_DIRECT && f.tile_x > 8) break;
            if (tiled && (nv > 2 && (!is_pow2(v[2]) || v[2] > VKI_TILED_MAX_KSPLIT || v[3] > 8)))
                break;
            if (tiled && (nv || f.kernel != p.kernel) && !tiled_fit(dev, g, &f, v[2], v[3]))
                break;
            p = f;
            break;
        }
    }
    const bool kernel_forced = env != NULL;
    env = vki_build_env(b, VKI_ENV_CONV_TILE);
    if (env && (p.kernel == VKI_CONV_DIRECT || !kernel_forced)) {
        vki_conv_plan f = {.kernel = VKI_CONV_DIRECT, .tile_s = 1, .tile_x = 1};
        int v[2];
        if (parse_ints(env, v, 2) == 2 && v[0] <= 8 && v[1] <= 8) {
            f.tile_s = v[0];
            f.tile_x = v[1];
            p = f;
        }
    }
    return p;
}

/* Weights for slice group gi (TILE_S output slices), tap (ky,kx) and input slice is are
 * TILE_S*4 consecutive vec4: for output slice j of the group and input lane i, a vec4 of
 * the 4 output channels' weights for input channel is*4+i. Groups past the real output
 * slices, padded output channels and padded input lanes are zero. */
static float *pack_weights(const float *f, const vki_conv_window *g, int tile_s, size_t *count) {
    const int in_s = (g->in.c + 3) / 4, out_s = (g->out.c + 3) / 4;
    const int groups = (out_s + tile_s - 1) / tile_s;
    const int ic = g->in.c, oc = g->out.c;
    *count = (size_t)groups * g->kh * g->kw * in_s * tile_s * 16;
    float *w = vki_calloc(*count, sizeof(float));
    if (!w) return NULL;
    size_t at = 0;
    for (int gi = 0; gi < groups; gi++)
        for (int ky = 0; ky < g->kh; ky++)
            for (int kx = 0; kx < g->kw; kx++)
                for (int is = 0; is < in_s; is++)
                    for (int j = 0; j < tile_s; j++)
                        for (int i = 0; i < 4; i++)
                            for (int lane = 0; lane < 4; lane++, at++) {
                                int co = ((gi * tile_s + j) * 4) + lane, ci = is * 4 + i;
                                if (co < oc && ci < ic)
                                    w[at] = f[(((size_t)co * g->kh + ky) * g->kw + kx) * ic + ci];
                            }
    return w;
}

/* The integer form (int8.h): int8 / uint8 input and output, quantized weights per tensor
 * or per output channel. */
static bool integer(const vki_model *m, const vki_op *op) { return vki_int8_conv_ok(m, op, 0); }

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

/* The integer 1x1 and direct kernels' packed form (INT8_PACKED, conv2d_1x1.comp and
 * conv2d.comp, which reads the zero point for a tap outside the input): it sums products of
 * the raw q bytes, 4 per 32-bit word, by packed dot products where the device has them,
 * so each 4x4 block of pack_weights' output is transposed (a word holds one output
 * channel's weights for 4 input lanes), and the input's zero point times each output
 * channel's weight sum comes off its bias (adjust, oc values). False, and the plain form
 * runs, where a weight (q - zero point) does not fit a signed byte. */
static bool pack_q8_dot(float *w, size_t count, const float *values, const vki_conv_window *g,
                        int zero, int32_t *adjust) {
    const size_t taps = (size_t)g->kh * g->kw * g->in.c;
    if (!vki_int8_packed_adjust(w, count, values, g->out.c, taps, zero, adjust)) return false;
    for (size_t blk = 0; blk + 16 <= count; blk += 16)
        for (int i = 0; i < 4; i++)
            for (int o = i + 1; o < 4; o++) {
                float t = w[blk + i * 4 + o];
                w[blk + i * 4 + o] = w[blk + o * 4 + i];
                w[blk + o * 4 + i] = t;
            }
    return true;
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_conv_window g = vki_conv_window_of(m, op);
    const bool int8 = runs_integer(m, op);
    vki_conv_plan p = pick_plan(b, &g, int8);
    /* The shared-memory kernel has no integer form: the register-tiled one takes it. The
     * split-K kernel has none either, and needs few enough work groups: the direct kernel
     * takes those. */
    if (int8 && p.kernel == VKI_CONV_1X1_TILED)
        p = (vki_conv_plan){.kernel = VKI_CONV_1X1, .tile_s = 4, .tile_x = 8};
    if (p.kernel == VKI_CONV_SPLITK &&
        (int8 || splitk_groups(&g, p.tile_x) > VKI_SPLITK_MAX_GROUPS)) {
        p.kernel = VKI_CONV_DIRECT;
        direct_tile(vki_build_device(b), &g, &p.tile_s, &p.tile_x);
    }
    const int out_s = (g.out.c + 3) / 4;
    /* Output slices that share a run of packed weights: a thread's, or the tiled kernel's
     * work-group tile of VKI_TILED_SUB_S threads' slices. */
    const int group_s = p.kernel == VKI_CONV_1X1_TILED ? p.tile_s * VKI_TILED_SUB_S : p.tile_s;
    const int groups = (out_s + group_s - 1) / group_s;

    size_t count;
    /* The integer form packs q - zero point of the weights the same way. */
    float *values = int8 ? vki_int8_weight_values(vki_op_in(m, op, 1)) : NULL;
    if (int8 && !values) return vki_fail_oom("graph build");
    float *w = pack_weights(int8 ? values : vki_op_in(m, op, 1)->data, &g, group_s, &count);
    const bool packable = int8 && (p.kernel == VKI_CONV_1X1 || p.kernel == VKI_CONV_DIRECT);
    int32_t *adjust = packable ? vki_calloc((size_t)g.out.c, sizeof *adjust) : NULL;
    const bool packed = w && adjust &&
                        pack_q8_dot(w, count, values, &g, vki_op_in(m, op, 0)->quant_zero, adjust);
    free(values);
    if (!w || (packable && !adjust)) {
        free(w);
        free(adjust);
        return vki_fail_oom("graph build");
    }
    int wblob = int8 ? vki_build_weights_q8(b, w, count) : vki_build_weights(b, w, count);
    free(w);
    /* Bias padded to whole groups so the kernel reads it without a bound check. */
    const vki_tensor *bt = op->n_inputs > 2 ? vki_op_in(m, op, 2) : NULL;
    const size_t bias_count = (size_t)groups * group_s * 4;
    int bblob = int8 ? vki_int8_bias_blob_adjusted(b, m, op, bias_count, packed ? adjust : NULL)
                     : vki_build_bias(b, bt, g.out.c, bias_count);
    free(adjust);
    if (wblob < 0 || bblob < 0) return vki_fail_oom("graph build");

    static const char *const kernels[] = {VKI_KERNEL_conv2d, VKI_KERNEL_conv2d_1x1,
                                          VKI_KERNEL_conv2d_1x1_tiled, VKI_KERNEL_conv2d_splitk};
    vki_dispatch d;
    /* A pointwise window is its own table class; the split-K and tiled kernels' work
     * groups are part of their tiling (REDUCE: never tuned). */
    const vki_wg_class cls = p.kernel == VKI_CONV_SPLITK || p.kernel == VKI_CONV_1X1_TILED
                                 ? VKI_WG_REDUCE
                             : is_pointwise(&g) ? VKI_WG_CONV_1X1
                                                : VKI_WG_CONV;
    vki_conv_dispatch(&d, kernels[p.kernel], cls, &g, int8 ? VKI_ACT_NONE : op->opt.conv.activation,
                      op->inputs[0], wblob, bblob, -1);
    vki_status st = vki_build_bind_output(b, &d, op);
    if (st) return st;
    if (op->fused.gate) {   /* a MUL's per-channel gate, applied as input 0 loads (GATED) */
        vki_define_int(&d, "GATE_BINDING", d.n_bindings);
        vki_dispatch_bind_tensor(&d, op->fused.gate - 1);
    }
    if (int8 && (st = vki_int8_define_epilogue(b, &d, m, op, op->opt.conv.activation, bias_count)))
        return st;
    if (packed) vki_int8_define_packed(b, &d, vki_op_in(m, op, 0));
    if (p.kernel == VKI_CONV_SPLITK) {
        const int outs = VKI_SPLITK_THREADS / p.tile_x;
        vki_define_int(&d, "SPLIT_K", p.tile_x);
        vki_define_int(&d, "OUTS", outs);
        snprintf(d.variant, sizeof d.variant, "k%dx%ds%d split%d", g.kh, g.kw, g.stride_w,
                 p.tile_x);
        d.fixed_wg[0] = (uint32_t)p.tile_x;
        d.fixed_wg[1] = (uint32_t)outs;
        d.fixed_wg[2] = 1;
        d.grid[0] = (uint32_t)p.tile_x;
        d.grid[1] = (uint32_t)(splitk_groups(&g, p.tile_x) * outs);
        d.grid[2] = 1;
        return vki_build_dispatch(b, &d);
    }
    vki_define_int(&d, "TILE_S", p.tile_s);
    vki_define_int(&d, "TILE_X", p.tile_x);
    const long plane = (long)g.out.w * g.out.h;
    /* The packed integer form says how it sums: dot product instructions or not. */
    const char *form = !packed ? "" : vki_build_int_dot(b) ? " q8dot" : " q8";
    if (p.kernel == VKI_CONV_DIRECT) {
        snprintf(d.variant, sizeof d.variant, "k%dx%ds%d %dsx%dc%s", g.kh, g.kw, g.stride_w,
                 p.tile_s, p.tile_x, form);
        d.grid[0] = (uint32_t)((g.out.w + p.tile_x - 1) / p.tile_x);
        d.grid[1] = (uint32_t)g.out.h;
    } else if (p.kernel == VKI_CONV_1X1_TILED) {
        /* A work group a tile: KSPLIT parts of VKI_TILED_SUB_P x VKI_TILED_SUB_S threads,
         * the plane's tiles along x and the slice groups along z. */
        vki_define_int(&d, "SUB_P", VKI_TILED_SUB_P);
        vki_define_int(&d, "SUB_S", VKI_TILED_SUB_S);
        vki_define_int(&d, "KC", p.kc);
        vki_define_int(&d, "KSPLIT", p.ksplit);
        snprintf(d.variant, sizeof d.variant, "tiled %dsx%dp k%d", p.tile_s, p.tile_x, p.ksplit);
        d.fixed_wg[0] = VKI_TILED_SUB_P * VKI_TILED_SUB_S;
        d.fixed_wg[1] = (uint32_t)p.ksplit;
        d.fixed_wg[2] = 1;
        d.grid[0] = (uint32_t)(tiled_plane_tiles(&g, &p) * VKI_TILED_SUB_P * VKI_TILED_SUB_S);
        d.grid[1] = (uint32_t)p.ksplit;
    } else {
        snprintf(d.variant, sizeof d.variant, "1x1 %dsx%dp%s", p.tile_s, p.tile_x, form);
        d.grid[0] = (uint32_t)((plane + p.tile_x - 1) / p.tile_x);
        d.grid[1] = 1;
    }
    d.grid[2] = (uint32_t)groups;
    return vki_build_dispatch(b, &d);
}

/* Direct transcription of TFLite's float Conv: out[y][x][co] = act(bias[co] +
 * sum over ky, kx, ci of in[y*sh - pad + ky*dh][x*sw - pad + kx*dw][ci] * f[co][ky][kx][ci]),
 * taps outside the input contributing zero. Accumulates in double. */
/* The integer form: TFLite's int8 Conv on q - zero point, summed exactly in int32 and
 * requantized as int8.h says. */
static void reference_int8(const vki_model *m, const vki_op *op, const float *src, float *dst) {
    const vki_conv_options *c = &op->opt.conv;
    const vki_conv_window w = vki_conv_window_of(m, op);
    const vki_shape4 is = w.in, os = w.out;
    const vki_tensor *ft = vki_op_in(m, op, 1);
    size_t inner = (size_t)w.kh * w.kw * is.c;
    int lo, hi;
    vki_int8_activation_range(vki_op_out(m, op, 0), c->activation, &lo, &hi);
    for (int y = 0; y < os.h; y++)
        for (int x = 0; x < os.w; x++)
            for (int co = 0; co < os.c; co++) {
                int32_t sum = vki_int8_bias(m, op, co);
                for (int ky = 0; ky < w.kh; ky++) {
                    int iy = y * c->stride_h - w.pad_h + ky * w.dil_h;
                    if (iy < 0 || iy >= is.h) continue;
                    for (int kx = 0; kx < w.kw; kx++) {
                        int ix = x * c->stride_w - w.pad_w + kx * w.dil_w;
                        if (ix < 0 || ix >= is.w) continue;
                        const float *p = src + ((size_t)iy * is.w + ix) * is.c;
                        size_t f = (((size_t)co * w.kh + ky) * w.kw + kx) * is.c;
                        for (int ci = 0; ci < is.c; ci++)
                            sum += (int32_t)p[ci] * vki_tensor_qvalue(ft, f + (size_t)ci, inner);
                    }
                }
                dst[((size_t)y * os.w + x) * os.c + co] =
                    vki_int8_requantize(sum, vki_int8_conv_scale(m, op, co), lo, hi);
            }
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    if (runs_integer(m, op)) {
        reference_int8(m, op, in[0], out[0]);
        return;
    }
    const vki_conv_options *c = &op->opt.conv;
    const vki_conv_window w = vki_conv_window_of(m, op);
    const vki_shape4 is = w.in, os = w.out;
    const int kh = w.kh, kw = w.kw, dh = w.dil_h, dw = w.dil_w, ph = w.pad_h, pw = w.pad_w;
    const float *src = in[0], *f = in[1], *bias = op->n_inputs > 2 ? in[2] : NULL;
    for (int y = 0; y < os.h; y++)
        for (int x = 0; x < os.w; x++)
            for (int co = 0; co < os.c; co++) {
                double sum = bias ? bias[co] : 0.0;
                for (int ky = 0; ky < kh; ky++) {
                    int iy = y * c->stride_h - ph + ky * dh;
                    if (iy < 0 || iy >= is.h) continue;
                    for (int kx = 0; kx < kw; kx++) {
                        int ix = x * c->stride_w - pw + kx * dw;
                        if (ix < 0 || ix >= is.w) continue;
                        const float *p = src + ((size_t)iy * is.w + ix) * is.c;
                        const float *q = f + (((size_t)co * kh + ky) * kw + kx) * is.c;
                        for (int ci = 0; ci < is.c; ci++) sum += (double)p[ci] * q[ci];
                    }
                }
                out[0][((size_t)y * os.w + x) * os.c + co] =
                    vki_apply_activation(c->activation, (float)sum);
            }
}

const vki_op_def vki_op_conv2d = {
    .validate = validate, .build = build, .reference = reference,
    .options = vki_conv_read_options, .integer = integer};
