/* kernel_cache.h: what vkinfer keeps on disk between runs (internal): compiled kernels
 * (SPIR-V) and the driver's pipeline cache, as files in the context's cache_dir.
 *
 * Every file carries a header with the key it was written for, its size and a checksum,
 * so a stale, truncated or foreign file is ignored (and rewritten), never handed on. */
#ifndef VKI_KERNEL_CACHE_H
#define VKI_KERNEL_CACHE_H

#include <stddef.h>
#include <stdint.h>

uint64_t vki_cache_hash(uint64_t h, const void *data, size_t n);
#define VKI_CACHE_HASH_SEED 1469598103934665603ull

/* A kernel's key: its full GLSL text and the SPIR-V version shaderc emits. Only in a
 * library with the compiler: without it the cache keeps just the pipeline cache. */
uint64_t vki_kernel_cache_key(const char *glsl_text);

/* 1 and *data (malloc'd) / *n when dir/name is a valid entry for key, else 0. */
int vki_cache_load(const char *dir, const char *name, uint64_t key, void **data, size_t *n);
/* Best effort: 1 when dir/name was written (through a temporary and a rename). */
int vki_cache_store(const char *dir, const char *name, uint64_t key, const void *data, size_t n);

#endif
