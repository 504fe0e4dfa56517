public import Foundation
import IndexDiff

/// How a fetch result changed in one delivered change (PhotoKit's `PHFetchResultChangeDetails`).
///
/// Index spaces follow UIKit batch updates, so the details can be applied directly: ``removedIndexes`` in
/// ``fetchResultBeforeChanges``, ``insertedIndexes`` in ``fetchResultAfterChanges``, moves `from` before
/// `to` after, and ``changedIndexes`` in after (reload them in a second pass). Moves are minimal.
public struct FetchResultChangeDetails<Object: LibraryObject>: Sendable {
    /// The fetch result the details start from.
    public let fetchResultBeforeChanges: FetchResult<Object>
    /// The fetch result after the change: keep it in place of the old one.
    public let fetchResultAfterChanges: FetchResult<Object>
    /// Whether the change is small enough to animate; false means "reload everything".
    public let hasIncrementalChanges: Bool
    let diff: IndexDiff

    init(before: FetchResult<Object>, after: FetchResult<Object>, changedKeys: Set<Int64>, incrementalLimit: Double) throws(PhotoLibraryError) {
        fetchResultBeforeChanges = before
        fetchResultAfterChanges = after
        do {
            diff = try IndexDiff.compute(from: before.keys, to: after.keys, changed: changedKeys)
        } catch {
            switch error {
            case .duplicateIdentifier(let side, let index): throw .duplicateIdentifier(index: index, inBefore: side == .before)
            }
        }
        hasIncrementalChanges = ArrayChangeDetails<Int64>.isIncremental(diff, limit: incrementalLimit)
    }

    /// Details whose difference was computed already (incrementally, see ``IncrementalFetch``).
    init(before: FetchResult<Object>, after: FetchResult<Object>, diff: IndexDiff, incrementalLimit: Double) {
        fetchResultBeforeChanges = before
        fetchResultAfterChanges = after
        self.diff = diff
        hasIncrementalChanges = ArrayChangeDetails<Int64>.isIncremental(diff, limit: incrementalLimit)
    }

    /// Indexes in the before result of the objects removed.
    public var removedIndexes: IndexSet { IndexSet(sortedIndexes: diff.removedIndexes) }
    /// The objects removed, as they were.
    public var removedObjects: [Object] { diff.removedIndexes.map { fetchResultBeforeChanges[$0] } }
    /// Indexes in the after result of the objects inserted.
    public var insertedIndexes: IndexSet { IndexSet(sortedIndexes: diff.insertedIndexes) }
    /// The objects inserted, as they are in the after result.
    public var insertedObjects: [Object] { diff.insertedIndexes.map { fetchResultAfterChanges[$0] } }
    /// Indexes in the after result of objects present before and after whose public properties changed.
    public var changedIndexes: IndexSet { IndexSet(sortedIndexes: diff.changedIndexes) }
    /// The objects whose properties changed, as they are in the after result.
    public var changedObjects: [Object] { diff.changedIndexes.map { fetchResultAfterChanges[$0] } }
    /// Whether any object moved.
    public var hasMoves: Bool { diff.hasMoves }

    /// Calls `body` with each move: `from` in the before result, `to` in the after result, ascending by `to`.
    public func enumerateMoves(_ body: (_ from: Int, _ to: Int) -> Void) {
        for move in diff.moves { body(move.from, move.to) }
    }
}

/// How one object changed (PhotoKit's `PHObjectChangeDetails`).
public struct ObjectChangeDetails<Object: LibraryObject>: Sendable {
    /// The object as it was given.
    public let objectBeforeChanges: Object
    /// The object now; nil when it was deleted.
    public let objectAfterChanges: Object?
    /// Whether the asset's bytes changed (reload its images).
    public let assetContentChanged: Bool
    /// Whether the object was deleted.
    public var objectWasDeleted: Bool { objectAfterChanges == nil }
}
