// squeeze.comp: a squeeze-excite block's squeeze in one work group (engine/ops/squeeze.c):
// the mean of each input slice over IN's top-left WIN_W x WIN_H corner (a MEAN over H and W,
// or a global AVERAGE_POOL_2D's one window), then two 1x1 convolutions on that one cell:
// mid = MID_ACT(w1 . mean + b1), out = ACT(w2 . mid + b2), stored through the epilogue.
//
// The grid is one work group of LANES lanes (gl_WorkGroupSize.x, a power of two). The mean
// gives each input slice a row of RED_LANES lanes, as many slices at once as rows fit; a
// convolution gives each output slice a row of MID_PARTS (OUT_PARTS) lanes, each summing a
// strided part of the input slices, and the row's first lane adds the parts in a fixed
// tree. Sums are fp32 (MAC4: fp16 products with fp16 arithmetic); the mean and the middle
// layer stay fp32 in shared memory. Weights: conv_common.c's vki_conv_pack_1x1, a slice a
// group; biases padded to whole slices.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// squeeze.c: rows of lanes for every sum, or one lane a slice; a whole plane or a corner.
// variant: @bindings=6 $ACT MID_ACT=1 IN_W=7 IN_H=5 IN_C=9 IN_S=3 WIN_W=7 WIN_H=5 MID_C=5
//   + MID_S=2 OUT_W=1 OUT_H=1 OUT_C=9 OUT_S=3 RED_LANES=8 MID_PARTS=2 OUT_PARTS=2
// variant: @bindings=6 ACT_SIGMOID MID_ACT={0|16} IN_W=7 IN_H=5 IN_C=9 IN_S=3 WIN_W=4
//   + WIN_H=3 MID_C=5 MID_S=2 OUT_W=1 OUT_H=1 OUT_C=9 OUT_S=3 RED_LANES=1 MID_PARTS=1
//   + OUT_PARTS=1
// variant: @bindings=6 ACT_SIGMOID MID_ACT=1 PRELOAD IN_W=7 IN_H=5 IN_C=9 IN_S=3 WIN_W=7
//   + WIN_H=5 MID_C=5 MID_S=2 OUT_W=1 OUT_H=1 OUT_C=9 OUT_S=3 RED_LANES=8 MID_PARTS=4
//   + OUT_PARTS=2
TENSOR_IN(0, src)
WEIGHTS(1, w1)
WEIGHTS(2, b1)
WEIGHTS(3, w2)
WEIGHTS(4, b2)
OUTPUT(5)

const int LANES = int(gl_WorkGroupSize.x);
shared vec4 partial[gl_WorkGroupSize.x];
shared vec4 pooled[IN_S];
shared vec4 mid[MID_S];

#define WIN_COUNT (WIN_W * WIN_H)

// Adds each row of `width` lanes of partial[] into the row's first lane (width a power of
// two that divides LANES). Every lane calls it: it holds barriers.
void fold_rows(int t, int width) {
    for (int stride = width / 2; stride > 0; stride /= 2) {
        if (t % width < stride) partial[t] += partial[t + stride];
        barrier();
    }
}

// Output slice o's sum over input slices part, part + PARTS, ... of shared vector X
// (N_IN slices) times 1x1 weights W (a slice a group), for a row of PARTS lanes.
#define FC_PART(X, N_IN, W, PARTS, o, part, acc) \
    for (int is_ = part; is_ < N_IN; is_ += PARTS) { \
        int w_ = ((o) * N_IN + is_) * 4; \
        FLT4 x_ = FLT4(X[is_]); \
        MAC4(acc, LOADF(W, w_), LOADF(W, w_ + 1), LOADF(W, w_ + 2), LOADF(W, w_ + 3), x_); \
    }

void main() {
    // One group; any other (a device that rounds the grid up) leaves at once, uniformly.
    if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u || gl_WorkGroupID.z != 0u) return;
    int t = int(gl_LocalInvocationID.x);
