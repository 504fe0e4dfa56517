import GRDB
import LibraryStorage

/// The sort values of a fetched list's keys, read with the keys, for the incremental path's searches (see
/// ``KeySearch``).
///
/// *Dense*: every key's values, when each is NULL or a number a `Double` holds exactly (dates, sizes, counts,
/// flags) and the sort has at most ``maximumDenseWidth`` columns: 8 bytes a value, NaN for NULL (SQLite has
/// no NaN), and the searches run in memory. *Sampled*: otherwise, the values of every ``stride``-th key
/// (16), as database values; the searches finish in the database.
struct SortFences: Sendable {
    static var stride: Int { 16 }
    /// The most sort columns whose values are kept for every key.
    static var maximumDenseWidth: Int { 2 }

    enum Values: Sendable {
        /// `width` values a key, for every key.
        case dense([Double])
        /// `width` values a key, for the keys at `f * stride`.
        case sampled([DatabaseValue])
    }

    let width: Int
    let values: Values
    /// With dense values, those of every ``directoryStride``-th key (64), `width` a key: a binary search over
    /// a million keys starts in these 125 KB, which stay in the processor's caches, and ends among 64
    /// neighbouring keys, instead of missing the caches at every step.
    let directory: [Double]

    static var directoryStride: Int { 64 }

    init(width: Int, values: Values) {
        self.width = width
        self.values = values
        if case .dense(let numbers) = values, width > 0 {
            directory = Swift.stride(from: 0, to: numbers.count / width, by: Self.directoryStride).flatMap { key in
                numbers[(key * width)..<((key + 1) * width)]
            }
        } else {
            directory = []
        }
    }

    /// The number of keys with values: every key when dense, every ``stride``-th when sampled.
    var count: Int {
        guard width > 0 else { return 0 }
        switch values {
        case .dense(let numbers): return numbers.count / width
        case .sampled(let sampled): return sampled.count / width
        }
    }

    /// A sort value as a dense number: NaN for NULL; nil when a `Double` doesn't hold it exactly (text, blob,
    /// an integer beyond 2⁵³).
    static func number(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .null: .nan
        case .double(let real): real
        case .int64(let integer): abs(integer) <= 1 << 53 ? Double(integer) : nil
        case .string, .blob: nil
        }
    }

    /// A dense number as a database value (a real: SQLite orders integers and reals by value, so the order
    /// is the same).
    static func databaseValue(_ number: Double) -> DatabaseValue {
        number.isNaN ? .null : number.databaseValue
    }

    /// Collects the values of a list's keys as they are read, in order: dense while every value allows it.
    struct Builder {
        let width: Int
        private var numbers: [Double] = []
        private var sampled: [DatabaseValue]?
        private var keyCount = 0

        init(width: Int) {
            self.width = width
            if width > SortFences.maximumDenseWidth { sampled = [] }
        }

        /// Adds the next key's values: `width` columns of the row `columns` is on, from `first` on.
        mutating func add(_ columns: any SQLColumns, from first: Int) {
            defer { keyCount += 1 }
            if sampled == nil {
                var dense = true
                for column in first..<(first + width) {
                    guard let number = SortFences.number(columns.value(column)) else {
                        dense = false
                        break
                    }
                    numbers.append(number)
                }
                if dense { return }
                // A value that isn't a number: sample what was read, and go on sampling.
                numbers.removeLast(numbers.count - keyCount * width)
                sampled = Swift.stride(from: 0, to: keyCount, by: SortFences.stride).flatMap { key in
                    numbers[(key * width)..<((key + 1) * width)].map(SortFences.databaseValue)
                }
                numbers = []
            }
            if keyCount % SortFences.stride == 0 {
                for column in first..<(first + width) { sampled!.append(columns.value(column)) }
            }
        }

        func build() -> SortFences {
            SortFences(width: width, values: sampled.map(Values.sampled) ?? .dense(numbers))
        }
    }
}

