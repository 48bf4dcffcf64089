/* graph.h: a built graph (internal): what the stages made and a run needs. */
#ifndef VKI_GRAPH_H
#define VKI_GRAPH_H

#include "memory.h"
#include "model.h"
#include "recorder.h"

/* One thread at a time: every call on a graph takes `busy` for its length (vki_graph_enter)
 * and fails, rather than races, when another thread has it. */
struct vki_graph {
    vki_context *ctx;
    atomic_int busy;
    int pending;                 /* submitted, not yet waited for */
    vki_model *model_io;         /* the model's I/O tensors only: names and shapes */
    vki_memory mem;
    vki_recording rec;
    vki_precision_report precision;
    vki_tuning_report tuning;
    struct vki_image_inputs *images;   /* camera frames into inputs (image_input.c) */
};

/* Takes the graph for a call named `call`: VKI_ERROR_INVALID_ARGUMENT when it is NULL or
 * another thread is in a call on it, VKI_ERROR_DEVICE_LOST once the context's device is
 * lost. On success the caller must vki_graph_leave. */
vki_status vki_graph_enter(vki_graph *g, const char *call);
void vki_graph_leave(vki_graph *g);

#endif
