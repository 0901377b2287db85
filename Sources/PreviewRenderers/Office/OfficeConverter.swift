internal import CProcessControl
import Foundation
import PreviewCore
import PreviewOffice

/// Makes the PDF pivot of an office document, a text or a CSV file with LibreOffice, in the
/// process it runs in: renderer children only (``RendererChild``), never a parent. Text and CSV are
/// decoded here (encoding and delimiter detected) and handed to LibreOffice as flat OpenDocument,
/// so no import dialog can wait for an answer; office files are loaded in batch mode with macros off.
struct OfficeConverter {
    /// Where the child's office keeps its user profile; set by the parent per child slot.
    static let profileVariable = "DOCPREVIEW_OFFICE_PROFILE"
    /// The child's workspace (its inbox and temporary files); set by the parent per child slot.
    static let workspaceVariable = "DOCPREVIEW_OFFICE_WORKSPACE"
    /// Lines of text per page at 9 pt on A4, rounded up: text beyond the page cap is not laid out at all.
    static let linesPerPage = 70
    /// Rows of a CSV table per page, rounded up.
    static let rowsPerPage = 60
    static let maxColumns = 256
    /// Longest text line kept: a line beyond it is cut (a one-line file still makes pages, not a wait).
    static let maxLineLength = 2_000

    let limits: Limits

    /// A conversion's PDF, the sheet or slide count of spreadsheets and presentations, and the
    /// loaded document: closing one takes LibreOffice 10–16 ms, so the caller releases it once it
    /// has answered.
    struct Conversion {
        var pdf: [UInt8]
        var facts: MediaFacts
        var document: OfficeDocument
    }

    /// Converts the file at `path`. With `firstPage`, the first page is exported alone first and
    /// handed to it (a PDF file, for the caller's thumbnail to be made before the whole pivot is).
    func convert(_ path: String, kind: FileKind, firstPage: ((URL, MediaFacts) -> Void)? = nil) throws(PreviewError) -> Conversion {
        let workspace: URL
        do {
            workspace = try Self.makeWorkspace()
        } catch {
            throw PreviewError(.internal, "The office conversion could not start.", detail: "\(error)")
        }
        defer { try? FileManager.default.removeItem(at: workspace) }
        let input = try prepare(path, kind: kind, in: workspace)
        _ = Self.fileConfinement
        let office: Office
        do {
            office = try Office.shared(profile: Self.preparedProfile)
        } catch {
            throw PreviewError(.internal, "Office previews are not available here: LibreOffice did not start.", detail: error.description)
        }
        let output = workspace.appendingPathComponent("pivot.pdf")
        var facts = MediaFacts()
        let document: OfficeDocument
        do {
            document = try OfficeDocument(input, in: office)
            switch document.family {
            case .spreadsheet where kind != .csv: facts.sheets = document.parts
            case .presentation: facts.slides = document.parts
            default: break
            }
            if let firstPage {
                let first = workspace.appendingPathComponent("first.pdf")
                try document.savePDF(to: first, maxPages: 1)
                firstPage(first, facts)
            }
            try document.savePDF(to: output, maxPages: limits.maxOfficePages)
        } catch {
            throw PreviewError(
                .corrupt, "The document could not be read; it is damaged or not what it claims to be.",
                detail: error.description)
        }
        guard let pdf = FileManager.default.contents(atPath: output.path), !pdf.isEmpty else {
            throw PreviewError(.corrupt, "The document converted to nothing; it is damaged or empty.")
        }
        return Conversion(pdf: [UInt8](pdf), facts: facts, document: document)
    }

