#include <stdlib.h>
#include "jpeg_destination.h"

/*
 * Lossless re-scanning, as jpegtran does: the quantized DCT coefficients of a JPEG are read once
 * (jpeg_read_coefficients) and written again with any scan script (jpeg_write_coefficients), so
 * every version has the same decoded pixels and differs only in how its bytes are ordered.
 */

struct ladder_coefficients {
    struct jpeg_decompress_struct cinfo;
    ladder_jpeg_error error;
    jvirt_barray_ptr *arrays;
    unsigned char *data;
    size_t length;
    /* A sample of the image: every `sample_every`-th row of iMCUs (NULL when not asked for). */
    jvirt_barray_ptr sample[MAX_COMPONENTS];
    int sample_every;
    JDIMENSION sample_rows;
};

/* Copies every `sample_every`-th iMCU row of the coefficients into the sample arrays. */
static void take_sample(ladder_coefficients *coefficients) {
    struct jpeg_decompress_struct *cinfo = &coefficients->cinfo;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        JDIMENSION rows = (JDIMENSION)component->v_samp_factor;
        for (JDIMENSION row = 0; row < coefficients->sample_rows; row++) {
            JBLOCKARRAY from = (*cinfo->mem->access_virt_barray)(
                (j_common_ptr)cinfo, coefficients->arrays[c], row * coefficients->sample_every * rows, rows, FALSE);
            JBLOCKARRAY to = (*cinfo->mem->access_virt_barray)((j_common_ptr)cinfo, coefficients->sample[c],
                                                               row * rows, rows, TRUE);
            for (JDIMENSION r = 0; r < rows; r++)
                memcpy(to[r], from[r], component->width_in_blocks * sizeof(JBLOCK));
        }
    }
}

ladder_coefficients *ladder_coefficients_read(const unsigned char *data, size_t length, int sample_every,
                                              char *message, size_t message_capacity) {
    ladder_coefficients *volatile coefficients = calloc(1, sizeof(ladder_coefficients));
    if (coefficients) coefficients->data = malloc(length ? length : 1);
    if (!coefficients || !coefficients->data) {
        ladder_copy_message("out of memory for the coefficients", message, message_capacity);
        if (coefficients) free(coefficients->data);
        free(coefficients);
        return NULL;
    }
    /* libjpeg reads from the copy for as long as the coefficients live. */
    memcpy(coefficients->data, data, length);
    coefficients->length = length;
    coefficients->cinfo.err = ladder_jpeg_error_init(&coefficients->error);
    if (setjmp(coefficients->error.jump)) {
        ladder_copy_message(coefficients->error.message, message, message_capacity);
        jpeg_destroy_decompress(&coefficients->cinfo);
        free(coefficients->data);
        free(coefficients);
        return NULL;
    }
    jpeg_create_decompress(&coefficients->cinfo);
    jpeg_mem_src(&coefficients->cinfo, coefficients->data, (unsigned long)length);
    /* Every marker is kept, to be copied into each version (EXIF, ICC chunks, comments). */
    jpeg_save_markers(&coefficients->cinfo, JPEG_COM, 0xFFFF);
    for (int m = 0; m < 16; m++) jpeg_save_markers(&coefficients->cinfo, JPEG_APP0 + m, 0xFFFF);
    jpeg_read_header(&coefficients->cinfo, TRUE);
    struct jpeg_decompress_struct *cinfo = &coefficients->cinfo;
    if (sample_every > 1) {
        /* Arrays requested before jpeg_read_coefficients() are allocated along with its own. */
        JDIMENSION imcu_rows = (cinfo->image_height + 8 * cinfo->max_v_samp_factor - 1) /
                               (8 * (JDIMENSION)cinfo->max_v_samp_factor);
        coefficients->sample_every = sample_every;
        coefficients->sample_rows = (imcu_rows + (JDIMENSION)sample_every - 1) / (JDIMENSION)sample_every;
        for (int c = 0; c < cinfo->num_components; c++) {
            jpeg_component_info *component = &cinfo->comp_info[c];
            /* Whole iMCUs wide, as libjpeg's own arrays are. */
            JDIMENSION width = (component->width_in_blocks + (JDIMENSION)component->h_samp_factor - 1) /
                               (JDIMENSION)component->h_samp_factor * (JDIMENSION)component->h_samp_factor;
            coefficients->sample[c] = (*cinfo->mem->request_virt_barray)(
                (j_common_ptr)cinfo, JPOOL_IMAGE, TRUE, width,
                coefficients->sample_rows * (JDIMENSION)component->v_samp_factor,
                (JDIMENSION)component->v_samp_factor);
        }
    }
    coefficients->arrays = jpeg_read_coefficients(cinfo);
    if (sample_every > 1) take_sample(coefficients);
    return coefficients;
}

