/* reduce.c: reductions over any axes of tensors of up to 5 dims: SUM, MEAN (for the axis
 * sets mean.c's global pool does not take), REDUCE_MAX, REDUCE_MIN, REDUCE_PROD,
 * REDUCE_ANY; ARG_MAX and ARG_MIN over one axis (ties keep the first index, as TFLite's);
 * and CUMSUM along one axis (exclusive, reverse). One kernel, glsl/reduce_axes.comp, the
 * op picked by RED_<...>; one C reference over the same description. */
#include "reduce.h"
#include "remap.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

typedef struct reduce_desc {
    int in[5];          /* input extents, right-aligned */
    int keep[5];        /* the output with every reduced axis kept as 1 */
    bool red[5];        /* reduced axes (CUMSUM: its axis) */
    int axis;           /* ARG_MAX / ARG_MIN / CUMSUM: the 5-D axis */
} reduce_desc;

static bool is_arg(vki_op_code c) { return c == VKI_OP_ARG_MAX || c == VKI_OP_ARG_MIN; }

/* Reads the axes operand into d->red and checks the output's extents. */
static vki_status describe(const vki_model *m, int o, reduce_desc *d) {
    const vki_op *op = &m->ops[o];
    memset(d, 0, sizeof *d);
    vki_status s = vki_op_check_io(m, o, 2, 2);
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    if (in->data) return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "input is a constant");
    /* Index inputs (int32 held as floats) reduce like floats; only ARG_MAX / ARG_MIN make
     * index outputs from any input, and REDUCE_ANY bool from bool. */
    bool any = op->code == VKI_OP_REDUCE_ANY;
    if (is_arg(op->code) != vki_dtype_is_index(out->dtype) && !any)
        return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "output is %s",
                           vki_dtype_name(out->dtype));
    const int32_t *axes;
    int n;
    bool single = is_arg(op->code) || op->code == VKI_OP_CUMSUM;
    s = vki_op_int_values(m, o, 1, single ? "axis" : "axes", single ? 1 : 0, single ? 1 : 8,
                          &axes, &n);
    if (s) return s;
    vki_dims5(in, d->in);
    for (int i = 0; i < n; i++) {
        int a = vki_axis5(axes[i], in->rank);
        if (a < 0)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "axis %d is out of range for rank %d",
                               (int)axes[i], in->rank);
        d->red[a] = true;
        d->axis = a;
    }
    int dims[VKI_MAX_RANK], r = 0;
    bool keep = !single && op->opt.reduce.keep_dims;
    for (int j = 0; j < 5; j++) {
        bool cut = d->red[j] && op->code != VKI_OP_CUMSUM;
        d->keep[j] = cut ? 1 : d->in[j];
        if (j >= 5 - in->rank && (!cut || keep)) dims[r++] = d->keep[j];
    }
    return vki_op_expect_dims(m, o, op->outputs[0], r, dims);
}

vki_status vki_reduce_validate(const vki_model *m, int o) {
    reduce_desc d;
    return describe(m, o, &d);
}

static const char *op_define(vki_op_code code) {
    switch (code) {
    case VKI_OP_MEAN: return "RED_MEAN";
    case VKI_OP_REDUCE_MAX: return "RED_MAX";
    case VKI_OP_REDUCE_MIN: return "RED_MIN";
    case VKI_OP_REDUCE_PROD: return "RED_PROD";
    case VKI_OP_REDUCE_ANY: return "RED_ANY";
    case VKI_OP_ARG_MAX: return "RED_ARGMAX";
    case VKI_OP_ARG_MIN: return "RED_ARGMIN";
    case VKI_OP_CUMSUM: return "CUMSUM";
    default: return "RED_SUM";
    }
}

/* CRD_0..CRD_<last>: each input coordinate, o<j> where kept, else the digit of r over the
 * reduced axes (the last one fastest). Returns the reduced count. */
static int define_coords(vki_dispatch *dp, const reduce_desc *d, int last) {
    int stride = 1;
    char name[16], expr[64];
    for (int j = last; j >= 0; j--) {
        snprintf(name, sizeof name, "CRD_%d", j);
        if (d->red[j]) {
            snprintf(expr, sizeof expr, "((r/%d)%%%d)", stride, d->in[j]);
            stride *= d->in[j];
        } else {
            snprintf(expr, sizeof expr, "o%d", j);
        }
        vki_define_text(dp, name, expr);
    }
    return stride;
}

