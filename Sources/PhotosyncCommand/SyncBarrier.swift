import Foundation
import PhotoLibrary
import SyncWorker

/// `--sync DIR`: the sync barrier, across processes.
enum SyncBarrier {
    /// Returns once every change made to `folder` before the call is in the library: through the daemon's
    /// cookie when a daemon watches `folder`, else by a scan of it (holding the daemon lock meanwhile).
    ///
    /// - Throws: ``CommandFailure``: another process mirrors into the library (a scan, or a daemon watching
    ///   another folder), the daemon did not reach the barrier within a minute, or the scan failed.
    static func apply(folder: String, library: PhotoLibrary, options: GlobalOptions) async throws {
        let root = try FolderArgument.resolve(folder)
        try FolderArgument.checkOutsideLibraryFiles(root, location: try options.libraryLocation())
        try FolderArgument.checkNotNested(root, in: library)
        do {
            if let holder = MirrorWriterLock.currentHolder(libraryURL: library.url) {
                guard holder.mode == "watch", holder.root == root.path else {
                    throw CommandFailure("another photosync process (\(holder.summary)) mirrors into this library; retry when it is done")
                }
                try await FolderMirror.requestSync(library: library, root: root, timeout: .seconds(60))
                return
            }
            let logger = CommandLogging.logger(label: "photosync.sync", options: options)
            try await FolderMirror(library: library, root: root, options: FolderMirrorOptions(logger: logger)).scan()
        } catch let error as SyncError {
            throw CommandFailure.from(error)
        }
    }
}
