// common.glsl: prepended to every kernel after the op's #defines.
// Tensors are PHWC4: slice s of 4 channels, row y, column x at vec4 index (s*H + y)*W + x.
// Work-group size comes from specialization constants 0..2 so one SPIR-V serves every size.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// Storage type of each binding: the engine defines STORE4_<binding> as vec4 or f16vec4,
// so one graph can keep some tensors fp32 and store the rest as fp16 (mixed precision).
#ifdef VKI_FP16_STORAGE
#extension GL_EXT_shader_16bit_storage : require
#endif
// Arithmetic type of the op: float16 where the graph is fp16 and the device has
// shaderFloat16. Kernels use FLT4 for products and keep sums that grow with the
// problem size (convolutions, reductions) in vec4.
#ifdef VKI_FP16_ARITH
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define FLT4 f16vec4
#define FLT float16_t
#else
#define FLT4 vec4
#define FLT float
#endif

// Pastes after expanding, so a binding given as a macro (N_INPUTS) names its type.
#define VKI_CAT_(a, b) a##b
#define VKI_CAT(a, b) VKI_CAT_(a, b)
#define STORAGE_TYPE(b) VKI_CAT(STORE4_, b)

// IN_PLACE: the engine gave the output the storage of an input that the kernel reads only
// at the index it writes, before writing it (engine/emit/schedule.c); the two tensor bindings
// then alias, so they are not declared restrict.
#ifdef IN_PLACE
#define TENSOR_RESTRICT
#else
#define TENSOR_RESTRICT restrict
#endif
// Every binding's element decodes to a vec4 through DECODE_<binding> and encodes through
// ENCODE_<binding> (the engine defines both with STORE4_<binding>): a float type converts;
// an int8 / uint8 tensor stored as bytes (STORE4 uint: a PHWC4 slice's four values in one
// word, each q - zero point + an offset that makes it 0..255) unpacks and packs, so
// kernels read and write every tensor through LOAD / LOADF / STORE alike.
#define DECODE_Q8(x, off) (vec4((uvec4(x) >> uvec4(0u, 8u, 16u, 24u)) & uvec4(255u)) - float(off))
#define Q8_BYTE(f, off) uint(clamp((f) + float(off), 0.0, 255.0))
#define ENCODE_Q8(v, off) (Q8_BYTE((v).x, off) | (Q8_BYTE((v).y, off) << 8) | \
                           (Q8_BYTE((v).z, off) << 16) | (Q8_BYTE((v).w, off) << 24))
// DECODEI_Q8: the same bytes as whole numbers by integer operations only (the integer
// forms' loads, LOADV: no conversion to float and back per value).
#define DECODEI_Q8(x, off) (ivec4((uvec4(x) >> uvec4(0u, 8u, 16u, 24u)) & uvec4(255u)) - (off))
#define DECODE(b, x) VKI_CAT(DECODE_, b)(x)
#define DECODEI(b, x) VKI_CAT(DECODEI_, b)(x)
#define ENCODE(b, v) VKI_CAT(ENCODE_, b)(v)
// Element i of binding b as a word of 4 bytes (INT8_PACKED): a byte binding's as stored;
// a float one's values packed (only tests/test_kernels compiles that: the engine packs
// byte-stored tensors and weights only).
#define RAW_WORD(b, buf, i) VKI_CAT(WORD_, b)(buf[i])
#define LOADERS(b, name) \
    vec4 name##_load(int i) { return vec4(DECODE(b, name[i])); } \
    FLT4 name##_loadf(int i) { return FLT4(DECODE(b, name[i])); } \
    ivec4 name##_loadi(int i) { return DECODEI(b, name[i]); }
#define TENSOR_IN(b, name) \
    layout(std430, set = 0, binding = b) readonly TENSOR_RESTRICT buffer name##_block { STORAGE_TYPE(b) name[]; }; \
    LOADERS(b, name)
#define TENSOR_OUT(b, name) \
    layout(std430, set = 0, binding = b) writeonly TENSOR_RESTRICT buffer name##_block { STORAGE_TYPE(b) name[]; }; \
    void name##_store(int i, vec4 v) { name[i] = ENCODE(b, v); }
// Weights are stored in the precision of the op that reads them.
#define WEIGHTS(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { STORAGE_TYPE(b) name[]; }; \
    LOADERS(b, name)
// Dense float32 NHWC host staging for graph inputs and outputs.
#define RAW_IN(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { float name[]; };
#define RAW_OUT(b, name) \
    layout(std430, set = 0, binding = b) writeonly restrict buffer name##_block { float name[]; };

