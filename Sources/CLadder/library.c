#define _GNU_SOURCE
#include <dlfcn.h>
#include <libexif/exif-data.h>
#include "CLadder.h"

const char *ladder_libexif_path(void) {
    Dl_info info;
    if (dladdr((void *)exif_data_new, &info) == 0) return NULL;
    return info.dli_fname;
}
