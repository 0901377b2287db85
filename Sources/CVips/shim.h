#ifndef DOCPREVIEW_CVIPS_SHIM_H
#define DOCPREVIEW_CVIPS_SHIM_H

#include <vips/vips.h>
#include <native_loader.h>

/// libvips is opened on first use (see native_loader.h). Its soname carries the ABI version
/// these headers were written for; VIPS_INIT's check below compares it with the library's.
#define DOCPREVIEW_VIPS "libvips.so.42"
_Static_assert(VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE == 42, "update DOCPREVIEW_VIPS to the headers' ABI version");

/// glib and gobject are opened on first use too: a run that renders nothing never maps them.
#define DOCPREVIEW_GLIB "libglib-2.0.so.0"
#define DOCPREVIEW_GOBJECT "libgobject-2.0.so.0"
DOCPREVIEW_LAZY(DOCPREVIEW_GLIB, g_free)
DOCPREVIEW_LAZY(DOCPREVIEW_GOBJECT, g_object_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_GLIB, g_log_set_handler)

DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_init)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_version)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_version_string)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_shutdown)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_concurrency_set)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_cache_set_max)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_cache_set_max_mem)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_cache_set_max_files)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_error_buffer_copy)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_new_from_file)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_write_to_memory)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_width)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_height)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_bands)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_format)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_n_pages)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_int)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_typeof)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_guess_interpretation)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_hasalpha)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_thumbnail)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_thumbnail_image)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_jpegload)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_get_string)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_flatten)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_array_double_new)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_area_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_colourspace)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_cast)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_jpegsave_buffer)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_pngsave_buffer)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_webpsave_buffer)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_foreign_find_load)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_foreign_find_load_source)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_source_new_from_file)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_image_new_from_source)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_thumbnail_source)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_operation_block_set)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_autorot)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_extract_area)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_resize)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_embed)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_flip)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_rot)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_tiffsave)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_relational_const1)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_text)
DOCPREVIEW_LAZY(DOCPREVIEW_VIPS, vips_rotate)

/// VIPS_INIT is a macro: the same ABI check of the headers against the library, then vips_init.
static inline int docpreview_vips_init(const char *argv0) {
    if (lazy_vips_version()(3) - lazy_vips_version()(5) != VIPS_LIBRARY_CURRENT - VIPS_LIBRARY_AGE) return -1;
    return lazy_vips_init()(argv0);
}

DOCPREVIEW_LAZY("libgmodule-2.0.so.0", g_module_open)
DOCPREVIEW_LAZY("libgmodule-2.0.so.0", g_module_make_resident)

/// Loads one libvips module the way vips_init does for each file of its module folder: the
/// module's g_module_check_init registers its loaders and savers. Returns 0 on success.
static inline int docpreview_vips_load_module(const char *path) {
    GModule *module = lazy_g_module_open()(path, G_MODULE_BIND_LAZY);
    if (!module) return -1;
    lazy_g_module_make_resident()(module);
    return 0;
}

/// vips_image_new_from_file is C-variadic: opens lazily (the header only; pixels on first use).
static inline VipsImage *docpreview_vips_open(const char *path) {
    return lazy_vips_image_new_from_file()(path, NULL);
}

/// vips_image_new_from_source is C-variadic: opens lazily from a stream of the file's bytes.
static inline VipsImage *docpreview_vips_open_source(VipsSource *source) {
    return lazy_vips_image_new_from_source()(source, "", NULL);
}

