// Over 300 lines for a reason: one exhaustive switch per fact of every kind (category, extensions, MIME type,
// label), so a kind added without all its facts does not compile.

/// What a file's bytes say it is. Detected from content, never from the name.
public enum FileKind: String, CaseIterable, Sendable, Codable {
    // Video containers
    case mp4, mov, threeGP = "3gp", f4v, avi, webm, mkv, flv, asf, mpegPS = "mpeg-ps", mpegTS = "mpeg-ts", ogv, ivf
    // Audio containers (handled by the video renderer, which reports `no_video_stream`)
    case m4a, mp3, wav, flac, oga, aac, amr
    // Documents
    case pdf
    // Images
    case jpeg, png, gif, webp, heic, avif, tiff, bmp, ico, svg, jxl, jp2
    // Office and text: previews through a PDF pivot that LibreOffice makes
    case doc, xls, ppt, docx, xlsx, pptx, ooxml, odt, ods, odp, rtf, text, csv
    // Refused: formats we do not take
    case heifSequence = "heif-sequence", ole2, encryptedOffice = "encrypted-office", zip, gzip, sevenZip = "7z", rar, bzip2, xz
    case html, xml, postscript
    // Refused always: executables
    case elf, pe, machO = "mach-o", javaClass = "java-class", wasm, script
    /// Bytes that match no format we know.
    case unknown

    /// How the pipeline treats a kind.
    package enum Category: String, Sendable {
        case video, audio, pdf, image, office, text, archive, executable, other
    }

    package var category: Category {
        switch self {
        case .mp4, .mov, .threeGP, .f4v, .avi, .webm, .mkv, .flv, .asf, .mpegPS, .mpegTS, .ogv, .ivf: .video
        case .m4a, .mp3, .wav, .flac, .oga, .aac, .amr: .audio
        case .pdf: .pdf
        case .jpeg, .png, .gif, .webp, .heic, .avif, .tiff, .bmp, .ico, .svg, .jxl, .jp2: .image
        case .doc, .xls, .ppt, .docx, .xlsx, .pptx, .ooxml, .odt, .ods, .odp, .rtf, .encryptedOffice: .office
        case .text, .csv: .text
        case .zip, .gzip, .sevenZip, .rar, .bzip2, .xz: .archive
        case .elf, .pe, .machO, .javaClass, .wasm, .script: .executable
        case .heifSequence, .ole2, .html, .xml, .postscript, .unknown: .other
        }
    }

    /// What the pipeline can make of this kind.
    package enum Support: Sendable {
        /// A renderer makes previews from it.
        case preview
        /// Accepted and stored; its preview status is "no preview".
        case storeOnly
        /// Refused with `unsupported_type`.
        case unsupported
        /// Refused with `executable_refused`.
        case executable
    }

    package var support: Support {
        switch category {
        case .video, .audio, .pdf, .image, .office, .text: self == .encryptedOffice ? .storeOnly : .preview
        case .archive, .other: .unsupported
        case .executable: .executable
        }
    }

    /// Whether previews of this kind have pages: PDFs, and office documents, text and CSV (through
    /// the PDF they are converted to).
    package var isPaged: Bool {
        category == .pdf || ((category == .office || category == .text) && support == .preview)
    }

