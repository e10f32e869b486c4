#include "CTroveFormatting.h"

#include <stdio.h>

int trove_format_real_g17(char *buffer, size_t capacity, double value) {
    return snprintf(buffer, capacity, "%.17g", value);
}
