#pragma once
/* yajl's event parser (a manifest framed member by member, and each image entry read into the
   manifest's model): plain C functions and structs, called from Swift directly. */
#include <yajl/yajl_parse.h>
