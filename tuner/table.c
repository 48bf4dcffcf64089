/* table.c: the work-group family table: parsing table texts, matching a device to its
 * families, looking a dispatch's row up, and exporting a tuning run's timings as rows.
 *
 * A parse builds the text's sources, families and rows on the side, with every string
 * copied into one block of its own, and joins them to the table only when the whole text
 * is good: an error leaves the table as it was. Blocks are never moved, so the strings a
 * lookup hands out stay valid until vki_wg_table_free. */
#include "table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TYPE_ANY, TYPE_CPU, TYPE_GPU };
enum { MAX_FIELDS = 16, MAX_WG = 1024 };

typedef struct wg_family {
    const char *name;
    const char *globs;              /* '|'-separated patterns; NULL: any name */
    uint32_t vendor, dev_lo, dev_hi;
    unsigned char has_vendor, has_device, type;
    int row0, nrows;                /* its rows, contiguous in the table's rows */
} wg_family;

typedef struct wg_row {
    uint64_t px_lo, px_hi, sl_lo, sl_hi;
    uint32_t wg[3];
    int cls, line;
    const char *family, *source, *source_text, *origin;
} wg_row;

struct vki_wg_table {
    wg_family *fams;
    wg_row *rows;
    char **blocks;                  /* one per parsed text: its strings */
    int nfams, nrows, nblocks;
};

/* ---- small helpers --------------------------------------------------------------------- */

typedef struct tok { const char *s; size_t n; } tok;

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }
static int blank(int c) { return c == ' ' || c == '\t'; }
static int tok_is(tok t, const char *word) { return t.n == strlen(word) && !memcmp(t.s, word, t.n); }

/* At most 64 bytes of a token, for messages. */
#define TOKF(t) (int)((t).n < 64 ? (t).n : 64), (t).s

static int grow(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap) return 1;
    int c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* A decimal or 0x-hex number that fits 32 bits. */
