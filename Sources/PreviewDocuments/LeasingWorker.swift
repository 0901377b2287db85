import Foundation
import Logging
import PreviewCore
import PreviewStore

/// A worker that leases work from a durable queue (``QueueWorker``: jobs; ``DownloadWorker``:
/// links). It says how to lease, run and give back one item; ``serveSlots()`` is the one slot loop
/// both run: its slots lease in turn, wait for an arrival or the next poll when idle, pause while
/// the store refuses (the faults told once), take back the leases of this host's dead processes, and
/// on a graceful shutdown give back what still runs after the drain time.
protocol LeasingWorker: Sendable {
    associatedtype Item: Sendable
    /// What the logs call an item (`job`, `download`).
    static var itemName: String { get }
    var documents: DocumentService { get }
    /// How many slots take items at once.
    var slots: Int { get }
    var drainSeconds: Double { get }
    /// How long an item stays this worker's without word from it; an outcome is recorded until then.
    var leaseSeconds: TimeInterval { get }
    /// How often an idle slot asks the queue again when no arrival wakes it.
    var pollInterval: Duration { get }
    var backoff: Backoff { get }
    var faults: FaultBurst { get }
    var logger: Logger { get }
    /// What tells two items apart.
    func key(of item: Item) -> String
    /// The next item for `slot`, leased to this worker; nil when there is none.
    func lease(slot: Int) async throws -> Item?
    /// Waits for an arrival announced after `announced` or for the next poll; returns an item handed
    /// to this slot meanwhile, already among `running`'s (nil when none was).
    func waitIdle(slot: Int, since announced: UInt64, running: RunningWork<Item>) async -> Item?
    /// Runs `item` and records its outcome (through ``recordOutcome(running:logger:_:)``); false when
    /// the drain cut it off first, so that it stays among the running ones to be given back.
    func process(_ item: Item, running: RunningWork<Item>) async -> Bool
    /// Gives a running item back to its queue untouched (shutdown), its attempt not counted.
    func release(_ item: Item) async throws
    /// Gives back at once what processes of this host that died held; how many.
    func reclaimDeadLeases() async throws -> Int
}

extension LeasingWorker {
    /// Runs the slots until a graceful shutdown (see the type's notes).
    func serveSlots() async {
        let running = RunningWork<Item>(drainSeconds: drainSeconds) { key(of: $0) }
        await running.serve(slots: slots, work: { await slotLoop($0, running: running) }) { item in
            let metadata: Logger.Metadata = ["preview.\(Self.itemName)": "\(key(of: item))"]
            do {
                try await release(item)
                logger.warning("released a running \(Self.itemName) at shutdown", metadata: metadata)
            } catch {
                logger.error(
                    "could not release a running \(Self.itemName) at shutdown", metadata: metadata.merging(["preview.error": "\(error)"]) { $1 })
            }
        }
    }

    /// The default wait of an idle slot: ``waitForArrival(since:)``, nothing handed to it.
    func waitIdle(slot: Int, since announced: UInt64, running: RunningWork<Item>) async -> Item? {
        await waitForArrival(since: announced)
        return nil
    }

    /// Waits for an arrival this process announces after `announced`, or for the next poll.
    func waitForArrival(since announced: UInt64) async {
        if let arrivals = documents.arrivals {
            _ = await arrivals.wait(since: announced, upTo: pollInterval)
        } else {
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// Records an item's outcome through `record`, again while the store refuses it, until the lease
    /// runs out or the worker stops; false when cancelled (the drain cut it off: nothing recorded).
    func recordOutcome(running: RunningWork<Item>, logger: Logger, _ record: () async throws -> Void) async -> Bool {
        do {
            let failure = try await faults.retrying(
                until: documents.clock.instant + .seconds(leaseSeconds), on: documents.clock, pausing: backoff,
                logger: logger, while: { !running.isStopping }, record)
            // A store's refusal is told by the burst of faults; anything else is told here.
            if let failure, StoreFault(failure) == nil {
                logger.error("could not record a \(Self.itemName)'s outcome", metadata: ["preview.error": "\(failure)"])
            }
            return true
        } catch {
            return false
        }
    }

    /// One slot: slot 0 also takes back dead processes' leases, at start and every 25th idle poll.
    private func slotLoop(_ slot: Int, running: RunningWork<Item>) async {
        if slot == 0 { await reclaim() }
        var idlePolls = 0
        var handed: Item?
        while !Task.isCancelled {
            let item: Item
            if let next = handed {
                // Handed to this slot by an enqueue of this process, already among the running ones.
                item = next
                handed = nil
            } else {
                guard !running.isStopping else { return }
                let announced = documents.arrivals?.announcements ?? 0
                let turn = await running.lease(
                    { try await lease(slot: slot) }, item: { $0 }, backoff: backoff, faults: faults, logger: logger,
                    failure: "could not lease a \(Self.itemName)")
                switch turn {
                case let .leased(leased): item = leased
                case .failed: continue
                case .cancelled: return
                case .idle:
                    idlePolls += 1
                    if slot == 0, idlePolls % 25 == 0 { await reclaim() }
                    handed = await waitIdle(slot: slot, since: announced, running: running)
                    continue
                }
            }
            // An item the drain cut off stays among the running ones, to be given back.
            guard await process(item, running: running) else { return }
            running.remove(item)
        }
    }

    private func reclaim() async {
        do {
            let reclaimed = try await reclaimDeadLeases()
            if reclaimed > 0 { logger.warning("reclaimed the \(Self.itemName)s of a process that died", metadata: ["preview.count": "\(reclaimed)"]) }
        } catch {
            logger.error("could not reclaim the \(Self.itemName)s of dead processes", metadata: ["preview.error": "\(error)"])
        }
    }
}

/// The names workers lease under, `host/pid/random`, and what they tell of a worker: whether it was a
/// process of this host that no longer runs, whose leases can be taken back at once.
package enum LeaseOwners {
    package static let host = ProcessInfo.processInfo.hostName

    /// A lease owner's name for a worker of this process: `host/pid/random`, which
    /// ``isDeadLocalWorker(_:)`` reads back.
    package static func newName() -> String { "\(host)/\(getpid())/\(UUID().uuidString.prefix(8))" }

    /// True for a lease owner that was a worker process on this host which no longer runs: gone,
    /// or killed and not yet reaped by its parent (a zombie keeps its pid but runs nothing).
    package static func isDeadLocalWorker(_ owner: String) -> Bool {
        let parts = owner.split(separator: "/")
        guard parts.count == 3, parts[0] == host, let pid = Int32(parts[1]), pid != getpid() else { return false }
        return isGone(pid)
    }

    /// Whether process `pid` of this host no longer runs: gone, or a zombie.
    package static func isGone(_ pid: Int32) -> Bool {
        if kill(pid, 0) != 0 { return errno == ESRCH }
        return isZombie(pid)
    }

    /// Whether process `pid` has exited and waits to be reaped (its state in `/proc/PID/stat` is `Z`).
    package static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let name = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: name)...].drop { $0 == " " }.first == "Z"
    }
}
