import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

@Suite("Sync worker: one error type")
struct SyncErrorTests {
    @Test("A library failure comes out of a SyncError as its PhotoLibraryError (underlying); a folder refusal has none")
    func underlyingLibraryError() throws {
        let wrapped = SyncError.library(.notEnoughSpace)
        #expect(wrapped.underlying == .notEnoughSpace)
        #expect(wrapped.kind == .library(.notEnoughSpace))

        let box = try Sandbox()
        #expect {
            _ = try FolderMirror(library: box.library, root: box.root.appending(path: "missing"))
        } throws: { error in
            guard let error = error as? SyncError else { return false }
            return error.kind == .rootMissing && error.underlying == nil
        }
    }
}
