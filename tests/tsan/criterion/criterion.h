/* tsan/criterion/criterion.h: a stand-in for the part of Criterion the thread and API
 * suites use, for their ThreadSanitizer build only. Criterion runs each test in a forked
 * child through a shared-memory arena that cannot be mapped under ThreadSanitizer ("Could
 * not initialize inheritable arena"), so under TSan these suites run as one plain process:
 * every test in order, a failed assert ends the process, and the closing line is the
 * usual "Synthesis" one. Not a test framework beyond that. */
#ifndef VKI_TSAN_CRITERION_H
#define VKI_TSAN_CRITERION_H

/* Every test runs in this one process, one after another (Criterion forks one per test). */
#define VKI_CRITERION_ONE_PROCESS 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cri_test {
    const char *suite, *name;
    void (*fn)(void);
    struct cri_test *next;
} cri_test;

extern cri_test *cri_tests;
extern int cri_failed;

/* Test(suite, name, .timeout = ...): the options are accepted and ignored. */
#define Test(suite, name, ...)                                                             \
    static void suite##_##name(void);                                                      \
    __attribute__((constructor)) static void cri_register_##suite##_##name(void) {         \
        static cri_test t = {#suite, #name, suite##_##name, NULL};                         \
        t.next = cri_tests;                                                                \
        cri_tests = &t;                                                                    \
    }                                                                                      \
    static void suite##_##name(void)

void cri_fail(int fatal, const char *file, int line, const char *what, const char *fmt, ...);

#define cr_assert(c, ...) do { if (!(c)) cri_fail(1, __FILE__, __LINE__, #c, "" __VA_ARGS__); } while (0)
#define cr_expect(c, ...) do { if (!(c)) cri_fail(0, __FILE__, __LINE__, #c, "" __VA_ARGS__); } while (0)
#define cr_assert_not(c, ...) cr_assert(!(c), __VA_ARGS__)
#define cr_expect_not(c, ...) cr_expect(!(c), __VA_ARGS__)
#define cr_assert_eq(a, b, ...) cr_assert((a) == (b), __VA_ARGS__)
#define cr_expect_eq(a, b, ...) cr_expect((a) == (b), __VA_ARGS__)
#define cr_assert_neq(a, b, ...) cr_assert((a) != (b), __VA_ARGS__)
#define cr_assert_gt(a, b, ...) cr_assert((a) > (b), __VA_ARGS__)
#define cr_assert_lt(a, b, ...) cr_assert((a) < (b), __VA_ARGS__)
#define cr_expect_lt(a, b, ...) cr_expect((a) < (b), __VA_ARGS__)
#define cr_expect_gt(a, b, ...) cr_expect((a) > (b), __VA_ARGS__)
#define cr_assert_null(p, ...) cr_assert((p) == NULL, __VA_ARGS__)
#define cr_expect_null(p, ...) cr_expect((p) == NULL, __VA_ARGS__)
#define cr_assert_not_null(p, ...) cr_assert((p) != NULL, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) cr_assert((a) <= (b), __VA_ARGS__)
#define cr_assert_geq(a, b, ...) cr_assert((a) >= (b), __VA_ARGS__)
#define cr_assert_str_eq(a, b, ...) cr_assert(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_expect_str_eq(a, b, ...) cr_expect(strcmp((a), (b)) == 0, __VA_ARGS__)
#define cr_assert_fail(...) cri_fail(1, __FILE__, __LINE__, "cr_assert_fail", "" __VA_ARGS__)
#define cr_skip_test(...) do { printf("skipped: " __VA_ARGS__); printf("\n"); return; } while (0)

#endif
