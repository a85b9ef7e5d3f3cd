/* Shared libjpeg error handling: error_exit longjmps back into the C entry point. */
#pragma once

#include <setjmp.h>
#include <string.h>
#include "CLadderJPEG.h"
#include <jpeglib.h>
#include <jerror.h>

typedef struct ladder_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    /* The last message libjpeg formatted, kept for the caller. */
    char message[JMSG_LENGTH_MAX];
} ladder_jpeg_error;

/* libjpeg calls this on a fatal error; it must not return. */
static inline void ladder_jpeg_error_exit(j_common_ptr cinfo) {
    ladder_jpeg_error *error = (ladder_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

/* Warnings are not printed to stderr; callers that care read num_warnings. */
static inline void ladder_jpeg_output_message(j_common_ptr cinfo) {
    ladder_jpeg_error *error = (ladder_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
}

static inline struct jpeg_error_mgr *ladder_jpeg_error_init(ladder_jpeg_error *error) {
    struct jpeg_error_mgr *manager = jpeg_std_error(&error->manager);
    manager->error_exit = ladder_jpeg_error_exit;
    manager->output_message = ladder_jpeg_output_message;
    error->message[0] = '\0';
    return manager;
}

static inline void ladder_copy_message(const char *from, char *to, size_t capacity) {
    if (capacity == 0) return;
    strncpy(to, from, capacity - 1);
    to[capacity - 1] = '\0';
}
