// The C functions of docpreview_splash.h over Poppler's core: PDFDoc for the document and
// SplashOutputDev for pixels, set up as pdftoppm sets them up (anti-aliased fonts and vectors, white
// paper, no FreeType hinting), but on the crop box, with the bitmap handed to the caller.
#include <docpreview_splash.h>

#include <ErrorCodes.h>
#include <Error.h>
#include <GlobalParams.h>
#include <PDFDoc.h>
#include <Page.h>
#include <SplashOutputDev.h>
#include <TextOutputDev.h>
#include <goo/GooString.h>
#include <splash/SplashBitmap.h>
#include <splash/SplashFont.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {
class BudgetedSplash;
}

struct docpreview_pdf {
    std::unique_ptr<PDFDoc> document;
    /// The rasteriser of every page and region drawn, made on the first.
    std::unique_ptr<BudgetedSplash> rasteriser;

    ~docpreview_pdf();
};

namespace {

/// Poppler reports syntax errors of damaged files on stderr by default; a damaged file gets one
/// typed error from us instead, so its messages are dropped.
void ignorePopplerMessage(ErrorCategory, Goffset, const char *) {}

/// Poppler's process-wide state, made once before the first document.
void startPoppler() {
    static std::once_flag started;
    std::call_once(started, [] {
        setErrorCallback(ignorePopplerMessage);
        globalParams = std::make_unique<GlobalParams>();
    });
}

bool counted(docpreview_pdf *pdf, int number) {
    return number >= 1 && number <= pdf->document->getNumPages();
}

/// The crop box as displayed: width and height swap for pages turned a quarter. An unreadable page is 0×0.
void displayedSize(Page *page, double *width, double *height) {
    if (!page) {
        *width = *height = 0;
        return;
    }
    const bool quarterTurn = page->getRotate() == 90 || page->getRotate() == 270;
    *width = quarterTurn ? page->getCropHeight() : page->getCropWidth();
    *height = quarterTurn ? page->getCropWidth() : page->getCropHeight();
}

/// This thread's CPU time in seconds: what drawing a page costs, whatever else the machine is doing.
double threadSeconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

/// When a render must stop (in this thread's CPU time), and whether it did.
struct PageBudget {
    double deadline;
    bool spent = false;

    bool check() {
        if (!spent && threadSeconds() >= deadline) spent = true;
        return spent;
    }
};

/// Poppler's abort callback: asked between content-stream operators (every 10 in one stream).
bool budgetSpent(void *data) {
    return static_cast<PageBudget *>(data)->check();
}

/// Poppler's glyph cache entry: SplashFont.cc's private `SplashFontCacheTag`, the same since xpdf 3.
struct GlyphCacheTag {
    int c;
    short xFrac, yFrac;
    int mru;
    int x, y, w, h;
};

/// Widens a font's glyph cache. Poppler sizes it from the font's bounding box alone: body text on
/// a 1024 px page gets 4 sets of 8 glyphs, fewer than one page's characters at their four sub-pixel
/// positions, so FreeType drew most glyphs of every page again (27 % of a page of R's manual).
/// Reached through pointers to members, the one way to the protected fields of a font we did not make.
struct GlyphCacheWidening : SplashFont {
    /// Sets wanted (the most Poppler gives is 32): one per character code of a simple font.
    static constexpr int sets = 256;
    /// The most one font's cache may take.
    static constexpr long budget = 1L << 20;

