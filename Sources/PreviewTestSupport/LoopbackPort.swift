import Foundation

/// Ports on 127.0.0.1 for the servers that tests start.
package enum LoopbackPort {
    /// A port that nothing listens on now, below the kernel's ephemeral range (32768 and up on
    /// Linux), so that no client connection of this machine is given it before the server binds it.
    package static func free() -> Int {
        while true {
            let port = Int.random(in: 20_000...32_000)
            if isFree(port) { return port }
        }
    }

    /// The socket address of 127.0.0.1:`port` (0: a port of the kernel's choosing).
    package static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Whether a socket can bind 127.0.0.1:`port` now.
    static func isFree(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = address(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
