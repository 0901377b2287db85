import Foundation
import PreviewCore
import PreviewFFmpeg

/// Seek-bar previews of a video, as players read them: sprite sheets (a grid of small frames) and a
/// WebVTT track whose cues point into them (`sprite-0.jpg#xywh=x,y,w,h`). Each tile is the keyframe
/// at or before its time, reached by seeking — one keyframe decoded per tile, never the frames in
/// between — so the cost follows the number of tiles (at most ``maxTiles``), not the video's length.
public struct ScrubbingSprites: Sendable {
    package var limits: Limits
    /// Tile width in pixels; the height follows the displayed aspect ratio.
    package var tileWidth = 240
    package var columns = 10
    package var rows = 10
    /// At most this many tiles: long videos get a longer interval.
    package var maxTiles = 200
    /// At least this many seconds between tiles.
    package var minimumInterval = 5.0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// A sprite sheet: `columns` × up to `rows` tiles, left to right, top to bottom, as JPEG.
    package struct Sheet: Sendable {
        package var name: String
        package var bytes: [UInt8]
        package var width: Int
        package var height: Int
    }

    package struct Result: Sendable {
        package var sheets: [Sheet]
        /// The WebVTT thumbnails track, naming the sheets as `sheetName` gave them.
        package var track: String
        package var intervalSeconds: Double
        package var tiles: Int
        package var tileWidth: Int
        package var tileHeight: Int
    }

    /// What ``write(_:kind:into:)`` wrote.
    public struct Files: Sendable, Codable, Equatable {
        package struct Sheet: Sendable, Codable, Equatable {
            package var name: String
            package var width: Int
            package var height: Int
        }
        package var sheets: [Sheet]
        /// The track's file name (``trackName``).
        package var track: String
        package var intervalSeconds: Double
        package var tiles: Int
        /// Tiles across a sheet, left to right, then top to bottom (sheet `n` holds tiles from `n × perSheet`).
        package var columns: Int
        package var perSheet: Int
        package var tileWidth: Int
        package var tileHeight: Int
    }

    /// The WebVTT track's file name beside its sheets.
    package static let trackName = "thumbnails.vtt"

    /// Makes the sheets and track of the video at `path` and writes them into the existing folder
    /// `folder`: `sprite-N.jpg` and ``trackName``, which names the sheets relative to itself.
    public func write(_ path: String, kind: FileKind? = nil, into folder: String) throws(PreviewError) -> Files {
        let result = try make(path, kind: kind)
        let base = URL(fileURLWithPath: folder)
        do {
            for sheet in result.sheets { try Data(sheet.bytes).write(to: base.appendingPathComponent(sheet.name)) }
            try Data(result.track.utf8).write(to: base.appendingPathComponent(Self.trackName))
        } catch {
            throw PreviewError(.internal, "The thumbnails could not be written.", detail: "\(error)")
        }
        return Files(
            sheets: result.sheets.map { Files.Sheet(name: $0.name, width: $0.width, height: $0.height) }, track: Self.trackName,
            intervalSeconds: result.intervalSeconds, tiles: result.tiles, columns: columns, perSheet: columns * rows,
            tileWidth: result.tileWidth, tileHeight: result.tileHeight)
    }

