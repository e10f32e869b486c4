#ifndef TROVE_CLIBXML2_SHIM_H
#define TROVE_CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>
#endif
