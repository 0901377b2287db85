import Foundation
import Logging
import PreviewCore
import PreviewDomain

/// A DocPreview store: blobs and their index (DESIGN §5). The embedded default is one folder:
/// `objects/` (content-addressed blobs), `tmp/` (writes in progress) and `index.sqlite`.
public struct Store: Sendable {
    package let blobs: any BlobStorage
    public let index: any DocumentIndex

    package init(blobs: any BlobStorage, index: any DocumentIndex) {
        self.blobs = blobs
        self.index = index
    }

    /// Opens or creates the embedded store at `root`, its file work on `offload`'s lanes.
    package init(root: URL, offload: Offload) throws {
        self.init(blobs: try BlobStore(root: root, offload: offload), index: try SQLiteIndex(url: Self.sqliteIndex(in: root)))
    }

    /// Where the embedded index of the store at `root` lives.
    package static func sqliteIndex(in root: URL) -> URL { root.appendingPathComponent("index.sqlite") }

    /// The store location: `explicit`, else `$DOCPREVIEW_STORE`, else `./docpreview-store`.
    package static func location(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: explicit ?? environment["DOCPREVIEW_STORE"] ?? "docpreview-store")
    }
}

/// What `verify` found. Anything in it but `blobsChecked` is a problem (exit 1).
package struct VerifyReport: Sendable, Codable {
    /// Blobs found (and, when re-hashed, checked).
    package var blobsChecked = 0
    /// Blobs whose bytes no longer match their name.
    package var damaged: [String] = []
    /// Hashes the index refers to that have no blob on disk.
    package var missing: [String] = []
    /// Blobs nothing refers to: a deleted document's, awaiting `gc` (`indexed`), ones the index
    /// lost track of (for `recover`), orphans of writes never acknowledged (`pending`), or cache
    /// entries whose write a crash cut short.
    package var unreferenced: [UnreferencedBlob] = []
    /// Sources of derivative rows that have no blob on disk.
    package var derivativeSourcesMissing: [String] = []
    /// What the database's own consistency checks found.
    package var indexProblems: [String] = []
    /// Ladder playlists that name bytes their media does not have (`DocumentPipeline.verify`).
    package var ladderProblems: [String] = []
    /// Local copies of remote blobs found damaged, and removed (fetched again when next used): no
    /// problem of the store's, repaired as found.
    package var damagedCopies: [String] = []
    /// Staged parts of open resumable uploads whose bytes are not those kept (damaged, cut short,
    /// gone): `recover` sets their uploads back, so their clients send them again.
    package var uploadProblems: [String] = []

    /// Nothing is damaged, missing or lost. What a cut-short write leaves is listed but no problem,
    /// and `gc` removes it: a cache entry (``UnreferencedBlob/isCutShortCacheWrite``, made again
    /// when asked for) or an original whose document was never acknowledged (``UnreferencedBlob/isOrphan``).
    package var isClean: Bool {
        damaged.isEmpty && missing.isEmpty && unreferenced.allSatisfy { $0.isCutShortCacheWrite || $0.isOrphan }
            && derivativeSourcesMissing.isEmpty && indexProblems.isEmpty && ladderProblems.isEmpty && uploadProblems.isEmpty
    }

    enum CodingKeys: String, CodingKey {
        case damaged, missing, unreferenced
        case blobsChecked = "blobs_checked"
        case derivativeSourcesMissing = "derivative_sources_missing"
        case indexProblems = "index_problems"
        case ladderProblems = "ladder_problems"
        case damagedCopies = "damaged_copies"
        case uploadProblems = "upload_problems"
    }
}

/// A blob on disk that no document or live derivative refers to.
package struct UnreferencedBlob: Sendable, Codable, Equatable {
    package var sha256: String
    package var size: Int
    /// Stored as a document's original bytes, or as a derivative.
    package var role: BlobRole
    /// The index still has its row (a deleted document's blob awaiting `gc`); false when the index lost it.
    package var indexed: Bool
    /// Marked pending (``BlobStorage/markPending(_:)``): stored for a document whose row was never committed.
    package var pending = false

    /// A derivative the index never had a row for: what a crash between storing a cache entry and
    /// recording it leaves.
    package var isCutShortCacheWrite: Bool { role == .derivative && !indexed }

    /// An original stored for an upload or a link download that was then refused or cut short:
    /// nothing was acknowledged, so it is no loss (`recover` leaves it; `gc` collects it).
    package var isOrphan: Bool { role == .original && !indexed && pending }

    /// An original the index lost track of: `gc` refuses to run, `recover` makes it a document again.
    package var isLoss: Bool { role == .original && !indexed && !pending }
}