    static void widen(SplashFont *font) {
        int SplashFont::*cacheSets = &GlyphCacheWidening::cacheSets;
        int SplashFont::*cacheAssoc = &GlyphCacheWidening::cacheAssoc;
        int SplashFont::*glyphSize = &GlyphCacheWidening::glyphSize;
        unsigned char *SplashFont::*cache = &GlyphCacheWidening::cache;
        SplashFontCacheTag *SplashFont::*cacheTags = &GlyphCacheWidening::cacheTags;
        const int assoc = font->*cacheAssoc, size = font->*glyphSize;
        if (font->*cacheSets >= sets || !(font->*cache) || !(font->*cacheTags) || assoc != 8 || size <= 0) return;
        if (static_cast<long>(size) * sets * assoc > budget) return;
        const size_t entries = static_cast<size_t>(sets) * static_cast<size_t>(assoc);
        auto *glyphs = static_cast<unsigned char *>(std::malloc(entries * static_cast<size_t>(size)));
        auto *tags = static_cast<GlyphCacheTag *>(std::calloc(entries, sizeof(GlyphCacheTag)));
        if (!glyphs || !tags) {
            std::free(glyphs);
            std::free(tags);
            return;
        }
        // As Poppler starts a cache: every entry empty, each set's ways ranked 0..assoc-1.
        for (size_t i = 0; i < entries; ++i) tags[i].mru = static_cast<int>(i) & (assoc - 1);
        // Poppler frees both with gfree, which is free.
        std::free(font->*cache);
        std::free(font->*cacheTags);
        font->*cache = glyphs;
        font->*cacheTags = reinterpret_cast<SplashFontCacheTag *>(tags);
        font->*cacheSets = sets;
    }
};

/// Lays the page on white, as `SplashOutputDev::endPage` would (its `Splash::compositeBackground`),
/// with the same rounding, so the pixels are the same. Poppler blends every pixel, which took 15 % of
/// a text page's render; on a page most are untouched (alpha 0: white) or covered (alpha 255: as
/// drawn), so eight pixels at a time are looked at first and only the others are blended.
void layOnWhite(SplashBitmap *bitmap) {
    unsigned char *const data = bitmap->getDataPtr();
    const unsigned char *const alpha = bitmap->getAlphaPtr();
    if (!data || !alpha) return;
    const size_t width = static_cast<size_t>(bitmap->getWidth()), rowSize = static_cast<size_t>(bitmap->getRowSize());
    constexpr size_t run = sizeof(uint64_t);
    for (size_t y = 0; y < static_cast<size_t>(bitmap->getHeight()); ++y) {
        unsigned char *const row = data + y * rowSize;
        const unsigned char *const coverage = alpha + y * width;
        for (size_t x = 0; x < width;) {
            if (x + run <= width) {
                uint64_t eight;
                std::memcpy(&eight, coverage + x, run);
                if (eight == 0 || eight == ~uint64_t{0}) {
                    if (eight == 0) std::memset(row + 3 * x, 0xff, 3 * run);
                    x += run;
                    continue;
                }
            }
            const unsigned a = coverage[x];
            for (unsigned char *channel = row + 3 * x; channel < row + 3 * x + 3; ++channel) {
                // SplashMath.h's div255 of (255 - a) * 255 + a * c.
                const unsigned blend = (255 - a) * 255 + a * *channel;
                *channel = static_cast<unsigned char>((blend + (blend >> 8) + 0x80) >> 8);
            }
            x += 1;
        }
    }
}

/// Splash with a budget that Poppler's abort callback alone cannot enforce: the callback is asked only
/// after 10 operators within one content stream, and a form that draws another form twice, 30 levels
/// deep, has two. Once the budget is spent every form is handed to `drawForm`, which draws nothing, so
/// nested forms end at once.
class BudgetedSplash final : public SplashOutputDev {
public:
    explicit BudgetedSplash(SplashColorPtr paper) : SplashOutputDev(splashModeRGB8, 1, false, paper) {
        setFontAntialias(true);
        setVectorAntialias(true);
    }

    /// The budget of the call under way.
    PageBudget *budget = nullptr;

    bool useDrawForm() override { return budget && budget->check(); }
    void drawForm(Ref) override {}

    /// The page is laid on white by `layOnWhite` once it is taken, not here.
    void endPage() override {}

    void drawChar(GfxState *state, double x, double y, double dx, double dy, double originX, double originY, CharCode code, int bytes,
                  const Unicode *unicode, int unicodeLength) override {
        SplashOutputDev::drawChar(state, x, y, dx, dy, originX, originY, code, bytes, unicode, unicodeLength);
        // The font is made (or found in Poppler's 16 recent ones) by the first character drawn with it.
        if (SplashFont *font = getCurrentFont(); font && font != widened) {
            GlyphCacheWidening::widen(font);
            widened = font;
        }
    }

private:
    /// The font whose cache was last widened (or found too large to widen).
    SplashFont *widened = nullptr;
};

/// TextOutputDev with the rasteriser's budget, and a bound on the characters it keeps: past
/// `maxCharacters` (a page of millions of glyphs) the rest of the page's characters are dropped.
class BudgetedText final : public TextOutputDev {
public:
    BudgetedText(PageBudget *budget, long maxCharacters)
        : TextOutputDev(nullptr, false, 0, false, false), budget(budget), charactersLeft(maxCharacters) {}

