import Foundation
import PreviewCore
import PreviewDomain
import PreviewStore

/// Remembered failures: a render or conversion that timed out or crashed its renderer is not tried
/// again on the same bytes until someone asks for it deliberately (`jobs retry`).
extension DocumentPipeline {
    /// Runs the render or conversion keyed `key`, unless it timed out or crashed its renderer before:
    /// then its remembered failure is thrown at once (until `jobs retry` forgets it). A new timeout or
    /// crash is remembered, so the same bytes cannot cost a renderer its whole budget twice.
    func remembering<T>(key: String, source: BlobHash, _ work: () async throws(PreviewError) -> T) async throws(PreviewError) -> T {
        do {
            if let remembered = try await store.index.failure(key: key) { throw remembered.error }
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError.storing(error, "The preview index could not be read.")
        }
        do throws(PreviewError) {
            return try await work()
        } catch  where Self.isCostly(error) {
            do {
                try await store.index.recordFailure(RenderFailure(key: key, sourceSha256: source, error: error))
            } catch let recording {
                logger.error("could not remember a failed render", metadata: ["preview.error": "\(recording)"])
            }
            throw error
        }
    }

    /// Failures that cost a renderer its whole budget (a timeout) or its life (a crash, reported with
    /// its signal): the same request on the same bytes would cost that again. A child killed from
    /// outside (SIGKILL, SIGTERM: the OOM killer, an operator) says nothing about the file.
    static func isCostly(_ error: PreviewError) -> Bool {
        if error.code == .timeout { return true }
        guard error.code == .corrupt, let detail = error.detail, detail.hasPrefix("signal "), let signal = Int32(detail.dropFirst(7)) else {
            return false
        }
        return signal != SIGKILL && signal != SIGTERM
    }
}
