import PreviewCore

/// One IIIF Image API 3.0 image request (`{region}/{size}/{rotation}/{quality}.{format}`), parsed
/// and checked against the image's full size before any work: the region inside the image, the
/// size within ``IIIFLimits`` and never larger than the region without `^`, quarter turns
/// only. Bad syntax is a 400; a well-formed request for what we do not do (a rotation of 45°,
/// bitonal, TIFF) is a 501, as the specification says.
package struct IIIFImageRequest: Equatable, Sendable {
    package var region: ImageRegion
    package var format: RenderRequest.Format

    /// Why a request is refused.
    package enum Refusal: Error, Equatable {
        /// 400: not a request this API defines, or one outside the image or the limits.
        case badRequest(String)
        /// 501: a feature of the API we do not offer.
        case notImplemented(String)
    }

    /// The request's four path segments, checked against an image of `width`×`height` (full size).
    package init(region: String, size: String, rotation: String, file: String, width: Int, height: Int) throws(Refusal) {
        // Every product below stays inside Int once the image's sides are bounded.
        guard (1...ImageRegion.maxSide).contains(width), (1...ImageRegion.maxSide).contains(height) else {
            throw .badRequest("The image is \(width)×\(height): too large to cut regions from (at most \(ImageRegion.maxSide) a side).")
        }
        let (x, y, w, h) = try Self.region(region, width: width, height: height)
        let (outputWidth, outputHeight) = try Self.size(size, regionWidth: w, regionHeight: h)
        let (turn, mirrored) = try Self.rotation(rotation)
        let (tone, format) = try Self.qualityAndFormat(file)
        self.region = ImageRegion(
            x: x, y: y, width: w, height: h, outputWidth: outputWidth, outputHeight: outputHeight,
            rotation: turn, mirrored: mirrored, tone: tone)
        self.format = format
    }

    /// Whether this is one of the tiles `info.json` advertises: on the grid of `tile` × a scale factor,
    /// at that factor's size, not turned or mirrored, in colour, JPEG (pictures) or PNG (pages, whose
    /// text stays sharp). Only these are kept.
    func isCanonicalTile(width: Int, height: Int) -> Bool {
        guard region.rotation == 0, !region.mirrored, region.tone == .color, format != .webp else { return false }
        return IIIFLimits.scaleFactors(width: width, height: height).contains { factor in
            let side = IIIFLimits.tile * factor
            return region.x % side == 0 && region.y % side == 0 && region.width == min(side, width - region.x)
                && region.height == min(side, height - region.y)
                && region.outputWidth == (region.width + factor - 1) / factor && region.outputHeight == (region.height + factor - 1) / factor
        }
    }

    /// `full`, `square`, `x,y,w,h` or `pct:x,y,w,h`, clipped to the image; a region that starts
    /// outside it or is empty is refused.
    static func region(_ text: String, width: Int, height: Int) throws(Refusal) -> (Int, Int, Int, Int) {
        switch text {
        case "full": return (0, 0, width, height)
        case "square":
            let side = min(width, height)
            return ((width - side) / 2, (height - side) / 2, side, side)
        default: break
        }
        var x: Int, y: Int, w: Int, h: Int
        if text.hasPrefix("pct:") {
            let parts = text.dropFirst(4).split(separator: ",", omittingEmptySubsequences: false).map { decimal($0) }
            guard parts.count == 4, let px = parts[0], let py = parts[1], let pw = parts[2], let ph = parts[3] else {
                throw .badRequest("The region \(text) is not pct:x,y,w,h with numbers.")
            }
            x = Int((px * Double(width) / 100).rounded())
            y = Int((py * Double(height) / 100).rounded())
            w = Int((pw * Double(width) / 100).rounded())
            h = Int((ph * Double(height) / 100).rounded())
        } else {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { whole($0) }
            guard parts.count == 4, let px = parts[0], let py = parts[1], let pw = parts[2], let ph = parts[3] else {
                throw .badRequest("The region \(text) is not full, square, x,y,w,h or pct:x,y,w,h.")
            }
            (x, y, w, h) = (px, py, pw, ph)
        }
        guard w > 0, h > 0 else { throw .badRequest("The region \(text) is empty.") }
        guard x < width, y < height else { throw .badRequest("The region \(text) lies outside the \(width)×\(height) image.") }
        return (x, y, min(w, width - x), min(h, height - y))
    }

    /// `max`, `w,`, `,h`, `pct:n`, `w,h` or `!w,h`, each with an optional `^` that allows a size
    /// larger than the region. The result lies within the limits, or is refused.
    static func size(_ text: String, regionWidth rw: Int, regionHeight rh: Int) throws(Refusal) -> (Int, Int) {
        let upscale = text.hasPrefix("^")
        let body = upscale ? String(text.dropFirst()) : text
        let limits = IIIFLimits.self
        var out: (width: Int, height: Int)
        func scaled(_ scale: Double) -> (Int, Int) {
            (max(1, Int((Double(rw) * scale).rounded())), max(1, Int((Double(rh) * scale).rounded())))
        }
        if body == "max" {
            // As large as the limits allow: the region's own size, or (with ^) up to the limits.
            let fit = min(
                Double(limits.maxWidth) / Double(rw), Double(limits.maxHeight) / Double(rh),
                (Double(limits.maxArea) / Double(rw * rh)).squareRoot())
            out = scaled(upscale ? fit : min(1, fit))
            out = (min(out.width, limits.maxWidth), min(out.height, limits.maxHeight))
            while out.width * out.height > limits.maxArea { out = (max(1, out.width - 1), max(1, out.height - 1)) }
            return out
        } else if body.hasPrefix("pct:") {
            guard let percent = decimal(body.dropFirst(4)), percent > 0 else { throw .badRequest("The size \(text) is not pct:n with n > 0.") }
            out = scaled(percent / 100)
        } else if body.hasPrefix("!") {
            let parts = body.dropFirst().split(separator: ",", omittingEmptySubsequences: false).map { whole($0) }
            guard parts.count == 2, let w = parts[0], let h = parts[1], w > 0, h > 0 else { throw .badRequest("The size \(text) is not !w,h.") }
            // Without ^, a box that would enlarge the region is refused like any other enlargement.
            let fitted = scaled(min(Double(w) / Double(rw), Double(h) / Double(rh)))
            out = (min(fitted.0, w), min(fitted.1, h))
        } else {
            let parts = body.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .badRequest("The size \(text) is not one the API defines.") }
            switch (whole(parts[0]), whole(parts[1]), parts[0].isEmpty, parts[1].isEmpty) {
            case let (w?, nil, false, true) where w > 0: out = (w, max(1, Int((Double(rh) * Double(w) / Double(rw)).rounded())))
            case let (nil, h?, true, false) where h > 0: out = (max(1, Int((Double(rw) * Double(h) / Double(rh)).rounded())), h)
            case let (w?, h?, false, false) where w > 0 && h > 0: out = (w, h)
            default: throw .badRequest("The size \(text) is not one the API defines.")
            }
        }
        if !upscale && (out.width > rw || out.height > rh) {
            throw .badRequest("The size \(text) is larger than the \(rw)×\(rh) region; ask with ^ to enlarge it.")
        }
        guard out.width <= limits.maxWidth, out.height <= limits.maxHeight, out.width * out.height <= limits.maxArea else {
            throw .badRequest(
                "The size \(text) makes \(out.width)×\(out.height), over the limits "
                    + "(\(limits.maxWidth)×\(limits.maxHeight), \(limits.maxArea) pixels).")
        }
        return out
    }

    /// `n` or `!n` (mirrored first), n from 0 to 360: quarter turns only.
    static func rotation(_ text: String) throws(Refusal) -> (Int, Bool) {
        let mirrored = text.hasPrefix("!")
        guard let degrees = decimal(mirrored ? text.dropFirst() : Substring(text)), degrees <= 360 else {
            throw .badRequest("The rotation \(text) is not a number of degrees from 0 to 360, with an optional !.")
        }
        guard degrees.truncatingRemainder(dividingBy: 90) == 0 else { throw .notImplemented("Only rotations by quarter turns are made.") }
        return (Int(degrees) % 360, mirrored)
    }

    /// `default`, `color`, `gray` or `bitonal`, then `.jpg`, `.png` or `.webp`.
    static func qualityAndFormat(_ text: String) throws(Refusal) -> (tone: ImageRegion.Tone, format: RenderRequest.Format) {
        guard let dot = text.lastIndex(of: "."), dot != text.startIndex else { throw .badRequest("\(text) is not {quality}.{format}.") }
        let (quality, format) = (text[..<dot], text[text.index(after: dot)...])
        let tone: ImageRegion.Tone
        switch quality {
        case "default", "color": tone = .color
        case "gray": tone = .gray
        case "bitonal": tone = .bitonal
        default: throw .badRequest("The quality \(quality) is not default, color, gray or bitonal.")
        }
        switch format {
        case "jpg": return (tone, .jpeg)
        case "png": return (tone, .png)
        case "webp": return (tone, .webp)
        case "tif", "gif", "pdf", "jp2": throw .notImplemented("The format \(format) is not made; ask for jpg, png or webp.")
        default: throw .badRequest("The format \(format) is not one the API defines.")
        }
    }

    /// A non-negative integer of digits only (at most 9 of them).
    private static func whole(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// A non-negative decimal number (`12`, `12.5`), no sign, no exponent.
    private static func decimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !text.isEmpty, text.count <= 12, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        return Double(text)
    }
}