// LOAD reads as fp32; LOADF in the op's arithmetic type.
#define LOAD(buf, i) buf##_load(i)
#define LOADF(buf, i) buf##_loadf(i)
#define STORE(buf, i, v) buf##_store(i, vec4(v))

// acc (vec4) += the 4x4 weights w0..w3 (FLT4) times v (FLT4). With fp16 arithmetic the
// four products are summed in fp16 and only then added to the fp32 sum, as TFLite GPU's
// F32_F16 mode does; in fp32 every product goes straight into the sum.
#ifdef VKI_FP16_ARITH
#define MAC4(acc, w0, w1, w2, w3, v) acc += vec4(w0 * v.x + w1 * v.y + w2 * v.z + w3 * v.w)
#else
#define MAC4(acc, w0, w1, w2, w3, v) \
    { acc += w0 * v.x; acc += w1 * v.y; acc += w2 * v.z; acc += w3 * v.w; }
#endif

// Integer forms (INT8): int8 / uint8 tensors hold q - zero point, whole numbers that
// float32 and float16 storage both hold exactly, and so do the weights (q - its zero
// point); the bias binding is int32. Convolutions accumulate (q - zero) products in int32
// as TFLite's integer kernels do, exactly; the epilogue requantizes. Kernels write ACC4 for
// their sums, VAL4 for loaded values, LOADV / LOADACC to load them and DOT4 for a dot
// product, which mean the float types and loads without INT8.
// Values load as ivec4: a byte binding's by integer operations (DECODEI_Q8), a float one's
// through vec4 (float16 storage converts to nothing else without float16 arithmetic;
// exact for these whole numbers). BIAS_BUFFER declares the bias binding: int32
// in an integer form (the engine stores it so, engine/ops/int8.c), else weights.
#ifdef INT8
#define BIAS_BUFFER(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { ivec4 name[]; };
#define ACC4 ivec4
#define VAL4 ivec4
#define LOADV(buf, i) buf##_loadi(i)
#define LOADACC(buf, i) buf[i]
#define DOT4(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z + (a).w * (b).w)
#undef MAC4
#define MAC4(acc, w0, w1, w2, w3, v) acc += w0 * v.x + w1 * v.y + w2 * v.z + w3 * v.w
#ifdef INT8_PACKED
// Packed int8 sums (INT8_PACKED): a 32-bit word's 4 bytes are 4 lanes' raw q (two's
// complement where signed). DOT_SS(a, b) is the int32 dot product of two words of signed
// bytes, DOT_SU(a, b) of signed a and unsigned b: the device's packed dot product
// instruction where it has one (INT8_DOT: OpSDot / OpSUDot of SPV_KHR_integer_dot_product,
// opcodes 4450 / 4452 and capabilities DotProduct, DotProductInput4x8BitPacked, declared
// through GL_EXT_spirv_intrinsics, as glslang before 14 has no GLSL names for
// them), else four integer products. The same exact int32 either way.
// A word's 4 bytes as signed (vki_s8) or unsigned (vki_u8) lanes.
ivec4 vki_s8(uint x) {
    int i = int(x);
    return ivec4(bitfieldExtract(i, 0, 8), bitfieldExtract(i, 8, 8), bitfieldExtract(i, 16, 8),
                 bitfieldExtract(i, 24, 8));
}
ivec4 vki_u8(uint x) { return ivec4((uvec4(x) >> uvec4(0u, 8u, 16u, 24u)) & uvec4(255u)); }
#ifdef INT8_DOT
#extension GL_EXT_spirv_intrinsics : require
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int vki_sdot(uint a, uint b, spirv_literal int packed_format);
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int vki_sudot(uint a, uint b, spirv_literal int packed_format);
#define DOT_SS(a, b) vki_sdot(a, b, 0)
#define DOT_SU(a, b) vki_sudot(a, b, 0)
#else
#define DOT_SS(a, b) DOT4(vki_s8(a), vki_s8(b))
#define DOT_SU(a, b) DOT4(vki_s8(a), vki_u8(b))
#endif
// Kernels with a packed form name their input `src` (binding 0) and weights `weights`
// (binding 1). Their words as stored: the input's bytes are q - quant_min (q + 128 for
// int8: flipping the top bits gives q's two's complement; SRC_SIGNED), the weights'
// (q - zero point) + 128. DOT_WX(w, x): a weight word times an input word. The sums are
// of q products: the bias took the input's zero point times the weights' sum off already.
#ifdef SRC_SIGNED
#define SRC_WORD(i) (RAW_WORD(0, src, i) ^ 0x80808080u)
#define DOT_WX(w, x) DOT_SS(w, x)
#define SRC_LANES(x) vki_s8(x)
#else
#define SRC_WORD(i) RAW_WORD(0, src, i)
#define DOT_WX(w, x) DOT_SU(w, x)
#define SRC_LANES(x) vki_u8(x)
#endif
// SRC_ZERO_WORD: the input's zero point in each byte, as SRC_WORD reads it: the word a
// tap outside the input stands for where the bias took the zero point off every tap
// (SRC_ZERO, the input's zero point, defined by the engine with the packed form).
#ifdef SRC_ZERO
#define SRC_ZERO_WORD (uint(SRC_ZERO & 255) * 0x01010101u)
#endif
#define W_WORD(i) (RAW_WORD(1, weights, i) ^ 0x80808080u)
#endif
#else
#define BIAS_BUFFER(b, name) WEIGHTS(b, name)
#define ACC4 vec4
#define VAL4 FLT4
#define LOADV(buf, i) LOADF(buf, i)
#define LOADACC(buf, i) LOAD(buf, i)
#define DOT4(a, b) float(dot(a, b))
#endif

