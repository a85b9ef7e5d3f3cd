#include "CLadder.h"

int ladder_vips_init(const char *argv0) {
    return VIPS_INIT(argv0);
}

VipsImage *ladder_vips_image_new_from_buffer(const void *buffer, size_t length, const char *options) {
    return vips_image_new_from_buffer(buffer, length, options, NULL);
}

VipsImage *ladder_vips_load_buffer(const char *loader, const void *buffer, size_t length) {
    /* As vips_image_new_from_buffer(): the blob borrows the caller's bytes. */
    VipsBlob *blob = vips_blob_new(NULL, buffer, length);
    VipsImage *out = NULL;
    int result = vips_call(loader, blob, &out, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    vips_area_unref(VIPS_AREA(blob));
    return result == 0 ? out : NULL;
}

int ladder_vips_thumbnail_buffer(const void *buffer, size_t length, VipsImage **out, int width,
                                 int height, VipsSize size, const char *load_options,
                                 const char *export_profile, VipsFailOn fail_on) {
    /* vips_thumbnail_buffer() takes a non-const pointer but never writes through it. */
    void *data = (void *)buffer;
    if (export_profile)
        return vips_thumbnail_buffer(data, length, out, width, "height", height, "size", size,
                                     "option_string", load_options, "export_profile", export_profile,
                                     "fail_on", fail_on, NULL);
    return vips_thumbnail_buffer(data, length, out, width, "height", height, "size", size,
                                 "option_string", load_options, "fail_on", fail_on, NULL);
}

int ladder_vips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, VipsKernel kernel,
                       double gap) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", kernel, "gap", gap, NULL);
}

int ladder_vips_reduce(VipsImage *in, VipsImage **out, double hshrink, double vshrink, VipsKernel kernel) {
    return vips_reduce(in, out, hshrink, vshrink, "kernel", kernel, "gap", 0.0, NULL);
}



int ladder_vips_flatten(VipsImage *in, VipsImage **out, const double *background, int count) {
    VipsArrayDouble *array = vips_array_double_new(background, count);
    int status = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return status;
}

int ladder_vips_colorspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

int ladder_vips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

int ladder_vips_extract_bands(VipsImage *in, VipsImage **out, int band, int count) {
    return vips_extract_band(in, out, band, "n", count, NULL);
}

int ladder_vips_icc_transform(VipsImage *in, VipsImage **out, const char *output_profile,
                              const char *input_profile) {
    if (input_profile)
        return vips_icc_transform(in, out, output_profile, "embedded", TRUE, "input_profile",
                                  input_profile, NULL);
    return vips_icc_transform(in, out, output_profile, "embedded", TRUE, NULL);
}

int ladder_vips_copy(VipsImage *in, VipsImage **out, VipsInterpretation interpretation) {
    return vips_copy(in, out, "interpretation", interpretation, NULL);
}

int ladder_vips_join_vertically(VipsImage **images, int count, VipsImage **out) {
    return vips_arrayjoin(images, out, count, "across", 1, NULL);
}

int ladder_vips_write_to_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length) {
    return vips_image_write_to_buffer(in, suffix, buffer, length, NULL);
}
