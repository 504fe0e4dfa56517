/// The difference between two ordered lists of unique identifiers, in the coordinate spaces of UIKit
/// batch updates (semantics.md §2).
///
/// | member | index space |
/// |---|---|
/// | ``removedIndexes`` | the list **before** the change |
/// | ``insertedIndexes`` | the list **after** the change |
/// | ``moves`` `(from, to)` | `from` in **before**, `to` in **after** |
/// | ``changedIndexes`` | **after** |
///
/// Every identifier of `before ∪ after` is in exactly one of: removed, inserted, moved, unmoved.
/// `changed` is orthogonal: a moved identifier can also be changed, an inserted one never is.
///
/// **Minimal moves.** The unmoved identifiers form a *longest increasing subsequence* of their before
/// positions, taken in after order: no other set of moves that turns `before` into `after` (together
/// with the removals and insertions, which are forced) is smaller. Pure insertions and removals cause
/// no moves; one identifier moved from the front to the back of a million is one move.
///
/// **Tie-break.** When several longest increasing subsequences exist, the one kept unmoved is the one
/// whose identifiers sit *latest* in `after`: candidates are compared by the after position of their
/// last element, then of their second-to-last, and so on, and the greatest wins. So when `[a, b]`
/// becomes `[b, a]`, `a` stays and `b` is reported as moved (from 1 to 0); when `[a, b, c, d]` becomes
/// `[c, d, a, b]`, `a` and `b` stay and `c` and `d` move.
///
/// Create one with ``compute(from:to:changed:)``.
public struct IndexDiff: Sendable, Hashable {
    /// One moved identifier: `from` is its index in the list before the change, `to` its index in the
    /// list after it.
    public struct Move: Sendable, Hashable {
        /// The identifier's index in the list before the change.
        public let from: Int
        /// The identifier's index in the list after the change.
        public let to: Int

        /// Creates a move from index `from` (before) to index `to` (after).
        @inlinable
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// The number of identifiers in the list before the change.
    public let beforeCount: Int
    /// The number of identifiers in the list after the change.
    public let afterCount: Int
    /// Indexes into the list **before** the change of the identifiers absent from the list after it;
    /// ascending.
    public let removedIndexes: [Int]
    /// Indexes into the list **after** the change of the identifiers absent from the list before it;
    /// ascending.
    public let insertedIndexes: [Int]
    /// The identifiers present in both lists that changed their relative order; ascending by `to`.
    /// Minimal in number (see the type's documentation).
    public let moves: [Move]
    /// Indexes into the list **after** the change of the identifiers present in both lists that were
    /// reported as changed; ascending. Never contains an inserted index.
    public let changedIndexes: [Int]

    @usableFromInline
    init(
        beforeCount: Int,
        afterCount: Int,
        removedIndexes: [Int],
        insertedIndexes: [Int],
        moves: [Move],
        changedIndexes: [Int]
    ) {
        self.beforeCount = beforeCount
        self.afterCount = afterCount
        self.removedIndexes = removedIndexes
        self.insertedIndexes = insertedIndexes
        self.moves = moves
        self.changedIndexes = changedIndexes
    }

    /// Creates a difference from its parts, for a caller that computed them itself (the photo library's
    /// incremental maintenance of fetch results), which must honour every promise of this type: the index
    /// spaces, ascending orders, minimal moves and the tie-break. Tests compare such a caller's output
    /// with ``compute(from:to:changed:)``.
    ///
    /// - Complexity: O(1).
    @_spi(Maintenance)
    public static func assembled(
        beforeCount: Int, afterCount: Int, removedIndexes: [Int], insertedIndexes: [Int], moves: [Move],
        changedIndexes: [Int]
    ) -> IndexDiff {
        IndexDiff(
            beforeCount: beforeCount, afterCount: afterCount, removedIndexes: removedIndexes,
            insertedIndexes: insertedIndexes, moves: moves, changedIndexes: changedIndexes)
    }

    /// Whether any identifier changed its relative order.
    ///
    /// - Complexity: O(1).
    public var hasMoves: Bool { !moves.isEmpty }

    /// Whether nothing was removed, inserted, moved or changed: the two lists are equal and no
    /// identifier in them was reported as changed.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool {
        removedIndexes.isEmpty && insertedIndexes.isEmpty && moves.isEmpty && changedIndexes.isEmpty
    }
}
