#ifndef DOCPREVIEW_ENCODERS_H
#define DOCPREVIEW_ENCODERS_H

#include <stddef.h>

/// JPEG (libjpeg-turbo), PNG (libpng) and WebP (libwebp) straight from packed 8-bit RGB rows, for
/// decoded pixels (PDF pages, video frames): no libvips, no metadata, the same bytes for the same
/// pixels. The libraries are opened on first use (native_loader.h). Each returns 0 and a buffer
/// the caller releases with free(), or -1 (and no buffer) when the library refused.

/// The Huffman tables of a JPEG. They change the file's size and the encoder's time, never its pixels.
typedef enum {
    /// Fitted to the image: a second pass over all of it, the smallest file (video frames, photographs).
    DOCPREVIEW_JPEG_OPTIMISED = 0,
    /// Fixed tables fitted to rendered document pages (page_tables.h, scripts/fit-jpeg-page-tables):
    /// one pass, and on pages close to the optimised size.
    DOCPREVIEW_JPEG_PAGE_TABLES = 1,
} docpreview_jpeg_tables;

/// Baseline JPEG, 4:2:0, JFIF header only.
int docpreview_encode_jpeg(const unsigned char *_Nonnull rgb, int width, int height, int quality, docpreview_jpeg_tables tables,
                           unsigned char *_Nullable *_Nonnull out, size_t *_Nonnull length);
/// 8-bit RGB PNG, zlib level 6, no ancillary chunks.
int docpreview_encode_png(const unsigned char *_Nonnull rgb, int width, int height,
                          unsigned char *_Nullable *_Nonnull out, size_t *_Nonnull length);
/// Lossy WebP at `quality`, no metadata.
int docpreview_encode_webp(const unsigned char *_Nonnull rgb, int width, int height, int quality,
                           unsigned char *_Nullable *_Nonnull out, size_t *_Nonnull length);

/// The encoders' versions, from the headers they were built against (Debian ships headers and
/// libraries in one version): part of the derivative key of what they encode.
const char *_Nonnull docpreview_encoder_versions(void);

#endif
