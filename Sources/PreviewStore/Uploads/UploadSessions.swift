import Foundation
import PreviewCore
import PreviewDomain

/// The resumable uploads in the index, written once for both backends: an upload's row and its
/// parts change together, an append only at the offset the row says, so two appends (or two hosts)
/// can never both extend it.
package struct UploadSessions: Sendable {
    private typealias Status = UploadSession.Status
    let database: any PortableDatabase

    package init(database: any PortableDatabase) {
        self.database = database
    }

    /// Records `session`, unless its owner or its client has as many uploads open as `caps` allow
    /// or would stage more bytes (``UploadSessions/CapReached``); `reserved` is what it counts
    /// while its length is unknown. An upload counts until it ends or expires, and one that has
    /// received nothing only for ``UploadCaps/emptySeconds`` after its creation: abandoned
    /// uploads never lock their owner or their address out.
    package func create(_ session: UploadSession, caps: UploadCaps, reserved: Int) async throws {
        try await database.runPlan(serializing: "uploads:\(session.owner)") {
            let open = Status.open
            func load(_ column: String, _ value: String) -> PortableSQL {
                """
                SELECT COUNT(*) AS sessions, CAST(COALESCE(SUM(COALESCE(length, \(reserved))), 0) AS BIGINT) AS bytes
                FROM upload_sessions WHERE \(raw: column) = \(value) AND status = \(open) AND expires_at > \(session.createdAt)
                    AND (received > 0 OR created_at > \(session.createdAt - caps.emptySeconds))
                """
            }
            let incoming = session.length ?? reserved
            func check(_ rows: [PortableRow], sessions: Int, bytes: Int, who: CapReached.Who) throws {
                let row = rows.first
                if Int(row?.integer("sessions") ?? 0) >= sessions { throw CapReached(who: who, limit: .sessions(sessions)) }
                if Int(row?.integer("bytes") ?? 0) + incoming > bytes { throw CapReached(who: who, limit: .bytes(bytes)) }
            }
            return .statement(load("owner", session.owner)) { rows in
                try check(rows, sessions: caps.sessionsPerOwner, bytes: caps.stagedBytesPerOwner, who: .owner)
                return .statement(load("client", session.client)) { rows in
                    try check(rows, sessions: caps.sessionsPerClient, bytes: caps.stagedBytesPerClient, who: .client)
                    return .each([Self.insert(session)], then: ())
                }
            }
        }
    }

    package func session(id: String) async throws -> UploadSession? {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT * FROM upload_sessions WHERE id = \(id)") { rows in .done(try rows.first.map(UploadSession.init(row:))) }
        }
    }

    /// The parts of upload `id`, in order.
    package func parts(of id: String) async throws -> [UploadPart] {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT * FROM upload_parts WHERE session_id = \(id) ORDER BY start") { rows in .done(try rows.map(UploadPart.init(row:))) }
        }
    }

    /// Records `part`, durable in the staging, as the bytes that follow upload `id`'s offset, and
    /// `length` as its length when it has none yet. Nil (nothing recorded) when the upload is not
    /// open, its offset is not `part.start` any more, or the part would pass its length.
    package func append(_ part: UploadPart, to id: String, length: Int? = nil) async throws -> UploadSession? {
        try await database.runPlan(serializing: nil) {
            let update: PortableSQL = """
                UPDATE upload_sessions SET received = received + \(part.length), length = COALESCE(length, \(length))
                WHERE id = \(id) AND status = \(Status.open) AND received = \(part.start)
                    AND COALESCE(length, \(length), received + \(part.length)) >= received + \(part.length)
                RETURNING *
                """
            return .statement(update) { rows in
                guard let row = rows.first else { return .done(nil) }
                let session = try UploadSession(row: row)
                guard part.length > 0 else { return .done(session) }
                return .each(
                    ["INSERT INTO upload_parts (session_id, start, length, name) VALUES (\(id), \(part.start), \(part.length), \(part.name))"],
                    then: session)
            }
        }
    }

    /// Sets open upload `id` back to offset `start`, forgetting its parts from there on (one of
    /// them was found damaged): its client sends those bytes again. Returns the parts forgotten,
    /// for the staging to remove; nil when the upload is not open or is not past `start`.
    package func rollBack(_ id: String, to start: Int) async throws -> [UploadPart]? {
        try await database.runPlan(serializing: nil) {
            .statement(
                """
                UPDATE upload_sessions SET received = \(start) WHERE id = \(id) AND status = \(Status.open) AND received > \(start)
                RETURNING id
                """
            ) { rows in
                guard !rows.isEmpty else { return .done(nil) }
                return .statement("DELETE FROM upload_parts WHERE session_id = \(id) AND start >= \(start) RETURNING *") { parts in
                    .done(try parts.map(UploadPart.init(row:)))
                }
            }
        }
    }

    /// The open uploads whose every declared byte arrived: complete but for their document (a
    /// server stopped while it put one together), to be finished.
    package func fullyReceived(limit: Int) async throws -> [UploadSession] {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT * FROM upload_sessions WHERE status = \(Status.open) AND received = length ORDER BY created_at LIMIT \(limit)") {
                rows in
                .done(try rows.map(UploadSession.init(row:)))
            }
        }
    }

    /// Every open upload with its parts, for `verify`.
    package func openParts() async throws -> [(session: String, parts: [UploadPart])] {
        try await database.runPlan(serializing: nil) {
            .statement(
                """
                SELECT p.* FROM upload_parts p JOIN upload_sessions s ON s.id = p.session_id
                WHERE s.status = \(Status.open) ORDER BY p.session_id, p.start
                """
            ) { rows in
                var grouped: [(session: String, parts: [UploadPart])] = []
                for row in rows {
                    let session = row.text("session_id") ?? ""
                    let part = try UploadPart(row: row)
                    if grouped.last?.session == session { grouped[grouped.count - 1].parts.append(part) } else { grouped.append((session, [part])) }
                }
                return .done(grouped)
            }
        }
    }

    /// The ids of the uploads open now, whose parts (counted or still arriving) `gc` leaves alone.
    package func openIDs() async throws -> Set<String> {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT id FROM upload_sessions WHERE status = \(Status.open)") { rows in .done(Set(rows.compactMap { $0.text("id") })) }
        }
    }

    /// Makes `appender` (a process) the one appending to open upload `id` until `until` (seconds
    /// since 1970), unless another holds it still at `now`: false then. Hosts take turns this way,
    /// as a process's requests do in memory (``ActiveUploads``).
    package func takeAppending(_ id: String, appender: String, now: Int, until: Int) async throws -> Bool {
        try await database.runPlan(serializing: nil) {
            .statement(
                """
                UPDATE upload_sessions SET appender = \(appender), appending_until = \(until)
                WHERE id = \(id) AND (appender IS NULL OR appender = \(appender) OR appending_until <= \(now))
                RETURNING id
                """
            ) { .done(!$0.isEmpty) }
        }
    }

    /// Ends `appender`'s turn at upload `id`.
    package func endAppending(_ id: String, appender: String) async throws {
        try await database.runPlan(serializing: nil) {
            .each(["UPDATE upload_sessions SET appender = NULL, appending_until = NULL WHERE id = \(id) AND appender = \(appender)"], then: ())
        }
    }

    /// Declares upload `id`'s length (tus's deferred length): false when it has another one, or
    /// more bytes than that arrived already.
    package func declareLength(_ length: Int, of id: String) async throws -> Bool {
        try await database.runPlan(serializing: nil) {
            .statement(
                """
                UPDATE upload_sessions SET length = \(length)
                WHERE id = \(id) AND status = \(Status.open) AND (length IS NULL OR length = \(length)) AND received <= \(length)
                RETURNING *
                """
            ) { .done(!$0.isEmpty) }
        }
    }

    /// The statements that mark open upload `id` complete as `document` (with its job), and forget
    /// its parts: run in the transaction that indexes the document (``JobQueue/enqueue(_:leasingTo:completing:)``),
    /// so an upload is complete exactly when its document exists. An upload no longer open is left as it is.
    package static func completion(of id: String, document: Document, jobID: Int64?) -> [PortableSQL] {
        [
            """
            UPDATE upload_sessions SET status = \(Status.complete), document_id = \(document.id), job_id = \(jobID), sha256 = \(document.sha256.hex)
            WHERE id = \(id) AND status = \(Status.open)
            """,
            """
            DELETE FROM upload_parts
            WHERE session_id = \(id) AND EXISTS (SELECT 1 FROM upload_sessions WHERE id = \(id) AND status = \(Status.complete))
            """
        ]
    }

    /// Cancels open upload `id` and forgets its parts (returned, for the staging to remove); nil
    /// when it was not open.
    package func cancel(_ id: String) async throws -> (session: UploadSession, parts: [UploadPart])? {
        try await database.runPlan(serializing: nil) {
            .statement("UPDATE upload_sessions SET status = \(Status.cancelled) WHERE id = \(id) AND status = \(Status.open) RETURNING *") { rows in
                guard let row = rows.first else { return .done(nil) }
                let session = try UploadSession(row: row)
                return .statement("DELETE FROM upload_parts WHERE session_id = \(id) RETURNING *") { parts in
                    .done((session, try parts.map(UploadPart.init(row:)).sorted { $0.start < $1.start }))
                }
            }
        }
    }

    /// Up to `limit` uploads whose time ran out by `now` (seconds since 1970), oldest first.
    package func expired(now: Int, limit: Int) async throws -> [UploadSession] {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT * FROM upload_sessions WHERE expires_at <= \(now) ORDER BY expires_at LIMIT \(limit)") { rows in
                .done(try rows.map(UploadSession.init(row:)))
            }
        }
    }

    /// Removes upload `id` and its parts' rows; returns the parts, for the staging to remove.
    package func forget(_ id: String) async throws -> [UploadPart] {
        try await database.runPlan(serializing: nil) {
            .statement("DELETE FROM upload_parts WHERE session_id = \(id) RETURNING *") { parts in
                .each(["DELETE FROM upload_sessions WHERE id = \(id)"], then: try parts.map(UploadPart.init(row:)))
            }
        }
    }

    /// The names of every part an upload lists.
    package func partNames() async throws -> Set<String> {
        try await database.runPlan(serializing: nil) {
            .statement("SELECT name FROM upload_parts") { rows in .done(Set(rows.compactMap { $0.text("name") })) }
        }
    }

    /// The uploads open now and the bytes they staged.
    package func figures() async throws -> (open: Int, stagedBytes: Int) {
        try await database.runPlan(serializing: nil) {
            .statement(
                "SELECT COUNT(*) AS sessions, CAST(COALESCE(SUM(received), 0) AS BIGINT) AS bytes FROM upload_sessions WHERE status = \(Status.open)"
            ) { rows in
                .done((Int(rows.first?.integer("sessions") ?? 0), Int(rows.first?.integer("bytes") ?? 0)))
            }
        }
    }

    private static func insert(_ session: UploadSession) -> PortableSQL {
        """
        INSERT INTO upload_sessions (id, owner, client, front, labels, length, received, status, created_at, expires_at)
        VALUES (\(session.id), \(session.owner), \(session.client), \(session.front), \(UploadSession.encode(session.labels)),
            \(session.length), \(session.received), \(session.status), \(session.createdAt), \(session.expiresAt))
        """
    }

    /// An owner or a client has as many uploads open, or as many bytes staged, as allowed.
    package struct CapReached: Error, Sendable {
        package enum Who: Sendable { case owner, client }
        package enum Limit: Sendable { case sessions(Int), bytes(Int) }
        package let who: Who
        package let limit: Limit
    }
}

