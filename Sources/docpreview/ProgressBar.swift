import Foundation
import PreviewPipeline
import Synchronization

/// A one-line progress bar on stderr with counts, files/s and ETA; silent unless stderr is a terminal.
final class ProgressBar: Sendable {
    private let enabled = isatty(STDERR_FILENO) == 1
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)

    func update(_ progress: BatchProgress) {
        guard enabled else { return }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last -> Bool in
            if let last, last.duration(to: now) < .milliseconds(100), progress.done < progress.total { return false }
            last = now
            return true
        }
        guard due else { return }
        let width = 30
        let filled = progress.total == 0 ? width : width * progress.done / progress.total
        let eta = progress.etaSeconds.map { String(format: "ETA %.0fs", $0) } ?? "ETA --"
        let line = String(
            format: "\r[%@%@] %d/%d  %.1f files/s  %@ ", String(repeating: "#", count: filled),
            String(repeating: ".", count: width - filled), progress.done, progress.total, progress.filesPerSecond, eta)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        if enabled { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
