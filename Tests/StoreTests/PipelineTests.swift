import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewDomain
import PreviewPipeline
@testable import PreviewPostgres
import PreviewRenderers
import PreviewTestSupport
import Synchronization
import Testing

@Suite struct PipelineTests {
    let logger = Logger(label: "test")

    /// A job calls its renderer child once: the thumbnail's render brings the facts; with the
    /// thumbnail made before, a probe is the one call.
    @Test func aVideoJobCallsTheRendererOnce() async throws {
        let (store, folder) = try await makeStore()
        defer { folder.remove() }
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, limits: Limits(), logger: logger)
        let pipeline = DocumentPipeline(store: store, isolation: pool, offload: .forTests, logger: logger)
        let (hash, size) = try await store.blobs.put(fileAt: Fixtures.sample("video-h264.mp4"))
        let document = try await store.index.insertVersion(
            Document(
                id: UUID().uuidString.lowercased(), owner: "ana", type: nil, title: "film", filename: "film.mp4", sha256: hash, kind: .mp4,
                mime: "video/mp4", size: size, facts: MediaFacts(), version: 0, previewStatus: .pending, createdAt: Date())
        ).document
        try await pipeline.process(document)
        #expect(pool.calls == 1, "one render, no probe")
        let processed = try await #require(try store.index.document(id: document.id))
        #expect(processed.previewStatus == .ready && processed.durationSeconds != nil && processed.width != nil && processed.codec != nil)
        #expect(processed.frameSeconds == 0 && processed.posterScore != nil)
        try await pipeline.process(document)
        #expect(pool.calls == 2, "a second run finds the thumbnail and probes once")
    }

    /// Ingesting a file (`ingest`, `batch`) calls its renderer child once too: the thumbnail, made
    /// before the original is stored, brings the facts. The same bytes under other labels find the
    /// thumbnail and probe; a file whose thumbnail fails is probed, and stored with the failure.
    @Test func anIngestCallsTheRendererOnce() async throws {
        let (store, folder) = try await makeStore()
        defer { folder.remove() }
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, limits: Limits(), logger: logger)
        let pipeline = DocumentPipeline(store: store, isolation: pool, offload: .forTests, logger: logger)
        let first = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", title: "film", filename: "film.mp4"))
        #expect(first.status == .ok && first.durationSeconds != nil && first.preview != nil, "\(first)")
        #expect(pool.calls == 1, "one render, no probe")
        let again = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", title: "film", filename: "film.mp4"))
        #expect(again.status == .ok && again.preview?.path == first.preview?.path)
        #expect(pool.calls == 2, "the thumbnail is found; a probe is the one call")
        // A PNG whose header is whole and whose pixels are cut off: the probe accepts it, the render does not.
        var png = try Data(contentsOf: Fixtures.sample("image-alpha.png"))
        png.removeLast(png.count / 2)
        let file = folder.url.appendingPathComponent("cut.png")
        try png.write(to: file)
        let cut = await pipeline.ingest(file, labels: DocumentLabels(owner: "ana", title: "cut", filename: "cut.png"))
        #expect(cut.status == .failed && cut.documentID != nil && cut.error?.code == "corrupt", "\(cut)")
        #expect(pool.calls == 4, "the render failed, then the probe")
    }

    @Test(arguments: TestBackend.available) func identicalUploadsShareOneBlob(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let a = await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", title: "clip A", filename: "a.mp4"))
        let b = await pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", title: "clip B", filename: "b.mp4"))
        #expect(a.status == .ok && b.status == .ok)
        #expect(a.sha256 == b.sha256)
        #expect(a.documentID != b.documentID)
        #expect(a.preview?.path == b.preview?.path, "the thumbnail is rendered once and shared")
        #expect(try await store.blobs.allBlobs().count == 2, "one original, one thumbnail")
    }

    @Test(arguments: TestBackend.available) func sameTitleNewBytesIsANewVersion(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let type = DocumentRules.standard.type(id: "resume")
        let labels = DocumentLabels(owner: "ana", type: type, title: "Resume", filename: "resume.pdf")
        let first = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: labels)
        let again = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: labels)
        #expect(again.documentID == first.documentID && again.reused, "the same bytes again change nothing")
        let folderURL = folder.url.appendingPathComponent("v2.pdf")
        try (Data(contentsOf: Fixtures.sample("document-5-pages.pdf")) + Data("\n% revised\n".utf8)).write(to: folderURL)
        let second = await pipeline.ingest(folderURL, labels: labels)
        #expect(second.status == .ok)
        let versions = try await store.index.versions(of: try #require(first.documentID)).map(\.version).sorted()
        #expect(versions == [1, 2])
        #expect(try await store.index.statistics(owner: "ana").documents == 1)
    }

    @Test(arguments: TestBackend.available) func concurrentUploadsOfOneTitleGetConsecutiveVersions(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let failures = Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for number in 0..<8 {
                group.addTask {
                    do {
                        let bytes = Array("version \(number)".utf8)
                        let record = Document(
                            id: UUID().uuidString, owner: "ana", type: "transcript", title: "Transcript",
                            filename: "t.txt", sha256: try await store.blobs.put(bytes: bytes, as: .original), kind: .text,
                            mime: "text/plain", size: bytes.count, facts: MediaFacts(), version: 0,
                            previewStatus: PreviewStatus.noPreview, createdAt: Date())
                        _ = try await store.index.insertVersion(record)
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let latest = try await #require(try store.index.latestVersion(owner: "ana", type: "transcript", title: "Transcript"))
        #expect(try await store.index.versions(of: latest.id).map(\.version).sorted() == Array(1...8))
    }

    @Test(arguments: TestBackend.available) func pdfPagesAreRenderedOnlyWhenAskedAndOnlyOnce(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let outcome = await pipeline.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "doc", filename: "doc.pdf"))
        let source = try #require(outcome.sha256)
        let pageThree = RenderRequest(page: 3, width: 800)
        #expect(try await pipeline.cachedPreview(source: source, kind: .pdf, request: pageThree) == nil, "ingest renders the thumbnail only")
        let first = try await pipeline.preview(source: source, kind: .pdf, request: pageThree)
        #expect(!first.cached && first.record.width == 800)
        let second = try await pipeline.preview(source: source, kind: .pdf, request: pageThree)
        #expect(second.cached && second.record.resultSha256 == first.record.resultSha256)
        let pageOne = try await pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: 1, width: 800))
        #expect(pageOne.record.resultSha256 != first.record.resultSha256)
        await #expect {
            try await pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: 6))
        } throws: { ($0 as? PreviewError)?.code == .pageOutOfRange }
    }

    @Test(arguments: TestBackend.available) func nonPDFPagesShareOneKey(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let source = try await #require(pipeline.ingest(Fixtures.sample("image.webp"), labels: DocumentLabels(title: "p", filename: "p.webp")).sha256)
        #expect(try await pipeline.preview(source: source, kind: .webp, request: RenderRequest(page: 4, width: 512, height: 512)).cached)
    }

    @Test(arguments: TestBackend.available) func refusedAndUnreadableFilesAreNotStored(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let refused = await pipeline.ingest(Fixtures.sample("bad-zip-named.pdf"), labels: DocumentLabels(title: "x", filename: "x.pdf"))
        #expect(refused.status == .rejected && refused.error?.code == "content_mismatch")
        let encrypted = await pipeline.ingest(Fixtures.sample("bad-encrypted.pdf"), labels: DocumentLabels(title: "y", filename: "y.pdf"))
        #expect(encrypted.status == .failed && encrypted.error?.code == "encrypted")
        #expect(try await store.blobs.allBlobs().isEmpty)
        let bomb = await pipeline.ingest(Fixtures.sample("bad-zip-bomb.docx"), labels: DocumentLabels(title: "z", filename: "z.docx"))
        #expect(bomb.status == .rejected && bomb.error?.code == "zip_bomb")
        #expect(try await store.blobs.allBlobs().isEmpty)
        let office = await pipeline.ingest(Fixtures.sample("stats.xlsx"), labels: DocumentLabels(title: "stats", filename: "stats.xlsx"))
        #expect(office.status == .ok && office.preview != nil && office.documentID != nil)
    }

    /// Figures worked out by hand from the sample sizes.
    @Test(arguments: TestBackend.available) func statisticsMatchHandComputedFigures(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        func size(_ name: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: Fixtures.sample(name).path)[.size] as! Int }
        let resume = DocumentRules.standard.type(id: "resume")
        let stats = DocumentRules.standard.type(id: "stats_sheet")
        let video = DocumentRules.standard.type(id: "highlight_video")
        _ = await pipeline.ingest(
            Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(owner: "ana", type: resume, title: "cv", filename: "cv.pdf"))
        _ = await pipeline.ingest(
            Fixtures.sample("resume.docx"), labels: DocumentLabels(owner: "ana", type: resume, title: "cv2", filename: "cv2.docx"))
        _ = await pipeline.ingest(Fixtures.sample("stats.csv"), labels: DocumentLabels(owner: "ana", type: stats, title: "stats", filename: "s.csv"))
        _ = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ana", type: video, title: "hl", filename: "hl.mp4"))
        _ = await pipeline.ingest(
            Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(owner: "ben", type: video, title: "hl", filename: "hl.mp4"))

        let ana = try await store.index.statistics(owner: "ana")
        let anaLogical = try size("document-5-pages.pdf") + size("resume.docx") + size("stats.csv") + size("video-h264.mp4")
        #expect(ana.documents == 4 && ana.versions == 4)
        #expect(ana.byType == ["resume": 2, "stats_sheet": 1, "highlight_video": 1])
        #expect(ana.mostCommonType == "resume")
        #expect(ana.logicalBytes == anaLogical)
        #expect(ana.storedBytes == anaLogical)
        #expect(ana.previews == 6, "PDF and video thumbnails; docx and csv each a PDF pivot and its thumbnail")

        let all = try await store.index.statistics()
        #expect(all.documents == 5)
        #expect(all.byKind["mp4"] == 2)
        let videoSize = try size("video-h264.mp4")
        #expect(all.logicalBytes == anaLogical + videoSize)
        #expect(all.storedBytes == anaLogical, "the second video is stored once")
        #expect(abs(all.dedupRatio - Double(anaLogical + videoSize) / Double(anaLogical)) < 1e-9)
        #expect(all.previews == 6 && all.previewBytes > 0)
        #expect(all.mostCommonType == "highlight_video" || all.mostCommonType == "resume")
        #expect(try await store.index.statistics(owner: "nobody").dedupRatio == 0)
    }

    @Test(arguments: TestBackend.available) func cachedPreviewIsServedFromTheStore(backend: TestBackend) async throws {
        let (store, folder) = try await makeStore(backend)
        defer { folder.remove() }
        let pipeline = DocumentPipeline(store: store, offload: .forTests, logger: logger)
        let source = try await #require(
            pipeline.ingest(Fixtures.sample("video-h264.mp4"), labels: DocumentLabels(title: "v", filename: "v.mp4")).sha256)
        let hit = try await #require(try pipeline.cachedPreview(source: source, kind: .mp4, request: .thumbnail))
        let bytes = try await store.blobs.read(hit.resultSha256)
        #expect(BlobHash.of(bytes) == hit.resultSha256)
        #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
    }
}
