// Over 300 lines for a reason: one reading of a page, from its pixels to Tesseract's words (the page
// found in a photo, deskew, the thresholds, the readings compared), whose steps share the lazily
// loaded symbols, the pixel buffers and the placement that maps every box back onto the page; split,
// each part would declare them again or expose them in a header no one else needs.
#include "ocr.h"

#include <leptonica/allheaders.h>
#include <math.h>
#include <native_loader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <tesseract/capi.h>

#define TESSERACT "libtesseract.so.5"
#define LEPTONICA "liblept.so.5"
#define OPENMP "libgomp.so.1"

/// Where Debian's packages put the languages' data (Tesseract's own default; TESSDATA_PREFIX overrides it).
#define TESSDATA "/usr/share/tesseract-ocr/5/tessdata"

void omp_set_max_active_levels(int);

DOCPREVIEW_LAZY(OPENMP, omp_set_max_active_levels)
DOCPREVIEW_LAZY(LEPTONICA, pixCreate)
DOCPREVIEW_LAZY(LEPTONICA, pixDestroy)
DOCPREVIEW_LAZY(LEPTONICA, pixGetData)
DOCPREVIEW_LAZY(LEPTONICA, pixGetWpl)
DOCPREVIEW_LAZY(LEPTONICA, pixSetResolution)
DOCPREVIEW_LAZY(LEPTONICA, pixFindSkewSweepAndSearch)
DOCPREVIEW_LAZY(LEPTONICA, pixRotate)
DOCPREVIEW_LAZY(LEPTONICA, pixGetWidth)
DOCPREVIEW_LAZY(LEPTONICA, pixGetHeight)
DOCPREVIEW_LAZY(LEPTONICA, setMsgSeverity)
DOCPREVIEW_LAZY(LEPTONICA, getLeptonicaVersion)
DOCPREVIEW_LAZY(LEPTONICA, lept_free)
DOCPREVIEW_LAZY(TESSERACT, TessVersion)
DOCPREVIEW_LAZY(TESSERACT, TessDeleteText)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPICreate)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPIDelete)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPIInit3)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPISetVariable)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPISetPageSegMode)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPISetImage2)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPISetSourceResolution)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPIRecognize)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPIClear)
DOCPREVIEW_LAZY(TESSERACT, TessBaseAPIGetIterator)
DOCPREVIEW_LAZY(TESSERACT, TessResultIteratorDelete)
DOCPREVIEW_LAZY(TESSERACT, TessResultIteratorGetPageIterator)
DOCPREVIEW_LAZY(TESSERACT, TessResultIteratorNext)
DOCPREVIEW_LAZY(TESSERACT, TessResultIteratorGetUTF8Text)
DOCPREVIEW_LAZY(TESSERACT, TessResultIteratorConfidence)
DOCPREVIEW_LAZY(TESSERACT, TessPageIteratorBoundingBox)
DOCPREVIEW_LAZY(TESSERACT, TessPageIteratorIsAtFinalElement)
DOCPREVIEW_LAZY(TESSERACT, TessMonitorCreate)
DOCPREVIEW_LAZY(TESSERACT, TessMonitorDelete)
DOCPREVIEW_LAZY(TESSERACT, TessMonitorSetDeadlineMSecs)

/// Sauvola's window (half-size, pixels at 300 ppi: about 4 mm) and its weight of the local deviation.
#define SAUVOLA_HALF_WINDOW 25
#define SAUVOLA_FACTOR 0.34f
/// The skews looked for: up to 15° either way (a photo held by hand), found to a hundredth of a
/// degree; below MIN_SKEW or with a confidence under MIN_CONFIDENCE the page is left as it is
/// (Leptonica's own thresholds in pixFindSkewAndDeskew).
#define SKEW_RANGE 15.0f
#define MIN_SKEW 0.1f
#define MIN_CONFIDENCE 3.0f

/// Adds one row of 8-bit pixels to the columns' sums and sums of squares, or takes it away.
static void add_row(const l_uint32 *line, int32_t width, int adding, uint32_t *sums, uint32_t *squares) {
    for (int32_t x = 0; x < width; x++) {
        uint32_t value = GET_DATA_BYTE(line, x);
        if (adding) {
            sums[x] += value;
            squares[x] += value * value;
        } else {
            sums[x] -= value;
            squares[x] -= value * value;
        }
    }
}

