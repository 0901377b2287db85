import Foundation
import Synchronization
import Logging
import PreviewCore

/// Renders in long-lived child processes of the same binary (`<executable> render-child <limits>`),
/// one per slot, so that a crash, a hang or an out-of-memory in Poppler, FFmpeg or libvips costs
/// one job, never the process that runs the batch or the server. A call waits for a free child
/// suspended, holding no thread, then waits for its answer on the renders lane of the ``Offload`` it
/// is given. Each call has the job's deadline:
/// past it the child is killed and the call fails with `timeout`; a crash fails it with `corrupt`
/// (the signal in the message). A dead child is replaced on the next call. Calls about the same file
/// go to the same child when it is free, whose open-document cache then serves a PDF's next page.
///
/// Office conversions (LibreOffice) have children of their own, `officeSize` of them, so a slow
/// spreadsheet never makes an image, PDF or video job wait; each keeps a LibreOffice user profile
/// that no other process uses at the same time (``OfficeProfiles``) and is replaced when it asks to be.
///
/// Background calls (``WorkPriority/background``: the queue's text and playback jobs) have
/// children of their own too, `backgroundSize` of them, each at background priority from its start
/// (`render-child --background`): a page a person waits for never waits for a child a text job
/// holds, nor shares a core with one on equal terms.
public final class RendererPool: Sendable {
    private let group: SlotGroup
    private let backgroundGroup: SlotGroup
    private let officeGroup: SlotGroup
    private let profiles: OfficeProfiles
    private let limits: Limits
    private let logger: Logger
    private let callCount = Atomic<Int>(0)