    bool truncated = false;

    bool useDrawForm() override { return budget->check(); }
    void drawForm(Ref) override {}

    void drawChar(GfxState *state, double x, double y, double dx, double dy, double originX, double originY, CharCode code, int bytes,
                  const Unicode *unicode, int unicodeLength) override {
        if (charactersLeft <= 0) {
            truncated = true;
            return;
        }
        charactersLeft -= 1;
        TextOutputDev::drawChar(state, x, y, dx, dy, originX, originY, code, bytes, unicode, unicodeLength);
    }

private:
    PageBudget *budget;
    long charactersLeft;
};

/// Finds the image that covers most of a page (a scan's picture of the page) and its resolution, from
/// the content stream alone: no image is decoded (an inline image's bytes are read past, as Poppler's
/// own OutputDev does), nothing is drawn.
class ImageResolution final : public OutputDev {
public:
    explicit ImageResolution(PageBudget *budget) : budget(budget) {}

    /// The largest image's area on the page, in square points, and its pixels an inch (the larger of
    /// its two axes': a fax's 200 × 100 is read at 200).
    double area = 0, ppi = 0;

    bool upsideDown() override { return true; }
    bool useDrawChar() override { return false; }
    bool interpretType3Chars() override { return false; }
    bool useDrawForm() override { return budget->check(); }
    void drawForm(Ref) override {}

    void drawImage(GfxState *state, Object *ref, Stream *str, int width, int height, GfxImageColorMap *colorMap, bool interpolate,
                   const int *maskColors, bool inlineImg) override {
        note(state, width, height);
        OutputDev::drawImage(state, ref, str, width, height, colorMap, interpolate, maskColors, inlineImg);
    }
    void drawImageMask(GfxState *state, Object *ref, Stream *str, int width, int height, bool invert, bool interpolate,
                       bool inlineImg) override {
        note(state, width, height);
        OutputDev::drawImageMask(state, ref, str, width, height, invert, interpolate, inlineImg);
    }
    void drawMaskedImage(GfxState *state, Object *ref, Stream *str, int width, int height, GfxImageColorMap *colorMap, bool interpolate,
                         Stream *maskStr, int maskWidth, int maskHeight, bool maskInvert, bool maskInterpolate) override {
        note(state, width, height);
    }
    void drawSoftMaskedImage(GfxState *state, Object *ref, Stream *str, int width, int height, GfxImageColorMap *colorMap,
                             bool interpolate, Stream *maskStr, int maskWidth, int maskHeight, GfxImageColorMap *maskColorMap,
                             bool maskInterpolate) override {
        note(state, width, height);
    }

private:
    PageBudget *budget;

    /// An image of `width` × `height` pixels drawn on the unit square the current matrix maps.
    void note(GfxState *state, int width, int height) {
        const double *m = state->getCTM();
        const double across = std::hypot(m[0], m[1]), down = std::hypot(m[2], m[3]), covered = std::fabs(m[0] * m[3] - m[1] * m[2]);
        if (!(covered > area) || !(across > 0) || !(down > 0) || width <= 0 || height <= 0) return;
        area = covered;
        ppi = std::max(width / across, height / down) * 72;
    }
};

} // namespace

struct docpreview_pdf_text {
    std::vector<docpreview_pdf_word> words;
    std::vector<double> edges;
    std::string utf8;
};

docpreview_pdf::~docpreview_pdf() = default;

extern "C" docpreview_pdf *docpreview_pdf_open(const char *path, const char *password, docpreview_pdf_status *status) {
    try {
        startPoppler();
        std::optional<GooString> secret;
        if (password) secret.emplace(password);
        auto document = std::make_unique<PDFDoc>(std::make_unique<GooString>(path), secret, secret);
        if (!document->isOk()) {
            const int code = document->getErrorCode();
            *status = (code >= errOpenFile && code <= errEncrypted) ? static_cast<docpreview_pdf_status>(code) : DOCPREVIEW_PDF_OTHER;
            return nullptr;
        }
        *status = DOCPREVIEW_PDF_OK;
        return new docpreview_pdf{std::move(document)};
    } catch (...) {
        *status = DOCPREVIEW_PDF_OTHER;
        return nullptr;
    }
}

extern "C" void docpreview_pdf_close(docpreview_pdf *pdf) {
    delete pdf;
}

