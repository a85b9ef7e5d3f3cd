/*
 * CLadder: the few C functions Swift cannot call directly.
 *
 * - libvips' operations are variadic (NULL-terminated option lists), which Swift does not import;
 *   each wrapper here fixes one operation's option set.
 * - VIPS_INIT and Little CMS' pixel-format constants are macros.
 * - What the C library keeps to itself: dladdr(), mallopt() and mallinfo2().
 *
 * libjpeg's wrappers are in CLadderJPEG, which needs libjpeg only.
 *
 * Every symbol carries the `ladder_` prefix. No policy lives here: the Swift module LadderImaging
 * decides what to call and with which values.
 */
#pragma once

#include <stddef.h>
#include <stdio.h>
#include <vips/vips.h>

#pragma clang assume_nonnull begin

// MARK: - libpng

/// What a PNG's chunks before its image data say.
typedef struct ladder_png_header_result {
    unsigned width;
    unsigned height;
    int bit_depth;
    /// PNG_COLOR_TYPE_GRAY (0), _RGB (2), _PALETTE (3), _GRAY_ALPHA (4), _RGB_ALPHA (6).
    int color_type;
    /// A tRNS chunk (a transparent colour or palette alphas).
    int has_transparency;
    /// An eXIf chunk.
    int has_exif;
    /// libpng's warnings while reading them.
    int warnings;
} ladder_png_header_result;

/// Reads a PNG's header chunks (up to its first image data) from memory with libpng, whose
/// error handling longjmps and so lives in C. Returns 0, or -1 when libpng stops with an error.
int ladder_png_header(const unsigned char *data, size_t length, ladder_png_header_result *result);

// MARK: - libvips start-up

/// Wraps the VIPS_INIT() macro (ABI check + vips_init). Returns 0 on success.
int ladder_vips_init(const char *argv0);

// MARK: - libvips loading

/// Wraps the variadic vips_image_new_from_buffer(); `options` is a libvips option string such as
/// "[access=sequential,fail_on=warning]". Only the header is read until pixels are asked for.
VipsImage *_Nullable ladder_vips_image_new_from_buffer(const void *buffer, size_t length,
                                                        const char *options);

/// Wraps the variadic vips_call() of the buffer loader `loader` (such as "pngload_buffer") with
/// sequential access: what vips_image_new_from_buffer() does once it has found the loader, for a
/// caller that already knows the format. Only the header is read until pixels are asked for.
VipsImage *_Nullable ladder_vips_load_buffer(const char *loader, const void *buffer, size_t length);

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
