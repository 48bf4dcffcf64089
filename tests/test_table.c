/* test_table.c: the work-group family table (tuner/table.c, pure C): which families a
 * device matches, the lookup order and buckets, where a row came from, parse errors that
 * leave the table as it was, the shipped table against the hard-coded tables it replaced,
 * and the export of tuning timings as rows. */
#include "../tuner/table.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vki_wg_table *parse_ok(const char *text, const char *origin) {
    vki_wg_table *t = NULL;
    char err[256];
    int ok = vki_wg_table_parse(&t, text, strlen(text), origin, err, sizeof err);
    cr_assert(ok, "parse failed: %s", err);
    cr_assert_not_null(t);
    return t;
}

static vki_wg_device gpu(uint32_t vendor, uint32_t device, const char *name) {
    return (vki_wg_device){.vendor_id = vendor, .device_id = device, .name = name,
                           .max_invocations = 1024, .max_size = {1024, 1024, 64}};
}

static vki_wg_device cpu(uint32_t vendor, const char *name) {
    vki_wg_device d = gpu(vendor, 0, name);
    d.is_cpu = 1;
    return d;
}

/* The families dev matches, joined by spaces. */
static const char *families(const vki_wg_table *t, const vki_wg_device *dev) {
    static char bufs[4][512];
    static int k;
    char *buf = bufs[k++ & 3];
    const char *names[32];
    int n = vki_wg_table_families(t, dev, names, 32);
    buf[0] = 0;
    for (int i = 0; i < n && i < 32; i++) {
        if (i) strcat(buf, " ");
        strcat(buf, names[i]);
    }
    return buf;
}

/* The row's size as "XxYxZ", or "none". */
static const char *row_of(const vki_wg_table *t, const vki_wg_device *dev, vki_wg_class c, uint32_t gx,
                          uint32_t gy, uint32_t gz) {
    static char buf[8][32];
    static int k;
    char *b = buf[k++ & 7];
    uint32_t grid[3] = {gx, gy, gz};
    vki_wg_row_info r;
    if (!vki_wg_table_lookup(t, dev, c, grid, &r)) return "none";
    snprintf(b, 32, "%ux%ux%u", r.wg[0], r.wg[1], r.wg[2]);
    return b;
}

/* ---- matching ---------------------------------------------------------------------- */

static const char match_text[] =
    "source s test rows\n"
    "family v      vendor=0x10DE\n"
    "family d      device=0x06000000-0x06FFFFFF\n"
    "family n      name=\"Adreno (TM) 6*|Mali-G7?\"\n"
    "family c      type=cpu\n"
    "family g      type=gpu\n"
    "family all    vendor=0x5143 device=0x100-0x1FF name=\"X*\" type=gpu\n"
    "family dec    vendor=4318\n"
    "family any\n";

Test(match, vendor_device_name_type) {
    vki_wg_table *t = parse_ok(match_text, "m.txt");
    vki_wg_device d = gpu(0x10DE, 0x2330, NULL);
    cr_assert_str_eq(families(t, &d), "v g dec any", "NULL name matches no name= family");
    d = gpu(0x1002, 0x06000000, NULL);
    cr_assert_str_eq(families(t, &d), "d g any", "lower edge inclusive");
    d.device_id = 0x06FFFFFF;
    cr_assert_str_eq(families(t, &d), "d g any", "upper edge inclusive");
    d.device_id = 0x05FFFFFF;
    cr_assert_str_eq(families(t, &d), "g any");
    d.device_id = 0x07000000;
    cr_assert_str_eq(families(t, &d), "g any");
    d = gpu(0x1002, 0, "aDrEnO (tm) 630");
    cr_assert_str_eq(families(t, &d), "n g any", "case-insensitive");
    d.name = "Mali-G78";
    cr_assert_str_eq(families(t, &d), "n g any", "second alternative, '?'");
    d.name = "Mali-G7";
    cr_assert_str_eq(families(t, &d), "g any", "'?' is one character");
    d.name = "Mali-G710";
    cr_assert_str_eq(families(t, &d), "g any", "the whole name must match");
    d.name = "Adreno (TM) 530";
    cr_assert_str_eq(families(t, &d), "g any");
    d = cpu(0x10005, "llvmpipe");
    cr_assert_str_eq(families(t, &d), "c any");
    d = gpu(0x5143, 0x100, "xyz");
    cr_assert_str_eq(families(t, &d), "g all any", "every criterion holds");
    d = gpu(0x5143, 0x1FF, "X");
    cr_assert_str_eq(families(t, &d), "g all any");
    d = gpu(0x5144, 0x100, "xyz");
    cr_assert_str_eq(families(t, &d), "g any", "vendor fails");
    d = gpu(0x5143, 0x200, "xyz");
    cr_assert_str_eq(families(t, &d), "g any", "device fails");
    d = gpu(0x5143, 0x100, "yx");
    cr_assert_str_eq(families(t, &d), "g any", "name fails");
    d = gpu(0x5143, 0x100, NULL);
    cr_assert_str_eq(families(t, &d), "g any", "no name");
    d = cpu(0x5143, "xyz");
    d.device_id = 0x100;
    cr_assert_str_eq(families(t, &d), "c any", "type fails");
    /* cap: the count of all matches, only cap names written. */
    const char *names[2] = {"sentinel", "sentinel"};
    d = gpu(0x10DE, 0, NULL);
    cr_assert_eq(vki_wg_table_families(t, &d, names, 1), 4);
    cr_assert_str_eq(names[0], "v");
    cr_assert_str_eq(names[1], "sentinel");
    cr_assert_eq(vki_wg_table_families(t, &d, NULL, 0), 4);
    vki_wg_table_free(t);
}

Test(match, globs) {
    vki_wg_table *t = parse_ok("source s x\n"
                               "family a name=*a*b?c*\n"
                               "family b name=\"*\"\n"
                               "family c name=\"exact\"\n"
                               "family d name=\"|\"\n",
                               "g.txt");
    vki_wg_device d = gpu(1, 0, "xxaZbYcZZ");
    cr_assert_str_eq(families(t, &d), "a b");
    d.name = "abc";
    cr_assert_str_eq(families(t, &d), "b", "'?' needs a character");
    d.name = "aabbc";
    cr_assert_str_eq(families(t, &d), "a b", "backtracking");
    d.name = "";
    cr_assert_str_eq(families(t, &d), "b d", "an empty alternative matches the empty name");
    d.name = "EXACT";
    cr_assert_str_eq(families(t, &d), "b c");
    d.name = "exactly";
    cr_assert_str_eq(families(t, &d), "b");
    vki_wg_table_free(t);
}

