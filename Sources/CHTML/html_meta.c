#include "html_meta.h"

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <limits.h>
#include <native_loader.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LIBXML2 "libxml2.so.2"

DOCPREVIEW_LAZY(LIBXML2, htmlCreateMemoryParserCtxt)
DOCPREVIEW_LAZY(LIBXML2, htmlCtxtUseOptions)
DOCPREVIEW_LAZY(LIBXML2, htmlParseDocument)
DOCPREVIEW_LAZY(LIBXML2, htmlFreeParserCtxt)
DOCPREVIEW_LAZY(LIBXML2, xmlStopParser)
DOCPREVIEW_LAZY(LIBXML2, xmlInitParser)
DOCPREVIEW_LAZY(LIBXML2, xmlSwitchEncoding)

/// libxml2's global tables (its encodings among them) are made by xmlInitParser, once, before any
/// parse: left to the first parses, two threads would make them at once and read them half made.
static pthread_once_t initialized = PTHREAD_ONCE_INIT;
static void initialize(void) { lazy_xmlInitParser()(); }

/// Where the stream is: the text being gathered (a title's or a script's), and what has been told.
typedef struct {
    xmlParserCtxtPtr context;
    docpreview_html_emit emit;
    void *caller;
    int32_t items_left;
    size_t max_text;
    /// DOCPREVIEW_HTML_TITLE, DOCPREVIEW_HTML_JSON_LD or DOCPREVIEW_HTML_QUOTE while inside one, else -1.
    int32_t gathering;
    int titled;
    int quoted;
    /// Inside the quote: how deep in nested blockquotes, and where its first paragraph starts and
    /// ends in `text` (-1 until seen).
    int quote_depth;
    long paragraph_start;
    long paragraph_end;
    char *text;
    size_t text_length;
} reading;

static const char *attribute(const xmlChar **attributes, const char *name) {
    for (size_t at = 0; attributes && attributes[at]; at += 2) {
        if (strcasecmp((const char *)attributes[at], name) == 0) return attributes[at + 1] ? (const char *)attributes[at + 1] : "";
    }
    return NULL;
}

static void tell(reading *state, int32_t item, const char *first, const char *second, const char *third) {
    if (state->items_left <= 0) return;
    state->items_left -= 1;
    state->emit(state->caller, item, first, second, third);
    if (state->items_left == 0) lazy_xmlStopParser()(state->context);
}

static void started(void *context, const xmlChar *tag, const xmlChar **attributes) {
    reading *state = ((xmlParserCtxtPtr)context)->_private;
    const char *name = (const char *)tag;
    if (strcasecmp(name, "meta") == 0) {
        const char *key = attribute(attributes, "property");
        if (!key || !*key) key = attribute(attributes, "name");
        if (!key || !*key) key = attribute(attributes, "itemprop");
        const char *content = attribute(attributes, "content");
        if (key && content) {
            char lowered[128];
            size_t length = strnlen(key, sizeof lowered - 1);
            for (size_t at = 0; at < length; at += 1) lowered[at] = (char)(key[at] >= 'A' && key[at] <= 'Z' ? key[at] + 32 : key[at]);
            lowered[length] = 0;
            tell(state, DOCPREVIEW_HTML_META, lowered, content, NULL);
        }
    } else if (strcasecmp(name, "link") == 0) {
        const char *href = attribute(attributes, "href");
        if (href) tell(state, DOCPREVIEW_HTML_LINK, attribute(attributes, "rel"), href, attribute(attributes, "type"));
    } else if (strcasecmp(name, "base") == 0) {
        const char *href = attribute(attributes, "href");
        if (href) tell(state, DOCPREVIEW_HTML_BASE, href, NULL, NULL);
    } else if (strcasecmp(name, "title") == 0 && !state->titled && state->gathering < 0) {
        state->gathering = DOCPREVIEW_HTML_TITLE;
        state->text_length = 0;
    } else if (strcasecmp(name, "blockquote") == 0 && (state->gathering == DOCPREVIEW_HTML_QUOTE || (!state->quoted && state->gathering < 0))) {
        if (state->gathering < 0) {
            state->gathering = DOCPREVIEW_HTML_QUOTE;
            state->text_length = 0;
            state->paragraph_start = state->paragraph_end = -1;
        }
        state->quote_depth += 1;
    } else if (strcasecmp(name, "p") == 0 && state->gathering == DOCPREVIEW_HTML_QUOTE && state->paragraph_start < 0) {
        state->paragraph_start = (long)state->text_length;
    } else if (strcasecmp(name, "br") == 0 && state->gathering == DOCPREVIEW_HTML_QUOTE && state->text_length < state->max_text) {
        state->text[state->text_length++] = '\n';
    } else if (strcasecmp(name, "script") == 0 && state->gathering < 0) {
        const char *type = attribute(attributes, "type");
        if (type && strncasecmp(type, "application/ld+json", 19) == 0) {
            state->gathering = DOCPREVIEW_HTML_JSON_LD;
            state->text_length = 0;
        }
    }
}