    /// Extensions (lower case, no dot) that name this kind; the first is the canonical one.
    package var extensions: [String] {
        switch self {
        case .mp4: ["mp4", "m4v"]
        case .mov: ["mov", "qt"]
        case .threeGP: ["3gp", "3g2", "3gpp"]
        case .f4v: ["f4v"]
        case .avi: ["avi"]
        case .webm: ["webm"]
        case .mkv: ["mkv"]
        case .flv: ["flv"]
        case .asf: ["wmv", "asf"]
        case .mpegPS: ["mpg", "mpeg", "vob"]
        case .mpegTS: ["ts", "mts", "m2ts"]
        case .ogv: ["ogv", "ogg"]
        case .ivf: ["ivf"]
        case .m4a: ["m4a", "m4b"]
        case .mp3: ["mp3"]
        case .wav: ["wav"]
        case .flac: ["flac"]
        case .oga: ["oga", "ogg", "opus"]
        case .aac: ["aac"]
        case .amr: ["amr"]
        case .pdf: ["pdf"]
        case .jpeg: ["jpg", "jpeg", "jpe", "jfif"]
        case .png: ["png"]
        case .gif: ["gif"]
        case .webp: ["webp"]
        case .heic: ["heic", "heif"]
        case .avif: ["avif"]
        case .tiff: ["tif", "tiff"]
        case .bmp: ["bmp", "dib"]
        case .ico: ["ico"]
        case .svg: ["svg", "svgz"]
        case .jxl: ["jxl"]
        case .jp2: ["jp2", "j2k", "jpx"]
        case .doc: ["doc", "dot"]
        case .xls: ["xls"]
        case .ppt: ["ppt"]
        case .docx: ["docx"]
        case .xlsx: ["xlsx"]
        case .pptx: ["pptx"]
        case .ooxml: []
        case .odt: ["odt"]
        case .ods: ["ods"]
        case .odp: ["odp"]
        case .text: ["txt", "text", "md", "log"]
        case .csv: ["csv", "tsv"]
        case .heifSequence: ["heics", "avis"]
        case .ole2: ["cfb", "msg", "msi"]
        case .encryptedOffice: ["docx", "xlsx", "pptx", "doc", "xls", "ppt"]
        case .zip: ["zip", "jar"]
        case .gzip: ["gz", "tgz"]
        case .sevenZip: ["7z"]
        case .rar: ["rar"]
        case .bzip2: ["bz2"]
        case .xz: ["xz"]
        case .html: ["html", "htm"]
        case .xml: ["xml"]
        case .rtf: ["rtf"]
        case .postscript: ["ps", "eps"]
        case .elf: ["so", "o", "elf"]
        case .pe: ["exe", "dll", "com", "scr"]
        case .machO: ["dylib"]
        case .javaClass: ["class"]
        case .wasm: ["wasm"]
        case .script: ["sh", "bash", "py", "pl", "rb"]
        case .unknown: []
        }
    }

    /// Kinds in one family are the same thing under different names (an MP4 saved as `.mov`):
    /// an extension of one family member accepts the bytes of another as an `alias`.
    var family: String {
        switch self {
        case .mp4, .mov, .threeGP, .f4v, .m4a: "isobmff"
        case .ogv, .oga: "ogg"
        case .heic, .avif, .heifSequence: "heif"
        case .webm, .mkv: "matroska"
        case .text, .csv: "text"
        case .doc, .xls, .ppt, .encryptedOffice, .ole2: "ole2-office"
        default: rawValue
        }
    }

