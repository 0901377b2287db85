import Foundation
import PreviewCore
import Testing

/// Builds test inputs from ASCII strings and raw bytes.
private func bytes(_ parts: Any...) -> [UInt8] {
    parts.flatMap { part -> [UInt8] in
        switch part {
        case let text as String: Array(text.utf8)
        case let raw as [UInt8]: raw
        case let numbers as [Int]: numbers.map { UInt8($0) }
        case let byte as Int: [UInt8(byte)]
        default: fatalError("unsupported part \(part)")
        }
    }
}

private func padded(_ head: [UInt8], to size: Int = 512) -> [UInt8] { head + [UInt8](repeating: 0x11, count: max(0, size - head.count)) }

private let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]
private let jpegEnd: [UInt8] = [0xFF, 0xD9]
private let zipEmpty: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)

private func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
    let body = bytes("ftyp", major, [0, 0, 0, 0], compatible.joined())
    return bytes([0, 0, 0, UInt8(body.count + 4)], body)
}

private func detect(_ data: [UInt8], ext: String? = nil) -> FileKind {
    ContentDetector.detect(ByteProbe(bytes: data), fileExtension: ext).kind
}

@Suite struct ContentDetectorTests {
    static let magicCases: [(String, [UInt8], FileKind)] = [
        ("PDF", bytes("%PDF-1.7\n1 0 obj\n"), .pdf),
        ("PDF after junk", bytes(String(repeating: "junk ", count: 100), "%PDF-1.4\n"), .pdf),
        ("JPEG", padded(jpegStart), .jpeg),
        ("PNG", padded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png),
        ("GIF", padded(bytes("GIF89a")), .gif),
        ("WebP", padded(bytes("RIFF", [0xF8, 1, 0, 0], "WEBPVP8 ")), .webp),
        ("AVI", padded(bytes("RIFF", [0xF8, 1, 0, 0], "AVI LIST")), .avi),
        ("WAV", padded(bytes("RIFF", [0xF8, 1, 0, 0], "WAVEfmt ")), .wav),
        ("TIFF LE", padded(bytes("II*\0")), .tiff),
        ("TIFF BE", padded(bytes("MM\0*")), .tiff),
        ("BigTIFF", padded(bytes("II+\0")), .tiff),
        ("BMP", padded(bytes("BM", [0, 2, 0, 0], [0, 0, 0, 0], [54, 0, 0, 0], [40, 0, 0, 0])), .bmp),
        ("MP4", padded(ftyp("isom", ["isom", "avc1", "mp41"])), .mp4),
        ("MOV", padded(ftyp("qt  ", ["qt  "])), .mov),
        ("MOV without ftyp", padded(bytes([0, 0, 0, 8], "wide", [0, 0, 0, 8], "mdat")), .mov),
        ("media segment", padded(bytes([0, 0, 0, 24], "styp", "msdh")), .mp4),
        ("3GP", padded(ftyp("3gp4", ["isom", "3gp4"])), .threeGP),
        ("M4A", padded(ftyp("M4A ", ["M4A ", "mp42"])), .m4a),
        ("HEIC", padded(ftyp("heic", ["mif1", "heic"])), .heic),
        ("HEIC via mif1", padded(ftyp("mif1", ["mif1", "heic"])), .heic),
        ("AVIF", padded(ftyp("avif", ["avif", "mif1", "miaf"])), .avif),
        ("AVIF via mif1", padded(ftyp("mif1", ["avif", "mif1"])), .avif),
        ("HEIF sequence", padded(ftyp("msf1", ["msf1", "iso8"])), .heifSequence),
        ("WebM", padded(bytes([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84], "webm")), .webm),
        ("Matroska", padded(bytes([0x1A, 0x45, 0xDF, 0xA3, 0xA3, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88], "matroska")), .mkv),
        ("FLV", padded(bytes("FLV", [1, 5, 0, 0, 0, 9])), .flv),
        ("MPEG-PS", padded([0, 0, 1, 0xBA, 0x44]), .mpegPS),
        ("MPEG-TS", (0..<4).flatMap { _ in [0x47] + [UInt8](repeating: 0xFF, count: 187) }, .mpegTS),
        ("Ogg Theora", padded(bytes("OggS", [0, 2], [UInt8](repeating: 0, count: 22), [0x80], "theora")), .ogv),
        ("Ogg Vorbis", padded(bytes("OggS", [0, 2], [UInt8](repeating: 0, count: 22), [1], "vorbis")), .oga),
        ("MP3 with ID3", padded(bytes("ID3", [4, 0, 0])), .mp3),
        ("MP3 frame", padded([0xFF, 0xFB, 0x90, 0x64]), .mp3),
        ("FLAC", padded(bytes("fLaC")), .flac),
        ("AMR", padded(bytes("#!AMR\n")), .amr),
        ("gzip", padded([0x1F, 0x8B, 8, 0]), .gzip),
        ("7z", padded([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]), .sevenZip),
        ("RAR", padded(bytes("Rar!", [0x1A, 0x07, 0])), .rar),
        ("empty ZIP", zipEmpty, .zip),
        ("ELF", padded([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1]), .elf),
        ("Mach-O", padded([0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1]), .machO),
        ("fat Mach-O", padded([0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 2]), .machO),
        ("Java class", padded([0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52]), .javaClass),
        ("WebAssembly", padded([0, 0x61, 0x73, 0x6D, 1, 0, 0, 0]), .wasm),
        ("shell script", bytes("#!/bin/sh\nrm -rf /\n"), .script),
        ("DOS executable", padded(bytes("MZ", [0x90, 0, 3, 0, 0, 0, 4, 0])), .pe),
        ("HTML", bytes("\n  <!DOCTYPE html><html><body>hi</body></html>"), .html),
        ("SVG", bytes("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), .svg),
        ("XML", bytes("<?xml version=\"1.0\"?><note/>"), .xml),
        ("RTF", bytes("{\\rtf1\\ansi hello}"), .rtf),
        ("text", bytes("Dear committee,\nI recommend Jordan.\n"), .text),
        ("UTF-8 text", bytes("Über café — naïve résumé\n"), .text),
        ("UTF-16 text", [0xFF, 0xFE, 0x48, 0, 0x69, 0], .text),
        ("CSV", bytes("name,score\nJordan,9\nSam,7\n"), .csv),
        ("semicolon CSV", bytes("name;score;team\nJordan;9;A\nSam;7;B\n"), .csv),
        ("quoted CSV", bytes("name,note\n\"Lee, J\",fast\n\"Kim, A\",tall\n"), .csv),
        ("binary noise", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }, .unknown)
    ]

    @Test(arguments: magicCases.map { ($0.0, $0.1) })
    func detectsKindFromBytes(name: String, data: [UInt8]) {
        let expected = Self.magicCases.first { $0.0 == name }!.2
        #expect(detect(data) == expected, "\(name)")
    }

    @Test func textStartingLikeBMPIsText() {
        #expect(detect(bytes("BMW to Make Hybrid Sports Car\nBy a reporter\n")) == .text)
    }

    @Test func textStartingLikeMZIsText() {
        #expect(detect(bytes("MZ Corp annual report\nRevenue grew.\n")) == .text)
    }

    @Test func proseWithCommasIsNotCSV() {
        #expect(detect(bytes("Hello, world. I am here, as you see.\nThis line has no commas\nNor this, nor that, nor the other\n")) == .text)
    }

    @Test func svgzNeedsItsExtension() {
        let gzip = padded([0x1F, 0x8B, 8, 0])
        #expect(detect(gzip, ext: "svgz") == .svg)
        #expect(detect(gzip, ext: "gz") == .gzip)
    }

    @Test func damagedPDFWithoutHeader() {
        let detection = ContentDetector.detect(ByteProbe(bytes: bytes("UPDF-1\n1 0 obj\n<< /Type /Pages >>\nendobj\n")))
        #expect(detection.kind == .pdf)
        #expect(detection.damage != nil)
    }
}

/// ZIP-based and OLE2 containers, built in memory.
@Suite struct ContainerDetectionTests {
    private func zip(_ names: [String], encrypted: Bool = false, comment: Int = 0) -> [UInt8] {
        var local: [UInt8] = []
        var central: [UInt8] = []
        for name in names {
            let offset = UInt32(local.count)
            let data = Array("x".utf8)
            let flags: UInt16 = encrypted ? 1 : 0
            local += bytes(
                [0x50, 0x4B, 3, 4], le16(20), le16(flags), le16(0), le32(0), le32(0),
                le32(UInt32(data.count)), le32(UInt32(data.count)), le16(UInt16(name.utf8.count)), le16(0), name, data)
            central += bytes(
                [0x50, 0x4B, 1, 2], le16(20), le16(20), le16(flags), le16(0), le32(0), le32(0),
                le32(UInt32(data.count)), le32(UInt32(data.count)), le16(UInt16(name.utf8.count)),
                le16(0), le16(0), le16(0), le16(0), le32(0), le32(offset), name)
        }
        let end = bytes(
            [0x50, 0x4B, 5, 6], le16(0), le16(0), le16(UInt16(names.count)), le16(UInt16(names.count)),
            le32(UInt32(central.count)), le32(UInt32(local.count)), le16(UInt16(comment)),
            [UInt8](repeating: 0x20, count: comment))
        return local + central + end
    }

    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    @Test func officeOpenXMLByParts() {
        #expect(detect(zip(["[Content_Types].xml", "_rels/.rels", "word/document.xml"])) == .docx)
        #expect(detect(zip(["[Content_Types].xml", "xl/workbook.xml"])) == .xlsx)
        #expect(detect(zip(["[Content_Types].xml", "ppt/presentation.xml"])) == .pptx)
        #expect(detect(zip(["[Content_Types].xml", "custom/main.xml"])) == .ooxml)
        #expect(detect(zip(["word/document.xml"])) == .zip, "no content types: just a ZIP")
        #expect(detect(zip(["notes.txt", "photo.jpg"])) == .zip)
    }