static void characters(void *context, const xmlChar *bytes, int length) {
    reading *state = ((xmlParserCtxtPtr)context)->_private;
    if (state->gathering < 0 || length <= 0) return;
    size_t room = state->max_text - state->text_length;
    size_t taken = (size_t)length < room ? (size_t)length : room;
    memcpy(state->text + state->text_length, bytes, taken);
    state->text_length += taken;
}

static void ended(void *context, const xmlChar *tag) {
    reading *state = ((xmlParserCtxtPtr)context)->_private;
    const char *name = (const char *)tag;
    if (state->gathering == DOCPREVIEW_HTML_QUOTE) {
        if (strcasecmp(name, "p") == 0) {
            if (state->paragraph_start >= 0 && state->paragraph_end < 0) state->paragraph_end = (long)state->text_length;
            if (state->text_length < state->max_text) state->text[state->text_length++] = '\n';
        }
        if (strcasecmp(name, "blockquote") != 0 || --state->quote_depth > 0) return;
        state->gathering = -1;
        state->quoted = 1;
        state->text[state->text_length] = 0;
        char *paragraph = NULL;
        if (state->paragraph_start >= 0) {
            long end = state->paragraph_end >= 0 ? state->paragraph_end : (long)state->text_length;
            paragraph = strndup(state->text + state->paragraph_start, (size_t)(end - state->paragraph_start));
        }
        tell(state, DOCPREVIEW_HTML_QUOTE, paragraph, state->text, NULL);
        free(paragraph);
        return;
    }
    int closes = (state->gathering == DOCPREVIEW_HTML_TITLE && strcasecmp(name, "title") == 0)
                 || (state->gathering == DOCPREVIEW_HTML_JSON_LD && strcasecmp(name, "script") == 0);
    if (!closes) return;
    int32_t item = state->gathering;
    state->gathering = -1;
    state->text[state->text_length] = 0;
    if (item == DOCPREVIEW_HTML_TITLE) state->titled = 1;
    tell(state, item, state->text, NULL, NULL);
}

int32_t docpreview_html_read(
    const char *bytes, size_t length, int32_t utf8, int32_t max_items, size_t max_text, docpreview_html_emit emit, void *caller) {
    if (length > INT_MAX || max_items <= 0) return -1;
    pthread_once(&initialized, initialize);
    reading state = {.emit = emit, .caller = caller, .items_left = max_items, .max_text = max_text, .gathering = -1};
    state.text = malloc(max_text + 1);
    if (!state.text) return -1;
    htmlParserCtxtPtr context = lazy_htmlCreateMemoryParserCtxt()(bytes, (int)length);
    if (!context) {
        free(state.text);
        return -1;
    }
    state.context = context;
    // Only what is read here: no tree, no default handlers (the context's own SAX block is ours).
    memset(context->sax, 0, sizeof(htmlSAXHandler));
    context->sax->startElement = started;
    context->sax->endElement = ended;
    context->sax->characters = characters;
    context->sax->cdataBlock = characters;
    context->_private = &state;
    // Bytes known to be UTF-8 are read as such (a charset the page declares still applies); others
    // are left to libxml2, which reads a declared charset or takes ISO-8859-1.
    if (utf8) lazy_xmlSwitchEncoding()(context, XML_CHAR_ENCODING_UTF8);
    lazy_htmlCtxtUseOptions()(context, HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    lazy_htmlParseDocument()(context);
    context->_private = NULL;
    lazy_htmlFreeParserCtxt()(context);
    free(state.text);
    return 0;
}
