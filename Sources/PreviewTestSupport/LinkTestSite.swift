import Foundation
import PreviewCore
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The loopback site link-download and link-card tests fetch from (`scripts/link-test-site.py`: an
/// MP4, a page with a `<video>`, redirects, redirects to private addresses, a 404, a page with no
/// video, a file over the size limit, a trickle, a file sent after 3 s; pages shaped like X's,
/// Instagram's, TikTok's and YouTube's and their oEmbed answers, an article, hostile cards),
/// started on a free port of 127.0.0.1 to 127.0.0.5 and stopped by ``stop()``.
package final class LinkTestSite: @unchecked Sendable {  // immutable after init
    package let port: Int
    private let process = Process()

    /// - Parameter otherPort: where the redirects to loopback and to mapped and decimal addresses point.
    package init(otherPort: Int = 9) throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("link-site-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Fixtures.packageRoot.appendingPathComponent("scripts/link-test-site.py").path,
            Fixtures.sample("video-h264.mp4").path, portFile.path, String(otherPort)
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { try? FileManager.default.removeItem(at: portFile) }
        for _ in 0..<200 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                self.port = port
                return
            }
            usleep(50_000)
        }
        process.terminate()
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the link test site did not start"])
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/path`.
    package func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// The sites the addresses after 127.0.0.1 stand for.
    package enum Site: Int, CaseIterable {
        case web = 1, x, instagram, tiktok, youtube
    }

    /// `http://127.0.0.N:PORT/path`, on the address that stands for `site`.
    package func url(_ path: String, on site: Site) -> String { "http://127.0.0.\(site.rawValue):\(port)/\(path)" }

    /// Its addresses as `--allow-private-fetch` takes them: this port of 127.0.0.1 to 127.0.0.5, no other.
    package var addresses: [String] { Site.allCases.map { "127.0.0.\($0.rawValue):\(port)" } }

    /// The `links` configuration that takes its addresses for X, Instagram, TikTok and YouTube, with
    /// their oEmbed endpoints (and X's embed data) on it.
    package func linksConfiguration(fetchSeconds: Double = 60) -> [String: Any] {
        let sites: [String: Any] = [
            "x": ["hosts": ["127.0.0.2"], "oembed": url("oembed/x", on: .x), "embed_data": url("x-embed/tweet-result", on: .x)],
            "instagram": ["hosts": ["127.0.0.3"]],
            "tiktok": ["hosts": ["127.0.0.4"], "oembed": url("oembed/tiktok", on: .tiktok)],
            "youtube": ["hosts": ["127.0.0.5"], "oembed": url("oembed/youtube", on: .youtube)]
        ]
        return ["fetch_seconds": fetchSeconds, "sites": sites]
    }

    /// How many requests for `path` (without its query) the site has had.
    package func requests(_ path: String) throws -> Int {
        var parts = URLComponents(string: url("requests"))!
        parts.queryItems = [URLQueryItem(name: "path", value: path)]
        let answer = Locked<Data?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: parts.url!) { data, _, _ in
            answer.withLock { $0 = data }
            done.signal()
        }.resume()
        done.wait()
        guard let data = answer.withLock({ $0 }), let count = Int(String(decoding: data, as: UTF8.self)) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return count
    }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The `yt-dlp` that `scripts/install-deps` pins in the project's tool environment.
    package static let extractor = Fixtures.packageRoot.appendingPathComponent(".venv-tools/bin/yt-dlp").path
}