vki_status vki_reduce_build(vki_build *b, const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    reduce_desc d;
    vki_status s = describe(m, o, &d);
    if (s) return s;
    vki_dispatch dp;
    vki_dispatch_init(&dp, VKI_KERNEL_reduce_axes, VKI_WG_ELEMENTWISE);
    vki_define_int(&dp, op_define(op->code), 1);
    char name[16];
    for (int j = 0; j < 5; j++) {
        snprintf(name, sizeof name, "IN_E%d", j);
        vki_define_int(&dp, name, d.in[j]);
    }
    vki_define_shape(&dp, "IN", vki_tensor_rows(vki_op_in(m, op, 0)));
    vki_shape4 out = vki_tensor_rows(vki_op_out(m, op, 0));
    vki_shape4 keep = {1, d.keep[0] * d.keep[1] * d.keep[2], d.keep[3], d.keep[4]};
    vki_define_shape(&dp, "OUT", out);
    vki_define_int(&dp, "OUT_R1", d.keep[1]);
    vki_define_int(&dp, "OUT_R2", d.keep[2]);
    int count;
    if (op->code == VKI_OP_CUMSUM) {
        vki_define_int(&dp, "CUM_AXIS", d.axis);
        if (op->opt.cumsum.exclusive) vki_define_int(&dp, "CUM_EXCLUSIVE", 1);
        if (op->opt.cumsum.reverse) vki_define_int(&dp, "CUM_REVERSE", 1);
        count = 1;
    } else if (out.h != keep.h || out.w != keep.w || out.c != keep.c) {
        vki_define_int(&dp, "RED_DENSE", 1);
        for (int j = 0; j < 5; j++) {
            snprintf(name, sizeof name, "K%d", j);
            vki_define_int(&dp, name, d.keep[j]);
        }
        count = define_coords(&dp, &d, 4);
    } else {
        if (d.red[4]) vki_define_int(&dp, "RED_C", 1);
        count = define_coords(&dp, &d, 3);
    }
    vki_define_int(&dp, "RED_COUNT", count);
    vki_dispatch_bind_tensor(&dp, op->inputs[0]);
    vki_dispatch_bind_tensor(&dp, op->outputs[0]);
    vki_dispatch_grid_phwc4(&dp, out);
    return vki_build_dispatch(b, &dp);
}

/* ---- the reference ------------------------------------------------------------------- */

static size_t dense_at(const int e[5], const int c[5]) {
    size_t at = 0;
    for (int j = 0; j < 5; j++) at = at * (size_t)e[j] + (size_t)c[j];
    return at;
}

/* TFLite's reference kernels: a float accumulator from the op's start value over the
 * reduced elements in row-major order; MEAN divides the sum once. */
void vki_reduce_reference(const vki_model *m, const vki_op *op, const float *const *in,
                          float *const *out) {
    reduce_desc d;
    if (describe(m, (int)(op - m->ops), &d)) return;
    const int *k = d.keep;
    int o[5];
    size_t i = 0;
    for (o[0] = 0; o[0] < k[0]; o[0]++)
        for (o[1] = 0; o[1] < k[1]; o[1]++)
            for (o[2] = 0; o[2] < k[2]; o[2]++)
                for (o[3] = 0; o[3] < k[3]; o[3]++)
                    for (o[4] = 0; o[4] < k[4]; o[4]++, i++) {
                        int c[5];
                        memcpy(c, o, sizeof c);
                        if (op->code == VKI_OP_CUMSUM) {
                            int at = o[d.axis], n = d.in[d.axis];
                            bool ex = op->opt.cumsum.exclusive, rev = op->opt.cumsum.reverse;
                            int lo = rev ? at + ex : 0, hi = rev ? n : at + 1 - ex;
                            float acc = 0.0f;
                            for (c[d.axis] = lo; c[d.axis] < hi; c[d.axis]++)
                                acc += in[0][dense_at(d.in, c)];
                            out[0][i] = acc;
                            continue;
                        }
                        float acc = op->code == VKI_OP_REDUCE_MAX || op->code == VKI_OP_ARG_MAX ? -FLT_MAX
                                    : op->code == VKI_OP_REDUCE_MIN || op->code == VKI_OP_ARG_MIN ? FLT_MAX
                                    : op->code == VKI_OP_REDUCE_PROD ? 1.0f : 0.0f;
                        int best = 0, count = 0;
                        /* Every reduced element: an odometer over the reduced axes. */
                        for (int j = 0; j < 5; j++) if (d.red[j]) c[j] = 0;
                        for (;;) {
                            float v = in[0][dense_at(d.in, c)];
                            switch (op->code) {
                            case VKI_OP_REDUCE_MAX: acc = v > acc ? v : acc; break;
                            case VKI_OP_REDUCE_MIN: acc = v < acc ? v : acc; break;
                            case VKI_OP_REDUCE_PROD: acc *= v; break;
                            case VKI_OP_REDUCE_ANY: acc = acc != 0.0f || v != 0.0f; break;
                            case VKI_OP_ARG_MAX: if (v > acc) { acc = v; best = c[d.axis]; } break;
                            case VKI_OP_ARG_MIN: if (v < acc) { acc = v; best = c[d.axis]; } break;
                            default: acc += v; break;
                            }
                            count++;
                            int j = 4;
                            for (; j >= 0; j--) {
                                if (!d.red[j]) continue;
                                if (++c[j] < d.in[j]) break;
                                c[j] = 0;
                            }
                            if (j < 0) break;
                        }
                        out[0][i] = is_arg(op->code) ? (float)best
                                    : op->code == VKI_OP_MEAN ? acc / (float)count : acc;
                    }
}

