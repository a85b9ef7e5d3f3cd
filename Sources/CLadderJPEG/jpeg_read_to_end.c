#include "jpeg_error.h"

/*
 * Reads a JPEG to its end of image producing as little as possible: libjpeg must entropy-decode
 * every coefficient of every scan to find the next marker. jpeg_skip_scanlines() passes over all
 * rows but the last: for a single-scan file it entropy-decodes their blocks and discards them,
 * with no inverse DCT, upsampling or color conversion (cheaper than reading every row of a
 * 1/8-scale picture: docs/BENCHMARKS.md, "Verify and the strict JPEG check"); it must stop short of the last row, which it would
 * otherwise count as read without decoding it. The last row is read at 1/8 scale (an inverse DCT
 * of the DC term only), then jpeg_finish_decompress() reads the markers up to EOI. libjpeg's
 * warnings about damaged entropy data ("Corrupt JPEG data: N extraneous bytes before marker", bad
 * Huffman codes, a premature end) are only raised on the way, so they are counted here.
 * (jpeg_read_coefficients() does the same entropy decoding but stores every coefficient of the
 * image: it measured slower on camera photos, and needs memory for the whole image even for
 * baseline files.)
 */
int ladder_jpeg_read_to_end(const unsigned char *data, size_t length, long max_memory,
                                  ladder_jpeg_read_result *result) {
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
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.dct_method = JDCT_IFAST;
    cinfo.do_fancy_upsampling = FALSE;
    cinfo.do_block_smoothing = FALSE;
    jpeg_start_decompress(&cinfo);
    JSAMPARRAY row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                                 cinfo.output_width * (JDIMENSION)cinfo.output_components, 1);
    if (cinfo.output_height > 1) jpeg_skip_scanlines(&cinfo, cinfo.output_height - 1);
    while (cinfo.output_scanline < cinfo.output_height) jpeg_read_scanlines(&cinfo, row, 1);
    jpeg_finish_decompress(&cinfo);
    result->scans = cinfo.input_scan_number;
    result->warnings = (int)cinfo.err->num_warnings;
    /* The last warning's text; output_message kept it in error.message. */
    if (result->warnings > 0) ladder_copy_message(error.message, result->message, sizeof result->message);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}
