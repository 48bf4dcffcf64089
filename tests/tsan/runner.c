/* runner.c: main and the failure report of the TSan stand-in for Criterion
 * (tsan/criterion/criterion.h). */
#include <criterion/criterion.h>

#include <stdarg.h>

cri_test *cri_tests;
int cri_failed;

void cri_fail(int fatal, const char *file, int line, const char *what, const char *fmt, ...) {
    fprintf(stderr, "[----] %s:%d: %s failed: %s\n", file, line, fatal ? "assert" : "expect", what);
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "[----]   ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
    }
    cri_failed = 1;
    if (fatal) {
        fprintf(stderr, "[====] Synthesis: a test failed an assert\n");
        exit(1);
    }
}

int main(void) {
    /* Constructors pushed the tests in reverse: run them in file order. */
    cri_test *order = NULL;
    for (cri_test *t = cri_tests, *next; t; t = next) {
        next = t->next;
        t->next = order;
        order = t;
    }
    int tested = 0, failing = 0;
    for (cri_test *t = order; t; t = t->next) {
        int before = cri_failed;
        cri_failed = 0;
        t->fn();
        tested++;
        if (cri_failed) failing++;
        fprintf(stderr, "[%s] %s::%s\n", cri_failed ? "FAIL" : "PASS", t->suite, t->name);
        cri_failed |= before;
    }
    fprintf(stderr, "[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: 0\n",
            tested, tested - failing, failing);
    return failing ? 1 : 0;
}
