/* half.c: binary16 <-> binary32 conversions, exact for every value including subnormals,
 * infinities and NaN. */
#include "half.h"

#include <string.h>

float vki_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | man << 13;            /* inf, NaN keeps its payload */
    } else if (exp != 0) {
        bits = sign | (exp + 127 - 15) << 23 | man << 13;
    } else if (man == 0) {
        bits = sign;                                       /* signed zero */
    } else {
        /* Subnormal: man * 2^-24. Shift the leading one up to the implicit bit. */
        uint32_t e = 127 - 15 + 1;
        while (!(man & 0x400u)) { man <<= 1; e--; }
        bits = sign | e << 23 | (man & 0x3ffu) << 13;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t vki_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u)                                 /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  /* rounds past 65504 */
    if (abs < 0x38800000u) {                                /* subnormal half or zero */
        if (abs < 0x33000000u) return sign;                 /* below half the smallest */
        uint32_t man = (abs & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(abs >> 23);                 /* 14..24 */
        uint32_t half_man = man >> shift;
        uint32_t rest = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half_man & 1u))) half_man++;
        return (uint16_t)(sign | half_man);
    }
    uint32_t h = ((abs >> 13) - ((127u - 15u) << 10));
    uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return (uint16_t)(sign | h);
}
