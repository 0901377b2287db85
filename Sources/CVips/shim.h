#ifndef DOCPREVIEW_CVIPS_SHIM_H
#define DOCPREVIEW_CVIPS_SHIM_H

#include <vips/vips.h>

/// VIPS_INIT is a macro that also checks the ABI of the headers against the library.
static inline int docpreview_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

/// vips_image_new_from_file is C-variadic; open lazily (header only) and fail on the first decode error.
static inline VipsImage *docpreview_vips_open(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail", TRUE, NULL);
}

#endif
