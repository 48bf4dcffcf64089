/* bucketize.c: BUCKETIZE on the CPU (TFLite's bucketize.cc): each value's bucket, the count
 * of boundaries <= it (std::upper_bound), as int32. The boundaries are a float vector in the
 * options table, which the loader appends as input 1 (vki_opt_f32_vector_input); none makes
 * every bucket 0. They must ascend, as TFLite checks. run: a binary search a value,
 * O(n log b); the reference counts the boundaries, O(n b). */
#include "ops.h"

/* BucketizeOptions: boundaries at field 0. */
static vki_status read_bucketize(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    return vki_opt_f32_vector_input(r, 0, op);
}

static vki_status validate_bucketize(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_arity(m, o, 1, 2, 1);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (vki_value_kind_of(in->dtype) != VKI_KIND_FLOAT && vki_value_kind_of(in->dtype) != VKI_KIND_INT)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') is %s, need a "
                           "number", op->inputs[0], in->name, vki_dtype_name(in->dtype));
    if (out->dtype != VKI_DTYPE_INT32)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output (tensor %d '%s') is %s, need int32",
                           op->outputs[0], out->name, vki_dtype_name(out->dtype));
    if (op->n_inputs == 2) {
        s = vki_op_check_const(m, o, 1, "boundaries", 1);
        if (s) return s;
        const vki_tensor *b = vki_op_in(m, op, 1);
        const float *v = b->data;
        for (int i = 1; i < b->shape[0]; i++)
            if (!(v[i - 1] <= v[i]))
                return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "boundaries %d and %d (%g, %g) "
                                   "do not ascend", i - 1, i, (double)v[i - 1], (double)v[i]);
    }
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

static void reference_bucketize(const vki_model *m, const vki_op *op, const float *const *in,
                                float *const *out) {
    const size_t n = vki_tensor_elements(vki_op_in(m, op, 0));
    const int nb = op->n_inputs == 2 ? vki_op_in(m, op, 1)->shape[0] : 0;
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < nb; j++) k += in[1][j] <= in[0][i];
        out[0][i] = (float)k;
    }
}

static vki_status run_bucketize(const vki_model *m, int o, const float *const *in,
                                float *const *out) {
    const vki_op *op = &m->ops[o];
    const size_t n = vki_tensor_elements(vki_op_in(m, op, 0));
    const int nb = op->n_inputs == 2 ? vki_op_in(m, op, 1)->shape[0] : 0;
    for (size_t i = 0; i < n; i++) {
        int lo = 0, hi = nb;   /* the first boundary > x */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (in[1][mid] <= in[0][i]) lo = mid + 1;
            else hi = mid;
        }
        out[0][i] = (float)lo;
    }
    return VKI_OK;
}

const vki_op_def vki_op_bucketize = {
    .validate = validate_bucketize,
    .reference = reference_bucketize,
    .run = run_bucketize,
    .options = read_bucketize,
    .general = true,
};
