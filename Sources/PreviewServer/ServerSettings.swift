import Foundation
import HTTPTypes
import Hummingbird
import NIOSSL
import Logging
import NIOCore
import PreviewCore
import PreviewDocuments
import ServiceLifecycle

/// Settings of the HTTP front (DESIGN §8).
package struct ServerSettings: Sendable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// When set, every route but /healthz needs `Authorization: Bearer <token>`.
    package var token: String?
    /// Uploads are refused with 429 while more jobs than this wait.
    package var maxQueuedJobs = 10_000
    /// A connection that sends nothing for this long is closed, also in the middle of a request
    /// body: a stalled upload cannot hold its connection and staging file for ever.
    package var idleTimeout: Duration = .seconds(30)
    /// On-demand previews being rendered at once (stored ones do not count); more get 429 with `Retry-After`.
    package var maxRendersInFlight = 8
    /// On-demand renders of one owner's documents at once (and, apart from the owner's, of one
    /// share's visitors, and of one visitor's address), and of one document; more wait their turn.
    package var maxRendersPerOwner = 1
    package var maxRendersPerDocument = 1
    /// Uploads being received at once, and from one client address; more get 429 with `Retry-After`.
    package var maxUploadsInFlight = 16
    package var maxUploadsPerClient = 4
    /// Connections held at once (nil: half of what the descriptor limit leaves after a reserve,
    /// ``DescriptorBudget``), and from one client address; past them a connection is shed, plain
    /// HTTP with a 503.
    package var maxConnections: Int?
    package var maxConnectionsPerClient = 64
    /// Stored files being sent at once (nil: as many as connections), and on one connection (an
    /// HTTP/2 connection's streams share it); more wait their turn.
    package var maxStreams: Int?
    package var maxStreamsPerConnection = 4
    /// How long a TLS handshake may take before its connection is closed.
    package var handshakeTimeout: Duration = .seconds(10)
    /// The token is weak enough to guess (`--insecure-weak-token`): a throttled address's tokens
    /// are then not checked at all while it waits, unless it is one of ``trustedAddresses``.
    package var guessableToken = false
    /// With a guessable token, the client addresses (the service's own) whose tokens are always checked.
    package var trustedAddresses: Set<String> = []
    /// The slowest an upload may arrive (over each 30 s); slower ones are cut off, and lose their slot
    /// to a new upload when every slot is taken.
    package var minimumUploadBytesPerSecond = 1024
    /// TLS of the server's own (``ServerTLS``); nil for plain HTTP (behind a TLS proxy, or on loopback).
    package var tls: TLSConfiguration?
    /// The keys of signed URLs (`--signing-key-file`); without them none are issued or accepted.
    package var signingKeys: SigningKeys?
    /// Host names the server answers to besides IP addresses and loopback names (DNS rebinding).
    package var publicHosts: [String] = []
    /// The resolution a page's full size is given at in IIIF (`info.json`): its regions are in pixels at it.
    package var zoomDPI = IIIFService.defaultDPI
    /// Threads for the file-system reads of requests, and as many for uploads' writes (``Offload/serving(_:workers:)``).
    package var blockingThreads = 4
    /// An upload's whole body must arrive within this time (the idle timeout bounds each pause).
    /// A resumable upload's request keeps what arrived when cut off, and the client resumes.
    package var uploadTimeout: Duration = .seconds(600)
    /// Also speak the IETF resumable-upload draft's interop versions 7 and 8 (3 and 6, what iOS
    /// sends, always).
    package var uploadDraftLatest = false
    /// How long a wrong share password counts against its share and its client (the 6th within it is refused).
    package var passwordWindow: Duration = .seconds(60)
    /// After SIGTERM, how long uploads still arriving may take before they are cut off.
    package var grace: Duration = .seconds(30)
    /// How long a render waits, once it has its slot, before checking its client is still there
    /// (nil: not at all). `serve` sets 0.5 s under `DOCPREVIEW_TEST_HOOKS=1`, so a test can disconnect first.
    package var clientCheckPause: Duration?
    /// How long a preview rendered for a request waits after its answer before it is stored (nil:
    /// not at all). `serve` sets 2 s under `DOCPREVIEW_TEST_HOOKS=1`, so a test can crash the server in between.
    package var keepDelay: Duration?

    package init() {}
}

extension Offload {
    /// The lanes of a server with `workers` in the same process: its requests' file reads and
    /// uploads' writes (``ServerSettings/blockingThreads`` each), a thread for every render that
    /// may run at once (on-demand ones past the render gate, one per worker, one for a repair), and
    /// one per worker and text lane for background jobs.
    package static func serving(_ settings: ServerSettings, workers: Int, textLanes: Int) -> Offload {
        Offload(
            reads: settings.blockingThreads, writes: settings.blockingThreads, renders: settings.maxRendersInFlight + workers + 1,
            background: workers + textLanes)
    }
}
