/* store.h: tuned work-group sizes kept in a text file between runs (pure C, no Vulkan).
 *
 * One line per dispatch: a 64-bit key in hex (the engine hashes the device, driver,
 * kernel, its #defines and the grid into it), the size, and the time it measured. Lines
 * that do not parse are skipped, so a damaged file costs tuning time, never a wrong
 * answer; the engine still checks every size against the device's limits. */
#ifndef VKI_STORE_H
#define VKI_STORE_H

#include <stdint.h>

typedef struct vki_wg_entry {
    uint64_t key;
    uint32_t wg[3];
    double ms;
} vki_wg_entry;

typedef struct vki_wg_store {
    vki_wg_entry *entries;
    int n, cap;
} vki_wg_store;

/* Adds the file's entries (later lines win). A missing file adds nothing and is not an
 * error. Returns the number of lines read as entries, or -1 on out of memory. */
int vki_wg_store_load(vki_wg_store *s, const char *path);
/* Writes every entry, replacing the file through a temporary beside it. 1 on success. */
int vki_wg_store_save(const vki_wg_store *s, const char *path);
const vki_wg_entry *vki_wg_store_find(const vki_wg_store *s, uint64_t key);
/* Adds or replaces the entry for key; 0 on out of memory. */
int vki_wg_store_put(vki_wg_store *s, uint64_t key, const uint32_t wg[3], double ms);
void vki_wg_store_free(vki_wg_store *s);

#endif
