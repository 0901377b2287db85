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

    private func walk(_ script: String) throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.python.path), "scripts/install-deps makes .venv-tools")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let token = "page-walk-" + UUID().uuidString
        let server = try ServerProcess(store: folder.url.appendingPathComponent("store").path, workers: 2, token: token)
        let walked = try DocPreviewProcess.run(
            [Self.scripts.appendingPathComponent(script).path, server.base, Fixtures.samples.path],
            environment: ["DOCPREVIEW_TOKEN": token], timeout: 1200, executable: Self.python)
        print(walked.stdout)
        #expect(walked.status == 0, "\(script): \(walked.stdout.split(separator: "\n").last ?? "")\n\(walked.stderr.suffix(3000))")
    }
}
