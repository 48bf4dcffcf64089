/* min_cost_flow.c: MIN_COST_FLOW shared objects, the flow network of the TFLite GPU paper:
 * source s, sink t, per tensor x a left node l_x (x handing its object on) and a right node r_x
 * (x receiving one). s->l_x and r_x->t are free; s->r_x costs size_x (a new object); reuse
 * l_x->r_y costs max(0, size_y - size_x) when x dies before y starts (y takes x's object, grown).
 * A min-cost flow of value n saturates every r_x->t; each reuse that carries flow chains y after
 * x in one object, and the object's real size (the max over its chain) is computed afterwards,
 * since the costs only approximate it with the predecessor's size.
 *
 * The n^2/2 reuse edges are replaced by an equivalent network of O(n log n) edges. Order the
 * events "x dies" (key 2*last+1) and "y starts" (key 2*first): x may hand over to y exactly when
 * x's key is below y's. Splitting the key order in halves recursively separates every such pair
 * at exactly one level; there, one chain of size nodes joins the left half's dying tensors to the
 * right half's starting ones, going down in size for free and up for the difference. The
 * cheapest l_x -> r_y route then costs exactly max(0, size_y - size_x), and since l_x carries at
 * most one unit and r_y takes at most one, uncapacitated chains lose nothing: min costs are the
 * same as the paper's network. Levels where direct l_x->r_y arcs are fewer than a chain (small
 * halves) keep the direct arcs. Pairs are read back by following the flow from each l_x.
 *
 * Solved by the primal-dual form of successive shortest paths: per phase, Dijkstra with
 * potentials (binary heap, stopped at t), then a max flow (Dinic) over the edges of zero
 * reduced cost, which pushes every shortest path of that length at once. With F phases (the
 * distinct path costs, F <= n, in practice a few dozen) and E = O(n log n) edges:
 * O(F * E * (log n + sqrt E)) time, O(E) memory. */
#include "internal.h"

#include <stdlib.h>

/* The network as a list of arcs while it is built. */
typedef struct arc_list {
    int *from, *to, *cap;
    long long *cost;
    int n_nodes, n_arcs, room;
    int out_of_memory;
} arc_list;

static int add_node(arc_list *g) { return g->n_nodes++; }

static void add_arc(arc_list *g, int from, int to, int cap, long long cost) {
    if (g->out_of_memory) return;
    if (g->n_arcs == g->room) {
        int room = g->room ? 2 * g->room : 1024;
        int *f = realloc(g->from, sizeof *f * (size_t)room);
        if (f) g->from = f;
        int *t = realloc(g->to, sizeof *t * (size_t)room);
        if (t) g->to = t;
        int *c = realloc(g->cap, sizeof *c * (size_t)room);
        if (c) g->cap = c;
        long long *w = realloc(g->cost, sizeof *w * (size_t)room);
        if (w) g->cost = w;
        if (!f || !t || !c || !w) { g->out_of_memory = 1; return; }   /* freed at the end */
        g->room = room;
    }
    int a = g->n_arcs++;
    g->from[a] = from; g->to[a] = to; g->cap[a] = cap; g->cost[a] = cost;
}

/* The residual network, adjacency packed per node (CSR) so that scans run through memory in
 * order: each arc a becomes a forward edge and its twin, which starts empty (flow on a forward
 * edge e is cap[twin[e]]). */
typedef struct residual {
    int n_nodes;
    int *first;             /* edges of node v: [first[v], first[v + 1]) */
    int *to, *cap, *twin;
    long long *cost;
    unsigned char *forward;
} residual;

