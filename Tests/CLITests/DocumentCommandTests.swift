import Foundation
import PreviewTestSupport
import Testing

/// `list`, `versions`, `restore` and `delete` on a store that `ingest` filled.
@Suite(.blocking) struct DocumentCommandTests {
    @Test func aDocumentsLifeFromTheCommandLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = ["--store", folder.url.appendingPathComponent("store").path]
        func run(_ arguments: [String]) throws -> DocPreviewProcess.Result { try DocPreviewProcess.run(arguments + store) }
        let first = try run(["ingest", Fixtures.sample("document-5-pages.pdf").path, "--owner", "ana", "--title", "Letter", "--json"])
        let id = try #require(first.json?["document_id"] as? String, "\(first.stderr)")
        _ = try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana", "--title", "Letter", "--json"])
        _ = try run(["ingest", Fixtures.sample("video-h264.mp4").path, "--owner", "ana", "--title", "film", "--json"])

        let listed = try run(["list", "--owner", "ana", "--sort", "title", "--limit", "1", "--json"])
        let documents = try #require(listed.json?["documents"] as? [[String: Any]])
        #expect(documents.map { $0["title"] as? String } == ["film"])
        let cursor = try #require(listed.json?["next_cursor"] as? String)
        let rest = try run(["list", "--owner", "ana", "--sort", "title", "--cursor", cursor, "--json"])
        let latest = (rest.json?["documents"] as? [[String: Any]])?.map { $0["version"] as? Int }
        #expect(latest == [2], "the letter's latest version")
        #expect(try run(["list", "--sort", "newest", "--cursor", cursor]).status == 2, "a cursor of another order is a usage error")

        let restored = try run(["restore", id, "--version", "1", "--json"])
        let restoredVersion = restored.json?["version"] as? Int
        #expect(restored.status == 0 && restoredVersion == 3, "\(restored.stderr)")
        let versions = try run(["versions", id])
        let numbers = versions.stdout.split(separator: "\n").map { String($0.prefix(2)) }
        #expect(numbers == ["v3", "v2", "v1"])

        let deleted = try run(["delete", id, "--json"])
        let deletedVersions = deleted.json?["deleted_versions"] as? [Int]
        #expect(deletedVersions == [1, 2, 3])
        let again = try run(["delete", id, "--json"])
        let code = (again.json?["error"] as? [String: Any])?["code"] as? String
        #expect(again.status == 2 && code == "not_found")
        let remaining = try run(["stats", "--json"]).json?["documents"] as? Int
        #expect(remaining == 1)
        _ = try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana", "--title", "tab\there", "--json"])
        let columns = try run(["list", "--owner", "ana", "--sort", "title"]).stdout.split(separator: "\n").map { $0.split(separator: "\t").count }
        #expect(columns == [7, 7], "columns are tab-separated, and a title's own tab is not a column")
        // The API's label rules hold for ingest too.
        let bell = try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana", "--title", "a\u{7}b", "--json"])
        #expect(bell.status == 2 && (bell.json?["error"] as? [String: Any])?["code"] as? String == "bad_request", "\(bell.stdout)")
    }

    /// `ingest --description --school`, `list --school --q` and `relabel` from the command line.
    @Test func descriptionsAndSchoolsFromTheCommandLine() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = ["--store", folder.url.appendingPathComponent("store").path]
        func run(_ arguments: [String]) throws -> DocPreviewProcess.Result { try DocPreviewProcess.run(arguments + store) }
        let letter = try run([
            "ingest", Fixtures.sample("document-5-pages.pdf").path, "--owner", "ana", "--title", "Letter",
            "--description", "From Coach Rivera", "--school", "North High", "--json"
        ])
        let id = try #require(letter.json?["document_id"] as? String, "\(letter.stderr)")
        _ = try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana", "--title", "Photo", "--json"])
        func titles(_ arguments: [String]) throws -> [String] {
            (try run(["list", "--json"] + arguments).json?["documents"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(try titles(["--school", "North High"]) == ["Letter"])
        #expect(try titles(["--q", "rivera"]) == ["Letter"])
        let relabelled = try run(["relabel", id, "--description", "Two seasons", "--school", "", "--json"])
        #expect(
            relabelled.status == 0 && relabelled.json?["description"] as? String == "Two seasons" && relabelled.json?["school"] == nil,
            "\(relabelled.stderr)")
        #expect(try titles(["--school", "North High"]).isEmpty && (try titles(["--q", "two seasons"])) == ["Letter"])
        #expect(try run(["relabel", id]).status == 2, "nothing to change is a usage error")
        let refused = try run(["relabel", id, "--school", "a\u{7}b", "--json"])
        #expect(refused.status == 2 && (refused.json?["error"] as? [String: Any])?["code"] as? String == "bad_request")
    }
}
