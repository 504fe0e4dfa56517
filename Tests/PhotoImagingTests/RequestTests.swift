import Foundation
import PhotoImaging
import PhotoLibrary
import Synchronization
import Testing

extension ImagingTests {
    @Suite("Requests: delivery, concurrency, cancellation, progress")
    struct RequestTests {
        @Test("opportunistic delivery: the EXIF thumbnail first (degraded), then the final result")
        func opportunistic() async throws {
            let fixture = try ImagingFixture()
            let asset = try fixture.asset(referencing: await LargeImage.withThumbnail)  // its thumbnail is grey
            let options = ImageRequestOptions(deliveryMode: .opportunistic, outputFormat: .rgba8)
            let results = try await fixture.events(asset, size: PixelSize(square: 300), options: options).compactMap(\.result)
            try #require(results.count == 2)
            let degraded = results[0], final = results[1]
            #expect(degraded.isDegraded && degraded.source == .embeddedThumbnail)
            #expect(degraded.size == PixelSize(width: 160, height: 107))
            let flat = try #require(degraded.content.pixelBuffer)
            #expect((0..<100).allSatisfy { abs(Int(flat.pixel(x: $0, y: $0 / 2).r) - 200) <= 2 })
            #expect(!final.isDegraded && final.source == .rendered && final.size == PixelSize(width: 300, height: 200))
            let noise = try #require(final.content.pixelBuffer)
            #expect((0..<100).allSatisfy { abs(Int(noise.pixel(x: $0, y: 3).r) - 200) > 30 })  // noise around 128
        }

        @Test("a smaller fill rendition serves as degraded only for a target of the same proportions")
        func fillSiblings() async throws {
            let fixture = try ImagingFixture()
            // A large image: its final render is slow enough that a cached smaller one always comes first.
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let options = ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact, outputFormat: .png)
            _ = try await fixture.final(asset, size: PixelSize(width: 20, height: 10), mode: .aspectFill, options: options)
            let square = try await fixture.events(asset, size: PixelSize(square: 40), mode: .aspectFill, options: options)
            #expect(square.compactMap(\.result).map(\.size) == [PixelSize(square: 40)])
            let wide = try await fixture.events(asset, size: PixelSize(width: 40, height: 20), mode: .aspectFill, options: options)
            #expect(wide.compactMap(\.result).map(\.size) == [PixelSize(width: 20, height: 10), PixelSize(width: 40, height: 20)])
        }

        @Test("fast format delivers one result: the EXIF thumbnail, upright")
        func fastFormat() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("camera.jpg")  // orientation 6; its thumbnail is a grey pattern
            let options = ImageRequestOptions(deliveryMode: .fastFormat, outputFormat: .rgba8)
            let results = try await fixture.events(asset, size: PixelSize(square: 400), options: options).compactMap(\.result)
            try #require(results.count == 1)
            #expect(results[0].source == .embeddedThumbnail && results[0].isDegraded)
            #expect(results[0].size == PixelSize(width: 107, height: 160))
            // Orientation 6 turns the stored pattern: blue (dark grey here) is top left, yellow (light) bottom left.
            let buffer = try #require(results[0].content.pixelBuffer)
            #expect(Int(buffer.pixel(x: 20, y: 20).r) + 60 < Int(buffer.pixel(x: 20, y: 140).r))
        }

        @Test("opportunistic delivery of a cached rendition is one final result; a smaller one comes first otherwise")
        func opportunisticFromCache() async throws {
            let fixture = try ImagingFixture()
            // A large image: its final render is slow enough that a cached smaller one always comes first.
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let options = ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact, outputFormat: .png)
            _ = try await fixture.final(asset, size: PixelSize(square: 20), options: options)
            let cached = try await fixture.events(asset, size: PixelSize(square: 20), options: options).compactMap(\.result)
            #expect(cached.count == 1 && cached[0].source == .renditionCache && !cached[0].isDegraded)
            let larger = try await fixture.events(asset, size: PixelSize(square: 60), options: options).compactMap(\.result)
            #expect(larger.count == 2)
            #expect(larger.first?.isDegraded == true && larger.first?.size == PixelSize(width: 20, height: 13))
            #expect(larger.last?.isDegraded == false && larger.last?.size == PixelSize(width: 60, height: 40))
        }

        @Test("concurrent requests for one rendition render it once")
        func oneRender() async throws {
            let fixture = try ImagingFixture()
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 80))
            let results = try await withThrowingTaskGroup(of: ImageResult.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await fixture.final(asset, size: PixelSize(square: 256), options: options) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 8)
            #expect(Set(results.map(\.content)).count == 1)
            #expect(fixture.manager.renderCount == 1)
        }

        @Test("cancelling mid-render stops it: nothing is delivered after the cancel, no file is left")
        func cancellation() async throws {
            let fixture = try ImagingFixture()
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let delivered = Mutex<[String]>([])
            let cancelled = Atomic<Bool>(false)
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, outputFormat: .png)
            let manager = fixture.manager
            let task = Task {
                for try await _ in manager.requestImage(for: asset, targetSize: PixelSize(square: 100), options: options) {
                    let after = cancelled.load(ordering: .acquiring)
                    delivered.withLock { $0.append(after ? "after" : "before") }
                }
            }
            // Cancel once the render reads the file (a progress event), or after it started.
            #expect(await waitUntil { !delivered.withLock { $0 }.isEmpty || manager.renderCount > 0 })
            cancelled.store(true, ordering: .releasing)
            task.cancel()
            _ = try? await task.value
            #expect(!delivered.withLock { $0 }.contains("after"))
            // The render stopped (finished, it would have stored a rendition: a full-size PNG takes seconds), and
            // left no file.
            #expect(await waitUntil { manager.runningRenderCount == 0 })
            #expect(fixture.renditionFiles().isEmpty && fixture.incomingFiles().isEmpty)
            #expect(manager.renderCount == 1)
        }

        @Test("a cancelled request delivers nothing, even from the cache")
        func cancelledBeforeStart() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            _ = try await fixture.final(asset, size: PixelSize(square: 20))
            let manager = fixture.manager
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                var count = 0
                for try await _ in manager.requestImage(for: asset, targetSize: PixelSize(square: 20)) { count += 1 }
                return count
            }
            #expect(try await task.value == 0)
        }

        @Test("a long decode reports progress before its result")
        func progress() async throws {
            let fixture = try ImagingFixture()
            let asset = try fixture.asset(referencing: await LargeImage.url)
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 70))
            let events = try await fixture.events(asset, size: PixelSize(square: 128), options: options)
            let fractions = events.compactMap { event -> Double? in
                if case .progress(let fraction) = event { return fraction }
                return nil
            }
            #expect(fractions.count >= 10)
            #expect(fractions == fractions.sorted() && fractions.allSatisfy { (0...1).contains($0) })
            #expect(events.last?.result?.size == PixelSize(width: 128, height: 85))
        }
    }
}
