public import Foundation
import GRDB
import LibraryStorage
import Synchronization

/// The ordered result of a fetch (PhotoKit's `PHFetchResult`): an immutable snapshot.
///
/// A fetch result holds only the identities of its objects, in order: `count` is O(1) and a result of a
/// million assets takes a few megabytes. Objects load lazily, in batches around the index accessed, and a
/// bounded number of batches is cached, so iterating a huge result never holds all its objects.
///
/// Objects are given as they were when the fetch ran, even when they changed or were deleted since: the
/// state at the fetch is rebuilt from the change journal's previous values. Only when an object was deleted
/// since *and* the history of that deletion has expired meanwhile can it not be rebuilt: ``object(at:)``
/// then throws ``PhotoLibraryError/persistentChangeDetailsUnavailable``.
///
/// Loading objects reads the library. When that read fails — the database file removed or damaged under
/// a running process, the disk gone — the throwing accessors (``object(at:)``, ``objects(in:)``,
/// ``objects(at:)``, ``makeThrowingIterator()``) throw the typed error; the `Collection` accessors
/// (the subscript, `for … in`, ``firstObject``, ``lastObject``, ``enumerateObjects(_:)``) can't throw and
/// trap, like an array read out of bounds. Use the throwing ones wherever the storage may fail under you.
public final class FetchResult<Object: LibraryObject>: RandomAccessCollection, Sendable {
    public typealias Index = Int
    public typealias Element = Object

    /// Loads the objects for keys, as they were at `sequence` (the journal position of the fetch).
    typealias Loader = @Sendable (_ keys: ArraySlice<Int64>, _ sequence: Int64) throws -> [Object]

    /// The objects' internal keys, in order: an array, or an earlier result's array with a patch.
    let keyList: FetchResultKeyList
    /// The journal sequence at which the fetch ran.
    let sequence: Int64
    /// What was fetched, to fetch it again (observation). Nil for results that can't be refetched.
    let query: FetchQuery?
    /// The fetch this result is a state of: shared by the results that change details derive from it.
    let chain: FetchChain
    let loader: Loader
    private let cache = Mutex(BatchCache<Object>())

    static var batchSize: Int { 128 }
    static var cachedBatchLimit: Int { 16 }

    init(
        keys: [Int64], fences: SortFences? = nil, sequence: Int64, query: FetchQuery?, keyKind: FetchResultKeyKind,
        requery: (@Sendable (any SQLConnection, _ sortValues: Bool) throws -> FetchResultKeyList)?, incremental: IncrementalFetch? = nil,
        loader: @escaping Loader
    ) {
        self.keyList = FetchResultKeyList(keys, fences: fences)
        self.sequence = sequence
        self.query = query
        self.chain = FetchChain(keyKind: keyKind, requery: requery, incremental: incremental)
        self.loader = loader
    }

    private init(keyList: FetchResultKeyList, sequence: Int64, query: FetchQuery?, chain: FetchChain, loader: @escaping Loader) {
        self.keyList = keyList
        self.sequence = sequence
        self.query = query
        self.chain = chain
        self.loader = loader
    }

    /// The same fetch at a later state.
    func successor(keys: [Int64], sequence: Int64) -> FetchResult<Object> {
        successor(keyList: FetchResultKeyList(keys), sequence: sequence)
    }

    /// The same fetch at a later state, with keys that may share an earlier result's storage.
    func successor(keyList: FetchResultKeyList, sequence: Int64) -> FetchResult<Object> {
        // `Self`: the type this result has, without asking the runtime for `FetchResult<Object>` (the code is
        // generic over `Object`, and the search of the runtime's tables is cold after a commit).
        Self(keyList: keyList, sequence: sequence, query: query, chain: chain, loader: loader)
    }

    /// The objects' internal keys, in order.
    ///
    /// - Complexity: O(1) for a fetched result; O(*n*) the first time for one made by incremental change
    ///   details (the keys are then kept).
    var keys: [Int64] {
        if keyList.isFlat { return keyList.base }
        return cache.withLock { cache in
            if let keys = cache.keys { return keys }
            let keys = keyList.array
            cache.keys = keys
            return keys
        }
    }

    /// The number of objects. O(1).
    public var count: Int { keyList.count }
    public var startIndex: Int { 0 }
    public var endIndex: Int { keyList.count }

