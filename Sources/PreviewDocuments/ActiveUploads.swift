import Foundation

/// Which request of this process works on which upload. A new request for an upload ends the one
/// before it (the IETF draft's recommended answer to a client that resumes while the server still
/// reads its dropped connection): `claim` asks the holder to stop (its connection is closed), then
/// waits until it has kept what it received, so the new request reads the offset it left.
actor ActiveUploads {
    private struct Holder {
        let token: UUID
        let stop: @Sendable () -> Void
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private var holders: [String: Holder] = [:]

    /// Becomes upload `id`'s holder once the previous one is gone; `stop` ends this holder's request.
    func claim(_ id: String, stop: @escaping @Sendable () -> Void) async -> UUID {
        while let holder = holders[id] {
            holder.stop()
            await withCheckedContinuation { continuation in holders[id]?.waiters.append(continuation) }
        }
        let token = UUID()
        holders[id] = Holder(token: token, stop: stop)
        return token
    }

    /// Gives up upload `id`, waking the request that waits for it.
    func release(_ id: String, token: UUID) {
        guard let holder = holders[id], holder.token == token else { return }
        holders[id] = nil
        for waiter in holder.waiters { waiter.resume() }
    }
}
