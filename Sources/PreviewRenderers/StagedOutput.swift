import Foundation
import PreviewCore
import PreviewFFmpeg

/// A file made beside its destination under a staged name and moved there only when complete: a
/// crash, a kill or a failure leaves nothing at the destination, and the staged file never
/// outlives the call.
enum StagedOutput {
    /// Runs `make` on the staged path, telling FFmpeg's failures by `mapping` (``PreviewError``s
    /// pass as they are), then moves the file to `output`; returns what `make` gave and the size.
    static func make<T>(
        _ output: String, _ what: String, mapping: (FFmpegError) -> PreviewError, _ make: (String) throws -> T
    ) throws(PreviewError) -> (made: T, size: Int) {
        let staged = output + ".partial-\(UUID().uuidString)"
        defer { unlink(staged) }
        let made: T
        do {
            made = try make(staged)
        } catch let error as PreviewError {
            throw error
        } catch let error as FFmpegError {
            throw mapping(error)
        } catch {
            throw PreviewError(.internal, "The \(what) could not be made.", detail: "\(error)")
        }
        guard rename(staged, output) == 0 else {
            throw PreviewError(.internal, "The \(what) could not be moved to \(output).", detail: String(cString: strerror(errno)))
        }
        return (made, (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0)
    }
}
