/* table_export.c: the table export stage: the graphs of a tuning run into work-group table
 * rows for the device's family. It groups the tunable dispatches by op class and shape
 * bucket, times every candidate size of a bucket on every dispatch in it, and leaves the
 * choice and the text to tuner/table.c (vki_wg_table_export), which is pure and tested on
 * its own. */
#include "gpu.h"
#include "graph.h"
#include "partition.h"
#include "status.h"

#include "../../tuner/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_CANDIDATES 8
#define MAX_CANDIDATES 32            /* the table's sizes included */

typedef struct item {
    int graph, step, bucket;
    vki_wg_class cls;
    uint32_t grid[3], tuned[3], table[3];
} item;

typedef struct candidate {
    uint32_t wg[3];
    int count;                   /* dispatches of the bucket tuning gave this size */
} candidate;

static int by_bucket(const void *a, const void *b) {
    const item *x = a, *y = b;
    if (x->cls != y->cls) return x->cls < y->cls ? -1 : 1;
    if (x->bucket != y->bucket) return x->bucket < y->bucket ? -1 : 1;
    if (x->graph != y->graph) return x->graph < y->graph ? -1 : 1;
    return x->step < y->step ? -1 : x->step > y->step;
}

static int by_count(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return memcmp(x->wg, y->wg, sizeof x->wg) < 0 ? -1 : memcmp(x->wg, y->wg, sizeof x->wg) > 0;
}

static void add_candidate(candidate *c, int *n, const uint32_t wg[3], int count) {
    for (int i = 0; i < *n; i++)
        if (!memcmp(c[i].wg, wg, sizeof c[i].wg)) {
            c[i].count += count;
            return;
        }
    memcpy(c[*n].wg, wg, sizeof c[*n].wg);
    c[(*n)++].count = count;
}

/* The candidates of items[0..n): the sizes tuning chose, most frequent first, cut to max
 * with the table's own sizes always kept, so a row never loses to the table it replaces
 * on the dispatches it was measured on. */
static int candidates_of(const item *items, int n, int max, candidate *out) {
    int nc = 0;
    for (int i = 0; i < n; i++) add_candidate(out, &nc, items[i].tuned, 1);
    qsort(out, (size_t)nc, sizeof *out, by_count);
    int table_sizes = 0;
    candidate *table = out + nc;           /* room: the caller sized out for 2n */
    for (int i = 0; i < n; i++) add_candidate(table, &table_sizes, items[i].table, 0);
    int keep = nc;
    for (int t = 0; t < table_sizes; t++) {
        int found = 0;
        for (int i = 0; i < nc; i++) found |= !memcmp(out[i].wg, table[t].wg, sizeof table[t].wg);
        if (found) table[t].count = -1;    /* already a candidate */
    }
    int extra = 0;
    for (int t = 0; t < table_sizes; t++) extra += table[t].count == 0;
    if (keep + extra > max) keep = max - extra > 1 ? max - extra : 1;
    int m = keep;
    for (int t = 0; t < table_sizes && m < MAX_CANDIDATES; t++)
        if (table[t].count == 0) out[m++] = table[t];
    return m;
}

static vki_status time_bucket(vki_graph *const *graphs, const vki_wg_device *dev, const item *items,
                              int n, int first_id, const candidate *cand, int nc,
                              vki_wg_sample *samples, int *ns, const vki_table_export_options *o,
                              int *done, int total) {
    for (int i = 0; i < n; i++) {
        const item *it = &items[i];
        uint32_t fitted[MAX_CANDIDATES][3];
        double fitted_ms[MAX_CANDIDATES];
        int nf = 0;
        for (int c = 0; c < nc; c++) {
            uint32_t wg[3];
            vki_wg_fit(dev, it->cls, it->grid, cand[c].wg, wg);
            double ms = -1;
            int f = 0;
            while (f < nf && memcmp(fitted[f], wg, sizeof wg)) f++;
            if (f < nf) {
                ms = fitted_ms[f];          /* two candidates fit to one size: time it once */
            } else {
                vki_status s = vki_graph_time_dispatch(graphs[it->graph], it->step, wg, &ms);
                if (s) return s;
                memcpy(fitted[nf], wg, sizeof wg);
                fitted_ms[nf++] = ms;
            }
            samples[(*ns)++] = (vki_wg_sample){first_id + i, it->cls,
                                               {it->grid[0], it->grid[1], it->grid[2]},
                                               {cand[c].wg[0], cand[c].wg[1], cand[c].wg[2]}, ms};
        }
        if (o->progress) o->progress(o->progress_user, "export", ++*done, total);
    }
    return VKI_OK;
}

static vki_status write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return vki_fail(VKI_ERROR_IO, "%s: cannot write the work-group table", path);
    int ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    return ok ? VKI_OK : vki_fail(VKI_ERROR_IO, "%s: cannot write the work-group table", path);
}

