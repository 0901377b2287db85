import Foundation
import PreviewCore
import PreviewDomain
import PreviewPipeline

/// What `recover` did.
package struct RecoveryReport: Sendable, Encodable {
    /// Documents made of originals the index had lost, each queued for its facts and previews.
    package var recovered: [RecoveredDocument] = []
    /// Blobs moved back from the quarantine first.
    package var unquarantined = 0
    /// Unreferenced blobs left alone: derivatives (made again from their sources), blobs the index
    /// still knows (deleted documents' ones, awaiting `gc`), orphans of writes never acknowledged
    /// (``UnreferencedBlob/isOrphan``, awaiting `gc`), and damaged ones (their bytes are gone).
    package var derivatives = 0
    package var deleted = 0
    package var orphans = 0
    package var damaged: [String] = []
    /// Resumable uploads set back to before a staged part found damaged or missing
    /// (``DocumentService/checkUploadParts(repair:)``): their clients send those bytes again.
    package var uploadsSetBack: [String] = []
}

/// One original made a document again.
package struct RecoveredDocument: Sendable, Encodable {
    package var documentID: String
    package var sha256: String
    package var kind: String
    package var title: String
}

extension DocumentService {
    /// Turns the originals on disk that the index has no row for back into documents, so that a
    /// lost index row never means a lost file: owner `recovered`, titled by the detected kind and
    /// the hash, queued so that a worker probes their facts and makes their previews again.
    /// Running it again finds nothing more to do.
    ///
    /// - Parameter includingQuarantine: first move what `gc` quarantined back into the store (its
    ///   originals then count as lost too, deleted documents' included).
    package func recover(includingQuarantine: Bool) async throws -> RecoveryReport {
        var report = RecoveryReport()
        if includingQuarantine {
            for blob in try await store.blobs.quarantined() {
                try await store.blobs.unquarantine(blob.hash)
                report.unquarantined += 1
            }
        }
        let (referenced, indexed) = try await store.references()
        for blob in try await store.unreferencedBlobs(try store.blobs.allBlobs().filter { !referenced.contains($0.hash) }, indexed: indexed) {
            guard let hash = BlobHash(hex: blob.sha256) else { continue }
            if blob.indexed {
                report.deleted += 1
            } else if blob.role == .derivative {
                report.derivatives += 1
            } else if blob.isOrphan {
                report.orphans += 1
            } else if try await !store.blobs.verify(hash) {
                report.damaged.append(blob.sha256)
            } else {
                report.recovered.append(try await recover(hash, size: blob.size))
            }
        }
        report.uploadsSetBack = try await checkUploadParts(repair: true)
        return report
    }

    private func recover(_ hash: BlobHash, size: Int) async throws -> RecoveredDocument {
        let file = try await store.blobs.localFile(for: hash)
        let kind = try await offload.run(.reads) { ContentDetector.detect(try ByteProbe(contentsOf: file)).kind }
        let short = String(hash.hex.prefix(12))
        let labels = DocumentLabels(owner: "recovered", title: "\(kind.rawValue)-\(short)", filename: "\(short).\(kind.extensions.first ?? "bin")")
        let record = Document(labels: labels, sha256: hash, kind: kind, size: size, hasRenderer: pipeline.renderers.renders(kind))
        let document = try await enqueue(record).document
        return RecoveredDocument(documentID: document.id, sha256: hash.hex, kind: kind.rawValue, title: document.title)
    }
}