extern "C" int docpreview_pdf_page_count(docpreview_pdf *pdf) {
    try {
        return pdf->document->getNumPages();
    } catch (...) {
        return 0;
    }
}

extern "C" int docpreview_pdf_page_size(docpreview_pdf *pdf, int number, double *width, double *height) {
    try {
        if (!counted(pdf, number)) return 0;
        displayedSize(pdf->document->getPage(number), width, height);
        return 1;
    } catch (...) {
        return 0;
    }
}

extern "C" docpreview_pdf_bitmap *docpreview_pdf_render(docpreview_pdf *pdf, int number, double width, double height, int sliceX,
                                                         int sliceY, int sliceWidth, int sliceHeight, double seconds, int *outOfTime) {
    *outOfTime = 0;
    try {
        const bool inside = sliceX >= 0 && sliceY >= 0 && sliceWidth >= 1 && sliceHeight >= 1 && sliceX + sliceWidth <= std::ceil(width)
                            && sliceY + sliceHeight <= std::ceil(height);
        if (!counted(pdf, number) || !inside) return nullptr;
        Page *page = pdf->document->getPage(number);
        std::unique_ptr<SplashBitmap> bitmap;
        if (page) {
            PageBudget budget{threadSeconds() + seconds};
            // One rasteriser per document, kept for its next pages and regions: its fonts stay loaded
            // and the glyphs it drew at each size cached (the next text page of R's manual over HTTP:
            // 18.4 -> 15.2 ms median).
            if (!pdf->rasteriser) {
                SplashColor white = {0xff, 0xff, 0xff};
                pdf->rasteriser = std::make_unique<BudgetedSplash>(white);
                pdf->rasteriser->startDoc(pdf->document.get());
            }
            BudgetedSplash &rasteriser = *pdf->rasteriser;
            rasteriser.budget = &budget;
            double pointsWide = 0, pointsHigh = 0;
            displayedSize(page, &pointsWide, &pointsHigh);
            // An empty or absurd box is drawn at the caller's fallback size: the scale only has to be finite.
            const double horizontalDPI = pointsWide >= 1 ? 72.0 * width / pointsWide : 72.0;
            const double verticalDPI = pointsHigh >= 1 ? 72.0 * height / pointsHigh : 72.0;
            pdf->document->displayPageSlice(&rasteriser, number, horizontalDPI, verticalDPI, 0, false, true, false,
                                            sliceX, sliceY, sliceWidth, sliceHeight, budgetSpent, &budget);
            rasteriser.budget = nullptr;
            // A page cut short is not a preview: no pixels, and the caller says why.
            if (budget.spent) {
                *outOfTime = 1;
                return nullptr;
            }
            bitmap.reset(rasteriser.takeBitmap());
            if (bitmap) layOnWhite(bitmap.get());
        } else {
            bitmap = std::make_unique<SplashBitmap>(sliceWidth, sliceHeight, 1, splashModeRGB8, false);
            std::memset(bitmap->getDataPtr(), 0xff, static_cast<size_t>(sliceWidth) * sliceHeight * 3);
        }
        const bool packed = bitmap && bitmap->getWidth() == sliceWidth && bitmap->getHeight() == sliceHeight
                            && bitmap->getMode() == splashModeRGB8 && bitmap->getRowSize() == sliceWidth * 3;
        return packed ? reinterpret_cast<docpreview_pdf_bitmap *>(bitmap.release()) : nullptr;
    } catch (...) {
        return nullptr;
    }
}

extern "C" unsigned char *docpreview_pdf_bitmap_rgb(docpreview_pdf_bitmap *bitmap) {
    return reinterpret_cast<SplashBitmap *>(bitmap)->getDataPtr();
}

extern "C" void docpreview_pdf_bitmap_free(docpreview_pdf_bitmap *bitmap) {
    delete reinterpret_cast<SplashBitmap *>(bitmap);
}

extern "C" const char *docpreview_pdf_poppler_version(void) {
    return POPPLER_VERSION;
}

extern "C" int docpreview_pdf_page_image_ppi(docpreview_pdf *pdf, int number, double seconds, double *ppi) {
    *ppi = 0;
    try {
        if (!counted(pdf, number)) return 0;
        Page *page = pdf->document->getPage(number);
        if (!page) return 0;
        PageBudget budget{threadSeconds() + seconds};
        ImageResolution finder(&budget);
        pdf->document->displayPage(&finder, number, 72, 72, 0, false, true, false, budgetSpent, &budget);
        double width = 0, height = 0;
        displayedSize(page, &width, &height);
        if (budget.spent || !(finder.area * 2 >= width * height) || !std::isfinite(finder.ppi)) return 0;
        *ppi = finder.ppi;
        return 1;
    } catch (...) {
        return 0;
    }
}

