/* env.h: every VKI_* environment variable the library reads, from one list. The
 * environment only fills what the application left zero (explicit options always win),
 * and a context created with vki_context_options.ignore_environment reads none of it.
 * docs/environment.md's table is generated from this list (tools/env_table.py, checked by
 * the env_table test). Vulkan-free. Internal. */
#ifndef VKI_ENV_H
#define VKI_ENV_H

/* X(ID, scope, effect): scope is when it is read, "context" (vki_context_create),
 * "graph" (vki_graph_create) or "kernel" (while a graph's ops emit: device sweeps and
 * tests that force a kernel form). */
#define VKI_ENV_LIST(X)                                                                    \
    X(DEVICE, "context", "The device when `vki_context_options.device` is NULL, in the "   \
      "same syntax: an index counted from 0 as `vkinfer devices` lists them, or a "          \
      "case-insensitive part of the device name.")                                          \
    X(VALIDATION, "context", "When `enable_validation` is 0: `1` enables the Khronos "      \
      "validation layer (as `enable_validation = 1`), `fatal` also calls abort() on the "    \
      "first validation error (as `enable_validation = 2`; for test suites). `0` or "       \
      "empty: off.")                                                                        \
    X(CACHE_DIR, "context", "The kernel and pipeline cache directory when `cache_dir` is "  \
      "NULL.")                                                                              \
    X(WORKGROUP_TABLE, "context", "A work-group table file when `workgroup_table` is NULL.") \
    X(KERNEL_PACK, "context", "A kernel pack file (`vkinfer pack`) loaded when "             \
      "`kernel_pack` is NULL.")                                                             \
    X(DISABLE_PASSES, "graph", "When `vki_graph_options.disable_passes` is 0: graph passes " \
      "to leave out, names separated by commas (`activation,dw_pw`), or `all`.")            \
    X(DEBUG_GUARDS, "graph", "When `debug_guards` is 0: `1` leaves guard bytes after every " \
      "tensor and checks them after every run.")                                            \
    X(CONV_KERNEL, "kernel", "Forces the convolution kernel: `direct`, `1x1`, `tiled` or "  \
      "`splitk`, optionally with a tile, `direct:S,X` (the pointwise forms only where the " \
      "window is 1x1; `splitk:1,K` sums over K threads, K a power of two up to 64; "      \
      "`tiled:S,X,K,C` splits each tile's sum over K parts of the work group, C input "    \
      "slices a part and round, K and C optional).")                                       \
    X(CONV_TILE, "kernel", "Forces the direct convolution's tile, `S,X` (output slices, "   \
      "pixels a thread).")                                                                  \
    X(DW_KERNEL, "kernel", "Forces the depthwise kernel: `direct` (a pixel a thread) or "   \
      "`cols[:N]` (N adjacent columns a thread, 1 to 8).")                                  \
    X(DWPW, "kernel", "Depthwise + 1x1 fusion: `0` fuses no pair, `1` every legal one, `2` " \
      "every legal one with the GPU tiling, `3` with the GPU's chunked tiling; unset: where " \
      "it was measured to pay. `:K` after any of these (or alone) splits the GPU whole "     \
      "tiles' 1x1 sums over K parts, 1, 2, 4 or 8 (default 4).")                             \
    X(BLOCK, "kernel", "Inverted residual blocks in one dispatch (the block pass): `0` "       \
      "fuses none, `1` every legal one that fits (on any device); unset: where it was "      \
      "measured to pay. `:T` after either (or alone) forces tiles of T x T output pixels, " \
      "T a power of two up to 16.")                                                         \
    X(FC_SPLIT, "kernel", "Forces FULLY_CONNECTED's lanes per output slice where its input " \
      "is one row: `N`, a power of two up to 256 (`1`: a thread per output slice, CPU "       \
      "devices' default).")                                                                   \
    X(SQUEEZE, "kernel", "The squeeze kernel's work group (the squeeze pass): `L` lanes, a " \
      "power of two from 32 to the device's limit, where the block fits (default: 1024 on " \
      "GPUs, 64 on CPU devices).")

typedef enum vki_env_id {
#define VKI_ENV_ENUM_(id, scope, effect) VKI_ENV_##id,
    VKI_ENV_LIST(VKI_ENV_ENUM_)
#undef VKI_ENV_ENUM_
    VKI_ENV_COUNT
} vki_env_id;

/* "VKI_DEVICE" for VKI_ENV_DEVICE. */
const char *vki_env_name(vki_env_id id);
/* The variable's value, or NULL where it is unset or empty. The one getenv of the
 * library; callers that honour ignore_environment go through the context or the build. */
const char *vki_env_read(vki_env_id id);

#endif
