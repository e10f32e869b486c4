// Both functions live in this one file on purpose: valgrind 3.19 (the callgrind used to tune
// the codecs) cannot read the DWARF 5 string offsets of a binary with more than one C unit.

#include "CTroveFastPaths.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// MARK: - %.17g

typedef unsigned __int128 u128;

static const uint64_t ten16 = 10000000000000000ULL;
static const uint64_t ten17 = 100000000000000000ULL;

static u128 power_of(uint64_t base, int exponent) {
    u128 p = 1;
    while (exponent-- > 0) p *= base;
    return p;
}

/// The 17 significant digits of `m * 2^e` (m < 2^53) correctly rounded, half to even, as the
/// integer `*digits` in [10^16, 10^17) with `*exponent` the decimal exponent of the first digit.
/// Exact: every step is integer arithmetic on at most 128 bits. Returns 0 when the value is
/// outside the range where that holds (below about 1e-11 or from 2^74 on); the caller then asks
/// `snprintf`.
static int round_to_17_digits(uint64_t m, int e, uint64_t *digits, int *exponent) {
    int bits = 64 - __builtin_clzll(m);
    // floor(log10(m * 2^e)) or one below it: log10(2) is a little over 0.30103.
    int x = (int)(((long)(e + bits - 1) * 78913L) >> 18);
    for (int attempt = 0; attempt < 3; attempt++) {
        int k = 16 - x;
        u128 quotient, remainder, divisor;
        if (k >= 0) {
            // m * 10^k / 2^-e: m * 5^k fits in 128 bits while k <= 27.
            if (k > 27) return 0;
            u128 scaled = (u128)m * power_of(5, k);
            int shift = e + k;
            if (shift >= 0) {
                if (shift > 10) return 0;
                quotient = scaled << shift;
                remainder = 0;
                divisor = 1;
            } else {
                if (-shift > 120) return 0;
                quotient = scaled >> -shift;
                remainder = scaled & (((u128)1 << -shift) - 1);
                divisor = (u128)1 << -shift;
            }
        } else {
            // m * 2^e / 10^-k: needs e >= 0 (true for every value of 17 digits or more before
            // the point) and m * 2^e below 2^128.
            if (e < 0 || e > 74 || -k > 38) return 0;
            u128 numerator = (u128)m << e;
            divisor = power_of(10, -k);
            quotient = numerator / divisor;
            remainder = numerator % divisor;
        }
        if (quotient < ten16) { x -= 1; continue; }
        if (quotient >= ten17) { x += 1; continue; }
        uint64_t n = (uint64_t)quotient;
        // Round half to even on the exact remainder, as glibc's printf does.
        u128 twice = remainder * 2;
        if (twice > divisor || (twice == divisor && (n & 1))) n += 1;
        if (n == ten17) {
            n = ten16;
            x += 1;
        }
        *digits = n;
        *exponent = x;
        return 1;
    }
    return 0;
}

/// Writes `%.17g` of the 17 digits `n` with decimal exponent `x`: trailing zeros dropped, plain
/// notation for exponents -4 through 16, else `d.ddde±XX`.
static int write_g17(char *out, int negative, uint64_t n, int x) {
    char d[17];
    for (int i = 16; i >= 0; i--) {
        d[i] = (char)('0' + n % 10);
        n /= 10;
    }
    int length = 17;
    while (length > 1 && d[length - 1] == '0') length--;
    int o = 0;
    if (negative) out[o++] = '-';
    if (x < -4 || x >= 17) {
        out[o++] = d[0];
        if (length > 1) {
            out[o++] = '.';
            for (int i = 1; i < length; i++) out[o++] = d[i];
        }
        out[o++] = 'e';
        out[o++] = x < 0 ? '-' : '+';
        int magnitude = x < 0 ? -x : x;
        if (magnitude >= 100) out[o++] = (char)('0' + magnitude / 100);
        out[o++] = (char)('0' + magnitude / 10 % 10);
        out[o++] = (char)('0' + magnitude % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++) out[o++] = i < length ? d[i] : '0';
        if (length > x + 1) {
            out[o++] = '.';
            for (int i = x + 1; i < length; i++) out[o++] = d[i];
        }
    } else {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = 0; i < -x - 1; i++) out[o++] = '0';
        for (int i = 0; i < length; i++) out[o++] = d[i];
    }
    out[o] = 0;
    return o;
}

int trove_format_real_g17(char *buffer, size_t capacity, double value) {
    // glibc's printf spends thousands of instructions on a double (it works in multi-precision
    // for every digit); the numbers of real documents fit the exact 128-bit path above, and
    // everything else (zero, subnormals, huge or tiny magnitudes, NaN, infinity) still goes to
    // snprintf, so the output is snprintf's in every case. 28 bytes is the longest result.
    uint64_t bits;
    memcpy(&bits, &value, 8);
    int biased = (int)((bits >> 52) & 0x7FF);
    uint64_t fraction = bits & ((1ULL << 52) - 1);
    if (capacity >= 28 && biased != 0 && biased != 0x7FF) {
        uint64_t digits;
        int exponent;
        if (round_to_17_digits(fraction | (1ULL << 52), biased - 1075, &digits, &exponent)) {
            return write_g17(buffer, (int)(bits >> 63), digits, exponent);
        }
    }
    return snprintf(buffer, capacity, "%.17g", value);
}

// MARK: - Decimal to double

