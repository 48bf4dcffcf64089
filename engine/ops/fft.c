/* fft.c: RFFT2D and the complex64 ops after it (REAL, IMAG, COMPLEX_ABS), on the CPU: an
 * audio front end's spectrogram. A complex64 tensor's host values are its elements' real and
 * imaginary parts, interleaved (vki_tensor_values: twice its elements); no GPU op takes one.
 *   RFFT2D: input float32 [..., H, W], fft_length a constant [fh, fw] (powers of 2); each
 *     inner [H, W] is cropped or zero-padded to [fh, fw] and transformed,
 *     X[k1, k2] = sum x[n1, n2] exp(-2 pi i (k1 n1 / fh + k2 n2 / fw)), k2 = 0 .. fw/2: the
 *     output is complex64 [..., fh, fw/2 + 1] (TFLite's rfft2d.cc).
 *   REAL, IMAG, COMPLEX_ABS: a complex64 tensor's parts or magnitudes, float32, same shape.
 * run: a radix-2 FFT along each axis, in double, O(n log n); the reference sums the
 * definition directly in double, O(n^2). */
#include "ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static vki_status check_io2(const vki_model *m, int o, int n_in, int n_out) {
    const vki_op *op = &m->ops[o];
    if (op->n_inputs != n_in || op->n_outputs != n_out)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "has %d inputs and %d outputs, need %d "
                           "and %d", op->n_inputs, op->n_outputs, n_in, n_out);
    for (int i = 0; i < n_in; i++)
        if (op->inputs[i] < 0 || op->inputs[i] >= m->n_tensors)
            return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input %d: tensor index %d out of "
                               "range", i, op->inputs[i]);
    if (op->outputs[0] < 0 || op->outputs[0] >= m->n_tensors)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "output: tensor index %d out of range",
                           op->outputs[0]);
    return VKI_OK;
}

static vki_status check_dtype(const vki_model *m, int o, int t, vki_dtype want, const char *role) {
    const vki_tensor *x = &m->tensors[t];
    if (x->dtype != want)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "%s (tensor %d '%s') is %s, need %s", role,
                           t, x->name, vki_dtype_name(x->dtype), vki_dtype_name(want));
    return VKI_OK;
}

static int power_of_two(int n) { return n >= 1 && (n & (n - 1)) == 0; }

static vki_status validate_rfft2d(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = check_io2(m, o, 2, 1);
    if (!s) s = check_dtype(m, o, op->inputs[0], VKI_DTYPE_FLOAT32, "input");
    if (!s) s = check_dtype(m, o, op->outputs[0], VKI_DTYPE_COMPLEX64, "output");
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    if (in->rank < 2)
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "input (tensor %d '%s') has rank %d, need "
                           "2 or more", op->inputs[0], in->name, in->rank);
    const int32_t *len;
    int n;
    s = vki_op_int_values(m, o, 1, "fft_length", 2, 2, &len, &n);
    if (s) return s;
    if (!power_of_two(len[0]) || !power_of_two(len[1]) || len[0] > (1 << 16) || len[1] > (1 << 16))
        return vki_op_fail(m, o, VKI_ERROR_MODEL_FORMAT, "fft_length [%d,%d]: each a power of 2 "
                           "up to 65536", len[0], len[1]);
    int dims[VKI_MAX_RANK];
    memcpy(dims, in->shape, sizeof(int) * (size_t)in->rank);
    dims[in->rank - 2] = len[0];
    dims[in->rank - 1] = len[1] / 2 + 1;
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, dims);
}

static vki_status validate_part(const vki_model *m, int o) {
    const vki_op *op = &m->ops[o];
    vki_status s = check_io2(m, o, 1, 1);
    if (!s) s = check_dtype(m, o, op->inputs[0], VKI_DTYPE_COMPLEX64, "input");
    if (!s) s = check_dtype(m, o, op->outputs[0], VKI_DTYPE_FLOAT32, "output");
    if (s) return s;
    const vki_tensor *in = vki_op_in(m, op, 0);
    return vki_op_expect_dims(m, o, op->outputs[0], in->rank, in->shape);
}

typedef struct rfft_shape { size_t batches; int h, w, fh, fw, ow; } rfft_shape;

static rfft_shape rfft_shape_of(const vki_model *m, const vki_op *op) {
    const vki_tensor *in = vki_op_in(m, op, 0), *out = vki_op_out(m, op, 0);
    rfft_shape r = {1, in->shape[in->rank - 2], in->shape[in->rank - 1],
                    out->shape[in->rank - 2], 0, out->shape[in->rank - 1]};
    r.fw = 2 * (r.ow - 1) > 0 ? 2 * (r.ow - 1) : 1;
    for (int i = 0; i + 2 < in->rank; i++) r.batches *= (size_t)in->shape[i];
    return r;
}

/* fft_length's second value, as the output's last extent (fw/2 + 1) cannot tell fw 1 from 2. */
static int fft_w(const vki_model *m, const vki_op *op) {
    return ((const int32_t *)m->tensors[op->inputs[1]].data)[1];
}

