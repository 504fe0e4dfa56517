import Foundation
import Testing

/// `photosync thumbnail`: the built binary on a mirrored folder of the imaging fixtures.
@Suite struct ThumbnailCommandTests {
    /// A library mirroring `names`, and a folder for outputs.
    struct Setup {
        let cli: Photosync
        let folder: URL
        let output: URL

        init(_ names: [String], engine: LibraryEngine) throws {
            cli = try Photosync(engine)
            folder = try ImageFiles.folder(names)
            output = cli.directory.appending(path: "out")
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let scan = try cli.run("scan", folder.path, "--json")
            try #require(scan.status == 0, "\(scan.stderr)")
        }

        func cleanUp() {
            cli.cleanUp()
            try? FileManager.default.removeItem(at: folder)
        }

        /// `thumbnail ARGUMENTS --json -o OUT/name`: the report and the file's bytes.
        func thumbnail(_ arguments: [String], to name: String) throws -> ([String: Any], Data) {
            let file = output.appending(path: name)
            let result = try cli.run(["thumbnail"] + arguments + ["-o", file.path, "--json"])
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
            return (try result.json(), try Data(contentsOf: file))
        }
    }

    /// camera.jpg is 1200×800 stored with EXIF orientation 6: 800×1200 as displayed.
    @Test(arguments: [
        (["--size", "256"], 171, 256),
        (["--size", "256", "--mode", "fill"], 256, 256),
        (["--size", "640x480"], 320, 480),
        (["--size", "640x480", "--mode", "fill"], 640, 480),
        (["--size", "100x300", "--mode", "fill"], 100, 300),
        (["--size", "2000"], 800, 1200),
    ], LibraryEngine.allCases)
    func sizesFollowThePixelRule(size: (arguments: [String], width: Int, height: Int), engine: LibraryEngine) throws {
        let (arguments, width, height) = size
        let setup = try Setup(["camera.jpg"], engine: engine)
        defer { setup.cleanUp() }
        let (report, data) = try setup.thumbnail(["camera.jpg"] + arguments, to: "t.jpg")
        #expect(report["width"] as? Int == width && report["height"] as? Int == height, "\(report)")
        let size = try ImageFiles.size(of: setup.output.appending(path: "t.jpg"))
        #expect(size.width == width && size.height == height, "\(arguments): \(size)")
        #expect(ImageFiles.format(of: data) == "jpeg")
        #expect(report["bytes"] as? Int == data.count)
    }

    @Test(arguments: LibraryEngine.allCases)
    func formatsByOptionAndByExtensionAreWhatTheBytesSay(engine: LibraryEngine) throws {
        let setup = try Setup(["camera.jpg"], engine: engine)
        defer { setup.cleanUp() }
        for (arguments, name, format) in [
            (["--format", "webp"], "a.img", "webp"), ([], "b.png", "png"), ([], "c.webp", "webp"), ([], "d.avif", "avif"),
            ([], "e.JPG", "jpeg"), ([], "f", "jpeg"), (["--format", "png", "--quality", "10"], "g.png", "png"),
        ] {
            let (report, data) = try setup.thumbnail(["camera.jpg", "--size", "64"] + arguments, to: name)
            #expect(ImageFiles.format(of: data) == format, "\(name)")
            #expect(report["format"] as? String == format)
        }
        // No temporary file is left beside the outputs.
        let names = try FileManager.default.contentsOfDirectory(atPath: setup.output.path)
        #expect(names.sorted() == ["a.img", "b.png", "c.webp", "d.avif", "e.JPG", "f", "g.png"])
    }

    @Test(arguments: LibraryEngine.allCases)
    func anAssetIsNamedByIdentifierPartOrPath(engine: LibraryEngine) throws {
        let setup = try Setup(["camera.jpg", "pattern.png"], engine: engine)
        defer { setup.cleanUp() }
        let assets = try setup.cli.run("assets", "--json").jsonLines()
        let camera = try #require(assets.first { $0["path"] as? String == "camera.jpg" }?["localIdentifier"] as? String)
        let file = setup.folder.appending(path: "camera.jpg").path
        // Identifiers are time-ordered: those of one scan share their start, their last digits tell them apart.
        for name in [camera, String(camera.prefix(36).suffix(12)), "camera.jpg", file] {
            let (report, _) = try setup.thumbnail([name, "--size", "32"], to: "x.jpg")
            #expect(report["localIdentifier"] as? String == camera, "\(name)")
            #expect(report["path"] as? String == "camera.jpg")
        }
        // The second request of the same rendition comes from the cache.
        let (again, _) = try setup.thumbnail(["camera.jpg", "--size", "32"], to: "x.jpg")
        #expect(again["source"] as? String == "renditionCache")
    }

