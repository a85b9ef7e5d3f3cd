#include "jpeg_error.h"

/*
 * Reads a JPEG to its end of image without producing pixels: jpeg_read_coefficients() entropy-
 * decodes every scan into coefficient arrays (no inverse DCT, no upsampling, no color
 * conversion), and jpeg_finish_decompress() reads the markers up to EOI. libjpeg's warnings
 * about damaged entropy data ("Corrupt JPEG data: N extraneous bytes before marker", bad Huffman
 * codes, premature end) are only raised on the way, so they are counted here.
 */
int ladder_jpeg_read_coefficients(const unsigned char *data, size_t length, long max_memory,
                                  ladder_jpeg_coefficients_result *result) {
    struct jpeg_decompress_struct cinfo;
    ladder_jpeg_error error;
    memset(result, 0, sizeof *result);
    cinfo.err = ladder_jpeg_error_init(&error);
    if (setjmp(error.jump)) {
        result->warnings = (int)cinfo.err->num_warnings;
        result->scans = cinfo.input_scan_number;
        ladder_copy_message(error.message, result->message, sizeof result->message);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    if (max_memory > 0) cinfo.mem->max_memory_to_use = max_memory;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    result->width = (int)cinfo.image_width;
    result->height = (int)cinfo.image_height;
    result->components = cinfo.num_components;
    result->progressive = cinfo.progressive_mode ? 1 : 0;
    result->arithmetic = cinfo.arith_code ? 1 : 0;
    (void)jpeg_read_coefficients(&cinfo);
    result->scans = cinfo.input_scan_number;
    jpeg_finish_decompress(&cinfo);
    result->warnings = (int)cinfo.err->num_warnings;
    /* The last warning's text; output_message kept it in error.message. */
    if (result->warnings > 0) ladder_copy_message(error.message, result->message, sizeof result->message);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
