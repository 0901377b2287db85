import Foundation

/// What a `Range` header asks of a representation of `size` bytes (RFC 9110 §14). Only single
/// byte ranges are served: a header naming several ranges is answered with the whole body (200),
/// as the RFC allows, and so is one that does not parse.
enum ByteRange: Equatable {
    /// Send everything (no usable `Range`).
    case whole
    /// Send these bytes with 206.
    case part(ClosedRange<Int>)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    init(header: String?, size: Int) {
        guard let header, header.hasPrefix("bytes="), size > 0 else { self = .whole; return }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        func number(_ text: Substring) -> Int? {
            text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) && !text.isEmpty ? Int(text) ?? Int.max : nil
        }
        switch (number(first), number(last)) {
        case let (start?, end?):
            guard start <= end else { self = .whole; return }
            self = start < size ? .part(start...min(end, size - 1)) : .unsatisfiable
        case let (start?, nil) where last.isEmpty:
            self = start < size ? .part(start...(size - 1)) : .unsatisfiable
        case let (nil, suffix?) where first.isEmpty:
            self = suffix > 0 ? .part(max(0, size - suffix)...(size - 1)) : .unsatisfiable
        default:
            self = .whole
        }
    }
}
