import ArgumentParser
import Foundation
import Logging
import PhotoLibrary
import PhotosyncServer
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the library over HTTP: the changes feed, queries, originals and writes.",
        discussion: """
            Listens on 127.0.0.1:7480 unless --listen says otherwise. Any address other than a loopback one \
            needs --auth-file: API keys, each with a name (the author of its writes) and a level — read, \
            add-only or read-write. Make one with --add-key, which prints the key once. For TLS, put a \
            reverse proxy in front (contrib/Caddyfile, contrib/nginx-photosync.conf). The OpenAPI document \
            is served at /openapi.json; the README's "HTTP API" section describes every endpoint.

            SIGINT and SIGTERM answer waiting long-polls with the current token, end event streams \
            cleanly, then exit 0. `photosync watch DIR --serve PORT` mirrors a folder and serves it in one \
            process.

            Example: photosync serve --listen 0.0.0.0:7480 --auth-file ~/.config/photosync/keys
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on: [HOST:]PORT (port 0: any free port).", valueName: "host:port"))
    var listen = "127.0.0.1:\(ServerOptions.defaultPort)"

    @OptionGroup(title: "HTTP API") var serving: ServeOptions

    @Option(name: .customLong("add-key"), help: ArgumentHelp(
        "Add an API key with this name to --auth-file, print it, and exit.", valueName: "name"))
    var addKey: String?

    @Option(name: .long, help: ArgumentHelp("The level of the key --add-key makes: read, add-only or read-write.", valueName: "level"))
    var level: String = AccessLevel.read.rawValue

    func validate() throws {
        _ = try ServeOptions.address(listen, option: "--listen")
        guard AccessLevel(rawValue: level) != nil else { throw ValidationError("--level must be read, add-only or read-write") }
        if addKey != nil && serving.authFile == nil { throw ValidationError("--add-key needs --auth-file: the file the key is added to") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            if let addKey, let file = serving.authFile {
                try Self.addKey(addKey, level: AccessLevel(rawValue: level) ?? .read, file: file, options: options)
                return
            }
            let library = try run.openExistingLibrary()
            let logger = CommandLogging.logger(label: "photosync.serve", options: options)
            let app = try serving.application(
                library: library, location: try run.location(), address: listen, option: "--listen", metrics: ServerMetrics(), logger: logger)
            try await Self.runUntilSignalled([app], logger: CommandLogging.lifecycleLogger(options: options))
        }
    }

    private static func addKey(_ name: String, level: AccessLevel, file: String, options: GlobalOptions) throws {
        let secret: String
        do { secret = try AuthFile.addKey(name: name, level: level, to: URL(fileURLWithPath: file)) } catch {
            throw CommandFailure(error.description)
        }
        if options.json {
            try Output.json(["name": name, "level": level.rawValue, "key": secret])
        } else {
            Output.line(secret)
            options.say("added the \(level) key \"\(name)\" to \(file); the key above is shown only now: send it as Authorization: Bearer KEY")
        }
    }

    /// Runs services in one group that shuts down gracefully on SIGINT and SIGTERM, and when any of them ends
    /// or fails (the mirror ends: the server stops too; the server can't listen: the mirror stops). A
    /// service still busy 60 s after the signal is cancelled.
    static func runUntilSignalled(_ services: [any Service], logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: services.map {
                .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup)
            },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(60)
        try await ServiceGroup(configuration: configuration).run()
    }
}

/// The options of the HTTP API, for `serve` and `watch --serve`.
struct ServeOptions: ParsableArguments {
    @Option(name: .customLong("auth-file"), help: ArgumentHelp(
        "API keys (made with serve --add-key); required to listen on an address other than loopback.", valueName: "file"))
    var authFile: String?

    @Option(name: .customLong("cors-origin"), help: ArgumentHelp(
        "Allow cross-origin requests from this origin (repeatable; * for any). Default: none.", valueName: "origin"))
    var corsOrigins: [String] = []

    @Option(name: .customLong("max-upload-size"), help: ArgumentHelp(
        "The largest upload accepted: bytes, or with K, M or G.", valueName: "size"))
    var maxUploadSize = "4G"

    func validate() throws {
        try SizeArgument.validate(maxUploadSize, option: "--max-upload-size")
    }

    /// `[HOST:]PORT`, as a usage error when it is no address.
    static func address(_ text: String, option: String) throws -> (host: String, port: Int) {
        do { return try ServerOptions.parseAddress(text) } catch { throw ValidationError("\(option): \(error)") }
    }

    /// The server on `address`: its keys read, its options checked (keys required beyond loopback: a usage
    /// error), and a log line once it listens.
    func application(
        library: PhotoLibrary, location: LibraryLocation, address: String, option: String, metrics: ServerMetrics, logger: Logger
    ) throws -> any Service {
        let (host, port) = try Self.address(address, option: option)
        var keys: [APIKey]?
        if let authFile {
            do { keys = try AuthFile.load(URL(fileURLWithPath: authFile)) } catch { throw CommandFailure(error.description) }
        }
        let serverOptions = ServerOptions(
            host: host, port: port, keys: keys, corsOrigins: Set(corsOrigins), maximumUploadSize: SizeArgument.bytes(maxUploadSize) ?? 4 << 30)
        let access = keys.map { "\($0.count) API keys" } ?? "no API keys: loopback only"
        do {
            return try buildApplication(library: library, options: serverOptions, metrics: metrics, logger: logger) { bound in
                let shown = host.contains(":") ? "[\(host)]" : host
                logger.info("serving \(location.shown) on http://\(shown):\(bound) (\(access))")
            }
        } catch let problem as ServerOptions.Problem {
            throw CommandFailure(.usage, code: "usage", problem.description)
        } catch {
            throw CommandFailure.from(error)
        }
    }
}