    /// Sheets and track for the video at `path` (read with `kind`'s demuxer when given); sheet `n`
    /// is named `sheetName(n)` in the track.
    package func make(_ path: String, kind: FileKind? = nil, sheetName: (Int) -> String = { "sprite-\($0).jpg" }) throws(PreviewError) -> Result {
        let input = try open(path, kind: kind)
        guard let stream = input.bestVideoStream(), stream.width > 0, stream.height > 0 else {
            throw PreviewError(.noVideoStream, "The file has no video to make thumbnails of.")
        }
        if stream.declaresEncryption { throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it has no thumbnails.") }
        if stream.width * stream.height > limits.maxPixels {
            throw PreviewError(.tooManyPixels, "The video is \(stream.width)×\(stream.height), larger than any frame we decode.")
        }
        guard let duration = input.durationSeconds else { throw PreviewError(.corrupt, "The video declares no duration to place thumbnails on.") }
        let interval = max(minimumInterval, (duration / Double(maxTiles)).rounded(.up))
        let count = max(1, min(maxTiles, Int((duration / interval).rounded(.up))))
        let display = stream.displaySize
        let tileHeight = max(2, Int((Double(tileWidth) * display.height / display.width / 2).rounded()) * 2)
        let decoded = stream.rotation % 180 == 0 ? (tileWidth, tileHeight) : (tileHeight, tileWidth)

        var tiles: [PixelBuffer] = []
        do throws(FFmpegError) {
            let reader = try VideoFrameReader(input: input, stream: stream, maxPackets: count * 400)
            var lastKeyframe: Double?
            for index in 0..<count {
                let time = Double(index) * interval
                let keyframe = reader.keyframeSeconds(atOrBefore: time)
                if let keyframe, keyframe == lastKeyframe, let previous = tiles.last {
                    tiles.append(previous)  // the same keyframe again: the same picture, not decoded twice
                    continue
                }
                lastKeyframe = keyframe
                if index > 0 && !reader.seek(toSeconds: time) {
                    // No index to seek with: decode on to the time (bounded by the packet budget and the deadline).
                    while let reached = try reader.nextFrame(), reached < time - 0.001 {}
                } else if try reader.nextFrame() == nil {
                    break
                }
                if reader.sawEncryptedPacket { throw .encrypted }
                tiles.append(try reader.currentFrame(width: decoded.0, height: decoded.1).rotated(clockwise: stream.rotation))
            }
        } catch {
            if error.isEncrypted { throw PreviewError(.encrypted, "The video is DRM-protected (encrypted); it has no thumbnails.") }
            if error.isInterrupted {
                throw PreviewError(.timeout, "Making thumbnails took longer than \(Int(limits.jobSeconds)) s.", detail: error.description)
            }
            if tiles.isEmpty { throw PreviewError(.corrupt, "The video could not be read; it may be damaged.", detail: error.description) }
        }
        guard !tiles.isEmpty else { throw PreviewError(.corrupt, "The video has no frame to make thumbnails of.") }

        let perSheet = columns * rows
        var sheets: [Sheet] = []
        var track = "WEBVTT\n"
        for (sheetIndex, first) in stride(from: 0, to: tiles.count, by: perSheet).enumerated() {
            let group = Array(tiles[first..<min(first + perSheet, tiles.count)])
            let sheet = try compose(group, name: sheetName(sheetIndex))
            sheets.append(sheet)
            for (offset, _) in group.enumerated() {
                let index = first + offset
                let start = Double(index) * interval
                let end = index == tiles.count - 1 ? max(duration, start + 0.001) : start + interval
                let (x, y) = ((offset % columns) * tileWidth, (offset / columns) * tileHeight)
                track += "\n\(Self.timestamp(start)) --> \(Self.timestamp(end))\n\(sheet.name)#xywh=\(x),\(y),\(tileWidth),\(tileHeight)\n"
            }
        }
        return Result(sheets: sheets, track: track, intervalSeconds: interval, tiles: tiles.count, tileWidth: tileWidth, tileHeight: tileHeight)
    }

    /// Lays `tiles` out `columns` wide and encodes the sheet.
    private func compose(_ tiles: [PixelBuffer], name: String) throws(PreviewError) -> Sheet {
        let across = min(columns, tiles.count)
        let down = (tiles.count + columns - 1) / columns
        let tileHeight = tiles[0].height
        let width = across * tileWidth
        let height = down * tileHeight
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for (index, tile) in tiles.enumerated() where tile.width == tileWidth && tile.height == tileHeight {
            let (left, top) = ((index % columns) * tileWidth, (index / columns) * tileHeight)
            for row in 0..<tileHeight {
                let target = ((top + row) * width + left) * 3
                pixels.replaceSubrange(target..<target + tileWidth * 3, with: tile.bytes[(row * tileWidth * 3)..<((row + 1) * tileWidth * 3)])
            }
        }
        let encoded = try pixels.withUnsafeBufferPointer { rgb throws(PreviewError) in
            try Encoding.encode(rgb: rgb, width: width, height: height, showing: .photograph, RenderRequest(format: .jpeg, quality: 75))
        }
        return Sheet(name: name, bytes: encoded.bytes, width: width, height: height)
    }

    private func open(_ path: String, kind: FileKind?) throws(PreviewError) -> MediaInput {
        try VideoRenderer.openVideo(path, kind: kind, timeoutSeconds: limits.jobSeconds, toMake: "thumbnails") { error in
            PreviewError(.corrupt, "The video could not be read; it may be damaged or truncated.", detail: error.description)
        }
    }

    /// `HH:MM:SS.mmm`, as WebVTT writes cue times.
    static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let (hours, minutes, secs, millis) = (milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60, milliseconds % 1000)
        return String(format: "%02d:%02d:%02d.%03d", hours, minutes, secs, millis)
    }
}
