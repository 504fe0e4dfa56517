import ContentHash
import Foundation
import PhotoLibrary
import SeededRandom
import Testing

@testable import SyncWorker

/// The packed in-memory mirror model against a plain dictionary of records (the oracle): whatever it is
/// given, canonical or not, it returns exactly, and its per-directory counts follow the files.
@Suite struct PackedModelTests {
    static func randomFile(_ random: inout SplitMix64, path: String) -> MirroredFile {
        let hash: String
        switch random.next() % 4 {
        case 0: hash = ""  // Not canonical: kept aside.
        case 1: hash = ContentHash(high: random.next(), low: random.next()).description.uppercased()
        default: hash = ContentHash(high: random.next(), low: random.next()).description
        }
        let asset: String?
        switch random.next() % 5 {
        case 0: asset = nil
        case 1: asset = UUID().uuidString.lowercased() + "/L0/001"  // Not the canonical (uppercase) form.
        case 2: asset = UUID().uuidString + "/L0/040"
        default: asset = UUID().uuidString + "/L0/001"
        }
        let stamp = FileStamp(
            device: random.next() % 3, inode: random.next(), size: Int64(random.next() % 1_000_000),
            mtimeNs: Int64(bitPattern: random.next() >> 1), ctimeNs: Int64(random.next() % 1_000))
        return MirroredFile(relativePath: path, stamp: stamp, contentHash: hash, assetIdentifier: asset)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func packedModelReturnsWhatItWasGiven(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let paths = (0..<60).map { index in ["", "a/", "a/b/", "c/"][index % 4] + "IMG_\(index).jpg" }
        var model = MirrorModel()
        var oracle: [String: MirroredFile] = [:]
        for _ in 0..<2_000 {
            let path = paths[Int(random.next() % UInt64(paths.count))]
            if random.next() % 3 == 0 {
                model.remove(path)
                oracle[path] = nil
            } else {
                let file = Self.randomFile(&random, path: path)
                model.set(file)
                oracle[path] = file
            }
        }
        #expect(model.count == oracle.count)
        for path in paths {
            #expect(model[path: path] == oracle[path])
            #expect(model.stamp(at: path) == oracle[path]?.stamp)
        }
        var seen: [String: MirroredFile] = [:]
        model.forEachFile { seen[$0.relativePath] = $0 }
        #expect(seen == oracle)
        #expect(model.files(within: "a") == oracle.filter { $0.key.hasPrefix("a/") })
        #expect(model.files(within: "") == oracle)
        for directory in ["", "a", "a/b", "c"] {
            let direct = oracle.keys.contains { FileSystem.parent(of: $0) == directory }
            let below = oracle.keys.contains { FileSystem.parent(of: $0) != directory && FileSystem.isWithin($0, directory) }
            let needs = model.needs(directory)
            #expect(needs.album == direct)
            #expect(needs.folder == (!directory.isEmpty && below))
        }
        // Loading a library's records gives the same model.
        let copy = MirrorModel(files: oracle.values.sorted { $0.relativePath < $1.relativePath }, directories: [])
        for path in paths { #expect(copy[path: path] == oracle[path]) }
    }

    @Test func canonicalValuesArePacked() {
        let hash = ContentHash(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210).description
        #expect(PackedFile.pack(hash: hash).map { [$0.0, $0.1] } == [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210])
        #expect(PackedFile.pack(hash: hash.uppercased()) == nil)
        #expect(PackedFile.pack(hash: String(hash.dropLast())) == nil)
        #expect(PackedFile.unpackHash(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210) == hash)
        let uuid = UUID()
        let asset = uuid.uuidString + "/L0/001"
        let packed = PackedFile.pack(asset: asset)
        // The halves are the UUID's bytes, big-endian.
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        let high = bytes[0..<8].reduce(0 as UInt64) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(0 as UInt64) { $0 << 8 | UInt64($1) }
        #expect(packed.map { [$0.0, $0.1] } == [high, low])
        #expect(packed.map { PackedFile.unpackAsset($0.0, $0.1) } == asset)
        #expect(PackedFile.pack(asset: uuid.uuidString + "/L0/00") == nil)
        #expect(PackedFile.pack(asset: uuid.uuidString.replacingOccurrences(of: "-", with: "_") + "/L0/001") == nil)
        #expect(PackedFile.pack(asset: asset.lowercased()) == nil)
        #expect(PackedFile.pack(asset: "transient-" + asset) == nil)
        // A byte that is not a digit, anywhere, is not canonical (bytes below '0', between '9' and 'a', above 'f').
        for position in [0, 15, 16, 31] {
            for byte in [UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "g"), UInt8(ascii: "`"), 0xC3] {
                var bytes = Array(hash.utf8)
                bytes[position] = byte
                #expect(bytes.withUnsafeBufferPointer { PackedFile.pack(hash: $0) } == nil)
            }
        }
        for position in [0, 7, 9, 14, 19, 24, 35] {
            var bytes = Array(asset.utf8)
            bytes[position] = UInt8(ascii: "G")
            #expect(bytes.withUnsafeBufferPointer { PackedFile.pack(asset: $0) } == nil)
        }
    }

    /// Loading a model straight from the library's rows (the fresh-process path) gives the model built from
    /// the library's records one by one: same files, same counts per directory, same directories.
    @Test(arguments: [4, 5] as [UInt64], LibraryEngine.allCases)
    func modelLoadedFromLibraryRowsEqualsModelOfRecords(seed: UInt64, engine: LibraryEngine) throws {
        var random = SplitMix64(seed: seed)
        let sandbox = try Sandbox(engine: engine)
        let directories = ["", "a", "a/b", "a/b/c", "a.b", "a/b.c", "c", "z"]
        let paths = Set((0..<300).map { _ in
            let directory = directories[Int(random.next() % UInt64(directories.count))]
            return (directory.isEmpty ? "" : directory + "/") + "IMG_\(random.next() % 10_000).jpg"
        })
        for (index, path) in paths.enumerated() where index % 7 == 0 { sandbox.write(path, Media.jpeg(index)) }
        try sandbox.library.performChangesAndWait(author: "tests") {
            let mirror = MirrorChangeRequest(rootPath: sandbox.root.path)
            mirror.setDirectory("a", device: 1, inode: 2, album: nil, folder: nil)
            for (index, path) in paths.enumerated() {
                let file = Self.randomFile(&random, path: path)
                // The library keeps 32-digit hashes only; uppercase ones are not canonical for the model.
                let hash = file.contentHash.count == 32 ? file.contentHash : ContentHash(high: random.next(), low: 1).description.uppercased()
                let asset = index % 7 == 0
                    ? AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: sandbox.root.appending(path: path), options: AssetCreationOptions(storage: .referenced)
                    ).placeholderForCreatedAsset
                    : nil
                mirror.setFile(path, stamp: file.stamp, contentHash: hash, asset: asset)
            }
        }
        let root = try #require(try sandbox.library.fetchMirrorRoot(path: sandbox.root.path))
        let state = try sandbox.library.fetchMirrorState(root: root)
        #expect(state.files.count == paths.count)
        #expect(state.files.contains { $0.assetIdentifier != nil } && state.files.contains { $0.assetIdentifier == nil })
        #expect(state.files.contains { PackedFile.pack(hash: $0.contentHash) == nil })
        let oracle = MirrorModel(state)
        let loaded = try MirrorModel.load(from: sandbox.library, root: root)
        #expect(loaded.count == oracle.count)
        var files: [String: MirroredFile] = [:]
        loaded.forEachFile { files[$0.relativePath] = $0 }
        #expect(files == Dictionary(uniqueKeysWithValues: state.files.map { ($0.relativePath, $0) }))
        #expect(loaded.directCount == oracle.directCount)
        #expect(loaded.belowCount == oracle.belowCount)
        #expect(loaded.directories == oracle.directories)
        #expect(loaded.directories.keys.sorted() == ["a"])
    }
}
