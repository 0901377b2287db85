import Foundation
import PreviewCore

/// How many connections the server holds, overall and from one client address. A connection past
/// either bound is shed at once (``GuardedChildChannel``), before it costs more than its socket:
/// the server keeps descriptors in reserve for the files, database connections and renderer pipes
/// of the requests it is answering, and runs out of none of them whoever connects. The places are
/// shared fairly across addresses: when every one is taken, a connection from an address holding
/// fewer takes the oldest place of the address holding the most (that connection is closed), so
/// many addresses filling the budget cannot keep a new one out.
final class ConnectionBudget: Sendable {
    enum Refusal: String, Error, Sendable {
        /// Every connection the server holds is taken, and no address holds more than its share.
        case full
        /// This client address holds its share.
        case client
    }

    /// A connection's place, given back by ``release(_:)``.
    struct Place: Hashable, Sendable {
        let address: String
        fileprivate let id: UInt64
    }

    let total: Int
    let perClient: Int

    private struct State {
        var next: UInt64 = 0
        var held = 0
        /// Each address's connections: their order of arrival, and what closes each.
        var byClient: [String: [UInt64: @Sendable () -> Void]] = [:]
    }

    private let state = Locked(State())

    init(total: Int, perClient: Int) {
        self.total = max(1, total)
        self.perClient = max(1, perClient)
    }

    /// Takes a connection's place for `address`, `close` ending the connection if it must give its
    /// place up; the refusal when there is none (nothing taken).
    func admit(_ address: String, close: @escaping @Sendable () -> Void = {}) -> Result<Place, Refusal> {
        let (admission, evicted) = state.withLock { state -> (Result<Place, Refusal>, (@Sendable () -> Void)?) in
            let own = state.byClient[address]?.count ?? 0
            guard own < perClient else { return (.failure(.client), nil) }
            var evicted: (@Sendable () -> Void)?
            if state.held >= total {
                guard let (heaviest, connections) = state.byClient.max(by: { $0.value.count < $1.value.count }),
                    connections.count > own + 1, let oldest = connections.keys.min()
                else { return (.failure(.full), nil) }
                evicted = connections[oldest]
                state.byClient[heaviest]?[oldest] = nil
                state.held -= 1
            }
            state.next += 1
            state.byClient[address, default: [:]][state.next] = close
            state.held += 1
            return (.success(Place(address: address, id: state.next)), evicted)
        }
        switch admission {
        case let .failure(refusal):
            ServiceMetrics.connectionsShed(reason: refusal.rawValue)
        case .success:
            if evicted != nil { ServiceMetrics.connectionsShed(reason: "fair_share") }
            ServiceMetrics.connectionsOpen(held)
        }
        evicted?()
        return admission
    }

    /// Gives back `place` (once; a place already taken by another address is not given twice).
    func release(_ place: Place) {
        state.withLock { state in
            guard state.byClient[place.address]?.removeValue(forKey: place.id) != nil else { return }
            if state.byClient[place.address]?.isEmpty == true { state.byClient[place.address] = nil }
            state.held -= 1
        }
        ServiceMetrics.connectionsOpen(held)
    }

    /// Connections held now.
    var held: Int { state.withLock { $0.held } }
}

/// The process's descriptors, and how they are shared out: a reserve for everything but the
/// clients' sockets and the files they stream, half the rest for connections, half for streams.
enum DescriptorBudget {
    /// The soft `RLIMIT_NOFILE`, raised to the hard one first (as Go's runtime and nginx do): a
    /// server's descriptors are its capacity.
    static func raisedLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Descriptors kept for the database, the blobs, renderer children and logs: an eighth, at least 128.
    static func reserve(of limit: Int) -> Int { max(128, limit / 8) }

    /// Connections and streamed files that `limit` descriptors allow, each half of what the reserve leaves.
    static func shares(of limit: Int) -> (connections: Int, streams: Int) {
        let share = max(2, (limit - reserve(of: limit)) / 2)
        return (share, share)
    }
}
