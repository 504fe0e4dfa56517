@testable import FolderWatch
import SeededRandom
import Testing

/// The watch tree against an oracle that stores every directory's full path and rewrites prefixes on moves.
@Suite struct WatchTreeTests {
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func pathsFollowInsertsMovesAndRemovalsLikeTheOracle(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var tree = WatchTree()
        tree.setRoot(1)
        var oracle: [Int32: String] = [1: ""]
        var next: Int32 = 2
        func isBelow(_ path: String, _ directory: String) -> Bool {
            directory.isEmpty || path == directory || path.hasPrefix(directory + "/")
        }
        func join(_ parent: String, _ name: String) -> String { parent.isEmpty ? name : parent + "/" + name }
        func dropOracle(below path: String) -> Set<Int32> {
            let gone = Set(oracle.filter { isBelow($0.value, path) }.keys)
            for descriptor in gone { oracle[descriptor] = nil }
            return gone
        }

        for _ in 0..<400 {
            let descriptors = Array(oracle.keys).sorted()
            let names = ["a", "b", "c", "Photos", "2024"]
            switch random.int(in: 0...5) {
            case 0, 1, 2:
                let parent = random.pick(descriptors)
                let name = random.pick(names)
                let path = join(oracle[parent]!, name)
                let replaced = path.isEmpty ? [] : dropOracle(below: path)
                let dropped = tree.insert(next, parent: parent, name: name)
                #expect(Set(dropped) == replaced, "seed \(seed)")
                oracle[next] = path
                next += 1
            case 3, 4:
                let movable = descriptors.filter { $0 != 1 }
                guard let moved = random.anyElement(movable) else { continue }
                let from = oracle[moved]!
                let targets = descriptors.filter { !isBelow(oracle[$0]!, from) }
                guard let parent = random.anyElement(targets) else { continue }
                let name = random.pick(names)
                let to = join(oracle[parent]!, name)
                if to != from && isBelow(from, to) { continue }  // onto its own ancestor: rename(2) refuses
                let replaced = to == from ? [] : dropOracle(below: to)
                #expect(Set(tree.move(moved, to: parent, name: name)) == replaced, "seed \(seed)")
                for (descriptor, path) in oracle where isBelow(path, from) {
                    oracle[descriptor] = to + path.dropFirst(from.count)
                }
            default:
                let removable = descriptors.filter { $0 != 1 }
                guard let removed = random.anyElement(removable) else { continue }
                let gone = dropOracle(below: oracle[removed]!)
                #expect(Set(tree.removeSubtree(removed)) == gone, "seed \(seed)")
            }
            tree.checkInvariants()
            #expect(tree.count == oracle.count, "seed \(seed)")
            for (descriptor, path) in oracle {
                #expect(tree.path(of: descriptor) == path, "seed \(seed)")
            }
        }
    }
}
