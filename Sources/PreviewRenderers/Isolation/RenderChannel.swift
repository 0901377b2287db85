import Foundation
import PreviewCore

/// What a parent asks a renderer child (one line of work on one file).
struct RenderCall: Codable {
    enum Operation: String, Codable {
        case probe, render, convert
        /// A video's rendition, written to `output`; its HLS ladder, written to the folder `output`;
        /// a sheet set of scrubbing thumbnails, written into the folder `output`.
        case transcode, ladder, sprites
        /// A video's plays (``PlayIndexer``): facts only.
        case plays
        /// A part of a video (`span`) cut by stream copy (``VideoClipping``), written to `output`.
        case clip
        /// A video's teaser of `spans` (``VideoTeaser``), written to `output`.
        case teaser
        /// An image's tiled pyramid (a pyramidal TIFF), written to `output`.
        case pyramid
        /// The words of a PDF's page `request.page` (its ``PageText`` follows the header frame, as ``PageTextWire`` writes it).
        case text
        /// The words of a PDF's page `request.page`, or of an image, read from its pixels in `languages`
        /// (its ``PageText`` follows the header frame, as ``PageTextWire`` writes it).
        case ocr

        /// Whether the call writes a rendition (its files may be large; it reports its progress).
        var encodes: Bool { self == .transcode || self == .ladder }

        /// Whether an answer's bytes follow its header frame (the rest write files, or send only facts).
        var sendsBytes: Bool { self == .render || self == .convert || self == .text || self == .ocr }
    }
    var operation: Operation
    var kind: FileKind
    var path: String
    var request: RenderRequest?
    /// Where a transcode, ladder, sprites, pyramid or clip call writes.
    var output: String?
    /// The seconds a clip starts and ends at.
    var span: MediaSpan?
    /// The spans a teaser shows.
    var spans: [MediaSpan]?
    /// The time of the poster the opening's rule chose, scored by a `plays` call beside the plays' posters.
    var opening: Double?
    var renditions: RenditionSettings?
    /// Burned into every frame of a `transcode` call's rendition.
    var watermark: Watermark?
    /// Wall-clock seconds the call may take, when not the job time (a transcode's follow its video's length).
    var seconds: Double?
    /// The languages an `ocr` call reads in (``Configuration/ocrLanguages``).
    var languages: String?
}

/// What the child answers: the facts, or the image's description (its bytes follow the header
/// frame), or the error with its stable code.
struct RenderReply: Codable {
    struct Failure: Codable {
        var code: String
        var message: String
        var detail: String?

        init(_ error: PreviewError) {
            code = error.code.rawValue
            message = error.message
            detail = error.detail
        }
    }
    var facts: MediaFacts?
    /// A transcode's or ladder's fraction done (0–1), sent before its answer as often as it advances by a percent.
    var progress: Double?
    var rendition: VideoTranscoding.Rendition?
    var ladder: [VideoLadder.Rung]?
    var sprites: ScrubbingSprites.Files?
    var plays: PlayIndexer.Index?
    var clip: VideoClipping.Clip?
    var teaser: VideoTeaser.Teaser?
    var width: Int?
    var height: Int?
    var format: RenderRequest.Format?
    var failure: Failure?
    /// The child asks to be replaced after this answer (it grew past its memory bound, or has
    /// converted as many office documents as one child may).
    var retire: Bool?
    /// An office conversion's first page, rendered as its call's request asks (the image's bytes
    /// follow), sent ahead of the pivot.
    var firstPage: Bool?
}

extension RenderReply {
    /// Whether this could be an honest answer to `call`: a failure with a known code, facts for a
    /// probe, or an image of the asked format within the size any render may have.
    func isPlausible(for call: RenderCall, bytes: [UInt8]?) -> Bool {
        if let failure { return PreviewError.Code(rawValue: failure.code) != nil && failure.message.count < 4096 }
        switch call.operation {
        case .probe, .pyramid: return bytes == nil
        case .transcode: return bytes == nil && rendition != nil
        case .ladder:
            // Its rungs name the files the parent stores: plain names, nothing outside the folder.
            return bytes == nil && ladder.map { !$0.isEmpty && $0.allSatisfy { $0.name.allSatisfy { $0.isLetter || $0.isNumber } } } == true
        case .sprites: return bytes == nil && sprites.map { $0.sheets.allSatisfy { !$0.name.contains("/") } } == true
        case .plays: return bytes == nil && plays.map(\.isPlausible) == true
        case .clip: return bytes == nil && clip.map { $0.start.isFinite && $0.end.isFinite && $0.start < $0.end } == true
        case .teaser: return bytes == nil && teaser.map { $0.size > 0 && $0.width > 0 && $0.height > 0 } == true
        case .convert: return bytes.map { $0.starts(with: Array("%PDF-".utf8)) } == true
        case .text, .ocr: return bytes.map { $0.first == PageTextWire.format } == true
        case .render:
            return isPlausibleImage(for: call, bytes: bytes)
        }
    }

