/* memory.h: the plan stage (internal): lifetimes of the storages the dispatches bind, the
 * planner's layout of them in one arena, the device copies of the graph's inputs and
 * outputs after it, the weights uploaded in each op's precision, the host-visible staging
 * buffers, and (debugging) guard bytes after every storage. */
#ifndef VKI_MEMORY_H
#define VKI_MEMORY_H

#include "../../planner/planner.h"
#include "builder.h"
#include "gpu.h"

/* The storages the planner places: every storage root a dispatch binds, in dispatch steps,
 * except the graph's input and output tensors, which live through the whole run. */
typedef struct vki_lifetimes {
    vki_plan_tensor *records;
    int n;
    int *record_of;              /* per tensor (storage roots only): record index or -1 */
    uint64_t *root_bytes;        /* per tensor: bytes its storage needs, 0 if unused */
    unsigned char *is_io;        /* per tensor: storage root of a graph input or output */
} vki_lifetimes;

/* guard_bytes > 0 adds that many bytes after each storage and keeps every storage live
 * for the whole run, so that no other tensor ever shares its guard. */
vki_status vki_lifetimes_collect(const vki_build *b, uint64_t guard_bytes, vki_lifetimes *l);
void vki_lifetimes_free(vki_lifetimes *l);

/* Offsets in the arena are multiples of this (minStorageBufferOffsetAlignment, >= 16). */
uint64_t vki_arena_alignment(const vki_context *ctx);
vki_plan_strategy vki_plan_strategy_of(vki_memory_strategy s);

typedef struct vki_guard {
    uint64_t offset;             /* in the arena */
    char what[160];              /* "tensor 12 'x' (written by op 5 CONV_2D)" */
} vki_guard;

typedef struct vki_memory {
    vki_buffer weights, arena;
    vki_buffer *staging;         /* inputs, then outputs; an input's is null while frames
                                    feed it (image_input.c) */
    size_t *elements;            /* floats per staging buffer */
    int n_inputs, n_outputs;
    uint64_t *tensor_offset;     /* byte offset of each tensor's storage in the arena */
    uint64_t *blob_offset;       /* byte offset of each weights blob */
    vki_guard *guards;
    int n_guards, cap_guards;
    vki_buffer guard_readback;   /* the guards as the last run left them */
    vki_memory_report report;
} vki_memory;

/* Plans, allocates and uploads everything the build's dispatches bind. */
vki_status vki_memory_create(vki_context *ctx, const vki_build *b, const vki_graph_config *cfg,
                             vki_memory *out);
void vki_memory_destroy(vki_context *ctx, vki_memory *mem);

/* The buffer range a binding of the build refers to. */
VkDescriptorBufferInfo vki_memory_binding(const vki_memory *mem, const vki_build *b,
                                          const vki_binding *bd);
/* Zeroes the input staging buffers (tuning times runs on defined data). */
void vki_memory_clear_inputs(vki_context *ctx, vki_memory *mem);
/* An input fed from frames reads no floats: release gives its staging buffer back (and
 * takes it off the report); restore makes it again, zeroed, if it was given back. The
 * caller rebinds what bound the old buffer. */
void vki_memory_release_input(vki_context *ctx, vki_memory *mem, int i);
vki_status vki_memory_restore_input(vki_context *ctx, vki_memory *mem, int i);

/* Guard bytes: commands that copy every guard to the readback buffer after a run, and the
 * check of what they copied; VKI_ERROR_INTERNAL names the first guard overwritten. */
void vki_memory_record_guard_copy(void *mem, const vki_context *ctx, VkCommandBuffer cmd);
vki_status vki_memory_check_guards(vki_context *ctx, const vki_memory *mem, const char *model);
/* For the tests of the checker: overwrites guard i as a kernel writing past its tensor would. */
vki_status vki_memory_spoil_guard(vki_context *ctx, vki_memory *mem, int i);

#endif