/// The keys of a fetch result, in order: a flat array, or the array of an earlier state of the same fetch
/// with a small sorted patch (the indexes of the base left out, and the keys inserted at their indexes).
///
/// Incremental change details (see ``IncrementalFetch``) make the result after a transaction from the
/// result before it; copying a million keys would cost more than the details themselves, so the after
/// result shares the before result's array and carries only the patch. Patches compose: the next
/// transaction's patch is merged into the same base. When a patch outgrows ``compactionLimit(count:)``
/// the keys are copied into a new flat array once.
///
/// A class, immutable: a round hands its lists around a few times, and a struct of seven arrays copied is
/// seven retains, each touching an array's header, where a reference is one.
final class FetchResultKeyList: Sendable {
    /// The keys the patch applies to.
    let base: [Int64]
    /// Ascending indexes into ``base`` of the keys left out.
    let removed: [Int]
    /// Ascending indexes into this list of the keys that don't come from ``base``.
    let insertedIndexes: [Int]
    /// The keys at ``insertedIndexes``.
    let insertedKeys: [Int64]
    /// The number of keys.
    let count: Int
    /// The sort values of the keys of ``base`` (all, or every few), when the fetch read them. Those of a base
    /// key that the patch doesn't remove still hold: the key was touched by no transaction since.
    let fences: SortFences?
    /// With dense fences, the sort values of ``insertedKeys`` (`fences.width` a key): a key inserted by a
    /// patch keeps them until a later patch removes it.
    let insertedValues: [Double]

    /// A flat list.
    init(_ keys: [Int64], fences: SortFences? = nil) {
        base = keys
        removed = []
        insertedIndexes = []
        insertedKeys = []
        count = keys.count
        self.fences = fences
        insertedValues = []
    }

    private init(
        base: [Int64], removed: [Int], insertedIndexes: [Int], insertedKeys: [Int64], fences: SortFences?, insertedValues: [Double]
    ) {
        self.base = base
        self.removed = removed
        self.insertedIndexes = insertedIndexes
        self.insertedKeys = insertedKeys
        count = base.count - removed.count + insertedIndexes.count
        self.fences = fences
        self.insertedValues = insertedValues
    }

    /// The dense sort values of ``base``, if the fetch kept every key's.
    var denseBaseValues: [Double]? {
        if case .dense(let values) = fences?.values { return values }
        return nil
    }

    /// The index in this list of base key `baseIndex`, or nil when the patch removed it.
    ///
    /// - Complexity: O(log *K*).
    func index(ofBase baseIndex: Int) -> Int? {
        let removedBefore = Self.lowerBound(removed, baseIndex)
        if removedBefore < removed.count && removed[removedBefore] == baseIndex { return nil }
        return Self.position(ofSurvivor: baseIndex - removedBefore, holes: insertedIndexes)
    }

    /// Whether the list is its base, without a patch.
    var isFlat: Bool { removed.isEmpty && insertedIndexes.isEmpty }

    /// The size of the patch: removed plus inserted keys.
    var patchSize: Int { removed.count + insertedIndexes.count }

    /// The largest patch kept before the keys are copied into a flat array: 8 √*n*, at least 1,024. A
    /// patch of *K* entries costs O(*K*) to extend, so rounds of *k* changes cost O(*k* log *K* + √*n*)
    /// and a copy, O(*n*), every √*n* / *k* rounds or so.
    static func compactionLimit(count: Int) -> Int {
        max(1_024, 8 * Int(Double(count).squareRoot()))
    }

    /// The key at `index`.
    ///
    /// - Complexity: O(log *K*) for a patch of *K* entries; O(1) when flat.
    subscript(index: Int) -> Int64 {
        if isFlat { return base[index] }
        let inserted = Self.lowerBound(insertedIndexes, index)
        if inserted < insertedIndexes.count && insertedIndexes[inserted] == index { return insertedKeys[inserted] }
        return base[baseIndex(ofSurvivor: index - inserted)]
    }

    /// The keys at `range`, in order.
    ///
    /// - Complexity: O(*r* log *K*) for *r* keys; a copy of the slice when flat.
    subscript(range: Range<Int>) -> [Int64] {
        if isFlat { return Array(base[range]) }
        return range.map { self[$0] }
    }

    /// Every key, in order.
    ///
    /// - Complexity: O(1) when flat (the base is shared), else O(*n*).
    var array: [Int64] {
        if isFlat { return base }
        return flattened(base: base, inserted: insertedKeys, width: 1)
    }

