import Foundation
import PhotoImaging
import PhotoLibrary
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ImagingTests {
    @Suite("What a request delivers at once: cached renditions and stored EXIF thumbnails")
    struct ImmediateResultTests {
        /// An asset whose file is a FIFO: its render blocks the render thread in `open` until `release()`.
        struct Blocker {
            let fifo: URL
            let task: Task<Void, Never>

            init(_ fixture: ImagingFixture) async throws {
                let asset = try await fixture.asset("pattern.png", as: "blocker.png")
                fifo = fixture.filesFolder.appending(path: "blocker.png")
                try FileManager.default.removeItem(at: fifo)
                try #require(mkfifo(fifo.path, 0o644) == 0)
                let manager = fixture.manager
                let options = ImageRequestOptions(deliveryMode: .highQualityFormat, allowsCaching: false)
                task = Task {
                    do {
                        for try await _ in manager.requestImage(for: asset, targetSize: PixelSize(square: 32), options: options) {}
                    } catch {}  // A FIFO is no image file.
                }
                let blocked = await waitUntil(seconds: 60) { manager.runningRenderCount == 1 }
                try #require(blocked, "the blocking render did not start")
            }

            /// Lets the blocked render go on (it fails: a FIFO is not an image file).
            func release() async {
                let writer = open(fifo.path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
                await task.value
            }
        }

        @Test("an upright EXIF thumbnail is served as stored, at once, with every render thread busy")
        func storedThumbnail() async throws {
            let fixture = try ImagingFixture(configuration: ImageManager.Configuration(maximumConcurrentRenders: 1))
            let file = await LargeImage.withThumbnail
            let asset = try fixture.asset(referencing: file)
            let blocker = try await Blocker(fixture)
            let options = ImageRequestOptions(deliveryMode: .opportunistic, outputFormat: .jpeg(quality: 80))
            let first = Mutex<ImageResult?>(nil)
            let manager = fixture.manager
            let request = Task {
                for try await event in manager.requestImage(for: asset, targetSize: PixelSize(square: 300), options: options) {
                    if let result = event.result {
                        first.withLock { $0 = result }
                        break  // Its final render waits behind the blocker: cancelled here.
                    }
                }
            }
            let arrived = await waitUntil(seconds: 10) { first.withLock { $0 != nil } }
            await blocker.release()
            request.cancel()
            _ = await request.result
            #expect(arrived, "the first result waited for a render thread")
            let result = try #require(first.withLock { $0 })
            #expect(result.isDegraded && result.source == .embeddedThumbnail && result.size == PixelSize(width: 160, height: 107))
            // The bytes stored in the file, untouched: no decoder, no encoder.
            let stored = try exiftool(["-b", "-ThumbnailImage", file.path])
            #expect(result.content.data == stored)
            // Fast format: that result alone.
            let fast = try await fixture.events(asset, size: PixelSize(square: 300), options: ImageRequestOptions(deliveryMode: .fastFormat))
            #expect(fast.compactMap(\.result).map(\.content.data) == [stored])
            #expect(fixture.manager.renderCount == 1, "only the blocker was rendered")
        }

        @Test("after a result delivered at once, the final render starts only when the next event is asked for")
        func finalRenderStartsWhenAsked() async throws {
            let fixture = try ImagingFixture(configuration: ImageManager.Configuration(maximumConcurrentRenders: 1))
            let asset = try fixture.asset(referencing: await LargeImage.withThumbnail)
            let other = try await fixture.asset("pattern.png")
            let options = ImageRequestOptions(deliveryMode: .opportunistic, outputFormat: .jpeg(quality: 80))
            var iterator = fixture.manager.requestImage(for: asset, targetSize: PixelSize(square: 300), options: options).makeAsyncIterator()
            let first = try #require(try await iterator.next()?.result)
            #expect(first.isDegraded && first.source == .embeddedThumbnail)
            // Held there: another request renders on the only render thread, and nothing else did before it
            // (its final render would have been queued first).
            _ = try await fixture.final(other, size: PixelSize(square: 32), options: ImageRequestOptions(deliveryMode: .highQualityFormat))
            #expect(fixture.manager.renderCount == 1, "the held request rendered before it was asked to")
            // Asked: the final result.
            var final: ImageResult?
            while let event = try await iterator.next() { final = event.result ?? final }
            #expect(final?.isDegraded == false && final?.source == .rendered && final?.size == PixelSize(width: 300, height: 200))
            #expect(fixture.manager.renderCount == 2)
        }

        @Test("an EXIF segment beyond the first 64 KiB is found; a damaged one is no thumbnail, and no error")
        func exifSegmentsAnywhere() async throws {
            let fixture = try ImagingFixture()
            let original = try Data(contentsOf: await LargeImage.withThumbnail)
            // An APP15 segment of 65,533 bytes before everything else.
            let padding = Data([0xFF, 0xEF, 0xFF, 0xFF]) + Data(repeating: 0x20, count: 65_533)
            let far = fixture.filesFolder.appending(path: "far.jpg")
            try (original.prefix(2) + padding + original.dropFirst(2)).write(to: far)
            let options = ImageRequestOptions(deliveryMode: .fastFormat)
            let found = try await fixture.events(try fixture.asset(referencing: far), size: PixelSize(square: 300), options: options)
            #expect(found.compactMap(\.result?.source) == [.embeddedThumbnail])
            // EXIF data that is noise: the final result is rendered instead.
            var noise = Data([0xFF, 0xE1, 0x10, 0x02]) + Data("Exif\0\0".utf8)
            noise += Data((0..<4090).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            let damaged = fixture.filesFolder.appending(path: "damaged.jpg")
            try (original.prefix(2) + noise + original.dropFirst(2)).write(to: damaged)
            let rendered = try await fixture.events(try fixture.asset(referencing: damaged), size: PixelSize(square: 300), options: options)
            #expect(rendered.compactMap(\.result).map(\.source) == [.rendered])
        }

        @Test("a cached rendition's hit writes nothing to the disk unless its last use is older than an hour")
        func hitsTouchOnlyStaleFiles() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("camera.jpg")
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 80))
            _ = try await fixture.final(asset, size: PixelSize(square: 64), options: options)
            let file = try #require(fixture.renditionFiles().first)
            func modified() throws -> Date {
                try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
            }
            func setModified(_ date: Date) throws {
                try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
            }
            let recent = Date().addingTimeInterval(-600)
            try setModified(recent)
            #expect(try await fixture.final(asset, size: PixelSize(square: 64), options: options).source == .renditionCache)
            #expect(abs(try modified().timeIntervalSince(recent)) < 1)
            try setModified(Date().addingTimeInterval(-7200))
            #expect(try await fixture.final(asset, size: PixelSize(square: 64), options: options).source == .renditionCache)
            #expect(abs(try modified().timeIntervalSinceNow) < 60)
        }
    }
}

/// exiftool's output, as bytes.
private func exiftool(_ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}
