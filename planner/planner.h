/* planner.h: places intermediate tensors in device memory (pure C, no Vulkan).
 * Input: each tensor's byte size and lifetime [first, last] in execution steps.
 * Output: a byte offset per tensor in one arena, and the arena's size. */
#ifndef VKI_PLANNER_H
#define VKI_PLANNER_H

#include <stdint.h>

typedef struct vki_plan_tensor {
    uint64_t size;
    int first, last;            /* inclusive steps during which the tensor is live */
} vki_plan_tensor;

typedef enum vki_plan_strategy {
    VKI_PLAN_NAIVE = 0,         /* every tensor its own bytes: the baseline */
    VKI_PLAN_ARENA,             /* TFLite's arena: largest first, lowest gap that fits */
} vki_plan_strategy;

/* Fills offsets[n] (each a multiple of alignment) and *total. Returns 0 on success,
 * -1 if host memory ran out. */
int vki_plan_offsets(const vki_plan_tensor *tensors, int n, uint64_t alignment,
                     vki_plan_strategy strategy, uint64_t *offsets, uint64_t *total);

/* The largest sum of sizes of tensors live at one step: no plan can be smaller. */
uint64_t vki_plan_lower_bound(const vki_plan_tensor *tensors, int n);

#endif
