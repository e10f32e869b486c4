// glibc's malloc_trim, which the Glibc Swift module does not expose; the memory probes use it to
// hand freed pages back to the kernel before measuring.
#if defined(__linux__)
#include <malloc.h>
#endif
