/// The statements of one transaction, each chosen from what those before it returned: written
/// once for both backends, and run by either, SQLite's synchronously inside its write transaction
/// (``GRDB/Database/run(_:)``), PostgreSQL's awaiting each answer. A statement's rows come back as
/// `Record`s (none for a statement that returns none).
public indirect enum SQLPlan<Record, Result> {
    case done(Result)
    case statement(PortableSQL, then: ([Record]) throws -> SQLPlan)
    /// A step of Swift between statements.
    case compute(() throws -> SQLPlan)

    /// Runs this plan, then the one `next` makes of its result.
    package func then<Next>(_ next: @escaping (Result) throws -> SQLPlan<Record, Next>) -> SQLPlan<Record, Next> {
        switch self {
        case let .done(result): .compute { try next(result) }
        case let .statement(sql, rest): .statement(sql) { rows in try rest(rows).then(next) }
        case let .compute(step): .compute { try step().then(next) }
        }
    }

    /// This plan with its result transformed.
    package func map<Next>(_ transform: @escaping (Result) throws -> Next) -> SQLPlan<Record, Next> {
        then { .done(try transform($0)) }
    }

    /// `statements` one after another, their rows ignored; then `result`.
    public static func each(_ statements: [PortableSQL], then result: Result) -> SQLPlan {
        statements.reversed().reduce(.done(result)) { rest, sql in .statement(sql) { _ in rest } }
    }
}

extension SQLPlan where Result == [Record] {
    /// One statement, its rows the result.
    package static func rows(_ sql: PortableSQL) -> SQLPlan { .statement(sql) { .done($0) } }
}
