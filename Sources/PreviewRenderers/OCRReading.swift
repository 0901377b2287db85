import PreviewCore
import PreviewOCR
import PreviewPoppler
import PreviewVips

/// The words of pages without a text layer (scans) and of images (phone photos), read by Tesseract
/// (``OCR``) from their pixels: a PDF's page drawn at its scan's own resolution (``scanPPI``), an
/// image decoded upright at up to ``maxSide`` pixels a side. Both within the page budget, the
/// drawing's time counted in.
package enum OCRReading {
    /// Pixels an inch a page is drawn at to be read (Tesseract's models are trained near it), and an
    /// image is said to be taken at.
    package static let ppi = 300
    /// The least pixels an inch a scanned page is drawn at: a scan of less is drawn up to it (a
    /// 150 ppi book page, Samples/scans/huck.pdf: 98.5 % of its words read at 200, 97.6 % at 150,
    /// at the same cost).
    package static let leastPPI = 200.0

    /// What a page is drawn at to be read: its scan's own resolution (the image that covers half of
    /// it or more), within ``leastPPI`` … ``ppi``, or ``ppi`` for a page that is no scan. A 200 ppi
    /// scan drawn at 300 gains no detail and costs Tesseract a quarter more (its layout analysis and
    /// the lines it cuts grow with the pixels; its recognizer brings every line to one height).
    static func scanPPI(_ imagePPI: Double?) -> Double {
        guard let imagePPI, imagePPI.isFinite else { return Double(ppi) }
        return min(Double(ppi), max(leastPPI, imagePPI.rounded()))
    }
    /// The longest side of the pixels read: a poster-sized page is read at less than ``ppi``, and
    /// memory stays bounded (a side of 6,000 pixels is 36 MB of gray).
    package static let maxSide = 6_000

    /// What a reading depends on besides the pixels: the way they are read here, Tesseract's and
    /// Leptonica's versions and the languages' data.
    package static func version(languages: String) throws(PreviewError) -> String {
        do {
            return "ocr/5 scan-ppi \(Int(leastPPI))-\(ppi) photo-page deskew gray|local|sparse \(languages): \(try OCR.version(languages: languages))"
        } catch {
            throw unavailable(languages, error)
        }
    }

    static func unavailable(_ languages: String, _ error: OCRError) -> PreviewError {
        PreviewError(
            .internal, "Scans cannot be read here: the OCR data of \(languages) is not installed (tesseract-ocr-<language>).",
            detail: error.description)
    }

    /// `reading`'s words as a page's, their boxes scaled by `scale` (page units a pixel). A line
    /// that ends in a hyphen goes on with its word on the next line (Tesseract says only that the
    /// line ends), as a text layer's hyphenation.
    static func page(_ number: Int, width: Double, height: Double, _ reading: OCR.Reading, scale: Double) -> PageText {
        let words = reading.words.map { word in
            let hyphenated = word.next == .line && word.text.count > 1 && (word.text.hasSuffix("-") || word.text.hasSuffix("\u{AD}"))
            return PageText.Word(
                text: word.text, box: word.box.map { PageText.hundredths(Double($0) * scale) }, next: hyphenated ? .hyphen : word.next)
        }
        return PageText(
            page: number, width: width, height: height, words: words, truncated: reading.truncated,
            ocrPath: (reading.rectified ? "photo+" : "") + reading.path.rawValue)
    }

    /// Reads `pixels` within `seconds`, failures in the contract's words.
    static func read(_ pixels: PixelBuffer, ppi: Int, languages: String, seconds: Double, what: String) throws(PreviewError) -> OCR.Reading {
        guard seconds > 0 else { throw PreviewError(.timeout, "\(what) was drawn but not read within its time.") }
        do {
            return try OCR.read(pixels, ppi: ppi, languages: languages, seconds: seconds, maxWords: PDFRenderer.maxWordsPerPage)
        } catch {
            switch error.reason {
            case .outOfTime:
                throw PreviewError(.timeout, "\(what) took longer than \(PDFRenderer.describe(seconds: seconds)) to read.", detail: error.description)
            case .noLanguage: throw unavailable(languages, error)
            case .failed: throw PreviewError(.internal, "\(what) could not be read.", detail: error.description)
            }
        }
    }
}

extension PDFRenderer {
    /// Page `number`'s words read from its pixels (a scanned page), boxes in points as the text
    /// layer's are.
    public func ocr(_ path: String, page number: Int, languages: String) throws(PreviewError) -> PageText {
        try withDocument(path) { document throws(PreviewError) in
            let page = try page(number, of: document, pageCount: try pages(of: document))
            let size = pageSize(page)
            let started = ContinuousClock.now
            // Pixels per point: the scan's own resolution, less for a page too large to hold at it.
            let ppi = OCRReading.scanPPI(page.imagePPI(seconds: pageSeconds))
            let scale = min(ppi / 72, Double(OCRReading.maxSide) / max(size.width, size.height))
            let (width, height) = (max(1, Int(size.width * scale)), max(1, Int(size.height * scale)))
            let pixels: PixelBuffer
            do throws(PDFError) {
                pixels = try page.withPixels(width: width, height: height, seconds: pageSeconds) { rgb in
                    PixelBuffer(width: width, height: height, bands: 3, bytes: Array(rgb))
                }
            } catch {
                throw drawingFailed(page: number, error)
            }
            let left = pageSeconds - started.duration(to: .now).seconds
            let reading = try OCRReading.read(pixels, ppi: Int((scale * 72).rounded()), languages: languages, seconds: left, what: "Page \(number)")
            return OCRReading.page(number, width: size.width, height: size.height, reading, scale: 1 / scale)
        }
    }
}

extension ImageRenderer {
    /// The image's words read from its pixels (upright, as its EXIF orientation says), boxes in the
    /// image's pixels; the page is the image, `seconds` its budget.
    public func ocr(_ path: String, languages: String, seconds: Double) throws(PreviewError) -> PageText {
        let load = try load(path)
        let facts = try facts(try header(path, load))
        let (fullWidth, fullHeight) = (facts.width ?? 0, facts.height ?? 0)
        guard fullWidth > 0, fullHeight > 0 else { throw PreviewError(.corrupt, "The image has no size.") }
        let started = ContinuousClock.now
        let pixels: PixelBuffer
        do {
            let side = min(OCRReading.maxSide, max(fullWidth, fullHeight))
            pixels = try VipsImageRef.thumbnail(path: path, load: load, width: side, height: side).pixels()
        } catch {
            throw PreviewError(.corrupt, "The image could not be decoded; it may be damaged or truncated.", detail: error.description)
        }
        let left = seconds - started.duration(to: .now).seconds
        let reading = try OCRReading.read(pixels, ppi: OCRReading.ppi, languages: languages, seconds: left, what: "The image")
        return OCRReading.page(1, width: Double(fullWidth), height: Double(fullHeight), reading, scale: Double(fullWidth) / Double(pixels.width))
    }
}