// Index of (x, y, slice) in a PHWC4 tensor whose shape macros start with P.
#define IDX(P, x, y, s) ((int(s) * P##_H + int(y)) * P##_W + int(x))

// The activations vki_define_activation emits (none, or one of four), and the window
// vki_conv_dispatch defines, for the kernels' variant tables (glsl/embed.py).
// variant-set: ACT = {|ACT_RELU|ACT_RELU6|ACT_RELU_N1_TO_1|ACT_TANH|ACT_SIGMOID|ACT_HARD_SWISH}
// variant-set: CONV_WINDOW = IN_W=9 IN_H=7 IN_C=5 IN_S=2 OUT_W=5 OUT_H=4 OUT_C=10 OUT_S=3
//   + KH=3 KW=3 STRIDE_H=2 STRIDE_W=2 DIL_H=1 DIL_W=1 PAD_H=1 PAD_W=1
// An activation by its code (VKI_ACTIVATION_LIST's values); the code is always a
// compile-time constant, so each use folds to one formula.
#define ACTIVATION_BODY(T)                                                          \
    if (code == 1) return max(v, T(0.0));                          /* RELU */         \
    if (code == 2) return clamp(v, T(-1.0), T(1.0));               /* RELU_N1_TO_1 */ \
    if (code == 3) return clamp(v, T(0.0), T(6.0));                /* RELU6 */        \
    /* TANH: exactly +-1 in float beyond |x| ~ 9; the clamp keeps drivers that build */ \
    /* it from exp() away from inf/inf. */                                           \
    if (code == 4) return tanh(clamp(v, T(-10.0), T(10.0)));                          \
    /* SIGMOID: the LOGISTIC op's formula (unary.comp), so a fused sigmoid rounds the */ \
    /* same: e/(1+e) with e = exp(-|x|) for x < 0, and exp never overflows. */         \
    if (code == 16) {                                                                 \
        T e = exp(-abs(v));                                                           \
        T r = T(1.0) / (T(1.0) + e);                                                  \
        return mix(e * r, r, greaterThanEqual(v, T(0.0)));                            \
    }                                                                                 \
    /* HARD_SWISH: the HARD_SWISH op's formula (unary.comp). */                       \
    if (code == 17) return v * clamp(v + T(3.0), T(0.0), T(6.0)) / T(6.0);            \
    return v;
vec4 activation(vec4 v, const int code) { ACTIVATION_BODY(vec4) }
#ifdef VKI_FP16_ARITH
f16vec4 activation(f16vec4 v, const int code) { ACTIVATION_BODY(f16vec4) }
#endif
// The op's activation, named by vki_define_activation's ACT_<NAME>.
#if defined(ACT_RELU)
#define ACT_CODE 1
#elif defined(ACT_RELU_N1_TO_1)
#define ACT_CODE 2
#elif defined(ACT_RELU6)
#define ACT_CODE 3
#elif defined(ACT_TANH)
#define ACT_CODE 4
#elif defined(ACT_SIGMOID)
#define ACT_CODE 16
#elif defined(ACT_HARD_SWISH)
#define ACT_CODE 17
#else
#define ACT_CODE 0
#endif
vec4 activate(vec4 v) { return activation(v, ACT_CODE); }
#ifdef VKI_FP16_ARITH
f16vec4 activate(f16vec4 v) { return activation(v, ACT_CODE); }
#endif

