import Foundation
import Logging
import Metrics
import PreviewStore
import Synchronization

/// Local copies of remote blobs, for the libraries that open paths: each checked against its hash
/// before first use and again whenever anything about the file changed (``VerifiedFiles``: a copy
/// damaged later is found out, logged, counted and fetched again, never used), one download per
/// blob however many readers want it at once, the least recently used removed first once they take
/// more than `capacity` bytes.
///
/// A copy used in the last `minimumAge` is never removed (a renderer child may be about to open
/// the path it was given), so the folder can exceed its capacity for a while under load.
/// Folders are `0700`, copies `0400`. Survives restarts: copies found on disk are kept.
final class BlobCache: @unchecked Sendable {  // `entries`, `total`, `downloading` are guarded by `condition`
    let folder: URL
    let capacity: Int
    let minimumAge: TimeInterval
    private var staging: URL { folder.appendingPathComponent("tmp") }
    private let condition = NSCondition()
    private var entries: [BlobHash: (size: Int, used: Date)] = [:]
    private var total = 0
    private var downloading: Set<BlobHash> = []
    /// Reads served from a copy already here, and reads that had to fetch one.
    let hits = Atomic<Int>(0), misses = Atomic<Int>(0)

    init(folder: URL, capacity: Int, minimumAge: TimeInterval = 120) throws {
        self.folder = folder
        self.capacity = capacity
        self.minimumAge = minimumAge
        for made in [folder, staging] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? [] {
            try? FileManager.default.removeItem(at: staging.appendingPathComponent(leftover))
        }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentAccessDateKey]
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) ?? .init() {
            guard let hash = BlobHash(hex: url.lastPathComponent), let values = try? url.resourceValues(forKeys: Set(keys)) else { continue }
            entries[hash] = (values.fileSize ?? 0, values.contentAccessDate ?? .distantPast)
            total += values.fileSize ?? 0
        }
    }

    /// Where the copy of `hash` lives (whether or not it is there).
    func path(of hash: BlobHash) -> URL {
        folder.appendingPathComponent(String(hash.hex.prefix(2))).appendingPathComponent(hash.hex)
    }

    /// The copy of `hash` when it is here and checked, marked as used.
    func cached(_ hash: BlobHash) -> URL? {
        guard let url = condition.withLock({ lookUp(hash) }), isIntact(url, hash) else { return nil }
        return url
    }

    /// Whether the copy at `url` holds `hash`; a damaged one is removed (and fetched again when next asked for).
    private func isIntact(_ url: URL, _ hash: BlobHash) -> Bool {
        if (try? VerifiedFiles.shared.holds(url, hash)) == true { return true }
        Logger(label: "docpreview.blob-cache").error("a local copy of a blob is damaged; it is fetched again", metadata: ["preview.sha256": "\(hash)"])
        Counter(label: "docpreview_damaged_blobs_total", dimensions: [("kind", "cache"), ("problem", "damaged")]).increment()
        forget(hash)
        return false
    }

    /// The copy of `hash`: the one here, or one `fetch` writes to the file it is given (then checked
    /// against `hash`), while other readers of the same blob wait for it.
    func file(for hash: BlobHash, fetch: (URL) throws -> Void) throws -> URL {
        condition.lock()
        while true {
            if let url = lookUp(hash) {
                condition.unlock()
                if isIntact(url, hash) {
                    hits.add(1, ordering: .relaxed)
                    Counter(label: "docpreview_blob_cache_total", dimensions: [("result", "hit")]).increment()
                    return url
                }
                condition.lock()
                continue
            }
            if !downloading.contains(hash) { break }
            condition.wait()
        }
        downloading.insert(hash)
        condition.unlock()
        defer { condition.withLock { _ = downloading.remove(hash); condition.broadcast() } }
        misses.add(1, ordering: .relaxed)
        Counter(label: "docpreview_blob_cache_total", dimensions: [("result", "miss")]).increment()
        let temporary = staging.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: temporary) }
        try fetch(temporary)
        guard try SourceFile(temporary, followLinks: false).contentHash() == hash else {
            throw S3Error.damaged("The object for blob \(hash) does not hash to its name: it is damaged in the object store.")
        }
        return try adopt(temporary, as: hash)
    }

    /// Takes over the file at `source`, whose bytes hash to `hash` (a blob just uploaded from it).
    @discardableResult
    func adopt(_ source: URL, as hash: BlobHash) throws -> URL {
        let destination = path(of: hash)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        chmod(source.path, 0o400)
        guard rename(source.path, destination.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        VerifiedFiles.shared.remember(destination, holds: hash)
        var info = stat()
        let size = stat(destination.path, &info) == 0 ? Int(info.st_size) : 0
        condition.withLock {
            total += size - (entries[hash]?.size ?? 0)
            entries[hash] = (size, Date())
            evict()
        }
        return destination
    }

    /// Removes the copy of `hash` (its blob was removed from the store).
    func forget(_ hash: BlobHash) {
        condition.withLock {
            guard let entry = entries.removeValue(forKey: hash) else { return }
            total -= entry.size
            try? FileManager.default.removeItem(at: path(of: hash))
            VerifiedFiles.shared.forget(path(of: hash))
        }
    }

    /// Checks every copy here (``VerifiedFiles``: those unchanged since they were checked are not
    /// read again); the damaged ones are removed, and returned.
    func checkAll() -> [BlobHash] {
        let held = condition.withLock { Array(entries.keys) }
        return held.filter { hash in
            guard let url = condition.withLock({ lookUp(hash) }) else { return false }
            return !isIntact(url, hash)
        }
    }

    /// Bytes held now.
    var bytes: Int { condition.withLock { total } }

    private func lookUp(_ hash: BlobHash) -> URL? {
        guard let entry = entries[hash] else { return nil }
        let url = path(of: hash)
        guard access(url.path, F_OK) == 0 else {
            entries[hash] = nil
            total -= entry.size
            return nil
        }
        entries[hash]?.used = Date()
        return url
    }

    /// Removes the least recently used copies not used in the last `minimumAge` until the rest fit.
    private func evict() {
        guard total > capacity else { return }
        let cutoff = Date().addingTimeInterval(-minimumAge)
        for (hash, entry) in entries.sorted(by: { $0.value.used < $1.value.used }) {
            guard total > capacity, entry.used < cutoff else { break }
            guard !downloading.contains(hash) else { continue }
            try? FileManager.default.removeItem(at: path(of: hash))
            entries[hash] = nil
            total -= entry.size
            Counter(label: "docpreview_blob_cache_evictions_total").increment()
        }
    }
}
