/* graph.h: a built graph (internal): what the stages made and a run needs. */
#ifndef VKI_GRAPH_H
#define VKI_GRAPH_H

#include "memory.h"
#include "model.h"
#include "recorder.h"

struct vki_graph {
    vki_context *ctx;
    vki_model *model_io;         /* the model's I/O tensors only: names and shapes */
    vki_memory mem;
    vki_recording rec;
    vki_precision_report precision;
    vki_tuning_report tuning;
    struct vki_image_inputs *images;   /* camera frames into inputs (image_input.c) */
};

#endif
