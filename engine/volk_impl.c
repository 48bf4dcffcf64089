/* volk_impl.c: compiles Debian's volk.c into the library (Vulkan is loaded at run time,
 * never linked). */
#include <volk.c>
