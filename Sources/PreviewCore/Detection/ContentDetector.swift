/// Detects a file's kind from its bytes: magic numbers first, then container structure
/// (ISO-BMFF brands, ZIP and OLE2 directories), then text. Reads only a ``ByteProbe``.
package enum ContentDetector {
    /// Detects the kind of the probed bytes.
    ///
    /// - Parameter fileExtension: only used to tell a gzip-compressed SVG (`.svgz`) from any other gzip
    ///   stream, which the bytes alone cannot do without inflating them.
    package static func detect(_ probe: ByteProbe, fileExtension: String? = nil) -> Detection {
        guard probe.size > 0 else { return Detection(kind: .unknown) }
        var detection = sniffContainer(probe)
        if detection.kind == .gzip && fileExtension == "svgz" {
            detection.kind = .svg
            detection.damage = implausibleGzipSize(probe)
        }
        if detection.trailing == nil { detection.trailing = TrailingDataFinder.find(in: probe, kind: detection.kind) }
        return detection
    }

    /// What a file's first ``ByteProbe/windowSize`` bytes decide alone: the kind (and damage of
    /// its header) ``detect(_:fileExtension:)`` finds in the whole file of `size` bytes (nil: more
    /// than `head`, how many not yet known), but no trailing data. Nil where the rest of the file
    /// could change the kind: a file no longer
    /// than the window, ZIP and OLE2 containers (their directories lie further in), BMP and ICO
    /// headers of a file whose size is unknown, and bytes not recognised.
    package static func detectionDecided(byHead head: [UInt8], size: Int?, fileExtension: String?) -> Detection? {
        guard head.count == ByteProbe.windowSize, (size ?? Int.max) > head.count else { return nil }
        let containers: [[UInt8]] = [[0x50, 0x4B], [0xD0, 0xCF, 0x11, 0xE0]]
        if containers.contains(where: { head.matches($0) }) { return nil }
        if size == nil && (head.matches("BM") || head.matches([0, 0, 1, 0])) { return nil }
        // Only the head is read; the size is what the text and image sniffers weigh it against.
        let probe = ByteProbe(size: size ?? Int.max) { offset, count in
            offset >= 0 && offset < head.count ? Array(head[offset..<min(head.count, offset + count)]) : []
        }
        var detection = sniffContainer(probe)
        if detection.kind == .gzip && fileExtension == "svgz" { detection.kind = .svg }
        return detection.kind == .unknown ? nil : detection
    }

    /// Deflate expands at most ~1032:1, so a gzip trailer (ISIZE, the size mod 2³²) declaring more
    /// than that is a truncated stream or a bomb. SVG renderers can spin on truncated gzip input.
    private static func implausibleGzipSize(_ probe: ByteProbe) -> String? {
        guard let declared = probe.tail.u32le(probe.tail.count - 4) else { return nil }
        return Int(declared) > probe.size * 1032 ? "its gzip stream is truncated (the trailer declares \(declared) bytes)" : nil
    }

    /// The kind named by magic numbers alone, for a short run of bytes (used on trailing payloads).
    static func sniffMagic(_ head: [UInt8]) -> FileKind {
        // Any ZIP record (local header, central directory, end record) marks an appended archive.
        if head.matches("PK"), let record = head.u16le(2), [0x0201, 0x0403, 0x0605, 0x0807].contains(record) { return .zip }
        return sniffContainer(ByteProbe(bytes: head)).kind
    }

    private static func sniffContainer(_ probe: ByteProbe) -> Detection {
        let head = probe.head
        if let kind = sniffExecutable(head) { return Detection(kind: kind) }
        if let kind = sniffImage(head, size: probe.size) { return Detection(kind: kind) }
        if let kind = sniffMedia(head) { return Detection(kind: kind) }
        if head.matches([0x50, 0x4B, 0x03, 0x04]) || head.matches([0x50, 0x4B, 0x05, 0x06]) {
            return ZipSniffer.detect(probe)
        }
        if head.matches([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) { return OLE2Sniffer.detect(probe) }
        if let kind = sniffArchive(head) { return Detection(kind: kind) }
        // PDF readers accept the header anywhere in the first 1024 bytes.
        if head.prefix(1024).firstOffset(of: Array("%PDF-".utf8)) != nil { return Detection(kind: .pdf) }
        if hasPDFBody(head) { return Detection(kind: .pdf, damage: "its %PDF header is missing") }
        if head.matches("{\\rtf") { return Detection(kind: .rtf) }
        if head.matches("%!PS") { return Detection(kind: .postscript) }
        if let kind = TextSniffer.detect(head, isWholeFile: probe.size == head.count) { return Detection(kind: kind) }
        return Detection(kind: .unknown)
    }

    /// PDF object syntax (`n g obj … endobj`, `startxref`, `trailer`) without the header: a damaged PDF.
    private static func hasPDFBody(_ head: [UInt8]) -> Bool {
        let window = head.prefix(4096)
        let hasObject = window.firstOffset(of: Array(" 0 obj".utf8)) != nil
        let hasStructure = ["endobj", "startxref", "trailer", "/Type"].contains { window.firstOffset(of: Array($0.utf8)) != nil }
        return hasObject && hasStructure
    }

    private static func sniffExecutable(_ head: [UInt8]) -> FileKind? {
        if head.matches([0x7F, 0x45, 0x4C, 0x46]) { return .elf }
        if let magic = head.u32be(0) {
            switch magic {
            case 0xFEED_FACE, 0xFEED_FACF, 0xCEFA_EDFE, 0xCFFA_EDFE: return .machO
            // Fat Mach-O and Java class files share CAFEBABE: a fat binary holds a handful of architectures,
            // a class file's next word is its version (45 or more).
            case 0xCAFE_BABE: return (head.u32be(4) ?? 0) < 45 ? .machO : .javaClass
            default: break
            }
        }
        if head.matches([0x00, 0x61, 0x73, 0x6D]) { return .wasm }
        if head.matches("MZ") {
            if let lfanew = head.u32le(0x3C), head.matches("PE\0\0", at: Int(lfanew)) { return .pe }
            // A DOS executable has no PE header; text that merely starts with "MZ" is not one.
            if TextSniffer.detect(head, isWholeFile: false) == nil { return .pe }
        }
        if head.matches("#!") && !head.matches("#!AMR") { return .script }
        return nil
    }

    private static func sniffImage(_ head: [UInt8], size: Int) -> FileKind? {
        if head.matches([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.matches("GIF87a") || head.matches("GIF89a") { return .gif }
        if head.matches("II*\0") || head.matches("MM\0*") || head.matches("II+\0") || head.matches("MM\0+") { return .tiff }
        if head.matches("RIFF") && head.matches("WEBP", at: 8) { return .webp }
        if head.matches([0xFF, 0x0A]) || head.matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if head.matches([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || head.matches([0xFF, 0x4F, 0xFF, 0x51]) {
            return .jp2
        }
        if isBMP(head, size: size) { return .bmp }
        if isICO(head, size: size) { return .ico }
        return nil
    }

    /// "BM" is also how plenty of text starts ("BMW …"): require a plausible header.
    private static func isBMP(_ head: [UInt8], size: Int) -> Bool {
        guard head.matches("BM"), let reserved = head.u32le(6), let dataOffset = head.u32le(10),
            let infoSize = head.u32le(14)
        else { return false }
        return reserved == 0 && [12, 16, 40, 52, 56, 64, 108, 124].contains(infoSize)
            && Int(dataOffset) >= 14 + Int(infoSize) && Int(dataOffset) <= size
    }

    private static func isICO(_ head: [UInt8], size: Int) -> Bool {
        guard head.matches([0, 0, 1, 0]), let count = head.u16le(4), count > 0,
            let reserved = head.u8(9), let planes = head.u16le(10), let offset = head.u32le(18)
        else { return false }
        return reserved == 0 && planes <= 1 && Int(offset) >= 6 + 16 * Int(count) && Int(offset) < size
    }

    private static func sniffMedia(_ head: [UInt8]) -> FileKind? {
        if head.matches("ftyp", at: 4) { return ISOBMFFBrands.kind(ofFtypIn: head) }
        // No ftyp: QuickTime files may start with any top-level atom; media segments start with styp/sidx/moof.
        if let atom = head.fourCC(4), let size = head.u32be(0), size >= 8 || size == 1 {
            if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(atom) { return .mov }
            if ["styp", "sidx", "moof"].contains(atom) { return .mp4 }
        }
        if head.matches("RIFF") {
            if head.matches("AVI ", at: 8) { return .avi }
            if head.matches("WAVE", at: 8) { return .wav }
        }
        if head.matches([0x1A, 0x45, 0xDF, 0xA3]) {
            return head.prefix(64).firstOffset(of: Array("webm".utf8)) != nil ? .webm : .mkv
        }
        if head.matches("FLV\u{01}") { return .flv }
        if head.matches([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]) {
            return .asf
        }
        if head.matches([0, 0, 1, 0xBA]) || head.matches([0, 0, 1, 0xB3]) { return .mpegPS }
        if isTransportStream(head) { return .mpegTS }
        if head.matches("OggS") {
            return head.prefix(512).firstOffset(of: Array("theora".utf8)) != nil
                || head.prefix(512).firstOffset(of: Array("\u{01}video".utf8)) != nil ? .ogv : .oga
        }
        if head.matches("DKIF") { return .ivf }
        if head.matches("ID3") { return .mp3 }
        if head.matches("fLaC") { return .flac }
        if head.matches("#!AMR") { return .amr }
        if let sync = head.u16be(0) {
            if sync & 0xFFF6 == 0xFFF0 { return .aac }  // ADTS: 12-bit sync, layer 00
            // MPEG-1/2 Layer III frame with a valid bitrate and rate (Layer I would also match
            // a UTF-16 byte-order mark, FF FE).
            if sync & 0xFFE6 == 0xFFE2, let third = head.u8(2), third & 0xF0 != 0xF0, third & 0x0C != 0x0C {
                return .mp3
            }
        }
        return nil
    }

    /// 188-byte packets (or 192 with a 4-byte timecode, as in AVCHD .mts) each starting with 0x47.
    private static func isTransportStream(_ head: [UInt8]) -> Bool {
        for (start, stride) in [(0, 188), (4, 192)] {
            let packets = (0..<4).map { start + $0 * stride }
            if packets.allSatisfy({ head.u8($0) == 0x47 }) { return true }
        }
        return false
    }

    private static func sniffArchive(_ head: [UInt8]) -> FileKind? {
        if head.matches([0x1F, 0x8B]) { return .gzip }
        if head.matches([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C]) { return .sevenZip }
        if head.matches("Rar!\u{1A}\u{07}") { return .rar }
        if head.matches("BZh") { return .bzip2 }
        if head.matches([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        return nil
    }
}
