/* remap.c: the layout ops' shared dispatch and C reference (see remap.h). */
#include "remap.h"

#include <stdio.h>
#include <string.h>

void vki_dims5(const vki_tensor *t, int d[VKI_REMAP_RANK]) {
    for (int i = 0; i < VKI_REMAP_RANK; i++) d[i] = 1;
    for (int i = 0; i < t->rank && i < VKI_REMAP_RANK; i++)
        d[VKI_REMAP_RANK - t->rank + i] = t->shape[i];
}

int vki_axis5(int axis, int rank) {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return -1;
    return axis + VKI_REMAP_RANK - rank;
}

void vki_remap_init(vki_remap *r, const vki_tensor *out) {
    memset(r, 0, sizeof *r);
    vki_dims5(out, r->out);
    for (int j = 0; j < VKI_REMAP_RANK; j++) vki_remap_from(r, j, j, 1);
    r->table = -1;
    r->table_axis = -1;
    r->sel_coord = -1;
}

int vki_remap_add_input(vki_remap *r, const vki_model *m, const vki_op *op, int slot) {
    int k = r->n_inputs++;
    r->inputs[k] = slot;
    vki_dims5(&m->tensors[op->inputs[slot]], r->in[k]);
    return k;
}

void vki_remap_fixed(vki_remap *r, int j, int offset) {
    r->axis[j].n_terms = 0;
    r->axis[j].offset = offset;
}

void vki_remap_from(vki_remap *r, int j, int k, int mul) {
    r->axis[j].n_terms = 0;
    vki_remap_term_add(r, j, k, 0, 1, 0, mul);
}

void vki_remap_term_add(vki_remap *r, int j, int k, int add, int div, int mod, int mul) {
    vki_remap_axis *a = &r->axis[j];
    if (a->n_terms < VKI_REMAP_MAX_TERMS)
        a->term[a->n_terms++] = (vki_remap_term){k, add, div > 0 ? div : 1, mod, mul};
}

/* ---- the dispatch ------------------------------------------------------------------------ */

/* COORD_j as GLSL: the sum of its terms and offset, e.g. "(((o1+2)/3)*4+-1)". */
static void coord_expression(const vki_remap_axis *a, char *buf, size_t size) {
    size_t n = 0;
#define PUT(...) do { if (n < size) n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
    PUT("(");
    for (int t = 0; t < a->n_terms; t++) {
        const vki_remap_term *x = &a->term[t];
        PUT("%s", t ? "+" : "");
        if (x->mod) PUT("(");
        if (x->div > 1) PUT("(");
        if (x->add) {
            PUT("(o%d+%d)", x->axis, x->add);
        } else {
            PUT("o%d", x->axis);
        }
        if (x->div > 1) PUT("/%d)", x->div);
        if (x->mod) PUT("%%%d)", x->mod);
        PUT("*%d", x->mul);
    }
    PUT("%s%d)", a->n_terms ? "+" : "", a->offset);
#undef PUT
}

static void define_input(vki_dispatch *d, int k, const int e[VKI_REMAP_RANK]) {
    char name[32];
    for (int j = 0; j < VKI_REMAP_RANK; j++) {
        snprintf(name, sizeof name, "I%d_E%d", k, j);
        vki_define_int(d, name, e[j]);
    }
    snprintf(name, sizeof name, "I%d", k);
    vki_define_shape(d, name, (vki_shape4){1, e[0] * e[1] * e[2], e[3], e[4]});
}

static vki_status emit(vki_build *b, const vki_model *m, const vki_op *op, const vki_remap *r,
                       int out) {
    vki_dispatch d;
    vki_dispatch_init(&d, VKI_KERNEL_remap, VKI_WG_ELEMENTWISE);
    vki_define_int(&d, "N_IN", r->n_inputs);
    vki_define_int(&d, "OUT_D0", r->out[0]);
    vki_define_int(&d, "OUT_D1", r->out[1]);
    vki_define_int(&d, "OUT_D2", r->out[2]);
    vki_define_int(&d, "OUT_D3", r->out[3]);
    vki_define_int(&d, "OUT_D4", r->out[4]);
    vki_shape4 so = {1, r->out[0] * r->out[1] * r->out[2], r->out[3], r->out[4]};
    vki_define_shape(&d, "OUT", so);
    for (int j = 0; j < VKI_REMAP_RANK; j++) {
        char name[16], expr[512];
        coord_expression(&r->axis[j], expr, sizeof expr);
        snprintf(name, sizeof name, "COORD_%d", j);
        char line[600];
        snprintf(line, sizeof line, "%s", expr);
        /* vki_define_int takes numbers; a coordinate is an expression. */
        vki_define_text(&d, name, line);
        snprintf(name, sizeof name, "EDGE_%d", j);
        vki_define_int(&d, name, r->axis[j].edge);
    }
    vki_define_float(&d, "FILL", r->fill);
    vki_define_activation(&d, r->activation);
    if (r->n_inputs > 1) {
        vki_define_int(&d, "SEL_AXIS", r->sel_axis);
        vki_define_int(&d, "SEL_COORD", r->sel_coord);
    }
    for (int k = 0; k < r->n_inputs; k++) {
        define_input(&d, k, r->in[k]);
        if (r->n_inputs > 1) {
            char name[16];
            snprintf(name, sizeof name, "START%d", k);
            vki_define_int(&d, name, r->start[k]);
        }
        vki_status st = vki_build_bind_operand(
            b, &d, op->inputs[r->inputs[k]], (vki_shape4){1, r->in[k][0] * r->in[k][1] * r->in[k][2],
                                              r->in[k][3], r->in[k][4]});
        if (st) return st;
    }
    if (r->table >= 0) {
        vki_define_int(&d, "TABLE", 1);
        vki_define_int(&d, "TABLE_BINDING", d.n_bindings);
        vki_define_int(&d, "TABLE_AXIS", r->table_axis);
        vki_define_int(&d, "TABLE_EXTENT", r->in[0][r->table_axis]);
        /* A constant table packs as one row of indices, the layout of a rank-1 activation
         * (describe allows activation tables of rank <= 1 only). */
        int t = op->inputs[r->table];
        vki_shape4 flat = {1, 1, 1, (int)vki_tensor_elements(&m->tensors[t])};
        vki_status st = vki_build_bind_operand(b, &d, t, flat);
        if (st) return st;
    }
    vki_define_int(&d, "OUT_BINDING", d.n_bindings);
    vki_dispatch_bind_tensor(&d, out);
    vki_dispatch_grid_phwc4(&d, so);
    return vki_build_dispatch(b, &d);
}