/* ---- lookup ------------------------------------------------------------------------ */

Test(lookup, order_and_fall_through) {
    vki_wg_table *t = parse_ok("source s1 first\n"
                               "source s2 second\n"
                               "family specific vendor=0x10DE\n"
                               "conv  1-64 * 1x1x1 s1\n"
                               "conv  *    * 2x1x1 s1\n"
                               "conv  *    * 3x1x1 s1\n"
                               "family general type=gpu\n"
                               "conv  *    * 4x1x1 s2\n"
                               "pool  *    * 5x1x1 s2\n"
                               "family generic\n"
                               "pool   *   * 6x1x1 s2\n"
                               "reduce *   * 7x1x1 s2\n",
                               "o.txt");
    vki_wg_device nv = gpu(0x10DE, 0, NULL), amd = gpu(0x1002, 0, NULL), lp = cpu(0x10005, NULL);
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV, 8, 8, 1), "1x1x1", "specific family's narrow row");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV, 9, 8, 1), "2x1x1", "first row that holds it");
    cr_assert_str_eq(row_of(t, &amd, VKI_WG_CONV, 8, 8, 1), "4x1x1", "general family");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_POOL, 8, 8, 1), "5x1x1", "no pool row: on to general");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_REDUCE, 8, 8, 1), "7x1x1", "catch-all");
    cr_assert_str_eq(row_of(t, &lp, VKI_WG_POOL, 8, 8, 1), "6x1x1", "a CPU skips general");
    cr_assert_str_eq(row_of(t, &lp, VKI_WG_CONV, 8, 8, 1), "none");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_ELEMENTWISE, 8, 8, 1), "none");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CLASS_COUNT, 8, 8, 1), "none");
    /* No row: vki_wg_pick uses the fallback, fitted. */
    uint32_t grid[3] = {64, 64, 1}, wg[3];
    lp.table = t;
    vki_wg_pick(&lp, VKI_WG_ELEMENTWISE, grid, wg);
    cr_assert(wg[0] == 8 && wg[1] == 8 && wg[2] == 1);
    vki_wg_table_free(t);
}

Test(lookup, bucket_edges) {
    vki_wg_table *t = parse_ok("source s x\n"
                               "family f\n"
                               "conv 1-64   1    1x1x1 s\n"
                               "conv 65-*   1    2x1x1 s\n"
                               "conv 1-64   2-*  3x1x1 s\n"
                               "conv 65-256 2-4  4x1x1 s\n"
                               "conv 100    *    5x1x1 s\n"
                               "conv *      *    6x1x1 s\n"
                               "pool 0x10-0x20 0x3 7x1x1 s\n",
                               "b.txt");
    vki_wg_device d = gpu(1, 0, NULL);
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 8, 8, 1), "1x1x1", "64 pixels");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 1, 1, 1), "1x1x1");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 13, 5, 1), "2x1x1", "65 pixels");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 65, 1, 1), "2x1x1");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 100000, 100000, 1), "2x1x1", "open range, x*y over 32 bits");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 8, 8, 2), "3x1x1", "2 slices");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 8, 8, 100000), "3x1x1", "open slice range");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 16, 16, 4), "4x1x1", "256 pixels, 4 slices");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 16, 16, 5), "6x1x1", "5 slices");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 257, 1, 2), "6x1x1", "257 pixels");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 10, 10, 7), "5x1x1", "exactly 100 pixels");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_CONV, 101, 1, 7), "6x1x1");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_POOL, 16, 1, 3), "7x1x1", "hex ranges");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_POOL, 32, 1, 3), "7x1x1");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_POOL, 33, 1, 3), "none");
    cr_assert_str_eq(row_of(t, &d, VKI_WG_POOL, 16, 1, 4), "none");
    vki_wg_table_free(t);
}

Test(lookup, provenance) {
    vki_wg_table *t = parse_ok("# comment line\n"
                               "source  h100-x   NVIDIA H100, driver 550   # a comment\n"
                               "\n"
                               "family nvidia vendor=0x10DE   # NVIDIA\n"
                               "   conv_1x1  1025-4096  5-16  8x4x2  h100-x\n",
                               "rows.txt");
    vki_wg_device d = gpu(0x10DE, 0, NULL);
    uint32_t grid[3] = {64, 64, 16};
    vki_wg_row_info r;
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_CONV_1X1, grid, &r));
    cr_assert(r.wg[0] == 8 && r.wg[1] == 4 && r.wg[2] == 2);
    cr_assert_str_eq(r.family, "nvidia");
    cr_assert_str_eq(r.source, "h100-x");
    cr_assert_str_eq(r.source_text, "NVIDIA H100, driver 550");
    cr_assert_str_eq(r.origin, "rows.txt");
    cr_assert_eq(r.line, 5);
    vki_wg_table_free(t);
}

Test(lookup, source_may_follow_its_rows_and_quotes_hold_blanks) {
    vki_wg_table *t = parse_ok("family f name=\"My GPU #2\"\n"
                               "conv * * 4x4x4 later\n"
                               "source later defined after the row\n",
                               "q.txt");
    vki_wg_device d = gpu(1, 0, "my gpu #2");
    uint32_t grid[3] = {8, 8, 8};
    vki_wg_row_info r;
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.source_text, "defined after the row");
    cr_assert_eq(r.line, 2);
    vki_wg_table_free(t);
}

