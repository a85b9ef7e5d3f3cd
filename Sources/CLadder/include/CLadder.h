/*
 * CLadder: the few C functions Swift cannot call directly.
 *
 * - libvips' operations are variadic (NULL-terminated option lists), which Swift does not import;
 *   each wrapper here fixes one operation's option set.
 * - VIPS_INIT is a macro.
 * - libjpeg reports errors by longjmp, which must never cross into Swift; every libjpeg entry
 *   point here sets its own jmp_buf and returns a status with the library's message.
 *
 * Every symbol carries the `ladder_` prefix. No policy lives here: the Swift module LadderImaging
 * decides what to call and with which values.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>
#include <vips/vips.h>

#pragma clang assume_nonnull begin

// MARK: - libvips start-up

/// Wraps the VIPS_INIT() macro (ABI check + vips_init). Returns 0 on success.
int ladder_vips_init(const char *argv0);

// MARK: - libvips loading

/// Wraps the variadic vips_image_new_from_buffer(); `options` is a libvips option string such as
/// "[access=sequential,fail_on=warning]". Only the header is read until pixels are asked for.
VipsImage *_Nullable ladder_vips_image_new_from_buffer(const void *buffer, size_t length,
                                                        const char *options);

/// Wraps the variadic vips_thumbnail_buffer(): decode with shrink-on-load, convert to the
/// processing space (and to `export_profile` when given), apply the EXIF orientation, and resize
/// with `size`: VIPS_SIZE_DOWN fits inside width x height without upscaling (one factor for both
/// sides), VIPS_SIZE_FORCE makes exactly width x height (a factor per side). `load_options` is
/// passed to the loader.
int ladder_vips_thumbnail_buffer(const void *buffer, size_t length, VipsImage *_Nullable *_Nonnull out,
                                 int width, int height, VipsSize size, const char *load_options,
                                 const char *_Nullable export_profile, VipsFailOn fail_on);

// MARK: - libvips processing

/// Wraps vips_resize() with separate horizontal and vertical scales, a kernel, and `gap`: the
/// reduction left to the kernel after a box shrink by the integer part (libvips' default is 2;
/// 0 leaves all of it to the kernel).
int ladder_vips_resize(VipsImage *in, VipsImage *_Nullable *_Nonnull out, double hscale, double vscale,
                       VipsKernel kernel, double gap);

/// Wraps vips_reduce() with separate horizontal and vertical shrink factors, a kernel and no box
/// shrink (gap 0).
int ladder_vips_reduce(VipsImage *in, VipsImage *_Nullable *_Nonnull out, double hshrink, double vshrink,
                       VipsKernel kernel);



/// Wraps vips_flatten() with a background of `count` values.
int ladder_vips_flatten(VipsImage *in, VipsImage *_Nullable *_Nonnull out, const double *background,
                        int count);

/// Wraps vips_colourspace().
int ladder_vips_colorspace(VipsImage *in, VipsImage *_Nullable *_Nonnull out, VipsInterpretation space);

/// Wraps vips_cast().
int ladder_vips_cast(VipsImage *in, VipsImage *_Nullable *_Nonnull out, VipsBandFormat format);

/// Wraps vips_extract_band() for `count` bands starting at `band`.
int ladder_vips_extract_bands(VipsImage *in, VipsImage *_Nullable *_Nonnull out, int band, int count);

/// Wraps vips_icc_transform() from the embedded profile (or `input_profile`) to `output_profile`.
int ladder_vips_icc_transform(VipsImage *in, VipsImage *_Nullable *_Nonnull out,
                              const char *output_profile, const char *_Nullable input_profile);

/// Wraps vips_copy(), giving the copy `interpretation` (a fresh image whose metadata may be set).
int ladder_vips_copy(VipsImage *in, VipsImage *_Nullable *_Nonnull out, VipsInterpretation interpretation);

/// Wraps vips_arrayjoin() stacking `count` images top to bottom (the frames of an animation).
int ladder_vips_join_vertically(VipsImage *_Nonnull *_Nonnull images, int count,
                                VipsImage *_Nullable *_Nonnull out);

// MARK: - libvips saving

/// Wraps the variadic vips_image_write_to_buffer(); `suffix` names the saver and its options,
/// e.g. ".png[compression=6]". The buffer is allocated with g_malloc; release it with g_free.
int ladder_vips_write_to_buffer(VipsImage *in, const char *suffix, void *_Nullable *_Nonnull buffer,
                                size_t *length);

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
/// file's size (1 to 8; libjpeg scales in its IDCT, which then costs less).
ladder_replay *_Nullable ladder_replay_new(const unsigned char *data, size_t length, int max_scans, int output,
                                           int scale_eighths);

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

/// The text of the last libjpeg warning, or "".
const char *ladder_replay_last_warning(ladder_replay *replay);

void ladder_replay_free(ladder_replay *_Nullable replay);

/// Decodes a whole JPEG in one pass (what a viewer given the complete file shows) into a
/// malloc'ed buffer (release with free), in the color space the replay uses (YCbCr for YCbCr
/// files). Returns 0, or -1 with the message.
int ladder_jpeg_decode(const unsigned char *data, size_t length, unsigned char *_Nullable *_Nonnull pixels,
                       int *width, int *height, int *components, int *color_space, char *message,
                       size_t message_capacity);

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

// MARK: - Color profiles (Little CMS)

/// The chromaticities (x, y) of the pure red, green and blue of an RGB ICC profile, measured by
/// transforming them to CIE XYZ with Little CMS (so matrix and table-based profiles both work):
/// `xy` receives red x, red y, green x, green y, blue x, blue y. The pixel-format constants this
/// needs are macros. Returns 0, 1 when the profile is not an RGB profile, or -1 when Little CMS
/// cannot read it.
int ladder_icc_primaries(const void *data, size_t length, double xy[_Nonnull 6]);

/// The same measure for Little CMS' own sRGB profile, to compare others with. Returns 0 or -1.
int ladder_srgb_primaries(double xy[_Nonnull 6]);


// MARK: - Library identity


/// The file of the loaded libexif shared library (dladdr() needs _GNU_SOURCE, which Swift's
/// Glibc module does not define), or NULL when it cannot be found. libexif has no version call.
const char *_Nullable ladder_libexif_path(void);

/// The file of a shared library loaded in this process whose name is `stem` followed by ".so"
/// (for example "libwebp"), as the dynamic linker opened it (dl_iterate_phdr()), or NULL.
const char *_Nullable ladder_loaded_library(const char *stem);

/// The file of the loaded libvips shared library (dladdr(), as for libexif), or NULL.
const char *_Nullable ladder_libvips_path(void);

// MARK: - The allocator

/// Wraps mallopt(M_ARENA_MAX, count) (a macro of malloc.h, which Swift's C library module does
/// not include): at most `count` malloc arenas for the threads that allocate from now on.
/// Returns 1 on success, 0 where the C library has no such setting.
int ladder_limit_malloc_arenas(int count);

/// Wraps mallopt(M_MMAP_THRESHOLD, bytes) and mallopt(M_TRIM_THRESHOLD, trim_bytes) (macros of
/// malloc.h): blocks up to `bytes` come from malloc's heap, and up to `trim_bytes` of free heap
/// is kept rather than given back, so that freeing and allocating blocks of that size again
/// reuses pages already mapped instead of faulting in fresh zeroed ones. Returns 1 on success,
/// 0 where the C library has no such setting.
int ladder_keep_freed_blocks(long bytes, long trim_bytes);

/// Wraps mallinfo2() (malloc.h): the bytes malloc has taken from the system and still holds,
/// its heap (used or free) and its separately mapped blocks; -1 where the C library cannot say.
long long ladder_malloc_footprint(void);

#pragma clang assume_nonnull end
