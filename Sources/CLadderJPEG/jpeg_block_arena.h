/* Whole-image DCT coefficient arrays placed in a buffer the caller owns. */
#pragma once

#include "jpeg_error.h"

/*
 * libjpeg keeps a JPEG's coefficients in "virtual block arrays" that its memory manager
 * allocates with malloc and frees with the object. A render worker instead lends one buffer,
 * which it also uses for the decoded picture (never held at the same time): the arrays are
 * carved out of it, so the coefficients reuse the picture's pages instead of leaving holes in
 * the heap between images. Arrays that do not fit come from libjpeg's own pools.
 *
 * block_arena_attach() replaces the three virtual block array methods of one libjpeg object
 * (decompressor or compressor); every block array that object requests afterwards is one of
 * these, realized in the arena (which may be empty) and always wholly in memory.
 */
typedef struct block_arena {
    unsigned char *base;
    size_t capacity;
    size_t used;
    /* The arrays requested and not yet realized. */
    struct arena_block_array *requested;
    /* libjpeg's own realize_virt_arrays, for its virtual sample arrays. */
    void (*realize_samples)(j_common_ptr cinfo);
} block_arena;

/* Uses `base` (`capacity` bytes, NULL for none) for `cinfo`'s block arrays; `arena` must live as
   long as `cinfo`. Call right after jpeg_create_(de)compress(). */
void block_arena_attach(j_common_ptr cinfo, block_arena *arena, unsigned char *base, size_t capacity);
