import Foundation
import PreviewCore

/// The child side of ``RendererPool``: `docpreview render-child` reads calls on stdin and answers
/// on stdout until stdin closes. It renders in-process with its own PDF document cache, under an
/// address-space limit; it dies with its parent.
public enum RendererChild {
    /// Set to 1 in the environment (tests only): a file whose first kilobyte contains
    /// `docpreview-test-crash` crashes the child, one with `docpreview-test-hang` hangs it.
    public static let testHooksVariable = "DOCPREVIEW_TEST_HOOKS"

    /// Serves calls until stdin closes; returns the exit status.
    public static func run(limits: Limits) -> Int32 {
        exitWithParent()
        if limits.rendererMemoryBytes > 0 && !underSanitizer {
            var limit = rlimit(rlim_cur: rlim_t(limits.rendererMemoryBytes), rlim_max: rlim_t(limits.rendererMemoryBytes))
            setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit)
        }
        let hooks = ProcessInfo.processInfo.environment[testHooksVariable] == "1"
        let renderers = Renderers(limits: limits, openDocuments: 8)
        while true {
            let call: RenderCall
            do {
                call = try RenderChannel.read(RenderCall.self, from: 0, deadline: nil)
            } catch .closed {
                return 0
            } catch {
                return 2
            }
            if hooks { testHook(call.path) }
            do {
                try answer(call, renderers)
            } catch {
                return 0  // the parent went away
            }
        }
    }

    private static func answer(_ call: RenderCall, _ renderers: Renderers) throws(RenderChannel.Failure) {
        let (reply, bytes) = outcome(of: call, renderers)
        try RenderChannel.write(reply, to: 1)
        if let bytes { try RenderChannel.write(bytes, to: 1) }
    }

    private static func outcome(of call: RenderCall, _ renderers: Renderers) -> (RenderReply, [UInt8]?) {
        do throws(PreviewError) {
            guard let renderer = renderers.renderer(for: call.kind) else {
                throw PreviewError(.unsupportedType, "No preview is made for \(call.kind.label).")
            }
            switch call.operation {
            case .probe:
                return (RenderReply(facts: try renderer.probe(call.path)), nil)
            case .render:
                let image = try renderer.render(call.path, call.request ?? RenderRequest())
                return (RenderReply(facts: image.facts, width: image.width, height: image.height, format: image.format), image.bytes)
            }
        } catch {
            return (RenderReply(failure: .init(code: error.code.rawValue, message: error.message, detail: error.detail)), nil)
        }
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

    private static func testHook(_ path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        let head = String(decoding: (try? handle.read(upToCount: 1024)) ?? Data(), as: UTF8.self)
        try? handle.close()
        if head.contains("docpreview-test-crash") {
            // As a segfault in a C library ends a child: no handler (sanitizers install one) between it and the kernel.
            signal(SIGSEGV, SIG_DFL)
            raise(SIGSEGV)
        }
        if head.contains("docpreview-test-hang") { while true { sleep(60) } }
    }
}