Test(lookup, two_texts_user_rows_first) {
    vki_wg_table *t = NULL;
    char err[256];
    const char *user = "source mine measured here\n"
                       "family nvidia vendor=0x10DE\n"
                       "conv * * 32x1x1 mine\n";
    const char *base = "source base shipped\n"
                       "family nvidia vendor=0x10DE\n"
                       "conv * * 8x4x2 base\n"
                       "pool * * 8x8x1 base\n";
    cr_assert(vki_wg_table_parse(&t, user, strlen(user), "user.txt", err, sizeof err), "%s", err);
    cr_assert(vki_wg_table_parse(&t, base, strlen(base), "wg_table.txt", err, sizeof err), "%s", err);
    vki_wg_device d = gpu(0x10DE, 0, NULL);
    cr_assert_str_eq(families(t, &d), "nvidia nvidia", "a later text may reuse a family name");
    uint32_t grid[3] = {64, 64, 4};
    vki_wg_row_info r;
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_CONV, grid, &r));
    cr_assert(r.wg[0] == 32 && r.wg[1] == 1 && r.wg[2] == 1);
    cr_assert_str_eq(r.origin, "user.txt");
    cr_assert_str_eq(r.source_text, "measured here");
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_POOL, grid, &r));
    cr_assert(r.wg[0] == 8 && r.wg[1] == 8 && r.wg[2] == 1);
    cr_assert_str_eq(r.origin, "wg_table.txt");
    cr_assert_str_eq(r.source, "base");
    cr_assert_eq(r.line, 4);
    /* A source is only seen by its own text. */
    const char *third = "family x\nconv * * 1x1x1 base\n";
    cr_assert_not(vki_wg_table_parse(&t, third, strlen(third), "third.txt", err, sizeof err));
    cr_assert_str_eq(err, "third.txt:2: unknown source id 'base'");
    vki_wg_table_free(t);
}

Test(lookup, crlf_no_final_newline_no_nul) {
    const char *crlf = "source s one\r\nfamily f\r\nconv * * 2x2x2 s\r\npool * * 4x4x1 s";
    /* Not NUL-terminated: the bytes after len are garbage. */
    size_t len = strlen(crlf);
    char *buf = malloc(len + 8);
    memcpy(buf, crlf, len);
    memcpy(buf + len, "xx\nbad\n", 7);
    vki_wg_table *t = NULL;
    char err[256];
    cr_assert(vki_wg_table_parse(&t, buf, len, "crlf.txt", err, sizeof err), "%s", err);
    free(buf);
    vki_wg_device d = gpu(1, 0, NULL);
    uint32_t grid[3] = {8, 8, 8};
    vki_wg_row_info r;
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.source_text, "one", "no \\r left in the text");
    cr_assert_eq(r.line, 3);
    cr_assert(vki_wg_table_lookup(t, &d, VKI_WG_POOL, grid, &r));
    cr_assert(r.wg[0] == 4 && r.wg[1] == 4 && r.wg[2] == 1, "the last line, without a newline");
    cr_assert_eq(r.line, 4);
    /* An empty text makes an empty table. */
    vki_wg_table *e = NULL;
    cr_assert(vki_wg_table_parse(&e, "", 0, "empty", err, sizeof err));
    cr_assert_not_null(e);
    cr_assert_eq(vki_wg_table_families(e, &d, NULL, 0), 0);
    cr_assert_not(vki_wg_table_lookup(e, &d, VKI_WG_CONV, grid, &r));
    vki_wg_table_free(e);
    vki_wg_table_free(t);
}

/* ---- errors ------------------------------------------------------------------------ */

static const char base_text[] = "source b base\n"
                                "family first vendor=0x10DE\n"
                                "conv * * 8x4x2 b\n"
                                "family rest\n"
                                "pool * * 8x8x1 b\n";

typedef struct bad_case { const char *text, *want; } bad_case;

static const bad_case bad_cases[] = {
    {"source s x\nfamly f\n", "bad.txt:2: unknown keyword 'famly'"},
    {"source s x\nfamily f\n\n# c\nconv2 * * 8x8x1 s\n", "bad.txt:5: unknown class 'conv2'"},
    {"source s x\nconv * * 8x8x1 s\nfamily f\n", "bad.txt:2: row before any family"},
    {"source s x\nfamily f\nconv 5-2 * 8x8x1 s\n", "bad.txt:3: bad range '5-2'"},
    {"source s x\nfamily f\nconv * 1- 8x8x1 s\n", "bad.txt:3: bad range '1-'"},
    {"source s x\nfamily f\nconv -3 * 8x8x1 s\n", "bad.txt:3: bad range '-3'"},
    {"source s x\nfamily f\nconv 0x1G * 8x8x1 s\n", "bad.txt:3: bad range '0x1G'"},
    {"source s x\nfamily f\nconv * 99999999999 8x8x1 s\n", "bad.txt:3: bad range '99999999999'"},
    {"source s x\nfamily f device=7-*x\n", "bad.txt:2: bad range '7-*x'"},
    {"source s x\nfamily f\nconv * * 2048x1x1 s\n", "bad.txt:3: bad size '2048x1x1'"},
    {"source s x\nfamily f\nconv * * 64x32x1 s\n", "bad.txt:3: bad size '64x32x1'"},
    {"source s x\nfamily f\nconv * * 0x8x1 s\n", "bad.txt:3: bad size '0x8x1'"},
    {"source s x\nfamily f\nconv * * 8x8 s\n", "bad.txt:3: bad size '8x8'"},
    {"source s x\nfamily f\nconv * * 8x8x1x1 s\n", "bad.txt:3: bad size '8x8x1x1'"},
    {"source s x\nfamily f\nconv * * 8x8x1 s\nconv * * 8x8x1 t\n", "bad.txt:4: unknown source id 't'"},
    {"source s x\nfamily f\nfamily g\nfamily f vendor=1\n", "bad.txt:4: duplicate family name 'f'"},
    {"source s x\nsource t y\nsource s z\n", "bad.txt:3: duplicate source id 's'"},
    {"source s x\nfamily f colour=red\n", "bad.txt:2: unknown criterion 'colour'"},
    {"source s x\nfamily f vendor\n", "bad.txt:2: unknown criterion 'vendor'"},
    {"source s x\nfamily f\nconv * * 8x8x1\n", "bad.txt:3: missing fields"},
    {"source s x\nfamily\n", "bad.txt:2: missing fields"},
    {"source s x\nfamily vendor=0x10DE\n", "bad.txt:2: missing fields"},
    {"source\n", "bad.txt:1: missing fields"},
    {"source s x\nfamily f\nconv * * 8x8x1 s extra\n", "bad.txt:3: trailing fields 'extra'"},
    {"source s x\nfamily f vendor=0x\n", "bad.txt:2: bad number '0x'"},
    {"source s x\nfamily f vendor=1 vendor=2\n", "bad.txt:2: criterion 'vendor' given twice"},
    {"source s x\nfamily f type=npu\n", "bad.txt:2: unknown type 'npu'"},
    {"source s x\nfamily f name=\"Adreno\n", "bad.txt:2: unclosed quote"},
    {"source s x\nfamily f name=a\"b\"\n", "bad.txt:2: bad quotes"},
    {"source s x\r\nfamily f\rg\r\n", "bad.txt:2: control character 0x0D"},
};

