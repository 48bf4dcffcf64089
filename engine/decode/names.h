/* names.h: lookups in the decoders' name lists (tasks, solutions), X-macro arrays whose
 * entry 0 is "none". */
#ifndef VKI_DECODE_NAMES_H
#define VKI_DECODE_NAMES_H

#include <string.h>

/* names[i], or names[0] for i out of 0 .. count-1. */
static inline const char *vki_name_at(const char *const *names, int count, int i) {
    return (unsigned)i < (unsigned)count ? names[i] : names[0];
}

/* The index of name in names (case-sensitive), or 0 for NULL or an unknown name. */
static inline int vki_name_index(const char *const *names, int count, const char *name) {
    for (int i = 0; name && i < count; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return 0;
}

#endif /* VKI_DECODE_NAMES_H */
