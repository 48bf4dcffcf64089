/* store.c: the tuning file: "vkinfer-tuning 1" then "<key hex> <x> <y> <z> <ms>" lines. */
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "vkinfer-tuning 1"
#define MAX_AXIS 65536u

const vki_wg_entry *vki_wg_store_find(const vki_wg_store *s, uint64_t key) {
    for (int i = 0; i < s->n; i++)
        if (s->entries[i].key == key) return &s->entries[i];
    return NULL;
}

int vki_wg_store_put(vki_wg_store *s, uint64_t key, const uint32_t wg[3], double ms) {
    vki_wg_entry *e = (vki_wg_entry *)vki_wg_store_find(s, key);
    if (!e) {
        if (s->n == s->cap) {
            int cap = s->cap ? s->cap * 2 : 64;
            vki_wg_entry *grown = realloc(s->entries, sizeof *grown * (size_t)cap);
            if (!grown) return 0;
            s->entries = grown;
            s->cap = cap;
        }
        e = &s->entries[s->n++];
    }
    *e = (vki_wg_entry){key, {wg[0], wg[1], wg[2]}, ms};
    return 1;
}

int vki_wg_store_load(vki_wg_store *s, const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    int read = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, HEADER, strlen(HEADER)) != 0) {
        fclose(f);
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        uint64_t key;
        unsigned x, y, z;
        double ms;
        char extra;
        if (sscanf(line, "%" SCNx64 " %u %u %u %lf %c", &key, &x, &y, &z, &ms, &extra) != 5) continue;
        if (x < 1 || y < 1 || z < 1 || x > MAX_AXIS || y > MAX_AXIS || z > MAX_AXIS) continue;
        uint32_t wg[3] = {x, y, z};
        if (!vki_wg_store_put(s, key, wg, ms)) {
            fclose(f);
            return -1;
        }
        read++;
    }
    fclose(f);
    return read;
}

int vki_wg_store_save(const vki_wg_store *s, const char *path) {
    size_t n = strlen(path) + 8;
    char *tmp = malloc(n);
    if (!tmp) return 0;
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f != NULL;
    if (ok) ok = fprintf(f, HEADER "\n") > 0;
    for (int i = 0; ok && i < s->n; i++) {
        const vki_wg_entry *e = &s->entries[i];
        ok = fprintf(f, "%016" PRIx64 " %u %u %u %.6g\n", e->key, e->wg[0], e->wg[1], e->wg[2], e->ms) > 0;
    }
    if (f && fclose(f) != 0) ok = 0;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) remove(tmp);
    free(tmp);
    return ok;
}

void vki_wg_store_free(vki_wg_store *s) {
    free(s->entries);
    *s = (vki_wg_store){0};
}
