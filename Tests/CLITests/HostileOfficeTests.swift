import Foundation
import PreviewTestSupport
import Testing

/// Office files are the richest input we accept. Each hostile one ends with its code within the job
/// limit and costs only itself; the next file is served as usual. (What documents link to:
/// `OfficeRendererTests.aDocumentReachesNothingItLinksTo`.)
@Suite(.blocking) struct HostileOfficeTests {
    /// A document whose macro writes a file into the office child's temporary folder when it is
    /// opened (it does, with macros enabled): rendered, and the file never appears.
    @Test func aMacroNeverRuns() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = folder.url.appendingPathComponent("cache")  // the office children's profiles and workspaces go here
        let result = try DocPreviewProcess.run(
            [
                "render", Fixtures.sample("bad-macro.odt").path, "-o", folder.url.appendingPathComponent("p.jpg").path,
                "--json"
            ], environment: ["XDG_CACHE_HOME": cache.path])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr.suffix(1000))")
        let written = FileManager.default.enumerator(atPath: cache.path)?.compactMap { $0 as? String } ?? []
        #expect(written.contains { $0.hasPrefix("docpreview/office/workspace-") }, "the office child worked under \(cache.path)")
        #expect(!written.contains { $0.hasSuffix("docpreview-macro-ran") }, "the document's macro ran")
    }

    /// The confined office child reads what LibreOffice needs and nothing else of `/etc` or of its
    /// own `/proc` entry (a hook tries each path as the child, before the conversion).
    @Test(arguments: [
        ("/etc/hostname", false), ("/proc/self/environ", false), ("/proc/self/cmdline", false),
        ("/etc/fonts/fonts.conf", true), ("/proc/self/statm", true)
    ])
    func theOfficeChildReadsOnlyNamedSystemFiles(path: String, readable: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let text = try folder.file("probe.txt", Array("docpreview-test-read:\(path)\nA line of text.\n".utf8))
        let result = try DocPreviewProcess.run(
            ["render", text.path, "-o", folder.url.appendingPathComponent("p.jpg").path],
            environment: ["DOCPREVIEW_TEST_HOOKS": "1", "XDG_CACHE_HOME": folder.url.path])
        #expect(result.status == 0, "\(result.stderr.suffix(1000))")
        #expect(result.stderr.contains("docpreview-test-read \(path): \(readable ? "readable" : "refused")"), "\(result.stderr.suffix(1000))")
    }

    /// An office child is replaced after its share of conversions (two under the test hooks, 50
    /// otherwise) or past its memory bound, and the files after it are served by a fresh one.
    @Test func officeChildrenAreReplacedAfterTheirShare() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = folder.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let samples = ["office-report.docx", "office-letter.odt", "office-stats.xlsx", "office-slides.pptx", "office-roster.csv"]
        for name in samples { try FileManager.default.copyItem(at: Fixtures.sample(name), to: inbox.appendingPathComponent(name)) }
        let report = folder.url.appendingPathComponent("report.json")
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--jobs", "1", "--store", folder.url.appendingPathComponent("store").path,
                "--report", report.path
            ],
            environment: ["DOCPREVIEW_TEST_HOOKS": "1", "DOCPREVIEW_LOG_LEVEL": "info"], timeout: 120)
        #expect(result.status == 0)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])["summary"] as? [String: Any]
        #expect(summary?["ok"] as? Int == samples.count)
        let replaced = result.stderr.components(separatedBy: "renderer child replaced at its own request").count - 1
        #expect(replaced == samples.count / 2, "\(result.stderr.suffix(2000))")
    }

    /// Hostile office files in one batch, then a good one: each ends with its code within the job
    /// limit, the batch runs to its end, and the good file gets its preview.
    @Test func hostileOfficeFilesCostOnlyThemselves() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let inbox = folder.url.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        func place(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: inbox.appendingPathComponent(name)) }

        // Billion laughs in the shared strings of a spreadsheet.
        var entities = #"<!ENTITY a0 "laugh">"#
        for level in 1...12 { entities += #"<!ENTITY a\#(level) "\#(String(repeating: "&a\(level - 1);", count: 10))">"# }
        try place(
            "entity-bomb.xlsx",
            StoredZip.archive(
                [
                    (
                        "[Content_Types].xml",
                        #"<?xml version="1.0" encoding="UTF-8"?><Types "#
                            + #"xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" "#
                            + #"ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" "#
                            + #"ContentType="application/xml"/><Override PartName="/xl/workbook.xml" "#
                            + #"ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override "#
                            + #"PartName="/xl/worksheets/sheet1.xml" "#
                            + #"ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override "#
                            + #"PartName="/xl/sharedStrings.xml" "#
                            + #"ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>"#
                    ),
                    (
                        "_rels/.rels",
                        #"<?xml version="1.0" encoding="UTF-8"?><Relationships "#
                            + #"xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" "#
                            + #"Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" "#
                            + #"Target="xl/workbook.xml"/></Relationships>"#
                    ),
                    (
                        "xl/workbook.xml",
                        #"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" "#
                            + #"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" "#
                            + #"r:id="rId1"/></sheets></workbook>"#
                    ),
                    (
                        "xl/_rels/workbook.xml.rels",
                        #"<?xml version="1.0" encoding="UTF-8"?><Relationships "#
                            + #"xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" "#
                            + #"Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" "#
                            + #"Target="worksheets/sheet1.xml"/><Relationship Id="rId2" "#
                            + #"Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" "#
                            + #"Target="sharedStrings.xml"/></Relationships>"#
                    ),
                    (
                        "xl/sharedStrings.xml",
                        #"<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE sst [\#(entities)]><sst "#
                            + #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" "#
                            + #"uniqueCount="1"><si><t>&a12;</t></si></sst>"#
                    ),
                    (
                        "xl/worksheets/sheet1.xml",
                        #"<?xml version="1.0" encoding="UTF-8"?><worksheet "#
                            + #"xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" "#
                            + #"t="s"><v>0</v></c></row></sheetData></worksheet>"#
                    )
                ] as [(name: String, text: String)]))
        // A package that is a valid ZIP around a document part that is not XML.
        try place(
            "corrupt.docx",
            StoredZip.archive(
                [
                    (
                        "[Content_Types].xml",
                        #"<?xml version="1.0" encoding="UTF-8"?><Types "#
                            + #"xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" "#
                            + #"ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#
                    ),
                    (
                        "_rels/.rels",
                        #"<?xml version="1.0" encoding="UTF-8"?><Relationships "#
                            + #"xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" "#
                            + #"Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" "#
                            + #"Target="word/document.xml"/></Relationships>"#
                    ),
                    ("word/document.xml", String(repeating: "\u{1}\u{2}<w:document <<<< not xml", count: 200))
                ] as [(name: String, text: String)]))
        // 10,000 pages of text: 600,000 lines.
        var text = ""
        text.reserveCapacity(600_000 * 24)
        for line in 0..<600_000 { text += "line \(line) of a long log\n" }
        try place("ten-thousand-pages.txt", Array(text.utf8))
        try FileManager.default.copyItem(at: Fixtures.sample("bad-zip-bomb.docx"), to: inbox.appendingPathComponent("zip-bomb.docx"))
        try FileManager.default.copyItem(at: Fixtures.sample("office-report.docx"), to: inbox.appendingPathComponent("zz-after.docx"))

        let report = folder.url.appendingPathComponent("report.json")
        // The job limit bounds the hostile files. It must also be far above what the long text takes
        // alone (about 3 s): with the suite and a release build on the same two cores, that took 21 s.
        let limit = 60.0
        let started = Date()
        let result = try DocPreviewProcess.run(
            [
                "batch", inbox.path, "--timeout", "\(Int(limit))", "--jobs", "1",
                "--store", folder.url.appendingPathComponent("store").path, "--report", report.path
            ],
            timeout: 300)
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let files = try #require(json["files"] as? [[String: Any]])
        func outcome(_ name: String) -> (status: String, code: String?, pages: Int?, ms: Double) {
            let file = files.first { ($0["path"] as? String)?.hasSuffix(name) == true } ?? [:]
            return (
                file["status"] as? String ?? "missing", (file["error"] as? [String: String])?["code"], file["pages"] as? Int,
                file["ms"] as? Double ?? 0
            )
        }
        #expect(outcome("zip-bomb.docx").code == "zip_bomb")
        let corrupt = outcome("corrupt.docx")
        #expect(corrupt.status == "failed" && corrupt.code == "corrupt", "\(corrupt)")
        let entityBomb = outcome("entity-bomb.xlsx")
        #expect(["ok", "failed"].contains(entityBomb.status) && entityBomb.ms < (limit + 2) * 1000, "\(entityBomb)")
        let long = outcome("ten-thousand-pages.txt")
        #expect(long.status == "ok" && long.pages == 200, "text is cut at the page cap: \(long)")
        #expect(long.ms < (limit + 2) * 1000)
        let after = outcome("zz-after.docx")
        #expect(after.status == "ok" && after.pages == 2, "the next file is served: \(after)")
        #expect(Date().timeIntervalSince(started) < 3 * limit)
    }
}
