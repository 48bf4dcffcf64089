/* kernel_pack.c: kernel pack keys, reading packs into an index, writing them. */
#include "kernel_pack.h"

#include "kernel_cache.h"
#include "status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PACK_MAGIC 0x504b4956u     /* "VIKP" */
#define PACK_VERSION 1u
#define HEADER_BYTES 32u
#define ENTRY_HEAD_BYTES 16u
/* Names a kernel's text is assembled with: a pack written by a library that assembled it
 * otherwise (shader.c) must not match. */
#define KEY_TAG "vkinfer kernel 1"

uint64_t vki_kernel_pack_key(const char *kernel, const char *precision, const char *defines,
                             size_t defines_len) {
    uint64_t source = vki_glsl_source_hash(kernel);
    if (!source) return 0;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(source >> (8 * i));
    uint64_t h = vki_cache_hash(VKI_CACHE_HASH_SEED, KEY_TAG, sizeof KEY_TAG);
    h = vki_cache_hash(h, kernel, strlen(kernel) + 1);
    h = vki_cache_hash(h, le, sizeof le);
    h = vki_cache_hash(h, precision, strlen(precision) + 1);
    h = vki_cache_hash(h, defines, defines_len);
    return h ? h : 1;
}

static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static size_t pad4(size_t n) { return (n + 3) & ~(size_t)3; }

/* ---- reading ------------------------------------------------------------------------- */

typedef struct pack_entry {
    uint64_t key;
    const uint32_t *spirv;
    size_t n_bytes;
    int order;                    /* when it was added: a later pack's entry wins */
} pack_entry;

struct vki_pack_set {
    void **blobs;                 /* each pack's bytes, copied */
    int n_blobs, cap_blobs;
    pack_entry *entries;          /* sorted by key, one per key */
    int n_entries, cap_entries;
};

static int by_key(const void *a, const void *b) {
    const pack_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->order > y->order ? -1 : x->order < y->order;   /* the newest first */
}

vki_status vki_pack_set_add(vki_pack_set **setp, const void *data, size_t n, const char *what) {
    const unsigned char *p = data;
    if (!data || n < HEADER_BYTES || get32(p) != PACK_MAGIC)
        return vki_fail(VKI_ERROR_IO, "kernel pack %s: not a kernel pack", what);
    if (get32(p + 4) != PACK_VERSION)
        return vki_fail(VKI_ERROR_IO, "kernel pack %s: version %u, this library reads version %u",
                        what, get32(p + 4), PACK_VERSION);
    uint32_t count = get32(p + 8);
    uint64_t payload = get64(p + 16);
    if (payload != n - HEADER_BYTES)
        return vki_fail(VKI_ERROR_IO, "kernel pack %s: %zu bytes, the header says %llu", what, n,
                        (unsigned long long)(payload + HEADER_BYTES));
    if (vki_cache_hash(VKI_CACHE_HASH_SEED, p + HEADER_BYTES, n - HEADER_BYTES) != get64(p + 24))
        return vki_fail(VKI_ERROR_IO, "kernel pack %s: damaged (checksum mismatch)", what);
    /* Walk it once to check every entry lies inside before copying anything. */
    size_t at = HEADER_BYTES;
    for (uint32_t i = 0; i < count; i++) {
        if (n - at < ENTRY_HEAD_BYTES)
            return vki_fail(VKI_ERROR_IO, "kernel pack %s: entry %u is truncated", what, i);
        size_t name = get32(p + at + 8), spirv = get32(p + at + 12);
        if (name % 4 || spirv % 4 || spirv == 0 || n - at - ENTRY_HEAD_BYTES < name ||
            n - at - ENTRY_HEAD_BYTES - name < spirv)
            return vki_fail(VKI_ERROR_IO, "kernel pack %s: entry %u is damaged", what, i);
        at += ENTRY_HEAD_BYTES + name + spirv;
    }
    if (at != n) return vki_fail(VKI_ERROR_IO, "kernel pack %s: bytes after the last entry", what);
    vki_pack_set *set = *setp ? *setp : vki_calloc(1, sizeof *set);
    if (!set) return vki_fail_oom("kernel pack");
    *setp = set;
    unsigned char *copy = vki_malloc(n);
    if (!copy || !vki_grow((void **)&set->blobs, &set->cap_blobs, set->n_blobs + 1, sizeof *set->blobs) ||
        !vki_grow((void **)&set->entries, &set->cap_entries, set->n_entries + (int)count,
                  sizeof *set->entries)) {
        free(copy);
        return vki_fail_oom("kernel pack");
    }
    memcpy(copy, data, n);
    set->blobs[set->n_blobs++] = copy;
    int order = set->n_entries;
    at = HEADER_BYTES;
    for (uint32_t i = 0; i < count; i++) {
        size_t name = get32(copy + at + 8), spirv = get32(copy + at + 12);
        set->entries[set->n_entries++] = (pack_entry){
            get64(copy + at), (const uint32_t *)(void *)(copy + at + ENTRY_HEAD_BYTES + name), spirv,
            order + (int)i};
        at += ENTRY_HEAD_BYTES + name + spirv;
    }
    /* Sort, newest first within a key, and keep one per key. */
    qsort(set->entries, (size_t)set->n_entries, sizeof *set->entries, by_key);
    int kept = 0;
    for (int i = 0; i < set->n_entries; i++)
        if (!kept || set->entries[kept - 1].key != set->entries[i].key)
            set->entries[kept++] = set->entries[i];
    for (int i = 0; i < kept; i++) set->entries[i].order = i;
    set->n_entries = kept;
    return VKI_OK;
}

