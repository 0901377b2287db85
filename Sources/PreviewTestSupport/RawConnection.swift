import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to the loopback server, for requests URLSession will not send.
package final class RawConnection {
    /// -1 once closed: a descriptor closed twice may close another's that reused its number.
    private var descriptor: Int32

    package init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = LoopbackPort.address(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED) }
    }

    package func send(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }

    /// Sends `bytes` whole (unless the peer stops reading).
    package func send(bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            offset += count
        }
    }

    /// True when the peer closes the connection (read returns 0 or fails) within `seconds`.
    package func waitForClose(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
        }
    }

    /// Closes the connection, once however often it is called.
    package func close() {
        guard descriptor >= 0 else { return }
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    /// The status of the response that arrives within `seconds`; nil if none.
    package func readStatus(seconds: Int = 10) -> Int? {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        return count > 12 ? Int(String(decoding: buffer[9..<12], as: UTF8.self)) : nil
    }

    /// Sends `head` (a request line and headers ending in `Transfer-Encoding: chunked`), then each
    /// piece as a chunk, until the server answers or stops reading: the status it answered with
    /// (nil if none within 10 s) and how many body bytes went out before that.
    package func streamChunked(head: String, pieces: some Sequence<[UInt8]>) -> (status: Int?, sent: Int) {
        var sent = 0
        func write(_ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        _ = write(Array(head.utf8) + Array("\r\n".utf8))
        for piece in pieces {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 { break }
            guard write(Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + Array("\r\n".utf8)) else { break }
            sent += piece.count
        }
        return (readStatus(), sent)
    }
}

/// A loopback port that takes connections and never answers (the kernel completes the handshake;
/// nothing is read or written): a server stopped mid-request, as SIGSTOP leaves one.
package final class SilentListener: @unchecked Sendable {  // its descriptor is closed once, in deinit
    package let port: Int
    private let descriptor: Int32

    package init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = LoopbackPort.address(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EADDRINUSE)
            Glibc.close(descriptor)
            throw error
        }
        var chosen = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &chosen) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        port = Int(UInt16(bigEndian: chosen.sin_port))
        self.descriptor = descriptor
    }

    deinit { Glibc.close(descriptor) }
}
