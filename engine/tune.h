/* tune.h: work-group sizes from the tuning file and from local search on the device
 * (internal). tuner/ holds the pure parts (the search, the file); this is the Vulkan side:
 * keys, timing one dispatch with timestamps, and applying the result to the steps. */
#ifndef VKI_TUNE_H
#define VKI_TUNE_H

#include "../tuner/store.h"
#include "graph.h"

/* Makes (or finds) the pipeline of step k with work group wg. */
typedef vki_status (*vki_tune_pipeline)(void *user, int step, const uint32_t wg[3], VkPipeline *out);

/* The tuning file's key of a dispatch: device, driver, kernel, #defines, precision, grid. */
uint64_t vki_tune_key(const vki_context *ctx, const char *kernel, const char *defines,
                      size_t defines_len, const char *precision, const uint32_t grid[3]);

/* Groups per axis for wg over grid; 0 when wg or the group count exceeds a device limit. */
int vki_tune_fits(const vki_context *ctx, const uint32_t grid[3], const uint32_t wg[3],
                  uint32_t groups[3]);

/* Runs the local search on every tunable step not taken from the file, sets its size,
 * groups and pipeline, and puts the result in the store. */
vki_status vki_tune_search(vki_graph *g, vki_wg_store *store, vki_tune_pipeline make, void *user);

/* Times the whole graph (median of 15 runs after 3) with the tuned sizes and with the
 * table's; keeps the tuned ones only if faster, else restores the table's, re-records
 * and puts them in the store. Inputs are zeroed first. */
vki_status vki_tune_check_graph(vki_graph *g, vki_wg_store *store, vki_status (*rerecord)(vki_graph *));

#endif
