/* test_kernels.c: every kernel compiles in every variant the op files can emit (the
 * `// variant:` tables of the glsl/ kernels, generated into glsl_variants.h by glsl/embed.py),
 * in the three precisions a graph can ask for: fp32, fp16 storage and fp16 arithmetic, and
 * with int8 byte storage.
 * A #if branch that only some models reach is otherwise compiled only when one of them
 * is loaded. Each failure names the kernel, the variant and the precision. */
#include "../tuner/stats.h"
#include "glsl_variants.h"
#include "precision.h"
#include "shader.h"
#include "status.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct precision {
    const char *name;
    int fp16_storage, fp16_arith;
    int bytes;                  /* every binding stored as int8 / uint8 bytes */
} precision;

static const precision precisions[] = {
    {"fp32", 0, 0, 0},
    {"fp16 storage", 1, 0, 0},
    {"fp16 arithmetic", 1, 1, 0},
    {"int8 storage", 0, 0, 1},
};

static void compile_all(const precision *p) {
    /* VKI_KERNELS=skip: tools/test.sh's slower runs, where compiling gives what the plain
     * run's did (shaderc is not what they instrument). */
    const char *mode = getenv("VKI_KERNELS");
    if (mode && !strcmp(mode, "skip")) cr_skip_test("VKI_KERNELS=skip");
    /* A disk cache would hand back earlier results instead of compiling. */
    unsetenv("VKI_CACHE_DIR");
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    double start = vki_now_ms();
    int failed = 0;
    for (size_t i = 0; i < VKI_KERNEL_CASE_COUNT; i++) {
        const vki_kernel_case *v = &vki_kernel_cases[i];
        char text[4096];
        unsigned char half[16];
        memset(half, p->bytes ? VKI_STORE_Q8 : p->fp16_storage, sizeof half);
        vki_precision_defines(p->fp16_storage, p->fp16_arith, v->n_bindings, half, NULL, text, sizeof text);
        uint32_t *words = NULL;
        size_t bytes = 0;
        const vki_kernel_variant kv = {v->kernel, v->defines, strlen(v->defines), text, v->n_bindings};
        if (vki_shader_spirv(ctx, &kv, &words, &bytes) != VKI_OK) {
            fprintf(stderr, "kernel %s, variant [%s], %s:\n%s\n", v->kernel, v->label, p->name,
                    vki_last_error());
            failed++;
        }
        free(words);
    }
    int compiled = ctx->kernels.compiled;
    vki_context_destroy(ctx);
    fprintf(stderr, "kernels: %zu variants in %s, %.1f s\n", VKI_KERNEL_CASE_COUNT, p->name,
            (vki_now_ms() - start) / 1e3);
    cr_assert_eq(failed, 0, "%d of %zu variants failed to compile in %s (listed above)", failed,
                 VKI_KERNEL_CASE_COUNT, p->name);
    cr_assert_eq((size_t)compiled, VKI_KERNEL_CASE_COUNT, "compiled %d kernels, expected %zu",
                 compiled, VKI_KERNEL_CASE_COUNT);
}

Test(kernels, fp32, .timeout = 600) { compile_all(&precisions[0]); }
Test(kernels, fp16_storage, .timeout = 600) { compile_all(&precisions[1]); }
Test(kernels, fp16_arithmetic, .timeout = 600) { compile_all(&precisions[2]); }
/* int8 and uint8 tensors are stored as bytes (engine/emit/precision.c): every kernel reads and
 * writes them through LOAD / STORE, so every variant compiles with byte storage too. */
Test(kernels, int8_storage, .timeout = 600) { compile_all(&precisions[3]); }

/* embed.py refuses a kernel without variants; this checks the table it wrote covers every
 * embedded kernel and names only real ones. */
Test(kernels, every_kernel_has_variants) {
#define COUNT_(name)                                                                     \
    {                                                                                    \
        int n = 0;                                                                       \
        for (size_t i = 0; i < VKI_KERNEL_CASE_COUNT; i++)                            \
            n += !strcmp(vki_kernel_cases[i].kernel, VKI_KERNEL_##name);              \
        cr_expect_gt(n, 0, "kernel %s has no variants", #name);                          \
        cr_expect_not_null(vki_glsl_source(VKI_KERNEL_##name), "%s is not embedded", #name); \
    }
    VKI_KERNEL_LIST(COUNT_)
#undef COUNT_
}
