/* planner.c: the planner's public entry points: argument checks, NAIVE, laying shared
 * objects out back to back, BEST (with the search for a plan at the bound) and OPTIMAL's
 * incumbent, the plan checker, and the old vki_plan_offsets wrapper. The strategies and the
 * searches themselves live in their own modules. */
#include "internal.h"

#include "../tuner/stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_OPTIMAL_NODES 2000000LL
#define DEFAULT_OPTIMAL_MS 200.0

const char *vki_plan_strategy_name(vki_plan_strategy s) {
    switch (s) {
    case VKI_PLAN_NAIVE: return "naive";
    case VKI_PLAN_GREEDY_BY_SIZE: return "greedy_by_size";
    case VKI_PLAN_GREEDY_BY_BREADTH: return "greedy_by_breadth";
    case VKI_PLAN_MIN_COST_FLOW: return "min_cost_flow";
    case VKI_PLAN_ARENA: return "arena";
    case VKI_PLAN_OPTIMAL: return "optimal";
    case VKI_PLAN_BEST: return "best";
    default: return "unknown";
    }
}

static int is_object_strategy(vki_plan_strategy s) {
    return s == VKI_PLAN_NAIVE || s == VKI_PLAN_GREEDY_BY_SIZE || s == VKI_PLAN_GREEDY_BY_BREADTH ||
           s == VKI_PLAN_MIN_COST_FLOW;
}

/* ---- object layout -------------------------------------------------------------------------- */

/* Given object_of, fills the object sizes, lays the objects back to back (each aligned) and
 * points every tensor at its object's base. */
