import Foundation
import PreviewCore
@testable import PreviewRenderers
import PreviewTestSupport
import PreviewVips
import Testing

/// Decoded pixels (PDF pages, video frames) are turned and encoded without libvips.
@Suite(.blocking) struct PixelEncodingTests {
    /// 3×2 pixels numbered 0…5 in reading order (each pixel's three samples carry its number).
    let numbered = PixelBuffer(
        width: 3, height: 2, bands: 3, bytes: (0..<6).flatMap { (index: Int) -> [UInt8] in Array(repeating: UInt8(index), count: 3) })

    private func order(_ pixels: PixelBuffer) -> [UInt8] { stride(from: 0, to: pixels.bytes.count, by: 3).map { pixels.bytes[$0] } }

    @Test func turnsClockwise() {
        // 0 1 2      90°: 3 0     180°: 5 4 3     270°: 2 5
        // 3 4 5           4 1           2 1 0           1 4
        //                 5 2                           0 3
        let quarter = numbered.rotated(clockwise: 90)
        #expect((quarter.width, quarter.height) == (2, 3))
        #expect(order(quarter) == [3, 0, 4, 1, 5, 2])
        #expect(order(numbered.rotated(clockwise: 180)) == [5, 4, 3, 2, 1, 0])
        #expect(order(numbered.rotated(clockwise: 270)) == [2, 5, 1, 4, 0, 3])
        #expect(order(numbered.rotated(clockwise: -90)) == order(numbered.rotated(clockwise: 270)))
        #expect(order(numbered.rotated(clockwise: 360)) == order(numbered) && order(numbered.rotated(clockwise: 45)) == order(numbered))
    }

    @Test(arguments: RenderRequest.Format.allCases) func encodesWithoutMetadata(format: RenderRequest.Format) throws {
        let samples: [UInt8] = (0..<(64 * 48)).flatMap { (index: Int) -> [UInt8] in [UInt8(index % 64 * 4), UInt8(index / 64 * 5), 128] }
        let gradient = PixelBuffer(width: 64, height: 48, bands: 3, bytes: samples)
        let image = try Encoding.encode(gradient, rotation: 90, RenderRequest(format: format))
        #expect((image.width, image.height) == (48, 64))
        let bytes = image.bytes
        switch format {
        case .jpeg:
            #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF, 0xE0]), "JFIF first, no EXIF segment")
            #expect(!bytes.indices.dropLast().contains { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xE1 }, "no APP1")
        case .png:
            #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(Array(bytes[16..<24]) == [0, 0, 0, 48, 0, 0, 0, 64], "IHDR: 48×64")
            #expect(!String(decoding: bytes, as: UTF8.self).contains("tEXt") && !String(decoding: bytes, as: UTF8.self).contains("eXIf"))
        case .webp:
            #expect(Array(bytes[8..<16]) == Array("WEBPVP8 ".utf8), "a plain lossy WebP, no extended chunks")
        }
        #expect(try Encoding.encode(gradient, rotation: 90, RenderRequest(format: format)).bytes == bytes, "the same bytes again")
    }

    /// Page tables and per-image tables code the same quantised image: decoded, the pixels are the
    /// same; only the size differs. Noise has coefficients of every size, so the fixed tables must
    /// have a code for every symbol a baseline JPEG can hold.
    @Test func pageTablesChangeTheSizeNotThePixels() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        func pixels(ofPNG bytes: [UInt8]) throws -> PixelBuffer {
            let file = folder.url.appendingPathComponent("page.png")
            try Data(bytes).write(to: file)
            return try VipsImageRef.header(path: file.path, load: .png).pixels()
        }
        func decoded(_ image: RenderedImage) throws -> [UInt8] {
            let file = folder.url.appendingPathComponent("decoded.jpg")
            try Data(image.bytes).write(to: file)
            return try VipsImageRef.header(path: file.path, load: .jpeg).pixels().bytes
        }
        func encoded(_ pixels: PixelBuffer, showing content: Encoding.Content) throws -> RenderedImage {
            try pixels.bytes.withUnsafeBufferPointer { rgb throws(PreviewError) in
                try Encoding.encode(rgb: rgb, width: pixels.width, height: pixels.height, showing: content, RenderRequest())
            }
        }
        let pdf = try #require(Renderers().renderer(for: .pdf))
        let page = try pixels(ofPNG: pdf.render(Fixtures.sample("document-5-pages.pdf").path, RenderRequest(format: .png)).bytes)
        var state: UInt32 = 1
        let noise = PixelBuffer(
            width: 320, height: 240, bands: 3,
            bytes: (0..<(320 * 240 * 3)).map { _ in
                state = state &* 1_664_525 &+ 1_013_904_223
                return UInt8(truncatingIfNeeded: state >> 24)
            })
        for pixels in [page, noise] {
            let fixed = try encoded(pixels, showing: .page)
            let fitted = try encoded(pixels, showing: .photograph)
            #expect(fixed.bytes != fitted.bytes, "other tables")
            #expect(try decoded(fixed) == decoded(fitted), "the same pixels")
        }
        let onPage = try encoded(page, showing: .page).bytes.count, fittedOnPage = try encoded(page, showing: .photograph).bytes.count
        #expect(Double(onPage) < 1.2 * Double(fittedOnPage), "a page with page tables: \(onPage) bytes against \(fittedOnPage) fitted")
    }
}