#ifdef PRELOAD
    // Every sum takes one round and a lane one term (squeeze.c): each lane loads its term's
    // weights and its row's bias of both convolutions first, so that their latency hides
    // behind the mean's loads instead of following it.
    int o1 = t / MID_PARTS, k1 = t % MID_PARTS, o2 = t / OUT_PARTS, k2 = t % OUT_PARTS;
    bool on1 = o1 < MID_S && k1 < IN_S, on2 = o2 < OUT_S && k2 < MID_S;
    int at1 = on1 ? (o1 * IN_S + k1) * 4 : 0, at2 = on2 ? (o2 * MID_S + k2) * 4 : 0;
    FLT4 pw1[4] = FLT4[4](LOADF(w1, at1), LOADF(w1, at1 + 1), LOADF(w1, at1 + 2), LOADF(w1, at1 + 3));
    FLT4 pw2[4] = FLT4[4](LOADF(w2, at2), LOADF(w2, at2 + 1), LOADF(w2, at2 + 2), LOADF(w2, at2 + 3));
    vec4 pb1 = LOAD(b1, min(o1, MID_S - 1)), pb2 = LOAD(b2, min(o2, OUT_S - 1));
#endif

    // The mean: rows of RED_LANES lanes, a slice a row, LANES / RED_LANES slices a round.
    int row = t / RED_LANES, lane = t % RED_LANES;
    for (int s0 = 0; s0 < IN_S; s0 += LANES / RED_LANES) {
        int s = s0 + row;
        vec4 acc = vec4(0.0);
        if (s < IN_S) {
#if WIN_W == IN_W
            int base = IDX(IN, 0, 0, s);   // whole rows: one contiguous run
            for (int i = lane; i < WIN_COUNT; i += RED_LANES) acc += LOAD(src, base + i);
#else
            for (int i = lane; i < WIN_COUNT; i += RED_LANES) {
                int wy = i / WIN_W;
                acc += LOAD(src, IDX(IN, i - wy * WIN_W, wy, s));
            }
#endif
        }
        partial[t] = acc;
        barrier();
        fold_rows(t, RED_LANES);
        if (lane == 0 && s < IN_S) pooled[s] = partial[t] / float(WIN_COUNT);
        barrier();
    }

    // The squeeze convolution into mid[] (its padded lanes meet zero weights next).
    row = t / MID_PARTS;
    lane = t % MID_PARTS;
    for (int o0 = 0; o0 < MID_S; o0 += LANES / MID_PARTS) {
        int o = o0 + row;
        vec4 acc = vec4(0.0);
#ifdef PRELOAD
        if (on1) MAC4(acc, pw1[0], pw1[1], pw1[2], pw1[3], FLT4(pooled[k1]));
        vec4 bias = pb1;
#else
        if (o < MID_S) FC_PART(pooled, IN_S, w1, MID_PARTS, o, lane, acc)
        vec4 bias = o < MID_S ? LOAD(b1, o) : vec4(0.0);
#endif
        partial[t] = acc;
        barrier();
        fold_rows(t, MID_PARTS);
        if (lane == 0 && o < MID_S) mid[o] = activation(partial[t] + bias, MID_ACT);
        barrier();
    }

    // The excite convolution, stored through the epilogue (its activation, padded lanes).
    row = t / OUT_PARTS;
    lane = t % OUT_PARTS;
    for (int o0 = 0; o0 < OUT_S; o0 += LANES / OUT_PARTS) {
        int o = o0 + row;
        vec4 acc = vec4(0.0);
#ifdef PRELOAD
        if (on2) MAC4(acc, pw2[0], pw2[1], pw2[2], pw2[3], FLT4(mid[k2]));
        vec4 bias = pb2;
#else
        if (o < OUT_S) FC_PART(mid, MID_S, w2, OUT_PARTS, o, lane, acc)
        vec4 bias = o < OUT_S ? LOAD(b2, o) : vec4(0.0);
#endif
        partial[t] = acc;
        barrier();
        fold_rows(t, OUT_PARTS);
        if (lane == 0 && o < OUT_S) STORE_OUTPUT(0, 0, o, partial[t] + bias)
        barrier();
    }
}
