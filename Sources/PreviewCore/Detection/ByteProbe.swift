import Foundation

/// A bounded view of a file for detection: its size, its first and last bytes, and a few
/// small reads at chosen offsets (container directories). Never reads the whole file.
public struct ByteProbe: Sendable {
    /// How much of each end is read up front.
    package static let windowSize = 64 * 1024
    /// The largest single targeted read detection may make.
    static let maxReadSize = 1024 * 1024

    package let size: Int
    package let head: [UInt8]
    package let tail: [UInt8]
    private let reader: @Sendable (Int, Int) -> [UInt8]

    /// Offset in the file of `tail[0]`.
    package var tailOffset: Int { size - tail.count }

    /// Probes in-memory bytes (tests, fuzzing, uploads already in memory).
    package init(bytes: [UInt8]) {
        size = bytes.count
        head = Array(bytes.prefix(Self.windowSize))
        tail = Array(bytes.suffix(Self.windowSize))
        reader = { offset, count in
            guard offset >= 0, offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// Probes `size` bytes that `reader(offset, count)` returns (an open file's positioned reads).
    package init(size: Int, reader: @escaping @Sendable (_ offset: Int, _ count: Int) -> [UInt8]) {
        self.size = size
        head = reader(0, Self.windowSize)
        tail = size <= Self.windowSize ? head : reader(size - Self.windowSize, Self.windowSize)
        self.reader = reader
    }

    /// Probes a file on disk. Throws if it cannot be opened or is not a regular file.
    package init(contentsOf url: URL) throws {
        let handle = try FileHandle(forReadingFrom: url)
        let end = try handle.seekToEnd()
        size = Int(end)
        try handle.seek(toOffset: 0)
        head = Array(try handle.read(upToCount: Self.windowSize) ?? Data())
        if size <= Self.windowSize {
            tail = head
        } else {
            try handle.seek(toOffset: UInt64(size - Self.windowSize))
            tail = Array(try handle.read(upToCount: Self.windowSize) ?? Data())
        }
        let lock = NSLock()
        reader = { offset, count in
            lock.lock()
            defer { lock.unlock() }
            guard offset >= 0, (try? handle.seek(toOffset: UInt64(offset))) != nil else { return [] }
            return Array((try? handle.read(upToCount: count)) ?? Data())
        }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file; none when out of range).
    /// Served from the head or tail window when they cover it.
    package func read(at offset: Int, count: Int) -> [UInt8] {
        let count = min(count, Self.maxReadSize)
        guard offset >= 0, count > 0, offset < size else { return [] }
        let end = min(size, offset + count)
        if end <= head.count { return Array(head[offset..<end]) }
        if offset >= tailOffset { return Array(tail[(offset - tailOffset)..<(end - tailOffset)]) }
        return reader(offset, end - offset)
    }
}