/// What `gc` removed (or, in a dry run, would remove).
package struct CollectReport: Sendable, Codable {
    /// Blobs moved into the quarantine, and their bytes.
    package var blobs = 0
    package var bytes = 0
    /// Quarantined blobs whose grace period was over, deleted.
    package var purged = 0
    package var temporaries = 0
    /// On-demand previews evicted to keep within the preview budget.
    package var evictedPreviews = 0
    /// Resumable uploads whose time ran out, and stray parts of them.
    package var uploads = UploadCollection()
    package var dryRun: Bool

    enum CodingKeys: String, CodingKey {
        case blobs, bytes, purged, temporaries, uploads
        case evictedPreviews = "evicted_previews"
        case dryRun = "dry_run"
    }
}

/// `gc` refused to remove anything: the store looks damaged, and removing would make a loss permanent.
package struct CollectRefusal: Error, Sendable, CustomStringConvertible {
    package var description: String
}

extension Store {
    /// Publishes `writer`'s bytes as an original (nil: they are stored already) and runs `commit`,
    /// which writes the rows that name them, under the shared reference lock. A blob new to the
    /// store is marked pending until `commit` returns, so a refused or interrupted commit leaves an
    /// orphan that `verify`, `gc` and `recover` tell apart from a loss (``BlobStorage/markPending(_:)``).
    /// A mark the clearing misses is cleared by `gc`: its blob is referenced.
    package func storeOriginal<T>(_ writer: BlobWriter?, commit: () async throws -> T) async throws -> T {
        try await blobs.whileReferencing(exclusive: false) {
            guard let writer else { return try await commit() }
            let hash = try writer.finish()
            let isNew = await !blobs.contains(hash)
            if isNew { try await blobs.markPending(hash) }
            _ = try await writer.publish(as: .original)
            let committed = try await commit()
            if isNew { try? await blobs.clearPending(hash) }
            return committed
        }
    }

    /// Re-hashes every blob (unless not `rehash`: then only their existence is checked), checks
    /// every index reference against the blobs, the index's own integrity, and lists blobs nothing refers to.
    package func verify(rehash: Bool = true) async throws -> VerifyReport {
        var report = VerifyReport()
        let onDisk = try await blobs.allBlobs()
        for blob in onDisk {
            report.blobsChecked += 1
            if rehash, try await !blobs.verify(blob.hash) { report.damaged.append(blob.hash.hex) }
        }
        if rehash { report.damagedCopies = await blobs.checkLocalCopies().map(\.hex).sorted() }
        let (referenced, indexed) = try await references()
        let sources = try await index.derivativeSources()
        report.indexProblems = try await index.integrityProblems()
        var kept = try await index.statistics(), recounted = try await index.recountStatistics(owner: nil)
        (kept.evictedPreviews, recounted.evictedPreviews) = (nil, nil)
        if kept != recounted { report.indexProblems.append("the kept statistics differ from a recount: \(kept) ≠ \(recounted)") }
        let present = Set(onDisk.map(\.hash))
        report.missing = referenced.subtracting(present).map(\.hex).sorted()
        report.derivativeSourcesMissing = sources.subtracting(present).map(\.hex).sorted()
        report.unreferenced = try await unreferencedBlobs(onDisk.filter { !referenced.contains($0.hash) }, indexed: indexed)
        return report
    }

    /// Each of `blobs` nothing refers to, with what it was stored as and whether it was pending.
    package func unreferencedBlobs(_ unreferenced: [(hash: BlobHash, size: Int, modified: Date)], indexed: Set<BlobHash>) async throws
        -> [UnreferencedBlob]
    {
        let pending = Set(try await blobs.pendingMarks().map(\.hash))
        var found: [UnreferencedBlob] = []
        for blob in unreferenced {
            found.append(
                UnreferencedBlob(
                    sha256: blob.hash.hex, size: blob.size, role: await blobs.role(of: blob.hash),
                    indexed: indexed.contains(blob.hash), pending: pending.contains(blob.hash)))
        }
        return found.sorted { $0.sha256 < $1.sha256 }
    }

    /// The blobs the index refers to and those it has a row for, read together under the exclusive
    /// reference lock: a write in flight has committed its row by then. A blob on disk in neither
    /// is one the index lost track of.
    package func references() async throws -> (referenced: Set<BlobHash>, indexed: Set<BlobHash>) {
        try await blobs.whileReferencing(exclusive: true) { (try await index.referencedBlobs(), try await index.indexedBlobs()) }
    }

