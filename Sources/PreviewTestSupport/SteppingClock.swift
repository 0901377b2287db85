import Foundation
import PreviewCore

/// A ``ServiceClock`` that moves on by ``step`` each time its monotonic time is asked: a loop that
/// asks it once a round sees one step pass a round, however fast the machine reads (a budget
/// counted in rounds, for tests).
package final class SteppingClock: ServiceClock {
    package let step: Duration
    private let start = ContinuousClock.now
    private let asked = Locked(0)

    package init(step: Duration) {
        self.step = step
    }

    package var now: Date { Date() }

    package var instant: ContinuousClock.Instant {
        start + step
            * asked.withLock { asked in
                asked += 1
                return asked
            }
    }

    package func sleep(until deadline: ContinuousClock.Instant) async throws {}
}
