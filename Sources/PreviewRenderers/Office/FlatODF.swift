import PreviewCore

/// Writes text and tables as flat OpenDocument XML (one `.fodt` or `.fods` file), the form in
/// which LibreOffice loads them with no import dialog and no guessing: we decide the encoding, the
/// delimiter and the layout; every character is escaped here and nothing in it links anywhere.
enum FlatODF {
    /// Lines of plain text on A4 pages, in a monospaced font (spaces and tabs kept).
    static func text(_ lines: [Substring]) -> String {
        var body = ""
        body.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 48 })
        for line in lines {
            body += #"<text:p text:style-name="Line">"#
            body += preformatted(line)
            body += "</text:p>\n"
        }
        return document(
            mimetype: "text",
            styles: """
                <office:styles><style:style style:name="Line" style:family="paragraph">\
                <style:paragraph-properties fo:margin-top="0cm" fo:margin-bottom="0cm"/>\
                <style:text-properties style:font-name="Liberation Mono" fo:font-family="'Liberation Mono'" fo:font-size="9pt"/>\
                </style:style></office:styles>
                """, body: "<office:text>\n\(body)</office:text>")
    }

    /// A table with its first row in bold, numbers as numbers, columns as wide as their content
    /// (within bounds), printed in landscape when it is wide.
    static func spreadsheet(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 4, count: columns)
        for row in rows.prefix(200) {
            for (index, field) in row.enumerated() { widths[index] = min(40, max(widths[index], field.count)) }
        }
        var styles = """
            <style:style style:name="Heading" style:family="table-cell"><style:text-properties fo:font-weight="bold"/></style:style>
            """
        var body = #"<table:table table:name="Table">"#
        for (index, width) in widths.enumerated() {
            // About 0.2 cm per character at Calc's default 10 pt.
            styles +=
                #"<style:style style:name="c\#(index)" style:family="table-column"><style:table-column-properties "#
                + #"style:column-width="\#(Double(width) * 0.2 + 0.3)cm"/></style:style>"#
            body += #"<table:table-column table:style-name="c\#(index)"/>"#
        }
        for (number, row) in rows.enumerated() {
            body += "<table:table-row>"
            for field in row { body += cell(field, heading: number == 0) }
            body += "</table:table-row>\n"
        }
        body += "</table:table>"
        let landscape = widths.reduce(0, +) > 90
        let page =
            landscape
            ? #"<style:page-layout style:name="Page"><style:page-layout-properties fo:page-width="29.7cm" fo:page-height="21cm" "#
                + #"style:print-orientation="landscape"/></style:page-layout>"#
            : ""
        return document(
            mimetype: "spreadsheet",
            styles: """
                <office:automatic-styles>\(styles)\(page)</office:automatic-styles>\
                <office:master-styles><style:master-page style:name="Default"\(landscape ? #" style:page-layout-name="Page""# : "")>\
                <style:header style:display="false"/><style:footer style:display="false"/></style:master-page></office:master-styles>
                """, body: "<office:spreadsheet>\n\(body)</office:spreadsheet>")
    }

    private static func cell(_ field: String, heading: Bool) -> String {
        let style = heading ? #" table:style-name="Heading""# : ""
        if !heading, let number = Double(field), number.isFinite, field.first.map({ $0.isNumber || $0 == "-" }) == true {
            return
                #"<table:table-cell\#(style) office:value-type="float" "#
                + #"office:value="\#(number)"><text:p>\#(escaped(field))</text:p></table:table-cell>"#
        }
        return #"<table:table-cell\#(style) office:value-type="string"><text:p>\#(escaped(field))</text:p></table:table-cell>"#
    }

    private static func document(mimetype: String, styles: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" \
        xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" \
        xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" \
        office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.\(mimetype)">
        \(styles)
        <office:body>\(body)</office:body></office:document>
        """
    }

    /// Text as XML character data: markup characters escaped, characters XML cannot hold dropped.
    static func escaped(_ text: some StringProtocol) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            append(scalar == "\t" || scalar == "\n" || scalar == "\r" ? " " : scalar, to: &result)
        }
        return result
    }

    /// Appends `scalar` as XML character data.
    private static func append(_ scalar: Unicode.Scalar, to result: inout String) {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"": result += "&quot;"
        default: if allowedInXML(scalar) { result.unicodeScalars.append(scalar) }
        }
    }

    /// A line with its runs of spaces and its tabs kept (XML collapses them otherwise).
    private static func preformatted(_ line: Substring) -> String {
        var result = ""
        var spaces = 0
        func flushSpaces() {
            if spaces == 1 { result += " " } else if spaces > 1 { result += #"<text:s text:c="\#(spaces)"/>"# }
            spaces = 0
        }
        for scalar in line.unicodeScalars {
            if scalar == " " { spaces += 1; continue }
            flushSpaces()
            if scalar == "\t" { result += "<text:tab/>" } else if scalar != "\r" { append(scalar, to: &result) }
        }
        flushSpaces()
        return result
    }

    private static func allowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
