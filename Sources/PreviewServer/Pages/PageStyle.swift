/// The pages' stylesheet: one column on a phone, a grid from a tablet up; system fonts, contrast of
/// at least 4.5:1 for text, and a visible focus ring on everything that takes focus.
enum PageStyle {
    static let asset = StaticAsset(name: "pages.css", contentType: "text/css; charset=utf-8", source: source)

    static let source = """
        :root{--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--soft:#f6f8fa;--accent:#0b57d0;--bad:#b42318;--ok:#1a7f37}
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:#fff}
        a{color:var(--accent)}
        :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
        .page-text{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
        .skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:6px 10px;z-index:5}
        .bar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center;padding:10px 16px;border-bottom:1px solid var(--line);background:var(--soft)}
        .brand{font-weight:700;color:var(--ink);text-decoration:none;margin-right:auto}
        .bar form{display:flex;gap:6px;align-items:center;margin:0}
        main{max-width:1200px;margin:0 auto;padding:16px}
        h1{font-size:22px;margin:4px 0 12px}h2{font-size:17px;margin:20px 0 8px}
        input,select,button{font:inherit;color:inherit}
        input,select{border:1px solid var(--line);border-radius:6px;padding:6px 8px;background:#fff;min-width:0}
        button,.button{border:1px solid var(--line);border-radius:6px;padding:6px 12px;background:#fff;cursor:pointer;text-decoration:none;color:var(--ink)}
        button.primary{background:var(--accent);border-color:var(--accent);color:#fff}
        .stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:8px}
        .stat{border:1px solid var(--line);border-radius:8px;padding:10px 12px}
        .stat span{display:block;color:var(--muted);font-size:13px}.stat b{display:block;font-size:20px}.stat small{color:var(--muted)}
        .upload form{display:flex;flex-wrap:wrap;gap:8px;align-items:center;border:2px dashed var(--line);border-radius:8px;padding:12px}
        .upload form.dragging{border-color:var(--accent);background:#eef4ff}
        .uploads{list-style:none;margin:8px 0 0;padding:0;display:grid;gap:6px}
        .uploads li{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:4px 8px;align-items:center;border:1px solid var(--line);border-radius:6px;padding:6px 10px}
        .uploads progress{grid-column:1/-1;width:100%;height:8px}
        .uploads .name{overflow-wrap:anywhere}.uploads .message{grid-column:1/-1;font-size:14px}
        .uploads .refused .message,.error{color:var(--bad)}.uploads .accepted .message{color:var(--ok)}
        .filters{display:flex;flex-wrap:wrap;gap:8px;align-items:end}
        .filters .field{display:flex;flex-direction:column;gap:2px}.filters label{font-size:13px;color:var(--muted)}
        .filters input[type=search]{width:min(320px,80vw)}
        .chips{display:flex;flex-wrap:wrap;gap:6px;margin:10px 0}
        .chips a{border:1px solid var(--line);border-radius:999px;padding:3px 10px;text-decoration:none;color:var(--ink)}
        .chips a[aria-current]{background:var(--ink);border-color:var(--ink);color:#fff}
        .chips span{color:inherit;opacity:.75}
        .documents{list-style:none;margin:0;padding:0}
        .documents.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:12px}
        .card{border:1px solid var(--line);border-radius:8px;padding:8px;overflow-wrap:anywhere}
        .card>a{color:inherit;text-decoration:none;display:block}
        .thumb{height:140px;display:flex;align-items:center;justify-content:center;background:var(--soft);border-radius:4px;margin-bottom:6px;color:var(--muted);overflow:hidden}
        .thumb img{max-width:100%;max-height:100%}
        .meta{color:var(--muted);font-size:13px}
        .documents.rows .card{display:grid;grid-template-columns:64px minmax(0,1fr);gap:4px 12px;align-items:center;border-width:0 0 1px;border-radius:0}
        .documents.rows .card>a{display:contents}.documents.rows .thumb{height:48px;width:64px;margin:0;grid-row:span 2}
        .documents.rows .meta,.documents.rows .error{grid-column:2}
        .empty,.hint{color:var(--muted)}.hint{font-size:13px}.more{display:inline-block;margin:16px 0}
        .crumbs{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:8px}
        .heading h1{margin:6px 0}.badge{display:inline-block;background:var(--soft);border:1px solid var(--line);border-radius:999px;padding:1px 10px;font-size:13px}
        .description{white-space:pre-line;margin:0 0 8px}.description:empty{display:none}
        .note{color:#7a4b00}.hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
        .facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:8px;margin:12px 0}
        .facts div{border:1px solid var(--line);border-radius:8px;padding:6px 10px}.facts dt{color:var(--muted);font-size:13px}.facts dd{margin:0;overflow-wrap:anywhere}
        .actions{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}.danger{color:var(--bad)}
        .row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
        .preview{margin:16px 0}
        .pages img,.media img,video{display:block;width:100%;max-width:1024px;margin:0 auto 16px;background:var(--soft);box-shadow:0 1px 4px #0003}
        .preview video{max-height:80vh;object-fit:contain;background:#000}
        .filmstrip{display:flex;gap:2px;overflow-x:auto;max-width:1024px;margin:0 auto 16px}.filmstrip a{flex:none;display:block}
        .table{overflow-x:auto;position:relative}table{border-collapse:collapse;width:100%}td,th{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left}
        tr.shown{background:#fff8c5}td form{margin:0}
        dialog{border:1px solid var(--line);border-radius:10px;padding:16px;width:min(520px,94vw)}
        dialog::backdrop{background:#0006}
        dialog form{display:flex;flex-direction:column;gap:6px}dialog h2{margin-top:0}
        dialog fieldset{border:1px solid var(--line);border-radius:8px;display:flex;flex-direction:column;gap:6px}
        .check{display:flex;gap:6px;align-items:center}.schools{display:flex;flex-direction:column;gap:4px}
        .links{padding-left:18px}.links input{width:100%;margin:4px 0}
        body.dark{background:#111;color:#eee}.dark a{color:#9ecbff}
        .dark .button,.dark button{background:#222;color:#eee;border-color:#555}
        .viewer{max-width:none;padding:0;min-height:100vh;display:flex;flex-direction:column}
        .viewer-bar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;padding:8px 12px;background:#000;position:sticky;top:0;z-index:2}
        .viewer-bar h1{font-size:16px;margin:0;flex:1 1 8em;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .counter{color:#ccc;font-size:14px}
        .find{display:flex;gap:4px;align-items:center;margin:0}.find input{width:9em;padding:6px 8px;background:#222;color:#eee;border:1px solid #555}.find input::placeholder{color:#aaa}.find .hits{color:#ccc;font-size:14px;min-width:4em}
        .stage{flex:1;padding:8px}.stage .note{color:#f5c26b}
        .stage video{max-height:calc(100vh - 130px);width:100%;object-fit:contain;box-shadow:none;background:#000}
        .stage .media img{width:auto;max-width:100%;max-height:calc(100vh - 130px);box-shadow:none}
        .stage .pages img{box-shadow:none}
        .flip{display:flex;justify-content:space-between;gap:8px;padding:8px 12px}.flip [rel=next]{margin-left:auto}
        .narrow{max-width:420px;margin:48px auto}.narrow form{display:flex;flex-direction:column;gap:8px;align-items:flex-start}
        .narrow input{width:100%}button.destroys{background:var(--bad);border-color:var(--bad)}
        @media (max-width:480px){main{padding:12px}.bar{padding:8px 12px}.documents.grid{grid-template-columns:repeat(2,minmax(0,1fr))}.thumb{height:110px}}
        \(ZoomScript.style)
        """
}
