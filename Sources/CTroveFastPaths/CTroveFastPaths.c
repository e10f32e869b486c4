// Both functions live in this one file on purpose: valgrind 3.19 (the callgrind used to tune
// the codecs) cannot read the DWARF 5 string offsets of a binary with more than one C unit.

#include "CTroveFastPaths.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int trove_format_real_g17(char *buffer, size_t capacity, double value) {
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
