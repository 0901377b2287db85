import Foundation

/// When a failed job runs again: immediately, then after 30 s, 2 min, 5 min, and 5 min from then
/// on, up to `maxAttempts` (DESIGN §6). Input errors are not retried.
public struct RetryPolicy: Sendable {
    package var maxAttempts = 10
    package var delays: [TimeInterval] = [0, 30, 120, 300]

    public init() {}

    /// The delay before attempt `attempts + 1`, or nil when the job has had all its attempts.
    package func delay(afterAttempts attempts: Int) -> TimeInterval? {
        guard attempts < maxAttempts else { return nil }
        return delays[min(max(attempts - 1, 0), delays.count - 1)]
    }

    /// What a job or download whose worker died with it every time says once it is dead-lettered:
    /// `work` (`Processing`, `The download`) stopped `attempts` times.
    package static func gaveUp(_ work: String, after attempts: Int) -> String {
        let (before, after) = gaveUp(work)
        return before + "\(attempts)" + after
    }

    /// ``gaveUp(_:after:)`` around the attempts, for SQL that fills them in row by row.
    package static func gaveUp(_ work: String) -> (before: String, after: String) {
        ("\(work) stopped ", " times without finishing; giving up.")
    }
}
