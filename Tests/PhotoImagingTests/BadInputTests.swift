import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("Bad input: a typed error, never a crash or a hang")
    struct BadInputTests {
        static let cases: [(String, String)] = [
            ("truncated.jpg", "corrupt"), ("corrupt.jpg", "corrupt"), ("not-an-image.jpg", "unsupported"),
            ("bomb.gif", "tooLarge"), ("bomb.png", "tooLarge"), ("bomb.jpg", "tooLarge"),
        ]

        @Test("damaged files, decompression bombs and absurd sizes fail with their error", arguments: cases)
        func badFile(_ name: String, _ expected: String) async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset(name)
            for mode in [DeliveryMode.highQualityFormat, .opportunistic, .fastFormat] {
                let options = ImageRequestOptions(deliveryMode: mode, outputFormat: .rgba8)
                do {
                    let results = try await fixture.events(asset, size: PixelSize(square: 64), options: options)
                        .compactMap(\.result)
                    // The one exception: fast format may serve the intact EXIF thumbnail of a truncated file (it
                    // never decodes the main image).
                    let thumbnailOnly = mode == .fastFormat && name == "truncated.jpg" && results.count == 1
                        && results[0].source == .embeddedThumbnail
                    if !thumbnailOnly { Issue.record("\(name) delivered \(results.count) results in \(mode)") }
                } catch let error as ImageError {
                    switch (error, expected) {
                    case (.corruptImage, "corrupt"), (.unsupportedFormat, "unsupported"), (.imageTooLarge, "tooLarge"): break
                    default: Issue.record("\(name) in \(mode): \(error)")
                    }
                } catch {
                    Issue.record("\(name) in \(mode): not an ImageError: \(error)")
                }
            }
            #expect(fixture.renditionFiles().isEmpty && fixture.incomingFiles().isEmpty)
        }

        @Test("a missing file is fileMissing")
        func missingFile() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            try FileManager.default.removeItem(at: fixture.filesFolder.appending(path: "pattern.png"))
            await #expect(throws: ImageError.fileMissing(path: fixture.filesFolder.appending(path: "pattern.png").path)) {
                _ = try await fixture.final(asset, size: PixelSize(square: 32))
            }
        }

        @Test("a pixel limit refuses images above it before decoding")
        func pixelLimit() async throws {
            let fixture = try ImagingFixture(configuration: ImageManager.Configuration(maximumPixelCount: 1000))
            let asset = try await fixture.asset("pattern.png")
            await #expect(throws: ImageError.imageTooLarge(width: 96, height: 64, limit: 1000)) {
                _ = try await fixture.final(asset, size: PixelSize(square: 32))
            }
        }

        @Test("a zero target size is an invalid request")
        func zeroTarget() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            await #expect(throws: ImageError.self) {
                _ = try await fixture.final(asset, size: PixelSize(width: 0, height: 10))
            }
        }
    }
}
