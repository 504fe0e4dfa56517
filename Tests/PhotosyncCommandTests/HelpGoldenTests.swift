import Foundation
import Testing

/// The help text of every command, compared with golden files in `Golden/`. After an intended change of
/// the help, regenerate them: `PHOTOSYNC_UPDATE_GOLDEN=1 swift test --filter HelpGoldenTests`, and review
/// the diff.
@Suite struct HelpGoldenTests {
    static let commands = [
        "", "init", "import", "scan", "watch", "token", "changes", "assets", "albums", "show", "duplicates", "history", "status",
    ]

    static var goldenFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Golden")
    }

    @Test(arguments: commands)
    func helpMatchesTheGoldenFile(command: String) throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        let arguments = command.isEmpty ? ["--help"] : [command, "--help"]
        // A fixed width, so the wrapping does not depend on the terminal the tests run in.
        let help = try cli.run(arguments, environment: ["COLUMNS": "100"])
        #expect(help.status == 0)
        let golden = Self.goldenFolder.appending(path: "help-\(command.isEmpty ? "photosync" : command).txt")
        if ProcessInfo.processInfo.environment["PHOTOSYNC_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenFolder, withIntermediateDirectories: true)
            try Data(help.stdout.utf8).write(to: golden)
            return
        }
        let expected = try String(contentsOf: golden, encoding: .utf8)
        #expect(help.stdout == expected, "photosync \(command) --help differs from \(golden.lastPathComponent)")
    }
}