/* What the table answers, to compare before and after a failed parse. */
static void snapshot(const vki_wg_table *t, char *out, size_t size) {
    vki_wg_device nv = gpu(0x10DE, 0, NULL), any = gpu(7, 0, "f");
    snprintf(out, size, "%s|%s|%s|%s|%s|%s", families(t, &nv), families(t, &any),
             row_of(t, &nv, VKI_WG_CONV, 8, 8, 8), row_of(t, &nv, VKI_WG_POOL, 8, 8, 8),
             row_of(t, &any, VKI_WG_CONV, 8, 8, 8), row_of(t, &any, VKI_WG_POOL, 8, 8, 8));
}

Test(errors, each_cause_names_origin_and_line_and_changes_nothing) {
    vki_wg_table *t = parse_ok(base_text, "base.txt");
    char before[512], after[512];
    snapshot(t, before, sizeof before);
    cr_assert_str_eq(before, "first rest|rest|8x4x2|8x8x1|none|8x8x1");
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        char err[256] = "untouched";
        vki_wg_table *kept = t;
        cr_assert_not(vki_wg_table_parse(&t, c->text, strlen(c->text), "bad.txt", err, sizeof err),
                      "case %zu parsed", i);
        cr_assert_eq(t, kept);
        cr_assert(!strncmp(err, c->want, strlen(c->want)), "case %zu: got \"%s\", want \"%s...\"", i, err,
                  c->want);
        snapshot(t, after, sizeof after);
        cr_assert_str_eq(after, before, "case %zu changed the table", i);
        /* A new table stays NULL. */
        vki_wg_table *fresh = NULL;
        cr_assert_not(vki_wg_table_parse(&fresh, c->text, strlen(c->text), "bad.txt", NULL, 0));
        cr_assert_null(fresh);
    }
    /* A good text after all that still parses, and its rows come after the base's. */
    const char *more = "source m more\nfamily nv vendor=0x10DE\nconv * * 2x2x2 m\nelementwise * * 4x4x1 m\n";
    char err[256];
    cr_assert(vki_wg_table_parse(&t, more, strlen(more), "more.txt", err, sizeof err), "%s", err);
    vki_wg_device nv = gpu(0x10DE, 0, NULL);
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV, 8, 8, 8), "8x4x2");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_ELEMENTWISE, 8, 8, 8), "4x4x1");
    vki_wg_table_free(t);
}

Test(errors, short_error_buffer) {
    vki_wg_table *t = NULL;
    char err[12];
    memset(err, 'z', sizeof err);
    cr_assert_not(vki_wg_table_parse(&t, "bogus\n", 6, "a-long-origin-name.txt", err, sizeof err));
    cr_assert_eq(strlen(err), sizeof err - 1);
    cr_assert_not(vki_wg_table_parse(&t, "famly f\n", 8, NULL, err, 1));
    cr_assert_eq(err[0], 0);
    cr_assert_null(t);
}

/* ---- the shipped table ------------------------------------------------------------- */

static vki_wg_table *builtin(void) {
    size_t len;
    const char *text = vki_wg_table_builtin_text(&len);
    cr_assert_not_null(text);
    cr_assert_gt(len, 0);
    vki_wg_table *t = NULL;
    char err[256];
    cr_assert(vki_wg_table_parse(&t, text, len, "wg_table.txt", err, sizeof err), "%s", err);
    return t;
}

Test(builtin, is_the_file_and_parses) {
    size_t len;
    const char *text = vki_wg_table_builtin_text(&len);
    cr_assert_eq(text[len], 0, "a NUL after the text");
    const char *data = getenv("VKI_TEST_DATA");
    if (data) {
        char path[1024];
        snprintf(path, sizeof path, "%s/../../tuner/wg_table.txt", data);
        FILE *f = fopen(path, "rb");
        cr_assert_not_null(f, "%s", path);
        char *file = malloc(len + 2);
        size_t n = fread(file, 1, len + 1, f);
        fclose(f);
        cr_assert_eq(n, len, "the built-in text is tuner/wg_table.txt");
        cr_assert(!memcmp(file, text, len));
        free(file);
    }
    vki_wg_table_free(builtin());
}

/* Devices the old hard-coded tables knew, with their limits. */
typedef struct named_device { const char *what, *families; vki_wg_device dev; } named_device;

#define DEV(vendor, device, cpu_, name_, inv, mx, my, mz)                                      \
    {.vendor_id = vendor, .device_id = device, .is_cpu = cpu_, .name = name_,                   \
     .max_invocations = inv, .max_size = {mx, my, mz}}

