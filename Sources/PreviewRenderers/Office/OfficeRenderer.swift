import Foundation
import PreviewCore

/// Office documents, text and CSV as pages without a store: the PDF pivot is made in an office
/// child, kept in a private temporary file for the call, and rendered or probed by the PDF path.
/// (The pipeline keeps pivots in the store instead, so each document is converted once.)
struct OfficeRenderer: AsyncRenderer {
    let kind: FileKind
    let office: RendererPool
    let pdf: any AsyncRenderer
    let offload: Offload

    var version: String { "\(Renderers.officeVersion) + \(pdf.version)" }

    func probe(_ path: String) async throws(PreviewError) -> MediaFacts {
        try await withPivot(path) { pivot, facts throws(PreviewError) in facts.adding(try await pdf.probe(pivot)) }
    }

    func probe(_ path: String, page: Int) async throws(PreviewError) -> MediaFacts {
        try await withPivot(path) { pivot, facts throws(PreviewError) in facts.adding(try await pdf.probe(pivot, page: page)) }
    }

    func render(_ path: String, _ request: RenderRequest) async throws(PreviewError) -> RenderedImage {
        try await withPivot(path) { pivot, facts throws(PreviewError) in
            var image = try await pdf.render(pivot, request)
            image.facts = facts.adding(image.facts)
            return image
        }
    }

    /// Runs `body` with the path of the document's pivot, in a private temporary file removed after, and its facts.
    func withPivot<T>(
        _ path: String,
        _ body: (String, MediaFacts) async throws(PreviewError) -> T
    ) async throws(PreviewError) -> T {
        let (bytes, facts) = try await office.convert(path, kind: kind, on: offload)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-pivot-\(UUID().uuidString).pdf").path
        try await offload.render { () throws(PreviewError) in
            guard FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw PreviewError(.internal, "The converted document could not be kept for rendering.")
            }
        }
        defer { unlink(file) }
        return try await body(file, facts)
    }
}

extension MediaFacts {
    /// The pivot's facts (pages, page size) with the sheet and slide counts of the office document.
    package func adding(_ pivot: MediaFacts) -> MediaFacts {
        var facts = pivot
        facts.sheets = sheets
        facts.slides = slides
        return facts
    }
}