static vki_status export_table(vki_graph *const *graphs, int n,
                               const vki_table_export_options *options, const char *path) {
    const vki_table_export_options none = {0}, *o = options ? options : &none;
    for (int i = 0; i < n; i++) {
        if (!graphs[i])
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_export_workgroup_table: graph %d is NULL", i);
        if (graphs[i]->ctx != graphs[0]->ctx)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_export_workgroup_table: graph %d (%s) "
                            "is on another context than graph 0", i, graphs[i]->model_io->name);
    }
    const vki_context *ctx = graphs[0]->ctx;
    const vki_wg_device dev = vki_context_wg_device(ctx);
    int max_cand = o->max_candidates > 0 ? o->max_candidates : DEFAULT_MAX_CANDIDATES;
    if (max_cand > MAX_CANDIDATES / 2) max_cand = MAX_CANDIDATES / 2;

    int total = 0;
    for (int g = 0; g < n; g++)
        for (int k = 0; k < graphs[g]->rec.n_steps; k++) total += vki_wg_tunable(graphs[g]->kernels[k].cls);
    item *items = vki_calloc((size_t)(total ? total : 1), sizeof *items);
    candidate *cand = vki_calloc((size_t)(2 * total + 2), sizeof *cand);
    vki_wg_sample *samples = vki_calloc((size_t)(total ? total : 1) * MAX_CANDIDATES, sizeof *samples);
    vki_status s = items && cand && samples ? VKI_OK : vki_fail_oom("vki_export_workgroup_table");
    int ni = 0;
    for (int g = 0; !s && g < n; g++)
        for (int k = 0; k < graphs[g]->rec.n_steps; k++) {
            const vki_step_kernel *sk = &graphs[g]->kernels[k];
            if (!vki_wg_tunable(sk->cls)) continue;
            item *it = &items[ni++];
            const vki_step *st = &graphs[g]->rec.steps[k];
            *it = (item){.graph = g, .step = k, .bucket = vki_wg_bucket_of(st->grid), .cls = sk->cls};
            memcpy(it->grid, st->grid, sizeof it->grid);
            memcpy(it->tuned, st->wg, sizeof it->tuned);
            vki_wg_table_shape(&dev, sk->cls, st->grid, it->table);
        }
    if (!s) qsort(items, (size_t)ni, sizeof *items, by_bucket);
    int ns = 0, done = 0;
    for (int i = 0; !s && i < ni;) {
        int j = i;
        while (j < ni && items[j].cls == items[i].cls && items[j].bucket == items[i].bucket) j++;
        int nc = candidates_of(items + i, j - i, max_cand, cand);
        s = time_bucket(graphs, &dev, items + i, j - i, i, cand, nc, samples, &ns, o, &done, ni);
        i = j;
    }

    char family[64], match[64], source[96], source_text[1024];
    const char *fam = o->family;
    if (!fam) {
        const char *names[1] = {"device"};
        vki_wg_table_families(ctx->wg_table, &dev, names, 1);
        fam = names[0];
    }
    snprintf(family, sizeof family, "%s", fam);
    if (o->match) snprintf(match, sizeof match, "%s", o->match);
    else snprintf(match, sizeof match, "vendor=0x%04X", dev.vendor_id);
    if (o->source) snprintf(source, sizeof source, "%s", o->source);
    else snprintf(source, sizeof source, "%s-tuned", family);
    if (o->source_text) {
        snprintf(source_text, sizeof source_text, "%s", o->source_text);
    } else {
        int at = snprintf(source_text, sizeof source_text, "vkinfer tune on %s (driver 0x%08X): ",
                          ctx->props.deviceName, ctx->props.driverVersion);
        for (int g = 0; g < n && at > 0 && (size_t)at < sizeof source_text; g++) {
            const char *name = graphs[g]->model_io->name, *slash = strrchr(name, '/');
            at += snprintf(source_text + at, sizeof source_text - (size_t)at, "%s%s", g ? ", " : "",
                           slash ? slash + 1 : name);
        }
    }
    char *text = NULL;
    if (!s) {
        vki_wg_export_options eo = {family, match, source, source_text};
        text = vki_wg_table_export(samples, ns, &eo);
        if (!text) s = vki_fail_oom("vki_export_workgroup_table");
    }
    if (!s) s = write_text(path, text);
    free(text);
    free(samples);
    free(cand);
    free(items);
    return s;
}

/* A graph with CPU ops brings its GPU segments' graphs. */
vki_status vki_export_workgroup_table(vki_graph *const *graphs, int n,
                                      const vki_table_export_options *options, const char *path) {
    if (!graphs || !path || n < 1)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_export_workgroup_table: %s",
                        !graphs || !path ? "NULL argument" : "no graphs");
    int total = 0;
    for (int i = 0; i < n; i++)
        total += graphs[i] && graphs[i]->part ? vki_partition_graphs(graphs[i]->part, NULL, 0) : 1;
    vki_graph **all = vki_calloc((size_t)total + 1, sizeof *all);
    if (!all) return vki_fail_oom("vki_export_workgroup_table");
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (graphs[i] && graphs[i]->part) k += vki_partition_graphs(graphs[i]->part, all + k, total - k);
        else all[k++] = graphs[i];
    }
    vki_status s = k ? export_table(all, k, options, path)
                     : vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_export_workgroup_table: the "
                                "graphs run no GPU segment");
    free(all);
    return s;
}
