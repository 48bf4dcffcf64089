// conv2d_1x1_tiled.comp: a 1x1 convolution with stride 1 and no padding as a tiled matrix
// product through shared memory, for GPUs (engine/ops/conv2d.c picks it only where
// VKI_CONV_KERNEL asks; it packs the weights as for conv2d.comp with WG_S slices a group).
//
// A work group computes a tile of WG_P pixels (of the flattened H*W plane) x WG_S output
// slices. For each chunk of KC input slices it loads the KC x WG_P input vec4 and the
// KC x WG_S*4 weight vec4 into shared memory, once for the whole group, then every thread
// computes TILE_X pixels x TILE_S slices of the tile from there: pixels px, px + WG_P/TILE_X,
// ... (adjacent threads read adjacent shared words) and slices sy*TILE_S .. +TILE_S-1
// (threads of one row of the tile read the same weights, a broadcast).
//
// The tile does not depend on the work-group size, which the table or the tuner picks:
// threads loop over the (WG_P/TILE_X) x (WG_S/TILE_S) sub-tiles (one pass where the group
// has that many threads, which conv2d.c arranges for the table's 64) and work groups loop
// over the tiles (gl_NumWorkGroups.x of them at a time), so any size computes the same.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic). conv2d.c keeps
// (WG_P/TILE_X) * (WG_S/TILE_S) = 64 with WG_P = 16*TILE_X and WG_S = 4*TILE_S.
// variant: @bindings=4 $ACT TILE_S=2 TILE_X=4 WG_S=8 WG_P=64 KC=4 $CONV_WINDOW
// variant: @bindings=4 TILE_S={1|4} TILE_X={1|2|8} WG_S=4 WG_P=16 KC=4 $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU TILE_S=2 TILE_X=4 WG_S=8 WG_P=64 KC=4 $EPILOGUE
//   + $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#define PLANE (OUT_W * OUT_H)
#define TILE (TILE_S * TILE_X)
#define SUB_P (WG_P / TILE_X)          // sub-tiles across the tile's pixels
#define N_SUB (SUB_P * (WG_S / TILE_S))
#define N_PTILES ((PLANE + WG_P - 1) / WG_P)
#define N_TILES (N_PTILES * ((OUT_S + WG_S - 1) / WG_S))

shared FLT4 s_in[KC * WG_P];
shared FLT4 s_w[KC * WG_S * 4];

void main() {
    const int threads = int(gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z);
    const int passes = (N_SUB + threads - 1) / threads;
    const int li = int(gl_LocalInvocationIndex);
    for (int tile = int(gl_WorkGroupID.x); tile < N_TILES; tile += int(gl_NumWorkGroups.x)) {
        int group = tile / N_PTILES;
        int tile_p = (tile - group * N_PTILES) * WG_P;
        for (int pass = 0; pass < passes; pass++) {
            int sub = li + pass * threads;
            bool owns = sub < N_SUB;
            sub = min(sub, N_SUB - 1);
            int px = sub % SUB_P, sy = sub / SUB_P;

            vec4 acc[TILE];
            for (int j = 0; j < TILE_S; j++) {
                vec4 b = LOAD(bias, group * WG_S + sy * TILE_S + j);
                for (int t = 0; t < TILE_X; t++) acc[j * TILE_X + t] = b;
            }
            for (int c0 = 0; c0 < IN_S; c0 += KC) {
                barrier();   // the previous chunk's reads are done
                for (int e = li; e < KC * WG_P; e += threads) {
                    int is = c0 + e / WG_P, p = tile_p + e % WG_P;
                    s_in[e] = is < IN_S && p < PLANE ? LOADF(src, is * PLANE + p) : FLT4(0.0);
                }
                for (int e = li; e < KC * WG_S * 4; e += threads) {
                    int is = c0 + e / (WG_S * 4);
                    s_w[e] = is < IN_S
                        ? LOADF(weights, (group * IN_S + is) * (WG_S * 4) + e % (WG_S * 4))
                        : FLT4(0.0);
                }
                barrier();
                for (int k = 0; k < KC; k++) {
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
            if (owns) {
                for (int j = 0; j < TILE_S; j++) {
                    int s = group * WG_S + sy * TILE_S + j;
                    if (s >= OUT_S) break;
                    for (int t = 0; t < TILE_X; t++) {
                        int p = tile_p + px + t * SUB_P;
                        if (p < PLANE) STORE_OUTPUT(p % OUT_W, p / OUT_W, s, acc[j * TILE_X + t])
                    }
                }
            }
        }
    }
}
