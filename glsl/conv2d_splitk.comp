// conv2d_splitk.comp: a CONV_2D (any window, stride, dilation and padding, the fused
// epilogue) whose sum over taps and input slices is split across SPLIT_K threads, for GPU
// layers with few outputs and long sums (engine/ops/conv2d.c picks it and packs the
// weights as for conv2d.comp with one output slice a group).
//
// The direct kernel gives each output vec4 one thread, which walks KH * KW * IN_S steps in
// a row: with a few thousand outputs the GPU has too few threads to hide the loads' latency
// (pose_landmark_full's 1x1 over 216 input slices at 8x8 pixels: 25 us for 2.4 MFLOP). Here
// a work group is SPLIT_K x OUTS threads: the OUTS outputs of the group are consecutive in
// the flattened (slice, row, column) order, and thread k of an output sums steps k,
// k + SPLIT_K, ... (a step is one tap of one input slice; in the weights' order, so the
// SPLIT_K threads read adjacent weight vec4). The partial sums meet in shared memory in a
// tree (a fixed order: the same result on every run), the bias is added, and thread 0
// stores through STORE_OUTPUT.
//
// Variants: what conv2d.c emits (glsl/embed.py reads these; tests/test_kernels.c compiles
// each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=4 $ACT SPLIT_K={4|8|16|32} OUTS={2|8|16} $CONV_WINDOW
// variant: @bindings=N_BINDINGS ACT_RELU SPLIT_K=8 OUTS=8 $EPILOGUE $CONV_WINDOW
// variant: @bindings=5 SPLIT_K=8 OUTS=8 GATE_BINDING=4 $CONV_WINDOW
TENSOR_IN(0, src)
WEIGHTS(1, weights)
BIAS_BUFFER(2, bias)
OUTPUT(3)

#define STEPS (KH * KW * IN_S)
#define N_OUT (OUT_W * OUT_H * OUT_S)

shared ACC4 part[OUTS * SPLIT_K];

void main() {
    int k = int(gl_LocalInvocationID.x);
    int lo = int(gl_LocalInvocationID.y);
    int o = int(gl_WorkGroupID.y) * OUTS + lo;
    bool live = o < N_OUT;
    int oc = live ? o : 0;
    int x = oc % OUT_W, y = (oc / OUT_W) % OUT_H, s = oc / (OUT_W * OUT_H);
    ACC4 acc = ACC4(0);
    if (live) {
        int w = s * (STEPS * 4) + k * 4;
        for (int t = k; t < STEPS; t += SPLIT_K, w += SPLIT_K * 4) {
            int tap = t / IN_S, is = t - tap * IN_S;
            int ky = tap / KW, kx = tap - ky * KW;
            int iy = y * STRIDE_H - PAD_H + ky * DIL_H;
            int ix = x * STRIDE_W - PAD_W + kx * DIL_W;
            if (iy < 0 || iy >= IN_H || ix < 0 || ix >= IN_W) continue;
            VAL4 v = GATED(LOADV(src, IDX(IN, ix, iy, is)), is);
            VAL4 w0 = LOADV(weights, w + 0);
            VAL4 w1 = LOADV(weights, w + 1);
            VAL4 w2 = LOADV(weights, w + 2);
            VAL4 w3 = LOADV(weights, w + 3);
            MAC4(acc, w0, w1, w2, w3, v);
        }
    }
    int at = lo * SPLIT_K;
    part[at + k] = acc;
    for (int h = SPLIT_K / 2; h > 0; h /= 2) {
        barrier();
        if (k < h) part[at + k] += part[at + k + h];
    }
    // Thread 0 wrote part[at] last itself.
    if (k == 0 && live) {
        ACC4 r = LOADACC(bias, s) + part[at];
        STORE_OUTPUT(x, y, s, r)
    }
}
