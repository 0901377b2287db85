import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewCore
import PreviewDomain
import PreviewPipeline
import PreviewTestSupport
import Testing

/// On-demand previews (pages and sizes clients asked for) stay within their budget: beyond it the
/// least recently used are forgotten and their blobs removed; thumbnails and pivots always stay.
@Suite struct PreviewBudgetTests {
    @Test(arguments: TestBackend.available) func onDemandPreviewsStayWithinTheirBudget(backend: TestBackend) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try await backend.open(root: folder.url.appendingPathComponent("store")).store
        var limits = Limits()
        // Room for about three 256 px pages of this document (each a few KB), more for the whole store.
        let page = DocumentPipeline(store: store, offload: .forTests, logger: Logger(label: "test"))
        let outcome = await page.ingest(Fixtures.sample("document-5-pages.pdf"), labels: DocumentLabels(title: "doc", filename: "doc.pdf"))
        let source = try #require(outcome.sha256)
        let thumbnailBytes = try await store.index.statistics().previewBytes
        let one = try await page.preview(source: source, kind: .pdf, request: RenderRequest(page: 2, width: 256)).record
        let pageBytes = try await store.blobs.read(one.resultSha256).count
        limits.previewCacheBytesPerDocument = pageBytes * 3 + pageBytes / 2
        let pipeline = DocumentPipeline(store: store, configuration: Configuration(limits: limits), offload: .forTests, logger: Logger(label: "test"))

        var results: [BlobHash] = [one.resultSha256]
        for number in [3, 4, 5, 1] {
            await results.append(
                try pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: number, width: 256)).record.resultSha256)
            #expect(try await store.index.onDemandPreviewBytes(source: source) <= limits.previewCacheBytesPerDocument)
        }
        let statistics = try await store.index.statistics()
        #expect((statistics.evictedPreviews ?? 0) >= 1, "the oldest pages were evicted")
        #expect(try await store.index.statistics(owner: "").evictedPreviews == nil, "evictions are a store-wide figure")
        let onDisk = await Set(try store.blobs.allBlobs().map(\.hash))
        #expect(!onDisk.contains(results[0]), "an evicted page's blob is removed")
        #expect(onDisk.contains(results.last!), "the newest page stays")
        #expect(try await pipeline.cachedPreview(source: source, kind: .pdf, request: .thumbnail) != nil, "the thumbnail is never evicted")
        #expect(statistics.previewBytes >= thumbnailBytes)
        // An evicted page is made again when asked for.
        #expect(try await pipeline.preview(source: source, kind: .pdf, request: RenderRequest(page: 2, width: 256)).cached == false)

        // The store-wide budget, as `gc --preview-cache-size` applies it.
        let eviction = try await store.evictPreviews(downTo: 0)
        #expect(eviction.derivatives >= 1)
        #expect(try await store.index.onDemandPreviewBytes(source: nil) == 0)
        #expect(try await pipeline.cachedPreview(source: source, kind: .pdf, request: .thumbnail) != nil)
        #expect(try await store.verify().missing.isEmpty, "no row names a removed blob")
    }
}
