/* kernels.h: the kernels stage (internal): shader modules and compute pipelines, cached in
 * the context, so every graph of a context shares what any of them compiled. A module is
 * one (kernel, #defines, precision); its work group is a specialization constant, so
 * every size of it shares the module, and a pipeline is a module with one size. */
#ifndef VKI_KERNELS_H
#define VKI_KERNELS_H

#include "gpu.h"

typedef struct vki_kernel_variant {
    const char *kernel;          /* glsl/<kernel>.comp */
    const char *defines;         /* the op's #defines */
    size_t defines_len;
    const char *precision;       /* the precision #defines (vki_build_variant) */
    int n_bindings;              /* storage buffers at set 0, bindings 0..n-1 */
} vki_kernel_variant;

/* The descriptor set layout and pipeline layout for n storage-buffer bindings. */
vki_status vki_kernels_layout(vki_context *ctx, int n_bindings, VkDescriptorSetLayout *set,
                              VkPipelineLayout *pipeline);
/* The pipeline of a variant with work group wg, compiled (or loaded) once per context. */
vki_status vki_kernels_pipeline(vki_context *ctx, const vki_kernel_variant *v, const uint32_t wg[3],
                                VkPipeline *out);
/* Destroys everything cached; at context destruction. */
void vki_kernels_release(vki_context *ctx);

#endif
