/* batch_matmul.c: BATCH_MATMUL (adj_x, adj_y, batch dims broadcast) over tensors of rank
 * 2 to 5 (glsl/batch_matmul.comp). Either operand may be a constant (a transformer's
 * projection written as a matmul), packed to PHWC4 at build. */
#include "remap.h"

#include <stdio.h>

static void matrix_dims(const vki_tensor *t, bool adj, int *rows, int *cols) {
    *rows = t->shape[t->rank - (adj ? 1 : 2)];
    *cols = t->shape[t->rank - (adj ? 2 : 1)];
}

static vki_status validate(const vki_model *m, int o) {
    vki_status s = vki_op_check_arity(m, o, 2, 2, 1);
    if (s) return s;
    const vki_op *op = &m->ops[o];
    const vki_tensor *a = vki_op_in(m, op, 0), *b = vki_op_in(m, op, 1);
    if (a->data && b->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "both inputs are constants");
    if (a->rank < 2 || b->rank < 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "inputs have ranks %d and %d, need >= 2",
                           a->rank, b->rank);
    if (a->dtype != VKI_DTYPE_FLOAT32 || b->dtype != VKI_DTYPE_FLOAT32)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "takes float32");
    int M, K, K2, N;
    matrix_dims(a, op->opt.batch_matmul.adj_x, &M, &K);
    matrix_dims(b, op->opt.batch_matmul.adj_y, &K2, &N);
    if (K != K2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "A has K = %d, B has K = %d", K, K2);
    int ea[5], eb[5], dims[5];
    vki_dims5(a, ea);
    vki_dims5(b, eb);
    int rank = a->rank > b->rank ? a->rank : b->rank;
    for (int j = 0; j < 3; j++) {
        if (ea[j] != eb[j] && ea[j] != 1 && eb[j] != 1)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "batch extents %d and %d do not "
                               "broadcast", ea[j], eb[j]);
        dims[j] = ea[j] > eb[j] ? ea[j] : eb[j];
    }
    dims[3] = M;
    dims[4] = N;
    return vki_op_expect_dims(m, o, op->outputs[0], rank, dims + 5 - rank);
}

static void define_operand(vki_dispatch *d, const char *p, const int e[5]) {
    char name[16];
    vki_define_shape(d, p, (vki_shape4){1, e[0] * e[1] * e[2], e[3], e[4]});
    for (int j = 0; j < 3; j++) {
        snprintf(name, sizeof name, "%s_R%d", p, j);
        vki_define_int(d, name, e[j]);
    }
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_batch_matmul, VKI_WG_CONV);
    if (op->opt.batch_matmul.adj_x) vki_define_int(&d, "ADJ_X", 1);
    if (op->opt.batch_matmul.adj_y) vki_define_int(&d, "ADJ_Y", 1);
    int M, K;
    matrix_dims(vki_op_in(m, op, 0), op->opt.batch_matmul.adj_x, &M, &K);
    vki_define_int(&d, "K", K);
    static const char *const prefix[2] = {"A", "B"};
    for (int i = 0; i < 2; i++) {
        int e[5];
        vki_dims5(vki_op_in(m, op, i), e);
        define_operand(&d, prefix[i], e);
        vki_status st = vki_build_bind_operand(b, &d, op->inputs[i],
                                               (vki_shape4){1, e[0] * e[1] * e[2], e[3], e[4]});
        if (st) return st;
    }
    int out[5];
    vki_dims5(vki_op_out(m, op, 0), out);
    define_operand(&d, "OUT", out);
    vki_status st = vki_build_bind_output(b, &d, op);
    if (st) return st;
    vki_dispatch_grid_phwc4(&d, (vki_shape4){1, out[0] * out[1] * out[2], out[3], out[4]});
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference BatchMatMul: per batch, a float dot product over K. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    const vki_tensor *ta = vki_op_in(m, op, 0), *tb = vki_op_in(m, op, 1);
    bool ax = op->opt.batch_matmul.adj_x, ay = op->opt.batch_matmul.adj_y;
    int M, K, N, K2;
    matrix_dims(ta, ax, &M, &K);
    matrix_dims(tb, ay, &K2, &N);
    int ea[5], eb[5], eo[5];
    vki_dims5(ta, ea);
    vki_dims5(tb, eb);
    vki_dims5(vki_op_out(m, op, 0), eo);
    size_t i = 0;
    for (int b0 = 0; b0 < eo[0]; b0++)
        for (int b1 = 0; b1 < eo[1]; b1++)
            for (int b2 = 0; b2 < eo[2]; b2++) {
                size_t pa = (((size_t)(ea[0] == 1 ? 0 : b0) * ea[1] + (ea[1] == 1 ? 0 : b1)) * ea[2] +
                             (ea[2] == 1 ? 0 : b2)) * (size_t)M * K;
                size_t pb = (((size_t)(eb[0] == 1 ? 0 : b0) * eb[1] + (eb[1] == 1 ? 0 : b1)) * eb[2] +
                             (eb[2] == 1 ? 0 : b2)) * (size_t)K * N;
                for (int r = 0; r < M; r++)
                    for (int c = 0; c < N; c++, i++) {
                        float acc = 0.0f;
                        for (int k = 0; k < K; k++)
                            acc += in[0][pa + (ax ? (size_t)k * M + r : (size_t)r * K + k)] *
                                   in[1][pb + (ay ? (size_t)c * K + k : (size_t)k * N + c)];
                        out[0][i] = acc;
                    }
            }
}

/* BatchMatMulOptions: adj_x, adj_y, asymmetric_quantize_inputs (hybrid models only). */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    bool asymmetric;
    if (!vki_opt_bool(r, 0, false, &op->opt.batch_matmul.adj_x) ||
        !vki_opt_bool(r, 1, false, &op->opt.batch_matmul.adj_y) ||
        !vki_opt_bool(r, 2, false, &asymmetric))
        return vki_opt_malformed(r);
    return VKI_OK;
}

const vki_op_def vki_op_batch_matmul = {.validate = validate, .build = build,
                                        .reference = reference, .options = read_options,
                                        .general = true};
