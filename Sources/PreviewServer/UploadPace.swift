/// The time rules of one upload request's body, checked as each buffer arrives: the whole body by
/// a deadline, at least a minimum rate over each ``window`` (a client trickling bytes just inside
/// the idle timeout is cut off after one window), and the request's upload slot kept.
struct UploadPace {
    /// When the whole body must have arrived.
    let deadline: ContinuousClock.Instant
    /// The slowest an upload may arrive, measured over each ``window``.
    var minimumBytesPerSecond = 1024
    static let window: Duration = .seconds(30)
    /// Told each buffer's size as it arrives; throws to stop the upload (it lost its slot).
    var progress: (Int) throws -> Void = { _ in }
    private var windowStart = ContinuousClock.now
    private var windowBytes = 0

    init(deadline: ContinuousClock.Instant) {
        self.deadline = deadline
    }

    /// Counts `bytes` just arrived: the deadline, the pace over the current window, the slot.
    mutating func count(_ bytes: Int) throws {
        guard ContinuousClock.now < deadline else { throw APIError.uploadTimedOut("The upload took too long to arrive.") }
        try progress(bytes)
        windowBytes += bytes
        let now = ContinuousClock.now
        guard windowStart.duration(to: now) >= Self.window else { return }
        if windowBytes < minimumBytesPerSecond * Int(Self.window.components.seconds) {
            throw APIError.uploadTimedOut("The upload arrived too slowly (under \(minimumBytesPerSecond) bytes a second).")
        }
        (windowStart, windowBytes) = (now, 0)
    }
}
