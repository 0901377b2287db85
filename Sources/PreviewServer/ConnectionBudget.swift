import Foundation
import Metrics
import PreviewCore

/// How many connections the server holds, overall and from one client address. A connection past
/// either bound is shed at once (``GuardedChildChannel``), before it costs more than its socket:
/// the server keeps descriptors in reserve for the files, database connections and renderer pipes
/// of the requests it is answering, and runs out of none of them whoever connects.
final class ConnectionBudget: Sendable {
    enum Refusal: String, Sendable {
        /// Every connection the server holds is taken.
        case full
        /// This client address holds its share.
        case client
    }

    let total: Int
    let perClient: Int
    private let open = Locked<(total: Int, byClient: [String: Int])>((0, [:]))

    init(total: Int, perClient: Int) {
        self.total = max(1, total)
        self.perClient = max(1, perClient)
    }

    /// Takes a connection's place for `address`; the refusal when there is none (nothing taken).
    func admit(_ address: String) -> Refusal? {
        let refusal = open.withLock { open -> Refusal? in
            guard open.total < total else { return .full }
            guard open.byClient[address, default: 0] < perClient else { return .client }
            open.total += 1
            open.byClient[address, default: 0] += 1
            return nil
        }
        if let refusal {
            Counter(label: "docpreview_connections_shed_total", dimensions: [("reason", refusal.rawValue)]).increment()
        } else {
            Gauge(label: "docpreview_connections_open").record(held)
        }
        return refusal
    }

    /// Gives back the place ``admit(_:)`` took for `address`.
    func release(_ address: String) {
        open.withLock { open in
            open.total -= 1
            open.byClient.decrement(address)
        }
        Gauge(label: "docpreview_connections_open").record(held)
    }

    /// Connections held now.
    var held: Int { open.withLock { $0.total } }
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
