import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

private func verdict(_ data: [UInt8], _ name: String, type: String? = nil, limits: Limits = Limits()) -> Verdict {
    let validator = Validator(configuration: Configuration(limits: limits))
    return validator.validate(ByteProbe(bytes: data), fileName: name, declaredType: type.flatMap(DocumentRules.standard.type(id:)))
}

private func sample(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: Fixtures.sample(name))) }

@Suite struct ValidatorTests {
    @Test func zipNamedPDFHasThePersonReadableMessage() throws {
        let result = verdict(try sample("bad-zip-named.pdf"), "Resume.pdf")
        #expect(result.reason == .mismatch)
        #expect(result.refusal?.code == .contentMismatch)
        #expect(result.refusal?.message == "This file is not a PDF (its contents are a ZIP archive).")
    }

    @Test func reasons() throws {
        let jpeg = try sample("photo-exif-orientation-6.jpg")
        #expect(verdict(jpeg, "a.jpg").reason == .match)
        #expect(verdict(jpeg, "a.JPEG").reason == .alias)
        #expect(verdict(jpeg, "a.dat").reason == .unknownExtension)
        #expect(verdict(jpeg, "photo").reason == .unknownExtension)
        #expect(verdict(jpeg, "a.dat").isAccepted)
        #expect(verdict(jpeg, "a.png").reason == .mismatch)
        #expect(verdict(try sample("image.tiff"), "scan.tif").reason == .match)
        #expect(verdict(try sample("image.tiff"), "scan.TIFF").reason == .alias)
        #expect(verdict(try sample("video-h264.mov"), "clip.mp4").reason == .alias, "QuickTime bytes under .mp4")
        #expect(verdict(try sample("video-h264.mp4"), "clip.mov").isAccepted)
        #expect(verdict(try sample("stats.csv"), "stats.txt").reason == .alias)
    }

    @Test func executablesAreRefusedWhateverTheNameOrType() throws {
        for (file, name) in [("bad-executable.pdf", "transcript.pdf"), ("bad-windows.exe", "letter.pdf"), ("bad-script.txt", "notes.txt")] {
            let result = verdict(try sample(file), name, type: "transcript")
            #expect(result.reason == .executable, "\(file)")
            #expect(result.refusal?.code == .executableRefused, "\(file)")
        }
    }

    @Test func declaredTypeChecksExtensionBeforeContent() throws {
        let pdf = try sample("document-5-pages.pdf")
        #expect(
            verdict(pdf, "highlight.pdf", type: "highlight_video").refusal?.message
                == "Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
        #expect(verdict(pdf, "letter.pdf", type: "rec_letter").isAccepted)
        #expect(verdict(try sample("image-alpha.png"), "clip.mp4", type: "highlight_video").refusal?.code == .contentMismatch)
        // Without a usable extension the bytes decide whether the type allows the file.
        #expect(verdict(pdf, "letter", type: "rec_letter").isAccepted)
        #expect(verdict(pdf, "letter.bin", type: "highlight_video").refusal?.code == .extensionNotAllowed)
    }