/// The Sauvola thresholding of an 8-bit `gray` (a pixel is black under mean × (1 − k (1 − deviation /
/// 128)) of the window around it, cut short at the edges), or NULL. One pass with sliding sums of
/// each column's window and then of the row's: 4 times Leptonica's pixSauvolaBinarize, whose
/// windowed means and deviations are whole images (the same pixels but a few hundred a page).
static PIX *binarized(PIX *gray) {
    int32_t width = lazy_pixGetWidth()(gray), height = lazy_pixGetHeight()(gray), half = SAUVOLA_HALF_WINDOW;
    PIX *binary = lazy_pixCreate()(width, height, 1);
    // A column's window holds at most 51 pixels: its sum of squares (51 × 255²) fits 32 bits.
    uint32_t *sums = calloc((size_t)width, sizeof *sums), *squares = calloc((size_t)width, sizeof *squares);
    if (!binary || !sums || !squares) {
        free(sums);
        free(squares);
        if (binary) lazy_pixDestroy()(&binary);
        return NULL;
    }
    const l_uint32 *data = lazy_pixGetData()(gray);
    l_uint32 *out = lazy_pixGetData()(binary);
    size_t wpl = (size_t)lazy_pixGetWpl()(gray), out_wpl = (size_t)lazy_pixGetWpl()(binary);
    for (int32_t y = 0; y <= half && y < height; y++) add_row(data + (size_t)y * wpl, width, 1, sums, squares);
    for (int32_t y = 0; y < height; y++) {
        if (y > 0 && y + half < height) add_row(data + (size_t)(y + half) * wpl, width, 1, sums, squares);
        if (y - half - 1 >= 0) add_row(data + (size_t)(y - half - 1) * wpl, width, 0, sums, squares);
        int32_t rows = (y + half < height ? y + half : height - 1) - (y > half ? y - half : 0) + 1;
        uint64_t sum = 0, square = 0;
        for (int32_t x = 0; x <= half && x < width; x++) { sum += sums[x]; square += squares[x]; }
        const l_uint32 *line = data + (size_t)y * wpl;
        l_uint32 *target = out + (size_t)y * out_wpl;
        for (int32_t x = 0; x < width; x++) {
            if (x > 0 && x + half < width) { sum += sums[x + half]; square += squares[x + half]; }
            if (x - half - 1 >= 0) { sum -= sums[x - half - 1]; square -= squares[x - half - 1]; }
            int32_t columns = (x + half < width ? x + half : width - 1) - (x > half ? x - half : 0) + 1;
            float count = (float)(rows * columns), mean = (float)sum / count, variance = (float)square / count - mean * mean;
            float deviation = variance > 0 ? sqrtf(variance) : 0;
            if ((float)GET_DATA_BYTE(line, x) < mean * (1.0f - SAUVOLA_FACTOR * (1.0f - deviation / 128.0f))) SET_DATA_BIT(target, x);
        }
    }
    free(sums);
    free(squares);
    return binary;
}
static int fail(int status, char *message, int32_t size, const char *text) {
    snprintf(message, (size_t)size, "%s", text);
    return status;
}

/// The pixels as an 8-bit gray Pix (luma of RGB; alpha ignored), or NULL.
static PIX *gray_pix(const uint8_t *pixels, int32_t width, int32_t height, int32_t channels, int32_t stride) {
    PIX *pix = lazy_pixCreate()(width, height, 8);
    if (!pix) return NULL;
    l_uint32 *data = lazy_pixGetData()(pix);
    l_int32 wpl = lazy_pixGetWpl()(pix);
    for (int32_t y = 0; y < height; y++) {
        const uint8_t *row = pixels + (size_t)y * (size_t)stride;
        l_uint32 *line = data + (size_t)y * (size_t)wpl;
        for (int32_t x = 0; x < width; x++) {
            const uint8_t *p = row + (size_t)x * (size_t)channels;
            uint32_t value = channels >= 3 ? (uint32_t)(p[0] * 77 + p[1] * 150 + p[2] * 29) >> 8 : p[0];
            SET_DATA_BYTE(line, x, value);
        }
    }
    return pix;
}

/// Where the pixels read lie in the pixels given: the read image was turned straight by `radians`
/// about its centre (`cx`, `cy`), and when `rectified` it is the page found in a photo, brought to a
/// rectangle; `to_photo` takes a point of that rectangle back onto the photo (``projective``).
typedef struct {
    double radians, cx, cy;
    int rectified;
    double to_photo[8];
} placement;

/// The point (`x`, `y`) under the projective transform `h`: ((h0 x + h1 y + h2), (h3 x + h4 y + h5))
/// over (h6 x + h7 y + 1).
static void projective(const double h[8], double x, double y, double *ox, double *oy) {
    double w = h[6] * x + h[7] * y + 1;
    *ox = (h[0] * x + h[1] * y + h[2]) / w;
    *oy = (h[3] * x + h[4] * y + h[5]) / w;
}

/// Maps a point of the pixels read back onto the pixels given: the deskew's turn undone, then the
/// page's rectification.
static void place(const placement *where, double x, double y, double *ox, double *oy) {
    double s = sin(where->radians), c = cos(where->radians), dx = x - where->cx, dy = y - where->cy;
    *ox = where->cx + dx * c - dy * s;
    *oy = where->cy + dx * s + dy * c;
    if (where->rectified) projective(where->to_photo, *ox, *oy, ox, oy);
}

