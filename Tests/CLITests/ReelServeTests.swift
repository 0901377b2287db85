import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewTestSupport
import Testing

/// A highlight reel uploaded to `serve`: its playback job indexes its plays (on the document, as
/// chapters, marked in its ladder), makes its teaser, and moves its poster to one of its plays
/// when that shows more than its opening.
@Suite(.blocking, .serialized) struct ReelServeTests {
    /// A highlight reel's plays come with its playback: on the document, as a WebVTT chapters
    /// track, and marked in the ladder's media playlists; its teaser (under 50 KB) is served beside them.
    @Test func aReelsPlaysAreListedAsChaptersAndMarkedInItsLadder() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("ladder.json")
        try Data(#"{"renditions": {"ladder_min_seconds": 5}}"#.utf8).write(to: config)
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 2, extra: ["--config", config.path], token: PlaybackServeTests.token)
        typealias Clip = HighlightReel.Clip
        let reel = HighlightReel([
            Clip(.pattern, seconds: 4), Clip(.field, seconds: 4), Clip(.photoPan, seconds: 4, join: .transition("fade", seconds: 0.6)),
            Clip(.otherField, seconds: 4)
        ])
        let file = folder.url.appendingPathComponent("reel.mp4")
        try reel.write(to: file)
        let uploaded = try server.upload(Data(contentsOf: file), query: "owner=ana&type=highlight_video&title=Reel&filename=reel.mp4")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        let document = try PlaybackServeTests.settled(server, id)

        let plays = try #require(document["plays"] as? [[String: Double]], "\(document)")
        let starts = plays.compactMap { $0["start"] }
        #expect(starts.count == reel.cuts.count + 1 && starts.first == 0, "\(plays)")
        #expect(zip(starts.dropFirst(), reel.cuts).allSatisfy { abs($0 - $1) <= 0.2 }, "\(starts) against \(reel.cuts)")
        #expect(plays.allSatisfy { ($0["start"]!...$0["end"]!).contains($0["poster"]!) })

        let chapters = try #require(document["chapters"] as? String)
        #expect(chapters == "/v1/documents/\(id)/trickplay/chapters.vtt")
        let (track, response) = try PlaybackServeTests.fetch(server.authorized(URLRequest(url: URL(string: server.base + chapters)!)))
        #expect(response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/vtt") == true)
        let cues = String(decoding: track, as: UTF8.self).components(separatedBy: "\n").filter { $0.contains(" --> ") }
        #expect(cues.count == plays.count && cues.first?.hasPrefix("00:00:00.000 --> ") == true, "\(cues)")

        let teaserPath = try #require(document["teaser"] as? String, "\(document)")
        let (teaser, teaserResponse) = try PlaybackServeTests.fetch(server.authorized(URLRequest(url: URL(string: server.base + teaserPath)!)))
        #expect(teaserResponse.value(forHTTPHeaderField: "Content-Type") == "video/mp4" && (1...50_000).contains(teaser.count), "\(teaser.count)")

        let (playlist, _) = try PlaybackServeTests.fetch(
            server.authorized(URLRequest(url: URL(string: server.base + "/v1/documents/\(id)/hls/360p.m3u8")!)))
        let lines = String(decoding: playlist, as: UTF8.self).components(separatedBy: "\n")
        let marks = lines.filter { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains(#"CLASS="com.docpreview.play""#) }
        #expect(marks.count == plays.count - 1, "\(lines)")
        let dated = try #require(lines.firstIndex { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:1970-01-01T00:00:00.000Z") }, "\(lines)")
        #expect(dated < lines.firstIndex { $0.hasPrefix("#EXTINF") } ?? 0)
    }

    /// A reel opening on a grey car park: its first thumbnail is the opening's frame; once its plays
    /// are indexed its poster is a later play's (the document says which, when and how well), and
    /// its previews are that frame, served immutable now that its jobs are done.
    @Test func aReelsPosterMovesToOneOfItsPlays() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, token: PlaybackServeTests.token)
        let reel = HighlightReel.carParkOpening
        let file = folder.url.appendingPathComponent("reel.mp4")
        try reel.write(to: file)
        let uploaded = try server.upload(Data(contentsOf: file), query: "owner=ana&type=highlight_video&title=Reel&filename=reel.mp4")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        let document = try PlaybackServeTests.settled(server, id)

        let play = try #require(document["poster_play"] as? Int, "\(document)")
        let seconds = try #require(document["frame_s"] as? Double)
        let plays = try #require(document["plays"] as? [[String: Double]])
        #expect(play >= 2 && (plays[play - 1]["start"]!...plays[play - 1]["end"]!).contains(seconds), "\(document)")
        #expect((document["poster_score"] as? Double ?? 0) > 0)

        let (preview, response) = try PlaybackServeTests.fetch(
            server.authorized(URLRequest(url: URL(string: server.base + "/v1/documents/\(id)/preview")!)))
        #expect(response.statusCode == 200 && response.value(forHTTPHeaderField: "Cache-Control")?.contains("immutable") == true)
        let served = folder.url.appendingPathComponent("served.jpg")
        try preview.write(to: served)
        let size = try MediaTools.ffprobeValue(served, ["-show_entries", "stream=width,height"]).replacingOccurrences(of: ",", with: ":")
        let expected = folder.url.appendingPathComponent("expected.png")
        try MediaTools.ffmpeg(["-ss", "\(seconds)", "-i", file.path, "-frames:v", "1", "-vf", "scale=\(size)", expected.path])
        #expect(try MediaTools.ssim(served, expected, luma: true) >= 0.9)
    }
}
