/* graph.h: the built graph's state (internal). */
#ifndef VKI_GRAPH_H
#define VKI_GRAPH_H

#include "gpu.h"
#include "model.h"
#include "ops/ops.h"

typedef struct vki_step {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSet set;
    uint32_t wg[3];
    uint32_t groups[3];
    uint32_t grid[3];
    const char *kernel;         /* static string from the op file */
    int op_index;
    uint64_t tune_key;          /* the tuning file's key (tune.c) */
    int tunable;                /* the work group is free to change (not a reduction's) */
    int from_file;              /* the work group came from the tuning file */
    uint32_t table_wg[3], table_groups[3];   /* before tuning moved it */
    VkPipeline table_pipeline;
} vki_step;

typedef struct vki_pipeline_entry {
    uint64_t key;
    VkPipeline pipeline;
} vki_pipeline_entry;

/* A compiled kernel; the work group is a specialization constant, so every size of one
 * (kernel, defines, precision) shares it. Kept only while the graph is built. */
typedef struct vki_module_entry {
    uint64_t key;
    VkShaderModule module;
} vki_module_entry;

typedef struct vki_graph_io {
    vki_buffer staging;
    size_t elements;
} vki_graph_io;

struct vki_graph {
    vki_context *ctx;
    vki_model *model_io;            /* the model's I/O tensors only: names and shapes */
    int fp16;                       /* an fp16 precision: storage per tensor_half */
    int fp16_arith;                 /* fp16 ops compute in float16 (shaderFloat16) */
    unsigned char *tensor_half;     /* per tensor: stored as float16 */
    vki_precision_report precision;
    vki_tuning_report tuning;
    uint64_t spin_ns;               /* poll the fence this long before sleeping on it */
    vki_graph_io *io;               /* inputs, then outputs */
    vki_buffer weights, arena;
    uint64_t *tensor_offset;        /* byte offset of each tensor's storage in the arena */
    unsigned char *tensor_used;
    vki_memory_report memory;
    VkDescriptorSetLayout set_layouts[VKI_MAX_BINDINGS + 1];
    VkPipelineLayout pipe_layouts[VKI_MAX_BINDINGS + 1];
    vki_pipeline_entry *pipelines;
    int n_pipelines, cap_pipelines;
    vki_module_entry *modules;
    int n_modules, cap_modules;
    VkDescriptorPool descriptor_pool;
    vki_step *steps;
    int n_steps;
    VkCommandPool command_pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool timestamps;         /* n_steps + 1 queries when profiling, else null */
    double *step_ms;
};

#endif
