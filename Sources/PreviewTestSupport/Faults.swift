import Foundation
import Logging
import PreviewCore

/// A small tmpfs mounted for one test, to run out of disk for real. Mounting needs root (or
/// CAP_SYS_ADMIN): ``mount(megabytes:)`` throws ``MountRefused`` where it is not allowed.
package final class SmallDisk: Sendable {
    package let url: URL
    private var filler: URL { url.appendingPathComponent("filler") }

    package static func mount(megabytes: Int) throws -> SmallDisk {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path]) else {
            try? FileManager.default.removeItem(at: url)
            throw MountRefused()
        }
        return SmallDisk(url: url)
    }

    /// This process may not mount a tmpfs.
    package struct MountRefused: Error, CustomStringConvertible {
        package var description: String { "mounting a tmpfs needs root (CAP_SYS_ADMIN); CI runs as root" }
    }

    private init(url: URL) {
        self.url = url
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", url.path])
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes a file until the disk is full.
    package func fill() {
        guard let handle = fopen(filler.path, "w") else { return }
        defer { fclose(handle) }
        let block = [UInt8](repeating: 0xA5, count: 64 * 1024)
        while fwrite(block, 1, block.count, handle) == block.count, fflush(handle) == 0 {}
        // Whatever is smaller than a block too.
        while fwrite(block, 1, 1, handle) == 1, fflush(handle) == 0 {}
    }

    /// Frees what ``fill()`` took.
    package func free() {
        try? FileManager.default.removeItem(at: filler)
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// A log handler that keeps every message, for tests that count what was logged.
package struct CollectingLogHandler: LogHandler {
    package let messages: Locked<[(level: Logger.Level, message: String)]>
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace

    package init(into messages: Locked<[(level: Logger.Level, message: String)]>) {
        self.messages = messages
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        messages.withLock { $0.append((event.level, "\(event.message)")) }
    }
}