static const named_device devices[] = {
    {"NVIDIA H100", "nvidia gpu generic",
     DEV(0x10DE, 0x2330, 0, "NVIDIA H100 80GB HBM3", 1024, 1024, 1024, 64)},
    {"AMD RX 7900", "amd gpu generic",
     DEV(0x1002, 0x744C, 0, "AMD Radeon RX 7900 XTX (RADV NAVI31)", 1024, 1024, 1024, 1024)},
    {"Adreno 630 by id", "adreno-6xx adreno gpu generic",
     DEV(0x5143, 0x06030001, 0, NULL, 1024, 1024, 1024, 64)},
    {"Adreno 540 by id", "adreno-5xx adreno gpu generic",
     DEV(0x5143, 0x05040001, 0, "Adreno (TM) 540", 1024, 1024, 1024, 64)},
    {"Turnip Adreno 740 by name", "adreno-7xx adreno gpu generic",
     DEV(0x5143, 0x43050A01, 0, "Turnip Adreno (TM) 740", 1024, 1024, 1024, 1024)},
    {"Adreno 730 (Qualcomm driver)", "adreno-7xx adreno gpu generic",
     DEV(0x5143, 0x07030001, 0, "Adreno (TM) 730", 1024, 1024, 1024, 64)},
    {"Mali-G78", "mali-valhall mali gpu generic",
     DEV(0x13B5, 0x92020010, 0, "Mali-G78", 512, 512, 512, 512)},
    {"Mali-G52", "mali-bifrost mali gpu generic",
     DEV(0x13B5, 0x74021000, 0, "Mali-G52 MC2", 384, 384, 384, 384)},
    {"Mali-G710", "mali-valhall mali gpu generic",
     DEV(0x13B5, 0xA8620000, 0, "Mali-G710 MC10", 512, 512, 512, 512)},
    {"lavapipe", "lavapipe cpu generic",
     DEV(0x10005, 0, 1, "llvmpipe (LLVM 15.0.6, 256 bits)", 1024, 1024, 1024, 1024)},
    {"SwiftShader", "swiftshader cpu generic",
     DEV(0x1AE0, 0xC0DE, 1, "SwiftShader Device (Subzero) (0x0000C0DE)", 256, 256, 256, 64)},
    {"unknown vendor, no limits", "gpu generic", DEV(0xBEEF, 1, 0, "Mystery GPU", 0, 0, 0, 0)},
};

Test(builtin, families_of_known_devices) {
    vki_wg_table *t = builtin();
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++)
        cr_assert_str_eq(families(t, &devices[i].dev), devices[i].families, "%s", devices[i].what);
    vki_wg_table_free(t);
}

/* The old code (before the table): one shape per vendor and class, then fitted. Written
 * here from its description, independently of tuner/. Class order: elementwise, conv,
 * conv_1x1 (new; as conv), depthwise, pool, reduce, dw_pw. */
static const uint32_t old_desktop[7][3] = {{16, 4, 1}, {8, 4, 2}, {8, 4, 2}, {8, 8, 1}, {8, 8, 1}, {64, 1, 1}, {8, 8, 2}};
static const uint32_t old_adreno[7][3] = {{16, 4, 1}, {4, 8, 4}, {4, 8, 4}, {8, 4, 4}, {8, 8, 1}, {64, 1, 1}, {8, 8, 2}};
static const uint32_t old_mali[7][3] = {{8, 4, 1}, {4, 4, 4}, {4, 4, 4}, {4, 4, 4}, {8, 4, 1}, {32, 1, 1}, {8, 4, 2}};
static const uint32_t old_cpu[7][3] = {{32, 2, 1}, {16, 2, 1}, {16, 2, 1}, {16, 2, 1}, {16, 2, 1}, {64, 1, 1}, {8, 2, 1}};

static const uint32_t *old_shape(const vki_wg_device *d, int c) {
    if (d->is_cpu) return old_cpu[c];
    if (d->vendor_id == 0x5143) return old_adreno[c];
    if (d->vendor_id == 0x13B5) return old_mali[c];
    return old_desktop[c];
}

static void old_pick(const vki_wg_device *d, int c, const uint32_t grid[3], uint32_t out[3]) {
    uint32_t x = old_shape(d, c)[0], y = old_shape(d, c)[1], z = old_shape(d, c)[2];
    if (c != VKI_WG_DW_PW) {
        uint32_t threads = x * y * z;
        /* Halve z and y while half still covers the grid, give x the freed threads while
         * x has work, then halve x likewise. */
        while (z > 1 && z / 2 >= grid[2]) z /= 2;
        while (y > 1 && y / 2 >= grid[1]) y /= 2;
        while (x * y * z < threads && x < grid[0]) x *= 2;
        while (x > 1 && x / 2 >= grid[0]) x /= 2;
    }
    uint32_t mx = d->max_size[0] ? d->max_size[0] : 128, my = d->max_size[1] ? d->max_size[1] : 128,
             mz = d->max_size[2] ? d->max_size[2] : 64, mi = d->max_invocations ? d->max_invocations : 128;
    x = x < mx ? x : mx;
    y = y < my ? y : my;
    z = z < mz ? z : mz;
    while (x * y * z > mi) {
        if (x > 1 && x >= y) x /= 2;
        else if (y > 1) y /= 2;
        else z /= 2;
    }
    out[0] = x ? x : 1;
    out[1] = y ? y : 1;
    out[2] = z ? z : 1;
}

Test(builtin, answers_what_the_old_tables_did) {
    vki_wg_table *t = builtin();
    static const uint32_t grids[][3] = {{1, 1, 1},   {3, 5, 1},   {17, 9, 5},   {640, 1, 17},  {128, 128, 4},
                                        {2, 1, 64},  {64, 64, 1}, {8, 8, 2},    {100, 100, 100}, {1, 1, 3000},
                                        {4096, 1, 1}, {33, 65, 16}};
    int checked = 0, measured = 0;
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        vki_wg_device d = devices[i].dev;
        d.table = t;
        /* NVIDIA and lavapipe have rows from tuning runs (rows_from_a_tuning_run); every
         * other family keeps the old tables' answers. */
        if (d.vendor_id == 0x10DE || d.vendor_id == 0x10005) {
            measured++;
            continue;
        }
        for (int c = 0; c < VKI_WG_CLASS_COUNT; c++) {
            /* The row as written is the old shape. */
            vki_wg_row_info r;
            cr_assert(vki_wg_table_lookup(t, &d, (vki_wg_class)c, grids[0], &r));
            const uint32_t *want = old_shape(&d, c);
            cr_assert(!memcmp(r.wg, want, sizeof r.wg), "%s %s: row %ux%ux%u, old %ux%ux%u (%s:%d)",
                      devices[i].what, vki_wg_class_name((vki_wg_class)c), r.wg[0], r.wg[1], r.wg[2], want[0],
                      want[1], want[2], r.origin, r.line);
            for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) {
                uint32_t got[3], old[3];
                vki_wg_pick(&d, (vki_wg_class)c, grids[g], got);
                old_pick(&d, c, grids[g], old);
                cr_assert(!memcmp(got, old, sizeof got), "%s %s grid %ux%ux%u: %ux%ux%u, old %ux%ux%u",
                          devices[i].what, vki_wg_class_name((vki_wg_class)c), grids[g][0], grids[g][1],
                          grids[g][2], got[0], got[1], got[2], old[0], old[1], old[2]);
                checked++;
            }
        }
    }
    cr_assert_eq(measured, 2);
    cr_assert_eq(checked, 10 * 7 * 12);
    vki_wg_table_free(t);
}

