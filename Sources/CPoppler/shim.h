#ifndef DOCPREVIEW_CPOPPLER_SHIM_H
#define DOCPREVIEW_CPOPPLER_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <poppler.h>
#include <cairo.h>

/// The POPPLER_ERROR domain is a macro over a function call; Swift imports neither the macro nor its value.
static inline GQuark docpreview_poppler_error_quark(void) { return POPPLER_ERROR; }

#endif