static int layout_objects(const vki_plan_tensor *t, int n, uint64_t align, vki_plan *p) {
    int n_obj = p->n_objects;
    p->object_size = calloc((size_t)(n_obj ? n_obj : 1), sizeof *p->object_size);
    uint64_t *base = malloc(sizeof *base * (size_t)(n_obj ? n_obj : 1));
    if (!p->object_size || !base) { free(base); return VKI_PLAN_ENOMEM; }
    for (int i = 0; i < n; i++)
        if (t[i].size > p->object_size[p->object_of[i]]) p->object_size[p->object_of[i]] = t[i].size;
    uint64_t at = 0;
    int overflow = 0;
    for (int k = 0; k < n_obj && !overflow; k++) {
        base[k] = at;
        uint64_t bytes = vki_plan_align_up(p->object_size[k], align, &overflow);
        if (bytes > UINT64_MAX - at) overflow = 1;
        at += bytes;
    }
    if (overflow) { free(base); return VKI_PLAN_EOVERFLOW; }
    for (int i = 0; i < n; i++) p->offsets[i] = base[p->object_of[i]];
    p->total = at;
    free(base);
    return VKI_PLAN_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------- */

typedef struct plan_settings {
    uint64_t align;
    long long optimal_nodes;
    double optimal_ms;
    long long bound_nodes;
    double bound_ms;
} plan_settings;

static void release_arrays(vki_plan *p) {
    free(p->offsets);
    free(p->object_of);
    free(p->object_size);
    p->offsets = NULL;
    p->object_of = NULL;
    p->object_size = NULL;
}

static int make_strategy(const vki_plan_tensor *t, int n, vki_plan_strategy s,
                         const plan_settings *set, vki_plan *p);

/* A plan's object count for tie-breaking: one arena counts as one object. */
static int allocations(const vki_plan *p) { return p->object_of ? p->n_objects : 1; }

/* The smallest fast plan; when it is above the aligned lower bound, the search for a plan at
 * the bound runs, and its plan wins if found. *bound_outcome says what is known of the bound:
 * VKI_PLAN_BOUND_REACHED when the plan is at it. */
static int make_best(const vki_plan_tensor *t, int n, const plan_settings *set, vki_plan *p,
                     int *bound_outcome) {
    /* ARENA first, so that on equal totals and counts it keeps the single arena. */
    static const vki_plan_strategy fast[] = {VKI_PLAN_ARENA, VKI_PLAN_GREEDY_BY_SIZE,
                                             VKI_PLAN_GREEDY_BY_BREADTH, VKI_PLAN_MIN_COST_FLOW};
    vki_plan best = {0};
    int have = 0, rc = VKI_PLAN_EOVERFLOW;
    for (size_t k = 0; k < sizeof fast / sizeof fast[0]; k++) {
        vki_plan cand = {0};
        cand.n_tensors = n;
        int r = make_strategy(t, n, fast[k], set, &cand);
        if (r == VKI_PLAN_ENOMEM) { release_arrays(&cand); release_arrays(&best); return r; }
        if (r) { release_arrays(&cand); continue; }
        cand.strategy = fast[k];
        if (!have || cand.total < best.total ||
            (cand.total == best.total && allocations(&cand) < allocations(&best))) {
            release_arrays(&best);
            best = cand;
            have = 1;
            rc = VKI_PLAN_OK;
        } else {
            release_arrays(&cand);
        }
    }
    if (!have) return rc;
    *bound_outcome = VKI_PLAN_BOUND_UNKNOWN;
    int overflow = 0;
    uint64_t bound = vki_plan_align_up(p->lower_bound, set->align, &overflow);
    if (!overflow && best.total <= bound) {
        *bound_outcome = VKI_PLAN_BOUND_REACHED;
    } else if (!overflow) {
        uint64_t *offsets = malloc(sizeof *offsets * (size_t)(n ? n : 1)), total = 0;
        if (!offsets) { release_arrays(&best); return VKI_PLAN_ENOMEM; }
        rc = vki_plan_bound_search(t, n, set->align, set->bound_nodes, set->bound_ms, offsets,
                                   &total, bound_outcome);
        if (rc) { free(offsets); release_arrays(&best); return rc; }
        if (*bound_outcome == VKI_PLAN_BOUND_REACHED) {
            release_arrays(&best);
            best = (vki_plan){.strategy = VKI_PLAN_OPTIMAL, .offsets = offsets, .total = total};
        } else {
            free(offsets);
        }
    }
    p->proven_optimal = *bound_outcome == VKI_PLAN_BOUND_REACHED;
    p->strategy = best.strategy;
    p->offsets = best.offsets;
    p->object_of = best.object_of;
    p->object_size = best.object_size;
    p->n_objects = best.n_objects;
    p->total = best.total;
    return VKI_PLAN_OK;
}

static int make_strategy(const vki_plan_tensor *t, int n, vki_plan_strategy s,
                         const plan_settings *set, vki_plan *p) {
    size_t count = (size_t)(n ? n : 1);
    int bound_outcome;
    if (s == VKI_PLAN_BEST) return make_best(t, n, set, p, &bound_outcome);
    p->strategy = s;
    if (s == VKI_PLAN_OPTIMAL) {
        /* BEST already searched for a plan at the bound. When it found none, start from its
         * plan, in offset form, and let the minimising search improve it; a bound proven
         * infeasible raises what the search needs to reach to call its plan optimal. */
        int rc = make_best(t, n, set, p, &bound_outcome);
        if (rc) return rc;
        p->strategy = VKI_PLAN_OPTIMAL;
        free(p->object_of);
        free(p->object_size);
        p->object_of = NULL;
        p->object_size = NULL;
        p->n_objects = 0;
        if (bound_outcome == VKI_PLAN_BOUND_REACHED) return VKI_PLAN_OK;
        int overflow = 0;
        uint64_t at_least = 0;
        if (bound_outcome == VKI_PLAN_BOUND_INFEASIBLE) {
            at_least = vki_plan_align_up(p->lower_bound, set->align, &overflow);
            at_least = overflow || at_least > UINT64_MAX - set->align ? 0 : at_least + set->align;
        }
        return vki_plan_optimal_search(t, n, set->align, at_least, set->optimal_nodes,
                                       set->optimal_ms, p->offsets, &p->total,
                                       &p->proven_optimal);
    }
    p->offsets = calloc(count, sizeof *p->offsets);
    if (!p->offsets) return VKI_PLAN_ENOMEM;
    if (s == VKI_PLAN_ARENA) return vki_plan_arena(t, n, set->align, p->offsets, &p->total);

    p->object_of = malloc(sizeof *p->object_of * count);
    if (!p->object_of) return VKI_PLAN_ENOMEM;
    int rc = VKI_PLAN_OK;
    switch (s) {
    case VKI_PLAN_NAIVE:
        for (int i = 0; i < n; i++) p->object_of[i] = i;
        p->n_objects = n;
        break;
    case VKI_PLAN_GREEDY_BY_SIZE: rc = vki_plan_greedy_by_size(t, n, p->object_of, &p->n_objects); break;
    case VKI_PLAN_GREEDY_BY_BREADTH:
        rc = vki_plan_greedy_by_breadth(t, n, p->object_of, &p->n_objects);
        break;
    case VKI_PLAN_MIN_COST_FLOW: rc = vki_plan_min_cost_flow(t, n, p->object_of, &p->n_objects); break;
    default: return VKI_PLAN_ENOMEM;
    }
    return rc ? rc : layout_objects(t, n, set->align, p);
}

int vki_plan_make(const vki_plan_tensor *t, int n, vki_plan_strategy s, const vki_plan_options *o,
                  vki_plan *out) {
    double start = vki_now_ms();
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    if (n < 0 || (n > 0 && !t) || (int)s < 0 || s >= VKI_PLAN_STRATEGY_COUNT) return -1;
    for (int i = 0; i < n; i++)
        if (t[i].first < 0 || t[i].first > t[i].last) return -1;
    plan_settings set = {1, DEFAULT_OPTIMAL_NODES, DEFAULT_OPTIMAL_MS, VKI_PLAN_DEFAULT_BOUND_NODES,
                         VKI_PLAN_DEFAULT_BOUND_TIME_MS};
    if (o) {
        if (o->alignment) set.align = o->alignment;
        if (o->optimal_node_budget > 0) set.optimal_nodes = o->optimal_node_budget;
        if (o->optimal_time_budget_ms > 0) set.optimal_ms = o->optimal_time_budget_ms;
        if (o->bound_node_budget > 0) set.bound_nodes = o->bound_node_budget;
        if (o->bound_time_budget_ms > 0) set.bound_ms = o->bound_time_budget_ms;
    }
    out->n_tensors = n;
    out->lower_bound = vki_plan_lower_bound(t, n);
    if (make_strategy(t, n, s, &set, out)) {
        release_arrays(out);
        memset(out, 0, sizeof *out);
        return -1;
    }
    out->plan_ms = vki_now_ms() - start;
    return 0;
}

void vki_plan_free(vki_plan *p) {
    if (!p) return;
    release_arrays(p);
    memset(p, 0, sizeof *p);
}

/* ---- checker -------------------------------------------------------------------------------- */

static int reject(char *why, size_t why_len, const char *fmt, ...) {
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return 0;
}

int vki_plan_check(const vki_plan_tensor *t, int n, const vki_plan_options *o, const vki_plan *p,
                   char *why, size_t why_len) {
    uint64_t align = o && o->alignment ? o->alignment : 1;
    if (why && why_len) why[0] = '\0';
    if (!p) return reject(why, why_len, "no plan");
    if (n < 0 || (n > 0 && !t)) return reject(why, why_len, "bad tensor list");
    if (p->n_tensors != n) return reject(why, why_len, "plan has %d tensors, expected %d", p->n_tensors, n);
    if (n > 0 && !p->offsets) return reject(why, why_len, "no offsets");
    for (int i = 0; i < n; i++)
        if (t[i].first < 0 || t[i].first > t[i].last)
            return reject(why, why_len, "tensor %d has a bad lifetime [%d, %d]", i, t[i].first, t[i].last);
    if (p->lower_bound != vki_plan_lower_bound(t, n))
        return reject(why, why_len, "lower_bound %llu, expected %llu",
                      (unsigned long long)p->lower_bound,
                      (unsigned long long)vki_plan_lower_bound(t, n));
    if ((int)p->strategy < 0 || p->strategy >= VKI_PLAN_STRATEGY_COUNT || p->strategy == VKI_PLAN_BEST)
        return reject(why, why_len, "plan names no concrete strategy");
    if (!!p->object_of != is_object_strategy(p->strategy))
        return reject(why, why_len, "%s plan %s object ids", vki_plan_strategy_name(p->strategy),
                      p->object_of ? "has" : "lacks");
    for (int i = 0; i < n; i++) {
        if (p->offsets[i] % align)
            return reject(why, why_len, "tensor %d offset %llu is not a multiple of %llu", i,
                          (unsigned long long)p->offsets[i], (unsigned long long)align);
        if (t[i].size > UINT64_MAX - p->offsets[i])
            return reject(why, why_len, "tensor %d ends past 2^64", i);
    }

    if (p->object_of) {
        if (p->n_objects < 0 || (p->n_objects > 0 && !p->object_size))
            return reject(why, why_len, "bad object list");
        uint64_t *max_size = calloc((size_t)(p->n_objects ? p->n_objects : 1), sizeof *max_size);
        uint64_t *base = malloc(sizeof *base * (size_t)(p->n_objects ? p->n_objects : 1));
        if (!max_size || !base) {
            free(max_size);
            free(base);
            return reject(why, why_len, "out of memory while checking");
        }
        int ok = 1;
        for (int i = 0; i < n && ok; i++) {
            int k = p->object_of[i];
            if (k < 0 || k >= p->n_objects) {
                ok = reject(why, why_len, "tensor %d in object %d of %d", i, k, p->n_objects);
                break;
            }
            if (t[i].size > max_size[k]) max_size[k] = t[i].size;
        }
        uint64_t at = 0;
        int overflow = 0;
        for (int k = 0; k < p->n_objects && ok; k++) {
            if (p->object_size[k] != max_size[k]) {
                ok = reject(why, why_len, "object %d has size %llu, its largest tensor %llu", k,
                            (unsigned long long)p->object_size[k], (unsigned long long)max_size[k]);
                break;
            }
            base[k] = at;
            uint64_t bytes = vki_plan_align_up(p->object_size[k], align, &overflow);
            if (overflow || bytes > UINT64_MAX - at) {
                ok = reject(why, why_len, "objects add up past 2^64");
                break;
            }
            at += bytes;
        }
        if (ok && at != p->total)
            ok = reject(why, why_len, "total %llu, objects add up to %llu",
                        (unsigned long long)p->total, (unsigned long long)at);
        for (int i = 0; i < n && ok; i++)
            if (p->offsets[i] != base[p->object_of[i]])
                ok = reject(why, why_len, "tensor %d at %llu, its object %d at %llu", i,
                            (unsigned long long)p->offsets[i], p->object_of[i],
                            (unsigned long long)base[p->object_of[i]]);
        free(max_size);
        free(base);
        if (!ok) return 0;
    } else {
        if (p->n_objects != 0 || p->object_size)
            return reject(why, why_len, "offset plan carries objects");
        if (p->total % align)
            return reject(why, why_len, "total %llu is not a multiple of %llu",
                          (unsigned long long)p->total, (unsigned long long)align);
        for (int i = 0; i < n; i++)
            if (p->offsets[i] + t[i].size > p->total)
                return reject(why, why_len, "tensor %d ends at %llu, past total %llu", i,
                              (unsigned long long)(p->offsets[i] + t[i].size),
                              (unsigned long long)p->total);
    }

    /* Shared bytes: covers both forms, since an object's tensors share its base. */
    for (int i = 0; i < n; i++) {
        if (!t[i].size) continue;
        for (int j = i + 1; j < n; j++) {
            if (!t[j].size || !vki_plan_lifetimes_overlap(&t[i], &t[j])) continue;
            if (p->offsets[i] < p->offsets[j] + t[j].size && p->offsets[j] < p->offsets[i] + t[i].size)
                return reject(why, why_len,
                              "tensors %d [%d,%d] and %d [%d,%d] are live together and share bytes "
                              "(%llu+%llu, %llu+%llu)",
                              i, t[i].first, t[i].last, j, t[j].first, t[j].last,
                              (unsigned long long)p->offsets[i], (unsigned long long)t[i].size,
                              (unsigned long long)p->offsets[j], (unsigned long long)t[j].size);
        }
    }
    return 1;
}

/* ---- old interface -------------------------------------------------------------------------- */

int vki_plan_offsets(const vki_plan_tensor *tensors, int n, uint64_t alignment,
                     vki_plan_strategy strategy, uint64_t *offsets, uint64_t *total) {
    vki_plan_options opt = {.alignment = alignment};
    vki_plan p;
    if (!total || (n > 0 && !offsets)) return -1;
    if (vki_plan_make(tensors, n, strategy, &opt, &p)) return -1;
    if (n > 0) memcpy(offsets, p.offsets, sizeof *offsets * (size_t)n);
    *total = p.total;
    vki_plan_free(&p);
    return 0;
}
