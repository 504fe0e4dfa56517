import Foundation
import SeededRandom
import Testing

@testable import MediaProbe

@Suite("Ignore rules")
struct IgnoreRulesTests {
    static func rules(_ text: String, defaults: Bool = false) -> IgnoreRules {
        var rules = IgnoreRules(includeDefaults: defaults)
        rules.setIgnoreFile(contents: text)
        return rules
    }

    @Test("wildmatch", arguments: [
        ("*.jpg", "a.jpg", true), ("*.jpg", "dir/a.jpg", false), ("a?c", "abc", true), ("a?c", "a/c", false),
        ("[abc]x", "bx", true), ("[!abc]x", "bx", false), ("[^abc]x", "dx", true), ("[a-c]", "d", false),
        ("[]]", "]", true), ("[a-]", "-", true), ("[[:digit:]]*", "7up", true), ("[[:bogus:]]", "a", false),
        ("[abc", "a", false), ("\\*", "*", true), ("\\*", "a", false), ("a\\", "a", false),
        ("**/b", "b", true), ("**/b", "a/x/b", true), ("a/**", "a/b/c", true), ("a/**", "a", false),
        ("a/**/b", "a/b", true), ("a/**/b", "a/x/y/b", true), ("a/**/b", "a/xb", false), ("a**b", "axxb", true),
        ("a**b", "a/b", false), ("**", "x/y/z", true), ("*/b", "a/b", true), ("*/b", "a/c/b", false),
        ("a/*", "a/", true),
    ] as [(String, String, Bool)])
    func wildmatch(pattern: String, text: String, expected: Bool) {
        #expect(Wildmatch(pattern).matches(text) == expected, "\(pattern) vs \(text)")
    }

    @Test("wildmatch: the first- and last-byte check never changes an answer (random patterns and texts)", arguments: [1, 2, 3] as [UInt64])
    func wildmatchShortcut(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "b", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "[a-b]", "[[:alpha:]]", "[", "]", "\\", "\\*", "x", "-", "."]
        let letters = Array("ab/x-.]*")
        for _ in 0..<20_000 {
            let pattern = (0..<random.int(in: 0...5)).map { _ in random.pick(pieces) }.joined()
            let text = Array(String((0..<random.int(in: 0...6)).map { _ in random.pick(letters) }).utf8)
            let matcher = Wildmatch(pattern)
            #expect(matcher.matches(bytes: text) == matcher.matchesExhaustively(bytes: text), "\(pattern) vs \(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test func syntax() {
        let rules = Self.rules(
            """
            # a comment
            \\#hash
            \\!bang
            *.tmp
            !keep.tmp
            build/
            /anchored.jpg
            docs/*.pdf
            trailing\\ 
            spaces   
            **/cache
            raw/**
            a/**/z
            """)
        #expect(rules.isIgnored(relativePath: "#hash", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "# a comment", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "!bang", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "x/y.tmp", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "x/keep.tmp", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "build", isDirectory: true))
        #expect(!rules.isIgnored(relativePath: "build", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "src/build/a.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "anchored.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "sub/anchored.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "docs/a.pdf", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "x/docs/a.pdf", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "docs/sub/a.pdf", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "trailing ", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "spaces", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "deep/er/cache", isDirectory: true))
        #expect(rules.isIgnored(relativePath: "raw/2020/a.cr2", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "raw", isDirectory: true))
        #expect(rules.isIgnored(relativePath: "a/z", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "a/b/c/z", isDirectory: false))
        #expect(rules.decidingPattern(relativePath: "x/keep.tmp", isDirectory: false)?.isNegated == true)
        #expect(rules.decidingPattern(relativePath: "x/y.tmp", isDirectory: false)?.lineNumber == 4)
    }

    @Test("a file cannot be re-included when its directory is excluded")
    func parentExclusion() {
        let rules = Self.rules("private/\n!private/ok.jpg\n")
        #expect(rules.isIgnored(relativePath: "private/ok.jpg", isDirectory: false))
        let content = Self.rules("private/*\n!private/ok.jpg\n")
        #expect(!content.isIgnored(relativePath: "private/ok.jpg", isDirectory: false))
        #expect(content.isIgnored(relativePath: "private/no.jpg", isDirectory: false))
    }

    @Test("nested ignore files are relative to their directory and override their ancestors")
    func nested() {
        var rules = IgnoreRules(includeDefaults: false)
        rules.setIgnoreFile(contents: "*.png\n/top.jpg\n")
        rules.setIgnoreFile(contents: "!keep.png\n/local.jpg\nsub/\n", inDirectory: "albums/2020")
        #expect(rules.isIgnored(relativePath: "albums/a.png", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "albums/2020/keep.png", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "albums/2020/x/keep.png", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "albums/2020/other.png", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "albums/2020/local.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "local.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "albums/2020/x/local.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "top.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "albums/top.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "albums/2020/sub/a.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "albums/sub/a.jpg", isDirectory: false))
        #expect(rules.directoriesWithRules == ["", "albums/2020"])
    }

