@testable import PreviewRenderers
import Testing

/// How text and CSV become the flat OpenDocument LibreOffice lays out.
@Suite struct OfficeTextTests {
    @Test func theDelimiterIsTheOneTheLinesAgreeOn() {
        #expect(CSVTable.delimiter(of: "a;b;c\n1;2;3\n4;5;6\n") == ";")
        #expect(CSVTable.delimiter(of: "a\tb\n1\t2\n") == "\t")
        #expect(CSVTable.delimiter(of: "name,notes\nA,\"x; y; z\"\nB,w\n") == ",")
        #expect(CSVTable.delimiter(of: "one line of prose\n") == ",")
    }

    @Test func quotedFieldsKeepDelimitersQuotesAndNewlines() {
        let table = CSVTable("name,quote\n\"Lee, J.\",\"said \"\"hi\"\"\nthen left\"\nKim,ok", maxRows: 10, maxColumns: 10)
        #expect(table.rows == [["name", "quote"], ["Lee, J.", "said \"hi\"\nthen left"], ["Kim", "ok"]])
    }

    @Test func rowsAndColumnsAreCapped() {
        let text = (0..<100).map { row in (0..<50).map { "\(row).\($0)" }.joined(separator: ",") }.joined(separator: "\n")
        let table = CSVTable(text, maxRows: 10, maxColumns: 5)
        #expect(table.rows.count == 10 && table.rows.allSatisfy { $0.count == 5 })
    }

    /// Markup, combining marks after `<`, and characters XML cannot hold never reach LibreOffice as markup.
    @Test func everyCharacterIsEscaped() {
        #expect(FlatODF.escaped("<b>&\"x\"</b>") == "&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;")
        #expect(FlatODF.escaped("<\u{301}img>") == "&lt;\u{301}img&gt;")
        #expect(FlatODF.escaped("a\u{0}b\u{1B}c\u{FFFE}d") == "abcd")
        let document = FlatODF.text(["<office:body>", "  two  spaces\tand a tab"])
        #expect(document.contains("&lt;office:body&gt;"))
        #expect(document.contains(#"<text:s text:c="2"/>two<text:s text:c="2"/>spaces<text:tab/>and a tab"#))
    }

    @Test func numbersAreNumbersAndTheFirstRowIsAHeading() {
        let sheet = FlatODF.spreadsheet([["player", "height"], ["Kim", "178"], ["Lee", "1e400"]])
        #expect(sheet.contains(#"table:style-name="Heading" office:value-type="string"><text:p>player"#))
        #expect(sheet.contains(#"office:value-type="float" office:value="178.0""#))
        #expect(sheet.contains(#"office:value-type="string"><text:p>1e400"#), "not finite: kept as text")
    }
}
