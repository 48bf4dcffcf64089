/* slice.c: placeholder until the op lands. */
#include "ops.h"
static vki_status validate(const vki_model *m, int o) {
    return vki_op_fail(m, o, VKI_ERROR_UNSUPPORTED_OP, "not implemented yet");
}
static vki_status build(vki_build *b, const vki_model *m, int o) { (void)b; return validate(m, o); }
static void reference(const vki_model *m, const vki_op *op, const float *const *in, float *const *out) {
    (void)m; (void)op; (void)in; (void)out;
}
const vki_op_def vki_op_strided_slice = {VKI_OP_STRIDED_SLICE, validate, build, reference, NULL};
const vki_op_def vki_op_slice = {VKI_OP_SLICE, validate, build, reference, NULL};
