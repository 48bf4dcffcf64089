/* tune.h: the tuning stage's engine side (internal). Every dispatch's work group starts
 * from the family table (tuner/workgroup.c); the tuning file (tuner/store.c) replaces it
 * where it has a size that fits; local search (tuner/search.c) refines the rest on the
 * device when asked. It works on the recording alone: it times one step and the whole
 * command buffer through the recorder, and never sees the graph. */
#ifndef VKI_TUNE_H
#define VKI_TUNE_H

#include "../../tuner/store.h"
#include "../../tuner/workgroup.h"
#include "kernels.h"
#include "options.h"
#include "recorder.h"

/* Makes (or finds) step k's pipeline with work group wg. */
typedef vki_status (*vki_make_pipeline)(void *user, int step, const uint32_t wg[3], VkPipeline *out);

typedef struct vki_tuning {
    vki_context *ctx;
    const vki_graph_config *cfg;
    vki_wg_device device;
    vki_wg_store store;
    struct vki_tune_step *steps;
    int n_steps;
    vki_tuning_report report;
} vki_tuning;

/* Loads the configured tuning file, if any. */
vki_status vki_tuning_open(vki_tuning *t, vki_context *ctx, const vki_graph_config *cfg, int n_steps);
/* Step k's starting work group: table_wg (the table's for its class and grid, from
 * vki_wg_pick), or the file's. */
void vki_tuning_pick(vki_tuning *t, int k, const vki_kernel_variant *v, vki_wg_class cls,
                     const uint32_t grid[3], const uint32_t table_wg[3], uint32_t wg[3]);
/* With cfg->tune, searches every tunable step the file lacked; records the recording;
 * keeps the searched sizes only if the whole recording then runs faster; saves the file.
 * The recording's inputs should hold defined data (they are read by the timed runs). */
vki_status vki_tuning_finish(vki_tuning *t, vki_recording *rec, vki_make_pipeline make, void *user);
void vki_tuning_close(vki_tuning *t);

/* GPU ms per dispatch of rec's step k run alone with work group wg, as the search times
 * a candidate; *ms is -1 when that size cannot run on the device (too large, or its
 * pipeline fails). A status only for a failure that is not about the size. */
vki_status vki_tune_time(vki_recording *rec, int k, const uint32_t wg[3], vki_make_pipeline make,
                         void *user, double *ms);

/* The tuning file's key of a dispatch: device, driver, kernel, #defines, precision, grid. */
uint64_t vki_tune_key(const vki_context *ctx, const vki_kernel_variant *v, const uint32_t grid[3]);

#endif
