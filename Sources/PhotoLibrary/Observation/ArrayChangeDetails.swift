public import Foundation
import IndexDiff

/// The index changes between two ordered lists of distinct elements, in the coordinates UIKit batch updates
/// use: removed indexes in *before*, inserted indexes in *after*, moves from *before* to *after*, changed
/// indexes in *after* (see the README, "Observing").
///
/// This is the pure form of ``FetchResultChangeDetails`` (PhotoKit's `changeDetails(from:to:changedObjects:)`),
/// usable on any two arrays. Moves are minimal: the unmoved elements are a longest increasing subsequence of
/// their before positions in after order; pure insertions and removals cause no moves.
public struct ArrayChangeDetails<Element: Hashable & Sendable>: Sendable {
    /// The list before the change.
    public let before: [Element]
    /// The list after the change.
    public let after: [Element]
    let diff: IndexDiff
    /// Whether the change is small enough to animate; false means "replace the list wholesale".
    public let hasIncrementalChanges: Bool

    /// Computes the details between two lists.
    ///
    /// - Parameters:
    ///   - changedObjects: elements whose content changed; those present in both lists are reported in
    ///     ``changedIndexes``.
    ///   - incrementalLimit: ``hasIncrementalChanges`` is false when more than this share of the larger list
    ///     is removed, inserted or moved (and more than 20 elements are).
    /// - Throws: ``PhotoLibraryError/duplicateIdentifier(index:inBefore:)`` when a list holds an element twice.
    /// - Complexity: O((*n* + *m*) log *k*) for lists of *n* and *m* elements with *k* out of order; usually
    ///   close to linear.
    public init(
        from before: [Element], to after: [Element], changedObjects: [Element] = [],
        incrementalLimit: Double = 0.5
    ) throws(PhotoLibraryError) {
        self.before = before
        self.after = after
        do {
            diff = try IndexDiff.compute(from: before, to: after, changed: Set(changedObjects))
        } catch {
            switch error {
            case .duplicateIdentifier(let side, let index): throw .duplicateIdentifier(index: index, inBefore: side == .before)
            }
        }
        hasIncrementalChanges = Self.isIncremental(diff, limit: incrementalLimit)
    }

    static func isIncremental(_ diff: IndexDiff, limit: Double) -> Bool {
        let changes = diff.removedIndexes.count + diff.insertedIndexes.count + diff.moves.count
        return changes <= 20 || Double(changes) <= limit * Double(max(diff.beforeCount, diff.afterCount))
    }

    /// Indexes in ``before`` of the elements removed.
    public var removedIndexes: IndexSet { IndexSet(sortedIndexes: diff.removedIndexes) }
    /// Indexes in ``after`` of the elements inserted.
    public var insertedIndexes: IndexSet { IndexSet(sortedIndexes: diff.insertedIndexes) }
    /// Indexes in ``after`` of elements present in both lists whose content changed.
    public var changedIndexes: IndexSet { IndexSet(sortedIndexes: diff.changedIndexes) }
    /// The elements removed, in ``removedIndexes`` order.
    public var removedObjects: [Element] { diff.removedIndexes.map { before[$0] } }
    /// The elements inserted, in ``insertedIndexes`` order.
    public var insertedObjects: [Element] { diff.insertedIndexes.map { after[$0] } }
    /// The elements whose content changed, from ``after``, in ``changedIndexes`` order.
    public var changedObjects: [Element] { diff.changedIndexes.map { after[$0] } }
    /// Whether any element moved (see ``enumerateMoves(_:)``).
    public var hasMoves: Bool { diff.hasMoves }

    /// Calls `body` with each move: `from` in ``before``, `to` in ``after``, ascending by `to`.
    public func enumerateMoves(_ body: (_ from: Int, _ to: Int) -> Void) {
        for move in diff.moves { body(move.from, move.to) }
    }
}

extension IndexSet {
    /// An index set from ascending indexes, built range by range.
    init(sortedIndexes: [Int]) {
        self.init()
        var start = 0
        while start < sortedIndexes.count {
            var end = start
            while end + 1 < sortedIndexes.count && sortedIndexes[end + 1] == sortedIndexes[end] + 1 { end += 1 }
            insert(integersIn: sortedIndexes[start]...sortedIndexes[end])
            start = end + 1
        }
    }
}
