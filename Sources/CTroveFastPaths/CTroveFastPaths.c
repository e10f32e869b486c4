// Every C fast path lives in this one file on purpose: valgrind 3.19 (the callgrind used to tune
// the codecs) cannot read the DWARF 5 string offsets of a binary with more than one C unit.

#include "CTroveFastPaths.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// MARK: - XML prescan

static inline int ends_name(unsigned char c) {
    return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t trove_skip_plain_markup(const unsigned char *b, size_t count, size_t start, int *saw_start_tag) {
    size_t i = start;
    while (i < count) {
        const unsigned char *found = memchr(b + i, '<', count - i);
        if (!found) return count;
        size_t lt = (size_t)(found - b);
        size_t k = lt + 1;
        if (k >= count) return count;
        unsigned char c = b[k];
        if (c == '/') {
            const unsigned char *gt = memchr(b + k, '>', count - k);
            if (!gt) return count;
            i = (size_t)(gt - b) + 1;
            continue;
        }
        if (c == '?' || c == '!') return lt;
        while (k < count && !ends_name(b[k])) k++;
        if (k < count && b[k] == '>') {
            *saw_start_tag = 1;
            i = k + 1;
            continue;
        }
        if (k + 1 < count && b[k] == '/' && b[k + 1] == '>') {
            *saw_start_tag = 1;
            i = k + 2;
            continue;
        }
        return lt;
    }
    return count;
}

// MARK: - %.17g

typedef unsigned __int128 u128;

static const uint64_t ten16 = 10000000000000000ULL;
static const uint64_t ten17 = 100000000000000000ULL;

/// 5^0 ... 5^27, the powers of five below 2^64. Both directions split a power of ten into a power
/// of five, which is multiplied or divided, and a power of two, which only moves the binary point:
/// the five part stays within 64 bits over the whole fast range.
static const uint64_t powers_of_five[28] = {
    1ULL, 5ULL, 25ULL, 125ULL, 625ULL, 3125ULL, 15625ULL, 78125ULL, 390625ULL, 1953125ULL,
    9765625ULL, 48828125ULL, 244140625ULL, 1220703125ULL, 6103515625ULL, 30517578125ULL,
    152587890625ULL, 762939453125ULL, 3814697265625ULL, 19073486328125ULL, 95367431640625ULL,
    476837158203125ULL, 2384185791015625ULL, 11920928955078125ULL, 59604644775390625ULL,
    298023223876953125ULL, 1490116119384765625ULL, 7450580596923828125ULL,
};

/// `n / d` and the remainder, for a 64-bit divisor: two 128-by-64 hardware divisions on x86-64
/// (each quotient fits 64 bits because the high part is reduced first) instead of the general
/// 128-by-128 routine.
static inline u128 divide(u128 n, uint64_t d, uint64_t *remainder) {
#if defined(__x86_64__)
    uint64_t high = (uint64_t)(n >> 64), low = (uint64_t)n;
    uint64_t q1 = high / d, r1 = high % d, q0, r0;
    __asm__("divq %4" : "=a"(q0), "=d"(r0) : "a"(low), "d"(r1), "r"(d));
    *remainder = r0;
    return ((u128)q1 << 64) | q0;
#else
    u128 q = n / d;
    *remainder = (uint64_t)(n - q * d);
    return q;
#endif
}

/// The 17 significant digits of `m * 2^e` (m < 2^53) correctly rounded, half to even, as the
/// integer `*digits` in [10^16, 10^17) with `*exponent` the decimal exponent of the first digit.
/// Exact: every step is integer arithmetic on at most 128 bits. Returns 0 when the value is
/// outside the range where that holds (below about 1e-11 or above about 1e43); the caller then asks
/// `snprintf`.
static int round_to_17_digits(uint64_t m, int e, uint64_t *digits, int *exponent) {
    int bits = 64 - __builtin_clzll(m);
    // floor(log10(m * 2^e)) or one below it: log10(2) is a little over 0.30103.
    int x = (int)(((long)(e + bits - 1) * 78913L) >> 18);
    for (int attempt = 0; attempt < 3; attempt++) {
        int k = 16 - x;
        u128 quotient, remainder, divisor;
        if (k >= 0) {
            // m * 10^k = m * 5^k * 2^k, then moved by 2^e: m * 5^k fits in 128 bits while k <= 27.
            if (k > 27) return 0;
            u128 scaled = (u128)m * powers_of_five[k];
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
            // m * 2^e / 10^-k = (m * 2^(e + k)) / 5^-k, where e + k >= 0 for every value of 17
            // digits or more before the point, and m * 2^(e + k) must stay below 2^128.
            int shift = e + k;
            if (-k > 27 || shift < 0 || shift > 74) return 0;
            uint64_t rest;
            quotient = divide((u128)m << shift, powers_of_five[-k], &rest);
            remainder = rest;
            divisor = powers_of_five[-k];
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

/// The eight decimal digits of `v` (below 10^8), leading zeros included, as ASCII with the first
/// digit in the lowest byte (to be stored little-endian): `v` is split into lanes of 4, then 2,
/// then 1 digit, each split a multiply and shift instead of a division per digit.
static inline uint64_t eight_ascii_digits(uint32_t v) {
    // Lanes of 32 bits: the first four digits, the last four.
    uint64_t fours = (uint64_t)(v / 10000) | ((uint64_t)(v % 10000) << 32);
    // x / 100 for x < 10^4 is (x * 10486) >> 20; the lanes cannot carry into each other.
    uint64_t hundreds = ((fours * 10486) >> 20) & 0x0000007F0000007FULL;
    uint64_t twos = hundreds | ((fours - 100 * hundreds) << 16);
    // x / 10 for x < 100 is (x * 103) >> 10, in lanes of 16 bits.
    uint64_t tens = ((twos * 103) >> 10) & 0x000F000F000F000FULL;
    uint64_t ones = tens | ((twos - 10 * tens) << 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return ones + 0x3030303030303030ULL;
#else
    return __builtin_bswap64(ones + 0x3030303030303030ULL);
#endif
}

/// Writes the 17 digits of `n` (in [10^16, 10^17)) into `d` as ASCII and returns how many are
/// left when trailing zeros are dropped, at least 1.
static inline int seventeen_digits(uint64_t n, char d[17]) {
    uint64_t rest = n % ten16;
    d[0] = (char)('0' + n / ten16);
    uint64_t high = eight_ascii_digits((uint32_t)(rest / 100000000ULL));
    uint64_t low = eight_ascii_digits((uint32_t)(rest % 100000000ULL));
    memcpy(d + 1, &high, 8);
    memcpy(d + 9, &low, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // The last digit other than `0` is the highest byte of the words that is not 0x30.
    uint64_t lowDigits = low ^ 0x3030303030303030ULL, highDigits = high ^ 0x3030303030303030ULL;
    if (lowDigits) return 9 + (63 - __builtin_clzll(lowDigits)) / 8 + 1;
    if (highDigits) return 1 + (63 - __builtin_clzll(highDigits)) / 8 + 1;
    return 1;
#else
    int length = 17;
    while (length > 1 && d[length - 1] == '0') length--;
    return length;
#endif
}

/// Writes `%.17g` of the 17 digits `n` with decimal exponent `x`: trailing zeros dropped, plain
/// notation for exponents -4 through 16, else `d.ddde±XX`.
static int write_g17(char *out, int negative, uint64_t n, int x) {
    char d[17];
    int length = seventeen_digits(n, d);
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

int trove_real_is_g17(const unsigned char *text, size_t count, double value) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    int biased = (int)((bits >> 52) & 0x7FF);
    uint64_t fraction = bits & ((1ULL << 52) - 1);
    uint64_t digits;
    int exponent;
    if (biased == 0 || biased == 0x7FF ||
        !round_to_17_digits(fraction | (1ULL << 52), biased - 1075, &digits, &exponent)) {
        return -1;
    }
    // Compared piece by piece with what `write_g17` would write, without writing it.
    char d[17];
    size_t length = (size_t)seventeen_digits(digits, d);
    size_t o = 0;
    if (bits >> 63) {
        if (count == 0 || text[0] != '-') return 0;
        o = 1;
    }
    int x = exponent;
    if (x < -4 || x >= 17) {
        size_t mantissa = length > 1 ? length + 1 : 1;
        unsigned magnitude = (unsigned)(x < 0 ? -x : x);
        size_t exponentDigits = magnitude >= 100 ? 3 : 2;
        if (count != o + mantissa + 2 + exponentDigits || text[o] != (unsigned char)d[0]) return 0;
        if (length > 1 && (text[o + 1] != '.' || memcmp(text + o + 2, d + 1, length - 1) != 0)) return 0;
        const unsigned char *e = text + o + mantissa;
        if (e[0] != 'e' || e[1] != (x < 0 ? '-' : '+')) return 0;
        unsigned char spelled[3] = {
            (unsigned char)('0' + magnitude / 100), (unsigned char)('0' + magnitude / 10 % 10), (unsigned char)('0' + magnitude % 10)
        };
        return memcmp(e + 2, spelled + 3 - exponentDigits, exponentDigits) == 0;
    }
    if (x >= 0) {
        // The digits before the point (zeros past `length` are in `d` too), then the rest.
        size_t whole = (size_t)x + 1;
        size_t fraction = length > whole ? length - whole : 0;
        if (count != o + whole + (fraction ? fraction + 1 : 0) || memcmp(text + o, d, whole) != 0) return 0;
        return fraction == 0 || (text[o + whole] == '.' && memcmp(text + o + whole + 1, d + whole, fraction) == 0);
    }
    // `0.`, the zeros after the point, the digits.
    size_t zeros = (size_t)(-x - 1);
    if (count != o + 2 + zeros + length || text[o] != '0' || text[o + 1] != '.') return 0;
    for (size_t i = 0; i < zeros; i++) {
        if (text[o + 2 + i] != '0') return 0;
    }
    return memcmp(text + o + 2 + zeros, d, length) == 0;
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

/// True when all eight bytes of `v` are ASCII digits: each byte's high nibble is 3, and stays 3
/// after adding 6 (which carries 0x3A...0x3F into 0x4_). No byte can carry into the next.
static inline int all_digits(uint64_t v) {
    const uint64_t high = 0xF0F0F0F0F0F0F0F0ULL, threes = 0x3030303030303030ULL;
    return (v & high) == threes && ((v + 0x0606060606060606ULL) & high) == threes;
}

/// The number eight ASCII digits spell, first digit in the lowest byte (little-endian load):
/// neighbouring digits are combined into lanes of 2, then 4, then 8 digits.
static inline uint64_t eight_digits(uint64_t v) {
    v -= 0x3030303030303030ULL;
    v = (v & 0x00FF00FF00FF00FFULL) * 10 + ((v >> 8) & 0x00FF00FF00FF00FFULL);
    v = (v & 0x0000FFFF0000FFFFULL) * 100 + ((v >> 16) & 0x0000FFFF0000FFFFULL);
    return (v & 0xFFFFFFFFULL) * 10000 + (v >> 32);
}

/// Appends the digits at `text[*i...]` to `*w`, eight at a time where it can; returns how many.
static inline size_t take_digits(const unsigned char *text, size_t count, size_t *i, uint64_t *w) {
    size_t start = *i, k = *i;
    uint64_t value = *w;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (k + 8 <= count) {
        uint64_t chunk;
        memcpy(&chunk, text + k, 8);
        if (!all_digits(chunk)) break;
        value = value * 100000000ULL + eight_digits(chunk);
        k += 8;
    }
#endif
    while (k < count && text[k] >= '0' && text[k] <= '9') value = value * 10 + (uint64_t)(text[k++] - '0');
    *i = k;
    *w = value;
    return k - start;
}

/// 10^0 ... 10^16.
static const uint64_t powers_of_ten[17] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
    10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
    10000000000000000ULL,
};

/// The sign of `a * m - 2^shift` (`shift` below 128), without the product overflowing.
static inline int compare_product_with_power_of_two(u128 a, uint64_t m, int shift) {
    u128 low = (u128)(uint64_t)a * m;
    u128 high = (u128)(uint64_t)(a >> 64) * m + (low >> 64);
    if (high >> 64) return 1;
    u128 product = (high << 64) | (uint64_t)low;
    u128 power = (u128)1 << shift;
    return product < power ? -1 : product > power;
}

/// How far `value` (positive, normal), which rounding `x * 2^exponent` gave, lies from
/// `x * 2^exponent`, in units of `2^exponent`: the distance's magnitude, and its sign in
/// `*above` (1 when `value` is the larger).
static inline u128 rounding_distance(u128 x, int exponent, double value, int *above) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    int shift = (int)((bits >> 52) & 0x7FF) - 1075 - exponent;
    if (shift < 0) {
        // `x` had no more bits than a double holds: the value is exact.
        *above = 0;
        return 0;
    }
    u128 rounded = (u128)((bits & ((1ULL << 52) - 1)) | (1ULL << 52)) << shift;
    *above = rounded > x;
    return rounded > x ? rounded - x : x - rounded;
}

/// Whether the 17-digit `%.17g` rounding of `value` gives back the decimal `digits * 10^q`
/// (`digits` of `length` digits, at most 17, the first not zero), where `value` is the double
/// nearest it: when the value lies less than half a unit of its 17th digit from the decimal, or
/// exactly half and the decimal's 17th digit is even (the tie goes to the even digit). `x`,
/// `remainder` and `binary_exponent` are what the parse rounded: for `q >= 0`, `x` is
/// `digits * 5^q` and `binary_exponent` is `q`; below, `x` is `digits * 2^s / 5^-q` with
/// `remainder` left over, and `binary_exponent` is `q - s`.
static int is_nearest_17_digits(uint64_t digits, int length, long q, u128 x, uint64_t remainder, int binary_exponent,
                                double value) {
    uint64_t twice_scale = 2 * powers_of_ten[17 - length];
    int even = length < 17 || !(digits & 1);
    int above;
    u128 distance = rounding_distance(x, binary_exponent, value, &above);
    if (!above && distance != 0 && digits == powers_of_ten[length - 1]) {
        // Just below a power of ten the 17th digit is ten times finer, and a value halfway
        // between 99999999999999999 and the power rounds to the power, which is even.
        twice_scale *= 10;
        even = 1;
    }
    int order;
    if (q >= 0) {
        // The decimal is `x` units and half a 17th digit is `5^q / twice_scale` units.
        if (distance >> 63) return 0;
        u128 doubled = distance * twice_scale;
        uint64_t five = powers_of_five[q];
        order = doubled < five ? -1 : doubled > five;
    } else {
        // Scaled by `5^-q`, the decimal is `x * 5^-q + remainder` units and half a 17th digit
        // is `2^(q - binary_exponent) / twice_scale` of them.
        uint64_t five = powers_of_five[-q];
        u128 scaled = above ? distance * five - remainder : distance * five + remainder;
        order = compare_product_with_power_of_two(scaled, twice_scale, (int)(q - binary_exponent));
    }
    return order < 0 || (order == 0 && even);
}

/// `trove_parse_decimal`, and when `is_g17` is not null, the answer of `trove_parse_decimal_g17`
/// in it. Inlined into both, so that the plain parse carries none of the spelling's bookkeeping.
static inline __attribute__((always_inline)) int parse_decimal(const unsigned char *text, size_t count, double *out,
                                                               int *is_g17) {
    size_t i = 0;
    int negative = 0;
    if (i < count && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    // Leading zeros carry no significant digit; the rest are taken whole (a value of more than
    // 19 digits may wrap `w`, but is refused below before `w` is used).
    size_t zeros = i;
    while (i < count && text[i] == '0') i++;
    zeros = i - zeros;
    size_t leading_zeros = zeros;
    uint64_t w = 0;
    size_t significant = take_digits(text, count, &i, &w);
    size_t whole_digits = significant;
    long exponent10 = 0;
    size_t fraction = 0;
    int has_point = 0;
    if (i < count && text[i] == '.') {
        i++;
        has_point = 1;
        if (w == 0) {
            // 0.000ddd: the zeros after the point only move the point.
            size_t first = i;
            while (i < count && text[i] == '0') i++;
            exponent10 -= (long)(i - first);
            zeros += i - first;
        }
        fraction = take_digits(text, count, &i, &w);
        exponent10 -= (long)fraction;
        significant += fraction;
    }
    if (significant + zeros == 0 || significant > 19) return 0;
    size_t mantissa_end = i;
    int has_exponent = 0, has_exponent_sign = 0;
    size_t exponent_digits = 0;
    long written_exponent = 0;
    if (i < count && (text[i] == 'e' || text[i] == 'E')) {
        has_exponent = 1;
        i++;
        int negativeExponent = 0;
        if (i < count && (text[i] == '+' || text[i] == '-')) {
            negativeExponent = text[i] == '-';
            has_exponent_sign = 1;
            i++;
        }
        int e = 0;
        if (i >= count) return 0;
        size_t first = i;
        for (; i < count && text[i] >= '0' && text[i] <= '9'; i++) {
            if (e > 10000) return 0;
            e = e * 10 + (text[i] - '0');
        }
        exponent_digits = i - first;
        written_exponent = negativeExponent ? -e : e;
        exponent10 += written_exponent;
    }
    if (i != count) return 0;
    if (w == 0) {
        *out = negative ? -0.0 : 0.0;
        if (is_g17) *is_g17 = -1;
        return 1;
    }
    double value;
    u128 rounded_x;
    uint64_t remainder = 0;
    int binary_exponent;
    if (exponent10 >= 0) {
        // w * 10^q = (w * 5^q) * 2^q, exact in 128 bits while q <= 27.
        if (exponent10 > 27) return 0;
        rounded_x = (u128)w * powers_of_five[exponent10];
        binary_exponent = (int)exponent10;
        if (!round_to_double(rounded_x, 0, binary_exponent, &value)) return 0;
    } else {
        // w / 10^-q = (w / 5^-q) * 2^q: w is shifted to the top of 128 bits and divided by the
        // power of five, which leaves at least 65 bits of quotient while -q <= 27; the remainder
        // is the sticky bit.
        if (exponent10 < -27) return 0;
        int shift = 128 - (64 - __builtin_clzll(w));
        rounded_x = divide((u128)w << shift, powers_of_five[-exponent10], &remainder);
        binary_exponent = (int)exponent10 - shift;
        if (!round_to_double(rounded_x, remainder != 0, binary_exponent, &value)) return 0;
    }
    *out = negative ? -value : value;
    if (is_g17) {
        // The text must be laid out as `write_g17` lays out its own digits, and those digits
        // must be the value's 17-digit rounding with the trailing zeros dropped.
        int laid_out;
        int fraction_ends_in_digit = !has_point || (fraction > 0 && text[mantissa_end - 1] != '0');
        long x = exponent10 + (long)significant - 1;
        if (has_exponent) {
            // `d[.ddd]e±XX`, the exponent of at least two digits: with one digit before the
            // point, the written exponent is the first digit's.
            size_t sign_at = i - exponent_digits - 1;
            long magnitude = written_exponent < 0 ? -written_exponent : written_exponent;
            laid_out = text[mantissa_end] == 'e' && has_exponent_sign && (text[sign_at] == '-') == (written_exponent < 0) &&
                       exponent_digits == (magnitude >= 100 ? 3u : 2u) && leading_zeros == 0 && whole_digits == 1 &&
                       fraction_ends_in_digit && (x < -4 || x >= 17);
        } else if (whole_digits > 0) {
            laid_out = leading_zeros == 0 && x <= 16 && fraction_ends_in_digit;
        } else {
            // `0.`, then the zeros after the point, which `x` counts.
            laid_out = leading_zeros == 1 && fraction_ends_in_digit && x >= -4;
        }
        laid_out = laid_out && text[0] != '+' && significant <= 17;
        *is_g17 = laid_out && is_nearest_17_digits(w, (int)significant, exponent10, rounded_x, remainder, binary_exponent, value);
    }
    return 1;
}

int trove_parse_decimal(const unsigned char *text, size_t count, double *out) {
    return parse_decimal(text, count, out, NULL);
}

int trove_parse_decimal_g17(const unsigned char *text, size_t count, double *out, int *is_g17) {
    return parse_decimal(text, count, out, is_g17);
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

// MARK: - XML common-subset scanner

typedef unsigned char trove_bytes16 __attribute__((vector_size(16)));

/// Whether any byte of `v` is nonzero.
static inline uint64_t any_byte16(trove_bytes16 v) {
    uint64_t low, high;
    memcpy(&low, &v, 8);
    memcpy(&high, (const unsigned char *)&v + 8, 8);
    return low | high;
}

size_t trove_xml_text_end(const unsigned char *bytes, size_t count, unsigned *seen) {
    size_t i = 0;
    trove_bytes16 ampersands = {0}, greaters = {0}, all = {0};
    for (; i + 16 <= count; i += 16) {
        trove_bytes16 v;
        memcpy(&v, bytes + i, 16);
        // The block that holds the `<` is looked at byte by byte below, so that nothing after
        // the `<` counts.
        if (any_byte16((trove_bytes16)(v == '<'))) break;
        ampersands |= (trove_bytes16)(v == '&');
        greaters |= (trove_bytes16)(v == '>');
        all |= v;
    }
    unsigned flags = 0;
    if (any_byte16(ampersands)) flags |= TROVE_XML_TEXT_AMPERSAND;
    if (any_byte16(greaters)) flags |= TROVE_XML_TEXT_GREATER;
    if (any_byte16(all & (trove_bytes16){0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})) {
        flags |= TROVE_XML_TEXT_NON_ASCII;
    }
    for (; i < count; i++) {
        unsigned char c = bytes[i];
        if (c == '<') break;
        if (c >= 0x80) flags |= TROVE_XML_TEXT_NON_ASCII;
        else if (c == '&') flags |= TROVE_XML_TEXT_AMPERSAND;
        else if (c == '>') flags |= TROVE_XML_TEXT_GREATER;
    }
    *seen |= flags;
    return i;
}

// The high bit of each of eight bytes that is `&`, `<` or `>`, exact at the lowest such byte
// (a borrow may also mark bytes above it, never below).
static inline uint64_t escaped_bytes8(const unsigned char *b) {
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t w;
    memcpy(&w, b, 8);
    uint64_t amp = w ^ (ones * '&');
    uint64_t angle = (w | (ones * 2)) ^ (ones * '>');
    return (((amp - ones) & ~amp) | ((angle - ones) & ~angle)) & highs;
}

size_t trove_xml_first_escaped(const unsigned char *bytes, size_t count) {
    size_t i = 0;
    const trove_bytes16 two = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    for (; i + 16 <= count; i += 16) {
        trove_bytes16 v;
        memcpy(&v, bytes + i, 16);
        // `<` (0x3C) and `>` (0x3E) differ in one bit: one compare finds both.
        if (any_byte16((trove_bytes16)((v | two) == '>') | (trove_bytes16)(v == '&'))) break;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // The rest, and the block the vector loop stopped in, eight bytes a step: most strings are
    // shorter than a block, and a byte loop took five instructions a byte.
    for (; i + 8 <= count; i += 8) {
        uint64_t m = escaped_bytes8(bytes + i);
        if (m) return i + (size_t)__builtin_ctzll(m) / 8;
    }
    if (count >= 8 && i < count) {
        // The last eight bytes, overlapping bytes already found clean.
        size_t j = count - 8;
        uint64_t m = escaped_bytes8(bytes + j);
        return m ? j + (size_t)__builtin_ctzll(m) / 8 : count;
    }
#endif
    for (; i < count; i++) {
        unsigned char c = bytes[i];
        if (c == '&' || c == '<' || c == '>') return i;
    }
    return count;
}

static inline unsigned char is_base64_letter(unsigned char c) {
    unsigned char letter = (unsigned char)((c | 0x20) - 'a') < 26;
    unsigned char digit = (unsigned char)(c - '0') < 10;
    return letter | digit | (c == '+') | (c == '/');
}

int trove_is_base64_letters(const unsigned char *bytes, size_t count) {
    size_t i = 0;
    const trove_bytes16 ones = ~(trove_bytes16){0};
    for (; i + 16 <= count; i += 16) {
        trove_bytes16 v;
        memcpy(&v, bytes + i, 16);
        trove_bytes16 letter = (trove_bytes16)((trove_bytes16)((v | 0x20) - 'a') < 26);
        trove_bytes16 digit = (trove_bytes16)((trove_bytes16)(v - '0') < 10);
        trove_bytes16 ok = letter | digit | (trove_bytes16)(v == '+') | (trove_bytes16)(v == '/');
        if (any_byte16(ok ^ ones)) return 0;
    }
    for (; i < count; i++) {
        if (!is_base64_letter(bytes[i])) return 0;
    }
    return 1;
}

// MARK: - Base64 lines

// The base64 letter of a 6-bit value, as a constant expression so that the pair table below is
// built by the compiler rather than at start-up.
#define B64(v) ((unsigned char)((v) < 26 ? 'A' + (v) : (v) < 52 ? 'a' + (v) - 26 : (v) < 62 ? '0' + (v) - 52 : (v) == 62 ? '+' : '/'))
#define B64_PAIR(x) {B64((x) >> 6), B64((x) & 63)}
#define B64_PAIRS4(x) B64_PAIR(x), B64_PAIR((x) + 1), B64_PAIR((x) + 2), B64_PAIR((x) + 3)
#define B64_PAIRS16(x) B64_PAIRS4(x), B64_PAIRS4((x) + 4), B64_PAIRS4((x) + 8), B64_PAIRS4((x) + 12)
#define B64_PAIRS64(x) B64_PAIRS16(x), B64_PAIRS16((x) + 16), B64_PAIRS16((x) + 32), B64_PAIRS16((x) + 48)
#define B64_PAIRS256(x) B64_PAIRS64(x), B64_PAIRS64((x) + 64), B64_PAIRS64((x) + 128), B64_PAIRS64((x) + 192)
#define B64_PAIRS1024(x) B64_PAIRS256(x), B64_PAIRS256((x) + 256), B64_PAIRS256((x) + 512), B64_PAIRS256((x) + 768)

// The two letters of every 12-bit value: a group of three bytes is two lookups and two 2-byte
// stores instead of four of each. 8 KB, which stays in the first-level cache for a long run.
static const unsigned char base64_pairs[4096][2] = {
    B64_PAIRS1024(0), B64_PAIRS1024(1024), B64_PAIRS1024(2048), B64_PAIRS1024(3072),
};

static inline void base64_group(unsigned char *o, uint32_t v) {
    memcpy(o, base64_pairs[v >> 12], 2);
    memcpy(o + 2, base64_pairs[v & 0xFFF], 2);
}

static inline uint64_t load_big_endian64(const unsigned char *b) {
    uint64_t w;
    memcpy(&w, b, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

static inline uint32_t three_bytes(const unsigned char *b) {
    return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

size_t trove_base64_lines(unsigned char *out, const unsigned char *bytes, size_t count, size_t line_length,
                          size_t indent) {
    if (count == 0) return 0;
    const size_t line_bytes = line_length / 4 * 3;
    unsigned char *o = out;
    size_t i = 0;
    // Whole groups: every line but possibly the last is full, and only the last group may be
    // short of three bytes.
    const size_t whole = count / 3 * 3;
    const size_t rest = count - whole;
    while (i < whole) {
        memset(o, '\t', indent);
        o += indent;
        const size_t line_end = whole - i > line_bytes ? i + line_bytes : whole;
        const int full = line_end - i == line_bytes;
        // Two groups from one 8-byte load while eight bytes remain, so never past `count`.
        while (i + 6 <= line_end && i + 8 <= count) {
            const uint64_t w = load_big_endian64(bytes + i);
            memcpy(o, base64_pairs[w >> 52], 2);
            memcpy(o + 2, base64_pairs[(w >> 40) & 0xFFF], 2);
            memcpy(o + 4, base64_pairs[(w >> 28) & 0xFFF], 2);
            memcpy(o + 6, base64_pairs[(w >> 16) & 0xFFF], 2);
            o += 8;
            i += 6;
        }
        for (; i < line_end; i += 3) {
            base64_group(o, three_bytes(bytes + i));
            o += 4;
        }
        // A line that is not full is the last; the short group, if any, finishes it.
        if (full || rest == 0) *o++ = '\n';
    }
    if (rest > 0) {
        // The short final group: on a line of its own when the last whole line was full.
        if (whole == 0 || whole % line_bytes == 0) {
            memset(o, '\t', indent);
            o += indent;
        }
        uint32_t v = (uint32_t)bytes[whole] << 16 | (rest == 2 ? (uint32_t)bytes[whole + 1] << 8 : 0);
        memcpy(o, base64_pairs[v >> 12], 2);
        o[2] = rest == 2 ? base64_pairs[v & 0xFFF][0] : '=';
        o[3] = '=';
        o[4] = '\n';
        o += 5;
    }
    return (size_t)(o - out);
}

// MARK: - UTF-16 to UTF-8

typedef unsigned char trove_units8 __attribute__((vector_size(16)));
typedef unsigned char trove_ascii8 __attribute__((vector_size(8)));

static inline uint32_t big_endian_unit(const unsigned char *p) {
    return (uint32_t)p[0] << 8 | p[1];
}

ptrdiff_t trove_utf16be_to_utf8(unsigned char *out, const unsigned char *in, size_t units) {
    unsigned char *o = out;
    size_t i = 0;
    // In memory a unit below U+0080 is a zero byte then a byte under 0x80.
    const trove_units8 not_ascii = {0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80,
                                    0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80, 0xFF, 0x80};
    while (i < units) {
        while (i + 8 <= units) {
            trove_units8 block;
            memcpy(&block, in + 2 * i, 16);
            trove_units8 flagged = block & not_ascii;
            uint64_t halves[2];
            memcpy(halves, &flagged, 16);
            trove_ascii8 ascii = __builtin_shufflevector(block, block, 1, 3, 5, 7, 9, 11, 13, 15);
            // All eight bytes are stored even when fewer units are ASCII: the output has room for
            // three bytes a unit, and the units after the ASCII ones overwrite the rest.
            memcpy(o, &ascii, 8);
            if (halves[0] | halves[1]) {
                // Text that mixes scripts puts a few ASCII units before most non-ASCII ones.
                size_t ascii_units = halves[0] ? (size_t)__builtin_ctzll(halves[0]) / 16
                                               : 4 + (size_t)__builtin_ctzll(halves[1]) / 16;
                o += ascii_units;
                i += ascii_units;
                break;
            }
            o += 8;
            i += 8;
        }
        // One unit at a time up to and including the next ASCII unit, where a run of them may
        // start: text in another script then takes no run test per unit.
        while (i < units) {
            uint32_t u = big_endian_unit(in + 2 * i);
            if (u < 0x80) {
                *o++ = (unsigned char)u;
                i += 1;
                break;
            } else if (u < 0x800) {
                o[0] = (unsigned char)(0xC0 | u >> 6);
                o[1] = (unsigned char)(0x80 | (u & 0x3F));
                o += 2;
                i += 1;
            } else if ((u & 0xF800) != 0xD800) {
                o[0] = (unsigned char)(0xE0 | u >> 12);
                o[1] = (unsigned char)(0x80 | (u >> 6 & 0x3F));
                o[2] = (unsigned char)(0x80 | (u & 0x3F));
                o += 3;
                i += 1;
            } else {
                if (u >= 0xDC00 || i + 1 >= units) return -(ptrdiff_t)i - 1;
                uint32_t low = big_endian_unit(in + 2 * i + 2);
                if ((low & 0xFC00) != 0xDC00) return -(ptrdiff_t)i - 1;
                uint32_t scalar = 0x10000 + ((u - 0xD800) << 10 | (low - 0xDC00));
                o[0] = (unsigned char)(0xF0 | scalar >> 18);
                o[1] = (unsigned char)(0x80 | (scalar >> 12 & 0x3F));
                o[2] = (unsigned char)(0x80 | (scalar >> 6 & 0x3F));
                o[3] = (unsigned char)(0x80 | (scalar & 0x3F));
                o += 4;
                i += 2;
            }
        }
    }
    return o - out;
}

#if defined(__APPLE__)
#include <malloc/malloc.h>
size_t trove_allocation_size(void *block) { return malloc_size(block); }
#else
#include <malloc.h>
size_t trove_allocation_size(void *block) { return malloc_usable_size(block); }
#endif
