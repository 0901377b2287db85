import Foundation

/// Limits checked before any decoding (DESIGN §9). All configurable.
public struct Limits: Sendable, Equatable, Codable {
    /// Largest accepted upload or input file.
    package var maxFileBytes: Int = 100 * 1024 * 1024
    /// Largest image, in pixels, judged from its header.
    public var maxPixels: Int = 200_000_000
    /// Wall-clock time one job (probe or render of one file) may take.
    public var jobSeconds: Double = 60
    /// CPU time drawing one PDF page may take (within ``jobSeconds``): a page that takes longer ends
    /// with `timeout` and its renderer goes on to the next call. CPU time, not wall time, so a busy
    /// machine does not fail honest pages: real pages take well under a second, the slowest of the
    /// shared corpus 10–13 s.
    package var pageSeconds: Double = 20
    /// Address space of one renderer child process (`batch`, `serve`, `worker`); 0 for no limit.
    package var rendererMemoryBytes: Int = 4 * 1024 * 1024 * 1024
    /// What an office document's ZIP may unpack to in total, judged from its central directory.
    package var maxUnpackedBytes: Int = 512 * 1024 * 1024
    /// The largest ratio of unpacked to packed bytes over an office document's whole ZIP.
    package var maxCompressionRatio: Int = 200
    /// The most entries an office document's ZIP may hold.
    package var maxArchiveEntries: Int = 10_000
    /// The most pages an office, text or CSV document's PDF pivot gets; later pages are not made.
    package var maxOfficePages: Int = 200
    /// Bytes of on-demand previews (pages and sizes clients asked for; not thumbnails or pivots) the
    /// store keeps, and keeps for one document: beyond, the least recently used are evicted.
    package var previewCacheBytes: Int = 10 * 1024 * 1024 * 1024
    package var previewCacheBytesPerDocument: Int = 256 * 1024 * 1024
    /// The longest video that gets a rendition (a longer one keeps its original and says why).
    public var maxRenditionSeconds: Double = 3 * 3600
    /// The largest video frame, in pixels, that is re-encoded (4096×2160; 8K is refused).
    public var maxRenditionPixels: Int = 4096 * 2160

    public init() {}

    enum CodingKeys: String, CodingKey {
        case maxFileBytes = "max_file_bytes"
        case maxPixels = "max_pixels"
        case jobSeconds = "job_seconds"
        case pageSeconds = "page_seconds"
        case rendererMemoryBytes = "renderer_memory_bytes"
        case maxUnpackedBytes = "max_unpacked_bytes"
        case maxCompressionRatio = "max_compression_ratio"
        case maxArchiveEntries = "max_archive_entries"
        case maxOfficePages = "max_office_pages"
        case previewCacheBytes = "preview_cache_bytes"
        case previewCacheBytesPerDocument = "preview_cache_bytes_per_document"
        case maxRenditionSeconds = "max_rendition_seconds"
        case maxRenditionPixels = "max_rendition_pixels"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxFileBytes = try container.decodeIfPresent(Int.self, forKey: .maxFileBytes) ?? Limits().maxFileBytes
        maxPixels = try container.decodeIfPresent(Int.self, forKey: .maxPixels) ?? Limits().maxPixels
        jobSeconds = try container.decodeIfPresent(Double.self, forKey: .jobSeconds) ?? Limits().jobSeconds
        pageSeconds = try container.decodeIfPresent(Double.self, forKey: .pageSeconds) ?? Limits().pageSeconds
        rendererMemoryBytes = try container.decodeIfPresent(Int.self, forKey: .rendererMemoryBytes) ?? Limits().rendererMemoryBytes
        maxUnpackedBytes = try container.decodeIfPresent(Int.self, forKey: .maxUnpackedBytes) ?? Limits().maxUnpackedBytes
        maxCompressionRatio = try container.decodeIfPresent(Int.self, forKey: .maxCompressionRatio) ?? Limits().maxCompressionRatio
        maxArchiveEntries = try container.decodeIfPresent(Int.self, forKey: .maxArchiveEntries) ?? Limits().maxArchiveEntries
        maxOfficePages = try container.decodeIfPresent(Int.self, forKey: .maxOfficePages) ?? Limits().maxOfficePages
        previewCacheBytes = try container.decodeIfPresent(Int.self, forKey: .previewCacheBytes) ?? Limits().previewCacheBytes
        previewCacheBytesPerDocument =
            try container.decodeIfPresent(Int.self, forKey: .previewCacheBytesPerDocument)
            ?? Limits().previewCacheBytesPerDocument
        maxRenditionSeconds = try container.decodeIfPresent(Double.self, forKey: .maxRenditionSeconds) ?? Limits().maxRenditionSeconds
        maxRenditionPixels = try container.decodeIfPresent(Int.self, forKey: .maxRenditionPixels) ?? Limits().maxRenditionPixels
    }
}