/* The NVIDIA rows name the tuning run; buckets it did not see, and the classes it does
 * not tune, fall through to the gpu family's (old) rows. */
Test(builtin, rows_from_a_tuning_run) {
    vki_wg_table *t = builtin();
    vki_wg_device nv = gpu(0x10DE, 0x2330, "NVIDIA H100 80GB HBM3");
    vki_wg_row_info r;
    uint32_t seen[3] = {64, 64, 8};          /* conv 1025-4096 pixels, 5-16 slices */
    cr_assert(vki_wg_table_lookup(t, &nv, VKI_WG_CONV, seen, &r));
    cr_assert_str_eq(r.family, "nvidia");
    cr_assert_str_eq(r.source, "h100-mediapipe");
    cr_assert(strstr(r.source_text, "H100"), "%s", r.source_text);
    cr_assert(strstr(r.source_text, "bench/results/"), "%s", r.source_text);
    vki_wg_device lp = cpu(0x10005, "llvmpipe (LLVM 15.0.6, 256 bits)");
    uint32_t lp_seen[3] = {16, 16, 8};       /* pool 65-256 pixels, 5-16 slices */
    cr_assert(vki_wg_table_lookup(t, &lp, VKI_WG_POOL, lp_seen, &r));
    cr_assert_str_eq(r.family, "lavapipe");
    cr_assert_str_eq(r.source, "lavapipe-mediapipe");
    cr_assert(vki_wg_table_lookup(t, &lp, VKI_WG_DW_PW, lp_seen, &r));
    cr_assert_str_eq(r.family, "cpu", "dw_pw is not tuned: the cpu row");
    uint32_t unseen[3] = {300, 300, 40};     /* no conv that size in the models */
    cr_assert(vki_wg_table_lookup(t, &nv, VKI_WG_CONV, unseen, &r));
    cr_assert_str_eq(r.family, "gpu");
    cr_assert_eq(r.wg[0] * 100 + r.wg[1] * 10 + r.wg[2], 842, "the old desktop conv row");
    cr_assert(vki_wg_table_lookup(t, &nv, VKI_WG_REDUCE, seen, &r));
    cr_assert_str_eq(r.family, "gpu");
    /* Every measured row is a legal size for the device it came from. */
    for (int c = 0; c < VKI_WG_CLASS_COUNT; c++)
        for (uint32_t px = 1; px <= (1u << 17); px *= 2)
            for (uint32_t z = 1; z <= 256; z *= 2) {
                uint32_t g[3] = {px, 1, z};
                cr_assert(vki_wg_table_lookup(t, &nv, (vki_wg_class)c, g, &r));
                cr_assert(r.wg[0] * r.wg[1] * r.wg[2] <= 1024 && r.wg[2] <= 64, "%s:%d", r.origin, r.line);
            }
    vki_wg_table_free(t);
}

