import Foundation

/// The two SQL databases an index can live in: where their statements differ.
///
/// Every difference between the backends that a statement meets is a member here (or, for the
/// search indexes, ``searchIndex``), so a builder composes one statement and never asks which
/// backend it is for.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Whether `column` (a name of ours) holds `text` anywhere: SQLite's `instr`, PostgreSQL's `strpos`.
    package func holds(_ column: String, _ text: String) -> PortableSQL {
        self == .sqlite ? "instr(\(raw: column), \(text)) > 0" : "strpos(\(raw: column), \(text)) > 0"
    }

    /// The text that stands for the `position`th bound value (from 1).
    func placeholder(_ position: Int) -> String {
        self == .sqlite ? "?" : "$\(position)"
    }

    /// The database's current time as SQL, where a statement is composed as text (the schema's
    /// triggers): on SQLite as GRDB stores dates, on PostgreSQL its own.
    package var currentTime: String {
        self == .sqlite ? "strftime('%Y-%m-%d %H:%M:%f', 'now')" : "now()"
    }

    /// An aggregate of the rows' `key` and `value` columns (names of ours) into one JSON object, as
    /// text: SQLite's `json_group_object`, PostgreSQL's `json_object_agg`; `{}` for no rows.
    package func jsonObject(key: String, value: String) -> String {
        self == .sqlite ? "json_group_object(\(key), \(value))" : "COALESCE(json_object_agg(\(key), \(value))::text, '{}')"
    }

    /// A statement that holds a document name's lock (``Document/nameKey``) until the transaction
    /// ends, so that concurrent uploads on several hosts get consecutive versions instead of a
    /// unique-key failure; nil for SQLite, whose writes are serialised.
    package func serialize(name key: String) -> PortableSQL? {
        self == .sqlite ? nil : "SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))"
    }

    /// What ends a query whose rows the transaction changes next, so that another waits for them
    /// (`alias` names the table whose rows are locked). SQLite needs none: its writes are serialised.
    package func lockingRows(of alias: String) -> String {
        self == .sqlite ? "" : " FOR UPDATE OF \(alias)"
    }

    /// What ends a query that takes rows to update, so that concurrent takers skip each other's rows
    /// instead of waiting for them (`alias` names the table whose rows are taken). SQLite needs none:
    /// its writes are serialised.
    package func skipLocked(of alias: String) -> String {
        self == .sqlite ? "" : " FOR UPDATE OF \(alias) SKIP LOCKED"
    }

    // MARK: Planner hints

    /// `column` (a name of ours) as a condition names it so that no index of it is read for that
    /// condition: SQLite's unary `+`; PostgreSQL's planner needs no such hint.
    package func withoutIndex(_ column: String) -> String {
        self == .sqlite ? "+\(column)" : column
    }

    /// `table` (with its alias) read through `index` only: SQLite's `INDEXED BY`, where its planner
    /// would walk another; PostgreSQL chooses by its statistics and takes no hint.
    package func reading(_ table: String, through index: String) -> String {
        self == .sqlite ? "\(table) INDEXED BY \(index)" : table
    }

    /// The join whose tables are looped over in the order written: SQLite's `CROSS JOIN`, which its
    /// planner never reorders; PostgreSQL's `JOIN` (its `CROSS JOIN` takes no `ON`).
    package var joinInOrder: String {
        self == .sqlite ? "CROSS JOIN" : "JOIN"
    }

    /// Whether the planner estimates a row comparison, `(a, b) < (x, y)`, by its first column alone
    /// (PostgreSQL): after a cursor whose first key most rows share, it would expect no row and may
    /// read a store-wide index. A comparison within one owner's rows then names the owner first, so
    /// that only the owner's index holds it.
    package var estimatesRowComparisonsByFirstColumn: Bool {
        self == .postgres
    }

    // MARK: Keys of an order

    /// A text column as a listing's cursor carries it.
    package func cursorText(_ column: String) -> String {
        self == .sqlite ? column : "\(column)::text"
    }

    /// A column of text as a listing orders by it (by its bytes on both: SQLite's own collation,
    /// PostgreSQL's `COLLATE "C"`, so the same titles page the same way) and its cursor carries it.
    package func textKey(_ column: String) -> OrderKey {
        switch self {
        case .sqlite: OrderKey(expression: column, cursor: column)
        case .postgres: OrderKey(expression: "\(column) COLLATE \"C\"", cursor: "\(column)::text") { "\($0)::text" }
        }
    }

    /// A time column as a listing orders by it and its cursor carries it: SQLite keeps times as
    /// text, which a cursor holds as it is; PostgreSQL's are whole microseconds in a cursor, so it
    /// compares exactly what the rows hold.
    package func timeKey(_ column: String) -> OrderKey {
        switch self {
        case .sqlite: OrderKey(expression: column, cursor: column)
        case .postgres:
            OrderKey(expression: column, cursor: "((extract(epoch FROM \(column)) * 1000000)::bigint)::text") { micros in
                "('epoch'::timestamptz + \(Self.wholeNumber(micros)) * interval '1 microsecond')"
            }
        }
    }

    /// A count column as a listing orders by it and its cursor carries it (ten digits, so that the
    /// text orders as the number does).
    package func countKey(_ column: String) -> OrderKey {
        switch self {
        case .sqlite: OrderKey(expression: column, cursor: "printf('%010d', \(column))") { "CAST(\($0) AS INTEGER)" }
        case .postgres: OrderKey(expression: column, cursor: "lpad(\(column)::text, 10, '0')") { Self.wholeNumber($0) }
        }
    }

    /// A cursor's text (its sender's) as a whole number on PostgreSQL; NULL, which no row follows,
    /// for one that is no whole number.
    private static func wholeNumber(_ text: PortableSQL) -> PortableSQL {
        "(CASE WHEN \(text)::text ~ '^-?[0-9]{1,18}$' THEN \(text)::bigint END)"
    }

    // MARK: Search

    /// The backend's search indexes, which answer a text search's reads.
    package var searchIndex: any SearchIndex {
        self == .sqlite ? FTS5Search() : TrigramSearch()
    }
}

/// A key of an order: the expression rows are ordered and compared by, its text in a cursor, and
/// what turns a cursor's text (bound) back into a value comparable with the expression.
package struct OrderKey: Sendable {
    package var expression: String
    package var cursor: String
    package var value: @Sendable (PortableSQL) -> PortableSQL = { $0 }
}