extension Limits {
    /// The largest byte count any limit takes (1 PiB): room to add to, far from `Int.max`.
    package static let maxByteCount = 1 << 50
    /// The longest job time (a week).
    package static let maxJobSeconds: Double = 7 * 24 * 3600

    /// Parses sizes such as `100MB`, `512k`, `1.5G` or plain bytes (binary multiples); nil for
    /// anything else, negative, not finite, or over ``maxByteCount``.
    package static func parseByteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Double)] = [
            ("GB", 0x4000_0000), ("G", 0x4000_0000), ("MB", 0x10_0000), ("M", 0x10_0000),
            ("KB", 0x400), ("K", 0x400), ("B", 1)
        ]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let number = Double(trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)) else { return nil }
            let bytes = number * factor
            guard bytes.isFinite, bytes >= 0, bytes <= Double(maxByteCount) else { return nil }
            return Int(bytes)
        }
        return Int(trimmed).flatMap { (0...maxByteCount).contains($0) ? $0 : nil }
    }

    /// What is wrong with these limits, for a person; nil when every one is in range.
    package var problem: String? {
        if !(1...Self.maxByteCount).contains(maxFileBytes) { return "max_file_bytes must be between 1 and \(Self.maxByteCount)" }
        if !(1...(1 << 40)).contains(maxPixels) { return "max_pixels must be between 1 and \(1 << 40)" }
        if !(jobSeconds.isFinite && jobSeconds > 0 && jobSeconds <= Self.maxJobSeconds) {
            return "job_seconds must be more than 0 and at most \(Int(Self.maxJobSeconds))"
        }
        if !(pageSeconds.isFinite && pageSeconds > 0 && pageSeconds <= Self.maxJobSeconds) {
            return "page_seconds must be more than 0 and at most \(Int(Self.maxJobSeconds))"
        }
        if !(0...Self.maxByteCount).contains(rendererMemoryBytes) {
            return "renderer_memory_bytes must be between 0 (no limit) and \(Self.maxByteCount)"
        }
        if !(1...Self.maxByteCount).contains(maxUnpackedBytes) { return "max_unpacked_bytes must be between 1 and \(Self.maxByteCount)" }
        if !(1...1_000_000).contains(maxCompressionRatio) { return "max_compression_ratio must be between 1 and 1000000" }
        if !(1...1_000_000).contains(maxArchiveEntries) { return "max_archive_entries must be between 1 and 1000000" }
        if !(1...100_000).contains(maxOfficePages) { return "max_office_pages must be between 1 and 100000" }
        if !(0...Self.maxByteCount).contains(previewCacheBytes) { return "preview_cache_bytes must be between 0 and \(Self.maxByteCount)" }
        if !(0...Self.maxByteCount).contains(previewCacheBytesPerDocument) {
            return "preview_cache_bytes_per_document must be between 0 and \(Self.maxByteCount)"
        }
        if !(maxRenditionSeconds.isFinite && maxRenditionSeconds > 0) { return "max_rendition_seconds must be more than 0" }
        if !(1...(1 << 40)).contains(maxRenditionPixels) { return "max_rendition_pixels must be between 1 and \(1 << 40)" }
        return nil
    }

    /// The time one page may take to draw: ``pageSeconds``, never more than the whole job.
    public var pageBudget: Double { min(pageSeconds, jobSeconds) }

    /// How a size limit reads to people: `100MB`, `512KB`, or bytes.
    package static func describe(byteCount: Int) -> String {
        if byteCount >= 1 << 20 && byteCount % (1 << 20) == 0 { return "\(byteCount >> 20)MB" }
        if byteCount >= 1 << 10 && byteCount % (1 << 10) == 0 { return "\(byteCount >> 10)KB" }
        return "\(byteCount) bytes"
    }
}
