/* status.c: status names and the per-thread last error message. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

#if defined(_MSC_VER)
#define VKI_THREAD_LOCAL __declspec(thread)
#else
#define VKI_THREAD_LOCAL _Thread_local
#endif

static VKI_THREAD_LOCAL char last_error[1024];

const char *vki_status_name(vki_status status) {
    switch (status) {
    case VKI_OK: return "VKI_OK";
    case VKI_ERROR_INVALID_ARGUMENT: return "VKI_ERROR_INVALID_ARGUMENT";
    case VKI_ERROR_IO: return "VKI_ERROR_IO";
    case VKI_ERROR_MODEL_FORMAT: return "VKI_ERROR_MODEL_FORMAT";
    case VKI_ERROR_UNSUPPORTED_OP: return "VKI_ERROR_UNSUPPORTED_OP";
    case VKI_ERROR_UNSUPPORTED_MODEL: return "VKI_ERROR_UNSUPPORTED_MODEL";
    case VKI_ERROR_NO_DEVICE: return "VKI_ERROR_NO_DEVICE";
    case VKI_ERROR_DEVICE_FEATURE: return "VKI_ERROR_DEVICE_FEATURE";
    case VKI_ERROR_OUT_OF_MEMORY: return "VKI_ERROR_OUT_OF_MEMORY";
    case VKI_ERROR_SHADER: return "VKI_ERROR_SHADER";
    case VKI_ERROR_DEVICE_LOST: return "VKI_ERROR_DEVICE_LOST";
    case VKI_ERROR_TIMEOUT: return "VKI_ERROR_TIMEOUT";
    }
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
