/* version.c: the library's version, as vkinfer.h states it when the library is built
 * (meson.build refuses to configure when the header and the project version differ). */
#include "vkinfer.h"

#define VKI_STR_(x) #x
#define VKI_STR(x) VKI_STR_(x)

uint32_t vki_version(void) { return VKI_VERSION; }

const char *vki_version_string(void) {
    return VKI_STR(VKI_VERSION_MAJOR) "." VKI_STR(VKI_VERSION_MINOR) "." VKI_STR(VKI_VERSION_PATCH);
}