    @Test("built-in defaults", arguments: [
        (".DS_Store", false, true), ("a/.hidden", true, true), (".photosyncignore", false, true),
        ("x/@eaDir", true, true), ("#recycle", true, true), ("$RECYCLE.BIN", true, true), ("Thumbs.db", false, true),
        ("a/b.TMP", false, true), ("c.part", false, true), ("d.crdownload", false, true), ("e.jpg.download", false, true),
        ("System Volume Information", true, true), ("doc.txt~", false, true), ("~$report.docx", false, true),
        ("a/photo.jpg", false, false), ("album", true, false), ("a/.hidden/photo.jpg", false, true),
        ("IMG_0001.HEIC", false, false), ("video.mov", false, false),
    ] as [(String, Bool, Bool)])
    func defaults(path: String, isDirectory: Bool, ignored: Bool) {
        #expect(IgnoreRules().isIgnored(relativePath: path, isDirectory: isDirectory) == ignored, "\(path)")
    }

    @Test("a name alone, decided by the defaults without building its bytes, is decided as the same name in a directory (random names)", arguments: [1, 2] as [UInt64])
    func defaultsOnNames(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let rules = IgnoreRules()
        let pieces = [".", "~", "$", "#", "@", "\r", "!", " ", "T", "t", "m", "p", "P", "a", "r", "d", "s", "w", "u", "é",
                      "Icon", "humbs.db", "esktop.ini", ".tmp", ".TEMP", ".part", ".crdownload", "IMG_", "jpg", "eaDir", "recycle"]
        var ignored = 0
        for _ in 0..<20_000 {
            let name = (0..<random.int(in: 1...4)).map { _ in random.pick(pieces) }.joined()
            let isDirectory = random.chance(0.3)
            let alone = rules.decidingPattern(relativePath: name, isDirectory: isDirectory)
            #expect(alone == rules.decidingPattern(relativePath: "album/" + name, isDirectory: isDirectory), "\(name)")
            if alone != nil { ignored += 1 }
        }
        #expect(ignored > 1_000)  // The names do meet the patterns.
    }

    @Test("defaults come last: an ignore file can re-include, except the ignore file itself")
    func reinclusion() {
        let rules = Self.rules("!.well-known\n!*.tmp\n!.photosyncignore\n", defaults: true)
        #expect(!rules.isIgnored(relativePath: ".well-known", isDirectory: true))
        #expect(!rules.isIgnored(relativePath: "a.tmp", isDirectory: false))
        #expect(rules.isIgnored(relativePath: ".photosyncignore", isDirectory: false))
        #expect(rules.isIgnored(relativePath: ".other", isDirectory: false))
        #expect(rules.decidingPattern(relativePath: ".other", isDirectory: false)?.isDefault == true)
    }

    @Test("CRLF line ends, a byte-order mark, path normalisation")
    func textDetails() {
        let rules = Self.rules("\u{FEFF}a.jpg\r\nb.jpg\r\n")
        #expect(rules.isIgnored(relativePath: "a.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "./x/b.jpg", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "/b.jpg/", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "", isDirectory: true))
    }

    @Test("loading ignore files from a tree skips ignored directories")
    func loadFromDisk() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("ignore-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for directory in ["a/b", "skipped/c", ".hidden"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        try "skipped/\n*.raw\n".write(toFile: root + "/.photosyncignore", atomically: true, encoding: .utf8)
        try "!x.raw\n".write(toFile: root + "/a/b/.photosyncignore", atomically: true, encoding: .utf8)
        try "*\n".write(toFile: root + "/skipped/c/.photosyncignore", atomically: true, encoding: .utf8)
        try "*\n".write(toFile: root + "/.hidden/.photosyncignore", atomically: true, encoding: .utf8)
        let rules = try IgnoreRules.load(root: root)
        #expect(rules.directoriesWithRules == ["", "a/b"])
        #expect(rules.isIgnored(relativePath: "a/y.raw", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "a/b/x.raw", isDirectory: false))
        #expect(rules.isIgnored(relativePath: "skipped/c/photo.jpg", isDirectory: false))
        #expect(!rules.isIgnored(relativePath: "a/photo.jpg", isDirectory: false))
        var single = IgnoreRules()
        #expect(try single.loadIgnoreFile(root: root, directory: "a/b"))
        #expect(try !single.loadIgnoreFile(root: root, directory: "a"))
    }
}