    @Test func encryptedEntries() {
        let detection = ContentDetector.detect(ByteProbe(bytes: zip(["secret.txt"], encrypted: true)))
        #expect(detection.kind == .zip)
        #expect(detection.encrypted)
    }

    @Test func truncatedZipIsDamagedButNamed() {
        let whole = zip(["[Content_Types].xml", "word/document.xml"])
        let detection = ContentDetector.detect(ByteProbe(bytes: Array(whole.prefix(whole.count - 30))))
        #expect(detection.kind == .docx)
        #expect(detection.damage != nil)
    }

    @Test func bytesAfterZipEndRecordAreTrailingData() {
        let detection = ContentDetector.detect(ByteProbe(bytes: zip(["a.txt"]) + [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0]))
        #expect(detection.trailing?.payload == .elf)
        #expect(ContentDetector.detect(ByteProbe(bytes: zip(["a.txt"], comment: 12))).trailing == nil)
    }

    /// A minimal compound file: header, one FAT sector, one directory sector, one stream sector.
    private func ole2(_ streams: [(String, [UInt8])]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 512)
        header.replaceSubrange(0..<8, with: [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1])
        header.replaceSubrange(0x1E..<0x20, with: le16(9))
        header.replaceSubrange(0x2C..<0x30, with: le32(1))  // one FAT sector
        header.replaceSubrange(0x30..<0x34, with: le32(1))  // directory at sector 1
        header.replaceSubrange(0x38..<0x3C, with: le32(4096))
        header.replaceSubrange(0x4C..<0x50, with: le32(0))  // FAT at sector 0
        for k in 1..<109 { header.replaceSubrange((0x4C + 4 * k)..<(0x50 + 4 * k), with: le32(0xFFFF_FFFF)) }
        var fat = le32(0xFFFF_FFFD) + le32(0xFFFF_FFFE)
        for _ in streams { fat += le32(0xFFFF_FFFE) }  // each stream is one sector long
        fat += [UInt8](repeating: 0xFF, count: 512 - fat.count)
        var directory: [UInt8] = []
        for (index, (name, _)) in ([("Root Entry", [UInt8]())] + streams).enumerated() {
            var entry = [UInt8](repeating: 0, count: 128)
            let units = Array(name.utf16) + [0]
            for (k, unit) in units.enumerated() { entry.replaceSubrange((2 * k)..<(2 * k + 2), with: le16(unit)) }
            entry.replaceSubrange(0x40..<0x42, with: le16(UInt16(units.count * 2)))
            entry[0x42] = index == 0 ? 5 : 2
            entry.replaceSubrange(0x74..<0x78, with: le32(index == 0 ? 0xFFFF_FFFE : UInt32(1 + index)))
            entry.replaceSubrange(0x78..<0x7C, with: le32(index == 0 ? 0 : 4096))
            directory += entry
        }
        directory += [UInt8](repeating: 0, count: 512 - directory.count)
        let sectors = streams.map { $0.1 + [UInt8](repeating: 0, count: 512 - $0.1.count) }
        return header + fat + directory + sectors.joined()
    }

