import Foundation
import MediaProbe
import PhotoLibrary
import SyncWorker

/// Imports a folder's media files into a library, one transaction per batch. Files are recognised by their
/// content (not their names) and their metadata read from their headers; a file whose content is already in
/// the library is skipped.
struct Importer {
    let library: PhotoLibrary
    let root: URL
    static let batchSize = 200

    struct Summary {
        /// Paths relative to the root.
        var imported: [String] = []
        /// Why each file left out was (`not a photo or video`, `already in the library`, `unreadable: …`).
        var skipped: [String: String] = [:]
        var metadataProblems: [String: [String]] = [:]
    }

    private struct Item {
        let url: URL
        let relative: String
        let probe: ProbeResult
    }

    /// Imports every media file under the root, in path order.
    ///
    /// - Parameter progress: called with each path about to be imported.
    /// - Throws: ``PhotoLibraryError`` when a batch can't be committed (the batches before it stay).
    func run(progress: (String) -> Void) throws -> Summary {
        var summary = Summary()
        var seen = Set(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)).compactMap(\.contentHash))
        var batch: [Item] = []
        func flush() throws {
            guard !batch.isEmpty else { return }
            let items = batch
            try library.performChangesAndWait(author: "photosync-import") {
                for item in items { AssetChangeRequest.creationRequestForAsset(fromFileAt: item.url).apply(item.probe) }
            }
            summary.imported += items.map(\.relative)
            batch.removeAll()
        }
        for file in listFiles() {
            let relative = String(file.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            switch examine(file, seen: &seen) {
            case .skip(let reason):
                summary.skipped[relative] = reason
            case .importing(let probe):
                if !probe.metadata.problems.isEmpty { summary.metadataProblems[relative] = probe.metadata.problems.map(\.description) }
                progress(relative)
                batch.append(Item(url: file, relative: relative, probe: probe))
                if batch.count >= Self.batchSize { try flush() }
            }
        }
        try flush()
        return summary
    }

    /// The regular files under the root (hidden ones and symlinks left out), by path.
    private func listFiles() -> [URL] {
        var files: [URL] = []
        let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [.skipsHiddenFiles])
        while let url = enumerator?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            guard values?.isRegularFile == true, values?.isSymbolicLink != true else { continue }
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    private enum Verdict {
        case importing(ProbeResult)
        case skip(String)
    }

    /// Whether a file is imported: media, read whole, and with content not seen yet (then it is seen).
    private func examine(_ file: URL, seen: inout Set<String>) -> Verdict {
        let probe: ProbeResult
        do {
            probe = try MediaProbe.probe(fileAt: file.path, timeZone: library.momentTimeZone, options: .contentHash)
        } catch {
            return .skip("unreadable: \(error)")
        }
        guard probe.isMedia, let hash = probe.contentHash?.description else { return .skip("not a photo or video") }
        guard !probe.changedWhileReading else { return .skip("changed while being read (still being written?)") }
        guard seen.insert(hash).inserted else { return .skip("already in the library") }
        return .importing(probe)
    }
}
