/* shader.c: assembles a kernel's full GLSL text and compiles it with shaderc. */
#include "shader.h"
#include "kernel_cache.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *assemble(const char *kernel_text, const char *precision, const char *defines,
                      const char *common) {
    static const char header[] = "#version 450\n";
    static const char line_reset[] = "\n#line 1\n";
    size_t n = strlen(header) + strlen(precision) + strlen(defines) + strlen(common) +
               strlen(line_reset) + strlen(kernel_text) + 1;
    char *text = vki_malloc(n);
    if (!text) return NULL;
    snprintf(text, n, "%s%s%s%s%s%s", header, precision, defines, common, line_reset, kernel_text);
    return text;
}

vki_status vki_shader_compile(vki_context *ctx, const char *kernel, const char *precision,
                              const char *defines, uint32_t **words, size_t *n_bytes) {
    *words = NULL;
    *n_bytes = 0;
    const char *kernel_text = vki_glsl_source(kernel);
    const char *common = vki_glsl_source("common");
    if (!kernel_text || !common)
        return vki_fail(VKI_ERROR_SHADER, "kernel '%s' is not embedded in the library", kernel);
    char *text = assemble(kernel_text, precision, defines, common);
    if (!text) return vki_fail_oom("shader");
    uint64_t key = 0;
    char name[32] = "";
    if (ctx->cache_dir) {
        key = vki_kernel_cache_key(text);
        snprintf(name, sizeof name, "%016llx.spv", (unsigned long long)key);
        void *cached;
        if (vki_cache_load(ctx->cache_dir, name, key, &cached, n_bytes)) {
            if (*n_bytes % 4 == 0) {
                *words = cached;
                ctx->kernels.from_disk++;
                free(text);
                return VKI_OK;
            }
            free(cached);
        }
    }
    shaderc_compile_options_t opts = shaderc_compile_options_initialize();
    if (!opts) {
        free(text);
        return vki_fail(VKI_ERROR_OUT_OF_MEMORY, "shaderc: cannot create compile options");
    }
    shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan,
                                           shaderc_env_version_vulkan_1_1);
    shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_performance);
    shaderc_compilation_result_t res = shaderc_compile_into_spv(
        ctx->compiler, text, strlen(text), shaderc_compute_shader, kernel, "main", opts);
    vki_status s = VKI_OK;
    if (!res || shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        s = vki_fail(VKI_ERROR_SHADER, "kernel %s failed to compile: %s", kernel,
                     res ? shaderc_result_get_error_message(res) : "no result");
    } else {
        size_t len = shaderc_result_get_length(res);
        *words = vki_malloc(len);
        if (!*words) s = vki_fail_oom("shader");
        else {
            memcpy(*words, shaderc_result_get_bytes(res), len);
            *n_bytes = len;
            ctx->kernels.compiled++;
            if (ctx->cache_dir) vki_context_cache_store(ctx, name, key, *words, len);
        }
    }
    if (res) shaderc_result_release(res);
    shaderc_compile_options_release(opts);
    free(text);
    return s;
}
