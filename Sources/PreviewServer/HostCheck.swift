import Foundation
import HTTPTypes
import Hummingbird

/// The names this server answers to, against DNS rebinding: a page on an attacker's name that
/// resolves to this server's address makes requests whose `Host` is the attacker's name, which no
/// same-origin check can tell apart. A `Host` is accepted when it is an IP address (a literal cannot
/// be rebound), a loopback name, or one of the public host names the server was given.
struct HostCheck: Sendable {
    private let names: Set<String>

    init(publicHosts: [String]) {
        names = Set(["localhost", "localhost.", "localhost.localdomain"] + publicHosts.map { $0.lowercased() })
    }

    /// Whether `request` is for this server, by its `:authority` or `Host` (one without either is:
    /// HTTP/1.0 sends none).
    func accepts(_ request: Request) -> Bool {
        guard let authority = request.head.authority ?? request.headers[HTTPField.Name("Host")!] else { return true }
        return accepts(authority)
    }

    /// Whether a request with this `Host` (or `:authority`) header is for this server.
    func accepts(_ authority: String) -> Bool {
        let host = Self.hostname(of: authority.lowercased())
        if names.contains(host) || host.hasSuffix(".localhost") { return true }
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// `example.org:8080` → `example.org`; `[::1]:8080` → `::1`.
    static func hostname(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") {
            return String(authority[..<colon])
        }
        return authority
    }
}
