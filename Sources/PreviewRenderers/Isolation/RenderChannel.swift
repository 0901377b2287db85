import Foundation
import PreviewCore

/// What a parent asks a renderer child (one line of work on one file).
struct RenderCall: Codable {
    enum Operation: String, Codable { case probe, render }
    var operation: Operation
    var kind: FileKind
    var path: String
    var request: RenderRequest?
}

/// What the child answers: the facts, or the image's description (its bytes follow the header
/// frame), or the error with its stable code.
struct RenderReply: Codable {
    struct Failure: Codable {
        var code: String
        var message: String
        var detail: String?
    }
    var facts: MediaFacts?
    var width: Int?
    var height: Int?
    var format: RenderRequest.Format?
    var failure: Failure?
}

/// Length-prefixed frames (4-byte big-endian length, then the bytes) over a pipe's file descriptor.
enum RenderChannel {
    /// The largest frame accepted: an encoded preview is at most 4096² pixels.
    static let maxFrame = 256 * 1024 * 1024

    enum Failure: Error {
        /// The other end closed the pipe (the child exited or crashed).
        case closed
        /// Nothing complete arrived before the deadline.
        case timedOut
        case malformed
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var length = UInt32(bytes.count).bigEndian
        let header = withUnsafeBytes(of: &length) { Array($0) }
        try writeAll(header, to: descriptor)
        try writeAll(bytes, to: descriptor)
    }

    static func write(_ value: some Encodable, to descriptor: Int32) throws(Failure) {
        guard let data = try? JSONEncoder().encode(value) else { throw .malformed }
        try write([UInt8](data), to: descriptor)
    }

    /// The next frame; waits at most until `deadline` (nil: as long as it takes).
    static func read(from descriptor: Int32, deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        let header = try readExactly(4, from: descriptor, deadline: deadline)
        let length = Int(header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).bigEndian })
        guard length <= maxFrame else { throw .malformed }
        return try readExactly(length, from: descriptor, deadline: deadline)
    }

    static func read<T: Decodable>(_ type: T.Type, from descriptor: Int32, deadline: ContinuousClock.Instant?) throws(Failure) -> T {
        let bytes = try read(from: descriptor, deadline: deadline)
        guard let value = try? JSONDecoder().decode(type, from: Data(bytes)) else { throw .malformed }
        return value
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            offset += written
        }
    }

    private static func readExactly(_ count: Int, from descriptor: Int32, deadline: ContinuousClock.Instant?) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(Double(Int32.max), max(1, (remaining / .milliseconds(1)).rounded(.up))))
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .closed
                }
                if ready == 0 { continue }
            }
            let received = bytes[offset...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if received < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            if received == 0 { throw .closed }
            offset += received
        }
        return bytes
    }
}
