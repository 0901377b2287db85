import Foundation
import PreviewRenderers
import PreviewStore

extension DocumentPipeline {
    /// ``Store/verify(rehash:)``, and every kept ladder's playlists (media and I-frame) against the
    /// size of their media: a rung whose playlist names bytes its media does not have (a ladder
    /// recorded half written, as stores from before issue 43 may hold) is a problem.
    package func verify(rehash: Bool) async throws -> VerifyReport {
        var report = try await store.verify(rehash: rehash)
        for row in try await store.index.derivatives(parameters: PlaybackManifest.fileName) {
            // An unreadable manifest or playlist is reported already (damaged or missing).
            guard let bytes = try? await store.blobs.read(row.resultSha256),
                let manifest = try? JSONDecoder().decode(PlaybackManifest.self, from: Data(bytes)),
                let ladder = manifest.ladder
            else { continue }
            for rung in ladder.rungs {
                for playlist in rung.playlists {
                    guard let playlistHash = ladder.files[playlist], let mediaHash = ladder.files[rung.media] else {
                        report.ladderProblems.append("video \(row.sourceSha256.hex): its ladder has no \(playlist) or \(rung.media)")
                        continue
                    }
                    guard let text = try? await store.blobs.read(playlistHash) else { continue }
                    let size = try await store.index.blobSize(mediaHash) ?? 0
                    if let mismatch = VideoLadder.mismatch(playlist: String(decoding: text, as: UTF8.self), mediaSize: size) {
                        report.ladderProblems.append("video \(row.sourceSha256.hex): \(playlist): \(mismatch)")
                    }
                }
            }
        }
        return report
    }
}
