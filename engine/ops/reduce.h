/* reduce.h: the general reductions of reduce.c, which MEAN (mean.c) also uses for the axis
 * sets its global-pool kernel does not cover; and the lanes of that global-pool kernel
 * (glsl/reduce.comp), which MEAN and the global pools (pool.c) share. */
#ifndef VKI_REDUCE_H
#define VKI_REDUCE_H

#include "ops.h"

vki_status vki_reduce_validate(const vki_model *m, int o);
vki_status vki_reduce_build(vki_build *b, const vki_model *m, int o);
void vki_reduce_reference(const vki_model *m, const vki_op *op, const float *const *in,
                          float *const *out);

/* Sets d's lanes per channel slice (grid x) for reduce.comp summing `cells` cells a slice:
 * on GPUs a fixed work group of that many lanes; on CPU devices one SIMD vector, the work
 * group left to the table. */
void vki_reduce_lanes(const vki_build *b, long cells, vki_dispatch *d);

/* Whether MEAN op is the global-pool form: a float [1,H,W,C] activation averaged over
 * exactly H and W (mean.c). */
bool vki_mean_spatial(const vki_model *m, const vki_op *op);
/* The cells a pool with a 1x1 output reads of its input: the top-left w x h corner (its one
 * window, clipped to the input), and the count an average pool divides by (pool.c). */
void vki_pool_global_window(const vki_pool_options *p, vki_shape4 in, int *w, int *h);

/* ---- a squeeze-excite block's squeeze in one dispatch (squeeze.c) ---------------------- */

/* Whether the kernel fits dev and pays there for global mean op `mean` (its input's
 * channels and window) with a middle layer of mid_c channels and an output of out_c: the
 * pass's test; the build plans the same. */
bool vki_squeeze_fits(const vki_wg_device *dev, const vki_model *m, const vki_op *mean,
                      int mid_c, int out_c);
/* Emits the one dispatch of global pool op o (AVERAGE_POOL_2D or MEAN) and the two 1x1
 * CONV_2Ds the squeeze pass folded into it (op->fused.squeeze, .excite). */
vki_status vki_build_squeeze(vki_build *b, const vki_model *m, int o);

#endif /* VKI_REDUCE_H */
