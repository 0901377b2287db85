import Foundation
import Logging
import PreviewBackendTestSupport
import PreviewComposition
import PreviewCore
import PreviewDocuments
import PreviewFetch
import PreviewStore
import PreviewTestSupport
import Testing

/// Links' cards kept in the index, on both backends, on a clock the test holds: a card is answered
/// as kept for a day, then as kept while one refresh runs; a link that gave none answers its
/// failure for ten minutes; `gc` keeps a card's picture. Every fetch goes to the loopback test
/// site, whose request counts say what was fetched.
@Suite(.serialized) struct LinkPreviewsTests {
    struct Setup {
        let folder: TemporaryFolder
        let site: LinkTestSite
        let clock = ManualClock()
        let documents: DocumentService
        let backend: StoreBackend
        let links: LinkPreviews

        init(_ kind: TestBackend) async throws {
            folder = try TemporaryFolder()
            site = try LinkTestSite()
            backend = try await kind.open(root: folder.url.appendingPathComponent("store"))
            var configuration = Configuration()
            configuration.links = try JSONDecoder().decode(
                LinkPreviewSettings.self, from: JSONSerialization.data(withJSONObject: site.linksConfiguration()))
            documents = DocumentService(
                backend: backend, configuration: configuration, offload: .forTests, clock: clock, logger: Logger(label: "test"))
            let policy = FetchAddressPolicy(exceptions: site.addresses.compactMap(FetchAddressPolicy.Exception.init))
            links = LinkPreviews(
                documents: documents,
                fetcher: LinkFetcher(executable: DocPreviewProcess.binary, extractor: LinkTestSite.extractor, policy: policy),
                logger: Logger(label: "test"))
        }

        func remove() {
            site.stop()
            folder.remove()
        }
    }

    @Test(arguments: TestBackend.available) func aCardIsKeptADayThenRefreshedOnceWhileServedAsKept(backend: TestBackend) async throws {
        let setup = try await Setup(backend)
        defer { setup.remove() }
        let link = setup.site.url("watch?v=hl2026", on: .youtube)
        let first = try await setup.links.card(of: link) {}
        #expect(first.card.title == "Senior highlights 2026" && !first.stale && first.record.picture != nil)
        #expect(try setup.site.requests("/watch") == 1)

        setup.clock.advance(by: .seconds(23 * 3600))
        let kept = try await setup.links.card(of: link) { Issue.record("a kept card is not fetched") }
        #expect(kept.record.fetchedAt == first.record.fetchedAt && !kept.stale)
        #expect(try setup.site.requests("/watch") == 1, "answered from the index")

        setup.clock.advance(by: .seconds(3601))
        // Five requests for the stale card at once: one refresh runs.
        let answers = try await withThrowingTaskGroup(of: LinkPreviews.Answer.self) { group in
            for _ in 0..<5 { group.addTask { try await setup.links.card(of: link) {} } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each is the kept card (stale), or the refreshed one where the refresh ended before it read.
        #expect(answers.allSatisfy { $0.card.title == "Senior highlights 2026" && ($0.stale || $0.record.fetchedAt > first.record.fetchedAt) })
        #expect(answers.contains { $0.stale })
        let index = setup.backend.store.index
        try await waitUntilAsync("the refresh to be kept", timeout: .seconds(60)) {
            try await index.linkCard(url: first.record.url).map { $0.fetchedAt > first.record.fetchedAt } ?? false
        }
        let refreshed = try #require(try await index.linkCard(url: first.record.url))
        #expect(refreshed.picture == first.record.picture, "the same picture, the same blob")
        #expect(try setup.site.requests("/watch") == 2, "one refresh for five requests")
        #expect(try await !setup.links.card(of: link) {}.stale)
    }

    @Test(arguments: TestBackend.available) func aLinkThatGaveNoCardAnswersItsFailureForTenMinutes(backend: TestBackend) async throws {
        let setup = try await Setup(backend)
        defer { setup.remove() }
        let link = setup.site.url("missing")
        for _ in 0..<3 {
            await #expect(throws: PreviewError.self) { _ = try await setup.links.card(of: link) {} }
        }
        #expect(try setup.site.requests("/missing") == 1, "the failure is kept")
        do {
            _ = try await setup.links.card(of: link) {}
        } catch let error as PreviewError {
            #expect(error.code == .linkFailed && error.message.contains("404"), "\(error)")
        }
        setup.clock.advance(by: .seconds(601))
        await #expect(throws: PreviewError.self) { _ = try await setup.links.card(of: link) {} }
        #expect(try setup.site.requests("/missing") == 2, "tried again after ten minutes")
    }

    /// A pace that refuses a fetch refuses only that request: a kept card is still answered, and
    /// nothing is fetched for the refused one.
    @Test func aPaceRefusesFetchesNotKeptCards() async throws {
        let setup = try await Setup(.sqlite)
        defer { setup.remove() }
        struct Paced: Error {}
        let kept = try await setup.links.card(of: setup.site.url("bare.html")) {}
        #expect(kept.card.title == "Team schedule 2026")
        await #expect(throws: Paced.self) { _ = try await setup.links.card(of: setup.site.url("news/signing-day")) { throw Paced() } }
        #expect(try setup.site.requests("/news/signing-day") == 0)
        #expect(try await setup.links.card(of: setup.site.url("bare.html")) { throw Paced() }.card.title == "Team schedule 2026")
    }

    /// `gc` keeps what a card shows: its picture's thumbnail is no document's, and stays.
    @Test(arguments: TestBackend.available) func collectingGarbageKeepsACardsPicture(backend: TestBackend) async throws {
        let setup = try await Setup(backend)
        defer { setup.remove() }
        let answer = try await setup.links.card(of: setup.site.url("news/signing-day")) {}
        let picture = try #require(answer.record.picture)
        let report = try await setup.backend.store.collectGarbage(grace: 0, dryRun: false, logger: Logger(label: "test"))
        #expect(report.blobs == 0, "nothing was unreferenced: \(report)")
        let served = try #require(try await setup.links.picture(picture))
        #expect(served.mime.hasPrefix("image/") && !served.bytes.isEmpty)
    }
}
