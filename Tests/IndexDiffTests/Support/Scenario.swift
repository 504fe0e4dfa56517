import SeededRandom
/// A random pair of lists of unique identifiers and a random set of changed identifiers, generated from
/// a seed; `description` says how, for failure messages.
struct Scenario: CustomStringConvertible {
    var before: [Int64]
    var after: [Int64]
    var changed: Set<Int64>
    var description: String

    /// How identifiers are spelled: each style maps distinct numbers to distinct identifiers.
    enum IdentifierStyle: CaseIterable {
        /// 0, 1, 2, ...: database row ids.
        case sequential
        /// Bijectively scrambled 64-bit values, negative ones included.
        case scrambled
        /// Multiples of 2²⁰: every identifier shares its low bits (a stress for the hash table).
        case strided
        /// -1, -2, -3, ...
        case negative

        func identifier(_ number: Int) -> Int64 {
            switch self {
            case .sequential: Int64(number)
            case .scrambled: Int64(bitPattern: SplitMix64.mix(UInt64(number) &+ 0x1234_5678))
            case .strided: Int64(number) << 20
            case .negative: -Int64(number) - 1
            }
        }
    }

    /// How the order of the surviving identifiers changes.
    enum Reordering: CaseIterable {
        case none
        case oneMove
        case fewMoves
        case manyMoves
        case shuffleBlock
        case shuffleAll
        case reverse
    }

    /// - Parameters:
    ///   - seed: The seed of everything random.
    ///   - size: The number of identifiers before the change.
    static func random(seed: UInt64, size: Int) -> Scenario {
        var rng = SplitMix64(seed: seed)
        let style = IdentifierStyle.allCases.randomElement(using: &rng)!
        let removalRate = [0, 0, 0.02, 0.2, 0.6, 1].randomElement(using: &rng)!
        let insertionRate = [0, 0, 0.02, 0.2, 0.6, 1.5].randomElement(using: &rng)!
        let reordering = Reordering.allCases.randomElement(using: &rng)!
        let changeRate = [0, 0.05, 0.3, 1].randomElement(using: &rng)!
        let shuffleBefore = rng.chance(0.2)

        var before = (0..<size).map(style.identifier)
        if shuffleBefore { before.shuffle(using: &rng) }

        let survivors = before.filter { _ in !rng.chance(removalRate) }
        let insertionCount = Int((Double(size) * insertionRate).rounded(.down)) + (rng.chance(0.3) ? 1 : 0)
        // A uniformly random interleaving of the survivors (in order) and the new identifiers.
        var after: [Int64] = []
        after.reserveCapacity(survivors.count + insertionCount)
        var nextSurvivor = 0
        var nextNew = 0
        while nextSurvivor < survivors.count || nextNew < insertionCount {
            let remainingNew = insertionCount - nextNew
            let remaining = remainingNew + survivors.count - nextSurvivor
            if Int.random(in: 0..<remaining, using: &rng) < remainingNew {
                after.append(style.identifier(size + nextNew))
                nextNew += 1
            } else {
                after.append(survivors[nextSurvivor])
                nextSurvivor += 1
            }
        }
        func moveOne() {
            guard after.count > 1 else { return }
            let element = after.remove(at: Int.random(in: 0..<after.count, using: &rng))
            after.insert(element, at: Int.random(in: 0...after.count, using: &rng))
        }
        switch reordering {
        case .none: break
        case .oneMove: moveOne()
        case .fewMoves: for _ in 0..<Int.random(in: 2...4, using: &rng) { moveOne() }
        case .manyMoves: for _ in 0..<min(after.count / 3, 300) { moveOne() }
        case .shuffleBlock:
            if after.count > 1 {
                let lower = Int.random(in: 0..<after.count, using: &rng)
                let upper = Int.random(in: lower...after.count, using: &rng)
                after[lower..<upper].shuffle(using: &rng)
            }
        case .shuffleAll: after.shuffle(using: &rng)
        case .reverse: after.reverse()
        }

        // Changed: identifiers of either list, plus some unknown to both.
        var changed = Set<Int64>()
        for identifier in before + after where rng.chance(changeRate) { changed.insert(identifier) }
        if rng.chance(0.5) {
            for number in (size + insertionCount)..<(size + insertionCount + 3) { changed.insert(style.identifier(number)) }
        }

        let description = "seed \(seed), size \(size), \(style) ids, before shuffled: \(shuffleBefore), "
            + "removal rate \(removalRate), insertion rate \(insertionRate), \(reordering), change rate \(changeRate)"
        return Scenario(before: before, after: after, changed: changed, description: description)
    }
}