const uint32_t *vki_pack_set_find(const vki_pack_set *set, uint64_t key, size_t *n_bytes) {
    if (!set) return NULL;
    int lo = 0, hi = set->n_entries;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (set->entries[mid].key < key) lo = mid + 1;
        else hi = mid;
    }
    if (lo == set->n_entries || set->entries[lo].key != key) return NULL;
    *n_bytes = set->entries[lo].n_bytes;
    return set->entries[lo].spirv;
}

void vki_pack_set_free(vki_pack_set *set) {
    if (!set) return;
    for (int i = 0; i < set->n_blobs; i++) free(set->blobs[i]);
    free(set->blobs);
    free(set->entries);
    free(set);
}

/* ---- writing ------------------------------------------------------------------------- */

typedef struct writer_entry {
    uint64_t key;
    char *name;
    void *spirv;
    size_t n_bytes;
} writer_entry;

struct vki_pack_writer {
    writer_entry *entries;
    int n, cap;
};

vki_pack_writer *vki_pack_writer_new(void) { return vki_calloc(1, sizeof(vki_pack_writer)); }

vki_status vki_pack_writer_add(vki_pack_writer *w, uint64_t key, const char *kernel,
                               const void *spirv, size_t n_bytes) {
    for (int i = 0; i < w->n; i++)
        if (w->entries[i].key == key) return VKI_OK;
    if (n_bytes == 0 || n_bytes % 4 || n_bytes > UINT32_MAX / 2)
        return vki_fail(VKI_ERROR_INTERNAL, "kernel pack: %s has %zu bytes of SPIR-V", kernel, n_bytes);
    if (!vki_grow((void **)&w->entries, &w->cap, w->n + 1, sizeof *w->entries))
        return vki_fail_oom("kernel pack");
    writer_entry e = {key, vki_malloc(strlen(kernel) + 1), vki_malloc(n_bytes), n_bytes};
    if (!e.name || !e.spirv) {
        free(e.name);
        free(e.spirv);
        return vki_fail_oom("kernel pack");
    }
    strcpy(e.name, kernel);
    memcpy(e.spirv, spirv, n_bytes);
    w->entries[w->n++] = e;
    return VKI_OK;
}

int vki_pack_writer_count(const vki_pack_writer *w) { return w->n; }

static int writer_by_key(const void *a, const void *b) {
    const writer_entry *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

vki_status vki_pack_writer_bytes(const vki_pack_writer *w, void **data, size_t *n) {
    *data = NULL;
    *n = 0;
    /* In key order, so that the same kernels always make the same file. */
    writer_entry *sorted = vki_malloc(sizeof *sorted * (size_t)(w->n ? w->n : 1));
    if (!sorted) return vki_fail_oom("kernel pack");
    memcpy(sorted, w->entries, sizeof *sorted * (size_t)w->n);
    qsort(sorted, (size_t)w->n, sizeof *sorted, writer_by_key);
    size_t total = HEADER_BYTES;
    for (int i = 0; i < w->n; i++)
        total += ENTRY_HEAD_BYTES + pad4(strlen(sorted[i].name) + 1) + sorted[i].n_bytes;
    unsigned char *out = vki_calloc(1, total);
    if (!out) {
        free(sorted);
        return vki_fail_oom("kernel pack");
    }
    size_t at = HEADER_BYTES;
    for (int i = 0; i < w->n; i++) {
        size_t name = pad4(strlen(sorted[i].name) + 1);
        put64(out + at, sorted[i].key);
        put32(out + at + 8, (uint32_t)name);
        put32(out + at + 12, (uint32_t)sorted[i].n_bytes);
        memcpy(out + at + ENTRY_HEAD_BYTES, sorted[i].name, strlen(sorted[i].name));
        memcpy(out + at + ENTRY_HEAD_BYTES + name, sorted[i].spirv, sorted[i].n_bytes);
        at += ENTRY_HEAD_BYTES + name + sorted[i].n_bytes;
    }
    free(sorted);
    put32(out, PACK_MAGIC);
    put32(out + 4, PACK_VERSION);
    put32(out + 8, (uint32_t)w->n);
    put64(out + 16, total - HEADER_BYTES);
    put64(out + 24, vki_cache_hash(VKI_CACHE_HASH_SEED, out + HEADER_BYTES, total - HEADER_BYTES));
    *data = out;
    *n = total;
    return VKI_OK;
}

vki_status vki_pack_writer_save(const vki_pack_writer *w, const char *path) {
    void *data;
    size_t n;
    vki_status s = vki_pack_writer_bytes(w, &data, &n);
    if (s) return s;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    errno = 0;
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f) ok = fclose(f) == 0 && ok;
    if (ok) ok = rename(tmp, path) == 0;
    int err = errno;
    free(data);
    if (!ok) {
        remove(tmp);
        return vki_fail(VKI_ERROR_IO, "kernel pack %s: cannot write: %s", path,
                        err ? strerror(err) : "write failed");
    }
    return VKI_OK;
}

void vki_pack_writer_free(vki_pack_writer *w) {
    if (!w) return;
    for (int i = 0; i < w->n; i++) {
        free(w->entries[i].name);
        free(w->entries[i].spirv);
    }
    free(w->entries);
    free(w);
}
