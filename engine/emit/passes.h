/* passes.h: graph rewrites made at build time on a private copy of the op list. The
 * model itself is never changed, so op indices in messages and the C reference run
 * always refer to the model as loaded. */
#ifndef VKI_PASSES_H
#define VKI_PASSES_H

#include "../../tuner/workgroup.h"
#include "env.h"
#include "model.h"

/* Runs the passes whose VKI_PASS_* bit is set in `passes`, in VKI_PASS_LIST's order (gate
 * before dw_pw, whose pairs it changes; block after it, taking its pairs in), on
 * `view` (a model whose ops are the builder's private copy); skip[o] is set for every op
 * that no longer needs a dispatch, and *fired gets the bits of the passes that changed
 * something. env: the VKI_* variables as the graph read them (VKI_ENV_COUNT of them, NULL
 * where unset; the passes read VKI_DWPW and VKI_BLOCK). Returns the number of ops folded
 * away. */
int vki_passes_run(vki_model *view, unsigned char *skip, const vki_wg_device *dev,
                   unsigned passes, const char *const *env, unsigned *fired);

/* Whether a dispatched op writes graph output `io` in its dense layout (the output-layout
 * pass), so that the output needs no conversion dispatch. */
int vki_output_is_dense(const vki_model *view, const unsigned char *skip, int io);

/* Folds RELU / RELU6 / RELU_N1_TO_1 / TANH ops into the fused activation of the op that
 * produces their input, when that op has none and nothing else reads the tensor. In
 * `ops` (a copy of m->ops) the producer takes over the activation's output; skip[i] is
 * set for every op that no longer needs a dispatch. Returns the number of ops fused. */
int vki_fuse_activations(const vki_model *m, vki_op *ops, unsigned char *skip);

#endif
