import Logging
import PhotoLibrary

/// What the routes share: the library, the change feed and its page cache, the files, the metrics.
struct ServerEnvironment: Sendable {
    let library: PhotoLibrary
    let options: ServerOptions
    let feed: ChangeFeed
    let pages: ChangePages
    let metrics: ServerMetrics
    let logger: Logger
    /// Library reads of the byte routes, until the head moves.
    let headCache: HeadCache
    /// Hot renditions' bytes.
    let renditions = RenditionMemory()

    var reads: LibraryReads { LibraryReads(library: library) }
    var files: LibraryFiles { LibraryFiles(library: library) }
}
