import ArgumentParser

/// Range checks for numeric options: a value out of range is a usage error (exit 2), never a trap
/// further down (an overflowing duration, a thread per job for a billion jobs).
enum OptionRange {
    static func check(_ name: String, _ value: Int, _ range: ClosedRange<Int>) throws {
        guard range.contains(value) else { throw ValidationError("\(name) must be between \(range.lowerBound) and \(range.upperBound).") }
    }

    static func check(_ name: String, _ value: Double, _ range: ClosedRange<Double>) throws {
        guard value.isFinite, range.contains(value) else {
            throw ValidationError("\(name) must be a number between \(range.lowerBound) and \(range.upperBound).")
        }
    }
}
