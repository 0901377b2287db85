import Foundation
import PreviewCore

/// Office documents, text and CSV as pages without a store: the PDF pivot is made in an office
/// child, kept in a private temporary file for the call, and rendered or probed by the PDF path.
/// (The pipeline keeps pivots in the store instead, so each document is converted once.)
struct OfficeRenderer: Renderer {
    let kind: FileKind
    let office: RendererPool
    let pdf: any Renderer

    var version: String { "\(Renderers.officeVersion) + \(pdf.version)" }

    func probe(_ path: String) throws(PreviewError) -> MediaFacts {
        try withPivot(path) { pivot, facts throws(PreviewError) in facts.adding(try pdf.probe(pivot)) }
    }

    func probe(_ path: String, page: Int) throws(PreviewError) -> MediaFacts {
        try withPivot(path) { pivot, facts throws(PreviewError) in facts.adding(try pdf.probe(pivot, page: page)) }
    }

    func render(_ path: String, _ request: RenderRequest) throws(PreviewError) -> RenderedImage {
        try withPivot(path) { pivot, facts throws(PreviewError) in
            var image = try pdf.render(pivot, request)
            image.facts = facts.adding(image.facts)
            return image
        }
    }

    private func withPivot<T>(_ path: String, _ body: (String, MediaFacts) throws(PreviewError) -> T) throws(PreviewError) -> T {
        let (bytes, facts) = try office.convert(path, kind: kind)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-pivot-\(UUID().uuidString).pdf")
        guard FileManager.default.createFile(atPath: file.path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw PreviewError(.internal, "The converted document could not be kept for rendering.")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        return try body(file.path, facts)
    }
}

extension MediaFacts {
    /// The pivot's facts (pages, page size) with the sheet and slide counts of the office document.
    public func adding(_ pivot: MediaFacts) -> MediaFacts {
        var facts = pivot
        facts.sheets = sheets
        facts.slides = slides
        return facts
    }
}