/// git itself as the oracle: random trees and random `.gitignore` files, compared path by path with
/// `git check-ignore`.
@Suite("Ignore rules vs git check-ignore")
struct GitOracleTests {
    static let gitPath: String? = ["/usr/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static let names = ["a", "b", "ab", "abc", "x.jpg", "y.JPG", "img_1.png", "c d", "#h", "!bang", "dir", "sub",
                        "foo", "foo.bar", "[x]", "a-b", "zz"]
    static let pieces = ["*", "?", "a*", "*b", "[ab]*", "[!a]*", "[a-c]b", "*.jpg", "*.[Jj][Pp][Gg]", "**", "x.*",
                         "[[:alpha:]]*", "\\#h", "\\!bang", "f*o", "?b*", "*[0-9]*"]

    static func randomPattern(_ rng: inout SplitMix64) -> String {
        var segments: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            segments.append(Bool.random(using: &rng) ? names.randomElement(using: &rng)! : pieces.randomElement(using: &rng)!)
        }
        var pattern = segments.joined(separator: "/")
        switch Int.random(in: 0..<10, using: &rng) {
        case 0, 1: pattern = "/" + pattern
        case 2: pattern = "**/" + pattern
        case 3: pattern += "/**"
        default: break
        }
        if Int.random(in: 0..<4, using: &rng) == 0 { pattern += "/" }
        if Int.random(in: 0..<4, using: &rng) == 0 { pattern = "!" + pattern }
        if Int.random(in: 0..<10, using: &rng) == 0 { pattern += "  " }
        if Int.random(in: 0..<20, using: &rng) == 0 { pattern = "#" + pattern }
        return pattern
    }

    static func run(_ arguments: [String], in directory: String, input: Data? = nil) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gitPath!)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
        environment["HOME"] = directory
        process.environment = environment
        let output = Pipe()
        let inputPipe = Pipe()
        process.standardOutput = output
        process.standardInput = inputPipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try inputPipe.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    @Test("random trees and patterns agree with git", .enabled(if: gitPath != nil, "git is not installed"))
    func agreesWithGit() throws {
        var rng = SplitMix64(seed: 0x61_7469_6769)
        var compared = 0
        var ignoredByGit = 0
        for round in 0..<24 {
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("oracle-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: root) }
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            _ = try Self.run(["init", "-q", "."], in: root)

            // A random tree: files at depth 1–4, their parents directories.
            var files: Set<String> = []
            var directories: Set<String> = []
            for _ in 0..<70 {
                let depth = Int.random(in: 1...4, using: &rng)
                let components = (0..<depth).map { _ in Self.names.randomElement(using: &rng)! }
                let path = components.joined(separator: "/")
                let parents = (1..<depth).map { components.prefix($0).joined(separator: "/") }
                guard !directories.contains(path), parents.allSatisfy({ !files.contains($0) }) else { continue }
                files.insert(path)
                directories.formUnion(parents)
            }
            for directory in directories {
                try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
            }
            for file in files {
                #expect(FileManager.default.createFile(atPath: root + "/" + file, contents: Data()))
            }

            // Random ignore files at the root and in up to two directories.
            var rules = IgnoreRules(includeDefaults: false)
            let ruleDirectories = [""] + directories.sorted().shuffled(using: &rng).prefix(Int.random(in: 0...2, using: &rng))
            for directory in ruleDirectories {
                let lines = (0..<Int.random(in: 2...9, using: &rng)).map { _ in Self.randomPattern(&rng) }
                let text = lines.joined(separator: "\n") + "\n"
                let path = directory.isEmpty ? root + "/.gitignore" : root + "/" + directory + "/.gitignore"
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                rules.setIgnoreFile(contents: text, inDirectory: directory)
            }

            let paths = (files.union(directories)).sorted()
            let input = Data(paths.joined(separator: "\0").utf8 + [0])
            let (status, output) = try Self.run(["check-ignore", "--no-index", "--stdin", "-z"], in: root, input: input)
            #expect(status == 0 || status == 1, "git check-ignore failed in round \(round)")
            let gitIgnored = Set(output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
            ignoredByGit += gitIgnored.count
            for path in paths {
                let ours = rules.isIgnored(relativePath: path, isDirectory: directories.contains(path))
                let theirs = gitIgnored.contains(path)
                #expect(ours == theirs, "round \(round): \(path) ours=\(ours) git=\(theirs)\n\(Self.describe(root: root, ruleDirectories: ruleDirectories))")
                compared += 1
            }
        }
        #expect(compared > 1000)
        // The oracle says something: neither nothing nor everything is ignored.
        #expect(ignoredByGit > compared / 10 && ignoredByGit < compared * 9 / 10, "\(ignoredByGit) of \(compared)")
    }

    static func describe(root: String, ruleDirectories: [String]) -> String {
        ruleDirectories.map { directory in
            let path = directory.isEmpty ? root + "/.gitignore" : root + "/" + directory + "/.gitignore"
            return "[\(directory)/.gitignore]\n" + ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
        }.joined(separator: "\n")
    }
}