    package var mime: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .threeGP: "video/3gpp"
        case .f4v: "video/x-f4v"
        case .avi: "video/x-msvideo"
        case .webm: "video/webm"
        case .mkv: "video/x-matroska"
        case .flv: "video/x-flv"
        case .asf: "video/x-ms-asf"
        case .mpegPS: "video/mpeg"
        case .mpegTS: "video/mp2t"
        case .ogv: "video/ogg"
        case .ivf: "video/x-ivf"
        case .m4a: "audio/mp4"
        case .mp3: "audio/mpeg"
        case .wav: "audio/wav"
        case .flac: "audio/flac"
        case .oga: "audio/ogg"
        case .aac: "audio/aac"
        case .amr: "audio/amr"
        case .pdf: "application/pdf"
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/vnd.microsoft.icon"
        case .svg: "image/svg+xml"
        case .jxl: "image/jxl"
        case .jp2: "image/jp2"
        case .doc: "application/msword"
        case .xls: "application/vnd.ms-excel"
        case .ppt: "application/vnd.ms-powerpoint"
        case .docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
        case .xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
        case .pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation"
        case .ooxml: "application/vnd.openxmlformats-package"
        case .odt: "application/vnd.oasis.opendocument.text"
        case .ods: "application/vnd.oasis.opendocument.spreadsheet"
        case .odp: "application/vnd.oasis.opendocument.presentation"
        case .text: "text/plain"
        case .csv: "text/csv"
        case .heifSequence: "image/heic-sequence"
        case .ole2, .encryptedOffice: "application/x-ole-storage"
        case .zip: "application/zip"
        case .gzip: "application/gzip"
        case .sevenZip: "application/x-7z-compressed"
        case .rar: "application/vnd.rar"
        case .bzip2: "application/x-bzip2"
        case .xz: "application/x-xz"
        case .html: "text/html"
        case .xml: "application/xml"
        case .rtf: "application/rtf"
        case .postscript: "application/postscript"
        case .elf: "application/x-executable"
        case .pe: "application/vnd.microsoft.portable-executable"
        case .machO: "application/x-mach-binary"
        case .javaClass: "application/java-vm"
        case .wasm: "application/wasm"
        case .script: "text/x-shellscript"
        case .unknown: "application/octet-stream"
        }
    }

    /// How a person would name it, with its article: "a PDF", "a ZIP archive".
    package var label: String {
        switch self {
        case .mp4: "an MP4 video"
        case .mov: "a QuickTime video"
        case .threeGP: "a 3GP video"
        case .f4v: "an F4V video"
        case .avi: "an AVI video"
        case .webm: "a WebM video"
        case .mkv: "a Matroska video"
        case .flv: "a Flash video"
        case .asf: "a Windows Media video"
        case .mpegPS: "an MPEG video"
        case .mpegTS: "an MPEG transport stream"
        case .ogv: "an Ogg video"
        case .ivf: "an IVF video"
        case .m4a: "an MPEG-4 audio file"
        case .mp3: "an MP3 audio file"
        case .wav: "a WAV audio file"
        case .flac: "a FLAC audio file"
        case .oga: "an Ogg audio file"
        case .aac: "an AAC audio file"
        case .amr: "an AMR audio file"
        case .pdf: "a PDF"
        case .jpeg: "a JPEG image"
        case .png: "a PNG image"
        case .gif: "a GIF image"
        case .webp: "a WebP image"
        case .heic: "a HEIC image"
        case .avif: "an AVIF image"
        case .tiff: "a TIFF image"
        case .bmp: "a BMP image"
        case .ico: "an icon file"
        case .svg: "an SVG image"
        case .jxl: "a JPEG XL image"
        case .jp2: "a JPEG 2000 image"
        case .doc: "a Word document"
        case .xls: "an Excel spreadsheet"
        case .ppt: "a PowerPoint presentation"
        case .docx: "a Word document"
        case .xlsx: "an Excel spreadsheet"
        case .pptx: "a PowerPoint presentation"
        case .ooxml: "an Office Open XML document"
        case .odt: "an OpenDocument text"
        case .ods: "an OpenDocument spreadsheet"
        case .odp: "an OpenDocument presentation"
        case .text: "plain text"
        case .csv: "a CSV table"
        case .heifSequence: "a HEIF image sequence"
        case .ole2: "an OLE2 compound file"
        case .encryptedOffice: "a password-protected Office document"
        case .zip: "a ZIP archive"
        case .gzip: "a gzip archive"
        case .sevenZip: "a 7-Zip archive"
        case .rar: "a RAR archive"
        case .bzip2: "a bzip2 archive"
        case .xz: "an xz archive"
        case .html: "an HTML page"
        case .xml: "an XML document"
        case .rtf: "an RTF document"
        case .postscript: "a PostScript file"
        case .elf: "an ELF executable"
        case .pe: "a Windows executable"
        case .machO: "a Mach-O executable"
        case .javaClass: "a Java class file"
        case .wasm: "a WebAssembly module"
        case .script: "a script"
        case .unknown: "unrecognised data"
        }
    }

    /// True when `other` is a specific form of this kind: an Office Open XML package whose main
    /// part we could not see may be any of DOCX, XLSX or PPTX.
    func generalises(_ other: FileKind) -> Bool {
        self == .ooxml && [.docx, .xlsx, .pptx].contains(other)
    }

    /// The kinds whose extension list holds `ext` (lower case, no dot).
    package static func claiming(extension ext: String) -> [FileKind] {
        extensionIndex[ext] ?? []
    }

    private static let extensionIndex: [String: [FileKind]] = {
        var index: [String: [FileKind]] = [:]
        for kind in FileKind.allCases where kind != .encryptedOffice {
            for ext in kind.extensions { index[ext, default: []].append(kind) }
        }
        return index
    }()
}
