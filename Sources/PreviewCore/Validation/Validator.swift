import Foundation

/// Decides whether a file may be accepted: size limits, executables, the declared document
/// type's extensions, agreement between extension and bytes, encryption, damage and support.
public struct Validator: Sendable {
    package var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Probes and judges a file on disk. Throws only when the file cannot be read at all.
    public func validate(fileAt url: URL, declaredType: DocumentType? = nil) throws -> Verdict {
        validate(try ByteProbe(contentsOf: url), fileName: url.lastPathComponent, declaredType: declaredType)
    }

    /// Judges probed bytes that arrived under `fileName` (only its extension is used).
    package func validate(_ probe: ByteProbe, fileName: String, declaredType: DocumentType? = nil) -> Verdict {
        let ext = Self.fileExtension(of: fileName)
        let detection = ContentDetector.detect(probe, fileExtension: ext)
        let claimed = ext.map(FileKind.claiming(extension:)) ?? []
        var verdict = Verdict(
            detection: detection, reason: Self.reason(detection, ext: ext, claimed: claimed),
            fileExtension: ext, claimedKinds: claimed)
        verdict.refusal = refusal(for: verdict, size: probe.size, declaredType: declaredType)
        return verdict
    }

    /// The refusal a file arriving under `fileName` will get whatever its bytes: past the size limit
    /// (`size`, when known), or with an extension we know that `declaredType` does not allow. Nil
    /// when its bytes decide (``refusal(forHead:size:fileName:declaredType:)``, then the whole file).
    package func refusal(fileName: String, size: Int?, declaredType: DocumentType?) -> PreviewError? {
        if let size, size > configuration.limits.maxFileBytes { return configuration.fileTooLarge }
        guard let declaredType, let ext = Self.fileExtension(of: fileName) else { return nil }
        let claimed = FileKind.claiming(extension: ext)
        guard !claimed.isEmpty, !declaredType.admits(fileExtension: ext, claimedKinds: claimed, kind: .unknown) else { return nil }
        return PreviewError(.extensionNotAllowed, declaredType.refusalMessage)
    }

    /// The refusal a file arriving under `fileName` will get, when its first bytes already decide
    /// it (an executable, contents that are not what the name claims): `head` is its first
    /// ``ByteProbe/windowSize`` bytes, `size` its size (nil: unknown yet). Nil when the file may
    /// still be accepted; the whole file is judged by ``validate(_:fileName:declaredType:)``.
    package func refusal(forHead head: [UInt8], size: Int?, fileName: String, declaredType: DocumentType? = nil) -> PreviewError? {
        let ext = Self.fileExtension(of: fileName)
        guard let detection = ContentDetector.detectionDecided(byHead: head, size: size, fileExtension: ext) else { return nil }
        let claimed = ext.map(FileKind.claiming(extension:)) ?? []
        let verdict = Verdict(
            detection: detection, reason: Self.reason(detection, ext: ext, claimed: claimed),
            fileExtension: ext, claimedKinds: claimed)
        return refusal(for: verdict, size: size ?? Int(head.count) + 1, declaredType: declaredType)
    }

    /// The extension of a file name, lower case: `Resume.PDF` → `pdf`; none for `README` or `.profile`.
    package static func fileExtension(of fileName: String) -> String? {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...].lowercased()
        return ext.isEmpty ? nil : ext
    }

    private static func reason(_ detection: Detection, ext: String?, claimed: [FileKind]) -> Verdict.Reason {
        let kind = detection.kind
        if kind.support == .executable || detection.trailing?.payload.support == .executable { return .executable }
        guard let ext, !claimed.isEmpty || kind.extensions.contains(ext) else { return .unknownExtension }
        let agrees: Verdict.Reason?
        if kind.extensions.first == ext {
            agrees = .match
        } else if kind.extensions.contains(ext) || claimed.contains(where: { $0.family == kind.family || kind.generalises($0) }) {
            agrees = .alias
        } else {
            agrees = nil
        }
        guard let agrees else { return .mismatch }
        return detection.trailing == nil ? agrees : .trailingData
    }

    /// No binary format we accept fits its signature in fewer bytes (PNG's is 8).
    private static let shortestSignature = 8

    private func refusal(for verdict: Verdict, size: Int, declaredType: DocumentType?) -> PreviewError? {
        let kind = verdict.kind
        let limits = configuration.limits
        if size == 0 { return PreviewError(.emptyFile, "The file is empty.") }
        if size > limits.maxFileBytes { return configuration.fileTooLarge }
        if kind.support == .executable {
            return PreviewError(.executableRefused, "Executable files are not accepted (this file is \(kind.label)).")
        }
        if let payload = verdict.detection.trailing?.payload, payload.support == .executable {
            return PreviewError(
                .executableRefused,
                "Executable files are not accepted (this file hides \(payload.label) after its end).")
        }
        if let declaredType, !extensionAllowed(verdict, by: declaredType) {
            return PreviewError(.extensionNotAllowed, declaredType.refusalMessage)
        }
        if verdict.reason == .mismatch, let claimed = verdict.claimedKinds.first {
            if size < Self.shortestSignature && claimed.category != .text {
                return PreviewError(.corrupt, "The file is too short to be \(claimed.label) (\(size) bytes); it may be truncated.")
            }
            if kind == .unknown {
                return PreviewError(.unsupportedType, "This file is not \(claimed.label) (its contents are not a format we recognise).")
            }
            return PreviewError(.contentMismatch, "This file is not \(claimed.label) (its contents are \(kind.label)).")
        }
        if let damage = verdict.detection.damage {
            return PreviewError(.corrupt, "The file is damaged: \(damage).")
        }
        if kind.category == .office, let unpacked = verdict.detection.unpacked, let bomb = Self.bomb(unpacked, limits: limits) {
            return PreviewError(.zipBomb, "The document would unpack to \(bomb); it is refused as a zip bomb.")
        }
        if verdict.detection.encrypted {
            return PreviewError(.encrypted, "The file is password-protected; remove the password and upload it again.")
        }
        if let payload = verdict.detection.trailing?.payload, payload.category == .archive {
            return PreviewError(
                .contentMismatch,
                "This file is \(kind.label) with \(payload.label) hidden after its end; such files are not accepted.")
        }
        if kind.support == .unsupported {
            let contents = kind == .unknown ? "its contents are not a format we recognise" : "it is \(kind.label)"
            return PreviewError(.unsupportedType, "This file type is not supported (\(contents)).")
        }
        return nil
    }

    /// What is too much about an office document's ZIP, for the message; nil when it is within the limits.
    private static func bomb(_ size: UnpackedSize, limits: Limits) -> String? {
        if size.entries > limits.maxArchiveEntries {
            return "\(size.entries) parts (limit \(limits.maxArchiveEntries))"
        }
        guard let unpacked = size.unpackedBytes else { return "a size its ZIP does not state" }
        if unpacked > limits.maxUnpackedBytes {
            return "\(unpacked >> 20) MB (limit \(Limits.describe(byteCount: limits.maxUnpackedBytes)))"
        }
        if unpacked > 1 << 20 && unpacked / max(1, size.packedBytes) > limits.maxCompressionRatio {
            return "\(unpacked / max(1, size.packedBytes)) times its packed size (limit \(limits.maxCompressionRatio))"
        }
        return nil
    }

    private func extensionAllowed(_ verdict: Verdict, by type: DocumentType) -> Bool {
        type.admits(fileExtension: verdict.fileExtension, claimedKinds: verdict.claimedKinds, kind: verdict.kind)
    }
}