static int collect(TessBaseAPI *api, const placement *where, int32_t width, int32_t height, int32_t max_words, docpreview_ocr_result *result) {
    TessResultIterator *iterator = lazy_TessBaseAPIGetIterator()(api);
    if (!iterator) return DOCPREVIEW_OCR_OK;  // nothing on the page
    const TessPageIterator *page = lazy_TessResultIteratorGetPageIterator()(iterator);
    int32_t capacity = 0;
    int status = DOCPREVIEW_OCR_OK;
    do {
        char *text = lazy_TessResultIteratorGetUTF8Text()(iterator, RIL_WORD);
        if (!text) continue;
        // No word but blanks (what sparse text finds in a picture's flat areas).
        if (text[strspn(text, " ")] == '\0') { lazy_TessDeleteText()(text); continue; }
        if (result->count == max_words) {
            lazy_TessDeleteText()(text);
            result->truncated = 1;
            break;
        }
        if (result->count == capacity) {
            int32_t grown = capacity ? capacity * 2 : 256;
            docpreview_ocr_word *words = realloc(result->words, (size_t)grown * sizeof *words);
            if (!words) { lazy_TessDeleteText()(text); status = DOCPREVIEW_OCR_FAILED; break; }
            result->words = words;
            capacity = grown;
        }
        int left = 0, top = 0, right = 0, bottom = 0;
        lazy_TessPageIteratorBoundingBox()(page, RIL_WORD, &left, &top, &right, &bottom);
        // The box's corners on the page as given, and the box around them.
        double xs[4], ys[4], corners[4][2] = {{left, top}, {right, top}, {left, bottom}, {right, bottom}};
        for (int i = 0; i < 4; i++) place(where, corners[i][0], corners[i][1], &xs[i], &ys[i]);
        double minX = xs[0], maxX = xs[0], minY = ys[0], maxY = ys[0];
        for (int i = 1; i < 4; i++) {
            minX = fmin(minX, xs[i]); maxX = fmax(maxX, xs[i]);
            minY = fmin(minY, ys[i]); maxY = fmax(maxY, ys[i]);
        }
        docpreview_ocr_word *word = &result->words[result->count++];
        word->text = strdup(text);
        lazy_TessDeleteText()(text);
        if (!word->text) { result->count--; status = DOCPREVIEW_OCR_FAILED; break; }
        word->left = (int32_t)fmax(0, floor(minX));
        word->top = (int32_t)fmax(0, floor(minY));
        word->right = (int32_t)fmin(width, ceil(maxX));
        word->bottom = (int32_t)fmin(height, ceil(maxY));
        word->confidence = lazy_TessResultIteratorConfidence()(iterator, RIL_WORD);
        word->next = lazy_TessPageIteratorIsAtFinalElement()(page, RIL_PARA, RIL_WORD) ? DOCPREVIEW_OCR_BLOCK
                   : lazy_TessPageIteratorIsAtFinalElement()(page, RIL_TEXTLINE, RIL_WORD) ? DOCPREVIEW_OCR_LINE
                   : DOCPREVIEW_OCR_SPACE;
    } while (lazy_TessResultIteratorNext()(iterator, RIL_WORD));
    lazy_TessResultIteratorDelete()(iterator);
    return status;
}

struct docpreview_ocr_engine {
    TessBaseAPI *api;
};

docpreview_ocr_engine *docpreview_ocr_engine_create(const char *languages) {
    lazy_setMsgSeverity()(L_SEVERITY_NONE);
    docpreview_ocr_engine *engine = calloc(1, sizeof *engine);
    if (!engine) return NULL;
    engine->api = lazy_TessBaseAPICreate()();
    if (!engine->api || lazy_TessBaseAPIInit3()(engine->api, NULL, languages) != 0) {
        docpreview_ocr_engine_free(engine);
        return NULL;
    }
    lazy_TessBaseAPISetVariable()(engine->api, "debug_file", "/dev/null");
    return engine;
}

void docpreview_ocr_engine_free(docpreview_ocr_engine *engine) {
    if (!engine) return;
    if (engine->api) lazy_TessBaseAPIDelete()(engine->api);
    free(engine);
}

/// Recognizes `pix` with `engine` in segmentation `mode` until `deadline_ms` and collects its words
/// into `result` (emptied first). Returns a status.
static int recognize(docpreview_ocr_engine *engine, PIX *pix, int32_t ppi, TessPageSegMode mode, int32_t deadline_ms, const placement *where,
                     int32_t width, int32_t height, int32_t max_words, docpreview_ocr_result *result) {
    *result = (docpreview_ocr_result){0};
    if (deadline_ms <= 0) return DOCPREVIEW_OCR_TIMEOUT;
    lazy_TessBaseAPISetPageSegMode()(engine->api, mode);
    lazy_TessBaseAPISetImage2()(engine->api, pix);
    lazy_TessBaseAPISetSourceResolution()(engine->api, ppi);
    ETEXT_DESC *monitor = lazy_TessMonitorCreate()();
    lazy_TessMonitorSetDeadlineMSecs()(monitor, deadline_ms);
    int recognized = lazy_TessBaseAPIRecognize()(engine->api, monitor);
    lazy_TessMonitorDelete()(monitor);
    int status = recognized == 0 ? collect(engine->api, where, width, height, max_words, result) : DOCPREVIEW_OCR_TIMEOUT;
    // The page's image and results go; the languages' models stay for the next page.
    lazy_TessBaseAPIClear()(engine->api);
    if (status != DOCPREVIEW_OCR_OK) docpreview_ocr_free(result);
    result->skew_degrees = (float)(-where->radians * 180.0 / M_PI);
    result->rectified = where->rectified;
    return status;
}

