/// A CSV file's rows, split on the delimiter its lines agree on (comma, semicolon, tab or bar),
/// with RFC 4180 quoting (a quoted field may hold delimiters, doubled quotes and newlines).
struct CSVTable {
    var rows: [[String]]
    var delimiter: Character

    /// Parses at most `maxRows` rows of at most `maxColumns` fields each.
    init(_ text: String, maxRows: Int, maxColumns: Int) {
        delimiter = Self.delimiter(of: text)
        rows = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = text.makeIterator()
        func endField() {
            if row.count < maxColumns { row.append(field) }
            field = ""
        }
        while rows.count < maxRows, let character = iterator.next() {
            if quoted {
                if character == "\"" {
                    // A doubled quote is a quote; else the quoted part ends here.
                    var lookahead = iterator
                    if lookahead.next() == "\"" { field.append("\""); iterator = lookahead } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" && field.isEmpty {
                quoted = true
            } else if character == delimiter {
                endField()
            } else if character.isNewline {
                endField()
                rows.append(row)
                row = []
            } else {
                field.append(character)
            }
        }
        if rows.count < maxRows && (!field.isEmpty || !row.isEmpty) {
            endField()
            rows.append(row)
        }
    }

    /// The delimiter that occurs the same non-zero number of times on most of the first lines;
    /// a comma when none does.
    static func delimiter(of text: String) -> Character {
        let lines = text.split(whereSeparator: \.isNewline).prefix(20)
        var best: (delimiter: Character, agreeing: Int) = (",", 0)
        for delimiter in [",", ";", "\t", "|"] as [Character] {
            let counts = lines.map { line in line.reduce(0) { $1 == delimiter ? $0 + 1 : $0 } }
            guard let first = counts.first, first > 0 else { continue }
            let agreeing = counts.filter { $0 == first }.count
            if agreeing > best.agreeing { best = (delimiter, agreeing) }
        }
        return best.delimiter
    }
}
