import Foundation
import PreviewOffice

/// The office installation as cache keys see it, read without starting it: its build id and the
/// size and time of its core library, which any upgrade changes.
enum OfficeInstallation {
    static let identity: String = {
        let program = Office.installation
        let build =
            (try? String(contentsOfFile: program + "/versionrc", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("buildid=") }?.dropFirst("buildid=".count) ?? "none"
        var info = stat()
        guard stat(program + "/libmergedlo.so", &info) == 0 else { return "LibreOffice not installed" }
        return "LibreOffice \(build) \(info.st_size)@\(info.st_mtim.tv_sec)"
    }()
}
