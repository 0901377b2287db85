import PreviewCore
import PreviewTestSupport
import Testing

/// ``AsyncGate``: at most its width inside, everyone let in in the end, and a waiter cancelled
/// leaves without taking a place.
@Suite struct AsyncGateTests {
    /// Forty tasks through a gate two wide, each staying inside over a few turns of the scheduler:
    /// never more than two inside at once, and every one of them gets in.
    @Test func neverMoreThanItsWidthInsideAndEveryoneGetsIn() async throws {
        let gate = AsyncGate(width: 2)
        let inside = Locked((now: 0, most: 0, entered: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await gate.inside {
                        inside.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now); $0.entered += 1
                        }
                        for _ in 0..<3 { await Task.yield() }
                        inside.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        let figures = inside.withLock { $0 }
        #expect(figures.most <= 2 && figures.most >= 1)
        #expect(figures.entered == 40 && figures.now == 0)
    }

    /// A task cancelled while the gate is full stops waiting with `CancellationError`; the place the
    /// holder gives back afterwards is free for the next one at once.
    @Test func aCancelledWaiterLeavesWithoutTakingAPlace() async throws {
        let gate = AsyncGate(width: 1)
        try await gate.enter()
        let waiter = Task { try await gate.enter() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        gate.leave()
        try await gate.enter()
        gate.leave()
    }

    /// A full gate lets its waiters in one by one as places come back, in the order they came.
    @Test func waitersComeInInTheOrderTheyCame() async throws {
        let gate = AsyncGate(width: 1)
        try await gate.enter()
        let order = Locked<[Int]>([])
        var waiters: [Task<Void, any Error>] = []
        for number in 0..<5 {
            waiters.append(
                Task {
                    try await gate.enter()
                    order.withLock { $0.append(number) }
                    gate.leave()
                })
            // The next waiter starts only once this one is queued.
            try await waitUntilAsync("waiter \(number) queued") { gate.waiting == number + 1 }
        }
        gate.leave()
        for waiter in waiters { try await waiter.value }
        #expect(order.withLock { $0 } == [0, 1, 2, 3, 4])
    }
}
