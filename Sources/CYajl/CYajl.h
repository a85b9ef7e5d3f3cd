#pragma once
/* yajl's event parser (a manifest framed member by member) and its tree parser (one image
   entry read into a tree): plain C functions and structs, called from Swift directly. */
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>