    /// The object at `index`, loading its batch if needed.
    ///
    /// Traps when `index` is out of bounds, like an array, and when the object can't be loaded: the library's
    /// storage can no longer be read (its database removed or damaged under the running process), or the
    /// object was deleted since the fetch and that history has expired. ``object(at:)`` throws a
    /// ``PhotoLibraryError`` in those cases instead.
    /// - Complexity: O(1) amortised; one database read per batch of 128 objects.
    public subscript(index: Int) -> Object {
        precondition(index >= 0 && index < count, "FetchResult index \(index) out of range 0..<\(count)")
        do { return try object(at: index) } catch {
            fatalError("photosync: cannot load object \(index) of a fetch result: \(error)")
        }
    }

    /// The object at `index`.
    ///
    /// - Throws: ``PhotoLibraryError/indexOutOfRange(index:count:)``; a ``PhotoLibraryError`` when the
    ///   library can't be read.
    public func object(at index: Int) throws(PhotoLibraryError) -> Object {
        guard index >= 0 && index < count else { throw .indexOutOfRange(index: index, count: count) }
        let batch = index / Self.batchSize
        if let cached = cache.withLock({ $0.get(batch) }) {
            return cached[index - batch * Self.batchSize]
        }
        let range = (batch * Self.batchSize)..<Swift.min(count, (batch + 1) * Self.batchSize)
        let objects: [Object]
        do { objects = try loader(keyList[range][...], sequence) } catch {
            throw PhotoLibrary.map(error)
        }
        guard objects.count == range.count else {
            throw .persistentChangeDetailsUnavailable
        }
        cache.withLock { $0.put(batch, objects, limit: Self.cachedBatchLimit) }
        return objects[index - batch * Self.batchSize]
    }

    /// The objects in `range`, in order.
    ///
    /// - Throws: ``PhotoLibraryError/indexOutOfRange(index:count:)`` for a range outside `0...count`; a
    ///   ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(*r*) for *r* objects; one database read per batch of 128 not cached.
    public func objects(in range: Range<Int>) throws(PhotoLibraryError) -> [Object] {
        guard range.lowerBound >= 0, range.upperBound <= count else {
            throw .indexOutOfRange(index: range.lowerBound < 0 ? range.lowerBound : range.upperBound, count: count)
        }
        var result: [Object] = []
        result.reserveCapacity(range.count)
        for index in range { result.append(try object(at: index)) }
        return result
    }

    /// Iterates the objects in order, throwing instead of trapping when one can't be loaded:
    ///
    /// ```swift
    /// var assets = result.makeThrowingIterator()
    /// while let asset = try assets.next() { … }
    /// ```
    public func makeThrowingIterator() -> ThrowingIterator { ThrowingIterator(result: self) }

    /// Iterates a fetch result's objects, reporting a read error as a typed error (see
    /// ``makeThrowingIterator()``). After an error, `next()` tries the same object again.
    public struct ThrowingIterator {
        private let result: FetchResult<Object>
        private var index = 0

        fileprivate init(result: FetchResult<Object>) { self.result = result }

        /// The next object, or nil after the last.
        ///
        /// - Throws: a ``PhotoLibraryError`` when the object can't be loaded (see ``FetchResult/object(at:)``).
        public mutating func next() throws(PhotoLibraryError) -> Object? {
            guard index < result.count else { return nil }
            let object = try result.object(at: index)
            index += 1
            return object
        }
    }

    /// The objects at these indexes, in order.
    ///
    /// - Throws: ``PhotoLibraryError/indexOutOfRange(index:count:)``; a ``PhotoLibraryError`` when the
    ///   library can't be read.
    public func objects(at indexes: IndexSet) throws(PhotoLibraryError) -> [Object] {
        var result: [Object] = []
        result.reserveCapacity(indexes.count)
        for index in indexes { result.append(try object(at: index)) }
        return result
    }

    /// The first object, or nil when empty. Traps when it can't be loaded, like the subscript;
    /// `try object(at: 0)` throws instead.
    public var firstObject: Object? { isEmpty ? nil : self[0] }
    /// The last object, or nil when empty. Traps when it can't be loaded, like the subscript;
    /// `try object(at: count - 1)` throws instead.
    public var lastObject: Object? { isEmpty ? nil : self[count - 1] }

