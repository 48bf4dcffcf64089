/* shader.c: where a kernel variant's SPIR-V comes from: the context's kernel packs, else
 * (in a library with the shader compiler) the disk cache or shaderc, compiling the GLSL
 * text assembled from the embedded sources. */
#include "shader.h"
#include "kernel_cache.h"
#include "kernel_pack.h"
#include "loader.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vki_have_compiler(void) { return VKI_HAVE_COMPILER; }

#if VKI_HAVE_COMPILER
static char *assemble(const char *kernel_text, const char *precision, const char *defines,
                      size_t defines_len, const char *common) {
    static const char header[] = "#version 450\n";
    static const char line_reset[] = "\n#line 1\n";
    size_t n = strlen(header) + strlen(precision) + defines_len + strlen(common) +
               strlen(line_reset) + strlen(kernel_text) + 1;
    char *text = vki_malloc(n);
    if (!text) return NULL;
    snprintf(text, n, "%s%s%.*s%s%s%s", header, precision, (int)defines_len, defines, common,
             line_reset, kernel_text);
    return text;
}

static vki_status compile(vki_context *ctx, const vki_kernel_variant *v, uint32_t **words,
                          size_t *n_bytes) {
    const char *kernel = v->kernel;
    const char *kernel_text = vki_glsl_source(kernel);
    const char *common = vki_glsl_source("common");
    if (!kernel_text || !common)
        return vki_fail(VKI_ERROR_SHADER, "kernel '%s' is not embedded in the library", kernel);
    char *text = assemble(kernel_text, v->precision, v->defines, v->defines_len, common);
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
#endif

#if !VKI_HAVE_COMPILER
/* "fp16 storage+arithmetic, bindings vec4,f16vec4,q8": what the precision #defines say. */
static void describe_precision(const char *precision, char *out, size_t cap) {
    int n = snprintf(out, cap, "%s", strstr(precision, "VKI_FP16_ARITH") ? "fp16 storage+arithmetic"
                                     : strstr(precision, "VKI_FP16_STORAGE") ? "fp16 storage"
                                                                             : "fp32");
    const char *p = precision;
    int first = 1;
    while (n >= 0 && (size_t)n < cap && (p = strstr(p, "#define STORE4_"))) {
        p += strlen("#define STORE4_");
        while (*p && *p != ' ') p++;
        const char *type = *p ? p + 1 : p;
        int len = 0;
        while (type[len] && type[len] != '\n') len++;
        int q8 = len == 4 && !strncmp(type, "uint", 4);
        n += snprintf(out + n, cap - (size_t)n, "%s%.*s", first ? ", bindings " : ",",
                      q8 ? 2 : len, q8 ? "q8" : type);
        first = 0;
    }
}

/* "A=1 B=2": the #define lines as NAME=VALUE. */
static void describe_defines(const char *defines, size_t len, char *out, size_t cap) {
    size_t n = 0;
    const char *p = defines, *end = defines + len;
    out[0] = 0;
    while (p < end && n + 1 < cap) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        const char *q = p;
        if ((size_t)(eol - q) > 8 && !strncmp(q, "#define ", 8)) q += 8;
        for (int gap = 0; q < eol && n + 2 < cap; q++) {
            char ch = *q == ' ' && !gap ? '=' : *q;
            if (*q == ' ') gap = 1;
            out[n++] = ch;
        }
        if (eol + 1 < end && n + 2 < cap) out[n++] = ' ';
        out[n] = 0;
        p = eol + 1;
    }
}
#endif

vki_status vki_shader_spirv(vki_context *ctx, const vki_kernel_variant *v, uint32_t **words,
                            size_t *n_bytes) {
    *words = NULL;
    *n_bytes = 0;
    uint64_t key = vki_kernel_pack_key(v->kernel, v->precision, v->defines, v->defines_len);
    if (!key) return vki_fail(VKI_ERROR_SHADER, "kernel '%s' is not in the library", v->kernel);
    size_t n = 0;
    const uint32_t *packed = vki_pack_set_find(ctx->packs, key, &n);
    vki_status s = VKI_OK;
    if (packed) {
        *words = vki_malloc(n);
        if (!*words) return vki_fail_oom("shader");
        memcpy(*words, packed, n);
        *n_bytes = n;
        ctx->kernels.from_pack++;
    } else {
#if VKI_HAVE_COMPILER
        s = compile(ctx, v, words, n_bytes);
#else
        char prec[160], defs[400];
        describe_precision(v->precision, prec, sizeof prec);
        describe_defines(v->defines, v->defines_len, defs, sizeof defs);
        s = vki_fail(VKI_ERROR_SHADER, "kernel %s (%s; defines %s; key %016llx) is in no kernel "
                     "pack of this context, and this library has no shader compiler: make a pack "
                     "with `vkinfer pack` for this model and precision", v->kernel, prec,
                     defs[0] ? defs : "none", (unsigned long long)key);
#endif
    }
    if (!s && ctx->pack_writer) {
        s = vki_pack_writer_add(ctx->pack_writer, key, v->kernel, *words, *n_bytes);
        if (s) {
            free(*words);
            *words = NULL;
        }
    }
    return s;
}

