internal import CPoppler
import PreviewCore

extension PDFPage {
    /// The page's words with their boxes, in reading order (Poppler's `TextOutputDev`), read within
    /// `seconds` of this thread's CPU time; at most `maxWords` are kept (``PageText/truncated`` says
    /// when more were left out). A page that outlasts `seconds` throws `.outOfTime`.
    package func text(seconds: Double, maxWords: Int) throws(PDFError) -> PageText {
        var outOfTime: Int32 = 0
        var truncated: Int32 = 0
        let bound = Int32(clamping: maxWords)
        guard let text = lazy_docpreview_pdf_page_text()(document.document, Int32(number), seconds, bound, &outOfTime, &truncated) else {
            if outOfTime != 0 {
                throw PDFError(
                    function: "PDFDoc::displayPage", reason: .outOfTime, message: "the text of page \(number) took longer than \(seconds) s")
            }
            throw PDFError(function: "PDFDoc::displayPage", reason: .other, message: "the text of page \(number) could not be read")
        }
        defer { lazy_docpreview_pdf_text_free()(text) }
        let count = Int(lazy_docpreview_pdf_text_word_count()(text))
        let length = Int(lazy_docpreview_pdf_text_utf8_length()(text))
        let edgeCount = Int(lazy_docpreview_pdf_text_edge_count()(text))
        let allEdges = UnsafeBufferPointer(start: lazy_docpreview_pdf_text_edges()(text), count: edgeCount)
        var words: [PageText.Word] = []
        if count > 0, let entries = lazy_docpreview_pdf_text_words()(text), let characters = lazy_docpreview_pdf_text_utf8()(text) {
            let utf8 = UnsafeRawBufferPointer(start: UnsafeRawPointer(characters), count: length)
            words.reserveCapacity(count)
            for entry in UnsafeBufferPointer(start: entries, count: count) {
                let start = Int(entry.text_offset), end = start + Int(entry.text_length)
                guard start >= 0, start <= end, end <= length else { continue }
                let box = [entry.x_min, entry.y_min, entry.x_max, entry.y_max].map(PageText.hundredths)
                // A word a hostile page placed at no number cannot be marked (nor encoded).
                guard box.allSatisfy(\.isFinite) else { continue }
                let word = String(decoding: utf8[start..<end], as: UTF8.self)
                // A character's edges are Poppler's characters': one a Unicode scalar of the word's text.
                let (first, edges) = (Int(entry.edge_offset), Int(entry.edge_count))
                let known = edges > 0 && edges == word.unicodeScalars.count - 1 && first >= 0 && first + edges <= edgeCount
                var read = PageText.Word(
                    text: word, box: box, next: Self.next(entry.flags), edges: known ? Array(allEdges[first..<(first + edges)]) : nil)
                // To the tenth of a point they are kept and sent in (none that is no number).
                read.edges = read.edgeTenths.map { PageText.Word.edges(tenths: $0, left: box[0]) }
                words.append(read)
            }
        }
        return PageText(page: number, width: size.width, height: size.height, words: words, truncated: truncated != 0)
    }

    private static func next(_ flags: Int32) -> PageText.Break? {
        let has = { (flag: Int) in Int(flags) & flag != 0 }
        if has(DOCPREVIEW_PDF_WORD_BLOCK_END) { return .block }
        if has(DOCPREVIEW_PDF_WORD_HYPHENATED) { return .hyphen }
        if has(DOCPREVIEW_PDF_WORD_LINE_END) { return .line }
        return has(DOCPREVIEW_PDF_WORD_SPACE_AFTER) ? .space : nil
    }
}
