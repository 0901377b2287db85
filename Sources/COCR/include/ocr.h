#ifndef DOCPREVIEW_OCR_H
#define DOCPREVIEW_OCR_H

#include <stdint.h>

/// Tesseract and Leptonica behind one call: a page's pixels in, its words with their boxes out.
/// Both libraries are opened on first use (native_loader.h), so runs that read no scan never map them.

/// What follows a word in reading order.
enum docpreview_ocr_break { DOCPREVIEW_OCR_SPACE = 0, DOCPREVIEW_OCR_LINE = 1, DOCPREVIEW_OCR_BLOCK = 2 };

/// One word: its UTF-8 text, its box in the given pixels (left, top, right, bottom; the skew the
/// reading took out put back), Tesseract's confidence (0–100) and what follows it.
typedef struct {
    char *_Nonnull text;
    int32_t left, top, right, bottom;
    float confidence;
    int32_t next;
} docpreview_ocr_word;

/// What a reading found. Owned by the caller once `docpreview_ocr_read` returns 0; freed once
/// with `docpreview_ocr_free` (which leaves it empty, so a second call frees nothing).
typedef struct {
    docpreview_ocr_word *_Nullable words;
    int32_t count;
    /// The page's skew that was taken out before reading, in degrees.
    float skew_degrees;
    /// More words than `max_words` were found; the rest were left out.
    int32_t truncated;
    /// Which reading the words are (``docpreview_ocr_path``).
    int32_t path;
    /// 1 when the pixels were a photo of a page on a darker ground and the page alone was read,
    /// its perspective taken out (the boxes are still on the photo).
    int32_t rectified;
    /// How many times Tesseract read the page (1 to 3): what the reading cost, beside its path.
    int32_t readings;
} docpreview_ocr_result;

/// The readings of a page: Tesseract's own of the gray page (its global threshold), taken when it is
/// sure of nine in ten of its characters and no paper lies dark enough for that threshold to take it
/// black, or when nothing on the page is like text (no lines the skew search is sure of). Else the
/// page is read again, thresholded locally (Sauvola) when Tesseract was unsure or paper lies in
/// shadow, as sparse text when three in ten words are figures (a table), and the
/// reading with the most confident characters kept (another replacing Tesseract's own only with a
/// tenth more; a table's sparse reading with any more).
enum docpreview_ocr_path { DOCPREVIEW_OCR_PATH_GRAY = 0, DOCPREVIEW_OCR_PATH_LOCAL = 1, DOCPREVIEW_OCR_PATH_SPARSE = 2 };

/// The failures of a reading.
enum docpreview_ocr_status {
    DOCPREVIEW_OCR_OK = 0,
    /// The languages' data could not be loaded.
    DOCPREVIEW_OCR_NO_LANGUAGE = 1,
    /// The deadline passed before the page was read.
    DOCPREVIEW_OCR_TIMEOUT = 2,
    /// Leptonica or Tesseract could not allocate or process the image.
    DOCPREVIEW_OCR_FAILED = 3,
};

/// Tesseract with a languages' models loaded ("eng", "eng+fra"): made once, then read page after page
/// (loading the models takes about 45 ms). Used by one thread at a time; freed once.
typedef struct docpreview_ocr_engine docpreview_ocr_engine;
/// A new engine for `languages`, or NULL when their data cannot be loaded.
docpreview_ocr_engine *_Nullable docpreview_ocr_engine_create(const char *_Nonnull languages);
/// Frees `engine` (nothing when NULL).
void docpreview_ocr_engine_free(docpreview_ocr_engine *_Nullable engine);
/// Reads the words of `pixels` (`width` × `height`, `channels` of 1 (gray), 3 (RGB) or 4 (RGBA)
/// bytes a pixel, `stride` bytes a row) taken at `ppi` pixels an inch: a photographed page found
/// and brought to a rectangle (its corners on a darker ground), a skew estimate taken out
/// (Leptonica), then `engine` (LSTM) on this thread alone along the paths of ``docpreview_ocr_path``,
/// all of them within `deadline_ms` (a second look that would pass it is not taken). At most `max_words` words are kept. Fills `result`
/// and returns 0, or returns a status and leaves `result` empty; `message` (of `message_size`
/// bytes) says why.
int docpreview_ocr_read(docpreview_ocr_engine *_Nonnull engine, const uint8_t *_Nonnull pixels, int32_t width, int32_t height,
                        int32_t channels, int32_t stride, int32_t ppi, int32_t deadline_ms, int32_t max_words,
                        docpreview_ocr_result *_Nonnull result, char *_Nonnull message, int32_t message_size);
/// Frees what `result` holds and empties it.
void docpreview_ocr_free(docpreview_ocr_result *_Nonnull result);

/// Tesseract's and Leptonica's versions, and the size of each language's data ("tesseract 5.3.0;
/// leptonica-1.82.0; eng 4113088 bytes"): what a reading depends on besides the pixels. Written into
/// `buffer`; returns 0, or a status when a language's data is missing.
int docpreview_ocr_version(const char *_Nonnull languages, char *_Nonnull buffer, int32_t buffer_size);

#endif
