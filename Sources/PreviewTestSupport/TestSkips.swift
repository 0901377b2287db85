import Foundation

/// What a test run was told to leave out: `$DOCPREVIEW_TEST_SKIP`, a comma-separated list of needs
/// (`postgres`, `s3`, `corpus`, `hugepages`). A test whose need is missing fails with its reason
/// unless that need is named here: nothing is skipped silently.
package enum TestSkips {
    package static let named: Set<String> = Set(
        (ProcessInfo.processInfo.environment["DOCPREVIEW_TEST_SKIP"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })

    /// Whether tests that need `need` are to be left out of this run.
    package static func skips(_ need: String) -> Bool { named.contains(need) }

    /// The sentence a test whose need is missing fails with.
    package static func missing(_ need: String, _ reason: String) -> String {
        "\(reason); `scripts/test` provides it, or set DOCPREVIEW_TEST_SKIP=\(need) to leave these tests out"
    }
}

/// A need of a test that this machine does not meet.
package struct MissingTestNeed: Error, CustomStringConvertible {
    package let description: String

    package init(_ need: String, _ reason: String) {
        description = TestSkips.missing(need, reason)
    }
}
