/* half.h: IEEE 754 binary16 <-> binary32 conversion on the host (fp16 weights in models,
 * fp16 storage on the device). */
#ifndef VKI_HALF_H
#define VKI_HALF_H

#include <stdint.h>

float vki_half_to_float(uint16_t h);
/* Rounds to nearest even; overflow gives infinity, NaN stays NaN. */
uint16_t vki_float_to_half(float f);

#endif