static int build_residual(const arc_list *g, residual *r) {
    size_t edges = 2 * (size_t)g->n_arcs;
    r->n_nodes = g->n_nodes;
    r->first = calloc((size_t)g->n_nodes + 1, sizeof *r->first);
    r->to = malloc(sizeof *r->to * edges);
    r->cap = malloc(sizeof *r->cap * edges);
    r->twin = malloc(sizeof *r->twin * edges);
    r->cost = malloc(sizeof *r->cost * edges);
    r->forward = malloc(edges);
    if (!r->first || !r->to || !r->cap || !r->twin || !r->cost || !r->forward) return 0;
    for (int a = 0; a < g->n_arcs; a++) {
        r->first[g->from[a] + 1]++;
        r->first[g->to[a] + 1]++;
    }
    for (int v = 0; v < g->n_nodes; v++) r->first[v + 1] += r->first[v];
    int *fill = malloc(sizeof *fill * (size_t)(g->n_nodes > 0 ? g->n_nodes : 1));
    if (!fill) return 0;
    for (int v = 0; v < g->n_nodes; v++) fill[v] = r->first[v];
    for (int a = 0; a < g->n_arcs; a++) {
        int e = fill[g->from[a]]++, back = fill[g->to[a]]++;
        r->to[e] = g->to[a]; r->cap[e] = g->cap[a]; r->cost[e] = g->cost[a];
        r->twin[e] = back; r->forward[e] = 1;
        r->to[back] = g->from[a]; r->cap[back] = 0; r->cost[back] = -g->cost[a];
        r->twin[back] = e; r->forward[back] = 0;
    }
    free(fill);
    return 1;
}

/* ---- the compressed reuse network ----------------------------------------------------------- */

typedef struct event {
    long long key;    /* 2*last+1 for a death, 2*first for a start */
    int tensor;
    int is_start;
} event;

static int by_key(const void *pa, const void *pb) {
    const event *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->is_start != b->is_start) return a->is_start - b->is_start;
    return a->tensor - b->tensor;
}

typedef struct chain_member {
    long long cost_size;   /* scaled size */
    int tensor;
    int is_start;
} chain_member;

static int by_cost_size(const void *pa, const void *pb) {
    const chain_member *a = pa, *b = pb;
    if (a->cost_size != b->cost_size) return a->cost_size < b->cost_size ? -1 : 1;
    if (a->is_start != b->is_start) return a->is_start - b->is_start;
    return a->tensor - b->tensor;
}

typedef struct reuse_builder {
    arc_list *g;
    const event *events;
    const long long *cost_size;   /* per tensor */
    chain_member *scratch;
    int n;                        /* tensors: l_x = 2 + x, r_x = 2 + n + x */
} reuse_builder;

static void build_reuse(reuse_builder *b, int lo, int hi) {
    if (hi - lo < 2 || b->g->out_of_memory) return;
    int mid = lo + (hi - lo) / 2, count = 0;
    for (int k = lo; k < mid; k++)
        if (!b->events[k].is_start) {
            int x = b->events[k].tensor;
            b->scratch[count++] = (chain_member){b->cost_size[x], x, 0};
        }
    int deaths = count;
    if (deaths)
        for (int k = mid; k < hi; k++)
            if (b->events[k].is_start) {
                int y = b->events[k].tensor;
                b->scratch[count++] = (chain_member){b->cost_size[y], y, 1};
            }
    int starts = count - deaths;
    if (deaths && starts && (long long)deaths * starts <= 2LL * count) {
        /* Small level: direct reuse arcs are fewer than a chain's nodes and arcs. */
        for (int i = 0; i < deaths; i++)
            for (int j = deaths; j < count; j++) {
                long long grow = b->scratch[j].cost_size - b->scratch[i].cost_size;
                add_arc(b->g, 2 + b->scratch[i].tensor, 2 + b->n + b->scratch[j].tensor, 1,
                        grow > 0 ? grow : 0);
            }
    } else if (deaths && starts) {
        qsort(b->scratch, (size_t)count, sizeof *b->scratch, by_cost_size);
        int node = -1;
        long long node_size = 0;
        for (int k = 0; k < count; k++) {
            const chain_member *c = &b->scratch[k];
            if (node < 0 || c->cost_size != node_size) {
                int up = add_node(b->g);
                if (node >= 0) {
                    add_arc(b->g, node, up, b->n, c->cost_size - node_size);   /* grow: pay */
                    add_arc(b->g, up, node, b->n, 0);                           /* shrink: free */
                }
                node = up;
                node_size = c->cost_size;
            }
            if (c->is_start) add_arc(b->g, node, 2 + b->n + c->tensor, 1, 0);
            else add_arc(b->g, 2 + c->tensor, node, 1, 0);
        }
    }
    build_reuse(b, lo, mid);
    build_reuse(b, mid, hi);
}

/* ---- primal-dual ---------------------------------------------------------------------------- */

