/* greedy_by_breadth.c: GREEDY_BY_BREADTH shared objects (TFLite GPU): a step's breadth is the
 * sum of the sizes live at it; the widest steps are settled first, each step's tensors largest
 * first, each into the best-sized existing object whose tensors it never meets, else into a new
 * object.
 *
 * Only steps where some tensor starts are visited: the live set at any other step is a subset
 * of the live set at the last start before it, so it would come later in the order and find all
 * its tensors placed. With m such steps and E = the sum of the tensors' spans over them,
 * O(E + n*m + n^2) time and O(n + m) memory. */
#include "internal.h"

#include <stdlib.h>

typedef struct step_breadth {
    uint64_t breadth;
    int step;   /* index into the distinct start steps */
} step_breadth;

static int by_breadth_desc(const void *pa, const void *pb) {
    const step_breadth *a = pa, *b = pb;
    if (a->breadth != b->breadth) return a->breadth > b->breadth ? -1 : 1;
    return a->step - b->step;
}

typedef struct live_tensor {
    uint64_t size;
    int first, index;
} live_tensor;

static int by_size_desc(const void *pa, const void *pb) {
    const live_tensor *a = pa, *b = pb;
    if (a->size != b->size) return a->size > b->size ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->index - b->index;
}


int vki_plan_greedy_by_breadth(const vki_plan_tensor *t, int n, int *object_of, int *n_objects) {
    *n_objects = 0;
    if (n == 0) return VKI_PLAN_OK;
    size_t count = (size_t)n;
    int *starts = malloc(sizeof *starts * count);
    step_breadth *steps = malloc(sizeof *steps * count);
    live_tensor *live = malloc(sizeof *live * count);
    uint64_t *object_size = malloc(sizeof *object_size * count);
    int *first_member = malloc(sizeof *first_member * count);   /* per object */
    int *next_member = malloc(sizeof *next_member * count);     /* per tensor */
    int rc = VKI_PLAN_ENOMEM;
    if (!starts || !steps || !live || !object_size || !first_member || !next_member) goto done;

    for (int i = 0; i < n; i++) starts[i] = t[i].first;
    qsort(starts, count, sizeof *starts, vki_plan_by_int);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || starts[i] != starts[m - 1]) starts[m++] = starts[i];
    for (int s = 0; s < m; s++) steps[s] = (step_breadth){0, s};
    for (int i = 0; i < n; i++) {
        int lo = vki_plan_last_at_or_below(starts, m, t[i].first);
        int hi = vki_plan_last_at_or_below(starts, m, t[i].last);
        for (int s = lo; s <= hi; s++)   /* saturating: breadth only orders the steps */
            steps[s].breadth = t[i].size > UINT64_MAX - steps[s].breadth ? UINT64_MAX
                                                                         : steps[s].breadth + t[i].size;
    }
    qsort(steps, (size_t)m, sizeof *steps, by_breadth_desc);

    for (int i = 0; i < n; i++) object_of[i] = -1;
    int n_obj = 0, unassigned = n;
    for (int v = 0; v < m && unassigned; v++) {
        int at = starts[steps[v].step], n_live = 0;
        for (int i = 0; i < n; i++)
            if (object_of[i] < 0 && t[i].first <= at && at <= t[i].last)
                live[n_live++] = (live_tensor){t[i].size, t[i].first, i};
        qsort(live, (size_t)n_live, sizeof *live, by_size_desc);
        for (int l = 0; l < n_live; l++) {
            int x = live[l].index;
            uint64_t size = t[x].size;
            int best = -1;
            for (int obj = 0; obj < n_obj; obj++) {
                /* Size first (cheap): the smallest object that fits, else the largest one. */
                if (best >= 0) {
                    uint64_t best_size = object_size[best], cur = object_size[obj];
                    if (best_size < size ? cur <= best_size : (cur < size || cur >= best_size))
                        continue;
                }
                int clash = 0;
                for (int y = first_member[obj]; y >= 0 && !clash; y = next_member[y])
                    clash = vki_plan_lifetimes_overlap(&t[x], &t[y]);
                if (!clash) best = obj;
            }
            if (best < 0) {
                best = n_obj++;
                object_size[best] = 0;
                first_member[best] = -1;
            }
            if (size > object_size[best]) object_size[best] = size;
            object_of[x] = best;
            next_member[x] = first_member[best];
            first_member[best] = x;
            unassigned--;
        }
    }
    *n_objects = n_obj;
    rc = VKI_PLAN_OK;
done:
    free(starts);
    free(steps);
    free(live);
    free(object_size);
    free(first_member);
    free(next_member);
    return rc;
}