/// `x * 2^exponent`, rounded to the nearest double (half to even), where `sticky` says whether
/// nonzero bits below `x` were dropped before. 0 when the result would not be a normal double.
static int round_to_double(u128 x, int sticky, int exponent, double *out) {
    int high = (uint64_t)(x >> 64) ? 128 - __builtin_clzll((uint64_t)(x >> 64)) : 64 - __builtin_clzll((uint64_t)x);
    uint64_t mantissa;
    if (high <= 53) {
        if (sticky) return 0;  // cannot happen for the callers' ranges; be safe
        mantissa = (uint64_t)x;
    } else {
        int shift = high - 53;
        mantissa = (uint64_t)(x >> shift);
        u128 rest = x & (((u128)1 << shift) - 1);
        u128 half = (u128)1 << (shift - 1);
        if (rest > half || (rest == half && (sticky || (mantissa & 1)))) mantissa += 1;
        exponent += shift;
        if (mantissa == (1ULL << 53)) {
            mantissa >>= 1;
            exponent += 1;
        }
    }
    // mantissa * 2^exponent is exact in a double when it stays in the normal range.
    int top = exponent + (64 - __builtin_clzll(mantissa)) - 1;
    if (top < -1022 || top > 1023) return 0;
    *out = ldexp((double)mantissa, exponent);
    return 1;
}

int trove_parse_decimal(const unsigned char *text, size_t count, double *out) {
    size_t i = 0;
    int negative = 0;
    if (i < count && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    uint64_t w = 0;
    int significant = 0, exponent10 = 0, seenDigit = 0;
    for (int afterPoint = 0; i < count; i++) {
        unsigned char c = text[i];
        if (c == '.' && !afterPoint) {
            afterPoint = 1;
            continue;
        }
        if (c < '0' || c > '9') break;
        seenDigit = 1;
        if (w == 0 && c == '0') {
            if (afterPoint) exponent10 -= 1;
            continue;
        }
        if (++significant > 19) return 0;
        w = w * 10 + (uint64_t)(c - '0');
        if (afterPoint) exponent10 -= 1;
    }
    if (!seenDigit) return 0;
    if (i < count && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int negativeExponent = 0;
        if (i < count && (text[i] == '+' || text[i] == '-')) negativeExponent = text[i++] == '-';
        int e = 0;
        if (i >= count) return 0;
        for (; i < count && text[i] >= '0' && text[i] <= '9'; i++) {
            if (e > 10000) return 0;
            e = e * 10 + (text[i] - '0');
        }
        exponent10 += negativeExponent ? -e : e;
    }
    if (i != count) return 0;
    if (w == 0) {
        *out = negative ? -0.0 : 0.0;
        return 1;
    }
    double value;
    if (exponent10 >= 0) {
        // w * 10^q is exact in 128 bits while q <= 19.
        if (exponent10 > 19) return 0;
        if (!round_to_double((u128)w * power_of(10, exponent10), 0, 0, &value)) return 0;
    } else {
        // w / 10^-q: w shifted to the top of 128 bits, divided, keeps at least 55 bits of
        // quotient while 10^-q stays below 2^73 (q >= -21); the remainder is the sticky bit.
        if (exponent10 < -21) return 0;
        int bits = 64 - __builtin_clzll(w);
        int shift = 128 - bits;
        u128 divisor = power_of(10, -exponent10);
        u128 numerator = (u128)w << shift;
        u128 quotient = numerator / divisor;
        u128 remainder = numerator % divisor;
        if ((quotient >> 55) == 0) return 0;
        if (!round_to_double(quotient, remainder != 0, -shift, &value)) return 0;
    }
    *out = negative ? -value : value;
    return 1;
}

/// Test hook: `%.17g` through `snprintf` alone, to check the fast path against.
int trove_format_real_g17_reference(char *buffer, size_t capacity, double value) {
    return snprintf(buffer, capacity, "%.17g", value);
}

/// Whether a byte of `w` is a control other than tab and newline, or 0xEF: exact per byte, since
/// `(x & 0x7F) + k` never carries into the next byte.
static inline uint64_t control_or_ef_bytes(uint64_t w) {
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL, high = 0x8080808080808080ULL;
    uint64_t below20 = ~(((w & low7) + 0x6060606060606060ULL) | w) & high;
    uint64_t x = w ^ 0xEFEFEFEFEFEFEFEFULL;
    uint64_t ef = ~(((x & low7) + low7) | x) & high;
    if (below20 == 0) return ef;
    uint64_t t = w ^ 0x0909090909090909ULL, n = w ^ 0x0A0A0A0A0A0A0A0AULL;
    uint64_t tab = ~(((t & low7) + low7) | t) & high;
    uint64_t newline = ~(((n & low7) + low7) | n) & high;
    return (below20 & ~tab & ~newline) | ef;
}

size_t trove_first_control_or_ef(const unsigned char *bytes, size_t count) {
    size_t i = 0;
    // Blocks of 64 bytes tested without a branch per byte, which the compiler turns into vector
    // compares; the block that holds a hit is then searched by the word loop below.
    for (; i + 64 <= count; i += 64) {
        unsigned char hit = 0;
        for (size_t k = 0; k < 64; k++) {
            unsigned char c = bytes[i + k];
            hit |= (unsigned char)(((c < 0x20) & (c != 0x09) & (c != 0x0A)) | (c == 0xEF));
        }
        if (hit) break;
    }
    // Eight bytes a step for the rest: most calls are for the short text between two tags.
    for (; i + 8 <= count; i += 8) {
        uint64_t w;
        memcpy(&w, bytes + i, 8);
        uint64_t hits = control_or_ef_bytes(w);
        // Little-endian x86-64 and arm64: the lowest set bit is the first byte in memory.
        if (hits) return i + (size_t)(__builtin_ctzll(hits) >> 3);
    }
    for (; i < count; i++) {
        unsigned char c = bytes[i];
        if ((c < 0x20 && c != 0x09 && c != 0x0A) || c == 0xEF) return i;
    }
    return count;
}
