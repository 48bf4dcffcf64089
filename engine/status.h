/* status.h: the thread's last error message, and the helper that sets it. */
#ifndef VKI_STATUS_H
#define VKI_STATUS_H

#include "vkinfer.h"

#if defined(__GNUC__)
#define VKI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VKI_PRINTF(a, b)
#endif

/* Formats the message, stores it as the thread's last error, and returns status. */
vki_status vki_fail(vki_status status, const char *fmt, ...) VKI_PRINTF(2, 3);

#endif
