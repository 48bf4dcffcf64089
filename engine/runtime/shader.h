/* shader.h: a kernel variant's SPIR-V: from the context's kernel packs, else compiled with
 * shaderc from the sources embedded at build time (when the library has the compiler). */
#ifndef VKI_SHADER_H
#define VKI_SHADER_H

#include "gpu.h"
#include "kernels.h"

#include <stddef.h>
#include <stdint.h>

#if VKI_HAVE_COMPILER
/* The embedded text of glsl/<name>.comp or .glsl, or NULL (generated glsl_sources.c). */
const char *vki_glsl_source(const char *name);
#endif

/* The variant's SPIR-V: the kernel with the precision defines and the op's defines
 * prepended (after #version, before common.glsl). On success *words (malloc'd) holds
 * *n_bytes. Counts it in ctx->kernels (compiled, from_disk or from_pack) and adds it to
 * ctx->pack_writer when one is set. Called with the kernels lock held. VKI_ERROR_SHADER:
 * it failed to compile, or no pack holds it and the library has no compiler. */
vki_status vki_shader_spirv(vki_context *ctx, const vki_kernel_variant *v, uint32_t **words,
                            size_t *n_bytes);

#endif
