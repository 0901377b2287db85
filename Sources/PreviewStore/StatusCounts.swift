/// How many rows of a queue table (`jobs`, `downloads`) have each status, kept in `counters` as
/// `<table>:<status>` by triggers in the transaction that changes a row, so `/metrics` and an
/// upload's queue-depth check read a few rows whatever the history's length (issue 43). Shared by
/// both backends.
package enum StatusCounts {
    /// The counter of `status` (an SQL expression) in `table`.
    private static func name(_ table: String, _ status: String) -> String {
        "'\(table):' || \(status)"
    }

    private static func add(_ delta: Int, _ table: String, _ status: String) -> String {
        """
        INSERT INTO counters (name, value) SELECT \(name(table, status)), \(delta) WHERE true
        ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value
        """
    }

    /// Moves a row from its old status's counter to its new one's, in one statement that takes the
    /// two counters' row locks in the order of their names: transactions moving rows in opposite
    /// directions (a lease, a release) then wait for each other instead of deadlocking.
    private static func move(_ table: String) -> String {
        """
        INSERT INTO counters (name, value)
        SELECT moved.name, moved.delta FROM (SELECT \(name(table, "OLD.status")) AS name, -1 AS delta
                                             UNION ALL SELECT \(name(table, "NEW.status")), 1) AS moved
        WHERE OLD.status <> NEW.status ORDER BY moved.name
        ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value
        """
    }

    /// Counts the rows of a table indexed before the counters existed (in the migration, before the triggers).
    package static func backfill(_ table: String) -> String {
        "INSERT INTO counters (name, value) SELECT \(name(table, "status")), COUNT(*) FROM \(table) GROUP BY status"
    }

    /// The triggers of both tables (name, event, statements): after a row is inserted, its status
    /// changes, or it is deleted.
    package static let triggers: [(name: String, event: String, statements: [String])] = ["jobs", "downloads"].flatMap { table in
        [
            ("\(table)_counted_inserted", "AFTER INSERT ON \(table)", [add(1, table, "NEW.status")]),
            ("\(table)_counted_changed", "AFTER UPDATE OF status ON \(table)", [move(table)]),
            ("\(table)_counted_deleted", "AFTER DELETE ON \(table)", [add(-1, table, "OLD.status")])
        ]
    }

    /// Reads the counts of `Status`'s cases in `table`: rows of `status` and `n`.
    package static func query<Status: CaseIterable & RawRepresentable>(_ table: String, _: Status.Type) -> String where Status.RawValue == String {
        let names = Status.allCases.map { "'\(table):\($0.rawValue)'" }.joined(separator: ", ")
        return "SELECT substr(name, \(table.count + 2)) AS status, value AS n FROM counters WHERE name IN (\(names))"
    }
}