static int parse_u32(tok t, int hex_ok, uint32_t *out) {
    const char *s = t.s, *e = t.s + t.n;
    int base = 10;
    if (hex_ok && t.n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s == e) return 0;
    uint64_t v = 0;
    for (; s < e; s++) {
        int c = lower((unsigned char)*s), d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else return 0;
        v = v * (uint64_t)base + (uint64_t)d;
        if (v > UINT32_MAX) return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

/* "*", "N", "N-M" (N <= M) or "N-*". */
static int parse_range(tok t, uint64_t *lo, uint64_t *hi) {
    if (tok_is(t, "*")) {
        *lo = 0;
        *hi = UINT64_MAX;
        return 1;
    }
    const char *dash = memchr(t.s, '-', t.n);
    tok l = {t.s, dash ? (size_t)(dash - t.s) : t.n};
    tok r = dash ? (tok){dash + 1, t.n - l.n - 1} : l;
    uint32_t a, b = 0;
    if (!parse_u32(l, 1, &a)) return 0;
    int open = dash && tok_is(r, "*");
    if (!open && (!parse_u32(r, 1, &b) || b < a)) return 0;
    *lo = a;
    *hi = open ? UINT64_MAX : b;
    return 1;
}

/* Each axis 1..1024 and at most 1024 threads. */
static int size_ok(const uint32_t wg[3]) {
    for (int a = 0; a < 3; a++)
        if (wg[a] < 1 || wg[a] > MAX_WG) return 0;
    return (uint64_t)wg[0] * wg[1] * wg[2] <= MAX_WG;
}

/* "XxYxZ", decimal. */
static int parse_size(tok t, uint32_t wg[3]) {
    const char *s = t.s, *e = t.s + t.n;
    for (int a = 0; a < 3; a++) {
        const char *x = a < 2 ? memchr(s, 'x', (size_t)(e - s)) : e;
        if (!x || !parse_u32((tok){s, (size_t)(x - s)}, 0, &wg[a])) return 0;
        s = x + 1;
    }
    return size_ok(wg);
}

/* One glob against a NUL-terminated string: '*' any run, '?' one byte, case-insensitive. */
static int glob1(const char *p, const char *pe, const char *s) {
    const char *star = NULL, *retry = NULL;
    while (*s) {
        if (p < pe && *p == '*') {
            star = ++p;
            retry = s;
        } else if (p < pe && (*p == '?' || lower((unsigned char)*p) == lower((unsigned char)*s))) {
            p++;
            s++;
        } else if (star) {
            p = star;
            s = ++retry;
        } else {
            return 0;
        }
    }
    while (p < pe && *p == '*') p++;
    return p == pe;
}

static int glob_any(const char *globs, const char *name) {
    for (const char *p = globs;; p++) {
        const char *bar = strchr(p, '|');
        const char *pe = bar ? bar : p + strlen(p);
        if (glob1(p, pe, name)) return 1;
        if (!bar) return 0;
        p = bar;
    }
}

static int family_matches(const wg_family *f, const vki_wg_device *dev) {
    if (f->has_vendor && dev->vendor_id != f->vendor) return 0;
    if (f->has_device && (dev->device_id < f->dev_lo || dev->device_id > f->dev_hi)) return 0;
    if (f->type == TYPE_CPU && !dev->is_cpu) return 0;
    if (f->type == TYPE_GPU && dev->is_cpu) return 0;
    if (f->globs && (!dev->name || !glob_any(f->globs, dev->name))) return 0;
    return 1;
}

/* ---- parsing --------------------------------------------------------------------------- */

typedef struct wg_source { const char *id, *text; } wg_source;

typedef struct parser {
    const char *origin;
    int line;
    char *err;
    size_t err_size;
    char *block;                    /* the text's strings */
    size_t used, cap;
    wg_family *fams;
    wg_row *rows;
    wg_source *srcs;
    int nfams, nrows, nsrcs, cap_fams, cap_rows, cap_srcs;
} parser;

static int fail(parser *p, const char *fmt, ...) {
    if (p->err && p->err_size) {
        int n = snprintf(p->err, p->err_size, "%s:%d: ", p->origin, p->line);
        if (n >= 0 && (size_t)n < p->err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(p->err + n, p->err_size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return 0;
}

/* A copy of n bytes in the text's block. The block is sized so that it always fits (a
 * line's copies are never longer than the line); the check is a guard. */
static const char *keep(parser *p, const char *s, size_t n) {
    if (n + 1 > p->cap - p->used) return NULL;
    char *d = p->block + p->used;
    memcpy(d, s, n);
    d[n] = 0;
    p->used += n + 1;
    return d;
}

/* The next field of [*cur, e): a run of non-blanks, where double quotes also hold blanks
 * and '#'. 0 at the end of the line or a comment, -1 for an unclosed quote. */
static int next_field(const char **cur, const char *e, tok *t) {
    const char *s = *cur;
    while (s < e && blank(*s)) s++;
    if (s == e || *s == '#') return 0;
    const char *b = s;
    int quoted = 0;
    for (; s < e && (quoted || (!blank(*s) && *s != '#')); s++)
        if (*s == '"') quoted = !quoted;
    if (quoted) return -1;
    *t = (tok){b, (size_t)(s - b)};
    *cur = s;
    return 1;
}

/* All fields of the rest of a line: the count, or -1 (message written). */
static int fields(parser *p, const char *s, const char *e, tok *out) {
    int n = 0, r;
    tok t;
    while ((r = next_field(&s, e, &t)) > 0) {
        if (n == MAX_FIELDS) {
            fail(p, "trailing fields '%.*s'", TOKF(t));
            return -1;
        }
        out[n++] = t;
    }
    if (r < 0) {
        fail(p, "unclosed quote");
        return -1;
    }
    return n;
}

/* An id or a family name: no blanks, quotes, '=' or '#'. */
static int plain_word(tok t) {
    if (!t.n) return 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.s[i] == '"' || t.s[i] == '=' || t.s[i] == '#' || (unsigned char)t.s[i] <= ' ')
            return 0;
    return 1;
}

/* Control characters other than tabs have no place in a table text. */
static int check_bytes(parser *p, const char *s, const char *e) {
    for (; s < e; s++)
        if (((unsigned char)*s < ' ' && *s != '\t') || *s == 0x7f)
            return fail(p, "control character 0x%02X", (unsigned char)*s);
    return 1;
}

/* A family's criteria: vendor=N device=RANGE name=GLOBS type=cpu|gpu, each at most once. */
static int parse_criteria(parser *p, const tok *f, int n, wg_family *fam) {
    static const char *const keys[] = {"vendor", "device", "name", "type"};
    unsigned seen = 0;
    for (int i = 0; i < n; i++) {
        const char *eq = memchr(f[i].s, '=', f[i].n);
        tok key = {f[i].s, eq ? (size_t)(eq - f[i].s) : f[i].n};
        int k = 0;
        while (k < 4 && !tok_is(key, keys[k])) k++;
        if (!eq || k == 4) return fail(p, "unknown criterion '%.*s'", TOKF(key));
        if (seen & 1u << k) return fail(p, "criterion '%s' given twice", keys[k]);
        seen |= 1u << k;
        tok val = {eq + 1, f[i].n - key.n - 1};
        const char *q = memchr(val.s, '"', val.n);
        if (q) {
            /* Quotes only around the whole value. */
            if (q != val.s || val.n < 2 || val.s[val.n - 1] != '"' || memchr(val.s + 1, '"', val.n - 2))
                return fail(p, "bad quotes in '%.*s'", TOKF(f[i]));
            val.s++;
            val.n -= 2;
        }
        uint64_t lo, hi;
        switch (k) {
        case 0:
            if (!parse_u32(val, 1, &fam->vendor)) return fail(p, "bad number '%.*s'", TOKF(val));
            fam->has_vendor = 1;
            break;
        case 1:
            if (!parse_range(val, &lo, &hi)) return fail(p, "bad range '%.*s'", TOKF(val));
            fam->dev_lo = (uint32_t)lo;
            fam->dev_hi = hi > UINT32_MAX ? UINT32_MAX : (uint32_t)hi;
            fam->has_device = 1;
            break;
        case 2:
            if (!(fam->globs = keep(p, val.s, val.n))) return fail(p, "out of memory");
            break;
        default:
            if (tok_is(val, "cpu")) fam->type = TYPE_CPU;
            else if (tok_is(val, "gpu")) fam->type = TYPE_GPU;
            else return fail(p, "unknown type '%.*s' (cpu or gpu)", TOKF(val));
        }
    }
    return 1;
}

static int parse_source(parser *p, const char *s, const char *e) {
    tok id;
    int r = next_field(&s, e, &id);
    if (r < 0) return fail(p, "unclosed quote");
    if (r == 0) return fail(p, "missing fields: source ID TEXT");
    if (!plain_word(id)) return fail(p, "bad source id '%.*s'", TOKF(id));
    /* The text: the rest of the line up to a comment, without its outer blanks. */
    while (s < e && blank(*s)) s++;
    const char *end = s;
    while (end < e && *end != '#') end++;
    while (end > s && blank(end[-1])) end--;
    for (int i = 0; i < p->nsrcs; i++)
        if (tok_is(id, p->srcs[i].id)) return fail(p, "duplicate source id '%.*s'", TOKF(id));
    if (!grow((void **)&p->srcs, &p->cap_srcs, p->nsrcs + 1, sizeof *p->srcs))
        return fail(p, "out of memory");
    wg_source *src = &p->srcs[p->nsrcs];
    if (!(src->id = keep(p, id.s, id.n)) || !(src->text = keep(p, s, (size_t)(end - s))))
        return fail(p, "out of memory");
    p->nsrcs++;
    return 1;
}

static int parse_family(parser *p, const char *s, const char *e) {
    tok f[MAX_FIELDS];
    int n = fields(p, s, e, f);
    if (n < 0) return 0;
    if (n == 0 || memchr(f[0].s, '=', f[0].n)) return fail(p, "missing fields: family NAME [CRITERIA]");
    if (!plain_word(f[0])) return fail(p, "bad family name '%.*s'", TOKF(f[0]));
    for (int i = 0; i < p->nfams; i++)
        if (tok_is(f[0], p->fams[i].name)) return fail(p, "duplicate family name '%.*s'", TOKF(f[0]));
    wg_family fam = {.row0 = p->nrows};
    if (!parse_criteria(p, f + 1, n - 1, &fam)) return 0;
    if (!(fam.name = keep(p, f[0].s, f[0].n))) return fail(p, "out of memory");
    if (!grow((void **)&p->fams, &p->cap_fams, p->nfams + 1, sizeof *p->fams))
        return fail(p, "out of memory");
    p->fams[p->nfams++] = fam;
    return 1;
}

static int parse_row(parser *p, int cls, const char *s, const char *e) {
    if (!p->nfams) return fail(p, "row before any family");
    tok f[MAX_FIELDS];
    int n = fields(p, s, e, f);
    if (n < 0) return 0;
    if (n < 4) return fail(p, "missing fields: CLASS PIXELS SLICES XxYxZ SOURCE-ID");
    if (n > 4) return fail(p, "trailing fields '%.*s'", TOKF(f[4]));
    wg_row row = {.cls = cls, .line = p->line, .origin = p->origin};
    if (!parse_range(f[0], &row.px_lo, &row.px_hi)) return fail(p, "bad range '%.*s'", TOKF(f[0]));
    if (!parse_range(f[1], &row.sl_lo, &row.sl_hi)) return fail(p, "bad range '%.*s'", TOKF(f[1]));
    if (!parse_size(f[2], row.wg))
        return fail(p, "bad size '%.*s' (each axis 1-1024, at most 1024 threads)", TOKF(f[2]));
    if (!plain_word(f[3])) return fail(p, "bad source id '%.*s'", TOKF(f[3]));
    /* The id for now; its source is found once the whole text is read. */
    wg_family *fam = &p->fams[p->nfams - 1];
    row.family = fam->name;
    if (!(row.source = keep(p, f[3].s, f[3].n)) ||
        !grow((void **)&p->rows, &p->cap_rows, p->nrows + 1, sizeof *p->rows))
        return fail(p, "out of memory");
    p->rows[p->nrows++] = row;
    fam->nrows++;
    return 1;
}

static int parse_line(parser *p, const char *s, const char *e) {
    if (!check_bytes(p, s, e)) return 0;
    tok first;
    int r = next_field(&s, e, &first);
    if (r < 0) return fail(p, "unclosed quote");
    if (r == 0) return 1;
    if (tok_is(first, "source")) return parse_source(p, s, e);
    if (tok_is(first, "family")) return parse_family(p, s, e);
    char name[32];
    int cls = -1;
    if (first.n < sizeof name) {
        memcpy(name, first.s, first.n);
        name[first.n] = 0;
        cls = vki_wg_class_from_name(name);
    }
    if (cls >= 0) return parse_row(p, cls, s, e);
    /* Shaped like a row (a size as its fourth field): a class name misspelt. */
    tok f[MAX_FIELDS];
    uint32_t wg[3];
    int n = fields(p, s, e, f);
    if (n >= 3 && parse_size(f[2], wg)) return fail(p, "unknown class '%.*s'", TOKF(first));
    return fail(p, "unknown keyword '%.*s'", TOKF(first));
}

static void parser_free(parser *p) {
    free(p->block);
    free(p->fams);
    free(p->rows);
    free(p->srcs);
}

/* Joins the parsed text to the table; 0 when out of memory, the table unchanged. */
static int commit(parser *p, vki_wg_table *t) {
    int cf = t->nfams, cr = t->nrows, cb = t->nblocks;
    if (!grow((void **)&t->fams, &cf, t->nfams + p->nfams, sizeof *t->fams) ||
        !grow((void **)&t->rows, &cr, t->nrows + p->nrows, sizeof *t->rows) ||
        !grow((void **)&t->blocks, &cb, t->nblocks + 1, sizeof *t->blocks))
        return 0;
    for (int i = 0; i < p->nfams; i++) {
        t->fams[t->nfams + i] = p->fams[i];
        t->fams[t->nfams + i].row0 += t->nrows;
    }
    if (p->nrows) memcpy(t->rows + t->nrows, p->rows, (size_t)p->nrows * sizeof *p->rows);
    t->nfams += p->nfams;
    t->nrows += p->nrows;
    t->blocks[t->nblocks++] = p->block;
    p->block = NULL;
    return 1;
}

int vki_wg_table_parse(vki_wg_table **table, const char *text, size_t len, const char *origin,
                       char *err, size_t err_size) {
    parser p = {.origin = origin ? origin : "(table)", .err = err, .err_size = err_size};
    if (err && err_size) err[0] = 0;
    if (!table || (!text && len)) return fail(&p, "no table or text");
    /* Copies are never longer than the line they come from, so the block holds the text's
     * length and the origin. */
    size_t olen = strlen(p.origin);
    p.cap = len + olen + 2;
    if (!(p.block = malloc(p.cap))) return fail(&p, "out of memory");
    p.origin = keep(&p, p.origin, olen);
    const char *s = text, *end = text + len;
    if (len >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;
    int ok = 1;
    while (ok && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        p.line++;
        ok = parse_line(&p, s, e > s && e[-1] == '\r' ? e - 1 : e);
        s = nl ? nl + 1 : end;
    }
    /* Each row's source, defined anywhere in this text. */
    for (int i = 0; ok && i < p.nrows; i++) {
        wg_row *r = &p.rows[i];
        int k = 0;
        while (k < p.nsrcs && strcmp(p.srcs[k].id, r->source)) k++;
        p.line = r->line;
        if (k == p.nsrcs) {
            ok = fail(&p, "unknown source id '%s'", r->source);
        } else {
            r->source = p.srcs[k].id;
            r->source_text = p.srcs[k].text;
        }
    }
    vki_wg_table *t = *table, *created = NULL;
    if (ok && !t) {
        t = created = calloc(1, sizeof *t);
        if (!t) ok = fail(&p, "out of memory");
    }
    if (ok && !commit(&p, t)) {
        free(created);
        ok = fail(&p, "out of memory");
    }
    parser_free(&p);
    if (ok) *table = t;
    return ok;
}

void vki_wg_table_free(vki_wg_table *table) {
    if (!table) return;
    for (int i = 0; i < table->nblocks; i++) free(table->blocks[i]);
    free(table->blocks);
    free(table->fams);
    free(table->rows);
    free(table);
}

/* ---- lookup ---------------------------------------------------------------------------- */

int vki_wg_table_families(const vki_wg_table *table, const vki_wg_device *dev, const char **names,
                          int cap) {
    if (!table || !dev) return 0;
    int n = 0;
    for (int i = 0; i < table->nfams; i++)
        if (family_matches(&table->fams[i], dev)) {
            if (names && n < cap) names[n] = table->fams[i].name;
            n++;
        }
    return n;
}

int vki_wg_table_lookup(const vki_wg_table *table, const vki_wg_device *dev, vki_wg_class c,
                        const uint32_t grid[3], vki_wg_row_info *out) {
    if (!table || !dev || !grid || (unsigned)c >= VKI_WG_CLASS_COUNT) return 0;
    uint64_t px = (uint64_t)grid[0] * grid[1], sl = grid[2];
    for (int i = 0; i < table->nfams; i++) {
        const wg_family *f = &table->fams[i];
        if (!f->nrows || !family_matches(f, dev)) continue;
        for (const wg_row *r = table->rows + f->row0; r < table->rows + f->row0 + f->nrows; r++) {
            if (r->cls != (int)c || px < r->px_lo || px > r->px_hi || sl < r->sl_lo || sl > r->sl_hi)
                continue;
            if (out)
                *out = (vki_wg_row_info){{r->wg[0], r->wg[1], r->wg[2]}, r->family, r->source,
                                         r->source_text, r->origin, r->line};
            return 1;
        }
    }
    return 0;
}

/* ---- export ---------------------------------------------------------------------------- */

static const uint32_t pixel_edges[] = VKI_WG_PIXEL_EDGES;
static const uint32_t slice_edges[] = VKI_WG_SLICE_EDGES;
#define NPIXEL (int)(sizeof pixel_edges / sizeof pixel_edges[0])
#define NSLICE (int)(sizeof slice_edges / sizeof slice_edges[0])

static int bucket(uint64_t v, const uint32_t *edges, int n) {
    int b = 0;
    while (b < n && v > edges[b]) b++;
    return b;
}

int vki_wg_bucket_of(const uint32_t grid[3]) {
    return bucket((uint64_t)grid[0] * grid[1], pixel_edges, NPIXEL) * (NSLICE + 1) +
           bucket(grid[2], slice_edges, NSLICE);
}

/* Bucket b of edges as a range: "1-64", "65-256", ..., "16385-*"; "1" for 1-1. */
static void bucket_text(char *buf, size_t size, int b, const uint32_t *edges, int n) {
    uint32_t lo = b ? edges[b - 1] + 1 : 1;
    if (b == n) snprintf(buf, size, "%u-*", (unsigned)lo);
    else if (lo == edges[b]) snprintf(buf, size, "%u", (unsigned)lo);
    else snprintf(buf, size, "%u-%u", (unsigned)lo, (unsigned)edges[b]);
}

typedef struct ex_rec {
    int cls, pb, sb, dispatch;
    uint32_t wg[3];
    double ms;
} ex_rec;

static int cmp_int(long long a, long long b) { return (a > b) - (a < b); }

static int cmp_wg(const uint32_t a[3], const uint32_t b[3]) {
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return cmp_int(a[i], b[i]);
    return 0;
}

/* Bucket, dispatch, size, time: records of one dispatch and size together, least first. */
static int cmp_rec(const void *pa, const void *pb) {
    const ex_rec *a = pa, *b = pb;
    int c;
    if ((c = cmp_int(a->cls, b->cls)) || (c = cmp_int(a->pb, b->pb)) || (c = cmp_int(a->sb, b->sb)) ||
        (c = cmp_int(a->dispatch, b->dispatch)) || (c = cmp_wg(a->wg, b->wg)))
        return c;
    return (a->ms > b->ms) - (a->ms < b->ms);
}

/* Size, then dispatch: a size's dispatches together, in a fixed order. */
static int cmp_size_first(const void *pa, const void *pb) {
    const ex_rec *a = pa, *b = pb;
    int c = cmp_wg(a->wg, b->wg);
    return c ? c : cmp_int(a->dispatch, b->dispatch);
}

typedef struct strbuf { char *s; size_t n, cap; int failed; } strbuf;

static void put(strbuf *b, const char *fmt, ...) {
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && (size_t)n < b->cap - b->n) {
            b->n += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + (size_t)n + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

/* Whether the options make a text that parses: plain names, criteria a family line takes. */
static int options_ok(const vki_wg_export_options *o) {
    if (!o || !o->family || !o->source) return 0;
    if (!plain_word((tok){o->family, strlen(o->family)}) || !plain_word((tok){o->source, strlen(o->source)}))
        return 0;
    if (!o->match) return 1;
    size_t n = strlen(o->match);
    parser p = {.origin = "match", .cap = n + 1};
    if (!(p.block = malloc(p.cap))) return 0;
    tok f[MAX_FIELDS];
    wg_family fam = {0};
    int k = check_bytes(&p, o->match, o->match + n) ? fields(&p, o->match, o->match + n, f) : -1;
    int ok = k >= 0 && parse_criteria(&p, f, k, &fam);
    free(p.block);
    return ok;
}

char *vki_wg_table_export(const vki_wg_sample *samples, int n, const vki_wg_export_options *o) {
    if (!options_ok(o) || n < 0 || (n && !samples)) return NULL;
    ex_rec *recs = malloc((size_t)(n ? n : 1) * sizeof *recs);
    ex_rec *cand = malloc((size_t)(n ? n : 1) * sizeof *cand);
    strbuf b = {0};
    if (!recs || !cand) goto oom;
    int m = 0;
    for (int i = 0; i < n; i++) {
        const vki_wg_sample *s = &samples[i];
        /* Times that are no time, classes never tuned, sizes a table cannot hold, empty grids. */
        if (!(s->ms >= 0) || !vki_wg_tunable(s->cls) || !size_ok(s->wg) || !s->grid[0] || !s->grid[1] ||
            !s->grid[2])
            continue;
        recs[m++] = (ex_rec){(int)s->cls, bucket((uint64_t)s->grid[0] * s->grid[1], pixel_edges, NPIXEL),
                             bucket(s->grid[2], slice_edges, NSLICE), s->dispatch,
                             {s->wg[0], s->wg[1], s->wg[2]}, s->ms};
    }
    qsort(recs, (size_t)m, sizeof *recs, cmp_rec);

    /* The source text on one line, with no comment in it. */
    const char *text = o->source_text ? o->source_text : "";
    size_t tl = strlen(text);
    char *clean = malloc(tl + 1);
    if (!clean) goto oom;
    for (size_t i = 0; i <= tl; i++) {
        unsigned char c = (unsigned char)text[i];
        clean[i] = i < tl && (c < ' ' || c == 0x7f || c == '#') ? ' ' : (char)c;
    }
    char *ct = clean, *ce = clean + tl;
    while (blank(*ct)) ct++;
    while (ce > ct && blank(ce[-1])) ce--;
    put(&b, "# Exported from timings by vkinfer (vki_wg_table_export): paste this family section\n"
            "# into tuner/wg_table.txt above the general families, keeping its source line.\n");
    put(&b, "source %s%s%.*s\n", o->source, ce > ct ? " " : "", (int)(ce - ct), ct);
    free(clean);
    put(&b, "family %s%s%s\n", o->family, o->match && o->match[0] ? " " : "", o->match ? o->match : "");

    for (int g0 = 0, g1; g0 < m; g0 = g1) {
        /* One bucket: [g0, g1). Its timings as each dispatch's least per size. */
        int nd = 0, nc = 0;
        for (g1 = g0; g1 < m && recs[g1].cls == recs[g0].cls && recs[g1].pb == recs[g0].pb &&
                      recs[g1].sb == recs[g0].sb;
             g1++) {
            const ex_rec *r = &recs[g1];
            if (g1 == g0 || r->dispatch != r[-1].dispatch) nd++;
            else if (!cmp_wg(r->wg, r[-1].wg)) continue;
            cand[nc++] = *r;
        }
        qsort(cand, (size_t)nc, sizeof *cand, cmp_size_first);
        int best = -1;
        double best_ms = 0;
        for (int i = 0, j; i < nc; i = j) {
            double total = 0;
            for (j = i; j < nc && !cmp_wg(cand[j].wg, cand[i].wg); j++) total += cand[j].ms;
            if (j - i != nd) continue;          /* not timed on every dispatch */
            if (best >= 0) {
                const uint32_t *w = cand[i].wg, *bw = cand[best].wg;
                uint64_t pw = (uint64_t)w[0] * w[1] * w[2], pbw = (uint64_t)bw[0] * bw[1] * bw[2];
                if (total > best_ms || (total == best_ms && (pw > pbw || (pw == pbw && cmp_wg(w, bw) >= 0))))
                    continue;
            }
            best = i;
            best_ms = total;
        }
        if (best < 0) continue;
        char px[32], sl[32], size[40];
        bucket_text(px, sizeof px, recs[g0].pb, pixel_edges, NPIXEL);
        bucket_text(sl, sizeof sl, recs[g0].sb, slice_edges, NSLICE);
        snprintf(size, sizeof size, "%ux%ux%u", (unsigned)cand[best].wg[0], (unsigned)cand[best].wg[1],
                 (unsigned)cand[best].wg[2]);
        put(&b, "%-13s %-10s %-6s %-8s %s\n", vki_wg_class_name((vki_wg_class)recs[g0].cls), px, sl, size,
            o->source);
    }
    if (b.failed) goto oom;
    free(recs);
    free(cand);
    return b.s;
oom:
    free(recs);
    free(cand);
    free(b.s);
    return NULL;
}
