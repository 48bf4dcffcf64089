/* loader.h: the .tflite parser's internal entry point (no validation against the ops). */
#ifndef VKI_LOADER_H
#define VKI_LOADER_H

#include "model.h"

/* Parses TFLite FlatBuffer bytes into the IR. Uses subgraph 0. Constant data is copied,
 * so the caller may free data afterwards. Load-time rewrites:
 *   - DEQUANTIZE of a constant float16 tensor is folded away: its output becomes a
 *     float32 constant and the op leaves the op list;
 *   - sparse constants are densified and DENSIFY of a constant is folded away;
 *   - every other float16 constant is converted to float32 in place;
 *   - tensors that no op and no graph input/output refers to are dropped, so tensor
 *     indices in the IR can differ from those in the file (names are kept).
 * Errors: VKI_ERROR_INVALID_ARGUMENT (NULL arguments), VKI_ERROR_MODEL_FORMAT (the bytes
 * are not a well-formed model; the message says what is wrong and where),
 * VKI_ERROR_UNSUPPORTED_MODEL / VKI_ERROR_UNSUPPORTED_OP (well-formed but beyond the IR,
 * e.g. rank > VKI_MAX_RANK, too many op inputs), VKI_ERROR_OUT_OF_MEMORY.
 * On failure *out is NULL. */
vki_status vki_tflite_parse(const void *data, size_t size, const char *name, vki_model **out);

/* A whole file into a malloc'd buffer (a model, the work-group table file).
 * VKI_ERROR_IO names the path and the cause; VKI_ERROR_OUT_OF_MEMORY. */
vki_status vki_read_whole_file(const char *path, uint8_t **buf, size_t *size);


#endif /* VKI_LOADER_H */
