import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The rules table of DESIGN §3, written out independently of the code under test.
private let designTable: [String: Set<String>] = [
    "highlight_video": ["mp4", "mov", "avi"],
    "transcript": ["pdf", "txt"],
    "resume": ["pdf", "doc", "docx"],
    "rec_letter": ["pdf"],
    "questionnaire": ["pdf", "doc", "docx"],
    "stats_sheet": ["csv", "xls", "xlsx"]
]

private let extensionsToTry = Set(designTable.values.joined()).union(["jpg", "png", "exe", "zip", "webm", "heic", "rtf", ""]).sorted()

@Suite struct DocumentRulesTests {
    @Test func standardTableIsDesignTable() {
        #expect(Dictionary(uniqueKeysWithValues: DocumentRules.standard.types.map { ($0.id, Set($0.extensions)) }) == designTable)
    }

    @Test(arguments: DocumentRules.standard.types, extensionsToTry)
    func extensionAllowedExactlyWhenListed(type: DocumentType, ext: String) {
        let allowed = designTable[type.id]!.contains(ext)
        for spelling in [ext, ext.uppercased(), "." + ext, "." + ext.uppercased(), ext.capitalized] {
            #expect(type.allows(extension: spelling) == allowed, "\(type.id) \(spelling)")
        }
    }

    @Test func refusalMessageListsExtensions() {
        #expect(
            DocumentRules.standard.type(id: "highlight_video")?.refusalMessage
                == "Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
        #expect(DocumentRules.standard.type(id: "STATS_SHEET")?.label == "Stats Sheet")
        #expect(DocumentRules.standard.type(id: "photo") == nil)
    }

    /// Real files (Samples) under every type, with the name in two cases: refused with
    /// `extension_not_allowed` exactly when the table does not list the extension.
    @Test(
        arguments: DocumentRules.standard.types,
        [
            "document-5-pages.pdf", "transcript.txt", "resume.docx", "stats.xlsx", "stats.csv",
            "video-h264.mp4", "video-h264.mov", "video-mpeg4.avi", "image-alpha.png"
        ])
    func samplesUnderEveryType(type: DocumentType, sample: String) throws {
        let probe = try ByteProbe(contentsOf: Fixtures.sample(sample))
        let ext = Validator.fileExtension(of: sample)!
        for name in [sample, sample.uppercased()] {
            let verdict = Validator().validate(probe, fileName: name, declaredType: type)
            if designTable[type.id]!.contains(ext) {
                #expect(verdict.isAccepted, "\(type.id) \(name): \(String(describing: verdict.refusal))")
            } else {
                #expect(verdict.refusal?.code == .extensionNotAllowed, "\(type.id) \(name)")
                #expect(verdict.refusal?.message == type.refusalMessage)
            }
        }
    }

    @Test func configurationFileAddsTypesAndLimits() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(
            """
            {"types": [{"id": "photo", "label": "Photo", "extensions": [".JPG", "png", "heic"]},
                       {"id": "transcript", "label": "Transcript", "extensions": ["pdf"]}],
             "limits": {"max_file_bytes": 1048576}}
            """.utf8
        ).write(to: url)
        let configuration = try Configuration.load(contentsOf: url)
        #expect(configuration.rules.type(id: "photo")?.extensions == ["jpg", "png", "heic"])
        #expect(configuration.rules.type(id: "transcript")?.extensions == ["pdf"])
        #expect(configuration.rules.type(id: "resume") != nil)
        #expect(configuration.limits.maxFileBytes == 1_048_576)
        #expect(configuration.limits.maxPixels == Limits().maxPixels)
    }

    @Test func malformedConfigurationThrows() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rules-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(#"{"types": [{"id": "photo"}]}"#.utf8).write(to: url)
        #expect(throws: (any Error).self) { try Configuration.load(contentsOf: url) }
    }

    @Test func byteCounts() {
        #expect(Limits.parseByteCount("100MB") == 100 * 1024 * 1024)
        #expect(Limits.parseByteCount("512k") == 512 * 1024)
        #expect(Limits.parseByteCount("1.5G") == 1536 * 1024 * 1024)
        #expect(Limits.parseByteCount("4096") == 4096)
        #expect(Limits.parseByteCount("-1") == nil)
        #expect(Limits.parseByteCount("lots") == nil)
        #expect(Limits.describe(byteCount: 100 * 1024 * 1024) == "100MB")
        #expect(Limits.describe(byteCount: 1000) == "1000 bytes")
    }
}

/// The label rules every entry point holds documents to (the API, the page, `ingest`, `batch`).
@Suite struct DocumentLabelTests {
    @Test func controlCharactersAreRefusedButATab() throws {
        let rules = DocumentRules.standard
        for (field, value) in [("title", "a\u{7}b"), ("owner", "a\nb"), ("filename", "a\u{0}.pdf"), ("title", "a\u{85}b")] {
            #expect(throws: PreviewError.self, "\(field)") {
                try DocumentLabels(
                    owner: field == "owner" ? value : "ana", typeID: nil, title: field == "title" ? value : "t",
                    filename: field == "filename" ? value : "a.pdf", rules: rules)
            }
        }
        let tabbed = try DocumentLabels(owner: "ana", typeID: "resume", title: "CV\t2026", filename: "dir/cv.pdf", rules: rules)
        #expect(tabbed.title == "CV\t2026" && tabbed.filename == "cv.pdf" && tabbed.type?.id == "resume")
        #expect(try DocumentLabels(owner: nil, typeID: "", title: "", filename: nil, rules: rules).title == "upload", "the name stands in")
        // A title a relabel would refuse is refused on upload too.
        let longest = String(repeating: "é", count: DocumentLabels.maxTitleLength)
        #expect(try DocumentLabels(owner: nil, typeID: nil, title: longest, filename: "a.pdf", rules: rules).title == longest)
        #expect(throws: PreviewError.self) { try DocumentLabels(owner: nil, typeID: nil, title: longest + "e", filename: "a.pdf", rules: rules) }
        #expect(throws: PreviewError.self) { try DocumentLabels(owner: nil, typeID: nil, title: nil, filename: longest + ".pdf", rules: rules) }
        do {
            _ = try DocumentLabels(owner: nil, typeID: "photo", title: nil, filename: "a.jpg", rules: rules)
            Issue.record("an unknown type must be refused")
        } catch {
            #expect(error.code == .badRequest && error.code.httpStatus == 400 && error.code.disposition == .request)
        }
    }

    @Test func namesFoundOnDiskHaveTheirControlsReplaced() throws {
        let found = DocumentLabels(owner: "", type: nil, foundAt: "in/new\nline.webp", filename: "new\nline.webp")
        #expect(found.title == "in/new\u{FFFD}line.webp" && found.filename == "new\u{FFFD}line.webp")
        try found.check()
        let deep = DocumentLabels(owner: "", type: nil, foundAt: String(repeating: "folder/", count: 200) + "cv.pdf", filename: "cv.pdf")
        #expect(deep.title.count == DocumentLabels.maxTitleLength && deep.title.hasSuffix("folder/cv.pdf"), "a path too long keeps its end")
        try deep.check()
    }

    @Test func titleKeysFoldAllOfUnicode() {
        #expect(DocumentLabels.titleKey("RÉSUMÉ Ünïcode") == DocumentLabels.titleKey("résumé ünïcode"))
        #expect(DocumentLabels.titleKey("CV") == "cv")
    }
}
