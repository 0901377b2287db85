/// Word-processing packages (.docx) built in tests, for what committed samples cannot hold: links
/// to a port or a path that exists only while a test runs.
package enum OfficePackages {
    /// A .docx around `body` (the inside of `<w:body>`), with `relationships` of the document part
    /// and, when given, those of its settings part (which names the template `rIdT`).
    package static func docx(body: String, relationships: String = "", settingsRelationships: String? = nil) -> [UInt8] {
        let namespaces =
            #"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" "#
            + #"xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" "#
            + #"xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" "#
            + #"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture""#
        let relationshipsHead =
            #"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">"#
        var entries: [(name: String, text: String)] = [
            (
                "[Content_Types].xml",
                #"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default "#
                    + #"Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" "#
                    + #"ContentType="application/xml"/><Override PartName="/word/document.xml" "#
                    + #"ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override "#
                    + #"PartName="/word/settings.xml" "#
                    + #"ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/></Types>"#
            ),
            (
                "_rels/.rels",
                relationshipsHead
                    + #"<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" "#
                    + #"Target="word/document.xml"/></Relationships>"#
            ),
            (
                "word/_rels/document.xml.rels",
                relationshipsHead
                    + #"<Relationship Id="rIdS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" "#
                    + #"Target="settings.xml"/>\#(relationships)</Relationships>"#
            ),
            (
                "word/document.xml",
                #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document \#(namespaces)><w:body>\#(body)</w:body></w:document>"#
            ),
            (
                "word/settings.xml",
                #"<?xml version="1.0" encoding="UTF-8"?><w:settings "#
                    + #"\#(namespaces)>\#(settingsRelationships == nil ? "" : #"<w:attachedTemplate r:id="rIdT"/>"#)</w:settings>"#
            )
        ]
        if let settingsRelationships {
            entries.append(("word/_rels/settings.xml.rels", relationshipsHead + settingsRelationships + "</Relationships>"))
        }
        return StoredZip.archive(entries)
    }

    /// A paragraph of text.
    package static func paragraph(_ text: String) -> String { "<w:p><w:r><w:t>\(text)</w:t></w:r></w:p>" }

    /// A 3 × 2 inch picture drawn from the image relationship `id`.
    package static func linkedPicture(_ id: String) -> String {
        #"<w:p><w:r><w:drawing><wp:inline><wp:extent cx="2743200" cy="1828800"/><wp:docPr id="1" name="Picture"/><a:graphic><a:graphicData "#
            + #"uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" "#
            + #"name="p.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip "#
            + #"r:link="\#(id)"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext "#
            + #"cx="2743200" cy="1828800"/></a:xfrm><a:prstGeom "#
            + #"prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>"#
    }

    /// An external image relationship.
    package static func imageRelationship(_ id: String, _ target: String) -> String {
        #"<Relationship Id="\#(id)" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="\#(target)" "#
            + #"TargetMode="External"/>"#
    }

    /// An external template relationship (for `settingsRelationships`).
    package static func templateRelationship(_ target: String) -> String {
        #"<Relationship Id="rIdT" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" Target="\#(target)" "#
            + #"TargetMode="External"/>"#
    }
}