/// A reading's worth by the engine's own judgement: the letters and digits of its words read with a
/// confidence of at least READ_CONFIDENCE. Noise read as letters (an illustration, a texture) comes
/// with low confidences and counts for nothing.
#define READ_CONFIDENCE 60.0f
/// Whether byte `c` of a word's UTF-8 begins a letter or a digit (a multibyte character counts once,
/// by its lead byte).
static int letter_or_digit(unsigned char c) {
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c >= 0xC0;
}

static int64_t confident_characters(const docpreview_ocr_result *result) {
    int64_t count = 0;
    for (int32_t i = 0; i < result->count; i++) {
        if (result->words[i].confidence < READ_CONFIDENCE) continue;
        for (const unsigned char *c = (const unsigned char *)result->words[i].text; *c; c++) count += letter_or_digit(*c);
    }
    return count;
}

/// How sure a reading is, in tenths: of its characters, how many are in words read with a confidence
/// of READ_CONFIDENCE or more (0 when it found nothing). A clean page's are 9 or 10; a page of text
/// Tesseract is unsure of, 2 to 8; noise or a picture without text, fewer.
static int64_t sureness(const docpreview_ocr_result *result) {
    int64_t all = 0;
    for (int32_t i = 0; i < result->count; i++) all += (int64_t)strlen(result->words[i].text);
    return all == 0 ? 0 : confident_characters(result) * 10 / all;
}

/// Otsu's threshold of a histogram of `count` values: the level that best parts them in two.
static int32_t otsu(const int64_t histogram[256], int64_t count) {
    double total = 0;
    for (int32_t level = 0; level < 256; level++) total += (double)level * histogram[level];
    double below = 0, best = -1;
    int64_t seen = 0;
    int32_t threshold = 128;
    for (int32_t level = 0; level < 256; level++) {
        seen += histogram[level];
        below += (double)level * histogram[level];
        if (seen == 0 || seen == count) continue;
        double w0 = (double)seen / count, m0 = below / seen, m1 = (total - below) / (count - seen);
        double between = w0 * (1 - w0) * (m0 - m1) * (m0 - m1);
        if (between > best) { best = between; threshold = level; }
    }
    return threshold;
}

/// Whether the page's light is uneven enough to lose words to a global threshold (Tesseract's own:
/// Otsu's of the whole page): in one in SHADED_SHARE or more of the tiles of TILE pixels, paper lies
/// under that threshold or within PAPER_MARGIN levels above it, so a shadow's or a dim side's words
/// go black with it. A tile's paper is its level at the PAPER_RANK-th percentile, when its median is
/// within UNIFORM levels of it (mostly paper, a little ink) and it is not black (a picture, the
/// ground or a black border holds no paper). Light that only fades, its paper well above the
/// threshold everywhere, leaves every word to the global threshold and is not read again.
#define TILE 64
#define PAPER_RANK 90
#define UNIFORM 24
#define BLACK 32
#define PAPER_MARGIN 16
#define SHADED_SHARE 20
static int uneven_light(PIX *gray) {
    int32_t width = lazy_pixGetWidth()(gray), height = lazy_pixGetHeight()(gray);
    int32_t across = width / TILE, down = height / TILE;
    if (across < 2 || down < 2) return 0;
    const l_uint32 *data = lazy_pixGetData()(gray);
    size_t wpl = (size_t)lazy_pixGetWpl()(gray);
    int64_t tiles = (int64_t)across * down, histogram[256] = {0}, sampled = 0;
    // Each tile's paper level, or -1 when it holds none.
    int16_t *paper = malloc((size_t)tiles * sizeof *paper);
    if (!paper) return 0;
    const int32_t samples = (TILE / 2) * (TILE / 2);
    for (int32_t ty = 0; ty < down; ty++) {
        for (int32_t tx = 0; tx < across; tx++) {
            int32_t levels[256] = {0};
            // Every other row and column: the paper shows in any of them, and so does the page's histogram.
            for (int32_t y = ty * TILE; y < (ty + 1) * TILE; y += 2) {
                const l_uint32 *line = data + (size_t)y * wpl;
                for (int32_t x = tx * TILE; x < (tx + 1) * TILE; x += 2) levels[GET_DATA_BYTE(line, x)]++;
            }
            int32_t median = -1, level = -1, seen = 0;
            for (int32_t value = 0; value < 256; value++) {
                histogram[value] += levels[value];
                seen += levels[value];
                if (median < 0 && seen * 2 >= samples) median = value;
                if (level < 0 && seen * 100 >= samples * PAPER_RANK) level = value;
            }
            sampled += samples;
            paper[(int64_t)ty * across + tx] = (int16_t)(level - median <= UNIFORM && level >= BLACK ? level : -1);
        }
    }
    int32_t threshold = otsu(histogram, sampled);
    int64_t shaded = 0;
    for (int64_t tile = 0; tile < tiles; tile++) shaded += paper[tile] >= 0 && paper[tile] < threshold + PAPER_MARGIN;
    free(paper);
    return shaded * SHADED_SHARE >= tiles;
}

