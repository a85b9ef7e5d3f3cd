#include <stdlib.h>
#include "jpeg_error.h"

/*
 * Progressive replay: libjpeg's buffered-image mode over a suspending source. The whole file is
 * in memory; `available` says how much of it has "arrived". When libjpeg asks for bytes that have
 * not arrived, fill_input_buffer() returns FALSE and libjpeg backs up to its last restart point,
 * presenting those bytes again on the next call (libjpeg.txt, "I/O suspension").
 */

struct ladder_replay {
    struct jpeg_decompress_struct cinfo;
    ladder_jpeg_error error;
    struct jpeg_source_mgr source;
    const unsigned char *data;
    size_t length;
    size_t available;
    /* A skip that ran past the available bytes resumes here. */
    size_t skip_to;
    int max_scans;
    int output;
    int scale_eighths;
    int started;
    int finish_pending;
    int failed;
    ladder_replay_state state;
    char last_warning[JMSG_LENGTH_MAX];
};

static void source_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean source_fill(j_decompress_ptr cinfo) {
    ladder_replay *replay = (ladder_replay *)cinfo->client_data;
    if (replay->available >= replay->length) {
        /* The real end of the file without an EOI marker: insert one, as libjpeg's own sources do. */
        static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };
        WARNMS(cinfo, JWRN_JPEG_EOF);
        cinfo->src->next_input_byte = eoi;
        cinfo->src->bytes_in_buffer = 2;
        return TRUE;
    }
    return FALSE;
}

static void source_skip(j_decompress_ptr cinfo, long count) {
    ladder_replay *replay = (ladder_replay *)cinfo->client_data;
    struct jpeg_source_mgr *source = cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= source->bytes_in_buffer) {
        source->next_input_byte += count;
        source->bytes_in_buffer -= (size_t)count;
    } else {
        replay->skip_to = (size_t)(source->next_input_byte - replay->data) + (size_t)count;
        source->next_input_byte += source->bytes_in_buffer;
        source->bytes_in_buffer = 0;
    }
}

/* Exposes the newly arrived bytes to libjpeg, from where it stopped reading. */
static void source_update(ladder_replay *replay) {
    struct jpeg_source_mgr *source = &replay->source;
    size_t position = (size_t)(source->next_input_byte - replay->data);
    if (replay->skip_to) {
        if (replay->available < replay->skip_to) {
            source->next_input_byte = replay->data + replay->available;
            source->bytes_in_buffer = 0;
            return;
        }
        position = replay->skip_to;
        replay->skip_to = 0;
    }
    /* Fewer bytes than libjpeg has read (a paint read on by itself): it keeps what it read. */
    if (position > replay->available) replay->available = position;
    source->next_input_byte = replay->data + position;
    source->bytes_in_buffer = replay->available - position;
}

/* Keeps the last warning's text; warnings never stop the replay by themselves. */
static void replay_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        ladder_replay *replay = (ladder_replay *)((j_decompress_ptr)cinfo)->client_data;
        cinfo->err->num_warnings++;
        (*cinfo->err->format_message)(cinfo, replay->last_warning);
    }
}

/* YCbCr out, so that quality is measured on the decoder's own luma, which chroma scans leave
   untouched (luma recomputed from clamped RGB would move with them); only Y when that is all the
   caller needs: libjpeg then skips the chroma components' IDCT and upsampling. */
/* `output`: LADDER_OUTPUT_STORED, LADDER_OUTPUT_LUMA or LADDER_OUTPUT_RGB (see CLadder.h). */
static void choose_output(struct jpeg_decompress_struct *cinfo, int output) {
    if (cinfo->num_components == 1) cinfo->out_color_space = JCS_GRAYSCALE;
    else if (cinfo->jpeg_color_space == JCS_YCbCr)
        cinfo->out_color_space = output == LADDER_OUTPUT_LUMA ? JCS_GRAYSCALE
                                 : output == LADDER_OUTPUT_RGB ? JCS_RGB
                                                               : JCS_YCbCr;
}

