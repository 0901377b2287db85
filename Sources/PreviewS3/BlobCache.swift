import Foundation
import Logging
import PreviewCore
import PreviewDomain
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
final class BlobCache: Sendable {
    let folder: URL
    let capacity: Int
    let minimumAge: TimeInterval
    private var staging: URL { folder.appendingPathComponent("tmp") }
    private let offload: Offload
    private let state: Locked<State>
    /// Reads served from a copy already here, and reads that had to fetch one.
    let hits = Atomic<Int>(0), misses = Atomic<Int>(0)

    private struct State {
        var entries: [BlobHash: (size: Int, used: Date)] = [:]
        var total = 0
        /// Blobs being fetched, with the readers waiting for each.
        var downloading: [BlobHash: [CheckedContinuation<Void, Never>]] = [:]
    }

    /// Copies under `folder`, checked and hashed on `offload`'s reads lane.
    init(folder: URL, capacity: Int, minimumAge: TimeInterval = 120, offload: Offload) throws {
        self.folder = folder
        self.capacity = capacity
        self.minimumAge = minimumAge
        self.offload = offload
        let staging = folder.appendingPathComponent("tmp")
        for made in [folder, staging] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? [] {
            try? FileManager.default.removeItem(at: staging.appendingPathComponent(leftover))
        }
        var found = State()
        let keys: [URLResourceKey] = [.fileSizeKey, .contentAccessDateKey]
        for case let url as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) ?? .init() {
            guard let hash = BlobHash(hex: url.lastPathComponent), let values = try? url.resourceValues(forKeys: Set(keys)) else { continue }
            found.entries[hash] = (values.fileSize ?? 0, values.contentAccessDate ?? .distantPast)
            found.total += values.fileSize ?? 0
        }
        state = Locked(found)
    }

    /// Where the copy of `hash` lives (whether or not it is there).
    func path(of hash: BlobHash) -> URL {
        folder.appendingPathComponent(String(hash.hex.prefix(2))).appendingPathComponent(hash.hex)
    }

    /// The copy of `hash` when it is here and checked, marked as used.
    func cached(_ hash: BlobHash) async -> URL? {
        guard let url = state.withLock({ lookUp(hash, in: &$0) }), await isIntact(url, hash) else { return nil }
        return url
    }

    /// Whether the copy at `url` holds `hash`; a damaged one is removed (and fetched again when next asked for).
    private func isIntact(_ url: URL, _ hash: BlobHash) async -> Bool {
        if (try? await VerifiedFiles.shared.holds(url, hash, hashingOn: offload)) == true { return true }
        Logger(label: "docpreview.blob-cache").error(
            "a local copy of a blob is damaged; it is fetched again", metadata: ["preview.sha256": "\(hash)"])
        ServiceMetrics.damagedBlobs(kind: "cache", problem: "damaged")
        forget(hash)
        return false
    }

    /// The copy of `hash`: the one here, or one `fetch` writes to the file it is given (then checked
    /// against `hash`), while other readers of the same blob wait for it, suspended.
    func file(for hash: BlobHash, fetch: (URL) async throws -> Void) async throws -> URL {
        enum Next { case found(URL), wait, fetch }
        lookingUp: while true {
            let next = state.withLock { state -> Next in
                if let url = lookUp(hash, in: &state) { return .found(url) }
                if state.downloading[hash] != nil { return .wait }
                state.downloading[hash] = []
                return .fetch
            }
            switch next {
            case let .found(url):
                guard await isIntact(url, hash) else { continue }
                hits.add(1, ordering: .relaxed)
                ServiceMetrics.blobCache(result: "hit")
                return url
            case .wait:
                await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                    let waiting = state.withLock { state -> Bool in
                        guard state.downloading[hash] != nil else { return false }
                        state.downloading[hash]?.append(waiter)
                        return true
                    }
                    if !waiting { waiter.resume() }
                }
            case .fetch:
                break lookingUp
            }
        }
        defer { for waiter in state.withLock({ $0.downloading.removeValue(forKey: hash) ?? [] }) { waiter.resume() } }
        misses.add(1, ordering: .relaxed)
        ServiceMetrics.blobCache(result: "miss")
        let temporary = staging.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: temporary) }
        try await fetch(temporary)
        guard try await offload.run(.reads, { try SourceFile(temporary, followLinks: false).contentHash() }) == hash else {
            throw S3Error.damaged("The object for blob \(hash) does not hash to its name: it is damaged in the object store.")
        }
        return try adopt(temporary, as: hash)
    }

    /// Takes over the file at `source`, whose bytes hash to `hash` (a blob just uploaded from it).
    @discardableResult
    func adopt(_ source: URL, as hash: BlobHash) throws -> URL {
        let destination = path(of: hash)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        chmod(source.path, 0o400)
        guard rename(source.path, destination.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        VerifiedFiles.shared.remember(destination, holds: hash)
        var info = stat()
        let size = stat(destination.path, &info) == 0 ? Int(info.st_size) : 0
        state.withLock { state in
            state.total += size - (state.entries[hash]?.size ?? 0)
            state.entries[hash] = (size, Date())
            evict(&state)
        }
        return destination
    }

    /// Removes the copy of `hash` (its blob was removed from the store).
    func forget(_ hash: BlobHash) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: hash) else { return }
            state.total -= entry.size
            try? FileManager.default.removeItem(at: path(of: hash))
            VerifiedFiles.shared.forget(path(of: hash))
        }
    }

    /// Checks every copy here (``VerifiedFiles``: those unchanged since they were checked are not
    /// read again); the damaged ones are removed, and returned.
    func checkAll() async -> [BlobHash] {
        var damaged: [BlobHash] = []
        for hash in state.withLock({ Array($0.entries.keys) }) {
            guard let url = state.withLock({ lookUp(hash, in: &$0) }) else { continue }
            if await !isIntact(url, hash) { damaged.append(hash) }
        }
        return damaged
    }

    /// Bytes held now.
    var bytes: Int { state.withLock { $0.total } }

    private func lookUp(_ hash: BlobHash, in state: inout State) -> URL? {
        guard let entry = state.entries[hash] else { return nil }
        let url = path(of: hash)
        guard access(url.path, F_OK) == 0 else {
            state.entries[hash] = nil
            state.total -= entry.size
            return nil
        }
        state.entries[hash]?.used = Date()
        return url
    }

    /// Removes the least recently used copies not used in the last `minimumAge` until the rest fit.
    private func evict(_ state: inout State) {
        guard state.total > capacity else { return }
        let cutoff = Date().addingTimeInterval(-minimumAge)
        for (hash, entry) in state.entries.sorted(by: { $0.value.used < $1.value.used }) {
            guard state.total > capacity, entry.used < cutoff else { break }
            guard state.downloading[hash] == nil else { continue }
            try? FileManager.default.removeItem(at: path(of: hash))
            state.entries[hash] = nil
            state.total -= entry.size
            ServiceMetrics.blobCacheEvictions()
        }
    }
}
