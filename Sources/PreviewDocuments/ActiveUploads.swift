import Foundation

/// Which request of this process appends to which upload. A new append (or a cancel) ends the one
/// before it (the IETF draft's recommended answer to a client that resumes while the server still
/// reads its dropped connection): `claim` asks the holder to stop (its connection is closed), then
/// waits until it has kept what it received, so the new request reads the offset it left. A request
/// that only reads the offset ends the holder the same way (`settle`) but holds nothing, so no later
/// request ends it.
actor ActiveUploads {
    private struct Holder {
        let token: UUID
        let stop: @Sendable () -> Void
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private var holders: [String: Holder] = [:]

    /// Becomes upload `id`'s holder once the previous one is gone; `stop` ends this holder's request.
    func claim(_ id: String, stop: @escaping @Sendable () -> Void) async -> UUID {
        while holders[id] != nil { await settle(id) }
        let token = UUID()
        holders[id] = Holder(token: token, stop: stop)
        return token
    }

    /// Ends upload `id`'s holder, if it has one, and waits until it has let go.
    func settle(_ id: String) async {
        guard let holder = holders[id] else { return }
        holder.stop()
        await withCheckedContinuation { continuation in holders[id]?.waiters.append(continuation) }
    }

    /// Gives up upload `id`, waking the requests that wait for it.
    func release(_ id: String, token: UUID) {
        guard let holder = holders[id], holder.token == token else { return }
        holders[id] = nil
        for waiter in holder.waiters { waiter.resume() }
    }
}
