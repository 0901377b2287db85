#ifndef DOCPREVIEW_CPOPPLER_SHIM_H
#define DOCPREVIEW_CPOPPLER_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <poppler.h>
#include <cairo.h>
#include <native_loader.h>

/// Poppler and cairo are opened on first use (see native_loader.h).
#define DOCPREVIEW_POPPLER_GLIB "libpoppler-glib.so.8"
#define DOCPREVIEW_CAIRO "libcairo.so.2"

/// glib and gobject are opened on first use too: a run that renders nothing never maps them.
#define DOCPREVIEW_GLIB "libglib-2.0.so.0"
#define DOCPREVIEW_GOBJECT "libgobject-2.0.so.0"
DOCPREVIEW_LAZY(DOCPREVIEW_GLIB, g_free)
DOCPREVIEW_LAZY(DOCPREVIEW_GOBJECT, g_object_unref)
DOCPREVIEW_LAZY(DOCPREVIEW_GLIB, g_error_free)
DOCPREVIEW_LAZY(DOCPREVIEW_GLIB, g_filename_to_uri)

DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_document_new_from_file)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_document_get_n_pages)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_document_get_page)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_page_get_size)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_page_render)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_get_version)
DOCPREVIEW_LAZY(DOCPREVIEW_POPPLER_GLIB, poppler_error_quark)

DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_image_surface_create_for_data)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_format_stride_for_width)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_image_surface_get_data)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_image_surface_get_width)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_image_surface_get_height)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_image_surface_get_stride)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_surface_status)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_surface_flush)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_surface_destroy)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_create)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_destroy)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_status)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_status_to_string)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_set_source_rgb)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_scale)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_paint)
DOCPREVIEW_LAZY(DOCPREVIEW_CAIRO, cairo_version_string)

/// The POPPLER_ERROR domain is a macro over a function call; Swift imports neither the macro nor its value.
static inline GQuark docpreview_poppler_error_quark(void) { return lazy_poppler_error_quark()(); }

#endif