Test(builtin, rows_cite_their_sources) {
    vki_wg_table *t = builtin();
    uint32_t grid[3] = {64, 64, 8};
    vki_wg_row_info r;
    vki_wg_device adreno = gpu(0x5143, 0x06030001, NULL);
    cr_assert(vki_wg_table_lookup(t, &adreno, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.family, "adreno");
    cr_assert_str_eq(r.source, "tflite-gl-adreno");
    cr_assert(strstr(r.source_text, "ideal_workgroup_picker.cc"));
    cr_assert_str_eq(r.origin, "wg_table.txt");
    cr_assert(vki_wg_table_lookup(t, &adreno, VKI_WG_ELEMENTWISE, grid, &r));
    cr_assert_str_eq(r.source, "vkinfer-initial");
    vki_wg_device mali = gpu(0x13B5, 0, "Mali-G78");
    cr_assert(vki_wg_table_lookup(t, &mali, VKI_WG_DEPTHWISE, grid, &r));
    cr_assert_str_eq(r.family, "mali");
    cr_assert_str_eq(r.source, "tflite-gl-mali");
    cr_assert(strstr(r.source_text, "default_calculator.cc"));
    vki_wg_device lp = cpu(0x10005, "llvmpipe (LLVM 15.0.6, 256 bits)");
    cr_assert(vki_wg_table_lookup(t, &lp, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.family, "cpu");
    cr_assert_str_eq(r.source, "vkinfer-initial");
    cr_assert(strstr(r.source_text, "unmeasured"));
    vki_wg_device nv = gpu(0x10DE, 0, NULL);
    cr_assert(vki_wg_table_lookup(t, &nv, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.family, "nvidia");
    cr_assert_str_eq(r.source, "h100-mediapipe");
    /* A device that is neither CPU nor GPU does not exist, but generic answers anyway. */
    for (int c = 0; c < VKI_WG_CLASS_COUNT; c++) {
        cr_assert(vki_wg_table_lookup(t, &lp, (vki_wg_class)c, grid, &r));
        uint32_t huge[3] = {1u << 20, 1u << 20, 1u << 20};
        cr_assert(vki_wg_table_lookup(t, &nv, (vki_wg_class)c, huge, &r));
    }
    vki_wg_table_free(t);
}

Test(limits, a_row_is_fitted_to_the_device) {
    vki_wg_table *t = parse_ok("source s x\nfamily f\nconv * * 32x32x1 s\npool * * 2x2x64 s\n"
                               "dw_pw * * 32x32x1 s\n",
                               "l.txt");
    vki_wg_device d = {.max_invocations = 256, .max_size = {256, 64, 16}, .table = t};
    uint32_t grid[3] = {1024, 1024, 64}, wg[3];
    vki_wg_pick(&d, VKI_WG_CONV, grid, wg);
    cr_assert(wg[0] == 16 && wg[1] == 16 && wg[2] == 1, "%ux%ux%u", wg[0], wg[1], wg[2]);
    vki_wg_pick(&d, VKI_WG_POOL, grid, wg);
    cr_assert(wg[0] == 2 && wg[1] == 2 && wg[2] == 16, "z to max_size[2]: %ux%ux%u", wg[0], wg[1], wg[2]);
    vki_wg_pick(&d, VKI_WG_DW_PW, grid, wg);
    cr_assert(wg[0] * wg[1] * wg[2] <= 256 && wg[0] <= 256 && wg[1] <= 64 && wg[2] <= 16);
    uint32_t narrow[3] = {3, 1024, 1};
    vki_wg_pick(&d, VKI_WG_CONV, narrow, wg);
    cr_assert(wg[0] * wg[1] * wg[2] <= 256 && wg[0] <= 256 && wg[1] <= 64 && wg[2] <= 16);
    cr_assert(wg[0] == 4 && wg[1] == 32 && wg[2] == 1, "%ux%ux%u", wg[0], wg[1], wg[2]);
    vki_wg_table_free(t);
}

/* ---- export ------------------------------------------------------------------------ */

#define S(d, c, gx, gy, gz, x, y, z, ms) {d, VKI_WG_##c, {gx, gy, gz}, {x, y, z}, ms}

static const vki_wg_sample samples[] = {
    /* conv, 1024 pixels, 8 slices: 16x4x1 is best on dispatch 1 but 8x8x1 on the two
     * together; 4x4x4, the fastest of all, was not timed on dispatch 2. */
    S(1, CONV, 32, 32, 8, 8, 8, 1, 1.0), S(1, CONV, 32, 32, 8, 16, 4, 1, 0.75), S(1, CONV, 32, 32, 8, 4, 4, 4, 0.25),
    S(2, CONV, 16, 64, 8, 8, 8, 1, 1.0), S(2, CONV, 16, 64, 8, 16, 4, 1, 1.5),
    /* conv, another bucket (65-256 pixels, 1 slice): one dispatch. */
    S(3, CONV, 16, 16, 1, 32, 1, 1, 0.5), S(3, CONV, 16, 16, 1, 8, 8, 1, 0.625),
    /* elementwise, 64 pixels, 1 slice: a tie goes to the smaller product, 16x2x1 (32
     * threads), though 8x8x1 is the lexicographically smaller. */
    S(4, ELEMENTWISE, 8, 8, 1, 8, 8, 1, 0.5), S(4, ELEMENTWISE, 8, 8, 1, 16, 2, 1, 0.5),
    S(4, ELEMENTWISE, 8, 8, 1, 32, 2, 1, 0.75),
    /* elementwise, 65-256 pixels, 2-4 slices: equal time and product: 4x8x1 before 8x4x1. */
    S(5, ELEMENTWISE, 10, 10, 3, 8, 4, 1, 0.25), S(5, ELEMENTWISE, 10, 10, 3, 4, 8, 1, 0.25),
    /* depthwise, open buckets: repeated timings count by their least (2.0 beats 2.5,
     * though the mean of 5, 2, 3 would not). */
    S(6, DEPTHWISE, 1000, 1000, 100, 8, 8, 1, 5.0), S(6, DEPTHWISE, 1000, 1000, 100, 8, 8, 1, 2.0),
    S(6, DEPTHWISE, 1000, 1000, 100, 8, 8, 1, 3.0), S(6, DEPTHWISE, 1000, 1000, 100, 16, 4, 1, 2.5),
    /* pool: a negative time is no timing. */
    S(7, POOL, 4, 4, 1, 8, 8, 1, -1.0), S(7, POOL, 4, 4, 1, 8, 8, 1, 3.0), S(7, POOL, 4, 4, 1, 16, 4, 1, 2.0),
    /* conv_1x1: no size timed on both dispatches, no row. */
    S(8, CONV_1X1, 64, 1, 4, 8, 8, 1, 1.0), S(9, CONV_1X1, 64, 1, 4, 16, 4, 1, 1.0),
    /* Never tuned: no rows. */
    S(10, REDUCE, 64, 1, 1, 64, 1, 1, 1.0), S(11, DW_PW, 64, 64, 8, 8, 8, 2, 1.0),
};
#define NSAMPLES (int)(sizeof samples / sizeof samples[0])

static const vki_wg_export_options export_opts = {"nvidia", "vendor=0x10DE", "h100-test",
                                                  "NVIDIA H100 80GB HBM3, driver 550, test models"};

static const char *const want_rows[] = {
    "elementwise   1-64       1      16x2x1   h100-test",
    "elementwise   65-256     2-4    4x8x1    h100-test",
    "conv          65-256     1      32x1x1   h100-test",
    "conv          257-1024   5-16   8x8x1    h100-test",
    "depthwise     16385-*    65-*   8x8x1    h100-test",
    "pool          1-64       1      16x4x1   h100-test",
};

Test(export, picks_known_answers_and_parses_back) {
    char *text = vki_wg_table_export(samples, NSAMPLES, &export_opts);
    cr_assert_not_null(text);
    /* Comment lines, then source, family, rows in class order then by bucket. */
    char *copy = strdup(text), *save = NULL;
    int k = 0, comments = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save), k++) {
        if (l[0] == '#') {
            cr_assert_eq(k, comments++, "comments first");
            continue;
        }
        int i = k - comments;
        if (i == 0) cr_assert_str_eq(l, "source h100-test NVIDIA H100 80GB HBM3, driver 550, test models");
        else if (i == 1) cr_assert_str_eq(l, "family nvidia vendor=0x10DE");
        else {
            cr_assert_lt(i - 2, (int)(sizeof want_rows / sizeof want_rows[0]), "extra line '%s'", l);
            cr_assert_str_eq(l, want_rows[i - 2]);
        }
    }
    cr_assert_eq(k - comments, 2 + (int)(sizeof want_rows / sizeof want_rows[0]), "%s", text);
    cr_assert_geq(comments, 1);
    cr_assert(strstr(text, "xported from timings"));
    cr_assert_eq(text[strlen(text) - 1], '\n');
    free(copy);

    /* It parses, and looks up to the chosen sizes, ahead of the built-in table. */
    vki_wg_table *t = NULL;
    char err[256];
    cr_assert(vki_wg_table_parse(&t, text, strlen(text), "rows.txt", err, sizeof err), "%s", err);
    size_t len;
    const char *bt = vki_wg_table_builtin_text(&len);
    cr_assert(vki_wg_table_parse(&t, bt, len, "wg_table.txt", err, sizeof err), "%s", err);
    vki_wg_device nv = gpu(0x10DE, 0x2330, "NVIDIA H100 80GB HBM3");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV, 32, 32, 8), "8x8x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV, 16, 16, 1), "32x1x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_ELEMENTWISE, 8, 8, 1), "16x2x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_ELEMENTWISE, 10, 10, 3), "4x8x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_DEPTHWISE, 1000, 1000, 100), "8x8x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_POOL, 4, 4, 1), "16x4x1");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_CONV_1X1, 64, 1, 4), "8x2x1",
                     "no row in rows.txt: the built-in nvidia row");
    cr_assert_str_eq(row_of(t, &nv, VKI_WG_REDUCE, 64, 1, 1), "64x1x1");
    vki_wg_row_info r;
    uint32_t grid[3] = {32, 32, 8};
    cr_assert(vki_wg_table_lookup(t, &nv, VKI_WG_CONV, grid, &r));
    cr_assert_str_eq(r.family, "nvidia");
    cr_assert_str_eq(r.source, "h100-test");
    cr_assert_str_eq(r.source_text, "NVIDIA H100 80GB HBM3, driver 550, test models");
    cr_assert_str_eq(r.origin, "rows.txt");
    vki_wg_device amd = gpu(0x1002, 0, NULL);
    cr_assert_str_eq(row_of(t, &amd, VKI_WG_CONV, 32, 32, 8), "8x4x2", "not an NVIDIA: the built-in row");
    vki_wg_table_free(t);
    free(text);
}

