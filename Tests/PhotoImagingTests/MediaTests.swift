import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("Videos, HEIF and image data")
    struct MediaTests {
        @Test("a video's image is its first frame, rotated by the display matrix; its playback URL is the file")
        func videoPoster() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("clip.mp4")
            #expect(asset.mediaType == .video)
            let result = try await fixture.final(asset, size: ImageManager.maximumSize)
            #expect(result.size == PixelSize(width: 48, height: 64))  // 64×48 turned by 90°
            // The golden: the first frame as ffmpeg shows it, rotation applied.
            let golden = try PixelBuffer(decoding: Data(contentsOf: ImagingFixture.fixture("clip-poster.png")))
            let difference = Pattern.meanDifference(try pixels(of: result), golden)
            #expect(difference < 6, "mean difference \(difference)")
            let small = try await fixture.final(asset, size: PixelSize(square: 32))
            #expect(small.size == PixelSize(width: 24, height: 32))
            #expect(try fixture.manager.playbackURL(for: asset).path == fixture.filesFolder.appending(path: "clip.mp4").path)
            let photo = try await fixture.asset("pattern.png")
            #expect(throws: ImageError.noImage(localIdentifier: photo.localIdentifier)) {
                try fixture.manager.playbackURL(for: photo)
            }
        }

        @Test("a HEIF image renders upright in sRGB, and fast format serves its embedded thumbnail")
        func heif() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("image.heic")
            // Fast format first: once the final result is cached, fast format serves that.
            let options = ImageRequestOptions(deliveryMode: .fastFormat, outputFormat: .rgba8)
            let fast = try await fixture.events(asset, size: PixelSize(square: 96), options: options).compactMap(\.result)
            #expect(fast.count == 1 && fast[0].source == .embeddedThumbnail && fast[0].size == PixelSize(width: 64, height: 42))
            let result = try await fixture.final(asset, size: PixelSize(square: 96))
            #expect(result.size == PixelSize(width: 96, height: 64))
            try expectUpright(result.content.pixelBuffer, tolerance: 40)
        }

        @Test("image data: the file's bytes, type identifier and orientation")
        func imageData() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("camera.jpg")
            let data = try await fixture.manager.requestImageDataAndOrientation(for: asset)
            #expect(data.data == (try Data(contentsOf: ImagingFixture.fixture("camera.jpg"))))
            #expect(data.uniformTypeIdentifier == "public.jpeg")
            #expect(data.orientation == 6)
            let plain = try await fixture.manager.requestImageDataAndOrientation(for: try await fixture.asset("pattern.png"))
            #expect(plain.orientation == 1 && plain.uniformTypeIdentifier == "public.png")
        }

        @Test("an asset that was deleted is a library error")
        func deletedAsset() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            try fixture.library.performChangesAndWait { AssetChangeRequest.deleteAssets([asset]) }
            await #expect(throws: ImageError.library(.objectNotFound(localIdentifier: asset.localIdentifier))) {
                _ = try await fixture.final(asset, size: PixelSize(square: 10))
            }
        }
    }
}
