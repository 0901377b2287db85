import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@Suite struct TextDecodingTests {
    @Test func utf8WithAndWithoutItsMark() throws {
        let plain = try #require(TextDecoding.decode(Array("Zoë;Brontë\n".utf8)))
        #expect(plain.text == "Zoë;Brontë\n" && plain.encoding == .utf8)
        let marked = try #require(TextDecoding.decode([0xEF, 0xBB, 0xBF] + Array("Zoë".utf8)))
        #expect(marked.text == "Zoë" && marked.encoding == .utf8)
    }

    @Test func utf16ByItsMark() throws {
        let little = try #require(TextDecoding.decode([0xFF, 0xFE] + Array("Łukasz".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        #expect(little.text == "Łukasz" && little.encoding == .utf16LE)
        let big = try #require(TextDecoding.decode([0xFE, 0xFF] + Array("Żółć".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        #expect(big.text == "Żółć" && big.encoding == .utf16BE)
    }

    @Test func bytesThatAreNotUTF8AreWindows1252() throws {
        // "José – €5" in Windows-1252: é is 0xE9, the en dash 0x96, the euro sign 0x80.
        let decoded = try #require(TextDecoding.decode([0x4A, 0x6F, 0x73, 0xE9, 0x20, 0x96, 0x20, 0x80, 0x35]))
        #expect(decoded.text == "José – €5" && decoded.encoding == .windows1252)
    }

    @Test func binaryIsNotText() {
        #expect(TextDecoding.decode([0x50, 0x4B, 0x03, 0x04, 0x00, 0x00]) == nil, "a NUL")
        #expect(TextDecoding.decode((0..<2000).map { UInt8($0 % 32) }.filter { $0 != 0 }) == nil, "control characters")
    }

    @Test func latin1TextIsDetectedAsTextAndCSV() throws {
        let csv = Array("name;city\nJos\u{E9};Z\u{FC}rich\n\u{C5}sa;Malm\u{F6}\n".unicodeScalars.map { UInt8($0.value) })
        #expect(Validator().validate(ByteProbe(bytes: csv), fileName: "roster.csv").kind == .csv)
        let text = Array("R\u{E9}sum\u{E9} of a player\n".unicodeScalars.map { UInt8($0.value) })
        #expect(Validator().validate(ByteProbe(bytes: text), fileName: "notes.txt").kind == .text)
    }
}

@Suite struct ZipBombTests {
    @Test func aDocumentThatUnpacksFarBeyondItsSizeIsRefused() throws {
        let verdict = try Validator().validate(fileAt: Fixtures.sample("bad-zip-bomb.docx"))
        #expect(verdict.refusal?.code == .zipBomb)
        #expect(verdict.refusal?.message.contains("times its packed size") == true)
        #expect(verdict.detection.unpacked?.unpackedBytes ?? 0 > 100 << 20)
    }

    @Test func theLimitsAreConfigurable() throws {
        var limits = Limits()
        limits.maxUnpackedBytes = 4096
        let small = Validator(configuration: Configuration(limits: limits))
        let verdict = try small.validate(fileAt: Fixtures.sample("office-report.docx"))
        #expect(verdict.refusal?.code == .zipBomb, "a report unpacks to more than 4 KB")
        limits = Limits()
        limits.maxArchiveEntries = 3
        #expect(
            try Validator(configuration: Configuration(limits: limits)).validate(fileAt: Fixtures.sample("office-report.docx")).refusal?.code
                == .zipBomb)
        #expect(try Validator().validate(fileAt: Fixtures.sample("office-report.docx")).refusal == nil)
    }
}
