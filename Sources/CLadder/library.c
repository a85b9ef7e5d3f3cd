#define _GNU_SOURCE
#include <dlfcn.h>
#include <libexif/exif-data.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "CLadder.h"

/* The file of the shared library that holds `symbol`. */
static const char *library_of(void *symbol) {
    Dl_info info;
    if (dladdr(symbol, &info) == 0) return NULL;
    return info.dli_fname;
}

const char *ladder_libexif_path(void) {
    return library_of((void *)exif_data_new);
}

const char *ladder_libvips_path(void) {
    return library_of((void *)vips_init);
}

int ladder_limit_malloc_arenas(int count) {
#ifdef __GLIBC__
    return mallopt(M_ARENA_MAX, count);
#else
    (void)count;
    return 0;
#endif
}

int ladder_keep_freed_blocks(long bytes, long trim_bytes) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, (int)bytes) && mallopt(M_TRIM_THRESHOLD, (int)trim_bytes);
#else
    (void)bytes;
    (void)trim_bytes;
    return 0;
#endif
}

long long ladder_malloc_footprint(void) {
#ifdef __GLIBC__
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.arena + info.hblkhd);
#else
    return -1;
#endif
}
