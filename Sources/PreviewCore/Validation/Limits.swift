import Foundation

/// Limits checked before any decoding (DESIGN §9). All configurable.
public struct Limits: Sendable, Equatable, Codable {
    /// Largest accepted upload or input file.
    public var maxFileBytes: Int = 100 * 1024 * 1024
    /// Largest image, in pixels, judged from its header.
    public var maxPixels: Int = 200_000_000
    /// Wall-clock time one job (probe or render of one file) may take.
    public var jobSeconds: Double = 60
    /// Address space of one renderer child process (`batch`, `serve`, `worker`); 0 for no limit.
    public var rendererMemoryBytes: Int = 4 * 1024 * 1024 * 1024

    public init() {}

    enum CodingKeys: String, CodingKey {
        case maxFileBytes = "max_file_bytes"
        case maxPixels = "max_pixels"
        case jobSeconds = "job_seconds"
        case rendererMemoryBytes = "renderer_memory_bytes"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxFileBytes = try container.decodeIfPresent(Int.self, forKey: .maxFileBytes) ?? Limits().maxFileBytes
        maxPixels = try container.decodeIfPresent(Int.self, forKey: .maxPixels) ?? Limits().maxPixels
        jobSeconds = try container.decodeIfPresent(Double.self, forKey: .jobSeconds) ?? Limits().jobSeconds
        rendererMemoryBytes = try container.decodeIfPresent(Int.self, forKey: .rendererMemoryBytes) ?? Limits().rendererMemoryBytes
    }
}

extension Limits {
    /// Parses sizes such as `100MB`, `512k`, `1.5G` or plain bytes (binary multiples).
    public static func parseByteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [("GB", 0x4000_0000), ("G", 0x4000_0000), ("MB", 0x10_0000), ("M", 0x10_0000),
                                         ("KB", 0x400), ("K", 0x400), ("B", 1)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let number = Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)),
                  number >= 0 else { return nil }
            return Int(number * factor)
        }
        return Int(trimmed).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// How a size limit reads to people: `100MB`, `512KB`, or bytes.
    public static func describe(byteCount: Int) -> String {
        if byteCount >= 1 << 20 && byteCount % (1 << 20) == 0 { return "\(byteCount >> 20)MB" }
        if byteCount >= 1 << 10 && byteCount % (1 << 10) == 0 { return "\(byteCount >> 10)KB" }
        return "\(byteCount) bytes"
    }
}
