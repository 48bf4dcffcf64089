/* mean.c: MEAN. Over H and W of a [1,H,W,C] tensor, the global pooling that classifier
 * heads use, it runs glsl/reduce.comp (a work group per channel slice, shared with global
 * pools); keep_dims gives [1,1,1,C], otherwise [1,C]: both are the same PHWC4 bytes, one
 * vec4 per channel slice. Any other axis set, rank or batch goes to the general
 * reductions of reduce.c. The axes come from a constant int32 tensor. */
#include "int8.h"
#include "ops.h"
#include "reduce.h"

#include <math.h>
#include <stdio.h>

/* The axes must name exactly {1, 2} (in any order, negative or repeated as TFLite
 * allows); builds the list for the message when they do not. */
static vki_status check_axes(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    int t = op->inputs[1];
    const vki_tensor *axes;
    vki_status s = vki_op_int_const(m, o, 1, "axes", &axes);
    if (s) return s;
    if (axes->rank > 1)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "axes tensor %d '%s' has rank %d, need 0 or 1", t, axes->name,
                           axes->rank);
    size_t n = vki_tensor_elements(axes);
    if (axes->data_bytes < n * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT,
                           "axes tensor %d '%s' holds %zu bytes, need %zu", t, axes->name,
                           axes->data_bytes, n * sizeof(int32_t));
    const int32_t *v = (const int32_t *)axes->data;
    unsigned seen = 0;
    char list[96] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", i ? "," : "", (int)v[i]);
        if (v[i] < -4 || v[i] > 3)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for rank 4",
                               (int)v[i]);
        seen |= 1u << (v[i] < 0 ? v[i] + 4 : v[i]);
    }
    if (seen != 6u)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "axes [%s] are not supported, only the mean over H and W (axes [1,2])",
                           list);
    return VKI_OK;
}

/* The global-pool form: a float [1,H,W,C] activation averaged over exactly H and W. */
bool vki_mean_spatial(const vki_model *m, const vki_op *op) {
    if (op->n_inputs != 2 || op->n_outputs != 1 || op->inputs[0] < 0 || op->inputs[1] < 0 ||
        op->inputs[0] >= m->n_tensors || op->inputs[1] >= m->n_tensors)
        return false;
    const vki_tensor *in = vki_op_in(m, op, 0), *axes = vki_op_in(m, op, 1);
    if (in->rank != 4 || in->shape[0] != 1 || in->data || in->dtype != VKI_DTYPE_FLOAT32 ||
        axes->dtype != VKI_DTYPE_INT32 || !axes->data || axes->rank > 1)
        return false;
    size_t n = vki_tensor_elements(axes);
    if (axes->data_bytes < n * sizeof(int32_t)) return false;
    unsigned seen = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t a = ((const int32_t *)axes->data)[i];
        if (a < -4 || a > 3) return false;
        seen |= 1u << (a < 0 ? a + 4 : a);
    }
    return seen == 6u;
}

static bool spatial(const vki_model *m, int o) { return vki_mean_spatial(m, &m->ops[o]); }

static vki_status validate(const vki_model *m, int o) {
    if (!spatial(m, o)) return vki_reduce_validate(m, o);
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    if (in->rank != 4)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL,
                           "input has rank %d, only rank 4 [1,H,W,C] is supported", in->rank);
    s = check_axes(m, o);
    if (s) return s;
    int c = in->shape[3];
    bool keep = op->opt.reduce.keep_dims;
    (void)out;
    return keep ? vki_op_expect_dims(m, o, op->outputs[0], 4, (int[]){1, 1, 1, c})
                : vki_op_expect_dims(m, o, op->outputs[0], 2, (int[]){1, c});
}

/* The integer form (int8.h): MEAN over H and W of an int8 / uint8 activation. */
static bool integer(const vki_model *m, const vki_op *op) {
    return vki_int8_mean_ok(m, op, vki_mean_spatial(m, op));
}

static bool runs_integer(const vki_model *m, const vki_op *op) {
    return vki_tensor_quantized(vki_op_out(m, op, 0)) && integer(m, op);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    if (!spatial(m, o)) return vki_reduce_build(b, m, o);
    const vki_op *op = &m->ops[o];
    if (op->fused.excite) return vki_build_squeeze(b, m, o);   /* squeeze.c: the block's squeeze */
    vki_shape4 in = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 out = vki_tensor_shape4(vki_op_out(m, op, 0));
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_reduce, VKI_WG_REDUCE);
    vki_define_int(&d, "REDUCE_MEAN", 1);
    if (runs_integer(m, op)) {
        const vki_tensor *ti = vki_op_in(m, op, 0), *to = vki_op_out(m, op, 0);
        float inv, zpf;
        vki_int8_mean_params(m, op, in.h * in.w, &inv, &zpf);
        vki_define_int(&d, "INT8", 1);
        vki_define_int(&d, "IN_ZERO", ti->quant_zero);
        vki_define_float(&d, "Q_INV", inv);
        vki_define_float(&d, "Q_ZPF", zpf);
        vki_define_int(&d, "OUT_QLO", to->quant_min);
        vki_define_int(&d, "OUT_QHI", to->quant_max);
        vki_define_int(&d, "OUT_ZERO", to->quant_zero);
    }
    vki_define_shape(&d, "IN", in);
    vki_define_shape(&d, "OUT", out);
    vki_define_int(&d, "WIN_W", in.w);
    vki_define_int(&d, "WIN_H", in.h);
    vki_dispatch_bind_tensor(&d, op->inputs[0]);
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    /* A thread per output slice would leave the H*W sum to one lane: a row of lanes
     * shares each slice instead, one slice per z. */
    vki_reduce_lanes(b, (long)in.w * in.h, &d);
    d.grid[2] = (uint32_t)((out.c + 3) / 4);
    return vki_build_dispatch(b, &d);
}

/* TFLite's reference_ops::Mean for axes {1,2}: a float sum over the window, then one
 * division by the window size. */
static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    if (!spatial(m, (int)(op - m->ops))) {
        vki_reduce_reference(m, op, in, out);
        return;
    }
    vki_shape4 s = vki_tensor_shape4(vki_op_in(m, op, 0));
    if (runs_integer(m, op)) {
        const vki_tensor *ti = vki_op_in(m, op, 0), *to = vki_op_out(m, op, 0);
        const int n = s.h * s.w;
        float inv, zpf;
        vki_int8_mean_params(m, op, n, &inv, &zpf);
        for (int c = 0; c < s.c; c++) {
            int32_t raw = n * ti->quant_zero;
            for (int i = 0; i < n; i++) raw += (int32_t)in[0][(size_t)i * s.c + c];
            volatile float scaled = (float)raw * inv;
            volatile float shifted = scaled + zpf;
            float r = nearbyintf(shifted);
            r = r < (float)to->quant_min ? (float)to->quant_min : r > (float)to->quant_max ? (float)to->quant_max : r;
            out[0][c] = r - (float)to->quant_zero;
        }
        return;
    }
    for (int c = 0; c < s.c; c++) {
        float sum = 0.0f;
        for (int y = 0; y < s.h; y++)
            for (int x = 0; x < s.w; x++) sum += in[0][((size_t)y * s.w + x) * s.c + c];
        out[0][c] = sum / (float)(s.h * s.w);
    }
}

/* ReducerOptions: keep_dims. */
static vki_status read_options(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_bool(r, 0, false, &op->opt.reduce.keep_dims)) return vki_opt_malformed(r);
    return VKI_OK;
}

const vki_op_def vki_op_mean = {.validate = validate, .build = build, .reference = reference,
                                .integer = integer,
                                .options = read_options, .general = true};
