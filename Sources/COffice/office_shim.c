#define LOK_USE_UNSTABLE_API
#include <LibreOfficeKit/LibreOfficeKitInit.h>
#include <LibreOfficeKit/LibreOfficeKit.h>
#include "office_shim.h"

docpreview_office *docpreview_office_start(const char *install_path, const char *profile_url) {
    return lok_init_2(install_path, profile_url);
}

char *docpreview_office_error(docpreview_office *office) {
    return office->pClass->getError(office);
}

char *docpreview_office_version(docpreview_office *office) {
    return office->pClass->getVersionInfo ? office->pClass->getVersionInfo(office) : NULL;
}

docpreview_office_document *docpreview_office_load(docpreview_office *office, const char *url, const char *options) {
    return office->pClass->documentLoadWithOptions(office, url, options);
}

int docpreview_office_save(docpreview_office_document *document, const char *url, const char *format,
                           const char *filter_options) {
    return document->pClass->saveAs(document, url, format, filter_options);
}

int docpreview_office_document_type(docpreview_office_document *document) {
    return document->pClass->getDocumentType(document);
}

int docpreview_office_parts(docpreview_office_document *document) {
    return document->pClass->getParts(document);
}

void docpreview_office_close(docpreview_office_document *document) {
    document->pClass->destroy(document);
}
