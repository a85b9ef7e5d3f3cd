import Foundation
import LadderImaging
package import LadderManifest

/// The page `ladder build --report DIR` writes: a contact sheet of every image with its
/// variants (sizes, bytes, and what they weigh against the source), the sources that failed
/// with their reasons, the warnings, what `ladder verify` found, and links to the replay
/// filmstrips. It opens from disk; the thumbnails it shows are copied next to it, so the folder
/// can be uploaded on its own (as a CI artifact).
package struct ReportPage: Sendable {
    package let configuration: PipelineConfiguration
    package let manifest: Manifest
    package let build: BuildReport
    package let verification: VerificationReport?
    /// The replay filmstrips' page, relative to the report's folder, when there is one.
    package let filmstrips: String?

    package init(
        configuration: PipelineConfiguration, manifest: Manifest, build: BuildReport,
        verification: VerificationReport?, filmstrips: String?
    ) {
        self.configuration = configuration
        self.manifest = manifest
        self.build = build
        self.verification = verification
        self.filmstrips = filmstrips
    }

    /// Writes `index.html` and the thumbnails it shows into `directory`; returns the page's path.
    @discardableResult
    package func write(to directory: String) throws(FileSystemError) -> String {
        let folder = try Directory.create(directory)
        let images = try folder.subdirectory("images", create: true)
        let manifestFolder = FilePath.parent(configuration.manifestPath)
        let smallest = configuration.variants.min { $0.box.pixelCount < $1.box.pixelCount }

        var cards = ""
        var sourceBytes = 0
        var variantBytes = 0
        let entries = manifest.images.sorted { ($0.value.sources.first ?? $0.key) < ($1.value.sources.first ?? $1.key) }
        for (sha1, entry) in entries {
            sourceBytes += entry.bytes ?? 0
            variantBytes += entry.variants.values.reduce(0) { $0 + $1.bytes }
            var thumbnail: String?
            if let smallest, let variant = entry.variants[smallest.name],
                ManifestPath.isValid(variant.path),
                let bytes = try? Directory.readFile(
                    atPath: FilePath.join(manifestFolder, variant.path), limit: 64 << 20)
            {
                try images.writeAtomically(bytes, to: "\(sha1).jpg")
                thumbnail = "images/\(sha1).jpg"
            }
            cards += card(
                sha1: sha1, entry: entry, thumbnail: thumbnail, manifestFolder: manifestFolder, from: directory)
        }

        var html = HTMLPage.head(title: "ladder build report", style: Self.style)
        html += "<h1>ladder build report</h1>\n<p class=\"summary\">"
        let imageCount = manifest.images.count
        html +=
            "\(imageCount) image\(imageCount == 1 ? "" : "s") from \(build.sources) source\(build.sources == 1 ? "" : "s"): "
        html += "\(build.built) built, \(build.skipped) up to date, "
        html += build.failed.isEmpty ? "none failed" : "<span class=\"bad\">\(build.failed.count) failed</span>"
        html += String(format: " in %.1f s", build.seconds)
        if sourceBytes > 0 {
            html +=
                "<br>sources \(Self.bytes(sourceBytes)), variants \(Self.bytes(variantBytes)) (\(Self.share(variantBytes, of: sourceBytes)) of the sources)"
        }
        if let verification {
            html +=
                "<br>ladder verify: "
                + (verification.isOK
                    ? "<span class=\"good\">every variant intact</span>"
                    : "<span class=\"bad\">\(verification.problems.count) problem\(verification.problems.count == 1 ? "" : "s")</span>")
        }
        if let filmstrips {
            html +=
                "<br><a href=\"\(Self.href(filmstrips))\">replay filmstrips</a>: what an app shows while each image loads"
        }
        html += "</p>\n<p id=\"load-check\" class=\"bad\" hidden></p>\n"

        html += Self.table(
            id: "failures", title: "Failed sources", headers: ["source", "why"],
            rows: build.failed.map { [$0.source, $0.reason] })
        html += Self.table(
            id: "problems", title: "Problems found by ladder verify", headers: ["file", "kind", "what"],
            rows: (verification?.problems ?? []).map { [$0.path, $0.kind.rawValue, $0.message] })

        let savings = FormatSavings(manifest)
        var savingRows: [[String]] = []
        for (name, formats) in savings.byVariant.sorted(by: { $0.key < $1.key }) + [("all variants", savings.total)] {
            for format in formats.keys.sorted() {
                let saving = formats[format]!
                savingRows.append([
                    name, format.rawValue, "\(saving.siblings) of \(saving.rungs)", Self.bytes(saving.jpegBytes),
                    Self.bytes(saving.servedBytes), Self.bytes(saving.savedBytes),
                    FormatSavings.percent(saving.savedShare),
                ])
            }
        }
        html += Self.table(
            id: "formats", title: "What the format siblings save",
            headers: ["variant", "format", "siblings", "JPEG bytes", "with siblings", "saved", "share"],
            rows: savingRows)

        if !build.warnings.isEmpty {
            html += "<h2 id=\"warnings\">Warnings</h2>\n<ul>\n"
            for warning in build.warnings {
                html += "<li><span class=\"path\">\(escape(warning.path))</span>: \(escape(warning.message))</li>\n"
            }
            html += "</ul>\n"
        }
        html += "<h2 id=\"images\">Images</h2>\n<div class=\"grid\">\n\(cards)</div>\n"
        html += Self.loadCheck
        html += "</body></html>\n"
        try folder.writeAtomically(Array(html.utf8), to: "index.html")
        return FilePath.join(directory, "index.html")
    }

    // MARK: - Parts

    private func card(
        sha1: String, entry: Manifest.ImageEntry, thumbnail: String?, manifestFolder: String, from directory: String
    ) -> String {
        let name = entry.sources.first ?? sha1
        var html = "<article class=\"card\" id=\"image-\(sha1)\">\n"
        let largest = entry.variants.max { $0.value.width * $0.value.height < $1.value.width * $1.value.height }
        if let thumbnail {
            let link = largest.map {
                Self.href(FilePath.link(to: FilePath.join(manifestFolder, $0.value.path), from: directory))
            }
            html += "<div class=\"thumb\">" + (link.map { "<a href=\"\($0)\">" } ?? "")
            html += "<img src=\"\(Self.href(thumbnail))\" alt=\"\(escape(name))\" loading=\"lazy\">"
            html += (link == nil ? "" : "</a>") + "</div>\n"
        }

        html += "<h3 class=\"path\">\(escape(name))</h3>\n"
        if entry.sources.count > 1 {
            html += "<p class=\"note\">also \(entry.sources.dropFirst().map(escape).joined(separator: ", "))</p>\n"
        }
        var facts = "\(entry.width)×\(entry.height)"
        if let format = entry.format { facts += " \(escape(format.uppercased()))" }
        if let bytes = entry.bytes { facts += ", \(Self.bytes(bytes))" }
        html += "<p>\(facts)</p>\n<table><tr><th>variant</th><th>size</th><th>bytes</th><th>of source</th></tr>\n"
        for (variantName, variant) in entry.variants.sorted(by: { $0.value.bytes < $1.value.bytes }) {
            let file = Self.href(FilePath.link(to: FilePath.join(manifestFolder, variant.path), from: directory))
            let scans = variant.progressive ? ", \(variant.scans) scans" : ""
            html += "<tr><td><a href=\"\(file)\">\(escape(variantName))</a></td>"
            html += "<td>\(variant.width)×\(variant.height)\(scans)</td><td>\(Self.bytes(variant.bytes))</td>"
            html += "<td>\(entry.bytes.map { Self.share(variant.bytes, of: $0) } ?? "–")</td></tr>\n"
        }
        html += "</table>\n<p class=\"note\">"
        var notes: [String] = []
        if filmstrips != nil {
            notes.append("<a href=\"\(Self.href(filmstrips!))#image-\(sha1)\">replay filmstrip</a>")
        }
        if entry.gpsRemoved == true { notes.append("GPS position removed") }
        if let orientation = entry.orientation, orientation != 1 {
            notes.append("turned upright (EXIF \(orientation))")
        }
        html += notes.joined(separator: " · ") + "</p>\n</article>\n"
        return html
    }

    static let style = """
        h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 13px; margin: 8px 0 2px; }
        .summary { font-size: 15px; } .good { color: #1b7f3b; } .bad { color: #b00020; font-weight: 600; }
        .path { word-break: break-all; } .note { color: #666; font-size: 12px; margin: 4px 0; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(260px, 1fr)); gap: 16px; }
        .card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px; }
        .thumb { height: 164px; display: flex; align-items: center; justify-content: center; }
        .thumb img { display: block; max-width: 100%; max-height: 160px; }
        table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
        td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; } th { background: #f3f3f3; }
        """

    /// Says on the page when pictures do not load (the report was moved away from the variants,
    /// or files are missing), and records the count for automated checks.
    static let loadCheck = """
        <script>
        window.addEventListener("load", () => {
          const images = Array.from(document.images);
          const broken = images.filter((image) => image.complete && image.naturalWidth === 0);
          document.documentElement.dataset.images = String(images.length);
          document.documentElement.dataset.brokenImages = String(broken.length);
          if (broken.length > 0) {
            const banner = document.getElementById("load-check");
            banner.textContent = broken.length + " picture(s) could not be loaded: " +
              broken.map((image) => image.alt).join(", ");
            banner.hidden = false;
          }
        });
        </script>

        """

    /// A titled table whose first column holds paths, or nothing when there is no row. Cells are
    /// text, escaped here.
    static func table(id: String, title: String, headers: [String], rows: [[String]]) -> String {
        guard !rows.isEmpty else { return "" }
        var html = "<h2 id=\"\(id)\">\(escape(title))</h2>\n<table><tr>"
        html += headers.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            html += "<tr>"
            for (column, cell) in row.enumerated() {
                html += "<td\(column == 0 ? " class=\"path\"" : "")>\(escape(cell))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</table>\n"
    }

    // MARK: - Formatting

    /// A path as an attribute value: percent-encoded where URLs need it, then HTML-escaped.
    static func href(_ path: String) -> String {
        escape(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["?", "#"])) ?? path)
    }

    package static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1_000: return "\(count) B"
        case ..<1_000_000: return String(format: "%.1f kB", Double(count) / 1_000)
        default: return String(format: "%.1f MB", Double(count) / 1_000_000)
        }
    }

    static func share(_ part: Int, of whole: Int) -> String {
        guard whole > 0 else { return "–" }
        let percent = Double(part) / Double(whole) * 100
        return percent < 1 ? String(format: "%.1f %%", percent) : String(format: "%.0f %%", percent)
    }
}
