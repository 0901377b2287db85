import Foundation
import PreviewTestSupport
import Testing

/// Files where our outcome knowingly differs from the corpus manifest, with the reason.
/// The test still pins our outcome, so a change in behaviour is noticed and reviewed.
private let knownDisagreements: [String: (outcome: String, reason: String)] = [
    "255_pocs_pdf_zip_pe.pdf": ("accepted", "The stored file is a 196-byte PDF with no ZIP or PE inside (the note describes the full polyglot); "
        + "by its bytes it is a PDF without xref or %%EOF, which the renderer reports as corrupt."),
    "279_thumbor_image": ("accepted", "A plain JFIF JPEG without an extension; DESIGN §3 judges such files by their bytes alone, "
        + "as the corpus itself does for 226 (.noext) and 272/273 (no extension)."),
]

/// `info` over every file of the shared corpus: refusals decided by detection carry a code from
/// the file's expected set; files passed on for rendering expect a renderer outcome.
@Suite struct CorpusDetectionTests {
    static let entries = (try? ExpectationManifest.corpus())?.entries ?? []

    @Test func corpusIsPresent() throws {
        try #require(!Self.entries.isEmpty, "../shared/corpus/manifest.tsv not found beside the project")
        #expect(Self.entries.count >= 176)
    }

    @Test(arguments: entries)
    func detectionOutcome(entry: ExpectationManifest.Entry) throws {
        let result = try DocPreviewProcess.run(["info", "--json", "--", entry.url.path])
        let json = try #require(result.json, "\(entry.file): no JSON; stderr: \(result.stderr)")
        let verdict = try #require(json["verdict"] as? [String: Any])
        let code = (json["error"] as? [String: String])?["code"]
        let outcome = code ?? (verdict["preview"] as? String == "no_preview" ? "no_preview" : "accepted")
        #expect([0, 3, 4].contains(result.status), "\(entry.file): exit \(result.status)")
        #expect((code == nil) == (result.status == 0), "\(entry.file): exit \(result.status) with code \(code ?? "none")")
        if let known = knownDisagreements[entry.file] {
            #expect(outcome == known.outcome, "\(entry.file): \(known.reason)")
        } else {
            #expect(detectionOutcomeAgrees(outcome, with: entry.expected), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
        }
    }
}
