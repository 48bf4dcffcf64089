/* status.c: status names (from VKI_STATUS_LIST), the per-thread last error message, the one
 * out-of-host-memory failure, and growing an array without losing it on failure. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(_MSC_VER)
#define VKI_THREAD_LOCAL __declspec(thread)
#else
#define VKI_THREAD_LOCAL _Thread_local
#endif

static VKI_THREAD_LOCAL char last_error[1024];

const char *vki_status_name(vki_status status) {
#define NAME_(name, value, what) \
    case VKI_##name: return "VKI_" #name;
    switch (status) { VKI_STATUS_LIST(NAME_) }
#undef NAME_
    return "VKI_ERROR_UNKNOWN";
}

const char *vki_last_error(void) { return last_error; }

vki_status vki_fail(vki_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

vki_status vki_fail_oom(const char *where) {
    return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "%s: out of host memory", where);
}

int vki_grow(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap) return 1;
    int n = *cap ? *cap * 2 : 16;
    while (n < need) n *= 2;
    void *q = vki_realloc(*p, (size_t)n * elem);
    if (!q) return 0;
    *p = q;
    *cap = n;
    return 1;
}