    /// Forgets on-demand previews (of `source`, or of any), least recently used first, until those
    /// left take at most `bytes`, and removes the blobs only they used.
    @discardableResult
    package func evictPreviews(source: BlobHash? = nil, downTo bytes: Int) async throws -> PreviewEviction {
        let eviction = try await index.evictPreviews(source: source, downTo: bytes)
        guard eviction.derivatives > 0 else { return eviction }
        try await blobs.whileReferencing(exclusive: true) {
            for hash in try await index.forgetBlobs(ifUnused: eviction.results) { try await blobs.remove(hash) }
        }
        return eviction
    }

    /// Moves blobs nothing refers to into the quarantine and removes leftover temporaries, sparing
    /// anything younger than `grace` (a write may be in flight); deletes what the quarantine held
    /// for longer than `grace`.
    ///
    /// Unless `force`, it refuses (``CollectRefusal``) to act on a store whose index may have lost
    /// rows — one that fails its integrity check, or has no row for an original on disk — or when
    /// it would remove more than half of the stored bytes at once.
    package func collectGarbage(grace: TimeInterval, dryRun: Bool, force: Bool = false, logger: Logger) async throws -> CollectReport {
        var report = CollectReport(dryRun: dryRun)
        let cutoff = Date().addingTimeInterval(-grace)
        // Listed before the lock (the walk is long); whatever a writer took since is referenced by
        // the time the lock is held, and a blob published since is younger than the cutoff.
        let onDisk = try await blobs.allBlobs()
        let candidates = onDisk.filter { $0.modified < cutoff }
        try await blobs.whileReferencing(exclusive: true) {
            let problems = try await index.integrityProblems()
            if !problems.isEmpty, !force {
                throw CollectRefusal(
                    description: """
                        The index fails its integrity check (\(problems.prefix(3).joined(separator: "; "))); gc removes nothing while \
                        the index may have lost rows. Run `docpreview verify`; --force removes anyway.
                        """)
            }
            let referenced = try await index.referencedBlobs()
            let indexed = try await index.indexedBlobs()
            let unreferenced = candidates.filter { !referenced.contains($0.hash) }
            // Only a blob without a row can be a loss: the others' roles are not read (a HEAD each on S3).
            let lost = try await unreferencedBlobs(unreferenced.filter { !indexed.contains($0.hash) }, indexed: indexed).filter(\.isLoss)
            if !lost.isEmpty, !force {
                throw CollectRefusal(
                    description: """
                        The index has no row for \(lost.count) original\(lost.count == 1 ? "" : "s") on disk \
                        (\(lost.reduce(0) { $0 + $1.size }) bytes) that no refused write explains: it lost track of documents. \
                        Run `docpreview recover` to make them documents again; --force removes them anyway.
                        """)
            }
            let bytes = unreferenced.reduce(0) { $0 + $1.size }
            if bytes * 2 > onDisk.reduce(0, { $0 + $1.size }), !force {
                throw CollectRefusal(
                    description: """
                        gc would remove \(unreferenced.count) blobs, more than half of the stored bytes (\(bytes)), at once; \
                        run `docpreview verify` to see them; --force removes them.
                        """)
            }
            report.blobs = unreferenced.count
            report.bytes = bytes
            guard !dryRun else { return }
            try await index.forgetDeadDerivatives()
            for blob in unreferenced {
                logger.debug("unreferenced blob quarantined", metadata: ["preview.sha256": "\(blob.hash)"])
                try await blobs.quarantine(blob.hash)
            }
            // Rows go only once their blobs are in the quarantine: a gc cut short leaves deleted
            // documents' rows beside blobs that are either still stored (collected next time) or
            // quarantined (their rows forgotten here next time), never a stored blob without its row
            // that `recover` would make a document again.
            _ = try await index.forgetBlobs(ifUnused: try blobs.quarantined().map(\.hash))
            // A mark goes once its blob is referenced (a write whose clearing was missed) or, past
            // the grace period, gone (collected above, or never published).
            for mark in try await blobs.pendingMarks() {
                let gone = mark.modified < cutoff ? !(await blobs.contains(mark.hash)) : false
                if referenced.contains(mark.hash) || gone { try await blobs.clearPending(mark.hash) }
            }
        }
        if dryRun {
            report.purged = try await blobs.quarantined().filter { $0.modified < cutoff }.count
        } else {
            report.purged = try await blobs.purgeQuarantine(before: cutoff).blobs
        }
        for leftover in try blobs.leftoverTemporaries() where leftover.modified < cutoff {
            report.temporaries += 1
            if !dryRun { try? FileManager.default.removeItem(at: leftover.url) }
        }
        return report
    }
}
