import Foundation
import PreviewTestSupport
import Testing

/// `verify`, `gc` and `recover` on a store whose index lost its write-ahead log.
@Suite struct StoreCommandTests {
    @Test func aLostWriteAheadLogIsReportedRefusedAndRecovered() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let root = folder.url.appendingPathComponent("store")
        let store = ["--store", root.path]
        func run(_ arguments: [String]) throws -> DocPreviewProcess.Result { try DocPreviewProcess.run(arguments + store) }
        let index = root.appendingPathComponent("index.sqlite")
        #expect(try run(["ingest", Fixtures.sample("image.webp").path, "--owner", "ana"]).status == 0)
        // The index as the last checkpoint left it; what follows lives in the log until the next one.
        let checkpointed = try Data(contentsOf: index)
        var lost: [String] = []
        for sample in ["document-5-pages.pdf", "video-h264.mp4"] {
            let ingested = try run(["ingest", Fixtures.sample(sample).path, "--owner", "ana", "--json"])
            lost.append(try #require(ingested.json?["sha256"] as? String, "\(ingested.stderr)"))
        }
        // A crash, and the log is cut: SQLite opens the checkpointed state without a word.
        try checkpointed.write(to: index)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index.path + suffix) }
        #expect(try run(["list", "--json"]).json?["documents"].map { ($0 as? [Any])?.count } == 1)

        let verify = try run(["verify", "--json"])
        #expect(verify.status == 1, "\(verify.stdout)")
        let unreferenced = try #require(verify.json?["unreferenced"] as? [[String: Any]])
        let lostOriginals = unreferenced.filter { $0["role"] as? String == "original" && $0["indexed"] as? Bool == false }
        #expect(Set(lostOriginals.compactMap { $0["sha256"] as? String }) == Set(lost))
        #expect(try run(["verify"]).stdout.contains("docpreview recover"), "the human report says what to do")

        for dryRun in [["--dry-run"], []] {
            let gc = try run(["gc", "--grace", "0"] + dryRun)
            #expect(gc.status == 1 && gc.stderr.contains("no row for 2 originals"), "\(gc.stderr)")
        }
        #expect(lost.allSatisfy { hash in
            FileManager.default.fileExists(atPath: root.appendingPathComponent("objects/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)").path)
        })

        let recovered = try run(["recover", "--json"])
        let documents = try #require(recovered.json?["recovered"] as? [[String: Any]], "\(recovered.stderr)")
        #expect(Set(documents.compactMap { $0["sha256"] as? String }) == Set(lost))
        let listed = try run(["list", "--owner", "recovered", "--json"]).json?["documents"] as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["kind"] as? String } ?? []) == ["pdf", "mp4"])
        let gc = try run(["gc", "--grace", "0", "--json"])
        #expect(gc.status == 0, "with every original a document again, gc takes only the unreferenced thumbnails: \(gc.stderr)")
    }
}