ladder_replay *ladder_replay_new(const unsigned char *data, size_t length, int max_scans, int output,
                                 int scale_eighths, long max_memory) {
    ladder_replay *replay = calloc(1, sizeof(ladder_replay));
    if (!replay) return NULL;
    replay->data = data;
    replay->length = length;
    replay->max_scans = max_scans;
    replay->output = output;
    replay->scale_eighths = scale_eighths < 1 ? 1 : scale_eighths > 8 ? 8 : scale_eighths;
    replay->cinfo.err = ladder_jpeg_error_init(&replay->error);
    replay->error.manager.emit_message = replay_emit_message;
    if (setjmp(replay->error.jump)) {
        jpeg_destroy_decompress(&replay->cinfo);
        free(replay);
        return NULL;
    }
    jpeg_create_decompress(&replay->cinfo);
    if (max_memory > 0) replay->cinfo.mem->max_memory_to_use = max_memory;
    replay->cinfo.client_data = replay;
    replay->source.init_source = source_init;
    replay->source.fill_input_buffer = source_fill;
    replay->source.skip_input_data = source_skip;
    replay->source.resync_to_restart = jpeg_resync_to_restart;
    replay->source.term_source = source_term;
    replay->source.next_input_byte = data;
    replay->source.bytes_in_buffer = 0;
    replay->cinfo.src = &replay->source;
    return replay;
}

static void update_state(ladder_replay *replay) {
    struct jpeg_decompress_struct *cinfo = &replay->cinfo;
    ladder_replay_state *state = &replay->state;
    state->warnings = cinfo->err->num_warnings;
    if (!replay->started) return;
    state->input_complete = jpeg_input_complete(cinfo) ? 1 : 0;
    state->input_scan = cinfo->input_scan_number;
    int all_dc = 1;
    if (cinfo->coef_bits) {
        for (int c = 0; c < cinfo->num_components; c++)
            if (cinfo->coef_bits[c][0] < 0) all_dc = 0;
    } else {
        /* Sequential files carry no per-coefficient record: DC arrives with the only scan. */
        all_dc = state->scans_completed > 0;
    }
    state->all_dc_received = all_dc;
}

int ladder_replay_advance(ladder_replay *replay, size_t available, ladder_replay_state *state, char *message,
                          size_t message_capacity) {
    struct jpeg_decompress_struct *cinfo = &replay->cinfo;
    if (replay->failed) {
        ladder_copy_message("the replay already failed", message, message_capacity);
        return -1;
    }
    if (setjmp(replay->error.jump)) {
        replay->failed = 1;
        ladder_copy_message(replay->error.message, message, message_capacity);
        *state = replay->state;
        return -1;
    }
    replay->available = available > replay->length ? replay->length : available;
    source_update(replay);

    if (!replay->state.header_ready) {
        if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) {
            update_state(replay);
            *state = replay->state;
            return 0;
        }
        replay->state.header_ready = 1;
        replay->state.progressive = jpeg_has_multiple_scans(cinfo) ? 1 : 0;
        /* Every file, sequential ones too, goes through buffered-image mode, so that all files
           are replayed alike; a sequential file simply has one scan. */
        cinfo->buffered_image = TRUE;
        cinfo->do_block_smoothing = TRUE;
        cinfo->dct_method = JDCT_ISLOW;
        choose_output(cinfo, replay->output);
        cinfo->scale_num = (unsigned int)replay->scale_eighths;
        cinfo->scale_denom = 8;
        jpeg_start_decompress(cinfo); /* never suspends in buffered-image mode */
        replay->started = 1;
        replay->state.width = (int)cinfo->output_width;
        replay->state.height = (int)cinfo->output_height;
        replay->state.components = cinfo->output_components;
        replay->state.color_space = (int)cinfo->out_color_space;
    }
    if (replay->finish_pending) {
        /* A finished output pass was waiting to read the markers after its scan. */
        if (jpeg_finish_output(cinfo)) replay->finish_pending = 0;
    }
    for (;;) {
        /* A paint may have read the next scan's header itself: the limit holds for it too. */
        int status = cinfo->input_scan_number > replay->max_scans ? JPEG_REACHED_SOS : jpeg_consume_input(cinfo);
        if (status == JPEG_SCAN_COMPLETED) replay->state.scans_completed++;
        if (status == JPEG_REACHED_SOS && cinfo->input_scan_number > replay->max_scans) {
            /* Refused as soon as the scan past the limit starts, before it costs any decoding. */
            snprintf(replay->error.message, sizeof replay->error.message, "the file has more than %d scans",
                     replay->max_scans);
            longjmp(replay->error.jump, 1);
        }
        if (status == JPEG_SUSPENDED || status == JPEG_REACHED_EOI) break;
    }
    update_state(replay);
    *state = replay->state;
    return 0;
}

