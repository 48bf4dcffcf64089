/* shader.h: GLSL kernel -> SPIR-V with shaderc, from the sources embedded at build time. */
#ifndef VKI_SHADER_H
#define VKI_SHADER_H

#include "gpu.h"

#include <stddef.h>
#include <stdint.h>

/* The embedded text of glsl/<name>.comp or .glsl, or NULL (generated glsl_sources.c). */
const char *vki_glsl_source(const char *name);

/* Compiles kernel with the graph's precision defines and the op's defines prepended
 * (after #version, before common.glsl). On success *words (malloc'd) holds *n_bytes of
 * SPIR-V. */
vki_status vki_shader_compile(vki_context *ctx, const char *kernel, const char *precision,
                              const char *defines, uint32_t **words, size_t *n_bytes);

#endif
