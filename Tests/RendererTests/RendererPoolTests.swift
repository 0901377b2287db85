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

/// Background calls (text and playback jobs) have renderer children of their own, at background priority.
@Suite struct BackgroundChildrenTests {
    /// A pool of one ordinary and one background child that obey the test hooks, with a job's time of `jobSeconds`.
    static func hookedPool(jobSeconds: Double) -> RendererPool {
        var limits = Limits()
        limits.jobSeconds = jobSeconds
        return RendererPool(
            executable: RendererPool.currentExecutable, size: 1, backgroundSize: 1, limits: limits, logger: Logger(label: "test"),
            childEnvironment: [RendererChild.testHooksVariable: "1"])
    }

    /// A background call that never ends holds the one background child; a render a person waits
    /// for is answered meanwhile, by an ordinary child.
    @Test(.timeLimit(.minutes(3))) func aRenderIsAnsweredWhileABackgroundCallHoldsItsChild() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hanging = try folder.file("hanging.pdf", [UInt8](Fixtures.hookPDF("hang")))
        let pool = Self.hookedPool(jobSeconds: 20)
        let offload = Offload.forTests
        let renderers = Renderers(isolation: pool)
        let stuck = Task {
            try await WorkPriority.$current.withValue(.background) {
                try await renderers.text(ofPDF: hanging.path, page: 1, ocr: nil, on: offload)
            }
        }
        try await waitUntilAsync("the background call to reach its child") { pool.children.contains { $0.background } }
        let renderer = try #require(renderers.renderer(for: .pdf, on: offload))
        #expect(try await renderer.render(Fixtures.sample("document-5-pages.pdf").path, RenderRequest(width: 200)).width == 200)
        let children = pool.children
        #expect(children.count == 2, "\(children)")
        for child in children {
            #expect(WorkPriority.isLowered(child.pid) == child.background, "child \(child.pid), background: \(child.background)")
        }
        stuck.cancel()
    }

    /// A background child that keeps working past its deadline, as one kept waiting on a busy
    /// machine does, is given more time and answers; a hung one still ends (at its first deadline, or
    /// the next when it was still working its way to the hang); an interactive call is given no more time.
    @Test(.timeLimit(.minutes(3))) func aBackgroundCallStillAtWorkOutlivesItsDeadline() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let starved = try folder.file("starved.pdf", [UInt8](Fixtures.hookPDF("starved:8")))
        let hanging = try folder.file("hanging.pdf", [UInt8](Fixtures.hookPDF("hang")))
        let pool = Self.hookedPool(jobSeconds: 6)
        let (renderers, offload) = (Renderers(isolation: pool), Offload.forTests)
        func read(_ file: URL, as priority: WorkPriority) async throws {
            _ = try await WorkPriority.$current.withValue(priority) {
                try await renderers.text(ofPDF: file.path, page: 1, ocr: nil, on: offload)
            }
        }
        try await read(starved, as: .background)
        let extended = pool.backgroundExtensions
        #expect(extended > 0, "the starved child worked past its deadline")
        var before = extended
        // A hung child may have used CPU time on its way to the hang (a busy machine slows its start
        // past the first deadline): that earns it one more interval at most, never one per deadline.
        for (file, priority, allowed) in [(hanging, WorkPriority.background, 1), (starved, .interactive, 0)] {
            let error = await #expect(throws: PreviewError.self, "\(file.lastPathComponent), \(priority)") { try await read(file, as: priority) }
            #expect(error?.code == .timeout, "\(String(describing: error))")
            let granted = pool.backgroundExtensions - before
            #expect(granted <= allowed, "\(file.lastPathComponent), \(priority): given more time \(granted) times")
            before = pool.backgroundExtensions
        }
    }
}
