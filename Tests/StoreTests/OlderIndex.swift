import Foundation
import GRDB
@testable import PreviewStore
import PreviewTestSupport

/// An index as an older DocPreview left it, for a migration's test: `folder`'s index migrated only
/// up to `migration` and given `rows` there, then opened as today's index, which migrates the rest.
func olderIndex(
    upTo migration: String, in folder: TemporaryFolder,
    rows: @escaping @Sendable (Database) throws -> Void
) async throws -> SQLiteIndex {
    let url = folder.url.appendingPathComponent("index.sqlite")
    let older = try DatabaseQueue(path: url.path)
    try SQLiteIndex.migrator.migrate(older, upTo: migration)
    try await older.write(rows)
    try older.close()
    return try SQLiteIndex(url: url)
}
