public import ArgumentParser
import Foundation
import PhotoLibrary

/// The `photosync` command. The root only routes to subcommands.
public struct Photosync: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photosync",
        abstract: "A change-history and sync engine for photo libraries.",
        discussion: """
            A library is a directory (default: $PHOTOSYNC_LIBRARY, else ~/.local/share/photosync/Library.photosync) \
            holding an SQLite database and the imported originals.

            Exit codes: 0 success; 1 error; 2 usage; 3 change token expired (resynchronise); \
            4 change token not valid for this library.
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, ImportCommand.self, ScanCommand.self, WatchCommand.self, TokenCommand.self, ChangesCommand.self, AssetsCommand.self, AlbumsCommand.self,
            ShowCommand.self, DuplicatesCommand.self, HistoryCommand.self, StatusCommand.self,
        ]
    )

    public init() {}
}

/// Options every command shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The library directory.", valueName: "path"))
    var library: String?

    @Flag(name: .long, help: "Machine-readable output: JSON (JSON Lines for lists); errors as JSON on stderr.")
    var json = false

    @Flag(name: .shortAndLong, help: "Say more.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Say only what was asked for, and errors.")
    var quiet = false

    /// The library's location: --library, else $PHOTOSYNC_LIBRARY, else the default.
    var libraryURL: URL {
        if let library { return URL(fileURLWithPath: library) }
        if let path = ProcessInfo.processInfo.environment["PHOTOSYNC_LIBRARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return PhotoLibrary.defaultURL
    }

    func openLibrary(create: Bool = true) throws -> PhotoLibrary {
        do {
            return try PhotoLibrary(url: libraryURL, options: .init(createIfNeeded: create))
        } catch {
            throw CommandFailure(error, json: json)
        }
    }

    /// Prints a progress or summary line to stderr unless --quiet.
    func say(_ line: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// An error with the command's exit code and its report (plain, or JSON on stderr with --json).
struct CommandFailure: Error, CustomStringConvertible {
    let code: Int32
    let name: String
    let message: String

    init(code: Int32, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    init(_ error: any Error, json: Bool) {
        if let error = error as? CommandFailure {
            self = error
            return
        }
        if let error = error as? PhotoLibraryError {
            switch error {
            case .persistentChangeTokenExpired:
                self.init(code: 3, name: "tokenExpired", message: error.description)
            case .undecodableChangeToken, .changeTokenFromAnotherLibrary, .changeTokenAheadOfLibrary:
                self.init(code: 4, name: "tokenInvalid", message: error.description)
            default:
                self.init(code: 1, name: "error", message: error.description)
            }
            return
        }
        self.init(code: 1, name: "error", message: "\(error)")
    }

    var description: String { message }
}

extension AsyncParsableCommand {
    /// Runs `body`, turning failures into the documented exit codes and error reports.
    func reportingFailures(_ options: GlobalOptions, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let failure = CommandFailure(error, json: options.json)
            if options.json {
                let object: [String: Any] = ["error": failure.name, "message": failure.message, "exitCode": failure.code]
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                FileHandle.standardError.write(data + Data("\n".utf8))
            } else {
                FileHandle.standardError.write(Data("photosync: \(failure.message)\n".utf8))
            }
            throw ExitCode(failure.code)
        }
    }
}

/// Writes one JSON value as a line to stdout.
func printJSON(_ object: Any) {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("null".utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

extension Photosync {
    /// Parses the arguments and runs the command, exiting with the documented codes: usage errors exit 2
    /// (argument-parser's default would be 64), with a JSON error on stderr when `--json` was given.
    public static func runAsMain(arguments: [String]) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(withError: nil)
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            let message = fullMessage(for: error)
            if arguments.contains("--json") {
                let object: [String: Any] = ["error": "usage", "message": message, "exitCode": 2]
                let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
                FileHandle.standardError.write(data + Data("\n".utf8))
            } else {
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            Foundation.exit(2)
        }
    }
}
