import PreviewCore
import PreviewStore

/// Admission for on-demand renders (a preview not in the store yet): at most ``total`` at once, at
/// most ``perOwner`` for one owner and ``perDocument`` for one document, so one viewer of one slow
/// document holds one renderer, never all of them. A request over its owner's or document's share
/// waits its turn for up to ``wait`` (a viewer's lazy pages queue instead of breaking); over the
/// total, or after the wait, it is refused (429). Previews already stored never come here.
final class RenderGate: Sendable {
    let total: Int
    let perOwner: Int
    let perDocument: Int
    let wait: Duration

    private struct State {
        var running = 0
        var highest = 0
        var owners: [String: Int] = [:]
        var documents: [String: Int] = [:]
    }

    private let state = Locked(State())

    init(total: Int, perOwner: Int, perDocument: Int, wait: Duration = .seconds(30)) {
        self.total = max(1, total)
        self.perOwner = max(1, perOwner)
        self.perDocument = max(1, perDocument)
        self.wait = wait
    }

    enum Entry {
        case entered
        /// Every render slot is taken.
        case full
        /// The owner's or document's share stayed taken for the whole wait.
        case waitedTooLong
    }

    /// Takes a render slot for `document` of `owner`; pair `.entered` with ``leave(owner:document:)``.
    func enter(owner: String, document: String) async -> Entry {
        let deadline = ContinuousClock.now + wait
        while true {
            let outcome: Entry? = state.withLock { state in
                guard state.running < total else { return .full }
                guard state.owners[owner, default: 0] < perOwner, state.documents[document, default: 0] < perDocument else { return nil }
                state.running += 1
                state.highest = max(state.highest, state.running)
                state.owners[owner, default: 0] += 1
                state.documents[document, default: 0] += 1
                return .entered
            }
            if let outcome { return outcome }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return .waitedTooLong }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    func leave(owner: String, document: String) {
        state.withLock { state in
            state.running -= 1
            state.owners[owner, default: 1] -= 1
            if state.owners[owner] == 0 { state.owners[owner] = nil }
            state.documents[document, default: 1] -= 1
            if state.documents[document] == 0 { state.documents[document] = nil }
        }
    }

    /// The most renders ever in flight at once.
    var highest: Int { state.withLock { $0.highest } }
}

extension RenderGate {
    /// Runs `render` in a render slot for `document` (429 when none comes in time), unless the client
    /// went away while it waited: then no render is started for it.
    func admitting<T>(_ document: DocumentRecord, context: ServerContext, testHooks: Bool,
                      _ render: () async throws -> T) async throws -> T {
        switch await enter(owner: document.owner, document: document.id) {
        case .entered: break
        case .full, .waitedTooLong:
            throw APIError(.queueFull, "Too many previews are being made right now; try again in a moment.", headers: [.retryAfter: "1"])
        }
        defer { leave(owner: document.owner, document: document.id) }
        if testHooks { try await Task.sleep(for: .milliseconds(500)) }
        if await ClientPresence.hasGone(context.channel) {
            context.logger.info("render skipped: the client disconnected", metadata: ["preview.document": "\(document.id)"])
            throw APIError(.clientGone, "The client disconnected.")
        }
        return try await render()
    }
}
