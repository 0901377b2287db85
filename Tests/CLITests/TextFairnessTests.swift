import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Long scans' text jobs (OCR of every page, a page a call) hold a worker slot and a renderer child
/// a page at a time, never the first slot: another owner's upload, made while two of them wait, gets
/// its thumbnail while they still run — the first slot takes previews only, and text jobs have
/// renderer children of their own, which yield the CPU to the thumbnails' (issue 69).
@Suite(.blocking) struct TextFairnessTests {
    @Test(.timeLimit(.minutes(15))) func aLongScanDoesNotHoldBackAnotherOwnersThumbnail() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let typed = try folder.file("typed.pdf", LinesPDF.make([Fixtures.transcriptLines]))
        let page = folder.url.appendingPathComponent("page.jpg").path
        let rendered = try DocPreviewProcess.run(["render", typed.path, "-o", page, "--format", "jpeg", "--width", "1275", "--json"])
        let (width, height) = (try #require(rendered.json?["width"] as? Int), try #require(rendered.json?["height"] as? Int))
        let jpeg = try FileHandle(forReadingFrom: URL(fileURLWithPath: page)).readToEnd() ?? Data()
        let scan = Data(ScanPDF.make(jpeg: [UInt8](jpeg), width: width, height: height, pages: 2_000))
        let store = folder.url.appendingPathComponent("store").path
        let server = try ServerProcess(store: store, workers: 2)

        for owner in ["ana", "cy"] {
            #expect(try server.upload(scan, query: "filename=scan.pdf&owner=\(owner)&title=\(owner)").status == 202)
        }
        /// The statuses of the text jobs.
        func textJobs() throws -> [String] {
            let listed = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"]).stdout
            let jobs = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] ?? []
            return jobs.filter { $0["kind"] as? String == "text" }.compactMap { $0["status"] as? String }
        }
        try waitUntil("both scans' text jobs to be queued, one of them running", timeout: .seconds(300), interval: .milliseconds(100)) {
            let statuses = try textJobs()
            return statuses.count == 2 && statuses.contains("processing")
        }
        let other = try #require(
            server.upload(
                try FileHandle(forReadingFrom: Fixtures.sample("document-5-pages.pdf")).readToEnd() ?? Data(),
                query: "filename=letter.pdf&owner=ben"
            ).json?["document_id"] as? String)
        let thumbnail = try server.document(other)
        #expect(thumbnail["status"] as? String == "done")
        let statuses = try textJobs()
        #expect(statuses.filter { $0 == "processing" }.count == 1, "one scan read at a time; the thumbnail did not wait for their words: \(statuses)")
        // Issue 69: the scans are read by a child of their own at background priority; the thumbnails' children run at ordinary priority.
        let children = server.renderers
        #expect(children.contains { $0.background } && children.contains { !$0.background }, "\(children)")
        for child in children {
            #expect(WorkPriority.isLowered(child.pid) == child.background, "child \(child.pid), background: \(child.background)")
        }
        // Issue 65, item 10: another owner's video is made playable while the scans are still read:
        // text jobs have a lane of their own and never hold the slots playback needs (its job is
        // taken while a scan's text job runs; how long the transcode then takes is the machine's).
        let video = try #require(
            server.upload(try Data(contentsOf: Fixtures.sample("video-h264.mp4")), query: "filename=reel.mp4&owner=dee")
                .json?["document_id"] as? String)
        /// The status of `document`'s playback job, and whether a scan's text job is still running.
        func playback() throws -> (status: String?, scansRunning: Bool) {
            let listed = try DocPreviewProcess.run(["jobs", "list", "--store", store, "--json"]).stdout
            let jobs = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] ?? []
            let status = jobs.first { $0["kind"] as? String == "playback" && $0["document_id"] as? String == video }?["status"] as? String
            return (status, jobs.contains { $0["kind"] as? String == "text" && $0["status"] as? String == "processing" })
        }
        var taken = try playback()
        try waitUntil("the video's playback job to be taken", timeout: .seconds(300), interval: .milliseconds(100)) {
            taken = try playback()
            return ["processing", "done", "failed"].contains(taken.status ?? "")
        }
        #expect(taken.status != "failed" && taken.scansRunning, "made playable while the scans' text is still read: \(taken)")
    }
}
