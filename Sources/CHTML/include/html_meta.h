#ifndef DOCPREVIEW_HTML_META_H
#define DOCPREVIEW_HTML_META_H

#include <stddef.h>
#include <stdint.h>

/// What a web page's markup says about itself, read by libxml2's HTML parser as a stream (SAX: no
/// tree is built, so a page nested 100,000 deep costs a stack of names, not a recursion), with no
/// network access and its errors recovered from. libxml2 is opened on first use (native_loader.h).

/// What an item is.
enum docpreview_html_item {
    /// `<meta>`: first its `property` or else its `name` (lower-cased), second its `content`.
    DOCPREVIEW_HTML_META = 0,
    /// `<link>`: its `rel`, `href` and `type`.
    DOCPREVIEW_HTML_LINK = 1,
    /// The first `<title>`'s text.
    DOCPREVIEW_HTML_TITLE = 2,
    /// A `<script type="application/ld+json">`'s text.
    DOCPREVIEW_HTML_JSON_LD = 3,
    /// `<base>`: its `href`.
    DOCPREVIEW_HTML_BASE = 4,
    /// The first top-level `<blockquote>` (an embed's quoted post): first its first `<p>`'s text,
    /// second its whole text.
    DOCPREVIEW_HTML_QUOTE = 5,
};

/// Called once an item is read; its texts are UTF-8, NUL-terminated, or NULL when absent, and live
/// only during the call.
typedef void (*docpreview_html_emit)(
    void *_Nullable context, int32_t item, const char *_Nullable first, const char *_Nullable second, const char *_Nullable third);

/// Reads `length` bytes of HTML (UTF-8 when `utf8` is not 0, else as the page declares, or ISO-8859-1)
/// and calls `emit` for each item, at most `max_items` times; a title or script text is cut at
/// `max_text` bytes. Safe to call from several threads at once. Returns 0, or -1 when the parser
/// could not start.
int32_t docpreview_html_read(
    const char *_Nonnull bytes, size_t length, int32_t utf8, int32_t max_items, size_t max_text, docpreview_html_emit _Nonnull emit,
    void *_Nullable context);

#endif