    /// The index of an object in this result, by identity.
    ///
    /// - Complexity: O(*n*) the first time (an index of identities is built), O(1) after.
    public func index(of object: Object) -> Int? {
        guard let key = FetchResultKeys.key(of: object) else { return nil }
        let keys = self.keys
        let positions = cache.withLock { cache -> [Int64: Int] in
            if let positions = cache.positions { return positions }
            var positions: [Int64: Int] = [:]
            positions.reserveCapacity(keys.count)
            for (index, key) in keys.enumerated() { positions[key] = index }
            cache.positions = positions
            return positions
        }
        return positions[key]
    }

    /// Whether the result holds this object (by identity).
    public func contains(_ object: Object) -> Bool { index(of: object) != nil }

    /// Calls `body` with each object and its index, in order, until `stop` is set. Traps when an object can't
    /// be loaded, like the subscript; ``makeThrowingIterator()`` throws instead.
    public func enumerateObjects(_ body: (Object, Int, inout Bool) throws -> Void) rethrows {
        var stop = false
        for index in indices {
            try body(self[index], index, &stop)
            if stop { return }
        }
    }
}

/// What the keys of a fetch result identify.
enum FetchResultKeyKind: Sendable {
    case asset
    case assetCollection
    case collectionList
    /// Collections and lists: the low bit tells which.
    case mixed
}

/// One fetch followed through time: what fetching it again takes.
final class FetchChain: Sendable {
    /// What the keys are keys of.
    let keyKind: FetchResultKeyKind
    /// Fetches the keys again, at the state of the read it runs in; with `sortValues`, also the sort values the
    /// incremental path searches (so that a fetch followed incrementally still is after a round that had to
    /// fetch it again). Nil: the result never changes.
    let requery: (@Sendable (any SQLConnection, _ sortValues: Bool) throws -> FetchResultKeyList)?
    /// How to follow the fetch transaction by transaction, when it can be (see ``IncrementalFetch``).
    let incremental: IncrementalFetch?
    /// How far the chain's states are known unchanged, for the rounds that follow them.
    let unchanged = UnchangedStates()

    init(
        keyKind: FetchResultKeyKind, requery: (@Sendable (any SQLConnection, _ sortValues: Bool) throws -> FetchResultKeyList)?,
        incremental: IncrementalFetch? = nil
    ) {
        self.keyKind = keyKind
        self.requery = requery
        self.incremental = incremental
    }
}

/// A fetch result as the observation center tracks it, whatever its object type.
protocol TrackedFetchResult: AnyObject, Sendable {
    var sequence: Int64 { get }
    var chain: FetchChain { get }
    var keyList: FetchResultKeyList { get }
}

extension FetchResult: TrackedFetchResult {}

/// The batches a fetch result keeps: the most recently used few.
struct BatchCache<T>: ~Copyable {
    /// Nil until a batch is loaded. A delivery round makes a result in code generic over its objects, where
    /// even an empty dictionary of `[T]` asks the runtime for that type (a search of its tables, cold after a
    /// commit), and the result may never be read.
    private var batches: [Int: [T]]?
    private var order: [Int] = []
    var positions: [Int64: Int]?
    /// The keys as one array, once asked for, when the result's own are a patch.
    var keys: [Int64]?

    mutating func get(_ batch: Int) -> [T]? {
        guard let objects = batches?[batch] else { return nil }
        if let position = order.lastIndex(of: batch), position != order.count - 1 {
            order.remove(at: position)
            order.append(batch)
        }
        return objects
    }

    mutating func put(_ batch: Int, _ objects: [T], limit: Int) {
        if batches == nil { batches = [:] }
        batches![batch] = objects
        order.append(batch)
        while order.count > limit {
            batches!.removeValue(forKey: order.removeFirst())
        }
    }
}

/// The internal key of an object in a fetch result.
enum FetchResultKeys {
    static func key(of object: some LibraryObject) -> Int64? {
        switch object {
        case let asset as Asset: asset.rowID
        case let collection as AssetCollection: collection.isTransient ? nil : collection.rowID
        case let list as CollectionList: list.isTransient ? nil : list.rowID
        case let collection as PhotoCollection: key(of: collection)
        default: nil
        }
    }

    /// Mixed results of collections and lists: the low bit tells which.
    static func key(of collection: PhotoCollection) -> Int64? {
        switch collection {
        case .assetCollection(let collection): collection.isTransient ? nil : collection.rowID << 1
        case .collectionList(let list): list.isTransient ? nil : list.rowID << 1 | 1
        }
    }
}
