// conv2d_1x1_tiled.comp: a 1x1 convolution with stride 1 and no padding as a tiled matrix
// product through shared memory, with the sum over input slices split across the work
// group, for GPUs (engine/ops/conv2d.c picks it, tiled_pays; it packs the weights as for
// conv2d.comp with WG_S slices a group).
//
// A work group computes one tile of WG_P pixels (of the flattened H*W plane) x WG_S output
// slices: work group x along the plane's tiles, z along the slice groups. It is
// SUB_P*SUB_S x KSPLIT threads: KSPLIT parts of SUB_P x SUB_S threads, part q summing input
// slices q*KC .. q*KC+KC-1 of every round of KC*KSPLIT. Each round the whole group loads
// the round's input (KC*KSPLIT slices x WG_P pixels) and weights (KC*KSPLIT x WG_S*4 vec4)
// into shared memory, coalesced, then every thread computes TILE_X pixels x TILE_S slices
// of the tile from its part's slices: pixels px, px + SUB_P, ... (adjacent threads read
// adjacent shared words) and slices sy*TILE_S .. +TILE_S-1 (threads of a row of the tile
// read the same weights, a broadcast). At the end the parts' sums meet in shared memory,
// part 0 adding parts 1, 2, ... in that order (the same result on every run), adds the
// bias and stores through STORE_OUTPUT.
//
// The split is what fills a GPU on the small planes of late layers: pose_landmark_heavy's
// 1x1 from 68 slices to 408 at 8x8 pixels is 102 tiles of 64 x 4; 4 parts make each 256
// threads, each part summing 17 slices.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 $ACT TILE_S=1 TILE_X=4 SUB_P=16 SUB_S=4 KC=4 KSPLIT={1|2|4} $CONV_WINDOW
// variant: @bindings=4 TILE_S={2|4} TILE_X={1|2|8} SUB_P=16 SUB_S=4 KC={1|2|4} KSPLIT=2
//   + $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU TILE_S=1 TILE_X=4 SUB_P=16 SUB_S=4 KC=4 KSPLIT=4
//   + $EPILOGUE $CONV_WINDOW
// variant: @bindings=5 TILE_S=1 TILE_X=4 SUB_P=16 SUB_S=4 KC=4 KSPLIT=4 GATE_BINDING=4
//   + $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#define PLANE (OUT_W * OUT_H)
#define TILE (TILE_S * TILE_X)
#define NT (SUB_P * SUB_S)             // threads of a part
#define WG_P (SUB_P * TILE_X)          // the tile's pixels
#define WG_S (SUB_S * TILE_S)          // the tile's output slices
#define ROUND (KC * KSPLIT)            // input slices a round

shared FLT4 s_in[ROUND * WG_P];
shared FLT4 s_w[ROUND * WG_S * 4];
#if KSPLIT > 1
shared vec4 s_part[KSPLIT * NT];
#endif

void main() {
    const int li = int(gl_LocalInvocationID.x);
    const int part = int(gl_LocalInvocationID.y);
    const int tid = part * NT + li;
    const int tile_p = int(gl_WorkGroupID.x) * WG_P;
    const int group = int(gl_WorkGroupID.z);
    const int px = li % SUB_P, sy = li / SUB_P;

    vec4 acc[TILE];
    for (int i = 0; i < TILE; i++) acc[i] = vec4(0.0);
    for (int c0 = 0; c0 < IN_S; c0 += ROUND) {
        barrier();   // the previous round's reads are done
        for (int e = tid; e < ROUND * WG_P; e += NT * KSPLIT) {
            int is = c0 + e / WG_P, p = tile_p + e % WG_P;
            s_in[e] = is < IN_S && p < PLANE ? GATED(LOADF(src, is * PLANE + p), is) : FLT4(0.0);
        }
        for (int e = tid; e < ROUND * WG_S * 4; e += NT * KSPLIT) {
            int is = c0 + e / (WG_S * 4);
            s_w[e] = is < IN_S ? LOADF(weights, (group * IN_S + is) * (WG_S * 4) + e % (WG_S * 4))
                               : FLT4(0.0);
        }
        barrier();
        for (int k = part * KC; k < part * KC + KC; k++) {
            FLT4 v[TILE_X];
            for (int t = 0; t < TILE_X; t++) v[t] = s_in[k * WG_P + px + t * SUB_P];
            for (int j = 0; j < TILE_S; j++) {
                int w = (k * WG_S + sy * TILE_S + j) * 4;
                FLT4 w0 = s_w[w], w1 = s_w[w + 1], w2 = s_w[w + 2], w3 = s_w[w + 3];
                for (int t = 0; t < TILE_X; t++) {
                    vec4 a = acc[j * TILE_X + t];
                    MAC4(a, w0, w1, w2, w3, v[t]);
                    acc[j * TILE_X + t] = a;
                }
            }
        }
    }
#if KSPLIT > 1
    for (int i = 0; i < TILE; i++) {
        barrier();   // part 0 has read the previous element
        s_part[tid] = acc[i];
        barrier();
        if (part == 0)
            for (int q = 1; q < KSPLIT; q++) acc[i] += s_part[q * NT + li];
    }
    if (part != 0) return;
#endif
    for (int j = 0; j < TILE_S; j++) {
        int s = group * WG_S + sy * TILE_S + j;
        if (s >= OUT_S) break;
        vec4 b = LOAD(bias, s);
        for (int t = 0; t < TILE_X; t++) {
            int p = tile_p + px + t * SUB_P;
            if (p < PLANE) STORE_OUTPUT(p % OUT_W, p / OUT_W, s, acc[j * TILE_X + t] + b)
        }
    }
}
