#ifndef CTROVE_FAST_PATHS_H
#define CTROVE_FAST_PATHS_H

#include <stddef.h>

/// Writes `value` as C's `%.17g` (the spelling CoreFoundation gives reals in XML property lists)
/// into `buffer`, which holds `capacity` bytes including the terminating NUL, and returns what
/// `snprintf` returns.
///
/// It exists because Swift cannot call a variadic C function directly: going through
/// `withVaList` builds an array and a class instance and casts the argument dynamically for
/// every number, which costs more than the formatting itself.
///
/// Most values are formatted by an exact integer path (17 digits correctly rounded, half to
/// even, as glibc does) several times faster than `snprintf`; the rest go to `snprintf`.
int trove_format_real_g17(char *buffer, size_t capacity, double value);

/// Whether `text[0..<count]` is exactly what ``trove_format_real_g17`` writes for `value`: 1 or
/// 0, decided on the exact integer path without `snprintf`; -1 when `value` is outside that path
/// (zero, subnormal, not finite, or of a magnitude the path does not cover), and the caller
/// must spell it to know.
///
/// The XML reader asks this of every real of a document it reads without loss, to learn whether
/// the document is the writer's own spelling.
int trove_real_is_g17(const unsigned char *text, size_t count, double value);

/// `%.17g` through `snprintf` only: what tests check ``trove_format_real_g17`` against.
int trove_format_real_g17_reference(char *buffer, size_t capacity, double value);

/// Parses `text[0..<count]`, a decimal number (`[+-]digits[.digits][e[+-]digits]`, digits on
/// either side of the point), into `*out` correctly rounded, half to even, as `strtod` does, and
/// returns 1; returns 0, leaving `*out` alone, when the text is not of that form or falls outside
/// the exact fast path (more than 19 significant digits, a decimal exponent outside -27...27
/// after the digits, or a result that is not a normal double): the caller then uses `strtod`.
int trove_parse_decimal(const unsigned char *text, size_t count, double *out);

/// ``trove_parse_decimal``, also telling in `*is_g17`, when it returns 1, whether the text is
/// exactly what ``trove_format_real_g17`` writes for the value: 1 or 0, or -1 for zero, which the
/// caller must spell to know. Decided from the digits and the exact rounding the parse already
/// has, so the lossless XML read learns whether a real is the writer's own spelling without
/// formatting the value again.
int trove_parse_decimal_g17(const unsigned char *text, size_t count, double *out, int *is_g17);

/// The index of the first byte in `bytes[0..<count]` that is a C0 control other than tab and
/// newline, or 0xEF (the lead byte of U+FFFE and U+FFFF); `count` when there is none.
///
/// The XML reader asks this of every byte of every document. It is C so that the compiler
/// vectorizes the block loop: Swift's SIMD comparisons are lowered element by element, and the
/// word-at-a-time Swift version took several instructions per byte.
size_t trove_first_control_or_ef(const unsigned char *bytes, size_t count);

/// The XML prescan's walk over markup that needs nothing from it, from `start`: end tags (up to
/// their first `>`), start tags that are a name alone (`<name>`, `<name/>`) and the text between
/// them. Returns the position of the first `<` that opens anything else (`<?`, `<!`, a tag with
/// more than its name), or `count` when the rest of the document is plain (a `<` as the last byte
/// or an end tag without `>` included: the prescan stops there too). Sets `*saw_start_tag` to 1
/// when it passed a start tag. Only for documents without control characters, whose text the
/// prescan must otherwise look at.
size_t trove_skip_plain_markup(const unsigned char *b, size_t count, size_t start, int *saw_start_tag);

/// What ``trove_xml_text_end`` saw in the text it passed, as bits of `*seen`.
enum {
    TROVE_XML_TEXT_AMPERSAND = 1,
    TROVE_XML_TEXT_GREATER = 2,
    TROVE_XML_TEXT_NON_ASCII = 4,
};

/// The index of the first `<` in `bytes[0..<count]`, or `count` when there is none; sets the bits
/// of `*seen` for what the bytes before it hold: an `&`, a `>`, a byte of 0x80 or above.
///
/// The XML common-subset scanner reads every scalar's text through this: 16 bytes a step with
/// vector compares, where the Swift word loop took about five instructions a byte.
size_t trove_xml_text_end(const unsigned char *bytes, size_t count, unsigned *seen);

/// The index of the first `&`, `<` or `>` in `bytes[0..<count]`, or `count` when there is none:
/// the characters the XML writer escapes, looked for 16 bytes a step.
size_t trove_xml_first_escaped(const unsigned char *bytes, size_t count);

/// Whether every byte of `bytes[0..<count]` is a base64 letter (`A`-`Z`, `a`-`z`, `0`-`9`, `+`,
/// `/`): checked 16 bytes a step with vector compares.
int trove_is_base64_letters(const unsigned char *bytes, size_t count);

/// Writes the base64 of `bytes[0..<count]` into `out` as the XML writer lays out `<data>`: lines
/// of `line_length` letters (a multiple of 4, at least 4; the last line may be shorter and ends
/// in `=` padding when `count` is not a multiple of 3), each preceded by `indent` tabs and
/// followed by a newline. Returns the number of bytes written, which is
/// `ceil(count / 3) * 4 + lines * (indent + 1)`; `out` must hold that many. Nothing is written
/// for `count` 0.
///
/// In C so that three bytes become four letters through one table of letter pairs, two groups a
/// step, with the line breaks decided once per line rather than per group.
size_t trove_base64_lines(unsigned char *out, const unsigned char *bytes, size_t count, size_t line_length,
                          size_t indent);

/// Transcodes `units` big-endian UTF-16 code units at `in` (a binary plist's `0x6n` string
/// object) to UTF-8 at `out`, which must hold `3 * units` bytes. Returns the number of bytes
/// written, or `-(i + 1)` when unit `i` is an unpaired surrogate (a low surrogate first, or a
/// high one not followed by a low one); nothing written then is meaningful.
///
/// In C so that runs of units below U+0080, most of any text, go eight units a step through one
/// 16-byte compare and one byte shuffle.
ptrdiff_t trove_utf16be_to_utf8(unsigned char *out, const unsigned char *in, size_t units);

/// Asks the processor to bring the cache line holding `address` closer, without waiting for it.
///
/// The binary writer's uniquing table of a large document is several megabytes, and each
/// distinct scalar's probe was a cache miss that the processor could not overlap with the work
/// around it: the writer computes the hash of a scalar a few objects ahead and touches its
/// bucket here, so that the probe finds the line already on its way.
static inline void trove_prefetch(const void *address) { __builtin_prefetch(address); }

/// The size of a block `malloc` returned, as the allocator reports it: at least what was asked
/// for. For tests that check a block was shrunk where it lies.
size_t trove_allocation_size(void *block);

#endif