// ---- The epilogue of producer kernels ----------------------------------------------
// Kernels that graph passes fuse work into (conv2d, depthwise_conv2d) declare their output
// with OUTPUT(binding) and store every output vec4 through STORE_OUTPUT(x, y, s, v), v being
// the raw sum with the bias. The epilogue then, in order:
//  - adds the residual operand of a fused ADD (RESIDUAL: binding RES_BINDING, shape RES_*,
//    same W and H; slices from RES_S on read zero, which is how a channel PAD that
//    zero-extends the residual is folded in), after the producer's own activation
//    (RES_PRE_ACT, an activation code) where it had one; with RES_POOL the residual is
//    a MAX_POOL_2D's window over RES;
//  - applies the activation (the producer's, or the fused ADD's or unary op's);
//  - zeroes the padded lanes of the last slice, since an activation need not map 0 to 0;
//  - stores to the PHWC4 tensor, or with DENSE_OUT straight into a graph output's dense
//    float32 staging at DENSE_BASE + the NHWC index (a RESHAPE / CONCATENATION the
//    output-layout pass folded away).
// variant-set: EPILOGUE = {N_BINDINGS=4|N_BINDINGS=5 RESIDUAL RES_BINDING=4 RES_W=5 RES_H=4
//   + RES_C=6 RES_S=2 RES_PRE_ACT=3|N_BINDINGS=4 DENSE_OUT DENSE_BASE=12}
// variant-set: EPILOGUE2 = {N_BINDINGS=2|N_BINDINGS=3 RESIDUAL RES_BINDING=2 RES_W=5 RES_H=4
//   + RES_C=5 RES_S=2|N_BINDINGS=2 DENSE_OUT DENSE_BASE=12}
// variant-set: EPILOGUE3 = {N_BINDINGS=4 RESIDUAL RES_BINDING=3 RES_W=6 RES_H=5 RES_C=7 RES_S=2
//   + RES_PRE_ACT=16|N_BINDINGS=3 DENSE_OUT DENSE_BASE=12}
#ifdef RESIDUAL
TENSOR_IN(RES_BINDING, residual)
#ifndef RES_PRE_ACT
#define RES_PRE_ACT 0
#endif
#ifdef RES_POOL
// The residual is a MAX_POOL_2D of tensor RES folded in (the pool_residual pass): the
// maximum over the pool's window (RES_POOL_K*, strides RES_POOL_S*, leading padding
// RES_POOL_P*) of the cells inside RES, from the lowest float as pool.comp starts: the
// value the pool stored.
vec4 residual_at(int x, int y, int s) {
    int y0 = y * RES_POOL_SH - RES_POOL_PT, x0 = x * RES_POOL_SW - RES_POOL_PL;
    vec4 m_ = vec4(-3.40282347e38);
    for (int ky = max(0, -y0); ky < min(RES_POOL_KH, RES_H - y0); ky++)
        for (int kx = max(0, -x0); kx < min(RES_POOL_KW, RES_W - x0); kx++)
            m_ = max(m_, vec4(LOAD(residual, IDX(RES, x0 + kx, y0 + ky, s))));
    return m_;
}
#else
#define residual_at(x, y, s) LOAD(residual, IDX(RES, x, y, s))
#endif
#define ADD_RESIDUAL(v, x, y, s) \
    v = activation(v, RES_PRE_ACT); \
    if ((s) < RES_S) v += residual_at(x, y, s);
#else
#define ADD_RESIDUAL(v, x, y, s)
#endif
// A per-channel gate on a convolution's input 0 (GATE_BINDING: a [1, 1, 1, C] tensor, a
// MUL folded in by the gate pass, engine/emit/passes.c): GATED(v, s) is input vec4 v of
// slice s times the gate's, the product the MUL stored; without a gate, v.
#ifdef GATE_BINDING
TENSOR_IN(GATE_BINDING, gate)
#define GATED(v, s) ((v) * LOADF(gate, s))
#else
#define GATED(v, s) (v)
#endif
#ifdef DENSE_OUT
// DENSE_SCALE: an integer form's q - zero point dequantized as it is stored (a closing
// DEQUANTIZE folded in): one float32 product, as TFLite's.
#ifdef DENSE_SCALE
#define DENSE_VALUE(v) ((v) * DENSE_SCALE)
#else
#define DENSE_VALUE(v) (v)
#endif
#define OUTPUT(b) RAW_OUT(b, dst) \
    void output_put(int x, int y, int s, vec4 v) { \
        int base = DENSE_BASE + (y * OUT_W + x) * OUT_C + s * 4; \
        for (int i = 0; i < 4; i++) if (s * 4 + i < OUT_C) dst[base + i] = DENSE_VALUE(v[i]); }
