import Foundation
import PreviewCore

/// The only way out of a fetch child: an HTTP proxy on loopback that resolves every host itself,
/// checks every address it would connect to against the ``FetchAddressPolicy`` (after every
/// redirect, since each is a new request through it, and after every DNS answer, since it connects
/// to the address it checked, never to the name again), and refuses the rest with 403.
///
/// It speaks `CONNECT host:port` (HTTPS: the bytes are relayed, the TLS is the client's) and
/// absolute-form requests (`GET http://host/path`: sent on in origin form, one request per
/// connection). One thread per connection, blocking sockets: a fetch makes a handful.
package final class AddressCheckingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let policy: FetchAddressPolicy
    private let onRefusal: @Sendable (String) -> Void
    /// Seconds a connection may sit with nothing to relay.
    static let idleSeconds: Int32 = 60
    static let maxHeadBytes = 32 * 1024

    /// Listens on 127.0.0.1 at a port of the kernel's choosing and serves until the process ends;
    /// tells `onRefusal` why, each time it refuses an address (after answering 403).
    init(policy: FetchAddressPolicy, onRefusal: @escaping @Sendable (String) -> Void) throws {
        self.policy = policy
        self.onRefusal = onRefusal
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.stackSize = 256 * 1024
        thread.start()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { if errno == EINTR || errno == ECONNABORTED { continue } else { return } }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let thread = Thread { [self] in
                serve(client)
                close(client)
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        setTimeout(client)
        guard let (head, rest) = readHead(client), let requestLine = head.split(separator: "\r\n", omittingEmptySubsequences: false).first else {
            return
        }
        let words = requestLine.split(separator: " ")
        guard words.count == 3 else { return answer(client, 400, "Bad Request") }
        let (method, target) = (String(words[0]), String(words[1]))
        if method == "CONNECT" {
            guard let (host, port) = Self.hostAndPort(target, defaultPort: 443) else { return answer(client, 400, "Bad Request") }
            guard let upstream = connectChecked(client, host: host, port: port) else { return }
            defer { close(upstream) }
            guard send(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)), send(upstream, rest) else { return }
            relay(client, upstream)
        } else {
            guard let url = URLComponents(string: target), url.scheme?.lowercased() == "http", let host = url.host, !host.isEmpty else {
                return answer(client, 400, "Bad Request")
            }
            guard let upstream = connectChecked(client, host: host, port: url.port ?? 80) else { return }
            defer { close(upstream) }
            let path = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
            let headers = head.split(separator: "\r\n").dropFirst().filter { line in
                let name = line.prefix { $0 != ":" }.lowercased()
                return !name.hasPrefix("proxy-") && name != "connection" && name != "keep-alive"
            }
            let forwarded = (["\(method) \(path) \(words[2])"] + headers + ["Connection: close", "", ""]).joined(separator: "\r\n")
            guard send(upstream, Array(forwarded.utf8)), send(upstream, rest) else { return }
            relay(client, upstream)
        }
    }

    /// A socket connected to the first address of `host` the policy allows, or nil once the client
    /// was told why not (403 for a refused address, 502 for a name that does not resolve or a
    /// host that does not answer).
    private func connectChecked(_ client: Int32, host: String, port: Int) -> Int32? {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else {
            answer(client, 502, "Bad Gateway", reason: "\(name) could not be resolved")
            return nil
        }
        defer { freeaddrinfo(list) }
        var answers: [(address: NetworkAddress, info: UnsafeMutablePointer<addrinfo>)] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            if let address = Self.address(current.pointee) { answers.append((address, current)) }
        }
        let (allowed, refusal) = Self.checked(answers.map(\.address), port: port, policy: policy)
        for (address, current) in answers where allowed.contains(address) {
            let upstream = socket(current.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard upstream >= 0 else { continue }
            setTimeout(upstream)
            if connect(upstream, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 { return upstream }
            close(upstream)
        }
        if let refusal {
            answer(client, 403, "Forbidden", reason: refusal)
            onRefusal(refusal)
        } else {
            answer(client, 502, "Bad Gateway", reason: "\(name) port \(port) did not answer")
        }
        return nil
    }

    /// Of a DNS answer's `addresses`, those the policy lets a connection to `port` reach, in order,
    /// and why one was refused (if one was): a name that answers a public and a private address is
    /// only ever connected to on the public one.
    package static func checked(_ addresses: [NetworkAddress], port: Int, policy: FetchAddressPolicy) -> (
        allowed: [NetworkAddress], refusal: String?
    ) {
        var refusal: String?
        let allowed = addresses.filter { address in
            guard let refused = policy.refusal(address, port: port) else { return true }
            refusal = refusal ?? refused
            return false
        }
        return (allowed, refusal)
    }

    static func address(_ info: addrinfo) -> NetworkAddress? {
        guard let pointer = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { NetworkAddress(bytes: Array($0)) }
            }
        case AF_INET6:
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { NetworkAddress(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }

    /// `host:port`, `[v6]:port` or `host` (with `defaultPort`).
    static func hostAndPort(_ authority: String, defaultPort: Int) -> (String, Int)? {
        guard let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") else {
            return authority.isEmpty ? nil : (authority, defaultPort)
        }
        guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        return (String(authority[..<colon]), port)
    }

    /// The request head (up to the blank line) and whatever came after it.
    private func readHead(_ socket: Int32) -> (String, [UInt8])? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < Self.maxHeadBytes {
            let count = read(socket, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes += buffer[0..<count]
            if let end = Self.headEnd(bytes) { return (String(decoding: bytes[0..<end], as: UTF8.self), Array(bytes[(end + 4)...])) }
        }
        return nil
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// Copies bytes both ways until either side closes or nothing moves for ``idleSeconds``.
    private func relay(_ a: Int32, _ b: Int32) {
        var descriptors = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while poll(&descriptors, 2, Self.idleSeconds * 1000) > 0 {
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let count = read(descriptor.fd, &buffer, buffer.count)
                guard count > 0, send(descriptors[1 - index].fd, Array(buffer[0..<count])) else { return }
            }
        }
    }

    private func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private func answer(_ client: Int32, _ status: Int, _ text: String, reason: String? = nil) {
        let header = reason.map { "\(Self.refusalHeader): \($0)\r\n" } ?? ""
        _ = send(client, Array("HTTP/1.1 \(status) \(text)\r\n\(header)Content-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    /// The header a refusal's reason is in.
    static let refusalHeader = "X-DocPreview-Refusal"

    private func setTimeout(_ socket: Int32) {
        var timeout = timeval(tv_sec: Int(Self.idleSeconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}
