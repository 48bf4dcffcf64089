/* kernel_cache.c: checked files in the cache directory: header + payload. */
#include "kernel_cache.h"
#include "fault.h"

#if VKI_HAVE_COMPILER
#include <shaderc/shaderc.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC 0x534b4956u       /* "VIKS" */
#define VERSION 1u
#define MAX_BYTES (256u << 20)

typedef struct header {
    uint32_t magic, version;
    uint64_t key;
    uint64_t n_bytes;
    uint64_t checksum;
} header;

uint64_t vki_cache_hash(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#if VKI_HAVE_COMPILER
uint64_t vki_kernel_cache_key(const char *glsl_text) {
    unsigned version, revision;
    shaderc_get_spv_version(&version, &revision);
    uint64_t h = vki_cache_hash(VKI_CACHE_HASH_SEED, glsl_text, strlen(glsl_text));
    h = vki_cache_hash(h, &version, sizeof version);
    return vki_cache_hash(h, &revision, sizeof revision);
}
#endif

int vki_cache_load(const char *dir, const char *name, uint64_t key, void **data, size_t *n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    header h;
    int ok = fread(&h, sizeof h, 1, f) == 1 && h.magic == MAGIC && h.version == VERSION &&
             h.key == key && h.n_bytes > 0 && h.n_bytes <= MAX_BYTES;
    void *payload = ok ? vki_malloc((size_t)h.n_bytes) : NULL;
    ok = ok && payload && fread(payload, 1, (size_t)h.n_bytes, f) == h.n_bytes && fgetc(f) == EOF &&
         vki_cache_hash(VKI_CACHE_HASH_SEED, payload, (size_t)h.n_bytes) == h.checksum;
    fclose(f);
    if (!ok) {
        free(payload);
        return 0;
    }
    *data = payload;
    *n = (size_t)h.n_bytes;
    return 1;
}

int vki_cache_store(const char *dir, const char *name, uint64_t key, const void *data, size_t n) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* Unique per process and per live buffer, so two writers (processes, or threads of
     * one) never interleave one file. */
    snprintf(tmp, sizeof tmp, "%s.%ld.%p.tmp", path, (long)getpid(), data);
    header h = {MAGIC, VERSION, key, n, vki_cache_hash(VKI_CACHE_HASH_SEED, data, n)};
    errno = 0;
    FILE *f = fopen(tmp, "wb");
    if (!f) return 0;
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        int err = errno;
        remove(tmp);
        errno = err;
    }
    return ok;
}