    /// Every key's dense sort values, in order (`fences.width` a key), or nil without dense fences.
    ///
    /// - Complexity: O(*n*).
    var denseValues: [Double]? {
        guard let baseValues = denseBaseValues, let width = fences?.width else { return nil }
        if isFlat { return baseValues }
        return flattened(base: baseValues, inserted: insertedValues, width: width)
    }

    /// The list's elements in order, `width` per key: the base's (minus the removed keys) and the patch's.
    private func flattened<Element>(base: [Element], inserted: [Element], width: Int) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(count * width)
        var nextBase = 0
        var nextRemoved = 0
        var nextInserted = 0
        var position = 0
        while position < count {
            if nextInserted < insertedIndexes.count && insertedIndexes[nextInserted] == position {
                result.append(contentsOf: inserted[(nextInserted * width)..<((nextInserted + 1) * width)])
                nextInserted += 1
                position += 1
                continue
            }
            // Base keys up to the next removed one or the next insertion, whichever comes first.
            while nextRemoved < removed.count && removed[nextRemoved] == nextBase {
                nextRemoved += 1
                nextBase += 1
            }
            var end = nextRemoved < removed.count ? removed[nextRemoved] : self.base.count
            if nextInserted < insertedIndexes.count {
                end = min(end, nextBase + insertedIndexes[nextInserted] - position)
            }
            result.append(contentsOf: base[(nextBase * width)..<(end * width)])
            position += end - nextBase
            nextBase = end
        }
        return result
    }

    /// The index in ``base`` of the `rank`-th key (from 0) of the base that isn't removed.
    ///
    /// - Complexity: O(log *K*).
    func baseIndex(ofSurvivor rank: Int) -> Int {
        Self.position(ofSurvivor: rank, holes: removed)
    }

    /// The position of the `rank`-th element (from 0) of a list that is not at one of `holes` (ascending).
    ///
    /// The *t*-th hole has `holes[t] - t` survivors before it, so the survivor of rank *r* sits after exactly
    /// the holes with `holes[t] - t <= r`.
    /// - Complexity: O(log *h*).
    static func position(ofSurvivor rank: Int, holes: [Int]) -> Int {
        var low = 0
        var high = holes.count
        while low < high {
            let middle = (low + high) / 2
            if holes[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }

    /// The first index of `sorted` (from `start` on) whose value is not less than `value`.
    static func lowerBound(_ sorted: [Int], _ value: Int, from start: Int = 0) -> Int {
        var low = start
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// This list with the keys at `removedIndexes` (ascending indexes into this list) left out and `inserted`
    /// (ascending indexes into the result) put in: the same base with the two patches merged, or a flat
    /// copy when the merged patch is too large. With dense fences, `insertedValues` holds the inserted keys'
    /// sort values (`fences.width` a key, in the same order); else it is empty.
    ///
    /// - Complexity: O(*K* + *k* log *K*) for a patch of *K* entries and *k* new ones; O(*n*) when it
    ///   compacts.
    func applying(removed removedIndexes: [Int], inserted: [(index: Int, key: Int64)], insertedValues newValues: [Double] = []) -> FetchResultKeyList {
        let width = denseBaseValues == nil ? 0 : fences!.width
        precondition(newValues.count == inserted.count * width, "dense sort values for every inserted key")
        // 1. Each removed key is either one inserted by the current patch (dropped from it) or a base key.
        var dropped: [Int] = []  // Ascending indexes into `insertedIndexes`.
        var removedBase: [Int] = []  // Ascending indexes into `base`.
        dropped.reserveCapacity(removedIndexes.count)
        removedBase.reserveCapacity(removedIndexes.count)
        for index in removedIndexes {
            let inserted = Self.lowerBound(insertedIndexes, index)
            if inserted < insertedIndexes.count && insertedIndexes[inserted] == index {
                dropped.append(inserted)
            } else {
                removedBase.append(baseIndex(ofSurvivor: index - inserted))
            }
        }
        let mergedRemoved = Self.merge(removed, removedBase)
        // 2. The keys inserted by the current patch that stay, and the new ones, by index. A key that stays
        //    takes the slot, among those the new insertions leave free, of its rank among the keys that stay;
        //    the new insertions at or before that slot come first. Keys and values are copied by runs.
        var indexes: [Int] = []
        var keys: [Int64] = []
        var values: [Double] = []
        let total = insertedIndexes.count - dropped.count + inserted.count
        indexes.reserveCapacity(total)
        keys.reserveCapacity(total)
        values.reserveCapacity(total * width)
        var pending = 0  // Start of the run of staying keys not copied yet.
        func copyRun(upTo end: Int) {
            keys.append(contentsOf: insertedKeys[pending..<end])
            values.append(contentsOf: insertedValues[(pending * width)..<(end * width)])
        }
        func insertNew(_ new: Int) {
            indexes.append(inserted[new].index)
            keys.append(inserted[new].key)
            values.append(contentsOf: newValues[(new * width)..<((new + 1) * width)])
        }
        var nextDropped = 0
        var removedBefore = 0
        var newBefore = 0
        var position = 0
        while position < insertedIndexes.count {
            if nextDropped < dropped.count && dropped[nextDropped] == position {
                copyRun(upTo: position)
                pending = position + 1
                nextDropped += 1
                position += 1
                continue
            }
            let index = insertedIndexes[position]
            while removedBefore < removedIndexes.count && removedIndexes[removedBefore] < index { removedBefore += 1 }
            let rank = index - removedBefore
            while newBefore < inserted.count && inserted[newBefore].index <= rank + newBefore {
                copyRun(upTo: position)
                pending = position
                insertNew(newBefore)
                newBefore += 1
            }
            indexes.append(rank + newBefore)
            position += 1
            // The keys that stay up to the next event (a dropped key, a removal or a new insertion before them)
            // all shift by the same amount: copied as a run.
            let end = runEnd(
                from: position, nextDropped: nextDropped < dropped.count ? dropped[nextDropped] : nil,
                nextRemoved: removedBefore < removedIndexes.count ? removedIndexes[removedBefore] : nil,
                nextNew: newBefore < inserted.count ? inserted[newBefore].index - newBefore + removedBefore : nil)
            let start = indexes.count
            indexes.append(contentsOf: insertedIndexes[position..<end])
            let shift = newBefore - removedBefore
            if shift != 0 { indexes.withUnsafeMutableBufferPointer { for slot in start..<$0.count { $0[slot] += shift } } }
            position = end
        }
        copyRun(upTo: insertedIndexes.count)
        while newBefore < inserted.count {
            insertNew(newBefore)
            newBefore += 1
        }
        let result = FetchResultKeyList(
            base: base, removed: mergedRemoved, insertedIndexes: indexes, insertedKeys: keys, fences: fences,
            insertedValues: values)
        guard result.patchSize > Self.compactionLimit(count: result.count) else { return result }
        // Compacted: dense values stay whole; sampled ones can't be carried (they sample the old base).
        if let values = result.denseValues {
            return FetchResultKeyList(result.array, fences: SortFences(width: width, values: .dense(values)))
        }
        return FetchResultKeyList(result.array)
    }

    /// The end of a run of the patch's keys from `position` on: before the next dropped key, the first key
    /// after the next removed index, and the first key at or after the index from which the next new key
    /// goes before the patch's keys.
    ///
    /// - Complexity: O(log *K*).
    private func runEnd(from position: Int, nextDropped: Int?, nextRemoved: Int?, nextNew: Int?) -> Int {
        var end = nextDropped ?? insertedIndexes.count
        if let nextRemoved { end = min(end, Self.lowerBound(insertedIndexes, nextRemoved + 1, from: position)) }
        if let nextNew { end = min(end, Self.lowerBound(insertedIndexes, nextNew, from: position)) }
        return max(end, position)
    }

    /// Two ascending lists of distinct values merged, ascending: `b` (the short one) placed by binary searches
    /// and `a` copied by runs.
    ///
    /// - Complexity: O(*a* + *b* log *a*), the O(*a*) a copy.
    static func merge(_ a: [Int], _ b: [Int]) -> [Int] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Int] = []
        result.reserveCapacity(a.count + b.count)
        var copied = 0
        for value in b {
            let end = lowerBound(a, value, from: copied)
            result.append(contentsOf: a[copied..<end])
            result.append(value)
            copied = end
        }
        result.append(contentsOf: a[copied...])
        return result
    }
}
