import Foundation

/// A value that threads share behind a lock, touched only inside ``withLock(_:)``.
///
/// An `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: that one waits on a futex,
/// which ThreadSanitizer cannot see, so it reports every access from two threads as a race
/// (`scripts/sanitize --thread` did, on the render gate); a pthread mutex it understands.
public final class Locked<Value>: @unchecked Sendable {  // `value` is only touched with `lock` held
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Locked where Value == Int {
    /// Counts one more when fewer than `limit` are counted; false (nothing counted) otherwise.
    package func increment(below limit: Int) -> Bool {
        withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }
}
