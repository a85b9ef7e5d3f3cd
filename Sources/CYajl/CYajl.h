#pragma once
/* yajl's event parser: plain C functions and a struct of callbacks, called from Swift directly. */
#include <yajl/yajl_parse.h>
