import Foundation
import PhotoImaging
import PhotoLibrary
import SeededRandom
import Testing

/// The pixel rule of the documentation, written again independently: the oracle.
enum SizeOracle {
    static func round(_ numerator: Int, _ denominator: Int) -> Int { max(1, (2 * numerator + denominator) / (2 * denominator)) }

    static func size(w: Int, h: Int, tw: Int, th: Int, mode: ContentMode) -> PixelSize {
        switch mode {
        case .aspectFit:
            if tw * h <= th * w {  // the width limits
                return tw >= w ? PixelSize(width: w, height: h) : PixelSize(width: tw, height: round(h * tw, w))
            }
            return th >= h ? PixelSize(width: w, height: h) : PixelSize(width: round(w * th, h), height: th)
        case .aspectFill:
            if tw * h >= th * w {  // the width decides the scale
                if tw >= w { return PixelSize(width: min(tw, w), height: min(th, h)) }
                return PixelSize(width: tw, height: min(th, round(h * tw, w)))
            }
            if th >= h { return PixelSize(width: min(tw, w), height: min(th, h)) }
            return PixelSize(width: min(tw, round(w * th, h)), height: th)
        }
    }
}

extension ImagingTests {
    @Suite("The pixel rule for fit and fill sizes")
    struct SizeRuleTests {
        @Test("examples")
        func examples() throws {
            func size(_ w: Int, _ h: Int, _ tw: Int, _ th: Int, _ mode: ContentMode) throws -> PixelSize {
                try ImageManager.resultSize(
                    forDisplayedSize: PixelSize(width: w, height: h), targetSize: PixelSize(width: tw, height: th), contentMode: mode)
            }
            #expect(try size(6000, 4000, 256, 256, .aspectFit) == PixelSize(width: 256, height: 171))  // 170.67 → 171
            #expect(try size(6000, 4000, 256, 256, .aspectFill) == PixelSize(width: 256, height: 256))
            #expect(try size(4000, 6000, 1440, 1440, .aspectFit) == PixelSize(width: 960, height: 1440))
            #expect(try size(100, 50, 400, 400, .aspectFit) == PixelSize(width: 100, height: 50))  // never enlarged
            #expect(try size(100, 50, 80, 80, .aspectFill) == PixelSize(width: 80, height: 50))
            #expect(try size(3, 1000, 10, 10, .aspectFit) == PixelSize(width: 1, height: 10))  // at least 1 pixel
            #expect(try size(96, 64, 1, 1, .aspectFill) == PixelSize(width: 1, height: 1))
            #expect(
                try ImageManager.resultSize(
                    forDisplayedSize: PixelSize(width: 96, height: 64), targetSize: PixelSize(square: 100), contentMode: .aspectFit,
                    normalizedCropRect: NormalizedRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)) == PixelSize(width: 48, height: 32))
        }

        @Test("the rule matches its oracle over 20,000 random sizes, targets and modes")
        func property() throws {
            var random = SplitMix64(seed: 0x5EED_0013)
            for _ in 0..<20_000 {
                let w = random.int(in: 1...12_000), h = random.int(in: 1...12_000)
                let tw = random.int(in: 1...4_000), th = random.int(in: 1...4_000)
                let mode: ContentMode = random.chance(0.5) ? .aspectFit : .aspectFill
                let size = try ImageManager.resultSize(
                    forDisplayedSize: PixelSize(width: w, height: h), targetSize: PixelSize(width: tw, height: th), contentMode: mode)
                let expected = SizeOracle.size(w: w, h: h, tw: tw, th: th, mode: mode)
                try #require(size == expected, "\(w)×\(h) into \(tw)×\(th) \(mode)")
                #expect(size.width <= max(tw, 1) || size.width <= w)
            }
        }

        @Test("real renders have exactly the rule's size, for random targets, modes, formats and orientations")
        func renders() async throws {
            let fixture = try ImagingFixture()
            let pattern = try await fixture.asset("pattern.png")
            let turned = try await fixture.asset("orient-6.jpg")
            var random = SplitMix64(seed: 0x13)
            for _ in 0..<40 {
                let tw = random.int(in: 1...130), th = random.int(in: 1...130)
                let mode: ContentMode = random.chance(0.5) ? .aspectFit : .aspectFill
                let format: ImageOutputFormat = random.pick([.rgba8, .png, .jpeg(quality: 70), .webp(quality: 70)])
                let asset = random.chance(0.5) ? pattern : turned
                let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: format)
                let result = try await fixture.final(asset, size: PixelSize(width: tw, height: th), mode: mode, options: options)
                let expected = SizeOracle.size(w: 96, h: 64, tw: tw, th: th, mode: mode)
                #expect(result.size == expected, "\(tw)×\(th) \(mode) \(format)")
                let decoded = try pixels(of: result)
                #expect(decoded.width == expected.width && decoded.height == expected.height)
            }
        }
    }
}
