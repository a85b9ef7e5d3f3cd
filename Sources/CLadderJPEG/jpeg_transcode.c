#include <stdlib.h>
#include "jpeg_block_arena.h"
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
    /* A sample of the image: a grid of tiles, each a rectangle of whole iMCUs, put side by
       side (the arrays are NULL when no sample was asked for). */
    jvirt_barray_ptr sample[MAX_COMPONENTS];
    ladder_coefficient_sample grid;
    /* Where the block arrays live (the caller's buffer, as far as they fit). */
    block_arena arena;
};

/* Where the `index`-th of `count` tiles of `size` iMCUs starts among `usable` iMCUs: the
   middle of the index-th of `count` equal cells. */
static JDIMENSION tile_start(JDIMENSION index, JDIMENSION count, JDIMENSION size, JDIMENSION usable) {
    JDIMENSION cell = usable / count;
    return index * usable / count + (cell > size ? (cell - size) / 2 : 0);
}

/* Copies the tiles of the grid from the coefficients into the sample arrays, row of blocks by
   row of blocks. */
static void take_sample(ladder_coefficients *coefficients) {
    struct jpeg_decompress_struct *cinfo = &coefficients->cinfo;
    const ladder_coefficient_sample *grid = &coefficients->grid;
    /* The last iMCU row and column may be partly padding: tiles stay clear of them. */
    JDIMENSION columns = (cinfo->image_width + 8 * cinfo->max_h_samp_factor - 1) /
                         (8 * (JDIMENSION)cinfo->max_h_samp_factor) - 1;
    JDIMENSION rows = (cinfo->image_height + 8 * cinfo->max_v_samp_factor - 1) /
                      (8 * (JDIMENSION)cinfo->max_v_samp_factor) - 1;
    for (int c = 0; c < cinfo->num_components; c++) {
        jpeg_component_info *component = &cinfo->comp_info[c];
        JDIMENSION h = (JDIMENSION)component->h_samp_factor, v = (JDIMENSION)component->v_samp_factor;
        for (JDIMENSION down = 0; down < (JDIMENSION)grid->tiles_down; down++) {
            JDIMENSION top = tile_start(down, (JDIMENSION)grid->tiles_down, (JDIMENSION)grid->tile_rows, rows) * v;
            for (JDIMENSION r = 0; r < (JDIMENSION)grid->tile_rows * v; r++) {
                JBLOCKARRAY from = (*cinfo->mem->access_virt_barray)(
                    (j_common_ptr)cinfo, coefficients->arrays[c], top + r, 1, FALSE);
                JBLOCKARRAY to = (*cinfo->mem->access_virt_barray)(
                    (j_common_ptr)cinfo, coefficients->sample[c], down * (JDIMENSION)grid->tile_rows * v + r, 1, TRUE);
                for (JDIMENSION across = 0; across < (JDIMENSION)grid->tiles_across; across++) {
                    JDIMENSION left =
                        tile_start(across, (JDIMENSION)grid->tiles_across, (JDIMENSION)grid->tile_columns, columns) * h;
                    memcpy(to[0] + across * (JDIMENSION)grid->tile_columns * h, from[0] + left,
                           (size_t)grid->tile_columns * h * sizeof(JBLOCK));
                }
            }
        }
    }
}

ladder_coefficients *ladder_coefficients_read(const unsigned char *data, size_t length,
                                              const ladder_coefficient_sample *sample, void *arena,
                                              size_t arena_capacity, char *message, size_t message_capacity) {
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
    block_arena_attach((j_common_ptr)&coefficients->cinfo, &coefficients->arena, arena, arena_capacity);
    jpeg_mem_src(&coefficients->cinfo, coefficients->data, (unsigned long)length);
    /* Every marker is kept, to be copied into each version (EXIF, ICC chunks, comments). */
    jpeg_save_markers(&coefficients->cinfo, JPEG_COM, 0xFFFF);
    for (int m = 0; m < 16; m++) jpeg_save_markers(&coefficients->cinfo, JPEG_APP0 + m, 0xFFFF);
    jpeg_read_header(&coefficients->cinfo, TRUE);
    struct jpeg_decompress_struct *cinfo = &coefficients->cinfo;
    int sampled = sample && sample->tiles_across > 0 && sample->tiles_down > 0 && sample->tile_columns > 0 &&
                  sample->tile_rows > 0;
    if (sampled) {
        /* The tiles must fit clear of the last iMCU row and column, or the copy would run off. */
        long columns = (long)((cinfo->image_width + 8 * cinfo->max_h_samp_factor - 1) /
                              (8 * (JDIMENSION)cinfo->max_h_samp_factor)) - 1;
        long rows = (long)((cinfo->image_height + 8 * cinfo->max_v_samp_factor - 1) /
                           (8 * (JDIMENSION)cinfo->max_v_samp_factor)) - 1;
        if ((long)sample->tiles_across * sample->tile_columns > columns ||
            (long)sample->tiles_down * sample->tile_rows > rows) {
            ladder_copy_message("the sample's tiles do not fit in the image", message, message_capacity);
            jpeg_destroy_decompress(&coefficients->cinfo);
            free(coefficients->data);
            free(coefficients);
            return NULL;
        }
        /* Arrays requested before jpeg_read_coefficients() are allocated along with its own. */
        coefficients->grid = *sample;
        for (int c = 0; c < cinfo->num_components; c++) {
            jpeg_component_info *component = &cinfo->comp_info[c];
            coefficients->sample[c] = (*cinfo->mem->request_virt_barray)(
                (j_common_ptr)cinfo, JPOOL_IMAGE, TRUE,
                (JDIMENSION)(sample->tiles_across * sample->tile_columns * component->h_samp_factor),
                (JDIMENSION)(sample->tiles_down * sample->tile_rows * component->v_samp_factor),
                (JDIMENSION)component->v_samp_factor);
        }
    }
    coefficients->arrays = jpeg_read_coefficients(cinfo);
    if (sampled) take_sample(coefficients);
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
    block_arena arena;
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
    /* The compressor reads the source's block arrays through its own methods: they must be the
       arena's too. */
    block_arena_attach((j_common_ptr)&cinfo, &arena, NULL, 0);
    growing_destination_attach(&cinfo, dest);

    /* Resets scan_info and friends (it calls jpeg_set_defaults), so the script comes after. */
    jpeg_copy_critical_parameters(&coefficients->cinfo, &cinfo);
    sample = sample && coefficients->sample[0] != NULL;
    if (sample) {
        const ladder_coefficient_sample *grid = &coefficients->grid;
        cinfo.image_width = (JDIMENSION)(grid->tiles_across * grid->tile_columns * 8 *
                                         coefficients->cinfo.max_h_samp_factor);
        cinfo.image_height = (JDIMENSION)(grid->tiles_down * grid->tile_rows * 8 *
                                          coefficients->cinfo.max_v_samp_factor);
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
