import Foundation
import Logging
import PreviewCore
import PreviewRenderers
import PreviewTestSupport
import Testing

/// Calls to a ``RendererPool`` wait for a free child suspended, in order, holding no thread.
@Suite struct RendererPoolTests {
    /// Twelve calls for one child, on a renders lane wide enough for all: every call kept is
    /// answered; a call cancelled while it waits leaves without taking the child from the others, so
    /// the child still answers afterwards (a slot lost to a cancelled call would leave the next call
    /// waiting for ever).
    @Test(.timeLimit(.minutes(3))) func callsBeyondTheChildrenWaitTheirTurnAndCancelledOnesLeave() async throws {
        let pool = RendererPool(executable: RendererPool.currentExecutable, size: 1, limits: Limits(), logger: Logger(label: "test"))
        let offload = Offload(reads: 1, writes: 1, renders: 12)
        let renderer = try #require(Renderers(isolation: pool).renderer(for: .pdf, on: offload))
        let file = Fixtures.sample("document-5-pages.pdf").path
        let kept = (0..<6).map { page in Task { try await renderer.render(file, RenderRequest(page: page % 5 + 1, width: 200)) } }
        let cancelled = (0..<6).map { _ in Task { try await renderer.render(file, RenderRequest(width: 200)) } }
        cancelled.forEach { $0.cancel() }
        for task in kept {
            let image = try await task.value
            #expect(image.width > 0 && image.width <= 200)
        }
        for task in cancelled {
            // Answered, or cancelled before it reached the child: either, as long as it ends.
            if case let .failure(error) = await task.result { #expect((error as? PreviewError)?.code == .internal, "\(error)") }
        }
        #expect(try await renderer.render(file, RenderRequest(width: 100)).width <= 100)
        #expect(pool.calls == 13)
    }
}
