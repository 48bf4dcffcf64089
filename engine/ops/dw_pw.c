/* dw_pw.c: a DEPTHWISE_CONV_2D and the 1x1 CONV_2D that reads it, in one dispatch
 * (glsl/dw_pw.comp): the pass that picks the pairs and the pair's build. */
#include "conv_common.h"

int vki_fuse_dw_pw(const vki_model *m, vki_op *ops, unsigned char *skip,
                   const vki_wg_device *dev) {
    (void)m; (void)ops; (void)skip; (void)dev;
    return 0;
}

vki_status vki_build_dw_pw(vki_build *b, const vki_model *m, int dw_op, int pw_op) {
    (void)b; (void)pw_op;
    return vki_op_fail(m, dw_op, VKI_ERROR_INTERNAL, "depthwise + pointwise fusion is not built");
}
