import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import PreviewCore
import PreviewPoppler
@testable import PreviewRenderers
import PreviewTestSupport
import Testing

/// Issue 70, item 2: redaction that removes, checked by tools that did not make it. A born-digital
/// transcript, a scan of it and a phone photo of it, each shared with `redact` set: Tesseract reads
/// none of the secrets in any picture the link serves (its pages and zoom tiles), `pdftotext` finds
/// none in its download (and no text at all), the shared page's text has none, while Tesseract still
/// reads what was not redacted; the owner's original is untouched; the boxes cover Poppler's own
/// boxes of the secret words.
@Suite struct ShareRedactionTests {
    typealias Shares = SharesTests

    static let lines = [
        "Official Transcript - Lincoln High School",
        "Student: Ana Rivera",
        "Student ID: S20231847",
        "Date of Birth: 03/14/2008",
        "D.O.B.: 2008-03-14",
        "Born March 14, 2008",
        "SSN: 123-45-6789",
        "Phone: (555) 123-4567",
        "Email: ana.rivera@example.com",
        "AP Chemistry 5   Cumulative GPA 3.87"
    ]
    /// What must never be read back: pieces of every secret.
    static let secrets = ["03/14", "2008", "S2023", "1847", "6789", "123-45", "4567", "(555)", "rivera@", "example.com"]
    static let kinds = #"["date_of_birth", "student_id", "ssn", "phone", "email", "street_address"]"#

    /// What Tesseract reads of `bytes` (an image): a process waited for on a thread of its own, not
    /// on one of the few cooperative threads the in-process servers of other tests need.
    private static func read(_ bytes: [UInt8], in folder: TemporaryFolder, _ name: String) async throws -> String {
        let file = folder.url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return try await onOwnThread { try MediaTools.tesseract(file) }
    }

    /// The typed transcript, its scan and a phone photo of it (seconds of pixel work: on a thread of its own).
    private static func documents(in folder: TemporaryFolder) async throws -> (typed: [UInt8], scan: [UInt8], photo: [UInt8]) {
        let typed = LinesPDF.make([lines])
        let pdf = try folder.file("typed.pdf", typed)
        return try await onOwnThread {
            let (width, height) = (1700, 2200)  // 200 pixels an inch
            let clean = try PDFDocument(path: pdf.path).page(1).withPixels(width: width, height: height, seconds: 20) { rgb in
                PixelBuffer(width: width, height: height, bands: 3, bytes: Array(rgb))
            }
            let scan = ScanPDF.make(jpeg: try Encoding.encode(clean, rotation: 0, RenderRequest(format: .jpeg)).bytes, width: width, height: height)
            let photo = try Encoding.encode(PhonePhoto.make(from: clean, degrees: 3), rotation: 0, RenderRequest(format: .jpeg)).bytes
            return (typed, scan, photo)
        }
    }

    private static func leaked(_ text: String) -> [String] { secrets.filter { text.contains($0) } }

