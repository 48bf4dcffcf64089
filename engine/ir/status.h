/* status.h: how the engine fails: the thread's last error message and the helpers that set
 * it, the one out-of-host-memory path, and an array that grows or reports it could not. */
#ifndef VKI_STATUS_H
#define VKI_STATUS_H

#include "fault.h"
#include "vkinfer.h"

#include <stddef.h>

#if defined(__GNUC__)
#define VKI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VKI_PRINTF(a, b)
#endif

/* Formats the message, stores it as the thread's last error, and returns status. */
vki_status vki_fail(vki_status status, const char *fmt, ...) VKI_PRINTF(2, 3);
/* The one "out of host memory" failure: "<where>: out of host memory". */
vki_status vki_fail_oom(const char *where);

/* Grows *p (an array of *cap elements of elem bytes) to hold at least need; 0 when out of
 * memory, leaving the array as it was. */
int vki_grow(void **p, int *cap, int need, size_t elem);

#endif
