public import Foundation

/// Where and how to connect to PostgreSQL, read from a `postgres://` URL.
///
/// ```
/// postgres://user:password@host:5432/database?sslmode=require
/// postgres://user@/database?host=/var/run/postgresql        (a unix socket directory)
/// postgresql://user:p%40ss@[::1]/photos?application_name=photosync
/// ```
///
/// The scheme is `postgres` or `postgresql`. The user is required; the password, port (5432) and host
/// (`localhost`) are optional. The database is the path's single component. Query parameters: `host` (a
/// unix socket directory, as libpq reads it), `sslmode` (`disable`, `prefer` — the default — or
/// `require`) and `application_name`. Percent-escapes are decoded in every part. Anything else is a
/// ``PostgresStoreError/invalidURL(_:reason:)``, never ignored.
public struct PostgresConfiguration: Sendable, Equatable {
    /// How to use TLS.
    public enum TLSMode: String, Sendable, Equatable {
        /// Never.
        case disable
        /// When the server offers it.
        case prefer
        /// Always, verifying the server's certificate.
        case require
    }

    /// Where the server is.
    public enum Endpoint: Sendable, Equatable {
        /// A TCP host and port.
        case tcp(host: String, port: Int)
        /// The directory of the server's unix socket, and the port that names the socket file.
        case unixSocket(directory: String, port: Int)
    }

    public var endpoint: Endpoint
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    public var applicationName: String

    /// The server's address, for messages: `host:port` or the socket's path.
    public var address: String {
        switch endpoint {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let directory, let port): "\(directory)/.s.PGSQL.\(port)"
        }
    }

    /// Reads a `postgres://` URL.
    ///
    /// - Throws: ``PostgresStoreError/invalidURL(_:reason:)`` for another scheme, a missing user or
    ///   database, a port out of range, an unknown query parameter or `sslmode`, or a path with more than
    ///   one component.
    public init(url: URL) throws(PostgresStoreError) {
        func invalid(_ reason: String) -> PostgresStoreError { .invalidURL(Self.redacted(url), reason: reason) }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid("not a URL")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw invalid("a user name is required (postgres://user@host/database)")
        }
        let path = components.percentEncodedPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 1, let database = String(segments[0]).removingPercentEncoding, !database.isEmpty else {
            throw invalid(segments.isEmpty ? "a database name is required (…/database)" : "the path must be one database name")
        }
        if let port = components.port, !(1...65535).contains(port) { throw invalid("port \(port) is out of range") }
        let port = components.port ?? 5432
        var socketDirectory: String?
        var tls = TLSMode.prefer
        var applicationName = "photosync"
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "host": socketDirectory = value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw invalid("sslmode must be disable, prefer or require, not '\(value)'")
                }
                tls = mode
            case "application_name": applicationName = value
            default: throw invalid("unknown parameter '\(item.name)' (known: host, sslmode, application_name)")
            }
        }
        if let socketDirectory {
            guard socketDirectory.hasPrefix("/") else { throw invalid("host= must be an absolute socket directory") }
            endpoint = .unixSocket(directory: socketDirectory, port: port)
        } else {
            let host = components.host.flatMap { $0.removingPercentEncoding } ?? ""
            endpoint = .tcp(host: host.isEmpty ? "localhost" : host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
        }
        self.user = user
        self.password = components.password.flatMap { $0.removingPercentEncoding }
        self.database = database
        self.tls = tls
        self.applicationName = applicationName
    }

    /// The URL without its password, for messages and logs.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? url.absoluteString
    }
}