/// Whether `gray` is two-toned, as a scanner's bitonal page is: of every fourth pixel of every fourth
/// row, 99 in 100 within 16 levels of black or white. Its light cannot be uneven and a local
/// threshold gives its pixels back as they are, so neither is tried.
static int bitonal(PIX *gray) {
    int32_t width = lazy_pixGetWidth()(gray), height = lazy_pixGetHeight()(gray);
    const l_uint32 *data = lazy_pixGetData()(gray);
    size_t wpl = (size_t)lazy_pixGetWpl()(gray);
    int64_t seen = 0, toned = 0;
    for (int32_t y = 0; y < height; y += 4) {
        const l_uint32 *line = data + (size_t)y * wpl;
        for (int32_t x = 0; x < width; x += 4) {
            uint32_t value = GET_DATA_BYTE(line, x);
            seen++;
            toned += value < 16 || value > 239;
        }
    }
    return toned * 100 >= seen * 99;
}

/// Whether a reading looks like a table of figures (a stats sheet, a box score): three in ten of its
/// words numbers. Automatic segmentation drops whole columns of them, which sparse text keeps.
static int tabular(const docpreview_ocr_result *result) {
    int32_t numbers = 0;
    for (int32_t i = 0; i < result->count; i++) {
        int32_t digits = 0, others = 0;
        for (const unsigned char *c = (const unsigned char *)result->words[i].text; *c; c++) {
            if (*c >= '0' && *c <= '9') digits++;
            else if (letter_or_digit(*c)) others++;
        }
        if (digits > others) numbers++;
    }
    return result->count > 0 && numbers * 10 >= result->count * 3;
}

/// The long side, in pixels, of the small copy of a photo its page is looked for in.
#define PAGE_SEARCH_SIDE 512
/// A page's edge, looked at in EDGE_SAMPLES places: EDGE_STEP pixels of the small copy inside it,
/// the paper, is EDGE_CONTRAST levels lighter on average than as far outside, the ground.
#define EDGE_SAMPLES 32
#define EDGE_STEP 3
#define EDGE_CONTRAST 30

