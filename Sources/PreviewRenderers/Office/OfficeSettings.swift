import Foundation

/// Settings an office child's LibreOffice starts with, kept in its user profile
/// (`user/registrymodifications.xcu`): what a preview never needs, switched off.
///
/// LibreOfficeKit opens each document in a frame of its own with the interface a person would get
/// (no `Hidden` load option reaches it); the sidebar's decks and panels are the costly part of it
/// (`strace` of a warm .xlsx load: 16 of its `.ui` files; hidden, a .docx loads in ~40 ms instead
/// of ~65 and closes in ~5 instead of ~10). Also off: lock files beside the document (a private
/// copy nobody else opens), and spelling and grammar checks while idle.
enum OfficeSettings {
    /// The items, in the profile's own format: later items override earlier ones.
    static let items: [String] =
        ["swriter", "scalc", "simpress", "sdraw"].map { module in
            #"<item oor:path="/org.openoffice.Office.Views/Windows"><node oor:name="\#(module)/10336" oor:op="replace"><node "#
                + #"oor:name="UserData"><prop oor:name="Data" oor:op="fuse" oor:type="xs:string"><value>V2,H,0</value></prop></node></node></item>"#
        } + [
            setting("/org.openoffice.Office.Common/Misc", "UseDocumentSystemFileLocking", "false"),
            setting("/org.openoffice.Office.Common/Misc", "UseDocumentOOoLockFile", "false"),
            setting("/org.openoffice.Office.Linguistic/SpellChecking", "IsSpellAuto", "false"),
            setting("/org.openoffice.Office.Linguistic/GrammarChecking", "IsAutoCheck", "false")
        ]

    private static func setting(_ path: String, _ name: String, _ value: String) -> String {
        #"<item oor:path="\#(path)"><prop oor:name="\#(name)" oor:op="fuse"><value>\#(value)</value></prop></item>"#
    }

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        """
    private static let end = "</oor:items>"

    /// Puts the items missing from the settings of the profile at `profile` at their end, before
    /// LibreOffice starts (it rewrites the file in its own form later; the values stay).
    static func apply(to profile: URL) throws {
        let folder = profile.appendingPathComponent("user")
        let file = folder.appendingPathComponent("registrymodifications.xcu")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        if !text.contains(end) { text = header + "\n" + end + "\n" }
        let missing = items.filter { !text.contains($0) }
        guard !missing.isEmpty, let close = text.range(of: end, options: .backwards) else { return }
        text.replaceSubrange(close, with: missing.joined(separator: "\n") + "\n" + end)
        try Data(text.utf8).write(to: file, options: .atomic)
    }
}
