import Foundation

/// A `manifest.tsv` of expected outcomes (Samples/ and the shared corpus share the format:
/// `file`, `expect` with `|`-separated outcomes, then free columns).
package struct ExpectationManifest: Sendable {
    package struct Entry: Sendable, CustomStringConvertible {
        package var file: String
        package var url: URL
        /// Acceptable outcomes: `ok`, `no_preview`, or error codes.
        package var expected: Set<String>
        package var note: String

        package var description: String { file }
    }

    package var entries: [Entry]

    /// Reads `manifest.tsv` in `folder`; files are looked up in `folder/files` when it exists, else in `folder`.
    package init(folder: URL) throws {
        let text = try String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        let filesFolder =
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("files").path)
            ? folder.appendingPathComponent("files") : folder
        entries = text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 2 else { return nil }
            return Entry(
                file: columns[0], url: filesFolder.appendingPathComponent(columns[0]),
                expected: Set(columns[1].split(separator: "|").map(String.init)),
                note: columns.last ?? "")
        }
    }

    /// The Samples manifest.
    package static func samples() throws -> ExpectationManifest { try ExpectationManifest(folder: Fixtures.samples) }

    /// The shared corpus manifest; nil when this run leaves the corpus out (``TestSkips``), an error
    /// when it is not beside the project.
    package static func corpus() throws -> ExpectationManifest? {
        if TestSkips.skips("corpus") { return nil }
        guard FileManager.default.fileExists(atPath: Fixtures.corpus.appendingPathComponent("manifest.tsv").path) else {
            throw MissingTestNeed("corpus", "the shared corpus is not at \(Fixtures.corpus.path)")
        }
        return try ExpectationManifest(folder: Fixtures.corpus)
    }
}

/// Outcomes only a renderer can produce; a file that detection accepts for preview must expect one.
package let renderOutcomes: Set<String> = ["ok", "corrupt", "encrypted", "too_many_pixels", "no_video_stream", "timeout"]

/// Judges what detection alone decided against an expected set. `outcome` is an error code,
/// `no_preview`, or `accepted` (passed on to a renderer, which decides the rest).
package func detectionOutcomeAgrees(_ outcome: String, with expected: Set<String>) -> Bool {
    outcome == "accepted" ? !expected.isDisjoint(with: renderOutcomes) : expected.contains(outcome)
}
