import Foundation
import PreviewTestSupport
import Testing

/// `info` (detection, validation and the renderer's probe) over every file of the shared corpus:
/// refusals carry a code from the file's expected set; files accepted for rendering expect a
/// renderer outcome.
@Suite(.blocking) struct CorpusDetectionTests {
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
        if let known = knownCorpusDisagreements[entry.file] {
            #expect(outcome == (known.outcome == "ok" ? "accepted" : known.outcome), "\(entry.file): \(known.reason)")
        } else {
            #expect(detectionOutcomeAgrees(outcome, with: entry.expected), "\(entry.file): got \(outcome), expected \(entry.expected.sorted())")
        }
    }
}