/* ---- the driver's pipeline cache in a pack ---------------------------------------------- */

/* `vkinfer pack` adds the driver's pipeline cache of the device it ran on, keyed by that
 * device's identity (vendor, device, driver version, pipelineCacheUUID), so a context on
 * the same device seeds its pipeline cache from it and the driver does not translate the
 * pack's SPIR-V again: on an H100 a pack alone built face_detection_short_range in 29 ms
 * against 8.9 ms from the disk cache, which holds the pipeline cache too
 * (bench/results/pack_time.md). Another device never finds the entry. Its bytes: the
 * blob's length (u32, host order: every target is little-endian, as packs are), the blob,
 * zeros to a multiple of 4. */
static uint64_t pipeline_entry_key(const vki_context *ctx) {
    static const char tag[] = "driver pipeline cache";
    return vki_cache_hash(vki_context_identity(ctx), tag, sizeof tag);
}

/* Merges the packs' pipeline cache for this device, if any, into the context's; best
 * effort (a blob the driver refuses only costs the compile it would have spared).
 * kernels_lock held: merging needs the destination cache to itself. */
static void seed_pipeline_cache(vki_context *ctx) {
    size_t n = 0;
    const uint32_t *e = vki_pack_set_find(ctx->packs, pipeline_entry_key(ctx), &n);
    if (!e || n < 4 || e[0] == 0 || e[0] > n - 4 || !ctx->pipeline_cache) return;
    VkPipelineCacheCreateInfo pc = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = e[0], .pInitialData = e + 1};
    VkPipelineCache from;
    if (ctx->vk.vkCreatePipelineCache(ctx->device, &pc, NULL, &from) != VK_SUCCESS) return;
    ctx->vk.vkMergePipelineCaches(ctx->device, ctx->pipeline_cache, 1, &from);
    ctx->vk.vkDestroyPipelineCache(ctx->device, from, NULL);
}

int vki_context_pack_pipelines(vki_context *ctx, vki_pack_writer *w) {
    size_t n = 0;
    pthread_mutex_lock(&ctx->kernels_lock);
    int added = 0;
    if (ctx->pipeline_cache &&
        ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &n, NULL) == VK_SUCCESS &&
        n > 0 && n < UINT32_MAX / 2) {
        size_t bytes = 4 + ((n + 3) & ~(size_t)3);
        uint32_t *e = vki_calloc(1, bytes);
        if (e && ctx->vk.vkGetPipelineCacheData(ctx->device, ctx->pipeline_cache, &n, e + 1) == VK_SUCCESS) {
            e[0] = (uint32_t)n;
            added = vki_pack_writer_add(w, pipeline_entry_key(ctx), "driver pipeline cache", e, bytes) == VKI_OK;
        }
        free(e);
    }
    pthread_mutex_unlock(&ctx->kernels_lock);
    return added;
}

/* ---- the public pack calls ------------------------------------------------------------ */

vki_status vki_context_add_kernel_pack(vki_context *ctx, const void *data, size_t size) {
    if (!ctx || !data)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_add_kernel_pack: NULL argument");
    pthread_mutex_lock(&ctx->kernels_lock);
    vki_status s = vki_pack_set_add(&ctx->packs, data, size, "(memory)");
    if (!s) seed_pipeline_cache(ctx);
    pthread_mutex_unlock(&ctx->kernels_lock);
    return s;
}

vki_status vki_context_load_kernel_pack(vki_context *ctx, const char *path) {
    if (!ctx || !path)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_load_kernel_pack: NULL argument");
    uint8_t *data;
    size_t n;
    vki_status s = vki_read_whole_file(path, &data, &n);
    if (s) return s;
    pthread_mutex_lock(&ctx->kernels_lock);
    s = vki_pack_set_add(&ctx->packs, data, n, path);
    if (!s) seed_pipeline_cache(ctx);
    pthread_mutex_unlock(&ctx->kernels_lock);
    free(data);
    return s;
}

void vki_context_record_kernels(vki_context *ctx, vki_pack_writer *w) {
    pthread_mutex_lock(&ctx->kernels_lock);
    ctx->pack_writer = w;
    pthread_mutex_unlock(&ctx->kernels_lock);
}
