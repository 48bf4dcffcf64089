/* test_kernels.c: every kernel compiles in every variant the op files can emit (the
 * `// variant:` tables of the glsl/ kernels, generated into glsl_variants.h by glsl/embed.py),
 * in the three precisions a graph can ask for: fp32, fp16 storage and fp16 arithmetic.
 * A #if branch that only some models reach is otherwise compiled only when one of them
 * is loaded. Each failure names the kernel, the variant and the precision. */
#include "glsl_variants.h"
#include "shader.h"
#include "status.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct precision {
    const char *name;
    int fp16_storage, fp16_arith;
} precision;

static const precision precisions[] = {
    {"fp32", 0, 0},
    {"fp16 storage", 1, 0},
    {"fp16 arithmetic", 1, 1},
};

/* The text the graph builder prepends for a dispatch (precision_defines in graph.c) when
 * every binding has the graph's storage type. */
static void precision_text(const precision *p, int n_bindings, char *out, size_t cap) {
    size_t n = 0;
    out[0] = 0;
    if (p->fp16_storage) n += (size_t)snprintf(out + n, cap - n, "#define VKI_FP16_STORAGE 1\n");
    if (p->fp16_arith) n += (size_t)snprintf(out + n, cap - n, "#define VKI_FP16_ARITH 1\n");
    for (int i = 0; i < n_bindings && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "#define STORE4_%d %s\n", i,
                              p->fp16_storage ? "f16vec4" : "vec4");
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void compile_all(const precision *p) {
    /* A disk cache would hand back earlier results instead of compiling. */
    unsetenv("VKI_CACHE_DIR");
    vki_context *ctx = NULL;
    cr_assert_eq(vki_context_create(NULL, &ctx), VKI_OK, "%s", vki_last_error());
    double start = now();
    int failed = 0;
    for (size_t i = 0; i < VKI_KERNEL_VARIANT_COUNT; i++) {
        const vki_kernel_variant *v = &vki_kernel_variants[i];
        char text[1024];
        precision_text(p, v->n_bindings, text, sizeof text);
        uint32_t *words = NULL;
        size_t bytes = 0;
        if (vki_shader_compile(ctx, v->kernel, text, v->defines, &words, &bytes) != VKI_OK) {
            fprintf(stderr, "kernel %s, variant [%s], %s:\n%s\n", v->kernel, v->label, p->name,
                    vki_last_error());
            failed++;
        }
        free(words);
    }
    int compiled = ctx->kernels.compiled;
    vki_context_destroy(ctx);
    fprintf(stderr, "kernels: %zu variants in %s, %.1f s\n", VKI_KERNEL_VARIANT_COUNT, p->name,
            now() - start);
    cr_assert_eq(failed, 0, "%d of %zu variants failed to compile in %s (listed above)", failed,
                 VKI_KERNEL_VARIANT_COUNT, p->name);
    cr_assert_eq((size_t)compiled, VKI_KERNEL_VARIANT_COUNT, "compiled %d kernels, expected %zu",
                 compiled, VKI_KERNEL_VARIANT_COUNT);
}

Test(kernels, fp32, .timeout = 600) { compile_all(&precisions[0]); }
Test(kernels, fp16_storage, .timeout = 600) { compile_all(&precisions[1]); }
Test(kernels, fp16_arithmetic, .timeout = 600) { compile_all(&precisions[2]); }

/* embed.py refuses a kernel without variants; this checks the table it wrote covers every
 * embedded kernel and names only real ones. */
Test(kernels, every_kernel_has_variants) {
#define COUNT_(name)                                                                     \
    {                                                                                    \
        int n = 0;                                                                       \
        for (size_t i = 0; i < VKI_KERNEL_VARIANT_COUNT; i++)                            \
            n += !strcmp(vki_kernel_variants[i].kernel, VKI_KERNEL_##name);              \
        cr_expect_gt(n, 0, "kernel %s has no variants", #name);                          \
        cr_expect_not_null(vki_glsl_source(VKI_KERNEL_##name), "%s is not embedded", #name); \
    }
    VKI_KERNEL_LIST(COUNT_)
#undef COUNT_
}
