/* harness.h: runs a hand-built model on the device and on the C references, and compares
 * every element. Used by every op suite. */
#ifndef VKI_TEST_HARNESS_H
#define VKI_TEST_HARNESS_H

#include "model.h"
#include "ops/ops.h"
#include "vkinfer.h"

#include <stdint.h>

/* Deterministic values in [lo, hi). */
void harness_fill(float *v, size_t n, uint32_t seed, float lo, float hi);

/* Adds an activation / constant tensor of NHWC shape {1,h,w,c} (rank 4). */
int harness_tensor(vki_model *m, int h, int w, int c);
int harness_const(vki_model *m, int rank, const int *shape, uint32_t seed, float lo, float hi);

/* Builds the graph, feeds seeded random inputs, runs it, runs the reference, and asserts
 * max|gpu - ref| <= tol * max(max|ref|, 1) for every output. Then does the same for the
 * fp16 graph (where the device has fp16 storage) within max(tol, HARNESS_FP16_TOLERANCE).
 * Returns the worst fp32 relative error. Consumes the model. */
#define HARNESS_FP16_TOLERANCE 1e-2
double harness_check(vki_model *m, uint32_t seed, double tol);
/* The same with the fp16 bound given; a negative fp16_tol skips the fp16 graph. */
double harness_check_precisions(vki_model *m, uint32_t seed, double tol, double fp16_tol);

/* The conformance metric: max|a - b| / max(max|b|, 1); NaN counts as infinitely far.
 * *at (if not NULL) gets the index of the largest difference. */
double harness_relative_error(const float *a, const float *b, size_t n, size_t *at);

/* The shared context (created on first use, VKI_DEVICE respected). */
vki_context *harness_context(void);

#endif
