// libFuzzer entry point for detection and validation (PreviewCore), built by scripts/fuzz with
// `swiftc -sanitize=fuzzer,address -parse-as-library` together with PreviewCore's sources.
// Outside Sources/ so that SwiftPM does not build it: it has no `main` (libFuzzer brings one).

let extensions = ["pdf", "mp4", "jpg", "png", "docx", "zip", "txt", "csv", "mov", "heic", "exe", "", "PDF", "tar.gz"]
let types: [DocumentType?] = [nil] + DocumentRules.standard.types.map { $0 }
let validator = Validator()

/// Any bytes under any name: detection and validation must return, deterministically, and a verdict
/// must be internally consistent. A crash, a hang (libFuzzer's -timeout) or a failed check is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDetection(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    let probe = ByteProbe(bytes: bytes)
    // The last byte picks the name and the declared type, so the fuzzer explores the rules too.
    let selector = Int(bytes.last ?? 0)
    let fileExtension = extensions[selector % extensions.count]
    let name = fileExtension.isEmpty ? "upload" : "upload.\(fileExtension)"
    let type = types[(selector / extensions.count) % types.count]

    let verdict = validator.validate(probe, fileName: name, declaredType: type)
    let again = validator.validate(probe, fileName: name, declaredType: type)
    check(
        verdict.kind == again.kind && verdict.reason == again.reason && verdict.refusal?.code == again.refusal?.code,
        "validation is not deterministic")
    if verdict.kind.category == .executable { check(!verdict.isAccepted, "an executable was accepted") }
    let detection = ContentDetector.detect(probe, fileExtension: Validator.fileExtension(of: name))
    check(detection.kind == verdict.kind, "detection and validation disagree on the kind")
    return 0
}

func check(_ condition: Bool, _ message: String) {
    if !condition { fatalError("fuzz finding: \(message)") }
}
