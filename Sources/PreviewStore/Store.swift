import Foundation
import Logging

/// A DocPreview store: blobs and their index (DESIGN §5). The embedded default is one folder:
/// `objects/` (content-addressed blobs), `tmp/` (writes in progress) and `index.sqlite`.
public struct Store: Sendable {
    public let blobs: any BlobStorage
    public let index: any DocumentIndex

    public init(blobs: any BlobStorage, index: any DocumentIndex) {
        self.blobs = blobs
        self.index = index
    }

    /// Opens or creates the embedded store at `root`.
    public init(root: URL) throws {
        self.init(blobs: try BlobStore(root: root), index: try SQLiteIndex(url: Self.sqliteIndex(in: root)))
    }

    /// Where the embedded index of the store at `root` lives.
    public static func sqliteIndex(in root: URL) -> URL { root.appendingPathComponent("index.sqlite") }

    /// The store location: `explicit`, else `$DOCPREVIEW_STORE`, else `./docpreview-store`.
    public static func location(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: explicit ?? environment["DOCPREVIEW_STORE"] ?? "docpreview-store")
    }
}

/// What `verify` found.
public struct VerifyReport: Sendable, Codable {
    public var blobsChecked = 0
    /// Blobs whose bytes no longer match their name.
    public var damaged: [String] = []
    /// Hashes the index refers to that have no blob on disk.
    public var missing: [String] = []

    public var isClean: Bool { damaged.isEmpty && missing.isEmpty }

    enum CodingKeys: String, CodingKey {
        case damaged, missing
        case blobsChecked = "blobs_checked"
    }
}

/// What `gc` removed (or, in a dry run, would remove).
public struct CollectReport: Sendable, Codable {
    public var blobs = 0
    public var bytes = 0
    public var temporaries = 0
    /// On-demand previews evicted to keep within the preview budget first.
    public var evictedPreviews = 0
    public var dryRun: Bool

    enum CodingKeys: String, CodingKey {
        case blobs, bytes, temporaries
        case evictedPreviews = "evicted_previews"
        case dryRun = "dry_run"
    }
}

extension Store {
    /// Re-hashes every blob and checks every index reference against the disk.
    public func verify() throws -> VerifyReport {
        var report = VerifyReport()
        let onDisk = try blobs.allBlobs()
        for blob in onDisk {
            report.blobsChecked += 1
            if try !blobs.verify(blob.hash) { report.damaged.append(blob.hash.hex) }
        }
        let present = Set(onDisk.map(\.hash))
        report.missing = try index.referencedBlobs().subtracting(present).map(\.hex).sorted()
        return report
    }

    /// Forgets on-demand previews (of `source`, or of any), least recently used first, until those
    /// left take at most `bytes`, and removes the blobs only they used.
    @discardableResult
    public func evictPreviews(source: BlobHash? = nil, downTo bytes: Int) throws -> PreviewEviction {
        let eviction = try index.evictPreviews(source: source, downTo: bytes)
        guard eviction.derivatives > 0 else { return eviction }
        try blobs.whileReferencing(exclusive: true) {
            for hash in try index.forgetBlobs(ifUnused: eviction.results) { try blobs.remove(hash) }
        }
        return eviction
    }

    /// Removes blobs nothing refers to and leftover temporaries, sparing anything younger than
    /// `grace` (a write may be in flight).
    public func collectGarbage(grace: TimeInterval, dryRun: Bool, logger: Logger) throws -> CollectReport {
        var report = CollectReport(dryRun: dryRun)
        let cutoff = Date().addingTimeInterval(-grace)
        // Listed before the lock (the walk is long); whatever a writer took since is referenced by
        // the time the lock is held, and a blob published since is younger than the cutoff.
        let candidates = try blobs.allBlobs().filter { $0.modified < cutoff }
        try blobs.whileReferencing(exclusive: true) {
            if !dryRun { _ = try index.forgetUnusedBlobs() }
            let referenced = try index.referencedBlobs()
            for blob in candidates where !referenced.contains(blob.hash) {
                report.blobs += 1
                report.bytes += blob.size
                logger.debug("unreferenced blob", metadata: ["preview.sha256": "\(blob.hash)", "preview.dry_run": "\(dryRun)"])
                if !dryRun { try blobs.remove(blob.hash) }
            }
        }
        for leftover in try blobs.leftoverTemporaries() where leftover.modified < cutoff {
            report.temporaries += 1
            if !dryRun { try? FileManager.default.removeItem(at: leftover.url) }
        }
        return report
    }
}