    @Test(arguments: LibraryEngine.allCases)
    func dashWritesTheImageToStdout(engine: LibraryEngine) throws {
        let setup = try Setup(["pattern.png"], engine: engine)
        defer { setup.cleanUp() }
        // stdout redirected to a file, as a shell does.
        let file = setup.output.appending(path: "stdout")
        let arguments = Photosync.placingLibrary(setup.cli.libraryArgument, in: ["thumbnail", "pattern.png", "--size", "48", "-o", "-"])
        let shell = try Photosync.runTool(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "out=\"$1\"; shift; exec \"$@\" > \"$out\"", "sh", file.path, Photosync.binary.path] + arguments,
            environment: setup.cli.environment([:]))
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.isEmpty)
        let bytes = try Data(contentsOf: file)
        #expect(ImageFiles.format(of: bytes) == "jpeg")  // no extension to go by: JPEG
        let size = try ImageFiles.size(of: file)
        #expect(size.width == 48 && size.height == 32)  // pattern.png is 96×64
    }

    @Test(arguments: LibraryEngine.allCases)
    func damagedUnreadableAndBombFilesFailWithTypedErrors(engine: LibraryEngine) throws {
        let setup = try Setup(["camera.jpg", "corrupt.jpg", "bomb.gif", "truncated.jpg"], engine: engine)
        defer { setup.cleanUp() }
        func failure(_ name: String) throws -> (Int32, String?, String) {
            let target = setup.output.appending(path: "\(name).jpg")
            let result = try setup.cli.run(["thumbnail", name, "--size", "64", "-o", target.path, "--json"])
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: target.path), "nothing is written for \(name)")
            let report = try result.errorReport()
            return (result.status, report["error"] as? String, report["message"] as? String ?? "")
        }
        #expect(try failure("corrupt.jpg").0 == 1)
        #expect(try failure("corrupt.jpg").1 == "corruptImage")
        #expect(try failure("truncated.jpg").1 == "corruptImage")
        let bomb = try failure("bomb.gif")
        #expect(bomb.0 == 1 && bomb.1 == "imageTooLarge", "\(bomb)")
        #expect(bomb.2.contains("65535×65535"))
        #expect(try failure("no-such-asset").1 == "notFound")
        // A file deleted behind the library's back (no daemon runs).
        try FileManager.default.removeItem(at: setup.folder.appending(path: "camera.jpg"))
        #expect(try failure("camera.jpg").1 == "fileMissing")
        // A file that can't be read as one (replaced by a directory behind the library's back).
        let replaced = setup.folder.appending(path: "corrupt.jpg")
        try FileManager.default.removeItem(at: replaced)
        try FileManager.default.createDirectory(at: replaced, withIntermediateDirectories: false)
        #expect(try failure("corrupt.jpg").1 == "unreadable")
        // Plain text: the message on stderr, exit 1.
        let plain = try setup.cli.run(["thumbnail", "bomb.gif", "--size", "64", "-o", setup.output.appending(path: "b.jpg").path])
        #expect(plain.status == 1 && plain.stderr.contains("decompression bomb"), "\(plain.stderr)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func badValuesAreUsageErrors(engine: LibraryEngine) throws {
        let setup = try Setup(["pattern.png"], engine: engine)
        defer { setup.cleanUp() }
        let out = setup.output.appending(path: "x.png").path
        for arguments in [
            ["pattern.png", "--size", "0", "-o", out], ["pattern.png", "--size", "12x", "-o", out],
            ["pattern.png", "--size", "70000", "-o", out], ["pattern.png", "--size", "64", "--quality", "0", "-o", out],
            ["pattern.png", "--size", "64", "--mode", "stretch", "-o", out], ["pattern.png", "--size", "64", "--format", "gif", "-o", out],
            ["pattern.png", "--size", "64", "--format", "webp", "-o", out], ["pattern.png", "--size", "64", "-o", "-", "--json"],
            ["pattern.png", "-o", out], ["pattern.png", "--size", "64"],
            // A file named for an image format photosync doesn't write (it would hold a JPEG).
            ["pattern.png", "--size", "64", "-o", setup.output.appending(path: "x.gif").path],
            ["pattern.png", "--size", "64", "-o", setup.output.appending(path: "x.HEIC").path],
        ] {
            let result = try setup.cli.run(["thumbnail"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.output.path).isEmpty)
        // With --format, the name is the caller's business.
        let named = setup.output.appending(path: "x.gif").path
        #expect(try setup.cli.run(["thumbnail", "pattern.png", "--size", "64", "--format", "png", "-o", named]).status == 0)
        #expect(ImageFiles.format(of: try Data(contentsOf: URL(fileURLWithPath: named))) == "png")
    }
}
