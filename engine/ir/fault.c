/* fault.c: the test-only fault injector (fault.h): per-thread state, check points, and the
 * engine's allocation functions. Disarmed, a check is one thread-local load. */
#include "fault.h"

#include <stdlib.h>
#include <string.h>

#if defined(_MSC_VER)
#define VKI_THREAD_LOCAL __declspec(thread)
#else
#define VKI_THREAD_LOCAL _Thread_local
#endif

/* VkResult values, kept here so that this file needs no Vulkan header. */
enum { OUT_OF_HOST_MEMORY = -1, OUT_OF_DEVICE_MEMORY = -2, DEVICE_LOST = -4 };

typedef struct injector {
    int armed;
    vki_fault_kind kind;
    long at, seen;
    int result, fired;
} injector;

static VKI_THREAD_LOCAL injector fault;

const char *vki_fault_kind_name(vki_fault_kind kind) {
#define NAME_(name, text) text,
    static const char *const names[] = {VKI_FAULT_LIST(NAME_)};
#undef NAME_
    return (unsigned)kind < VKI_FAULT_KIND_COUNT ? names[kind] : "unknown";
}

void vki_fault_arm(vki_fault_kind kind, long at, int result) {
    fault = (injector){.armed = 1, .kind = kind, .at = at, .result = result};
}

void vki_fault_disarm(void) { memset(&fault, 0, sizeof fault); }
long vki_fault_seen(void) { return fault.seen; }
int vki_fault_fired(void) { return fault.fired; }

int vki_fault_arm_from_text(const char *text) {
    static const struct { const char *name; int value; } results[] = {
        {"VK_ERROR_OUT_OF_DEVICE_MEMORY", OUT_OF_DEVICE_MEMORY},
        {"VK_ERROR_OUT_OF_HOST_MEMORY", OUT_OF_HOST_MEMORY},
        {"VK_ERROR_DEVICE_LOST", DEVICE_LOST},
    };
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon) return 0;
    int kind = -1;
    for (int k = 0; k < VKI_FAULT_KIND_COUNT; k++) {
        const char *name = vki_fault_kind_name((vki_fault_kind)k);
        if (strlen(name) == (size_t)(colon - text) && !strncmp(text, name, strlen(name))) kind = k;
    }
    char *end;
    long at = strtol(colon + 1, &end, 10);
    if (kind < 0 || end == colon + 1 || at < 0) return 0;
    int result = OUT_OF_DEVICE_MEMORY;
    if (*end == ':') {
        result = 0;
        for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
            if (!strcmp(end + 1, results[i].name)) result = results[i].value;
        if (!result) return 0;
    } else if (*end) {
        return 0;
    }
    vki_fault_arm((vki_fault_kind)kind, at, result);
    return 1;
}

int vki_fault_check(vki_fault_kind kind) {
    if (!fault.armed || fault.kind != kind) return 0;
    if (++fault.seen != fault.at) return 0;
    fault.fired = 1;
    return kind == VKI_FAULT_MALLOC ? OUT_OF_HOST_MEMORY : fault.result;
}

void *vki_malloc(size_t n) { return vki_fault_check(VKI_FAULT_MALLOC) ? NULL : malloc(n); }

void *vki_calloc(size_t count, size_t n) {
    return vki_fault_check(VKI_FAULT_MALLOC) ? NULL : calloc(count, n);
}

void *vki_realloc(void *p, size_t n) {
    return vki_fault_check(VKI_FAULT_MALLOC) ? NULL : realloc(p, n);
}

char *vki_strdup(const char *s) {
    size_t n = strlen(s ? s : "");
    char *d = vki_malloc(n + 1);
    if (d) memcpy(d, s ? s : "", n + 1);
    return d;
}