    @Test func sizeLimitsAndEmptyFiles() throws {
        #expect(verdict([], "empty.pdf").refusal?.code == .emptyFile)
        var small = Limits()
        small.maxFileBytes = 1024
        let big = verdict(try sample("document-5-pages.pdf"), "big.pdf", limits: small)
        #expect(big.refusal?.code == .fileTooLarge)
        #expect(big.refusal?.message == "File exceeds 1KB limit.")
        var standard = Limits()
        standard.maxFileBytes = 100 * 1024 * 1024
        let probe = ByteProbe(bytes: Array("%PDF-1.4\n".utf8))
        let message = Validator(configuration: Configuration(limits: Limits())).validate(probe, fileName: "a.pdf").refusal
        #expect(message == nil)
        #expect(
            PreviewError(.fileTooLarge, "File exceeds \(Limits.describe(byteCount: standard.maxFileBytes)) limit.").message
                == "File exceeds 100MB limit.")
    }

    @Test func tinyFilesUnderBinaryNamesAreTruncated() {
        #expect(verdict(Array("oops\n".utf8), "a.pdf").refusal?.code == .corrupt)
        #expect(verdict(Array("\n".utf8), "a.jpg").refusal?.code == .corrupt)
        #expect(verdict(Array("ok\n".utf8), "a.txt").isAccepted)
        #expect(verdict(Array("This is a letter, not a PDF at all.\n".utf8), "a.pdf").refusal?.code == .contentMismatch)
    }

    @Test func unrecognisedBytesAreUnsupported() {
        let noise = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
        #expect(verdict(noise, "a.pdf").refusal?.code == .unsupportedType)
        #expect(verdict(noise, "a.bin").refusal?.code == .unsupportedType)
    }

    @Test func officeAndTextKindsArePreviewed() throws {
        for file in ["resume.docx", "stats.xlsx", "stats.csv", "transcript.txt"] {
            let result = verdict(try sample(file), file)
            #expect(result.isAccepted && !result.hasNoPreview, "\(file)")
        }
    }

    @Test func encryptedPDFIsLeftToTheRenderer() throws {
        // Detection cannot know whether a PDF needs a user password; Poppler answers that.
        #expect(verdict(try sample("bad-encrypted.pdf"), "letter.pdf").isAccepted)
    }

    // MARK: Trailing data (polyglots)

    @Test func mediaAfterJPEGIsTrailingDataButAccepted() throws {
        let motionPhoto = try sample("photo-exif-orientation-6.jpg") + sample("video-h264.mp4").prefix(4096)
        let result = verdict(motionPhoto, "motion.jpg")
        #expect(result.reason == .trailingData)
        #expect(result.detection.trailing?.payload == .mp4)
        #expect(result.isAccepted)
    }

    @Test func archiveAfterImageIsRefused() throws {
        let polyglot = try sample("photo-exif-orientation-6.jpg") + sample("bad-zip-named.pdf")
        let result = verdict(polyglot, "photo.jpg")
        #expect(result.refusal?.code == .contentMismatch)
        #expect(result.refusal?.message.contains("ZIP archive hidden after its end") == true)
    }

    @Test func executableAfterPDFIsRefused() throws {
        let polyglot = try sample("document-5-pages.pdf") + sample("bad-executable.pdf")
        let result = verdict(polyglot, "letter.pdf")
        #expect(result.reason == .executable)
        #expect(result.refusal?.code == .executableRefused)
    }

    @Test func paddingAfterEndMarkerIsNotTrailingData() throws {
        let pdf = try sample("document-5-pages.pdf") + Array("\r\n\n  ".utf8)
        #expect(verdict(pdf, "a.pdf").reason == .match)
        #expect(verdict(try sample("image-alpha.png") + [0, 0, 0], "a.png").reason == .match)
    }

    @Test func trailingDataFoundFromTheTailOfALargeFile() throws {
        // 300 KB: the end marker and the appended archive are beyond the head window.
        let jpeg = try sample("photo-exif-orientation-6.jpg")
        let large = Array(jpeg.dropLast(2)) + [UInt8](repeating: 0x55, count: 300_000) + [0xFF, 0xD9] + (try sample("bad-zip-named.pdf"))
        let result = verdict(large, "big.jpg")
        #expect(result.detection.trailing?.payload == .zip)
        #expect(result.refusal?.code == .contentMismatch)
    }

    /// A refusal the first bytes decide is one the whole file gets, whatever follows them: every
    /// sample under its own name and others, its size known or not, followed by padding or by
    /// another file (which may add a reason of its own, such as an executable after the end).
    @Test func firstBytesRefuseOnlyWhatTheWholeFileRefuses() throws {
        let manifest = try ExpectationManifest.samples()
        let followers: [[UInt8]] = [[UInt8](repeating: 0, count: ByteProbe.windowSize), try sample("bad-windows.exe")]
        let names = ["pdf", "mp4", "mov", "jpg", "png", "bmp", "docx", "txt", "csv", "svgz", "rtf", "zip"].map { "file.\($0)" } + ["file"]
        let validator = Validator()
        var refusedEarly = 0
        for entry in manifest.entries {
            // FileHandle, not Data(contentsOf:): on Linux the latter leaks its buffer for empty files (bad-empty.pdf).
            let bytes = Array(try FileHandle(forReadingFrom: entry.url).readToEnd() ?? Data())
            for (index, follower) in followers.enumerated() {
                let file = bytes + follower
                let head = Array(file.prefix(ByteProbe.windowSize))
                for name in names + [entry.file] {
                    for size in [file.count, nil] {
                        guard let early = validator.refusal(forHead: head, size: size, fileName: name) else { continue }
                        refusedEarly += 1
                        let whole = validator.validate(ByteProbe(bytes: file), fileName: name).refusal
                        #expect(whole != nil, "\(entry.file) as \(name): \(early.code) early, accepted whole")
                        if index == 0 { #expect(whole?.code == early.code, "\(entry.file) as \(name)") }
                    }
                }
            }
        }
        #expect(refusedEarly > 0)
    }

    @Test func theNameAndSizeAloneRefuseWhatNoBytesCanSave() {
        var small = Limits()
        small.maxFileBytes = 1024
        let validator = Validator(configuration: Configuration(limits: small))
        let video = DocumentRules.standard.type(id: "highlight_video")
        #expect(validator.refusal(fileName: "clip.mp4", size: 2048, declaredType: video)?.code == .fileTooLarge)
        #expect(
            validator.refusal(fileName: "letter.pdf", size: nil, declaredType: video)?.message
                == "Invalid file type. Highlight Video requires .mp4, .mov, .avi.")
        #expect(validator.refusal(fileName: "clip.mp4", size: 1024, declaredType: video) == nil)
        // An extension we do not know, or none, leaves it to the bytes.
        #expect(validator.refusal(fileName: "clip.bin", size: nil, declaredType: video) == nil)
        #expect(validator.refusal(fileName: "clip", size: nil, declaredType: video) == nil)
        #expect(validator.refusal(fileName: "letter.pdf", size: nil, declaredType: nil) == nil)
    }

    @Test func firstBytesRefuseExecutablesAndWrongContents() throws {
        let validator = Validator()
        let padded = { (bytes: [UInt8]) in Array((bytes + [UInt8](repeating: 0, count: ByteProbe.windowSize)).prefix(ByteProbe.windowSize)) }
        let elf = padded(try sample("bad-executable.pdf"))
        #expect(validator.refusal(forHead: elf, size: nil, fileName: "clip.mp4")?.code == .executableRefused)
        let png = padded(try sample("image-alpha.png"))
        #expect(
            validator.refusal(forHead: png, size: 200_000, fileName: "clip.mp4")?.message
                == "This file is not an MP4 video (its contents are a PNG image).")
        #expect(validator.refusal(forHead: png, size: 200_000, fileName: "photo.png") == nil)
        // A ZIP's directory lies at its end: a docx is only judged whole.
        #expect(validator.refusal(forHead: padded(try sample("office-report.docx")), size: 200_000, fileName: "letter.pdf") == nil)
        // Nothing is judged from a file that ends inside the first bytes.
        #expect(validator.refusal(forHead: elf, size: ByteProbe.windowSize, fileName: "clip.mp4") == nil)
    }

    @Test func everyCodeHasADisposition() {
        let refused = PreviewError.Code.all.filter { $0.disposition == .refused }.map(\.rawValue)
        #expect(
            Set(refused) == [
                "extension_not_allowed", "content_mismatch", "unsupported_type", "executable_refused",
                "file_too_large", "empty_file", "too_many_pixels", "too_long", "zip_bomb", "no_video_stream", "page_out_of_range",
                "unsupported_site", "private_address"
            ])
        #expect(PreviewError.Code(rawValue: "encrypted")?.disposition == .unreadable)
        #expect(PreviewError.Code(rawValue: "bogus") == nil)
    }
}

/// Every committed sample gives the outcome its manifest names, as far as detection decides it;
/// and every file in Samples/ is in the manifest.
@Suite struct SampleDetectionTests {
    @Test func everySampleIsInTheManifest() throws {
        let listed = Set(try ExpectationManifest.samples().entries.map(\.file))
        let files = try FileManager.default.contentsOfDirectory(at: Fixtures.samples, includingPropertiesForKeys: [.isRegularFileKey])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }  // not the generated large/ set
        let present = Set(files.map(\.lastPathComponent)).subtracting(["README.md", "manifest.tsv"])
        #expect(present == listed)
    }

    @Test(arguments: try ExpectationManifest.samples().entries)
    func sampleOutcome(entry: ExpectationManifest.Entry) throws {
        let result = try Validator().validate(fileAt: entry.url)
        let outcome = result.refusal?.code.rawValue ?? (result.hasNoPreview ? "no_preview" : "accepted")
        #expect(detectionOutcomeAgrees(outcome, with: entry.expected), "\(entry.file): \(outcome)")
    }
}