/// Twice the signed area of the triangle (a, b, c): positive when it turns clockwise on the image.
static double turn(const double a[2], const double b[2], const double c[2]) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/// Finds the page in a photo: the largest region of paper (lighter than Otsu's threshold of a
/// small copy of the photo) when it is a quadrilateral on a darker ground that shows around it
/// (beyond two of its edges at least). Its corners, top left, top right, bottom right, bottom left,
/// in `gray`'s pixels, go into `corners`. Returns 0 when no such page is there (a scan, a page that
/// fills the photo, a picture, the lit part of a page under a hard shadow).
static int find_page(PIX *gray, double corners[4][2]) {
    int32_t width = lazy_pixGetWidth()(gray), height = lazy_pixGetHeight()(gray);
    int32_t longest = width > height ? width : height, factor = (longest + PAGE_SEARCH_SIDE - 1) / PAGE_SEARCH_SIDE;
    int32_t small_width = width / factor, small_height = height / factor;
    if (small_width < 32 || small_height < 32) return 0;
    size_t count = (size_t)small_width * (size_t)small_height;
    uint8_t *small = malloc(count);
    int32_t *label = malloc(count * sizeof *label), *queue = malloc(count * sizeof *queue);
    int found = 0;
    if (!small || !label || !queue) goto done;
    const l_uint32 *data = lazy_pixGetData()(gray);
    size_t wpl = (size_t)lazy_pixGetWpl()(gray);
    int64_t histogram[256] = {0};
    for (int32_t y = 0; y < small_height; y++) {
        for (int32_t x = 0; x < small_width; x++) {
            uint32_t sum = 0;
            for (int32_t dy = 0; dy < factor; dy++) {
                const l_uint32 *line = data + (size_t)(y * factor + dy) * wpl;
                for (int32_t dx = 0; dx < factor; dx++) sum += GET_DATA_BYTE(line, x * factor + dx);
            }
            uint8_t value = (uint8_t)(sum / (uint32_t)(factor * factor));
            small[(size_t)y * small_width + x] = value;
            histogram[value]++;
        }
    }
    int32_t threshold = otsu(histogram, (int64_t)count);
    // The largest 4-connected region lighter than the threshold.
    for (size_t i = 0; i < count; i++) label[i] = -1;
    int32_t best = -1;
    size_t best_size = 0;
    for (size_t seed = 0; seed < count; seed++) {
        if (label[seed] >= 0 || small[seed] <= threshold) continue;
        size_t head = 0, tail = 0;
        label[seed] = (int32_t)seed;
        queue[tail++] = (int32_t)seed;
        while (head < tail) {
            int32_t at = queue[head++], x = at % small_width, y = at / small_width;
            int32_t next[4] = {x > 0 ? at - 1 : -1, x + 1 < small_width ? at + 1 : -1, y > 0 ? at - small_width : -1,
                               y + 1 < small_height ? at + small_width : -1};
            for (int i = 0; i < 4; i++) {
                if (next[i] < 0 || label[next[i]] >= 0 || small[next[i]] <= threshold) continue;
                label[next[i]] = (int32_t)seed;
                queue[tail++] = next[i];
            }
        }
        if (tail > best_size) { best_size = tail; best = (int32_t)seed; }
    }
    if (best < 0) goto done;
    // Its corners: the points farthest out towards each corner of the photo.
    double quad[4][2];
    double reach[4] = {-1e18, -1e18, -1e18, -1e18};
    for (size_t i = 0; i < count; i++) {
        if (label[i] != best) continue;
        double x = (double)(i % (size_t)small_width), y = (double)(i / (size_t)small_width);
        double toward[4] = {-x - y, x - y, x + y, y - x};
        for (int c = 0; c < 4; c++) {
            if (toward[c] > reach[c]) { reach[c] = toward[c]; quad[c][0] = x; quad[c][1] = y; }
        }
    }
    // A page is a convex quadrilateral of a tenth of the photo or more...
    double area = 0;
    for (int c = 0; c < 4; c++) {
        if (turn(quad[c], quad[(c + 1) % 4], quad[(c + 2) % 4]) <= 0) goto done;
        area += quad[c][0] * quad[(c + 1) % 4][1] - quad[(c + 1) % 4][0] * quad[c][1];
    }
    if (area / 2 < 0.1 * (double)count) goto done;
    // ...filled with paper, none of it outside, on a ground a good deal darker that shows around it.
    int64_t inside = 0, paper_inside = 0, outside = 0, paper_outside = 0;
    double paper_light = 0, ground_light = 0;
    for (size_t i = 0; i < count; i++) {
        double point[2] = {(double)(i % (size_t)small_width), (double)(i / (size_t)small_width)};
        int in = 1;
        for (int c = 0; c < 4 && in; c++) in = turn(quad[c], quad[(c + 1) % 4], point) >= 0;
        int paper = label[i] == best;
        if (paper) paper_light += small[i];
        if (in) {
            inside++;
            paper_inside += paper;
        } else {
            outside++;
            paper_outside += paper;
            if (!paper) ground_light += small[i];
        }
    }
    if (outside * 100 < (int64_t)count * 3 || paper_inside * 10 < inside * 6 || paper_outside * 20 > outside) goto done;
    if (paper_light / (double)best_size - ground_light / (double)(outside - paper_outside) < 40) goto done;
    // ...and its edges are edges: along each one within the photo, the paper a step inside is
    // lighter than the ground a step outside (where a shadow across a page only fades). The ground
    // shows beyond two of them at least: the lit part of a page with a hard shadow across one side
    // is no page on a desk.
    int32_t within = 0;
    for (int c = 0; c < 4; c++) {
        const double *a = quad[c], *b = quad[(c + 1) % 4];
        double length = hypot(b[0] - a[0], b[1] - a[1]), nx = (b[1] - a[1]) / length, ny = -(b[0] - a[0]) / length;
        int32_t samples = 0;
        double contrast = 0;
        for (int32_t k = 1; k < EDGE_SAMPLES; k++) {
            double t = (double)k / EDGE_SAMPLES, x = a[0] + (b[0] - a[0]) * t, y = a[1] + (b[1] - a[1]) * t;
            // The normal (nx, ny) points out of the page: the quadrilateral turns clockwise on the image.
            int32_t ix = (int32_t)lround(x - nx * EDGE_STEP), iy = (int32_t)lround(y - ny * EDGE_STEP);
            int32_t ox = (int32_t)lround(x + nx * EDGE_STEP), oy = (int32_t)lround(y + ny * EDGE_STEP);
            if (ox < 0 || oy < 0 || ox >= small_width || oy >= small_height || ix < 0 || iy < 0 || ix >= small_width || iy >= small_height) continue;
            contrast += (double)small[(size_t)iy * small_width + ix] - small[(size_t)oy * small_width + ox];
            samples++;
        }
        if (samples * 2 < EDGE_SAMPLES) continue;
        if (contrast / samples < EDGE_CONTRAST) goto done;
        within++;
    }
    if (within < 2) goto done;
    for (int c = 0; c < 4; c++) {
        corners[c][0] = (quad[c][0] + 0.5) * factor;
        corners[c][1] = (quad[c][1] + 0.5) * factor;
    }
    found = 1;
done:
    free(small);
    free(label);
    free(queue);
    return found;
}

/// The projective transform `h` (``projective``) that takes the four points `from` to `to`: the
/// eight equations solved by Gaussian elimination. Returns 0 when they have no single solution.
static int solve_projective(const double from[4][2], const double to[4][2], double h[8]) {
    double m[8][9];
    for (int i = 0; i < 4; i++) {
        double x = from[i][0], y = from[i][1], u = to[i][0], v = to[i][1];
        double rows[2][9] = {{x, y, 1, 0, 0, 0, -u * x, -u * y, u}, {0, 0, 0, x, y, 1, -v * x, -v * y, v}};
        memcpy(m[2 * i], rows[0], sizeof rows[0]);
        memcpy(m[2 * i + 1], rows[1], sizeof rows[1]);
    }
    for (int column = 0; column < 8; column++) {
        int pivot = column;
        for (int row = column + 1; row < 8; row++) if (fabs(m[row][column]) > fabs(m[pivot][column])) pivot = row;
        if (fabs(m[pivot][column]) < 1e-9) return 0;
        if (pivot != column) {
            double swap[9];
            memcpy(swap, m[pivot], sizeof swap);
            memcpy(m[pivot], m[column], sizeof swap);
            memcpy(m[column], swap, sizeof swap);
        }
        for (int row = 0; row < 8; row++) {
            if (row == column) continue;
            double ratio = m[row][column] / m[column][column];
            for (int k = column; k < 9; k++) m[row][k] -= ratio * m[column][k];
        }
    }
    for (int i = 0; i < 8; i++) h[i] = m[i][8] / m[i][i];
    return 1;
}

