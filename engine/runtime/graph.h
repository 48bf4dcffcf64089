/* graph.h: a built graph (internal): what the stages made and a run needs. */
#ifndef VKI_GRAPH_H
#define VKI_GRAPH_H

#include "kernels.h"
#include "memory.h"
#include "model.h"
#include "recorder.h"

/* What a step's pipeline is made from, kept past the build so that tuning runs can time
 * a step with other work groups (vki_graph_time_dispatch): the kernel, its #defines and
 * precision #defines in one allocation (text), the table's class and its fitted size; and
 * the floating-point operations of its op (vki_op_flops; 0 on all but an op's last
 * dispatch), for vki_graph_dispatch_flops. */
typedef struct vki_step_kernel {
    vki_kernel_variant v;
    char *text;
    vki_wg_class cls;
    uint32_t table_wg[3];
    double flops;
} vki_step_kernel;

/* One thread at a time: every call on a graph takes `busy` for its length (vki_graph_enter)
 * and fails, rather than races, when another thread has it. */
struct vki_graph {
    vki_context *ctx;
    atomic_int busy;
    int pending;                 /* submitted, not yet waited for */
    double submitted_ms, last_ms;   /* the last run's submission and host wall time */
    vki_model *model_io;         /* the model's I/O tensors only: names and shapes */
    vki_memory mem;
    vki_recording rec;
    vki_precision_report precision;
    vki_tuning_report tuning;
    unsigned passes_fired;       /* VKI_PASS_* bits of the passes that changed the graph */
    int warm_up;                 /* vki_graph_options.warm_up: also after a new image kernel */
    struct vki_image_inputs *images;   /* camera frames into inputs (image_input.c) */
    vki_step_kernel *kernels;   /* per step: its kernel variant, for timing other sizes */
    /* A model with CPU ops: its segments (partition.c), which every call goes to; then the
     * fields above hold only the reports, summed over the GPU segments. NULL: one GPU graph. */
    struct vki_partition *part;
};

/* Takes the graph for a call named `call`: VKI_ERROR_INVALID_ARGUMENT when it is NULL or
 * another thread is in a call on it, VKI_ERROR_DEVICE_LOST once the context's device is
 * lost. On success the caller must vki_graph_leave. */
vki_status vki_graph_enter(vki_graph *g, const char *call);
/* One run of the recording, waited for with the warm-up's long limit, so that what a driver
 * compiles at a kernel's first dispatch is done now; clear_inputs zeroes the float inputs
 * first (at creation, where none was set). */
vki_status vki_graph_warm_up(vki_graph *g, int clear_inputs);
void vki_graph_leave(vki_graph *g);

/* The VKI_PASS_* bits of the passes that changed this graph (for the tests' coverage
 * tables; NULL gives 0). */
unsigned vki_graph_passes_fired(const vki_graph *g);

/* Step k's pipeline with work group wg; user is the graph (a vki_make_pipeline). */
vki_status vki_graph_pipeline_of(void *user, int k, const uint32_t wg[3], VkPipeline *out);

#endif