extension UploadSession {
    init(row: PortableRow) throws {
        guard let id = row.text("id"), let owner = row.text("owner"), let client = row.text("client"),
            let front = row.text("front").flatMap(Front.init(rawValue:)), let labels = row.text("labels"),
            let received = row.integer("received"), let status = row.text("status").flatMap(Status.init(rawValue:)),
            let created = row.integer("created_at"), let expires = row.integer("expires_at")
        else {
            throw PreviewError(.internal, "An upload's row is incomplete.")
        }
        self.init(
            id: id, owner: owner, client: client, front: front, labels: Self.decode(labels),
            length: row.integer("length").map(Int.init), createdAt: Int(created), expiresAt: Int(expires))
        self.received = Int(received)
        self.status = status
        documentID = row.text("document_id")
        jobID = row.integer("job_id")
        sha256 = row.text("sha256")
        appender = row.text("appender")
        appendingUntil = row.integer("appending_until").map(Int.init)
    }

    static func encode(_ labels: [String: String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: labels, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode(_ labels: String) -> [String: String] {
        (try? JSONSerialization.jsonObject(with: Data(labels.utf8))) as? [String: String] ?? [:]
    }
}

extension UploadPart {
    init(row: PortableRow) throws {
        guard let start = row.integer("start"), let length = row.integer("length"), let name = row.text("name") else {
            throw PreviewError(.internal, "An upload part's row is incomplete.")
        }
        self.init(start: Int(start), length: Int(length), name: name)
    }
}

extension UploadSession.Status: SQLBindable {}
extension UploadSession.Front: SQLBindable {}
