import Foundation
import PreviewTestSupport
import Testing

/// The pages people use, walked in Chromium by Playwright (`Tests/Browser/*.py`, run by the tool
/// environment's Python, which `scripts/install-deps` fills from PyPI) against `serve` on loopback
/// with a token, signed in through the sign-in page: each walk at a phone's size and a desktop's,
/// axe-core included. The script prints what it checked.
@Suite(.blocking, .serialized) struct PageWalkTests {
    static let python = Fixtures.packageRoot.appendingPathComponent(".venv-tools/bin/python")
    static let scripts = Fixtures.packageRoot.appendingPathComponent("Tests/Browser")

    @Test func theListPage() throws {
        try walk("list_page.py")
    }

    @Test func theDetailPage() throws {
        try walk("detail_page.py")
    }

    @Test func theViewer() throws {
        try walk("viewer_page.py")
    }

    @Test func aHighlightVideosTeaserAndClip() throws {
        try walk("video_pages.py")
    }

    @Test func whatEachSchoolReadAndWatched() throws {
        try walk("share_reading.py")
    }

    @Test func aWatermarkedAndARedactedShare() throws {
        try walk("share_marks.py")
    }

    /// The Detail page's cards of the links its description holds, from the loopback link test site.
    @Test func theCardsOfADescriptionsLinks() throws {
        let site = try LinkTestSite()
        defer { site.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = folder.url.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: ["links": site.linksConfiguration()]).write(to: config)
        try walk(
            "link_cards.py", extra: ["--config", config.path] + site.addresses.flatMap { ["--allow-private-fetch", $0] },
            environment: ["DOCPREVIEW_LINK_SITE": site.url("").dropLast().description])
    }

    private func walk(_ script: String, extra: [String] = [], environment: [String: String] = [:]) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python.path), "scripts/install-deps makes .venv-tools")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let token = "page-walk-" + UUID().uuidString
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, extra: extra, token: token)
        let walked = try DocPreviewProcess.run(
            [Self.scripts.appendingPathComponent(script).path, server.base, Fixtures.samples.path],
            environment: environment.merging(["DOCPREVIEW_TOKEN": token]) { $1 }, timeout: 1200, executable: Self.python)
        print(walked.stdout)
        #expect(walked.status == 0, "\(script): \(walked.stdout.split(separator: "\n").last ?? "")\n\(walked.stderr.suffix(3000))")
    }
}
