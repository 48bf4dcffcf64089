/* options.c: the one place public options are read: defaults filled in, values checked,
 * the environment (env.h) filling what the options leave zero. */
#include "options.h"

#include "gpu.h"
#include "model.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* VKI_DEVICE and vki_context_options.device share one syntax: an index counted from 0,
 * as vki_enumerate_devices and `vkinfer info` list them, or a part of a device name. */
static vki_status parse_device(const char *text, const char *source, vki_context_config *c) {
    c->device_index = -1;
    c->device_name = NULL;
    if (!text || !*text) return VKI_OK;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != 0) {
        c->device_name = text;
        return VKI_OK;
    }
    if (v < 0 || v > 1000)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "%s: device index %ld out of range", source, v);
    c->device_index = (int)v;
    return VKI_OK;
}

/* What the environment may fill: nothing where the options say to ignore it. */
static const char *env_of(int ignore, vki_env_id id) { return ignore ? NULL : vki_env_read(id); }

vki_status vki_context_config_resolve(const vki_context_options *o, vki_context_config *out) {
    static const vki_context_options none = {0};
    if (!o) o = &none;
    if (o->enable_validation < 0 || o->enable_validation > 2)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_context_create: enable_validation is "
                        "%d; 0 (off, or VKI_VALIDATION), 1 (report) or 2 (report and abort)",
                        o->enable_validation);
    const int ignore = o->ignore_environment != 0;
    *out = (vki_context_config){.disable_features = o->disable_features,
                                .log = o->log ? o->log : vki_log_stderr,
                                .log_user = o->log_user,
                                .ignore_environment = ignore};
    const char *env = env_of(ignore, VKI_ENV_DEVICE);
    vki_status s = o->device && *o->device ? parse_device(o->device, "vki_context_create", out)
                   : env ? parse_device(env, "VKI_DEVICE", out)
                         : parse_device(NULL, "vki_context_create", out);
    if (s) return s;
    out->validation = o->enable_validation;
    const char *validation = env_of(ignore, VKI_ENV_VALIDATION);
    if (!out->validation && validation && strcmp(validation, "0"))
        out->validation = !strcmp(validation, "fatal") ? 2 : 1;
    const char *dir = o->cache_dir ? o->cache_dir : env_of(ignore, VKI_ENV_CACHE_DIR);
    out->cache_dir = dir && *dir ? dir : NULL;
    const char *table = o->workgroup_table ? o->workgroup_table : env_of(ignore, VKI_ENV_WORKGROUP_TABLE);
    out->workgroup_table = table && *table ? table : NULL;
    const char *pack = o->kernel_pack ? o->kernel_pack : env_of(ignore, VKI_ENV_KERNEL_PACK);
    out->kernel_pack = pack && *pack ? pack : NULL;
    return VKI_OK;
}

/* VKI_DISABLE_PASSES: "all", or pass names (VKI_PASS_LIST) separated by commas. */
static vki_status passes_from_env(const char *env, unsigned *disable) {
    if (!env) return VKI_OK;
    if (!strcmp(env, "all")) {
        *disable = ~0u;
        return VKI_OK;
    }
    for (const char *p = env; *p;) {
        size_t n = strcspn(p, ",");
        unsigned bit = 0;
#define PASS_NAME_(name, b, text) \
        if (n == sizeof text - 1 && !strncmp(p, text, n)) bit = VKI_PASS_##name;
        VKI_PASS_LIST(PASS_NAME_)
#undef PASS_NAME_
        if (!bit)
#define PASS_TEXT_(name, b, text) text ", "
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "VKI_DISABLE_PASSES: unknown pass '%.*s' "
                            "(passes: " VKI_PASS_LIST(PASS_TEXT_) "or all)", (int)n, p);
#undef PASS_TEXT_
        *disable |= bit;
        p += n + (p[n] == ',');
    }
    return VKI_OK;
}

vki_status vki_graph_config_resolve(const vki_context *ctx, const vki_model *m,
                                    const vki_graph_options *o, vki_graph_config *out) {
    static const vki_graph_options none = {0};
    if (!o) o = &none;
    if ((unsigned)o->precision > VKI_PRECISION_FP16_STORAGE)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown precision %d",
                        (int)o->precision);
    if ((unsigned)o->memory >= VKI_MEMORY_STRATEGY_COUNT)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown memory strategy %d",
                        (int)o->memory);
    if ((unsigned)o->wait > VKI_WAIT_SPIN)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown wait mode %d",
                        (int)o->wait);
    if (o->n_fp32_ops > 0 && !o->fp32_ops)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: n_fp32_ops is %d but "
                        "fp32_ops is NULL", o->n_fp32_ops);
    /* File op numbers, as every message and the profile give them; precision.c finds the
     * ops that carry them. */
    int n_file_ops = vki_model_file_op_count(m);
    for (int i = 0; i < o->n_fp32_ops; i++)
        if (o->fp32_ops[i] < 0 || o->fp32_ops[i] >= n_file_ops)
            return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: fp32_ops[%d] = %d, "
                            "but %s has ops 0..%d (the file's operators)", i, o->fp32_ops[i],
                            m->name, n_file_ops - 1);
    int fp16 = o->precision != VKI_PRECISION_FP32;
    if (fp16 && !ctx->fp16_storage)
        return vki_fail(VKI_ERROR_DEVICE_FEATURE,
                        "%s: fp16 precision needs storageBuffer16BitAccess, which %s lacks "
                        "(or the context disabled)",
                        m->name, ctx->props.deviceName);
    if ((unsigned)o->warm_up > VKI_WARM_UP_OFF)
        return vki_fail(VKI_ERROR_INVALID_ARGUMENT, "vki_graph_create: unknown warm_up %d",
                        (int)o->warm_up);
    const int ignore = ctx->ignore_environment;
    unsigned disable = o->disable_passes;
    vki_status st = disable ? VKI_OK : passes_from_env(env_of(ignore, VKI_ENV_DISABLE_PASSES), &disable);
    if (st) return st;
    int cpu = ctx->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    const char *guards = env_of(ignore, VKI_ENV_DEBUG_GUARDS);
    *out = (vki_graph_config){
        .precision = o->precision,
        .fp16 = fp16,
        .fp16_arith = o->precision == VKI_PRECISION_FP16 && ctx->fp16_arithmetic,
        .int_dot = ctx->int_dot_product,
        .memory = o->memory,
        .spin_ns = o->wait == VKI_WAIT_SPIN ? UINT64_MAX
                   : o->wait == VKI_WAIT_AUTO && !cpu ? VKI_DEFAULT_SPIN_NS : 0,
        .fence_timeout_ns = o->run_timeout_ms ? o->run_timeout_ms * 1000000ull : VKI_FENCE_TIMEOUT_NS,
        .profile = o->profile != 0,
        .fp32_ops = o->n_fp32_ops > 0 ? o->fp32_ops : NULL,
        .n_fp32_ops = o->n_fp32_ops > 0 ? o->n_fp32_ops : 0,
        .tuning_file = o->tuning_file && *o->tuning_file ? o->tuning_file : NULL,
        .tune = o->tune != 0,
        .debug_guards = o->debug_guards || (guards && strcmp(guards, "0")),
        .passes = ~disable,
        .progress = o->progress,
        .progress_user = o->progress_user,
        .gpu_only = o->gpu_only != 0,
        .warm_up = o->warm_up != VKI_WARM_UP_OFF,
    };
    for (int i = 0; i < VKI_ENV_COUNT; i++) out->env[i] = env_of(ignore, (vki_env_id)i);
    return VKI_OK;
}