int ladder_coefficients_components(const ladder_coefficients *coefficients) {
    return coefficients->cinfo.num_components;
}

int ladder_coefficients_write(ladder_coefficients *coefficients, int sample, const ladder_jpeg_scan *scans,
                              int scan_count, unsigned char **out, unsigned long *out_length, char *message,
                              size_t message_capacity) {
    struct jpeg_compress_struct cinfo;
    ladder_jpeg_error error;
    growing_destination *volatile dest = calloc(1, sizeof(growing_destination));
    jpeg_scan_info *volatile script = NULL;
    *out = NULL;
    *out_length = 0;
    if (dest) {
        /* The source's length is a good first guess: the versions differ by a few percent. */
        dest->capacity = coefficients->length + 65536;
        dest->buffer = malloc(dest->capacity);
    }
    if (!dest || !dest->buffer) {
        ladder_copy_message("out of memory for the output buffer", message, message_capacity);
        if (dest) free(dest->buffer);
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

    /* Resets scan_info and friends (it calls jpeg_set_defaults), so the script comes after. */
    jpeg_copy_critical_parameters(&coefficients->cinfo, &cinfo);
    sample = sample && coefficients->sample_every > 1;
    if (sample) {
        JDIMENSION imcu = 8 * (JDIMENSION)coefficients->cinfo.max_v_samp_factor;
        JDIMENSION height = coefficients->sample_rows * imcu;
        cinfo.image_height = height < coefficients->cinfo.image_height ? height : coefficients->cinfo.image_height;
    }
    cinfo.optimize_coding = TRUE;
    if (scan_count < 0) {
        jpeg_simple_progression(&cinfo);
    } else if (scan_count > 0) {
        script = calloc((size_t)scan_count, sizeof(jpeg_scan_info));
        if (!script) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 21);
        for (int i = 0; i < scan_count; i++) {
            script[i].comps_in_scan = scans[i].component_count;
            for (int c = 0; c < scans[i].component_count && c < MAX_COMPS_IN_SCAN; c++)
                script[i].component_index[c] = scans[i].components[c];
            script[i].Ss = scans[i].ss;
            script[i].Se = scans[i].se;
            script[i].Ah = scans[i].ah;
            script[i].Al = scans[i].al;
        }
        cinfo.scan_info = script;
        cinfo.num_scans = scan_count;
    }
    /* The source's own JFIF/Adobe markers are among the saved ones; do not write a second. */
    cinfo.write_JFIF_header = FALSE;
    cinfo.write_Adobe_marker = FALSE;
    jpeg_write_coefficients(&cinfo, sample ? coefficients->sample : coefficients->arrays);
    /* A sample is for measuring scans: it carries no markers. */
    for (jpeg_saved_marker_ptr marker = coefficients->cinfo.marker_list; marker && !sample; marker = marker->next)
        jpeg_write_marker(&cinfo, marker->marker, marker->data, marker->data_length);
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(script);
    *out = dest->buffer;
    *out_length = (unsigned long)dest->length;
    free(dest);
    return 0;
}

void ladder_coefficients_free(ladder_coefficients *coefficients) {
    if (!coefficients) return;
    jpeg_destroy_decompress(&coefficients->cinfo);
    free(coefficients->data);
    free(coefficients);
}
