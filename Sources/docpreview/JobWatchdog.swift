import ArgumentParser
import Dispatch
import Foundation
import PreviewCore

/// Ends this process with `timeout` when one file's job outlives its time limit. Poppler and
/// librsvg cannot be interrupted mid-page, so for single-file commands the process is the unit of
/// cancellation (batch and server isolate jobs in child processes instead).
final class JobWatchdog {
    private let timer: any DispatchSourceTimer

    /// Arms the watchdog for `seconds`; when it fires it prints the error (JSON when `json`) and exits 4.
    init(seconds: Double, json: Bool) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + seconds)
        timer.setEventHandler {
            let error = PreviewError(.timeout, "Processing the file took longer than \(Int(seconds)) s.")
            // An error object is strings only: it always encodes.
            let text = json ? ((try? CommandReport.encode(ErrorEnvelope(error))) ?? "") + "\n" : "\(error.code): \(error.message)\n"
            FileHandle(fileDescriptor: json ? 1 : 2).write(Data(text.utf8))
            _exit(ExitCode(error).rawValue)
        }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }
}
