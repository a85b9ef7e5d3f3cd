#include <stdlib.h>
#include "jpeg_destination.h"

int ladder_jpeg_encode(const unsigned char *pixels, int width, int height, int bands, size_t row_stride,
                       const ladder_jpeg_encode_options *options, unsigned char **out,
                       unsigned long *out_length, char *message, size_t message_capacity) {
    struct jpeg_compress_struct cinfo;
    ladder_jpeg_error error;
    /* On the heap, and the pointers volatile, so their values survive a longjmp(). */
    growing_destination *volatile dest = NULL;
    jpeg_scan_info *volatile script = NULL;

    *out = NULL;
    *out_length = 0;
    if (bands != 1 && bands != 3) {
        ladder_copy_message("only 1-band and 3-band 8-bit images can be encoded", message, message_capacity);
        return -1;
    }
    dest = calloc(1, sizeof(growing_destination));
    if (dest) {
        /* A sixteenth of the raw size holds most photos at usual qualities (about 1 bit a
           pixel); the buffer doubles when it does not. A larger first guess is never touched
           but still splits the heap for the pictures that follow. */
        dest->capacity = (size_t)width * (size_t)height * (size_t)bands / 16 + 4096;
        dest->buffer = malloc(dest->capacity);
    }
    if (!dest || !dest->buffer) {
        ladder_copy_message("out of memory for the output buffer", message, message_capacity);
        free(dest);
        return -1;
    }

    cinfo.err = ladder_jpeg_error_init(&error);
    if (setjmp(error.jump)) {
        ladder_copy_message(error.message, message, message_capacity);
        jpeg_destroy_compress(&cinfo);
        free(dest->buffer);
        free(dest);
        free(script);
        return -1;
    }

    jpeg_create_compress(&cinfo);
    growing_destination_attach(&cinfo, dest);

    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = bands;
    cinfo.in_color_space = bands == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, options->quality, TRUE);
    cinfo.optimize_coding = options->standard_tables && options->scan_count == 0 ? FALSE : TRUE;
    if (bands == 3 && options->full_chroma) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }

    /* The scan script is set after jpeg_set_defaults(), which would reset it. */
    if (options->scan_count > 0) {
        script = calloc((size_t)options->scan_count, sizeof(jpeg_scan_info));
        if (!script) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 11);
        for (int i = 0; i < options->scan_count; i++) {
            const ladder_jpeg_scan *from = &options->scans[i];
            script[i].comps_in_scan = from->component_count;
            for (int c = 0; c < from->component_count && c < MAX_COMPS_IN_SCAN; c++)
                script[i].component_index[c] = from->components[c];
            script[i].Ss = from->ss;
            script[i].Se = from->se;
            script[i].Ah = from->ah;
            script[i].Al = from->al;
        }
        cinfo.scan_info = script;
        cinfo.num_scans = options->scan_count;
    }

    jpeg_start_compress(&cinfo, TRUE);
    /* Markers go between jpeg_start_compress() and the first scanline. */
    if (options->exif && options->exif_length > 0)
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, options->exif, (unsigned int)options->exif_length);
    if (options->icc && options->icc_length > 0)
        jpeg_write_icc_profile(&cinfo, options->icc, (unsigned int)options->icc_length);

    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * row_stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(script);

    *out = dest->buffer;
    *out_length = (unsigned long)dest->length;
    free(dest);
    return 0;
}
