import Foundation
import Logging
import PreviewCore
import PreviewDomain
import PreviewRenderers
import PreviewStore

/// Office documents, text and CSV become a PDF once (their pivot); their pages come from it.
extension DocumentPipeline {
    /// The PDF an office document, text or CSV file was converted to, with the document's own facts
    /// (sheets, slides) and the blob's size: stored, not yet recorded.
    struct Pivot {
        var record: DerivativeRecord
        var size: Int
        var facts: MediaFacts
    }

    /// The facts of the stored original `source`: for office kinds, those of its pivot, whose
    /// conversion hands its `firstPage` over first when it is made now.
    func facts(
        of source: BlobHash, kind: FileKind, renderer: any AsyncRenderer,
        firstPage: RendererPool.FirstPage? = nil
    ) async throws(PreviewError) -> MediaFacts {
        guard Renderers.needsPivot(kind) else {
            let path = try await localPath(of: source)
            return try await renderer.probe(path)
        }
        let (pivot, documentFacts) = try await pivot(of: source, kind: kind, firstPage: firstPage)
        return try await pivotFacts(pivot, adding: documentFacts ?? MediaFacts())
    }

    /// An office document's facts and thumbnail (made now and stored, its row left to the caller,
    /// or found). A pivot made now exports the first page alone first: the thumbnail is made from
    /// it and handed to `early` (its outcome: the thumbnail's row, the first page's facts, ready)
    /// while LibreOffice exports the rest, so the document can be ready before its pivot is.
    func officeOutcome(
        of document: Document, renderer: any AsyncRenderer,
        early: (@Sendable (JobOutcome) async -> Void)?
    ) async throws(PreviewError) -> (facts: MediaFacts, thumbnail: PreviewOutcome) {
        let (source, kind) = (document.sha256, document.kind)
        let key = try derivativeKey(source: source, kind: kind, request: .thumbnail, renderer: renderer)
        if let hit = try await cached(key: key.hash) {
            return (try await facts(of: source, kind: kind, renderer: renderer), PreviewOutcome(record: hit, cached: true))
        }
        // The first page arrives on the render's thread, mid-conversion: it is stored (and handed to
        // `early`) by a task of its own, awaited once the conversion is over.
        let first = Locked<Task<PreviewOutcome?, Never>?>(nil)
        let firstPage = early.map { early in
            RendererPool.FirstPage(request: normalized(.thumbnail, kind)) { image in
                first.withLock { storing in
                    guard storing == nil else { return }
                    storing = Task {
                        guard let made = await storedFirstPage(image, key: key, source: source, renderer: renderer), let new = made.new else {
                            return nil
                        }
                        await early(JobOutcome(facts: image.facts, previewStatus: .ready, derivatives: [new]))
                        return made
                    }
                }
            }
        }
        let facts = try await self.facts(of: source, kind: kind, renderer: renderer, firstPage: firstPage)
        if let made = await first.withLock({ $0 })?.value { return (facts, made) }
        return (facts, try await made(source: source, kind: kind, request: .thumbnail))
    }

    /// The thumbnail an office conversion rendered from the document's first page, stored under
    /// `key` (the original's: no pivot exists yet); nil, and logged, when it could not be stored.
    private func storedFirstPage(
        _ image: RenderedImage, key: (hash: String, parameters: String), source: BlobHash,
        renderer: any AsyncRenderer
    ) async -> PreviewOutcome? {
        do {
            return await rendered(
                image, as: try store.blobs.put(bytes: image.bytes, as: .derivative), key: key, source: source,
                renderer: renderer, onDemand: false)
        } catch {
            logger.warning(
                "an office document's first page could not be stored; its thumbnail waits for the pivot",
                metadata: ["preview.sha256": "\(source)", "preview.error": "\(error)"])
            return nil
        }
    }

    /// The pivot's pages and page size, with the office document's own facts (sheets, slides).
    func pivotFacts(_ pivot: DerivativeRecord, adding documentFacts: MediaFacts) async throws(PreviewError) -> MediaFacts {
        let (path, pdf) = (try await localPath(of: pivot.resultSha256), renderers.pdfRenderer(on: offload))
        return documentFacts.adding(try await pdf.probe(path))
    }

    /// The recorded pivot of the stored original `source`, made now (once) when there is none; the
    /// document's own facts come with it only when it was made now (a recorded pivot does not keep them).
    func pivot(
        of source: BlobHash, kind: FileKind,
        firstPage: RendererPool.FirstPage? = nil
    ) async throws(PreviewError) -> (record: DerivativeRecord, documentFacts: MediaFacts?) {
        let key = try pivotKey(source: source).hash
        if let hit = try await cached(key: key) { return (hit, nil) }
        let made = try await remembering(key: key, source: source) { () async throws(PreviewError) in
            try await makePivot(of: try await localPath(of: source), source: source, kind: kind, firstPage: firstPage)
        }
        try await record { try await store.index.recordDerivative(made.record, resultSize: made.size, resultMime: FileKind.pdf.mime) }
        return (made.record, made.facts)
    }

    /// Converts the file at `path` (whose hash is `source`) in an office child and stores the PDF.
    func makePivot(of path: String, source: BlobHash, kind: FileKind, firstPage: RendererPool.FirstPage? = nil) async throws(PreviewError) -> Pivot {
        let office = renderers.office
        let (pdf, facts) = try await office.convert(path, kind: kind, firstPage: firstPage, on: offload)
        let key = try pivotKey(source: source)
        do {
            let result = try await store.blobs.put(bytes: pdf, as: .derivative)
            logger.debug("converted", metadata: ["preview.sha256": "\(source)", "preview.pivot": "\(result)"])
            return Pivot(
                record: DerivativeRecord(
                    key: key.hash, sourceSha256: source, operation: .convert, parameters: key.parameters,
                    renderer: Renderers.officeVersion, resultSha256: result, width: 0, height: 0,
                    createdAt: Date()),
                size: pdf.count, facts: facts)
        } catch {
            throw PreviewError.storing(error, "The converted document could not be stored.")
        }
    }

    /// The cache key of a pivot: the source, the conversion with its page cap, the office installation.
    func pivotKey(source: BlobHash) throws(PreviewError) -> (hash: String, parameters: String) {
        struct Conversion: Encodable {
            var format = "pdf"
            var maxPages: Int
            enum CodingKeys: String, CodingKey { case format, maxPages = "max_pages" }
        }
        let parameters: String
        do {
            parameters = String(decoding: try StableJSON.encode(Conversion(maxPages: configuration.limits.maxOfficePages)), as: UTF8.self)
        } catch {
            throw PreviewError.storing(error, "The conversion could not be keyed.")
        }
        let material = "derivative/2\n\(source.hex)\nconvert\n\(parameters)\n\(Renderers.officeVersion)"
        return (BlobHash.of(Array(material.utf8)).hex, parameters)
    }
}
