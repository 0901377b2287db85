import PreviewCore
import Testing

@Suite struct SafeTextTests {
    /// Each special character followed (or preceded) by a combining mark is one `Character` that is
    /// not equal to the plain one; escaping by `Character` let these through.
    @Test(arguments: ["<", ">", "\"", "'", "&"]) func combiningMarksCannotHideASpecialCharacter(special: String) {
        for text in ["\(special)\u{301}", "\u{600}\(special)", "a\(special)\u{20DD}b", "\(special)\u{FE0F}"] {
            let escaped = SafeText.html(text)
            #expect(!escaped.unicodeScalars.contains { ["<", ">", "\"", "'"].contains($0) }, "\(text.unicodeScalars.map { $0.value })")
            #expect(escaped.unicodeScalars.filter { $0 == "&" }.count == escaped.unicodeScalars.filter { $0 == ";" }.count)
        }
    }

    @Test func theReportedTitleBecomesText() {
        let title = "\u{600}<img src=x onerror=alert(1)>\u{301}"
        #expect(SafeText.html(title) == "\u{600}&lt;img src=x onerror=alert(1)&gt;\u{301}")
    }

    @Test func directionOverridesAndControlsAreNeutralised() {
        let name = "invoice\u{202E}fdp.exe"
        #expect(SafeText.html(name) == "invoice\u{FFFD}fdp.exe")
        #expect(SafeText.terminal(name) == "invoice\u{FFFD}fdp.exe")
        #expect(SafeText.terminal("a\u{1B}[2J\u{1B}]0;owned\u{07}b\rc") == "a\u{FFFD}[2J\u{FFFD}]0;owned\u{FFFD}b\u{FFFD}c")
        for scalar in [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x2066, 0x2067, 0x2068, 0x2069, 0x85, 0x9B, 0x7F] {
            #expect(SafeText.terminal(String(Unicode.Scalar(UInt32(scalar))!)) == "\u{FFFD}", "U+\(String(scalar, radix: 16))")
        }
        #expect(SafeText.terminal("Ünïcödé résumé 日本.pdf") == "Ünïcödé résumé 日本.pdf")
    }
}

@Suite struct ContractMappingTests {
    /// A NaN cannot be written as JSON: the encoder says so instead of writing `{}` in its place.
    @Test func unencodableValuesThrow() throws {
        struct Facts: Encodable { var duration = Double.nan }
        #expect(throws: EncodingError.self) { try StableJSON.encode(Facts()) }
        #expect(String(decoding: try StableJSON.encode(["b": 1, "a": 2]), as: UTF8.self) == #"{"a":2,"b":1}"#)
    }

    /// Every code has its HTTP status and its class (exit code); both switches are exhaustive.
    @Test func everyCodeHasAStatusAndAClass() {
        for code in PreviewError.Code.all {
            let status = code.httpStatus
            #expect((400...599).contains(status), "\(code)")
            switch code.disposition {
            case .internal: #expect((500...599).contains(status), "\(code): our failures are 5xx")
            case .refused, .unreadable, .request:
                // A request for a feature we do not offer is the client's to change, but IIIF answers it 501.
                #expect((400...499).contains(status) || (code == .notImplemented && status == 501), "\(code)")
            }
        }
        #expect(PreviewError.Code.forbidden.httpStatus == 403 && PreviewError.Code.queueFull.httpStatus == 429)
        #expect(PreviewError.Code.storageFull.httpStatus == 507 && PreviewError.Code.unavailable.httpStatus == 503)
    }
}
