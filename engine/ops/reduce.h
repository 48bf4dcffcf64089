/* reduce.h: the general reductions of reduce.c, which MEAN (mean.c) also uses for the axis
 * sets its global-pool kernel does not cover. */
#ifndef VKI_REDUCE_H
#define VKI_REDUCE_H

#include "ops.h"

vki_status vki_reduce_validate(const vki_model *m, int o);
vki_status vki_reduce_build(vki_build *b, const vki_model *m, int o);
void vki_reduce_reference(const vki_model *m, const vki_op *op, const float *const *in,
                          float *const *out);

#endif /* VKI_REDUCE_H */
