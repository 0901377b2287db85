/// Where a backend runs statements written once for both (``SQLPlan``s of ``PortableSQL``, read
/// as ``PortableRow``s): upload sessions, pages' text.
public protocol PortableDatabase: Sendable {
    /// The SQL the backend speaks, for statements whose shape differs (``SQLDialect``).
    var dialect: SQLDialect { get }

    /// Runs the plan `make` builds in one transaction. With `serializing`, transactions naming the
    /// same key run one at a time (PostgreSQL's transaction lock; SQLite's writes always do), so
    /// that counts read in them are exact.
    func runPlan<T: Sendable>(serializing key: String?, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T

    /// Runs the plan `make` builds as a read, beside writes (SQLite's readers, a PostgreSQL
    /// connection of the pool), stopped with ``QueryTimedOut`` once it has run `timeout`.
    func readPlan<T: Sendable>(timeout: Duration, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T

    /// Runs the plan `make` builds as a read, beside writes, under the backend's own limits (PostgreSQL's
    /// statement timeout): one round trip for one statement, no transaction of its own.
    func readPlan<T: Sendable>(_ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T
}

/// A read that ran out of its time (``PortableDatabase/readPlan(timeout:_:)``) and was stopped.
package struct QueryTimedOut: Error, Sendable {
    package init() {}
}
