import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import PreviewServer
import PreviewTestSupport
import Testing

/// Every query the API reads follows `application/x-www-form-urlencoded` (issue 66's first defect):
/// `+` is a space and `%2B` a plus, as browsers' forms, `URLSearchParams` and client libraries write
/// them; what our own links and the CLI send reads back as it was.
@Suite struct FormRulesTests {
    @Test func fieldsFollowTheFormRules() {
        let fields = QueryFields("title=Fall+transcript&plus=C%2B%2B&space=a%20b&empty=&bare&bad=100%ZZ&title=second")
        #expect(fields.get("title") == "Fall transcript" && fields.get("plus") == "C++" && fields.get("space") == "a b")
        #expect(fields.get("empty") == "" && fields.get("bare") == "" && fields.get("bad") == "100%ZZ", "an escape that is no UTF-8 is kept as sent")
        #expect(fields.get("missing") == nil && fields.items.count == 7)
        let ours = QueryItems.encoded([("title", "C++ & more = 100%"), ("school", "École")])
        #expect(QueryFields(ours).get("title") == "C++ & more = 100%" && QueryFields(ours).get("school") == "École")
    }

    /// A posted form is read by Hummingbird's decoder with the same rules; a body that is no form
    /// has no fields.
    @Test func aPostedFormFollowsTheFormRules() {
        struct Fields: Decodable { var title: String?; var plus: String?; var missing: String? }
        let form = PostedForm.decode(Fields.self, from: ByteBuffer(string: "title=Fall+transcript&plus=C%2B%2B&other=1"))
        #expect(form?.title == "Fall transcript" && form?.plus == "C++" && form?.missing == nil)
        #expect(PostedForm.decode(Fields.self, from: ByteBuffer(string: "title=100%ZZ")) == nil)
    }

    @Test func labelsAndSearchesReadPlusAsASpace() async throws {
        let harness = try await Harness()
        defer { harness.folder.remove() }
        try await harness.test { client in
            let id = try await client.execute(
                uri: "/v1/documents?owner=ana&title=Fall+transcript&filename=my+letter.pdf&description=C%2B%2B",
                method: .post, body: try sample("document-5-pages.pdf")
            ) { try #require(try json($0)["document_id"] as? String) }
            try await client.execute(uri: "/v1/documents/\(id)", method: .get) { response in
                let document = try json(response)
                #expect(document["title"] as? String == "Fall transcript" && document["filename"] as? String == "my letter.pdf")
                #expect(document["description"] as? String == "C++")
            }
            try await client.execute(uri: "/v1/documents?owner=ana&q=Fall+transcript", method: .get) { response in
                let found = try json(response)["documents"] as? [[String: Any]] ?? []
                #expect(found.map { $0["document_id"] as? String } == [id], "a two-word search matches")
            }
        }
    }
}