static double distance(const double a[2], const double b[2]) { return hypot(a[0] - b[0], a[1] - b[1]); }

/// The page of `gray` within `corners` (``find_page``) brought to a rectangle as wide and as tall as
/// its longer edges, sampled bilinearly; `to_photo` takes its points back onto `gray`. NULL when
/// the corners make no page or Leptonica cannot hold it.
static PIX *rectified(PIX *gray, const double corners[4][2], double to_photo[8]) {
    int32_t width = lazy_pixGetWidth()(gray), height = lazy_pixGetHeight()(gray);
    double across = fmax(distance(corners[0], corners[1]), distance(corners[3], corners[2]));
    double down = fmax(distance(corners[0], corners[3]), distance(corners[1], corners[2]));
    // Never more pixels than the photo's (the corners lie in it; their edges are no longer than its diagonal).
    int32_t page_width = (int32_t)fmin(across, hypot(width, height)), page_height = (int32_t)fmin(down, hypot(width, height));
    double rectangle[4][2] = {{0, 0}, {page_width, 0}, {page_width, page_height}, {0, page_height}};
    if (page_width < 32 || page_height < 32 || !solve_projective(rectangle, corners, to_photo)) return NULL;
    PIX *page = lazy_pixCreate()(page_width, page_height, 8);
    if (!page) return NULL;
    const l_uint32 *data = lazy_pixGetData()(gray);
    size_t wpl = (size_t)lazy_pixGetWpl()(gray), page_wpl = (size_t)lazy_pixGetWpl()(page);
    l_uint32 *out = lazy_pixGetData()(page);
    for (int32_t y = 0; y < page_height; y++) {
        l_uint32 *line = out + (size_t)y * page_wpl;
        for (int32_t x = 0; x < page_width; x++) {
            double sx, sy;
            projective(to_photo, x + 0.5, y + 0.5, &sx, &sy);
            sx -= 0.5;
            sy -= 0.5;
            uint32_t value = 255;
            if (sx >= 0 && sy >= 0 && sx < width - 1 && sy < height - 1) {
                int32_t x0 = (int32_t)sx, y0 = (int32_t)sy;
                double fx = sx - x0, fy = sy - y0;
                const l_uint32 *top = data + (size_t)y0 * wpl, *bottom = top + wpl;
                double upper = GET_DATA_BYTE(top, x0) * (1 - fx) + GET_DATA_BYTE(top, x0 + 1) * fx;
                double lower = GET_DATA_BYTE(bottom, x0) * (1 - fx) + GET_DATA_BYTE(bottom, x0 + 1) * fx;
                value = (uint32_t)(upper * (1 - fy) + lower * fy + 0.5);
            }
            SET_DATA_BYTE(line, x, value);
        }
    }
    return page;
}

