/*
 * CLadderJPEG: the few C functions Swift cannot write over libjpeg-turbo directly.
 *
 * libjpeg reports errors by longjmp, which must never cross into Swift; every libjpeg entry point
 * here sets its own jmp_buf and returns a status with the library's message. Some of libjpeg's
 * entry points are macros (jpeg_create_decompress) and its option structures are set field by
 * field. This target needs libjpeg only: an app's image loader (LadderClient) links it without
 * libvips.
 *
 * Every symbol carries the `ladder_` prefix. No policy lives here: the Swift module LadderJPEG
 * decides what to call and with which values.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>

#pragma clang assume_nonnull begin

// MARK: - libjpeg-turbo encoding

/// One scan of a progressive scan script, as libjpeg's jpeg_scan_info describes it.
typedef struct ladder_jpeg_scan {
    int component_count;
    int components[4];
    int ss, se, ah, al;
} ladder_jpeg_scan;

/// What to encode and how. A `scan_count` of 0 writes a baseline (sequential) JPEG.
typedef struct ladder_jpeg_encode_options {
    int quality;
    /// Non-zero: no chroma subsampling (4:4:4); zero: libjpeg's default 4:2:0.
    int full_chroma;
    const ladder_jpeg_scan *_Nullable scans;
    int scan_count;
    /// An APP1 payload starting with "Exif\0\0", or NULL.
    const unsigned char *_Nullable exif;
    size_t exif_length;
    /// An ICC profile to embed as APP2 chunks, or NULL.
    const unsigned char *_Nullable icc;
    size_t icc_length;
    /// Non-zero: libjpeg's standard Huffman tables instead of optimal ones (a baseline file
    /// that only carries coefficients to be re-scanned needs no second pass).
    int standard_tables;
} ladder_jpeg_encode_options;

/// Encodes 8-bit grayscale (1 band) or RGB (3 bands) pixels with libjpeg-turbo, honouring an
/// exact scan script. On success returns 0 and a malloc'ed buffer in `out` (release with free);
/// on failure returns -1 and libjpeg's message in `message`.
int ladder_jpeg_encode(const unsigned char *pixels, int width, int height, int bands, size_t row_stride,
                       const ladder_jpeg_encode_options *options,
                       unsigned char *_Nullable *_Nonnull out, unsigned long *out_length,
                       char *message, size_t message_capacity);

// MARK: - libjpeg-turbo lossless re-scanning

/// The quantized DCT coefficients of one JPEG, read once (jpeg_read_coefficients) so that the
/// same image can be written with several scan scripts without any loss.
typedef struct ladder_coefficients ladder_coefficients;

/// A sample of an image's coefficients: `tiles_across` x `tiles_down` tiles, each
/// `tile_columns` x `tile_rows` iMCUs, taken from the middles of equal cells of the image
/// (clear of its last iMCU row and column, which may be partly padding) and put side by side.
/// The caller makes sure the tiles fit in their cells.
typedef struct {
    int tiles_across;
    int tiles_down;
    int tile_columns;
    int tile_rows;
} ladder_coefficient_sample;

/// Reads the coefficients and markers of the JPEG in `data` (copied). With a `sample` (may be
/// NULL), also keeps that sample of the image: a smaller image with the same detail, for
/// measuring scans cheaply. The coefficient arrays are placed in `arena` (`arena_capacity`
/// bytes, may be NULL) as far as they fit, the rest in libjpeg's own memory; the arena must stay
/// untouched until ladder_coefficients_free(). Returns NULL with libjpeg's message when the file
/// cannot be read.
ladder_coefficients *_Nullable ladder_coefficients_read(const unsigned char *data, size_t length,
                                                        const ladder_coefficient_sample *_Nullable sample,
                                                        void *_Nullable arena, size_t arena_capacity,
                                                        char *message, size_t message_capacity);

/// The number of color components of the image.
int ladder_coefficients_components(const ladder_coefficients *coefficients);

/// Writes the coefficients with every marker of the source and the scan script `scans`
/// (`scan_count` scans); a `scan_count` of -1 writes libjpeg's default progression
/// (jpeg_simple_progression), 0 a baseline file. With `sample` non-zero, writes the sample
/// instead, without markers. Returns 0 and a malloc'ed buffer in `out` (release with free), or
/// -1 with libjpeg's message (an illegal script, for one).
int ladder_coefficients_write(ladder_coefficients *coefficients, int sample,
                              const ladder_jpeg_scan *_Nullable scans,
                              int scan_count, unsigned char *_Nullable *_Nonnull out,
                              unsigned long *out_length, char *message, size_t message_capacity);

void ladder_coefficients_free(ladder_coefficients *_Nullable coefficients);
// MARK: - libjpeg-turbo progressive replay

/// A buffered-image decoder fed from one contiguous buffer whose visible length only grows, as
/// bytes arrive over a network; libjpeg suspends when it needs bytes not yet visible.
typedef struct ladder_replay ladder_replay;

/// Where a replay stands.
typedef struct ladder_replay_state {
    /// Non-zero once the header has been read (the fields below are then set).
    int header_ready;
    int width, height;
    /// Components of the output pixels: 1 (grayscale), 3 (YCbCr, or RGB for RGB files) or 4 (CMYK).
    int components;
    /// The output color space, a J_COLOR_SPACE value.
    int color_space;
    /// Non-zero for a progressive (SOF2) file.
    int progressive;
    /// Scans whose last row libjpeg has absorbed.
    int scans_completed;
    /// The scan libjpeg is reading (1-based; 0 before the first SOS).
    int input_scan;
    /// Non-zero when every component has received its DC coefficients (browsers paint nothing before).
    int all_dc_received;
    /// Non-zero once the end-of-image marker has been read.
    int input_complete;
    /// Warnings libjpeg raised (corrupt data); the last one's text is kept.
    long warnings;
} ladder_replay_state;

/// Starts a replay of `length` bytes at `data`, which the caller keeps until the replay is freed.
/// A file that announces more than `max_scans` scans fails when it does, before decoding them.
/// `output` says what YCbCr files render as (see LADDER_OUTPUT_* below): their samples as stored,
/// their Y plane alone (1 component), which spares libjpeg the chroma components' IDCT and
/// upsampling, or RGB converted by libjpeg. Pictures are rendered at `scale_eighths`/8 of the
/// file's size (1 to 8; libjpeg scales in its IDCT, which then costs less). `max_memory` bounds
/// libjpeg's buffers (0: no bound), so that a header that claims a huge picture fails at once.
ladder_replay *_Nullable ladder_replay_new(const unsigned char *data, size_t length, int max_scans, int output,
                                           int scale_eighths, long max_memory);

/// Makes the first `available` bytes visible and lets libjpeg absorb what it can. Returns 0, or
/// -1 with libjpeg's message (the replay is then finished).
int ladder_replay_advance(ladder_replay *replay, size_t available, ladder_replay_state *state,
                          char *message, size_t message_capacity);

/// Renders the picture as it stands once scan `scan` is complete into `pixels` (width x height x
/// components bytes), with block smoothing as browsers do. Call it once libjpeg has moved on to
/// a later scan (or read the end of the image): block smoothing after a DC scan looks two block
/// rows ahead, which libjpeg only allows itself once it knows the scan is over.
/// Returns 0, or -1 with the message.
int ladder_replay_render(ladder_replay *replay, int scan, unsigned char *pixels, char *message,
                         size_t message_capacity);

/// Makes the first `available` bytes visible without reading any of them: a paint waiting for
/// bytes (ladder_replay_paint_rows() returned 0) reads what it needs itself.
void ladder_replay_expose(ladder_replay *replay, size_t available);

/// Starts painting the picture as it stands after scan `scan` (jpeg_start_output), finishing the
/// previous paint first. libjpeg decides block smoothing here, from the scans it has begun, and
/// keeps it for the whole paint: started once scan `scan` is complete and before the next scan's
/// header has been read, the picture is the one a decoder given only those scans (and an end of
/// image) shows. Returns 0, or -1 with the message.
int ladder_replay_start_paint(ladder_replay *replay, int scan, char *message, size_t message_capacity);

/// Paints the rows of the picture started by ladder_replay_start_paint() into `pixels` (width x
/// height x components bytes), from the first row not yet painted (jpeg_read_scanlines), then ends
/// the paint (jpeg_finish_output). Returns 1 when every row is painted, 0 when libjpeg needs bytes
/// that are not visible yet (after a DC scan, the last two block rows wait until the next scan's
/// header is visible, or the end of the image; expose more and call again), or -1 with the
/// message.
int ladder_replay_paint_rows(ladder_replay *replay, unsigned char *pixels, char *message, size_t message_capacity);

/// The text of the last libjpeg warning, or "".
const char *ladder_replay_last_warning(ladder_replay *replay);

void ladder_replay_free(ladder_replay *_Nullable replay);

/// Decodes a whole JPEG in one pass (what a viewer given the complete file shows) into a
/// malloc'ed buffer (release with free), in the color space the replay uses (YCbCr for YCbCr
/// files). Returns 0, or -1 with the message.
int ladder_jpeg_decode(const unsigned char *data, size_t length, unsigned char *_Nullable *_Nonnull pixels,
                       int *width, int *height, int *components, int *color_space, char *message,
                       size_t message_capacity);

/// What a JPEG's header says: its frame, and how many APP1 segments hold EXIF.
typedef struct ladder_jpeg_header_result {
    int width;
    int height;
    int components;
    /// libjpeg's J_COLOR_SPACE of the stored samples (JCS_GRAYSCALE, JCS_YCbCr, JCS_CMYK...).
    int color_space;
    int exif_segments;
    /// libjpeg's warnings while reading it (a premature end, a damaged marker).
    int warnings;
} ladder_jpeg_header_result;

/// Reads the header of a JPEG held in memory (its segments up to the first scan), without
/// libvips. Returns 0, or -1 when libjpeg stops with an error.
int ladder_jpeg_header(const unsigned char *data, size_t length, ladder_jpeg_header_result *result);

/// What reading a JPEG's entropy-coded data to its end of image found.
typedef struct ladder_jpeg_read_result {
    int width;
    int height;
    int components;
    /// Non-zero for a progressive (multi-scan) frame, and for arithmetic coding.
    int progressive;
    int arithmetic;
    /// The scans libjpeg read (its input_scan_number at the end).
    int scans;
    /// libjpeg's warnings: damaged entropy data, extraneous bytes, a premature end.
    int warnings;
    /// The last warning's text, or on failure the error's.
    char message[200];
} ladder_jpeg_read_result;

/// Entropy-decodes every scan of a JPEG held in memory to its end of image, keeping nothing:
/// at 1/8 scale, every row but the last skipped (jpeg_skip_scanlines), the last thrown away,
/// then jpeg_finish_decompress; counts libjpeg's warnings. `max_memory` bounds libjpeg's buffers
/// (0: libjpeg's default). Returns 0, or -1 when libjpeg stops with an error (its text in
/// `result->message`).
int ladder_jpeg_read_to_end(const unsigned char *data, size_t length, long max_memory,
                                  ladder_jpeg_read_result *result);

/// What `ladder_jpeg_decode_as` and `ladder_replay_new` give of a YCbCr file: its samples as
/// stored, its Y plane alone, or RGB converted by libjpeg. Other files decode as stored
/// (grayscale to one component).
enum { LADDER_OUTPUT_STORED = 0, LADDER_OUTPUT_LUMA = 1, LADDER_OUTPUT_RGB = 2 };

/// `ladder_jpeg_decode`, with `output` one of the values above.
int ladder_jpeg_decode_as(const unsigned char *data, size_t length, int output,
                          unsigned char *_Nullable *_Nonnull pixels, int *width, int *height, int *components,
                          int *color_space, char *message, size_t message_capacity);

#pragma clang assume_nonnull end
