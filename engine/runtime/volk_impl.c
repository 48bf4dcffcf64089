/* volk_impl.c: volk's implementation, compiled into the library. volk.c comes from
 * where volk.h does: /usr/include (Debian's libvulkan-volk-dev), a cross build's sysroot,
 * or the volk_dir option (docs/android.md). Its globals are hidden like every engine
 * symbol, so the library exports none of them (vulkan.h). */
#include "vulkan.h"

#include <volk.c>
