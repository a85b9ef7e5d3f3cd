#define _GNU_SOURCE
#include <dlfcn.h>
#ifdef __linux__
#include <link.h>
#endif
#include <string.h>
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

#ifdef __linux__
struct library_search {
    const char *stem;
    const char *found;
};

static int match_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct library_search *search = data;
    const char *name = info->dlpi_name;
    if (!name || !*name) return 0;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    size_t length = strlen(search->stem);
    if (strncmp(base, search->stem, length) == 0 && strncmp(base + length, ".so", 3) == 0) {
        search->found = name;
        return 1;
    }
    return 0;
}

const char *ladder_loaded_library(const char *stem) {
    struct library_search search = {stem, NULL};
    dl_iterate_phdr(match_library, &search);
    return search.found;
}
#else
const char *ladder_loaded_library(const char *stem) {
    (void)stem;
    return NULL;
}
#endif

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
