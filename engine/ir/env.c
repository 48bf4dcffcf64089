/* env.c: the one place the library reads its environment (the list is env.h's). */
#include "env.h"

#include <stdlib.h>

const char *vki_env_name(vki_env_id id) {
    static const char *const names[] = {
#define VKI_ENV_NAME_(id, scope, effect) "VKI_" #id,
        VKI_ENV_LIST(VKI_ENV_NAME_)
#undef VKI_ENV_NAME_
    };
    return (unsigned)id < VKI_ENV_COUNT ? names[id] : "VKI_?";
}

const char *vki_env_read(vki_env_id id) {
    if ((unsigned)id >= VKI_ENV_COUNT) return NULL;
    const char *v = getenv(vki_env_name(id));
    return v && *v ? v : NULL;
}
