// libplist's C API (Debian: libplist-dev), used only by the benchmark's libplist engine.
#include <plist/plist.h>
