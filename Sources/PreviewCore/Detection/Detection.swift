/// What detection learned from a file's bytes.
public struct Detection: Sendable, Equatable {
    public var kind: FileKind
    /// The container says its content needs a password (encrypted OLE2 or ZIP entries).
    public var encrypted: Bool = false
    /// Why the container's own structure is broken, when it is (e.g. a ZIP without its end record).
    public var damage: String?
    /// Bytes after the container's end marker, where polyglots hide a second file.
    public var trailing: TrailingData?
    /// For ZIP containers (OOXML, OpenDocument): what the central directory says they unpack to.
    public var unpacked: UnpackedSize?

    public init(kind: FileKind, encrypted: Bool = false, damage: String? = nil, trailing: TrailingData? = nil) {
        self.kind = kind
        self.encrypted = encrypted
        self.damage = damage
        self.trailing = trailing
    }
}

/// Bytes found after a container's end marker (JPEG EOI, PNG IEND, PDF `%%EOF`, ZIP end record, RIFF size).
public struct TrailingData: Sendable, Equatable {
    /// Where the extra bytes start.
    public var offset: Int
    public var length: Int
    /// What those bytes look like on their own (`unknown` when nothing recognisable).
    public var payload: FileKind
}

/// A ZIP's totals from its central directory: what unpacking would cost, before anything is unpacked.
public struct UnpackedSize: Sendable, Equatable {
    public var entries: Int
    /// Compressed bytes of all entries.
    public var packedBytes: Int
    /// Bytes of all entries once unpacked; nil when an entry's size is not in the central directory (ZIP64).
    public var unpackedBytes: Int?
}
