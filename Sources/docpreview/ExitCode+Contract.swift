import ArgumentParser
import PreviewCore

extension ExitCode {
    static let usage = ExitCode(2)
    static let refused = ExitCode(3)
    static let unreadable = ExitCode(4)

    /// The exit code for a failure, by its disposition (DESIGN §7).
    init(_ error: PreviewError) {
        switch error.code.disposition {
        case .refused: self = .refused
        case .unreadable: self = .unreadable
        case .request: self = .usage
        case .internal: self = .failure
        }
    }
}
