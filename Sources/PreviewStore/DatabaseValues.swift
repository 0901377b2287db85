import GRDB
import PreviewCore

// The core's types as the index stores them: their raw values, read back as the types (an unknown
// value in the database fails the read instead of passing on as a string).
extension FileKind: DatabaseValueConvertible {}
extension PreviewError.Code: DatabaseValueConvertible {}
