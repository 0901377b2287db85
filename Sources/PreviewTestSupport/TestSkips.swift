import Foundation

/// What a test run was told to leave out: `$DOCPREVIEW_TEST_SKIP`, a comma-separated list of needs
/// (`postgres`, `s3`, `corpus`, `hugepages`). A test whose need is missing fails with its reason
/// unless that need is named here: nothing is skipped silently.
public enum TestSkips {
    public static let named: Set<String> = Set(
        (ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_SKIP"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })

    /// Whether tests that need `need` are to be left out of this run.
    public static func skips(_ need: String) -> Bool { named.contains(need) }

    /// The sentence a test whose need is missing fails with.
    public static func missing(_ need: String, _ reason: String) -> String {
        "\(reason); `scripts/test` provides it, or set DOCPREVIEW_TEST_SKIP=\(need) to leave these tests out"
    }
}

/// A need of a test that this machine does not meet.
public struct MissingTestNeed: Error, CustomStringConvertible {
    public let description: String

    public init(_ need: String, _ reason: String) {
        description = TestSkips.missing(need, reason)
    }
}
