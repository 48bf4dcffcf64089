/* order.h: the order stage of memory planning (pure C11, libc only, no Vulkan): among the
 * orders of a graph's steps (dispatches) that keep every storage's reads and writes in
 * their stored order, one whose peak of live bytes is lower than the stored order's.
 *
 * A storage is live from its first access to its last; the peak of an order is the largest
 * sum of sizes live at one step, which is the lower bound the offset planner then meets. A
 * step may also write a storage `out` over a storage `in` (in place) when it is in's last
 * access and out's first: out then costs nothing at that step, and the engine lays the two
 * in one storage. Everything here is reentrant: no static mutable state. */
#ifndef VKI_ORDER_H
#define VKI_ORDER_H

#include <stdint.h>

typedef struct vki_order_access {
    int step, storage;
    int writes;                  /* nonzero: the step writes (or may write) the storage */
} vki_order_access;

typedef struct vki_order_reuse {
    int step, in, out;           /* step may write storage out over storage in */
} vki_order_reuse;

typedef struct vki_order_problem {
    int n_steps, n_storages;
    const uint64_t *size;        /* bytes per storage; 0 for one that is not planned */
    const vki_order_access *access;
    int n_access;                /* any order; a step's accesses to one storage merge */
    const vki_order_reuse *reuse;
    int n_reuse;                 /* in and out of equal size only */
} vki_order_problem;

typedef struct vki_order_options {
    /* Work budget, in bitset word operations: the search keeps every distinct set of done
     * steps (exact) while that fits, else the best sets per depth (a beam); past the
     * budget, the stored order. 0 = default (3e7: tens of ms at most). */
    double work_budget;
} vki_order_options;

typedef struct vki_order_result {
    uint64_t stored_peak;        /* the peak of the stored order 0, 1, ..., n-1 */
    uint64_t peak;               /* the peak of the order returned */
    int exact;                   /* 1: no order has a lower peak than `peak` */
    int changed;                 /* 1: order differs from the stored one */
} vki_order_result;

/* Fills order[n_steps] with the steps in an order that keeps every storage's accesses in
 * stored order, writes before later reads, reads before later writes, and has a peak lower
 * than the stored order's; where none is found (or none exists), the stored order. Returns 0,
 * or -1 on bad arguments or when host memory ran out (order then holds the stored order). */
int vki_order_make(const vki_order_problem *p, const vki_order_options *o, int *order,
                   vki_order_result *out);

/* The peak of live bytes of the steps run in order[n_steps] (in place counted as above);
 * UINT64_MAX on bad arguments. */
uint64_t vki_order_peak(const vki_order_problem *p, const int *order);

#endif
