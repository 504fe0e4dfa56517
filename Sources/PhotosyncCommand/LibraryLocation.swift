import Foundation
import PhotoLibrary

/// Where a command's library is: a SQLite library directory, or a PostgreSQL database with the directory
/// of its files (originals, renditions, the daemon's lock and notifications).
///
/// `--library` (else `$PHOTOSYNC_LIBRARY`) holding a `postgres://` or `postgresql://` URL names a PostgreSQL
/// library; its files directory is `--library-files` (else `$PHOTOSYNC_LIBRARY_FILES`), required, and must be
/// the same directory for every process sharing the library. Anything else is a SQLite library directory,
/// found by ``PhotoLibrary/defaultURL`` when not given.
enum LibraryLocation: Equatable, Sendable {
    case sqlite(URL)
    case postgres(url: URL, files: URL)

    /// `sqlite` or `postgres`: the engine's name in `status`.
    var engine: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres: "postgres"
        }
    }

    /// Where the library is, for people and JSON: the directory's path, or the URL without its password.
    var shown: String {
        switch self {
        case .sqlite(let url): url.path
        case .postgres(let url, _): Self.redacted(url.absoluteString)
        }
    }

    /// The directory holding the library's files: the SQLite library's own directory, or a PostgreSQL
    /// library's files directory.
    var filesDirectory: URL {
        switch self {
        case .sqlite(let url): url
        case .postgres(_, let files): files
        }
    }

    /// The location the options and the environment name.
    ///
    /// - Throws: ``CommandFailure`` (usage): a PostgreSQL URL without a files directory, a URL that can't be
    ///   read, or `--library-files` given for a SQLite library.
    static func resolve(library: String?, libraryFiles: String?, environment: [String: String]) throws -> LibraryLocation {
        let named = library ?? environment["PHOTOSYNC_LIBRARY"].flatMap { $0.isEmpty ? nil : $0 }
        guard let named, isPostgres(named) else {
            if libraryFiles != nil {
                throw CommandFailure(
                    .usage, code: "usage",
                    "--library-files is for a PostgreSQL library (--library postgres://…); a SQLite library keeps its files in its own directory")
            }
            if let library { return .sqlite(URL(fileURLWithPath: library).standardizedFileURL) }
            return .sqlite(PhotoLibrary.defaultURL(environment: environment))
        }
        guard let url = URL(string: named) else {
            // Not echoed: what doesn't parse may show a password whole.
            throw CommandFailure(.usage, code: "usage", "the library isn't a PostgreSQL URL that can be read: write postgres://USER:PASSWORD@HOST:PORT/DATABASE, percent-encoding the special characters of each part")
        }
        let files = libraryFiles ?? environment["PHOTOSYNC_LIBRARY_FILES"].flatMap { $0.isEmpty ? nil : $0 }
        guard let files else {
            throw CommandFailure(
                .usage, code: "usage",
                """
                a PostgreSQL library needs its files directory (originals, renditions): give --library-files DIR or set \
                PHOTOSYNC_LIBRARY_FILES, the same directory for every process sharing \(redacted(named))
                """)
        }
        return .postgres(url: withPasswordFromEnvironment(url, environment), files: URL(fileURLWithPath: files).standardizedFileURL)
    }

    /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`, in any case).
    static func isPostgres(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// The URL with `$PGPASSWORD` as its password when it has none (as libpq reads it), so that no password
    /// needs to be on a command line, where other users' `ps` shows it.
    static func withPasswordFromEnvironment(_ url: URL, _ environment: [String: String]) -> URL {
        guard let password = environment["PGPASSWORD"], !password.isEmpty,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password == nil, components.user != nil
        else { return url }
        components.password = password
        return components.url ?? url
    }

    /// `text` with the password of every URL in it replaced by `***`: in each URL (from its `://` to the next
    /// white space or quote), whatever lies between the first `:` of the user information and its last `@`.
    /// It never shows a password, also of a URL that doesn't parse (it may hide more than the password then).
    static func redacted(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let end = rest.firstIndex { $0.isWhitespace || $0 == "'" || $0 == "\"" || $0 == "`" } ?? rest.endIndex
            let url = rest[..<end]
            if let at = url.lastIndex(of: "@"), let colon = url[..<at].firstIndex(of: ":") {
                result += url[..<colon] + ":***" + url[at...]
            } else {
                result += url
            }
            rest = rest[end...]
        }
        return result + rest
    }
}
