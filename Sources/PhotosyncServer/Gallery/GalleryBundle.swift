import Crypto
import Foundation
import NIOCore

/// The web gallery's files — plain HTML, CSS and JavaScript modules in `Gallery/Static`, embedded in the
/// binary at build time (SwiftPM's `embedInCode`), so an installed `photosync` serves them with nothing
/// fetched at run time and no build step.
///
/// The page (`/`) names the other files under a versioned path, `gallery/VERSION/NAME`, where VERSION is
/// the first 16 hexadecimal digits of a SHA-256 over every file: those URLs never change their bytes and
/// are served `immutable`; the page itself is revalidated on every load (`no-cache` and a strong ETag), so
/// a new binary's gallery is picked up at the next reload, with one 304 for an unchanged one. Modules
/// import each other by relative URL (`./api.js`), which stays inside the same version.
struct GalleryBundle: Sendable {
    /// One file as it is served.
    struct File: Sendable {
        let name: String
        let contentType: String
        let bytes: ByteBuffer
        /// A strong entity tag of the bytes.
        let eTag: String
    }

    /// The content version of the bundle (16 hexadecimal digits).
    let version: String
    /// The page served at `/`, with its references to the versioned files filled in.
    let page: File
    /// The files served under `gallery/VERSION/`, by name.
    let files: [String: File]

    /// The placeholder of `index.html` replaced by the versioned path of the files (`gallery/VERSION`).
    static let placeholder = "{{assets}}"

    /// The embedded gallery.
    static let embedded = GalleryBundle(sources: [
        ("index.html", PackageResources.index_html),
        ("gallery.css", PackageResources.gallery_css),
        ("icon.svg", PackageResources.icon_svg),
        ("app.js", PackageResources.app_js),
        ("api.js", PackageResources.api_js),
        ("library.js", PackageResources.library_js),
        ("feed.js", PackageResources.feed_js),
        ("snapshot.js", PackageResources.snapshot_js),
        ("grid.js", PackageResources.grid_js),
        ("timeline.js", PackageResources.timeline_js),
        ("albums.js", PackageResources.albums_js),
        ("viewer.js", PackageResources.viewer_js),
        ("keys.js", PackageResources.keys_js),
        ("format.js", PackageResources.format_js),
    ])

    /// A bundle of `sources` (name, bytes); `index.html` among them is the page.
    ///
    /// - Complexity: one SHA-256 over all the bytes, and one per file (done once, at first use).
    init(sources: [(name: String, bytes: [UInt8])]) {
        var hasher = SHA256()
        for (name, bytes) in sources {
            hasher.update(data: Array(name.utf8) + [0])
            hasher.update(data: bytes)
        }
        version = String(Self.hex(hasher.finalize()).prefix(16))
        var files: [String: File] = [:]
        var page = File(name: "index.html", contentType: Self.contentType(of: "index.html"), bytes: ByteBuffer(), eTag: "\"\"")
        for (name, bytes) in sources {
            if name == "index.html" {
                let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: Self.placeholder, with: "gallery/\(version)")
                page = Self.file(name, Array(text.utf8))
            } else {
                files[name] = Self.file(name, bytes)
            }
        }
        self.page = page
        self.files = files
    }

    private static func file(_ name: String, _ bytes: [UInt8]) -> File {
        File(name: name, contentType: contentType(of: name), bytes: ByteBuffer(bytes: bytes),
             eTag: EntityTag.strong(String(hex(SHA256.hash(data: bytes)).prefix(32))))
    }

    /// The media type of a gallery file, by its extension.
    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }

    private static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
