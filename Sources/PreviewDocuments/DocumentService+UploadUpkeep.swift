import Foundation
import PreviewCore
import PreviewStore

/// The upkeep of resumable uploads, apart from their requests: finishing those whose bytes all
/// arrived when a server starts, checking staged parts (`verify`), collecting expired uploads and
/// stray parts (`gc`), and their figures.
extension DocumentService {
    /// Finishes every open upload whose bytes all arrived (``finishIfReceived(_:front:)``), as a
    /// server does when it starts; an upload that cannot be finished now is left for its next
    /// `HEAD`. Returns how many became documents.
    package func finishReceivedUploads() async throws -> Int {
        guard let resumable else { return 0 }
        var finished = 0
        for session in try await resumable.sessions.fullyReceived(limit: 1_000) {
            if (try? await finishIfReceived(session.id, front: session.front))?.status == .complete { finished += 1 }
        }
        return finished
    }

    /// Checks the staged parts of every open upload against the hashes they were kept with
    /// (`verify`); each damaged or missing one is described. With `repair`, its upload is set back
    /// to where the part started, as putting it together would.
    package func checkUploadParts(repair: Bool) async throws -> [String] {
        guard let resumable else { return [] }
        var problems: [String] = []
        for (session, parts) in try await resumable.sessions.openParts() {
            for part in parts {
                do {
                    try await resumable.staging.check(part)
                } catch let damaged as DamagedUploadPart {
                    problems.append("upload \(session): \(damaged)" + (repair ? "; the upload resumes from offset \(part.start)" : ""))
                    if repair { _ = try await rollBack(session, to: part.start, resumable) }
                    break
                }
            }
        }
        return problems
    }

    /// Removes uploads whose time ran out with their bytes, and kept parts that no upload lists and
    /// that are older than `grace` (a request that kept a part, then died before the index counted
    /// it). With `dryRun`, only counts them.
    package func collectUploads(grace: TimeInterval, dryRun: Bool = false) async throws -> UploadCollection {
        guard let resumable else { return UploadCollection() }
        var collected = UploadCollection()
        var seen = Set<String>()
        while true {
            let expired = try await resumable.sessions.expired(now: clock.unixSeconds, limit: 100).filter { !seen.contains($0.id) }
            for session in expired {
                seen.insert(session.id)
                collected.uploads += 1
                if dryRun { continue }
                let parts = try await resumable.sessions.forget(session.id)
                await resumable.staging.remove(parts, of: session.id)
            }
            if expired.isEmpty { break }
        }
        // Parts first: an upload a listed part belongs to existed when the index is read after.
        let kept = try await resumable.staging.kept()
        let listed = try await resumable.sessions.partNames()
        let cutoff = clock.now.addingTimeInterval(-grace)
        // A part an open upload does not list yet may be one a request kept a moment ago: its
        // upload's end (expiry, cancel, completion) or the next gc after it takes it.
        let open = try await resumable.sessions.openIDs()
        let strays = kept.filter {
            !listed.contains($0.name) && $0.modified < cutoff && !open.contains(String($0.name.split(separator: "/").first ?? ""))
        }
        collected.strayParts = strays.count
        if !dryRun {
            // Copies and half-received files on this host outlive no upload; a minute at least, as
            // an upload created since `open` was read may have begun receiving.
            await resumable.staging.removeLocalLeftovers(before: clock.now.addingTimeInterval(-max(grace, 60)), keeping: open)
            for (session, parts) in Dictionary(grouping: strays, by: { String($0.name.split(separator: "/").first ?? "") }) {
                await resumable.staging.remove(parts.map { UploadPart(start: 0, length: 0, name: $0.name) }, of: session)
            }
        }
        return collected
    }

    /// The names of every staged part, counted or not.
    package func stagedUploadParts() async throws -> [String] {
        try await resumableUploads().staging.kept().map(\.name)
    }

    /// The uploads open now and the bytes they staged.
    package func uploadFigures() async throws -> (open: Int, stagedBytes: Int) {
        guard let resumable else { return (0, 0) }
        return try await resumable.sessions.figures()
    }
}