/* ReducerOptions: keep_dims at field 0. */
static vki_status read_reducer(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_bool(r, 0, false, &op->opt.reduce.keep_dims)) return vki_opt_malformed(r);
    return VKI_OK;
}

/* CumsumOptions: exclusive at field 0, reverse at field 1. */
static vki_status read_cumsum(vki_options_reader *r, const vki_model *m, vki_op *op) {
    (void)m;
    if (!vki_opt_bool(r, 0, false, &op->opt.cumsum.exclusive) ||
        !vki_opt_bool(r, 1, false, &op->opt.cumsum.reverse))
        return vki_opt_malformed(r);
    return VKI_OK;
}

#define REDUCE_(options_fn) {.validate = vki_reduce_validate, .build = vki_reduce_build, \
                             .reference = vki_reduce_reference, .options = options_fn,   \
                             .general = true}
const vki_op_def vki_op_sum = REDUCE_(read_reducer);
const vki_op_def vki_op_reduce_max = REDUCE_(read_reducer);
const vki_op_def vki_op_reduce_min = REDUCE_(read_reducer);
const vki_op_def vki_op_reduce_prod = REDUCE_(read_reducer);
const vki_op_def vki_op_reduce_any = REDUCE_(read_reducer);
const vki_op_def vki_op_arg_max = REDUCE_(NULL);
const vki_op_def vki_op_arg_min = REDUCE_(NULL);
const vki_op_def vki_op_cumsum = REDUCE_(read_cumsum);

/* ---- the global-pool kernel's lanes ------------------------------------------------------ */

/* Cells a GPU lane sums at most before the slice gets more lanes, and the lanes' bounds.
 * A CPU device runs a group as SIMD vectors that the barriers switch between: on lavapipe
 * 64 lanes ran MEANs twice as slowly as one thread per slice, while one vector per slice
 * beat it. A GPU wants lanes to keep loads in flight: with 64 lanes a slice,
 * selfie_segmentation's global pools over 128x128 and 64x64 cells took 17.4 and 7.4 us on
 * an H100 against 4.1 for 16x16 (run --profile), each lane summing 256 and 64 cells in a
 * row; so a slice gets lanes until each sums at most VKI_REDUCE_CELLS_PER_LANE. */
#define VKI_REDUCE_CELLS_PER_LANE 16
#define VKI_REDUCE_MIN_LANES 64u
#define VKI_REDUCE_MAX_LANES 1024u

void vki_reduce_lanes(const vki_build *b, long cells, vki_dispatch *d) {
    const vki_wg_device *dev = vki_build_device(b);
    if (dev->is_cpu) {
        d->grid[0] = dev->subgroup_size >= 4 && dev->subgroup_size <= 64 ? dev->subgroup_size : 8;
        return;
    }
    const uint32_t max = vki_wg_lanes(dev, VKI_REDUCE_MAX_LANES);
    uint32_t lanes = VKI_REDUCE_MIN_LANES;
    while (lanes * 2 <= max && (long)lanes * VKI_REDUCE_CELLS_PER_LANE < cells) lanes *= 2;
    if (lanes > max) lanes = max;
    d->grid[0] = lanes;
    d->fixed_wg[0] = lanes;
    d->fixed_wg[1] = d->fixed_wg[2] = 1;
}
