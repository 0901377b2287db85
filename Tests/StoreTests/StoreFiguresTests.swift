import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
import PreviewStore
import PreviewTestSupport
import Testing

/// The statistics kept by triggers agree with a recount from the rows after every kind of change,
/// on both backends.
@Suite struct StoreFiguresTests {
    @Test(arguments: TestBackend.available) func keptFiguresMatchARecountThroughEveryChange(backend: TestBackend) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let opened = try backend.open(root: folder.url.appendingPathComponent("store"))
        let (store, queue) = (opened.store, opened.queue)
        let pipeline = DocumentPipeline(store: store, logger: Logger(label: "test"))
        let owners = ["ana", "ben", ""]
        func check(_ step: String) throws {
            for owner in [nil] + owners.map(Optional.some) {
                var kept = try store.index.statistics(owner: owner)
                var recounted = try store.index.recountStatistics(owner: owner)
                (kept.evictedPreviews, recounted.evictedPreviews) = (nil, nil)
                #expect(kept == recounted, "\(step), owner \(owner ?? "(all)")")
            }
        }
        try check("empty")
        var generator = SystemRandomNumberGenerator()
        var documents: [DocumentRecord] = []
        // Real files, so previews and an office pivot with its pages are made.
        for (index, sample) in ["document-5-pages.pdf", "image.webp", "office-roster.csv", "video-h264.mp4", "image.webp"].enumerated() {
            let labels = DocumentLabels(owner: owners[index % owners.count], title: "file \(index % 3)", filename: sample)
            let outcome = pipeline.ingest(Fixtures.sample(sample), labels: labels)
            let id = try #require(outcome.documentID)
            documents.append(try #require(try store.index.document(id: id)))
            try check("ingest \(sample)")
        }
        let csv = documents[2]
        _ = try pipeline.preview(source: csv.sha256, kind: .csv, request: RenderRequest(page: 1, width: 1024, height: 1024))
        try check("a page of an office pivot")
        let figures = try store.index.statistics()
        #expect(figures.documents == 3 && figures.versions == 4 && figures.previews == 6 && figures.storedBytes > 0, "\(figures)")
        for round in 0..<60 {
            let owner = owners.randomElement(using: &generator)!
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1:
                let content = Array("\(owner) \(round) \(Int.random(in: 0..<4, using: &generator))".utf8)
                let hash = try store.blobs.put(bytes: content, as: .original)
                let record = DocumentRecord(
                    id: UUID().uuidString.lowercased(), owner: owner, type: ["", "resume", "transcript"].randomElement(using: &generator)!,
                    title: "note \(Int.random(in: 0..<5, using: &generator))", filename: "n.txt", sha256: hash,
                    kind: [FileKind.text, .pdf].randomElement(using: &generator)!, mime: "text/plain", size: content.count, facts: MediaFacts(),
                    version: 0, previewStatus: .noPreview, createdAt: Date())
                documents.append(try queue.enqueue(record).document)
            case 2:
                guard let victim = documents.randomElement(using: &generator) else { continue }
                _ = try store.index.delete(documentID: victim.id, version: Bool.random(using: &generator) ? victim.version : nil)
            case 3:
                guard let victim = documents.randomElement(using: &generator) else { continue }
                _ = try? store.index.relabel(documentID: victim.id, title: "renamed \(round)", type: ["", "resume", "stats"].randomElement(using: &generator)!)
            case 4:
                if let restorable = documents.randomElement(using: &generator) {
                    do {
                        _ = try DocumentService(pipeline: pipeline, queue: queue).restore(version: 1, of: restorable.id)
                    } catch let error as PreviewError where error.code == .notFound {
                        // Its first version was deleted.
                    }
                }
            default:
                _ = try store.evictPreviews(downTo: 0)
                _ = try store.index.forgetDeadDerivatives()
            }
            try check("round \(round)")
        }
        #expect(try store.verify().indexProblems.isEmpty, "verify compares them too")
    }
}
