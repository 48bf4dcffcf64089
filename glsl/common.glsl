// common.glsl: prepended to every kernel after the op's #defines.
// Tensors are PHWC4: slice s of 4 channels, row y, column x at vec4 index (s*H + y)*W + x.
// Work-group size comes from specialization constants 0..2 so one SPIR-V serves every size.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

#ifdef VKI_FP16_STORAGE
#extension GL_EXT_shader_16bit_storage : require
#define STORE4 f16vec4
#define STORE1 float16_t
#else
#define STORE4 vec4
#define STORE1 float
#endif

#define TENSOR_IN(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { STORE4 name[]; };
#define TENSOR_OUT(b, name) \
    layout(std430, set = 0, binding = b) writeonly restrict buffer name##_block { STORE4 name[]; };
// Weights stay fp32 in memory unless the graph asks for fp16 storage, like activations.
#define WEIGHTS(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { STORE4 name[]; };
// Dense float32 NHWC host staging for graph inputs and outputs.
#define RAW_IN(b, name) \
    layout(std430, set = 0, binding = b) readonly restrict buffer name##_block { float name[]; };
#define RAW_OUT(b, name) \
    layout(std430, set = 0, binding = b) writeonly restrict buffer name##_block { float name[]; };

#define LOAD(buf, i) vec4(buf[i])
#define STORE(buf, i, v) buf[i] = STORE4(v)

// Index of (x, y, slice) in a PHWC4 tensor whose shape macros start with P.
#define IDX(P, x, y, s) ((int(s) * P##_H + int(y)) * P##_W + int(x))

vec4 activate(vec4 v) {
#if defined(ACT_RELU)
    return max(v, vec4(0.0));
#elif defined(ACT_RELU6)
    return clamp(v, vec4(0.0), vec4(6.0));
#elif defined(ACT_RELU_N1_TO_1)
    return clamp(v, vec4(-1.0), vec4(1.0));
#elif defined(ACT_TANH)
    // tanh is exactly +-1 in float beyond |x| ~ 9; the clamp keeps drivers that build it
    // from exp() away from inf/inf.
    return tanh(clamp(v, vec4(-10.0), vec4(10.0)));
#else
    return v;
#endif
}

// The thread's output position; threads past the output return early.
#define OUTPUT_POSITION(P, x, y, s) \
    int x = int(gl_GlobalInvocationID.x); \
    int y = int(gl_GlobalInvocationID.y); \
    int s = int(gl_GlobalInvocationID.z); \
    if (x >= P##_W || y >= P##_H || s >= P##_S) return;
