internal import CFFmpeg

/// RFC 6381 `codecs` names of the streams a player is handed (`avc1.64001f`, `mp4a.40.2`), which
/// an HLS playlist and `MediaSource.isTypeSupported` need to choose a rendition before loading it.
enum CodecString {
    static func of(_ parameters: UnsafeMutablePointer<AVCodecParameters>) -> String? {
        let parameters = parameters.pointee
        switch parameters.codec_id {
        case AV_CODEC_ID_H264:
            guard let header = sequenceHeader(parameters.extradata, count: Int(parameters.extradata_size)) else { return "avc1.64001f" }
            return "avc1." + header.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
        case AV_CODEC_ID_AAC: return "mp4a.40.\(parameters.profile >= 0 ? parameters.profile + 1 : 2)"
        // MPEG-1 audio's object type in upper-case hex, as browsers match it: Chromium answers
        // `canPlayType` "" for `mp4a.6b` and skips a `<source>` so typed.
        case AV_CODEC_ID_MP3: return "mp4a.6B"
        default: return nil
        }
    }

    /// Profile, constraint flags and level of an H.264 stream: from an `avcC` record, or from the
    /// sequence parameter set of Annex B extradata (start codes, as TS and AVI carry it).
    private static func sequenceHeader(_ bytes: UnsafeMutablePointer<UInt8>?, count: Int) -> [UInt8]? {
        guard let bytes, count >= 4 else { return nil }
        let data = Array(UnsafeBufferPointer(start: bytes, count: count))
        if data[0] == 1 { return Array(data[1...3]) }
        var index = 0
        while index + 6 < data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1, data[index + 3] & 0x1F == 7 {
                return Array(data[(index + 4)...(index + 6)])
            }
            index += 1
        }
        return nil
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
