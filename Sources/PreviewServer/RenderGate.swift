import PreviewCore
import PreviewDomain

/// Admission for on-demand renders (a preview not in the store yet): at most ``total`` at once, at
/// most ``perRequester`` for one requester's lane and ``perDocument`` for one document, so one
/// viewer of one slow document holds one renderer, never all of them. A share's visitors render in
/// lanes of their own, one per share and one per client address, never in the owner's: a stranger
/// with a link cannot make the owner's previews wait. A request over its lane's or document's share
/// waits its turn, in order of arrival, for up to ``wait`` (a viewer's lazy pages queue instead of
/// breaking); over the total, or after the wait, it is refused (429). Previews already stored never
/// come here.
final class RenderGate: Sendable {
    /// Whom a render is for.
    enum Requester: Hashable, Sendable {
        /// The document's owner: the service token, a session, or a URL the owner's app had signed.
        case owner(String)
        /// A visitor of one of the document's shares, from a client address.
        case visitor(share: String, address: String)

        /// The lanes the render takes a place in.
        var lanes: [String] {
            switch self {
            case let .owner(owner): ["owner:" + owner]
            case let .visitor(share, address): ["share:" + share, "visitor:" + address]
            }
        }
    }

    let total: Int
    let perRequester: Int
    let perDocument: Int
    let wait: Duration

    enum Entry: Sendable {
        case entered
        /// Every render slot is taken.
        case full
        /// The lane's or document's share stayed taken for the whole wait.
        case waitedTooLong
    }

    private struct Waiter {
        let id: UInt64
        let lanes: [String]
        let document: String
        let continuation: CheckedContinuation<Entry, Never>
    }

    private struct State {
        var running = 0
        var highest = 0
        var lanes: [String: Int] = [:]
        var documents: [String: Int] = [:]
        var waiters = WaitingLine<Waiter>()

        func hasRoom(_ lanes: [String], _ document: String, perLane: Int, perDocument: Int) -> Bool {
            lanes.allSatisfy { self.lanes[$0, default: 0] < perLane } && documents[document, default: 0] < perDocument
        }

        mutating func take(_ lanes: [String], _ document: String) {
            running += 1
            highest = max(highest, running)
            for lane in lanes { self.lanes[lane, default: 0] += 1 }
            documents[document, default: 0] += 1
        }
    }

    private let state = Locked(State())

    init(total: Int, perRequester: Int, perDocument: Int, wait: Duration = .seconds(30)) {
        self.total = max(1, total)
        self.perRequester = max(1, perRequester)
        self.perDocument = max(1, perDocument)
        self.wait = wait
    }

    /// Takes a render slot for `document` on behalf of `requester`; pair `.entered` with
    /// ``leave(_:document:)``.
    func enter(_ requester: Requester, document: String) async -> Entry {
        let lanes = requester.lanes
        let id = state.withLock { $0.waiters.ticket() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Entry, Never>) in
                let now = state.withLock { state -> Entry? in
                    guard state.running < total else { return .full }
                    if state.waiters.isEmpty, state.hasRoom(lanes, document, perLane: perRequester, perDocument: perDocument) {
                        state.take(lanes, document)
                        return .entered
                    }
                    state.waiters.append(Waiter(id: id, lanes: lanes, document: document, continuation: continuation))
                    return nil
                }
                if let now {
                    continuation.resume(returning: now)
                } else {
                    Task { [wait] in
                        try? await Task.sleep(for: wait)
                        self.giveUp(id)
                    }
                }
            }
        } onCancel: {
            giveUp(id)
        }
    }

    /// Ends waiter `id`'s wait with `.waitedTooLong`, unless it entered meanwhile.
    private func giveUp(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.remove { $0.id == id } }
        waiter?.continuation.resume(returning: .waitedTooLong)
    }

    /// Gives back the slot ``enter(_:document:)`` took, and lets in the waiters that now fit, in order.
    func leave(_ requester: Requester, document: String) {
        let (total, perRequester, perDocument) = (total, perRequester, perDocument)
        let admitted = state.withLock { state -> [Waiter] in
            state.running -= 1
            for lane in requester.lanes { state.lanes.decrement(lane) }
            state.documents.decrement(document)
            // The line is taken out of the state while the closures below read the state.
            var line = state.waiters
            let admitted = line.admit(
                while: { state.running < total },
                fits: { state.hasRoom($0.lanes, $0.document, perLane: perRequester, perDocument: perDocument) },
                take: { state.take($0.lanes, $0.document) })
            state.waiters = line
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume(returning: .entered) }
    }

    /// The most renders ever in flight at once.
    var highest: Int { state.withLock { $0.highest } }
    /// Renders waiting their turn now.
    var waiting: Int { state.withLock { $0.waiters.count } }
}

extension RenderGate {
    /// Runs `render` in a render slot for `document` (429 when none comes in time), unless the client
    /// went away while it waited (looked at after `pause`, when given): then no render is started
    /// for it. A request signed for a share renders as that share's visitor.
    func admitting<T>(
        _ document: Document, context: ServerContext, pause: Duration? = nil,
        _ render: () async throws -> T
    ) async throws -> T {
        let requester: Requester = context.signedGrant?.share.map { .visitor(share: $0, address: context.clientAddress) } ?? .owner(document.owner)
        switch await enter(requester, document: document.id) {
        case .entered: break
        case .full, .waitedTooLong:
            throw APIError(.queueFull, "Too many previews are being made right now; try again in a moment.", headers: [.retryAfter: "1"])
        }
        defer { leave(requester, document: document.id) }
        if let pause { try await Task.sleep(for: pause) }
        if await ClientPresence.hasGone(context.channel) {
            context.logger.info("render skipped: the client disconnected", metadata: ["preview.document": "\(document.id)"])
            throw APIError(.clientGone, "The client disconnected.")
        }
        return try await render()
    }
}
