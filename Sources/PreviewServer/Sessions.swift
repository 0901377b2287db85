import PreviewDomain
import Foundation
import PreviewCore

/// A signed-in browser: its CSRF token (sent back in the pages' hidden form fields) and when it ends.
package struct Session: Sendable {
    /// The token a write made with this session's cookie must carry (hidden field `csrf` or
    /// `X-CSRF-Token`); random, one per session.
    package let csrfToken: String
    let createdAt: ContinuousClock.Instant
    var lastSeen: ContinuousClock.Instant

    func isCSRFToken(_ value: String) -> Bool {
        Credentials.constantTimeEqual(Array(value.utf8), Array(csrfToken.utf8))
    }
}

/// The sessions sign-ins made, in this process. The cookie carries a random 256-bit id; only its
/// SHA-256 is kept, so a copy of this table (a core dump) signs nobody in. A session ends when it
/// has not been used for ``idleLifetime``, ``absoluteLifetime`` after sign-in, or at sign-out; the
/// oldest ones make room beyond ``capacity``.
final class SessionStore: Sendable {
    static let idleLifetime: Duration = .seconds(8 * 3600)
    static let absoluteLifetime: Duration = .seconds(7 * 24 * 3600)
    static let capacity = 10_000

    private let sessions = Locked<[String: Session]>([:])
    private let clock: any ServiceClock

    init(clock: any ServiceClock) {
        self.clock = clock
    }

    /// A new session; returns the cookie value to set.
    func create() -> String {
        let now = clock.instant
        let cookie = Base64URL.randomToken(bytes: 32)
        let session = Session(csrfToken: Base64URL.randomToken(bytes: 32), createdAt: now, lastSeen: now)
        sessions.withLock { sessions in
            if sessions.count >= Self.capacity {
                sessions = sessions.filter { !Self.expired($0.value, now: now) }
                while sessions.count >= Self.capacity, let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen }) {
                    sessions[oldest.key] = nil
                }
            }
            sessions[Self.digest(cookie)] = session
        }
        return cookie
    }

    /// The live session the cookie value names, marked used now; nil for an unknown or ended one.
    func session(cookie: String) -> Session? {
        let now = clock.instant
        let key = Self.digest(cookie)
        return sessions.withLock { sessions in
            guard var session = sessions[key] else { return nil }
            if Self.expired(session, now: now) {
                sessions[key] = nil
                return nil
            }
            session.lastSeen = now
            sessions[key] = session
            return session
        }
    }

    /// Ends the session the cookie value names (sign-out).
    func end(cookie: String) {
        _ = sessions.withLock { $0.removeValue(forKey: Self.digest(cookie)) }
    }

    private static func expired(_ session: Session, now: ContinuousClock.Instant) -> Bool {
        session.lastSeen.duration(to: now) > idleLifetime || session.createdAt.duration(to: now) > absoluteLifetime
    }

    private static func digest(_ cookie: String) -> String {
        BlobHash.of(Array(cookie.utf8)).hex
    }

}