int ladder_replay_render(ladder_replay *replay, int scan, unsigned char *pixels, char *message,
                         size_t message_capacity) {
    if (ladder_replay_start_paint(replay, scan, message, message_capacity) != 0) return -1;
    int status = ladder_replay_paint_rows(replay, pixels, message, message_capacity);
    if (status == 0) {
        /* libjpeg wants input that has not arrived: the caller rendered too early. */
        replay->failed = 1;
        snprintf(message, message_capacity, "scan %d cannot be rendered before libjpeg reaches the next scan", scan);
    }
    return status == 1 ? 0 : -1;
}

void ladder_replay_expose(ladder_replay *replay, size_t available) {
    replay->available = available > replay->length ? replay->length : available;
    source_update(replay);
}

int ladder_replay_start_paint(ladder_replay *replay, int scan, char *message, size_t message_capacity) {
    struct jpeg_decompress_struct *cinfo = &replay->cinfo;
    if (replay->failed || !replay->started) {
        ladder_copy_message("nothing to render yet", message, message_capacity);
        return -1;
    }
    if (setjmp(replay->error.jump)) {
        replay->failed = 1;
        ladder_copy_message(replay->error.message, message, message_capacity);
        return -1;
    }
    if (replay->finish_pending) {
        if (!jpeg_finish_output(cinfo)) {
            ladder_copy_message("the previous paint is still waiting for data", message, message_capacity);
            return -1;
        }
        replay->finish_pending = 0;
    }
    jpeg_start_output(cinfo, scan);
    return 0;
}

int ladder_replay_paint_rows(ladder_replay *replay, unsigned char *pixels, char *message, size_t message_capacity) {
    struct jpeg_decompress_struct *cinfo = &replay->cinfo;
    if (replay->failed || !replay->started) {
        ladder_copy_message("nothing to render yet", message, message_capacity);
        return -1;
    }
    if (setjmp(replay->error.jump)) {
        replay->failed = 1;
        ladder_copy_message(replay->error.message, message, message_capacity);
        return -1;
    }
    size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = pixels + (size_t)cinfo->output_scanline * stride;
        /* No row: libjpeg suspended, waiting for bytes the source has not made visible. */
        if (jpeg_read_scanlines(cinfo, &row, 1) == 0) return 0;
    }
    if (!jpeg_finish_output(cinfo)) replay->finish_pending = 1;
    return 1;
}

const char *ladder_replay_last_warning(ladder_replay *replay) {
    return replay->last_warning;
}

void ladder_replay_free(ladder_replay *replay) {
    if (!replay) return;
    jpeg_destroy_decompress(&replay->cinfo);
    free(replay);
}

int ladder_jpeg_decode(const unsigned char *data, size_t length, unsigned char **pixels, int *width, int *height,
                       int *components, int *color_space, char *message, size_t message_capacity) {
    return ladder_jpeg_decode_as(data, length, 0, pixels, width, height, components, color_space, message,
                                 message_capacity);
}

int ladder_jpeg_decode_as(const unsigned char *data, size_t length, int output, unsigned char **pixels,
                          int *width, int *height, int *components, int *color_space, char *message,
                          size_t message_capacity) {
    struct jpeg_decompress_struct cinfo;
    ladder_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    *pixels = NULL;
    cinfo.err = ladder_jpeg_error_init(&error);
    if (setjmp(error.jump)) {
        ladder_copy_message(error.message, message, message_capacity);
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.dct_method = JDCT_ISLOW;
    choose_output(&cinfo, output);
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    buffer = malloc(stride * cinfo.output_height);
    if (!buffer) ERREXIT1(&cinfo, JERR_OUT_OF_MEMORY, 12);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buffer + (size_t)cinfo.output_scanline * stride;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    *components = cinfo.output_components;
    *color_space = (int)cinfo.out_color_space;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *pixels = buffer;
    return 0;
}
