import ArgumentParser
import CProcessControl
import PreviewCore

/// Ends this process with `timeout` when one file's job outlives its time limit. Poppler and
/// librsvg cannot be interrupted mid-page, so for single-file commands the process is the unit of
/// cancellation (batch and server isolate jobs in child processes instead). An alarm signal rather
/// than a timer thread: a one-file command starts no threads of its own.
final class JobWatchdog {
    /// Arms the watchdog for `seconds`; when it fires it prints the error (JSON when `json`) and exits 4.
    init(seconds: Double, json: Bool) {
        let error = PreviewError(.timeout, "Processing the file took longer than \(Int(seconds)) s.")
        // An error object is strings only: it always encodes.
        let text = json ? ((try? CommandReport.encode(ErrorEnvelope(error))) ?? "") + "\n" : "\(error.code): \(error.message)\n"
        _ = docpreview_watchdog_arm(seconds, text, json ? 1 : 2, ExitCode(error).rawValue)
    }

    deinit {
        docpreview_watchdog_disarm()
    }
}
