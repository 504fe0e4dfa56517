import Foundation
import HTTPTypes
import PhotoLibrary
import PhotosyncWire
import SyncWorker
import Synchronization

/// What the byte routes (originals, renditions) read from the library, kept until the feed's head moves:
/// the mirrored folders (and the resolved roots a served file must lie in), assets by identifier, and the
/// rendition URLs found to name their asset's current content.
///
/// A commit by any process moves the head (the feed follows the library's commit notification, within
/// milliseconds; the server's own writes move it at once), and the cache starts over: a request never sees
/// what an older head said once the feed knows better. It spares a hot original or thumbnail every database
/// read.
final class HeadCache: Sendable {
    private struct State {
        var head: Int64 = -1
        var roots: (paths: MirrorPaths, allowed: [String])?
        var assets: [String: Asset] = [:]
        var renditions: [String: CheckedRendition] = [:]

        mutating func move(to head: Int64) {
            guard head != self.head else { return }
            self = State(head: head)
        }
    }

    /// A rendition URL checked at this head: its asset's content is its source, and its headers.
    struct CheckedRendition: Sendable {
        /// The rendition's key in ``RenditionMemory``.
        let key: String
        let tag: String
        /// The headers of its `200` (and, without the content type, of its `304`).
        let headers: HTTPFields
    }

    /// Assets (and checked rendition URLs) kept at most (past that the cache starts over).
    static let capacity = 10_000

    private let state = Mutex(State())
    private let library: PhotoLibrary

    init(library: PhotoLibrary) {
        self.library = library
    }

    /// The mirrored folders and the resolved roots a served file must lie in (the library's `originals/`
    /// and every mirrored folder).
    func roots(head: Int64) throws(APIError) -> (paths: MirrorPaths, allowed: [String]) {
        if let roots = state.withLock({ state -> (MirrorPaths, [String])? in
            state.move(to: head)
            return state.roots
        }) { return roots }
        let paths: MirrorPaths
        do { paths = try MirrorPaths(library: library, includeDirectories: false) } catch { throw APIError(error) }
        let allowed = ([library.url.appending(path: "originals").path] + paths.rootPaths).compactMap(LibraryFiles.resolved)
        state.withLock { state in
            state.move(to: head)
            state.roots = (paths, allowed)
        }
        return (paths, allowed)
    }

    /// The asset with this identifier (404 when unknown).
    func asset(_ identifier: String, head: Int64) throws(APIError) -> Asset {
        if let asset = state.withLock({ state -> Asset? in
            state.move(to: head)
            return state.assets[identifier]
        }) { return asset }
        let asset = try LibraryReads(library: library).asset(identifier)
        state.withLock { state in
            state.move(to: head)
            if state.assets.count >= Self.capacity { state.assets.removeAll(keepingCapacity: true) }
            state.assets[identifier] = asset
        }
        return asset
    }

    /// The rendition at this request path, as checked at `head`; nil if it wasn't (or the head moved since).
    func rendition(_ path: String, head: Int64) -> CheckedRendition? {
        state.withLock { state in
            state.move(to: head)
            return state.renditions[path]
        }
    }

    /// Notes that the rendition at this request path names its asset's content at `head`.
    func storeRendition(_ rendition: CheckedRendition, path: String, head: Int64) {
        state.withLock { state in
            state.move(to: head)
            if state.renditions.count >= Self.capacity { state.renditions.removeAll(keepingCapacity: true) }
            state.renditions[path] = rendition
        }
    }
}