Test(export, bucket_of) {
    static const struct { uint32_t grid[3]; int bucket; } cases[] = {
        {{1, 1, 1}, 0},          {{8, 8, 1}, 0},         {{13, 5, 1}, 5},       {{8, 8, 2}, 1},
        {{8, 8, 4}, 1},          {{8, 8, 5}, 2},         {{16, 16, 16}, 7},     {{16, 16, 17}, 8},
        {{32, 32, 64}, 13},      {{32, 32, 65}, 14},     {{33, 32, 1}, 15},     {{64, 64, 1}, 15},
        {{4097, 1, 1}, 20},      {{128, 128, 1}, 20},    {{16385, 1, 1}, 25},   {{100000, 100000, 100000}, 29},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(vki_wg_bucket_of(cases[i].grid), cases[i].bucket, "%ux%ux%u: %d", cases[i].grid[0],
                     cases[i].grid[1], cases[i].grid[2], vki_wg_bucket_of(cases[i].grid));
}

Test(export, order_of_samples_does_not_matter) {
    char *first = vki_wg_table_export(samples, NSAMPLES, &export_opts);
    cr_assert_not_null(first);
    vki_wg_sample shuffled[NSAMPLES];
    uint32_t seed = 12345;
    for (int round = 0; round < 20; round++) {
        memcpy(shuffled, samples, sizeof shuffled);
        for (int i = NSAMPLES - 1; i > 0; i--) {
            seed = seed * 1664525u + 1013904223u;
            int j = (int)((seed >> 8) % (uint32_t)(i + 1));
            vki_wg_sample s = shuffled[i];
            shuffled[i] = shuffled[j];
            shuffled[j] = s;
        }
        char *again = vki_wg_table_export(shuffled, NSAMPLES, &export_opts);
        cr_assert_not_null(again);
        cr_assert_str_eq(again, first, "round %d", round);
        free(again);
    }
    free(first);
}

Test(export, options_and_odd_input) {
    cr_assert_null(vki_wg_table_export(samples, NSAMPLES, NULL));
    vki_wg_export_options o = export_opts;
    o.family = NULL;
    cr_assert_null(vki_wg_table_export(samples, NSAMPLES, &o));
    o = export_opts;
    o.source = NULL;
    cr_assert_null(vki_wg_table_export(samples, NSAMPLES, &o));
    o = export_opts;
    o.family = "two words";
    cr_assert_null(vki_wg_table_export(samples, NSAMPLES, &o));
    o = export_opts;
    o.match = "colour=red";
    cr_assert_null(vki_wg_table_export(samples, NSAMPLES, &o), "criteria that would not parse");
    cr_assert_null(vki_wg_table_export(NULL, 3, &export_opts));
    cr_assert_null(vki_wg_table_export(samples, -1, &export_opts));

    /* No samples: a source and a family, no rows; no match: a family for every device; a
     * source text with a newline and a '#' still makes one line that parses. */
    o = (vki_wg_export_options){"mine", NULL, "src", "line one\nline #two "};
    char *text = vki_wg_table_export(NULL, 0, &o);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "\nsource src line one line  two\nfamily mine\n"), "%s", text);
    vki_wg_table *t = NULL;
    char err[256];
    cr_assert(vki_wg_table_parse(&t, text, strlen(text), "x", err, sizeof err), "%s", err);
    vki_wg_device d = gpu(1, 0, NULL);
    cr_assert_str_eq(families(t, &d), "mine");
    vki_wg_table_free(t);
    free(text);

    /* Samples that cannot make rows: NaN time, a size no table holds, an empty grid. */
    vki_wg_sample odd[] = {
        {1, VKI_WG_CONV, {8, 8, 1}, {8, 8, 1}, NAN},
        {2, VKI_WG_CONV, {8, 8, 1}, {2048, 1, 1}, 1.0},
        {3, VKI_WG_CONV, {0, 8, 1}, {8, 8, 1}, 1.0},
        {4, VKI_WG_CLASS_COUNT, {8, 8, 1}, {8, 8, 1}, 1.0},
    };
    text = vki_wg_table_export(odd, 4, &export_opts);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "family nvidia vendor=0x10DE\n"));
    cr_assert_eq(strstr(text, "family nvidia vendor=0x10DE\n")[strlen("family nvidia vendor=0x10DE\n")], 0,
                 "no rows: %s", text);
    free(text);
}