typedef struct queued {
    long long dist;
    int node;
} queued;

static void heap_push(queued *h, int *len, queued q) {
    int i = (*len)++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (h[parent].dist <= q.dist) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = q;
}

static queued heap_pop(queued *h, int *len) {
    queued top = h[0], moved = h[--*len];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *len) break;
        if (c + 1 < *len && h[c + 1].dist < h[c].dist) c++;
        if (moved.dist <= h[c].dist) break;
        h[i] = h[c];
        i = c;
    }
    if (*len) h[i] = moved;
    return top;
}

/* Residual edge usable at zero reduced cost. */
static int admissible(const residual *r, const long long *potential, int u, int e) {
    return r->cap[e] > 0 && r->cost[e] + potential[u] - potential[r->to[e]] == 0;
}

static int push_path(residual *r, const long long *potential, const int *level, int *arc, int u,
                     int sink) {
    if (u == sink) return 1;
    for (; arc[u] < r->first[u + 1]; arc[u]++) {
        int e = arc[u], v = r->to[e];
        if (level[v] != level[u] + 1 || !admissible(r, potential, u, e)) continue;
        if (push_path(r, potential, level, arc, v, sink)) {
            r->cap[e]--;
            r->cap[r->twin[e]]++;
            return 1;
        }
    }
    return 0;
}

/* Max flow from source to sink over admissible edges, at most limit units, one at a time. */
static int dinic_admissible(residual *r, int source, int sink, const long long *potential,
                            int *level, int *arc, int *queue, int limit) {
    int pushed = 0;
    while (pushed < limit) {
        for (int v = 0; v < r->n_nodes; v++) level[v] = -1;
        int head = 0, tail = 0;
        level[source] = 0;
        queue[tail++] = source;
        while (head < tail && level[sink] < 0) {
            int u = queue[head++];
            for (int e = r->first[u]; e < r->first[u + 1]; e++) {
                int v = r->to[e];
                if (level[v] < 0 && admissible(r, potential, u, e)) {
                    level[v] = level[u] + 1;
                    queue[tail++] = v;
                }
            }
        }
        if (level[sink] < 0) break;
        for (int v = 0; v < r->n_nodes; v++) arc[v] = r->first[v];
        while (pushed < limit && push_path(r, potential, level, arc, source, sink)) pushed++;
    }
    return pushed;
}

