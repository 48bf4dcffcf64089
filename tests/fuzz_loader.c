/* fuzz_loader.c: libFuzzer target for the .tflite loader and the op listing: any bytes
 * must either load (or list) or be rejected with a status, with no crash, leak, or
 * undefined behaviour. */
#include "vkinfer.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    vki_model *m = NULL;
    /* libFuzzer may pass NULL for an empty input; the loader rightly refuses NULL. */
    static const uint8_t empty[1];
    if (vki_model_load_memory(size ? data : empty, size, "fuzz", &m) == VKI_OK)
        vki_model_destroy(m);
    vki_op_entry ops[16];
    int n;
    vki_model_list_ops_memory(size ? data : empty, size, ops, 16, &n);
    return 0;
}
