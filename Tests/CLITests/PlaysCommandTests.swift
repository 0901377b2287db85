import Foundation
import PreviewTestSupport
import Testing

/// `docpreview plays` end to end: the plays of a reel, each with its poster's time and score, the
/// chapters track, and the video's poster as a stored document gets it.
@Suite(.blocking) struct PlaysCommandTests {
    @Test func printsThePlaysTheirChaptersAndThePoster() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let reel = HighlightReel.carParkOpening
        let file = folder.url.appendingPathComponent("reel.mp4")
        try reel.write(to: file)
        let chapters = folder.url.appendingPathComponent("chapters.vtt")
        let result = try DocPreviewProcess.run(["plays", file.path, "-o", chapters.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        let plays = try #require(json["plays"] as? [[String: Double]], "\(json)")
        #expect(plays.count == 3 && plays.allSatisfy { ($0["score"] ?? -1) >= 0 && ($0["score"] ?? 2) <= 1 }, "\(plays)")
        let poster = try #require(json["poster"] as? [String: Double], "\(json)")
        #expect((poster["play"] ?? 0) >= 2, "\(json)")
        let track = try String(contentsOf: chapters, encoding: .utf8)
        #expect(track.hasPrefix("WEBVTT") && track.components(separatedBy: " --> ").count == 4, "\(track)")

        let human = try DocPreviewProcess.run(["plays", file.path])
        #expect(human.status == 0 && human.stdout.contains("poster: play \(Int(poster["play"] ?? 0))'s at"), "\(human.stdout)")
    }
}
