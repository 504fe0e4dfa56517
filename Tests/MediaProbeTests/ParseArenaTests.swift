import Foundation
import SeededRandom
import Testing

@testable import MediaProbe

/// The per-thread bump allocator that libexif and Expat allocate from.
@Suite("Parse arena")
struct ParseArenaTests {
    /// A live block of the model: where it is, what was written into it.
    private struct Block {
        var pointer: UnsafeMutableRawPointer
        var bytes: [UInt8]
    }

    private static func fill(_ block: inout Block, from start: Int, _ random: inout SplitMix64) {
        for index in start..<block.bytes.count {
            block.bytes[index] = UInt8(truncatingIfNeeded: random.next())
            block.pointer.storeBytes(of: block.bytes[index], toByteOffset: index, as: UInt8.self)
        }
    }

    @Test("Random allocations and reallocations: aligned, zeroed when asked, every live block keeps its bytes", arguments: 0..<8)
    func modelOfLiveBlocks(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        ParseArena.scoped {
            let arena = ParseArena.current
            var live: [Block] = []
            for _ in 0..<400 {
                let size = random.chance(0.05) ? random.int(in: 1...(3 * ParseArena.chunkSize)) : random.int(in: 0...600)
                if !live.isEmpty, random.chance(0.3) {
                    let index = random.int(in: 0...(live.count - 1))
                    let kept = min(size, live[index].bytes.count)
                    live[index].pointer = arena.reallocate(live[index].pointer, size)
                    live[index].bytes = Array(live[index].bytes.prefix(kept)) + [UInt8](repeating: 0, count: size - kept)
                    Self.fill(&live[index], from: kept, &random)
                    #expect(Int(bitPattern: live[index].pointer) % 16 == 0)
                } else {
                    let zeroed = random.chance(0.5)
                    var block = Block(pointer: arena.allocate(size, zeroed: zeroed), bytes: [UInt8](repeating: 0, count: size))
                    #expect(Int(bitPattern: block.pointer) % 16 == 0)
                    if zeroed { #expect(UnsafeRawBufferPointer(start: block.pointer, count: size).allSatisfy { $0 == 0 }) }
                    Self.fill(&block, from: 0, &random)
                    live.append(block)
                }
            }
            for block in live {
                #expect(Array(UnsafeRawBufferPointer(start: block.pointer, count: block.bytes.count)) == block.bytes)
            }
        }
        #expect(ParseArena.current.extraChunkCount == 0)
    }

    @Test("The outermost scope's end reclaims everything: the next scope starts at the same address; an inner scope reclaims nothing")
    func scopesReuseTheChunk() {
        let first = ParseArena.scoped { () -> UnsafeMutableRawPointer in
            let outer = ParseArena.current.allocate(64, zeroed: true)
            outer.storeBytes(of: 0xA5A5, as: UInt64.self)
            ParseArena.scoped { _ = ParseArena.current.allocate(4 * ParseArena.chunkSize, zeroed: false) }
            #expect(ParseArena.current.extraChunkCount == 1)
            #expect(outer.load(as: UInt64.self) == 0xA5A5)
            return outer
        }
        #expect(ParseArena.current.extraChunkCount == 0)
        let again = ParseArena.scoped { ParseArena.current.allocate(64, zeroed: false) }
        #expect(again == first)
    }

    @Test("libexif and Expat allocate from the thread's arena; probes on threads of their own read the same values")
    func parsersUseTheArena() async throws {
        let xmp = Array(#"""
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Make="Arena"/></rdf:RDF></x:xmpmeta>
            """#.utf8)
        let before = ParseArena.current.allocationCount
        let camera = try Fixture.probe("camera.jpg")
        let afterExif = ParseArena.current.allocationCount
        #expect(camera.metadata.make != nil)
        // libexif's data, its contents and every entry (not only the ExifMem the arena's functions made).
        #expect(afterExif - before > 20, "libexif allocated outside the arena")
        let parsed = try XMPParser.parse(xmp).get()
        #expect(ParseArena.current.allocationCount - afterExif > 3, "Expat allocated outside the arena")
        #expect(parsed.make == "Arena")
        // Threads of their own (each its own arena), file after file: the same values every time.
        let names = ["camera.jpg", "rotated-crop.heic", "portrait.jpg", "panorama-hdr.jpg", "tiny.dng"]
        let expected = try names.map { try Fixture.probe($0).metadata }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for round in 0..<60 {
                        let index = round % names.count
                        let probed = try Fixture.probe(names[index])
                        #expect(probed.metadata == expected[index], "\(names[index])")
                        #expect(try XMPParser.parse(xmp).get() == parsed)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
