/* builder.h: the emit stage (internal). The passes rewrite a private copy of the op list,
 * every op emits its dispatches and weights through the builder API of ops/ops.h, and the
 * precision of every op, tensor and weights blob is settled. What comes out is device-free:
 * the memory stage lays it out, the kernels stage compiles it. */
#ifndef VKI_BUILDER_H
#define VKI_BUILDER_H

#include "gpu.h"
#include "kernels.h"
#include "model.h"
#include "../ops/ops.h"
#include "options.h"

/* A weights blob: `count` 4-byte values at `offset` in the host array, stored on the
 * device as `half` says (a VKI_STORE_*): float16 when the op that made it is fp16, int32
 * (the host array holds their bits) for vki_build_weights_i32. */
typedef struct vki_blob {
    size_t offset, count;
    int half;
} vki_blob;

struct vki_build {
    const vki_model *m;         /* &view */
    vki_model view;             /* the model with the passes' private op list */
    const vki_graph_config *cfg;
    vki_wg_device device;
    vki_dispatch *dispatches;
    int n_dispatches, cap_dispatches;
    float *weights;             /* all blobs, each starting at a multiple of 4 floats */
    size_t weights_count, weights_cap;
    vki_blob *blobs;
    int n_blobs, cap_blobs;
    int *storage_of;            /* tensor -> tensor whose storage it uses (a root after emit) */
    int current_op;             /* op being built, -1 for I/O conversions */
    unsigned char *skip;        /* ops the passes made redundant */
    int *input_quantize;        /* per graph input: the QUANTIZE its conversion runs, or -1 */
    unsigned char *op_half;     /* per op: outputs and weights stored fp16 */
    unsigned char *tensor_half; /* per tensor: stored fp16 */
    vki_precision_report precision;
    unsigned passes_fired;      /* VKI_PASS_* bits of the passes that changed something */
    struct {
        uint64_t stored_peak, peak;  /* live-byte peaks of the stored and the chosen order */
        int exact, reordered;        /* the order search was exhaustive; it moved dispatches */
        int in_place;                /* dispatches writing over their input's storage */
    } schedule;
};

/* Runs the passes and lets every op emit; on failure the build is left safe to close. */
vki_status vki_build_open(vki_build *b, const vki_context *ctx, const vki_model *model,
                          const vki_graph_config *cfg);
void vki_build_close(vki_build *b);

/* The schedule stage (schedule.c): a memory-aware dispatch order (VKI_PASS_ORDER) and
 * in-place storage (VKI_PASS_IN_PLACE), after emit and before memory. */
vki_status vki_build_schedule(vki_build *b);

/* The tensor whose storage t uses, following aliases (and in-place merges) to the end. */
int vki_build_storage_root(const vki_build *b, int t);

/* The tensor graph input io's conversion (to_phwc4.comp, or image.comp for a camera frame)
 * writes: the input's own, or the int8 / uint8 output of the QUANTIZE it runs. */
int vki_build_input_target(const vki_build *b, int io);

/* Bytes of tensor t in PHWC4, in its storage precision. */
uint64_t vki_build_tensor_bytes(const vki_build *b, int t);
/* Bytes of weights blob i on the device. */
uint64_t vki_build_blob_bytes(const vki_build *b, int i);

/* What the kernels stage compiles for dispatch k; precision (cap bytes) receives the
 * precision #defines: each binding's storage type (common.glsl's STORE4_<binding>) and
 * whether the op computes in fp16. */
void vki_build_variant(const vki_build *b, int k, char *precision, size_t cap,
                       vki_kernel_variant *out);

#endif
