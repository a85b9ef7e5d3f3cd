#include <setjmp.h>
#include <string.h>
#include <png.h>
#include "CLadder.h"

/* libpng reads from memory through this, and stops with an error at the end of the bytes. */
typedef struct {
    const unsigned char *data;
    size_t length;
    size_t position;
} ladder_png_source;

static void ladder_png_read(png_structp png, png_bytep into, size_t count) {
    ladder_png_source *source = png_get_io_ptr(png);
    if (count > source->length - source->position) png_error(png, "the header ends early");
    memcpy(into, source->data + source->position, count);
    source->position += count;
}

static void ladder_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

/* Warnings (an ancillary chunk with a bad CRC, say) are counted, not printed. */
static void ladder_png_warning(png_structp png, png_const_charp message) {
    (void)message;
    int *warnings = png_get_error_ptr(png);
    *warnings += 1;
}

int ladder_png_header(const unsigned char *data, size_t length, ladder_png_header_result *result) {
    memset(result, 0, sizeof *result);
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &result->warnings, ladder_png_error, ladder_png_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        return -1;
    }
    ladder_png_source source = {data, length, 0};
    png_set_read_fn(png, &source, ladder_png_read);
    png_read_info(png, info);
    result->width = png_get_image_width(png, info);
    result->height = png_get_image_height(png, info);
    result->bit_depth = png_get_bit_depth(png, info);
    result->color_type = png_get_color_type(png, info);
    result->has_transparency = png_get_valid(png, info, PNG_INFO_tRNS) ? 1 : 0;
    result->has_exif = png_get_valid(png, info, PNG_INFO_eXIf) ? 1 : 0;
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