    @Test func bornDigitalScannedAndPhotographedTranscripts() async throws {
        let harness = try await Harness(token: Shares.token)
        defer { harness.folder.remove() }
        let (typed, scan, photo) = try await Self.documents(in: harness.folder)
        try await harness.test { client in
            func upload(_ bytes: [UInt8], as name: String) async throws -> String {
                try await client.execute(
                    uri: "/v1/documents?filename=\(name)&owner=ana&title=\(name)", method: .post, headers: Shares.bearer,
                    body: ByteBuffer(bytes: bytes)
                ) { try #require(try json($0)["document_id"] as? String) }
            }
            let documents = [
                ("typed.pdf", try await upload(typed, as: "typed.pdf")), ("scan.pdf", try await upload(scan, as: "scan.pdf")),
                ("photo.jpg", try await upload(photo, as: "photo.jpg"))
            ]
            try await harness.drainQueue()

            for (name, id) in documents {
                // The owner sees what will be painted out before making the link.
                let found = try await client.execute(
                    uri: "/v1/documents/\(id)/redactions", method: .post, headers: Shares.bearer,
                    body: ByteBuffer(string: #"{"redact": \#(Self.kinds)}"#)
                ) { response in
                    #expect(response.status == .ok, "\(name): \(String(buffer: response.body))")
                    return try json(response)["pages"] as? [[String: Any]] ?? []
                }
                let kinds = Set(found.flatMap { ($0["findings"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String } })
                #expect(kinds == ["date_of_birth", "student_id", "ssn", "phone", "email"], "\(name): \(kinds) \(found)")

                let made = try await Shares.share(client, id, #"{"label": "North High", "allow_download": true, "redact": \#(Self.kinds)}"#)
                #expect((made["redact"] as? [String])?.count == 6)
                let html = try await client.execute(uri: try #require(made["url"] as? String), method: .get) { String(buffer: $0.body) }
                #expect(Self.leaked(html).isEmpty, "\(name): the shared page's text holds \(Self.leaked(html))")

                // Every picture of it: Tesseract reads what was kept, and none of what was not.
                let picture = try #require(Shares.sources(html).first { $0.contains("/preview") })
                let (status, shown) = try await client.execute(uri: picture, method: .get) { ($0.status, Array(buffer: $0.body)) }
                #expect(status == .ok)
                let read = try await Self.read(shown, in: harness.folder, "\(name)-page.jpg")
                // (A picture's is its 512 px thumbnail, too small to read: its download is read below.)
                #expect(name.hasSuffix(".jpg") || read.contains("Chemistry"), "\(name): Tesseract reads the page: \(read)")
                #expect(Self.leaked(read).isEmpty, "\(name): Tesseract reads \(Self.leaked(read)) on the shared page")
                let zoom = try #require(html.firstMatch(of: /data-zoom="([^"]+)"/).map { String($0.output.1) })
                let info = try await client.execute(uri: zoom + "/info.json", method: .get) { try json($0) }
                let full = try #require(info["width"] as? Int)
                for region in ["0,0,\(full / 2),\(full / 2)/\(min(1024, full / 2)),/0/default.png", "full/1275,/0/default.png"] {
                    let tile = try await client.execute(uri: zoom + "/" + region, method: .get) { response in
                        #expect(response.status == .ok, "\(name) \(region)")
                        return Array(buffer: response.body)
                    }
                    let readTile = try await Self.read(tile, in: harness.folder, "\(name)-tile.png")
                    #expect(Self.leaked(readTile).isEmpty, "\(name) \(region): Tesseract reads \(Self.leaked(readTile))")
                }
                // Turned, a redacted link's zoom is refused rather than painted where the words are not.
                try await client.execute(uri: zoom + "/full/512,/90/default.jpg", method: .get) { #expect($0.status == .notImplemented) }

                // Its download: no text, no secret in the pixels of its page.
                let download = try #require(
                    html.firstMatch(of: /href="([^"]*download=1[^"]*)"/).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") })
                let rebuilt = try await client.execute(uri: download, method: .get) { response in
                    #expect(response.status == .ok, "\(name)")
                    return Array(buffer: response.body)
                }
                if name.hasSuffix(".pdf") {
                    let file = harness.folder.url.appendingPathComponent("\(name)-download.pdf")
                    try Data(rebuilt).write(to: file)
                    let text = try await onOwnThread { try MediaTools.pdfPagesAndText(file).text }
                    #expect(Self.leaked(text).isEmpty && !text.contains("Chemistry"), "\(name): pdftotext reads \(text)")
                } else {
                    let text = try await Self.read(rebuilt, in: harness.folder, "download.jpg")
                    #expect(Self.leaked(text).isEmpty && text.contains("Transcript"), "\(name): Tesseract reads \(text)")
                }
            }

            // The owner's original is untouched.
            let original = try await client.execute(uri: "/v1/documents/\(documents[0].1)/content", method: .get, headers: Shares.bearer) {
                Array(buffer: $0.body)
            }
            #expect(original == typed)
        }
    }

    /// A box the owner draws (`redact_boxes`, fractions of the page) around a word found by nothing
    /// else: painted out of the page (Tesseract no longer reads it, and still reads the title) and left
    /// out of the page's text; a box that is not one is refused.
    @Test func aBoxTheOwnerDrawsIsRemoved() async throws {
        let harness = try await Harness(token: Shares.token)
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?filename=typed.pdf&owner=ana&title=Transcript", method: .post, headers: Shares.bearer,
                body: ByteBuffer(bytes: LinesPDF.make([Self.lines]))
            ) { try #require(try json($0)["document_id"] as? String) }
            try await harness.drainQueue()
            let page = try await client.execute(
                uri: "/v1/documents/\(id)/text?page=1", method: .get, headers: [.authorization: "Bearer \(Shares.token)", .accept: "application/json"]
            ) { try #require((try json($0)["pages"] as? [[String: Any]])?.first) }
            let (width, height) = (try #require(page["width"] as? Double), try #require(page["height"] as? Double))
            let words = try #require(page["words"] as? [[String: Any]])
            let chemistry = try #require(words.first { $0["text"] as? String == "Chemistry" }?["box"] as? [Double])
            let box = [(chemistry[0] - 4) / width, (chemistry[1] - 4) / height, (chemistry[2] + 4) / width, (chemistry[3] + 4) / height]
            let drawn = #"{"page": 1, "box": [\#(box.map { "\($0)" }.joined(separator: ", "))]}"#

            try await client.execute(
                uri: "/v1/documents/\(id)/shares", method: .post, headers: Shares.bearer,
                body: ByteBuffer(string: #"{"label": "North High", "redact_boxes": [{"page": 1, "box": [0.5, 0.1, 0.2, 0.3]}]}"#)
            ) { #expect($0.status == .badRequest, "a box whose right is left of its left") }
            let made = try await Shares.share(client, id, #"{"label": "North High", "redact_boxes": [\#(drawn)]}"#)
            #expect((made["redact_boxes"] as? [[String: Any]])?.count == 1)
            let html = try await client.execute(uri: try #require(made["url"] as? String), method: .get) { String(buffer: $0.body) }
            #expect(!html.contains("Chemistry") && html.contains("[redacted]") && html.contains("Transcript"), "the page's text")
            let picture = try #require(Shares.sources(html).first { $0.contains("/preview") })
            let shown = try await client.execute(uri: picture, method: .get) { Array(buffer: $0.body) }
            let read = try await Self.read(shown, in: harness.folder, "drawn.jpg")
            #expect(!read.contains("Chemistry") && read.contains("Transcript"), "Tesseract reads: \(read)")
        }
    }

    /// On the born-digital page, the boxes painted out cover Poppler's own box of every secret word
    /// (`pdftotext -bbox`), at least 99 % of each.
    @Test(.blocking) func boxesCoverPopplersWords() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let pdf = try folder.file("typed.pdf", LinesPDF.make([Self.lines]))
        let words = try PDFRenderer().text(pdf.path, page: 1)
        let findings = Redaction(kinds: Redaction.Kind.allCases).findings(on: words)
        let boxes = findings.flatMap(\.boxes)
        let secretWords = try MediaTools.pdftotextWords(pdf, page: 1).filter { word in Self.secrets.contains { word.text.contains($0) } }
        #expect(secretWords.count >= 8, "\(secretWords.map(\.text))")
        for word in secretWords {
            let area = (word.box[2] - word.box[0]) * (word.box[3] - word.box[1])
            let covered =
                boxes.map { box in
                    max(0, min(box[2], word.box[2]) - max(box[0], word.box[0])) * max(0, min(box[3], word.box[3]) - max(box[1], word.box[1]))
                }.max() ?? 0
            #expect(covered / area >= 0.99, "\(word.text): \(covered / area) of its box painted out")
        }
    }
}
