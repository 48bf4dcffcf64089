/* partition.h: graphs with CPU ops: GPU segments (each a graph of its own, one recorded
 * command buffer) and CPU ops between them (partition.c). Internal. */
#ifndef VKI_PARTITION_H
#define VKI_PARTITION_H

#include "graph.h"
#include "options.h"

typedef struct vki_partition vki_partition;
/* Variables and CALL_ONCE state a graph shares with its subgraphs' graphs (partition.c). */
typedef struct vki_runtime vki_runtime;

/* vki_graph_create with the runtime of the graph it is a subgraph or segment of (NULL: a
 * graph of its own). */
vki_status vki_graph_create_in(vki_context *ctx, const vki_model *model,
                               const vki_graph_options *options, vki_runtime *rt, vki_graph **out);

/* The file index of the first op of m that runs on the CPU, or -1 where every op has a
 * kernel: then the graph is built whole, as one segment. */
int vki_partition_first_cpu_op(const vki_model *m);

/* Splits m into segments and builds each GPU segment with `options` (vki_graph_create on
 * the segment's own model), and the graphs of the subgraphs its control-flow ops run; g->part,
 * g's reports (memory, tuning, precision) and passes are set. cfg->gpu_only refuses the
 * model, naming its first CPU op. rt: the runtime to share, NULL for a graph of its own. */
vki_status vki_partition_create(vki_graph *g, const vki_model *m, const vki_graph_options *options,
                                const vki_graph_config *cfg, vki_runtime *rt);
/* Forgets every variable's value and arms CALL_ONCE again (the graph the app made only). */
void vki_partition_reset(vki_partition *p);
void vki_partition_destroy(vki_partition *p);

/* Input or output `index`'s dense float32 values, where the app reads or writes them. */
float *vki_partition_io(vki_partition *p, int is_input, int index);
size_t vki_partition_io_elements(const vki_partition *p, int is_input, int index);

/* A run: submit runs the segments up to the first GPU one still to wait for and submits
 * it; wait waits for it (at most timeout_ns, or with own_timeouts the segment's own run
 * timeout), then runs every later segment to the end, waiting for their GPU segments with
 * each one's own run timeout. */
vki_status vki_partition_submit(vki_partition *p);
vki_status vki_partition_wait(vki_partition *p, uint64_t timeout_ns, int own_timeouts);
/* Whether a run is submitted and not yet waited for. */
int vki_partition_pending(const vki_partition *p);

/* The GPU segments' dispatches as one list, in segment order: dispatch `index` is
 * dispatch *local of segment graph *sub. False when index is out of range. */
int vki_partition_dispatch_count(const vki_partition *p);
int vki_partition_locate(const vki_partition *p, int index, vki_graph **sub, int *local);
/* The profile: the GPU segments' dispatches and one entry per CPU op (kernel "cpu"). */
int vki_partition_profile(const vki_partition *p, vki_dispatch_profile *out, int max);
int vki_partition_segment_count(const vki_partition *p);
vki_status vki_partition_segment_info(const vki_partition *p, int index, vki_segment_info *out);
/* The GPU segments' graphs (for exporting their work groups). */
int vki_partition_graphs(const vki_partition *p, vki_graph **out, int max);
/* The memory the GPU segments hold now (frame buffers come and grow after the build);
 * built: the report summed at the build, for its strategy. */
void vki_partition_memory(const vki_partition *p, const vki_memory_report *built,
                          vki_memory_report *out);
/* Camera frames go to the GPU segment that alone reads input `index`; input_floats puts
 * that segment's input back on floats (vki_graph_set_input, vki_graph_input_pointer). */
vki_status vki_partition_input_floats(vki_partition *p, int index);
vki_status vki_partition_set_input_image(vki_partition *p, int index, const vki_image *image,
                                         const vki_image_transform *transform);

#endif
