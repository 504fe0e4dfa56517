// Folders of generated files for the benchmarks (SyncFixtures, ImagingBenchmarks), built once and kept between runs.
import Foundation

/// A folder of generated files, made once under a base directory and kept between runs.
public enum FixtureFolder {
    /// The folder `name` under `base`, filled by `fill` unless a run completed it before: a marker file
    /// (`name.complete`, beside it) is written once `fill` returns, so a folder a run left half-made (stopped,
    /// crashed) is emptied and made again.
    ///
    /// Traps when the folder can't be made or `fill` throws: a benchmark can't run without its files.
    public static func make(_ name: String, in base: URL, _ fill: (URL) throws -> Void) -> URL {
        let root = base.appending(path: name)
        let done = base.appending(path: name + ".complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: root)
            try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try! fill(root)
            _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        }
        return root
    }
}
