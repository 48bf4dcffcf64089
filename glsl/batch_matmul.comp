// batch_matmul.comp: BATCH_MATMUL, out[b] = A[b] x B[b] over tensors of up to 5 dims whose
// last two are the matrices (A [M,K], or [K,M] with ADJ_X; B [K,N], or [N,K] with ADJ_Y),
// the batch dims broadcast as binary.comp's rows. In the storage view a matrix is one row
// of the tensor: A's pixels are its M rows (K in the channels), B's its K rows. A thread
// makes one output vec4: row m (x), batch row y, output channels 4s..4s+3; sums in float32.
//
// Variants: what the op files emit (glsl/embed.py reads these; tests/test_kernels.c
// compiles each in fp32, fp16 storage and fp16 arithmetic).
// variant: @bindings=3 {|ADJ_X} {|ADJ_Y} K=7 OUT_W=5 OUT_H=6 OUT_C=3 OUT_S=1 OUT_R0=1
//   + OUT_R1=2 OUT_R2=3 A_W=5 A_H=6 A_C=7 A_S=2 A_R0=1 A_R1=2 A_R2=3 B_W=7 B_H=3 B_C=3 B_S=1
//   + B_R0=1 B_R1=1 B_R2=3
TENSOR_IN(0, a)
TENSOR_IN(1, b)
OUTPUT(2)

// The operand's batch row for output batch row y (an extent of 1 broadcasts).
#define BATCH_ROW(P, y) \
    ((((P##_R0 == 1 ? 0 : (y) / (OUT_R1 * OUT_R2)) * P##_R1 + \
       (P##_R1 == 1 ? 0 : ((y) / OUT_R2) % OUT_R1)) * P##_R2 + (P##_R2 == 1 ? 0 : (y) % OUT_R2)))

float a_at(int m, int k, int ya) {
#if defined(ADJ_X)
    return LOAD(a, IDX(A, k, ya, m >> 2))[m & 3];
#else
    return LOAD(a, IDX(A, m, ya, k >> 2))[k & 3];
#endif
}

// B's row k over output channels 4s..4s+3.
vec4 b_row(int k, int s, int yb) {
#if defined(ADJ_Y)
    vec4 v = vec4(0.0);
    for (int i = 0; i < 4; i++) {
        int n = s * 4 + i;
        if (n < OUT_C) v[i] = LOAD(b, IDX(B, n, yb, k >> 2))[k & 3];
    }
    return v;
#else
    return LOAD(b, IDX(B, k, yb, s));
#endif
}

void main() {
    OUTPUT_POSITION(OUT, x, y, s)
    int ya = BATCH_ROW(A, y), yb = BATCH_ROW(B, y);
    vec4 acc = vec4(0.0);
    for (int k = 0; k < K; k++) acc += a_at(x, k, ya) * b_row(k, s, yb);
    STORE_OUTPUT(x, y, s, acc)
}
