/* recorder.h: the record and run stages (internal). A recording is the graph's ONE command
 * buffer: a list of steps (pipeline, descriptor set, group counts) recorded once, with
 * timestamps when profiling, submitted and waited on per run. The submitter under it is the
 * one create-pool / record / submit / wait helper for all device work: uploads and tuning
 * timings go through it too. */
#ifndef VKI_RECORDER_H
#define VKI_RECORDER_H

#include "gpu.h"

/* Records commands into cmd (between begin and end, which the submitter makes). */
typedef void (*vki_record_fn)(void *user, const vki_context *ctx, VkCommandBuffer cmd);

typedef struct vki_submitter {
    vki_context *ctx;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    uint64_t spin_ns;            /* poll the fence this long before sleeping on it */
    uint64_t timeout_ns;         /* then give up with VKI_ERROR_TIMEOUT */
    int pending;                 /* submitted and not yet seen finished */
} vki_submitter;

vki_status vki_submitter_open(vki_context *ctx, uint64_t spin_ns, uint64_t timeout_ns,
                              vki_submitter *s);
/* Resets the pool and records fn's commands; one_time marks a buffer submitted once. */
vki_status vki_submitter_record(vki_submitter *s, vki_record_fn fn, void *user, int one_time);
/* Submits what was recorded (holding the context's queue lock) without waiting. */
vki_status vki_submitter_start(vki_submitter *s, const char *what);
/* Waits up to timeout_ns for the last submit (0: just looks); VKI_ERROR_TIMEOUT leaves it
 * pending. */
vki_status vki_submitter_wait(vki_submitter *s, uint64_t timeout_ns, const char *what);
/* Start, then wait up to the submitter's timeout; `what` names the work in messages. */
vki_status vki_submitter_submit(vki_submitter *s, const char *what);
/* Waits (bounded) for pending work before what it uses is freed. */
void vki_submitter_drain(vki_submitter *s);
void vki_submitter_close(vki_submitter *s);
/* Open, record, submit, wait, close: one-off work (weights upload). */
vki_status vki_submit_once(vki_context *ctx, vki_record_fn fn, void *user, const char *what);

typedef struct vki_step {
    VkPipeline pipeline;
    VkPipelineLayout layout;
    VkDescriptorSet set;
    uint32_t wg[3];
    uint32_t groups[3];
    uint32_t grid[3];            /* threads; groups = ceil(grid / wg) */
    const char *kernel;          /* static string from the op file */
    char variant[32];            /* vki_dispatch.variant */
    int op_index;                /* the file's op number; -1 for the I/O conversions */
} vki_step;

typedef struct vki_recording {
    vki_context *ctx;
    vki_step *steps;
    int n_steps;
    VkDescriptorPool descriptors;
    vki_submitter sub;
    VkQueryPool timestamps;      /* n_steps + 1 queries when profiling, else null */
    double *step_ms;
    /* Extra commands before the first and after the last step (guard bytes). */
    vki_record_fn prologue, epilogue;
    void *hook_user;
} vki_recording;

/* Room for n_steps steps binding n_bindings buffers in all. */
vki_status vki_recording_open(vki_context *ctx, int n_steps, uint32_t n_bindings, int profile,
                              uint64_t spin_ns, uint64_t timeout_ns, vki_recording *r);
/* Allocates step k's descriptor set and writes its n buffers. */
vki_status vki_recording_bind(vki_recording *r, int k, VkDescriptorSetLayout layout, int n,
                              const VkDescriptorBufferInfo *buffers);
/* Groups per axis for wg over grid; 0 when wg or the group count exceeds a device limit. */
int vki_recording_fits(const vki_context *ctx, const uint32_t grid[3], const uint32_t wg[3],
                       uint32_t groups[3]);
/* (Re)records the command buffer from the steps. */
vki_status vki_recording_record(vki_recording *r);
/* A run: start submits the command buffer; finish waits up to timeout_ns (0: just looks)
 * and reads the timestamps when profiling. */
vki_status vki_recording_start(vki_recording *r);
vki_status vki_recording_finish(vki_recording *r, uint64_t timeout_ns);
/* Start and finish within the submitter's timeout (tuning's whole-graph timings). */
vki_status vki_recording_submit(vki_recording *r);
void vki_recording_close(vki_recording *r);

#endif
