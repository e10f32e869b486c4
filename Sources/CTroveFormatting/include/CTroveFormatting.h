#ifndef CTROVE_FORMATTING_H
#define CTROVE_FORMATTING_H

#include <stddef.h>

/// Writes `value` as C's `%.17g` (the spelling CoreFoundation gives reals in XML property lists)
/// into `buffer`, which holds `capacity` bytes including the terminating NUL, and returns what
/// `snprintf` returns.
///
/// It exists because Swift cannot call a variadic C function directly: going through
/// `withVaList` builds an array and a class instance and casts the argument dynamically for
/// every number, which costs more than the formatting itself.
int trove_format_real_g17(char *buffer, size_t capacity, double value);

#endif
