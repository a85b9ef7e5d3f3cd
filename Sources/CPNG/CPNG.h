#pragma once
/* libpng: a PNG's header chunks, read by verify without libvips (CLadder's png_header.c). */
#include <png.h>
