import Foundation
import PhotoLibrary
import Testing

/// The built `photosync` binary, run as a subprocess on temporary libraries.
struct Photosync {
    static var binary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "photosync")
    }

    static var samples: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Samples")
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }

        func json() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
        }

        func jsonLines() throws -> [[String: Any]] {
            try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        }
    }

    let library: URL

    init() {
        library = FileManager.default.temporaryDirectory.appending(path: "photosync-cli-\(UUID().uuidString)")
    }

    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOSYNC_LIBRARY"] = library.path
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    @discardableResult
    func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment)
        // Read stderr on another thread: a child that fills one pipe while we block on the other would hang.
        nonisolated(unsafe) var stderr = Data()
        let readingStderr = DispatchGroup()
        DispatchQueue.global().async(group: readingStderr) { stderr = err.fileHandleForReading.readDataToEndOfFile() }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        readingStderr.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    func cleanUp() { try? FileManager.default.removeItem(at: library) }
}

@Suite struct CommandLineTests {
    @Test func importListsAssetsInTheJSONContract() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        let imported = try cli.run("import", Photosync.samples.path, "--json")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect((try imported.json()["imported"] as? [String])?.count == 6)
        let assets = try cli.run("assets", "--json", "--sort=-creationDate")
        #expect(assets.status == 0)
        let objects = try assets.jsonLines()
        #expect(objects.count == 6)
        let keys: Set<String> = ["id", "path", "filename", "mediaType", "mediaSubtypes", "pixelWidth", "pixelHeight", "creationDate",
                                 "modificationDate", "duration", "location", "isFavorite", "isHidden", "burstIdentifier", "contentHash", "fileSize"]
        for object in objects { #expect(keys.isSubset(of: Set(object.keys))) }
        let first = objects[0]
        #expect(first["filename"] as? String == "IMG_0102.jpg")
        #expect(first["creationDate"] as? String == "2024-07-14T18:02:10+02:00")
        #expect(first["mediaType"] as? String == "image")
        #expect((first["contentHash"] as? String)?.count == 32)
        let location = try #require(first["location"] as? [String: Double])
        #expect(abs(location["latitude"]! - 43.696) < 0.001)
        // Filtering with a predicate; a bad predicate is exit 1 with a JSON error on stderr and nothing on stdout.
        #expect(try cli.run("assets", "--json", "--where", "creationDate < \"2024-01-01\"").lines.count == 2)
        let bad = try cli.run("assets", "--json", "--where", "colour == red")
        #expect(bad.status == 1)
        #expect(bad.stdout.isEmpty)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(bad.stderr.utf8)) as? [String: Any])
        #expect(error["error"] != nil && (error["message"] as? String)?.contains("colour") == true)
        // Show and duplicates.
        let id = try #require(first["id"] as? String)
        #expect(try cli.run("show", id, "--json").json()["id"] as? String == id)
        #expect(try cli.run("duplicates", "--json").stdout.isEmpty)
    }

    @Test func tokensAndChangesFollowTheContract() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let start = try #require(try cli.run("token", "--json").json()["token"] as? String)
        try cli.run("import", Photosync.samples.path)
        let changes = try cli.run("changes", "--since", start, "--json")
        #expect(changes.status == 0)
        let object = try changes.json()
        #expect(object["hasMore"] as? Bool == false)
        let list = try #require(object["changes"] as? [[String: Any]])
        #expect(list.count == 1)
        let assets = try #require(list[0]["asset"] as? [String: [String]])
        #expect(assets["inserted"]?.count == 6)
        #expect(list[0]["author"] as? String == "photosync-import")
        #expect(list[0]["assetCollection"] != nil && list[0]["collectionList"] != nil)
        #expect(object["token"] as? String == (try cli.run("token").stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try cli.run("changes", "--since", start, "--coalesce", "--json").json()["changes"].map { ($0 as? [Any])?.count } == 1)
        #expect(try cli.run("changes", "--since", start, "--exclude-author", "photosync-import", "--json").json()["changes"].map { ($0 as? [Any])?.count } == 0)
    }

    @Test func exitCodesAreDocumented() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let start = try cli.run("token").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // 4: not a token, or another library's.
        let garbage = try cli.run("changes", "--since", "garbage", "--json")
        #expect(garbage.status == 4)
        #expect(garbage.stdout.isEmpty)
        #expect((try JSONSerialization.jsonObject(with: Data(garbage.stderr.utf8)) as? [String: Any])?["error"] as? String == "tokenInvalid")
        let other = Photosync()
        defer { other.cleanUp() }
        try other.run("init")
        let foreign = try other.run("token").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cli.run("changes", "--since", foreign).status == 4)
        // 3: expired.
        try cli.run("import", Photosync.samples.path)
        let middle = try cli.run("token").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try cli.run("import", Photosync.samples.path)  // nothing new: no transaction
        #expect(try cli.run("history", "--expire-before", middle).status == 0)
        let expired = try cli.run("changes", "--since", start, "--json")
        #expect(expired.status == 3)
        #expect((try JSONSerialization.jsonObject(with: Data(expired.stderr.utf8)) as? [String: Any])?["error"] as? String == "tokenExpired")
        // 2: usage.
        #expect(try cli.run("changes").status == 2)
        #expect(try cli.run("no-such-command").status == 2)
        // 0.
        #expect(try cli.run("status", "--json").status == 0)
    }

    @Test func changesWaitIsWokenByACommitFromAnotherProcess() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let token = try cli.run("token").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let started = Date()
        let (waiter, out, _) = try cli.start(["changes", "--since", token, "--wait", "60", "--json"])
        Thread.sleep(forTimeInterval: 0.5)
        try cli.run("import", Photosync.samples.path)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 0)
        #expect(Date().timeIntervalSince(started) < 30)
        let object = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        #expect((object["changes"] as? [Any])?.count == 1)
    }

    @Test func everyCommandHasHelpWithAnExample() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        for command in ["init", "import", "scan", "watch", "token", "changes", "assets", "albums", "show", "duplicates", "history", "status"] {
            let help = try cli.run(command, "--help")
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example:"), "\(command) --help has no example")
            #expect(help.stdout.contains("USAGE: photosync \(command)"))
        }
    }
}
