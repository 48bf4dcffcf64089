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

#endif /* VKI_REDUCE_H */
