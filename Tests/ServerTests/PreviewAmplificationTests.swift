import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
@testable import PreviewDocuments
import PreviewPipeline
import PreviewPostgres
@testable import PreviewServer
import PreviewWeb
import PreviewTestSupport
import Synchronization
import Testing

@Suite struct PreviewAmplificationTests {
    /// 300 different widths asked for at once: widths are served on a few steps (a handful of
    /// derivatives), and renders beyond the in-flight bound are refused with 429, not queued on
    /// threads of their own.
    @Test(arguments: TestBackend.available) func manyWidthsAtOnceStayBounded(backend: TestBackend) async throws {
        let harness = try await Harness(backend)
        defer { harness.folder.remove() }
        let id = try await #require(
            harness.pipeline.ingest(
                Fixtures.sample("document-5-pages.pdf"),
                labels: DocumentLabels(owner: "o", title: "t", filename: "d.pdf")
            ).documentID)
        let statuses = try await harness.test { client in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for width in 1...300 {
                    group.addTask {
                        try await client.execute(uri: "/v1/documents/\(id)/preview?page=\(width % 5 + 1)&width=\(width)", method: .get) { response in
                            if response.status == .tooManyRequests { #expect(response.headers[.retryAfter] != nil) }
                            return response.status
                        }
                    }
                }
                return try await group.reduce(into: [HTTPResponse.Status: Int]()) { $0[$1, default: 0] += 1 }
            }
        }
        #expect(Set(statuses.keys).isSubset(of: [.ok, .tooManyRequests]), "\(statuses)")
        #expect(statuses[.ok, default: 0] > 0)
        let derivatives = try await harness.pipeline.store.index.statistics().previews
        #expect(derivatives <= 5 * 3 + 1, "pages 1–5 × widths 128, 256, 512, and the thumbnail: \(derivatives)")
        // Each preview in flight holds at most one thread (a render's own, or a blocking-pool one).
        #expect(harness.server.renders.highest <= harness.server.settings.maxRendersInFlight)
    }
}
