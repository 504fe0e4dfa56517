import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("Rendering: orientation, colour, alpha, crops, formats")
    struct RenderingTests {
        @Test("EXIF orientations 1–8 are applied", arguments: 1...8)
        func orientation(_ orientation: Int) async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("orient-\(orientation).jpg")
            let result = try await fixture.final(asset, size: PixelSize(width: 48, height: 48))
            #expect(result.size == PixelSize(width: 48, height: 32))
            let buffer = try #require(result.content.pixelBuffer)
            try expectUpright(buffer, "orientation \(orientation): \(Pattern.quadrants(buffer))")
        }

        @Test("a result matches the golden image (the pattern resized by ImageMagick) within a tolerance")
        func golden() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("orient-6.jpg")
            let result = try await fixture.final(asset, size: PixelSize(width: 96, height: 96))
            let golden = try PixelBuffer(decoding: Data(contentsOf: ImagingFixture.fixture("pattern.png")))
            let buffer = try pixels(of: result)
            #expect(buffer.width == golden.width && buffer.height == golden.height)
            #expect(Pattern.meanDifference(buffer, golden) < 6)
        }

        @Test("an embedded Display P3 profile is converted to sRGB")
        func displayP3() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("p3.png")
            let buffer = try #require(try await fixture.final(asset, size: PixelSize(square: 64)).content.pixelBuffer)
            // Untouched, P3's red would read about (234, 51, 35).
            try expectUpright(buffer, tolerance: 8, "\(Pattern.quadrants(buffer))")
        }

        @Test("a CMYK JPEG is converted to sRGB")
        func cmyk() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("cmyk.jpg")
            let buffer = try #require(try await fixture.final(asset, size: PixelSize(square: 96)).content.pixelBuffer)
            // The golden: libvips' own CMYK → sRGB conversion (pure red is out of the CMYK gamut).
            let golden = try PixelBuffer(decoding: Data(contentsOf: ImagingFixture.fixture("cmyk-expected.png")))
            let difference = Pattern.meanDifference(buffer, golden)
            #expect(difference < 8, "mean difference \(difference)")
        }

        @Test("alpha is kept in pixels, PNG and WebP, and flattened on white in JPEG")
        func alpha() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("alpha.png")
            for format in [ImageOutputFormat.rgba8, .png, .webp(quality: 90)] {
                let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: format)
                let buffer = try pixels(of: try await fixture.final(asset, size: PixelSize(width: 64, height: 32), options: options))
                #expect(buffer.pixel(x: 8, y: 16).a == 255, "\(format)")
                #expect(buffer.pixel(x: 56, y: 16).a == 0, "\(format)")
                #expect(buffer.pixel(x: 8, y: 16).r > 240, "\(format)")
            }
            let jpeg = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 90))
            let flattened = try pixels(of: try await fixture.final(asset, size: PixelSize(width: 64, height: 32), options: jpeg))
            let right = flattened.pixel(x: 56, y: 16)
            #expect(right.r > 240 && right.g > 240 && right.b > 240 && right.a == 255)
        }

        @Test("each output format is what it says")
        func formats() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let signatures: [(ImageOutputFormat, [UInt8], Int)] = [
                (.jpeg(quality: 80), [0xFF, 0xD8, 0xFF], 0), (.png, [0x89, 0x50, 0x4E, 0x47], 0),
                (.webp(quality: 80), Array("WEBP".utf8), 8), (.avif(quality: 60), Array("ftypavif".utf8), 4),
            ]
            for (format, signature, offset) in signatures {
                let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: format)
                let result = try await fixture.final(asset, size: PixelSize(square: 48), options: options)
                let data = try #require(result.content.data)
                #expect(Array(data.dropFirst(offset).prefix(signature.count)) == signature, "\(format)")
                let buffer = try pixels(of: result)
                #expect(buffer.width == 48 && buffer.height == 32)
                try expectUpright(buffer, tolerance: 40, "\(format): \(Pattern.quadrants(buffer))")
            }
        }

        @Test("a crop rectangle delivers that part of the displayed image")
        func crop() async throws {
            let fixture = try ImagingFixture()
            // orient-8 stores the pattern turned: the crop is in displayed coordinates.
            let asset = try await fixture.asset("orient-8.jpg")
            let right = ImageRequestOptions(
                deliveryMode: .highQualityFormat, resizeMode: .exact,
                normalizedCropRect: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1), outputFormat: .rgba8)
            let result = try await fixture.final(asset, size: PixelSize(square: 100), options: right)
            #expect(result.size == PixelSize(width: 48, height: 64))
            let buffer = try #require(result.content.pixelBuffer)
            let top = buffer.pixel(x: 24, y: 10), bottom = buffer.pixel(x: 24, y: 54)
            #expect(Pattern.close((Int(top.r), Int(top.g), Int(top.b)), Pattern.topRight))
            #expect(Pattern.close((Int(bottom.r), Int(bottom.g), Int(bottom.b)), Pattern.bottomRight))
            let bad = ImageRequestOptions(normalizedCropRect: NormalizedRect(x: 0.8, y: 0, width: 0.5, height: 1))
            await #expect(throws: ImageError.self) {
                _ = try await fixture.final(asset, size: PixelSize(square: 100), options: bad)
            }
        }

        @Test("aspect fill delivers the target size, cut from the centre")
        func fill() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let result = try await fixture.final(asset, size: PixelSize(square: 32), mode: .aspectFill)
            #expect(result.size == PixelSize(square: 32))
            let buffer = try #require(result.content.pixelBuffer)
            try expectUpright(buffer)
        }

        @Test("the full size is delivered for maximumSize and for resize mode none")
        func fullSize() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("orient-5.jpg")
            let maximum = try await fixture.final(asset, size: ImageManager.maximumSize)
            #expect(maximum.size == PixelSize(width: 96, height: 64))
            let none = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, outputFormat: .rgba8)
            #expect(try await fixture.final(asset, size: PixelSize(square: 10), options: none).size == PixelSize(width: 96, height: 64))
        }

        @Test("the synchronous variant blocks and returns the final result")
        func synchronous() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("orient-3.jpg")
            let manager = fixture.manager
            let result = try await Task.detached {
                try manager.requestImageSynchronously(
                    for: asset, targetSize: PixelSize(square: 48), options: ImageRequestOptions(outputFormat: .rgba8))
            }.value
            #expect(!result.isDegraded && result.size == PixelSize(width: 48, height: 32))
            try expectUpright(result.content.pixelBuffer)
        }
    }
}
