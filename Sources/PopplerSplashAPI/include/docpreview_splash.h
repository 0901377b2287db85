#ifndef DOCPREVIEW_SPLASH_H
#define DOCPREVIEW_SPLASH_H

/// PDF pages through Poppler's core and its Splash rasteriser (the engine pdftoppm drives), as plain C
/// functions over a C++ shim (splash.cc). The shim is built as its own shared library
/// (libDocPreviewSplash.so, beside the executable) and opened on first use, so only runs that read a
/// PDF map Poppler and its libraries.
///
/// Thread rules are Poppler's: one document is used by one thread at a time; different documents may be
/// used from different threads at once. No function lets a C++ exception out.

#ifdef __cplusplus
extern "C" {
#endif

/// An open PDF: the parsed document; pages are loaded and drawn when asked for.
typedef struct docpreview_pdf docpreview_pdf;

/// Why a document could not be opened; the values are Poppler's error codes (ErrorCodes.h).
typedef enum {
    DOCPREVIEW_PDF_OK = 0,
    DOCPREVIEW_PDF_OPEN_FILE = 1,
    DOCPREVIEW_PDF_BAD_CATALOG = 2,
    DOCPREVIEW_PDF_DAMAGED = 3,
    DOCPREVIEW_PDF_ENCRYPTED = 4,
    /// Anything else, including memory exhaustion inside Poppler.
    DOCPREVIEW_PDF_OTHER = -1,
} docpreview_pdf_status;

/// Opens the PDF at `path` (NULL `password`: none). On failure returns NULL and sets `*status`.
/// The caller owns the result and closes it once with `docpreview_pdf_close`.
docpreview_pdf *_Nullable docpreview_pdf_open(const char *_Nonnull path, const char *_Nullable password,
                                              docpreview_pdf_status *_Nonnull status);

void docpreview_pdf_close(docpreview_pdf *_Nonnull document);

/// Number of pages, from the page tree.
int docpreview_pdf_page_count(docpreview_pdf *_Nonnull document);

/// Loads page `page` (1-based) and gives its displayed size in points: the crop box, with width and
/// height swapped for /Rotate 90 and 270. Returns 0 for a page number outside 1…page count, 1 otherwise.
/// A page the page tree counts but whose object cannot be read is an empty page, as pdftoppm draws
/// it: size 0×0, rendered blank.
int docpreview_pdf_page_size(docpreview_pdf *_Nonnull document, int page, double *_Nonnull width, double *_Nonnull height);

/// Pixels Splash drew: packed RGB rows of `width * 3` bytes, read where Splash wrote them.
typedef struct docpreview_pdf_bitmap docpreview_pdf_bitmap;

/// Rasterises the crop box of page `page` on white, scaled to `width`×`height` pixels, but draws only
/// the slice `slice_width`×`slice_height` at (`slice_x`, `slice_y`) of that scaled page (the whole page
/// when the slice is 0, 0, width, height: what `pdftoppm -x -y -W -H` does), within `seconds` of the
/// calling thread's CPU time. The caller bounded the slice; the scaled page itself is never allocated.
/// Returns NULL for a page number outside 1…page count, a slice outside the scaled page, when Splash
/// produced no bitmap, or when drawing outlasted `seconds` (then `*out_of_time` is 1: the page stops
/// between operators, and nested forms are skipped, so it ends soon after). The rasteriser (its
/// fonts, and its cache of glyphs drawn at each size) is the document's, kept for its next call: the
/// next page, or the next region at one zoom, draws the same glyphs again. The caller owns the
/// result and frees it once with `docpreview_pdf_bitmap_free`.
docpreview_pdf_bitmap *_Nullable docpreview_pdf_render(docpreview_pdf *_Nonnull document, int page, double width, double height,
                                                       int slice_x, int slice_y, int slice_width, int slice_height,
                                                       double seconds, int *_Nonnull out_of_time);

/// The resolution, in pixels an inch, of the image that covers half of page `page` or more (a scanned
/// page's picture), in `*ppi`, read from the page's content stream within `seconds` of the calling
/// thread's CPU time without decoding an image. Returns 1, or 0 when no image covers half the page
/// (then `*ppi` is 0), for a page outside 1…page count, or when the budget ran out.
int docpreview_pdf_page_image_ppi(docpreview_pdf *_Nonnull document, int page, double seconds, double *_Nonnull ppi);

/// The bitmap's `slice_width * slice_height * 3` bytes, its holder's to draw on until it is freed.
unsigned char *_Nonnull docpreview_pdf_bitmap_rgb(docpreview_pdf_bitmap *_Nonnull bitmap);

void docpreview_pdf_bitmap_free(docpreview_pdf_bitmap *_Nonnull bitmap);

/// One word of a page's text: its box in points on the page as displayed (origin at the top left,
/// y downwards, the crop box rotated by /Rotate), where its UTF-8 text lies in the page's text, and,
/// for a word written left to right, where its characters meet: `edge_count` x positions from
/// `edge_offset` in the page's edges, between its first character and its second, and so on.
typedef struct {
    double x_min, y_min, x_max, y_max;
    int text_offset;
    int text_length;
    int edge_offset;
    int edge_count;
    /// DOCPREVIEW_PDF_WORD_* flags: what follows the word in reading order.
    int flags;
} docpreview_pdf_word;

enum {
    /// A space follows the word on its line.
    DOCPREVIEW_PDF_WORD_SPACE_AFTER = 1,
    /// The word ends its line.
    DOCPREVIEW_PDF_WORD_LINE_END = 2,
    /// The word ends its block (a paragraph, a column's run of lines).
    DOCPREVIEW_PDF_WORD_BLOCK_END = 4,
    /// The line it ends is hyphenated (the word goes on on the next line).
    DOCPREVIEW_PDF_WORD_HYPHENATED = 8,
};

/// A page's words in reading order (TextOutputDev's flows, blocks, lines, words) and their text.
typedef struct docpreview_pdf_text docpreview_pdf_text;

/// Reads the words of page `page` (1-based) with their boxes, in reading order, within `seconds` of the
/// calling thread's CPU time, keeping at most `max_words` (the rest of the page's words are dropped and
/// `*truncated` is 1). Returns NULL for a page number outside 1…page count, or when reading outlasted
/// `seconds` (then `*out_of_time` is 1). A page the page tree counts but cannot read has no words. The
/// caller owns the result and frees it once with `docpreview_pdf_text_free`.
docpreview_pdf_text *_Nullable docpreview_pdf_page_text(docpreview_pdf *_Nonnull document, int page, double seconds, int max_words,
                                                        int *_Nonnull out_of_time, int *_Nonnull truncated);

/// The number of words, and the words themselves (`count` of them).
int docpreview_pdf_text_word_count(docpreview_pdf_text *_Nonnull text);
const docpreview_pdf_word *_Nullable docpreview_pdf_text_words(docpreview_pdf_text *_Nonnull text);

/// The words' character edges, one word's after another (`count` of them).
const double *_Nullable docpreview_pdf_text_edges(docpreview_pdf_text *_Nonnull text);
int docpreview_pdf_text_edge_count(docpreview_pdf_text *_Nonnull text);

/// The words' UTF-8 text, one after another (each word's slice is its offset and length), and its length in bytes.
const char *_Nullable docpreview_pdf_text_utf8(docpreview_pdf_text *_Nonnull text);
int docpreview_pdf_text_utf8_length(docpreview_pdf_text *_Nonnull text);

void docpreview_pdf_text_free(docpreview_pdf_text *_Nonnull text);

/// Poppler's version, e.g. "22.12.0" (static).
const char *_Nonnull docpreview_pdf_poppler_version(void);

#ifdef __cplusplus
}
#endif

#endif