#else
#define OUTPUT(b) TENSOR_OUT(b, dst) \
    void output_put(int x, int y, int s, vec4 v) { STORE(dst, IDX(OUT, x, y, s), v); }
#endif
#ifdef INV_SCALE
// Real values onto an int8 / uint8 grid as q - zero point, as XNNPACK's f32-qs8-vcvt
// does: times the reciprocal scale in float32 (`precise`: one rounding), ties to even,
// clamped (engine/ops/quantize.c's vki_quantize_define sets the constants). quant.comp's
// QUANTIZE, and the input conversions that run a model's first QUANTIZE.
vec4 quantize_q(vec4 v) {
    precise vec4 scaled = v * INV_SCALE;
    return clamp(roundEven(scaled) + float(ZERO), vec4(QMIN), vec4(QMAX)) - float(ZERO);
}
#endif
// An integer form's result c (q - zero point, already clamped), padded lanes zeroed.
#define STORE_Q(x, y, s, v) { \
    vec4 v_ = v; \
    for (int i_ = 0; i_ < 4; i_++) if ((s) * 4 + i_ >= OUT_C) v_[i_] = 0.0; \
    output_put(x, y, s, v_); }
#ifdef INT8
// The int32 sum v onto the output's grid as XNNPACK's fp32 requantization does: the sum
// converted to float, times the channel's scale (the bias binding's vec4 RQ_BASE + s holds
// the bits of in_scale * w_scale / out_scale), rounded half to even, clamped to the fused
// activation's range in q - zero point (OUT_QMIN..OUT_QMAX). `precise` keeps the product
// one float32 rounding (no fused multiply-add).
// A fused integer ADD (INT8_ADD) then adds the residual as XNNPACK's vadd does, and a fused
// table op (INT8_TABLE) maps the result through its 256 entries.
#if defined(INT8_ADD) && defined(RESIDUAL)
#define INT8_ADD_RESIDUAL(v, x, y, s) { \
    ivec4 r_ = (s) < RES_S ? ivec4(LOAD(residual, IDX(RES, x, y, s))) : ivec4(0); \
    ivec4 a_ = ((1 << (Q_SHIFT - 1)) + ivec4(v) * OWN_MULT + r_ * RES_MULT) >> Q_SHIFT; \
    v = clamp(vec4(a_), vec4(ADD_QMIN), vec4(ADD_QMAX)); }
#else
#define INT8_ADD_RESIDUAL(v, x, y, s)
#endif
#ifdef INT8_TABLE
WEIGHTS(TABLE_BINDING, qtable)
#define INT8_APPLY_TABLE(v) \
    for (int k_ = 0; k_ < 4; k_++) { \
        int e_ = clamp(int(v[k_]) + TABLE_OFFSET, 0, 255); \
        v[k_] = LOAD(qtable, e_ >> 2)[e_ & 3]; }
#else
#define INT8_APPLY_TABLE(v)
#endif
#define STORE_OUTPUT(x, y, s, v) { \
    precise vec4 f_ = vec4(v) * intBitsToFloat(bias[RQ_BASE + (s)]); \
    vec4 v_ = clamp(roundEven(f_), vec4(OUT_QMIN), vec4(OUT_QMAX)); \
    INT8_ADD_RESIDUAL(v_, x, y, s) \
    INT8_APPLY_TABLE(v_) \
    for (int i_ = 0; i_ < 4; i_++) if ((s) * 4 + i_ >= OUT_C) v_[i_] = 0.0; \
    output_put(x, y, s, v_); }
#else
#define STORE_OUTPUT(x, y, s, v) { \
    vec4 v_ = vec4(v); \
    ADD_RESIDUAL(v_, x, y, s) \
    v_ = activate(v_); \
    for (int i_ = 0; i_ < 4; i_++) if ((s) * 4 + i_ >= OUT_C) v_[i_] = 0.0; \
    output_put(x, y, s, v_); }
#endif

// The thread's output position; threads past the output return early.
#define OUTPUT_POSITION(P, x, y, s) \
    int x = int(gl_GlobalInvocationID.x); \
    int y = int(gl_GlobalInvocationID.y); \
    int s = int(gl_GlobalInvocationID.z); \
    if (x >= P##_W || y >= P##_H || s >= P##_S) return;
