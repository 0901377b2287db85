import Foundation

/// An IPv4 or IPv6 address, as the bytes a socket address holds.
package struct NetworkAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6).
    package let bytes: [UInt8]

    package init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses an address literal (`127.0.0.1`, `::ffff:127.0.0.1`, `[::1]`).
    package init?(_ text: String) {
        let literal = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    package var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
    /// NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::`), or nil.
    package var embeddedIPv4: NetworkAddress? {
        guard bytes.count == 16 else { return nil }
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
        let compatible =
            bytes[0..<12].allSatisfy { $0 == 0 } && !bytes[12..<16].allSatisfy { $0 == 0 }
            && !(bytes[12..<15].allSatisfy { $0 == 0 } && bytes[15] == 1)
        let nat64 = bytes[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        if mapped || compatible || nat64 { return NetworkAddress(bytes: Array(bytes[12..<16])) }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return NetworkAddress(bytes: Array(bytes[2..<6])) }
        return nil
    }

    /// Why a fetch must not connect here (`loopback`, `private`, `link-local`, …), or nil for an
    /// address of the public Internet. An IPv6 address carrying an IPv4 one is judged by that one too.
    package var nonPublicRange: String? {
        if let embedded = embeddedIPv4 { return embedded.nonPublicRange.map { "\($0) (IPv4 in IPv6)" } }
        return isIPv4 ? Self.range(ofIPv4: bytes) : Self.range(ofIPv6: bytes)
    }

    private static func range(ofIPv4 b: [UInt8]) -> String? {
        switch (b[0], b[1], b[2]) {
        case (0, _, _): "this network (0.0.0.0/8)"
        case (10, _, _), (172, 16...31, _), (192, 168, _): "private"
        case (100, 64...127, _): "shared address space (CGNAT)"
        case (127, _, _): "loopback"
        case (169, 254, 169) where b[3] == 254: "cloud metadata"
        case (169, 254, _): "link-local"
        case (192, 0, 0), (198, 18...19, _): "reserved"
        case (192, 0, 2), (198, 51, 100), (203, 0, 113): "documentation"
        case (224...239, _, _): "multicast"
        case (240...255, _, _): "reserved"
        default: nil
        }
    }

    private static func range(ofIPv6 b: [UInt8]) -> String? {
        if b.allSatisfy({ $0 == 0 }) { return "unspecified" }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "loopback" }
        if b[0] == 0xff { return "multicast" }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return "link-local" }
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return "site-local" }
        if b[0] & 0xfe == 0xfc { return b[0..<6] == [0xfd, 0x00, 0x0e, 0xc2, 0, 0] ? "cloud metadata" : "unique local (private)" }
        if b[0..<4] == [0x20, 0x01, 0x0d, 0xb8] { return "documentation" }
        if b[0..<4] == [0x20, 0x01, 0x00, 0x00] { return "Teredo" }
        if b[0..<8] == [0x01, 0, 0, 0, 0, 0, 0, 0] { return "discard" }
        return nil
    }

    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        _ = inet_ntop(isIPv4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count))
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Which addresses a fetch may connect to: the public Internet, and the exceptions an operator
/// named (`--allow-private-fetch ADDRESS[:PORT]`, for tests on loopback and for media hosts on a
/// private network).
package struct FetchAddressPolicy: Sendable, Equatable, Codable {
    /// An address, and a port (nil: any port), a fetch may reach even though it is not public.
    package struct Exception: Sendable, Equatable, Codable, CustomStringConvertible {
        package var address: String
        package var port: Int?

        /// `127.0.0.1:8080`, `[::1]:8080`, `10.0.0.5` (any port).
        package init?(_ text: String) {
            var host = text
            var port: Int?
            if let colon = text.lastIndex(of: ":"), text.hasPrefix("[") ? text[..<colon].hasSuffix("]") : text.firstIndex(of: ":") == colon {
                guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
                host = String(text[..<colon])
                port = value
            }
            guard let address = NetworkAddress(host) else { return nil }
            self.address = address.description
            self.port = port
        }

        package var description: String { port.map { "\(address.contains(":") ? "[\(address)]" : address):\($0)" } ?? address }
    }

    package var exceptions: [Exception]

    package init(exceptions: [Exception] = []) {
        self.exceptions = exceptions
    }

    /// Why connecting to `address`:`port` is refused, or nil when it may go ahead. An IPv4-mapped
    /// address must be named as such to be excepted: `::ffff:127.0.0.1` is not `127.0.0.1`.
    package func refusal(_ address: NetworkAddress, port: Int) -> String? {
        guard let range = address.nonPublicRange else { return nil }
        if exceptions.contains(where: { $0.address == address.description && ($0.port == nil || $0.port == port) }) { return nil }
        return "\(address) is in a \(range) range"
    }
}
