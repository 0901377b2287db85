internal import CProcessControl
import Foundation
import PreviewCore
import PreviewOffice

/// The child side of ``RendererPool``: `docpreview render-child` reads calls on stdin and answers
/// on stdout until stdin closes. It renders in-process with its own PDF document cache and dies
/// with its parent. What it can reach (see ``Confinement``): no network (a namespace of its own,
/// entered before `main`), no new programs or processes and only local sockets (seccomp), an
/// address-space, CPU-time, file-size and core-dump limit; it inherits only its pipes and stderr
/// and a short list of environment variables (``RendererPool``).
package enum RendererChild {
    /// Set to 1 in the environment (tests only): a file whose first kilobyte contains
    /// `docpreview-test-crash` crashes the child, `docpreview-test-hang` hangs it, and
    /// `docpreview-test-garbage` makes it answer with an oversized frame; an office child is then
    /// replaced after every second conversion.
    package static let testHooksVariable = "DOCPREVIEW_TEST_HOOKS"

    /// What confines a child, as it found itself (logged by the parent, shown by tests).
    package struct Confinement: Codable, Sendable, Equatable {
        /// "namespace" (root), "user-namespace", or "none" where the kernel refused both.
        package var network: String
        /// "seccomp", or why not ("unavailable: …", "off under a sanitizer").
        package var syscalls: String
    }

    /// Serves calls until stdin closes; returns the exit status. A `background` child runs every
    /// thread at background priority (``WorkPriority``).
    package static func run(limits: Limits, background: Bool = false) -> Int32 {
        if background { WorkPriority.lowerProcess() }
        exitWithParent()
        confine(limits)
        let hooks = ProcessInfo.processInfo.environment[testHooksVariable] == "1"
        let renderers = Renderers(limits: limits, openDocuments: 8)
        let office = OfficeConverter(limits: limits)
        var conversions = 0
        while true {
            let call: RenderCall
            do {
                call = try RenderChannel.read(RenderCall.self, from: 0, limit: RenderChannel.maxMessage, deadline: nil)
            } catch .closed {
                // Straight out, past the exit handlers: LibreOffice's (libuno_cppu) corrupt the heap
                // at exit after some documents. Answers are written with write(2): nothing is buffered.
                _exit(0)
            } catch {
                return 2
            }
            // An encoder runs on every core: its CPU time is its wall time times those.
            allowCPU(seconds: call.seconds.map { $0 * Double(ProcessInfo.processInfo.activeProcessorCount) } ?? limits.jobSeconds)
            if hooks { testHook(call) }
            if call.operation == .convert { conversions += 1 }
            // A converted document is closed only once its answer has gone.
            var converted: OfficeDocument?
            var (reply, bytes): (RenderReply, [UInt8]?)
            if call.operation == .convert {
                // First pages are read once: not kept among the open documents.
                (reply, bytes, converted) = outcome(of: call, office, firstPagesBy: PDFRenderer(pageSeconds: limits.pageBudget))
            } else {
                (reply, bytes) = outcome(of: call, renderers)
            }
            // LibreOffice grows with what it has loaded: a child that converted many documents, or
            // grew large, is replaced by a fresh one after this answer.
            if conversions >= (hooks ? 2 : maxConversions) || residentBytes() > maxResidentBytes { reply.retire = true }
            let answered = withExtendedLifetime(converted) { () -> Bool in
                do {
                    try RenderChannel.write(reply, to: 1)
                    if let bytes { try RenderChannel.write(bytes, to: 1) }
                    return true
                } catch {
                    return false
                }
            }
            guard answered else { return 0 }  // the parent went away
        }
    }

    /// Office documents one child converts before it is replaced.
    static let maxConversions = 50
    /// Resident memory past which a child is replaced after its current call.
    static let maxResidentBytes = 1 << 30

    /// An office conversion. A call with a request first gets the first page rendered as it asks,
    /// ahead of the pivot (``RenderReply/firstPage``), unless that page does not render.
    private static func outcome(of call: RenderCall, _ office: OfficeConverter, firstPagesBy pdf: any Renderer)
        -> (RenderReply, [UInt8]?, OfficeDocument?)
    {
        // The PDF library lies beside the executable, outside what the office's file confinement
        // lets this process read once it is on: mapped (by asking its version) before it is.
        if call.request != nil { _ = pdf.version }
        let firstPage = call.request.map { request in
            { (file: URL, documentFacts: MediaFacts) in
                guard let image = try? pdf.render(file.path, request) else { return }
                let reply = RenderReply(
                    facts: documentFacts.adding(image.facts), width: image.width, height: image.height,
                    format: image.format, firstPage: true)
                _ = try? RenderChannel.write(reply, to: 1)
                _ = try? RenderChannel.write(image.bytes, to: 1)
            }
        }
        do throws(PreviewError) {
            let conversion = try office.convert(call.path, kind: call.kind, firstPage: firstPage)
            return (RenderReply(facts: conversion.facts), conversion.pdf, conversion.document)
        } catch {
            return (RenderReply(failure: .init(error)), nil, nil)
        }
    }

    /// This process's resident set size, from /proc/self/statm.
    private static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = statm.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func outcome(of call: RenderCall, _ renderers: Renderers) -> (RenderReply, [UInt8]?) {
        do throws(PreviewError) {
            guard let renderer = renderers.renderer(for: call.kind) else {
                throw PreviewError(.unsupportedType, "No preview is made for \(call.kind.label).")
            }
            switch call.operation {
            case .convert:
                throw PreviewError(.internal, "Conversions are answered by the office converter.")
            case .transcode, .ladder:
                guard let output = call.output else { throw PreviewError(.internal, "An encoding call names no output.") }
                let transcoding = VideoTranscoding(
                    limits: renderers.video.limits, settings: call.renditions ?? RenditionSettings(),
                    timeoutSeconds: call.seconds)
                // A parent that went away ends the child at its next read.
                let progress = { (fraction: Double) -> Void in _ = try? RenderChannel.write(RenderReply(progress: fraction), to: 1) }
                return try writingLargeFiles { () throws(PreviewError) in
                    if call.operation == .ladder {
                        return (
                            RenderReply(
                                ladder: try VideoLadder(transcoding: transcoding).make(
                                    call.path, kind: call.kind, into: output,
                                    progress: progress)), nil
                        )
                    }
                    return (
                        RenderReply(
                            rendition: try transcoding.transcode(
                                call.path, kind: call.kind, to: output, watermark: call.watermark, progress: progress)), nil
                    )
                }
            case .sprites:
                guard let output = call.output else { throw PreviewError(.internal, "A sprites call names no output.") }
                return (
                    RenderReply(sprites: try ScrubbingSprites(limits: renderers.video.limits).write(call.path, kind: call.kind, into: output)), nil
                )
            case .plays:
                let indexer = PlayIndexer(limits: renderers.video.limits, timeoutSeconds: call.seconds ?? renderers.video.limits.jobSeconds)
                return (RenderReply(plays: try indexer.index(call.path, kind: call.kind, opening: call.opening)), nil)
            case .clip:
                guard let output = call.output, let span = call.span else { throw PreviewError(.internal, "A clip call names no output or span.") }
                return try writingLargeFiles { () throws(PreviewError) in
                    let clipping = VideoClipping(timeoutSeconds: call.seconds ?? renderers.video.limits.jobSeconds)
                    return (RenderReply(clip: try clipping.clip(call.path, kind: call.kind, from: span.start, to: span.end, into: output)), nil)
                }
            case .teaser:
                guard let output = call.output, let spans = call.spans else {
                    throw PreviewError(.internal, "A teaser call names no output or spans.")
                }
                let teaser = VideoTeaser(timeoutSeconds: call.seconds ?? renderers.video.limits.jobSeconds)
                return (RenderReply(teaser: try teaser.write(call.path, kind: call.kind, spans: spans, to: output)), nil)
            case .pyramid:
                guard let output = call.output else { throw PreviewError(.internal, "A pyramid call names no output.") }
                return try writingLargeFiles { () throws(PreviewError) in
                    (RenderReply(facts: try renderers.image.reading(call.kind).writePyramid(call.path, to: output)), nil)
                }
            case .text, .ocr:
                let page = call.request?.page ?? 1
                let text: PageText
                if call.operation == .text {
                    guard call.kind == .pdf else {
                        throw PreviewError(.unsupportedType, "Only a PDF's text layer is read (this is \(call.kind.label)).")
                    }
                    text = try renderers.pdf.text(call.path, page: page)
                } else {
                    guard let languages = call.languages, Configuration.isLanguageList(languages) else {
                        throw PreviewError(.internal, "An OCR call names no languages it may read in.")
                    }
                    text = try renderers.ocr(call.path, kind: call.kind, page: page, languages: languages)
                }
                return (RenderReply(), PageTextWire.encode(text))
            case .probe:
                return (RenderReply(facts: try renderer.probe(call.path, page: call.request?.page ?? 1)), nil)
            case .render:
                let image = try renderer.render(call.path, call.request ?? RenderRequest())
                return (RenderReply(facts: image.facts, width: image.width, height: image.height, format: image.format), image.bytes)
            }
        } catch {
            return (RenderReply(failure: .init(error)), nil)
        }
    }

    /// Runs a call whose output may outgrow what a child writes otherwise (a rendition, a ladder, a
    /// pyramid) with the file-size limit raised to a rendition's, for that call only.
    private static func writingLargeFiles<T>(_ body: () throws(PreviewError) -> T) throws(PreviewError) -> T {
        setLimit(RLIMIT_FSIZE, soft: UInt64(RenderChannel.maxRendition), hard: UInt64(RenderChannel.maxRendition))
        defer { setLimit(RLIMIT_FSIZE, soft: UInt64(RenderChannel.maxPivot), hard: UInt64(RenderChannel.maxRendition)) }
        return try body()
    }

    /// The network was left before `main`; here the resource limits, then the system-call filter.
    private static func confine(_ limits: Limits) {
        if limits.rendererMemoryBytes > 0 && !underSanitizer { setLimit(RLIMIT_AS, UInt64(limits.rendererMemoryBytes)) }
        // Children write to their pipes, and a rendition's files only during an encoding call.
        setLimit(RLIMIT_FSIZE, soft: UInt64(RenderChannel.maxPivot), hard: UInt64(RenderChannel.maxRendition))
        setLimit(RLIMIT_CORE, 0)  // a crash leaves no copy of a stranger's document on disk
        if !underSanitizer { _ = docpreview_restrict_syscalls() }
    }

    /// How this process is confined (call after ``run(limits:)`` set it up, or in a child).
    package static var confinement: Confinement {
        let network = ["none", "namespace", "user-namespace"][Int(docpreview_network_isolation())]
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let filtered = status.split(separator: "\n").contains { $0.hasPrefix("Seccomp:") && $0.hasSuffix("2") }
        return Confinement(network: network, syscalls: filtered ? "seccomp" : underSanitizer ? "off under a sanitizer" : "unavailable")
    }

    private static func setLimit(_ resource: __rlimit_resource, _ value: UInt64) {
        setLimit(resource, soft: value, hard: value)
    }

    private static func setLimit(_ resource: __rlimit_resource, soft: UInt64, hard: UInt64) {
        var limit = rlimit(rlim_cur: rlim_t(soft), rlim_max: rlim_t(hard))
        setrlimit(__rlimit_resource_t(resource.rawValue), &limit)
    }

    /// CPU time for the next call: what was used so far plus the job's time and a little, as a soft
    /// limit (SIGXCPU ends the child); the parent's wall-clock deadline is the other bound.
    private static func allowCPU(seconds: Double) {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let used = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
        limit.rlim_cur = min(limit.rlim_max, rlim_t(used) + rlim_t(seconds.rounded(.up)) + 5)
        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit)
    }

    /// AddressSanitizer and ThreadSanitizer reserve terabytes of address space for their shadow
    /// memory, so an address-space limit would stop every child of an instrumented build.
    private static var underSanitizer: Bool {
        let names: [String] = ["__asan_init", "__tsan_init"]
        return names.contains { dlsym(UnsafeMutableRawPointer(bitPattern: 0), $0) != nil }
    }

    /// Exits when the parent process is gone, even while the main thread is stuck in a library.
    /// (prctl's PR_SET_PDEATHSIG follows the parent *thread*: a batch thread that ends would take
    /// the children it happened to start with it.)
    private static func exitWithParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { sleep(1) }
            _exit(0)
        }
    }

    private static func testHook(_ call: RenderCall) {
        guard let handle = FileHandle(forReadingAtPath: call.path) else { return }
        let head = String(decoding: (try? handle.read(upToCount: 1024)) ?? Data(), as: UTF8.self)
        try? handle.close()
        if call.operation == .convert, let probe = head.firstMatch(of: /docpreview-test-read:(\S+)/)?.output.1 {
            // What a document could make LibreOffice read, tried as the confined office child.
            _ = OfficeConverter.fileConfinement
            let descriptor = open(String(probe), O_RDONLY | O_CLOEXEC)
            let outcome = descriptor >= 0 ? "readable" : "refused (\(String(cString: strerror(errno))))"
            if descriptor >= 0 { close(descriptor) }
            FileHandle.standardError.write(Data("docpreview-test-read \(probe): \(outcome)\n".utf8))
        }
        if head.contains("docpreview-test-crash") {
            // As a segfault in a C library ends a child: no handler (sanitizers install one) between it and the kernel.
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
        if head.contains("docpreview-test-hang") { while true { sleep(60) } }
        if let seconds = head.firstMatch(of: /docpreview-test-starved:(\d+)/).flatMap({ Int($0.output.1) }) {
            // A child kept waiting on a busy machine: at work a tenth of the time, for `seconds`.
            let end = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < end {
                let slice = ContinuousClock.now + .milliseconds(10)
                while ContinuousClock.now < slice {}
                usleep(90_000)
            }
        }
        if head.contains("docpreview-test-garbage") {
            // A child taken over by a hostile file: claims a 2 GiB answer and keeps talking.
            var length = UInt32(0x8000_0000).bigEndian
            _ = withUnsafeBytes(of: &length) { write(1, $0.baseAddress, 4) }
            _ = write(1, "junk", 4)
        }
    }
}