    /// The file LibreOffice opens: office files as they are (by a link with their kind's extension,
    /// which LibreOffice's type detection weighs), text and CSV as flat OpenDocument written here.
    private func prepare(_ path: String, kind: FileKind, in workspace: URL) throws(PreviewError) -> URL {
        do {
            switch kind {
            case .text, .csv:
                guard let (text, _) = TextDecoding.decode(try readBounded(path)) else {
                    throw PreviewError(.corrupt, "The file is not text.")
                }
                let isTable = kind == .csv
                let input = workspace.appendingPathComponent(isTable ? "document.fods" : "document.fodt")
                let xml =
                    isTable
                    ? FlatODF.spreadsheet(CSVTable(text, maxRows: limits.maxOfficePages * Self.rowsPerPage, maxColumns: Self.maxColumns).rows)
                    : FlatODF.text(lines(of: text))
                try Data(xml.utf8).write(to: input)
                return input
            default:
                let ext = kind.extensions.first.map { "." + $0 } ?? ""
                let input = workspace.appendingPathComponent("document" + ext)
                let target = URL(fileURLWithPath: path).standardizedFileURL.path  // a relative path would resolve from the workspace
                try FileManager.default.createSymbolicLink(atPath: input.path, withDestinationPath: target)
                return input
            }
        } catch let error as PreviewError {
            throw error
        } catch {
            throw PreviewError(.internal, "The document could not be prepared for conversion.", detail: "\(error)")
        }
    }

    /// The first lines of the text that fit the page cap, long lines cut; the rest is never looked at.
    private func lines(of text: String) -> [Substring] {
        let maxLines = limits.maxOfficePages * Self.linesPerPage
        var lines: [Substring] = []
        var rest = text[...]
        while lines.count < maxLines, !rest.isEmpty {
            let end = rest.utf8.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? rest.endIndex
            lines.append(rest[..<end].prefix(Self.maxLineLength))
            guard end < rest.endIndex else { break }
            // CR LF is one line break.
            let next = rest.utf8.index(after: end)
            rest = rest[end] == "\r\n" ? rest[rest.index(after: end)...] : rest[next...]
        }
        return lines
    }

    /// The file's bytes, at most the upload limit.
    private func readBounded(_ path: String) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return [UInt8](try handle.read(upToCount: limits.maxFileBytes) ?? Data())
    }

    private static func makeWorkspace() throws -> URL {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        var template = Array((URL(fileURLWithPath: base).appendingPathComponent("docpreview-office-XXXXXX").path).utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return URL(fileURLWithPath: String(cString: made))
    }

    /// Folders and files outside the profile and the workspace that LibreOffice reads (from `strace`
    /// of .docx, .xlsx, .pptx and .csv conversions): its installation, fonts, the loader's cache, the
    /// time zone, user and CPU information, the mount table, and this process's memory size (read
    /// by the child itself). Named one by one: no other file of `/etc` or of `/proc/self` (its
    /// environment, command line, descriptors) can be read.
    static let systemReadable = [
        "/usr", "/etc/fonts", "/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd",
        "/etc/group", "/etc/libreoffice", "/var/lib/libreoffice", "/var/spool/libreoffice",
        "/var/cache/fontconfig", "/proc/self/statm", "/proc/self/mounts",
        "/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/sys/devices/system/cpu", "/dev/urandom", "/dev/random"
    ]

    /// Before LibreOffice starts, once: from then on this process (its LibreOffice threads
    /// included) reads only the system files above and reads and writes only its profile and its
    /// workspace, whatever a document links to (Landlock). "landlock", or why not.
    static let fileConfinement: String = {
        let environment = ProcessInfo.processInfo.environment
        let writable = [profile().path, environment[workspaceVariable] ?? environment["TMPDIR"] ?? NSTemporaryDirectory(), "/dev/null", "/dev/shm"]
        try? FileManager.default.createDirectory(at: profile(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let result = CStrings.with(systemReadable) { readablePaths in
            CStrings.with(writable) { writablePaths in
                docpreview_restrict_files(
                    readablePaths.map { UnsafePointer($0) }, Int32(systemReadable.count),
                    writablePaths.map { UnsafePointer($0) }, Int32(writable.count))
            }
        }
        return result == 0 ? "landlock" : "unavailable: \(String(cString: strerror(result)))"
    }()

    /// The profile, with the settings a preview wants (``OfficeSettings``) put in before the office
    /// starts. Settings that cannot be written leave LibreOffice's defaults: slower, no less right.
    private static let preparedProfile: URL = {
        let chosen = profile()
        try? OfficeSettings.apply(to: chosen)
        return chosen
    }()

    /// The profile the parent chose for this child, else one of this process's own.
    private static func profile() -> URL {
        if let chosen = ProcessInfo.processInfo.environment[profileVariable], !chosen.isEmpty {
            return URL(fileURLWithPath: chosen, isDirectory: true)
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("docpreview-office-profile-\(getpid())", isDirectory: true)
    }
}
