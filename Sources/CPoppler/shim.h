#ifndef DOCPREVIEW_CPOPPLER_SHIM_H
#define DOCPREVIEW_CPOPPLER_SHIM_H

#include <docpreview_splash.h>
#include <native_loader.h>

/// Poppler's core and Splash, through the C functions of our shim library (Sources/PopplerSplash, built
/// as the dynamic product DocPreviewSplash beside the executable and found through its $ORIGIN run
/// path), opened on first use (see native_loader.h).
#define DOCPREVIEW_SPLASH "libDocPreviewSplash.so"

DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_open)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_close)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_page_count)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_page_size)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_page_image_ppi)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_render)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_bitmap_rgb)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_bitmap_free)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_poppler_version)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_page_text)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_word_count)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_words)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_edges)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_edge_count)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_utf8)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_utf8_length)
DOCPREVIEW_LAZY(DOCPREVIEW_SPLASH, docpreview_pdf_text_free)

#endif