/* ---- the reference ----------------------------------------------------------------------- */

static int edge(int c, int e, vki_edge rule, int *inside) {
    switch (rule) {
    case VKI_EDGE_FILL: *inside &= c >= 0 && c < e; return c;
    case VKI_EDGE_REFLECT: c = c < 0 ? -c : c; return c >= e ? 2 * e - 2 - c : c;
    case VKI_EDGE_SYMMETRIC: c = c < 0 ? -c - 1 : c; return c >= e ? 2 * e - 1 - c : c;
    case VKI_EDGE_WRAP: c %= e; return c < 0 ? c + e : c;
    default: return c;
    }
}

static void run(const vki_remap *r, const float *const *in, const float *table, float *out) {
    const int *d = r->out;
    size_t i = 0;
    int o[VKI_REMAP_RANK];
    for (o[0] = 0; o[0] < d[0]; o[0]++)
        for (o[1] = 0; o[1] < d[1]; o[1]++)
            for (o[2] = 0; o[2] < d[2]; o[2]++)
                for (o[3] = 0; o[3] < d[3]; o[3]++)
                    for (o[4] = 0; o[4] < d[4]; o[4]++, i++) {
                        int c[VKI_REMAP_RANK], inside = 1;
                        for (int j = 0; j < VKI_REMAP_RANK; j++) {
                            const vki_remap_axis *a = &r->axis[j];
                            int v = a->offset;
                            for (int t = 0; t < a->n_terms; t++) {
                                const vki_remap_term *x = &a->term[t];
                                int q = (o[x->axis] + x->add) / x->div;
                                if (x->mod) q %= x->mod;
                                v += q * x->mul;
                            }
                            c[j] = edge(v, r->in[0][j], a->edge, &inside);
                        }
                        if (!inside) { out[i] = r->fill; continue; }
                        if (table) {
                            int at = (int)table[c[r->table_axis]];
                            int e = r->in[0][r->table_axis];
                            c[r->table_axis] = at < 0 ? 0 : at >= e ? e - 1 : at;
                        }
                        int k = 0;
                        for (int q = r->n_inputs - 1; q > 0 && !k; q--)
                            if (o[r->sel_axis] >= r->start[q]) k = q;
                        if (r->n_inputs > 1 && r->sel_coord >= 0) c[r->sel_coord] -= r->start[k];
                        const int *e = r->in[k];
                        size_t at = 0;
                        for (int j = 0; j < VKI_REMAP_RANK; j++) at = at * (size_t)e[j] + (size_t)c[j];
                        out[i] = in[k][at];
                    }
}

/* ---- the op functions -------------------------------------------------------------------- */

vki_status vki_remap_validate(const vki_model *m, int o, vki_remap_describe describe) {
    const vki_op *op = &m->ops[o];
    for (int k = 0; k < op->n_outputs; k++) {
        vki_status s = vki_op_check_float_tensor(m, o, op->outputs[k], "output", k);
        if (s) return s;
        if (m->tensors[op->outputs[k]].data)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output %d (tensor %d) is a constant",
                               k, op->outputs[k]);
        vki_remap r;
        s = describe(m, o, k, &r);
        if (s) return s;
        if (r.n_inputs < 1 || r.n_inputs > VKI_REMAP_MAX_INPUTS)
            return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_MODEL, "has %d inputs to gather from, "
                               "at most %d supported", r.n_inputs, VKI_REMAP_MAX_INPUTS);
    }
    return VKI_OK;
}

vki_status vki_remap_build(vki_build *b, const vki_model *m, int o, vki_remap_describe describe) {
    const vki_op *op = &m->ops[o];
    for (int k = 0; k < op->n_outputs; k++) {
        vki_remap r;
        vki_status s = describe(m, o, k, &r);
        if (!s) s = emit(b, m, op, &r, op->outputs[k]);
        if (s) return s;
    }
    return VKI_OK;
}

void vki_remap_reference(const vki_model *m, const vki_op *op, const float *const *in,
                         float *const *out, vki_remap_describe describe) {
    int o = (int)(op - m->ops);
    for (int k = 0; k < op->n_outputs; k++) {
        vki_remap r;
        if (describe(m, o, k, &r)) continue;   /* validated before any run */
        const float *inputs[VKI_REMAP_MAX_INPUTS];
        for (int q = 0; q < r.n_inputs; q++) inputs[q] = in[r.inputs[q]];
        run(&r, inputs, r.table >= 0 ? in[r.table] : NULL, out[k]);
        if (r.activation != VKI_ACT_NONE) {
            size_t n = (size_t)r.out[0] * r.out[1] * r.out[2] * r.out[3] * r.out[4];
            for (size_t i = 0; i < n; i++) out[k][i] = vki_apply_activation(r.activation, out[k][i]);
        }
    }
}