extern "C" docpreview_pdf_text *docpreview_pdf_page_text(docpreview_pdf *pdf, int number, double seconds, int maxWords, int *outOfTime,
                                                        int *truncated) {
    *outOfTime = 0;
    *truncated = 0;
    try {
        if (!counted(pdf, number) || maxWords < 0) return nullptr;
        auto text = std::make_unique<docpreview_pdf_text>();
        if (!pdf->document->getPage(number)) return text.release();
        PageBudget budget{threadSeconds() + seconds};
        // A word is at least one character: characters past a few per word kept are never needed.
        BudgetedText reader(&budget, 16L * maxWords + 1024);
        if (!reader.isOk()) return nullptr;
        pdf->document->displayPage(&reader, number, 72, 72, 0, false, true, false, budgetSpent, &budget);
        if (budget.spent) {
            *outOfTime = 1;
            return nullptr;
        }
        *truncated = reader.truncated ? 1 : 0;
        TextPage *page = reader.takeText();
        struct Release {
            TextPage *page;
            ~Release() { page->decRefCnt(); }
        } release{page};
        for (const TextFlow *flow = page->getFlows(); flow; flow = flow->getNext()) {
            for (const TextBlock *block = flow->getBlocks(); block; block = block->getNext()) {
                for (const TextLine *line = block->getLines(); line; line = line->getNext()) {
                    for (const TextWord *word = line->getWords(); word; word = word->getNext()) {
                        if (static_cast<int>(text->words.size()) >= maxWords) {
                            *truncated = 1;
                            return text.release();
                        }
                        const std::unique_ptr<GooString> characters(word->getText());
                        docpreview_pdf_word entry{};
                        word->getBBox(&entry.x_min, &entry.y_min, &entry.x_max, &entry.y_max);
                        entry.text_offset = static_cast<int>(text->utf8.size());
                        entry.text_length = characters->getLength();
                        entry.flags = word->getSpaceAfter() ? DOCPREVIEW_PDF_WORD_SPACE_AFTER : 0;
                        // Where a left-to-right word's characters meet (its edges 1 … length - 1;
                        // edge 0 and edge length are its box's sides): a hit inside the word is
                        // marked from one to another, as Poppler's findText marks it.
                        entry.edge_offset = static_cast<int>(text->edges.size());
                        if (word->getRotation() == 0) {
                            for (int index = 1; index < word->getLength(); index++) text->edges.push_back(word->getEdge(index));
                        }
                        entry.edge_count = static_cast<int>(text->edges.size()) - entry.edge_offset;
                        if (!word->getNext()) {
                            entry.flags |= DOCPREVIEW_PDF_WORD_LINE_END;
                            if (line->isHyphenated()) entry.flags |= DOCPREVIEW_PDF_WORD_HYPHENATED;
                            if (!line->getNext()) entry.flags |= DOCPREVIEW_PDF_WORD_BLOCK_END;
                        }
                        text->utf8.append(characters->c_str(), static_cast<size_t>(characters->getLength()));
                        text->words.push_back(entry);
                    }
                }
            }
        }
        return text.release();
    } catch (...) {
        return nullptr;
    }
}

extern "C" int docpreview_pdf_text_word_count(docpreview_pdf_text *text) {
    return static_cast<int>(text->words.size());
}

extern "C" const docpreview_pdf_word *docpreview_pdf_text_words(docpreview_pdf_text *text) {
    return text->words.data();
}

extern "C" const double *docpreview_pdf_text_edges(docpreview_pdf_text *text) {
    return text->edges.data();
}

extern "C" int docpreview_pdf_text_edge_count(docpreview_pdf_text *text) {
    return static_cast<int>(text->edges.size());
}

extern "C" const char *docpreview_pdf_text_utf8(docpreview_pdf_text *text) {
    return text->utf8.data();
}

extern "C" int docpreview_pdf_text_utf8_length(docpreview_pdf_text *text) {
    return static_cast<int>(text->utf8.size());
}

extern "C" void docpreview_pdf_text_free(docpreview_pdf_text *text) {
    delete text;
}