int vki_plan_min_cost_flow(const vki_plan_tensor *t, int n, int *object_of, int *n_objects) {
    *n_objects = 0;
    if (n == 0) return VKI_PLAN_OK;
    const int source = 0, sink = 1;
    size_t count = (size_t)n;
    arc_list g = {0};
    residual res = {0};
    event *events = malloc(sizeof *events * 2 * count);
    long long *cost_size = malloc(sizeof *cost_size * count);
    chain_member *scratch = malloc(sizeof *scratch * 2 * count);
    int *pred = malloc(sizeof *pred * count), *succ = malloc(sizeof *succ * count);
    long long *potential = NULL, *dist = NULL;
    int *level = NULL, *arc = NULL, *queue = NULL;
    unsigned char *settled = NULL;
    queued *heap = NULL;
    int rc = VKI_PLAN_ENOMEM;
    if (!events || !cost_size || !scratch || !pred || !succ) goto done;

    /* Costs are sizes scaled down so that no path sum or potential can leave 63 bits (a simple
     * path has fewer than 2 + 2n + 2n*levels nodes); the scaling only blurs the heuristic, the
     * objects' sizes come from the real sizes. */
    int levels = 1;
    while ((1LL << levels) < 2LL * n) levels++;
    uint64_t max_size = 0, node_bound = 2 + 2 * (uint64_t)n * (uint64_t)(levels + 2);
    for (int i = 0; i < n; i++)
        if (t[i].size > max_size) max_size = t[i].size;
    int shift = 0;
    while ((max_size >> shift) > (1ULL << 60) / node_bound) shift++;
    for (int i = 0; i < n; i++) cost_size[i] = (long long)(t[i].size >> shift);

    g.n_nodes = 2 + 2 * n;
    for (int x = 0; x < n; x++) {
        add_arc(&g, source, 2 + x, 1, 0);
        add_arc(&g, 2 + n + x, sink, 1, 0);
        add_arc(&g, source, 2 + n + x, 1, cost_size[x]);
    }
    for (int x = 0; x < n; x++) {
        events[2 * x] = (event){2LL * t[x].last + 1, x, 0};
        events[2 * x + 1] = (event){2LL * t[x].first, x, 1};
    }
    qsort(events, 2 * count, sizeof *events, by_key);
    reuse_builder builder = {&g, events, cost_size, scratch, n};
    build_reuse(&builder, 0, 2 * n);
    if (g.out_of_memory || !build_residual(&g, &res)) goto done;

    size_t nodes = (size_t)g.n_nodes;
    potential = calloc(nodes, sizeof *potential);
    dist = malloc(sizeof *dist * nodes);
    level = malloc(sizeof *level * nodes);
    arc = malloc(sizeof *arc * nodes);
    queue = malloc(sizeof *queue * nodes);
    settled = malloc(nodes);
    heap = malloc(sizeof *heap * (2 * (size_t)g.n_arcs + nodes));
    if (!potential || !dist || !level || !arc || !queue || !settled || !heap) goto done;

    const long long unreached = (long long)(~0ULL >> 1);
    int flow = 0;
    while (flow < n) {
        /* Shortest distances under reduced costs (all >= 0), stopped once the sink settles. */
        for (size_t v = 0; v < nodes; v++) { dist[v] = unreached; settled[v] = 0; }
        int n_heap = 0;
        dist[source] = 0;
        heap_push(heap, &n_heap, (queued){0, source});
        while (n_heap) {
            queued q = heap_pop(heap, &n_heap);
            int u = q.node;
            if (settled[u] || q.dist != dist[u]) continue;
            settled[u] = 1;
            if (u == sink) break;
            for (int e = res.first[u]; e < res.first[u + 1]; e++) {
                if (res.cap[e] <= 0) continue;
                int v = res.to[e];
                long long d = dist[u] + res.cost[e] + potential[u] - potential[v];
                if (d < dist[v]) {
                    dist[v] = d;
                    heap_push(heap, &n_heap, (queued){d, v});
                }
            }
        }
        if (!settled[sink]) break;   /* cannot happen: s->r_y->t is open while r_y->t is */
        /* Nodes not settled get the sink's distance, which keeps every reduced cost >= 0 and
         * makes every zero-reduced-cost s-t path a shortest one. */
        for (size_t v = 0; v < nodes; v++) potential[v] += settled[v] ? dist[v] : dist[sink];
        int pushed = dinic_admissible(&res, source, sink, potential, level, arc, queue, n - flow);
        if (!pushed) break;
        flow += pushed;
    }

    /* Follow each unit leaving an l_x through the chains to the r_y it reaches. Chains carry
     * no cycles (every cycle in a chain climbs, so costs more than nothing), so walks end. */
    for (int x = 0; x < n; x++) pred[x] = succ[x] = -1;
    for (int x = 0; x < n; x++) {
        int u = 2 + x;
        for (;;) {
            int e = res.first[u];
            while (e < res.first[u + 1] && (!res.forward[e] || res.cap[res.twin[e]] <= 0)) e++;
            if (e == res.first[u + 1]) break;
            res.cap[res.twin[e]]--;   /* consume the unit so no other walk takes it */
            u = res.to[e];
            if (u >= 2 + n && u < 2 + 2 * n) {
                int y = u - 2 - n;
                succ[x] = y;
                pred[y] = x;
                break;
            }
        }
    }
    int n_obj = 0;
    for (int x = 0; x < n; x++) {
        if (pred[x] >= 0) continue;
        for (int y = x; y >= 0; y = succ[y]) object_of[y] = n_obj;
        n_obj++;
    }
    *n_objects = n_obj;
    rc = VKI_PLAN_OK;
done:
    free(events);
    free(cost_size);
    free(scratch);
    free(pred);
    free(succ);
    free(g.from);
    free(g.to);
    free(g.cap);
    free(g.cost);
    free(res.first);
    free(res.to);
    free(res.cap);
    free(res.twin);
    free(res.cost);
    free(res.forward);
    free(potential);
    free(dist);
    free(level);
    free(arc);
    free(queue);
    free(settled);
    free(heap);
    return rc;
}
