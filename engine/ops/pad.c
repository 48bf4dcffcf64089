/* pad.c: PAD with zeros along H, W and C (glsl/pad.comp). Channel padding by any amount,
 * leading or trailing, is common (24 -> 32 ahead of a residual add), so the kernel places
 * each output lane on its own. Padding the batch, rank 5 or a batch > 1 takes the general
 * description of mirror_pad.c (remap.comp). */
#include "remap.h"

#include <stdio.h>

void vki_pad_amounts(const vki_model *m, const vki_op *op, vki_shape4 *before, vki_shape4 *after) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    const int32_t *p = (const int32_t *)vki_op_in(m, op, 1)->data;
    *before = *after = (vki_shape4){0, 0, 0, 0};
    if (in->rank > 4) {   /* not a 4-D pad: what the passes fold never has a batch pad */
        before->n = after->n = 1;
        return;
    }
    int *b[4] = {&before->n, &before->h, &before->w, &before->c};
    int *a[4] = {&after->n, &after->h, &after->w, &after->c};
    /* The NHWC dimension each row pads, by rank: the mapping of vki_tensor_shape4. */
    static const int dims[5][4] = {{0}, {3}, {0, 3}, {0, 2, 3}, {0, 1, 2, 3}};
    for (int i = 0; i < in->rank && i < 4; i++) {
        *b[dims[in->rank][i]] = p[2 * i];
        *a[dims[in->rank][i]] = p[2 * i + 1];
    }
}

/* Leading / trailing padding of the NHWC view, from the [rank,2] paddings constant. */
typedef struct pad4 { vki_shape4 before, after; } pad4;

static pad4 read_paddings(const vki_model *m, const vki_op *op) {
    pad4 r;
    vki_pad_amounts(m, op, &r.before, &r.after);
    return r;
}

/* pad.comp's form: rank <= 4, batch 1, no batch padding (validated paddings). */
static bool fast_path(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->rank > 4 || vki_tensor_shape4(in).n != 1) return false;
    pad4 pd = read_paddings(m, op);
    return !pd.before.n && !pd.after.n;
}

static vki_status describe_general(const vki_model *m, int o, int output, vki_remap *r) {
    (void)output;
    return vki_pad_describe(m, o, r, VKI_EDGE_FILL, 0.0f);
}

static vki_status validate(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (out->rank != in->rank)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input has rank %d but output has rank %d",
                           in->rank, out->rank);

    int pt = op->inputs[1];
    const vki_tensor *pads;
    s = vki_op_int_const(m, o, 1, "paddings", &pads);
    if (s) return s;
    if (pads->rank != 2 || pads->shape[0] != in->rank || pads->shape[1] != 2) {
        char got[64] = "";
        int n = 0;
        for (int i = 0; i < pads->rank && n < (int)sizeof got - 12; i++)
            n += snprintf(got + n, sizeof got - (size_t)n, "%s%d", i ? "," : "", pads->shape[i]);
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "paddings tensor %d has shape [%s], need [%d,2]",
                           pt, got, in->rank);
    }
    if (pads->data_bytes < (size_t)in->rank * 2 * sizeof(int32_t))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "paddings tensor %d holds %zu bytes, need %zu",
                           pt, pads->data_bytes, (size_t)in->rank * 2 * sizeof(int32_t));
    const int32_t *p = (const int32_t *)pads->data;
    for (int i = 0; i < in->rank; i++) {
        int padded;
        s = vki_pad_extent(m, o, i, in->shape[i], p[2 * i], p[2 * i + 1], VKI_PAD_FILL_MAX,
                           &padded);
        if (s) return s;
    }
    if (!fast_path(m, op)) return vki_remap_validate(m, o, describe_general);
    pad4 pd = read_paddings(m, op);   /* each padded extent fits int (vki_pad_extent) */
    vki_shape4 si = vki_tensor_shape4(in);
    vki_shape4 want = {1, si.h + pd.before.h + pd.after.h, si.w + pd.before.w + pd.after.w,
                       si.c + pd.before.c + pd.after.c};
    return vki_op_check_shape(m, o, op->outputs[0], want);
}

static vki_status build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    if (!fast_path(m, op)) return vki_remap_build(b, m, o, describe_general);
    const vki_tensor *in = vki_op_in(m, op, 0);
    vki_shape4 si = vki_tensor_shape4(in), so = vki_tensor_shape4(vki_op_out(m, op, 0));
    pad4 pd = read_paddings(m, op);
    vki_dispatch d;
    vki_dispatch_init(&d, "pad", VKI_WG_ELEMENTWISE);
    vki_define_shape(&d, "IN", si);
    vki_define_shape(&d, "OUT", so);
    vki_define_int(&d, "PAD_H", pd.before.h);
    vki_define_int(&d, "PAD_W", pd.before.w);
    vki_define_int(&d, "PAD_C", pd.before.c);
    vki_status st = vki_build_bind_operand(b, &d, op->inputs[0], si);
    if (st) return st;
    vki_dispatch_bind_tensor(&d, op->outputs[0]);
    vki_dispatch_grid_phwc4(&d, so);
    return vki_build_dispatch(b, &d);
}

static void reference(const vki_model *m, const vki_op *op, const float *const *in,
                      float *const *out) {
    if (!fast_path(m, op)) {
        vki_remap_reference(m, op, in, out, describe_general);
        return;
    }
    vki_shape4 si = vki_tensor_shape4(vki_op_in(m, op, 0));
    vki_shape4 so = vki_tensor_shape4(vki_op_out(m, op, 0));
    pad4 pd = read_paddings(m, op);
    for (int y = 0; y < so.h; y++)
        for (int x = 0; x < so.w; x++)
            for (int c = 0; c < so.c; c++) {
                int iy = y - pd.before.h, ix = x - pd.before.w, ic = c - pd.before.c;
                int inside = iy >= 0 && iy < si.h && ix >= 0 && ix < si.w && ic >= 0 && ic < si.c;
                out[0][((size_t)y * so.w + x) * so.c + c] =
                    inside ? in[0][((size_t)iy * si.w + ix) * si.c + ic] : 0.0f;
            }
}

const vki_op_def vki_op_pad = {.validate = validate, .build = build, .reference = reference,
                               .general = true};
