import Foundation
import Testing

/// `scripts/install PREFIX`: the binary, the manual page and the systemd user unit, and an installed binary
/// that knows nothing of the build tree.
@Suite struct InstallTests {
    /// Installs into a temporary prefix, with the binary under test (no release build).
    static func install() throws -> URL {
        let prefix = FileManager.default.temporaryDirectory.appending(path: "photosync-prefix-\(UUID().uuidString)")
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOSYNC_BINARY"] = Photosync.binary.path
        let script = try Photosync.runTool(Photosync.repository.appending(path: "scripts/install"), [prefix.path], environment: environment)
        #expect(script.status == 0, "\(script.stderr)")
        return prefix
    }

    @Test func installPutsTheBinaryTheManualPageAndTheUnitInPlace() throws {
        let prefix = try Self.install()
        defer { try? FileManager.default.removeItem(at: prefix) }
        let binary = prefix.appending(path: "bin/photosync")
        #expect(FileManager.default.isExecutableFile(atPath: binary.path))
        let page = prefix.appending(path: "share/man/man1/photosync.1")
        #expect(try Data(contentsOf: page) == Data(contentsOf: Photosync.repository.appending(path: "contrib/photosync.1")))
        let unit = try String(contentsOf: prefix.appending(path: "lib/systemd/user/photosync.service"), encoding: .utf8)
        let execStart = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        #expect(execStart == "ExecStart=\(binary.path) watch %h/Pictures", "\(execStart)")
        // What the unit runs exists and answers.
        #expect(try Photosync.runTool(binary, ["--version"]).status == 0)
    }

    /// Run from the repository (which holds `Samples/`), an installed binary still needs a folder: `watch`
    /// without one on a new library is a usage error, and `import` requires one.
    @Test func anInstalledBinaryNeverDefaultsToTheBuildTreesSamples() throws {
        let prefix = try Self.install()
        let cli = Photosync()
        defer { try? FileManager.default.removeItem(at: prefix); cli.cleanUp() }
        for arguments in [["watch"], ["import"]] {
            let process = Process()
            process.executableURL = prefix.appending(path: "bin/photosync")
            process.arguments = Photosync.placingLibrary(cli.library.path, in: arguments)
            process.currentDirectoryURL = Photosync.repository
            process.environment = cli.environment([:])
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let exited = Photosync.waitUntil(seconds: 20) { !process.isRunning }
            if !exited {
                process.terminate()
                Issue.record("photosync \(arguments) ran on: it found a folder to work on by itself")
            }
            process.waitUntilExit()
            let message = Photosync.Collector(errors).finish()
            #expect(process.terminationStatus == 2, "\(arguments): \(message)")
            #expect(!message.contains("Samples"), "\(message)")
            #expect(!FileManager.default.fileExists(atPath: cli.library.path), "\(arguments) created a library")
        }
    }
}
