/// Where a backend runs statements written once for both (``SQLPlan``s of ``PortableSQL``, read
/// as ``PortableRow``s): upload sessions, pages' text.
public protocol PortableDatabase: Sendable {
    /// Runs the plan `make` builds in one transaction. With `serializing`, transactions naming the
    /// same key run one at a time (PostgreSQL's transaction lock; SQLite's writes always do), so
    /// that counts read in them are exact.
    func runPlan<T: Sendable>(serializing key: String?, _ make: @escaping @Sendable () -> SQLPlan<PortableRow, T>) async throws -> T
}
