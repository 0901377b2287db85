import Foundation
import Synchronization

/// A FIFO that notices being opened for reading: a thread keeps trying to open its write end
/// without blocking, which succeeds only while some process has the read end open. Point a
/// hostile file's external reference at ``path`` and check ``opens`` stays 0.
package final class OpenTripwire: Sendable {
    package let path: String
    private let state = WatcherState()

    package init(in folder: URL, name: String = "tripwire.png") throws {
        path = folder.appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let (path, state) = (path, state)
        Thread.detachNewThread {
            while state.running.load(ordering: .acquiring) {
                let descriptor = open(path, O_WRONLY | O_NONBLOCK)
                if descriptor >= 0 {
                    state.count.add(1, ordering: .relaxed)
                    close(descriptor)  // the reader sees end of file and carries on
                }
                usleep(1000)
            }
        }
    }

    /// How many times the FIFO was found open for reading so far.
    package var opens: Int { state.count.load(ordering: .relaxed) }

    deinit { state.running.store(false, ordering: .releasing) }
}

/// A TCP listener on 127.0.0.1 that accepts and counts connections (and answers none): point a
/// hostile file's URL at ``port`` and check ``connections`` stays 0.
package final class LoopbackListener: Sendable {
    package let port: Int
    private let state = WatcherState()

    package init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        var address = LoopbackPort.address(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { close(socket); throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let state = state
        Thread.detachNewThread {
            defer { close(socket) }
            while state.running.load(ordering: .acquiring) {
                var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 20) > 0 else { continue }
                let connection = accept(socket, nil, nil)
                if connection >= 0 {
                    state.count.add(1, ordering: .relaxed)
                    close(connection)
                }
            }
        }
    }

    /// Connections accepted so far.
    package var connections: Int { state.count.load(ordering: .relaxed) }

    deinit { state.running.store(false, ordering: .releasing) }
}

/// What a watcher's thread shares with its owner: a count, and whether to keep watching.
private final class WatcherState: Sendable {
    let count = Atomic<Int>(0)
    let running = Atomic<Bool>(true)
}