    @Test func compoundFilesByStreamNames() {
        let fib = le16(0xA5EC) + [UInt8](repeating: 0, count: 10)
        #expect(detect(ole2([("WordDocument", fib)])) == .doc)
        #expect(detect(ole2([("Workbook", le16(0x0809) + le16(0) + le16(0x000A) + le16(0))])) == .xls)
        #expect(detect(ole2([("PowerPoint Document", [1, 2, 3])])) == .ppt)
        #expect(detect(ole2([("Thumbnail", [1, 2, 3])])) == .ole2)
    }

    @Test func passwordProtectedOfficeFiles() {
        var encryptedFib = le16(0xA5EC) + [UInt8](repeating: 0, count: 10)
        encryptedFib[0x0A] = 0x00
        encryptedFib[0x0B] = 0x01  // fEncrypted
        let word = ContentDetector.detect(ByteProbe(bytes: ole2([("WordDocument", encryptedFib)])))
        #expect(word.kind == .doc && word.encrypted)
        let excel = ContentDetector.detect(ByteProbe(bytes: ole2([("Workbook", le16(0x0809) + le16(0) + le16(0x002F) + le16(0))])))
        #expect(excel.kind == .xls && excel.encrypted)
        let ooxml = ContentDetector.detect(ByteProbe(bytes: ole2([("EncryptionInfo", [4, 0, 4, 0]), ("EncryptedPackage", [0])])))
        #expect(ooxml.kind == .encryptedOffice && ooxml.encrypted)
        #expect(!ContentDetector.detect(ByteProbe(bytes: ole2([("WordDocument", le16(0xA5EC) + [UInt8](repeating: 0, count: 10))]))).encrypted)
    }
}
