#ifndef DOCPREVIEW_OFFICE_SHIM_H
#define DOCPREVIEW_OFFICE_SHIM_H

// LibreOfficeKit through plain functions. The office is opened at run time (dlopen of
// libmergedlo.so by LibreOfficeKitInit.h); nothing of LibreOffice is linked.

typedef struct _LibreOfficeKit docpreview_office;
typedef struct _LibreOfficeKitDocument docpreview_office_document;

/// Starts the office from `install_path` with the user profile at `profile_url` (a file:// URL).
/// Once per process: LibreOfficeKit cannot be started twice. NULL when it cannot start.
docpreview_office *docpreview_office_start(const char *install_path, const char *profile_url);

/// The last error of the office, malloc'd (free it), or NULL.
char *docpreview_office_error(docpreview_office *office);

/// The office's version information (JSON), malloc'd (free it), or NULL.
char *docpreview_office_version(docpreview_office *office);

/// Loads the document at `url` with LibreOfficeKit's load `options`; NULL on failure.
docpreview_office_document *docpreview_office_load(docpreview_office *office, const char *url, const char *options);

/// Writes the document to `url` in `format` with `filter_options`; nonzero on success.
int docpreview_office_save(docpreview_office_document *document, const char *url, const char *format,
                           const char *filter_options);

/// 0 text, 1 spreadsheet, 2 presentation, 3 drawing, other values unknown.
int docpreview_office_document_type(docpreview_office_document *document);

/// Sheets of a spreadsheet, slides of a presentation, 1 for a text document.
int docpreview_office_parts(docpreview_office_document *document);

void docpreview_office_close(docpreview_office_document *document);

#endif
