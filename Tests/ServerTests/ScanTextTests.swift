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

/// A scanned PDF (a page that is a picture, no text layer) and a phone photo of a transcript get
/// their words from OCR in their text jobs: served by `/text`, found by the search of the store,
/// each hit where the words are on the page (points on the scan, pixels on the photo), each page
/// counted by the reading kept.
@Suite struct ScanTextTests {
    @Test func scansAndPhotosAreRead() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        let pdf = try harness.folder.file("typed.pdf", LinesPDF.make([Fixtures.transcriptLines]))
        let (width, height) = (1700, 2200)  // 200 pixels an inch
        let clean = try PDFDocument(path: pdf.path).page(1).withPixels(width: width, height: height, seconds: 20) { rgb in
            PixelBuffer(width: width, height: height, bands: 3, bytes: Array(rgb))
        }
        let scan = ScanPDF.make(jpeg: try Encoding.encode(clean, rotation: 0, RenderRequest(format: .jpeg)).bytes, width: width, height: height)
        let photo = PhonePhoto.make(from: clean, degrees: 3)
        let photoJPEG = try Encoding.encode(photo, rotation: 0, RenderRequest(format: .jpeg)).bytes
        try await harness.test { client in
            func upload(_ bytes: [UInt8], as name: String) async throws -> String {
                try await client.execute(uri: "/v1/documents?filename=\(name)&owner=ana&title=\(name)", method: .post, body: ByteBuffer(bytes: bytes))
                {
                    #expect($0.status == .accepted)
                    return try #require(try json($0)["document_id"] as? String)
                }
            }
            let scanned = try await upload(scan, as: "scan.pdf")
            let photographed = try await upload(photoJPEG, as: "photo.jpg")
            try await harness.drainQueue()
            for id in [scanned, photographed] {
                try await client.execute(uri: "/v1/documents/\(id)/text", method: .get) { response in
                    #expect(response.status == .ok && String(buffer: response.body).contains("Chemistry"), "\(String(buffer: response.body))")
                }
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains("docpreview_ocr_pages_total{path=\""), "each page read by OCR is counted by the reading kept")
            try await client.execute(uri: "/v1/search?q=ap%20chemistry&owner=ana", method: .get) { response in
                let results = try #require(try json(response)["results"] as? [[String: Any]])
                let ids = results.compactMap { ($0["document"] as? [String: Any])?["document_id"] as? String }
                #expect(Set(ids) == [scanned, photographed], "\(ids)")
                for result in results {
                    let hit = try #require(result["hit"] as? [String: Any])
                    let rects = try #require(hit["rects"] as? [[Double]])
                    let (pageHeight, scanned) = (
                        try #require(hit["height"] as? Double), (result["document"] as? [String: Any])?["document_id"] as? String == scanned
                    )
                    #expect(pageHeight == (scanned ? 792 : Double(height)))
                    // The third line of the page: 1/8 to 1/6 of the way down (12 pt lines from 1 inch).
                    #expect(rects.count == 1 && rects.allSatisfy { $0[1] > pageHeight / 9 && $0[3] < pageHeight / 6 }, "\(rects) on \(pageHeight)")
                }
            }
        }
    }
}
