import ArgumentParser
import Foundation
import MediaProbe
import PhotoLibrary
import SyncWorker

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the library if it doesn't exist, and say where it is.",
        discussion: "Example: photosync init --library ~/Pictures/Library.photosync")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary()
            if options.json {
                printJSON(["library": library.url.path, "identity": library.identity.uuidString])
            } else {
                print("Library \(library.identity.uuidString) at \(library.url.path)")
            }
        }
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Copy the photos and videos of a folder into the library.",
        discussion: """
            Files are copied into the library's content-addressed originals store; a file whose content is \
            already in the library is skipped. Without a folder, the bundled sample folder is imported.

            Example: photosync import ~/Pictures/Camera
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The folder to import (default: the bundled samples).", valueName: "dir"))
    var directory: String?

    func run() async throws {
        try await reportingFailures(options) {
            let root = URL(fileURLWithPath: directory ?? SampleFolder.path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure(code: 1, name: "error", message: "\(root.path) is not a folder")
            }
            let library = try options.openLibrary()
            let summary = try Importer(library: library, root: root).run { line in
                if options.verbose { options.say(line) }
            }
            if options.json {
                printJSON([
                    "library": library.url.path, "imported": summary.imported, "skipped": summary.skipped,
                    "metadataProblems": summary.metadataProblems,
                    "token": try library.currentChangeToken.stringValue,
                ])
            } else if !options.quiet {
                print("Imported \(summary.imported.count) files from \(root.path) into \(library.url.path)")
                for (path, reason) in summary.skipped.sorted(by: { $0.key < $1.key }) {
                    print("  skipped \(path): \(reason)")
                }
                for (path, problems) in summary.metadataProblems.sorted(by: { $0.key < $1.key }) {
                    print("  imported \(path) with what could be read; its metadata: \(problems.joined(separator: "; "))")
                }
                let moments = try library.fetchMoments()
                print("The library now holds \(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)).count) assets in \(moments.count) moments:")
                for moment in moments {
                    print("  \(moment.localizedTitle ?? "?"): \(moment.estimatedAssetCount) assets")
                }
                print("Change token: \(try library.currentChangeToken.stringValue)")
            }
        }
    }
}

/// Where the bundled sample folder is: `./Samples` when run from the repository, else next to the sources.
enum SampleFolder {
    static var path: String {
        let local = FileManager.default.currentDirectoryPath + "/Samples"
        if FileManager.default.fileExists(atPath: local) { return local }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Samples").path
    }
}

/// Imports a folder's media files into a library, one transaction per batch. Files are recognised by their
/// content (not their names) and their metadata read from their headers; a file whose content is already in
/// the library is skipped.
struct Importer {
    let library: PhotoLibrary
    let root: URL
    static let batchSize = 200

    struct Summary {
        var imported: [String] = []
        var skipped: [String: String] = [:]
        var metadataProblems: [String: [String]] = [:]
    }

    private struct Item {
        let url: URL
        let relative: String
        let probe: ProbeResult
    }

    func run(progress: (String) -> Void) throws -> Summary {
        var summary = Summary()
        var files: [URL] = []
        let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [.skipsHiddenFiles])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            guard values?.isRegularFile == true, values?.isSymbolicLink != true else { continue }
            files.append(url)
        }
        files.sort { $0.path < $1.path }
        var seen = Set(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)).compactMap(\.contentHash))
        var batch: [Item] = []
        func flush() throws {
            guard !batch.isEmpty else { return }
            let items = batch
            try library.performChangesAndWait(author: "photosync-import") {
                for item in items { Self.create(item) }
            }
            summary.imported += items.map(\.relative)
            batch.removeAll()
        }
        for file in files {
            let relative = String(file.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            let probe: ProbeResult
            do {
                probe = try MediaProbe.probe(fileAt: file.path, timeZone: library.momentTimeZone, options: .contentHash)
            } catch {
                summary.skipped[relative] = "unreadable: \(error)"
                continue
            }
            guard probe.isMedia, let hash = probe.contentHash?.description else {
                summary.skipped[relative] = "not a photo or video"
                continue
            }
            guard !probe.changedWhileReading else {
                summary.skipped[relative] = "changed while being read (still being written?)"
                continue
            }
            guard seen.insert(hash).inserted else {
                summary.skipped[relative] = "already in the library"
                continue
            }
            if !probe.metadata.problems.isEmpty {
                summary.metadataProblems[relative] = probe.metadata.problems.map(\.description)
            }
            progress("importing \(relative)")
            batch.append(Item(url: file, relative: relative, probe: probe))
            if batch.count >= Self.batchSize { try flush() }
        }
        try flush()
        return summary
    }

    /// One creation request with what the file's headers say.
    private static func create(_ item: Item) {
        AssetChangeRequest.creationRequestForAsset(fromFileAt: item.url).apply(item.probe)
    }
}
