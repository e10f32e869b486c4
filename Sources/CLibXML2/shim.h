#ifndef TROVE_CLIBXML2_SHIM_H
#define TROVE_CLIBXML2_SHIM_H
/* Debian's libxml2 is built with ICU, so encoding.h would pull in the system's
   <unicode/ucnv.h>. Foundation brings its own, newer ICU headers, and a module that imports
   both fails a clean build ("'UErrorCode' has different definitions in different modules").
   Nothing here uses the ICU converter fields, which sit at the end of xmlCharEncodingHandler. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#include <libxml/parserInternals.h>
#endif
