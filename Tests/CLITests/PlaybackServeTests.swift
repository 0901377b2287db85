import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import PreviewBackendTestSupport
import PreviewTestSupport
import Testing

/// A video uploaded to `serve` gets its playback job after its thumbnail: a rendition when the
/// players need one, and scrubbing thumbnails, made in the renderer children, stored as
/// derivatives, listed on the document and served with byte ranges.
@Suite(.blocking, .serialized) struct PlaybackServeTests {
    /// 6 s of a moving pattern and a tone, encoded as `encode` says.
    static func video(_ name: String, _ encode: [String], in folder: TemporaryFolder) throws -> Data {
        let file = folder.url.appendingPathComponent(name)
        try MediaTools.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=6", "-f", "lavfi", "-i", "sine=duration=6"]
                + encode + [file.path])
        return try Data(contentsOf: file)
    }

    /// A token for servers that need one (random enough for `serve` to accept it).
    static let token = "T" + UUID().uuidString.replacingOccurrences(of: "-", with: "")

    /// The document once its playback has settled (a rendition ready or failed, thumbnails listed),
    /// or for a document that is no video, once its job is done.
    static func settled(_ server: ServerProcess, _ id: String, needsPlayback: Bool = true) throws -> [String: Any] {
        try waitFor("playback of \(id) to settle", timeout: .seconds(300), interval: .milliseconds(100)) {
            let json = try server.get("/v1/documents/\(id)").json ?? [:]
            let renditions = json["renditions"] as? [[String: Any]] ?? []
            if !needsPlayback, json["status"] as? String == "done" { return json }
            if json["trickplay"] is String, renditions.allSatisfy({ $0["status"] as? String != "pending" }) { return json }
            return nil
        }
    }

    /// A ladder made while the disk is full is never recorded half written: each attempt on the full
    /// disk is refused (`storage_full`, counted; with the index on that disk too, the outcome's
    /// recording is what is refused, and tried again), and once there is room the job makes it whole,
    /// without waiting out its lease; `verify` then finds its playlists and media in agreement.
    @Test(arguments: TestBackend.available) func aLadderOnAFullDiskIsMadeWholeOnceThereIsRoom(backend: TestBackend) async throws {
        let disk = try SmallDisk.mount(megabytes: 96)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("ladder.json")
        try Data(#"{"renditions": {"ladder_min_seconds": 5}}"#.utf8).write(to: config)
        let store = disk.url.appendingPathComponent("store").path
        let database = try await backend.freshDatabase().map { ["--database", $0] } ?? []
        let server = try ServerProcess(store: store, workers: 1, extra: ["--config", config.path] + database)
        let file = folder.url.appendingPathComponent("clip.avi")
        try MediaTools.aviClip(file, size: "1280x720", seconds: 6)
        let id = try #require(
            try server.upload(Data(contentsOf: file), query: "owner=ana&title=Clip&filename=clip.avi").json?["document_id"] as? String)
        disk.fill()
        // Tried on the full disk at least twice (the second try is where a truncated ladder was once recorded).
        // Each try encodes the ladder first: on a machine whose every core is busy, two take minutes.
        try waitUntil("two attempts refused by the full disk", timeout: .seconds(600)) {
            let (text, _) = try Self.fetch(URLRequest(url: URL(string: server.base + "/metrics")!))
            let line = String(decoding: text, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("docpreview_store_faults_total{fault=\"storage_full\",place=\"worker\"}") }
            return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { $0 >= 2 } ?? false
        }
        // No "no ladder yet" check here: the server's own cleanup (a refused job's temporary files) can
        // free enough for a later attempt to make the ladder whole while the filler stays; whole is
        // what matters, and `verify` below checks every playlist against its media.
        disk.free()
        let document = try Self.settled(server, id)
        #expect(document["hls"] is String, "made whole once there is room: \(document)")
        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
        let verify = try DocPreviewProcess.run(["verify", "--store", store, "--json"] + database)
        #expect(verify.status == 0 && (verify.json?["ladder_problems"] as? [String])?.isEmpty == true, "\(verify.stdout)")
    }

    @Test func anAVIGetsARenditionAndThumbnails() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2)
        let avi = try Self.video("clip.avi", ["-c:v", "mpeg4", "-c:a", "libmp3lame"], in: folder)
        let uploaded = try server.upload(avi, query: "owner=ana&type=highlight_video&title=Clip&filename=clip.avi")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        let document = try Self.settled(server, id)
        #expect(document["playback"] as? String == "transcode")
        let rendition = try #require((document["renditions"] as? [[String: Any]])?.first)
        #expect(rendition["status"] as? String == "ready" && rendition["name"] as? String == "mp4" && rendition["mime"] as? String == "video/mp4")
        #expect((rendition["codecs"] as? String)?.hasPrefix("avc1.64") == true && rendition["height"] as? Int == 360)
        #expect((rendition["bitrate"] as? Int ?? 0) > 0 && (rendition["size"] as? Int ?? 0) > 0)
        #expect(document["hls"] is NSNull)

        // Served like an original: ranges, HEAD, ETag, nosniff.
        let url = try #require(rendition["url"] as? String)
        var ranged = URLRequest(url: URL(string: server.base + url)!)
        ranged.setValue("bytes=0-99", forHTTPHeaderField: "Range")
        let (partial, response) = try Self.fetch(ranged)
        #expect(response.statusCode == 206 && partial.count == 100)
        #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 0-99/\(rendition["size"] as? Int ?? 0)")
        #expect(response.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff" && response.value(forHTTPHeaderField: "ETag") != nil)
        let (whole, _) = try Self.fetch(URLRequest(url: URL(string: server.base + url)!))
        let file = folder.url.appendingPathComponent("rendition.mp4")
        try whole.write(to: file)
        let probe = try MediaTools.probe(file)
        #expect(probe.video?.codec_name == "h264" && probe.audio?.codec_name == "mp3" && abs((probe.durationSeconds ?? 0) - 6) < 0.1)

        // The thumbnails track names its sheets relative to itself, and they are there.
        let trackURL = try #require(document["trickplay"] as? String)
        let (track, trackResponse) = try Self.fetch(URLRequest(url: URL(string: server.base + trackURL)!))
        #expect(trackResponse.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/vtt") == true)
        let text = String(decoding: track, as: UTF8.self)
        #expect(text.hasPrefix("WEBVTT") && text.contains("sprite-0.jpg#xywh=0,0,240,136"))
        let sheetURL = URL(string: server.base + trackURL)!.deletingLastPathComponent().appendingPathComponent("sprite-0.jpg")
        let (sheet, sheetResponse) = try Self.fetch(URLRequest(url: sheetURL))
        #expect(sheetResponse.statusCode == 200 && sheet.starts(with: [0xFF, 0xD8]))
        #expect(try server.get("/v1/documents/\(id)/renditions/hls").status == 404)

        // The viewer plays the rendition (the original after it) and shows the filmstrip, each frame a
        // link that starts the video there.
        let (page, _) = try Self.fetch(URLRequest(url: URL(string: server.base + "/ui/documents/\(id)")!))
        let html = String(decoding: page, as: UTF8.self)
        #expect(html.contains("<source src=\"/v1/documents/\(id)/renditions/mp4\" type=\"video/mp4; codecs=&quot;avc1.64"))
        #expect(html.contains("<source src=\"/v1/documents/\(id)/content\""))
        #expect(html.contains("class=\"filmstrip\"") && html.contains("href=\"/v1/documents/\(id)/renditions/mp4#t=5\""))
    }

    /// An H.264 MP4 plays as it is: its rendition is its streams copied into a fresh MP4, which
    /// carries none of the original's metadata (here a phone's location), so a page can play it
    /// without handing out the original.
    @Test func aPlayableVideosRenditionCopiesItsStreamsWithoutItsMetadata() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 1)
        let location = "+48.8584+002.2945/"
        let original = try Self.video(
            "phone.mp4",
            [
                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-metadata", "location=\(location)",
                "-movflags", "use_metadata_tags"
            ], in: folder)
        #expect(original.range(of: Data(location.utf8)) != nil, "the test's original carries its location")
        let uploaded = try server.upload(original, query: "owner=ana&title=Direct&filename=phone.mp4")
        let id = try #require(uploaded.json?["document_id"] as? String)
        let document = try Self.settled(server, id)
        #expect(document["playback"] as? String == "direct")
        #expect(document["status"] as? String == "done" && document["preview_status"] as? String == "ready")
        let rendition = try #require((document["renditions"] as? [[String: Any]])?.first)
        #expect(rendition["status"] as? String == "ready" && rendition["height"] as? Int == 360, "\(rendition)")
        let (copy, response) = try Self.fetch(URLRequest(url: URL(string: server.base + (rendition["url"] as? String ?? ""))!))
        #expect(response.statusCode == 200 && copy.count > original.count / 2)
        #expect(copy.range(of: Data(location.utf8)) == nil, "the location stays with the original")
    }

    /// A video long enough for a ladder (the threshold lowered to 5 s here) gets one beside its
    /// rendition: a master over 360p and 720p rungs, each a playlist over byte ranges of one
    /// fragmented MP4, served with ranges; the viewer offers the ladder before the rendition. An
    /// app hands a player the master's signed URL: with no token, a player reading it over HTTP
    /// (ffmpeg's HLS demuxer) plays every rung whole, each playlist naming its files by signed URLs.
    @Test func aLongVideoGetsALadderThatPlaysOverHTTP() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("ladder.json")
        try Data(#"{"renditions": {"ladder_min_seconds": 5}}"#.utf8).write(to: config)
        let keys = folder.url.appendingPathComponent("signing-keys")
        try Data(DocPreviewProcess.run(["signing-key"]).stdout.utf8).write(to: keys)
        let server = try ServerProcess(
            store: folder.url.appendingPathComponent("store").path, workers: 2,
            extra: ["--config", config.path, "--signing-key-file", keys.path], token: Self.token)
        let file = folder.url.appendingPathComponent("clip.avi")
        try MediaTools.aviClip(file, size: "1280x720", seconds: 6)
        let uploaded = try server.upload(Data(contentsOf: file), query: "owner=ana&type=highlight_video&title=Clip&filename=clip.avi")
        let id = try #require(uploaded.json?["document_id"] as? String, "\(uploaded)")
        let document = try Self.settled(server, id)
        #expect((document["renditions"] as? [[String: Any]])?.first?["status"] as? String == "ready")
        let master = try #require(document["hls"] as? String, "\(document)")
        #expect(master == "/v1/documents/\(id)/hls/master.m3u8")

        let (playlist, response) = try Self.fetch(server.authorized(URLRequest(url: URL(string: server.base + master)!)))
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/vnd.apple.mpegurl")
        let text = String(decoding: playlist, as: UTF8.self)
        #expect(
            text.contains("RESOLUTION=640x360,") && text.contains("\n360p.m3u8\n") && text.contains("RESOLUTION=1280x720,")
                && text.contains("\n720p.m3u8\n"), "\(text)")
        var ranged = server.authorized(URLRequest(url: URL(string: server.base + "/v1/documents/\(id)/hls/360p.mp4")!))
        ranged.setValue("bytes=0-99", forHTTPHeaderField: "Range")
        let (head, rangeResponse) = try Self.fetch(ranged)
        #expect(rangeResponse.statusCode == 206 && head.count == 100 && head[4..<8] == Data("ftyp".utf8))
        #expect(try server.get("/v1/documents/\(id)/hls/1080p.m3u8").status == 404)

        // The app's signed URLs: the master needs no token, and names its rungs by signed URLs.
        var ask = server.authorized(URLRequest(url: URL(string: server.base + "/v1/documents/\(id)/signed-urls")!))
        ask.httpMethod = "POST"
        let links = try #require(try JSONSerialization.jsonObject(with: Self.fetch(ask).0) as? [String: Any])
        let signedMaster = try #require(links["hls"] as? String, "\(links)")
        #expect(try Self.fetch(URLRequest(url: URL(string: server.base + master)!)).1.statusCode == 401, "unsigned, without the token")
        let (signedText, _) = try Self.fetch(URLRequest(url: URL(string: server.base + signedMaster)!))
        let references = String(decoding: signedText, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(references.count == 2 && references.allSatisfy { $0.hasPrefix("/v1/documents/\(id)/hls/") && $0.contains("&sig=") }, "\(references)")
        // Each rung's I-frame playlist too (its URI attribute), which names its media by a signed URL.
        let iFrames = String(decoding: signedText, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }
        #expect(iFrames.count == 2, "\(String(decoding: signedText, as: UTF8.self))")
        for line in iFrames {
            let uri = try #require(line.split(separator: "URI=\"").last?.prefix { $0 != "\"" })
            #expect(uri.hasPrefix("/v1/documents/\(id)/hls/") && uri.contains("-iframes.m3u8?") && uri.contains("&sig="), "\(line)")
            let (iFramePlaylist, iFrameResponse) = try Self.fetch(URLRequest(url: URL(string: server.base + uri)!))
            let iFrameText = String(decoding: iFramePlaylist, as: UTF8.self)
            #expect(iFrameResponse.statusCode == 200 && iFrameText.contains("#EXT-X-I-FRAMES-ONLY") && iFrameText.contains(".mp4?"), "\(iFrameText)")
        }
        // Every rung, read through the signed master over HTTP as a player does: all 180 frames, 6 s.
        for rung in 0..<2 {
            let frames = try MediaTools.ffprobeValue(
                input: server.base + signedMaster,
                [
                    "-count_packets", "-select_streams", "v:\(rung)",
                    "-show_entries", "stream=nb_read_packets"
                ])
            #expect(frames.split(separator: "\n").first == "180", "rung \(rung): \(frames) frames")
            try MediaTools.ffmpeg(["-i", server.base + signedMaster, "-map", "0:v:\(rung)", "-map", "0:a:\(rung)", "-f", "null", "-"])
        }
        // The thumbnails track, signed, names its sheets by signed URLs that serve them.
        let (track, _) = try Self.fetch(URLRequest(url: URL(string: server.base + (links["trickplay"] as? String ?? ""))!))
        let sheet = try #require(String(decoding: track, as: UTF8.self).split(separator: "\n").first { $0.contains("#xywh=") })
        #expect(sheet.contains("&sig="), "\(sheet)")
        let (jpeg, sheetResponse) = try Self.fetch(URLRequest(url: URL(string: server.base + sheet.prefix { $0 != "#" })!))
        #expect(sheetResponse.statusCode == 200 && jpeg.starts(with: [0xFF, 0xD8]))
        let (page, _) = try Self.fetch(server.authorized(URLRequest(url: URL(string: server.base + "/ui/documents/\(id)")!)))
        let html = String(decoding: page, as: UTF8.self)
        #expect(html.contains("<source src=\"\(master)\" type=\"application/vnd.apple.mpegurl\"><source src=\"/v1/documents/\(id)/renditions/mp4\""))
    }

    static func fetch(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
        let box = FetchBox()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            box.value = (data ?? Data(), response as? HTTPURLResponse)
            done.signal()
        }.resume()
        done.wait()
        guard let response = box.value?.1 else { throw URLError(.badServerResponse) }
        return (box.value?.0 ?? Data(), response)
    }
}

private final class FetchBox: @unchecked Sendable {  // written once by URLSession's callback, read after the semaphore
    var value: (Data, HTTPURLResponse?)?
}
