import Testing

@testable import IndexDiff

/// Checks every rule of the contract (semantics.md §2) on `diff`, computed from `before` to `after` with
/// `changed`, against reference computations; each broken rule is recorded as an issue naming
/// `context` (the seed and shape of a random scenario).
///
/// When `before` and `after` have at most `bruteForceLimit` identifiers in common, the unmoved ones must
/// also be exactly the tie-broken longest increasing subsequence found by brute force.
func expectContract<ID: Hashable>(
    _ diff: IndexDiff,
    before: [ID],
    after: [ID],
    changed: Set<ID> = [],
    bruteForceLimit: Int = 10,
    _ context: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let removed = diff.removedIndexes
    let inserted = diff.insertedIndexes
    let froms = diff.moves.map(\.from)
    let tos = diff.moves.map(\.to)

    #expect(diff.beforeCount == before.count && diff.afterCount == after.count, "counts; \(context)", sourceLocation: sourceLocation)
    #expect(before.count - removed.count + inserted.count == after.count, "count rule; \(context)", sourceLocation: sourceLocation)

    // Index spaces: in range and strictly ascending.
    func isStrictlyAscending(_ indexes: [Int], below bound: Int) -> Bool {
        zip(indexes, indexes.dropFirst()).allSatisfy(<) && indexes.allSatisfy { (0..<bound).contains($0) }
    }
    #expect(isStrictlyAscending(removed, below: before.count), "removed ascending in before; \(context)", sourceLocation: sourceLocation)
    #expect(isStrictlyAscending(inserted, below: after.count), "inserted ascending in after; \(context)", sourceLocation: sourceLocation)
    #expect(isStrictlyAscending(tos, below: after.count), "moves ascending by to; \(context)", sourceLocation: sourceLocation)
    #expect(froms.allSatisfy { (0..<before.count).contains($0) }, "moves from in before; \(context)", sourceLocation: sourceLocation)
    #expect(isStrictlyAscending(diff.changedIndexes, below: after.count), "changed ascending in after; \(context)", sourceLocation: sourceLocation)
    guard diff.beforeCount == before.count, diff.afterCount == after.count,
        (removed + froms).allSatisfy({ (0..<before.count).contains($0) }),
        (inserted + tos).allSatisfy({ (0..<after.count).contains($0) })
    else { return }  // the checks below would index out of range

    // No index used twice.
    #expect(Set(removed + froms).count == removed.count + froms.count, "removed ∪ from distinct; \(context)", sourceLocation: sourceLocation)
    #expect(Set(inserted + tos).count == inserted.count + tos.count, "inserted ∪ to distinct; \(context)", sourceLocation: sourceLocation)

    // Classification: removed = before − after, inserted = after − before, moves within the common ones.
    let beforeSet = Set(before)
    let afterSet = Set(after)
    let expectedRemoved = before.indices.filter { !afterSet.contains(before[$0]) }
    let expectedInserted = after.indices.filter { !beforeSet.contains(after[$0]) }
    expectSame(removed, expectedRemoved, "removed = before − after; \(context)", sourceLocation: sourceLocation)
    expectSame(inserted, expectedInserted, "inserted = after − before; \(context)", sourceLocation: sourceLocation)
    #expect(diff.moves.allSatisfy { before[$0.from] == after[$0.to] }, "a move keeps its identifier; \(context)", sourceLocation: sourceLocation)

    // The central property: applying the difference gives `after`.
    expectSame(diff.applied(to: before, after: after), after, "applied(to:after:) == after; \(context)", sourceLocation: sourceLocation)

    // Minimal moves: the unmoved identifiers are an increasing subsequence of before positions taken in
    // after order, and a longest one.
    var beforeIndex: [ID: Int] = [:]
    for (index, identifier) in before.enumerated() { beforeIndex[identifier] = index }
    let moved = Set(tos)
    let commonAfterIndexes = after.indices.filter { beforeSet.contains(after[$0]) }
    let commonBeforePositions = commonAfterIndexes.map { beforeIndex[after[$0]]! }
    let unmovedPositions = commonAfterIndexes.indices.filter { !moved.contains(commonAfterIndexes[$0]) }
    let unmovedBeforePositions = unmovedPositions.map { commonBeforePositions[$0] }
    #expect(zip(unmovedBeforePositions, unmovedBeforePositions.dropFirst()).allSatisfy(<), "unmoved in increasing order; \(context)", sourceLocation: sourceLocation)
    let longest = commonBeforePositions.count <= 64
        ? Oracle.longestIncreasingLengthQuadratic(commonBeforePositions)
        : Oracle.longestIncreasingLength(commonBeforePositions)
    #expect(unmovedPositions.count == longest, "moves minimal: \(diff.moves.count) moves, \(commonBeforePositions.count - longest) needed; \(context)", sourceLocation: sourceLocation)
    if commonBeforePositions.count <= bruteForceLimit {
        expectSame(unmovedPositions, Oracle.tieBrokenLongestIncreasingPositions(commonBeforePositions), "tie-break; \(context)", sourceLocation: sourceLocation)
    }

    // Changed: the identifiers of `changed` present in both lists, at their after indexes; never inserted.
    let expectedChanged = after.indices.filter { changed.contains(after[$0]) && beforeSet.contains(after[$0]) }
    expectSame(diff.changedIndexes, expectedChanged, "changed = after ∩ before ∩ changed; \(context)", sourceLocation: sourceLocation)
    #expect(Set(diff.changedIndexes).isDisjoint(with: inserted), "changed ∩ inserted = ∅; \(context)", sourceLocation: sourceLocation)

    #expect(diff.hasMoves == !diff.moves.isEmpty, "hasMoves; \(context)", sourceLocation: sourceLocation)
    #expect(diff.isEmpty == (before == after && expectedChanged.isEmpty), "isEmpty; \(context)", sourceLocation: sourceLocation)
}
