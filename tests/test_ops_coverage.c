/* test_ops_coverage.c: every op of engine/ops/op_list.h has cases in the op case tables
 * (op_cases.h), and the tables are well formed. Builds no graph.
 *
 * test_ops_coverage --list-cases prints every table and case label and exits. */
#include "op_cases.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct op_entry {
    const char *name;           /* "CONV_2D", or the custom_code */
    vki_op_code code;
    const char *custom;         /* NULL for builtin ops */
    int cases;
} op_entry;

#define BUILTIN_ENTRY_(name, code, ...) {#name, VKI_OP_##name, NULL, 0},
#define CUSTOM_ENTRY_(ident, custom_code, def) {custom_code, VKI_OP_CUSTOM, custom_code, 0},

static op_entry ops[] = {VKI_OP_LIST(BUILTIN_ENTRY_) VKI_CUSTOM_OP_LIST(CUSTOM_ENTRY_)};
#define N_OPS (int)(sizeof ops / sizeof ops[0])

static op_entry *entry_of(const op_case *c) {
    for (int i = 0; i < N_OPS; i++) {
        if (ops[i].code != c->op) continue;
        if (!ops[i].custom || (c->custom && !strcmp(c->custom, ops[i].custom))) return &ops[i];
    }
    return NULL;
}

/* Calls visit on every case of every table. */
static void each_case(void (*visit)(const op_table *t, int index, const op_case *c, void *arg),
                      void *arg) {
    for (int t = 0; t < op_table_count; t++) {
        op_case_list l = {0};
        op_tables[t].generate(&l);
        for (int i = 0; i < l.n; i++) visit(&op_tables[t], i, &l.cases[i], arg);
        op_case_list_free(&l);
    }
}

typedef struct family_count {
    const char *family;
    int tables, cases;
} family_count;

typedef struct tally {
    family_count families[16];
    int n_families, total, not_listed;
} tally;

static void count(const op_table *t, int index, const op_case *c, void *arg) {
    tally *y = arg;
    family_count *f = NULL;
    for (int i = 0; i < y->n_families; i++)
        if (!strcmp(y->families[i].family, t->family)) f = &y->families[i];
    if (!f) {
        cr_assert(y->n_families < 16);
        f = &y->families[y->n_families++];
        f->family = t->family;
    }
    if (index == 0) f->tables++;
    f->cases++;
    y->total++;
    op_entry *e = entry_of(c);
    if (e) e->cases++;
    else {
        y->not_listed++;
        cr_log_error("%s/%s case %d '%s': op %s%s%s is not in the op list", t->suite, t->name,
                     index, c->label, vki_op_name((int)c->op), c->custom ? " " : "",
                     c->custom ? c->custom : "");
    }
}

Test(ops_coverage, every_op_has_cases) {
    tally y = {0};
    each_case(count, &y);
    for (int i = 0; i < y.n_families; i++)
        cr_log_info("%-8s %3d tables %5d cases", y.families[i].family, y.families[i].tables,
                    y.families[i].cases);
    cr_log_info("all      %3d tables %5d cases", op_table_count, y.total);
    char missing[1024] = "";
    size_t len = 0;
    int n_missing = 0;
    for (int i = 0; i < N_OPS; i++) {
        cr_log_info("%-30s %5d cases", ops[i].name, ops[i].cases);
        if (ops[i].cases) continue;
        n_missing++;
        if (len < sizeof missing)
            len += (size_t)snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "",
                                    ops[i].name);
    }
    cr_expect_eq(y.not_listed, 0, "%d cases test an op that op_list.h does not list", y.not_listed);
    cr_assert_eq(n_missing, 0, "%d of %d ops have no case in the op case tables: %s", n_missing,
                 N_OPS, missing);
}

static void check_case(const op_table *t, int index, const op_case *c, void *arg) {
    int *bad = arg;
    const char *why = !c->label[0]                              ? "no label"
                      : !c->build                               ? "no builder"
                      : !(c->tol >= 0.0) || !(c->fp16_tol >= 0.0) ? "a negative tolerance"
                      : (c->op == VKI_OP_CUSTOM) != !!c->custom ? "custom name and op disagree"
                                                                : NULL;
    if (!why) return;
    (*bad)++;
    cr_log_error("%s/%s case %d '%s': %s", t->suite, t->name, index, c->label, why);
}

Test(ops_coverage, cases_are_well_formed) {
    int bad = 0;
    each_case(check_case, &bad);
    cr_assert_eq(bad, 0, "%d malformed cases", bad);
}

static void print_case(const op_table *t, int index, const op_case *c, void *arg) {
    (void)index;
    fprintf(arg, "%s/%s\t%s\n", t->suite, t->name, c->label);
}

int main(int argc, char *argv[]) {
    if (argc > 1 && !strcmp(argv[1], "--list-cases")) {
        each_case(print_case, stdout);
        return 0;
    }
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    return result;
}

/* docs/ops.md's table of supported ops is the op list: every op of engine/ops/op_list.h (and
 * each custom op) has its row, no row names an op the list lacks, and the count in its first
 * paragraph is the list's. */
Test(ops_coverage, docs_list_every_op) {
    const char *root = getenv("VKI_SOURCE_ROOT");
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/ops.md", root && *root ? root : ".");
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *table = strstr(text, "## Supported ops");
    cr_assert(table, "docs/ops.md has no Supported ops section");
    const char *end = strstr(table + 1, "\n## ");
    int rows = 0, listed[N_OPS] = {0};
    for (const char *p = table; (p = strstr(p, "\n| `")) && (!end || p < end); p++) {
        char name[64];
        if (sscanf(p, "\n| `%63[A-Za-z0-9_]`", name) != 1) continue;
        rows++;
        int found = !strcmp(name, "DENSIFY");   /* folded at load, no kernel */
        for (int i = 0; i < N_OPS; i++)
            if (!strcmp(ops[i].name, name)) found = listed[i] = 1;
        cr_expect(found, "docs/ops.md lists %s, which the op list lacks", name);
    }
    int builtin = 0;
    for (int i = 0; i < N_OPS; i++) {
        cr_expect(listed[i], "docs/ops.md does not list %s", ops[i].name);
        builtin += ops[i].custom == NULL;
    }
    char claim[64];
    snprintf(claim, sizeof claim, "runs %d TFLite builtin ops", builtin);
    cr_expect(strstr(text, claim), "docs/ops.md should say it '%s'", claim);
    cr_expect_eq(rows, N_OPS + 1, "%d rows for %d ops and DENSIFY", rows, N_OPS);
}
