import Foundation
import PreviewCore

/// What the fetch child does when its proxy refuses an address. A client told `403` to its
/// `CONNECT` takes it for a failed connection and tries again until its deadline, so a refusal
/// is acted on here: while it ``endsTheFetch`` (a download; the link itself of a card), the child
/// answers the refusal and exits; after (a card's oEmbed answer and picture), the request running
/// is cancelled and its fetch fails with the refusal, the card going on without it.
final class ProxyRefusals: Sendable {
    private struct State {
        var endsTheFetch = true
        var cancel: (@Sendable () -> Void)?
        var reason: String?
    }

    private let state = Locked(State())
    /// Called with the reason when a refusal ends the fetch: answers it, and does not return.
    private let end: @Sendable (String) -> Void

    init(end: @escaping @Sendable (String) -> Void) {
        self.end = end
    }

    /// Whether a refusal from now on ends the fetch.
    func setEndsTheFetch(_ ends: Bool) {
        state.withLock { $0.endsTheFetch = ends }
    }

    /// The proxy refused an address (told on its thread, after it answered `403`).
    func refused(_ reason: String) {
        let (ends, cancel) = state.withLock { state in
            state.reason = state.reason ?? reason
            return (state.endsTheFetch, state.cancel)
        }
        if ends { end(reason) } else { cancel?() }
    }

    /// From now on a refusal that does not end the fetch cancels the request that `cancel` stops.
    func track(_ cancel: @escaping @Sendable () -> Void) {
        state.withLock { state in (state.cancel, state.reason) = (cancel, nil) }
    }

    /// Stops tracking the request; the refusal that cancelled it, if one did.
    func untrack() -> String? {
        state.withLock { state in
            defer { (state.cancel, state.reason) = (nil, nil) }
            return state.reason
        }
    }
}
