import Foundation
import PreviewCore

/// The lease contract of a ``LeaseTable``, written once for both backends: take the fairest ready
/// row (dead-lettering those whose attempts are spent), renew, finish, fail with back-off, release,
/// reclaim the rows of dead workers, and queue failed rows again. Each is an ``SQLPlan`` that the
/// backend runs in its dialect, in a transaction where it has several statements, its rows read
/// back as records.
///
/// `finish`, `fail`, `renew` and `release` act only while the holder still holds the lease: a
/// worker whose lease ran out and was taken over by another cannot overwrite that one's outcome.
package struct Leases<Record: Leased>: Sendable {
    package let table: LeaseTable
    package let dialect: SQLDialect
    package let policy: RetryPolicy
    package typealias Plan<Result> = SQLPlan<Record, Result>

    package init(_ table: LeaseTable, dialect: SQLDialect, policy: RetryPolicy) {
        self.table = table
        self.dialect = dialect
        self.policy = policy
    }

    /// Dead-letters the ready rows whose attempts are spent (their workers died with them every
    /// time), then leases the fairest ready row to `worker` for `seconds`, counting an attempt:
    /// among rows matching `filter`, ordered first by `priority` (a row where it is false or 0
    /// first), then the group with the fewest rows running, then the longest waiting.
    package func lease(worker: String, seconds: TimeInterval, filter: PortableSQL = "TRUE", priority: PortableSQL? = nil)
        -> Plan<(leased: Record?, deadLettered: [Record])>
    {
        let (name, key) = (table.name, table.key)
        let gaveUp = RetryPolicy.gaveUp(table.work)
        let deadLetter: PortableSQL = """
            UPDATE \(raw: name) SET status = \(table.failed), lease_owner = NULL, lease_expires_at = NULL,
                error_code = \(PreviewError.Code.internal), error_message = \(gaveUp.before) || attempts || \(gaveUp.after), updated_at = \
                \(PortableSQL.now)
            WHERE \(raw: key) IN (SELECT x.\(raw: key) FROM \(raw: name) x WHERE \(ready("x")) AND x.attempts >= \
            \(policy.maxAttempts)\(raw: dialect.skipLocked(of: "x")))
            RETURNING *
            """
        let (join, group) = table.group("x")
        let (runningJoin, runningGroup) = table.group("r")
        let cleared = table.clearedOnLease.map { ", \($0) = NULL" }.joined()
        let first: PortableSQL = priority.map { "\($0), " } ?? ""
        let lease: PortableSQL = """
            UPDATE \(raw: name) SET status = \(table.running), attempts = attempts + 1, lease_owner = \(worker),
                lease_expires_at = \(PortableSQL.later(seconds)), updated_at = \(PortableSQL.now)\(raw: cleared)
            WHERE \(raw: key) = (
                SELECT x.\(raw: key) FROM \(raw: name) x \(raw: join)
                LEFT JOIN (SELECT \(raw: runningGroup) AS grouped, COUNT(*) AS n FROM \(raw: name) r \(raw: runningJoin)
                           WHERE r.status = \(table.running) AND r.lease_expires_at >= \(PortableSQL.now) GROUP BY \(raw: runningGroup)) running
                    ON running.grouped = \(raw: group)
                WHERE \(ready("x")) AND x.attempts < \(policy.maxAttempts) AND (\(filter))
                ORDER BY \(first)COALESCE(running.n, 0), x.available_at, x.\(raw: key)
                LIMIT 1\(raw: dialect.skipLocked(of: "x")))
            RETURNING *
            """
        return Plan.rows(deadLetter).then { deadLettered in Plan.rows(lease).map { (leased: $0.first, deadLettered: deadLettered) } }
    }

    /// A row of the table under `alias` that can be leased: waiting and due, or leased with its
    /// lease run out.
    private func ready(_ alias: String) -> PortableSQL {
        """
        ((\(raw: alias).status = \(table.waiting) AND \(raw: alias).available_at <= \(PortableSQL.now))
         OR (\(raw: alias).status = \(table.running) AND \(raw: alias).lease_expires_at < \(PortableSQL.now)))
        """
    }

    /// The row is still leased by `holder` for the same attempt.
    private func held(by holder: LeaseHolder) -> PortableSQL {
        "\(raw: table.key) = \(holder.key) AND status = \(table.running) AND lease_owner = \(holder.owner) AND attempts = \(holder.attempts)"
    }

    /// Extends the lease to `seconds` from now while `holder` holds it; false when it was lost.
    package func renew(_ holder: LeaseHolder, seconds: TimeInterval) -> Plan<Bool> {
        Plan.rows("UPDATE \(raw: table.name) SET lease_expires_at = \(PortableSQL.later(seconds)) WHERE \(held(by: holder)) RETURNING *").map {
            !$0.isEmpty
        }
    }

    /// Marks the row done, with `setting` (`column = value` assignments) besides; nil when the lease was lost.
    package func finish(_ holder: LeaseHolder, setting: PortableSQL? = nil) -> Plan<Record?> {
        let besides: PortableSQL = setting.map { ", \($0)" } ?? ""
        return Plan.rows(
            """
            UPDATE \(raw: table.name) SET status = \(table.done), lease_owner = NULL, lease_expires_at = NULL, error_code = NULL,
                error_message = NULL, updated_at = \(PortableSQL.now)\(besides)
            WHERE \(held(by: holder)) RETURNING *
            """
        ).map(\.first)
    }

    /// Records a failure: waiting again after the policy's delay when `retryable` and attempts
    /// remain, else failed for good. Nil when the lease was lost.
    package func fail(_ holder: LeaseHolder, error: PreviewError, retryable: Bool) -> Plan<Record?> {
        let delay = retryable ? policy.delay(afterAttempts: holder.attempts) : nil
        let availability: PortableSQL = delay.map(PortableSQL.later) ?? "available_at"
        return Plan.rows(
            """
            UPDATE \(raw: table.name) SET status = \(delay == nil ? table.failed : table.waiting), available_at = \(availability),
                lease_owner = NULL, lease_expires_at = NULL, error_code = \(error.code), error_message = \(error.message), updated_at = \
                \(PortableSQL.now)
            WHERE \(held(by: holder)) RETURNING *
            """
        ).map(\.first)
    }

    /// Gives a leased row back untouched (a graceful shutdown), its attempt uncounted; false when
    /// the lease was lost.
    package func release(_ holder: LeaseHolder) -> Plan<Bool> {
        Plan.rows(
            """
            UPDATE \(raw: table.name) SET status = \(table.waiting), attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END,
                lease_owner = NULL, lease_expires_at = NULL, updated_at = \(PortableSQL.now)
            WHERE \(held(by: holder)) RETURNING *
            """
        ).map { !$0.isEmpty }
    }

    /// Makes the rows leased by owners that `isDead` says are gone (a crashed process on this host)
    /// ready at once, without waiting for their leases to run out; the attempt they used stays
    /// counted. Returns how many.
    package func reclaim(where isDead: @escaping (String) -> Bool) -> Plan<Int> {
        Plan.rows("SELECT * FROM \(raw: table.name) WHERE status = \(table.running) AND lease_owner IS NOT NULL").then { running in
            let dead = Set(running.compactMap(\.holder.owner)).filter(isDead).sorted()
            return dead.reduce(Plan.done(0)) { counted, owner in
                counted.then { reclaimed in
                    Plan.rows(
                        """
                        UPDATE \(raw: table.name) SET status = \(table.waiting), lease_owner = NULL, lease_expires_at = NULL,
                            available_at = \(PortableSQL.now), updated_at = \(PortableSQL.now)
                        WHERE status = \(table.running) AND lease_owner = \(owner) RETURNING *
                        """
                    ).map { reclaimed + $0.count }
                }
            }
        }
    }

    /// Queues failed rows again (the one of `key`, or every one) with a fresh set of attempts, their
    /// last failure forgotten; returns them.
    package func requeueFailed(key: SQLValue? = nil) -> Plan<[Record]> {
        let only: PortableSQL = key.map { "AND \(raw: table.key) = \($0)" } ?? ""
        return Plan.rows(
            """
            UPDATE \(raw: table.name) SET status = \(table.waiting), attempts = 0, available_at = \(PortableSQL.now), error_code = NULL,
                error_message = NULL, updated_at = \(PortableSQL.now)
            WHERE status = \(table.failed) \(only) RETURNING *
            """)
    }
}
