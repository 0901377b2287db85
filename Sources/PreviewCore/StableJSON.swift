import Foundation

/// JSON as every interface writes it: sorted keys (stable output), unescaped slashes, ISO 8601 dates.
package enum StableJSON {
    /// How a value's keys are written.
    package enum Keys: Sendable {
        /// As its type names them: canonical parameters and manifests (their bytes are keys of the
        /// derivative cache) and formats with their own spelling (IIIF's `maxWidth`).
        case asNamed
        /// In snake_case (`documentID` is `document_id`): what the API and the CLI print. Keys of
        /// dictionaries are data and stay as they are.
        case snakeCase
    }

    /// Throws what `JSONEncoder` throws (a NaN or infinite number, say) rather than writing
    /// something else in its place.
    package static func encode(_ value: some Encodable, keys: Keys = .asNamed) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if keys == .snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        return Array(try encoder.encode(value))
    }
}

extension Duration {
    /// Whole nanoseconds (for metrics timers).
    package var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }

    /// Seconds, with their fraction (for budgets counted in seconds).
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Milliseconds rounded to one decimal (for reports).
    package var roundedMilliseconds: Double { (Double(nanoseconds) / 100_000).rounded() / 10 }
}
