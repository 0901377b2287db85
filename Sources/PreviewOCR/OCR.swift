import COCR
import PreviewCore
import Synchronization

/// Tesseract over Leptonica (``COCR``): the words of a page's pixels with their boxes. One call
/// owns the C result from start to end (freed once, on every path); failures come out as ``OCRError``.
/// The languages' models are loaded once and kept for the pages after (``Engines``).
package enum OCR {
    /// A word read, its box in the pixels read (left, top, right, bottom), Tesseract's confidence
    /// (0–100) and what follows it.
    package struct Word: Sendable, Equatable {
        package var text: String
        package var box: [Int]
        package var confidence: Double
        package var next: PageText.Break
    }

    /// Which of a page's readings its words are (``COCR``'s `docpreview_ocr_path`).
    package enum Path: String, Sendable, Codable {
        /// Tesseract's own of the gray page: sure of nine in ten of its characters (a clean page).
        case gray
        /// The page thresholded locally (uneven light, a coloured or textured ground).
        case local
        /// The gray page as sparse text (columns of numbers, labels scattered over a picture).
        case sparse
    }

    /// The words of a page, in Tesseract's reading order.
    package struct Reading: Sendable {
        package var words: [Word]
        /// The reading they are, of the ones tried.
        package var path: Path
        /// The skew taken out before reading, in degrees (the boxes are on the page as given).
        package var skewDegrees: Double
        /// The pixels were a photo of a page on a darker ground, and the page alone was read, its
        /// perspective taken out (the boxes are on the photo as given).
        package var rectified: Bool
        /// More than the most words asked for were found.
        package var truncated: Bool
        /// How many times Tesseract read the page (1 to 3): a second path costs a whole reading.
        package var readings: Int
    }

    /// Reads `pixels` (gray, RGB or RGBA) taken at `ppi` pixels an inch, in `languages` ("eng",
    /// "eng+fra"), within `seconds`, keeping at most `maxWords` words.
    package static func read(_ pixels: PixelBuffer, ppi: Int, languages: String, seconds: Double, maxWords: Int) throws(OCRError) -> Reading {
        try read(pixels, ppi: ppi, languages: languages, seconds: seconds, maxWords: maxWords, engines: .shared)
    }

    static func read(_ pixels: PixelBuffer, ppi: Int, languages: String, seconds: Double, maxWords: Int, engines: Engines) throws(OCRError) -> Reading
    {
        let engine = try engines.take(languages)
        defer { engines.give(engine) }
        var result = docpreview_ocr_result()
        var message = [CChar](repeating: 0, count: 256)
        let milliseconds = Int32(clamping: Int((max(0, seconds) * 1000).rounded(.up)))
        let status = pixels.bytes.withUnsafeBufferPointer { bytes in
            docpreview_ocr_read(
                engine.handle, bytes.baseAddress!, Int32(pixels.width), Int32(pixels.height), Int32(pixels.bands),
                Int32(pixels.width * pixels.bands), Int32(ppi), milliseconds, Int32(clamping: maxWords), &result, &message, Int32(message.count))
        }
        guard status == 0 else { throw OCRError(status: status, message: String(cString: message)) }
        defer { docpreview_ocr_free(&result) }
        let words = (0..<Int(result.count)).map { index in
            let word = result.words![index]
            return Word(
                text: String(cString: word.text), box: [Int(word.left), Int(word.top), Int(word.right), Int(word.bottom)],
                confidence: Double(word.confidence),
                next: word.next == Int32(DOCPREVIEW_OCR_BLOCK.rawValue) ? .block : word.next == Int32(DOCPREVIEW_OCR_LINE.rawValue) ? .line : .space)
        }
        let path: Path =
            switch result.path {
            case Int32(DOCPREVIEW_OCR_PATH_LOCAL.rawValue): .local
            case Int32(DOCPREVIEW_OCR_PATH_SPARSE.rawValue): .sparse
            default: .gray
            }
        return Reading(
            words: words, path: path, skewDegrees: Double(result.skew_degrees), rectified: result.rectified != 0, truncated: result.truncated != 0,
            readings: Int(result.readings))
    }

    /// What a reading depends on besides the pixels: Tesseract's and Leptonica's versions and the
    /// size of each language's data.
    package static func version(languages: String) throws(OCRError) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let status = docpreview_ocr_version(languages, &buffer, Int32(buffer.count))
        guard status == 0 else { throw OCRError(status: status, message: "the data of \(languages) is not installed") }
        return String(cString: buffer)
    }
}

/// One Tesseract engine with its languages' models (``COCR``'s `docpreview_ocr_engine`): the only
/// owner of the handle, freed once when the engine goes. Used by one reading at a time.
final class Engine: @unchecked Sendable {
    let languages: String
    let handle: OpaquePointer

    init(languages: String) throws(OCRError) {
        guard let handle = docpreview_ocr_engine_create(languages) else {
            throw OCRError(status: Int32(DOCPREVIEW_OCR_NO_LANGUAGE.rawValue), message: "Tesseract could not load the data of \(languages)")
        }
        self.languages = languages
        self.handle = handle
    }

    deinit { docpreview_ocr_engine_free(handle) }
}

/// The engines not reading now, by languages: a reading takes one (or loads a new one, about 45 ms)
/// and gives it back. At most ``keptPerLanguages`` are kept idle for each languages' list, so memory
/// stays bounded by the readings at once.
final class Engines: Sendable {
    static let shared = Engines()
    static let keptPerLanguages = 2

    private let idle = Mutex<[String: [Engine]]>([:])

    func take(_ languages: String) throws(OCRError) -> Engine {
        if let engine = idle.withLock({ $0[languages]?.popLast() }) { return engine }
        return try Engine(languages: languages)
    }

    func give(_ engine: Engine) {
        idle.withLock { engines in
            guard engines[engine.languages, default: []].count < Self.keptPerLanguages else { return }
            engines[engine.languages, default: []].append(engine)
        }
    }
}

/// Why a page could not be read.
package struct OCRError: Error, CustomStringConvertible {
    package enum Reason: Sendable { case noLanguage, outOfTime, failed }
    package let reason: Reason
    package let description: String

    init(status: Int32, message: String) {
        switch status {
        case Int32(DOCPREVIEW_OCR_NO_LANGUAGE.rawValue): reason = .noLanguage
        case Int32(DOCPREVIEW_OCR_TIMEOUT.rawValue): reason = .outOfTime
        default: reason = .failed
        }
        description = message
    }
}
