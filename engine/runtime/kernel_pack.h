/* kernel_pack.h: kernel packs (internal): the SPIR-V of a set of kernel variants in one
 * file, so that a library without the shader compiler (-Dcompiler=disabled) can build
 * graphs, and one with it skips compiling.
 *
 * A variant's key hashes (vki_cache_hash) the kernel's name, the hash of its source and
 * common.glsl (vki_glsl_source_hash, computed by glsl/embed.py at build time in both
 * kinds of build), the precision #defines and the op's #defines. The work group is a
 * specialization constant, so nothing else changes the SPIR-V. A pack written by a
 * library whose kernel sources differ has other keys: its entries are never used.
 *
 * The file, little-endian, every field 4-byte aligned:
 *   header   magic "VIKP", version, entry count, 0, payload bytes (u64), checksum (u64,
 *            vki_cache_hash of the payload)
 *   payload  per entry: key (u64), name bytes (u32, NUL padded to 4), SPIR-V bytes (u32),
 *            the kernel's name, the SPIR-V
 * One entry may instead hold the driver's pipeline cache of the device the pack was made
 * on, keyed by that device's identity (vki_context_pack_pipelines, shader.c).
 */
#ifndef VKI_KERNEL_PACK_H
#define VKI_KERNEL_PACK_H

#include "vkinfer.h"

#include <stddef.h>
#include <stdint.h>

/* The embedded hash of glsl/<kernel>.comp with common.glsl; 0 for an unknown kernel
 * (generated glsl_sources.c). */
uint64_t vki_glsl_source_hash(const char *kernel);

/* A variant's key; defines is defines_len bytes. 0 when the kernel is unknown. */
uint64_t vki_kernel_pack_key(const char *kernel, const char *precision, const char *defines,
                             size_t defines_len);

/* Every pack a context has loaded, merged into one index (a later pack's entry for a key
 * wins over an earlier one's). */
typedef struct vki_pack_set vki_pack_set;

/* Checks a pack's bytes and adds its entries, copying them; `what` names it in messages
 * (a file path, "memory"). VKI_ERROR_IO: not a kernel pack, a newer version, truncated
 * or damaged. VKI_ERROR_OUT_OF_MEMORY. *set may be NULL (a new set is made). */
vki_status vki_pack_set_add(vki_pack_set **set, const void *data, size_t n, const char *what);
/* The SPIR-V stored for key, or NULL. */
const uint32_t *vki_pack_set_find(const vki_pack_set *set, uint64_t key, size_t *n_bytes);
void vki_pack_set_free(vki_pack_set *set);

/* Collects entries and writes them as a pack. */
typedef struct vki_pack_writer vki_pack_writer;

vki_pack_writer *vki_pack_writer_new(void);
/* Adds an entry; a key already held is skipped. VKI_ERROR_OUT_OF_MEMORY. */
vki_status vki_pack_writer_add(vki_pack_writer *w, uint64_t key, const char *kernel,
                               const void *spirv, size_t n_bytes);
int vki_pack_writer_count(const vki_pack_writer *w);
/* The pack's bytes (malloc'd, *n long). VKI_ERROR_OUT_OF_MEMORY. */
vki_status vki_pack_writer_bytes(const vki_pack_writer *w, void **data, size_t *n);
/* Writes the pack to path (through a temporary file and a rename). VKI_ERROR_IO. */
vki_status vki_pack_writer_save(const vki_pack_writer *w, const char *path);
void vki_pack_writer_free(vki_pack_writer *w);

/* Every kernel variant ctx gets from now on (compiled, from the disk cache or from a
 * pack) is added to w as well; NULL stops. What `vkinfer pack` collects with. */
void vki_context_record_kernels(vki_context *ctx, vki_pack_writer *w);
/* Adds the driver's pipeline cache of ctx's device (every pipeline ctx built so far) to w,
 * as an entry only a context on the same device and driver finds; such a context merges it
 * into its own when it loads the pack. Returns 1 when added, 0 when the driver gave none. */
int vki_context_pack_pipelines(vki_context *ctx, vki_pack_writer *w);
/* 1 when the library carries the shader compiler, 0 when built with -Dcompiler=disabled. */
int vki_have_compiler(void);

#endif