static void reference_rfft2d(const vki_model *m, const vki_op *op, const float *const *inputs,
                             float *const *outputs) {
    rfft_shape r = rfft_shape_of(m, op);
    r.fw = fft_w(m, op);
    const double two_pi = 6.283185307179586476925287;
    for (size_t b = 0; b < r.batches; b++) {
        const float *x = inputs[0] + b * (size_t)r.h * (size_t)r.w;
        float *y = outputs[0] + b * (size_t)r.fh * (size_t)r.ow * 2;
        for (int k1 = 0; k1 < r.fh; k1++)
            for (int k2 = 0; k2 < r.ow; k2++) {
                double re = 0, im = 0;
                for (int n1 = 0; n1 < r.fh && n1 < r.h; n1++)
                    for (int n2 = 0; n2 < r.fw && n2 < r.w; n2++) {
                        double a = -two_pi * ((double)k1 * n1 / r.fh + (double)k2 * n2 / r.fw);
                        re += x[(size_t)n1 * r.w + n2] * cos(a);
                        im += x[(size_t)n1 * r.w + n2] * sin(a);
                    }
                y[((size_t)k1 * r.ow + k2) * 2] = (float)re;
                y[((size_t)k1 * r.ow + k2) * 2 + 1] = (float)im;
            }
    }
}

/* In-place radix-2 FFT of n (a power of 2) complex values at stride `step` (complex units). */
static void fft(double *re, double *im, int n, size_t step) {
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            double t = re[i * step]; re[i * step] = re[j * step]; re[j * step] = t;
            t = im[i * step]; im[i * step] = im[j * step]; im[j * step] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        const double a = -6.283185307179586476925287 / len;
        for (int i = 0; i < n; i += len)
            for (int k = 0; k < len / 2; k++) {
                const double c = cos(a * k), s = sin(a * k);
                const size_t p = (size_t)(i + k) * step, q = (size_t)(i + k + len / 2) * step;
                const double xr = re[q] * c - im[q] * s, xi = re[q] * s + im[q] * c;
                re[q] = re[p] - xr;
                im[q] = im[p] - xi;
                re[p] += xr;
                im[p] += xi;
            }
    }
}

static vki_status run_rfft2d(const vki_model *m, int o, const float *const *inputs,
                             float *const *outputs) {
    const vki_op *op = &m->ops[o];
    rfft_shape r = rfft_shape_of(m, op);
    r.fw = fft_w(m, op);
    const size_t n = (size_t)r.fh * (size_t)r.fw;
    double *re = malloc(n * sizeof *re), *im = malloc(n * sizeof *im);
    if (!re || !im) {
        free(re);
        free(im);
        return vki_op_fail(m, o, VKI_ERROR_OUT_OF_MEMORY, "out of host memory");
    }
    for (size_t b = 0; b < r.batches; b++) {
        const float *x = inputs[0] + b * (size_t)r.h * (size_t)r.w;
        for (int n1 = 0; n1 < r.fh; n1++)
            for (int n2 = 0; n2 < r.fw; n2++) {
                re[(size_t)n1 * r.fw + n2] = n1 < r.h && n2 < r.w ? x[(size_t)n1 * r.w + n2] : 0.0;
                im[(size_t)n1 * r.fw + n2] = 0.0;
            }
        for (int n1 = 0; n1 < r.fh; n1++) fft(re + (size_t)n1 * r.fw, im + (size_t)n1 * r.fw, r.fw, 1);
        for (int k2 = 0; k2 < r.ow; k2++) fft(re + k2, im + k2, r.fh, (size_t)r.fw);
        float *y = outputs[0] + b * (size_t)r.fh * (size_t)r.ow * 2;
        for (int k1 = 0; k1 < r.fh; k1++)
            for (int k2 = 0; k2 < r.ow; k2++) {
                y[((size_t)k1 * r.ow + k2) * 2] = (float)re[(size_t)k1 * r.fw + k2];
                y[((size_t)k1 * r.ow + k2) * 2 + 1] = (float)im[(size_t)k1 * r.fw + k2];
            }
    }
    free(re);
    free(im);
    return VKI_OK;
}

/* REAL, IMAG, COMPLEX_ABS: linear, the reference serves. */
static void reference_part(const vki_model *m, const vki_op *op, const float *const *inputs,
                           float *const *outputs) {
    const size_t n = vki_tensor_elements(vki_op_out(m, op, 0));
    const float *z = inputs[0];
    for (size_t i = 0; i < n; i++)
        outputs[0][i] = op->code == VKI_OP_REAL ? z[2 * i]
                      : op->code == VKI_OP_IMAG ? z[2 * i + 1]
                                                : hypotf(z[2 * i], z[2 * i + 1]);
}

const vki_op_def vki_op_rfft2d = {.validate = validate_rfft2d, .reference = reference_rfft2d,
                                  .run = run_rfft2d, .general = true};
const vki_op_def vki_op_real = {.validate = validate_part, .reference = reference_part, .general = true};
const vki_op_def vki_op_imag = {.validate = validate_part, .reference = reference_part, .general = true};
const vki_op_def vki_op_complex_abs = {.validate = validate_part, .reference = reference_part, .general = true};
