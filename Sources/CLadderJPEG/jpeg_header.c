#include "jpeg_error.h"

/*
 * Reads a JPEG's header (its segments up to the first scan) with libjpeg, noting the APP1
 * segments that hold EXIF. libjpeg's warnings, a premature end among them, are counted: a
 * caller that wants the header libvips would read takes none of this when there are any.
 */
int ladder_jpeg_header(const unsigned char *data, size_t length, ladder_jpeg_header_result *result) {
    struct jpeg_decompress_struct cinfo;
    ladder_jpeg_error error;
    memset(result, 0, sizeof *result);
    cinfo.err = ladder_jpeg_error_init(&error);
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    result->width = (int)cinfo.image_width;
    result->height = (int)cinfo.image_height;
    result->components = cinfo.num_components;
    result->color_space = (int)cinfo.jpeg_color_space;
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker; marker = marker->next)
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 4 && memcmp(marker->data, "Exif", 4) == 0)
            result->exif_segments += 1;
    result->warnings = (int)cinfo.err->num_warnings;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
