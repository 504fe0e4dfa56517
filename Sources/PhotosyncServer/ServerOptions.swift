import Foundation

/// How a server listens and whom it lets in.
public struct ServerOptions: Sendable {
    /// The address to bind: an IPv4 or IPv6 address, or `localhost`. Default `127.0.0.1`.
    public var host: String
    /// The TCP port; 0 picks a free one (the server logs and reports which).
    public var port: Int
    /// The API keys; nil: no key needed — allowed on a loopback address only.
    public var keys: [APIKey]?
    /// Origins allowed cross-origin requests (`*` for any); empty: no CORS headers at all.
    public var corsOrigins: Set<String>
    /// The largest upload accepted, in bytes (larger ones get 413 without being stored).
    public var maximumUploadSize: Int64
    /// How often a waiting long-poll or an event stream sends bytes to keep proxies' idle timers alive.
    public var heartbeatInterval: Duration
    /// The longest long-poll `wait`, in seconds (55: under the 60 s idle timeout most proxies use).
    public var maximumWait: Double

    /// The default port: 7480.
    public static let defaultPort = 7480

    /// Options listening on `host:port`, without keys, CORS, with a 4 GiB upload limit.
    public init(host: String = "127.0.0.1", port: Int = ServerOptions.defaultPort, keys: [APIKey]? = nil,
                corsOrigins: Set<String> = [], maximumUploadSize: Int64 = 4 << 30,
                heartbeatInterval: Duration = .seconds(15), maximumWait: Double = 55) {
        self.host = host
        self.port = port
        self.keys = keys
        self.corsOrigins = corsOrigins
        self.maximumUploadSize = maximumUploadSize
        self.heartbeatInterval = heartbeatInterval
        self.maximumWait = maximumWait
    }

    /// A problem with the options, said the way the command line says it.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Checks the options: a port in range, and keys on any address other than a loopback one.
    ///
    /// - Throws: ``Problem``.
    public func validate() throws(Problem) {
        guard (0...65_535).contains(port) else { throw Problem(description: "the port must be from 0 to 65535 (it was \(port))") }
        guard keys != nil || Self.isLoopback(host) else {
            throw Problem(description: """
                listening on \(host) makes the library reachable from other machines: give --auth-file with API keys \
                (photosync serve --auth-file FILE --add-key NAME --level read), or listen on 127.0.0.1
                """)
        }
        guard maximumUploadSize > 0 else { throw Problem(description: "the upload limit must be at least 1 byte") }
    }

    /// Whether `host` is a loopback address: `localhost`, 127.0.0.0/8 or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Parses `[HOST:]PORT` (`8080`, `0.0.0.0:8080`, `[::1]:8080`); a bare port listens on `defaultHost`.
    ///
    /// - Throws: ``Problem`` for text that is no address.
    public static func parseAddress(_ text: String, defaultHost: String = "127.0.0.1") throws(Problem) -> (host: String, port: Int) {
        var host = defaultHost
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else {
            throw Problem(description: "\"\(text)\" is not an address: write PORT or HOST:PORT (e.g. 127.0.0.1:\(defaultPort))")
        }
        return (host, port)
    }
}
