import Foundation
import PreviewCore
import PreviewPoppler
import Synchronization

/// Keeps the most recently used PDFs open, so the next page of the same document skips parsing
/// (DESIGN §4). Bounded: the least recently used document is closed first.
///
/// Each open document is used by one caller at a time: Poppler crashes when one document is used
/// from several threads. Entries are keyed by path and the file's identity (device, inode, size,
/// modification time), so a replaced file is never served from a stale parse.
public final class PDFDocumentCache: Sendable {
    /// An open document and the lock that gives one caller at a time access to it.
    private final class Entry: @unchecked Sendable {  // `document` is only touched while `lock` is held
        let lock = NSLock()
        let document: PDFDocument

        init(_ document: PDFDocument) {
            self.document = document
        }
    }

    private let capacity: Int
    private let state = Mutex<(entries: [String: Entry], recent: [String])>(([:], []))

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Number of documents open now.
    package var count: Int { state.withLock { $0.entries.count } }

    /// Runs `body` with the open document at `path`, opening (and caching) it first when needed.
    func withDocument<T>(
        _ path: String, open: (String) throws(PreviewError) -> PDFDocument,
        _ body: (PDFDocument) throws(PreviewError) -> T
    ) throws(PreviewError) -> T {
        let key = Self.identity(path)
        let cached = state.withLock { state -> Entry? in
            guard let key, let entry = state.entries[key] else { return nil }
            state.recent.removeAll { $0 == key }
            state.recent.append(key)
            return entry
        }
        let entry: Entry
        if let cached {
            entry = cached
        } else {
            entry = Entry(try open(path))
        }
        if cached == nil, let key {
            state.withLock { state in
                if state.entries[key] == nil {
                    state.entries[key] = entry
                    state.recent.append(key)
                }
                while state.recent.count > capacity {
                    // An evicted document closes once its current user (if any) lets go of it.
                    state.entries[state.recent.removeFirst()] = nil
                }
            }
        }
        entry.lock.lock()
        defer { entry.lock.unlock() }
        return try body(entry.document)
    }

    private static func identity(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(path)"
    }
}
