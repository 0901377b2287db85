import NIOCore
@testable import PreviewServer
import Testing

/// ``MultipartHeaderGuard``: what it refuses before MultipartKit's parser reads it, however the
/// body is cut into chunks.
@Suite struct MultipartHeaderGuardTests {
    /// Whether the guard admits `body` fed in chunks of `size` bytes.
    func admits(_ body: [UInt8], boundary: String, chunks size: Int) -> Bool {
        var guardian = MultipartHeaderGuard(boundary: boundary)
        return stride(from: 0, to: body.count, by: size).allSatisfy { start in
            guardian.admits(ByteBuffer(bytes: body[start..<min(start + size, body.count)]))
        }
    }

    @Test func aNonASCIIByteInAHeaderNameIsRefusedAndElsewhereAdmitted() {
        let file: [UInt8] = Array("%PDF- ó --b not a delimiter --".utf8) + (0...255).map(UInt8.init)
        let good =
            Array("preamble ó\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"résumé.pdf\"\r\n\r\n".utf8)
            + file + Array("\r\n--b--\r\nepilogue\r\n".utf8)
        let cases: [([UInt8], String, Bool)] = [
            (good, "b", true),
            (Array("--b\r\nó--b--\r\n".utf8), "b", false),
            (Array("x\r\n--b\r\nName: v\r\nNämé: v\r\n\r\n".utf8), "b", false),
            // "---b" holds the delimiter one byte in; the parser's own search may miss it, the guard's must not.
            (Array("---b\r\n\u{87}: v\r\n\r\n".utf8), "b", false),
            (Array("x--ab-c--ab-c--ab-d\r\nü: v\r\n".utf8), "ab-c--ab-d", false),
            (Array("x--ab-c--ab-c--ab-e\r\nü: v\r\n".utf8), "ab-c--ab-d", true)
        ]
        for (body, boundary, admitted) in cases {
            for size in [1, 2, 3, 7, body.count] {
                #expect(
                    admits(body, boundary: boundary, chunks: size) == admitted,
                    "\(String(decoding: body.prefix(40), as: UTF8.self)) in chunks of \(size)")
            }
        }
    }
}