/// vips_thumbnail_source is C-variadic: as docpreview_vips_thumbnail, from a stream of the file's bytes.
static inline int docpreview_vips_thumbnail_source(VipsSource *source, VipsImage **out, int width, int height) {
    return lazy_vips_thumbnail_source()(source, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                                 "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// vips_thumbnail is C-variadic: shrink-on-load into width×height (never up), EXIF autorotate,
/// embedded or fallback profiles to sRGB, first page/frame only, and failure on truncated or bad data.
static inline int docpreview_vips_thumbnail(const char *path, VipsImage **out, int width, int height) {
    return lazy_vips_thumbnail()(path, out, width, "height", height, "size", VIPS_SIZE_DOWN,
                          "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// vips_jpegload is C-variadic: libjpeg scales by 1/`shrink` (1, 2, 4 or 8) while decoding, in the
/// DCT domain, so most of the pixels are never decoded; failure on truncated or bad data. Read top to
/// bottom once, as vips_thumbnail reads: the resize then keeps the rows it has shrunk in a line
/// cache instead of shrinking them again for each overlapping output tile (a 100 MP JPEG to 256 px:
/// 472 against 558 ms, vipsthumbnail 493).
static inline int docpreview_vips_jpegload_shrunk(const char *path, VipsImage **out, int shrink) {
    return lazy_vips_jpegload()(path, out, "shrink", shrink, "fail_on", VIPS_FAIL_ON_TRUNCATED, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// vips_thumbnail_image is C-variadic: vips_thumbnail's resize, EXIF autorotation and colour
/// handling for an image already open (no shrink-on-load of its own).
static inline int docpreview_vips_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return lazy_vips_thumbnail_image()(in, out, width, "height", height, "size", VIPS_SIZE_DOWN, NULL);
}

/// vips_flatten is C-variadic and its background is a VipsArrayDouble built and freed here.
static inline int docpreview_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[1] = { 255.0 };
    VipsArrayDouble *background = lazy_vips_array_double_new()(white, 1);
    int result = lazy_vips_flatten()(in, out, "background", background, NULL);
    lazy_vips_area_unref()(VIPS_AREA(background));
    return result;
}

/// vips_colourspace is C-variadic.
static inline int docpreview_vips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return lazy_vips_colourspace()(in, out, space, NULL);
}

/// vips_cast is C-variadic.
static inline int docpreview_vips_cast_uchar(VipsImage *in, VipsImage **out) {
    return lazy_vips_cast()(in, out, VIPS_FORMAT_UCHAR, NULL);
}

/// vips_image_new_from_file with options is C-variadic: an image read top to bottom once (`sequential`)
/// or in any order; failure on truncated or bad data when `strict`, else what is missing is filled.
static inline VipsImage *docpreview_vips_open_access(const char *path, int sequential, int strict) {
    return lazy_vips_image_new_from_file()(path, "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
                                           "fail_on", strict ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE, NULL);
}

/// Page `page` of a TIFF (a pyramid's level), its tiles read in any order.
static inline VipsImage *docpreview_vips_open_page(const char *path, int page) {
    return lazy_vips_image_new_from_file()(path, "page", page, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// The geometry operations are C-variadic.
static inline int docpreview_vips_autorot(VipsImage *in, VipsImage **out) {
    return lazy_vips_autorot()(in, out, NULL);
}

static inline int docpreview_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return lazy_vips_extract_area()(in, out, left, top, width, height, NULL);
}

/// Scales by `horizontal` and `vertical` with libvips' default (lanczos3) kernel.
static inline int docpreview_vips_resize(VipsImage *in, VipsImage **out, double horizontal, double vertical) {
    return lazy_vips_resize()(in, out, horizontal, "vscale", vertical, NULL);
}

/// `in` at the top left of a `width`×`height` canvas, its edge pixels copied outwards.
static inline int docpreview_vips_embed_copying(VipsImage *in, VipsImage **out, int width, int height) {
    return lazy_vips_embed()(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}

static inline int docpreview_vips_flip_horizontal(VipsImage *in, VipsImage **out) {
    return lazy_vips_flip()(in, out, VIPS_DIRECTION_HORIZONTAL, NULL);
}

/// Turns clockwise by `quarters` quarter turns (1–3).
static inline int docpreview_vips_rot(VipsImage *in, VipsImage **out, int quarters) {
    VipsAngle angle = quarters == 1 ? VIPS_ANGLE_D90 : quarters == 2 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270;
    return lazy_vips_rot()(in, out, angle, NULL);
}

/// 255 where a pixel is at least `value`, else 0 (unsigned chars).
static inline int docpreview_vips_at_least(VipsImage *in, VipsImage **out, double value) {
    return lazy_vips_relational_const1()(in, out, VIPS_OPERATION_RELATIONAL_MOREEQ, value, NULL);
}

/// `text` in DejaVu Sans Bold at `dpi` (12 pt), one line: a one-band mask of its coverage.
static inline int docpreview_vips_text(VipsImage **out, const char *text, int dpi) {
    return lazy_vips_text()(out, text, "font", "DejaVu Sans Bold 12", "dpi", dpi, NULL);
}

/// Turned by `degrees` (anticlockwise on screen when negative), the corners filled with 0.
static inline int docpreview_vips_rotate(VipsImage *in, VipsImage **out, double degrees) {
    return lazy_vips_rotate()(in, out, degrees, NULL);
}

/// A pyramidal TIFF: `tile`² JPEG tiles at quality `quality`, each level half the one before, no metadata.
static inline int docpreview_vips_pyramid_save(VipsImage *in, const char *path, int tile, int quality) {
    return lazy_vips_tiffsave()(in, path, "tile", TRUE, "tile_width", tile, "tile_height", tile, "pyramid", TRUE,
                                "compression", VIPS_FOREIGN_TIFF_COMPRESSION_JPEG, "Q", quality, "strip", TRUE, NULL);
}

/// The savers are C-variadic. Metadata is stripped and settings fixed so output is reproducible.
static inline int docpreview_vips_jpegsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return lazy_vips_jpegsave_buffer()(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE,
                                "interlace", FALSE, NULL);
}

static inline int docpreview_vips_pngsave(VipsImage *in, void **buffer, size_t *length) {
    return lazy_vips_pngsave_buffer()(in, buffer, length, "compression", 6, "strip", TRUE, "interlace", FALSE, NULL);
}

static inline int docpreview_vips_webpsave(VipsImage *in, void **buffer, size_t *length, int quality) {
    return lazy_vips_webpsave_buffer()(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

#endif
