#ifndef DOCPREVIEW_CVIPS_SHIM_H
#define DOCPREVIEW_CVIPS_SHIM_H

#include <vips/vips.h>

/// VIPS_INIT is a macro that also checks the ABI of the headers against the library.
static inline int docpreview_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

/// vips_image_new_from_file is C-variadic: opens lazily (the header only; pixels on first use).
static inline VipsImage *docpreview_vips_open(const char *path) {
    return vips_image_new_from_file(path, NULL);
}

/// vips_thumbnail is C-variadic: shrink-on-load into width×height (never up), EXIF autorotate,
/// embedded or fallback profiles to sRGB, first page/frame only, and failure on truncated or bad data.
static inline int docpreview_vips_thumbnail(const char *path, VipsImage **out, int width, int height) {
    return vips_thumbnail(path, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                          "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// vips_rot is C-variadic.
static inline int docpreview_vips_rot(VipsImage *in, VipsImage **out, VipsAngle angle) {
    return vips_rot(in, out, angle, NULL);
}

/// vips_flatten is C-variadic and its background is a VipsArrayDouble built and freed here.
static inline int docpreview_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[1] = { 255.0 };
    VipsArrayDouble *background = vips_array_double_new(white, 1);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// vips_colourspace is C-variadic.
static inline int docpreview_vips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

/// vips_cast is C-variadic.
static inline int docpreview_vips_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}

/// The savers are C-variadic. Metadata is stripped and settings fixed so output is reproducible.
static inline int docpreview_vips_jpegsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                "interlace", FALSE, NULL);
}

static inline int docpreview_vips_pngsave(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, "compression", 6, "strip", TRUE, "interlace", FALSE, NULL);
}

static inline int docpreview_vips_webpsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

#endif
