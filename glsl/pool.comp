// pool.comp: 2-D max (POOL_MAX) or average (POOL_AVERAGE) pooling, one output vec4 per
// thread. Window cells outside the input are skipped; the average divides by the cells
// actually read, as TFLite does. The SAME leading padding comes in PAD_W / PAD_H.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=2 {POOL_MAX|POOL_AVERAGE} $ACT IN_W=9 IN_H=7 IN_C=5 IN_S=2
//   + OUT_W=5 OUT_H=4 OUT_C=5 OUT_S=2 FILTER_W=3 FILTER_H=3 STRIDE_W=2 STRIDE_H=2 PAD_W=1 PAD_H=1
// variant: @bindings=2 INT8 {POOL_MAX POOL_MAX_INIT=-100000|POOL_AVERAGE POOL_MAX_INIT=0 IN_ZERO=-3}
//   + OUT_QMIN=-125 OUT_QMAX=130 IN_W=9 IN_H=7 IN_C=5 IN_S=2 OUT_W=5 OUT_H=4 OUT_C=5 OUT_S=2
//   + FILTER_W=3 FILTER_H=3 STRIDE_W=2 STRIDE_H=2 PAD_W=1 PAD_H=1
// variant: @bindings=N_BINDINGS POOL_MAX IN_W=9 IN_H=7 IN_C=5 IN_S=2 OUT_W=5 OUT_H=4 OUT_C=5
//   + OUT_S=2 FILTER_W=3 FILTER_H=3 STRIDE_W=2 STRIDE_H=2 PAD_W=1 PAD_H=1 $EPILOGUE2
TENSOR_IN(0, src)
OUTPUT(1)

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    int y0 = y * STRIDE_H - PAD_H, x0 = x * STRIDE_W - PAD_W;
    // Clip the window once instead of testing every cell.
    int ky0 = max(0, -y0), ky1 = min(FILTER_H, IN_H - y0);
    int kx0 = max(0, -x0), kx1 = min(FILTER_W, IN_W - x0);
#if defined(INT8)
    // Integer forms on q - zero point (engine/ops/int8.c): XNNPACK's max pool, TFLite's
    // int8 average pool (the raw sum over the cells read, its mean rounded half away
    // from zero by integer division), then the activation's clamp.
    ivec4 acc = ivec4(POOL_MAX_INIT);
    for (int ky = ky0; ky < ky1; ky++)
        for (int kx = kx0; kx < kx1; kx++) {
            ivec4 v = ivec4(LOAD(src, IDX(IN, x0 + kx, y0 + ky, s)));
#if defined(POOL_MAX)
            acc = max(acc, v);
#else
            acc += v;
#endif
        }
#if defined(POOL_AVERAGE)
    int count = max(ky1 - ky0, 0) * max(kx1 - kx0, 0);
    ivec4 raw = acc + count * IN_ZERO;
    acc = sign(raw) * ((abs(raw) + count / 2) / max(count, 1)) - IN_ZERO;
#endif
    STORE_Q(x, y, s, clamp(vec4(acc), vec4(OUT_QMIN), vec4(OUT_QMAX)))
#else
#if defined(POOL_MAX)
    // TFLite starts from the lowest float, not -inf.
    vec4 acc = vec4(-3.40282347e38);
#else
    vec4 acc = vec4(0.0);
#endif
    for (int ky = ky0; ky < ky1; ky++)
        for (int kx = kx0; kx < kx1; kx++) {
            vec4 v = LOAD(src, IDX(IN, x0 + kx, y0 + ky, s));
#if defined(POOL_MAX)
            acc = max(acc, v);
#else
            acc += v;
#endif
        }
#if defined(POOL_AVERAGE)
    int count = max(ky1 - ky0, 0) * max(kx1 - kx0, 0);
    acc = count > 0 ? acc / float(count) : vec4(0.0);
#endif
    STORE_OUTPUT(x, y, s, acc)
#endif
}
