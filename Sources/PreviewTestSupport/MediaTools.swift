import Foundation

/// The `ffmpeg` and `ffprobe` CLIs, which tests may use to make inputs and check outputs (never
/// to make what DocPreview delivers).
package enum MediaTools {
    /// Runs `ffmpeg -v error -y arguments…`; returns its stdout, throws with its stderr on failure.
    @discardableResult
    package static func ffmpeg(_ arguments: [String]) throws -> Data {
        try run("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments)
    }

    /// Writes `seconds` of a moving test pattern `size` (`640x360`) with a tone to `file`, as an AVI
    /// of MPEG-4 Part 2 and MP3: what AVPlayer and browsers cannot play, so it gets a rendition.
    package static func aviClip(_ file: URL, size: String, seconds: Int) throws {
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30:duration=\(seconds)", "-f", "lavfi", "-i", "sine=duration=\(seconds)",
            "-c:v", "mpeg4", "-q:v", "5", "-c:a", "libmp3lame", file.path
        ])
    }

    /// `ffprobe`'s JSON for `file`: its streams (with side data) and its format.
    package static func probe(_ file: URL) throws -> Probe {
        let json = try run("/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file.path])
        return try JSONDecoder().decode(Probe.self, from: json)
    }

    /// One value `ffprobe -v error … -of csv=p=0 file` prints (e.g. a stream's `nb_read_packets`).
    package static func ffprobeValue(_ file: URL, _ arguments: [String]) throws -> String {
        try ffprobeValue(input: file.isFileURL ? file.path : file.absoluteString, arguments)
    }

    /// The same for `input` as ffprobe takes it: a path, or a URL it reads over HTTP.
    package static func ffprobeValue(input: String, _ arguments: [String]) throws -> String {
        let output = try run("/usr/bin/ffprobe", ["-v", "error"] + arguments + ["-of", "csv=p=0", input])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Frame `index` (counted from 0, in decoding order) of `file`'s video as packed RGB.
    package static func frameRGB(_ file: URL, index: Int) throws -> [UInt8] {
        Array(
            try ffmpeg([
                "-i", file.path, "-an", "-vf", "select=eq(n\\,\(index)),format=rgb24", "-fps_mode", "passthrough", "-frames:v", "1", "-f", "rawvideo",
                "-"
            ]))
    }

    /// The mean of the luma plane of every frame of `file`'s video, 0–255 (after `filters`, if any).
    package static func meanLuma(_ file: URL, filters: String? = nil) throws -> Double {
        let chain = (filters.map { [$0] } ?? []) + ["format=gray"]
        let pixels = try ffmpeg(["-i", file.path, "-an", "-vf", chain.joined(separator: ","), "-f", "rawvideo", "-"])
        guard !pixels.isEmpty else { return 0 }
        return Double(pixels.reduce(0) { $0 + Int($1) }) / Double(pixels.count)
    }

    /// The SSIM (ffmpeg's `ssim` filter, all planes, or of `luma` only) of two images of the same size: 1 when equal.
    package static func ssim(_ first: URL, _ second: URL, luma: Bool = false) throws -> Double {
        let graph = luma ? "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]ssim=stats_file=-" : "ssim=stats_file=-"
        let stats = String(
            decoding: try ffmpeg(["-i", first.path, "-i", second.path, "-lavfi", graph, "-f", "null", "-"]),
            as: UTF8.self)
        guard let all = stats.split(separator: " ").first(where: { $0.hasPrefix("All:") }), let value = Double(all.dropFirst(4)) else {
            throw Failure(description: "ffmpeg printed no SSIM: \(stats)")
        }
        return value
    }

    /// `pdftoppm`'s PNG of the `width`×`height` slice at (`x`, `y`) of `page` of `pdf` at `dpi`
    /// (`-r -x -y -W -H`), written to `output`.
    package static func pdftoppmSlice(_ pdf: URL, page: Int, dpi: Int, x: Int, y: Int, width: Int, height: Int, to output: URL) throws {
        let root = output.deletingPathExtension().path
        _ = try run(
            "/usr/bin/pdftoppm",
            [
                "-png", "-singlefile", "-f", "\(page)", "-l", "\(page)", "-r", "\(dpi)", "-x", "\(x)", "-y", "\(y)",
                "-W", "\(width)", "-H", "\(height)", pdf.path, root
            ])
    }

    /// What the `tesseract` command reads of the image `file` (English, its default segmentation).
    package static func tesseract(_ file: URL) throws -> String {
        String(decoding: try run("/usr/bin/tesseract", [file.path, "-", "-l", "eng"]), as: UTF8.self)
    }

    /// The pages `pdfinfo` counts in `pdf`, and the text `pdftotext` reads of it.
    package static func pdfPagesAndText(_ pdf: URL) throws -> (pages: Int, text: String) {
        let info = String(decoding: try run("/usr/bin/pdfinfo", [pdf.path]), as: UTF8.self)
        let pages = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) }
        return (pages ?? 0, String(decoding: try run("/usr/bin/pdftotext", [pdf.path, "-"]), as: UTF8.self))
    }

    /// The words `pdftotext -bbox` finds on `page` of `pdf`, in its order, each with its box
    /// (left, top, right, bottom in points): Poppler's own word boxes, to compare ours with.
    package static func pdftotextWords(_ pdf: URL, page: Int) throws -> [(text: String, box: [Double])] {
        let xhtml = String(decoding: try run("/usr/bin/pdftotext", ["-bbox", "-f", "\(page)", "-l", "\(page)", pdf.path, "-"]), as: UTF8.self)
        let pattern = try NSRegularExpression(
            pattern: #"<word xMin="([-0-9.]+)" yMin="([-0-9.]+)" xMax="([-0-9.]+)" yMax="([-0-9.]+)">([^<]*)</word>"#)
        let range = NSRange(xhtml.startIndex..., in: xhtml)
        return pattern.matches(in: xhtml, range: range).map { match in
            let group = { (index: Int) in String(xhtml[Range(match.range(at: index), in: xhtml)!]) }
            let text = group(5).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(
                    of: "&amp;", with: "&")
            return (text, (1...4).map { Double(group($0)) ?? .nan })
        }
    }

    /// Copies an MP4 with a display matrix of `degrees` (90, 180, 270) in its video track, as a
    /// phone writes one (FFmpeg 5.1's CLI cannot): `scripts/samplegen.py rotate`.
    package static func rotate(_ source: URL, to destination: URL, degrees: Int) throws {
        _ = try run(
            "/usr/bin/python3",
            [
                Fixtures.packageRoot.appendingPathComponent("scripts/samplegen.py").path, "rotate",
                source.path, destination.path, String(degrees)
            ])
    }

    /// The order of an MP4's top-level boxes (`ftyp`, `moov`, `mdat`, …).
    package static func topLevelBoxes(_ file: URL) throws -> [String] {
        let data = try Data(contentsOf: file)
        var boxes: [String] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append(String(decoding: data[offset + 4..<offset + 8], as: UTF8.self))
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }

    package struct Probe: Decodable {
        package struct Stream: Decodable {
            package var codec_type: String
            package var codec_name: String?
            package var profile: String?
            package var pix_fmt: String?
            package var width: Int?
            package var height: Int?
            package var start_time: String?
            package var duration: String?
            package var color_transfer: String?
            package var side_data_list: [SideData]?

            /// Clockwise degrees of the display matrix, 0 without one.
            package var rotation: Int {
                let counterClockwise = side_data_list?.compactMap(\.rotation).first ?? 0
                return ((-counterClockwise % 360) + 360) % 360
            }
        }

        package struct SideData: Decodable {
            package var rotation: Int?
        }

        package struct Format: Decodable {
            package var format_name: String
            package var duration: String?
        }

        package var streams: [Stream]
        package var format: Format

        package var video: Stream? { streams.first { $0.codec_type == "video" } }
        package var audio: Stream? { streams.first { $0.codec_type == "audio" } }
        package var durationSeconds: Double? { format.duration.flatMap(Double.init) }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("media-tool-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else { throw Failure(description: "cannot create \(errors.path)") }
        defer { try? FileManager.default.removeItem(at: errors) }
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "\(URL(fileURLWithPath: tool).lastPathComponent) \(arguments.joined(separator: " ")): \(message)")
        }
        return data
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}