static int64_t milliseconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)(now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int docpreview_ocr_read(docpreview_ocr_engine *engine, const uint8_t *pixels, int32_t width, int32_t height, int32_t channels,
                        int32_t stride, int32_t ppi, int32_t deadline_ms, int32_t max_words,
                        docpreview_ocr_result *result, char *message, int32_t message_size) {
    *result = (docpreview_ocr_result){0};
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4) || stride < width * channels) {
        return fail(DOCPREVIEW_OCR_FAILED, message, message_size, "the pixels' layout is not one OCR reads");
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    // One core a reading: the children are the parallelism (Tesseract's OpenMP takes 6 s of two
    // cores for a page one core reads in 1). No parallel region is active past level 0 (a setting
    // of the calling thread's).
    lazy_omp_set_max_active_levels()(0);
    lazy_setMsgSeverity()(L_SEVERITY_NONE);
    PIX *gray = gray_pix(pixels, width, height, channels, stride);
    if (!gray) return fail(DOCPREVIEW_OCR_FAILED, message, message_size, "Leptonica could not hold the page");
    int two_toned = bitonal(gray);
    // A photo of a page on a darker ground: the page alone, its perspective taken out.
    placement where = {0};
    double corners[4][2];
    if (find_page(gray, corners)) {
        PIX *page = rectified(gray, corners, where.to_photo);
        if (page) {
            lazy_pixDestroy()(&gray);
            gray = page;
            where.rectified = 1;
        }
    }
    lazy_pixSetResolution()(gray, ppi, ppi);
    // The skew is measured on the locally thresholded page; a skewed gray page is turned straight
    // (area-mapped, corners brought in white). A straight page keeps its thresholded pixels for a
    // second look.
    PIX *binary = binarized(gray);
    l_float32 skew = 0, confidence = 0;
    if (binary && lazy_pixFindSkewSweepAndSearch()(binary, &skew, &confidence, 2, 2, SKEW_RANGE, 1.0f, 0.01f) == 0
        && confidence > MIN_CONFIDENCE && fabsf(skew) > MIN_SKEW) {
        PIX *straight = lazy_pixRotate()(gray, skew * (l_float32)M_PI / 180.0f, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, 0, 0);
        lazy_pixDestroy()(&binary);
        if (straight) {
            lazy_pixDestroy()(&gray);
            gray = straight;
            lazy_pixSetResolution()(gray, ppi, ppi);
            where.radians = -skew * M_PI / 180.0;
        }
    }
    where.cx = lazy_pixGetWidth()(gray) / 2.0;
    where.cy = lazy_pixGetHeight()(gray) / 2.0;
    // First Tesseract's own reading of the gray page (its global threshold, lines of light text on
    // a dark ground read inverted): what `tesseract IMAGE -` reads, and all a clean page needs.
    int status = recognize(engine, gray, ppi, PSM_AUTO, deadline_ms - (int32_t)milliseconds_since(&start), &where, width, height, max_words,
                           result);
    int32_t path = DOCPREVIEW_OCR_PATH_GRAY, readings = 1;
    // A page it is unsure of (a coloured or textured ground), or whose light is uneven (a confident
    // reading of its lit part alone), is read again thresholded locally (unless it is bitonal); then
    // a table of figures (in the reading kept so far) as sparse text, from the pixels that reading
    // came from. The reading with the most confident characters is kept: Tesseract's own unless the
    // local one has a tenth more; a table's sparse reading with any more. A page whose gray reading
    // found next to nothing is read again only when its thresholded pixels hold lines of text (the
    // skew search was sure of their slant: a shadow that took every word with it); nothing like text
    // (noise, a black frame, a picture, a blank page) costs what Tesseract's own reading costs. (On
    // the real pages of Samples/scans, sparse text read a page of prose Tesseract was unsure of no
    // better; only a table's columns it reads better.)
    int64_t sure = status == DOCPREVIEW_OCR_OK ? sureness(result) : 0;
    int lined = confidence > MIN_CONFIDENCE;
    int unsure = !two_toned && sure < 9 && (sure >= 2 || lined), uneven = !two_toned && sure >= 9 && uneven_light(gray);
    int64_t best = confident_characters(result);
    for (int look = 0; look < 2; look++) {
        PIX *pix;
        TessPageSegMode mode;
        int32_t look_path;
        int64_t tenths;
        if (look == 0) {
            if (!unsure && !uneven) continue;
            // A page turned straight is thresholded again.
            if (!binary) binary = binarized(gray);
            pix = binary;
            mode = PSM_AUTO;
            look_path = DOCPREVIEW_OCR_PATH_LOCAL;
            tenths = 11;
        } else {
            if (sure < 2 || !tabular(result)) continue;
            pix = path == DOCPREVIEW_OCR_PATH_LOCAL ? binary : gray;
            mode = PSM_SPARSE_TEXT;
            look_path = DOCPREVIEW_OCR_PATH_SPARSE;
            tenths = 10;
        }
        if (!pix) continue;
        lazy_pixSetResolution()(pix, ppi, ppi);
        docpreview_ocr_result other;
        int32_t left = deadline_ms - (int32_t)milliseconds_since(&start);
        // Out of time for another look: the reading kept so far stands.
        if (recognize(engine, pix, ppi, mode, left, &where, width, height, max_words, &other) != DOCPREVIEW_OCR_OK) continue;
        readings++;
        int64_t worth = confident_characters(&other);
        if (worth * 10 > best * tenths) {
            docpreview_ocr_free(result);
            *result = other;
            best = worth;
            path = look_path;
        } else {
            docpreview_ocr_free(&other);
        }
    }
    if (binary) lazy_pixDestroy()(&binary);
    lazy_pixDestroy()(&gray);
    if (status != DOCPREVIEW_OCR_OK) {
        docpreview_ocr_free(result);
        return fail(status, message, message_size, status == DOCPREVIEW_OCR_TIMEOUT ? "the page was not read within its time" : "Tesseract failed");
    }
    result->path = path;
    result->readings = readings;
    return DOCPREVIEW_OCR_OK;
}

void docpreview_ocr_free(docpreview_ocr_result *result) {
    for (int32_t i = 0; i < result->count; i++) free(result->words[i].text);
    free(result->words);
    *result = (docpreview_ocr_result){0};
}

int docpreview_ocr_version(const char *languages, char *buffer, int32_t buffer_size) {
    const char *prefix = getenv("TESSDATA_PREFIX");
    char *leptonica = lazy_getLeptonicaVersion()();
    int written = snprintf(buffer, (size_t)buffer_size, "tesseract %s; %s", lazy_TessVersion()(), leptonica ? leptonica : "leptonica");
    if (leptonica) lazy_lept_free()(leptonica);
    char copy[256];
    snprintf(copy, sizeof copy, "%s", languages);
    for (char *save = NULL, *language = strtok_r(copy, "+", &save); language; language = strtok_r(NULL, "+", &save)) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.traineddata", prefix && *prefix ? prefix : TESSDATA, language);
        struct stat facts;
        if (stat(path, &facts) != 0) return DOCPREVIEW_OCR_NO_LANGUAGE;
        if (written >= 0 && written < buffer_size) {
            written += snprintf(buffer + written, (size_t)(buffer_size - written), "; %s %lld bytes", language, (long long)facts.st_size);
        }
    }
    return DOCPREVIEW_OCR_OK;
}
