/// Why ``IndexDiff/compute(from:to:changed:)`` could not diff two lists.
public enum IndexDiffError: Error, Sendable, Hashable {
    /// Which of the two lists an error is about.
    public enum Side: Sendable, Hashable {
        /// The list before the change.
        case before
        /// The list after the change.
        case after
    }

    /// An identifier occurs more than once in one list. `index` is the smallest index in that list at
    /// which an identifier occurs for the second time (so `list[index]` equals an element before it).
    /// When both lists hold duplicates, the `before` list is reported.
    case duplicateIdentifier(side: Side, index: Int)
}