    /// Whether this could be an image rendered as `call` asked: not empty, within the largest
    /// edges, of the asked format.
    func isPlausibleImage(for call: RenderCall, bytes: [UInt8]?) -> Bool {
        let edges = 1...RenderRequest.maxEdge
        return bytes.map { !$0.isEmpty } == true && width.map(edges.contains) == true && height.map(edges.contains) == true
            && format == (call.request ?? RenderRequest()).format
    }
}

/// Length-prefixed frames (4-byte big-endian length, then the bytes) over a pipe's file descriptor.
enum RenderChannel {
    /// The largest call or reply header: a few hundred bytes of JSON in practice.
    static let maxMessage = 1 << 20
    /// The largest encoded image: 4096² pixels as an uncompressed PNG is 48 MiB.
    static let maxImage = 64 << 20
    /// The largest PDF pivot: what a child may write to a file (its RLIMIT_FSIZE) but while it encodes.
    static let maxPivot = 64 << 20
    /// The largest rendition (or rung of a ladder) an encoding call may write.
    static let maxRendition = 8 << 30

    enum Failure: Error {
        /// The other end closed the pipe (the child exited or crashed).
        case closed
        /// Nothing complete arrived before the deadline.
        case timedOut
        case malformed
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var length = UInt32(bytes.count).bigEndian
        let header = withUnsafeBytes(of: &length) { Array($0) }
        try writeAll(header, to: descriptor)
        try writeAll(bytes, to: descriptor)
    }

    static func write(_ value: some Encodable, to descriptor: Int32) throws(Failure) {
        guard let data = try? JSONEncoder().encode(value) else { throw .malformed }
        try write([UInt8](data), to: descriptor)
    }

    /// When a wait for the other end gives up: at ``instant``, unless `extend` then grants a later one.
    final class Deadline {
        private(set) var instant: ContinuousClock.Instant
        private let extend: () -> ContinuousClock.Instant?

        init(_ instant: ContinuousClock.Instant, extend: @escaping () -> ContinuousClock.Instant? = { nil }) {
            (self.instant, self.extend) = (instant, extend)
        }

        /// Moves ``instant`` to the later one `extend` grants; false when it grants none.
        func extended() -> Bool {
            guard let later = extend() else { return false }
            instant = later
            return true
        }
    }

    /// The next frame, `.malformed` when it announces more than `limit` bytes; waits at most until
    /// `deadline` (nil: as long as it takes).
    static func read(from descriptor: Int32, limit: Int, deadline: Deadline?) throws(Failure) -> [UInt8] {
        let header = try readExactly(4, from: descriptor, deadline: deadline)
        let length = Int(header.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self).bigEndian })
        guard length <= limit else { throw .malformed }
        return try readExactly(length, from: descriptor, deadline: deadline)
    }

    static func read<T: Decodable>(_ type: T.Type, from descriptor: Int32, limit: Int, deadline: Deadline?) throws(Failure) -> T {
        let bytes = try read(from: descriptor, limit: limit, deadline: deadline)
        guard let value = try? JSONDecoder().decode(type, from: Data(bytes)) else { throw .malformed }
        return value
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            offset += written
        }
    }

    private static func readExactly(_ count: Int, from descriptor: Int32, deadline: Deadline?) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            if let deadline {
                let remaining = ContinuousClock.now.duration(to: deadline.instant)
                guard remaining > .zero else {
                    guard deadline.extended() else { throw .timedOut }
                    continue
                }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = Int32(min(Double(Int32.max), max(1, (remaining / .milliseconds(1)).rounded(.up))))
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 {
                    if errno == EINTR { continue }
                    throw .closed
                }
                if ready == 0 { continue }
            }
            let received = bytes[offset...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if received < 0 {
                if errno == EINTR { continue }
                throw .closed
            }
            if received == 0 { throw .closed }
            offset += received
        }
        return bytes
    }
}
