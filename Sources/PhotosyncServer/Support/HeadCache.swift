import Foundation
import PhotoLibrary
import PhotosyncWire
import Synchronization

/// What the byte routes (originals, renditions) read from the library, kept until the feed's head moves:
/// the mirrored folders (and the resolved roots a served file must lie in), and assets by identifier.
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

        mutating func move(to head: Int64) {
            guard head != self.head else { return }
            self = State(head: head)
        }
    }

    /// Assets kept at most (past that the cache starts over).
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
}
