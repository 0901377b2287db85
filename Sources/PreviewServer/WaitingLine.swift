/// Waiters in order of arrival, for the gates that queue (``RenderGate``, ``StreamSlots``): when a
/// place frees, each waiter that now fits is let in, in order, while there is room overall; one
/// that does not fit (its own key is full) does not hold back those behind it.
struct WaitingLine<Waiter> {
    private(set) var waiters: [Waiter] = []
    private var issued: UInt64 = 0

    var isEmpty: Bool { waiters.isEmpty }
    var count: Int { waiters.count }

    /// A number no other waiter of this line had, to find one's place again (a wait given up).
    mutating func ticket() -> UInt64 {
        issued += 1
        return issued
    }

    mutating func append(_ waiter: Waiter) {
        waiters.append(waiter)
    }

    /// Removes and returns the first waiter that `matches`, if any.
    mutating func remove(where matches: (Waiter) -> Bool) -> Waiter? {
        waiters.firstIndex(where: matches).map { waiters.remove(at: $0) }
    }

    /// The waiters let in, in order: while `hasRoom()`, each that `fits` is taken (`take`) and removed.
    mutating func admit(while hasRoom: () -> Bool, fits: (Waiter) -> Bool, take: (Waiter) -> Void) -> [Waiter] {
        var admitted: [Waiter] = []
        var index = 0
        while index < waiters.count, hasRoom() {
            if fits(waiters[index]) {
                take(waiters[index])
                admitted.append(waiters.remove(at: index))
            } else {
                index += 1
            }
        }
        return admitted
    }
}

extension Dictionary where Value == Int {
    /// Takes one from `key`'s count, forgetting the key at zero.
    mutating func decrement(_ key: Key) {
        let left = self[key, default: 1] - 1
        self[key] = left > 0 ? left : nil
    }
}
