/// The document services' "storage" cards, overall or for one owner.
public struct StorageStatistics: Sendable, Equatable, Encodable {
    /// The owner these figures cover; nil for everyone.
    package var owner: String?
    /// Documents, counting each (owner, type, title) once: its latest version.
    public var documents: Int
    /// Every stored version of every document.
    package var versions: Int
    /// Current documents per declared type (``unspecifiedType`` when none was declared).
    package var byType: [String: Int]
    /// The key of ``byType`` that counts documents without a declared type.
    package static let unspecifiedType = "unspecified"
    /// Current documents per detected kind (`pdf`, `mp4`, …).
    package var byKind: [String: Int]
    /// Current documents per school (those for none are not counted).
    package var bySchool: [String: Int] = [:]
    /// The declared type with the most current documents (ties: alphabetical), nil when empty.
    package var mostCommonType: String?
    /// Bytes of all versions as uploaded.
    package var logicalBytes: Int
    /// Bytes of distinct originals actually stored (after dedup).
    package var storedBytes: Int
    /// logicalBytes ÷ storedBytes (1 when nothing is shared; 0 when empty).
    package var dedupRatio: Double
    /// Previews (derivatives) made from this scope's originals, and their bytes.
    package var previews: Int
    package var previewBytes: Int
    /// On-demand previews forgotten to keep within the preview budget, ever; store-wide figures
    /// only (nil for one owner's).
    package var evictedPreviews: Int?
    /// Documents with at least one live share.
    package var sharedDocuments = 0
    /// Resumable uploads open now, and the bytes they staged; store-wide figures only (nil for one owner's).
    package var openUploads: Int?
    package var stagedUploadBytes: Int?

    package init(
        owner: String?, documents: Int, versions: Int, byType: [String: Int], byKind: [String: Int],
        logicalBytes: Int, storedBytes: Int, previews: Int, previewBytes: Int
    ) {
        self.owner = owner
        self.documents = documents
        self.versions = versions
        self.byType = byType
        self.byKind = byKind
        self.mostCommonType = byType.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
        self.logicalBytes = logicalBytes
        self.storedBytes = storedBytes
        self.dedupRatio = storedBytes == 0 ? 0 : Double(logicalBytes) / Double(storedBytes)
        self.previews = previews
        self.previewBytes = previewBytes
    }
}
