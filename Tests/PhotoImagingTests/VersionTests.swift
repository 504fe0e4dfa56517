import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

extension ImagingTests {
    @Suite("Versions and non-destructive edits")
    struct VersionTests {
        static let pixels = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .rgba8)

        /// Edits `asset`: its rendered result is the pattern at 48×32, in PNG.
        static func edit(_ fixture: ImagingFixture, _ asset: Asset, data: String = "crop:48") async throws -> ContentEditingOutput {
            let input = try fixture.library.requestContentEditingInput(for: asset)
            let output = ContentEditingOutput(contentEditingInput: input, fileExtension: "png")
            output.adjustmentData = AdjustmentData(formatIdentifier: "com.example.test", formatVersion: "1", data: Data(data.utf8))
            let small = try await fixture.final(
                asset, size: PixelSize(square: 48), options: ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .png))
            try #require(small.content.data).write(to: output.renderedContentURL)
            return output
        }

        @Test("an edit is a content change; current shows it, unadjusted and original don't; the original is untouched")
        func editAndRevert() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let original = fixture.filesFolder.appending(path: "pattern.png")
            let originalBytes = try Data(contentsOf: original)
            let token = try fixture.library.currentChangeToken
            let changes = try fixture.library.changes()
            var iterator = changes.makeAsyncIterator()

            let output = try await Self.edit(fixture, asset)
            defer { try? FileManager.default.removeItem(at: output.renderedContentURL) }  // the caller's to delete
            try await fixture.library.performChanges { AssetChangeRequest(for: asset).contentEditingOutput = output }
            let edited = try fixture.refetch(asset)
            #expect(edited.hasAdjustments && edited.contentHash == asset.contentHash)
            let change = try #require(await iterator.next())
            let details = try #require(change.changeDetails(for: asset))
            #expect(details.assetContentChanged && details.objectAfterChanges?.hasAdjustments == true)

            #expect(try await fixture.final(edited, size: PixelSize(square: 96), options: Self.pixels).size == PixelSize(width: 48, height: 32))
            for version in [ImageVersion.unadjusted, .original] {
                var options = Self.pixels
                options.version = version
                let result = try await fixture.final(edited, size: PixelSize(square: 96), options: options)
                #expect(result.size == PixelSize(width: 96, height: 64) && result.version == version)
            }
            let data = try await fixture.manager.requestImageDataAndOrientation(for: edited, version: .current)
            #expect(data.data == (try Data(contentsOf: output.renderedContentURL)) && data.uniformTypeIdentifier == "public.png")
            #expect(try Data(contentsOf: original) == originalBytes)

            let adjustment = try #require(try fixture.library.fetchAdjustment(for: edited))
            #expect(adjustment.adjustmentData.data == Data("crop:48".utf8) && adjustment.baseContentHash == asset.contentHash)
            #expect(adjustment.renderedFileURL.path.hasPrefix(fixture.library.url.path))

            try await fixture.library.performChanges { AssetChangeRequest(for: edited).revertAssetContentToOriginal() }
            let reverted = try fixture.refetch(asset)
            let remaining = try fixture.library.fetchAdjustment(for: reverted)
            #expect(!reverted.hasAdjustments && remaining == nil)
            let revert = try #require(await iterator.next())
            #expect(revert.changeDetails(for: edited)?.assetContentChanged == true)
            #expect(try await fixture.final(reverted, size: PixelSize(square: 96), options: Self.pixels).size == PixelSize(width: 96, height: 64))
            #expect(!FileManager.default.fileExists(atPath: adjustment.renderedFileURL.path))
            #expect(try Data(contentsOf: original) == originalBytes)

            // The journal recorded both as updates of the asset.
            let history = Array(try fixture.library.fetchPersistentChanges(since: token))
            #expect(history.count == 2)
            for entry in history {
                #expect(try entry.changeDetails(for: .asset).updatedLocalIdentifiers == [asset.localIdentifier])
            }
        }

        @Test("an app that can handle the adjustment data gets the original and the data; others get the rendered edit")
        func editingInput() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let output = try await Self.edit(fixture, asset)
            defer { try? FileManager.default.removeItem(at: output.renderedContentURL) }  // the caller's to delete
            try fixture.library.performChangesAndWait { AssetChangeRequest(for: asset).contentEditingOutput = output }
            let handles = try fixture.library.requestContentEditingInput(
                for: asset, options: ContentEditingInputOptions(canHandleAdjustmentData: { $0.formatIdentifier == "com.example.test" }))
            #expect(handles.adjustmentData?.data == Data("crop:48".utf8))
            #expect(handles.fullSizeImageURL.path == fixture.filesFolder.appending(path: "pattern.png").path)
            let other = try fixture.library.requestContentEditingInput(for: asset)
            #expect(other.adjustmentData == nil && other.uniformTypeIdentifier == "public.png")
            let adjustment = try fixture.library.fetchAdjustment(for: asset)
            #expect(other.fullSizeImageURL == adjustment?.renderedFileURL)
            #expect(other.baseContentHash != asset.contentHash)
        }

        @Test("an output without adjustment data fails the block and commits nothing")
        func missingAdjustmentData() async throws {
            let fixture = try ImagingFixture()
            let asset = try await fixture.asset("pattern.png")
            let output = try await Self.edit(fixture, asset)
            defer { try? FileManager.default.removeItem(at: output.renderedContentURL) }  // the caller's to delete
            output.adjustmentData = nil
            #expect(throws: PhotoLibraryError.self) {
                try fixture.library.performChangesAndWait {
                    AssetChangeRequest(for: asset).isFavorite = true
                    AssetChangeRequest(for: asset).contentEditingOutput = output
                }
            }
            let after = try fixture.refetch(asset)
            #expect(!after.hasAdjustments && !after.isFavorite)
        }

        @Test("the edit of a copied original is kept by removeUnreferencedOriginals, and goes with its asset")
        func copiedOriginal() async throws {
            let fixture = try ImagingFixture()
            var identifier = ""
            try fixture.library.performChangesAndWait {
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: ImagingFixture.fixture("pattern.png"))
                identifier = request.placeholderForCreatedAsset!.localIdentifier
            }
            let asset = try #require(try fixture.library.fetchAssets(withLocalIdentifiers: [identifier]).firstObject)
            #expect(asset.storage == .copied)
            let output = try await Self.edit(fixture, asset)
            defer { try? FileManager.default.removeItem(at: output.renderedContentURL) }  // the caller's to delete
            try fixture.library.performChangesAndWait { AssetChangeRequest(for: asset).contentEditingOutput = output }
            let adjustment = try #require(try fixture.library.fetchAdjustment(for: asset))
            #expect(try fixture.library.removeUnreferencedOriginals() == 0)
            #expect(FileManager.default.fileExists(atPath: adjustment.renderedFileURL.path))
            #expect(try await fixture.final(asset, size: PixelSize(square: 96), options: Self.pixels).size == PixelSize(width: 48, height: 32))
            try fixture.library.performChangesAndWait { AssetChangeRequest.deleteAssets([asset]) }
            #expect(!FileManager.default.fileExists(atPath: adjustment.renderedFileURL.path))
        }
    }
}
