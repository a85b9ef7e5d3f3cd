/* The in-memory destination every libjpeg compressor here writes into. */
#pragma once

#include <stdlib.h>
#include "jpeg_error.h"

/*
 * A growing in-memory destination. libjpeg's own jpeg_mem_dest() keeps its latest buffer private
 * until jpeg_finish_compress(), so a failure halfway would leak it; this one always knows it.
 * The caller allocates `buffer` with its first `capacity`, frees it on failure, and takes it
 * (with `length`) after jpeg_finish_compress().
 */
typedef struct growing_destination {
    struct jpeg_destination_mgr manager;
    unsigned char *buffer;
    size_t capacity;
    size_t length;
} growing_destination;

static inline void growing_destination_init(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    dest->manager.next_output_byte = dest->buffer;
    dest->manager.free_in_buffer = dest->capacity;
}

static inline boolean growing_destination_grow(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    size_t grown = dest->capacity * 2;
    unsigned char *buffer = realloc(dest->buffer, grown);
    if (!buffer) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->buffer = buffer;
    dest->manager.next_output_byte = buffer + dest->capacity;
    dest->manager.free_in_buffer = grown - dest->capacity;
    dest->capacity = grown;
    return TRUE;
}

static inline void growing_destination_term(j_compress_ptr cinfo) {
    growing_destination *dest = (growing_destination *)cinfo->dest;
    dest->length = dest->capacity - dest->manager.free_in_buffer;
}

/* Makes `dest` the compressor's destination (after jpeg_create_compress). */
static inline void growing_destination_attach(j_compress_ptr cinfo, growing_destination *dest) {
    dest->manager.init_destination = growing_destination_init;
    dest->manager.empty_output_buffer = growing_destination_grow;
    dest->manager.term_destination = growing_destination_term;
    cinfo->dest = &dest->manager;
}
