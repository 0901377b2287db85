import Foundation

/// JSON as every interface writes it: sorted keys (stable output), unescaped slashes, ISO 8601 dates.
public enum StableJSON {
    /// Throws what `JSONEncoder` throws (a NaN or infinite number, say) rather than writing
    /// something else in its place.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }
}

extension Duration {
    /// Whole nanoseconds (for metrics timers).
    public var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }

    /// Milliseconds rounded to one decimal (for reports).
    public var roundedMilliseconds: Double { (Double(nanoseconds) / 100_000).rounded() / 10 }
}