    /// Calls sent to children so far (probes, renders, conversions; a retry on a fresh child counts once).
    package var calls: Int { callCount.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - executable: the `docpreview` binary (the current one: ``currentExecutable``).
    ///   - size: children for video, PDF and image calls a person waits for, one per call that may run at once.
    ///   - backgroundSize: children for background calls (each is started on its first call).
    ///   - officeSize: children for office conversions.
    ///   - childEnvironment: added to every child's environment (tests turn the children's test hooks on with it).
    package init(
        executable: URL, size: Int, backgroundSize: Int = 1, officeSize: Int = 1, limits: Limits, logger: Logger,
        childEnvironment: [String: String] = [:]
    ) {
        let limitsArgument = String(decoding: (try? JSONEncoder().encode(limits)) ?? Data("{}".utf8), as: UTF8.self)
        let arguments = ["render-child", limitsArgument]
        group = SlotGroup((0..<max(1, size)).map { _ in Slot(executable: executable, arguments: arguments, environment: childEnvironment) })
        backgroundGroup = SlotGroup(
            (0..<max(1, backgroundSize)).map { _ in
                Slot(
                    executable: executable, arguments: ["render-child", "--background", limitsArgument], background: true,
                    environment: childEnvironment)
            })
        profiles = OfficeProfiles(count: max(1, officeSize))
        officeGroup = SlotGroup(
            profiles.folders.map { folders in
                Slot(
                    executable: executable, arguments: arguments, inbox: folders.workspace.appendingPathComponent("inbox"),
                    environment: childEnvironment.merging([
                        OfficeConverter.profileVariable: folders.profile.path, OfficeConverter.workspaceVariable: folders.workspace.path,
                        "TMPDIR": folders.workspace.appendingPathComponent("tmp").path,
                        // Whatever LibreOffice and the libraries under it keep per user stays in the workspace,
                        // and the headless plugin keeps GTK and its settings daemon out.
                        "HOME": folders.workspace.path, "XDG_CACHE_HOME": folders.workspace.appendingPathComponent("tmp").path,
                        "XDG_CONFIG_HOME": folders.workspace.appendingPathComponent("tmp").path, "SAL_USE_VCLPLUGIN": "svp"
                    ]) { _, office in office })
            })
        self.limits = limits
        self.logger = logger
        // A write to a child that just died must fail with EPIPE, not kill this process.
        signal(SIGPIPE, SIG_IGN)
    }

    /// The binary that serves `render-child`: this process's own, or, in a process that is not
    /// `docpreview` (a test bundle, a benchmark), the `docpreview` built beside it.
    public static var currentExecutable: URL {
        let own = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let sibling = own.deletingLastPathComponent().appendingPathComponent("docpreview")
        return own.lastPathComponent != "docpreview" && FileManager.default.isExecutableFile(atPath: sibling.path) ? sibling : own
    }

    func probe(_ path: String, kind: FileKind, page: Int? = nil, on offload: Offload) async throws(PreviewError) -> MediaFacts {
        let (reply, _) = try await call(
            RenderCall(operation: .probe, kind: kind, path: path, request: page.map { RenderRequest(page: $0) }),
            on: offload)
        return reply.facts ?? MediaFacts()
    }

    func render(_ path: String, kind: FileKind, _ request: RenderRequest, on offload: Offload) async throws(PreviewError) -> RenderedImage {
        let (reply, bytes) = try await call(RenderCall(operation: .render, kind: kind, path: path, request: request), on: offload)
        guard let bytes, let width = reply.width, let height = reply.height, let format = reply.format else {
            throw PreviewError(.internal, "The renderer sent an incomplete answer.")
        }
        return RenderedImage(bytes: bytes, format: format, width: width, height: height, facts: reply.facts ?? MediaFacts())
    }

    /// The words of page `page` of the PDF at `path`, read by a child.
    func text(_ path: String, page: Int, on offload: Offload) async throws(PreviewError) -> PageText {
        try await pageText(RenderCall(operation: .text, kind: .pdf, path: path, request: RenderRequest(page: page)), on: offload)
    }

    /// Page `page` of the PDF at `path`, or the image, read from its pixels in `languages` by a child.
    func ocr(_ path: String, kind: FileKind, page: Int, languages: String, on offload: Offload) async throws(PreviewError) -> PageText {
        try await pageText(RenderCall(operation: .ocr, kind: kind, path: path, request: RenderRequest(page: page), languages: languages), on: offload)
    }

    /// The page's words, decoded on the lane thread that waited for them: a text job's thousands
    /// of pages are decoded on its background lane, not on the threads that serve requests.
    private func pageText(_ call: RenderCall, on offload: Offload) async throws(PreviewError) -> PageText {
        try await self.call(
            call, on: offload,
            reading: { _, bytes throws(PreviewError) in
                guard let bytes, let text = PageTextWire.decode(bytes) else {
                    throw PreviewError(.internal, "The renderer sent an incomplete answer.")
                }
                return text
            })
    }

    /// The tiled pyramid of the image at `path`, written to `output` by a child.
    func pyramid(_ path: String, kind: FileKind, to output: String, on offload: Offload) async throws(PreviewError) -> MediaFacts {
        let (reply, _) = try await call(RenderCall(operation: .pyramid, kind: kind, path: path, output: output), on: offload)
        guard let facts = reply.facts else { throw PreviewError(.internal, "The renderer sent an incomplete answer.") }
        return facts
    }

    /// The first page of an office document wanted before its whole pivot: rendered as `request`
    /// asks and handed to `made` as soon as it exists (more than once, should the call be retried).
    package struct FirstPage: Sendable {
        package var request: RenderRequest
        package var made: @Sendable (RenderedImage) -> Void

        package init(request: RenderRequest, made: @escaping @Sendable (RenderedImage) -> Void) {
            self.request = request
            self.made = made
        }
    }

    /// The PDF pivot of an office document, text or CSV file, made by LibreOffice in an office
    /// child; with `firstPage`, its first page is rendered and handed over first. A first page that
    /// could not be rendered is not handed over: the pivot's page 1 is the fallback.
    package func convert(
        _ path: String, kind: FileKind, firstPage: FirstPage? = nil,
        on offload: Offload
    ) async throws(PreviewError) -> (pdf: [UInt8], facts: MediaFacts) {
        var made: @Sendable (RenderedImage) -> Void = { _ in }
        if let firstPage { made = firstPage.made }
        let (reply, bytes) = try await call(
            RenderCall(operation: .convert, kind: kind, path: path, request: firstPage?.request), on: offload,
            firstPage: made)
        guard let bytes else { throw PreviewError(.internal, "The office converter sent an incomplete answer.") }
        return (bytes, reply.facts ?? MediaFacts())
    }

    /// Waits for a child of the call's kind, then exchanges the call with it on `offload`'s renders
    /// lane (its background lane for background work); returns the answer and its bytes.
    func call(
        _ call: RenderCall, on offload: Offload, progress: @escaping @Sendable (Double) -> Void = { _ in },
        firstPage: @escaping @Sendable (RenderedImage) -> Void = { _ in }
    ) async throws(PreviewError) -> (RenderReply, [UInt8]?) {
        try await self.call(call, on: offload, progress: progress, firstPage: firstPage, reading: { ($0, $1) })
    }

    /// ``call(_:on:progress:firstPage:)`` returning what `reading` makes of the answer, on the same lane thread.
    private func call<T: Sendable>(
        _ call: RenderCall, on offload: Offload, progress: @escaping @Sendable (Double) -> Void = { _ in },
        firstPage: @escaping @Sendable (RenderedImage) -> Void = { _ in },
        reading: @escaping @Sendable (RenderReply, [UInt8]?) throws(PreviewError) -> T
    ) async throws(PreviewError) -> T {
        callCount.add(1, ordering: .relaxed)
        let work = { @Sendable (slot: Slot) throws(PreviewError) -> T in
            let (reply, bytes) = try self.exchange(call, with: slot, progress: progress, firstPage: firstPage)
            return try reading(reply, bytes)
        }
        // Office children are shared by all work (each keeps a LibreOffice loaded), at ordinary priority.
        let group = call.operation == .convert ? officeGroup : WorkPriority.current == .background ? backgroundGroup : group
        return try await group.run(for: call.path, on: offload, work)
    }

    /// How many times background calls' deadlines were extended because their children kept working.
    package var backgroundExtensions: Int {
        backgroundGroup.slots.reduce(0) { $0 + $1.extensions.load(ordering: .relaxed) }
    }

    /// The children running now, and whether each is one of the background ones.
    package var children: [(pid: pid_t, background: Bool)] {
        [(group, false), (backgroundGroup, true), (officeGroup, false)].flatMap { group, background in
            group.slots.compactMap { $0.runningPID }.map { ($0, background) }
        }
    }

    /// Sends `call` to the child of `slot`, once more to a fresh child if it was killed, and reads its answer.
    private func exchange(
        _ call: RenderCall, with slot: Slot, progress: (Double) -> Void,
        firstPage: (RenderedImage) -> Void
    ) throws(PreviewError) -> (RenderReply, [UInt8]?) {
        // An office child reads only its own workspace: the file goes into its inbox for the call.
        var call = call
        if let inbox = slot.inbox {
            call.path = try Self.place(call.path, in: inbox)
        }
        defer { if slot.inbox != nil { unlink(call.path) } }
        let seconds = call.seconds ?? limits.jobSeconds
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        var outcome = slot.exchange(call, deadline: deadline, progress: progress, firstPage: firstPage)
        // A child that died or was stopped during the call may have been killed from outside (the OOM
        // killer, an operator): the call goes once more to a fresh child before the file is judged.
        if case let .crashed(signal) = outcome {
            logger.warning(
                "renderer child died during a call; trying once more on a fresh one",
                metadata: ["preview.file": "\(call.path)", "preview.signal": "\(signal)"])
            outcome = slot.exchange(
                call, deadline: ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000))), progress: progress,
                firstPage: firstPage)
        }
        switch outcome {
        case let .answered(reply, bytes):
            if reply.retire == true {
                logger.info(
                    "renderer child replaced at its own request (its share of conversions, or its memory bound)",
                    metadata: ["preview.file": "\(call.path)"])
            }
            if let failure = reply.failure {
                throw PreviewError(PreviewError.Code(rawValue: failure.code) ?? .internal, failure.message, detail: failure.detail)
            }
            return (reply, bytes)
        case .timedOut:
            logger.warning("renderer child killed at the deadline", metadata: ["preview.file": "\(call.path)"])
            throw PreviewError(.timeout, "Processing took longer than \(Int(seconds)) seconds.")
        case let .crashed(signal) where signal == SIGKILL || signal == SIGSTOP:
            // Two children killed or stopped: something outside is at work (memory pressure, an
            // operator), not the file. A transient failure, retried later.
            logger.error("renderer children were killed from outside", metadata: ["preview.file": "\(call.path)", "preview.signal": "\(signal)"])
            throw PreviewError(.internal, "The renderer was stopped from outside; the file will be tried again.", detail: "signal \(signal)")
        case let .crashed(signal):
            logger.error("renderer child crashed", metadata: ["preview.file": "\(call.path)", "preview.signal": "\(signal)"])
            throw Self.crashError(signal: signal, output: call.output)
        case let .failed(reason):
            logger.error("renderer child failed", metadata: ["preview.file": "\(call.path)", "preview.error": "\(reason)"])
            throw PreviewError(.internal, "The renderer could not process the file.", detail: reason)
        }
    }

    /// A hard link to `path` in `inbox` (a copy across file systems), named to be unique.
    private static func place(_ path: String, in inbox: URL) throws(PreviewError) -> String {
        let placed = inbox.appendingPathComponent("input-\(UUID().uuidString)").path
        if link(path, placed) == 0 { return placed }
        do {
            try FileManager.default.copyItem(atPath: path, toPath: placed)
            return placed
        } catch {
            throw PreviewError(.internal, "The document could not be handed to the office converter.", detail: "\(error)")
        }
    }
}
